/*
 * ppm (spec mica.md §3.3) against a reference written plainly from the
 * specification: for each of GAg, PAg, GAs and PAs and each history
 * length 4, 8, 12, a full set of tables T0..Th of counters (GAs and PAs
 * included: their fall-back is never used, and the reference does not
 * rely on that), prediction from the longest order with information,
 * update with update exclusion in [-127,-1] U [1,127], and the per-branch
 * taken and transition counts folded to the minority behaviour.  No
 * batching, no shortcuts.
 *
 * The streams: random outcomes with a bias per branch, periodic patterns
 * of every period up to 17, long runs of one outcome that drive counters
 * to +127 and -127 and keep them there, a branch whose outcome flips
 * every 400 executions under one global history (counters go from one
 * bound to the other and back), hundreds of static branches
 * (addresses apart in their high bits too), XBEGIN/XEND and other
 * instructions in between (not predicted, but counted in intervals), and
 * intervals of 1, 2, 7 and 1000 instructions (small odd counts per branch
 * meet the fold's boundary, n odd and x = n / 2) as well as full mode.
 * Every column of every interval is compared.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mica/mica_config.h"
#include "mica/mica_run.h"
#include "tap.h"

#define N_LEN		3
#define MAX_H		12
#define MAX_STATIC	800
#define N_OTHER		8		/* non-branch instructions */

static const unsigned len_of[N_LEN] = { 4, 8, 12 };

enum { GAG, PAG, GAS, PAS, N_ORG };

/* ---- the reference ---- */

/* One set of tables T0..Th: Ti has 2^i counters. */
struct set {
	signed char *t[MAX_H + 1];
};

static void
set_init(struct set *s, unsigned h, int value)
{
	for (unsigned i = 0; i <= h; i++) {
		s->t[i] = malloc((size_t)1 << i);
		if (!s->t[i])
			abort();
		memset(s->t[i], value, (size_t)1 << i);
	}
}

static void
set_free(struct set *s, unsigned h)
{
	for (unsigned i = 0; i <= h; i++)
		free(s->t[i]);
}

struct rbranch {
	uint64_t pc;
	int seen;			/* executed before (tables exist, last is valid) */
	unsigned local;			/* LH_b */
	int last;			/* previous outcome */
	uint64_t n, t, r;		/* this interval */
	struct set gas[N_LEN], pas[N_LEN];
};

struct ref {
	unsigned global;		/* GH */
	struct set gag[N_LEN], pag[N_LEN];
	/* The prediction and predicting order each (organisation, length)
	 * keeps when no table has information. */
	int pred[N_ORG][N_LEN];
	unsigned order[N_ORG][N_LEN];
	uint64_t miss[N_LEN][N_ORG];
	struct rbranch br[MAX_STATIC];
	unsigned n_br;
};

static void
ref_init(struct ref *r)
{
	memset(r, 0, sizeof(*r));
	for (int l = 0; l < N_LEN; l++) {
		set_init(&r->gag[l], len_of[l], 0);
		set_init(&r->pag[l], len_of[l], 0);
	}
}

static void
ref_free(struct ref *r)
{
	for (int l = 0; l < N_LEN; l++) {
		set_free(&r->gag[l], len_of[l]);
		set_free(&r->pag[l], len_of[l]);
	}
	for (unsigned b = 0; b < r->n_br; b++)
		for (int l = 0; l < N_LEN; l++) {
			set_free(&r->br[b].gas[l], len_of[l]);
			set_free(&r->br[b].pas[l], len_of[l]);
		}
}

/* Predict with set s from history hist, update it with the outcome;
 * returns 1 on a misprediction. */
static int
predict_update(struct set *s, unsigned h, unsigned hist, int taken, int *pred, unsigned *order)
{
	for (int i = (int)h; i >= 0; i--) {
		unsigned x = hist & ((1u << i) - 1);

		if (s->t[i][x] != 0) {
			*pred = s->t[i][x] > 0;
			*order = (unsigned)i;
			break;
		}
	}
	for (unsigned i = *order; i <= h; i++) {
		unsigned x = hist & ((1u << i) - 1);
		int c = s->t[i][x];

		if (taken && c != 127) {
			c = c + 1;
			if (c == 0)
				c = c + 1;
		} else if (!taken && c != -127) {
			c = c - 1;
			if (c == 0)
				c = c - 1;
		}
		s->t[i][x] = (signed char)c;
	}
	return *pred != taken;
}

static void
ref_branch(struct ref *r, uint64_t pc, int taken)
{
	struct rbranch *b = NULL;
	int pred[N_ORG][N_LEN];
	unsigned order[N_ORG][N_LEN];

	for (unsigned i = 0; i < r->n_br; i++)
		if (r->br[i].pc == pc)
			b = &r->br[i];
	if (!b) {
		if (r->n_br == MAX_STATIC)
			abort();
		b = &r->br[r->n_br++];
		b->pc = pc;
		for (int l = 0; l < N_LEN; l++) {
			set_init(&b->gas[l], len_of[l], -1);
			set_init(&b->pas[l], len_of[l], -1);
		}
	}
	/* GAs and PAs keep no state between branches: their tables always
	 * have information. */
	memcpy(pred, r->pred, sizeof(pred));
	memcpy(order, r->order, sizeof(order));
	for (int l = 0; l < N_LEN; l++) {
		unsigned h = len_of[l];

		r->miss[l][GAG] += predict_update(&r->gag[l], h, r->global, taken,
						  &pred[GAG][l], &order[GAG][l]);
		r->miss[l][PAG] += predict_update(&r->pag[l], h, b->local, taken,
						  &pred[PAG][l], &order[PAG][l]);
		r->miss[l][GAS] += predict_update(&b->gas[l], h, r->global, taken,
						  &pred[GAS][l], &order[GAS][l]);
		r->miss[l][PAS] += predict_update(&b->pas[l], h, b->local, taken,
						  &pred[PAS][l], &order[PAS][l]);
	}
	memcpy(r->pred, pred, sizeof(pred));
	memcpy(r->order, order, sizeof(order));
	r->global = r->global << 1 | (unsigned)taken;
	b->local = b->local << 1 | (unsigned)taken;
	b->n++;
	if (taken)
		b->t++;
	if (b->seen && b->last != taken)
		b->r++;
	b->seen = 1;
	b->last = taken;
}

static uint64_t
ref_fold(uint64_t x, uint64_t n)
{
	if (x > n / 2)
		return n - x;
	return x;
}

/* The 15 columns of one line, in the file's order: g4 p4 s4 q4 g8 ...
 * q12 B TR TK; the interval's counts are reset. */
static void
ref_close(struct ref *r, uint64_t col[15])
{
	uint64_t B = 0, TR = 0, TK = 0;

	for (int l = 0; l < N_LEN; l++)
		for (int o = 0; o < N_ORG; o++)
			col[4 * l + o] = r->miss[l][o];
	for (unsigned i = 0; i < r->n_br; i++) {
		struct rbranch *b = &r->br[i];

		B += b->n;
		TR += ref_fold(b->r, b->n);
		TK += ref_fold(b->t, b->n);
		b->n = b->t = b->r = 0;
	}
	col[12] = B;
	col[13] = TR;
	col[14] = TK;
	memset(r->miss, 0, sizeof(r->miss));
}

/* ---- the streams ---- */

static uint64_t rng;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* rnd() % n < k, as a probability k / n */
static int
chance(unsigned k, unsigned n)
{
	return rnd() % n < k;
}

static struct insn_info branch_info[MAX_STATIC], other_info[N_OTHER], xbegin_info;

static void
make_program(void)
{
	for (unsigned i = 0; i < MAX_STATIC; i++) {
		struct insn_info *ii = &branch_info[i];

		memset(ii, 0, sizeof(*ii));
		/* Every fourth branch far away in the address space. */
		ii->pc = 0x400000 + 16 * i + (i % 4 == 3 ? (uint64_t)i << 40 : 0);
		ii->len = 2;
		ii->branch = BR_COND;
	}
	for (unsigned i = 0; i < N_OTHER; i++) {
		memset(&other_info[i], 0, sizeof(other_info[i]));
		other_info[i].pc = 0x300000 + 4 * i;
		other_info[i].len = 3;
	}
	memset(&xbegin_info, 0, sizeof(xbegin_info));
	xbegin_info.pc = 0x200000;
	xbegin_info.len = 6;
	xbegin_info.branch = BR_COND;
	xbegin_info.flags = INSN_XBEGIN_XEND;
}

enum kind { RANDOM, PERIODIC, SATURATE, MANY, COIN, REVERSE };

struct stream {
	const char *name;
	enum kind kind;
	unsigned n_static;
	long interval;		/* -1: full */
	unsigned long n;	/* DEs */
	uint64_t seed;
};

/* The per-branch state of a generator: a bias, or a period and pattern. */
static unsigned bias[MAX_STATIC], period[MAX_STATIC], phase[MAX_STATIC];
static uint32_t pattern[MAX_STATIC];

static void
gen_init(const struct stream *s)
{
	rng = s->seed;
	for (unsigned i = 0; i < s->n_static; i++) {
		static const unsigned biases[] = { 0, 1, 5, 20, 50, 80, 95, 99, 100 };

		bias[i] = biases[rnd() % 9];
		period[i] = 1 + i % 17;
		pattern[i] = (uint32_t)rnd();
		phase[i] = 0;
	}
}

/* The next DE of the stream (k counts the DEs so far). */
static void
gen_event(const struct stream *s, unsigned long k, struct insn_event *ev)
{
	unsigned b;
	int taken;

	memset(ev, 0, sizeof(*ev));
	if (chance(1, 5)) {
		const struct insn_info *ii = chance(1, 10) ? &xbegin_info : &other_info[rnd() % N_OTHER];

		ev->info = ii;
		ev->pc = ii->pc;
		ev->next_pc = ii->pc + ii->len;
		if (ii->branch == BR_COND && chance(1, 2))
			ev->flags = EV_TAKEN;
		return;
	}
	switch (s->kind) {
	case SATURATE:
		/* Phases of 400 to 1200 branches, each of one outcome, from a
		 * few branches (every counter they reach goes to the bound
		 * and stays there), then a phase of alternation. */
		b = (unsigned)(rnd() % s->n_static);
		switch ((k / 1600) % 4) {
		case 0: taken = 1; break;
		case 1: taken = 0; break;
		case 2: taken = (int)(k / 800 % 2); break;
		default: taken = (int)(phase[b]++ % 2); break;
		}
		break;
	case REVERSE: {
		/* Branch 1 after 13 taken branch 0s, so that it always sees
		 * the same global history (all ones up to 12 bits), and its
		 * outcome flips every 400 executions: the same counters go
		 * from one bound to the other (253 steps), both ways, and
		 * stay there a while. */
		unsigned long nb = phase[0]++;

		b = nb % 14 == 13;
		taken = b ? (int)(nb / 14 / 400 % 2) : 1;
		break;
	}
	case PERIODIC:
		b = (unsigned)(rnd() % s->n_static);
		taken = (int)(pattern[b] >> (phase[b]++ % period[b]) & 1);
		break;
	case COIN:
		b = (unsigned)(rnd() % s->n_static);
		taken = chance(1, 2);
		break;
	case MANY:
	case RANDOM:
	default:
		/* Mostly a hot few, at times anywhere. */
		b = (unsigned)(chance(3, 4) ? rnd() % (s->n_static < 8 ? s->n_static : 8)
				 : rnd() % s->n_static);
		taken = chance(bias[b], 100);
		break;
	}
	ev->info = &branch_info[b];
	ev->pc = branch_info[b].pc;
	ev->next_pc = ev->pc + 2;
	if (taken)
		ev->flags = EV_TAKEN;
}

/* ---- the comparison ---- */

struct lines {
	uint64_t (*col)[15];
	size_t n, cap;
};

static void
lines_add(struct lines *l, const uint64_t col[15])
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->col = realloc(l->col, l->cap * sizeof(*l->col));
		if (!l->col)
			abort();
	}
	memcpy(l->col[l->n++], col, sizeof(*l->col));
}

static int
collect(void *arg, const struct mica_interval *iv)
{
	uint64_t col[15];

	for (int l = 0; l < N_LEN; l++)
		for (int o = 0; o < N_ORG; o++)
			col[4 * l + o] = iv->ppm.miss[l][o];
	col[12] = iv->ppm.branches;
	col[13] = iv->ppm.transitions;
	col[14] = iv->ppm.taken;
	lines_add(arg, col);
	return 0;
}

static const char *
name(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	(void)ii;
	return "X";
}

static const char *const col_name[15] = {
	"g4", "p4", "s4", "q4", "g8", "p8", "s8", "q8", "g12", "p12", "s12", "q12", "B", "TR", "TK"
};

static void
check(const struct stream *s)
{
	static const struct mica_names names = { name, name, NULL };
	static struct ref ref;
	struct lines got = { 0 }, want = { 0 };
	struct mica_config cfg;
	struct mica_run *run;
	struct insn_event ev;
	uint64_t col[15], sum[15] = { 0 };
	char conf[100], err[256];
	unsigned long h = 0;
	size_t bad = SIZE_MAX;

	if (s->interval < 0)
		snprintf(conf, sizeof(conf), "analysis_type: ppm\ninterval_size: full\n");
	else
		snprintf(conf, sizeof(conf), "analysis_type: ppm\ninterval_size: %ld\n", s->interval);
	mica_config_init(&cfg);
	if (mica_config_parse(&cfg, "test", conf, strlen(conf), err, sizeof(err)) < 0 ||
	    !(run = mica_run_new(&cfg, &names, 1, collect, &got, err, sizeof(err)))) {
		ok(0, "%s: configuration: %s", s->name, err);
		return;
	}
	ref_init(&ref);
	gen_init(s);
	for (unsigned long k = 0; k < s->n; k++) {
		gen_event(s, k, &ev);
		if (mica_run_event(run, &ev) < 0)
			break;
		if (ev.info->branch == BR_COND && !(ev.info->flags & INSN_XBEGIN_XEND))
			ref_branch(&ref, ev.pc, (ev.flags & EV_TAKEN) != 0);
		if (s->interval >= 0 && ++h == (unsigned long)s->interval) {
			ref_close(&ref, col);
			lines_add(&want, col);
			h = 0;
		}
	}
	ok(mica_run_finish(run) == 0, "%s: %lu DEs analyzed", s->name, s->n);
	ref_close(&ref, col);
	lines_add(&want, col);
	for (size_t i = 0; i < want.n; i++)
		for (int c = 0; c < 15; c++)
			sum[c] += want.col[i][c];
	for (size_t i = 0; i < want.n && i < got.n && bad == SIZE_MAX; i++)
		if (memcmp(got.col[i], want.col[i], sizeof(col)))
			bad = i;
	ok(got.n == want.n && bad == SIZE_MAX,
	   "%s: %zu lines, every column as the reference's (totals: g4 %llu p4 %llu s4 %llu "
	   "q4 %llu, g12 %llu p12 %llu s12 %llu q12 %llu, B %llu TR %llu TK %llu)",
	   s->name, want.n, (unsigned long long)sum[0], (unsigned long long)sum[1],
	   (unsigned long long)sum[2], (unsigned long long)sum[3], (unsigned long long)sum[8],
	   (unsigned long long)sum[9], (unsigned long long)sum[10], (unsigned long long)sum[11],
	   (unsigned long long)sum[12], (unsigned long long)sum[13], (unsigned long long)sum[14]);
	if (got.n != want.n)
		diag("  %zu lines, want %zu", got.n, want.n);
	if (bad != SIZE_MAX)
		for (int c = 0; c < 15; c++)
			if (got.col[bad][c] != want.col[bad][c])
				diag("  line %zu, %s: got %llu, want %llu", bad, col_name[c],
				     (unsigned long long)got.col[bad][c],
				     (unsigned long long)want.col[bad][c]);
	ref_free(&ref);
	free(got.col);
	free(want.col);
	mica_run_free(run);
	mica_config_free(&cfg);
}

/* The worked example PPM-5 through the reference: the reference itself
 * reads the specification as its authors did. */
static void
check_reference(void)
{
	static struct ref ref;
	static const uint64_t want[15] = { 2, 2, 4, 4, 2, 2, 7, 7, 2, 2, 10, 10, 18, 7, 6 };
	uint64_t col[15];

	ref_init(&ref);
	for (int k = 0; k < 18; k++)
		ref_branch(&ref, 0x10, k % 3 != 2);
	ref_close(&ref, col);
	ok(!memcmp(col, want, sizeof(col)),
	   "the reference gives PPM-5 of the specification (2 2 4 4 2 2 7 7 2 2 10 10 18 7 6)");
	ref_free(&ref);
}

int
main(void)
{
	static const struct stream streams[] = {
		{ "random, 40 branches, full", RANDOM, 40, -1, 300000, 1 },
		{ "random, 40 branches, intervals of 1000", RANDOM, 40, 1000, 300000, 2 },
		{ "periodic patterns (periods 1-17), intervals of 7", PERIODIC, 34, 7, 200000, 3 },
		{ "runs to the counters' bounds, 3 branches, full", SATURATE, 3, -1, 100000, 4 },
		{ "runs to the counters' bounds, 1 branch, intervals of 1000", SATURATE, 1, 1000,
		  50000, 5 },
		{ "a branch flipping between bounds under one history, full", REVERSE, 2, -1,
		  150000, 10 },
		{ "700 static branches, intervals of 1000", MANY, 700, 1000, 400000, 6 },
		{ "fair coins, 5 branches, intervals of 7", COIN, 5, 7, 100000, 7 },
		{ "fair coins, 2 branches, intervals of 2", COIN, 2, 2, 20000, 8 },
		{ "fair coins, 3 branches, intervals of 1", COIN, 3, 1, 5000, 9 },
	};

	make_program();
	check_reference();
	for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++)
		check(&streams[i]);
	return done_testing();
}
