/*
 * memstackdist's LRU stack (lru_stack.c) against a naive O(d) LRU stack:
 * random, cyclic and hot/cold streams, MICA's bucket boundary table
 * (mica.md §3.7, MSD-4), and distances 2^18 - 1, 2^18, 2^18 + 1 around
 * the cap.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mica/lru_stack.h"
#include "tap.h"

/* The oracle: blocks in LRU order, most recent last; a bitmap of blocks
 * seen so that first accesses skip the search. */
struct naive {
	uint64_t *stk;
	size_t n, cap;
	uint8_t *seen;
	uint64_t max_block;
};

static void
naive_init(struct naive *o, uint64_t max_block)
{
	memset(o, 0, sizeof(*o));
	o->cap = 1024;
	o->stk = malloc(o->cap * sizeof(*o->stk));
	o->seen = calloc(max_block / 8 + 1, 1);
	o->max_block = max_block;
}

static void
naive_free(struct naive *o)
{
	free(o->stk);
	free(o->seen);
}

static int
naive_access(struct naive *o, uint64_t b)
{
	int bucket = LRU_STACK_COLD;

	if (o->seen[b / 8] & (1 << (b % 8))) {
		size_t i = o->n;

		while (o->stk[--i] != b)
			;
		bucket = lru_stack_bucket(o->n - 1 - i);
		memmove(&o->stk[i], &o->stk[i + 1], (o->n - 1 - i) * sizeof(*o->stk));
		o->n--;
	} else {
		o->seen[b / 8] |= 1 << (b % 8);
	}
	if (o->n == o->cap)
		o->stk = realloc(o->stk, (o->cap *= 2) * sizeof(*o->stk));
	o->stk[o->n++] = b;
	return bucket;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t
xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Histograms: [0] cold, [1 + k] bucket k. */
struct hist {
	uint64_t h[LRU_STACK_BUCKETS + 1];
};

static void
count(struct hist *h, int k)
{
	h->h[k == LRU_STACK_COLD ? 0 : 1 + k]++;
}

static int
same_hist(const struct hist *a, const struct hist *b, const char *name)
{
	int ok_ = memcmp(a, b, sizeof(*a)) == 0;

	ok(ok_, "%s: histogram equals the naive LRU stack's", name);
	if (!ok_)
		for (int k = 0; k <= LRU_STACK_BUCKETS; k++)
			if (a->h[k] != b->h[k])
				diag("  %s: got %llu want %llu", k ? "bucket" : "cold",
				     (unsigned long long)a->h[k], (unsigned long long)b->h[k]);
	return ok_;
}

static void
test_stream(const char *name, uint64_t max_block, size_t n, uint64_t (*gen)(size_t i))
{
	struct lru_stack *s = lru_stack_new();
	struct naive o;
	struct hist got = { { 0 } }, want = { { 0 } };
	size_t mismatch = 0;

	naive_init(&o, max_block);
	for (size_t i = 0; i < n; i++) {
		uint64_t b = gen(i);
		int k1 = lru_stack_access(s, b), k2 = naive_access(&o, b);

		count(&got, k1);
		count(&want, k2);
		if (k1 != k2 && !mismatch++)
			diag("  first mismatch at access %zu (block %llu): got %d want %d", i,
			     (unsigned long long)b, k1, k2);
	}
	same_hist(&got, &want, name);
	ok(mismatch == 0, "%s: every access in the same bucket (%zu mismatches)", name, mismatch);
	naive_free(&o);
	lru_stack_free(s);
}

static uint64_t
gen_random(size_t i)
{
	(void)i;
	return xorshift() % 1000;
}

static uint64_t
gen_random_wide(size_t i)
{
	(void)i;
	return xorshift() % 20000;
}

static uint64_t
gen_cyclic(size_t i)
{
	return i % 5000;
}

/* Hot/cold across the cap: first 2^18 + 5000 distinct blocks, then 90%
 * accesses to 64 hot blocks and 10% to any block seen so far. */
#define HC_FILL	(LRU_STACK_CAP + 5000)
static uint64_t
gen_hotcold(size_t i)
{
	if (i < HC_FILL)
		return i;
	if (xorshift() % 10)
		return HC_FILL + xorshift() % 64;
	return xorshift() % HC_FILL;
}

/* Read blocks 0..d then block 0 again: the bucket of the last read. */
static int
bucket_after(uint64_t d)
{
	struct lru_stack *s = lru_stack_new();
	int k = 0;

	for (uint64_t b = 0; b <= d; b++)
		lru_stack_access(s, b);
	k = lru_stack_access(s, 0);
	lru_stack_free(s);
	return k;
}

/* A cyclic walk over m blocks, twice: m cold, then m at distance m - 1. */
static void
test_cyclic(uint64_t m, int want_bucket)
{
	struct lru_stack *s = lru_stack_new();
	struct hist got = { { 0 } };

	for (int pass = 0; pass < 3; pass++)
		for (uint64_t b = 0; b < m; b++)
			count(&got, lru_stack_access(s, b * 7 + 3));
	is_u64(got.h[0], m, "cyclic over %llu blocks: %llu cold", (unsigned long long)m,
	       (unsigned long long)m);
	is_u64(got.h[1 + want_bucket], 2 * m, "cyclic over %llu blocks: distance %llu in bucket %d",
	       (unsigned long long)m, (unsigned long long)(m - 1), want_bucket);
	lru_stack_free(s);
}

int
main(void)
{
	static const struct {
		uint64_t d;
		int bucket;
	} table[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 1 }, { 4, 2 }, { 7, 2 }, { 8, 3 }, { 15, 3 },
		{ 16, 4 }, { (1 << 17) - 1, 16 }, { 1 << 17, 17 }, { (1 << 18) - 1, 17 },
		{ 1 << 18, 18 }, { (1 << 18) + 1, 18 }, { 300000, 18 },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		is_u64(bucket_after(table[i].d), table[i].bucket, "MSD-4: distance %llu -> bucket %d",
		       (unsigned long long)table[i].d, table[i].bucket);

	test_stream("random over 1000 blocks", 1000, 200000, gen_random);
	test_stream("random over 20000 blocks", 20000, 60000, gen_random_wide);
	test_stream("cyclic over 5000 blocks", 5000, 30000, gen_cyclic);
	test_stream("hot/cold across the 2^18 cap", HC_FILL + 64, HC_FILL + 30000, gen_hotcold);

	test_cyclic((1 << 18) - 1, 17);	/* distance 2^18 - 2 */
	test_cyclic(1 << 18, 17);	/* distance 2^18 - 1 */
	test_cyclic((1 << 18) + 1, 18);	/* distance 2^18 */
	test_cyclic((1 << 18) + 2, 18);	/* distance 2^18 + 1 */
	test_cyclic(1000000, 18);	/* far beyond the cap, with evictions */
	return done_testing();
}
