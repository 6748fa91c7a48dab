/*
 * The capped Fenwick-tree LRU stack (lru_stack.h).
 *
 * Slots are handed out in access order (cur = next slot); a block's slot
 * is live until the block is accessed again or evicted.  The distance of a
 * re-access is the number of live slots newer than the block's slot.  When
 * the slots run out the live ones are compacted to the front, and the slot
 * arrays double while more than a quarter of them is live, from 2^12 up to
 * 4 * 2^18: small footprints pay for a small tree.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lru_stack.h"
#include "u64map.h"

#define W_MIN	(1u << 12)
#define W_MAX	(4 * LRU_STACK_CAP)

struct lru_stack {
	uint32_t w;		/* slots */
	uint32_t cur;		/* next slot */
	uint32_t low;		/* no live slot below */
	uint32_t nlive;
	uint32_t *fen;		/* Fenwick tree, 1-based, w + 1 entries */
	uint8_t *live;
	uint64_t *blk;
	struct u64map slot;	/* block -> slot */
	struct u64map seen;	/* block >> 6 -> bit mask */
	uint64_t prev;
	int has_prev;
};

static int
alloc_slots(struct lru_stack *s, uint32_t w)
{
	uint32_t *fen = realloc(s->fen, ((size_t)w + 1) * sizeof(*fen));

	if (fen)
		s->fen = fen;
	uint8_t *live = realloc(s->live, w);

	if (live)
		s->live = live;
	uint64_t *blk = realloc(s->blk, (size_t)w * sizeof(*blk));

	if (blk)
		s->blk = blk;
	if (!fen || !live || !blk)
		return -1;
	s->w = w;
	return 0;
}

struct lru_stack *
lru_stack_new(void)
{
	struct lru_stack *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (alloc_slots(s, W_MIN) < 0 || u64map_init(&s->slot, 12) < 0 ||
	    u64map_init(&s->seen, 10) < 0) {
		lru_stack_free(s);
		return NULL;
	}
	memset(s->fen, 0, ((size_t)s->w + 1) * sizeof(*s->fen));
	memset(s->live, 0, s->w);
	return s;
}

void
lru_stack_free(struct lru_stack *s)
{
	if (!s)
		return;
	free(s->fen);
	free(s->live);
	free(s->blk);
	u64map_free(&s->slot);
	u64map_free(&s->seen);
	free(s);
}

uint64_t
lru_stack_bytes(const struct lru_stack *s)
{
	return (uint64_t)s->w * (sizeof(*s->fen) + 1 + sizeof(*s->blk)) +
		(s->slot.mask + 1 + s->seen.mask + 1) * sizeof(struct u64map_slot);
}

static inline void
fen_add(uint32_t *f, uint32_t w, uint32_t i, int32_t v)
{
	for (i++; i <= w; i += i & -i)
		f[i] += (uint32_t)v;
}

static inline uint32_t
fen_prefix(const uint32_t *f, uint32_t i)
{
	uint32_t sum = 0;

	for (i++; i; i -= i & -i)
		sum += f[i];
	return sum;
}

/* Move the live slots to 0..nlive-1 (growing the arrays if they are more
 * than a quarter full) and rebuild the tree in O(w). */
static int
compact(struct lru_stack *s)
{
	uint32_t n = 0;

	for (uint32_t i = s->low; i < s->cur; i++) {
		if (!s->live[i])
			continue;
		if (n != i) {
			s->blk[n] = s->blk[i];
			*u64map_find(&s->slot, s->blk[n]) = n;
		}
		n++;
	}
	if (n > s->w / 4 && s->w < W_MAX && alloc_slots(s, s->w * 2) < 0)
		return -1;
	memset(s->live, 0, s->w);
	memset(s->live, 1, n);
	memset(s->fen, 0, ((size_t)s->w + 1) * sizeof(*s->fen));
	for (uint32_t i = 1; i <= n; i++)
		s->fen[i] = 1;
	for (uint32_t i = 1; i <= s->w; i++) {
		uint32_t j = i + (i & -i);

		if (j <= s->w)
			s->fen[j] += s->fen[i];
	}
	s->cur = n;
	s->low = 0;
	return 0;
}

int
lru_stack_access(struct lru_stack *s, uint64_t b)
{
	int bucket;
	uint64_t *slot;

	if (s->has_prev && b == s->prev)
		return 0;
	slot = u64map_find(&s->slot, b);
	if (slot) {
		uint32_t t = (uint32_t)*slot;

		bucket = lru_stack_bucket(s->nlive - fen_prefix(s->fen, t));
		fen_add(s->fen, s->w, t, -1);
		s->live[t] = 0;
		s->nlive--;
	} else {
		bool created;
		uint64_t *mask = u64map_insert(&s->seen, b >> 6, &created);

		if (!mask)
			return LRU_STACK_NOMEM;
		if (*mask & (1ull << (b & 63))) {
			bucket = LRU_STACK_BUCKETS - 1;
		} else {
			*mask |= 1ull << (b & 63);
			bucket = LRU_STACK_COLD;
		}
		slot = u64map_insert(&s->slot, b, &created);
		if (!slot)
			return LRU_STACK_NOMEM;
	}
	if (s->cur == s->w) {
		if (compact(s) < 0)
			return LRU_STACK_NOMEM;
		slot = u64map_find(&s->slot, b);
	}
	uint32_t t = s->cur++;

	fen_add(s->fen, s->w, t, 1);
	s->live[t] = 1;
	s->blk[t] = b;
	*slot = t;
	s->nlive++;
	if (s->nlive > LRU_STACK_CAP) {
		while (!s->live[s->low])
			s->low++;
		fen_add(s->fen, s->w, s->low, -1);
		s->live[s->low] = 0;
		u64map_remove(&s->slot, s->blk[s->low]);
		s->nlive--;
	}
	s->prev = b;
	s->has_prev = 1;
	return bucket;
}
