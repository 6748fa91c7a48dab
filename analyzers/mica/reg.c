/*
 * reg: register traffic (spec mica.md §3.4): register operands per
 * instruction, degree of use of each value, and dependency distance of
 * each register read, measured in DEs with the global count E.
 *
 * Kept from MICA: width-specific register ids (Q11), reads of never
 * written registers aged by the DE index, values alive at exit never
 * recorded.  Fixed: the operand-count histogram has a slot for every
 * count (MICA: 7 slots, written out of bounds from 7 on, bug B6), and
 * those instructions count in totOps.  In sample mode a value written
 * before its burst began has no degree of use (reg_sample()).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica/mica.h"

#define REG_IDS		65536

/* One register's state, together: one cache line visited per register. */
struct reg_state {
	uint64_t prod;		/* E of the last write, 0 = never */
	uint64_t uses;		/* reads since that write */
	uint64_t ref;		/* read or written before */
};

struct reg {
	struct reg_state *st;	/* [REG_IDS] */
	struct mica_reg_result cur;
	/* Sample mode: E of the current burst's first DE.  A value written
	 * before it had reads nobody saw (the run between bursts): its
	 * degree of use is unknown and not recorded.  0 in step mode. */
	uint64_t since;
};

static void
reg_destroy(void *p)
{
	struct reg *r = p;

	if (!r)
		return;
	free(r->st);
	free(r);
}

static void *
reg_create(const struct mica_config *cfg, char *err, size_t errsz)
{
	struct reg *r = calloc(1, sizeof(*r));

	(void)cfg;
	if (!r || !(r->st = calloc(REG_IDS, sizeof(*r->st)))) {
		reg_destroy(r);
		if (errsz)
			strncpy(err, "reg: out of memory", errsz - 1), err[errsz - 1] = '\0';
		return NULL;
	}
	return r;
}

static int
reg_run(void *p, const struct mica_batch *b)
{
	struct reg *r = p;
	struct reg_state *st = r->st;
	struct mica_reg_result *cur = &r->cur;
	uint64_t e = b->e0;
	const uint64_t since = r->since;

	for (unsigned k = 0; k < b->n; k++) {
		const struct mica_regs *sr = &b->de[k].r;
		const reg_id *rr = b->regs + sr->off, *rw = rr + sr->n_read;
		unsigned i;

		e++;	/* this DE's E */
		for (i = 0; i < sr->n_read; i++) {
			struct reg_state *rs = &st[rr[i]];
			uint64_t age = e - rs->prod;

			cur->age_dist[age < MICA_REG_HIST - 1 ? age : MICA_REG_HIST - 1]++;
			rs->uses++;
			rs->ref = 1;
		}
		for (i = 0; i < sr->n_written; i++) {
			struct reg_state *rs = &st[rw[i]];

			if (rs->ref && rs->prod >= since) {
				uint64_t u = rs->uses;

				cur->use_dist[u < MICA_REG_HIST - 1 ? u : MICA_REG_HIST - 1]++;
			}
			rs->prod = e;
			rs->uses = 0;
			rs->ref = 1;
		}
		cur->op_count[sr->reg_ops]++;
	}
	return 0;
}

static void
reg_close(void *p, struct mica_interval *out)
{
	struct reg *r = p;

	out->reg = r->cur;
	memset(&r->cur, 0, sizeof(r->cur));
}

/*
 * Sample mode.  Dependency distances need no change: E runs on over the
 * bursts, so a read whose producer ran before its burst is aged at least
 * the burst's warm-up plus its place in the unit, beyond every c_D when
 * the warm-up is at least 64 DEs, as its true age is.
 */
static void
reg_sample(void *p, enum mica_sample_event ev, uint64_t e)
{
	struct reg *r = p;

	if (ev == MICA_BURST_START)
		r->since = e + 1;
}

const struct mica_analyzer_ops mica_reg_ops = {
	.id = MICA_REG,
	.create = reg_create,
	.run = reg_run,
	.close = reg_close,
	.destroy = reg_destroy,
	.sample = reg_sample,
};
