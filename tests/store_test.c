/*
 * Storage test: fabricated intervals go into a fresh database; the tables
 * hold the raw counts and the views MICA's conversions, checked against
 * values computed by hand.  Also: reopening, the application_id guard,
 * migration refusal for newer files, cut-off marking (only of sessions
 * whose writer process is gone), integrity, itypes group names, and the
 * writer thread (several producers, a bounded queue, deep copies, a
 * failing job rolled back alone).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mica/ratio_estimate.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "tap.h"
#include "util.h"

static char dbpath[256];

static double
query_real(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	double v = NAN;

	if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return NAN;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
			v = sqlite3_column_double(s, 0);
		sqlite3_finalize(s);
	} else {
		diag("sql error: %s: %s", sqlite3_errmsg(db), sql);
	}
	sqlite3_close(db);
	return v;
}

static const char *
query_text(const char *sql, char *buf, size_t size)
{
	sqlite3 *db;
	sqlite3_stmt *s;

	snprintf(buf, size, "(none)");
	if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return buf;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
			snprintf(buf, size, "%s", (const char *)sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	return buf;
}

#define is_real(got, want, ...) do { \
	double g_ = (got), w_ = (want); \
	if (!ok(fabs(g_ - w_) < 1e-9, __VA_ARGS__)) \
		diag("  got %.12g, want %.12g", g_, w_); \
} while (0)

static void
remove_db(void)
{
	char p[300];

	unlink(dbpath);
	snprintf(p, sizeof(p), "%s-wal", dbpath);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", dbpath);
	unlink(p);
}

static int
parse_config(struct mica_config *cfg, const char *text)
{
	char err[256];
	int r = mica_config_parse(cfg, "test.conf", text, strlen(text), err, sizeof(err));

	if (r < 0)
		diag("%s", err);
	return r;
}

/* itypes group names: the built-in groups by name; a spec file's groups
 * by the built-in name when identical, else their identifiers; MICA's
 * settings as session columns. */
static void
test_group_names(void)
{
	static const char spec_text[] =
		"0, 0, SPECIAL, mem_read\n"
		"1, 0, CATEGORY, COND_BR\n1, 1, CATEGORY, UNCOND_BR\n1, 2, OPCODE, LEAVE\n"
		"1, 2, OPCODE, RET_NEAR\n1, 3, OPCODE, CALL_NEAR\n"
		"2, 0, CATEGORY, X87_ALU\n2, 1, CATEGORY, FCMOV\n2, 2, CATEGORY, LOGICAL_FP\n";
	struct mica_config cfg;
	struct store *st;
	char err[512], buf[512];
	int64_t a, b;

	remove_db();
	st = store_open(dbpath, false, err, sizeof(err));
	if (!ok(st != NULL, "names: new database")) {
		diag("%s", err);
		return;
	}
	mica_config_init(&cfg);
	ok(parse_config(&cfg, "analysis_type: all\ninterval_size: 400\n") == 0,
	   "names: parse a configuration");
	a = store_session_begin(st, &(struct store_session){ .mode = "run", .command = "x",
		.mica = &cfg }, err, sizeof(err));
	mica_config_free(&cfg);
	mica_config_init(&cfg);
	ok(parse_config(&cfg, "analysis_type: itypes\ninterval_size: full\n") == 0,
	   "names: parse another");
	cfg.itypes_spec = itypes_spec_parse("spec", spec_text, sizeof(spec_text) - 1, err,
					    sizeof(err));
	ok(cfg.itypes_spec != NULL, "names: parse a spec file");
	b = store_session_begin(st, &(struct store_session){ .mode = "replay", .command = "y",
		.mica = &cfg }, err, sizeof(err));
	mica_config_free(&cfg);
	store_close(st);
	ok(a > 0 && b > a, "names: two sessions");

	is_str(query_text("SELECT group_concat(name, ' ') FROM (SELECT name FROM itypes_group"
			  " WHERE session_id = 1 ORDER BY grp)", buf, sizeof(buf)),
	       "mem_read mem_write control arithmetic fp stack shift string sse misc nop "
	       "reg_transfer other", "built-in group names, then the catch-all");
	is_str(query_text("SELECT identifiers FROM itypes_group WHERE session_id = 1 AND grp = 5",
			  buf, sizeof(buf)), "CATEGORY POP, CATEGORY PUSH",
	       "a group's identifiers are recorded");
	is_str(query_text("SELECT group_concat(name, ' ') FROM (SELECT name FROM itypes_group"
			  " WHERE session_id = 2 ORDER BY grp)", buf, sizeof(buf)),
	       "mem_read control X87_ALU+FCMOV+LOGICAL_FP other",
	       "a spec file's groups: built-in names when identical, else the identifiers");
	is_str(query_text("SELECT analysis_type || ' ' || interval_size || ' ' || block_size || ' '"
			  " || page_size || ' ' || append_pid FROM session WHERE id = 1", buf,
			  sizeof(buf)), "all 400 6 12 0", "MICA settings as session columns");
	is_str(query_text("SELECT analysis_type || ' ' || interval_size FROM session WHERE id = 2",
			  buf, sizeof(buf)), "itypes -1", "full mode is interval_size -1");
	ok(query_real("SELECT writer_pid FROM session WHERE id = 1") == (double)getpid(),
	   "the writer's pid is recorded");
}

/* The writer thread. */
struct producer {
	struct store_writer *w;
	int64_t session;
	uint32_t tid;
	int n;
	int failed;
};

static void *
produce(void *arg)
{
	struct producer *p = arg;
	struct mica_config cfg;

	mica_config_init(&cfg);
	for (int i = 0; i < p->n; i++) {
		/* The counts live on this stack frame only: the writer must copy
		 * them before this loop overwrites them. */
		uint64_t counts[3] = { (uint64_t)i, (uint64_t)i * 2, p->tid };
		const char *other[1] = { "CONVERT" };
		struct mica_interval iv = {
			.tid = p->tid, .index = (uint64_t)i, .ins = 1000, .ins_aligned = 990,
			.total_ins = 1000 * (uint64_t)(i + 1), .analyses = MICA_BIT(MICA_ITYPES),
			.itypes = { .n_groups = 2, .counts = counts, .n_other = 1, .other = other },
		};

		if (store_writer_interval(p->w, p->session, &iv, &cfg, 1.0 + i, 2.0 + i) < 0)
			p->failed++;
		memset(counts, 0xff, sizeof(counts));
	}
	return NULL;
}

static int
duplicate_interval(struct store *st, void *job, char *err, size_t errsz)
{
	int64_t session = *(int64_t *)job;

	/* (session, tid 1, idx 0) exists: the UNIQUE constraint fails. */
	return store_exec(st, session == 1 ? "INSERT INTO interval (session_id, tid, idx, full,"
			  " final, ins, ins_aligned, total_ins, total_ins_aligned)"
			  " VALUES (1, 1, 0, 0, 0, 0, 0, 0, 0)" : "SELECT 1", err, errsz);
}

static int
mark_job(struct store *st, void *job, char *err, size_t errsz)
{
	(void)job;
	return store_exec(st, "INSERT INTO process (session_id, pid, exe) VALUES (1, 77, 'marker')",
			  err, errsz);
}

static void
test_writer(void)
{
	enum { THREADS = 3, PER_THREAD = 2000 };	/* > STORE_WRITER_QUEUE in all */
	struct producer p[THREADS];
	pthread_t th[THREADS];
	struct store_writer *w;
	struct store_thread row = { .files_pid = 1 };
	char err[512], buf[512];
	int64_t session, one = 1;
	int failed = 0;

	remove_db();
	w = store_writer_open(dbpath, err, sizeof(err));
	if (!ok(w != NULL, "writer: open")) {
		diag("%s", err);
		return;
	}
	session = store_writer_session_begin(w, &(struct store_session){ .mode = "run",
		.command = "prog", .pid = 10, .uid = 1 }, err, sizeof(err));
	is_u64(session, 1, "writer: the session row exists when session_begin returns");
	for (int i = 0; i < THREADS; i++) {
		row.session = session;
		row.tid = row.pid = i + 1;
		store_writer_thread(w, &row);
		p[i] = (struct producer){ w, session, (uint32_t)i + 1, PER_THREAD, 0 };
		pthread_create(&th[i], NULL, produce, &p[i]);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		failed += p[i].failed;
	}
	is_u64(failed, 0, "writer: every submission accepted (producers blocked, none dropped)");
	store_writer_submit(w, duplicate_interval, &one, NULL);
	store_writer_submit(w, mark_job, NULL, NULL);
	store_writer_flush(w);
	is_u64(store_writer_failures(w), 1, "writer: the failing job is counted");
	ok(store_writer_session_end(w, session, 3, "exited", err, sizeof(err)) == 0,
	   "writer: session end");
	ok(store_writer_close(w) < 0, "writer: close reports that a job failed");

	is_u64(query_real("SELECT count(*) FROM interval"), THREADS * PER_THREAD,
	       "writer: every interval of every producer is in");
	is_u64(query_real("SELECT count(*) FROM itypes"), THREADS * PER_THREAD * 3,
	       "writer: every itypes row is in");
	is_u64(query_real("SELECT count(*) FROM itypes t JOIN interval i ON i.id = t.interval_id"
			  " WHERE (t.grp = 0 AND t.count != i.idx) OR (t.grp = 1 AND t.count != 2 * i.idx)"
			  " OR (t.grp = 2 AND t.count != i.tid)"), 0,
	       "writer: counts are deep copies (the producers' buffers were overwritten)");
	is_u64(query_real("SELECT count(*) FROM interval a JOIN interval b ON a.tid = b.tid"
			  " AND b.idx = a.idx + 1 WHERE b.id < a.id"), 0,
	       "writer: each producer's intervals are written in order");
	is_str(query_text("SELECT exe FROM process WHERE pid = 77", buf, sizeof(buf)), "marker",
	       "writer: the job after the failing one in its batch is committed");
	is_str(query_text("SELECT group_concat(category) FROM itypes_other", buf, sizeof(buf)),
	       "CONVERT,CONVERT,CONVERT", "writer: catch-all categories once per thread");
	is_u64(query_real("SELECT started_at FROM interval WHERE tid = 2 AND idx = 5"), 6,
	       "writer: the interval's start time");
	is_u64(query_real("SELECT ended_at FROM interval WHERE tid = 2 AND idx = 5"), 7,
	       "writer: the interval's end time");
	is_str(query_text("SELECT end_reason || ' ' || exit_status FROM session", buf, sizeof(buf)),
	       "exited 3", "writer: the session's end, after its intervals");
	is_str(query_text("PRAGMA integrity_check", buf, sizeof(buf)), "ok", "writer: integrity_check");
	{
		struct store *st = store_open(dbpath, true, err, sizeof(err));

		ok(st && store_interval_id(st, 1, 3, 1999) ==
		   (int64_t)query_real("SELECT id FROM interval WHERE tid = 3 AND idx = 1999"),
		   "store_interval_id finds an interval's row");
		ok(st && store_interval_id(st, 1, 3, 2000) == -1, "store_interval_id: -1 if none");
		store_close(st);
	}
}

int
main(void)
{
	static const uint64_t itypes_counts[3] = { 30, 12, 58 };
	static const char *const itypes_names[2] = { "mem_read", "mem_write" };
	struct mica_config cfg;
	struct mica_interval iv;
	const struct mica_interval *batch[1] = { &iv };
	struct store *st;
	char err[512], buf[512];
	int64_t sid;
	FILE *f;

	snprintf(dbpath, sizeof(dbpath), "%s/micad-store-test-%d.db",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	unlink(dbpath);

	st = store_open(dbpath, false, err, sizeof(err));
	if (!ok(st != NULL, "create a new database")) {
		diag("%s", err);
		return done_testing();
	}
	is_real(query_real("PRAGMA application_id"), 1296647009, "application_id is MICA's");
	is_real(query_real("PRAGMA user_version"), STORE_SCHEMA_VERSION, "user_version");
	is_str(query_text("PRAGMA journal_mode", buf, sizeof(buf)), "wal", "WAL journal");
	{
		/* The writer's reserve of disk space: DB-reserve-PID, 128 KiB
		 * allocated, gone once released (then nothing more to free). */
		char rpath[300];
		struct stat sb;

		snprintf(rpath, sizeof(rpath), "%s-reserve-%d", dbpath, (int)getpid());
		ok(stat(rpath, &sb) == 0 && sb.st_size == 128 * 1024 &&
		   sb.st_blocks * 512 >= 128 * 1024 && (sb.st_mode & 0777) == 0600,
		   "a writer holds 128 KiB of disk in %s, mode 0600", rpath);
		ok(store_release_reserve(st) && stat(rpath, &sb) < 0 && errno == ENOENT,
		   "released, the reserve file is gone");
		ok(!store_release_reserve(st), "... and a second release frees nothing");
	}

	sid = store_session_begin(st, &(struct store_session){
		.mode = "run", .command = "./prog a b", .pid = 42, .uid = 1000,
		.config = "analysis_type: all\n", .settings = "{\"interval_size\":-1}" },
		err, sizeof(err));
	ok(sid > 0, "session row");
	ok(store_thread(st, sid, 42, 42, err, sizeof(err)) == 0, "thread row");
	ok(store_itypes_groups(st, sid, itypes_names, 2, err, sizeof(err)) == 0, "itypes group names");

	mica_config_init(&cfg);
	cfg.block_size = 6;
	cfg.page_size = 12;
	memset(&iv, 0, sizeof(iv));
	iv.tid = 42;
	iv.index = 0;
	iv.full = true;
	iv.final = true;
	iv.ins = 100;
	iv.ins_aligned = 98;
	iv.total_ins = 100;
	iv.total_ins_aligned = 98;
	iv.analyses = MICA_BIT(MICA_ILP) | MICA_BIT(MICA_ITYPES) | MICA_BIT(MICA_PPM) |
		      MICA_BIT(MICA_REG) | MICA_BIT(MICA_STRIDE) | MICA_BIT(MICA_MEMFOOTPRINT) |
		      MICA_BIT(MICA_MEMSTACKDIST);
	iv.ilp.n_windows = 4;
	for (int w = 0; w < 4; w++) {
		iv.ilp.window[w] = 32u << w;
		iv.ilp.cycles[w] = 50 >> w;	/* 50, 25, 12, 6 */
	}
	iv.itypes.n_groups = 2;
	iv.itypes.counts = itypes_counts;
	iv.ppm.miss[0][0] = 5;		/* GAg, 4 bits */
	iv.ppm.miss[2][3] = 2;		/* PAs, 12 bits */
	iv.ppm.branches = 20;
	iv.ppm.transitions = 4;
	iv.ppm.taken = 6;
	iv.reg.op_count[2] = 10;	/* totOps = 2*10 + 3*5 = 35 */
	iv.reg.op_count[3] = 5;
	iv.reg.use_dist[0] = 2;		/* nVals = 5, totUses = 0*2 + 1*1 + 3*2 = 7 */
	iv.reg.use_dist[1] = 1;
	iv.reg.use_dist[3] = 2;
	iv.reg.age_dist[1] = 4;		/* nReads = 10; c1 = 4, c2 = 6, c4..c64 = 9 */
	iv.reg.age_dist[2] = 2;
	iv.reg.age_dist[3] = 3;
	iv.reg.age_dist[100] = 1;
	iv.stride.reads = 8;
	iv.stride.writes = 4;
	for (int d = 0; d < MICA_STRIDE_CUM; d++) {
		iv.stride.local_read[d] = d < 2 ? 2 : 6;
		iv.stride.global_read[d] = 4;
		iv.stride.local_write[d] = 1;
		iv.stride.global_write[d] = d == 6 ? 4 : 3;
	}
	iv.memfootprint.data_blocks = 10;
	iv.memfootprint.data_pages = 2;
	iv.memfootprint.insn_blocks = 3;
	iv.memfootprint.insn_pages = 1;
	iv.memstackdist.refs = 10;
	iv.memstackdist.cold = 5;
	iv.memstackdist.bucket[0] = 2;
	iv.memstackdist.bucket[1] = 2;
	iv.memstackdist.bucket[2] = 1;
	ok(store_intervals(st, sid, batch, 1, &cfg, err, sizeof(err)) == 0, "store one interval");
	ok(store_session_end(st, sid, 0, "exited", err, sizeof(err)) == 0, "end the session");
	store_close(st);

	is_real(query_real("SELECT ilp FROM ilp_per_window WHERE window = 64"), 4.0,
		"ilp_per_window: 100 instructions / 25 cycles");
	is_real(query_real("SELECT count(*) FROM ilp_per_window"), 4, "four ILP windows");
	is_real(query_real("SELECT fraction FROM instruction_mix WHERE grp_name = 'mem_write'"), 0.12,
		"instruction_mix: 12 / E");
	is_real(query_real("SELECT fraction FROM instruction_mix WHERE grp_name = 'other'"), 0.58,
		"instruction_mix: the catch-all is named 'other'");
	is_real(query_real("SELECT rate FROM misprediction_rate WHERE organization = 'GAg' AND history = 4"),
		0.25, "misprediction_rate GAg/4: 5 / 20");
	is_real(query_real("SELECT mpki FROM misprediction_rate WHERE organization = 'PAs' AND history = 12"),
		20.0, "misprediction MPKI PAs/12: 1000 * 2 / 100");
	is_real(query_real("SELECT taken_rate FROM branch_behaviour"), 0.3, "taken rate 6 / 20");
	is_real(query_real("SELECT operands FROM reg"), 35, "reg: totOps");
	is_real(query_real("SELECT uses FROM reg"), 7, "reg: totUses");
	is_real(query_real("SELECT c2 FROM reg"), 6, "reg: c2 cumulative");
	is_real(query_real("SELECT c64 FROM reg"), 9, "reg: age 100 only in nReads");
	is_real(query_real("SELECT reads FROM reg"), 10, "reg: nReads");
	is_real(query_real("SELECT avg_operands FROM register_traffic"), 0.35, "avg register operands");
	is_real(query_real("SELECT avg_degree_of_use FROM register_traffic"), 7.0 / 5,
		"avg degree of use 7 / 5");
	is_real(query_real("SELECT probability FROM dependency_distance_cdf WHERE distance = 4"), 0.9,
		"P(dependency distance <= 4) = 9 / 10");
	is_real(query_real("SELECT probability FROM stride_cdf WHERE kind = 'local_read' AND le = 64"),
		0.75, "P(local read stride <= 64) = 6 / 8");
	is_real(query_real("SELECT probability FROM stride_cdf WHERE kind = 'global_write' AND le = 262144"),
		1.0, "P(global write stride <= 262144) = 4 / 4");
	is_real(query_real("SELECT data_block_bytes FROM footprint_bytes"), 640, "data footprint 10 x 64 B");
	is_real(query_real("SELECT insn_page_bytes FROM footprint_bytes"), 4096, "insn footprint 1 page");
	is_real(query_real("SELECT fraction FROM reuse_distance WHERE bucket = 1"), 0.2,
		"reuse distance bucket [2,4): 2 / 10");
	is_real(query_real("SELECT cdf FROM reuse_distance WHERE bucket = 2"), 0.5,
		"reuse distance CDF up to bucket 2: 5 / 10");
	is_real(query_real("SELECT fraction FROM cold_references"), 0.5, "cold references 5 / 10");
	is_real(query_real("SELECT value FROM metric WHERE metric = 'ilp_256'"), 100.0 / 6,
		"long metric view: ilp_256");
	is_real(query_real("SELECT value FROM metric WHERE metric = 'mispredict_GAg_4'"), 0.25,
		"long metric view: mispredict_GAg_4");
	is_str(query_text("SELECT end_reason FROM session", buf, sizeof(buf)), "exited",
	       "session end reason");
	/* The proportions: the table the views read is the C list the HTTP
	 * API reads (ratio_proportion_scale), row for row; no prefix begins
	 * another (the views take the greatest prefix not above a name). */
	{
		char want[1024] = "", one[128];
		bool prefix_free = true;

		for (size_t i = 0; i < ratio_n_proportions; i++) {
			snprintf(one, sizeof(one), "%s%s=%g", i ? " " : "",
				 ratio_proportions[i].prefix, ratio_proportions[i].scale);
			strncat(want, one, sizeof(want) - strlen(want) - 1);
			for (size_t j = 0; j < ratio_n_proportions; j++)
				if (i != j && !strncmp(ratio_proportions[j].prefix,
						       ratio_proportions[i].prefix,
						       strlen(ratio_proportions[i].prefix)))
					prefix_free = false;
		}
		is_str(query_text("SELECT group_concat(prefix || '=' || scale, ' ') FROM "
				  "(SELECT prefix, CAST(scale AS INTEGER) AS scale FROM proportion_metric "
				  "ORDER BY rowid)", buf, sizeof(buf)), want,
		       "proportion_metric holds ratio_proportions' rows");
		ok(prefix_free, "no proportion prefix begins another");
	}

	/* A session left running is cut off only when its writer is gone:
	 * this process is alive, a forked child that exits is not. */
	st = store_open(dbpath, false, err, sizeof(err));
	ok(st != NULL, "reopen the database");
	if (st) {
		int64_t s2 = store_session_begin(st, &(struct store_session){
			.mode = "attach", .command = "1234", .uid = 0 }, err, sizeof(err));
		pid_t child;
		int status = -1;

		ok(s2 > sid, "second session");
		is_u64(store_mark_cut_off(st, err, sizeof(err)), 0,
		       "a session whose writer is alive is not cut off");
		store_close(st);
		child = fork();
		if (child == 0) {
			struct store *cs = store_open(dbpath, false, err, sizeof(err));

			/* Begun, never ended: as if killed. */
			_exit(cs && store_session_begin(cs, &(struct store_session){
				.mode = "run", .command = "child", .uid = 0 }, err,
				sizeof(err)) > 0 ? 0 : 1);
		}
		waitpid(child, &status, 0);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a child process begins a session");
		st = store_open(dbpath, false, err, sizeof(err));
		is_u64(st ? store_mark_cut_off(st, err, sizeof(err)) : 99, 1,
		       "the session of the exited child is cut off");
		store_close(st);
		snprintf(buf, sizeof(buf), "SELECT end_reason FROM session WHERE command = 'child'");
		is_str(query_text(buf, (char[64]){ 0 }, 64), "cut-off", "the child's session says cut-off");
		snprintf(buf, sizeof(buf), "SELECT end_reason FROM session WHERE id = %lld",
			 (long long)s2);
		is_str(query_text(buf, (char[64]){ 0 }, 64), "running",
		       "this process's session is still running");
	}
	is_str(query_text("PRAGMA integrity_check", buf, sizeof(buf)), "ok", "integrity_check");

	/* A thread's end as the shell says it: a signal N as 128 + N. */
	st = store_open(dbpath, false, err, sizeof(err));
	{
		int64_t s3 = st ? store_session_begin(st, &(struct store_session){
			.mode = "run", .command = "ends", .pid = 50, .uid = 1000,
			.config = "analysis_type: ilp\n", .settings = "{}" }, err, sizeof(err)) : -1;

		ok(s3 > 0 && store_thread(st, s3, 50, 50, err, sizeof(err)) == 0 &&
		   store_thread(st, s3, 51, 50, err, sizeof(err)) == 0 &&
		   store_thread_end(st, s3, 50, 3 << 8, "exited", 0, err, sizeof(err)) == 0 &&
		   store_thread_end(st, s3, 51, SIGKILL, "killed", 0, err, sizeof(err)) == 0,
		   "threads ended by exit(3) and by SIGKILL");
		snprintf(buf, sizeof(buf), "SELECT group_concat(tid || ' ' || exit_status || ' ' ||"
			 " end_reason, ', ') FROM (SELECT * FROM thread WHERE session_id = %lld"
			 " ORDER BY tid)", (long long)s3);
		is_str(query_text(buf, (char[128]){ 0 }, 128), "50 3 exited, 51 137 killed",
		       "thread ends: exit status 3, and 128 + 9 for SIGKILL");
	}
	store_close(st);

	st = store_open(dbpath, true, err, sizeof(err));
	ok(st != NULL, "open read-only");
	store_close(st);

	/* A development-build file (schema 1) is refused, with what to do. */
	{
		sqlite3 *db;

		sqlite3_open(dbpath, &db);
		sqlite3_exec(db, "PRAGMA user_version = 1", NULL, NULL, NULL);
		sqlite3_close(db);
	}
	st = store_open(dbpath, false, err, sizeof(err));
	ok(st == NULL && strstr(err, "development build of micad") && strstr(err, ".old"),
	   "a pre-release schema 1 file is refused: %s", err);
	store_close(st);

	/* A newer schema is refused with a message that says what to do. */
	{
		sqlite3 *db;

		sqlite3_open(dbpath, &db);
		sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL);
		sqlite3_close(db);
	}
	st = store_open(dbpath, false, err, sizeof(err));
	ok(st == NULL && strstr(err, "newer micad"), "a newer schema is refused: %s", err);
	store_close(st);

	/* A file that is not ours is refused. */
	f = fopen(dbpath, "w");
	if (f)
		fclose(f);
	unlink(dbpath);
	{
		sqlite3 *db;

		sqlite3_open(dbpath, &db);
		sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL);
		sqlite3_close(db);
	}
	st = store_open(dbpath, false, err, sizeof(err));
	ok(st == NULL && strstr(err, "not a micad results database"),
	   "a foreign SQLite file is refused: %s", err);
	store_close(st);

	test_group_names();
	test_writer();
	{
		/* A writer's reserve file goes with it at close. */
		char rpath[300];
		struct stat sb;

		remove_db();
		snprintf(rpath, sizeof(rpath), "%s-reserve-%d", dbpath, (int)getpid());
		st = store_open(dbpath, false, err, sizeof(err));
		ok(st && stat(rpath, &sb) == 0, "a new writer takes its reserve");
		store_close(st);
		ok(stat(rpath, &sb) < 0 && errno == ENOENT, "closed, its reserve file is gone");
	}
	remove_db();
	return done_testing();
}
