/*
 * ppm: branch predictability with PPM-like predictors (spec mica.md §3.3):
 * GAg, PAg, GAs, PAs x history lengths 4, 8, 12, plus per-branch taken and
 * transition counts.
 *
 * A set of order-h tables T0..Th predicts from the longest context with
 * information and updates from that order up (update exclusion); counters
 * live in [-127,-1] U [1,127].  GAs/PAs counters start at -1 and so are
 * never 0: they always predict from Th and update Th only, so only Th is
 * kept for them (same numbers as MICA, 8.7 KB per static branch).
 * Fixed from MICA: tables, histories and flags of new branches are
 * initialised (B2, B4), counters are int8_t (Q15).  Identity of a branch is
 * its address; XBEGIN/XEND are skipped (INSN_XBEGIN_XEND).
 *
 * Speed: the batch's conditional branches (listed by the driver) are
 * taken first in order to note the global history each one will see;
 * they are then processed in order, loading the private counters of the
 * branch a few ahead (its global history is known; its local one is taken
 * as it is now, a hint).  The counts live in locals during a batch (stores
 * through int8_t counters would otherwise force every field to be
 * reloaded), a counter update is one table lookup, and a shared table's
 * prediction falls back to the lower orders only while its top-order
 * counter is still 0.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica/mica.h"
#include "mica/sid_table.h"
#include "u64map.h"

static const unsigned hist_len[MICA_PPM_LENGTHS] = { 4, 8, 12 };

enum { GAG, PAG, GAS, PAS };

/* Th of GAs and PAs for the three lengths: 16 + 256 + 4096 counters each. */
#define PRIV_SIZE	(16 + 256 + 4096)
static const unsigned priv_off[MICA_PPM_LENGTHS] = { 0, 16, 16 + 256 };

struct ppm_branch {
	uint32_t local;		/* LH_b */
	int8_t last;		/* previous outcome, -1 none */
	uint64_t n, t, r;	/* this interval */
	int8_t *priv;		/* [GAs | PAs][PRIV_SIZE] */
};

/* The batch's branches: DE index, branch index, global history. */
struct ppm_pending {
	uint32_t i, b, global;
};

struct ppm {
	uint32_t global;	/* GH */
	/* GAg/PAg: [length] T0..Th concatenated, Ti at offset 2^i - 1 */
	int8_t *shared[2][MICA_PPM_LENGTHS];
	uint64_t miss[MICA_PPM_LENGTHS][MICA_PPM_ORGS];
	struct u64map index;	/* pc -> branch index */
	struct ppm_branch *br;
	size_t n_br, cap_br;
	uint32_t *touched;	/* branches with n > 0 (this interval) */
	size_t n_touched;
	uint32_t *bidx;		/* [sid]: branch index, or UNKNOWN */
	size_t n_bidx;
	int8_t next[2][256];	/* [taken][counter]: the counter after an update */
	struct ppm_pending pending[MICA_BATCH];
};

#define UNKNOWN		UINT32_MAX
/* How many branches ahead the private counters are loaded. */
#define AHEAD		8

static void
ppm_destroy(void *p)
{
	struct ppm *pp = p;

	if (!pp)
		return;
	for (int o = 0; o < 2; o++)
		for (int l = 0; l < MICA_PPM_LENGTHS; l++)
			free(pp->shared[o][l]);
	for (size_t i = 0; i < pp->n_br; i++)
		free(pp->br[i].priv);
	free(pp->br);
	free(pp->touched);
	free(pp->bidx);
	u64map_free(&pp->index);
	free(pp);
}

/* Counters live in [-127,-1] U [1,127] (0: never updated, shared tables
 * only) and step over 0. */
static int8_t
counter_after(int c, bool taken)
{
	if (taken) {
		if (c < 127 && ++c == 0)
			++c;
	} else {
		if (c > -127 && --c == 0)
			--c;
	}
	return (int8_t)c;
}

static void *
ppm_create(const struct mica_config *cfg, char *err, size_t errsz)
{
	struct ppm *pp = calloc(1, sizeof(*pp));

	(void)cfg;
	if (!pp)
		goto oom;
	for (int o = 0; o < 2; o++)
		for (int l = 0; l < MICA_PPM_LENGTHS; l++)
			if (!(pp->shared[o][l] = calloc((2u << hist_len[l]) - 1, 1)))
				goto oom;
	if (u64map_init(&pp->index, 8) < 0)
		goto oom;
	for (int c = -128; c < 128; c++) {
		pp->next[0][(uint8_t)c] = counter_after(c, false);
		pp->next[1][(uint8_t)c] = counter_after(c, true);
	}
	return pp;
oom:
	ppm_destroy(pp);
	if (errsz)
		strncpy(err, "ppm: out of memory", errsz - 1), err[errsz - 1] = '\0';
	return NULL;
}

static struct ppm_branch *
branch_get(struct ppm *pp, uint64_t pc)
{
	bool created;
	uint64_t *idx = u64map_find(&pp->index, pc);
	struct ppm_branch *b;

	if (idx)
		return &pp->br[*idx];
	if (pp->n_br >= UNKNOWN || !(idx = u64map_insert(&pp->index, pc, &created)))
		return NULL;
	if (pp->n_br == pp->cap_br) {
		size_t cap = pp->cap_br ? pp->cap_br * 2 : 64;
		struct ppm_branch *n = realloc(pp->br, cap * sizeof(*n));

		if (!n)
			goto fail;
		pp->br = n;
		uint32_t *t = realloc(pp->touched, cap * sizeof(*t));

		if (!t)
			goto fail;
		pp->touched = t;
		pp->cap_br = cap;
	}
	b = &pp->br[pp->n_br];
	memset(b, 0, sizeof(*b));
	b->last = -1;
	b->priv = malloc(2 * PRIV_SIZE);
	if (!b->priv)
		goto fail;
	memset(b->priv, -1, 2 * PRIV_SIZE);
	*idx = pp->n_br++;
	return b;
fail:
	u64map_remove(&pp->index, pc);
	return NULL;
}

/* Start loading the private counters branch t will use. */
static inline void
prefetch_branch(const struct ppm *pp, const struct ppm_pending *t)
{
	const struct ppm_branch *b = &pp->br[t->b];

	for (int l = 0; l < MICA_PPM_LENGTHS; l++) {
		unsigned mask = (1u << hist_len[l]) - 1;

		__builtin_prefetch(&b->priv[priv_off[l] + (t->global & mask)], 1);
		__builtin_prefetch(&b->priv[PRIV_SIZE + priv_off[l] + (b->local & mask)], 1);
	}
}

/*
 * The rare case of a shared table whose top-order counter is 0: predict
 * from the longest order with information, update from that order up;
 * returns the miss.  MICA keeps the last prediction and order for when no
 * order has information, but that happens only at a table's first branch
 * (its T0 is never 0 after that): then the prediction is "not taken" and
 * every order is updated, as with MICA's initial state.
 */
static __attribute__((noinline)) unsigned
shared_fallback(const struct ppm *pp, int8_t *t, unsigned h, uint32_t hist, bool taken)
{
	bool pred = false;
	unsigned order = 0;

	for (int i = (int)h; i >= 0; i--) {
		int8_t c = t[(1u << i) - 1 + (hist & ((1u << i) - 1))];

		if (c != 0) {
			pred = c > 0;
			order = (unsigned)i;
			break;
		}
	}
	for (unsigned i = order; i <= h; i++) {
		int8_t *c = &t[(1u << i) - 1 + (hist & ((1u << i) - 1))];

		*c = pp->next[taken][(uint8_t)*c];
	}
	return pred != taken;
}

/* GAg or PAg of length h: returns the miss. */
static inline __attribute__((always_inline)) unsigned
shared_step(const struct ppm *pp, int8_t *t, unsigned h, uint32_t hist, bool taken)
{
	int8_t *c = &t[(1u << h) - 1 + (hist & ((1u << h) - 1))];
	int8_t v = *c;

	if (__builtin_expect(v == 0, 0))
		return shared_fallback(pp, t, h, hist, taken);
	*c = pp->next[taken][(uint8_t)v];
	return (v > 0) != taken;
}

/* GAs or PAs: the counter at c (never 0); returns the miss. */
static inline unsigned
private_step(const struct ppm *pp, int8_t *c, bool taken)
{
	unsigned miss = (*c > 0) != taken;

	*c = pp->next[taken][(uint8_t)*c];
	return miss;
}

static int
ppm_run(void *p, const struct mica_batch *bt)
{
	struct ppm *pp = p;
	unsigned n = 0;
	uint32_t global = pp->global;

	if (bt->n_statics > pp->n_bidx) {
		uint32_t *t = mica_sid_table_grow(pp->bidx, &pp->n_bidx, bt->n_statics,
						  sizeof(*t), 0xff);

		if (!t)
			return -1;
		pp->bidx = t;
	}
	/* The branches, in order (new ones registered). */
	for (unsigned c = 0; c < bt->n_cond; c++) {
		unsigned i = bt->cond[c];
		const struct mica_de *d = &bt->de[i];
		uint32_t bi = pp->bidx[d->sid];

		if (__builtin_expect(bi == UNKNOWN, 0)) {
			struct ppm_branch *b = branch_get(pp, bt->statics[d->sid].pc);

			if (!b)
				return -1;
			bi = pp->bidx[d->sid] = (uint32_t)(b - pp->br);
		}
		pp->pending[n].i = i;
		pp->pending[n].b = bi;
		pp->pending[n].global = global;
		n++;
		global = global << 1 | d->taken;
	}
	if (!n)
		return 0;

	/* The predictors, with their state in locals. */
	uint64_t miss[MICA_PPM_LENGTHS][MICA_PPM_ORGS];
	int8_t *shared[2][MICA_PPM_LENGTHS];

	memcpy(miss, pp->miss, sizeof(miss));
	memcpy(shared, pp->shared, sizeof(shared));
	for (unsigned k = 0; k < n && k < AHEAD; k++)
		prefetch_branch(pp, &pp->pending[k]);
	for (unsigned k = 0; k < n; k++) {
		const struct ppm_pending *t = &pp->pending[k];
		struct ppm_branch *b = &pp->br[t->b];
		bool taken = bt->de[t->i].taken;
		uint32_t g = t->global, lh = b->local;

		if (k + AHEAD < n)
			prefetch_branch(pp, &pp->pending[k + AHEAD]);
#pragma GCC unroll 3
		for (int l = 0; l < MICA_PPM_LENGTHS; l++) {
			unsigned h = hist_len[l], mask = (1u << h) - 1;

			miss[l][GAG] += shared_step(pp, shared[0][l], h, g, taken);
			miss[l][PAG] += shared_step(pp, shared[1][l], h, lh, taken);
			miss[l][GAS] += private_step(pp, &b->priv[priv_off[l] + (g & mask)], taken);
			miss[l][PAS] += private_step(pp, &b->priv[PRIV_SIZE + priv_off[l] + (lh & mask)],
						     taken);
		}
		b->local = lh << 1 | taken;
		if (!b->n++)
			pp->touched[pp->n_touched++] = t->b;
		b->t += taken;
		b->r += b->last >= 0 && b->last != taken;
		b->last = taken;
	}
	pp->global = global;
	memcpy(pp->miss, miss, sizeof(miss));
	return 0;
}

static uint64_t
fold(uint64_t x, uint64_t n)
{
	return x > n / 2 ? n - x : x;
}

static void
ppm_close(void *p, struct mica_interval *out)
{
	struct ppm *pp = p;
	struct mica_ppm_result *r = &out->ppm;

	memcpy(r->miss, pp->miss, sizeof(r->miss));
	memset(pp->miss, 0, sizeof(pp->miss));
	r->branches = r->transitions = r->taken = 0;
	for (size_t i = 0; i < pp->n_touched; i++) {
		struct ppm_branch *b = &pp->br[pp->touched[i]];

		r->branches += b->n;
		r->transitions += fold(b->r, b->n);
		r->taken += fold(b->t, b->n);
		b->n = b->t = b->r = 0;
	}
	pp->n_touched = 0;
}

const struct mica_analyzer_ops mica_ppm_ops = {
	.id = MICA_PPM,
	.create = ppm_create,
	.run = ppm_run,
	.close = ppm_close,
	.destroy = ppm_destroy,
};
