/*
 * Build the HTTP tests' database with the store API: fabricated intervals
 * whose raw counts make every derived value easy to check by hand.
 *
 *   session 1: uid 1000, run, ended (exited 0), command with characters
 *     that need escaping; thread 100 with intervals 0..2 and thread 101
 *     with interval 0.  Interval k of thread 100 (n = k + 1):
 *       ins = 1000 n, ins_aligned = ins - 10
 *       ilp windows 32/64/128/256: cycles 1000/500/250/125 -> ILP n, 2n, 4n, 8n
 *       itypes mem_read 300 n, mem_write 100 n, other 600 n (0.3/0.1/0.6)
 *       ppm branches 200 n, transitions 50 n, taken 100 n;
 *         GAg/4 misses 20 n (rate 0.1, 20 MPKI), PAs/12 misses 2 n (0.01)
 *       reg operands 2000 n (avg 2), values 100 n, uses 300 n (degree 3),
 *         reads 400 n with c1 100 n, c2 200 n, c4.. 400 n
 *       stride reads 80 n, writes 40 n: local_read <= 8: 20 n, else 80 n;
 *         other kinds 40 n everywhere (global_read 0.5, writes 1.0)
 *       memfootprint data 10 n blocks, 2 n pages, insn 3 blocks, 1 page
 *         (64 B blocks, 4 KiB pages)
 *       memstackdist refs 100 n, cold 50 n, buckets 0: 20 n, 1: 20 n, 2: 10 n
 *     Thread 101's interval 0 is like k = 0 with ins 500 (ILP halves).
 *   session 2: uid 0 (root), attach, running, one thread 200, 1 interval.
 *   session 3: uid 1000, run, running, one thread 300, 2 intervals.
 *     MGSim snapshots for thread 100 (mgsim_rows below).
 *   Times are set to fixed values afterwards for stable output.
 *
 * Usage: http_fixture DB [N_INTERVALS | --hostile | --ui]: with N, the database
 * holds instead one session (uid 1000) with N intervals of thread 400 (the
 * benchmark's), with the scheduling model's IPC; with --hostile, one running session (uid 1000) whose
 * command line holds what a target may put there and the text formats must
 * escape: invalid UTF-8 (a lone 0xff and 0xfe, a bad continuation byte, a
 * cut sequence, an encoded surrogate), CR, LF, ESC, a double quote and a
 * backslash; thread 500 with 2 intervals.  With --ui, the web UI's cases
 * (tests/browser_scale.sh), all of uid 1000: session 1, ended, thread 700
 * with 3000 intervals whose itypes groups overlap (mem_read 50%,
 * arithmetic 40%, sse 30%, fp 20%, other 10%: 150% in all) and the
 * scheduling model's IPC (0.5 + (idx mod 10) / 10); session 2, ended, one
 * thread (800) with a single interval; session 3, failed to start: no
 * thread, and why in its error column.
 *
 * With --sample, the estimates of sample mode (tests/http_sample.sh,
 * tests/browser_sample.sh), all of uid 1000:
 *   session 1: sampled (engine 'sample', event cpu-clock, weighting time,
 *     the PMU-less note), ended; thread 600 with intervals 0..2 and thread
 *     601 with interval 0, counts as in session 1 above (interval k of 600:
 *     n = k + 1; 601's like k = 0 with ins 500), memstackdist censored 0 and
 *     horizon 4 (buckets 0 and 1 below it).  sample_interval (bursts,
 *     aborted, warm-up E): 600/0 2, 1, 2000; 600/1 2, 0, 4000; 600/2 3, 0,
 *     6000; 601/0 1, 0, 1000.  metric_sums, units (x, y) and the estimate
 *     R = sum y / sum x, SE = sqrt(sum (y - R x)^2 / (n (n - 1))) / mean x,
 *     CI R -/+ t(n - 1) SE (t(1) = 12.7062, t(2) = 4.3027, t(3) = 3.1824,
 *     t(7) = 2.3646), proportions clamped to [0, 1]:
 *       mix_mem_read 600/0: (400, 100), (600, 200): R 0.3, residuals -20,
 *         20, SE sqrt(800 / 2) / 500 = 0.04, CI [0, 0.808248]
 *       mix_mem_read 600/1: (1000, 250), (1000, 350): R 0.3, SE
 *         sqrt(5000 / 2) / 1000 = 0.05, CI [0, 0.93531]
 *       mix_mem_read 600/2: (1000, 300), (1000, 200), (1000, 400): R 0.3,
 *         SE sqrt(20000 / 6) / 1000 = 0.0577350, CI [0.0515835, 0.5484165]
 *       mix_mem_read 601/0: (500, 300): one unit, R 0.6, no CI
 *       ilp_256 600/0 (x cycles, y instructions): (60, 400), (65, 600): R 8,
 *         residuals -80, 80, SE sqrt(12800 / 2) / 62.5 = 1.28, CI
 *         [-8.263936, 24.263936] (no proportion: not clamped)
 *       reuse_bucket_0 600/0 (x refs): (50, 5), (50, 15): R 0.2, SE 0.1, CI
 *         [0, 1]
 *       reuse_bucket_2 600/1: (100, 5), (100, 15): R 0.1, SE 0.05, not
 *         estimable (beyond the horizon): no CI
 *     The session (every unit pooled): mix_mem_read n 8, R 2100 / 6500 =
 *     0.3230769, SE 0.0359305, CI [0.2381157, 0.4080381]; U = 6500 / 8 =
 *     812.5, W = 13000 / 8 = 1625.  Profile intervals of thread 600: 900,
 *     950 and 400 samples, 0, 50 and 0 lost.
 *   session 2: step mode, thread 700 with one interval (no estimates).
 *   session 3: sampled, thread 800 with 70 intervals (too many points for
 *     error bars: the charts shade a band), each of 16 bursts of ins / 16
 *     instructions, mix_mem_read's sums (16, ins, 0.3 ins, ins^2 / 16,
 *     0.01875 ins^2, 0.007125 ins^2): R 0.3, residuals' sum of squares
 *     0.0015 ins^2, SE sqrt(0.0015 / 240) ins / (ins / 16) = 0.04, CI 0.3
 *     -/+ t(15) 0.04 = 0.3 -/+ 2.1314 x 0.04 = [0.214744, 0.385256].
 *     Interval 0 also
 *     has three proportions (schema.sql's proportion_metric):
 *       mpki_GAg_8 (x instructions, y 1000 misses): (100, 0) four times,
 *         (300, 0) twice: no miss seen, R 0, the rule of three over the 6
 *         units: CI [0, 3 x 1000 / 6] = [0, 500], SE 500 / 1.96 =
 *         255.1020408
 *       stride_global_write_le_262144 (x writes): (10, 10) four times:
 *         every write, R 1, CI [1 - 3 / 4, 1] = [0.25, 1], SE 3 / (1.96 x
 *         4) = 0.3826530612
 *       mix_mem_write: (400, 100), (600, 0), (1000, 100): R 0.1, residuals
 *         60, -60, 0, SE sqrt(7200 / 6) / (2000 / 3) = 0.0519615, 0.1 -/+
 *         4.3027 SE = 0.1 -/+ 0.2235749 clamped to [0, 0.3235749]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mgsim/mgsim.h"
#include "store/store.h"
#include "store/store_mgsim.h"
#include "util.h"

/* total: E of the thread's earlier intervals (H is 10 less per interval). */
static void
fill(struct mica_interval *iv, uint32_t tid, uint64_t idx, uint64_t n, uint64_t ins,
     uint64_t total, uint64_t *itypes)
{
	memset(iv, 0, sizeof(*iv));
	iv->tid = tid;
	iv->index = idx;
	iv->ins = ins;
	iv->ins_aligned = ins - 10;
	iv->total_ins = total + ins;
	iv->total_ins_aligned = iv->total_ins - 10 * (idx + 1);
	iv->interval_size = 1000;
	iv->analyses = MICA_BIT(MICA_ILP) | MICA_BIT(MICA_ITYPES) | MICA_BIT(MICA_PPM) |
		       MICA_BIT(MICA_REG) | MICA_BIT(MICA_STRIDE) | MICA_BIT(MICA_MEMFOOTPRINT) |
		       MICA_BIT(MICA_MEMSTACKDIST);
	iv->ilp.n_windows = 4;
	for (int w = 0; w < 4; w++) {
		iv->ilp.window[w] = 32u << w;
		iv->ilp.cycles[w] = 1000u >> w;
	}
	itypes[0] = 300 * n;
	itypes[1] = 100 * n;
	itypes[2] = 600 * n;
	iv->itypes.n_groups = 2;
	iv->itypes.counts = itypes;
	iv->ppm.branches = 200 * n;
	iv->ppm.transitions = 50 * n;
	iv->ppm.taken = 100 * n;
	iv->ppm.miss[0][0] = 20 * n;	/* GAg, 4 bits */
	iv->ppm.miss[2][3] = 2 * n;	/* PAs, 12 bits */
	iv->reg.op_count[2] = 1000 * n;	/* totOps = 2 x 1000 n */
	iv->reg.use_dist[3] = 100 * n;	/* nVals = 100 n, totUses = 300 n */
	iv->reg.age_dist[1] = 100 * n;	/* nReads = 400 n: c1 100 n, c2 200 n, c4.. 400 n */
	iv->reg.age_dist[2] = 100 * n;
	iv->reg.age_dist[3] = 200 * n;
	iv->stride.reads = 80 * n;
	iv->stride.writes = 40 * n;
	for (int d = 0; d < MICA_STRIDE_CUM; d++) {
		iv->stride.local_read[d] = d < 2 ? 20 * n : 80 * n;
		iv->stride.global_read[d] = 40 * n;
		iv->stride.local_write[d] = 40 * n;
		iv->stride.global_write[d] = 40 * n;
	}
	iv->memfootprint.data_blocks = 10 * n;
	iv->memfootprint.data_pages = 2 * n;
	iv->memfootprint.insn_blocks = 3;
	iv->memfootprint.insn_pages = 1;
	iv->memstackdist.refs = 100 * n;
	iv->memstackdist.cold = 50 * n;
	iv->memstackdist.bucket[0] = 20 * n;
	iv->memstackdist.bucket[1] = 20 * n;
	iv->memstackdist.bucket[2] = 10 * n;
}

static void
check(int rc, const char *what, const char *err)
{
	if (rc < 0)
		error_msg_and_die("%s: %s", what, err);
}

static int64_t
session(struct store *st, const char *mode, const char *cmd, int64_t pid, int64_t uid)
{
	static const char *const names[2] = { "mem_read", "mem_write" };
	char err[512];
	int64_t id = store_session_begin(st, &(struct store_session){
		.mode = mode, .command = cmd, .pid = pid, .uid = uid,
		.config = "analysis_type: all\ninterval_size: 1000\n",
		.settings = "{\"interval_size\":1000}" }, err, sizeof(err));

	check(id < 0 ? -1 : 0, "session", err);
	check(store_itypes_groups(st, id, names, 2, err, sizeof(err)), "itypes groups", err);
	return id;
}

static void
intervals(struct store *st, const struct mica_config *cfg, int64_t sid, uint32_t tid,
	  uint64_t count, uint64_t ins0)
{
	struct mica_interval iv;
	const struct mica_interval *one[1] = { &iv };
	uint64_t itypes[3];
	char err[512];
	uint64_t total = 0;

	check(store_thread(st, sid, tid, tid, err, sizeof(err)), "thread", err);
	for (uint64_t k = 0; k < count; k++) {
		uint64_t n = k + 1;

		fill(&iv, tid, k, n, ins0 ? ins0 : 1000 * n, total, itypes);
		total = iv.total_ins;
		iv.final = k + 1 == count;
		check(store_intervals(st, sid, one, 1, cfg, err, sizeof(err)), "intervals", err);
	}
}

/*
 * MGSim snapshots of session 1, thread 100: its start (m = 0) and the ends
 * of intervals 0..2 (m = 1..3).  n_exec_insns 0, 1000, 3000, 6000 (the
 * interval's instructions); clocks and core_clocks 0, 2000, 5000, 9000
 * (pl_eff 0.5, 2/3, 0.75); one live task and one family all along (tt_total
 * and ft_total = clocks: tt_occp 1/256, ft_occp 1/32); xq_total 0; counter
 * i of the others = 10 i m; notused1 = 1, n_cr_threads 1, n_cr_families 0;
 * 13-15 from taken_at = 1700000000 + 10 m (and 5 us).
 */
static void
mgsim_rows(struct store *st, int64_t sid)
{
	static const uint64_t clocks[4] = { 0, 2000, 5000, 9000 };
	static const uint64_t insns[4] = { 0, 1000, 3000, 6000 };
	struct mgsim_config c;
	char err[512];

	mgsim_config_default(&c);
	check(store_mgsim_config(st, sid, &c, err, sizeof(err)), "mgsim config", err);
	for (int m = 0; m < 4; m++) {
		struct mgsim_snapshot s = { .pid = 100, .tid = 100, .idx = m - 1, .final = m == 3 };
		struct timespec ts = { .tv_sec = 1700000000 + 10 * m, .tv_nsec = 5000 };

		for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
			s.v[i] = 10 * i * (uint64_t)m;
		s.v[MGSIM_CLOCKS] = s.v[MGSIM_CORE_CLOCKS] = clocks[m];
		s.v[MGSIM_EXEC_INSNS] = insns[m];
		s.v[MGSIM_PLACE_SIZE] = 1;
		s.v[MGSIM_TT_TOTAL] = s.v[MGSIM_FT_TOTAL] = clocks[m];
		s.v[MGSIM_XQ_TOTAL] = 0;
		s.v[MGSIM_CR_THREADS] = 1;
		s.v[MGSIM_CR_FAMILIES] = 0;
		s.taken_at = (double)ts.tv_sec + 5e-6;
		mgsim_apply_clock(s.v, &ts, false);
		check(store_mgsim_snapshot(st, sid, &s, err, sizeof(err)), "mgsim snapshot", err);
	}
}

int
main(int argc, char **argv)
{
	struct mica_config cfg;
	struct store *st;
	char err[512];
	int64_t s1, s2, s3;
	char *msg = NULL;
	sqlite3 *db;

	program_name = "http_fixture";
	if (argc < 2)
		error_msg_and_die("usage: http_fixture DB [N_INTERVALS | --hostile]");
	unlink(argv[1]);
	st = store_open(argv[1], false, err, sizeof(err));
	if (!st)
		error_msg_and_die("%s", err);
	mica_config_init(&cfg);
	cfg.block_size = 6;
	cfg.page_size = 12;
	if (argc > 2 && !strcmp(argv[2], "--ui")) {
		static const char *const groups[4] = { "mem_read", "arithmetic", "sse", "fp" };
		struct mica_interval iv;
		const struct mica_interval *one[1] = { &iv };
		uint64_t it[3], mix[5];
		uint64_t total = 0;

		s1 = store_session_begin(st, &(struct store_session){
			.mode = "run", .command = "./phases", .pid = 700, .uid = 1000,
			.config = "analysis_type: all\ninterval_size: 1000\n",
			.settings = "{\"interval_size\":1000}" }, err, sizeof(err));
		check(s1 < 0 ? -1 : 0, "session", err);
		check(store_itypes_groups(st, s1, groups, 4, err, sizeof(err)), "itypes groups", err);
		check(store_thread(st, s1, 700, 700, err, sizeof(err)), "thread", err);
		check(store_exec(st, "BEGIN", err, sizeof(err)), "begin", err);
		for (uint64_t k = 0; k < 3000; k++) {
			fill(&iv, 700, k, k % 7 + 1, 1000, total, it);
			total = iv.total_ins;
			mix[0] = 500, mix[1] = 400, mix[2] = 300, mix[3] = 200, mix[4] = 100;
			iv.itypes.n_groups = 4;
			iv.itypes.counts = mix;
			iv.final = k == 2999;
			check(store_interval(st, s1, &iv, &cfg, 0, 0, err, sizeof(err)) < 0 ? -1 : 0,
			      "interval", err);
		}
		check(store_exec(st, "COMMIT", err, sizeof(err)), "commit", err);
		check(store_session_end(st, s1, 0, "exited", err, sizeof(err)), "end", err);
		s2 = session(st, "run", "./quick", 800, 1000);
		check(store_thread(st, s2, 800, 800, err, sizeof(err)), "thread", err);
		fill(&iv, 800, 0, 1, 600, 0, it);
		iv.final = true;
		iv.full = true;
		check(store_intervals(st, s2, one, 1, &cfg, err, sizeof(err)), "interval", err);
		check(store_session_end(st, s2, 0, "exited", err, sizeof(err)), "end", err);
		s3 = session(st, "run", "/nonexistent/prog", 0, 1000);
		check(store_session_note(st, s3, "cannot run '/nonexistent/prog': No such file or "
					 "directory", NULL, err, sizeof(err)), "error", err);
		check(store_session_end(st, s3, -1, "error", err, sizeof(err)), "end", err);
		check(store_exec(st, "INSERT INTO sched_config VALUES (1, 'skylake', 100);"
				 "INSERT INTO sched_interval SELECT session_id, tid, idx, final, 2 * ins, "
				 "ins, 0.5 + (idx % 10) / 10.0 FROM interval WHERE session_id = 1",
				 err, sizeof(err)), "sched", err);
		store_close(st);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "--sample")) {
		s1 = store_session_begin(st, &(struct store_session){
			.mode = "run", .command = "./sampled", .pid = 600, .uid = 1000,
			.config = "analysis_type: all\n", .settings = "{}", .engine = "sample" },
			err, sizeof(err));
		check(s1 < 0 ? -1 : 0, "session", err);
		check(store_itypes_groups(st, s1, (const char *const[]){ "mem_read", "mem_write" }, 2,
					  err, sizeof(err)), "itypes groups", err);
		check(store_session_sample(st, s1, "cpu-clock", "no hardware PMU here (perf_event_open "
					   "of PERF_TYPE_HARDWARE: ENOENT); sampling cpu-clock at 999 Hz, "
					   "bursts by ptrace placed by time (time-weighted estimates)",
					   "time", err, sizeof(err)), "sample note", err);
		intervals(st, &cfg, s1, 600, 3, 0);
		intervals(st, &cfg, s1, 601, 1, 500);
		check(store_session_end(st, s1, 0, "exited", err, sizeof(err)), "end", err);
		s2 = session(st, "run", "./stepped", 700, 1000);
		intervals(st, &cfg, s2, 700, 1, 0);
		check(store_session_end(st, s2, 0, "exited", err, sizeof(err)), "end", err);
		s3 = store_session_begin(st, &(struct store_session){
			.mode = "run", .command = "./sampled-long", .pid = 800, .uid = 1000,
			.config = "analysis_type: all\n", .settings = "{}", .engine = "sample" },
			err, sizeof(err));
		check(s3 < 0 ? -1 : 0, "session", err);
		check(store_itypes_groups(st, s3, (const char *const[]){ "mem_read", "mem_write" }, 2,
					  err, sizeof(err)), "itypes groups", err);
		check(store_session_sample(st, s3, "cpu-clock", "sampled", "time", err, sizeof(err)),
		      "sample note", err);
		intervals(st, &cfg, s3, 800, 70, 0);
		check(store_session_end(st, s3, 0, "exited", err, sizeof(err)), "end", err);
		check(store_exec(st,
			"UPDATE memstackdist SET censored = 0, horizon = 4 WHERE interval_id IN "
			"(SELECT id FROM interval WHERE session_id = 1);"
			"INSERT INTO sample_interval VALUES (1, 600, 0, 2, 1, 2000), (1, 600, 1, 2, 0, 4000),"
			" (1, 600, 2, 3, 0, 6000), (1, 601, 0, 1, 0, 1000);"
			"INSERT INTO metric_sums VALUES"
			" (1, 600, 0, 'mix_mem_read', 2, 1000, 300, 520000, 160000, 50000, 1),"
			" (1, 600, 1, 'mix_mem_read', 2, 2000, 600, 2000000, 600000, 185000, 1),"
			" (1, 600, 2, 'mix_mem_read', 3, 3000, 900, 3000000, 900000, 290000, 1),"
			" (1, 601, 0, 'mix_mem_read', 1, 500, 300, 250000, 150000, 90000, 1),"
			" (1, 600, 0, 'ilp_256', 2, 125, 1000, 7825, 63000, 520000, 1),"
			" (1, 600, 0, 'reuse_bucket_0', 2, 100, 20, 5000, 1000, 250, 1),"
			" (1, 600, 1, 'reuse_bucket_2', 2, 200, 20, 20000, 2000, 250, 0);"
			"INSERT INTO profile_interval (session_id, tid, idx, started_at, ended_at, samples,"
			" lost) VALUES (1, 600, 0, 1700000100, 1700000101, 900, 0),"
			" (1, 600, 1, 1700000101, 1700000102, 950, 50),"
			" (1, 600, 2, 1700000102, 1700000103, 400, 0);"
			"INSERT INTO sample_interval SELECT session_id, tid, idx, 16, 0, ins FROM interval"
			" WHERE session_id = 3;"
			"INSERT INTO metric_sums SELECT session_id, tid, idx, 'mix_mem_read', 16, ins,"
			" ins * 3 / 10, 0.0625 * ins * ins, 0.01875 * ins * ins, 0.007125 * ins * ins, 1"
			" FROM interval WHERE session_id = 3;"
			"INSERT INTO metric_sums VALUES"
			" (3, 800, 0, 'mpki_GAg_8', 6, 1000, 0, 220000, 0, 0, 1),"
			" (3, 800, 0, 'stride_global_write_le_262144', 4, 40, 40, 400, 400, 400, 1),"
			" (3, 800, 0, 'mix_mem_write', 3, 2000, 200, 1520000, 140000, 20000, 1);"
			"UPDATE session SET started_at = 1700000100, ended_at = 1700000103.5;"
			"UPDATE interval SET started_at = 1700000100 + idx, ended_at = 1700000101 + idx;",
			err, sizeof(err)), "sample rows", err);
		store_close(st);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "--hostile")) {
		s1 = session(st, "run", "./prog \xff\xfe x\r\ny \"q\" \\ \xc3\x28 \xe2\x82 "
			     "\xed\xa0\x80 \x1b[31m \xc3\xa9", 500, 1000);
		intervals(st, &cfg, s1, 500, 2, 0);
		store_close(st);
		return 0;
	}
	if (argc > 2) {
		unsigned long long n;

		if (parse_u64(argv[2], &n) < 0)
			error_msg_and_die("bad interval count '%s'", argv[2]);
		s1 = session(st, "run", "bench prog", 4, 1000);
		/* One transaction per 1000 intervals would be faster; the
		 * store API writes per call, so batch by hand. */
		check(store_thread(st, s1, 400, 400, err, sizeof(err)), "thread", err);
		{
			struct mica_interval *ivs = xcalloc(1000, sizeof(*ivs));
			const struct mica_interval **ptr = xcalloc(1000, sizeof(*ptr));
			uint64_t (*it)[3] = xcalloc(1000, sizeof(*it));

			uint64_t total = 0;

			for (unsigned long long k = 0; k < n; k += 1000) {
				size_t m = n - k < 1000 ? (size_t)(n - k) : 1000;

				for (size_t j = 0; j < m; j++) {
					fill(&ivs[j], 400, k + j, (k + j) % 7 + 1, 1000 * ((k + j) % 7 + 1),
					     total, it[j]);
					total = ivs[j].total_ins;
					ptr[j] = &ivs[j];
				}
				check(store_intervals(st, s1, ptr, m, &cfg, err, sizeof(err)),
				      "intervals", err);
			}
			free(ivs);
			free(ptr);
			free(it);
		}
		check(store_session_end(st, s1, 0, "exited", err, sizeof(err)), "end", err);
		/* The scheduling model's IPC, as every session of micad serve has. */
		check(store_exec(st, "INSERT INTO sched_config VALUES (1, 'skylake', 100);"
				 "INSERT INTO sched_interval SELECT session_id, tid, idx, final, 2 * ins, "
				 "ins, 0.5 + (idx % 10) / 10.0 FROM interval WHERE session_id = 1",
				 err, sizeof(err)), "sched", err);
		store_close(st);
		return 0;
	}

	s1 = session(st, "run", "./prog \"a b\" <x> & 'y' \\ \xc3\xa9", 100, 1000);
	intervals(st, &cfg, s1, 100, 3, 0);
	intervals(st, &cfg, s1, 101, 1, 500);
	mgsim_rows(st, s1);
	check(store_session_end(st, s1, 0, "exited", err, sizeof(err)), "end", err);
	s2 = session(st, "attach", "/usr/bin/root-daemon", 200, 0);
	intervals(st, &cfg, s2, 200, 1, 0);
	s3 = session(st, "run", "./live", 300, 1000);
	intervals(st, &cfg, s3, 300, 2, 0);
	store_close(st);

	/* Fixed times (the store writes the clock's). */
	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		error_msg_and_die("%s: %s", argv[1], sqlite3_errmsg(db));
	if (sqlite3_exec(db,
		"UPDATE session SET started_at = 1700000000.5 + id, ended_at = NULL;"
		"UPDATE session SET ended_at = 1700000100.25 WHERE id = 1;"
		"UPDATE interval SET started_at = 1700000000 + id, ended_at = 1700000001 + id;",
		NULL, NULL, &msg) != SQLITE_OK)
		error_msg_and_die("%s: %s", argv[1], msg);
	sqlite3_close(db);
	if (s1 != 1 || s2 != 2 || s3 != 3)
		error_msg_and_die("unexpected session ids %lld %lld %lld", (long long)s1,
				  (long long)s2, (long long)s3);
	return 0;
}
