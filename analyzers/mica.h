/*
 * The MICA analyses (spec mica.md §3): one small common interface, and
 * the structured result every interval produces.
 *
 * Each analysis lives in its own file (ilp.c, itypes.c, ppm.c, reg.c,
 * stride.c, memfootprint.c, memstackdist.c) and exports one struct
 * mica_analyzer_ops.  The driver (mica_run.h) feeds them events, decides
 * the interval boundaries and collects their results into a struct
 * mica_interval.  Analyzers are pure: no I/O; they report allocation
 * failure through their return values.
 */
#ifndef MICAD_MICA_H
#define MICAD_MICA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "mica_config.h"

#define MICA_ILP_WINDOWS	4	/* ilp: 32, 64, 128, 256 */
#define MICA_PPM_ORGS		4	/* GAg, PAg, GAs, PAs */
#define MICA_PPM_LENGTHS	3	/* history lengths 4, 8, 12 */
#define MICA_REG_OPS		256	/* opCnt slots (MICA: 7, bug B6) */
#define MICA_REG_HIST		128	/* useDist, ageDist */
#define MICA_REG_CUM		7	/* c1 c2 c4 ... c64 */
#define MICA_STRIDE_CUM		7	/* <= 0, 8, 64, 512, 4096, 32768, 262144 */
#define MICA_MSD_BUCKETS	19

/* XED names of a static instruction, for itypes.  Decoded events resolve
 * them with decoder.h; the text trace reader with its own tables. */
struct mica_names {
	const char *(*category)(void *ctx, const struct insn_info *ii);
	const char *(*iclass)(void *ctx, const struct insn_info *ii);
	void *ctx;
};

/* What every analysis can see besides the event. */
struct mica_ctx {
	const struct mica_config *cfg;
	const struct mica_names *names;
	uint64_t total_ins;	/* E, this DE included (reg's clock) */
	/* insn_event_mica_mem() of this DE, computed once by the driver
	 * (when stride, memfootprint, memstackdist or ILP runs: the driver's
	 * need_mem list names the analyses that read it). */
	struct mica_mem_view mem;
	/* A cache per static instruction (per insn_info record) in front of
	 * the analyses' own tables: MICA_CACHE_WORDS words, one per analysis,
	 * UINT64_MAX until that analysis stores something; NULL if the driver
	 * has none (then look up as usual).  Valid during the call only. */
	uint64_t *insn_cache;
};

enum { MICA_CACHE_ITYPES, MICA_CACHE_PPM, MICA_CACHE_STRIDE, MICA_CACHE_MEMFOOTPRINT,
       MICA_CACHE_WORDS };

/* Raw counts of one interval (or of the whole run in full mode). */
struct mica_ilp_result {
	unsigned n_windows;
	uint32_t window[MICA_ILP_WINDOWS];
	uint64_t cycles[MICA_ILP_WINDOWS];
};

struct mica_itypes_result {
	unsigned n_groups;		/* user groups; counts[n_groups] is the catch-all */
	const uint64_t *counts;		/* n_groups + 1 entries */
	size_t n_other;			/* catch-all categories so far (cumulative) */
	const char *const *other;	/* discovery order */
};

struct mica_ppm_result {
	/* miss[length][org]: lengths 4, 8, 12; orgs GAg, PAg, GAs, PAs */
	uint64_t miss[MICA_PPM_LENGTHS][MICA_PPM_ORGS];
	uint64_t branches, transitions, taken;	/* B, TR, TK (folded) */
};

struct mica_reg_result {
	uint64_t op_count[MICA_REG_OPS];	/* instructions by register operand count */
	uint64_t use_dist[MICA_REG_HIST];	/* values by degree of use (capped) */
	uint64_t age_dist[MICA_REG_HIST];	/* reads by dependency distance (capped) */
};

struct mica_stride_result {
	uint64_t reads, writes;
	/* counts of strides <= 0, 8, 64, ... 262144, cumulative */
	uint64_t local_read[MICA_STRIDE_CUM], global_read[MICA_STRIDE_CUM];
	uint64_t local_write[MICA_STRIDE_CUM], global_write[MICA_STRIDE_CUM];
};

struct mica_memfootprint_result {
	uint64_t data_blocks, data_pages, insn_blocks, insn_pages;
};

struct mica_memstackdist_result {
	uint64_t refs, cold;
	uint64_t bucket[MICA_MSD_BUCKETS];
};

/*
 * One interval of one thread's stream.  Pointers inside are valid during
 * the callback that delivers it only.
 */
struct mica_interval {
	uint32_t tid;
	uint64_t index;			/* 0, 1, ... */
	bool full;			/* full mode: the whole run */
	bool final;			/* the remainder at exit (always true in full mode) */
	int64_t interval_size;		/* S */
	uint64_t ins, ins_aligned;	/* E and H of the interval (full mode: totals) */
	uint64_t total_ins, total_ins_aligned;
	unsigned analyses;		/* MICA_BIT() set of the results present */
	struct mica_ilp_result ilp, ilp_one;
	struct mica_itypes_result itypes;
	struct mica_ppm_result ppm;
	struct mica_reg_result reg;
	struct mica_stride_result stride;
	struct mica_memfootprint_result memfootprint;
	struct mica_memstackdist_result memstackdist;
};

/*
 * The interface of one analysis.  ILP is driven through its own entry
 * points (ilp.h) because of the 200-entry buffer; the others take every
 * DE through event().
 *   create:	new state from the configuration; NULL with a message in err
 *   event:	consume one DE; -1 if memory ran out
 *   close:	write the interval's counts into out and reset the interval
 *		state (the per-analysis reset lists of §3)
 *   destroy:	free
 *   prefetch:	optional hint (see below)
 */
struct mica_analyzer_ops {
	enum mica_analysis id;
	void *(*create)(const struct mica_config *cfg, char *err, size_t errsz);
	int (*event)(void *st, const struct insn_event *ev, const struct mica_ctx *ctx);
	void (*close)(void *st, struct mica_interval *out);
	void (*destroy)(void *st);
	/* Optional: a hint, called for every DE before any analysis' event():
	 * start loading what event() will need.  Must change nothing. */
	void (*prefetch)(void *st, const struct insn_event *ev, const struct mica_ctx *ctx);
};

extern const struct mica_analyzer_ops mica_itypes_ops, mica_ppm_ops, mica_reg_ops,
	mica_stride_ops, mica_memfootprint_ops, mica_memstackdist_ops;

#endif /* MICAD_MICA_H */
