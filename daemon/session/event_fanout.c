/*
 * The event fan-out (event_fanout.h).
 *
 * Two buffers: the pusher fills one while the workers read the other.
 * A buffer holds records of a target pointer and the event's
 * insn_event_size() bytes (a multiple of 8).  Handing a batch over
 * bumps a generation number under the lock; each worker goes through the
 * batch of the new generation and counts itself done.  A batch is a few
 * thousand events, so the lock and the wake-ups cost nothing next to the
 * analyses (a few microseconds a batch against a millisecond or more).
 */
#include "config.h"
#include "session/event_fanout.h"

#include <immintrin.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define BATCH_BYTES	(1u << 20)

struct fo_buf {
	unsigned char *data;
	size_t len;
};

struct fo_worker {
	struct event_fanout *f;
	unsigned w;
	pthread_t thread;
};

/* Three parts, each on cache lines of its own: what only the pusher
 * writes (a field the workers read on the line the pusher writes at
 * every event made each event a cache line ping-pong between CPUs, and
 * the push a quarter of micad's time), what the workers only read, and
 * the hand-over under the lock. */
struct event_fanout {
	struct fo_buf buf[2];
	unsigned fill;		/* the buffer being filled */

	_Alignas(64) unsigned n;
	event_fanout_fn fn;
	void *arg;
	struct fo_worker *workers;
	unsigned n_started;

	_Alignas(64) pthread_mutex_t lock;
	pthread_cond_t work;	/* a new generation, or stop */
	pthread_cond_t done;	/* n_done reached n */
	uint64_t gen;		/* batches handed over */
	const struct fo_buf *busy;	/* the batch of generation gen */
	unsigned n_done;	/* workers done with it */
	bool stop;
};

struct fo_head {
	void *target;
};

_Static_assert(offsetof(struct insn_event, mem) % 8 == 0 && sizeof(struct mem_access) % 8 == 0 &&
	       sizeof(struct ev_syscall) % 8 == 0, "insn_event_size() is a multiple of 8");

static void
run_batch(const struct event_fanout *f, unsigned w, const struct fo_buf *b)
{
	event_fanout_fn fn = f->fn;
	void *arg = f->arg;
	const unsigned char *data = b->data;
	size_t len = b->len;

	for (size_t off = 0; off < len; ) {
		struct fo_head h;
		const struct insn_event *ev;

		memcpy(&h, data + off, sizeof(h));
		ev = (const struct insn_event *)(data + off + sizeof(h));
		fn(arg, w, h.target, ev);
		off += sizeof(h) + insn_event_size(ev);
	}
}

static void *
worker_main(void *arg)
{
	struct fo_worker *wk = arg;
	struct event_fanout *f = wk->f;
	uint64_t seen = 0;

	for (;;) {
		const struct fo_buf *b;

		pthread_mutex_lock(&f->lock);
		while (f->gen == seen && !f->stop)
			pthread_cond_wait(&f->work, &f->lock);
		if (f->gen == seen) {	/* stop, and nothing left */
			pthread_mutex_unlock(&f->lock);
			return NULL;
		}
		seen = f->gen;
		b = f->busy;
		pthread_mutex_unlock(&f->lock);

		run_batch(f, wk->w, b);

		pthread_mutex_lock(&f->lock);
		if (++f->n_done == f->n)
			pthread_cond_signal(&f->done);
		pthread_mutex_unlock(&f->lock);
	}
}

/* Wait until the workers are done with the batch handed over last. */
static void
wait_done(struct event_fanout *f)
{
	pthread_mutex_lock(&f->lock);
	while (f->busy && f->n_done < f->n)
		pthread_cond_wait(&f->done, &f->lock);
	f->busy = NULL;
	pthread_mutex_unlock(&f->lock);
}

/* Hand the buffer being filled over (the previous batch done). */
static void
hand_over(struct event_fanout *f)
{
	struct fo_buf *b = &f->buf[f->fill];

	wait_done(f);
	if (!b->len)
		return;
	_mm_sfence();
	pthread_mutex_lock(&f->lock);
	f->busy = b;
	f->n_done = 0;
	f->gen++;
	pthread_cond_broadcast(&f->work);
	pthread_mutex_unlock(&f->lock);
	f->fill ^= 1;
	f->buf[f->fill].len = 0;
}

/*
 * A record's n bytes (a multiple of 8) into the buffer with non-temporal
 * stores: the buffer's lines were last read by the workers, on other
 * CPUs, and a plain store waits for each line to be taken back from them
 * (half of the pusher's time on gzip, even with the line asked for
 * ahead); these stores take no line, and the workers read the batch from
 * memory in order, which the hardware prefetches.  hand_over() fences
 * them before the workers may look.
 */
static inline void
put_words(unsigned char *dst, const void *src, size_t n)
{
	for (size_t o = 0; o < n; o += 8) {
		long long w;

		memcpy(&w, (const char *)src + o, 8);
		_mm_stream_si64((long long *)(void *)(dst + o), w);
	}
}

struct event_fanout *
event_fanout_new(unsigned n, event_fanout_fn fn, void *arg)
{
	struct event_fanout *f;
	sigset_t all, old;

	/* on cache lines of its own (its parts are 64-byte aligned) */
	if (posix_memalign((void **)&f, 64, sizeof(*f)) != 0)
		error_msg_and_die("out of memory");
	memset(f, 0, sizeof(*f));

	f->n = n;
	f->fn = fn;
	f->arg = arg;
	for (int i = 0; i < 2; i++)
		f->buf[i].data = xmalloc(BATCH_BYTES);
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->work, NULL);
	pthread_cond_init(&f->done, NULL);
	f->workers = xcalloc(n, sizeof(*f->workers));
	/* The workers take no signals: the session's threads handle them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned w = 0; w < n; w++) {
		f->workers[w].f = f;
		f->workers[w].w = w;
		if (pthread_create(&f->workers[w].thread, NULL, worker_main, &f->workers[w]) != 0)
			break;
		f->n_started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (f->n_started < n) {
		event_fanout_free(f);
		return NULL;
	}
	return f;
}

bool
event_fanout_push(struct event_fanout *f, void *target, const struct insn_event *ev)
{
	size_t sz = insn_event_size(ev), rec = sizeof(struct fo_head) + sz;
	struct fo_buf *b = &f->buf[f->fill];
	struct fo_head h = { target };
	bool handed = false;

	if (b->len + rec > BATCH_BYTES) {
		hand_over(f);
		b = &f->buf[f->fill];
		handed = true;
	}
	put_words(b->data + b->len, &h, sizeof(h));
	put_words(b->data + b->len + sizeof(h), ev, sz);
	b->len += rec;
	return handed;
}

void
event_fanout_sync(struct event_fanout *f)
{
	hand_over(f);
	wait_done(f);
}

void
event_fanout_free(struct event_fanout *f)
{
	if (!f)
		return;
	if (f->n_started == f->n)
		event_fanout_sync(f);
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_broadcast(&f->work);
	pthread_mutex_unlock(&f->lock);
	for (unsigned w = 0; w < f->n_started; w++)
		pthread_join(f->workers[w].thread, NULL);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->work);
	pthread_cond_destroy(&f->done);
	free(f->workers);
	free(f->buf[0].data);
	free(f->buf[1].data);
	free(f);
}
