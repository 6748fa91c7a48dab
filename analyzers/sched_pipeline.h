/*
 * The scheduling analyzer's pipeline model: llvm-mca's out-of-order
 * pipeline (dispatch, scheduler buffers, issue to resource units,
 * write-back, in-order retire) run over a block of instructions repeated
 * for a number of iterations.  Pure: no I/O.
 *
 *   sched_model_find()   a CPU model by LLVM's name ("skylake", "btver2")
 *   sched_insn_init()    one decoded instruction -> its scheduling record
 *   sched_run()          simulate; fills struct sched_result
 */
#ifndef MICAD_SCHED_PIPELINE_H
#define MICAD_SCHED_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "sched_map.h"
#include "sched_tables.h"

#define SCHED_MAX_USES		32
#define SCHED_MAX_OPERANDS	20

/* A register operand of a scheduled instruction.  Registers are folded to
 * the full architectural register (Zydis ids); the flags are one more
 * register, SCHED_REG_FLAGS. */
#define SCHED_REG_FLAGS		0xfff0

struct sched_operand {
	uint16_t reg;
	uint8_t read_advance;	/* reads: cycles the value may arrive late (ReadAfterLd) */
	uint8_t partial;	/* writes: 8/16-bit GPR or legacy-SSE XMM write */
};

/* One instruction of the block, as the pipeline sees it. */
struct sched_insn {
	uint32_t opcode;	/* LLVM opcode id; 0 for none */
	unsigned uops, latency;
	double rthroughput;
	bool may_load, may_store, has_side_effects;
	bool zero_idiom, dep_breaking;
	unsigned n_uses;
	struct sched_res_use uses[SCHED_MAX_USES];
	unsigned n_reads, n_writes;
	struct sched_operand reads[SCHED_MAX_OPERANDS];
	struct sched_operand writes[SCHED_MAX_OPERANDS];
};

/* Simulation parameters (llvm-mca's options of the same names). */
struct sched_params {
	unsigned iterations;		/* 0 = 100 */
	unsigned dispatch_width;	/* 0 = the model's IssueWidth */
	unsigned micro_op_buffer_size;	/* 0 = the model's */
	bool noalias;			/* loads do not wait for older stores */
	unsigned timeline_max_iterations;	/* iterations recorded for the timeline */
};

/* Per-dynamic-instruction cycles for the timeline view. */
struct sched_timeline_entry {
	uint32_t dispatched, ready, issued, executed, retired;
};

struct sched_result {
	unsigned iterations, n_insns;
	uint64_t total_cycles, total_uops, total_insns;
	unsigned dispatch_width;
	double block_rthroughput;
	/* Resource pressure columns: one per unit of each non-group
	 * resource, in the model's order (llvm-mca's "Resources:" list). */
	unsigned n_columns;
	char (*column_names)[32];
	double *pressure;		/* [n_insns][n_columns], cycles summed over iterations */
	unsigned timeline_iterations;
	struct sched_timeline_entry *timeline;	/* [timeline_iterations][n_insns] */
};

const struct sched_model *sched_model_find(const char *name);

/*
 * Fill si for the decoded instruction ii mapped to m (sched_map()) on the
 * model.  Returns 0, or -1 when the model has no data for the opcode
 * (si->opcode is still set, with one uop and no resources).
 */
int sched_insn_init(const struct sched_model *model, const struct insn_info *ii,
		    const struct sched_mapping *m, struct sched_insn *si);

/* The LOCK_PREFIX pseudo-instruction LLVM decodes before a locked one. */
int sched_insn_lock_prefix(const struct sched_model *model, struct sched_insn *si);

/* Simulate n instructions.  Returns 0 or -1 (no memory; r is then empty).
 * Free r with sched_result_free(). */
int sched_run(const struct sched_model *model, const struct sched_params *p,
	      const struct sched_insn *insns, unsigned n, struct sched_result *r);
void sched_result_free(struct sched_result *r);

#endif /* MICAD_SCHED_PIPELINE_H */
