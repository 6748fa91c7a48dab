/*
 * A sample-mode session's call-stack profile read back from the results
 * database (schema.sql's profile_* tables), for the exports of micactl
 * and the HTTP API: the samples of every thread or one, in a range of
 * intervals and of time, summed per stack, each stack resolved to its
 * frames (outermost first) and each frame to its function.
 *
 * Only the rows the range needs are read: the samples through
 * profile_sample's primary key (session, tid, interval), one range of
 * intervals per thread found in profile_interval, then each stack node and
 * frame the samples reach, once, by rowid.
 */
#ifndef MICAD_PROFILE_READ_H
#define MICAD_PROFILE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sqlite3;

/* What to read.  profile_range_init() gives the whole session. */
struct profile_range {
	int64_t session;
	bool one_thread;
	int64_t tid;
	int64_t from, to;	/* interval indexes, inclusive */
	double since, until;	/* Unix seconds: intervals that overlap [since, until) */
	bool per_thread;	/* keep each thread's samples of a stack apart */
};

void profile_range_init(struct profile_range *r, int64_t session);
/* Does r select less than the whole session's intervals? */
bool profile_range_is_partial(const struct profile_range *r);

/* A function: frames of one symbol in one module (or, without a symbol,
 * one address of a module) are one function. */
struct profile_function {
	char *name;		/* the symbol, "MODULE+0xOFFSET" (the module's
				 * file name) or "[unknown]" */
	char *module;		/* as stored: a path, "[vdso]", "[unknown]" */
};

struct profile_frame {
	int64_t id;		/* profile_frame.id: > 0 */
	uint32_t function;	/* index into functions */
	int64_t offset;
	bool has_address;
	uint64_t address;
};

struct profile_stack {
	int64_t tid;		/* -1 unless per_thread */
	uint64_t count, weight;
	uint32_t depth;		/* frames */
	const uint32_t *frames;	/* indexes into frames, outermost first */
};

struct profile {
	struct profile_function *functions;
	size_t n_functions;
	struct profile_frame *frames;
	size_t n_frames;
	struct profile_stack *stacks;	/* in no particular order */
	size_t n_stacks;
	uint64_t samples, weight;	/* sums over the stacks */
	uint64_t lost;			/* reported lost in the range's intervals */
	uint64_t intervals;		/* (thread, interval) rows in the range */
	struct profile_internal *in;
};

/* The session's sampling record.  Strings are malloc'd (NULL: none). */
struct profile_session {
	int64_t id, uid;
	char *engine;		/* 'step', 'sample', 'valgrind' */
	char *sample_event;
	char *sample_note;
	char *weighting;
	char *command;
	double started_at, ended_at;	/* ended_at < 0: not ended */
};

/* 1 and *s filled, 0 if there is no such session, -1 with the reason in
 * err. */
int profile_session_read(struct sqlite3 *db, int64_t id, struct profile_session *s,
			 char *err, size_t errsz);
void profile_session_free(struct profile_session *s);

/* The unit of the weights of an event: "nanoseconds" for the software
 * clocks (cpu-clock, task-clock), else "events". */
const char *profile_weight_unit(const char *sample_event);

/* The profile of r, or NULL with the reason in err (a database error, or
 * a stack tree that is not a tree). */
struct profile *profile_read(struct sqlite3 *db, const struct profile_range *r,
			     char *err, size_t errsz);
void profile_free(struct profile *p);

/* The SQL profile_read() runs on profile_sample (tests check that each is
 * answered through the primary key, not a scan). */
extern const char profile_sql_samples_session[];
extern const char profile_sql_samples_thread[];

#endif /* MICAD_PROFILE_READ_H */
