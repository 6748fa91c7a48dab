/*
 * The live scheduling rows of the results database (store_sched.h).
 */
#include "config.h"
#include "store/store_sched.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int
fail(sqlite3 *db, sqlite3_stmt *q, const char *what, char *err, size_t errsz)
{
	snprintf(err, errsz, "%s: %s", what, sqlite3_errmsg(db));
	sqlite3_finalize(q);
	return -1;
}

int
store_sched_config(struct store *st, int64_t session, const char *cpu, unsigned iterations,
		   char *err, size_t errsz)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO sched_config (session_id, cpu, hot_iterations) "
		"VALUES (?, ?, ?)";
	sqlite3 *db = store_sqlite(st);
	sqlite3_stmt *q = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		return fail(db, q, "preparing the scheduling settings row", err, errsz);
	sqlite3_bind_int64(q, 1, session);
	sqlite3_bind_text(q, 2, cpu, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 3, iterations);
	if (sqlite3_step(q) != SQLITE_DONE)
		return fail(db, q, "writing the scheduling settings row", err, errsz);
	sqlite3_finalize(q);
	return 0;
}

int
store_sched_snapshot(struct store *st, int64_t session, const struct sched_snapshot *s,
		     char *err, size_t errsz)
{
	static const char isql[] =
		"INSERT OR REPLACE INTO sched_interval (session_id, tid, idx, final, cycles, "
		"instructions, ipc) VALUES (?, ?, ?, ?, ?, ?, ?)";
	static const char psql[] =
		"INSERT OR REPLACE INTO sched_port (session_id, tid, idx, port, uops, pressure) "
		"VALUES (?, ?, ?, ?, ?, ?)";
	sqlite3 *db = store_sqlite(st);
	sqlite3_stmt *q = NULL;

	if (sqlite3_prepare_v2(db, isql, -1, &q, NULL) != SQLITE_OK)
		return fail(db, q, "preparing a scheduling interval row", err, errsz);
	sqlite3_bind_int64(q, 1, session);
	sqlite3_bind_int64(q, 2, s->tid);
	sqlite3_bind_int64(q, 3, s->idx);
	sqlite3_bind_int64(q, 4, s->final);
	sqlite3_bind_int64(q, 5, (int64_t)s->cycles);
	sqlite3_bind_int64(q, 6, (int64_t)s->insns);
	sqlite3_bind_double(q, 7, s->ipc);
	if (sqlite3_step(q) != SQLITE_DONE)
		return fail(db, q, "writing a scheduling interval row", err, errsz);
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(db, psql, -1, &q, NULL) != SQLITE_OK)
		return fail(db, q, "preparing a scheduling port row", err, errsz);
	for (unsigned p = 0; p < s->n_ports; p++) {
		sqlite3_bind_int64(q, 1, session);
		sqlite3_bind_int64(q, 2, s->tid);
		sqlite3_bind_int64(q, 3, s->idx);
		sqlite3_bind_text(q, 4, s->port_names[p], -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 5, (int64_t)s->port_uops[p]);
		sqlite3_bind_double(q, 6, s->port_pressure[p]);
		if (sqlite3_step(q) != SQLITE_DONE)
			return fail(db, q, "writing a scheduling port row", err, errsz);
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	return 0;
}

int
store_sched_hot_block(struct store *st, int64_t session, const struct sched_hot_block *b,
		      char *err, size_t errsz)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO sched_hot_block (session_id, rank, address, end_address, "
		"instructions, executions, report) VALUES (?, ?, ?, ?, ?, ?, ?)";
	sqlite3 *db = store_sqlite(st);
	sqlite3_stmt *q = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		return fail(db, q, "preparing a hot block row", err, errsz);
	sqlite3_bind_int64(q, 1, session);
	sqlite3_bind_int64(q, 2, b->rank);
	sqlite3_bind_int64(q, 3, (int64_t)b->start_pc);
	sqlite3_bind_int64(q, 4, (int64_t)b->end_pc);
	sqlite3_bind_int64(q, 5, b->n_insns);
	sqlite3_bind_int64(q, 6, (int64_t)b->executions);
	if (b->report)
		sqlite3_bind_text(q, 7, b->report, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, 7);
	if (sqlite3_step(q) != SQLITE_DONE)
		return fail(db, q, "writing a hot block row", err, errsz);
	sqlite3_finalize(q);
	return 0;
}

/* ---- queued ---- */

struct config_job {
	int64_t session;
	unsigned iterations;
	char cpu[64];
};

static int
config_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct config_job *j = arg;

	return store_sched_config(st, j->session, j->cpu, j->iterations, err, errsz);
}

int
store_writer_sched_config(struct store_writer *w, int64_t session, const char *cpu,
			  unsigned iterations)
{
	struct config_job *j = xmalloc(sizeof(*j));

	j->session = session;
	j->iterations = iterations;
	snprintf(j->cpu, sizeof(j->cpu), "%s", cpu);
	return store_writer_submit(w, config_fn, j, free);
}

/* The port names are the model's static strings: they outlive the job. */
struct snapshot_job {
	int64_t session;
	struct sched_snapshot s;
};

static int
snapshot_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct snapshot_job *j = arg;

	return store_sched_snapshot(st, j->session, &j->s, err, errsz);
}

int
store_writer_sched_snapshot(struct store_writer *w, int64_t session,
			    const struct sched_snapshot *s)
{
	struct snapshot_job *j = xmalloc(sizeof(*j));

	j->session = session;
	j->s = *s;
	return store_writer_submit(w, snapshot_fn, j, free);
}

struct hot_job {
	int64_t session;
	struct sched_hot_block b;
	char *report;
};

static int
hot_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct hot_job *j = arg;

	return store_sched_hot_block(st, j->session, &j->b, err, errsz);
}

static void
hot_free(void *arg)
{
	struct hot_job *j = arg;

	free(j->report);
	free(j);
}

int
store_writer_sched_hot_block(struct store_writer *w, int64_t session,
			     const struct sched_hot_block *b)
{
	struct hot_job *j = xmalloc(sizeof(*j));

	j->session = session;
	j->b = *b;
	j->report = b->report ? xstrdup(b->report) : NULL;
	j->b.report = j->report;
	return store_writer_submit(w, hot_fn, j, hot_free);
}

void
store_sched_on_snapshot(void *arg, const struct sched_snapshot *s)
{
	struct store_sched_sink *k = arg;

	if (store_writer_sched_snapshot(k->w, k->session, s) < 0 && k->failed++ == 0)
		error_msg("the results database writer has stopped: simulated cycles of "
			  "session %lld are not stored from thread %d interval %lld on",
			  (long long)k->session, s->tid, (long long)s->idx);
}

void
store_sched_on_hot_block(void *arg, const struct sched_hot_block *b)
{
	struct store_sched_sink *k = arg;

	if (store_writer_sched_hot_block(k->w, k->session, b) < 0 && k->failed++ == 0)
		error_msg("the results database writer has stopped: the hot blocks of "
			  "session %lld are not stored", (long long)k->session);
}
