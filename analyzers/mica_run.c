/*
 * The MICA driver (mica_run.h).
 *
 * Per DE, as MICA (spec mica.md §1.5): H, then E, then the analyses, then
 * in interval mode the boundary test "interval H == S".  ILP is fed
 * through a 200-entry buffer drained when full, when interval H == S, and
 * at the end; while it drains, ilp tests the boundary before each entry and
 * ilp_one after each, against its own copy of the interval counters (the
 * save/restore of `all`, §3.8, which also gives the standalone numbers).
 * So ILP's lines are shifted by the buffer (Q1) but always fall at the same
 * DE as the other analyses' boundary, and one struct mica_interval carries
 * them all.  In full mode the buffer is unobservable and skipped.
 *
 * Speed: MICA's memory view of a DE is computed once (mica_ctx.mem); a
 * cache per insn_info record (mica_ctx.insn_cache) lets itypes, ppm, stride
 * and memfootprint skip their own per-instruction lookups; analyses with a
 * prefetch hint get it before any analysis runs, and run last.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ilp.h"
#include "mica_run.h"

static const uint32_t ilp_windows[MICA_ILP_WINDOWS] = { 32, 64, 128, 256 };

/* The analyses driven through mica_analyzer_ops.  They share no state, so
 * the order is free: those with a prefetch hint come last, so the others'
 * work hides the loads they start. */
static const struct mica_analyzer_ops *const analyzer_ops[] = {
	&mica_itypes_ops, &mica_reg_ops, &mica_stride_ops, &mica_memfootprint_ops,
	&mica_memstackdist_ops, &mica_ppm_ops,
};
#define N_OPS	(sizeof(analyzer_ops) / sizeof(analyzer_ops[0]))

/* The per-static-instruction cache (mica_ctx.insn_cache): open addressing
 * on the insn_info pointer.  pc is checked on every use, so a record that
 * changed address (it never does) would only start afresh. */
struct icache_slot {
	const struct insn_info *key;	/* NULL: empty */
	const struct insn_info *next;	/* what followed it last time: a prefetch hint */
	uint64_t pc;
	uint64_t w[MICA_CACHE_WORDS];
};

struct mica_run {
	const struct mica_config *cfg;
	struct mica_ctx ctx;
	uint32_t tid;
	mica_interval_fn fn;
	void *arg;
	bool full;
	int64_t s;
	uint64_t total_e, total_h, int_e, int_h;
	uint64_t index;
	const struct mica_analyzer_ops *ops[N_OPS];
	void *state[N_OPS];
	unsigned n_ops;
	struct ilp *ilp, *ilp_one;
	struct ilp_entry buf[MICA_ILP_BUFFER];
	unsigned n_buf;
	struct mica_interval iv;	/* the interval being closed */
	bool ilp_fired, ilp_one_fired;
	bool failed;
	unsigned first_prefetch;	/* ops[first_prefetch..] have a prefetch hint */
	bool use_icache;
	bool need_mem;		/* some analysis reads ctx.mem */
	struct icache_slot *ic;
	size_t ic_mask, ic_count;
	struct icache_slot *ic_prev;	/* the previous DE's slot, NULL after a growth */
	unsigned ic_shift;
};

static int
icache_alloc(struct mica_run *run, unsigned log2_cap)
{
	struct icache_slot *ic = calloc((size_t)1 << log2_cap, sizeof(*ic));

	if (!ic)
		return -1;
	run->ic = ic;
	run->ic_mask = ((size_t)1 << log2_cap) - 1;
	run->ic_shift = 64 - log2_cap;
	return 0;
}

static inline size_t
icache_hash(const struct mica_run *run, const struct insn_info *ii)
{
	return (size_t)(((uint64_t)(uintptr_t)ii * 0x9e3779b97f4a7c15ull) >> run->ic_shift);
}

static int
icache_grow(struct mica_run *run)
{
	struct icache_slot *old = run->ic;
	size_t old_cap = run->ic_mask + 1;

	if (icache_alloc(run, 64 - run->ic_shift + 1) < 0) {
		run->ic = old;
		return -1;
	}
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].key)
			continue;
		size_t j = icache_hash(run, old[i].key);

		while (run->ic[j].key)
			j = (j + 1) & run->ic_mask;
		run->ic[j] = old[i];
	}
	free(old);
	run->ic_prev = NULL;
	return 0;
}

/* The cache words of ev's instruction; NULL if out of memory. */
static inline uint64_t *
icache_get(struct mica_run *run, const struct insn_event *ev)
{
	const struct insn_info *ii = ev->info;
	struct icache_slot *s;

	for (;;) {
		for (size_t i = icache_hash(run, ii);; i = (i + 1) & run->ic_mask) {
			s = &run->ic[i];
			if (s->key == ii)
				goto found;
			if (!s->key)
				break;
		}
		if ((run->ic_count + 1) * 2 <= run->ic_mask + 1)
			break;
		if (icache_grow(run) < 0)
			return NULL;
	}
	s->key = ii;
	s->next = NULL;
	s->pc = ev->pc;
	memset(s->w, 0xff, sizeof(s->w));
	run->ic_count++;
	goto done;
found:
	if (__builtin_expect(s->pc != ev->pc, 0)) {
		s->pc = ev->pc;
		memset(s->w, 0xff, sizeof(s->w));
	}
done:
	/* Start loading the slot and the record of the DE likely to come
	 * next (the one that followed last time). */
	if (run->ic_prev)
		run->ic_prev->next = ii;
	run->ic_prev = s;
	if (s->next) {
		__builtin_prefetch(&run->ic[icache_hash(run, s->next)]);
		__builtin_prefetch(s->next);
		__builtin_prefetch((const char *)s->next + 64);
	}
	return s->w;
}

struct mica_run *
mica_run_new(const struct mica_config *cfg, const struct mica_names *names, uint32_t tid,
	     mica_interval_fn fn, void *arg, char *err, size_t errsz)
{
	struct mica_run *run = calloc(1, sizeof(*run));

	if (!run) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	run->cfg = cfg;
	run->ctx.cfg = cfg;
	run->ctx.names = names;
	run->tid = tid;
	run->fn = fn;
	run->arg = arg;
	run->full = mica_config_full(cfg);
	run->s = cfg->interval_size;
	for (unsigned i = 0; i < N_OPS; i++) {
		if (!(cfg->analyses & MICA_BIT(analyzer_ops[i]->id)))
			continue;
		run->ops[run->n_ops] = analyzer_ops[i];
		run->state[run->n_ops] = analyzer_ops[i]->create(cfg, err, errsz);
		if (!run->state[run->n_ops])
			goto fail;
		run->n_ops++;
	}
	/* Hints pay only when other work runs between them and the loads. */
	run->first_prefetch = run->n_ops;
	while (run->n_ops > 1 && run->first_prefetch &&
	       run->ops[run->first_prefetch - 1]->prefetch)
		run->first_prefetch--;
	/* The cache pays when it replaces two lookups or more per DE (ppm's
	 * counts for little: it looks up branches only); one analysis alone
	 * is faster with its own table. */
	run->use_icache =
		!!(cfg->analyses & MICA_BIT(MICA_ITYPES)) + !!(cfg->analyses & MICA_BIT(MICA_STRIDE)) +
		!!(cfg->analyses & MICA_BIT(MICA_MEMFOOTPRINT)) + !!(cfg->analyses & MICA_BIT(MICA_PPM)) >= 2;
	run->need_mem = cfg->analyses & (MICA_BIT(MICA_STRIDE) | MICA_BIT(MICA_MEMFOOTPRINT) |
					 MICA_BIT(MICA_MEMSTACKDIST) | MICA_BIT(MICA_ILP) |
					 MICA_BIT(MICA_ILP_ONE));
	if (run->use_icache && icache_alloc(run, 10) < 0) {
		snprintf(err, errsz, "out of memory");
		goto fail;
	}
	if ((cfg->analyses & MICA_BIT(MICA_ILP)) &&
	    !(run->ilp = ilp_new(ilp_windows, MICA_ILP_WINDOWS, cfg->block_size))) {
		snprintf(err, errsz, "ilp: out of memory");
		goto fail;
	}
	if ((cfg->analyses & MICA_BIT(MICA_ILP_ONE)) &&
	    !(run->ilp_one = ilp_new(&cfg->ilp_size, 1, cfg->block_size))) {
		snprintf(err, errsz, "ilp_one: out of memory");
		goto fail;
	}
	return run;
fail:
	mica_run_free(run);
	return NULL;
}

void
mica_run_free(struct mica_run *run)
{
	if (!run)
		return;
	for (unsigned i = 0; i < run->n_ops; i++)
		run->ops[i]->destroy(run->state[i]);
	ilp_free(run->ilp);
	ilp_free(run->ilp_one);
	free(run->ic);
	free(run);
}

uint64_t
mica_run_total_ins(const struct mica_run *run)
{
	return run->total_e;
}

uint64_t
mica_run_total_ins_aligned(const struct mica_run *run)
{
	return run->total_h;
}

static inline bool
at_boundary(const struct mica_run *run, uint64_t h)
{
	return (int64_t)h == run->s;
}

/* How many entries ahead the drain prefetches ILP's memory-ready slots. */
#define ILP_AHEAD	8

/* Drain the ILP buffer, with ILP's own boundary tests (§3.1). */
static int
ilp_flush(struct mica_run *run)
{
	if (run->ilp) {
		uint64_t h = run->int_h;

		for (unsigned i = 0; i < run->n_buf; i++) {
			if (i + ILP_AHEAD < run->n_buf)
				ilp_prefetch(run->ilp, &run->buf[i + ILP_AHEAD]);
			if (at_boundary(run, h)) {
				ilp_close(run->ilp, &run->iv.ilp);
				run->ilp_fired = true;
				h = 0;
			}
			if (ilp_step(run->ilp, &run->buf[i]) < 0)
				return -1;
		}
	}
	if (run->ilp_one) {
		uint64_t h = run->int_h;

		for (unsigned i = 0; i < run->n_buf; i++) {
			if (i + ILP_AHEAD < run->n_buf)
				ilp_prefetch(run->ilp_one, &run->buf[i + ILP_AHEAD]);
			if (ilp_step(run->ilp_one, &run->buf[i]) < 0)
				return -1;
			if (at_boundary(run, h)) {
				ilp_close(run->ilp_one, &run->iv.ilp_one);
				run->ilp_one_fired = true;
				h = 0;
			}
		}
	}
	run->n_buf = 0;
	return 0;
}

/* Close the interval: collect every analysis' counts and deliver them. */
static int
deliver(struct mica_run *run, bool final)
{
	struct mica_interval *iv = &run->iv;

	iv->tid = run->tid;
	iv->index = run->index++;
	iv->full = run->full;
	iv->final = final;
	iv->interval_size = run->s;
	iv->ins = run->full ? run->total_e : run->int_e;
	iv->ins_aligned = run->full ? run->total_h : run->int_h;
	iv->total_ins = run->total_e;
	iv->total_ins_aligned = run->total_h;
	iv->analyses = run->cfg->analyses;
	if (run->ilp && !run->ilp_fired)
		ilp_close(run->ilp, &iv->ilp);
	if (run->ilp_one && !run->ilp_one_fired)
		ilp_close(run->ilp_one, &iv->ilp_one);
	for (unsigned i = 0; i < run->n_ops; i++)
		run->ops[i]->close(run->state[i], iv);
	run->ilp_fired = run->ilp_one_fired = false;
	run->int_e = run->int_h = 0;
	if (run->fn && run->fn(run->arg, iv) != 0)
		return -1;
	memset(iv, 0, sizeof(*iv));
	return 0;
}

int
mica_run_event(struct mica_run *run, const struct insn_event *ev)
{
	bool aligned = !(ev->flags & EV_REP) ||
		((ev->flags & EV_REP_FIRST) && ev->rep_count > 0);

	if (run->failed)
		return -1;
	run->total_h += aligned;
	run->total_e++;
	if (!run->full) {
		run->int_h += aligned;
		run->int_e++;
	}
	run->ctx.total_ins = run->total_e;
	if (run->need_mem)
		run->ctx.mem = insn_event_mica_mem(ev);
	run->ctx.insn_cache = run->use_icache && ev->info ? icache_get(run, ev) : NULL;
	for (unsigned i = run->first_prefetch; i < run->n_ops; i++)
		run->ops[i]->prefetch(run->state[i], ev, &run->ctx);
	for (unsigned i = 0; i < run->n_ops; i++)
		if (run->ops[i]->event(run->state[i], ev, &run->ctx) < 0)
			goto fail;
	if (run->ilp || run->ilp_one) {
		const struct mica_mem_view *v = &run->ctx.mem;
		struct ilp_entry tmp;
		/* Filled in place, field by field (a copy of a struct built on
		 * the stack stalls on store forwarding). */
		struct ilp_entry *e = run->full ? &tmp : &run->buf[run->n_buf];

		e->info = ev->info;
		e->read1 = v->read1 ? v->read1->addr : 0;
		e->read1_size = v->read1 ? v->read1->size : 0;
		e->read2 = v->read2 ? v->read2->addr : 0;
		e->write = v->write ? v->write->addr : 0;
		e->write_size = v->write ? v->write->size : 0;
		if (run->full) {
			if ((run->ilp && ilp_step(run->ilp, e) < 0) ||
			    (run->ilp_one && ilp_step(run->ilp_one, e) < 0))
				goto fail;
		} else {
			run->n_buf++;
			if ((run->n_buf == MICA_ILP_BUFFER || at_boundary(run, run->int_h)) &&
			    ilp_flush(run) < 0)
				goto fail;
		}
	}
	if (!run->full && at_boundary(run, run->int_h) && deliver(run, false) < 0)
		goto fail;
	return 0;
fail:
	run->failed = true;
	return -1;
}

int
mica_run_finish(struct mica_run *run)
{
	if (run->failed)
		return -1;
	if (run->n_buf && ilp_flush(run) < 0)
		goto fail;
	if (deliver(run, true) < 0)
		goto fail;
	return 0;
fail:
	run->failed = true;
	return -1;
}
