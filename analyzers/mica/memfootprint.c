/*
 * memfootprint: distinct data and instruction blocks and pages touched
 * (spec mica.md §3.6).  Interval lines are per-interval footprints: the
 * sets are cleared at each boundary (Q13).
 *
 * When a page holds at most 64 blocks (page_size - block_size in 0..6,
 * the defaults give 6), blocks and pages share one map: page -> bit mask of
 * its blocks touched, so one lookup serves both counts (pages = keys,
 * blocks = bits set), with a small direct-mapped cache of recent pages in
 * front of it (the masks live in a dense array, so that the cache can
 * hold their index).  Otherwise each is a set of its own.  The data side
 * of a batch is taken from its lists of reads and writes (sets: the order
 * does not matter), the instruction side once per static instruction and
 * interval.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica/mica.h"
#include "mica/sid_table.h"
#include "u64map.h"

enum { DATA_BLOCKS, DATA_PAGES, INSN_BLOCKS, INSN_PAGES, N_SETS };

struct footprint_set {
	struct u64map map;
	uint64_t last;		/* the last member added: a cheap repeat filter */
	bool has_last;
};

/* The shared page -> block mask map of data or instructions. */
#define RECENT	256	/* direct-mapped cache entries (a power of two) */

struct footprint_pages {
	struct u64map map;	/* page -> index in mask */
	uint64_t *mask;		/* bit b: block b of the page touched */
	size_t n_mask, cap_mask;
	uint64_t blocks;	/* bits set */
	/* recent[page % RECENT]: page -> index; an entry whose page is not
	 * of its slot (as after recent_clear()) is empty */
	struct { uint64_t page; size_t idx; } recent[RECENT];
};

struct memfootprint {
	unsigned block_shift, page_shift;
	bool shared;		/* footprint_pages are used, set[] is not */
	unsigned sub_shift;	/* page_shift - block_shift */
	struct footprint_set set[N_SETS];
	struct footprint_pages pages[2];	/* data, instructions */
	bool failed;
	uint64_t epoch;		/* intervals closed */
	uint64_t *seen;		/* [sid]: the last epoch its bytes were added */
	size_t n_seen;
};

static void
memfootprint_destroy(void *p)
{
	struct memfootprint *m = p;

	if (!m)
		return;
	for (int i = 0; i < N_SETS; i++)
		u64map_free(&m->set[i].map);
	for (int i = 0; i < 2; i++) {
		u64map_free(&m->pages[i].map);
		free(m->pages[i].mask);
	}
	free(m->seen);
	free(m);
}

static void
recent_clear(struct footprint_pages *p)
{
	for (size_t i = 0; i < RECENT; i++)
		p->recent[i].page = i + 1;
}

static void *
memfootprint_create(const struct mica_config *cfg, char *err, size_t errsz)
{
	struct memfootprint *m = calloc(1, sizeof(*m));
	int i;

	if (!m)
		goto oom;
	m->block_shift = cfg->block_size;
	m->page_shift = cfg->page_size;
	m->shared = m->page_shift >= m->block_shift && m->page_shift - m->block_shift <= 6;
	m->sub_shift = m->shared ? m->page_shift - m->block_shift : 0;
	for (i = 0; i < N_SETS; i++)
		if (u64map_init(&m->set[i].map, m->shared ? 4 : 10) < 0)
			goto oom;
	for (i = 0; i < 2; i++) {
		if (u64map_init(&m->pages[i].map, m->shared ? 10 : 4) < 0)
			goto oom;
		recent_clear(&m->pages[i]);
	}
	return m;
oom:
	memfootprint_destroy(m);
	if (errsz)
		strncpy(err, "memfootprint: out of memory", errsz - 1), err[errsz - 1] = '\0';
	return NULL;
}

static void
add_range(struct memfootprint *m, struct footprint_set *s, unsigned shift, uint64_t addr,
	  uint64_t size)
{
	uint64_t first = addr >> shift, last = (addr + size - 1) >> shift;

	if (last < first)	/* wrapped past the top of the address space */
		last = UINT64_MAX >> shift;
	for (uint64_t x = first;; x++) {
		if (!s->has_last || s->last != x) {
			bool created;

			if (!u64map_find(&s->map, x) && !u64map_insert(&s->map, x, &created))
				m->failed = true;
			s->last = x;
			s->has_last = true;
		}
		if (x == last)
			break;
	}
}

/* The mask of a page not in the cache (added if new); NULL if out of
 * memory. */
static __attribute__((noinline)) uint64_t *
page_mask_slow(struct footprint_pages *p, uint64_t page)
{
	bool created;
	uint64_t *idx = u64map_find(&p->map, page);

	if (!idx) {
		if (p->n_mask == p->cap_mask) {
			size_t cap = p->cap_mask ? 2 * p->cap_mask : 1024;
			uint64_t *n = realloc(p->mask, cap * sizeof(*n));

			if (!n)
				return NULL;
			p->mask = n;
			p->cap_mask = cap;
		}
		if (!(idx = u64map_insert(&p->map, page, &created)))
			return NULL;
		*idx = p->n_mask;
		p->mask[p->n_mask++] = 0;
	}
	p->recent[page % RECENT].page = page;
	p->recent[page % RECENT].idx = *idx;
	return &p->mask[*idx];
}

static inline __attribute__((always_inline)) void
add_blocks(struct memfootprint *m, struct footprint_pages *p, uint64_t addr, uint64_t size)
{
	uint64_t first = addr >> m->block_shift, last = (addr + size - 1) >> m->block_shift;
	unsigned sub = m->sub_shift;
	uint64_t sub_mask = ((uint64_t)1 << sub) - 1;

	if (addr + size - 1 < addr)	/* wrapped past the top of the address space */
		last = UINT64_MAX >> m->block_shift;
	for (uint64_t b = first;; b++) {
		uint64_t page = b >> sub, bit = (uint64_t)1 << (b & sub_mask);
		uint64_t *mask;

		if (p->recent[page % RECENT].page == page) {
			mask = &p->mask[p->recent[page % RECENT].idx];
		} else if (!(mask = page_mask_slow(p, page))) {
			m->failed = true;
			return;
		}
		p->blocks += !(*mask & bit);
		*mask |= bit;
		if (b == last)
			break;
	}
}

static void
add_access(struct memfootprint *m, int blocks, uint64_t addr, uint64_t size)
{
	if (!size)
		return;
	if (m->shared) {
		add_blocks(m, &m->pages[blocks / 2], addr, size);
		return;
	}
	add_range(m, &m->set[blocks], m->block_shift, addr, size);
	add_range(m, &m->set[blocks + 1], m->page_shift, addr, size);
}

static int
memfootprint_run(void *p, const struct mica_batch *b)
{
	struct memfootprint *m = p;

	if (b->n_statics > m->n_seen) {
		uint64_t *t = mica_sid_table_grow(m->seen, &m->n_seen, b->n_statics,
						  sizeof(*t), 0xff);

		if (!t)
			return -1;
		m->seen = t;
	}
	/* Sets: the order of the accesses does not matter. */
	if (m->shared) {
		struct footprint_pages *data = &m->pages[0];

		for (unsigned i = 0; i < b->n_reads; i++)
			if (b->reads[i].size)
				add_blocks(m, data, b->reads[i].addr, b->reads[i].size);
		for (unsigned i = 0; i < b->n_writes; i++)
			if (b->writes[i].size)
				add_blocks(m, data, b->writes[i].addr, b->writes[i].size);
	} else {
		for (unsigned i = 0; i < b->n_reads; i++)
			add_access(m, DATA_BLOCKS, b->reads[i].addr, b->reads[i].size);
		for (unsigned i = 0; i < b->n_writes; i++)
			add_access(m, DATA_BLOCKS, b->writes[i].addr, b->writes[i].size);
	}
	for (unsigned i = 0; i < b->n; i++) {
		const struct mica_de *d = &b->de[i];

		/* An instruction's own blocks and pages are the same at every
		 * DE: add them at its first DE of the interval only. */
		if (m->seen[d->sid] != m->epoch) {
			const struct mica_static *st = &b->statics[d->sid];

			add_access(m, INSN_BLOCKS, st->pc, st->info->len);
			m->seen[d->sid] = m->epoch;
		}
	}
	return m->failed ? -1 : 0;
}

/* The slots to keep at a boundary: room for as many keys as this interval
 * had (so a short interval clears a small table), at most 2^16. */
static unsigned
clear_keep(const struct u64map *m)
{
	unsigned log2 = 10;

	while (log2 < 16 && ((size_t)1 << log2) < 4 * m->count)
		log2++;
	return log2;
}

static void
memfootprint_close(void *p, struct mica_interval *out)
{
	struct memfootprint *m = p;

	if (m->shared) {
		out->memfootprint.data_blocks = m->pages[0].blocks;
		out->memfootprint.data_pages = m->pages[0].n_mask;
		out->memfootprint.insn_blocks = m->pages[1].blocks;
		out->memfootprint.insn_pages = m->pages[1].n_mask;
	} else {
		out->memfootprint.data_blocks = m->set[DATA_BLOCKS].map.count;
		out->memfootprint.data_pages = m->set[DATA_PAGES].map.count;
		out->memfootprint.insn_blocks = m->set[INSN_BLOCKS].map.count;
		out->memfootprint.insn_pages = m->set[INSN_PAGES].map.count;
	}
	for (int i = 0; i < N_SETS; i++) {
		u64map_clear(&m->set[i].map, clear_keep(&m->set[i].map));
		m->set[i].has_last = false;
	}
	m->epoch++;
	for (int i = 0; i < 2; i++) {
		struct footprint_pages *fp = &m->pages[i];

		/* keep room for as many pages as this interval had */
		if (fp->cap_mask > 1024 && fp->cap_mask > 4 * fp->n_mask) {
			size_t cap = 1024;

			while (cap < 2 * fp->n_mask)
				cap *= 2;
			uint64_t *n = realloc(fp->mask, cap * sizeof(*n));

			if (n) {	/* else keep the larger one */
				fp->mask = n;
				fp->cap_mask = cap;
			}
		}
		u64map_clear(&fp->map, clear_keep(&fp->map));
		fp->blocks = 0;
		fp->n_mask = 0;
		recent_clear(fp);
	}
}

const struct mica_analyzer_ops mica_memfootprint_ops = {
	.id = MICA_MEMFOOTPRINT,
	.create = memfootprint_create,
	.run = memfootprint_run,
	.close = memfootprint_close,
	.destroy = memfootprint_destroy,
	/* Sample mode: what every burst of the interval touched, warm-ups
	 * included, a lower bound of the interval's footprint (a set: units'
	 * footprints do not add up). */
	.per_interval = true,
};
