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
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica.h"
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

struct ppm {
	uint32_t global;	/* GH */
	/* GAg/PAg: [length] T0..Th concatenated, Ti at offset 2^i - 1 */
	int8_t *shared[2][MICA_PPM_LENGTHS];
	bool pred[2][MICA_PPM_LENGTHS];		/* kept when nothing is known */
	unsigned order[2][MICA_PPM_LENGTHS];
	uint64_t miss[MICA_PPM_LENGTHS][MICA_PPM_ORGS];
	struct u64map index;	/* pc -> branch index */
	struct ppm_branch *br;
	size_t n_br, cap_br;
};

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
	u64map_free(&pp->index);
	free(pp);
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
	return pp;
oom:
	ppm_destroy(pp);
	if (errsz)
		strncpy(err, "ppm: out of memory", errsz - 1), err[errsz - 1] = '\0';
	return NULL;
}

static inline void
counter_update(int8_t *c, bool taken)
{
	if (taken) {
		if (*c < 127 && ++*c == 0)
			++*c;
	} else {
		if (*c > -127 && --*c == 0)
			--*c;
	}
}

/* GAg or PAg (shared tables with PPM fall-back); returns the miss.
 * Inlined into an unrolled loop over the lengths, so h is a constant. */
static inline __attribute__((always_inline)) bool
shared_predict_update(struct ppm *pp, int o, int l, uint32_t hist, bool taken)
{
	int8_t *t = pp->shared[o][l];
	unsigned h = hist_len[l];

	for (int i = (int)h; i >= 0; i--) {
		int8_t c = t[(1u << i) - 1 + (hist & ((1u << i) - 1))];

		if (c != 0) {
			pp->pred[o][l] = c > 0;
			pp->order[o][l] = (unsigned)i;
			break;
		}
	}
	for (unsigned i = pp->order[o][l]; i <= h; i++)
		counter_update(&t[(1u << i) - 1 + (hist & ((1u << i) - 1))], taken);
	return pp->pred[o][l] != taken;
}

static struct ppm_branch *
branch_get(struct ppm *pp, uint64_t pc)
{
	bool created;
	uint64_t *idx = u64map_find(&pp->index, pc);
	struct ppm_branch *b;

	if (idx)
		return &pp->br[*idx];
	if (!(idx = u64map_insert(&pp->index, pc, &created)))
		return NULL;
	if (pp->n_br == pp->cap_br) {
		size_t cap = pp->cap_br ? pp->cap_br * 2 : 64;
		struct ppm_branch *n = realloc(pp->br, cap * sizeof(*n));

		if (!n)
			goto fail;
		pp->br = n;
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

static int
ppm_event(void *p, const struct insn_event *ev, const struct mica_ctx *ctx)
{
	struct ppm *pp = p;
	const struct insn_info *ii = ev->info;
	bool taken = ev->flags & EV_TAKEN;
	struct ppm_branch *b;

	if (ii->branch != BR_COND || (ii->flags & INSN_XBEGIN_XEND))
		return 0;
	if (ctx->insn_cache && ctx->insn_cache[MICA_CACHE_PPM] != UINT64_MAX) {
		b = &pp->br[ctx->insn_cache[MICA_CACHE_PPM]];
	} else {
		if (!(b = branch_get(pp, ev->pc)))
			return -1;
		if (ctx->insn_cache)
			ctx->insn_cache[MICA_CACHE_PPM] = (uint64_t)(b - pp->br);
	}
	/* The per-branch tables are large (8.7 KB a branch) and accessed at
	 * random: start loading their counters, do the shared tables (small,
	 * cached), then the private ones.  The tables are disjoint, so the
	 * order changes nothing. */
	int8_t *gas[MICA_PPM_LENGTHS], *pas[MICA_PPM_LENGTHS];

	for (int l = 0; l < MICA_PPM_LENGTHS; l++) {
		unsigned mask = (1u << hist_len[l]) - 1;

		gas[l] = &b->priv[priv_off[l] + (pp->global & mask)];
		pas[l] = &b->priv[PRIV_SIZE + priv_off[l] + (b->local & mask)];
		__builtin_prefetch(gas[l], 1);
		__builtin_prefetch(pas[l], 1);
	}
#pragma GCC unroll 3
	for (int l = 0; l < MICA_PPM_LENGTHS; l++) {
		pp->miss[l][GAG] += shared_predict_update(pp, 0, l, pp->global, taken);
		pp->miss[l][PAG] += shared_predict_update(pp, 1, l, b->local, taken);
	}
	for (int l = 0; l < MICA_PPM_LENGTHS; l++) {
		pp->miss[l][GAS] += (*gas[l] > 0) != taken;
		pp->miss[l][PAS] += (*pas[l] > 0) != taken;
		counter_update(gas[l], taken);
		counter_update(pas[l], taken);
	}
	pp->global = pp->global << 1 | taken;
	b->local = b->local << 1 | taken;
	b->n++;
	b->t += taken;
	if (b->last >= 0 && b->last != taken)
		b->r++;
	b->last = taken;
	return 0;
}

/* Start loading this branch's private counters (when the driver's cache
 * already knows the branch). */
static void
ppm_prefetch(void *p, const struct insn_event *ev, const struct mica_ctx *ctx)
{
	const struct ppm *pp = p;
	const struct insn_info *ii = ev->info;

	if (ii->branch != BR_COND || !ctx->insn_cache ||
	    ctx->insn_cache[MICA_CACHE_PPM] == UINT64_MAX)
		return;
	const struct ppm_branch *b = &pp->br[ctx->insn_cache[MICA_CACHE_PPM]];

	for (int l = 0; l < MICA_PPM_LENGTHS; l++) {
		unsigned mask = (1u << hist_len[l]) - 1;

		__builtin_prefetch(&b->priv[priv_off[l] + (pp->global & mask)], 1);
		__builtin_prefetch(&b->priv[PRIV_SIZE + priv_off[l] + (b->local & mask)], 1);
	}
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
	for (size_t i = 0; i < pp->n_br; i++) {
		struct ppm_branch *b = &pp->br[i];

		r->branches += b->n;
		r->transitions += fold(b->r, b->n);
		r->taken += fold(b->t, b->n);
		b->n = b->t = b->r = 0;
	}
}

const struct mica_analyzer_ops mica_ppm_ops = {
	.id = MICA_PPM,
	.create = ppm_create,
	.event = ppm_event,
	.close = ppm_close,
	.destroy = ppm_destroy,
	.prefetch = ppm_prefetch,
};
