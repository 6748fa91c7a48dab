/*
 * Single-producer/single-consumer ring of variable-size records (ring.h).
 *
 * head and tail are byte offsets that only grow; the position in the
 * buffer is offset & mask.  The producer owns head, the consumer owns tail;
 * each reads the other's with acquire and publishes its own with release,
 * which is all the ordering an SPSC ring needs.
 *
 * A side that finds nothing to do spins a little, then sleeps on a futex
 * that the other side wakes once an eighth of the ring is there to work
 * on (a flag says someone sleeps, so the common case costs one load; the
 * eighth keeps the two from waking each other for every record, and the
 * sleep times out, which bounds how long a few records wait when the
 * producer pauses).  Sleeping on a clock instead is
 * unusable where timers are coarse: in a VM a 50 µs nanosleep was seen to
 * last 0.3 to 10 ms, which starved the valgrind engine's producer.  The
 * waits still time out (a producer in another process may be gone or
 * broken: the consumer must not hang on it).
 */
#include "config.h"
#include "trace/ring.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define RING_PAD	0xfffffffeu
#define HDR_SIZE	8u

struct rec_hdr {
	uint32_t type;
	uint32_t len;
};

struct ring {
	uint8_t *buf;
	size_t size, mask;
	bool shared;		/* one mapping, MAP_SHARED: ring_new_shared() */
	/* Producer and consumer fields on separate cache lines. */
	_Alignas(64) _Atomic size_t head;
	size_t pending_head;	/* producer: head after the reserved record */
	size_t pending_start;	/* producer: where the reserved record begins */
	_Atomic int closed;
	_Atomic int abandoned;	/* the consumer is gone: records go nowhere */
	uint64_t producer_waits;
	_Atomic uint32_t producer_sleeps;	/* futex: 1 while the producer sleeps */
	size_t producer_until;	/* ... until tail reaches this */
	_Alignas(64) _Atomic size_t tail;
	size_t pending_tail;	/* consumer: tail after the peeked record */
	uint64_t consumer_waits;
	_Atomic uint32_t consumer_sleeps;	/* futex: 1 while the consumer sleeps */
};

#define SPINS		64
#define SLEEP_NS	10000000	/* at most, then look again */
#define BATCH(r)	((r)->size / 8)

/*
 * Wait for the other side: spin a little (it is usually just behind),
 * then sleep on *flag until woken (or SLEEP_NS).  ready() is checked after
 * the flag is set; the other side publishes its position and then reads
 * the flag without a fence (a store and a load: on x86 the load may pass
 * the store), which may miss a sleeper that has just gone to sleep, once:
 * it looks at the flag again at its next record, and the sleep times out.
 */
static void
ring_nap(struct ring *r, unsigned *spins, _Atomic uint32_t *flag,
	 bool (*ready)(struct ring *r))
{
	struct timespec ts = { 0, SLEEP_NS };

	if (++*spins < SPINS) {
		__builtin_ia32_pause();
		return;
	}
	atomic_store(flag, 1);
	if (!ready(r))
		syscall(SYS_futex, flag, FUTEX_WAIT, 1, &ts, NULL, 0);
	atomic_store(flag, 0);
}

/* Wake the sleeper once (the flag goes back to 0 with it). */
static void
ring_wake(_Atomic uint32_t *flag)
{
	if (atomic_exchange(flag, 0))
		syscall(SYS_futex, flag, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* A batch for the consumer, or the end. */
static bool
consumer_ready(struct ring *r)
{
	return atomic_load(&r->head) - atomic_load_explicit(&r->tail, memory_order_relaxed) >=
	       BATCH(r) || atomic_load(&r->closed);
}

/* Room for the record the producer waits to write. */
static bool
producer_ready(struct ring *r)
{
	return atomic_load(&r->tail) >= r->producer_until;
}

struct ring *
ring_new(size_t size)
{
	struct ring *r = xcalloc(1, sizeof(*r));
	size_t n = 65536;

	while (n < size)
		n <<= 1;
	r->buf = xmalloc(n);
	r->size = n;
	r->mask = n - 1;
	return r;
}

/*
 * The header and the buffer in one anonymous MAP_SHARED mapping, so that a
 * process forked afterwards produces into the ring its parent consumes
 * (the daemon's tracer process, serve.h).  The consumer then cannot trust
 * the producer: ring_peek() checks every record's bounds.
 */
struct ring *
ring_new_shared(size_t size)
{
	size_t n = 65536, hdr = (sizeof(struct ring) + 4095) & ~(size_t)4095;
	struct ring *r;

	while (n < size)
		n <<= 1;
	r = mmap(NULL, hdr + n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	r->buf = (uint8_t *)r + hdr;
	r->size = n;
	r->mask = n - 1;
	r->shared = true;
	return r;
}

void
ring_free(struct ring *r)
{
	if (!r)
		return;
	if (r->shared) {
		munmap(r, ((sizeof(struct ring) + 4095) & ~(size_t)4095) + r->size);
		return;
	}
	free(r->buf);
	free(r);
}

size_t
ring_max_record(const struct ring *r)
{
	return r->size / 4 - HDR_SIZE;
}

static size_t
rec_space(size_t len)
{
	return HDR_SIZE + ((len + 7) & ~(size_t)7);
}

/*
 * Room for a record nobody will read: the producer's own scratch memory
 * (never the shared buffer), and the head left where it is, so that
 * ring_commit() publishes nothing.
 */
static void *
abandoned_record(struct ring *r, size_t len)
{
	static uint8_t *scratch;
	static size_t scratch_len;

	if (len > scratch_len) {
		free(scratch);
		scratch = xmalloc(len);
		scratch_len = len;
	}
	r->pending_head = atomic_load_explicit(&r->head, memory_order_relaxed);
	return scratch;
}

void *
ring_reserve(struct ring *r, uint32_t type, size_t len)
{
	size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t need = rec_space(len);
	size_t off = head & r->mask;
	size_t pad = 0;
	unsigned spins = 0;

	if (len > ring_max_record(r))
		error_msg_and_die("internal error: record of %zu bytes does not fit the event ring", len);
	if (off + need > r->size)
		pad = r->size - off;	/* wrap: pad to the end */
	for (;;) {
		size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);

		if (atomic_load_explicit(&r->abandoned, memory_order_relaxed))
			return abandoned_record(r, len);
		if (head + pad + need - tail <= r->size)
			break;
		if (spins == 0)
			r->producer_waits++;
		r->producer_until = head + pad + need - r->size + BATCH(r);
		ring_nap(r, &spins, &r->producer_sleeps, producer_ready);
	}
	if (pad) {
		struct rec_hdr *h = (struct rec_hdr *)(r->buf + off);

		h->type = RING_PAD;
		h->len = (uint32_t)(pad - HDR_SIZE);
		head += pad;
		off = 0;
	}
	struct rec_hdr *h = (struct rec_hdr *)(r->buf + off);

	h->type = type;
	h->len = (uint32_t)len;
	r->pending_start = head;
	r->pending_head = head + need;
	return h + 1;
}

void
ring_abandon(struct ring *r)
{
	atomic_store_explicit(&r->abandoned, 1, memory_order_relaxed);
}

void
ring_commit(struct ring *r)
{
	atomic_store_explicit(&r->head, r->pending_head, memory_order_release);
	if (atomic_load_explicit(&r->consumer_sleeps, memory_order_relaxed) && consumer_ready(r))
		ring_wake(&r->consumer_sleeps);
}

void
ring_commit_len(struct ring *r, size_t len)
{
	struct rec_hdr *h = (struct rec_hdr *)(r->buf + (r->pending_start & r->mask));

	if (atomic_load_explicit(&r->abandoned, memory_order_relaxed))
		return;		/* reserved in scratch memory: nothing to publish */
	if (len > h->len)
		error_msg_and_die("internal error: a ring record grew after its reservation");
	h->len = (uint32_t)len;
	r->pending_head = r->pending_start + rec_space(len);
	ring_commit(r);
}

void
ring_close(struct ring *r)
{
	atomic_store(&r->closed, 1);
	ring_wake(&r->consumer_sleeps);
}

uint32_t
ring_peek(struct ring *r, const void **data, size_t *len)
{
	size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	unsigned spins = 0;

	for (;;) {
		size_t head = atomic_load_explicit(&r->head, memory_order_acquire);

		if (head == tail) {
			/* Closed is set after the last commit: check it, then
			 * look at head once more. */
			if (atomic_load_explicit(&r->closed, memory_order_acquire) &&
			    atomic_load_explicit(&r->head, memory_order_acquire) == tail)
				return RING_END;
			if (spins == 0)
				r->consumer_waits++;
			ring_nap(r, &spins, &r->consumer_sleeps, consumer_ready);
			continue;
		}
		const struct rec_hdr *h = (const struct rec_hdr *)(r->buf + (tail & r->mask));
		/* Read once: a producer in another process could change them. */
		uint32_t type = ((volatile const struct rec_hdr *)h)->type;
		size_t hlen = ((volatile const struct rec_hdr *)h)->len;

		if (r->shared && ((tail & r->mask) + rec_space(hlen) > r->size ||
				  tail + rec_space(hlen) > head)) {
			/* Not a record this ring's producer can write: the
			 * producer is broken, and nothing after it is read. */
			return RING_END;
		}
		if (type == RING_PAD) {
			tail += HDR_SIZE + hlen;
			atomic_store_explicit(&r->tail, tail, memory_order_release);
			if (atomic_load_explicit(&r->producer_sleeps, memory_order_relaxed) &&
			    producer_ready(r))
				ring_wake(&r->producer_sleeps);
			continue;
		}
		*data = h + 1;
		*len = hlen;
		r->pending_tail = tail + rec_space(hlen);
		return type;
	}
}

void
ring_release(struct ring *r)
{
	atomic_store_explicit(&r->tail, r->pending_tail, memory_order_release);
	if (atomic_load_explicit(&r->producer_sleeps, memory_order_relaxed) && producer_ready(r))
		ring_wake(&r->producer_sleeps);
}

void
ring_get_waits(const struct ring *r, uint64_t *producer_waits, uint64_t *consumer_waits)
{
	*producer_waits = r->producer_waits;
	*consumer_waits = r->consumer_waits;
}
