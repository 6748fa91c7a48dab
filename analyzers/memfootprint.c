/*
 * memfootprint: distinct data and instruction blocks and pages touched
 * (spec mica.md §3.6).  Interval lines are per-interval footprints: the
 * sets are cleared at each boundary (Q13).
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

struct memfootprint {
	unsigned block_shift, page_shift;
	struct footprint_set set[N_SETS];
	bool failed;
};

static void
memfootprint_destroy(void *p)
{
	struct memfootprint *m = p;

	if (!m)
		return;
	for (int i = 0; i < N_SETS; i++)
		u64map_free(&m->set[i].map);
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
	for (i = 0; i < N_SETS; i++)
		if (u64map_init(&m->set[i].map, 10) < 0)
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

static void
add_access(struct memfootprint *m, int blocks, uint64_t addr, uint64_t size)
{
	if (!size)
		return;
	add_range(m, &m->set[blocks], m->block_shift, addr, size);
	add_range(m, &m->set[blocks + 1], m->page_shift, addr, size);
}

static int
memfootprint_event(void *p, const struct insn_event *ev, const struct mica_ctx *ctx)
{
	struct memfootprint *m = p;
	struct mica_mem_view v = insn_event_mica_mem(ev);

	(void)ctx;
	if (v.read1) {
		add_access(m, DATA_BLOCKS, v.read1->addr, v.read1->size);
		if (v.read2)
			add_access(m, DATA_BLOCKS, v.read2->addr, v.read1->size);
	}
	if (v.write)
		add_access(m, DATA_BLOCKS, v.write->addr, v.write->size);
	add_access(m, INSN_BLOCKS, ev->pc, ev->info->len);
	return m->failed ? -1 : 0;
}

static void
memfootprint_close(void *p, struct mica_interval *out)
{
	struct memfootprint *m = p;

	out->memfootprint.data_blocks = m->set[DATA_BLOCKS].map.count;
	out->memfootprint.data_pages = m->set[DATA_PAGES].map.count;
	out->memfootprint.insn_blocks = m->set[INSN_BLOCKS].map.count;
	out->memfootprint.insn_pages = m->set[INSN_PAGES].map.count;
	for (int i = 0; i < N_SETS; i++) {
		u64map_clear(&m->set[i].map, 16);
		m->set[i].has_last = false;
	}
}

const struct mica_analyzer_ops mica_memfootprint_ops = {
	.id = MICA_MEMFOOTPRINT,
	.create = memfootprint_create,
	.event = memfootprint_event,
	.close = memfootprint_close,
	.destroy = memfootprint_destroy,
};
