/*
 * memstackdist: LRU stack (reuse) distance of data reads at block
 * granularity, in MICA's 19 power-of-two buckets plus cold references
 * (spec mica.md §3.7).  Writes are ignored; read2 is sized as read1; the
 * stack is kept across intervals, so "cold" is cold for the whole run.
 * The stack itself is lru_stack.c: exact, O(log n), bounded memory.
 * In sample mode a read whose previous access is older than its burst is
 * censored (lru_stack.h): counted in refs and apart, in no bucket; and so
 * is a read of a block no burst has seen, which need not be cold: the
 * program ran unseen between bursts (cold is then 0, a lower bound).
 * A batch is taken as its list of reads (in order), the stack's first
 * lookup started a few reads ahead.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica/lru_stack.h"
#include "mica/mica.h"

struct memstackdist {
	unsigned block_shift;
	struct lru_stack *stack;
	struct mica_memstackdist_result cur;
	uint64_t horizon;	/* sample mode: distinct blocks of the burst before its unit */
	bool sampled;		/* a burst began: sample mode */
};

static void
memstackdist_destroy(void *p)
{
	struct memstackdist *m = p;

	if (!m)
		return;
	lru_stack_free(m->stack);
	free(m);
}

static void *
memstackdist_create(const struct mica_config *cfg, char *err, size_t errsz)
{
	struct memstackdist *m = calloc(1, sizeof(*m));

	if (!m || !(m->stack = lru_stack_new())) {
		memstackdist_destroy(m);
		if (errsz)
			strncpy(err, "memstackdist: out of memory", errsz - 1), err[errsz - 1] = '\0';
		return NULL;
	}
	m->block_shift = cfg->block_size;
	return m;
}

static inline __attribute__((always_inline)) int
read_blocks(struct memstackdist *m, uint64_t ea, uint64_t size)
{
	uint64_t b, last;

	if (!size)
		return 0;
	last = (ea + size - 1) >> m->block_shift;
	if (last < ea >> m->block_shift)
		last = UINT64_MAX >> m->block_shift;
	for (b = ea >> m->block_shift;; b++) {
		int k = lru_stack_access(m->stack, b);

		if (k == LRU_STACK_NOMEM)
			return -1;
		m->cur.refs++;
		if (k == LRU_STACK_COLD && !m->sampled)
			m->cur.cold++;
		else if (k == LRU_STACK_CENSORED || k == LRU_STACK_COLD)
			m->cur.censored++;
		else
			m->cur.bucket[k]++;
		if (b == last)
			break;
	}
	return 0;
}

/* How many DEs ahead the stack's first lookup is started. */
#define AHEAD	8

static int
memstackdist_run(void *p, const struct mica_batch *b)
{
	struct memstackdist *m = p;
	const struct mica_access *a = b->reads;

	for (unsigned i = 0; i < b->n_reads; i++) {
		if (i + AHEAD < b->n_reads)
			lru_stack_prefetch(m->stack, a[i + AHEAD].addr >> m->block_shift);
		if (read_blocks(m, a[i].addr, a[i].size) < 0)
			return -1;
	}
	return 0;
}

static void
memstackdist_close(void *p, struct mica_interval *out)
{
	struct memstackdist *m = p;

	out->memstackdist = m->cur;
	out->memstackdist.horizon = m->horizon;
	memset(&m->cur, 0, sizeof(m->cur));
}

/* Sample mode: a burst's start is the stack's mark (censoring); its
 * distinct blocks when the unit starts bound what the unit can see. */
static void
memstackdist_sample(void *p, enum mica_sample_event ev, uint64_t e)
{
	struct memstackdist *m = p;

	(void)e;
	if (ev == MICA_BURST_START) {
		m->sampled = true;
		lru_stack_mark(m->stack);
	}
	else if (ev == MICA_UNIT_START)
		m->horizon = lru_stack_distinct_since_mark(m->stack);
}

const struct mica_analyzer_ops mica_memstackdist_ops = {
	.id = MICA_MEMSTACKDIST,
	.create = memstackdist_create,
	.run = memstackdist_run,
	.close = memstackdist_close,
	.destroy = memstackdist_destroy,
	.sample = memstackdist_sample,
};
