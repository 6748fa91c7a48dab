/*
 * LRU stack distances at MICA's bucket resolution, exact, in O(log W) per
 * access and bounded memory (spec performance.md §1.4): a Fenwick tree of
 * live flags over access slots, a block -> slot hash, and the LRU depth
 * capped at 2^18 blocks.  A block pushed out of the window has 2^18 newer
 * distinct blocks, so its next access is in the top bucket whatever its
 * exact distance; a "seen" bitmap (one bit per block, one word per 64
 * blocks) tells those from first accesses.
 */
#ifndef MICAD_LRU_STACK_H
#define MICAD_LRU_STACK_H

#include <stdint.h>

#define LRU_STACK_BUCKETS	19
#define LRU_STACK_CAP		(1u << 18)	/* d >= 2^18 is the top bucket */
#define LRU_STACK_COLD		(-1)
#define LRU_STACK_NOMEM		(-2)
#define LRU_STACK_CENSORED	(-3)

struct lru_stack;

struct lru_stack *lru_stack_new(void);
void lru_stack_free(struct lru_stack *s);

/* Access block b: returns its bucket (0..18), LRU_STACK_COLD for the
 * first access, or LRU_STACK_NOMEM. */
int lru_stack_access(struct lru_stack *s, uint64_t b);

/*
 * Sample mode (spec performance.md §3.3): the stack is kept across bursts
 * (stale), and lru_stack_mark() says a burst starts now.  From the first
 * mark on, a re-access whose previous access is older than the last mark
 * returns LRU_STACK_CENSORED: its true distance counts accesses nobody
 * saw, and is only known to be at least the distinct blocks seen since
 * the mark.  The one exception is a block pushed out of the window while
 * the burst itself has seen 2^18 distinct blocks: its distance is then
 * at least 2^18 whenever its previous access was, so the top bucket is
 * certain.  A first access (never seen) is still LRU_STACK_COLD: cold for
 * micad, which in sample mode is a lower bound of the run's cold count.
 */
void lru_stack_mark(struct lru_stack *s);

/* Distinct blocks accessed since the last mark (0 before any mark), at
 * most LRU_STACK_CAP: the blocks the stack holds. */
uint32_t lru_stack_distinct_since_mark(const struct lru_stack *s);

/* The bucket of distance d: [0,2) -> 0, [2^k, 2^(k+1)) -> k, >= 2^18 -> 18. */
static inline int
lru_stack_bucket(uint64_t d)
{
	int k;

	if (d < 2)
		return 0;
	k = 63 - __builtin_clzll(d);
	return k < LRU_STACK_BUCKETS - 1 ? k : LRU_STACK_BUCKETS - 1;
}

/* A hint: start loading what lru_stack_access(s, b) looks up first. */
void lru_stack_prefetch(const struct lru_stack *s, uint64_t b);

/* Bytes held (for the benchmark's memory report). */
uint64_t lru_stack_bytes(const struct lru_stack *s);

#endif /* MICAD_LRU_STACK_H */
