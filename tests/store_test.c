/*
 * Storage test: fabricated intervals go into a fresh database; the tables
 * hold the raw counts and the views MICA's conversions, checked against
 * values computed by hand.  Also: reopening, the application_id guard,
 * migration refusal for newer files, cut-off marking, integrity.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"
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

	/* A session left running by a killed daemon is cut off at the next
	 * open. */
	st = store_open(dbpath, false, err, sizeof(err));
	ok(st != NULL, "reopen the database");
	if (st) {
		int64_t s2 = store_session_begin(st, &(struct store_session){
			.mode = "attach", .command = "1234", .uid = 0 }, err, sizeof(err));

		ok(s2 > sid, "second session");
		is_u64(store_mark_cut_off(st, err, sizeof(err)), 1, "one running session marked cut-off");
		store_close(st);
	}
	is_str(query_text("PRAGMA integrity_check", buf, sizeof(buf)), "ok", "integrity_check");

	st = store_open(dbpath, true, err, sizeof(err));
	ok(st != NULL, "open read-only");
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

	unlink(dbpath);
	snprintf(buf, sizeof(buf), "%s-wal", dbpath);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s-shm", dbpath);
	unlink(buf);
	return done_testing();
}
