/*
 * Build the profile tests' database: sample-mode sessions with a known
 * call-stack profile, for the folded and pprof exports, the profile API
 * and the flame graph in the browser.
 *
 *   session 1: uid 1000, run './prof', sample mode (cpu-clock at 999 Hz,
 *     the PMU-less note, weighting 'time'); threads 500 and 501.  Frames
 *     (module /usr/bin/prof unless said):
 *       _start, main, compute, hot (at two offsets: one function), other,
 *       fib (recursive), Box<int&, "s">::operator<(Box const&) const in
 *       libbox.so.1 (characters to escape), libfoo.so+0x1a2b (no symbol),
 *       [unknown] (no module either).
 *     Stacks, outermost first, and their samples over both threads:
 *       A _start;main;compute;hot(+0x5)          450
 *       B _start;main;compute;hot(+0x9)          100
 *       C _start;main;other;hot(+0x5)            200
 *       D _start;main;fib;fib;fib                100
 *       E _start;main;Box<...>::operator<        100
 *       F _start;main;libfoo.so+0x1a2b;[unknown]  40
 *       G _start;main                             10
 *     = 1000 samples: hot 75% self, compute 55% total, other 20%, fib 10%
 *     self and total, main 1% self and 100% total.  Each sample weighs
 *     1001001 ns (999 Hz).  Per thread and interval (1 s each; thread 501's
 *     start half a second after thread 500's):
 *       500/0 [100, 101): A 100, D 30, G 5                (135)
 *       500/1 [101, 102): A 150, B 50, C 60, E 20         (280)
 *       500/2 [102, 103): A 100, C 40, F 25, D 20         (185, 3 lost)
 *       500/3 [103, 104): B 50, D 10                       (60)
 *       501/0 [100.5, 101.5): C 100, E 80, F 15           (195)
 *       501/1 [101.5, 102.5): A 100, D 40, G 5            (145)
 *     (times are 1700000000 + the number; the session ran from 99.75 to
 *     104.5).
 *   session 2: uid 0 (root), sample mode, one sample of stack _start.
 *   session 3: uid 1000, step mode (no profile).
 *   session 4: uid 1000, sample mode, 7 samples of one stack 201 frames
 *     deep: _start, then rec recursing 200 times (DEEP_REC).
 *
 * Usage: profile_fixture DB
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/store.h"
#include "util.h"

#define PERIOD_NS 1001001	/* 999 Hz */
#define DEEP_REC 200

static void
check(int rc, const char *what, const char *err)
{
	if (rc < 0)
		error_msg_and_die("%s: %s", what, err);
}

static int64_t
session(struct store *st, const char *cmd, int64_t pid, int64_t uid)
{
	char err[512];
	int64_t id = store_session_begin(st, &(struct store_session){
		.mode = "run", .command = cmd, .pid = pid, .uid = uid, .config = "",
		.settings = "{}" }, err, sizeof(err));

	check(id < 0 ? -1 : 0, "session", err);
	return id;
}

static void
exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		error_msg_and_die("%s\n  in: %s", msg, sql);
}

static void
sample(sqlite3 *db, int64_t tid, int64_t interval, int64_t stack, int64_t count)
{
	char *sql = xasprintf("INSERT INTO profile_sample (session_id, tid, interval, stack_id, count,"
			      " weight) VALUES (1, %lld, %lld, %lld, %lld, %lld)", (long long)tid,
			      (long long)interval, (long long)stack, (long long)count,
			      (long long)count * PERIOD_NS);

	exec(db, sql);
	free(sql);
}

int
main(int argc, char **argv)
{
	/* Stacks A..G: their innermost node in profile_stack below. */
	enum { A = 4, B = 5, C = 7, D = 10, E = 11, F = 13, G = 2 };
	static const struct { int64_t tid, interval, stack, count; } samples[] = {
		{ 500, 0, A, 100 }, { 500, 0, D, 30 }, { 500, 0, G, 5 },
		{ 500, 1, A, 150 }, { 500, 1, B, 50 }, { 500, 1, C, 60 }, { 500, 1, E, 20 },
		{ 500, 2, A, 100 }, { 500, 2, C, 40 }, { 500, 2, F, 25 }, { 500, 2, D, 20 },
		{ 500, 3, B, 50 }, { 500, 3, D, 10 },
		{ 501, 0, C, 100 }, { 501, 0, E, 80 }, { 501, 0, F, 15 },
		{ 501, 1, A, 100 }, { 501, 1, D, 40 }, { 501, 1, G, 5 },
	};
	struct store *st;
	char err[512];
	sqlite3 *db;

	program_name = "profile_fixture";
	if (argc != 2)
		error_msg_and_die("usage: profile_fixture DB");
	unlink(argv[1]);
	st = store_open(argv[1], false, err, sizeof(err));
	if (!st)
		error_msg_and_die("%s", err);
	if (session(st, "./prof", 500, 1000) != 1 || session(st, "/usr/sbin/rootd", 600, 0) != 2 ||
	    session(st, "./stepped", 700, 1000) != 3 || session(st, "./deep", 800, 1000) != 4)
		error_msg_and_die("unexpected session ids");
	check(store_thread(st, 1, 500, 500, err, sizeof(err)), "thread", err);
	check(store_thread(st, 1, 501, 500, err, sizeof(err)), "thread", err);
	check(store_thread(st, 2, 600, 600, err, sizeof(err)), "thread", err);
	check(store_thread(st, 3, 700, 700, err, sizeof(err)), "thread", err);
	check(store_thread(st, 4, 800, 800, err, sizeof(err)), "thread", err);
	store_close(st);

	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		error_msg_and_die("%s: %s", argv[1], sqlite3_errmsg(db));
	exec(db, "BEGIN");
	exec(db,
		"UPDATE session SET engine = 'sample', sample_event = 'cpu-clock', weighting = 'time',"
		" sample_note = 'no hardware PMU here (perf_event_open of PERF_TYPE_HARDWARE: ENOENT);"
		" sampled cpu-clock at 999 Hz, bursts by ptrace' WHERE id IN (1, 2, 4);"
		"UPDATE session SET started_at = 1700000098.75 + id, ended_at = 1700000103.5 + id,"
		" end_reason = 'exited', exit_status = 0;"
		"INSERT INTO profile_frame (id, session_id, module, symbol, offset, address) VALUES"
		" (1, 1, '/usr/bin/prof', '_start', 42, 4198442),"
		" (2, 1, '/usr/bin/prof', 'main', 21, 4198709),"
		" (3, 1, '/usr/bin/prof', 'compute', 9, 4198921),"
		" (4, 1, '/usr/bin/prof', 'hot', 5, 4199173),"
		" (5, 1, '/usr/bin/prof', 'hot', 9, 4199177),"
		" (6, 1, '/usr/bin/prof', 'other', 17, 4199441),"
		" (7, 1, '/usr/bin/prof', 'fib', 28, 4199708),"
		" (8, 1, '/usr/lib/x86_64-linux-gnu/libbox.so.1',"
		"  'Box<int&, \"s\">::operator<(Box const&) const', 4, 139637976731652),"
		" (9, 1, '/usr/lib/libfoo.so', NULL, 6699, 139637977782827),"
		" (10, 1, '[unknown]', NULL, 57005, 57005),"
		" (11, 2, '/usr/sbin/rootd', '_start', 0, 4198400);"
		"INSERT INTO profile_stack (id, session_id, parent_id, frame_id, depth) VALUES"
		" (1, 1, 0, 1, 0), (2, 1, 1, 2, 1), (3, 1, 2, 3, 2), (4, 1, 3, 4, 3),"
		" (5, 1, 3, 5, 3), (6, 1, 2, 6, 2), (7, 1, 6, 4, 3), (8, 1, 2, 7, 2),"
		" (9, 1, 8, 7, 3), (10, 1, 9, 7, 4), (11, 1, 2, 8, 2), (12, 1, 2, 9, 2),"
		" (13, 1, 12, 10, 3), (14, 2, 0, 11, 0);"
		"INSERT INTO profile_interval (session_id, tid, idx, started_at, ended_at, samples, lost)"
		" VALUES (1, 500, 0, 1700000100, 1700000101, 135, 0),"
		" (1, 500, 1, 1700000101, 1700000102, 280, 0),"
		" (1, 500, 2, 1700000102, 1700000103, 185, 3),"
		" (1, 500, 3, 1700000103, 1700000104, 60, 0),"
		" (1, 501, 0, 1700000100.5, 1700000101.5, 195, 0),"
		" (1, 501, 1, 1700000101.5, 1700000102.5, 145, 0),"
		" (2, 600, 0, 1700000101, 1700000102, 1, 0);"
		"INSERT INTO profile_sample (session_id, tid, interval, stack_id, count, weight)"
		" VALUES (2, 600, 0, 14, 1, 1001001);"
		/* Hot blocks of the scheduling model: in hot() (start 4199168)
		 * at +12, in compute() (4198912) at +13, and one below every
		 * known symbol. */
		"INSERT INTO sched_config (session_id, cpu, hot_iterations) VALUES (1, 'skylake', 100);"
		"INSERT INTO sched_hot_block (session_id, rank, address, end_address, instructions,"
		" executions) VALUES (1, 1, 4199180, 4199190, 4, 1000), (1, 2, 4198925, 4198930, 2, 10),"
		" (1, 3, 4096, 4100, 2, 5);");
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		sample(db, samples[i].tid, samples[i].interval, samples[i].stack, samples[i].count);
	/* Session 4: node 15 is _start, 16 .. 15 + DEEP_REC rec. */
	exec(db, "INSERT INTO profile_frame (id, session_id, module, symbol, offset) VALUES"
		 " (12, 4, '/usr/bin/deep', '_start', 0), (13, 4, '/usr/bin/deep', 'rec', 8);"
		 "INSERT INTO profile_stack (id, session_id, parent_id, frame_id, depth)"
		 " VALUES (15, 4, 0, 12, 0);"
		 "INSERT INTO profile_interval (session_id, tid, idx, started_at, ended_at, samples)"
		 " VALUES (4, 800, 0, 1700000104, 1700000105, 7);");
	for (int k = 1; k <= DEEP_REC; k++) {
		char *sql = xasprintf("INSERT INTO profile_stack (id, session_id, parent_id, frame_id,"
				      " depth) VALUES (%d, 4, %d, 13, %d)", 15 + k, 14 + k, k);

		exec(db, sql);
		free(sql);
	}
	{
		char *sql = xasprintf("INSERT INTO profile_sample (session_id, tid, interval, stack_id,"
				      " count, weight) VALUES (4, 800, 0, %d, 7, %d)", 15 + DEEP_REC,
				      7 * PERIOD_NS);

		exec(db, sql);
		free(sql);
	}
	exec(db, "COMMIT");
	if (sqlite3_close(db) != SQLITE_OK)
		error_msg_and_die("%s: closing: %s", argv[1], sqlite3_errmsg(db));
	return 0;
}
