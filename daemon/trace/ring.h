/*
 * A lock-free single-producer/single-consumer ring of variable-size
 * records, used to hand instruction events from the tracer thread to the
 * analysis thread so tracing and analysis overlap.
 *
 * The producer reserves room for a record, fills it and commits it; the
 * consumer peeks at the oldest record and releases it when done.  Records
 * are 8-byte aligned and never split: one that does not fit before the end
 * of the buffer starts again at the beginning (a padding record fills the
 * gap).  When the ring is full the producer waits, when empty the consumer
 * waits; both sleep (on a futex the other side wakes) rather than spin, so
 * neither steals the CPU the other (or the traced program) needs.
 */
#ifndef MICAD_RING_H
#define MICAD_RING_H

#include <stddef.h>
#include <stdint.h>

struct ring;

/* A ring of size bytes (rounded up to a power of two, at least 64 KiB). */
struct ring *ring_new(size_t size);
/* The same in memory shared with processes forked afterwards (NULL with
 * errno set if it cannot be mapped); its consumer checks every record's
 * bounds, so a producer it does not trust cannot make it read outside
 * the ring. */
struct ring *ring_new_shared(size_t size);
void ring_free(struct ring *r);

/* Largest record ring_reserve() accepts. */
size_t ring_max_record(const struct ring *r);

/*
 * Producer: a pointer to len writable bytes, waiting while the ring is full.
 * Then ring_commit(r) publishes the record.  type is the caller's record
 * tag, handed back by ring_peek().
 */
void *ring_reserve(struct ring *r, uint32_t type, size_t len);
void ring_commit(struct ring *r);
/* Or publish only the first len bytes of the record reserved (len no more
 * than it: a producer that fills a record of many parts as they come). */
void ring_commit_len(struct ring *r, size_t len);

/* Producer: no more records; the consumer sees RING_END when it is done. */
void ring_close(struct ring *r);

/* The consumer is gone (its process died): from now on the producer never
 * waits, and what it reserves goes nowhere.  Async-signal-safe. */
void ring_abandon(struct ring *r);

#define RING_END	0xffffffffu

/*
 * Consumer: the oldest record, waiting while the ring is empty.  Returns
 * its type (RING_END once the producer closed the ring and all records are
 * consumed) and sets *data and *len.  ring_release(r) frees it.
 */
uint32_t ring_peek(struct ring *r, const void **data, size_t *len);
void ring_release(struct ring *r);

/* Counters for the benchmark: times the producer found the ring full and
 * the consumer found it empty. */
void ring_get_waits(const struct ring *r, uint64_t *producer_waits, uint64_t *consumer_waits);

#endif /* MICAD_RING_H */
