/*
 * Single-producer/single-consumer ring of variable-size records (ring.h).
 *
 * head and tail are byte offsets that only grow; the position in the
 * buffer is offset & mask.  The producer owns head, the consumer owns tail;
 * each reads the other's with acquire and publishes its own with release,
 * which is all the ordering an SPSC ring needs.
 */
#include "config.h"
#include "ring.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

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
	_Atomic int closed;
	_Atomic int abandoned;	/* the consumer is gone: records go nowhere */
	uint64_t producer_waits;
	_Alignas(64) _Atomic size_t tail;
	size_t pending_tail;	/* consumer: tail after the peeked record */
	uint64_t consumer_waits;
};

static void
ring_nap(unsigned *spins)
{
	/* Spin a little (the other side is usually just behind), then
	 * sleep 50 µs at a time. */
	if (++*spins < 64) {
		__builtin_ia32_pause();
		return;
	}
	struct timespec ts = { 0, 50000 };
	nanosleep(&ts, NULL);
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
		ring_nap(&spins);
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
}

void
ring_close(struct ring *r)
{
	atomic_store_explicit(&r->closed, 1, memory_order_release);
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
			ring_nap(&spins);
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
}

void
ring_get_waits(const struct ring *r, uint64_t *producer_waits, uint64_t *consumer_waits)
{
	*producer_waits = r->producer_waits;
	*consumer_waits = r->consumer_waits;
}
