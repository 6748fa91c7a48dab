/*
 * ILP (spec mica.md §3.1) against a naive model written straight from the
 * spec's steps 1-7 (MICA's ring of exactly W entries, a map of blocks, no
 * batching): random streams with register chains, memory dependences over
 * one or several blocks, reads and writes at address 0, accesses that wrap
 * past the top of the address space, read2 sized as read1, and more
 * registers than ilp.c handles without a loop; ilp's 4 windows and
 * ilp_one of sizes 1 to 1000, block sizes 0, 3, 6 and 12, full mode.
 *
 * Built twice: as is, and with -DILP_REBASE small (mica_ilp_rebase), so
 * that ilp.c moves its 32-bit times down every few hundred cycles.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mica/mica_config.h"
#include "mica/mica_run.h"
#include "tap.h"

#define N_STATIC	512

static uint64_t rng;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The model: one window. */
struct model {
	uint32_t w;
	unsigned shift;
	uint64_t c, cycles, *p;
	uint32_t head, tail;
	uint64_t *reg;		/* [65536] */
	uint64_t *key, *val;	/* blocks written: open addressing, UINT64_MAX empty */
	size_t cap, n;
	uint64_t max_val;	/* the block UINT64_MAX */
	int has_max;
};

static void
model_init(struct model *m, uint32_t w, unsigned shift)
{
	memset(m, 0, sizeof(*m));
	m->w = w;
	m->shift = shift;
	m->p = calloc(w, sizeof(*m->p));
	m->reg = calloc(65536, sizeof(*m->reg));
	m->cap = 1 << 18;
	m->key = malloc(m->cap * sizeof(*m->key));
	m->val = malloc(m->cap * sizeof(*m->val));
	if (!m->p || !m->reg || !m->key || !m->val)
		abort();
	memset(m->key, 0xff, m->cap * sizeof(*m->key));
}

static void
model_free(struct model *m)
{
	free(m->p);
	free(m->reg);
	free(m->key);
	free(m->val);
}

static uint64_t *
model_block(struct model *m, uint64_t b, int insert)
{
	size_t i;

	if (b == UINT64_MAX) {
		if (insert)
			m->has_max = 1;
		return m->has_max ? &m->max_val : NULL;
	}
	for (i = (b * 0x9e3779b97f4a7c15ull) >> 46; m->key[i] != UINT64_MAX; i = (i + 1) % m->cap)
		if (m->key[i] == b)
			return &m->val[i];
	if (!insert)
		return NULL;
	if (++m->n > m->cap / 2)
		abort();	/* the streams stay far below */
	m->key[i] = b;
	return &m->val[i];
}

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* The blocks of an access: first and last (wrapping: up to the top). */
static void
blocks(uint64_t ea, uint64_t size, unsigned shift, uint64_t *first, uint64_t *last)
{
	uint64_t end = ea + size - 1;

	*first = ea >> shift;
	*last = end < ea ? UINT64_MAX >> shift : end >> shift;
}

static void
model_step(struct model *m, const struct insn_event *ev)
{
	const struct insn_info *ii = ev->info;
	const struct mem_access *r1 = NULL, *r2 = NULL, *wr = NULL;
	uint64_t t = 0, b, last;

	for (unsigned i = 0; i < ev->n_mem; i++) {
		const struct mem_access *a = &ev->mem[i];

		if (a->dir == MEM_READ && !r1)
			r1 = a;
		else if (a->dir == MEM_READ && !r2)
			r2 = a;
		else if (a->dir == MEM_WRITE && !wr)
			wr = a;
	}
	for (unsigned i = 0; i < ii->n_regs_read; i++)		/* step 2 */
		t = max64(t, m->reg[ii->regs_read[i]]);
	for (int k = 0; k < 2; k++) {				/* step 3 */
		const struct mem_access *a = k ? r2 : r1;

		if (!a || !a->addr || !r1->size)
			continue;
		blocks(a->addr, r1->size, m->shift, &b, &last);
		for (;; b++) {
			uint64_t *v = model_block(m, b, 0);

			if (v)
				t = max64(t, *v);
			if (b == last)
				break;
		}
	}
	t = max64(t, m->c);					/* step 4 */
	for (unsigned i = 0; i < ii->n_regs_written; i++)	/* step 5 */
		m->reg[ii->regs_written[i]] = t + 1;
	if (wr && wr->addr && wr->size) {			/* step 6 */
		blocks(wr->addr, wr->size, m->shift, &b, &last);
		for (;; b++) {
			*model_block(m, b, 1) = t + 1;
			if (b == last)
				break;
		}
	}
	m->p[m->tail] = t;					/* step 7 */
	m->tail = (m->tail + 1) % m->w;
	if (m->tail == m->head) {
		m->c++;
		m->cycles++;
		for (uint32_t k = 0; k < m->w && m->p[m->head] < m->c; k++)
			m->head = (m->head + 1) % m->w;
	}
}

static struct insn_info prog[N_STATIC];

static reg_id
some_reg(void)
{
	uint64_t r = rnd();

	/* mostly a few hot ids (chains), some anywhere in the 16-bit space */
	return (reg_id)(r % 8 ? 1 + (r >> 8) % 12 : 1 + (r >> 8) % 65535);
}

static void
make_program(void)
{
	for (unsigned i = 0; i < N_STATIC; i++) {
		struct insn_info *ii = &prog[i];
		uint64_t r = rnd();

		memset(ii, 0, sizeof(*ii));
		ii->pc = 0x400000 + 8 * i;
		ii->len = 1 + r % 8;
		/* up to 6 reads and 3 writes: beyond what ilp.c does without a loop */
		ii->n_regs_read = (uint8_t)((r >> 8) % 16 == 0 ? 4 + (r >> 12) % 3 : (r >> 12) % 3);
		ii->n_regs_written = (uint8_t)((r >> 16) % 16 == 0 ? 2 + (r >> 20) % 2 : (r >> 20) % 2);
		for (unsigned k = 0; k < ii->n_regs_read; k++)
			ii->regs_read[k] = some_reg();
		for (unsigned k = 0; k < ii->n_regs_written; k++)
			ii->regs_written[k] = some_reg();
	}
}

static uint64_t
some_addr(void)
{
	uint64_t r = rnd();

	switch (r % 16) {
	case 0:
		return 0;				/* no access (Q9) */
	case 1:
		return UINT64_MAX - (r >> 8) % 40;	/* wraps past the top */
	case 2:
	case 3:
		return 0x10000 + (r >> 8) % (1 << 16);	/* farther */
	default:
		return 0x7fff0000 + (r >> 8) % 512;	/* a hot stack */
	}
}

static void
make_event(struct insn_event *ev)
{
	uint64_t r = rnd();
	const struct insn_info *ii = &prog[r % N_STATIC];

	memset(ev, 0, offsetof(struct insn_event, mem));
	ev->info = ii;
	ev->pc = ii->pc;
	ev->next_pc = ii->pc + ii->len;
	r >>= 16;
	if (r % 3 == 0) {	/* read1, sometimes read2 (sized as read1) */
		ev->mem[ev->n_mem++] = (struct mem_access){ some_addr(), (uint16_t)(1 + rnd() % 100),
							    MEM_READ, 0, 0 };
		if (r % 5 == 0)
			ev->mem[ev->n_mem++] = (struct mem_access){ some_addr(), (uint16_t)(rnd() % 9),
								    MEM_READ, 0, 0 };
	}
	if (r % 4 == 1)		/* a write, sometimes of size 0 */
		ev->mem[ev->n_mem++] = (struct mem_access){ some_addr(), (uint16_t)(rnd() % 70),
							    MEM_WRITE, 0, 0 };
}

struct result {
	struct mica_ilp_result ilp, one;
	int got;
};

static int
collect(void *arg, const struct mica_interval *iv)
{
	struct result *res = arg;

	res->ilp = iv->ilp;
	res->one = iv->ilp_one;
	res->got++;
	return 0;
}

static const char *
name(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	(void)ii;
	return "X";
}

static void
check(uint32_t one, unsigned shift, unsigned long n, uint64_t seed)
{
	static const uint32_t windows[MICA_ILP_WINDOWS] = { 32, 64, 128, 256 };
	static const struct mica_names names = { name, name, NULL };
	struct model m[MICA_ILP_WINDOWS + 1];
	struct mica_config cfg;
	struct mica_run *run;
	struct result res = { .got = 0 };
	struct insn_event ev;
	char conf[200], err[256];
	int same = 1;

	snprintf(conf, sizeof(conf),
		 "analysis_type: ilp,ilp_one\ninterval_size: full\nilp_size: %u\nblock_size: %u\n",
		 (unsigned)one, shift);
	mica_config_init(&cfg);
	if (mica_config_parse(&cfg, "test", conf, strlen(conf), err, sizeof(err)) < 0 ||
	    !(run = mica_run_new(&cfg, &names, 1, collect, &res, err, sizeof(err)))) {
		ok(0, "configuration: %s", err);
		return;
	}
	for (int w = 0; w < MICA_ILP_WINDOWS; w++)
		model_init(&m[w], windows[w], shift);
	model_init(&m[MICA_ILP_WINDOWS], one, shift);
	rng = seed;
	for (unsigned long i = 0; i < n; i++) {
		make_event(&ev);
		if (mica_run_event(run, &ev) < 0)
			break;
		for (int w = 0; w <= MICA_ILP_WINDOWS; w++)
			model_step(&m[w], &ev);
	}
	ok(mica_run_finish(run) == 0 && res.got == 1, "ilp_one %u, block_size %u: %lu DEs analyzed",
	   (unsigned)one, shift, n);
	for (int w = 0; w < MICA_ILP_WINDOWS; w++)
		same &= res.ilp.cycles[w] == m[w].cycles;
	ok(same, "ilp, block_size %u: cycles %llu %llu %llu %llu as the model's", shift,
	   (unsigned long long)m[0].cycles, (unsigned long long)m[1].cycles,
	   (unsigned long long)m[2].cycles, (unsigned long long)m[3].cycles);
	if (!same)
		for (int w = 0; w < MICA_ILP_WINDOWS; w++)
			diag("window %u: got %llu", (unsigned)windows[w],
			     (unsigned long long)res.ilp.cycles[w]);
	is_u64(res.one.cycles[0], m[MICA_ILP_WINDOWS].cycles, "ilp_one %u, block_size %u: cycles",
	       (unsigned)one, shift);
	for (int w = 0; w <= MICA_ILP_WINDOWS; w++)
		model_free(&m[w]);
	mica_run_free(run);
	mica_config_free(&cfg);
}

int
main(void)
{
	static const uint32_t ones[] = { 1, 2, 3, 5, 32, 100, 256, 1000 };
	static const unsigned shifts[] = { 6, 0, 3, 12 };

	rng = 0x2545f4914f6cdd1dull;
	make_program();
	for (size_t i = 0; i < sizeof(ones) / sizeof(ones[0]); i++)
		check(ones[i], shifts[i % 4], 150000, 1000 + i);
#ifdef ILP_REBASE
	diag("built with ILP_REBASE %d: times moved down all along", ILP_REBASE);
#endif
	return done_testing();
}
