/*
 * Sample mode's profile rows (store_profile.h).
 */
#include "config.h"
#include "store/store_profile.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "util.h"

struct store_profile_ids {
	int64_t *frame;		/* [number]: row id; [0] unused */
	size_t n_frames, cap_frames;	/* numbers 1..n_frames are known */
	int64_t *stack;
	size_t n_stacks, cap_stacks;
};

struct store_profile_ids *
store_profile_ids_new(void)
{
	return xcalloc(1, sizeof(struct store_profile_ids));
}

void
store_profile_ids_free(struct store_profile_ids *ids)
{
	if (!ids)
		return;
	free(ids->frame);
	free(ids->stack);
	free(ids);
}

static void
put_id(int64_t **v, size_t *n, size_t *cap, int64_t row)
{
	if (*n + 1 >= *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[++*n] = row;
}

static int
fail(struct store *st, char *err, size_t errsz, const char *what)
{
	snprintf(err, errsz, "%s: profile %s: %s", store_path(st), what,
		 sqlite3_errmsg(store_sqlite(st)));
	return -1;
}

static int
step(struct store *st, sqlite3_stmt *q, char *err, size_t errsz, const char *what)
{
	int rc = sqlite3_step(q);

	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return rc == SQLITE_DONE ? 0 : fail(st, err, errsz, what);
}

enum { Q_FRAME, Q_STACK, Q_COUNT, Q_INTERVAL, N_Q };

static const char *const sql[N_Q] = {
	[Q_FRAME] = "INSERT INTO profile_frame (session_id, module, symbol, offset, address)"
		    " VALUES (?,?,?,?,?)",
	[Q_STACK] = "INSERT INTO profile_stack (session_id, parent_id, frame_id, depth)"
		    " VALUES (?,?,?,?)",
	[Q_COUNT] = "INSERT INTO profile_sample (session_id, tid, interval, stack_id, count, weight)"
		    " VALUES (?,?,?,?,?,?) ON CONFLICT (session_id, tid, interval, stack_id)"
		    " DO UPDATE SET count = count + excluded.count,"
		    " weight = weight + excluded.weight",
	[Q_INTERVAL] = "INSERT INTO profile_interval (session_id, tid, idx, started_at, ended_at,"
		       " samples, lost) VALUES (?,?,?,?,?,?,?) ON CONFLICT (session_id, tid, idx)"
		       " DO UPDATE SET samples = samples + excluded.samples,"
		       " lost = lost + excluded.lost, ended_at = max(ended_at, excluded.ended_at)",
};

/* The row id of number x of a table, or -1 (unknown: a batch that named
 * it failed). */
static int64_t
row_of(const int64_t *v, size_t n, uint32_t x)
{
	return x >= 1 && x <= n ? v[x] : -1;
}

static int
write_batch(struct store *st, struct store_profile_ids *ids, const struct store_profile_batch *b,
	    sqlite3_stmt **q, char *err, size_t errsz)
{
	sqlite3 *db = store_sqlite(st);

	for (size_t i = 0; i < b->n_frames; i++) {
		const struct store_profile_frame *f = &b->frames[i];

		if (f->id != ids->n_frames + 1) {
			snprintf(err, errsz, "%s: profile frame %u out of order (a batch before "
				 "failed)", store_path(st), f->id);
			return -1;
		}
		sqlite3_bind_int64(q[Q_FRAME], 1, b->session);
		sqlite3_bind_text(q[Q_FRAME], 2, f->module, -1, SQLITE_STATIC);
		if (f->symbol)
			sqlite3_bind_text(q[Q_FRAME], 3, f->symbol, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q[Q_FRAME], 4, (int64_t)f->offset);
		sqlite3_bind_int64(q[Q_FRAME], 5, (int64_t)f->address);
		if (step(st, q[Q_FRAME], err, errsz, "frame") < 0)
			return -1;
		put_id(&ids->frame, &ids->n_frames, &ids->cap_frames, sqlite3_last_insert_rowid(db));
	}
	for (size_t i = 0; i < b->n_stacks; i++) {
		const struct store_profile_stack *s = &b->stacks[i];
		int64_t parent = s->parent ? row_of(ids->stack, ids->n_stacks, s->parent) : 0;
		int64_t frame = row_of(ids->frame, ids->n_frames, s->frame);

		if (s->id != ids->n_stacks + 1 || parent < 0 || frame < 0) {
			snprintf(err, errsz, "%s: profile stack %u names what is not written (a "
				 "batch before failed)", store_path(st), s->id);
			return -1;
		}
		sqlite3_bind_int64(q[Q_STACK], 1, b->session);
		sqlite3_bind_int64(q[Q_STACK], 2, parent);
		sqlite3_bind_int64(q[Q_STACK], 3, frame);
		sqlite3_bind_int64(q[Q_STACK], 4, s->depth);
		if (step(st, q[Q_STACK], err, errsz, "stack") < 0)
			return -1;
		put_id(&ids->stack, &ids->n_stacks, &ids->cap_stacks, sqlite3_last_insert_rowid(db));
	}
	for (size_t i = 0; i < b->n_counts; i++) {
		const struct store_profile_count *c = &b->counts[i];
		int64_t stack = row_of(ids->stack, ids->n_stacks, c->stack);

		if (stack < 0) {
			snprintf(err, errsz, "%s: profile samples of stack %u, not written (a batch "
				 "before failed)", store_path(st), c->stack);
			return -1;
		}
		sqlite3_bind_int64(q[Q_COUNT], 1, b->session);
		sqlite3_bind_int64(q[Q_COUNT], 2, c->tid);
		sqlite3_bind_int64(q[Q_COUNT], 3, c->interval);
		sqlite3_bind_int64(q[Q_COUNT], 4, stack);
		sqlite3_bind_int64(q[Q_COUNT], 5, (int64_t)c->count);
		sqlite3_bind_int64(q[Q_COUNT], 6, (int64_t)c->weight);
		if (step(st, q[Q_COUNT], err, errsz, "samples") < 0)
			return -1;
	}
	for (size_t i = 0; i < b->n_intervals; i++) {
		const struct store_profile_interval *v = &b->intervals[i];

		sqlite3_bind_int64(q[Q_INTERVAL], 1, b->session);
		sqlite3_bind_int64(q[Q_INTERVAL], 2, v->tid);
		sqlite3_bind_int64(q[Q_INTERVAL], 3, v->idx);
		sqlite3_bind_double(q[Q_INTERVAL], 4, v->started_at);
		sqlite3_bind_double(q[Q_INTERVAL], 5, v->ended_at);
		sqlite3_bind_int64(q[Q_INTERVAL], 6, (int64_t)v->samples);
		sqlite3_bind_int64(q[Q_INTERVAL], 7, (int64_t)v->lost);
		if (step(st, q[Q_INTERVAL], err, errsz, "interval") < 0)
			return -1;
	}
	return 0;
}

int
store_profile_write(struct store *st, struct store_profile_ids *ids,
		    const struct store_profile_batch *b, char *err, size_t errsz)
{
	sqlite3_stmt *q[N_Q] = { NULL };
	size_t frames = ids->n_frames, stacks = ids->n_stacks;
	int rc = 0;

	for (int i = 0; i < N_Q && rc == 0; i++)
		if (sqlite3_prepare_v2(store_sqlite(st), sql[i], -1, &q[i], NULL) != SQLITE_OK)
			rc = fail(st, err, errsz, "statement");
	if (rc == 0)
		rc = write_batch(st, ids, b, q, err, errsz);
	for (int i = 0; i < N_Q; i++)
		sqlite3_finalize(q[i]);
	if (rc < 0) {
		/* the caller rolls the rows back: forget them */
		ids->n_frames = frames;
		ids->n_stacks = stacks;
	}
	return rc;
}

void
store_profile_batch_free(struct store_profile_batch *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n_frames; i++) {
		free(b->frames[i].module);
		free(b->frames[i].symbol);
	}
	free(b->frames);
	free(b->stacks);
	free(b->counts);
	free(b->intervals);
	free(b);
}

struct profile_job {
	struct store_profile_ids *ids;
	struct store_profile_batch *b;
};

static int
profile_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct profile_job *j = arg;

	return store_profile_write(st, j->ids, j->b, err, errsz);
}

static void
profile_free(void *arg)
{
	struct profile_job *j = arg;

	store_profile_batch_free(j->b);
	free(j);
}

int
store_writer_profile(struct store_writer *w, struct store_profile_ids *ids,
		     struct store_profile_batch *b)
{
	struct profile_job *j = xmalloc(sizeof(*j));

	j->ids = ids;
	j->b = b;
	return store_writer_submit(w, profile_fn, j, profile_free);
}

struct sample_note_job {
	int64_t session;
	char *event, *note;
	unsigned weighting;
};

static int
sample_note_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct sample_note_job *j = arg;

	return store_session_sample(st, j->session, j->event, j->note,
				    j->weighting == 1 ? "instructions" : "time", err, errsz);
}

static void
sample_note_free(void *arg)
{
	struct sample_note_job *j = arg;

	free(j->event);
	free(j->note);
	free(j);
}

int
store_writer_session_sample(struct store_writer *w, int64_t session, const char *event,
			    const char *note, unsigned weighting)
{
	struct sample_note_job *j = xmalloc(sizeof(*j));

	j->session = session;
	j->event = xstrdup(event);
	j->note = xstrdup(note);
	j->weighting = weighting;
	return store_writer_submit(w, sample_note_fn, j, sample_note_free);
}
