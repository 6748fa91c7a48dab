/*
 * daemon/store/profile_read.c on small hand-made databases: the samples queries
 * are answered through profile_sample's primary key (a search, never a
 * scan of the table), stacks are walked out to their outermost frame,
 * threads kept apart or merged, and a stack tree that is not a tree (a
 * cycle, a missing frame, a node of another session) is an error that
 * says so, not a hang or another user's frames.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/profile_read.h"
#include "store/store.h"
#include "tap.h"
#include "util.h"

static sqlite3 *
open_db(const char *path)
{
	char err[512];
	struct store *st;
	sqlite3 *db;

	unlink(path);
	st = store_open(path, false, err, sizeof(err));
	if (!st)
		error_msg_and_die("%s", err);
	store_close(st);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		error_msg_and_die("%s: %s", path, sqlite3_errmsg(db));
	return db;
}

static void
exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		error_msg_and_die("%s\n  in: %s", msg, sql);
}

/* The plan of sql, its lines joined with "; ". */
static char *
plan(sqlite3 *db, const char *sql)
{
	char *q = xasprintf("EXPLAIN QUERY PLAN %s", sql), *out = xstrdup("");
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		error_msg_and_die("%s: %s", q, sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		char *t = xasprintf("%s%s%s", out, *out ? "; " : "", sqlite3_column_text(st, 3));

		free(out);
		out = t;
	}
	sqlite3_finalize(st);
	free(q);
	return out;
}

static void
test_plans(sqlite3 *db)
{
	char *p = plan(db, profile_sql_samples_thread);

	ok(strstr(p, "SEARCH profile_sample USING INDEX sqlite_autoindex_profile_sample_1 "
		  "(session_id=? AND tid=? AND interval>? AND interval<?)") != NULL &&
	   !strstr(p, "TEMP B-TREE"),
	   "a thread's range: a search of the primary key on session, tid and interval, no sort");
	diag("plan: %s", p);
	free(p);
	p = plan(db, profile_sql_samples_session);
	ok(strstr(p, "SEARCH profile_sample USING COVERING INDEX profile_sample_stack "
		  "(session_id=?)") != NULL && !strstr(p, "SCAN profile_sample") &&
	   !strstr(p, "TEMP B-TREE"),
	   "a whole session: a search of the covering index on the session, no scan, no sort");
	diag("plan: %s", p);
	free(p);
}

/* A session 1 whose stack 3 is a;b;c (frames 1, 2, 3) and stack 4 is a;b;d
 * (the leaf without a symbol); threads 10 and 11. */
static void
test_stacks(sqlite3 *db)
{
	struct profile_range r;
	struct profile *p;
	char err[512];
	const char *names[4];

	exec(db, "INSERT INTO session (id, mode, command, uid, config, settings, started_at, engine)"
		 " VALUES (1, 'run', 'p', 1000, '', '{}', 1, 'sample'),"
		 " (2, 'run', 'q', 1001, '', '{}', 1, 'sample');"
		 "INSERT INTO profile_frame (id, session_id, module, symbol, offset, address) VALUES"
		 " (1, 1, '/bin/p', 'a', 1, 4096), (2, 1, '/bin/p', 'b', 2, NULL),"
		 " (3, 1, '/bin/p', 'c', 3, 8192), (4, 1, '/lib/x.so', NULL, 16, 65552),"
		 " (5, 2, '/bin/q', 'secret', 0, 1);"
		 "INSERT INTO profile_stack (id, session_id, parent_id, frame_id, depth) VALUES"
		 " (1, 1, 0, 1, 0), (2, 1, 1, 2, 1), (3, 1, 2, 3, 2), (4, 1, 2, 4, 2),"
		 " (5, 2, 0, 5, 0);"
		 "INSERT INTO profile_interval (session_id, tid, idx, started_at, ended_at, samples)"
		 " VALUES (1, 10, 0, 1, 2, 5), (1, 10, 1, 2, 3, 2), (1, 11, 0, 1.5, 2.5, 4);"
		 "INSERT INTO profile_sample (session_id, tid, interval, stack_id, count, weight) VALUES"
		 " (1, 10, 0, 3, 3, 30), (1, 10, 0, 4, 2, 20), (1, 10, 1, 3, 2, 20),"
		 " (1, 11, 0, 3, 4, 40);");

	profile_range_init(&r, 1);
	p = profile_read(db, &r, err, sizeof(err));
	if (!ok(p != NULL, "whole session read")) {
		diag("%s", err);
		return;
	}
	is_u64(p->n_stacks, 2, "threads merged: one entry per stack");
	is_u64(p->samples, 11, "11 samples");
	is_u64(p->weight, 110, "weights summed");
	is_u64(p->intervals, 3, "3 intervals");
	for (size_t i = 0; i < p->n_stacks; i++) {
		const struct profile_stack *s = &p->stacks[i];

		if (s->depth != 3)
			continue;
		for (int k = 0; k < 3; k++)
			names[k] = p->functions[p->frames[s->frames[k]].function].name;
		if (!strcmp(names[2], "c")) {
			is_u64(s->count, 9, "a;b;c: 3 + 2 + 4 samples");
			ok(!strcmp(names[0], "a") && !strcmp(names[1], "b"), "a;b;c: outermost first");
		} else {
			is_str(names[2], "x.so+0x10", "a;b;d: no symbol: the module's file name and offset");
			ok(p->frames[s->frames[2]].has_address && p->frames[s->frames[2]].address == 65552,
			   "a;b;d: the frame's address");
		}
	}
	for (size_t i = 0; i < p->n_frames; i++)
		if (p->frames[i].id == 2)
			ok(!p->frames[i].has_address, "frame b: a NULL address is no address");
	is_u64(p->n_functions, 4, "4 functions");
	profile_free(p);

	r.per_thread = true;
	p = profile_read(db, &r, err, sizeof(err));
	ok(p && p->n_stacks == 3, "per thread: a;b;c of 10, a;b;c of 11, a;b;d of 10");
	profile_free(p);

	profile_range_init(&r, 1);
	r.from = r.to = 1;
	p = profile_read(db, &r, err, sizeof(err));
	ok(p && p->samples == 2 && p->intervals == 1, "interval 1: thread 10's 2 samples");
	profile_free(p);

	profile_range_init(&r, 1);
	r.since = 2.2;
	r.until = 2.4;
	p = profile_read(db, &r, err, sizeof(err));
	ok(p && p->samples == 6 && p->intervals == 2, "[2.2, 2.4): 10/1 and 11/0");
	profile_free(p);

	profile_range_init(&r, 1);
	r.one_thread = true;
	r.tid = 11;
	p = profile_read(db, &r, err, sizeof(err));
	ok(p && p->samples == 4 && p->n_stacks == 1, "thread 11: 4 samples of one stack");
	profile_free(p);
}

static void
expect_error(sqlite3 *db, const char *sql, const char *want, const char *what)
{
	struct profile_range r;
	struct profile *p;
	char err[512] = "";

	exec(db, "DELETE FROM profile_sample WHERE session_id = 1");
	exec(db, sql);
	profile_range_init(&r, 1);
	p = profile_read(db, &r, err, sizeof(err));
	if (!ok(!p && strstr(err, want), "%s: an error", what))
		diag("  got \"%s\", want \"%s\"", err, want);
	profile_free(p);
}

static void
test_corrupt(sqlite3 *db)
{
	exec(db, "INSERT INTO profile_stack (id, session_id, parent_id, frame_id, depth) VALUES"
		 " (10, 1, 11, 1, 0), (11, 1, 10, 1, 0), (12, 1, 1, 99, 1), (13, 1, 5, 1, 1)");
	expect_error(db, "INSERT INTO profile_sample VALUES (1, 10, 0, 10, 1, 1)",
		     "stack 10 is deeper than 65536 frames (a cycle in profile_stack?)",
		     "a cycle of stack nodes");
	expect_error(db, "INSERT INTO profile_sample VALUES (1, 10, 0, 12, 1, 1)",
		     "frame 99 is used by a stack but has no row in profile_frame", "a missing frame");
	expect_error(db, "INSERT INTO profile_sample VALUES (1, 10, 0, 13, 1, 1)",
		     "stack node 5 has no row in profile_stack",
		     "a parent in another session's tree (not followed)");
	expect_error(db, "INSERT INTO profile_sample VALUES (1, 10, 0, 3, -1, 1)",
		     "negative sample count", "a negative count");
}

int
main(void)
{
	char path[] = "/tmp/micad-profile-read-XXXXXX";
	char *db_path;
	int fd = mkstemp(path);
	sqlite3 *db;

	program_name = "profile_read_test";
	if (fd < 0)
		perror_msg_and_die("mkstemp");
	close(fd);
	db_path = xasprintf("%s.db", path);
	db = open_db(db_path);
	test_plans(db);
	test_stacks(db);
	test_corrupt(db);
	sqlite3_close(db);
	unlink(db_path);
	unlink(path);
	free(db_path);
	return done_testing();
}
