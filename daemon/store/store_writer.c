/*
 * The results database's writer thread (store_writer.h): a bounded FIFO of
 * jobs under one mutex, drained in batches, each batch one transaction and
 * each job one savepoint in it.
 */
#include "config.h"
#include "store/store_writer.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mica/mica_sample.h"
#include "util.h"

/* A synchronous call's rendezvous (store_writer_call). */
struct call {
	int result;
	bool finished;
	char *err;
	size_t errsz;
};

struct job {
	store_job_fn fn;
	void *arg;
	void (*free_job)(void *arg);
	struct call *call;	/* non-NULL: a synchronous call */
};

struct store_writer {
	struct store *st;
	char *path;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more;	/* to the writer: jobs queued, or closing */
	pthread_cond_t room;	/* to producers: the queue has room */
	pthread_cond_t done;	/* to flush and call waiters: jobs finished */
	struct job *ring;	/* STORE_WRITER_QUEUE slots */
	size_t head, count;
	unsigned long long queued, finished;	/* jobs ever queued / finished */
	unsigned long failures;
	char first_error[512];	/* the first failure's reason, said once */
	bool closing, stopped;
};

static void
lock(struct store_writer *w)
{
	int e = pthread_mutex_lock(&w->lock);

	if (e)
		error_msg_and_die("store writer: pthread_mutex_lock: %s", strerror(e));
}

static void
unlock(struct store_writer *w)
{
	pthread_mutex_unlock(&w->lock);
}

static void
wait_on(pthread_cond_t *c, struct store_writer *w)
{
	int e = pthread_cond_wait(c, &w->lock);

	if (e)
		error_msg_and_die("store writer: pthread_cond_wait: %s", strerror(e));
}

static void
free_job(struct job *j)
{
	if (j->free_job)
		j->free_job(j->arg);
}

/* One synchronous call, in a transaction of its own. */
static void
run_call(struct store_writer *w, struct job *j)
{
	struct call *c = j->call;
	int r;

	r = store_exec(w->st, "BEGIN IMMEDIATE", c->err, c->errsz);
	if (r == 0) {
		r = j->fn(w->st, j->arg, c->err, c->errsz);
		if (r == 0)
			r = store_exec(w->st, "COMMIT", c->err, c->errsz);
		if (r < 0)
			store_exec(w->st, "ROLLBACK", NULL, 0);
	}
	lock(w);
	c->result = r < 0 ? -1 : 0;
	c->finished = true;
	w->finished++;
	pthread_cond_broadcast(&w->done);
	unlock(w);
}

/*
 * n results lost: the first time, say why, once (a full disk fails every
 * batch from then on: one line, not one per batch); count them all.
 * Called by the writer thread, the only one that writes first_error.
 */
static void
lost(struct store_writer *w, const char *why, unsigned long n)
{
	bool first;

	lock(w);
	first = !w->first_error[0];
	if (first)
		snprintf(w->first_error, sizeof(w->first_error), "%s", why);
	w->failures += n;
	unlock(w);
	if (first)
		error_msg("results database: %s: results are being lost (said once; micad goes "
			  "on and counts them)", why);
}

/*
 * A batch of asynchronous jobs: one transaction, a savepoint per job so
 * that one failing job (a constraint, say) loses only its own rows.  If
 * the transaction itself cannot start or commit (the disk is full, another
 * process held the lock longer than the busy timeout), the whole batch is
 * lost and every job in it counts as failed.
 */
static void
run_batch(struct store_writer *w, struct job *jobs, size_t n)
{
	char err[512];
	unsigned long failed = 0;

	if (store_exec(w->st, "BEGIN IMMEDIATE", err, sizeof(err)) < 0) {
		failed = n;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char jerr[512];

		if (store_exec(w->st, "SAVEPOINT job", jerr, sizeof(jerr)) < 0 ||
		    jobs[i].fn(w->st, jobs[i].arg, jerr, sizeof(jerr)) < 0) {
			store_exec(w->st, "ROLLBACK TO job", NULL, 0);
			if (!failed++)
				memcpy(err, jerr, sizeof(err));
		}
		store_exec(w->st, "RELEASE job", NULL, 0);
	}
	if (store_exec(w->st, "COMMIT", err, sizeof(err)) < 0) {
		store_exec(w->st, "ROLLBACK", NULL, 0);
		failed = n;
	}
out:
	for (size_t i = 0; i < n; i++)
		free_job(&jobs[i]);
	if (failed)
		lost(w, err, failed);
	lock(w);
	w->finished += n;
	pthread_cond_broadcast(&w->done);
	unlock(w);
}

static void *
writer_main(void *arg)
{
	struct store_writer *w = arg;
	struct job batch[STORE_WRITER_BATCH];

	lock(w);
	for (;;) {
		size_t n = 0;

		while (w->count == 0 && !w->closing)
			wait_on(&w->more, w);
		if (w->count == 0)
			break;
		/* Whatever is queued, up to a batch, up to the next call. */
		while (w->count && n < STORE_WRITER_BATCH) {
			struct job *j = &w->ring[w->head];

			if (j->call && n > 0)
				break;
			batch[n++] = *j;
			w->head = (w->head + 1) % STORE_WRITER_QUEUE;
			w->count--;
			if (batch[n - 1].call)
				break;
		}
		pthread_cond_broadcast(&w->room);
		unlock(w);
		if (batch[0].call)
			run_call(w, &batch[0]);
		else
			run_batch(w, batch, n);
		lock(w);
	}
	w->stopped = true;
	pthread_cond_broadcast(&w->room);
	pthread_cond_broadcast(&w->done);
	unlock(w);
	return NULL;
}

struct store_writer *
store_writer_open(const char *path, char *err, size_t errsz)
{
	struct store_writer *w;
	struct store *st = store_open(path, false, err, errsz);
	sigset_t all, old;
	int e;

	if (!st)
		return NULL;
	/* Sessions whose writer died (kill -9, a crash, a power cut). */
	if (store_mark_cut_off(st, err, errsz) < 0) {
		store_close(st);
		return NULL;
	}
	w = xcalloc(1, sizeof(*w));
	w->st = st;
	w->path = xstrdup(path);
	w->ring = xcalloc(STORE_WRITER_QUEUE, sizeof(*w->ring));
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->more, NULL);
	pthread_cond_init(&w->room, NULL);
	pthread_cond_init(&w->done, NULL);
	/* Signals are for the tracer's thread (a detach request must
	 * interrupt its waitpid): the writer thread blocks them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&w->thread, NULL, writer_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		snprintf(err, errsz, "cannot start the database writer thread: %s", strerror(e));
		store_close(st);
		free(w->ring);
		free(w->path);
		free(w);
		return NULL;
	}
	return w;
}

const char *
store_writer_path(const struct store_writer *w)
{
	return w->path;
}

/* Queue j; blocks while the queue is full.  -1 once the writer is
 * closing. */
static int
enqueue(struct store_writer *w, const struct job *j)
{
	lock(w);
	/* Full: the producer (an analysis thread) waits rather than drop a
	 * result; the writer frees a whole batch of slots at each wake-up. */
	while (w->count == STORE_WRITER_QUEUE && !w->stopped)
		wait_on(&w->room, w);
	if (w->closing || w->stopped) {
		unlock(w);
		return -1;
	}
	w->ring[(w->head + w->count) % STORE_WRITER_QUEUE] = *j;
	w->count++;
	w->queued++;
	pthread_cond_signal(&w->more);
	unlock(w);
	return 0;
}

int
store_writer_submit(struct store_writer *w, store_job_fn fn, void *job,
		    void (*free_fn)(void *job))
{
	struct job j = { fn, job, free_fn, NULL };

	if (enqueue(w, &j) < 0) {
		free_job(&j);
		return -1;
	}
	return 0;
}

int
store_writer_call(struct store_writer *w, store_job_fn fn, void *job, char *err, size_t errsz)
{
	struct call c = { .err = err, .errsz = errsz };
	struct job j = { fn, job, NULL, &c };

	if (enqueue(w, &j) < 0) {
		snprintf(err, errsz, "%s: the database writer has stopped", w->path);
		return -1;
	}
	lock(w);
	while (!c.finished)
		wait_on(&w->done, w);
	unlock(w);
	return c.result;
}

void
store_writer_flush(struct store_writer *w)
{
	lock(w);
	for (unsigned long long target = w->queued; w->finished < target && !w->stopped;)
		wait_on(&w->done, w);
	unlock(w);
}

unsigned long
store_writer_failures(struct store_writer *w)
{
	unsigned long n;

	lock(w);
	n = w->failures;
	unlock(w);
	return n;
}

unsigned long
store_writer_lost(struct store_writer *w, char *why, size_t whysz)
{
	unsigned long n;

	lock(w);
	n = w->failures;
	snprintf(why, whysz, "%s", w->first_error);
	unlock(w);
	return n;
}

int
store_writer_close(struct store_writer *w)
{
	int ret;

	if (!w)
		return 0;
	lock(w);
	w->closing = true;
	pthread_cond_signal(&w->more);
	unlock(w);
	pthread_join(w->thread, NULL);
	ret = w->failures ? -1 : 0;
	store_close(w->st);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->more);
	pthread_cond_destroy(&w->room);
	pthread_cond_destroy(&w->done);
	free(w->ring);
	free(w->path);
	free(w);
	return ret;
}

/* Session helpers. */

struct session_begin_job {
	const struct store_session *s;
	int64_t id;
};

static int
session_begin_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct session_begin_job *j = arg;

	j->id = store_session_begin(st, j->s, err, errsz);
	return j->id < 0 ? -1 : 0;
}

int64_t
store_writer_session_begin(struct store_writer *w, const struct store_session *s,
			   char *err, size_t errsz)
{
	struct session_begin_job j = { s, -1 };

	if (store_writer_call(w, session_begin_fn, &j, err, errsz) < 0)
		return -1;
	return j.id;
}

struct session_end_job {
	int64_t session;
	int exit_status;
	const char *reason, *error, *incomplete;
};

static int
session_end_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct session_end_job *j = arg;

	if ((j->error || j->incomplete) &&
	    store_session_note(st, j->session, j->error, j->incomplete, err, errsz) < 0)
		return -1;
	return store_session_end(st, j->session, j->exit_status, j->reason, err, errsz);
}

static int
release_reserve_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	(void)err;
	(void)errsz;
	*(bool *)arg = store_release_reserve(st);
	return 0;
}

int
store_writer_session_end(struct store_writer *w, int64_t session, int exit_status,
			 const char *reason, char *err, size_t errsz)
{
	return store_writer_session_finish(w, session, exit_status, reason, NULL, NULL, err,
					   errsz);
}

int
store_writer_session_finish(struct store_writer *w, int64_t session, int exit_status,
			    const char *reason, const char *error, const char *incomplete,
			    char *err, size_t errsz)
{
	struct session_end_job j = { session, exit_status, reason, error, incomplete };
	bool released = false;

	if (store_writer_call(w, session_end_fn, &j, err, errsz) == 0)
		return 0;
	/* The end of a session is written even on a full disk: the writer's
	 * reserve of disk space (store_release_reserve) is freed, and the
	 * whole transaction tried once more. */
	if (store_writer_call(w, release_reserve_fn, &released, NULL, 0) < 0 || !released)
		return -1;
	return store_writer_call(w, session_end_fn, &j, err, errsz);
}

struct process_job {
	int64_t session, pid, parent_pid;
	char *exe;
};

static int
process_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct process_job *j = arg;

	return store_process(st, j->session, j->pid, j->parent_pid, j->exe, err, errsz);
}

static void
process_free(void *arg)
{
	struct process_job *j = arg;

	free(j->exe);
	free(j);
}

int
store_writer_process(struct store_writer *w, int64_t session, int64_t pid, int64_t parent_pid,
		     const char *exe)
{
	struct process_job *j = xcalloc(1, sizeof(*j));

	j->session = session;
	j->pid = pid;
	j->parent_pid = parent_pid;
	j->exe = exe ? xstrdup(exe) : NULL;
	return store_writer_submit(w, process_fn, j, process_free);
}

static int
thread_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	return store_thread_begin(st, arg, err, errsz);
}

int
store_writer_thread(struct store_writer *w, const struct store_thread *t)
{
	struct store_thread *j = xmalloc(sizeof(*j));

	*j = *t;
	return store_writer_submit(w, thread_fn, j, free);
}

struct thread_end_job {
	int64_t session, tid;
	int wait_status;
	const char *reason;	/* a string literal */
	double ended_at;
};

static int
thread_end_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct thread_end_job *j = arg;

	return store_thread_end(st, j->session, j->tid, j->wait_status, j->reason, j->ended_at,
				err, errsz);
}

int
store_writer_thread_end(struct store_writer *w, int64_t session, int64_t tid, int wait_status,
			const char *reason, double ended_at)
{
	struct thread_end_job *j = xmalloc(sizeof(*j));

	j->session = session;
	j->tid = tid;
	j->wait_status = wait_status;
	j->reason = reason;
	j->ended_at = ended_at;
	return store_writer_submit(w, thread_end_fn, j, free);
}

/* A deep copy of an interval: the struct, and what its pointers point to. */
struct interval_job {
	int64_t session;
	struct mica_interval iv;
	struct mica_config cfg;	/* block_size and page_size only */
	double started_at, ended_at;
	uint64_t *counts;
	char **other;
	struct mica_metric *metrics;	/* sample mode */
};

static int
interval_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct interval_job *j = arg;

	return store_interval(st, j->session, &j->iv, &j->cfg, j->started_at, j->ended_at,
			      err, errsz) < 0 ? -1 : 0;
}

static void
interval_free(void *arg)
{
	struct interval_job *j = arg;

	for (size_t i = 0; i < j->iv.itypes.n_other; i++)
		free(j->other[i]);
	free(j->other);
	free(j->counts);
	free(j->metrics);
	free(j);
}

int
store_writer_interval(struct store_writer *w, int64_t session, const struct mica_interval *iv,
		      const struct mica_config *cfg, double started_at, double ended_at)
{
	struct interval_job *j = xcalloc(1, sizeof(*j));
	const struct mica_itypes_result *it = &iv->itypes;

	j->session = session;
	j->iv = *iv;
	mica_config_init(&j->cfg);
	j->cfg.block_size = cfg->block_size;
	j->cfg.page_size = cfg->page_size;
	j->started_at = started_at;
	j->ended_at = ended_at;
	j->iv.itypes.counts = NULL;
	j->iv.itypes.other = NULL;
	j->iv.itypes.n_other = 0;
	if (iv->analyses & MICA_BIT(MICA_ITYPES)) {
		j->counts = xcalloc(it->n_groups + 1, sizeof(*j->counts));
		memcpy(j->counts, it->counts, (it->n_groups + 1) * sizeof(*j->counts));
		j->iv.itypes.counts = j->counts;
		if (it->n_other) {
			j->other = xcalloc(it->n_other, sizeof(*j->other));
			for (size_t i = 0; i < it->n_other; i++)
				j->other[i] = xstrdup(it->other[i]);
			j->iv.itypes.other = (const char *const *)j->other;
			j->iv.itypes.n_other = it->n_other;
		}
	}
	if (iv->sampled && iv->sample.n_metrics) {
		j->metrics = xcalloc(iv->sample.n_metrics, sizeof(*j->metrics));
		memcpy(j->metrics, iv->sample.metrics, iv->sample.n_metrics * sizeof(*j->metrics));
		j->iv.sample.metrics = j->metrics;
	}
	return store_writer_submit(w, interval_fn, j, interval_free);
}
