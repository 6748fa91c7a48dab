/*
 * The MICA analyses in sample mode (mica_run_set_sampled, spec
 * performance.md §3.3) against references written here:
 *  - lru_stack's censoring against a naive LRU stack that keeps each
 *    block's last access time (random streams long enough to compact the
 *    slots, marks at random), and the three cases around the 2^18 cap;
 *  - mica_run's bursts against a step-mode mica_run on the same DEs whose
 *    intervals fall exactly on the bursts' warm-ups and units (bursts of
 *    S warm-up and S measured DEs, S the interval size): itypes, ppm, reg
 *    histograms of operands and ages, strides and reuse refs and cold are
 *    the odd intervals summed, aborted bursts left out; the degree of
 *    use, first-seen strides and censored reuse against naive
 *    reimplementations of the sample-mode rules; the metrics' sums
 *    against the units;
 *  - ILP with a fresh window per burst against a naive ILP (mica.md
 *    §3.1's steps, the window and ready times cleared at each burst).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mica/lru_stack.h"
#include "mica/mica_config.h"
#include "mica/mica_run.h"
#include "mica/mica_sample.h"
#include "mica/trace_text.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* ---- lru_stack censoring ---- */

struct naive_lru {
	uint64_t *stk;		/* LRU order, most recent last */
	size_t n;
	uint64_t *last;		/* [block]: time of the last access + 1, 0 never */
	uint64_t t, mark;	/* mark: time of the mark + 1, 0 none */
};

static int
naive_lru_access(struct naive_lru *o, uint64_t b, uint32_t *since)
{
	int r = LRU_STACK_COLD;
	size_t i;

	if (o->last[b]) {
		for (i = o->n; o->stk[--i] != b;)
			;
		r = o->mark && o->last[b] <= o->mark ? LRU_STACK_CENSORED
		    : lru_stack_bucket(o->n - 1 - i);
		memmove(&o->stk[i], &o->stk[i + 1], (o->n - 1 - i) * sizeof(*o->stk));
		o->n--;
	}
	o->stk[o->n++] = b;
	o->last[b] = ++o->t;
	/* distinct blocks since the mark: those last accessed after it */
	*since = 0;
	for (i = 0; o->mark && i < o->n; i++)
		*since += o->last[o->stk[i]] > o->mark;
	return r;
}

static void
test_lru_censoring(void)
{
	enum { BLOCKS = 3000, ACCESSES = 60000 };
	struct lru_stack *s = lru_stack_new();
	struct naive_lru o = { calloc(BLOCKS, sizeof(uint64_t)), 0, calloc(BLOCKS, sizeof(uint64_t)),
			       0, 0 };
	unsigned bad = 0, censored = 0, bad_since = 0, next_mark = 100;

	for (unsigned k = 0; k < ACCESSES; k++) {
		/* hot blocks near the top, a long cold tail: every bucket up
		 * to 11 is reached, and the slots are compacted many times */
		uint64_t b = rnd(4) ? rnd(64) : rnd(BLOCKS);
		uint32_t since;
		int want, got;

		if (k == next_mark) {
			lru_stack_mark(s);
			o.mark = o.t;
			next_mark += 50 + (unsigned)rnd(1500);
		}
		want = naive_lru_access(&o, b, &since);
		got = lru_stack_access(s, b);
		bad += got != want;
		censored += want == LRU_STACK_CENSORED;
		bad_since += lru_stack_distinct_since_mark(s) != since;
	}
	ok(bad == 0, "lru_stack with marks: %u accesses as the naive stack says (%u censored)",
	   ACCESSES, censored);
	ok(censored > 1000, "the random stream had censored reads");
	ok(bad_since == 0, "lru_stack_distinct_since_mark equals the naive count after every access");
	lru_stack_free(s);
	free(o.stk);
	free(o.last);

	/* Around the cap: block 0's previous access was 2^18 + 1 distinct
	 * blocks ago, so the stack has let it go. */
	const uint64_t far = LRU_STACK_CAP + 1;

	s = lru_stack_new();
	lru_stack_access(s, 0);
	for (uint64_t b = 1; b <= far; b++)
		lru_stack_access(s, b);
	lru_stack_mark(s);
	lru_stack_access(s, far + 1);
	is_u64(lru_stack_access(s, 0), (uint64_t)LRU_STACK_CENSORED,
	       "evicted before a burst that saw 1 block: censored");
	lru_stack_free(s);

	s = lru_stack_new();
	lru_stack_access(s, 0);
	lru_stack_mark(s);
	for (uint64_t b = 1; b <= far; b++)
		lru_stack_access(s, b);
	is_u64(lru_stack_access(s, 0), LRU_STACK_BUCKETS - 1,
	       "evicted within the burst: the top bucket");
	lru_stack_free(s);

	s = lru_stack_new();
	lru_stack_access(s, 0);
	lru_stack_access(s, 1);
	lru_stack_mark(s);
	for (uint64_t b = 2; b <= far + 1; b++)
		lru_stack_access(s, b);
	is_u64(lru_stack_distinct_since_mark(s), LRU_STACK_CAP,
	       "the burst saw 2^18 + 1 blocks, counted up to the stack's cap");
	is_u64(lru_stack_access(s, 0), LRU_STACK_BUCKETS - 1,
	       "evicted before a burst that saw 2^18 blocks: its distance is >= 2^18 whatever "
	       "happened between, the top bucket");
	lru_stack_free(s);
}

/* ---- the driver ---- */

#define S	24		/* DEs per warm-up, per unit, per step-mode interval */
#define BURSTS	60
#define MAXDE	(2 * S * BURSTS)

/* A random DE in the trace notation: a load, an ALU op, a store, a
 * conditional branch, over 40 static instructions and 256 data blocks
 * (addresses above 2^19: a stride from address 0 reaches no bucket). */
static void
random_de(char *buf, size_t n)
{
	unsigned k = (unsigned)rnd(40), pc = 0x400000 + 4 * k;
	uint64_t addr = 0x10000000 + 64 * rnd(rnd(3) ? 16 : 256) + 8 * rnd(8);

	switch (k % 4) {
	case 0:
		snprintf(buf, n, "pc=0x%x sz=4 cat=DATAXFER mn=MOV r=%u w=%u ops=2 mr=0x%llx:8", pc,
			 1 + k % 5, 1 + (k + 1) % 5, (unsigned long long)addr);
		break;
	case 1:
		snprintf(buf, n, "pc=0x%x sz=4 cat=BINARY mn=ADD r=%u,%u w=%u ops=2", pc, 1 + k % 5,
			 1 + (k + 2) % 5, 1 + k % 5);
		break;
	case 2:
		snprintf(buf, n, "pc=0x%x sz=4 cat=DATAXFER mn=MOV r=%u ops=2 mw=0x%llx:8", pc,
			 1 + (k + 3) % 5, (unsigned long long)addr);
		break;
	default:
		snprintf(buf, n, "pc=0x%x sz=2 br=%c", pc, rnd(3) ? 'T' : 'N');
		break;
	}
}

struct collect {
	struct mica_interval iv[2 * BURSTS + 2];
	uint64_t counts[2 * BURSTS + 2][16];
	unsigned n;
	/* the sampled one */
	struct mica_interval s;
	uint64_t s_counts[16];
	struct mica_metric metrics[256];
	size_t n_metrics;
};

static int
collect_step(void *arg, const struct mica_interval *iv)
{
	struct collect *c = arg;

	c->iv[c->n] = *iv;
	memcpy(c->counts[c->n], iv->itypes.counts, (iv->itypes.n_groups + 1) * sizeof(uint64_t));
	c->iv[c->n].itypes.counts = c->counts[c->n];
	c->n++;
	return 0;
}

static int
collect_sampled(void *arg, const struct mica_interval *iv)
{
	struct collect *c = arg;

	c->s = *iv;
	memcpy(c->s_counts, iv->itypes.counts, (iv->itypes.n_groups + 1) * sizeof(uint64_t));
	c->s.itypes.counts = c->s_counts;
	c->n_metrics = iv->sample.n_metrics;
	memcpy(c->metrics, iv->sample.metrics, c->n_metrics * sizeof(c->metrics[0]));
	c->n++;
	return 0;
}

/* The naive sample-mode rules over the events: E of each DE is its index
 * + 1; burst b's warm-up is DEs [2Sb, 2Sb + S), its unit the next S. */
struct naive_rules {
	uint64_t use_dist[MICA_REG_HIST];
	uint64_t first_reads, first_writes;
	uint64_t censored, bucket[MICA_MSD_BUCKETS];
};

static void
naive_rules(const struct insn_event *ev, unsigned n, const bool *aborted,
	    struct naive_rules *r)
{
	static uint64_t prod[8], uses[8], ref[8];
	static uint64_t stk[512], last[1 << 16];
	uint64_t seen_slot[64][3];
	unsigned nstk = 0;

	memset(r, 0, sizeof(*r));
	memset(prod, 0, sizeof(prod));
	memset(uses, 0, sizeof(uses));
	memset(ref, 0, sizeof(ref));
	memset(last, 0, sizeof(last));
	memset(seen_slot, 0, sizeof(seen_slot));
	for (unsigned i = 0; i < n; i++) {
		const struct insn_info *ii = ev[i].info;
		uint64_t e = i + 1, start = (i / (2 * S)) * 2 * S + 1;
		bool unit = i % (2 * S) >= S && !aborted[i / (2 * S)];
		unsigned slot = (unsigned)((ev[i].pc - 0x400000) / 4);

		for (unsigned k = 0; k < ii->n_regs_read; k++) {
			uses[ii->regs_read[k]]++;
			ref[ii->regs_read[k]] = 1;
		}
		for (unsigned k = 0; k < ii->n_regs_written; k++) {
			reg_id w = ii->regs_written[k];

			if (unit && ref[w] && prod[w] >= start)
				r->use_dist[uses[w] < 127 ? uses[w] : 127]++;
			prod[w] = e;
			uses[w] = 0;
			ref[w] = 1;
		}
		for (unsigned m = 0; m < ev[i].n_mem; m++) {
			const struct mem_access *a = &ev[i].mem[m];
			int op = a->dir == MEM_READ ? 0 : 2;
			uint64_t b = (a->addr >> 6) & 0xffff;

			if (!seen_slot[slot][op] && unit)
				*(op ? &r->first_writes : &r->first_reads) += 1;
			seen_slot[slot][op] = 1;
			if (op)
				continue;
			/* reuse: previous access before the burst's first DE */
			if (last[b]) {
				unsigned j = nstk;

				while (stk[--j] != b)
					;
				if (unit && last[b] < start)
					r->censored++;
				else if (unit)
					r->bucket[lru_stack_bucket(nstk - 1 - j)]++;
				memmove(&stk[j], &stk[j + 1], (nstk - 1 - j) * sizeof(*stk));
				nstk--;
			} else if (unit) {
				/* never read in a burst: the program may have read
				 * it between bursts, so censored, not cold */
				r->censored++;
			}
			stk[nstk++] = b;
			last[b] = e;
		}
	}
}

static struct mica_run *
new_run(const struct mica_config *cfg, struct trace_text *tt, mica_interval_fn fn,
	struct collect *c)
{
	char err[256];
	struct mica_run *run = mica_run_new(cfg, trace_text_names(tt), 1, fn, c, err, sizeof(err));

	if (!run)
		diag("mica_run_new: %s", err);
	return run;
}

static void
test_driver(void)
{
	static struct insn_event ev[MAXDE];
	static struct collect step, samp;
	static const char conf[] = "analysis_type: itypes,ppm,reg,stride,memstackdist\n"
				   "interval_size: 24\n";
	struct mica_config cfg;
	struct trace_text *tt = trace_text_new();
	struct mica_run *ref, *run;
	bool aborted[BURSTS];
	struct naive_rules nr;
	char err[256], line[160];
	unsigned n_units = 0;

	mica_config_init(&cfg);
	if (mica_config_parse(&cfg, "mica.conf", conf, strlen(conf), err, sizeof(err)) < 0) {
		ok(0, "config: %s", err);
		return;
	}
	for (unsigned i = 0; i < MAXDE; i++) {
		random_de(line, sizeof(line));
		if (trace_text_parse_line(tt, line, strlen(line), &ev[i], err, sizeof(err)) != 1) {
			ok(0, "trace line %s: %s", line, err);
			return;
		}
	}
	for (unsigned b = 0; b < BURSTS; b++) {
		aborted[b] = b % 7 == 3;
		n_units += !aborted[b];
	}
	ref = new_run(&cfg, tt, collect_step, &step);
	run = new_run(&cfg, tt, collect_sampled, &samp);
	if (!ref || !run)
		return;
	ok(mica_run_set_sampled(run) == 0, "mica_run_set_sampled before the first DE");
	for (unsigned i = 0; i < MAXDE; i++) {
		unsigned b = i / (2 * S), k = i % (2 * S);

		if (k == 0 && mica_run_burst(run, MICA_WARMUP) < 0)
			break;
		if (k == S && mica_run_burst(run, MICA_MEASURE) < 0)
			break;
		mica_run_event(ref, &ev[i]);
		mica_run_event(run, &ev[i]);
		if (k == 2 * S - 1 && mica_run_burst(run, aborted[b] ? MICA_ABORT : MICA_END) < 0)
			break;
	}
	ok(mica_run_finish(ref) == 0 && mica_run_sample_interval(run, 0, true) == 0 && samp.n == 1,
	   "one sampled interval delivered");
	ok(mica_run_burst(run, MICA_END) < 0, "END outside a unit is refused");
	is_u64(step.n, 2 * BURSTS + 1, "step mode: an interval per warm-up and per unit, and the end");

	/* The reference: the step-mode intervals of the units, summed. */
	struct mica_interval sum;
	uint64_t counts[16] = { 0 };

	memset(&sum, 0, sizeof(sum));
	sum.analyses = cfg.analyses;
	sum.itypes.counts = counts;
	for (unsigned b = 0; b < BURSTS; b++) {
		struct mica_interval u = step.iv[2 * b + 1];

		u.memstackdist.horizon = 0;
		if (!aborted[b])
			mica_interval_add(&sum, &u, b == 0);
	}
	const struct mica_interval *s = &samp.s;

	ok(s->sampled && s->sample.bursts == n_units && s->sample.aborted == BURSTS - n_units,
	   "%u units measured, %u bursts aborted", n_units, BURSTS - n_units);
	is_u64(s->ins, (uint64_t)S * n_units, "E: S per unit, the warm-ups and aborted bursts left out");
	is_u64(s->sample.warmup_ins, (uint64_t)S * n_units, "warm-up E counted apart");
	ok(memcmp(s->itypes.counts, counts, (s->itypes.n_groups + 1) * sizeof(uint64_t)) == 0,
	   "itypes: the units' group counts");
	ok(memcmp(&s->ppm, &sum.ppm, sizeof(s->ppm)) == 0 && s->ppm.branches > 100,
	   "ppm: misses of the 12 predictors, B, TR and TK of the units (state kept across bursts)");
	ok(memcmp(s->reg.op_count, sum.reg.op_count, sizeof(sum.reg.op_count)) == 0 &&
	   memcmp(s->reg.age_dist, sum.reg.age_dist, sizeof(sum.reg.age_dist)) == 0,
	   "reg: operand counts and dependency distances of the units");
	ok(s->stride.reads == sum.stride.reads && s->stride.writes == sum.stride.writes &&
	   memcmp(s->stride.local_read, sum.stride.local_read, sizeof(sum.stride.local_read)) == 0 &&
	   memcmp(s->stride.global_read, sum.stride.global_read, sizeof(sum.stride.global_read)) == 0 &&
	   memcmp(s->stride.local_write, sum.stride.local_write, sizeof(sum.stride.local_write)) == 0 &&
	   memcmp(s->stride.global_write, sum.stride.global_write,
		  sizeof(sum.stride.global_write)) == 0,
	   "stride: accesses and every cumulative count of the units");
	ok(s->memstackdist.refs == sum.memstackdist.refs && s->memstackdist.cold == 0 &&
	   sum.memstackdist.cold > 0,
	   "memstackdist: refs of the units, and no cold read (a block first read in a burst "
	   "may have been read between bursts)");

	naive_rules(ev, MAXDE, aborted, &nr);
	ok(memcmp(s->reg.use_dist, nr.use_dist, sizeof(nr.use_dist)) == 0,
	   "reg: degree of use only of values written in their burst");
	ok(s->stride.first_reads == nr.first_reads && s->stride.first_writes == nr.first_writes &&
	   nr.first_reads > 0, "stride: first accesses of an operand counted apart (%llu reads, "
	   "%llu writes)", (unsigned long long)nr.first_reads, (unsigned long long)nr.first_writes);
	ok(s->memstackdist.censored == nr.censored && nr.censored > 0 &&
	   memcmp(s->memstackdist.bucket, nr.bucket, sizeof(nr.bucket)) == 0,
	   "memstackdist: %llu reads whose previous access is older than the burst censored, "
	   "the rest in their buckets", (unsigned long long)nr.censored);
	uint64_t bucketed = 0;

	for (int k = 0; k < MICA_MSD_BUCKETS; k++)
		bucketed += s->memstackdist.bucket[k];
	is_u64(s->memstackdist.refs, s->memstackdist.cold + s->memstackdist.censored + bucketed,
	       "refs = cold + censored + the buckets");

	/* The metrics' sums: mix_0 and mispredict_GAg_4 from the units. */
	const struct mica_metric *mix0 = NULL, *gag4 = NULL;
	struct ratio_sums want_mix = { 0 }, want_gag = { 0 };

	for (size_t i = 0; i < samp.n_metrics; i++) {
		if (samp.metrics[i].kind == MICA_M_MIX && samp.metrics[i].arg == 0)
			mix0 = &samp.metrics[i];
		if (samp.metrics[i].kind == MICA_M_MISPREDICT && samp.metrics[i].arg == 0)
			gag4 = &samp.metrics[i];
	}
	for (unsigned b = 0; b < BURSTS; b++) {
		const struct mica_interval *u = &step.iv[2 * b + 1];

		if (aborted[b])
			continue;
		ratio_sums_add(&want_mix, u->ins, u->itypes.counts[0]);
		ratio_sums_add(&want_gag, u->ppm.branches, u->ppm.miss[0][0]);
	}
	ok(mix0 && mix0->sums.n == n_units && mix0->sums.sx == want_mix.sx &&
	   mix0->sums.sy == want_mix.sy && mix0->sums.sxy == want_mix.sxy &&
	   mix0->sums.syy == want_mix.syy && mix0->sums.sxx == want_mix.sxx,
	   "mix_0's sums are the units' (E, group 0 count)");
	ok(gag4 && gag4->sums.n == n_units && gag4->sums.sx == want_gag.sx &&
	   gag4->sums.sy == want_gag.sy && gag4->sums.syy == want_gag.syy,
	   "mispredict_GAg_4's sums are the units' (B, misses)");
	is_u64(samp.n_metrics, 13 + 26 + 9 + 28 + 40, "every ratio metric of the analyses");
	mica_run_free(ref);
	mica_run_free(run);
	mica_config_free(&cfg);
	trace_text_free(tt);
}

/* ---- ILP with fresh windows ---- */

struct naive_ilp {
	unsigned w;
	uint64_t c, win[64], head, tail;
	uint64_t reg[8];
	uint64_t mem[256];	/* ready time + 1 per block; 0 never written */
};

static void
naive_ilp_fresh(struct naive_ilp *o)
{
	o->head = o->tail;
	memset(o->reg, 0, sizeof(o->reg));
	memset(o->mem, 0, sizeof(o->mem));
}

/* mica.md §3.1's steps 1-7 for one DE; returns the cycles it added. */
static unsigned
naive_ilp_de(struct naive_ilp *o, const struct insn_event *ev)
{
	const struct insn_info *ii = ev->info;
	uint64_t t = 0;

	for (unsigned k = 0; k < ii->n_regs_read; k++)
		t = o->reg[ii->regs_read[k]] > t ? o->reg[ii->regs_read[k]] : t;
	for (unsigned m = 0; m < ev->n_mem; m++)
		if (ev->mem[m].dir == MEM_READ && o->mem[(ev->mem[m].addr >> 6) & 255] > t + 1)
			t = o->mem[(ev->mem[m].addr >> 6) & 255] - 1;
	if (t < o->c)
		t = o->c;
	for (unsigned k = 0; k < ii->n_regs_written; k++)
		o->reg[ii->regs_written[k]] = t + 1;
	for (unsigned m = 0; m < ev->n_mem; m++)
		if (ev->mem[m].dir == MEM_WRITE)
			o->mem[(ev->mem[m].addr >> 6) & 255] = t + 2;
	o->win[o->tail++ % 64] = t;
	if (o->tail - o->head < o->w)
		return 0;
	o->c++;
	while (o->head != o->tail && o->win[o->head % 64] < o->c)
		o->head++;
	if (o->tail - o->head == o->w)
		o->head = o->tail;
	return 1;
}

static int
collect_ilp(void *arg, const struct mica_interval *iv)
{
	*(uint64_t *)arg = iv->ilp_one.cycles[0];
	return 0;
}

static void
test_ilp(void)
{
	enum { DES = 3000, W = 8, WARM = 16, UNIT = 40 };
	static struct insn_event ev[DES];
	static const char conf[] = "analysis_type: ilp_one\nilp_size: 8\ninterval_size: full\n";
	struct mica_config cfg;
	struct trace_text *tt = trace_text_new();
	struct naive_ilp o = { .w = W };
	struct mica_run *run;
	uint64_t got = 0, want = 0;
	char err[256], line[160];
	unsigned i, units = 0;

	mica_config_init(&cfg);
	if (mica_config_parse(&cfg, "mica.conf", conf, strlen(conf), err, sizeof(err)) < 0) {
		ok(0, "config: %s", err);
		return;
	}
	/* Chains through 7 registers and 4 blocks: long dependences, often
	 * from the previous burst. */
	for (i = 0; i < DES; i++) {
		unsigned r = 1 + (unsigned)rnd(7), w = 1 + (unsigned)rnd(7);
		unsigned long long a = 0x20000000ull + 64 * rnd(4);

		switch (rnd(3)) {
		case 0:
			snprintf(line, sizeof(line), "pc=0x%x r=%u w=%u", 0x1000 + i % 50, r, w);
			break;
		case 1:
			snprintf(line, sizeof(line), "pc=0x%x r=%u mw=0x%llx:8", 0x1000 + i % 50, r, a);
			break;
		default:
			snprintf(line, sizeof(line), "pc=0x%x mr=0x%llx:8 w=%u", 0x1000 + i % 50, a, w);
			break;
		}
		if (trace_text_parse_line(tt, line, strlen(line), &ev[i], err, sizeof(err)) != 1) {
			ok(0, "trace line %s: %s", line, err);
			return;
		}
	}
	run = mica_run_new(&cfg, trace_text_names(tt), 1, collect_ilp, &got, err, sizeof(err));
	if (!run || mica_run_set_sampled(run) < 0) {
		ok(0, "mica_run_new: %s", err);
		return;
	}
	/* Bursts of WARM + UNIT DEs, a gap of a few DEs nobody sees between
	 * them (their effect on the registers is what fresh windows undo). */
	for (i = 0; i + WARM + UNIT < DES;) {
		mica_run_burst(run, MICA_WARMUP);
		naive_ilp_fresh(&o);
		for (unsigned k = 0; k < WARM; k++, i++) {
			mica_run_event(run, &ev[i]);
			naive_ilp_de(&o, &ev[i]);
		}
		mica_run_burst(run, MICA_MEASURE);
		for (unsigned k = 0; k < UNIT; k++, i++) {
			mica_run_event(run, &ev[i]);
			want += naive_ilp_de(&o, &ev[i]);
		}
		mica_run_burst(run, MICA_END);
		units++;
		i += 1 + (unsigned)rnd(5);
	}
	mica_run_sample_interval(run, 0, true);
	ok(want > 0 && got == want, "ilp_one W=8: %u units give the naive model's %llu cycles "
	   "(fresh window and ready times per burst, warm-up cycles left out)", units,
	   (unsigned long long)want);
	mica_run_free(run);

	/* One unit of 1 DE after a burst that left the window non-empty: a
	 * fresh window has not filled, so no cycle. */
	run = mica_run_new(&cfg, trace_text_names(tt), 1, collect_ilp, &got, err, sizeof(err));
	mica_run_set_sampled(run);
	mica_run_burst(run, MICA_MEASURE);
	for (i = 0; i < 7; i++)
		mica_run_event(run, &ev[i]);
	mica_run_burst(run, MICA_END);
	mica_run_burst(run, MICA_MEASURE);
	mica_run_event(run, &ev[7]);
	mica_run_burst(run, MICA_END);
	mica_run_sample_interval(run, 0, true);
	is_u64(got, 0, "8 DEs in two bursts of 7 and 1 never fill a window of 8");
	mica_run_free(run);
	mica_config_free(&cfg);
	trace_text_free(tt);
}

int
main(void)
{
	test_lru_censoring();
	test_driver();
	test_ilp();
	return done_testing();
}
