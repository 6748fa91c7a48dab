/*
 * The MGSim block of the results database (schema.sql, daemon/store/store_mgsim.c):
 * the counter dictionary matches the library's, the settings row, the
 * cumulative snapshot rows, and the views mgsim_delta (deltas, derived
 * columns) and mgsim_rate (per core cycle, per second) on hand-made
 * snapshots with hand-computed results; then the same rows through the
 * writer thread (store_writer_*).
 */
#include "config.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mgsim/mgsim.h"
#include "store/store.h"
#include "store/store_mgsim.h"
#include "store/store_writer.h"
#include "tap.h"

static sqlite3 *db;

/* The first column of the first row of sql as a double (NAN if NULL or
 * no row), or as text into buf. */
static double
q_double(const char *sql)
{
	sqlite3_stmt *q;
	double v = NAN;

	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		diag("%s: %s", sql, sqlite3_errmsg(db));
		return NAN;
	}
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		v = sqlite3_column_double(q, 0);
	sqlite3_finalize(q);
	return v;
}

static int64_t
q_int(const char *sql)
{
	sqlite3_stmt *q;
	int64_t v = -999;

	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		diag("%s: %s", sql, sqlite3_errmsg(db));
		return v;
	}
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

static const char *
q_text(const char *sql, char *buf, size_t size)
{
	sqlite3_stmt *q;

	buf[0] = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		diag("%s: %s", sql, sqlite3_errmsg(db));
		return buf;
	}
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return buf;
}

static void
test_dictionary(void)
{
	sqlite3_stmt *q;
	unsigned rows = 0, bad = 0;

	if (sqlite3_prepare_v2(db, "SELECT idx, name, macro, unit, scope, kind, cumulative "
			       "FROM mgsim_counter ORDER BY idx", -1, &q, NULL) != SQLITE_OK) {
		ok(0, "query mgsim_counter: %s", sqlite3_errmsg(db));
		return;
	}
	while (sqlite3_step(q) == SQLITE_ROW) {
		unsigned i = (unsigned)sqlite3_column_int(q, 0);
		const struct mgsim_counter_info *ci = mgsim_counter_info(i);

		rows++;
		if (!ci || i != rows - 1 ||
		    strcmp((const char *)sqlite3_column_text(q, 1), ci->name) ||
		    strcmp((const char *)sqlite3_column_text(q, 2), ci->macro) ||
		    strcmp((const char *)sqlite3_column_text(q, 3), ci->unit) ||
		    strcmp((const char *)sqlite3_column_text(q, 4), ci->scope) ||
		    strcmp((const char *)sqlite3_column_text(q, 5), ci->kind) ||
		    sqlite3_column_int(q, 6) != ci->cumulative) {
			bad++;
			diag("mgsim_counter row %u differs from mgsim_counter_info()", i);
		}
	}
	sqlite3_finalize(q);
	is_u64(rows, 21, "mgsim_counter has the 21 counters");
	is_u64(bad, 0, "... exactly as mgsim_counter_info() describes them");
}

static void
snap(struct mgsim_snapshot *s, int32_t tid, int64_t idx, double at, uint64_t clocks,
     uint64_t insns, uint64_t tt, uint64_t xq)
{
	memset(s, 0, sizeof(*s));
	s->pid = 7;
	s->tid = tid;
	s->idx = idx;
	s->taken_at = at;
	s->v[MGSIM_CLOCKS] = clocks;
	s->v[MGSIM_CORE_CLOCKS] = clocks / 2;	/* R = 2 */
	s->v[MGSIM_EXEC_INSNS] = insns;
	s->v[MGSIM_LOADS] = insns / 4;
	s->v[MGSIM_PLACE_SIZE] = 1;
	s->v[MGSIM_TT_TOTAL] = tt;
	s->v[MGSIM_FT_TOTAL] = clocks;
	s->v[MGSIM_XQ_TOTAL] = xq;
	s->v[MGSIM_CR_THREADS] = 1;
	s->v[MGSIM_UNIX_CTIME] = (uint64_t)at;
}

static void
test_rows(struct store *st, int64_t session)
{
	struct mgsim_config c;
	struct mgsim_snapshot s;
	char err[256] = "", buf[256], sql[512];
	int rc = 0;

	mgsim_config_default(&c);
	c.master_mhz = 2000;
	c.has_l2 = false;
	ok(store_mgsim_config(st, session, &c, err, sizeof(err)) == 0, "settings row written");
	snprintf(sql, sizeof(sql), "SELECT ratio || ' ' || l1d_size || ' ' || l1d_policy || ' ' || "
		 "COALESCE(l2_size, 'none') || ' ' || cycle_model || ' ' || mmio_base || ' ' || "
		 "thread_entries FROM mgsim_config WHERE session_id = %lld", (long long)session);
	is_str(q_text(sql, buf, sizeof(buf)), "2 32768 write-through none simple 8 256",
	       "settings row: R 2, 32 KiB write-through L1D, no L2, simple cycles, base 8");

	/* Thread 7: start, then intervals 0 and 1.  Thread 8 starts later:
	 * its deltas are taken from its own start row. */
	snap(&s, 7, -1, 100.0, 0, 0, 0, 0);
	rc |= store_mgsim_snapshot(st, session, &s, err, sizeof(err));
	snap(&s, 7, 0, 101.0, 1000, 500, 1000, 0);
	rc |= store_mgsim_snapshot(st, session, &s, err, sizeof(err));
	snap(&s, 8, -1, 101.5, 1600, 800, 1600, 0);
	s.v[MGSIM_CR_THREADS] = 2;
	rc |= store_mgsim_snapshot(st, session, &s, err, sizeof(err));
	snap(&s, 7, 1, 103.0, 3000, 1500, 4000, 500);
	s.v[MGSIM_CR_THREADS] = 2;
	rc |= store_mgsim_snapshot(st, session, &s, err, sizeof(err));
	snap(&s, 8, 0, 104.0, 4000, 1900, 6000, 500);
	s.final = true;
	s.v[MGSIM_CR_THREADS] = 2;
	rc |= store_mgsim_snapshot(st, session, &s, err, sizeof(err));
	if (!ok(rc == 0, "5 snapshot rows written"))
		diag("  %s", err);
	/* Rewriting a row replaces it. */
	snap(&s, 7, 0, 101.0, 1000, 500, 1000, 0);
	ok(store_mgsim_snapshot(st, session, &s, err, sizeof(err)) == 0, "a row written again");
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM mgsim_counters WHERE session_id = %lld",
		 (long long)session);
	is_u64(q_int(sql), 5, "... replaces itself: 5 rows");

	/* An interval row for thread 7 interval 1, to check the join. */
	snprintf(sql, sizeof(sql), "INSERT INTO interval (session_id, tid, idx, full, final, ins, "
		 "ins_aligned, total_ins, total_ins_aligned) VALUES (%lld, 7, 1, 0, 0, 1000, 1000, "
		 "1500, 1500)", (long long)session);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		diag("inserting an interval row: %s", sqlite3_errmsg(db));

#define D(col, tid, iv) ({ \
	snprintf(sql, sizeof(sql), "SELECT " col " FROM mgsim_delta WHERE session_id = %lld " \
		 "AND tid = %d AND interval = %d", (long long)session, tid, iv); q_double(sql); })
	is_u64(q_int("SELECT count(*) FROM mgsim_delta"), 3, "mgsim_delta: 3 intervals (no start rows)");
	ok(D("clocks", 7, 0) == 1000 && D("n_exec_insns", 7, 0) == 500 && D("seconds", 7, 0) == 1.0,
	   "thread 7 interval 0: 1000 cycles, 500 instructions, 1 s");
	ok(D("clocks", 7, 1) == 2000 && D("n_exec_insns", 7, 1) == 1000 &&
	   D("tt_total", 7, 1) == 3000 && D("n_cr_threads", 7, 1) == 1 && D("seconds", 7, 1) == 2.0,
	   "thread 7 interval 1: deltas from interval 0 (2000 cycles, 1000 insns, 3000 tt, 1 thread)");
	ok(D("clocks", 8, 0) == 2400 && D("n_exec_insns", 8, 0) == 1100 && D("final", 8, 0) == 1,
	   "thread 8 interval 0: deltas from its own start (2400 cycles, 1100 insns), final");
	ok(D("notused1", 7, 1) == 1 && D("notused2", 7, 1) == 103,
	   "counters 9 and 13 are the values at the interval's end, not deltas");
	/* pl_eff = 1000 / 1 x 2 / 2000 = 1.0; tt_occp = 3000 / 1 / 256 / 2000;
	 * ft_occp = 2000 / 1 / 32 / 2000; xq_avg = 500 / 1 / 2000. */
	ok(D("pl_eff", 7, 1) == 1.0, "pl_eff = 1000 insns / 1 core x R 2 / 2000 cycles = 1.0");
	ok(fabs(D("tt_occp", 7, 1) - 3000.0 / 256 / 2000) < 1e-15, "tt_occp = 3000 / 256 / 2000");
	ok(fabs(D("ft_occp", 7, 1) - 1.0 / 32) < 1e-15, "ft_occp = 2000 / 32 / 2000");
	ok(D("xq_avg", 7, 1) == 0.25, "xq_avg = 500 / 2000 = 0.25");
	snprintf(sql, sizeof(sql), "SELECT interval_id = (SELECT id FROM interval WHERE "
		 "session_id = %lld AND tid = 7 AND idx = 1) FROM mgsim_delta WHERE tid = 7 AND "
		 "interval = 1", (long long)session);
	is_u64(q_int(sql), 1, "mgsim_delta joins the interval row (interval_id)");
	ok(isnan(D("interval_id", 7, 0)), "... and has none where there is no interval row");
#undef D

	is_u64(q_int("SELECT count(*) FROM mgsim_rate"), 3 * 17,
	       "mgsim_rate: 17 cumulative counters x 3 intervals");
#define R(col, counter) ({ \
	snprintf(sql, sizeof(sql), "SELECT " col " FROM mgsim_rate WHERE session_id = %lld " \
		 "AND tid = 7 AND interval = 1 AND counter = %d", (long long)session, counter); \
	q_double(sql); })
	ok(R("delta", 1) == 1000 && R("per_core_cycle", 1) == 1.0 && R("per_second", 1) == 500,
	   "rate of counter 1: 1000 per 1000 core cycles = 1.0, per 2 s = 500/s");
	ok(R("delta", 3) == 250 && R("per_core_cycle", 3) == 0.25, "rate of counter 3: 250, 0.25");
	snprintf(sql, sizeof(sql), "SELECT name FROM mgsim_rate WHERE counter = 20 LIMIT 1");
	is_str(q_text(sql, buf, sizeof(buf)), "core_clocks", "mgsim_rate names the counters");
	is_u64(q_int("SELECT count(*) FROM mgsim_rate WHERE counter IN (9, 13, 14, 15)"), 0,
	       "mgsim_rate leaves out 9 and 13-15");
#undef R
	snap(&s, 7, -2, 1, 1, 1, 1, 1);
	ok(store_mgsim_snapshot(st, session, &s, err, sizeof(err)) < 0,
	   "idx -2 is refused by the table: %s", err);
}

static void
test_writer(const char *path, int64_t *session_out)
{
	struct store_writer *w;
	struct store_session ss = { "run", "test writer", 1, 1000, "", "{}", NULL };
	struct mgsim_config c;
	struct mgsim_snapshot s;
	struct store_mgsim_sink sink;
	char err[256] = "";
	int64_t session;

	w = store_writer_open(path, err, sizeof(err));
	if (!w) {
		ok(0, "store_writer_open: %s", err);
		return;
	}
	session = store_writer_session_begin(w, &ss, err, sizeof(err));
	ok(session > 0, "writer: session %lld", (long long)session);
	mgsim_config_default(&c);
	c.l1d_policy = MGSIM_WRITE_BACK;
	ok(store_writer_mgsim_config(w, session, &c) == 0, "writer: settings queued");
	sink.w = w;
	sink.session = session;
	sink.failed = 0;
	for (int i = -1; i < 50; i++) {
		snap(&s, 9, i, 200 + i, 100 * (uint64_t)(i + 1), 10 * (uint64_t)(i + 1), 0, 0);
		store_mgsim_on_snapshot(&sink, &s);
	}
	ok(store_writer_close(w) == 0, "writer: closed without a failed job");
	*session_out = session;
}

int
main(void)
{
	char path[] = "/tmp/mgsim_store.XXXXXX";
	char dbpath[64], err[256] = "", sql[256], buf[96];
	int fd = mkstemp(path);
	struct store *st;
	struct store_session ss = { "run", "test", 1, 1000, "", "{}", NULL };
	int64_t session, wsession = -1;

	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	unlink(path);
	snprintf(dbpath, sizeof(dbpath), "%s.db", path);
	st = store_open(dbpath, false, err, sizeof(err));
	if (!st) {
		ok(0, "store_open: %s", err);
		return done_testing();
	}
	db = store_sqlite(st);
	test_dictionary();
	session = store_session_begin(st, &ss, err, sizeof(err));
	if (!ok(session > 0, "a session row"))
		diag("  %s", err);
	test_rows(st, session);
	store_close(st);

	test_writer(dbpath, &wsession);
	st = store_open(dbpath, true, err, sizeof(err));
	if (st) {
		db = store_sqlite(st);
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM mgsim_counters WHERE session_id = %lld",
			 (long long)wsession);
		is_u64(q_int(sql), 51, "writer: the start row and 50 interval rows arrived");
		snprintf(sql, sizeof(sql), "SELECT sum(n_exec_insns) FROM mgsim_delta WHERE "
			 "session_id = %lld", (long long)wsession);
		is_u64(q_int(sql), 500, "writer: the deltas add up to the last cumulative value");
		snprintf(sql, sizeof(sql), "SELECT l1d_policy FROM mgsim_config WHERE session_id = %lld",
			 (long long)wsession);
		is_str(q_text(sql, buf, sizeof(buf)), "write-back", "writer: the settings arrived");
		store_close(st);
	} else {
		ok(0, "reopen: %s", err);
	}
	unlink(dbpath);
	snprintf(buf, sizeof(buf), "%s-wal", dbpath);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s-shm", dbpath);
	unlink(buf);
	return done_testing();
}
