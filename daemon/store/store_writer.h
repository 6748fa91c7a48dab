/*
 * The results database's writer: one thread per database handle that owns
 * the SQLite connection and writes what the tracing and analysis threads
 * queue (finished intervals, thread rows, any other job), one transaction
 * per batch.  Producers never wait on SQLite: they only copy their data
 * into the queue.  The queue is bounded; when it is full the producer
 * blocks until the writer has caught up (results are never dropped).
 */
#ifndef MICAD_STORE_WRITER_H
#define MICAD_STORE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "mica/mica.h"
#include "store/store.h"

struct store_writer;

/*
 * A job run on the writer thread: fn(st, job, err, errsz) returns 0, or -1
 * with the reason in err.  Asynchronous jobs run inside the current batch
 * transaction, each under its own savepoint: a failing job is rolled back
 * alone and counted, and the batch goes on.  The first failure is reported
 * (error_msg), once: a full disk fails every later batch too.
 */
typedef int (*store_job_fn)(struct store *st, void *job, char *err, size_t errsz);

/* Jobs per transaction at most (whatever is queued when the writer wakes,
 * up to this many). */
#define STORE_WRITER_BATCH	256
/* Queued jobs at most before a producer blocks. */
#define STORE_WRITER_QUEUE	4096

/*
 * Open the database at path for writing (store_open: created and migrated
 * if needed) and start its writer thread.  NULL with the reason in err.
 */
struct store_writer *store_writer_open(const char *path, char *err, size_t errsz);

/* The database's path as given. */
const char *store_writer_path(const struct store_writer *w);

/*
 * Queue fn(st, job) for the next batch; afterwards (run or not) the writer
 * calls free_job(job) when free_job is not NULL.  Blocks while the queue is
 * full.  Returns 0, or -1 once the writer has stopped (the job is freed
 * without running).  Jobs run in the order they were queued, whichever
 * thread queued them.
 */
int store_writer_submit(struct store_writer *w, store_job_fn fn, void *job,
			void (*free_job)(void *job));

/*
 * Run fn(st, job) on the writer thread in a transaction of its own, after
 * everything queued before it is committed, and wait for it: returns fn's
 * result (-1 with the reason in err).  For the few writes a caller must
 * see done (a session row, its end).
 */
int store_writer_call(struct store_writer *w, store_job_fn fn, void *job,
		      char *err, size_t errsz);

/* Wait until everything queued so far is committed. */
void store_writer_flush(struct store_writer *w);

/*
 * Session helpers (synchronous, store_writer_call): the session row with
 * this process recorded as its writer (for store_mark_cut_off), its itypes
 * group names when cfg runs itypes, and its end.
 */
int64_t store_writer_session_begin(struct store_writer *w, const struct store_session *s,
				   char *err, size_t errsz);
int store_writer_session_end(struct store_writer *w, int64_t session, int exit_status,
			     const char *reason, char *err, size_t errsz);
/* The end with what end_reason does not say (store_session_note): why the
 * session failed, why some of its results are missing (NULL: nothing). */
int store_writer_session_finish(struct store_writer *w, int64_t session, int exit_status,
				const char *reason, const char *error, const char *incomplete,
				char *err, size_t errsz);

/* Asynchronous rows. */
int store_writer_process(struct store_writer *w, int64_t session, int64_t pid,
			 int64_t parent_pid, const char *exe);
int store_writer_thread(struct store_writer *w, const struct store_thread *t);
/* reason: a string literal ("exited", "killed", "detached"). */
int store_writer_thread_end(struct store_writer *w, int64_t session, int64_t tid,
			    int wait_status, const char *reason, double ended_at);

/*
 * A finished interval: deep-copied here (iv's inner pointers need to be
 * valid during the call only), written in the next batch with the
 * wall-clock times given (Unix seconds; <= 0: unknown).  block_size and
 * page_size come from cfg.
 */
int store_writer_interval(struct store_writer *w, int64_t session,
			  const struct mica_interval *iv, const struct mica_config *cfg,
			  double started_at, double ended_at);

/*
 * Drain the queue, stop the thread and close the database.  Returns 0, or
 * -1 if any job failed (the first failure was reported when it happened).
 */
int store_writer_close(struct store_writer *w);

/* Jobs that failed so far. */
unsigned long store_writer_failures(struct store_writer *w);
/* The same, with the first failure's reason in why ("" if none). */
unsigned long store_writer_lost(struct store_writer *w, char *why, size_t whysz);

#endif /* MICAD_STORE_WRITER_H */
