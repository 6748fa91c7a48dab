/*
 * The call-stack profile consumer (trace_profile.h).
 *
 * Frames are numbered in order of first appearance and found by a hash of
 * (module, symbol, offset), whose texts are trace_analysis's interned
 * pointers; stack nodes by (parent, frame) numbers, one 64-bit key.
 * Samples are appended to a pending list; when time reaches a new
 * interval the list is sorted and merged into counts per thread, interval
 * and stack, and handed to the writer with the frames and nodes that are
 * new since the last batch.
 */
#include "config.h"
#include "session/trace_profile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_profile.h"
#include "u64map.h"
#include "util.h"

/* Bounds on what a producer can make the session hold. */
#define PROFILE_MAX_FRAMES	(4u << 20)
#define PROFILE_MAX_NODES	(16u << 20)
/* Samples held before a batch goes out even within an interval (rows
 * add up: a batch need not hold a whole interval).  A test build makes
 * it small (tests/sample.mk). */
#ifndef PROFILE_MAX_PENDING
#define PROFILE_MAX_PENDING	(64u << 10)
#endif

struct pframe {
	const char *module, *symbol;	/* interned (trace_analysis_string) */
	uint64_t offset, address;
	uint32_t next;		/* the next frame with the same hash, 0 none */
};

/* One sample waiting for the next batch; or with stack 0, a count of
 * samples lost (weight: how many). */
struct pending {
	int32_t tid;
	int64_t idx;
	uint32_t stack;
	uint64_t weight;
};

struct trace_profile {
	struct trace_analysis *ta;
	struct store_writer *w;
	int64_t session;
	struct store_profile_ids *ids;	/* the writer's side */
	struct pframe *frames;	/* [number], [0] unused */
	uint32_t n_frames, cap_frames, flushed_frames;
	struct u64map frame_hash;	/* hash -> first frame number */
	struct u64map nodes;	/* parent << 32 | frame -> node number */
	uint32_t *node_parent, *node_frame, *node_depth;	/* [number] */
	uint32_t n_nodes, cap_nodes, flushed_nodes;
	struct pending *pend;
	size_t n_pend, cap_pend;
	int64_t max_idx;	/* the latest interval a sample or the clock reached */
	uint64_t samples, dropped, lost;
	bool failed;
};

struct trace_profile *
trace_profile_new(struct trace_analysis *ta, struct store_writer *w, int64_t session)
{
	struct trace_profile *p = xcalloc(1, sizeof(*p));

	p->ta = ta;
	p->w = w;
	p->session = session;
	p->ids = store_profile_ids_new();
	if (u64map_init(&p->frame_hash, 10) < 0 || u64map_init(&p->nodes, 12) < 0)
		error_msg_and_die("out of memory");
	return p;
}

void
trace_profile_free(struct trace_profile *p)
{
	if (!p)
		return;
	store_profile_ids_free(p->ids);
	u64map_free(&p->frame_hash);
	u64map_free(&p->nodes);
	free(p->frames);
	free(p->node_parent);
	free(p->node_frame);
	free(p->node_depth);
	free(p->pend);
	free(p);
}

uint64_t
trace_profile_samples(const struct trace_profile *p)
{
	return p->samples;
}

uint64_t
trace_profile_dropped(const struct trace_profile *p)
{
	return p->dropped;
}

uint64_t
trace_profile_lost(const struct trace_profile *p)
{
	return p->lost;
}

bool
trace_profile_failed(const struct trace_profile *p)
{
	return p->failed;
}

static uint64_t
frame_hash(const char *module, const char *symbol, uint64_t offset)
{
	uint64_t h = (uint64_t)(uintptr_t)module * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)symbol * 0xc2b2ae3d27d4eb4full;
	h ^= offset * 0x165667b19e3779f9ull;
	return h ^ (h >> 29);
}

/* The number of frame (module, symbol, offset), new if unknown; 0 at the
 * bound. */
static uint32_t
frame_of(struct trace_profile *p, const char *module, const char *symbol, uint64_t offset,
	 uint64_t address)
{
	uint64_t h = frame_hash(module, symbol, offset), *first;
	uint32_t f, last = 0;
	bool created;

	first = u64map_insert(&p->frame_hash, h, &created);
	if (!first)
		error_msg_and_die("out of memory");
	if (!created) {
		for (f = (uint32_t)*first; f; f = p->frames[f].next) {
			const struct pframe *x = &p->frames[f];

			if (x->module == module && x->symbol == symbol && x->offset == offset)
				return f;
			last = f;
		}
	}
	if (p->n_frames == PROFILE_MAX_FRAMES) {
		if (created)
			u64map_remove(&p->frame_hash, h);
		return 0;
	}
	if (p->n_frames + 1 >= p->cap_frames) {
		p->cap_frames = p->cap_frames ? 2 * p->cap_frames : 1024;
		p->frames = xreallocarray(p->frames, p->cap_frames, sizeof(*p->frames));
	}
	f = ++p->n_frames;
	p->frames[f] = (struct pframe){ module, symbol, offset, address, 0 };
	if (last)
		p->frames[last].next = f;	/* the end of its hash's chain */
	else
		*first = f;
	return f;
}

/* The node of frame f under parent (0: outermost), new if unknown; 0 at
 * the bound. */
static uint32_t
node_of(struct trace_profile *p, uint32_t parent, uint32_t f, uint32_t depth)
{
	uint64_t key = (uint64_t)parent << 32 | f, *x;
	bool created;

	if ((x = u64map_find(&p->nodes, key)))
		return (uint32_t)*x;
	if (p->n_nodes == PROFILE_MAX_NODES)
		return 0;
	if (!(x = u64map_insert(&p->nodes, key, &created)))
		error_msg_and_die("out of memory");
	if (p->n_nodes + 1 >= p->cap_nodes) {
		p->cap_nodes = p->cap_nodes ? 2 * p->cap_nodes : 4096;
		p->node_parent = xreallocarray(p->node_parent, p->cap_nodes, sizeof(uint32_t));
		p->node_frame = xreallocarray(p->node_frame, p->cap_nodes, sizeof(uint32_t));
		p->node_depth = xreallocarray(p->node_depth, p->cap_nodes, sizeof(uint32_t));
	}
	*x = ++p->n_nodes;
	p->node_parent[p->n_nodes] = parent;
	p->node_frame[p->n_nodes] = f;
	p->node_depth[p->n_nodes] = depth;
	return p->n_nodes;
}

static int
by_key(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* Everything pending, and the frames and nodes new since the last batch,
 * as one writer job. */
static void
flush(struct trace_profile *p)
{
	struct store_profile_batch *b;
	size_t i;

	if (!p->n_pend && p->flushed_frames == p->n_frames && p->flushed_nodes == p->n_nodes)
		return;
	b = xcalloc(1, sizeof(*b));
	b->session = p->session;
	b->n_frames = p->n_frames - p->flushed_frames;
	b->frames = xcalloc(b->n_frames ? b->n_frames : 1, sizeof(*b->frames));
	for (i = 0; i < b->n_frames; i++) {
		const struct pframe *f = &p->frames[p->flushed_frames + 1 + i];

		b->frames[i].id = p->flushed_frames + 1 + (uint32_t)i;
		b->frames[i].module = xstrdup(f->module ? f->module : "[unknown]");
		b->frames[i].symbol = f->symbol ? xstrdup(f->symbol) : NULL;
		b->frames[i].offset = f->offset;
		b->frames[i].address = f->address;
	}
	b->n_stacks = p->n_nodes - p->flushed_nodes;
	b->stacks = xcalloc(b->n_stacks ? b->n_stacks : 1, sizeof(*b->stacks));
	for (i = 0; i < b->n_stacks; i++) {
		uint32_t n = p->flushed_nodes + 1 + (uint32_t)i;

		b->stacks[i] = (struct store_profile_stack){ n, p->node_parent[n], p->node_frame[n],
							     p->node_depth[n] };
	}
	p->flushed_frames = p->n_frames;
	p->flushed_nodes = p->n_nodes;
	/* Counts per (thread, interval, stack), and per (thread, interval). */
	if (p->n_pend)
		qsort(p->pend, p->n_pend, sizeof(*p->pend), by_key);
	b->counts = xcalloc(p->n_pend ? p->n_pend : 1, sizeof(*b->counts));
	b->intervals = xcalloc(p->n_pend ? p->n_pend : 1, sizeof(*b->intervals));
	for (i = 0; i < p->n_pend; i++) {
		const struct pending *x = &p->pend[i];
		struct store_profile_count *c = b->n_counts ? &b->counts[b->n_counts - 1] : NULL;
		struct store_profile_interval *v = b->n_intervals ? &b->intervals[b->n_intervals - 1]
				: NULL;

		if (x->stack && (!c || c->tid != x->tid || c->interval != x->idx ||
				 c->stack != x->stack)) {
			c = &b->counts[b->n_counts++];
			*c = (struct store_profile_count){ x->tid, x->idx, x->stack, 0, 0 };
		}
		if (x->stack) {
			c->count++;
			c->weight += x->weight;
		}
		if (!v || v->tid != x->tid || v->idx != x->idx) {
			v = &b->intervals[b->n_intervals++];
			v->tid = x->tid;
			v->idx = x->idx;
			v->started_at = trace_analysis_interval_start(p->ta, x->idx);
			v->ended_at = trace_analysis_interval_end(p->ta, x->idx);
			v->samples = v->lost = 0;
		}
		if (x->stack)
			v->samples++;
		else
			v->lost += x->weight;
	}
	p->n_pend = 0;
	if (store_writer_profile(p->w, p->ids, b) < 0)
		p->failed = true;
}

/* A sample (stack > 0) or lost samples (stack 0) for the next batch; a
 * new interval sends the batch of the earlier ones first. */
static void
pend_add(struct trace_profile *p, int32_t tid, int64_t idx, uint32_t stack, uint64_t weight)
{
	if (idx > p->max_idx || p->n_pend == PROFILE_MAX_PENDING) {
		flush(p);
		if (idx > p->max_idx)
			p->max_idx = idx;
	}
	if (p->n_pend == p->cap_pend) {
		p->cap_pend = p->cap_pend ? 2 * p->cap_pend : 1024;
		p->pend = xreallocarray(p->pend, p->cap_pend, sizeof(*p->pend));
	}
	p->pend[p->n_pend++] = (struct pending){ tid, idx, stack, weight };
}

static void
tp_sample(void *arg, const struct trace_sample_rec *r, int64_t idx)
{
	struct trace_profile *p = arg;
	uint32_t parent = 0;

	/* Outermost frame first: the tree grows from the root. */
	for (unsigned k = r->n_frames; k-- > 0;) {
		const struct trace_frame *fr = &r->frames[k];
		const char *module = fr->module ? trace_analysis_string(p->ta, fr->module) : NULL;
		const char *symbol = fr->symbol ? trace_analysis_string(p->ta, fr->symbol) : NULL;
		uint32_t f = frame_of(p, module, symbol, fr->offset, fr->address);

		if (!f || !(parent = node_of(p, parent, f, r->n_frames - 1 - k))) {
			p->dropped++;
			return;
		}
	}
	pend_add(p, r->tid, idx, parent, r->weight);
	p->samples++;
}

/* Samples the kernel lost: added to their thread's interval like a
 * sample's count (late ones to a row already written). */
static void
tp_lost(void *arg, const struct trace_lost_rec *r, int64_t idx)
{
	struct trace_profile *p = arg;

	pend_add(p, r->tid, idx, 0, r->lost);
	p->lost += r->lost;
}

/* Time reached interval idx: the samples of earlier ones go out. */
static void
tp_interval(void *arg, void *tstate, int64_t idx)
{
	struct trace_profile *p = arg;

	(void)tstate;
	if (idx > p->max_idx) {
		flush(p);
		p->max_idx = idx;
	}
}

static void
tp_note(void *arg, const struct trace_note_rec *r)
{
	struct trace_profile *p = arg;

	if (store_writer_session_sample(p->w, p->session, r->event, r->note, r->weighting) < 0)
		p->failed = true;
}

static void
tp_finish(void *arg)
{
	struct trace_profile *p = arg;

	flush(p);
	if (p->dropped)
		warning_msg("profile: %llu samples dropped: the session has %u frames and %u "
			    "stack nodes, the most it keeps", (unsigned long long)p->dropped,
			    p->n_frames, p->n_nodes);
}

struct trace_consumer
trace_profile_consumer(struct trace_profile *p)
{
	struct trace_consumer c = {
		.finish = tp_finish, .arg = p, .interval = tp_interval, .sample = tp_sample,
		.note = tp_note, .lost = tp_lost,
	};

	return c;
}
