-- micad results database, schema version 4.
--
-- Raw integer counts, exactly as MICA writes them, live in tables; MICA's
-- conversions (ILP, mix fractions, misprediction rates, CDFs, bytes) live
-- in views with plain names.  Embedded into the binaries at build time;
-- micad applies it to a new database and migrates older ones by
-- PRAGMA user_version.

PRAGMA application_id = 1296647009;	-- 'MICA' as a big-endian integer

-- One traced run, attach or replay.
CREATE TABLE IF NOT EXISTS session (
	id		INTEGER PRIMARY KEY,
	mode		TEXT NOT NULL CHECK (mode IN ('run', 'attach', 'replay')),
	command		TEXT NOT NULL,		-- argv joined with spaces, or the trace file
	pid		INTEGER,		-- the first traced process
	uid		INTEGER NOT NULL,	-- who asked for it
	config		TEXT NOT NULL,		-- the mica.conf text as given ('' if none)
	settings	TEXT NOT NULL,		-- effective settings, JSON
	-- The MICA settings in effect (mica.md §2), as columns.
	analysis_type	TEXT,			-- 'all', 'ilp', 'ilp_one', 'itypes', ...
	interval_size	INTEGER,		-- S; -1: full
	ilp_size	INTEGER,
	block_size	INTEGER,		-- log2 bytes
	page_size	INTEGER,		-- log2 bytes
	append_pid	INTEGER,
	itypes_spec_file TEXT,
	started_at	REAL NOT NULL,		-- Unix time, seconds
	ended_at	REAL,
	exit_status	INTEGER,		-- the program's, 128+signal if killed
	-- running; exited, killed (by a signal), detached (micad let go of
	-- it), replayed (a replay read its trace to the end), cut-off (micad
	-- died: kill -9, a crash), error (micad could not trace or analyze)
	end_reason	TEXT CHECK (end_reason IN ('running', 'exited', 'killed', 'detached',
						   'replayed', 'cut-off', 'error')),
	-- The process writing the session: while end_reason is 'running', a
	-- later writer marks the session 'cut-off' only if this process is
	-- gone (same boot, same pid and start time = still alive).
	writer_pid	INTEGER,
	writer_start	INTEGER,		-- /proc/PID/stat starttime, clock ticks
	writer_boot_id	TEXT,			-- /proc/sys/kernel/random/boot_id
	-- How the instructions were seen (schema version 3): 'step' (every
	-- one, ptrace), 'sample' (perf_event samples, MICA metrics estimated
	-- from stepped bursts), 'valgrind' (every one, the valgrind engine).
	engine		TEXT NOT NULL DEFAULT 'step'
			CHECK (engine IN ('step', 'sample', 'valgrind')),
	sample_event	TEXT,			-- sample mode: the event in effect ('cpu-clock')
	sample_note	TEXT,			-- sample mode: what was asked, what ran, and why
	weighting	TEXT			-- sample mode bursts: 'instructions' or 'time'
			CHECK (weighting IN ('instructions', 'time')),
	-- Reliability (issue 20, schema version 3): what end_reason does not
	-- say.  error: why micad could not trace or analyze (end_reason
	-- 'error'), e.g. "cannot run 'prog': No such file or directory".
	-- incomplete: NULL when every result collected was stored, else why
	-- some are missing (the database or a disk full, MICA files not
	-- written...), whatever the end_reason.
	error		TEXT,
	incomplete	TEXT
) STRICT;

CREATE TABLE IF NOT EXISTS process (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	pid		INTEGER NOT NULL,
	parent_pid	INTEGER,
	exe		TEXT,			-- /proc/PID/exe when it was first seen
	PRIMARY KEY (session_id, pid)
) STRICT;

CREATE TABLE IF NOT EXISTS thread (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	-- MICA file names of this thread (micactl export --format mica): the
	-- number they carry where append_pid puts the pid, and 1 if they carry
	-- it even without append_pid (any thread but the first process's main
	-- thread).
	files_pid	INTEGER NOT NULL,
	files_pid_always INTEGER NOT NULL DEFAULT 0,
	started_at	REAL,
	ended_at	REAL,
	exit_status	INTEGER,		-- exit code, 128+signal if killed
	end_reason	TEXT CHECK (end_reason IN ('exited', 'killed', 'detached')),
	PRIMARY KEY (session_id, tid)
) STRICT;

-- One interval of one thread (full mode: one row for the whole run).
-- ins = E (every dynamic execution, REP iterations included), ins_aligned
-- = H (REP instructions once): mica.md §1.5.
CREATE TABLE IF NOT EXISTS interval (
	id		INTEGER PRIMARY KEY,
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	idx		INTEGER NOT NULL,	-- 0, 1, ...
	full		INTEGER NOT NULL,	-- 1: the whole run (interval_size: full)
	final		INTEGER NOT NULL,	-- 1: the remainder at the end
	ins		INTEGER NOT NULL,
	ins_aligned	INTEGER NOT NULL,
	total_ins	INTEGER NOT NULL,	-- E and H from the start of the thread
	total_ins_aligned INTEGER NOT NULL,
	started_at	REAL,
	ended_at	REAL,
	UNIQUE (session_id, tid, idx)
) STRICT;

-- ilp: cycles of an ideal machine with a window of `window` instructions
-- (analysis 'ilp': windows 32..256; 'ilp_one': the window of ilp_size).
CREATE TABLE IF NOT EXISTS ilp (
	interval_id	INTEGER NOT NULL REFERENCES interval(id) ON DELETE CASCADE,
	analysis	TEXT NOT NULL CHECK (analysis IN ('ilp', 'ilp_one')),
	window		INTEGER NOT NULL,
	cycles		INTEGER NOT NULL,
	PRIMARY KEY (interval_id, analysis, window)
) STRICT;

-- itypes: names of the groups of a session (dictionary), then counts.
CREATE TABLE IF NOT EXISTS itypes_group (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	grp		INTEGER NOT NULL,
	name		TEXT NOT NULL,		-- e.g. 'mem_read', 'other' for the catch-all
	identifiers	TEXT,			-- 'CATEGORY COND_BR, OPCODE LEAVE, ...'
	PRIMARY KEY (session_id, grp)
) STRICT;

-- The catch-all's categories per thread in discovery order
-- (itypes_other_group_categories.txt).
CREATE TABLE IF NOT EXISTS itypes_other (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	seq		INTEGER NOT NULL,	-- 0, 1, ...
	category	TEXT NOT NULL,
	PRIMARY KEY (session_id, tid, seq)
) STRICT;

CREATE TABLE IF NOT EXISTS itypes (
	interval_id	INTEGER NOT NULL REFERENCES interval(id) ON DELETE CASCADE,
	grp		INTEGER NOT NULL,
	count		INTEGER NOT NULL,
	PRIMARY KEY (interval_id, grp)
) STRICT;

-- ppm: the 12 predictors (dictionary), mispredictions per predictor, and
-- the branch counts (B, and the folded transition and taken counts).
CREATE TABLE IF NOT EXISTS ppm_predictor (
	id		INTEGER PRIMARY KEY,
	organization	TEXT NOT NULL,		-- GAg, PAg, GAs, PAs
	history		INTEGER NOT NULL,	-- 4, 8, 12
	UNIQUE (organization, history)
) STRICT;

CREATE TABLE IF NOT EXISTS ppm (
	interval_id	INTEGER NOT NULL REFERENCES interval(id) ON DELETE CASCADE,
	predictor_id	INTEGER NOT NULL REFERENCES ppm_predictor(id),
	misses		INTEGER NOT NULL,
	PRIMARY KEY (interval_id, predictor_id)
) STRICT;

CREATE TABLE IF NOT EXISTS ppm_branches (
	interval_id	INTEGER PRIMARY KEY REFERENCES interval(id) ON DELETE CASCADE,
	branches	INTEGER NOT NULL,
	transitions	INTEGER NOT NULL,
	taken		INTEGER NOT NULL
) STRICT;

-- reg: MICA's 11 numbers.  c_D = reads whose producer is at most D
-- instructions back (cumulative).
CREATE TABLE IF NOT EXISTS reg (
	interval_id	INTEGER PRIMARY KEY REFERENCES interval(id) ON DELETE CASCADE,
	operands	INTEGER NOT NULL,	-- totOps
	values_		INTEGER NOT NULL,	-- nVals: values overwritten
	uses		INTEGER NOT NULL,	-- totUses: reads of those values
	reads		INTEGER NOT NULL,	-- nReads
	c1 INTEGER NOT NULL, c2 INTEGER NOT NULL, c4 INTEGER NOT NULL, c8 INTEGER NOT NULL,
	c16 INTEGER NOT NULL, c32 INTEGER NOT NULL, c64 INTEGER NOT NULL
) STRICT;

-- stride: accesses with a stride <= le bytes, cumulative, per kind.
CREATE TABLE IF NOT EXISTS stride_total (
	interval_id	INTEGER PRIMARY KEY REFERENCES interval(id) ON DELETE CASCADE,
	reads		INTEGER NOT NULL,
	writes		INTEGER NOT NULL,
	-- Sample mode (NULL in step mode): accesses through a static operand
	-- seen for the first time, in reads/writes but in no local row.
	first_reads	INTEGER,
	first_writes	INTEGER
) STRICT;

CREATE TABLE IF NOT EXISTS stride (
	interval_id	INTEGER NOT NULL REFERENCES interval(id) ON DELETE CASCADE,
	kind		TEXT NOT NULL CHECK (kind IN ('local_read', 'global_read',
						      'local_write', 'global_write')),
	le		INTEGER NOT NULL,	-- 0, 8, 64, 512, 4096, 32768, 262144
	count		INTEGER NOT NULL,
	PRIMARY KEY (interval_id, kind, le)
) STRICT;

-- memfootprint: distinct blocks and pages touched in the interval.
CREATE TABLE IF NOT EXISTS memfootprint (
	interval_id	INTEGER PRIMARY KEY REFERENCES interval(id) ON DELETE CASCADE,
	data_blocks	INTEGER NOT NULL,
	data_pages	INTEGER NOT NULL,
	insn_blocks	INTEGER NOT NULL,
	insn_pages	INTEGER NOT NULL,
	block_size	INTEGER NOT NULL,	-- log2 bytes
	page_size	INTEGER NOT NULL
) STRICT;

-- memstackdist: reuse (LRU stack) distance of data reads in blocks.
CREATE TABLE IF NOT EXISTS reuse_bucket (
	bucket		INTEGER PRIMARY KEY,	-- 0..18
	lo		INTEGER NOT NULL,	-- distance range [lo, hi); hi NULL: unbounded
	hi		INTEGER
) STRICT;

CREATE TABLE IF NOT EXISTS memstackdist (
	interval_id	INTEGER PRIMARY KEY REFERENCES interval(id) ON DELETE CASCADE,
	refs		INTEGER NOT NULL,
	cold		INTEGER NOT NULL,
	-- Sample mode (NULL in step mode).  censored: reads whose previous
	-- access to the block is older than their burst (its distance is
	-- unknown): in refs, never cold, in no bucket.  horizon: the fewest
	-- distinct blocks a burst of the interval had seen when its measured
	-- unit began; a bucket whose hi <= horizon is estimable (no censored
	-- read can belong to it), longer ones are not.  cold is then the reads
	-- of blocks micad had never seen: a lower bound.
	censored	INTEGER,
	horizon		INTEGER
) STRICT;

CREATE TABLE IF NOT EXISTS memstackdist_bucket (
	interval_id	INTEGER NOT NULL REFERENCES interval(id) ON DELETE CASCADE,
	bucket		INTEGER NOT NULL REFERENCES reuse_bucket(bucket),
	count		INTEGER NOT NULL,
	PRIMARY KEY (interval_id, bucket)
) STRICT;

INSERT OR IGNORE INTO ppm_predictor (id, organization, history) VALUES
	(0, 'GAg', 4), (1, 'PAg', 4), (2, 'GAs', 4), (3, 'PAs', 4),
	(4, 'GAg', 8), (5, 'PAg', 8), (6, 'GAs', 8), (7, 'PAs', 8),
	(8, 'GAg', 12), (9, 'PAg', 12), (10, 'GAs', 12), (11, 'PAs', 12);

INSERT OR IGNORE INTO reuse_bucket (bucket, lo, hi) VALUES
	(0, 0, 2), (1, 2, 4), (2, 4, 8), (3, 8, 16), (4, 16, 32), (5, 32, 64),
	(6, 64, 128), (7, 128, 256), (8, 256, 512), (9, 512, 1024), (10, 1024, 2048),
	(11, 2048, 4096), (12, 4096, 8192), (13, 8192, 16384), (14, 16384, 32768),
	(15, 32768, 65536), (16, 65536, 131072), (17, 131072, 262144), (18, 262144, NULL);

-- Views: MICA's conversions (mica.md "Conversion" paragraphs).  Every view
-- has session_id, tid and interval (the interval's idx) first.  Ratios
-- whose denominator is 0 are NULL.

-- ILP_W = instructions / cycles_W, instructions = E of the interval
-- (§3.1; ILP lines are shifted by the 200-entry buffer in interval mode).
CREATE VIEW IF NOT EXISTS ilp_per_window AS
	SELECT i.session_id, i.tid, i.idx AS interval, l.analysis, l.window, i.ins, l.cycles,
	       CASE WHEN l.cycles > 0 THEN CAST(i.ins AS REAL) / l.cycles END AS ilp
	FROM ilp l JOIN interval i ON i.id = l.interval_id;

-- fraction = n_g / E (§3.2: group counts are per dynamic execution).
CREATE VIEW IF NOT EXISTS instruction_mix AS
	SELECT i.session_id, i.tid, i.idx AS interval, t.grp, g.name AS grp_name, t.count, i.ins,
	       CASE WHEN i.ins > 0 THEN CAST(t.count AS REAL) / i.ins END AS fraction
	FROM itypes t JOIN interval i ON i.id = t.interval_id
	LEFT JOIN itypes_group g ON g.session_id = i.session_id AND g.grp = t.grp;

-- rate = mispredictions / B (conditional branches), mpki = 1000 *
-- mispredictions / E (§3.3).
CREATE VIEW IF NOT EXISTS misprediction_rate AS
	SELECT i.session_id, i.tid, i.idx AS interval, p.organization, p.history, m.misses,
	       b.branches,
	       CASE WHEN b.branches > 0 THEN CAST(m.misses AS REAL) / b.branches END AS rate,
	       CASE WHEN i.ins > 0 THEN 1000.0 * m.misses / i.ins END AS mpki
	FROM ppm m JOIN interval i ON i.id = m.interval_id
	JOIN ppm_predictor p ON p.id = m.predictor_id
	JOIN ppm_branches b ON b.interval_id = m.interval_id;

-- taken_rate = TK / B, transition_rate = TR / B (both <= 0.5: folded).
CREATE VIEW IF NOT EXISTS branch_behaviour AS
	SELECT i.session_id, i.tid, i.idx AS interval, b.branches, b.transitions, b.taken,
	       CASE WHEN b.branches > 0 THEN CAST(b.transitions AS REAL) / b.branches END AS transition_rate,
	       CASE WHEN b.branches > 0 THEN CAST(b.taken AS REAL) / b.branches END AS taken_rate
	FROM ppm_branches b JOIN interval i ON i.id = b.interval_id;

-- avg_operands = totOps / E, avg_degree_of_use = totUses / nVals (§3.4).
CREATE VIEW IF NOT EXISTS register_traffic AS
	SELECT i.session_id, i.tid, i.idx AS interval, i.ins, r.operands,
	       CASE WHEN i.ins > 0 THEN CAST(r.operands AS REAL) / i.ins END AS avg_operands,
	       r.values_, r.uses,
	       CASE WHEN r.values_ > 0 THEN CAST(r.uses AS REAL) / r.values_ END AS avg_degree_of_use,
	       r.reads
	FROM reg r JOIN interval i ON i.id = r.interval_id;

-- P(dependency distance <= D) = c_D / nReads, D = 1, 2, 4, ... 64.
CREATE VIEW IF NOT EXISTS dependency_distance_cdf AS
	SELECT i.session_id, i.tid, i.idx AS interval, d.distance,
	       CASE d.distance WHEN 1 THEN r.c1 WHEN 2 THEN r.c2 WHEN 4 THEN r.c4 WHEN 8 THEN r.c8
		    WHEN 16 THEN r.c16 WHEN 32 THEN r.c32 ELSE r.c64 END AS count,
	       r.reads,
	       CASE WHEN r.reads > 0 THEN
		    CAST(CASE d.distance WHEN 1 THEN r.c1 WHEN 2 THEN r.c2 WHEN 4 THEN r.c4
			 WHEN 8 THEN r.c8 WHEN 16 THEN r.c16 WHEN 32 THEN r.c32 ELSE r.c64 END
			 AS REAL) / r.reads END AS probability
	FROM reg r JOIN interval i ON i.id = r.interval_id
	JOIN (SELECT 1 AS distance UNION ALL SELECT 2 UNION ALL SELECT 4 UNION ALL SELECT 8
	      UNION ALL SELECT 16 UNION ALL SELECT 32 UNION ALL SELECT 64) d;

-- P(stride <= le) = count / nR (reads) or / nW (writes) (§3.5).
CREATE VIEW IF NOT EXISTS stride_cdf AS
	SELECT i.session_id, i.tid, i.idx AS interval, s.kind, s.le, s.count,
	       CASE WHEN s.kind LIKE '%read' THEN t.reads ELSE t.writes END AS accesses,
	       CAST(s.count AS REAL) /
		    NULLIF(CASE WHEN s.kind LIKE '%read' THEN t.reads ELSE t.writes END, 0)
		    AS probability
	FROM stride s JOIN interval i ON i.id = s.interval_id
	JOIN stride_total t ON t.interval_id = s.interval_id;

-- Distinct blocks and pages times their size (§3.6): per interval, not
-- cumulative.
CREATE VIEW IF NOT EXISTS footprint_bytes AS
	SELECT i.session_id, i.tid, i.idx AS interval,
	       f.data_blocks << f.block_size AS data_block_bytes,
	       f.data_pages << f.page_size AS data_page_bytes,
	       f.insn_blocks << f.block_size AS insn_block_bytes,
	       f.insn_pages << f.page_size AS insn_page_bytes
	FROM memfootprint f JOIN interval i ON i.id = f.interval_id;

-- fraction = count / refs (cold references included in refs), cdf = the
-- fractions of buckets 0..bucket summed: P(distance < hi) (§3.7).
CREATE VIEW IF NOT EXISTS reuse_distance AS
	SELECT i.session_id, i.tid, i.idx AS interval, b.bucket, rb.lo, rb.hi, b.count, m.refs,
	       CAST(b.count AS REAL) / NULLIF(m.refs, 0) AS fraction,
	       CAST(SUM(b.count) OVER (PARTITION BY b.interval_id ORDER BY b.bucket) AS REAL)
		    / NULLIF(m.refs, 0) AS cdf
	FROM memstackdist_bucket b JOIN memstackdist m ON m.interval_id = b.interval_id
	JOIN interval i ON i.id = b.interval_id
	JOIN reuse_bucket rb ON rb.bucket = b.bucket;

-- Reads of a block never read before in the run, over all references.
CREATE VIEW IF NOT EXISTS cold_references AS
	SELECT i.session_id, i.tid, i.idx AS interval, m.refs, m.cold,
	       CAST(m.cold AS REAL) / NULLIF(m.refs, 0) AS fraction
	FROM memstackdist m JOIN interval i ON i.id = m.interval_id;

-- Sample mode (schema version 3): MICA's metrics estimated from bursts.
--
-- sample_interval: one row per sample-mode interval of a thread (the same
-- session_id, tid, idx as its row of table interval, whose counts are then
-- the sums over the interval's measured units): how its bursts went.
-- Sample-mode intervals are in time (--interval-time): every interval of a
-- thread from its start to its end has a row, bursts 0 included.
CREATE TABLE IF NOT EXISTS sample_interval (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	idx		INTEGER NOT NULL,
	bursts		INTEGER NOT NULL,	-- measured units (n)
	aborted		INTEGER NOT NULL,	-- bursts discarded (cut short)
	warmup_ins	INTEGER NOT NULL,	-- E of the measured bursts' warm-ups
	PRIMARY KEY (session_id, tid, idx)
) STRICT;

-- metric_sums: per sample-mode interval, thread and ratio metric (named as
-- in view metric), the sums of the ratio estimator over the interval's
-- units i: n, sum x_i, sum y_i, sum x_i^2, sum x_i y_i, sum y_i^2, where
-- y / x is exactly the metric's ratio (mpki: y = 1000 * misses; ilp: y =
-- instructions, x = cycles; mix: y = the group's count, x = instructions;
-- reuse: x = refs; see analyzers/mica/mica_sample.h).  Sums pool: add them over
-- intervals or threads for an estimate over both (view session_metric).
-- estimable: 0 for reuse buckets (and CDF points) beyond the interval's
-- horizon (memstackdist.horizon), and for reuse_cold (a lower bound: a
-- read of a block no burst saw is censored).  Intervals without a unit
-- have no rows.
CREATE TABLE IF NOT EXISTS metric_sums (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	idx		INTEGER NOT NULL,
	metric		TEXT NOT NULL,
	n		INTEGER NOT NULL,
	sum_x		INTEGER NOT NULL,
	sum_y		INTEGER NOT NULL,
	sum_xx		REAL NOT NULL,		-- REAL: they outgrow 64 bits
	sum_xy		REAL NOT NULL,
	sum_yy		REAL NOT NULL,
	estimable	INTEGER NOT NULL DEFAULT 1,
	PRIMARY KEY (session_id, tid, idx, metric)
) STRICT;

-- proportion_metric: the metrics that are proportions (every metric whose
-- name begins with a row's prefix; no prefix begins another): their y
-- counts a subset of the events x counts, so y / x lies in [0, scale] (1;
-- MPKI 1000).  Their intervals are clamped to that range, and when no unit
-- saw the event (sum_y = 0) or every unit saw it on every event of x
-- (sum_y = scale * sum_x), when the units' SE is 0 although an event may
-- well have gone unseen, the interval is the rule of three's over the n
-- units: [0, 3 scale / n] (or [scale - 3 scale / n, scale]) (at 95%, fewer
-- than 3 / n of the units would see it, and a unit's ratio is at most
-- scale; events come in clumps, not one by one), and se =
-- 3 scale / (1.96 n).  Other metrics (ILP, operands and uses per
-- value) have none of this.  The same rows as
-- analyzers/mica/ratio_estimate.c's ratio_proportions.  A metric's row:
-- the greatest prefix not above its name, if it is a prefix of it.
CREATE TABLE IF NOT EXISTS proportion_metric (
	prefix		TEXT PRIMARY KEY,
	scale		REAL NOT NULL
) STRICT;
INSERT OR IGNORE INTO proportion_metric (prefix, scale) VALUES
	('mix_', 1), ('mispredict_', 1), ('mpki_', 1000), ('taken_rate', 1),
	('transition_rate', 1), ('dependency_distance_le_', 1), ('stride_', 1),
	('reuse_bucket_', 1), ('reuse_cdf_', 1), ('reuse_cold', 1), ('reuse_censored', 1);

-- student_t: the 97.5% quantile q975 of Student's t distribution with df
-- degrees of freedom, df = 1 .. 30 (to 4 decimals; beyond, the views use
-- the Cornish-Fisher expansion 1.959964 + 2.372271 / df + 2.822499 / df^2,
-- within 2e-4).  A 95% interval from n bursts is R -/+ t(n - 1) se: with a
-- few bursts the normal quantile 1.96 claims too much.  The same numbers
-- as analyzers/mica/ratio_estimate.c's ratio_t975.
CREATE TABLE IF NOT EXISTS student_t (
	df		INTEGER PRIMARY KEY,
	q975		REAL NOT NULL
) STRICT;
INSERT OR IGNORE INTO student_t (df, q975) VALUES
	(1, 12.7062), (2, 4.3027), (3, 3.1824), (4, 2.7764), (5, 2.5706), (6, 2.4469),
	(7, 2.3646), (8, 2.3060), (9, 2.2622), (10, 2.2281), (11, 2.2010), (12, 2.1788),
	(13, 2.1604), (14, 2.1448), (15, 2.1314), (16, 2.1199), (17, 2.1098), (18, 2.1009),
	(19, 2.0930), (20, 2.0860), (21, 2.0796), (22, 2.0739), (23, 2.0687), (24, 2.0639),
	(25, 2.0595), (26, 2.0555), (27, 2.0518), (28, 2.0484), (29, 2.0452), (30, 2.0423);

-- The estimate of each metric per interval from its sums (spec
-- performance.md §3.3): value R = sum_y / sum_x, se = SE(R) = sqrt( sum (y_i
-- - R x_i)^2 / (n (n - 1)) ) / mean(x) (NULL with fewer than 2 units), the
-- 95% interval R -/+ half_width, half_width = quantile se, quantile = t(n -
-- 1) (student_t); for proportions, the rule of three (quantile 1.96)
-- and the clamp of proportion_metric.  The building block of metric and
-- metric_estimate (one table, so that a join on it uses its key).
CREATE VIEW IF NOT EXISTS metric_ci AS
	SELECT session_id, tid, interval, metric, n_bursts, value, se, quantile,
	       quantile * se AS half_width,
	       CASE WHEN scale IS NULL THEN value - quantile * se
		    ELSE max(value - quantile * se, 0.0) END AS ci_low,
	       CASE WHEN scale IS NULL THEN value + quantile * se
		    ELSE min(value + quantile * se, scale) END AS ci_high, estimable
	FROM (SELECT session_id, tid, interval, metric, n_bursts, value, estimable, scale,
		     CASE WHEN n_bursts < 2 OR value IS NULL THEN NULL
			  WHEN scale IS NOT NULL AND (sum_y = 0 OR sum_y = scale * sum_x) THEN
			  scale * 3.0 / (1.96 * n_bursts)
			  ELSE sqrt(max(sum_yy - 2 * value * sum_xy + value * value * sum_xx, 0.0)
			       / (n_bursts * (n_bursts - 1.0)))
			  / (CAST(sum_x AS REAL) / n_bursts) END AS se,
		     CASE WHEN n_bursts < 2 OR value IS NULL THEN NULL
			  WHEN scale IS NOT NULL AND (sum_y = 0 OR sum_y = scale * sum_x) THEN 1.96
			  ELSE coalesce((SELECT q975 FROM student_t WHERE df = n_bursts - 1),
					1.959964 + 2.372271 / (n_bursts - 1.0)
					+ 2.822499 / ((n_bursts - 1.0) * (n_bursts - 1.0))) END AS quantile
	      FROM (SELECT session_id, tid, idx AS interval, metric, n AS n_bursts, sum_x, sum_y,
			   sum_xx, sum_xy, sum_yy, estimable,
			   CAST(sum_y AS REAL) / NULLIF(sum_x, 0) AS value,
			   (SELECT CASE WHEN substr(metric, 1, length(prefix)) = prefix THEN scale END
			    FROM proportion_metric WHERE prefix <= metric ORDER BY prefix DESC LIMIT 1) AS scale
		    FROM metric_sums));

-- Every derived metric in one long table, for generic charts: (session,
-- thread, interval, metric, value) as computed from the interval's counts.
-- In sample mode value is the ratio estimate over the interval's bursts,
-- ci_low and ci_high its 95% confidence interval (NULL with fewer than 2
-- bursts, for the footprints, which are lower bounds and no ratio, for
-- reuse_cold, a lower bound, and for reuse buckets that are not
-- estimable), n_bursts the interval's measured
-- bursts; all three NULL in step mode.
CREATE VIEW IF NOT EXISTS metric AS
	SELECT v.session_id, v.tid, v.interval, v.metric, v.value,
	       CASE WHEN c.estimable THEN c.ci_low END AS ci_low,
	       CASE WHEN c.estimable THEN c.ci_high END AS ci_high,
	       si.bursts AS n_bursts
	FROM (
	SELECT session_id, tid, interval, analysis || '_' || window AS metric, ilp AS value
		FROM ilp_per_window
	UNION ALL SELECT session_id, tid, interval, 'mix_' || COALESCE(grp_name, grp), fraction
		FROM instruction_mix
	UNION ALL SELECT session_id, tid, interval, 'mispredict_' || organization || '_' || history, rate
		FROM misprediction_rate
	UNION ALL SELECT session_id, tid, interval, 'mpki_' || organization || '_' || history, mpki
		FROM misprediction_rate
	UNION ALL SELECT session_id, tid, interval, 'taken_rate', taken_rate FROM branch_behaviour
	UNION ALL SELECT session_id, tid, interval, 'transition_rate', transition_rate FROM branch_behaviour
	UNION ALL SELECT session_id, tid, interval, 'avg_register_operands', avg_operands FROM register_traffic
	UNION ALL SELECT session_id, tid, interval, 'avg_degree_of_use', avg_degree_of_use FROM register_traffic
	UNION ALL SELECT session_id, tid, interval, 'dependency_distance_le_' || distance, probability
		FROM dependency_distance_cdf
	UNION ALL SELECT session_id, tid, interval, 'stride_' || kind || '_le_' || le, probability
		FROM stride_cdf
	UNION ALL SELECT session_id, tid, interval, 'data_footprint_bytes', data_block_bytes FROM footprint_bytes
	UNION ALL SELECT session_id, tid, interval, 'data_footprint_page_bytes', data_page_bytes FROM footprint_bytes
	UNION ALL SELECT session_id, tid, interval, 'insn_footprint_bytes', insn_block_bytes FROM footprint_bytes
	UNION ALL SELECT session_id, tid, interval, 'insn_footprint_page_bytes', insn_page_bytes FROM footprint_bytes
	-- The reuse rows as reuse_distance computes them, without its window
	-- function (which SQLite cannot filter before computing it over every
	-- interval of the database): a filter on session, thread or interval
	-- reaches the tables' indexes.
	UNION ALL SELECT i.session_id, i.tid, i.idx, 'reuse_bucket_' || b.bucket,
			 CAST(b.count AS REAL) / NULLIF(m.refs, 0)
		FROM memstackdist_bucket b JOIN memstackdist m ON m.interval_id = b.interval_id
		JOIN interval i ON i.id = b.interval_id
		JOIN reuse_bucket rb ON rb.bucket = b.bucket
	UNION ALL SELECT i.session_id, i.tid, i.idx, 'reuse_cdf_' || b.bucket,
			 CAST((SELECT SUM(b2.count) FROM memstackdist_bucket b2
			       JOIN reuse_bucket r2 ON r2.bucket = b2.bucket
			       WHERE b2.interval_id = b.interval_id AND b2.bucket <= b.bucket) AS REAL)
			 / NULLIF(m.refs, 0)
		FROM memstackdist_bucket b JOIN memstackdist m ON m.interval_id = b.interval_id
		JOIN interval i ON i.id = b.interval_id
		JOIN reuse_bucket rb ON rb.bucket = b.bucket
	UNION ALL SELECT session_id, tid, interval, 'reuse_cold', fraction FROM cold_references
	UNION ALL SELECT i.session_id, i.tid, i.idx, 'reuse_censored',
			 CAST(m.censored AS REAL) / NULLIF(m.refs, 0)
		FROM memstackdist m JOIN interval i ON i.id = m.interval_id
		WHERE m.censored IS NOT NULL) v
	LEFT JOIN sample_interval si
		ON si.session_id = v.session_id AND si.tid = v.tid AND si.idx = v.interval
	LEFT JOIN metric_ci c ON c.session_id = v.session_id AND c.tid = v.tid
		AND c.interval = v.interval AND c.metric = v.metric;

-- The estimates in full, per interval: everything spec performance.md §3.3
-- asks to report.  U and W: mean measured and warm-up instructions per
-- burst; level: the confidence level; half_width = t(n - 1) se (1.96 se for
-- the rule of three), and relative to the value; cv: the realized
-- coefficient of variation of the units (sqrt(n) se / value), which sizes a
-- run: n >= (t cv / eps)^2 bursts for a relative half-width eps.
CREATE VIEW IF NOT EXISTS metric_estimate AS
	SELECT c.session_id, c.tid, c.interval, c.metric, c.value, c.n_bursts,
	       CAST(i.ins AS REAL) / NULLIF(si.bursts, 0) AS U,
	       CAST(si.warmup_ins AS REAL) / NULLIF(si.bursts, 0) AS W,
	       0.95 AS level, c.se, c.half_width,
	       c.half_width / NULLIF(abs(c.value), 0) AS rel_half_width,
	       c.ci_low, c.ci_high,
	       sqrt(c.n_bursts) * c.se / NULLIF(abs(c.value), 0) AS cv,
	       c.estimable
	FROM metric_ci c
	JOIN interval i ON i.session_id = c.session_id AND i.tid = c.tid AND i.idx = c.interval
	JOIN sample_interval si ON si.session_id = c.session_id AND si.tid = c.tid
		AND si.idx = c.interval;

-- The same over a whole session: every thread's and interval's units
-- pooled (their sums added), one row per metric.  estimable: in every
-- interval.
CREATE VIEW IF NOT EXISTS session_metric AS
	SELECT session_id, metric, value, n_bursts,
	       (SELECT CAST(sum(i.ins) AS REAL) / NULLIF(sum(si.bursts), 0)
		FROM sample_interval si JOIN interval i ON i.session_id = si.session_id
		AND i.tid = si.tid AND i.idx = si.idx WHERE si.session_id = e.session_id) AS U,
	       (SELECT CAST(sum(warmup_ins) AS REAL) / NULLIF(sum(bursts), 0)
		FROM sample_interval WHERE session_id = e.session_id) AS W,
	       0.95 AS level, se,
	       quantile * se AS half_width, quantile * se / NULLIF(abs(value), 0) AS rel_half_width,
	       CASE WHEN NOT estimable THEN NULL WHEN scale IS NULL THEN value - quantile * se
		    ELSE max(value - quantile * se, 0.0) END AS ci_low,
	       CASE WHEN NOT estimable THEN NULL WHEN scale IS NULL THEN value + quantile * se
		    ELSE min(value + quantile * se, scale) END AS ci_high,
	       sqrt(n_bursts) * se / NULLIF(abs(value), 0) AS cv, estimable
	FROM (SELECT session_id, metric, n_bursts, value, estimable, scale,
		     CASE WHEN n_bursts < 2 OR value IS NULL THEN NULL
			  WHEN scale IS NOT NULL AND (sum_y = 0 OR sum_y = scale * sum_x) THEN
			  scale * 3.0 / (1.96 * n_bursts)
			  ELSE sqrt(max(sum_yy - 2 * value * sum_xy + value * value * sum_xx, 0.0)
			       / (n_bursts * (n_bursts - 1.0)))
			  / (CAST(sum_x AS REAL) / n_bursts) END AS se,
		     CASE WHEN n_bursts < 2 OR value IS NULL THEN NULL
			  WHEN scale IS NOT NULL AND (sum_y = 0 OR sum_y = scale * sum_x) THEN 1.96
			  ELSE coalesce((SELECT q975 FROM student_t WHERE df = n_bursts - 1),
					1.959964 + 2.372271 / (n_bursts - 1.0)
					+ 2.822499 / ((n_bursts - 1.0) * (n_bursts - 1.0))) END AS quantile
	      FROM (SELECT session_id, metric, sum(n) AS n_bursts, sum(sum_x) AS sum_x,
			   sum(sum_y) AS sum_y, sum(sum_xx) AS sum_xx, sum(sum_xy) AS sum_xy,
			   sum(sum_yy) AS sum_yy, min(estimable) AS estimable,
			   CAST(sum(sum_y) AS REAL) / NULLIF(sum(sum_x), 0) AS value,
			   (SELECT CASE WHEN substr(metric, 1, length(prefix)) = prefix THEN scale END
			    FROM proportion_metric WHERE prefix <= metric ORDER BY prefix DESC LIMIT 1) AS scale
		    FROM metric_sums GROUP BY session_id, metric)) e;

-- MGSim counters (mgsim-counters.md; Model A: one simulated core runs every
-- traced task).  Owned by the MGSim view (analyzers/mgsim/mgsim.h,
-- daemon/store/store_mgsim.c).
--
-- mgsim_counter: the 21 counters (dictionary; names are slcore's mtperf
-- columns, the JSON keys).  kind: how the Linux mapping relates to MGSim
-- ('natural' or 'invented' design choices: README, "Simulated MGSim
-- performance counters").
CREATE TABLE IF NOT EXISTS mgsim_counter (
	idx		INTEGER PRIMARY KEY,	-- 0..20, the MMIO word index
	name		TEXT NOT NULL UNIQUE,
	macro		TEXT NOT NULL,		-- slcore perf.h MTPERF_* / ... name
	unit		TEXT NOT NULL,
	scope		TEXT NOT NULL,		-- global, place, chip, host, core
	kind		TEXT NOT NULL,
	cumulative	INTEGER NOT NULL	-- 0: 9 (a size) and 13-15 (clock readings)
) STRICT;

INSERT OR IGNORE INTO mgsim_counter (idx, name, macro, unit, scope, kind, cumulative) VALUES
	(0, 'clocks', 'MTPERF_CLOCKS', 'master cycles', 'global', 'natural', 1),
	(1, 'n_exec_insns', 'EXECUTED_INSNS', 'instructions', 'place', 'natural', 1),
	(2, 'n_issued_flops', 'ISSUED_FP_INSNS', 'instructions', 'place', 'natural, invented edges', 1),
	(3, 'n_compl_core_loads', 'COMPLETED_LOAD_INSNS', 'instructions', 'place',
	    'natural + invented rules', 1),
	(4, 'n_compl_core_stores', 'COMPLETED_STORE_INSNS', 'instructions', 'place',
	    'natural + invented rules', 1),
	(5, 'n_bytes_l1tocore', 'CORE_LOADED_BYTES', 'bytes', 'place', 'natural', 1),
	(6, 'n_bytes_coretol1', 'CORE_STORED_BYTES', 'bytes', 'place', 'natural', 1),
	(7, 'n_reqs_l2tol1', 'L2_LOADS', 'lines', 'chip', 'natural', 1),
	(8, 'n_reqs_l1tol2', 'L2_STORES', 'lines', 'chip', 'natural (policy-dependent)', 1),
	(9, 'notused1', 'PLACE_SIZE', 'cores', 'place', 'invented mapping', 0),
	(10, 'tt_total', 'CUMUL_TT_OCCUPANCY', 'entry x master cycles', 'place', 'natural', 1),
	(11, 'ft_total', 'CUMUL_FT_OCCUPANCY', 'entry x master cycles', 'place', 'invented', 1),
	(12, 'xq_total', 'CUMUL_ALLOC_EX_QSIZE', 'request x master cycles', 'place', 'invented', 1),
	(13, 'notused2', 'UNIX_CTIME', 's', 'host', 'natural (identical)', 0),
	(14, 'notused3', 'UNIX_PACKED_DATE', 'packed', 'host', 'natural (identical algorithm)', 0),
	(15, 'notused4', 'UNIX_PACKED_TIME', 'packed', 'host', 'natural (identical algorithm)', 0),
	(16, 'n_cl_loads_ext', 'EXTMEM_LOADS', 'lines', 'chip', 'natural', 1),
	(17, 'n_cl_stores_ext', 'EXTMEM_STORES', 'lines', 'chip', 'natural', 1),
	(18, 'n_cr_threads', 'CREATED_THREADS', 'threads', 'place', 'natural', 1),
	(19, 'n_cr_families', 'CREATED_FAMILIES', 'families', 'place', 'invented', 1),
	(20, 'core_clocks', 'CORE_CYCLES', 'core cycles', 'core', 'natural', 1);

-- The model's settings for a session (mgsim_config_json has the same).
CREATE TABLE IF NOT EXISTS mgsim_config (
	session_id	INTEGER PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
	model		TEXT NOT NULL CHECK (model IN ('A')),
	core_mhz	INTEGER NOT NULL,
	master_mhz	INTEGER NOT NULL,
	ratio		INTEGER NOT NULL,	-- R = master_mhz / core_mhz
	l1i_size	INTEGER NOT NULL,	-- bytes
	l1i_assoc	INTEGER NOT NULL,
	l1i_line	INTEGER NOT NULL,
	l1d_size	INTEGER NOT NULL,
	l1d_assoc	INTEGER NOT NULL,
	l1d_line	INTEGER NOT NULL,
	l1d_policy	TEXT NOT NULL CHECK (l1d_policy IN ('write-through', 'write-back')),
	l2_size		INTEGER,		-- NULL: no L2 (16 == 7, 17 == 8)
	l2_assoc	INTEGER,
	l2_line		INTEGER,
	cycle_model	TEXT NOT NULL,		-- 'simple', or the scheduling model's name
	l2_latency	INTEGER NOT NULL,	-- simple model: core cycles per L1 miss
	mem_latency	INTEGER NOT NULL,	-- ... per line from memory
	thread_entries	INTEGER NOT NULL,	-- nominal, for tt_occp
	family_entries	INTEGER NOT NULL,	-- nominal, for ft_occp
	xq_mode		TEXT NOT NULL CHECK (xq_mode IN ('futex', 'off')),
	mmio_base	INTEGER NOT NULL,	-- 0: the MMIO view is unmapped
	word_size	INTEGER NOT NULL,
	time_format	TEXT NOT NULL CHECK (time_format IN ('clean', 'alpha'))
) STRICT;

-- Cumulative counters (chip-wide, since tracing began) taken when thread
-- tid started (idx -1) and when its interval idx (table interval) closed.
-- Counters 13-15 are the host clock at that moment (taken_at).
CREATE TABLE IF NOT EXISTS mgsim_counters (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	idx		INTEGER NOT NULL CHECK (idx >= -1),
	final		INTEGER NOT NULL,	-- 1: the remainder at the thread's end
	taken_at	REAL NOT NULL,		-- Unix time, seconds
	clocks		INTEGER NOT NULL,
	n_exec_insns	INTEGER NOT NULL,
	n_issued_flops	INTEGER NOT NULL,
	n_compl_core_loads INTEGER NOT NULL,
	n_compl_core_stores INTEGER NOT NULL,
	n_bytes_l1tocore INTEGER NOT NULL,
	n_bytes_coretol1 INTEGER NOT NULL,
	n_reqs_l2tol1	INTEGER NOT NULL,
	n_reqs_l1tol2	INTEGER NOT NULL,
	notused1	INTEGER NOT NULL,
	tt_total	INTEGER NOT NULL,
	ft_total	INTEGER NOT NULL,
	xq_total	INTEGER NOT NULL,
	notused2	INTEGER NOT NULL,
	notused3	INTEGER NOT NULL,
	notused4	INTEGER NOT NULL,
	n_cl_loads_ext	INTEGER NOT NULL,
	n_cl_stores_ext	INTEGER NOT NULL,
	n_cr_threads	INTEGER NOT NULL,
	n_cr_families	INTEGER NOT NULL,
	core_clocks	INTEGER NOT NULL,
	PRIMARY KEY (session_id, tid, idx)
) STRICT;

-- Per interval: the change of every cumulative counter since the previous
-- snapshot of the same thread (its interval idx - 1, or its start; in
-- sample mode, where a thread's intervals without a burst have no row,
-- the last one before), 9 and 13-15 as read at the interval's end, and
-- mtperf's derived columns (§5.2; NULL when no cycle passed).
CREATE VIEW IF NOT EXISTS mgsim_delta AS
	SELECT c.session_id, c.tid, c.idx AS interval, i.id AS interval_id, c.final,
	       c.taken_at, c.taken_at - p.taken_at AS seconds,
	       c.clocks - p.clocks AS clocks,
	       c.n_exec_insns - p.n_exec_insns AS n_exec_insns,
	       c.n_issued_flops - p.n_issued_flops AS n_issued_flops,
	       c.n_compl_core_loads - p.n_compl_core_loads AS n_compl_core_loads,
	       c.n_compl_core_stores - p.n_compl_core_stores AS n_compl_core_stores,
	       c.n_bytes_l1tocore - p.n_bytes_l1tocore AS n_bytes_l1tocore,
	       c.n_bytes_coretol1 - p.n_bytes_coretol1 AS n_bytes_coretol1,
	       c.n_reqs_l2tol1 - p.n_reqs_l2tol1 AS n_reqs_l2tol1,
	       c.n_reqs_l1tol2 - p.n_reqs_l1tol2 AS n_reqs_l1tol2,
	       c.notused1,
	       c.tt_total - p.tt_total AS tt_total,
	       c.ft_total - p.ft_total AS ft_total,
	       c.xq_total - p.xq_total AS xq_total,
	       c.notused2, c.notused3, c.notused4,
	       c.n_cl_loads_ext - p.n_cl_loads_ext AS n_cl_loads_ext,
	       c.n_cl_stores_ext - p.n_cl_stores_ext AS n_cl_stores_ext,
	       c.n_cr_threads - p.n_cr_threads AS n_cr_threads,
	       c.n_cr_families - p.n_cr_families AS n_cr_families,
	       c.core_clocks - p.core_clocks AS core_clocks,
	       CAST(c.n_exec_insns - p.n_exec_insns AS REAL) / NULLIF(c.notused1, 0)
		   * g.master_mhz / g.core_mhz / NULLIF(c.clocks - p.clocks, 0) AS pl_eff,
	       CAST(c.tt_total - p.tt_total AS REAL) / NULLIF(c.notused1, 0) / g.thread_entries
		   / NULLIF(c.clocks - p.clocks, 0) AS tt_occp,
	       CAST(c.ft_total - p.ft_total AS REAL) / NULLIF(c.notused1, 0) / g.family_entries
		   / NULLIF(c.clocks - p.clocks, 0) AS ft_occp,
	       CAST(c.xq_total - p.xq_total AS REAL) / NULLIF(c.notused1, 0)
		   / NULLIF(c.clocks - p.clocks, 0) AS xq_avg
	FROM mgsim_counters c
	JOIN mgsim_counters p ON p.session_id = c.session_id AND p.tid = c.tid
		AND p.idx = (SELECT max(q.idx) FROM mgsim_counters q WHERE q.session_id = c.session_id
			     AND q.tid = c.tid AND q.idx < c.idx)
	LEFT JOIN mgsim_config g ON g.session_id = c.session_id
	LEFT JOIN interval i ON i.session_id = c.session_id AND i.tid = c.tid AND i.idx = c.idx
	WHERE c.idx >= 0;

-- The same deltas one row per cumulative counter, with rates per core
-- cycle and per second of host time.
CREATE VIEW IF NOT EXISTS mgsim_rate AS
	SELECT session_id, tid, interval, counter, name, delta,
	       CAST(delta AS REAL) / NULLIF(core_clocks, 0) AS per_core_cycle,
	       delta / NULLIF(seconds, 0) AS per_second
	FROM (SELECT d.session_id, d.tid, d.interval, k.idx AS counter, k.name,
		     d.core_clocks, d.seconds,
		     CASE k.idx WHEN 0 THEN d.clocks WHEN 1 THEN d.n_exec_insns
			  WHEN 2 THEN d.n_issued_flops WHEN 3 THEN d.n_compl_core_loads
			  WHEN 4 THEN d.n_compl_core_stores WHEN 5 THEN d.n_bytes_l1tocore
			  WHEN 6 THEN d.n_bytes_coretol1 WHEN 7 THEN d.n_reqs_l2tol1
			  WHEN 8 THEN d.n_reqs_l1tol2 WHEN 10 THEN d.tt_total
			  WHEN 11 THEN d.ft_total WHEN 12 THEN d.xq_total
			  WHEN 16 THEN d.n_cl_loads_ext WHEN 17 THEN d.n_cl_stores_ext
			  WHEN 18 THEN d.n_cr_threads WHEN 19 THEN d.n_cr_families
			  WHEN 20 THEN d.core_clocks END AS delta
	      FROM mgsim_delta d JOIN mgsim_counter k ON k.cumulative = 1);

-- Scheduling model (live): the traced instruction stream of each thread fed
-- to a pipeline model of its own (analyzers/sched/sched_live.h, the corrected
-- model of `micactl mca`; daemon/session/trace_sched.c, daemon/store/store_sched.c).
-- Cycles are those of the modelled core (no cache misses, no branch
-- mispredictions), not of the host.
CREATE TABLE IF NOT EXISTS sched_config (
	session_id	INTEGER PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
	cpu		TEXT NOT NULL,		-- -mcpu name of the model ('skylake', ...)
	hot_iterations	INTEGER NOT NULL	-- iterations of each hot block's report
) STRICT;

-- One row per row of table interval (same session_id, tid, idx): the
-- simulated cycles of the instructions of that interval.
CREATE TABLE IF NOT EXISTS sched_interval (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	idx		INTEGER NOT NULL CHECK (idx >= 0),
	final		INTEGER NOT NULL,	-- 1: the remainder at the thread's end
	cycles		INTEGER NOT NULL,
	instructions	INTEGER NOT NULL,	-- every executed instruction (E)
	ipc		REAL NOT NULL,		-- instructions / cycles; 0 when no cycle
	PRIMARY KEY (session_id, tid, idx)
) STRICT;

-- Per port and interval: uops executed there and uops per cycle.
CREATE TABLE IF NOT EXISTS sched_port (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	idx		INTEGER NOT NULL,
	port		TEXT NOT NULL,		-- the model's name ('SKLPort0', ...)
	uops		INTEGER NOT NULL,
	pressure	REAL NOT NULL,		-- uops / the interval's cycles
	PRIMARY KEY (session_id, tid, idx, port)
) STRICT;

-- The session's hottest basic blocks (most instructions executed, every
-- thread), hottest first, each with the static analysis of the block as a
-- loop (JSON: summary, bottleneck bounds, per instruction text, uops,
-- latency and port pressure).
CREATE TABLE IF NOT EXISTS sched_hot_block (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	rank		INTEGER NOT NULL CHECK (rank >= 1),
	address		INTEGER NOT NULL,	-- first instruction
	end_address	INTEGER NOT NULL,	-- last instruction
	instructions	INTEGER NOT NULL,	-- in the block
	executions	INTEGER NOT NULL,
	report		TEXT,			-- JSON; NULL: too long to analyze
	PRIMARY KEY (session_id, rank)
) STRICT;

-- Per interval: simulated cycles, IPC and CPI, next to MICA's counts.
CREATE VIEW IF NOT EXISTS simulated_cycles AS
	SELECT s.session_id, s.tid, s.idx AS interval, s.final, s.instructions, s.cycles,
	       s.ipc, CAST(s.cycles AS REAL) / NULLIF(s.instructions, 0) AS cpi,
	       i.ins AS mica_instructions
	FROM sched_interval s
	LEFT JOIN interval i ON i.session_id = s.session_id AND i.tid = s.tid AND i.idx = s.idx;

-- Sample mode's call-stack profile (schema version 3): perf_event samples,
-- each with its thread, time interval and call stack (libunwind).
--
-- profile_frame: the frame dictionary of a session.  module is the file of
-- the mapping the address fell in ('[vdso]', '[kernel]', '[unknown]' when
-- no mapping is known), symbol the demangled function (NULL: none known),
-- offset the address minus the symbol's start (minus the module's load
-- base when there is no symbol).
CREATE TABLE IF NOT EXISTS profile_frame (
	id		INTEGER PRIMARY KEY,
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	module		TEXT NOT NULL,
	symbol		TEXT,
	offset		INTEGER NOT NULL,
	address		INTEGER,		-- the virtual address of one sample's frame
	UNIQUE (session_id, module, symbol, offset)
) STRICT;

-- profile_stack: stacks as a tree of frames.  A stack is its innermost
-- node; parent_id walks out towards the root (0: this frame is the
-- outermost).  Stacks with a common outer part share its nodes.
CREATE TABLE IF NOT EXISTS profile_stack (
	id		INTEGER PRIMARY KEY,
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	parent_id	INTEGER NOT NULL,	-- 0: outermost frame
	frame_id	INTEGER NOT NULL REFERENCES profile_frame(id),
	depth		INTEGER NOT NULL,	-- 0 for an outermost frame
	UNIQUE (session_id, parent_id, frame_id)
) STRICT;

-- profile_sample: how many samples ended in a stack, per thread and time
-- interval (sample-mode intervals are in time: --interval-time), and the
-- sum of their weights (the event's period: nanoseconds of cpu-clock,
-- or events counted).
CREATE TABLE IF NOT EXISTS profile_sample (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	interval	INTEGER NOT NULL,
	stack_id	INTEGER NOT NULL REFERENCES profile_stack(id),
	count		INTEGER NOT NULL,
	weight		INTEGER NOT NULL,
	PRIMARY KEY (session_id, tid, interval, stack_id)
) STRICT;

-- profile_interval: each sample-mode time interval of a thread: when, how
-- many samples arrived and how many the kernel reported lost.
CREATE TABLE IF NOT EXISTS profile_interval (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	idx		INTEGER NOT NULL,
	started_at	REAL NOT NULL,		-- Unix time, seconds
	ended_at	REAL NOT NULL,
	samples		INTEGER NOT NULL,
	lost		INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, tid, idx)
) STRICT;

-- Indexes for the profile views: a frame's stack nodes (hot_functions) and
-- a session's samples by stack (hot_stacks, hot_functions, and the whole-
-- session profile of the API and exports: it covers their columns, so
-- none of those reads the table itself).
CREATE INDEX IF NOT EXISTS profile_stack_frame ON profile_stack (frame_id);
CREATE INDEX IF NOT EXISTS profile_sample_stack ON profile_sample (session_id, stack_id, count,
								 weight, tid);

-- hot_stacks: each stack samples ended in (every thread and interval), its
-- share of the session's samples, and the stack as text, outermost frame
-- first, frames joined with ';' (a function's name, or '[unknown] MODULE'
-- where none is known): 'main;parse;hot'.
CREATE VIEW IF NOT EXISTS hot_stacks AS
	SELECT t.session_id, t.stack_id, t.samples,
	       CAST(t.samples AS REAL) / NULLIF(a.samples, 0) AS share,
	       (WITH RECURSIVE up(parent, path) AS (
			SELECT s.parent_id, coalesce(f.symbol, '[unknown] ' || f.module)
			FROM profile_stack s JOIN profile_frame f ON f.id = s.frame_id
			WHERE s.id = t.stack_id
			UNION ALL
			SELECT s.parent_id, coalesce(f.symbol, '[unknown] ' || f.module) || ';' || up.path
			FROM up JOIN profile_stack s ON s.id = up.parent
			JOIN profile_frame f ON f.id = s.frame_id)
		SELECT path FROM up WHERE parent = 0) AS stack
	FROM (SELECT session_id, stack_id, sum(count) AS samples FROM profile_sample
	      GROUP BY session_id, stack_id) t
	JOIN (SELECT session_id, sum(count) AS samples FROM profile_sample
	      GROUP BY session_id) a ON a.session_id = t.session_id;

-- hot_functions: per function (module and symbol; symbol NULL: the
-- module's code without a symbol, one row), the samples it was running in
-- (self: the innermost frame) and the samples it was on the stack of
-- (total: each sample once, however often the function recurses on its
-- stack), and their shares of the session's samples.
CREATE VIEW IF NOT EXISTS hot_functions AS
	SELECT h.session_id, h.module, h.symbol, h.self_samples, h.total_samples,
	       CAST(h.self_samples AS REAL) / NULLIF(a.samples, 0) AS self_share,
	       CAST(h.total_samples AS REAL) / NULLIF(a.samples, 0) AS total_share
	-- An aggregate (one row per function) joined: SQLite computes it once,
	-- with a filter on session_id pushed into it, instead of flattening
	-- it and running each subquery again for the shares.
	FROM (SELECT f0.session_id, f0.module, f0.symbol,
		     (SELECT coalesce(sum(ps.count), 0)
		      FROM profile_frame f CROSS JOIN profile_stack s CROSS JOIN profile_sample ps
		      WHERE f.session_id = f0.session_id AND f.module = f0.module
			    AND f.symbol IS f0.symbol AND s.frame_id = f.id
			    AND ps.session_id = f0.session_id AND ps.stack_id = s.id) AS self_samples,
		     (WITH RECURSIVE sub(id) AS (
			SELECT s.id FROM profile_frame f CROSS JOIN profile_stack s
			WHERE f.session_id = f0.session_id AND f.module = f0.module
			      AND f.symbol IS f0.symbol AND s.frame_id = f.id
			UNION
			SELECT c.id FROM sub JOIN profile_stack c
			ON c.session_id = f0.session_id AND c.parent_id = sub.id)
		      SELECT coalesce(sum(ps.count), 0) FROM sub JOIN profile_sample ps
		      ON ps.session_id = f0.session_id AND ps.stack_id = sub.id) AS total_samples
	      FROM profile_frame f0
	      GROUP BY f0.session_id, f0.module, f0.symbol) h
	JOIN (SELECT session_id, sum(count) AS samples FROM profile_sample
	      GROUP BY session_id) a ON a.session_id = h.session_id;

-- Serving at scale (issue 22): what the HTTP API reads for a session's
-- list row, summary, threads and /metrics without visiting its intervals,
-- and the indexes behind the API's other queries (tests/http_scale.sh
-- checks every query's plan).
--
-- thread_total: per thread of a session, kept as intervals are stored (the
-- trigger below runs in the writer's transaction, so it is exactly as
-- current as table interval): how many intervals, the first and last
-- index and row id, the last interval's total_ins (E since the thread
-- began, the thread's instructions so far), and the memstackdist
-- references and cold references of all its intervals.
CREATE TABLE IF NOT EXISTS thread_total (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	intervals	INTEGER NOT NULL,
	first_idx	INTEGER NOT NULL,
	last_idx	INTEGER NOT NULL,
	first_interval_id INTEGER NOT NULL,
	last_interval_id INTEGER NOT NULL,
	instructions	INTEGER NOT NULL,
	refs		INTEGER NOT NULL DEFAULT 0,
	cold		INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, tid)
) STRICT, WITHOUT ROWID;

-- thread_reuse: a thread's reuse-distance bucket counts summed over all
-- its intervals (memstackdist_bucket), for the whole-session view below.
CREATE TABLE IF NOT EXISTS thread_reuse (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	bucket		INTEGER NOT NULL REFERENCES reuse_bucket(bucket),
	count		INTEGER NOT NULL,
	PRIMARY KEY (session_id, tid, bucket)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER IF NOT EXISTS interval_thread_total AFTER INSERT ON interval
BEGIN
	INSERT INTO thread_total (session_id, tid, intervals, first_idx, last_idx,
				  first_interval_id, last_interval_id, instructions)
	VALUES (new.session_id, new.tid, 1, new.idx, new.idx, new.id, new.id, new.total_ins)
	ON CONFLICT (session_id, tid) DO UPDATE SET
		intervals = intervals + 1,
		first_interval_id = CASE WHEN excluded.first_idx < first_idx
				    THEN excluded.first_interval_id ELSE first_interval_id END,
		first_idx = min(first_idx, excluded.first_idx),
		last_interval_id = CASE WHEN excluded.last_idx > last_idx
				   THEN excluded.last_interval_id ELSE last_interval_id END,
		instructions = CASE WHEN excluded.last_idx > last_idx
			       THEN excluded.instructions ELSE instructions END,
		last_idx = max(last_idx, excluded.last_idx);
END;

CREATE TRIGGER IF NOT EXISTS memstackdist_thread_total AFTER INSERT ON memstackdist
BEGIN
	UPDATE thread_total SET refs = refs + new.refs, cold = cold + new.cold
	WHERE (session_id, tid) = (SELECT session_id, tid FROM interval WHERE id = new.interval_id);
END;

CREATE TRIGGER IF NOT EXISTS memstackdist_bucket_thread_reuse AFTER INSERT ON memstackdist_bucket
BEGIN
	INSERT INTO thread_reuse (session_id, tid, bucket, count)
	SELECT session_id, tid, new.bucket, new.count FROM interval WHERE id = new.interval_id
	ON CONFLICT (session_id, tid, bucket) DO UPDATE SET count = count + excluded.count;
END;

-- A database migrated from version 2 gets its totals once (nothing to do
-- in a new file).
INSERT OR IGNORE INTO thread_total (session_id, tid, intervals, first_idx, last_idx,
				    first_interval_id, last_interval_id, instructions, refs, cold)
	SELECT g.session_id, g.tid, g.n, g.lo, g.hi, f.id, l.id, l.total_ins,
	       coalesce((SELECT sum(m.refs) FROM interval x JOIN memstackdist m ON m.interval_id = x.id
			 WHERE x.session_id = g.session_id AND x.tid = g.tid), 0),
	       coalesce((SELECT sum(m.cold) FROM interval x JOIN memstackdist m ON m.interval_id = x.id
			 WHERE x.session_id = g.session_id AND x.tid = g.tid), 0)
	FROM (SELECT session_id, tid, count(*) AS n, min(idx) AS lo, max(idx) AS hi
	      FROM interval GROUP BY session_id, tid) g
	JOIN interval f ON f.session_id = g.session_id AND f.tid = g.tid AND f.idx = g.lo
	JOIN interval l ON l.session_id = g.session_id AND l.tid = g.tid AND l.idx = g.hi
	WHERE NOT EXISTS (SELECT 1 FROM thread_total);
INSERT OR IGNORE INTO thread_reuse (session_id, tid, bucket, count)
	SELECT i.session_id, i.tid, b.bucket, sum(b.count)
	FROM interval i JOIN memstackdist_bucket b ON b.interval_id = i.id
	WHERE NOT EXISTS (SELECT 1 FROM thread_reuse)
	GROUP BY i.session_id, i.tid, b.bucket;

-- A thread's reuse distances over the whole session: fraction = count /
-- refs (cold references included in refs), cdf = P(distance < hi), as
-- reuse_distance per interval.
CREATE VIEW IF NOT EXISTS reuse_distance_session AS
	SELECT r.session_id, r.tid, r.bucket, rb.lo, rb.hi, r.count, t.refs,
	       CAST(r.count AS REAL) / NULLIF(t.refs, 0) AS fraction,
	       CAST((SELECT sum(r2.count) FROM thread_reuse r2 WHERE r2.session_id = r.session_id
		     AND r2.tid = r.tid AND r2.bucket <= r.bucket) AS REAL) / NULLIF(t.refs, 0) AS cdf
	FROM thread_reuse r JOIN thread_total t ON t.session_id = r.session_id AND t.tid = r.tid
	JOIN reuse_bucket rb ON rb.bucket = r.bucket;

-- A user's sessions newest first (the session list of a non-root user).
CREATE INDEX IF NOT EXISTS session_uid ON session (uid, id);
-- The function a hot block is in, from a sample-mode session's frames
-- (the symbol's start: a frame's address less its offset).
CREATE INDEX IF NOT EXISTS profile_frame_start ON profile_frame (session_id, address - offset)
	WHERE symbol IS NOT NULL AND address IS NOT NULL;
-- The latest MGSim snapshot of a session (the counters' default).
CREATE INDEX IF NOT EXISTS mgsim_counters_latest ON mgsim_counters (session_id, clocks, taken_at);
