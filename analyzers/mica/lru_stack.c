/*
 * The capped Fenwick-tree LRU stack (lru_stack.h).
 *
 * Slots are handed out in access order (cur = next slot); a block's slot
 * is live until the block is accessed again or evicted.  The distance of a
 * re-access is the number of live slots newer than the block's slot.  When
 * the slots run out the live ones are compacted to the front, and the slot
 * arrays double while more than a quarter of them is live, from 2^12 up to
 * 4 * 2^18: small footprints pay for a small tree.
 *
 * Live flags are bits, 64 slots to a word; the Fenwick tree counts live
 * slots per word, so it is 64 times smaller (6 levels at 2^12 slots, 14 at
 * 2^20) and a prefix count is the tree's prefix over the words below plus
 * a popcount within the word.
 *
 * The newest words (at most RECENT + 1, from word fw up to the one cur is
 * in) are not in the tree yet: a word enters it, with its count, when cur
 * has moved RECENT words past it.  So a new slot costs no tree update, and
 * a block re-touched within the last few hundred slots is counted with a
 * few popcounts and no tree walk at all.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mica/lru_stack.h"
#include "u64map.h"

#define W_MIN	(1u << 12)
#define W_MAX	(4 * LRU_STACK_CAP)
#define RECENT	8	/* words */

struct lru_stack {
	uint32_t w;		/* slots (a multiple of 64) */
	uint32_t cur;		/* next slot */
	uint32_t low;		/* no live slot below */
	uint32_t nlive;
	uint32_t fw;		/* words below fw are in the tree ... */
	uint32_t nold;		/* ... holding nold live slots (nlive - nold: words >= fw) */
	uint32_t *fen;		/* Fenwick tree over the words of live, 1-based, w/64 + 1 entries */
	uint64_t *live;		/* w/64 words, bit i%64 of word i/64 = slot i */
	uint64_t *blk;
	struct u64map slot;	/* block -> slot */
	struct u64map seen;	/* block >> 6 -> bit mask */
	uint64_t prev;
	int has_prev;
	bool marked;		/* sample mode: a burst began at slot mark */
	uint32_t mark;
};

static int
alloc_slots(struct lru_stack *s, uint32_t w)
{
	uint32_t *fen = realloc(s->fen, ((size_t)w / 64 + 1) * sizeof(*fen));

	if (fen)
		s->fen = fen;
	uint64_t *live = realloc(s->live, (size_t)w / 64 * sizeof(*live));

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
	memset(s->fen, 0, ((size_t)s->w / 64 + 1) * sizeof(*s->fen));
	memset(s->live, 0, (size_t)s->w / 64 * sizeof(*s->live));
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
	return (uint64_t)s->w / 64 * (sizeof(*s->fen) + sizeof(*s->live)) +
		(uint64_t)s->w * sizeof(*s->blk) +
		(s->slot.mask + 1 + s->seen.mask + 1) * sizeof(struct u64map_slot);
}

static inline void
fen_add(uint32_t *f, uint32_t n, uint32_t i, int32_t v)
{
	for (i++; i <= n; i += i & -i)
		f[i] += (uint32_t)v;
}

/* Live slots in words 0..i-1. */
static inline uint32_t
fen_prefix(const uint32_t *f, uint32_t i)
{
	uint32_t sum = 0;

	for (; i; i -= i & -i)
		sum += f[i];
	return sum;
}

/* Without -mpopcnt __builtin_popcountll is a libgcc call. */
static inline uint32_t
popcount64(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

/* Clear live slot t. */
static inline void
clear_live(struct lru_stack *s, uint32_t t)
{
	s->live[t / 64] &= ~(1ull << (t % 64));
	if (t / 64 < s->fw) {
		fen_add(s->fen, s->w / 64, t / 64, -1);
		s->nold--;
	}
	s->nlive--;
}

/* Words leave the recent ones for the tree while cur is more than RECENT
 * words past them. */
static inline void
age_words(struct lru_stack *s)
{
	while (s->cur / 64 > s->fw + RECENT) {
		uint32_t c = popcount64(s->live[s->fw]);

		if (c)
			fen_add(s->fen, s->w / 64, s->fw, (int32_t)c);
		s->nold += c;
		s->fw++;
	}
}

/* Live slots newer than live slot t. */
static inline uint32_t
newer(const struct lru_stack *s, uint32_t t)
{
	uint32_t tw = t / 64, d = popcount64(s->live[tw] >> (t % 64) >> 1);

	if (tw >= s->fw) {
		for (uint32_t u = tw + 1; u <= (s->cur - 1) / 64; u++)
			d += popcount64(s->live[u]);
		return d;
	}
	/* the tree's words above tw, then every recent word */
	return d + s->nold - fen_prefix(s->fen, tw + 1) + (s->nlive - s->nold);
}

/* Move the live slots to 0..nlive-1 (growing the arrays if they are more
 * than a quarter full) and rebuild the tree in O(w / 64). */
static int
compact(struct lru_stack *s)
{
	uint32_t n = 0, words, mark = UINT32_MAX;

	for (uint32_t wi = s->low / 64; wi < (s->cur + 63) / 64; wi++) {
		for (uint64_t m = s->live[wi]; m; m &= m - 1) {
			uint32_t i = wi * 64 + (uint32_t)__builtin_ctzll(m);

			/* The order is kept: the mark moves to the first
			 * live slot at or above it. */
			if (mark == UINT32_MAX && i >= s->mark)
				mark = n;
			if (n != i) {
				s->blk[n] = s->blk[i];
				*u64map_find(&s->slot, s->blk[n]) = n;
			}
			n++;
		}
	}
	if (n > s->w / 4 && s->w < W_MAX && alloc_slots(s, s->w * 2) < 0)
		return -1;
	words = s->w / 64;
	memset(s->live, 0, (size_t)words * sizeof(*s->live));
	memset(s->fen, 0, ((size_t)words + 1) * sizeof(*s->fen));
	for (uint32_t i = 0; i < n / 64; i++)
		s->live[i] = ~0ull;
	if (n % 64)
		s->live[n / 64] = ~0ull >> (64 - n % 64);
	/* the tree holds the words more than RECENT below the last one */
	s->fw = n / 64 > RECENT ? n / 64 - RECENT : 0;
	s->nold = s->fw * 64;
	for (uint32_t i = 0; i < s->fw; i++)
		s->fen[i + 1] = 64;
	for (uint32_t i = 1; i <= words; i++) {
		uint32_t j = i + (i & -i);

		if (j <= words)
			s->fen[j] += s->fen[i];
	}
	s->cur = n;
	s->low = 0;
	s->mark = mark == UINT32_MAX ? n : mark;
	return 0;
}

/* Live slots below slot t. */
static uint32_t
live_below(const struct lru_stack *s, uint32_t t)
{
	uint32_t tw = t / 64, d;

	if (t >= s->cur)
		return s->nlive;
	d = popcount64(s->live[tw] & ((1ull << (t % 64)) - 1));
	if (tw < s->fw)
		return fen_prefix(s->fen, tw) + d;
	d += s->nold;
	for (uint32_t u = s->fw; u < tw; u++)
		d += popcount64(s->live[u]);
	return d;
}

void
lru_stack_mark(struct lru_stack *s)
{
	s->marked = true;
	s->mark = s->cur;
	/* the repeat shortcut would hide a censored re-access */
	s->has_prev = 0;
}

uint32_t
lru_stack_distinct_since_mark(const struct lru_stack *s)
{
	return s->marked ? s->nlive - live_below(s, s->mark) : 0;
}

void
lru_stack_prefetch(const struct lru_stack *s, uint64_t b)
{
	__builtin_prefetch(&s->slot.slots[u64map_hash(&s->slot, b)]);
}

int
lru_stack_access(struct lru_stack *s, uint64_t b)
{
	int bucket;
	bool created;
	uint64_t *slot;

	if (s->has_prev && b == s->prev)
		return 0;
	slot = u64map_find(&s->slot, b);	/* inline: the common case */
	created = !slot;
	if (created && !(slot = u64map_insert(&s->slot, b, &created)))
		return LRU_STACK_NOMEM;
	if (!created) {
		uint32_t t = (uint32_t)*slot;

		bucket = s->marked && t < s->mark ? LRU_STACK_CENSORED
						  : lru_stack_bucket(newer(s, t));
		clear_live(s, t);
	} else {
		bool c;
		uint64_t *mask = u64map_insert(&s->seen, b >> 6, &c);

		if (!mask) {
			u64map_remove(&s->slot, b);
			return LRU_STACK_NOMEM;
		}
		if (*mask & (1ull << (b & 63))) {
			/* pushed out of the window: 2^18 newer blocks */
			bucket = s->marked && lru_stack_distinct_since_mark(s) < LRU_STACK_CAP
				 ? LRU_STACK_CENSORED : LRU_STACK_BUCKETS - 1;
		} else {
			*mask |= 1ull << (b & 63);
			bucket = LRU_STACK_COLD;
		}
	}
	if (s->cur == s->w) {
		if (compact(s) < 0) {
			/* Undo nothing: the block is simply forgotten. */
			u64map_remove(&s->slot, b);
			return LRU_STACK_NOMEM;
		}
		slot = u64map_find(&s->slot, b);
	}
	uint32_t t = s->cur++;

	s->live[t / 64] |= 1ull << (t % 64);	/* a recent word */
	s->blk[t] = b;
	*slot = t;
	s->nlive++;
	age_words(s);
	if (s->nlive > LRU_STACK_CAP) {
		uint32_t wi = s->low / 64;
		uint64_t m = s->live[wi] & (~0ull << (s->low % 64));

		while (!m)
			m = s->live[++wi];
		s->low = wi * 64 + (uint32_t)__builtin_ctzll(m);
		clear_live(s, s->low);
		u64map_remove(&s->slot, s->blk[s->low]);
	}
	s->prev = b;
	s->has_prev = 1;
	return bucket;
}
