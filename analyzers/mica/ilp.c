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
 * How.  Every ready time lives in one table, the n windows' times of a
 * register or block side by side ([index * n + w], one cache line serves
 * them all): the registers by id, then ZERO (always 0) and SINK (written,
 * never read), then the blocks written in the interval, numbered at their
 * first write.  A batch is processed in two steps:
 *  - resolve: each DE gets a fixed set of sources and destinations, as
 *    indexes into the table: its first FIX_READS registers read (padded
 *    with ZERO), its first block read (ZERO if none, or never written in
 *    the interval: ready at 0), its first register written and its first
 *    block written (padded with SINK).  Anything beyond (more registers,
 *    read2, accesses over several blocks) goes to short "extra" lists.
 *    The blocks are looked up from the batch's lists of writes, then of
 *    reads (a block is numbered when the resolve meets its first write,
 *    and its times are 0 until the walk reaches that write, so a read in
 *    program order before it still sees 0);
 *  - walk: the windows go through the DEs side by side, with their clocks
 *    and heads in locals, and no branch that depends on the DE but the
 *    window-full test:
 *	T = max(C, ready[sources]); ready[destinations] = T + 1; insert T.
 *    The resolve starts loading each block's hash slot a few accesses
 *    ahead, and its times as soon as it has the index, so that the walk
 *    finds them in the cache (on a pointer chase through 32 MiB the walk
 *    spent half its time waiting for a read block's times).
 *
 * The rings are indexed by monotonic head and tail counters, their capacity
 * the power of two >= the largest W: "full" is tail - head == W (tail is
 * the same for every window).  The windows' rings are interleaved like the
 * ready times ([position * n + w]): a DE's 4 times go in with one store.  At a full event the head always retires (its producers are
 * older, hence retired, so its time is at most C); MICA's overwrite when
 * nothing retires (Q2) is therefore unreachable, but kept: the stale
 * entries are dropped.  Cycles are the clock's progress in the interval.
 *
 * Times are 32-bit, relative to a base per window, so that the 4 windows
 * of `ilp` are one SSE2 vector.  Exact: every time held is at most C + W
 * (by induction, the j-th entry from the head has T <= C + j - 1: its
 * producers are retired, so at most C, or in the window before it; a full
 * event adds 1 to C and retires at least one), and any time below C acts
 * as C (T = max(C, ...), and C only grows).  So when C passes 2^30 the
 * window's times are moved down by C, those below it becoming 0 (rebase),
 * and all stay below 2^30 + MICA_BATCH + MICA_MAX_ILP_SIZE + 1 < 2^31.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica/ilp.h"
#include "mica/sid_table.h"
#include "u64map.h"

#define ILP_REGS	65536		/* every reg_id */
#define ZERO		ILP_REGS	/* ready at 0, never written */
#define SINK		(ILP_REGS + 1)	/* written, never read */
#define BLOCK0		(ILP_REGS + 2)	/* the first block's index */
#define BLOCKS_MIN	1024
#define FIX_READS	3		/* register sources without a loop */
/* A clock that moves the times down (a smaller value, for a test build,
 * makes it happen often: -DILP_REBASE=100). */
#ifndef ILP_REBASE
#define ILP_REBASE	(1 << 30)
#endif

typedef int32_t ilp_time;
/* 4 windows' times (unaligned loads and stores allowed). */
typedef int32_t v4si __attribute__((vector_size(16), aligned(4)));

_Static_assert(ILP_REBASE + MICA_BATCH + MICA_MAX_ILP_SIZE + 1 < INT32_MAX, "times fit");

/* Per-window loops: nw is a constant in each specialisation; unroll them
 * and keep the times in registers, with branch-free maxima (the
 * comparisons are data-dependent and mispredict). */
#define FOR_W	_Pragma("GCC unroll 4") for (w = 0; w < nw; w++)

static inline ilp_time
max_t(ilp_time a, ilp_time b)
{
	return a > b ? a : b;
}

static inline v4si
max_v(v4si a, v4si b)
{
	v4si gt = a > b;

	return (a & gt) | (b & ~gt);
}

struct ilp_window {
	uint64_t size;		/* W */
	uint64_t head;		/* entries ever retired (inserted: struct ilp's tail) */
	ilp_time clock;		/* C - base */
	uint64_t base;
	uint64_t clock0;	/* C when the interval began */
};

/* A static instruction's registers, as indexes (times n). */
struct ilp_static {
	uint32_t r[FIX_READS];	/* the first ones read, ZERO after */
	uint32_t w;		/* the first one written, or SINK */
	uint32_t off;		/* in the register pool */
	uint8_t more_r, more_w;	/* beyond FIX_READS read, beyond 1 written */
	uint8_t known;
};

/* A source or destination beyond a DE's fixed ones. */
struct ilp_extra {
	uint32_t de, idx;
};

struct ilp {
	unsigned n;
	unsigned block_shift;
	struct ilp_window win[MICA_ILP_WINDOWS];
	uint64_t tail;		/* entries ever inserted, in every window */
	ilp_time *ring;		/* P - base: [(position & mask) * n + w] */
	uint64_t mask;		/* ring capacity - 1 */
	ilp_time *ready;	/* [index * n + w], minus window w's base */
	size_t blocks_cap, n_blocks, max_blocks;
	struct u64map blocks;	/* block -> number (this interval) */
	struct ilp_static *st;	/* [sid] */
	size_t n_st;
	/* The batch: each DE's block source and destination, and the extras
	 * (each list in DE order). */
	uint32_t m[MICA_BATCH], wm[MICA_BATCH];
	struct ilp_extra *xsrc, *xdst;
	size_t n_xsrc, n_xdst, cap_xsrc, cap_xdst;
};

struct ilp *
ilp_new(const uint32_t *windows, unsigned n_windows, unsigned block_shift)
{
	struct ilp *ilp = calloc(1, sizeof(*ilp));

	if (!ilp)
		return NULL;
	if (n_windows == 0 || n_windows > MICA_ILP_WINDOWS || u64map_init(&ilp->blocks, 10) < 0)
		goto fail;
	ilp->n = n_windows;
	ilp->block_shift = block_shift;
	uint64_t cap = 1;

	for (unsigned w = 0; w < n_windows; w++) {
		if (windows[w] == 0 || windows[w] > MICA_MAX_ILP_SIZE)
			goto fail;
		while (cap < windows[w])
			cap <<= 1;
		ilp->win[w].size = windows[w];
	}
	ilp->mask = cap - 1;
	if (!(ilp->ring = calloc(cap * n_windows, sizeof(ilp_time))))
		goto fail;
	/* Indexes, times n, must fit in a uint32_t. */
	ilp->max_blocks = UINT32_MAX / n_windows - BLOCK0;
	ilp->blocks_cap = BLOCKS_MIN;
	ilp->ready = calloc((BLOCK0 + ilp->blocks_cap) * n_windows, sizeof(ilp_time));
	if (!ilp->ready)
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
	free(ilp->ring);
	free(ilp->ready);
	free(ilp->st);
	free(ilp->xsrc);
	free(ilp->xdst);
	u64map_free(&ilp->blocks);
	free(ilp);
}

static int
resize_ready(struct ilp *ilp, size_t cap)
{
	ilp_time *r = realloc(ilp->ready, (BLOCK0 + cap) * ilp->n * sizeof(*r));

	if (!r)
		return -1;
	ilp->ready = r;
	ilp->blocks_cap = cap;
	return 0;
}

static int
push_extra(struct ilp_extra **l, size_t *n, size_t *cap, uint32_t de, uint32_t idx)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		struct ilp_extra *x = realloc(*l, c * sizeof(*x));

		if (!x)
			return -1;
		*l = x;
		*cap = c;
	}
	(*l)[*n].de = de;
	(*l)[(*n)++].idx = idx;
	return 0;
}

/* The blocks of [ea, ea + size): the first one in *first, and how many. */
static inline uint64_t
block_range(uint64_t ea, uint64_t size, unsigned shift, uint64_t *first)
{
	uint64_t end = ea + size - 1, last;

	*first = ea >> shift;
	/* wrapped past the top of the address space */
	last = end < ea ? UINT64_MAX >> shift : end >> shift;
	return last - *first + 1;
}

/* The index of block b, numbered now if it is new (its times 0); 0 if out
 * of memory. */
static uint32_t
block_written(struct ilp *ilp, uint64_t b)
{
	bool created = false;
	uint64_t *id = u64map_find(&ilp->blocks, b);	/* inline: the common case */

	if (!id && !(id = u64map_insert(&ilp->blocks, b, &created)))
		return 0;
	if (created) {
		if (ilp->n_blocks == ilp->max_blocks ||
		    (ilp->n_blocks == ilp->blocks_cap && resize_ready(ilp, 2 * ilp->blocks_cap) < 0)) {
			u64map_remove(&ilp->blocks, b);
			return 0;
		}
		*id = ilp->n_blocks++;
		memset(&ilp->ready[(BLOCK0 + *id) * ilp->n], 0, ilp->n * sizeof(*ilp->ready));
	}
	return (uint32_t)((BLOCK0 + *id) * ilp->n);
}

/* A static instruction's registers, from the pool. */
static void
static_init(struct ilp *ilp, struct ilp_static *st, const struct mica_regs *r, const reg_id *regs)
{
	const reg_id *rr = regs + r->off;
	unsigned nw = ilp->n;

	for (unsigned k = 0; k < FIX_READS; k++)
		st->r[k] = (k < r->n_read ? rr[k] : ZERO) * nw;
	st->w = (r->n_written ? rr[r->n_read] : SINK) * nw;
	st->off = r->off;
	st->more_r = r->n_read > FIX_READS ? (uint8_t)(r->n_read - FIX_READS) : 0;
	st->more_w = r->n_written > 1 ? (uint8_t)(r->n_written - 1) : 0;
	st->known = 1;
}

/* How many accesses ahead resolve() starts loading a block's hash slot. */
#define AHEAD	8

static inline void
prefetch_block(const struct ilp *ilp, uint64_t addr)
{
	__builtin_prefetch(&ilp->blocks.slots[u64map_hash(&ilp->blocks, addr >> ilp->block_shift)]);
}

/* Step one, for the DEs lo..hi-1 of the batch (their accesses are the
 * slices of the lists whose de index is in that range). */
static int
resolve(struct ilp *ilp, const struct mica_batch *b, unsigned lo, unsigned hi)
{
	const unsigned nw = ilp->n, shift = ilp->block_shift;
	unsigned i;

	if (b->n_statics > ilp->n_st) {
		struct ilp_static *t = mica_sid_table_grow(ilp->st, &ilp->n_st, b->n_statics,
							   sizeof(*t), 0);

		if (!t)
			return -1;
		ilp->st = t;
	}
	for (i = lo; i < hi; i++) {
		struct ilp_static *st = &ilp->st[b->de[i].sid];

		if (__builtin_expect(!st->known, 0))
			static_init(ilp, st, &b->de[i].r, b->regs);
		ilp->m[i] = ZERO * nw;
		ilp->wm[i] = SINK * nw;
	}
	ilp->n_xsrc = ilp->n_xdst = 0;
	/* Writes first: a block is numbered before any read can look it up. */
	for (i = 0; i < b->n_writes; i++) {
		const struct mica_access *a = &b->writes[i];
		uint64_t blk, count;

		if (i + AHEAD < b->n_writes)
			prefetch_block(ilp, b->writes[i + AHEAD].addr);
		if (a->de < lo || a->de >= hi || !a->addr || !a->size)
			continue;	/* address 0 is no access (Q9) */
		count = block_range(a->addr, a->size, shift, &blk);
		for (uint64_t k = 0; k < count; k++, blk++) {
			uint32_t idx = block_written(ilp, blk);

			if (!idx)
				return -1;
			__builtin_prefetch(&ilp->ready[idx], 1);
			if (!k)
				ilp->wm[a->de] = idx;
			else if (push_extra(&ilp->xdst, &ilp->n_xdst, &ilp->cap_xdst, a->de, idx) < 0)
				return -1;
		}
	}
	for (i = 0; i < b->n_reads; i++) {
		const struct mica_access *a = &b->reads[i];
		uint64_t blk, count;

		if (i + AHEAD < b->n_reads)
			prefetch_block(ilp, b->reads[i + AHEAD].addr);
		if (a->de < lo || a->de >= hi || !a->addr || !a->size)
			continue;
		count = block_range(a->addr, a->size, shift, &blk);
		for (uint64_t k = 0; k < count; k++, blk++) {
			const uint64_t *id = u64map_find(&ilp->blocks, blk);

			if (!id)	/* never written in the interval: 0 */
				continue;
			uint32_t idx = (uint32_t)((BLOCK0 + *id) * nw);

			__builtin_prefetch(&ilp->ready[idx]);
			if (!k && a->op == 0)
				ilp->m[a->de] = idx;
			else if (push_extra(&ilp->xsrc, &ilp->n_xsrc, &ilp->cap_xsrc, a->de, idx) < 0)
				return -1;
		}
	}
	return 0;
}

/* Step two: the windows over the DEs lo..hi-1 of the batch.  With 4
 * windows the times of a DE are one vector (tv), else scalars (t). */
static inline __attribute__((always_inline)) void
walk_n(struct ilp *ilp, const struct mica_batch *b, unsigned lo, unsigned hi, const unsigned nw)
{
	ilp_time c[MICA_ILP_WINDOWS];
	uint64_t head[MICA_ILP_WINDOWS], size[MICA_ILP_WINDOWS];
	ilp_time *ring = ilp->ring, *ready = ilp->ready;
	const uint64_t mask = ilp->mask;
	uint64_t tail = ilp->tail;
	const struct ilp_extra *xsrc = ilp->xsrc, *xdst = ilp->xdst;
	size_t xs = 0, xd = 0, n_xsrc = ilp->n_xsrc, n_xdst = ilp->n_xdst;
	const v4si one = { 1, 1, 1, 1 };
	v4si cv = { 0, 0, 0, 0 };
	unsigned w;

	FOR_W {
		c[w] = ilp->win[w].clock;
		head[w] = ilp->win[w].head;
		size[w] = ilp->win[w].size;
	}
	if (nw == 4)
		cv = (v4si){ c[0], c[1], c[2], c[3] };

/* t = max(t, times at index i) */
#define SOURCE(i) do {								\
		const ilp_time *r_ = ready + (i);				\
		if (nw == 4)							\
			tv = max_v(tv, *(const v4si *)r_);			\
		else								\
			FOR_W							\
				t[w] = max_t(t[w], r_[w]);			\
	} while (0)
/* times at index i = t + 1 */
#define DEST(i) do {								\
		ilp_time *d_ = ready + (i);					\
		if (nw == 4)							\
			*(v4si *)d_ = tv + one;					\
		else								\
			FOR_W							\
				d_[w] = t[w] + 1;				\
	} while (0)

	for (unsigned i = lo; i < hi; i++) {
		const struct ilp_static *st = &ilp->st[b->de[i].sid];
		ilp_time t[MICA_ILP_WINDOWS];
		v4si tv = cv;

		FOR_W
			t[w] = c[w];
		for (unsigned k = 0; k < FIX_READS; k++)
			SOURCE(st->r[k]);
		SOURCE(ilp->m[i]);
		if (__builtin_expect(st->more_r, 0)) {
			const reg_id *rr = b->regs + st->off + FIX_READS;

			for (unsigned k = 0; k < st->more_r; k++)
				SOURCE((size_t)rr[k] * nw);
		}
		for (; xs < n_xsrc && xsrc[xs].de == i; xs++)
			SOURCE(xsrc[xs].idx);
		DEST(st->w);
		DEST(ilp->wm[i]);
		if (__builtin_expect(st->more_w, 0)) {
			const reg_id *rw = b->regs + st->off + b->de[i].r.n_read + 1;

			for (unsigned k = 0; k < st->more_w; k++)
				DEST((size_t)rw[k] * nw);
		}
		for (; xd < n_xdst && xdst[xd].de == i; xd++)
			DEST(xdst[xd].idx);
		if (nw == 4) {
			*(v4si *)&ring[(tail & mask) * 4] = tv;
		} else {
			FOR_W
				ring[(tail & mask) * nw + w] = t[w];
		}
		tail++;
		FOR_W {
			if (tail - head[w] != size[w])
				continue;
			/* full: one cycle, retire in order */
			c[w]++;
			if (nw == 4)
				cv[w]++;
			while (head[w] != tail && ring[(head[w] & mask) * nw + w] < c[w])
				head[w]++;
			if (tail - head[w] == size[w])	/* nothing retired (Q2) */
				head[w] = tail;
		}
	}
#undef SOURCE
#undef DEST
	FOR_W {
		ilp->win[w].clock = c[w];
		ilp->win[w].head = head[w];
	}
	ilp->tail = tail;
}

/* Move window w's times down by its clock (see the top). */
static void
rebase(struct ilp *ilp, unsigned w)
{
	struct ilp_window *win = &ilp->win[w];
	ilp_time delta = win->clock;
	size_t n = (BLOCK0 + ilp->n_blocks) * ilp->n;

	for (size_t i = w; i < n; i += ilp->n)
		ilp->ready[i] = ilp->ready[i] > delta ? ilp->ready[i] - delta : 0;
	for (size_t i = w; i < (ilp->mask + 1) * ilp->n; i += ilp->n)
		ilp->ring[i] = ilp->ring[i] > delta ? ilp->ring[i] - delta : 0;
	win->base += (uint64_t)delta;
	win->clock = 0;
}

/* One copy per window count (1 to MICA_ILP_WINDOWS, checked by ilp_new). */
static __attribute__((noinline)) void
walk(struct ilp *ilp, const struct mica_batch *b, unsigned lo, unsigned hi)
{
	switch (ilp->n) {
	case 1:
		walk_n(ilp, b, lo, hi, 1);
		break;
	case 2:
		walk_n(ilp, b, lo, hi, 2);
		break;
	case 3:
		walk_n(ilp, b, lo, hi, 3);
		break;
	default:
		walk_n(ilp, b, lo, hi, 4);
		break;
	}
}

int
ilp_run(struct ilp *ilp, const struct mica_batch *b, unsigned lo, unsigned hi)
{
	if (lo >= hi)
		return 0;
	if (resolve(ilp, b, lo, hi) < 0)
		return -1;
	for (unsigned w = 0; w < ilp->n; w++)
		if (ilp->win[w].clock > ILP_REBASE)
			rebase(ilp, w);
	walk(ilp, b, lo, hi);
	return 0;
}

void
ilp_take(struct ilp *ilp, struct mica_ilp_result *out)
{
	out->n_windows = ilp->n;
	for (unsigned w = 0; w < ilp->n; w++) {
		struct ilp_window *win = &ilp->win[w];

		out->window[w] = (uint32_t)win->size;
		out->cycles[w] = win->base + (uint64_t)win->clock - win->clock0;
		win->clock0 = win->base + (uint64_t)win->clock;
	}
}

/*
 * Every time held is at most C + W (see the top), and a time below the
 * clock acts as the clock: moving each clock W + 1 on makes every ready
 * time "now" without touching the tables.  The cycles this adds are the
 * warm-up's, which ilp_take() drops at the unit's start.  The blocks'
 * times are then all stale: the map is cleared (which also bounds it to
 * one burst's blocks).
 */
void
ilp_fresh(struct ilp *ilp)
{
	for (unsigned w = 0; w < ilp->n; w++) {
		struct ilp_window *win = &ilp->win[w];

		win->clock += (ilp_time)win->size + 1;
		win->head = ilp->tail;
		if (win->clock > ILP_REBASE)
			rebase(ilp, w);
	}
	u64map_clear(&ilp->blocks, 10);
	ilp->n_blocks = 0;
}

void
ilp_close(struct ilp *ilp, struct mica_ilp_result *out)
{
	ilp_take(ilp, out);
	/* MICA frees the map at every boundary "to avoid huge memory
	 * requirements": forget every block, and keep tables sized for what
	 * the interval used (so short intervals clear a small map). */
	unsigned log2 = 10;

	while (log2 < 30 && ((size_t)1 << log2) < 4 * ilp->n_blocks)
		log2++;
	u64map_clear(&ilp->blocks, log2);
	if (ilp->blocks_cap > BLOCKS_MIN && ilp->blocks_cap > 4 * ilp->n_blocks) {
		size_t cap = BLOCKS_MIN;

		while (cap < 2 * ilp->n_blocks)
			cap *= 2;
		resize_ready(ilp, cap);	/* keeps the larger table if this fails */
	}
	ilp->n_blocks = 0;
}
