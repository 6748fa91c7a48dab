/*
 * Decode cache: an open-addressing hash from instruction address to an
 * insn_info stored in an arena that is only freed with the cache (events in
 * flight keep pointing at their records).  A second small hash counts the
 * cached instructions per 4 KiB page, so a memory write can be checked
 * against cached code in O(1).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode_cache.h"
#include "decoder.h"

#define ARENA_CHUNK 4096	/* records per arena chunk */
#define PAGE_SHIFT 12

struct arena_chunk {
	struct arena_chunk *next;
	size_t used;
	struct insn_info recs[ARENA_CHUNK];
};

struct slot {
	uint64_t key;		/* pc + 1 (0 = empty) */
	struct insn_info *val;
};

struct page_slot {
	uint64_t key;		/* page number + 1 (0 = empty) */
	uint64_t count;		/* cached instructions starting or ending on the page */
};

struct decode_cache {
	struct slot *slots;
	size_t cap, used;	/* cap is a power of two */
	struct page_slot *pages;
	size_t pcap, pused;
	struct arena_chunk *arena;
	struct decode_cache_stats st;
};

static inline uint64_t
hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static void *
zalloc(size_t n, size_t size)
{
	return calloc(n, size);
}

struct decode_cache *
decode_cache_new(void)
{
	struct decode_cache *dc = zalloc(1, sizeof(*dc));

	if (!dc)
		return NULL;
	dc->cap = 1024;
	dc->pcap = 64;
	dc->slots = zalloc(dc->cap, sizeof(*dc->slots));
	dc->pages = zalloc(dc->pcap, sizeof(*dc->pages));
	if (!dc->slots || !dc->pages) {
		decode_cache_free(dc);
		return NULL;
	}
	return dc;
}

void
decode_cache_free(struct decode_cache *dc)
{
	if (!dc)
		return;
	while (dc->arena) {
		struct arena_chunk *next = dc->arena->next;

		free(dc->arena);
		dc->arena = next;
	}
	free(dc->slots);
	free(dc->pages);
	free(dc);
}

static struct slot *
find_slot(struct slot *slots, size_t cap, uint64_t pc)
{
	size_t i = hash64(pc) & (cap - 1);

	while (slots[i].key && slots[i].key != pc + 1)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

const struct insn_info *
decode_cache_lookup(struct decode_cache *dc, uint64_t pc)
{
	struct slot *s = find_slot(dc->slots, dc->cap, pc);

	if (!s->key)
		return NULL;
	dc->st.hits++;
	return s->val;
}

static struct page_slot *
find_page(struct page_slot *pages, size_t cap, uint64_t page)
{
	size_t i = hash64(page) & (cap - 1);

	while (pages[i].key && pages[i].key != page + 1)
		i = (i + 1) & (cap - 1);
	return &pages[i];
}

static int
grow_pages(struct decode_cache *dc)
{
	size_t ncap = dc->pcap * 2;
	struct page_slot *np = zalloc(ncap, sizeof(*np));

	if (!np)
		return -ENOMEM;
	for (size_t i = 0; i < dc->pcap; i++)
		if (dc->pages[i].key)
			*find_page(np, ncap, dc->pages[i].key - 1) = dc->pages[i];
	free(dc->pages);
	dc->pages = np;
	dc->pcap = ncap;
	return 0;
}

/* Pages are only ever counted up: a page that once held cached code stays
 * "interesting" (a write there costs a hash probe in invalidate, nothing
 * more), which keeps deletion out of this table. */
static void
note_pages(struct decode_cache *dc, uint64_t pc, unsigned len)
{
	uint64_t first = pc >> PAGE_SHIFT, last = (pc + (len ? len : 1) - 1) >> PAGE_SHIFT;

	for (uint64_t p = first; p <= last; p++) {
		struct page_slot *ps;

		if ((dc->pused + 1) * 2 > dc->pcap && grow_pages(dc) < 0)
			return;
		ps = find_page(dc->pages, dc->pcap, p);
		if (!ps->key) {
			ps->key = p + 1;
			dc->pused++;
		}
		ps->count++;
	}
}

static int
grow_slots(struct decode_cache *dc)
{
	size_t ncap = dc->cap * 2;
	struct slot *ns = zalloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < dc->cap; i++)
		if (dc->slots[i].key)
			*find_slot(ns, ncap, dc->slots[i].key - 1) = dc->slots[i];
	free(dc->slots);
	dc->slots = ns;
	dc->cap = ncap;
	return 0;
}

static struct insn_info *
arena_alloc(struct decode_cache *dc)
{
	if (!dc->arena || dc->arena->used == ARENA_CHUNK) {
		struct arena_chunk *c = malloc(sizeof(*c));

		if (!c)
			return NULL;
		c->next = dc->arena;
		c->used = 0;
		dc->arena = c;
	}
	return &dc->arena->recs[dc->arena->used++];
}

const struct insn_info *
decode_cache_insert(struct decode_cache *dc, uint64_t pc, const uint8_t *bytes, size_t n)
{
	struct insn_info *ii;
	struct slot *s;

	if ((dc->used + 1) * 2 > dc->cap && grow_slots(dc) < 0)
		return NULL;
	s = find_slot(dc->slots, dc->cap, pc);
	if (s->key)
		return s->val;
	ii = arena_alloc(dc);
	if (!ii)
		return NULL;
	insn_decode(bytes, n, pc, ii);
	s->key = pc + 1;
	s->val = ii;
	dc->used++;
	dc->st.decodes++;
	note_pages(dc, pc, ii->len);
	return ii;
}

void
decode_cache_flush(struct decode_cache *dc)
{
	dc->st.invalidations += dc->used;
	memset(dc->slots, 0, dc->cap * sizeof(*dc->slots));
	memset(dc->pages, 0, dc->pcap * sizeof(*dc->pages));
	dc->used = 0;
	dc->pused = 0;
}

/* Remove one slot and re-insert the rest of its probe run (backward-shift
 * deletion without tombstones). */
static void
delete_slot(struct decode_cache *dc, size_t i)
{
	size_t j = i;

	dc->slots[i].key = 0;
	dc->used--;
	for (;;) {
		struct slot moved;

		j = (j + 1) & (dc->cap - 1);
		if (!dc->slots[j].key)
			return;
		moved = dc->slots[j];
		dc->slots[j].key = 0;
		*find_slot(dc->slots, dc->cap, moved.key - 1) = moved;
	}
}

void
decode_cache_invalidate(struct decode_cache *dc, uint64_t addr, uint64_t size)
{
	uint64_t lo, hi;

	if (size == 0 || !decode_cache_overlaps(dc, addr, size))
		return;
	/* An instruction starting up to 14 bytes before addr can overlap. */
	lo = addr >= INSN_MAX_BYTES - 1 ? addr - (INSN_MAX_BYTES - 1) : 0;
	hi = addr + size;
	if (hi - lo > dc->cap) {
		/* A big range: walk the table instead of probing each address. */
		for (size_t i = 0; i < dc->cap; i++) {
			struct insn_info *ii = dc->slots[i].val;

			if (dc->slots[i].key && ii->pc < hi && ii->pc + ii->len > addr) {
				delete_slot(dc, i);
				dc->st.invalidations++;
				i--;	/* the shift may have moved an entry here */
			}
		}
		return;
	}
	for (uint64_t pc = lo; pc < hi; pc++) {
		struct slot *s = find_slot(dc->slots, dc->cap, pc);

		if (s->key && s->val->pc + s->val->len > addr) {
			delete_slot(dc, (size_t)(s - dc->slots));
			dc->st.invalidations++;
		}
	}
}

bool
decode_cache_overlaps(const struct decode_cache *dc, uint64_t addr, uint64_t size)
{
	uint64_t first, last;

	if (size == 0)
		return false;
	first = addr >> PAGE_SHIFT;
	last = (addr + size - 1) >> PAGE_SHIFT;
	for (uint64_t p = first; p <= last; p++) {
		if (find_page(dc->pages, dc->pcap, p)->key)
			return true;
		if (p - first > 1024)	/* a huge range: assume yes */
			return true;
	}
	return false;
}

void
decode_cache_get_stats(const struct decode_cache *dc, struct decode_cache_stats *st)
{
	*st = dc->st;
	st->entries = dc->used;
}
