/*
 * ILP: issue times in a window of W DEs with unit latency and perfect
 * renaming; cycles are the times the window filled (spec mica.md §3.1).
 *
 * Kept from MICA: no drain at exit or at interval ends (Q3), the ring
 * overwrite when nothing retires (Q2), memory at block granularity, reads
 * and writes at address 0 ignored and read2 sized as read1 (Q9).
 * Fixed: a block never written in the interval is ready at 0 (B1: MICA
 * reads an uninitialised slot after each interval reset).
 *
 * Speed: the step is compiled once for 4 windows (ilp), once for 1
 * (ilp_one) and once generically, so the per-window loops unroll; the
 * memory-ready table keeps the key and the n ready times in one slot
 * (open addressing, linear probing), one probe per block.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ilp.h"

#define ILP_REGS	65536	/* every reg_id */
#define MEM_EMPTY	UINT64_MAX
#define MEM_LOG2_MIN	10

/* Per-window loops: n is a constant in each specialisation; unroll them
 * and keep t[] in registers, with branch-free maxima (the comparisons
 * are data-dependent and mispredict). */
#define FOR_W	_Pragma("GCC unroll 4") for (w = 0; w < n; w++)

static inline uint64_t
max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

struct ilp_window {
	uint32_t size;
	uint32_t head, tail;
	uint64_t clock;		/* C */
	uint64_t cycles;	/* Cint */
	uint64_t *issue;	/* P[size] */
};

struct ilp {
	unsigned n;
	unsigned block_shift;
	struct ilp_window win[MICA_ILP_WINDOWS];
	uint64_t *reg_ready;	/* [reg * n + w] */
	/* block -> ready times: slots of 1 + n words, key first */
	uint64_t *mem;
	size_t mem_mask;	/* capacity - 1 */
	unsigned mem_shift;	/* 64 - log2(capacity) */
	size_t mem_count;
	bool has_max;		/* the block UINT64_MAX (block_size 0) */
	uint64_t max_ready[MICA_ILP_WINDOWS];
};

static int
mem_alloc(struct ilp *ilp, unsigned log2_cap)
{
	size_t cap = (size_t)1 << log2_cap, stride = 1 + ilp->n;
	uint64_t *m = malloc(cap * stride * sizeof(*m));

	if (!m)
		return -1;
	for (size_t i = 0; i < cap; i++)
		m[i * stride] = MEM_EMPTY;
	ilp->mem = m;
	ilp->mem_mask = cap - 1;
	ilp->mem_shift = 64 - log2_cap;
	return 0;
}

static inline size_t
mem_hash(const struct ilp *ilp, uint64_t b)
{
	return (size_t)((b * 0x9e3779b97f4a7c15ull) >> ilp->mem_shift);
}

struct ilp *
ilp_new(const uint32_t *windows, unsigned n_windows, unsigned block_shift)
{
	struct ilp *ilp = calloc(1, sizeof(*ilp));

	if (!ilp || n_windows == 0 || n_windows > MICA_ILP_WINDOWS)
		goto fail;
	ilp->n = n_windows;
	ilp->block_shift = block_shift;
	for (unsigned w = 0; w < n_windows; w++) {
		ilp->win[w].size = windows[w];
		ilp->win[w].issue = calloc(windows[w], sizeof(uint64_t));
		if (!ilp->win[w].issue)
			goto fail;
	}
	ilp->reg_ready = calloc((size_t)ILP_REGS * n_windows, sizeof(uint64_t));
	if (!ilp->reg_ready || mem_alloc(ilp, MEM_LOG2_MIN) < 0)
		goto fail;
	return ilp;
fail:
	ilp_free(ilp);
	return NULL;
}

void
ilp_free(struct ilp *ilp)
{
	if (!ilp)
		return;
	for (unsigned w = 0; w < MICA_ILP_WINDOWS; w++)
		free(ilp->win[w].issue);
	free(ilp->reg_ready);
	free(ilp->mem);
	free(ilp);
}

void
ilp_entry_from_event(struct ilp_entry *e, const struct insn_event *ev)
{
	struct mica_mem_view v = insn_event_mica_mem(ev);

	e->info = ev->info;
	e->read1 = v.read1 ? v.read1->addr : 0;
	e->read1_size = v.read1 ? v.read1->size : 0;
	e->read2 = v.read2 ? v.read2->addr : 0;
	e->write = v.write ? v.write->addr : 0;
	e->write_size = v.write ? v.write->size : 0;
}

/* The ready times of block b, or NULL (never written: ready at 0). */
static inline const uint64_t *
mem_find(const struct ilp *ilp, uint64_t b, const unsigned n)
{
	if (__builtin_expect(b == MEM_EMPTY, 0))
		return ilp->has_max ? ilp->max_ready : NULL;
	for (size_t i = mem_hash(ilp, b);; i = (i + 1) & ilp->mem_mask) {
		const uint64_t *s = &ilp->mem[i * (1 + n)];

		if (s[0] == b)
			return s + 1;
		if (s[0] == MEM_EMPTY)
			return NULL;
	}
}

static int
mem_grow(struct ilp *ilp)
{
	uint64_t *old = ilp->mem;
	size_t old_cap = ilp->mem_mask + 1, stride = 1 + ilp->n;

	if (mem_alloc(ilp, 64 - ilp->mem_shift + 1) < 0) {
		ilp->mem = old;
		return -1;
	}
	for (size_t i = 0; i < old_cap; i++) {
		const uint64_t *s = &old[i * stride];

		if (s[0] == MEM_EMPTY)
			continue;
		size_t j = mem_hash(ilp, s[0]);

		while (ilp->mem[j * stride] != MEM_EMPTY)
			j = (j + 1) & ilp->mem_mask;
		memcpy(&ilp->mem[j * stride], s, stride * sizeof(*s));
	}
	free(old);
	return 0;
}

/* The ready times of block b, inserted if absent (their value is then
 * overwritten by the caller); NULL if out of memory. */
static inline uint64_t *
mem_slot(struct ilp *ilp, uint64_t b, const unsigned n)
{
	if (__builtin_expect(b == MEM_EMPTY, 0)) {
		ilp->has_max = true;
		return ilp->max_ready;
	}
	for (;;) {
		for (size_t i = mem_hash(ilp, b);; i = (i + 1) & ilp->mem_mask) {
			uint64_t *s = &ilp->mem[i * (1 + n)];

			if (s[0] == b)
				return s + 1;
			if (s[0] != MEM_EMPTY)
				continue;
			if ((ilp->mem_count + 1) * 2 <= ilp->mem_mask + 1) {
				s[0] = b;
				ilp->mem_count++;
				return s + 1;
			}
			break;
		}
		if (mem_grow(ilp) < 0)
			return NULL;
	}
}

void
ilp_prefetch(const struct ilp *ilp, const struct ilp_entry *e)
{
	size_t stride = 1 + ilp->n;

	/* The register lists, and only the first block of each access: a
	 * hint, never a fault. */
	__builtin_prefetch(&e->info->n_regs_read);
	if (e->read1)
		__builtin_prefetch(&ilp->mem[mem_hash(ilp, e->read1 >> ilp->block_shift) * stride]);
	if (e->read2)
		__builtin_prefetch(&ilp->mem[mem_hash(ilp, e->read2 >> ilp->block_shift) * stride]);
	if (e->write)
		__builtin_prefetch(&ilp->mem[mem_hash(ilp, e->write >> ilp->block_shift) * stride], 1);
}

static inline uint64_t
last_block(uint64_t ea, uint16_t size, unsigned shift)
{
	uint64_t end = ea + size - 1;

	/* wrapped past the top of the address space */
	return end < ea ? UINT64_MAX >> shift : end >> shift;
}

static inline __attribute__((always_inline)) void
read_blocks(const struct ilp *ilp, uint64_t ea, uint16_t size, uint64_t *t, const unsigned n)
{
	if (!ea || !size)
		return;
	uint64_t b = ea >> ilp->block_shift, last = last_block(ea, size, ilp->block_shift);

	for (;; b++) {
		const uint64_t *r = mem_find(ilp, b, n);

		if (r) {
			unsigned w;

			FOR_W
				t[w] = max_u64(t[w], r[w]);
		}
		if (b == last)
			break;
	}
}

static inline __attribute__((always_inline)) int
write_blocks(struct ilp *ilp, uint64_t ea, uint16_t size, const uint64_t *t, const unsigned n)
{
	if (!ea || !size)
		return 0;
	uint64_t b = ea >> ilp->block_shift, last = last_block(ea, size, ilp->block_shift);

	for (;; b++) {
		uint64_t *r = mem_slot(ilp, b, n);

		if (!r)
			return -1;
		unsigned w;

		FOR_W
			r[w] = t[w] + 1;
		if (b == last)
			break;
	}
	return 0;
}

static inline __attribute__((always_inline)) int
step_n(struct ilp *ilp, const struct ilp_entry *e, const unsigned n)
{
	const struct insn_info *ii = e->info;
	uint64_t t[MICA_ILP_WINDOWS] = { 0 };
	unsigned w, i;

	FOR_W
		t[w] = ilp->win[w].clock;
	for (i = 0; i < ii->n_regs_read; i++) {
		const uint64_t *r = &ilp->reg_ready[(size_t)ii->regs_read[i] * n];

		FOR_W
			t[w] = max_u64(t[w], r[w]);
	}
	read_blocks(ilp, e->read1, e->read1_size, t, n);
	read_blocks(ilp, e->read2, e->read1_size, t, n);
	for (i = 0; i < ii->n_regs_written; i++) {
		uint64_t *r = &ilp->reg_ready[(size_t)ii->regs_written[i] * n];

		FOR_W
			r[w] = t[w] + 1;
	}
	if (write_blocks(ilp, e->write, e->write_size, t, n) < 0)
		return -1;
	FOR_W {
		struct ilp_window *win = &ilp->win[w];

		win->issue[win->tail] = t[w];
		if (++win->tail == win->size)
			win->tail = 0;
		if (win->tail != win->head)
			continue;
		win->clock++;
		win->cycles++;
		for (uint32_t k = 0; k < win->size && win->issue[win->head] < win->clock; k++)
			if (++win->head == win->size)
				win->head = 0;
	}
	return 0;
}

static __attribute__((noinline)) int
step_4(struct ilp *ilp, const struct ilp_entry *e)
{
	return step_n(ilp, e, 4);
}

static __attribute__((noinline)) int
step_1(struct ilp *ilp, const struct ilp_entry *e)
{
	return step_n(ilp, e, 1);
}

int
ilp_step(struct ilp *ilp, const struct ilp_entry *e)
{
	switch (ilp->n) {
	case 4:
		return step_4(ilp, e);
	case 1:
		return step_1(ilp, e);
	default:
		return step_n(ilp, e, ilp->n);
	}
}

void
ilp_close(struct ilp *ilp, struct mica_ilp_result *out)
{
	out->n_windows = ilp->n;
	for (unsigned w = 0; w < ilp->n; w++) {
		out->window[w] = ilp->win[w].size;
		out->cycles[w] = ilp->win[w].cycles;
		ilp->win[w].cycles = 0;
	}
	/* MICA frees the map at every boundary "to avoid huge memory
	 * requirements": forget every block, and keep a table sized for what
	 * the interval used (so short intervals clear a small table). */
	unsigned log2 = MEM_LOG2_MIN;

	while (log2 < 64 - ilp->mem_shift && ((size_t)1 << log2) < 4 * ilp->mem_count)
		log2++;
	if (log2 < 64 - ilp->mem_shift) {
		uint64_t *old = ilp->mem;

		if (mem_alloc(ilp, log2) == 0) {
			free(old);
			goto cleared;
		}
	}
	for (size_t i = 0, stride = 1 + ilp->n; i <= ilp->mem_mask; i++)
		ilp->mem[i * stride] = MEM_EMPTY;
cleared:
	ilp->mem_count = 0;
	ilp->has_max = false;
}
