/*
 * memfootprint: distinct data and instruction blocks and pages touched
 * (spec mica.md §3.6).  Interval lines are per-interval footprints: the
 * sets are cleared at each boundary (Q13).
 *
 * When a page holds at most 64 blocks (page_size - block_size in 0..6,
 * the defaults give 6), blocks and pages share one map: page -> bit mask of
 * its blocks touched, so one lookup serves both counts (pages = keys,
 * blocks = bits set).  Otherwise each is a set of its own.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica.h"
#include "u64map.h"

enum { DATA_BLOCKS, DATA_PAGES, INSN_BLOCKS, INSN_PAGES, N_SETS };

struct footprint_set {
	struct u64map map;
	uint64_t last;		/* the last member added: a cheap repeat filter */
	bool has_last;
};

/* The shared page -> block mask map of data or instructions. */
struct footprint_pages {
	struct u64map map;
	uint64_t blocks;	/* bits set */
	uint64_t last_page;	/* the last page looked up ... */
	uint64_t *last_mask;	/* ... and its mask (NULL: none) */
};

struct memfootprint {
	unsigned block_shift, page_shift;
	bool shared;		/* footprint_pages are used, set[] is not */
	unsigned sub_shift;	/* page_shift - block_shift */
	struct footprint_set set[N_SETS];
	struct footprint_pages pages[2];	/* data, instructions */
	bool failed;
	uint64_t epoch;		/* intervals closed */
};

static void
memfootprint_destroy(void *p)
{
	struct memfootprint *m = p;

	if (!m)
		return;
	for (int i = 0; i < N_SETS; i++)
		u64map_free(&m->set[i].map);
	for (int i = 0; i < 2; i++)
		u64map_free(&m->pages[i].map);
	free(m);
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
	for (i = 0; i < 2; i++)
		if (u64map_init(&m->pages[i].map, m->shared ? 10 : 4) < 0)
			goto oom;
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

static inline void
add_blocks(struct memfootprint *m, struct footprint_pages *p, uint64_t addr, uint64_t size)
{
	uint64_t first = addr >> m->block_shift, last = (addr + size - 1) >> m->block_shift;
	unsigned sub = m->sub_shift;
	uint64_t sub_mask = ((uint64_t)1 << sub) - 1;

	if (addr + size - 1 < addr)	/* wrapped past the top of the address space */
		last = UINT64_MAX >> m->block_shift;
	for (uint64_t b = first;; b++) {
		uint64_t page = b >> sub, bit = (uint64_t)1 << (b & sub_mask);

		if (!p->last_mask || p->last_page != page) {
			bool created;
			uint64_t *mask = u64map_find(&p->map, page);

			if (!mask && !(mask = u64map_insert(&p->map, page, &created))) {
				m->failed = true;
				p->last_mask = NULL;
				return;
			}
			/* An insert may move the slots: cache only the newest. */
			p->last_page = page;
			p->last_mask = mask;
		}
		if (!(*p->last_mask & bit)) {
			*p->last_mask |= bit;
			p->blocks++;
		}
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
memfootprint_event(void *p, const struct insn_event *ev, const struct mica_ctx *ctx)
{
	struct memfootprint *m = p;
	const struct mica_mem_view v = ctx->mem;

	if (v.read1) {
		add_access(m, DATA_BLOCKS, v.read1->addr, v.read1->size);
		if (v.read2)
			add_access(m, DATA_BLOCKS, v.read2->addr, v.read1->size);
	}
	if (v.write)
		add_access(m, DATA_BLOCKS, v.write->addr, v.write->size);
	/* An instruction's own blocks and pages are the same at every DE:
	 * add them at its first DE of the interval only. */
	if (!ctx->insn_cache) {
		add_access(m, INSN_BLOCKS, ev->pc, ev->info->len);
	} else if (ctx->insn_cache[MICA_CACHE_MEMFOOTPRINT] != m->epoch) {
		add_access(m, INSN_BLOCKS, ev->pc, ev->info->len);
		if (!m->failed)
			ctx->insn_cache[MICA_CACHE_MEMFOOTPRINT] = m->epoch;
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
		out->memfootprint.data_pages = m->pages[0].map.count;
		out->memfootprint.insn_blocks = m->pages[1].blocks;
		out->memfootprint.insn_pages = m->pages[1].map.count;
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
		u64map_clear(&m->pages[i].map, clear_keep(&m->pages[i].map));
		m->pages[i].blocks = 0;
		m->pages[i].last_mask = NULL;
	}
}

const struct mica_analyzer_ops mica_memfootprint_ops = {
	.id = MICA_MEMFOOTPRINT,
	.create = memfootprint_create,
	.event = memfootprint_event,
	.close = memfootprint_close,
	.destroy = memfootprint_destroy,
};
