/*
 * The MGSim rows of the results database (store_mgsim.h).
 */
#include "config.h"
#include "store/store_mgsim.h"

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
store_mgsim_config(struct store *st, int64_t session, const struct mgsim_config *c,
		   char *err, size_t errsz)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO mgsim_config (session_id, model, core_mhz, master_mhz, "
		"ratio, l1i_size, l1i_assoc, l1i_line, l1d_size, l1d_assoc, l1d_line, l1d_policy, "
		"l2_size, l2_assoc, l2_line, cycle_model, l2_latency, mem_latency, thread_entries, "
		"family_entries, xq_mode, mmio_base, word_size, time_format) VALUES "
		"(?, 'A', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	sqlite3 *db = store_sqlite(st);
	sqlite3_stmt *q = NULL;
	int i = 1;

	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		return fail(db, q, "preparing the MGSim settings row", err, errsz);
	sqlite3_bind_int64(q, i++, session);
	sqlite3_bind_int64(q, i++, c->core_mhz);
	sqlite3_bind_int64(q, i++, c->master_mhz);
	sqlite3_bind_int64(q, i++, (int64_t)mgsim_ratio(c));
	sqlite3_bind_int64(q, i++, (int64_t)c->l1i.size);
	sqlite3_bind_int64(q, i++, c->l1i.assoc);
	sqlite3_bind_int64(q, i++, c->l1i.line);
	sqlite3_bind_int64(q, i++, (int64_t)c->l1d.size);
	sqlite3_bind_int64(q, i++, c->l1d.assoc);
	sqlite3_bind_int64(q, i++, c->l1d.line);
	sqlite3_bind_text(q, i++, c->l1d_policy == MGSIM_WRITE_BACK ? "write-back" : "write-through",
			  -1, SQLITE_STATIC);
	if (c->has_l2) {
		sqlite3_bind_int64(q, i++, (int64_t)c->l2.size);
		sqlite3_bind_int64(q, i++, c->l2.assoc);
		sqlite3_bind_int64(q, i++, c->l2.line);
	} else {
		sqlite3_bind_null(q, i++);
		sqlite3_bind_null(q, i++);
		sqlite3_bind_null(q, i++);
	}
	sqlite3_bind_text(q, i++, c->cycle_model ? c->cycle_model : "simple", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, i++, c->l2_latency);
	sqlite3_bind_int64(q, i++, c->mem_latency);
	sqlite3_bind_int64(q, i++, c->thread_entries);
	sqlite3_bind_int64(q, i++, c->family_entries);
	sqlite3_bind_text(q, i++, c->xq_mode == MGSIM_XQ_OFF ? "off" : "futex", -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, i++, (int64_t)c->mmio_base);
	sqlite3_bind_int64(q, i++, MGSIM_WORD_SIZE);
	sqlite3_bind_text(q, i++, c->alpha_time ? "alpha" : "clean", -1, SQLITE_STATIC);
	if (sqlite3_step(q) != SQLITE_DONE)
		return fail(db, q, "writing the MGSim settings row", err, errsz);
	sqlite3_finalize(q);
	return 0;
}

int
store_mgsim_snapshot(struct store *st, int64_t session, const struct mgsim_snapshot *s,
		     char *err, size_t errsz)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO mgsim_counters (session_id, tid, idx, final, taken_at, "
		"clocks, n_exec_insns, n_issued_flops, n_compl_core_loads, n_compl_core_stores, "
		"n_bytes_l1tocore, n_bytes_coretol1, n_reqs_l2tol1, n_reqs_l1tol2, notused1, "
		"tt_total, ft_total, xq_total, notused2, notused3, notused4, n_cl_loads_ext, "
		"n_cl_stores_ext, n_cr_threads, n_cr_families, core_clocks) VALUES "
		"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	sqlite3 *db = store_sqlite(st);
	sqlite3_stmt *q = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		return fail(db, q, "preparing an MGSim counters row", err, errsz);
	sqlite3_bind_int64(q, 1, session);
	sqlite3_bind_int64(q, 2, s->tid);
	sqlite3_bind_int64(q, 3, s->idx);
	sqlite3_bind_int64(q, 4, s->final);
	sqlite3_bind_double(q, 5, s->taken_at);
	/* SQLite integers are signed 64-bit: the counters stay far below
	 * 2^63 (the alpha time format's sign-extended word reads back
	 * negative, as it would in an int64). */
	for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
		sqlite3_bind_int64(q, 6 + (int)i, (int64_t)s->v[i]);
	if (sqlite3_step(q) != SQLITE_DONE)
		return fail(db, q, "writing an MGSim counters row", err, errsz);
	sqlite3_finalize(q);
	return 0;
}

/* ---- queued ---- */

struct config_job {
	int64_t session;
	struct mgsim_config c;
	char cycle_model[64];
};

static int
config_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct config_job *j = arg;

	return store_mgsim_config(st, j->session, &j->c, err, errsz);
}

int
store_writer_mgsim_config(struct store_writer *w, int64_t session, const struct mgsim_config *c)
{
	struct config_job *j = xmalloc(sizeof(*j));

	j->session = session;
	j->c = *c;
	/* The name may be someone's static string or not: copy it. */
	snprintf(j->cycle_model, sizeof(j->cycle_model), "%s",
		 c->cycle_model ? c->cycle_model : "simple");
	j->c.cycle_model = j->cycle_model;
	return store_writer_submit(w, config_fn, j, free);
}

struct snapshot_job {
	int64_t session;
	struct mgsim_snapshot s;
};

static int
snapshot_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct snapshot_job *j = arg;

	return store_mgsim_snapshot(st, j->session, &j->s, err, errsz);
}

int
store_writer_mgsim_snapshot(struct store_writer *w, int64_t session,
			    const struct mgsim_snapshot *s)
{
	struct snapshot_job *j = xmalloc(sizeof(*j));

	j->session = session;
	j->s = *s;
	return store_writer_submit(w, snapshot_fn, j, free);
}

void
store_mgsim_on_snapshot(void *arg, const struct mgsim_snapshot *s)
{
	struct store_mgsim_sink *k = arg;

	if (store_writer_mgsim_snapshot(k->w, k->session, s) < 0 && k->failed++ == 0)
		error_msg("the results database writer has stopped: MGSim counters of "
			  "session %lld are not stored from thread %d interval %lld on",
			  (long long)k->session, s->tid, (long long)s->idx);
}
