-- micad results database, schema version 1.
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
	config		TEXT NOT NULL,		-- the mica.conf text as given
	settings	TEXT NOT NULL,		-- effective settings, JSON
	started_at	REAL NOT NULL,		-- Unix time, seconds
	ended_at	REAL,
	exit_status	INTEGER,		-- the program's, 128+signal if killed
	end_reason	TEXT CHECK (end_reason IN ('running', 'exited', 'killed', 'detached',
						   'cut-off', 'error'))
) STRICT;

CREATE TABLE IF NOT EXISTS process (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	pid		INTEGER NOT NULL,
	parent_pid	INTEGER,
	exe		TEXT,
	PRIMARY KEY (session_id, pid)
) STRICT;

CREATE TABLE IF NOT EXISTS thread (
	session_id	INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
	tid		INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
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
	PRIMARY KEY (session_id, grp)
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
	writes		INTEGER NOT NULL
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
	cold		INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS memstackdist_bucket (
	interval_id	INTEGER NOT NULL REFERENCES interval(id) ON DELETE CASCADE,
	bucket		INTEGER NOT NULL REFERENCES reuse_bucket(bucket),
	count		INTEGER NOT NULL,
	PRIMARY KEY (interval_id, bucket)
) STRICT;

CREATE INDEX IF NOT EXISTS interval_by_session ON interval(session_id, tid, idx);

INSERT OR IGNORE INTO ppm_predictor (id, organization, history) VALUES
	(0, 'GAg', 4), (1, 'PAg', 4), (2, 'GAs', 4), (3, 'PAs', 4),
	(4, 'GAg', 8), (5, 'PAg', 8), (6, 'GAs', 8), (7, 'PAs', 8),
	(8, 'GAg', 12), (9, 'PAg', 12), (10, 'GAs', 12), (11, 'PAs', 12);

INSERT OR IGNORE INTO reuse_bucket (bucket, lo, hi) VALUES
	(0, 0, 2), (1, 2, 4), (2, 4, 8), (3, 8, 16), (4, 16, 32), (5, 32, 64),
	(6, 64, 128), (7, 128, 256), (8, 256, 512), (9, 512, 1024), (10, 1024, 2048),
	(11, 2048, 4096), (12, 4096, 8192), (13, 8192, 16384), (14, 16384, 32768),
	(15, 32768, 65536), (16, 65536, 131072), (17, 131072, 262144), (18, 262144, NULL);

-- Views: MICA's conversions (mica.md "Conversion" paragraphs).

CREATE VIEW IF NOT EXISTS ilp_per_window AS
	SELECT i.session_id, i.tid, i.idx AS interval, l.analysis, l.window, i.ins, l.cycles,
	       CASE WHEN l.cycles > 0 THEN CAST(i.ins AS REAL) / l.cycles END AS ilp
	FROM ilp l JOIN interval i ON i.id = l.interval_id;

CREATE VIEW IF NOT EXISTS instruction_mix AS
	SELECT i.session_id, i.tid, i.idx AS interval, t.grp, g.name AS grp_name, t.count, i.ins,
	       CASE WHEN i.ins > 0 THEN CAST(t.count AS REAL) / i.ins END AS fraction
	FROM itypes t JOIN interval i ON i.id = t.interval_id
	LEFT JOIN itypes_group g ON g.session_id = i.session_id AND g.grp = t.grp;

CREATE VIEW IF NOT EXISTS misprediction_rate AS
	SELECT i.session_id, i.tid, i.idx AS interval, p.organization, p.history, m.misses,
	       b.branches,
	       CASE WHEN b.branches > 0 THEN CAST(m.misses AS REAL) / b.branches END AS rate,
	       CASE WHEN i.ins > 0 THEN 1000.0 * m.misses / i.ins END AS mpki
	FROM ppm m JOIN interval i ON i.id = m.interval_id
	JOIN ppm_predictor p ON p.id = m.predictor_id
	JOIN ppm_branches b ON b.interval_id = m.interval_id;

CREATE VIEW IF NOT EXISTS branch_behaviour AS
	SELECT i.session_id, i.tid, i.idx AS interval, b.branches, b.transitions, b.taken,
	       CASE WHEN b.branches > 0 THEN CAST(b.transitions AS REAL) / b.branches END AS transition_rate,
	       CASE WHEN b.branches > 0 THEN CAST(b.taken AS REAL) / b.branches END AS taken_rate
	FROM ppm_branches b JOIN interval i ON i.id = b.interval_id;

CREATE VIEW IF NOT EXISTS register_traffic AS
	SELECT i.session_id, i.tid, i.idx AS interval, i.ins,
	       CASE WHEN i.ins > 0 THEN CAST(r.operands AS REAL) / i.ins END AS avg_operands,
	       CASE WHEN r.values_ > 0 THEN CAST(r.uses AS REAL) / r.values_ END AS avg_degree_of_use,
	       r.reads
	FROM reg r JOIN interval i ON i.id = r.interval_id;

CREATE VIEW IF NOT EXISTS dependency_distance_cdf AS
	SELECT i.session_id, i.tid, i.idx AS interval, d.distance, d.count, r.reads,
	       CASE WHEN r.reads > 0 THEN CAST(d.count AS REAL) / r.reads END AS probability
	FROM reg r JOIN interval i ON i.id = r.interval_id
	JOIN (SELECT interval_id, 1 AS distance, c1 AS count FROM reg
	      UNION ALL SELECT interval_id, 2, c2 FROM reg
	      UNION ALL SELECT interval_id, 4, c4 FROM reg
	      UNION ALL SELECT interval_id, 8, c8 FROM reg
	      UNION ALL SELECT interval_id, 16, c16 FROM reg
	      UNION ALL SELECT interval_id, 32, c32 FROM reg
	      UNION ALL SELECT interval_id, 64, c64 FROM reg) d ON d.interval_id = r.interval_id;

CREATE VIEW IF NOT EXISTS stride_cdf AS
	SELECT i.session_id, i.tid, i.idx AS interval, s.kind, s.le, s.count,
	       CASE WHEN s.kind LIKE '%read' THEN t.reads ELSE t.writes END AS accesses,
	       CASE WHEN (CASE WHEN s.kind LIKE '%read' THEN t.reads ELSE t.writes END) > 0
		    THEN CAST(s.count AS REAL) /
			 (CASE WHEN s.kind LIKE '%read' THEN t.reads ELSE t.writes END) END AS probability
	FROM stride s JOIN interval i ON i.id = s.interval_id
	JOIN stride_total t ON t.interval_id = s.interval_id;

CREATE VIEW IF NOT EXISTS footprint_bytes AS
	SELECT i.session_id, i.tid, i.idx AS interval,
	       f.data_blocks << f.block_size AS data_block_bytes,
	       f.data_pages << f.page_size AS data_page_bytes,
	       f.insn_blocks << f.block_size AS insn_block_bytes,
	       f.insn_pages << f.page_size AS insn_page_bytes
	FROM memfootprint f JOIN interval i ON i.id = f.interval_id;

CREATE VIEW IF NOT EXISTS reuse_distance AS
	SELECT i.session_id, i.tid, i.idx AS interval, b.bucket, rb.lo, rb.hi, b.count, m.refs,
	       CASE WHEN m.refs > 0 THEN CAST(b.count AS REAL) / m.refs END AS fraction,
	       CASE WHEN m.refs > 0 THEN
		    CAST((SELECT SUM(b2.count) FROM memstackdist_bucket b2
			  WHERE b2.interval_id = b.interval_id AND b2.bucket <= b.bucket) AS REAL)
		    / m.refs END AS cdf
	FROM memstackdist_bucket b JOIN memstackdist m ON m.interval_id = b.interval_id
	JOIN interval i ON i.id = b.interval_id
	JOIN reuse_bucket rb ON rb.bucket = b.bucket;

CREATE VIEW IF NOT EXISTS cold_references AS
	SELECT i.session_id, i.tid, i.idx AS interval, m.refs, m.cold,
	       CASE WHEN m.refs > 0 THEN CAST(m.cold AS REAL) / m.refs END AS fraction
	FROM memstackdist m JOIN interval i ON i.id = m.interval_id;

-- Every derived metric in one long table, for generic charts.
CREATE VIEW IF NOT EXISTS metric AS
	SELECT session_id, tid, interval, analysis || '_' || window AS metric, ilp AS value
		FROM ilp_per_window
	UNION ALL SELECT session_id, tid, interval, 'mix_' || COALESCE(grp_name, grp), fraction
		FROM instruction_mix
	UNION ALL SELECT session_id, tid, interval, 'mispredict_' || organization || '_' || history, rate
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
	UNION ALL SELECT session_id, tid, interval, 'insn_footprint_bytes', insn_block_bytes FROM footprint_bytes
	UNION ALL SELECT session_id, tid, interval, 'reuse_bucket_' || bucket, fraction FROM reuse_distance
	UNION ALL SELECT session_id, tid, interval, 'reuse_cold', fraction FROM cold_references;
