/*
 * Sample mode's profile in the results database (schema.sql: profile_frame,
 * profile_stack, profile_sample, profile_interval), written on the
 * database's writer thread (store_writer.h) a batch at a time.
 *
 * The producer of a batch (daemon/session/trace_profile.c, on the analysis thread)
 * numbers its frames and stack nodes itself, 1, 2, ... in the order it
 * first meets them: it cannot wait for SQLite's row ids.  The writer side
 * keeps the map from those numbers to row ids (struct store_profile_ids),
 * so a batch only carries the frames and nodes that are new, and nodes
 * name their parent and frame by number.
 */
#ifndef MICAD_STORE_PROFILE_H
#define MICAD_STORE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "store/store_writer.h"

struct store_profile_frame {
	uint32_t id;		/* the producer's number: 1, 2, ... in order */
	char *module;		/* '[unknown]' when none is known */
	char *symbol;		/* NULL: none */
	uint64_t offset, address;
};

struct store_profile_stack {
	uint32_t id;		/* 1, 2, ... in order */
	uint32_t parent;	/* 0: an outermost frame */
	uint32_t frame;
	uint32_t depth;		/* 0 for an outermost frame */
};

/* Samples of one thread, interval and stack (added to a row already
 * there: samples may come late for an interval written before). */
struct store_profile_count {
	int32_t tid;
	int64_t interval;
	uint32_t stack;
	uint64_t count, weight;
};

/* A time interval of a thread (added to a row already there). */
struct store_profile_interval {
	int32_t tid;
	int64_t idx;
	double started_at, ended_at;	/* Unix seconds */
	uint64_t samples, lost;
};

struct store_profile_batch {
	int64_t session;
	struct store_profile_frame *frames;
	size_t n_frames;
	struct store_profile_stack *stacks;
	size_t n_stacks;
	struct store_profile_count *counts;
	size_t n_counts;
	struct store_profile_interval *intervals;
	size_t n_intervals;
};

/* The producer's numbers -> row ids of one session (writer thread only). */
struct store_profile_ids;

struct store_profile_ids *store_profile_ids_new(void);
void store_profile_ids_free(struct store_profile_ids *ids);

/*
 * Write b (in the caller's transaction).  Returns 0, or -1 with the reason
 * in err; the rows of a batch that failed are rolled back by the caller
 * (the writer's savepoint) and ids forgets them, so a later batch that
 * names them fails too, with a reason, rather than point at nothing.
 */
int store_profile_write(struct store *st, struct store_profile_ids *ids,
			const struct store_profile_batch *b, char *err, size_t errsz);

/* Queue b for the writer (it takes b: freed after it ran); ids lives
 * until the writer is closed.  0, or -1 once the writer has stopped. */
int store_writer_profile(struct store_writer *w, struct store_profile_ids *ids,
			 struct store_profile_batch *b);
void store_profile_batch_free(struct store_profile_batch *b);

/* The session's note (tracer.h struct trace_note_rec), queued: weighting
 * 1 instructions, 2 time. */
int store_writer_session_sample(struct store_writer *w, int64_t session, const char *event,
				const char *note, unsigned weighting);

#endif /* MICAD_STORE_PROFILE_H */
