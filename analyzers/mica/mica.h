/*
 * The MICA analyses (spec mica.md §3): one small common interface, and
 * the structured result every interval produces.
 *
 * Each analysis lives in its own file (ilp.c, itypes.c, ppm.c, reg.c,
 * stride.c, memfootprint.c, memstackdist.c) and exports one struct
 * mica_analyzer_ops.  The driver (mica_run.h) feeds them batches of DEs,
 * decides the interval boundaries and collects their results into a struct
 * mica_interval.  Analyzers are pure: no I/O; they report allocation
 * failure through their return values.  What they keep per static
 * instruction lives in tables indexed by sid (sid_table.h).
 */
#ifndef MICAD_MICA_H
#define MICAD_MICA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "mica/mica_config.h"

struct mica_metric;

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

/*
 * The analyses work on batches of DEs: the driver (mica_run.c) copies what
 * they read of each event into a struct mica_batch, and hands them the
 * batch when it holds MICA_BATCH DEs, at each interval boundary and at the
 * end.  Each analysis then runs one tight loop over the batch, or over the
 * part of it it looks at (the reads, the writes, the conditional
 * branches): no call per DE, its state in registers, loads started a few
 * DEs ahead, and few branches that depend on the DE (those mispredict,
 * and cost more than all the rest).  The analyses share no state, so
 * running them one after the other over the same batch gives what running
 * them DE by DE gives.
 */
#define MICA_BATCH	MICA_ILP_BUFFER	/* so that the batch is ILP's buffer (§3.1) */
_Static_assert(MICA_BATCH <= 256, "mica_access.de is a uint8_t");

/* A static instruction: one per insn_info record, numbered by the driver in
 * order of first appearance (sid = index in mica_batch.statics). */
struct mica_static {
	const struct insn_info *info;
	uint64_t pc;
};

/* The registers of a static instruction, for reg and ILP, packed in the
 * driver's pool (mica_batch.regs): regs[off .. off + n_read) are read,
 * the n_written after them written (insn_info's regs_read and
 * regs_written); reg_ops is its reg_operand_count. */
struct mica_regs {
	uint32_t off;
	uint8_t n_read, n_written, reg_ops;
	uint8_t cond;		/* a conditional branch ppm predicts (BR_COND, not XBEGIN) */
};

/* One DE: its static instruction (its number, and a copy of its
 * registers) and whether a branch was taken.  Its memory accesses are in
 * the batch's lists. */
struct mica_de {
	uint32_t sid;
	bool taken;		/* EV_TAKEN */
	struct mica_regs r;
};

/* One memory access of a batch: MICA's view of a DE's accesses
 * (insn_event_mica_mem()), its first read (read1), second read (read2,
 * with read1's size) and first write. */
struct mica_access {
	uint64_t addr;
	uint32_t sid;
	uint16_t size;
	uint8_t op;		/* 0: read1, 1: read2, 2: write */
	uint8_t de;		/* the DE's index in the batch */
};

struct mica_batch {
	const struct mica_de *de;
	unsigned n;		/* 1 to MICA_BATCH */
	/* The same DEs' reads and writes, each list in program order, and
	 * the indexes of those that are conditional branches (mica_regs.cond). */
	const struct mica_access *reads, *writes;
	unsigned n_reads, n_writes;
	const uint8_t *cond;
	unsigned n_cond;
	uint64_t e0;		/* E before de[0]: de[i] is DE number e0 + i + 1 (reg's clock) */
	const struct mica_static *statics;	/* every sid so far (valid during the call) */
	uint32_t n_statics;
	const reg_id *regs;	/* the pool of struct mica_regs */
	const struct mica_names *names;
};

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
	/* Sample mode: accesses through a static operand never seen before,
	 * in reads and writes but in no local bucket (0 in step mode, where
	 * MICA measures them against address 0). */
	uint64_t first_reads, first_writes;
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
	/* Sample mode (0 in step mode): reads whose previous access is older
	 * than their burst (in refs, in no bucket and not cold), and the
	 * fewest distinct blocks a burst had seen when its measured unit
	 * began: every distance below it was observable in every unit. */
	uint64_t censored;
	uint64_t horizon;
};

/*
 * Sample mode (spec performance.md §3.3; mica_run_set_sampled()): how an
 * interval's counts were gathered.  The counts of struct mica_interval
 * are then the sums over the interval's measured units (warm-up and
 * aborted bursts excluded), except memfootprint's sets, which hold every
 * block the interval's bursts touched (a lower bound).
 */
struct mica_sample_info {
	uint64_t bursts;	/* measured units */
	uint64_t aborted;	/* bursts discarded (BURST_ABORT) */
	uint64_t warmup_ins;	/* E of the measured bursts' warm-ups */
	size_t n_metrics;
	const struct mica_metric *metrics;	/* mica_sample.h */
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
	bool sampled;			/* sample mode: sample holds the rest */
	struct mica_sample_info sample;
};

/* What sample mode tells an analysis (mica_analyzer_ops.sample), with E,
 * the DEs the thread has had so far. */
enum mica_sample_event {
	MICA_SAMPLE_ON,		/* the stream is bursts (before the first DE) */
	MICA_BURST_START,	/* a burst begins: its warm-up DEs come next */
	MICA_UNIT_START,	/* its measured unit begins */
};

/*
 * The interface of one analysis.  ILP is driven through its own entry
 * points (ilp.h) because of the interval checks made inside its buffer;
 * the others take the batches through run().
 *   create:	new state from the configuration; NULL with a message in err
 *   run:	consume the batch's DEs, in order; -1 if memory ran out
 *   close:	write the interval's counts into out and reset the interval
 *		state (the per-analysis reset lists of §3)
 *   destroy:	free
 *   sample:	sample mode's events (NULL: the analysis needs none).  In
 *		sample mode close() is called at each unit's start (the
 *		warm-up's counts are dropped) and end (the unit's counts),
 *		so the state it keeps is what spans bursts (stale warming)
 *   per_interval: close() only at the end of each sample-mode interval,
 *		the counts gathered over all its bursts (memfootprint: a
 *		set of the interval, not a sum over units)
 */
struct mica_analyzer_ops {
	enum mica_analysis id;
	void *(*create)(const struct mica_config *cfg, char *err, size_t errsz);
	int (*run)(void *st, const struct mica_batch *b);
	void (*close)(void *st, struct mica_interval *out);
	void (*destroy)(void *st);
	void (*sample)(void *st, enum mica_sample_event ev, uint64_t e);
	bool per_interval;
};

extern const struct mica_analyzer_ops mica_itypes_ops, mica_ppm_ops, mica_reg_ops,
	mica_stride_ops, mica_memfootprint_ops, mica_memstackdist_ops;

#endif /* MICAD_MICA_H */
