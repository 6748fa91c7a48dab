/*
 * The MICA driver (mica_run.h).
 *
 * Per DE, as MICA (spec mica.md §1.5): H, then E, then the analyses, then
 * in interval mode the boundary test "interval H == S".  The analyses see
 * the DEs in batches (mica.h): each DE is copied into the batch (its
 * static instruction's number and registers, its outcome; MICA's memory
 * view of it into the lists of reads and writes; its index into the list
 * of conditional branches), and the batch is processed when it holds
 * MICA_BATCH = 200 DEs, when interval H == S, and at the end: at a
 * boundary every analysis has seen every DE up to the one that closes the
 * interval, so the results are those of processing DE by DE.
 *
 * The batch is also ILP's 200-entry buffer (§3.1, §3.8): while it drains,
 * ilp tests the boundary before its first entry and ilp_one after it,
 * against their own copy of the interval counters (the save/restore of
 * `all`, which also gives the standalone numbers).  So ILP's lines are
 * shifted by the buffer (Q1) but always fall at the same DE as the other
 * analyses' boundary, and one struct mica_interval carries them all.  In
 * full mode the buffer is unobservable.
 *
 * Static instructions are numbered in order of first appearance (one
 * number per insn_info record and address; found by trying the number
 * that followed the previous DE's last time, then a hash table): the
 * analyses keep what they derive from an instruction (itypes' groups,
 * ppm's branch, stride's slots, memfootprint's last interval, ILP's
 * registers) in plain arrays indexed by it.  The driver keeps each one's
 * register lists packed in a pool (struct mica_regs), which reg and ILP
 * read instead of the larger insn_info.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mica/ilp.h"
#include "mica/mica_run.h"
#include "mica/mica_sample.h"

static const uint32_t ilp_windows[MICA_ILP_WINDOWS] = { 32, 64, 128, 256 };

/* The analyses driven through mica_analyzer_ops.  They share no state, so
 * the order is free. */
static const struct mica_analyzer_ops *const analyzer_ops[] = {
	&mica_itypes_ops, &mica_ppm_ops, &mica_reg_ops, &mica_stride_ops,
	&mica_memfootprint_ops, &mica_memstackdist_ops,
};
#define N_OPS	(sizeof(analyzer_ops) / sizeof(analyzer_ops[0]))

/* The static instruction numbers: open addressing on the insn_info
 * pointer (a slot), and for each sid the instruction that followed it
 * last time (a guess tried first: the hash slots are spread over more
 * memory than the cache holds, successive sids are not). */
struct static_slot {
	const struct insn_info *info;	/* NULL: empty */
	uint64_t pc;
	uint32_t sid;
};

struct mica_run {
	const struct mica_config *cfg;
	const struct mica_names *names;
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
	struct mica_de buf[MICA_BATCH];
	unsigned n_buf;
	struct mica_access reads[2 * MICA_BATCH], writes[MICA_BATCH];
	unsigned n_reads, n_writes;
	uint8_t cond[MICA_BATCH];
	unsigned n_cond;
	uint64_t buf_e0;	/* E before buf[0] */
	struct mica_static *statics;
	size_t n_statics, statics_cap;
	struct static_slot *sh;
	size_t sh_mask;
	unsigned sh_shift;
	struct static_slot *next;	/* [sid] */
	struct mica_regs *sregs;	/* [sid] */
	reg_id *regs;		/* their pool */
	size_t n_regs, cap_regs;
	uint32_t prev;		/* the previous DE's sid, UINT32_MAX none */
	struct mica_interval iv;	/* the interval being closed */
	bool ilp_fired, ilp_one_fired;
	bool failed;
	bool need_mem;		/* some analysis reads the lists of accesses */
	/* Sample mode (mica_run_set_sampled). */
	bool sampled;
	enum { BURST_IDLE, BURST_WARM, BURST_UNIT } phase;
	struct mica_interval acc;	/* the interval's units summed */
	uint64_t *acc_counts;	/* acc's itypes counts */
	char **acc_other;	/* acc's itypes catch-all categories (copies) */
	size_t n_acc_other;
	struct mica_metric *metrics;	/* the interval's sums per metric */
	size_t n_metrics;
	uint64_t warm_e;	/* E of the current burst's warm-up */
	uint64_t units_e, units_h;	/* E and H of every unit so far */
};

static int
sh_alloc(struct mica_run *run, unsigned log2_cap)
{
	struct static_slot *sh = calloc((size_t)1 << log2_cap, sizeof(*sh));

	if (!sh)
		return -1;
	run->sh = sh;
	run->sh_mask = ((size_t)1 << log2_cap) - 1;
	run->sh_shift = 64 - log2_cap;
	return 0;
}

static inline size_t
sh_hash(const struct mica_run *run, const struct insn_info *ii)
{
	return (size_t)(((uint64_t)(uintptr_t)ii * 0x9e3779b97f4a7c15ull) >> run->sh_shift);
}

static int
sh_grow(struct mica_run *run)
{
	struct static_slot *old = run->sh;
	size_t old_cap = run->sh_mask + 1;

	if (sh_alloc(run, 64 - run->sh_shift + 1) < 0) {
		run->sh = old;
		return -1;
	}
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].info)
			continue;
		size_t j = sh_hash(run, old[i].info);

		while (run->sh[j].info)
			j = (j + 1) & run->sh_mask;
		run->sh[j] = old[i];
	}
	free(old);
	return 0;
}

/* A new static instruction in slot s (empty). */
static __attribute__((noinline)) int64_t
static_new(struct mica_run *run, struct static_slot *s, const struct insn_event *ev)
{
	if (run->n_statics == UINT32_MAX)
		return -1;
	if ((run->n_statics + 1) * 2 > run->sh_mask + 1) {
		if (sh_grow(run) < 0)
			return -1;
		for (s = &run->sh[sh_hash(run, ev->info)]; s->info; ) {
			size_t i = (size_t)(s - run->sh);

			s = &run->sh[(i + 1) & run->sh_mask];
		}
	}
	if (run->n_statics == run->statics_cap) {
		size_t cap = run->statics_cap ? 2 * run->statics_cap : 1024;
		struct mica_static *st = realloc(run->statics, cap * sizeof(*st));

		if (!st)
			return -1;
		run->statics = st;
		struct static_slot *nx = realloc(run->next, cap * sizeof(*nx));

		if (!nx)
			return -1;
		run->next = nx;
		struct mica_regs *sr = realloc(run->sregs, cap * sizeof(*sr));

		if (!sr)
			return -1;
		run->sregs = sr;
		run->statics_cap = cap;
	}
	const struct insn_info *ii = ev->info;
	size_t nr = ii->n_regs_read, nw = ii->n_regs_written;

	/* Allocated at the first instruction, registers or not: the analyses
	 * add offsets to regs, and NULL + 0 is undefined. */
	if (!run->regs || run->n_regs + nr + nw > run->cap_regs) {
		size_t cap = run->cap_regs ? 2 * run->cap_regs : 4096;

		while (cap < run->n_regs + nr + nw)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -1;
		reg_id *r = realloc(run->regs, cap * sizeof(*r));

		if (!r)
			return -1;
		run->regs = r;
		run->cap_regs = cap;
	}
	struct mica_regs *sr = &run->sregs[run->n_statics];

	sr->off = (uint32_t)run->n_regs;
	sr->n_read = (uint8_t)nr;
	sr->n_written = (uint8_t)nw;
	sr->reg_ops = ii->reg_operand_count;
	sr->cond = ii->branch == BR_COND && !(ii->flags & INSN_XBEGIN_XEND);
	if (nr)
		memcpy(run->regs + run->n_regs, ii->regs_read, nr * sizeof(reg_id));
	if (nw)
		memcpy(run->regs + run->n_regs + nr, ii->regs_written, nw * sizeof(reg_id));
	run->n_regs += nr + nw;
	run->next[run->n_statics].info = NULL;
	run->statics[run->n_statics].info = ev->info;
	run->statics[run->n_statics].pc = ev->pc;
	s->info = ev->info;
	s->pc = ev->pc;
	s->sid = (uint32_t)run->n_statics;
	return (int64_t)run->n_statics++;
}

static int64_t
static_lookup(struct mica_run *run, const struct insn_event *ev)
{
	for (size_t i = sh_hash(run, ev->info);; i = (i + 1) & run->sh_mask) {
		struct static_slot *s = &run->sh[i];

		if (s->info == ev->info && s->pc == ev->pc)
			return s->sid;
		if (!s->info)
			return static_new(run, s, ev);
	}
}

/* The number of ev's static instruction; -1 if out of memory. */
static inline int64_t
static_id(struct mica_run *run, const struct insn_event *ev)
{
	struct static_slot *guess = run->prev != UINT32_MAX ? &run->next[run->prev] : NULL;
	int64_t sid;

	if (guess && guess->info == ev->info && guess->pc == ev->pc) {
		sid = guess->sid;
	} else {
		sid = static_lookup(run, ev);
		if (sid < 0)
			return -1;
		if (run->prev != UINT32_MAX) {	/* the array may have moved */
			guess = &run->next[run->prev];
			guess->info = ev->info;
			guess->pc = ev->pc;
			guess->sid = (uint32_t)sid;
		}
	}
	run->prev = (uint32_t)sid;
	return sid;
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
	run->names = names;
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
	run->need_mem = cfg->analyses & (MICA_BIT(MICA_ILP) | MICA_BIT(MICA_ILP_ONE) |
					 MICA_BIT(MICA_STRIDE) | MICA_BIT(MICA_MEMFOOTPRINT) |
					 MICA_BIT(MICA_MEMSTACKDIST));
	run->prev = UINT32_MAX;
	if (sh_alloc(run, 10) < 0) {
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
		snprintf(err, errsz, "ilp_one: out of memory, or ilp_size not 1 to %u",
			 MICA_MAX_ILP_SIZE);
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
	free(run->statics);
	free(run->next);
	free(run->sregs);
	free(run->regs);
	free(run->sh);
	free(run->acc_counts);
	for (size_t i = 0; i < run->n_acc_other; i++)
		free(run->acc_other[i]);
	free(run->acc_other);
	free(run->metrics);
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

/* Process the batch (n_buf >= 1).  ILP's own boundary tests (§3.1): a
 * boundary can only be pending here at the first entry, since the batch
 * is processed as soon as one is reached. */
static __attribute__((noinline)) int
flush(struct mica_run *run)
{
	const struct mica_batch b = {
		.de = run->buf,
		.n = run->n_buf,
		.reads = run->reads,
		.writes = run->writes,
		.n_reads = run->n_reads,
		.n_writes = run->n_writes,
		.cond = run->cond,
		.n_cond = run->n_cond,
		.e0 = run->buf_e0,
		.statics = run->statics,
		.n_statics = (uint32_t)run->n_statics,
		.regs = run->regs,
		.names = run->names,
	};
	bool boundary = !run->full && !run->sampled && at_boundary(run, run->int_h);

	for (unsigned i = 0; i < run->n_ops; i++)
		if (run->ops[i]->run(run->state[i], &b) < 0)
			return -1;
	if (run->ilp) {
		if (boundary) {		/* tested before the entry */
			ilp_close(run->ilp, &run->iv.ilp);
			run->ilp_fired = true;
		}
		if (ilp_run(run->ilp, &b, 0, run->n_buf) < 0)
			return -1;
	}
	if (run->ilp_one) {
		unsigned first = boundary ? 1 : run->n_buf;

		if (ilp_run(run->ilp_one, &b, 0, first) < 0)
			return -1;
		if (boundary) {		/* tested after the entry */
			ilp_close(run->ilp_one, &run->iv.ilp_one);
			run->ilp_one_fired = true;
		}
		if (ilp_run(run->ilp_one, &b, first, run->n_buf) < 0)
			return -1;
	}
	run->buf_e0 += run->n_buf;
	run->n_buf = 0;
	run->n_reads = run->n_writes = run->n_cond = 0;
	return 0;
}

/* Close the interval: collect every analysis' counts and deliver them. */
static __attribute__((noinline)) int
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
	bool boundary = false;

	if (run->failed)
		return -1;
	run->total_h += aligned;
	run->total_e++;
	if (!run->full) {
		run->int_h += aligned;
		run->int_e++;
		boundary = !run->sampled && at_boundary(run, run->int_h);
	}

	int64_t sid = static_id(run, ev);

	if (sid < 0)
		goto fail;

	struct mica_de *d = &run->buf[run->n_buf];

	d->sid = (uint32_t)sid;
	d->taken = ev->flags & EV_TAKEN;
	d->r = run->sregs[sid];
	run->cond[run->n_cond] = (uint8_t)run->n_buf;	/* kept if it is one */
	run->n_cond += d->r.cond;

	/* MICA's view of the accesses (insn_event_mica_mem()): the first two
	 * reads, read2 with read1's size, and the first write. */
	unsigned nr = 0, nw = 0, n_mem = run->need_mem ? ev->n_mem : 0;
	uint16_t size1 = 0;

	for (unsigned i = 0; i < n_mem; i++) {
		const struct mem_access *m = &ev->mem[i];
		struct mica_access *a;

		if (m->dir == MEM_READ) {
			if (nr == 2)
				continue;
			a = &run->reads[run->n_reads++];
			if (!nr)
				size1 = m->size;
			a->op = (uint8_t)nr++;
			a->size = size1;
		} else {
			if (nw)
				continue;
			a = &run->writes[run->n_writes++];
			a->op = 2;
			a->size = m->size;
			nw++;
		}
		a->addr = m->addr;
		a->sid = (uint32_t)sid;
		a->de = (uint8_t)run->n_buf;
	}
	run->n_buf++;
	if (run->n_buf == MICA_BATCH || boundary) {
		if (flush(run) < 0)
			goto fail;
		if (boundary && deliver(run, false) < 0)
			goto fail;
	}
	return 0;
fail:
	run->failed = true;
	return -1;
}

int
mica_run_finish(struct mica_run *run)
{
	if (run->failed || run->sampled)
		return -1;
	if (run->n_buf && flush(run) < 0)
		goto fail;
	if (deliver(run, true) < 0)
		goto fail;
	return 0;
fail:
	run->failed = true;
	return -1;
}

/* ---- sample mode ---- */

int
mica_run_set_sampled(struct mica_run *run)
{
	struct mica_interval *acc = &run->acc;

	if (run->total_e || run->sampled)
		return -1;
	run->sampled = true;
	/* Interval counters run whatever interval_size says: they count the
	 * phase of the burst (mica_run_burst). */
	run->full = false;
	for (unsigned i = 0; i < run->n_ops; i++)
		if (run->ops[i]->sample)
			run->ops[i]->sample(run->state[i], MICA_SAMPLE_ON, 0);
	/* The shapes (ILP windows, itypes groups) from a close of the fresh
	 * analyses, which have counted nothing. */
	memset(acc, 0, sizeof(*acc));
	acc->analyses = run->cfg->analyses;
	for (unsigned i = 0; i < run->n_ops; i++)
		run->ops[i]->close(run->state[i], acc);
	if (run->ilp)
		ilp_take(run->ilp, &acc->ilp);
	if (run->ilp_one)
		ilp_take(run->ilp_one, &acc->ilp_one);
	if (acc->analyses & MICA_BIT(MICA_ITYPES)) {
		run->acc_counts = calloc(acc->itypes.n_groups + 1, sizeof(*run->acc_counts));
		if (!run->acc_counts)
			goto fail;
		acc->itypes.counts = run->acc_counts;
		acc->itypes.n_other = 0;
		acc->itypes.other = NULL;
	}
	run->n_metrics = mica_metrics_list(acc, NULL);
	run->metrics = calloc(run->n_metrics ? run->n_metrics : 1, sizeof(*run->metrics));
	if (!run->metrics)
		goto fail;
	mica_metrics_list(acc, run->metrics);
	return 0;
fail:
	run->failed = true;
	return -1;
}

/* The counts since the last close into out, and reset (the warm-up's, a
 * unit's, or an aborted burst's). */
static void
take_counts(struct mica_run *run, struct mica_interval *out)
{
	memset(out, 0, sizeof(*out));
	out->analyses = run->cfg->analyses;
	for (unsigned i = 0; i < run->n_ops; i++)
		if (!run->ops[i]->per_interval)
			run->ops[i]->close(run->state[i], out);
	if (run->ilp)
		ilp_take(run->ilp, &out->ilp);
	if (run->ilp_one)
		ilp_take(run->ilp_one, &out->ilp_one);
	out->ins = run->int_e;
	out->ins_aligned = run->int_h;
	run->int_e = run->int_h = 0;
}

static void
tell(struct mica_run *run, enum mica_sample_event ev)
{
	for (unsigned i = 0; i < run->n_ops; i++)
		if (run->ops[i]->sample)
			run->ops[i]->sample(run->state[i], ev, run->total_e);
}

static void
burst_start(struct mica_run *run)
{
	struct mica_interval drop;

	tell(run, MICA_BURST_START);
	if (run->ilp)
		ilp_fresh(run->ilp);
	if (run->ilp_one)
		ilp_fresh(run->ilp_one);
	take_counts(run, &drop);
	run->phase = BURST_WARM;
}

/* Keep copies of the catch-all categories the unit's itypes added (its
 * list is cumulative, and lives in the analysis). */
static int
keep_other(struct mica_run *run, const struct mica_itypes_result *it)
{
	if (it->n_other <= run->n_acc_other)
		return 0;
	char **o = realloc(run->acc_other, it->n_other * sizeof(*o));

	if (!o)
		return -1;
	run->acc_other = o;
	for (; run->n_acc_other < it->n_other; run->n_acc_other++)
		if (!(o[run->n_acc_other] = strdup(it->other[run->n_acc_other])))
			return -1;
	return 0;
}

int
mica_run_burst(struct mica_run *run, enum mica_burst_mark m)
{
	struct mica_interval u;

	if (!run->sampled || run->failed)
		return -1;
	if (run->n_buf && flush(run) < 0)
		goto fail;
	switch (m) {
	case MICA_WARMUP:
		if (run->phase != BURST_IDLE)
			return -1;
		burst_start(run);
		break;
	case MICA_MEASURE:
		if (run->phase == BURST_UNIT)
			return -1;
		if (run->phase == BURST_IDLE)
			burst_start(run);
		take_counts(run, &u);
		run->warm_e = u.ins;
		tell(run, MICA_UNIT_START);
		run->phase = BURST_UNIT;
		break;
	case MICA_END:
		if (run->phase != BURST_UNIT)
			return -1;
		take_counts(run, &u);
		if ((u.analyses & MICA_BIT(MICA_ITYPES)) && keep_other(run, &u.itypes) < 0)
			goto fail;
		mica_interval_add(&run->acc, &u, run->acc.sample.bursts == 0);
		for (size_t i = 0; i < run->n_metrics; i++) {
			uint64_t x, y;

			mica_metric_unit(&run->metrics[i], &u, &x, &y);
			ratio_sums_add(&run->metrics[i].sums, x, y);
		}
		run->acc.sample.bursts++;
		run->acc.sample.warmup_ins += run->warm_e;
		run->units_e += u.ins;
		run->units_h += u.ins_aligned;
		run->phase = BURST_IDLE;
		break;
	case MICA_ABORT:
		if (run->phase == BURST_IDLE)
			return -1;
		take_counts(run, &u);
		run->acc.sample.aborted++;
		run->phase = BURST_IDLE;
		break;
	default:
		return -1;
	}
	return 0;
fail:
	run->failed = true;
	return -1;
}

int
mica_run_sample_interval(struct mica_run *run, uint64_t index, bool final)
{
	struct mica_interval *acc = &run->acc;

	if (!run->sampled || run->failed)
		return -1;
	/* An interval in which no burst ended has no row: a thread asleep
	 * for hours costs nothing.  Its sets go on to the next interval. */
	if (!acc->sample.bursts && !acc->sample.aborted)
		return 0;
	/* Sets of the interval take every DE so far, a burst in progress
	 * included (the rest of it goes to the next interval). */
	if (run->n_buf && flush(run) < 0)
		goto fail;
	for (unsigned i = 0; i < run->n_ops; i++)
		if (run->ops[i]->per_interval)
			run->ops[i]->close(run->state[i], acc);
	acc->tid = run->tid;
	acc->index = index;
	acc->full = false;
	acc->final = final;
	/* What MICA's per-boundary lines start with: the interval's H. */
	acc->interval_size = (int64_t)acc->ins_aligned;
	acc->total_ins = run->units_e;
	acc->total_ins_aligned = run->units_h;
	acc->analyses = run->cfg->analyses;
	acc->sampled = true;
	acc->sample.n_metrics = run->n_metrics;
	acc->sample.metrics = run->metrics;
	if (acc->analyses & MICA_BIT(MICA_ITYPES)) {
		acc->itypes.n_other = run->n_acc_other;
		acc->itypes.other = (const char *const *)run->acc_other;
	}
	if (run->fn && run->fn(run->arg, acc) != 0)
		goto fail;
	/* The next interval: zero counts, the same shapes. */
	acc->ins = acc->ins_aligned = 0;
	for (unsigned w = 0; w < MICA_ILP_WINDOWS; w++)
		acc->ilp.cycles[w] = acc->ilp_one.cycles[w] = 0;
	if (run->acc_counts)
		memset(run->acc_counts, 0, (acc->itypes.n_groups + 1) * sizeof(*run->acc_counts));
	memset(&acc->ppm, 0, sizeof(acc->ppm));
	memset(&acc->reg, 0, sizeof(acc->reg));
	memset(&acc->stride, 0, sizeof(acc->stride));
	memset(&acc->memfootprint, 0, sizeof(acc->memfootprint));
	memset(&acc->memstackdist, 0, sizeof(acc->memstackdist));
	memset(&acc->sample, 0, sizeof(acc->sample));
	for (size_t i = 0; i < run->n_metrics; i++)
		memset(&run->metrics[i].sums, 0, sizeof(run->metrics[i].sums));
	return 0;
fail:
	run->failed = true;
	return -1;
}
