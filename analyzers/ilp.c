/*
 * ILP: issue times in a window of W DEs with unit latency and perfect
 * renaming; cycles are the times the window filled (spec mica.md §3.1).
 *
 * Kept from MICA: no drain at exit or at interval ends (Q3), the ring
 * overwrite when nothing retires (Q2), memory at block granularity, reads
 * and writes at address 0 ignored and read2 sized as read1 (Q9).
 * Fixed: a block never written in the interval is ready at 0 (B1: MICA
 * reads an uninitialised slot after each interval reset).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ilp.h"
#include "u64map.h"

#define ILP_REGS	65536	/* every reg_id */

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
	struct u64map mem;	/* block -> index into mem_ready */
	uint64_t *mem_ready;	/* [index * n + w] */
	size_t mem_used, mem_cap;
};

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
	if (!ilp->reg_ready || u64map_init(&ilp->mem, 10) < 0)
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
	u64map_free(&ilp->mem);
	free(ilp->mem_ready);
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

static void
read_blocks(struct ilp *ilp, uint64_t ea, uint16_t size, uint64_t *t)
{
	uint64_t b, last;

	if (!ea || !size)
		return;
	last = (ea + size - 1) >> ilp->block_shift;
	for (b = ea >> ilp->block_shift;; b++) {
		uint64_t *idx = u64map_find(&ilp->mem, b);

		if (idx) {
			const uint64_t *r = &ilp->mem_ready[*idx * ilp->n];

			for (unsigned w = 0; w < ilp->n; w++)
				if (r[w] > t[w])
					t[w] = r[w];
		}
		if (b == last)
			break;
	}
}

static int
write_blocks(struct ilp *ilp, uint64_t ea, uint16_t size, const uint64_t *t)
{
	uint64_t b, last;

	if (!ea || !size)
		return 0;
	last = (ea + size - 1) >> ilp->block_shift;
	for (b = ea >> ilp->block_shift;; b++) {
		bool created = false;
		uint64_t *idx = u64map_find(&ilp->mem, b);

		if (!idx && !(idx = u64map_insert(&ilp->mem, b, &created)))
			return -1;
		if (created) {
			if (ilp->mem_used == ilp->mem_cap) {
				size_t cap = ilp->mem_cap ? ilp->mem_cap * 2 : 1024;
				uint64_t *n = realloc(ilp->mem_ready, cap * ilp->n * sizeof(*n));

				if (!n) {
					u64map_remove(&ilp->mem, b);
					return -1;
				}
				ilp->mem_ready = n;
				ilp->mem_cap = cap;
			}
			*idx = ilp->mem_used++;
		}
		uint64_t *r = &ilp->mem_ready[*idx * ilp->n];

		for (unsigned w = 0; w < ilp->n; w++)
			r[w] = t[w] + 1;
		if (b == last)
			break;
	}
	return 0;
}

int
ilp_step(struct ilp *ilp, const struct ilp_entry *e)
{
	const struct insn_info *ii = e->info;
	uint64_t t[MICA_ILP_WINDOWS] = { 0 };
	unsigned n = ilp->n, w, i;

	for (i = 0; i < ii->n_regs_read; i++) {
		const uint64_t *r = &ilp->reg_ready[(size_t)ii->regs_read[i] * n];

		for (w = 0; w < n; w++)
			if (r[w] > t[w])
				t[w] = r[w];
	}
	read_blocks(ilp, e->read1, e->read1_size, t);
	read_blocks(ilp, e->read2, e->read1_size, t);
	for (w = 0; w < n; w++)
		if (ilp->win[w].clock > t[w])
			t[w] = ilp->win[w].clock;
	for (i = 0; i < ii->n_regs_written; i++) {
		uint64_t *r = &ilp->reg_ready[(size_t)ii->regs_written[i] * n];

		for (w = 0; w < n; w++)
			r[w] = t[w] + 1;
	}
	if (write_blocks(ilp, e->write, e->write_size, t) < 0)
		return -1;
	for (w = 0; w < n; w++) {
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
	 * requirements"; keep a modest table for the next interval. */
	u64map_clear(&ilp->mem, 16);
	ilp->mem_used = 0;
	if (ilp->mem_cap > 65536) {
		free(ilp->mem_ready);
		ilp->mem_ready = NULL;
		ilp->mem_cap = 0;
	}
}
