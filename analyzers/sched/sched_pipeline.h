/*
 * The scheduling analyzer's pipeline model: llvm-mca's out-of-order
 * pipeline (dispatch, scheduler buffers, issue to resource units,
 * write-back, in-order retire) run over a block of instructions repeated
 * for a number of iterations.  Pure: no I/O.
 *
 *   sched_model_find()   a CPU model by LLVM's name ("skylake", "btver2")
 *   sched_model_find14() LLVM 14's model of an -mcpu name of llvm-mca-14
 *   sched_insn_init()    one decoded instruction -> its scheduling record
 *   sched_run()          simulate; fills struct sched_result
 */
#ifndef MICAD_SCHED_PIPELINE_H
#define MICAD_SCHED_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "sched/sched_map.h"
#include "sched/tables/sched_tables.h"

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
	uint8_t cls;		/* writes: enum sched_write_class (register files) */
	uint16_t orig;		/* writes: the register as written (EDX, not RDX) */
	uint8_t uses;		/* reads: operands reading it (llvm-mca's users of the
				 * write, which rank the ready instructions); 0 = 1 */
};

enum sched_write_class {
	SCHED_W_OTHER,		/* x87, masks, ...: the default register file only */
	SCHED_W_GPR,		/* 32/64-bit general-purpose register, or the flags */
	SCHED_W_GPR_PARTIAL,	/* 8/16-bit general-purpose register */
	SCHED_W_VEC,		/* MMX or XMM */
	SCHED_W_VEC256,		/* YMM or ZMM */
};

/* One instruction of the block, as the pipeline sees it. */
struct sched_insn {
	uint32_t opcode;	/* LLVM opcode id; 0 for none */
	unsigned uops, latency;
	unsigned reg_latency;	/* of the register results, when not latency (0) */
	unsigned info_latency;	/* the instruction info's, when the simulation
				 * uses another (llvm-mca's calls: 100); 0 = latency */
	double rthroughput;
	bool may_load, may_store, has_side_effects;
	bool zero_idiom, dep_breaking;
	unsigned n_uses;
	struct sched_res_use uses[SCHED_MAX_USES];
	unsigned n_reads, n_writes;
	struct sched_operand reads[SCHED_MAX_OPERANDS];
	struct sched_operand writes[SCHED_MAX_OPERANDS];
	/* LLVM register definitions the writes above fold together (AL and
	 * AH of an 8-bit divide, the destination and the implicit EAX of
	 * cmpxchg %ecx, %eax): mappings of their own in llvm-mca's register
	 * files, full 32/64-bit and partial ones */
	uint8_t extra_defs_full, extra_defs_partial;
};

/* Simulation parameters (llvm-mca's options of the same names). */
struct sched_params {
	unsigned iterations;		/* 0 = 100 */
	unsigned dispatch_width;	/* 0 = the model's IssueWidth */
	unsigned micro_op_buffer_size;	/* 0 = the model's */
	unsigned register_file_size;	/* default register file; 0 = unlimited */
	unsigned lqueue, squeue;	/* load/store queue entries; 0 = unlimited */
	bool noalias;			/* loads do not wait for older stores */
	unsigned timeline_max_iterations;	/* iterations recorded for the timeline */
	bool bhive_env;			/* corrected model: BHive's register and
					 * memory values (ua_sim_bhive_env()) */
	bool no_bottleneck;		/* LLVM model: skip the bottleneck analysis
					 * (the bn_* counters and the critical
					 * sequence's pressure costs stay 0);
					 * everything else is unchanged */
};

/* The statistics views (-dispatch-stats, -scheduler-stats, -retire-stats,
 * -register-file-stats, -bottleneck-analysis), counted as llvm-mca does. */
enum sched_stall {
	SCHED_STALL_RAT,	/* register file full */
	SCHED_STALL_RCU,	/* reorder buffer full */
	SCHED_STALL_SCHEDQ,	/* scheduler full */
	SCHED_STALL_LQ,
	SCHED_STALL_SQ,
	SCHED_STALL_GROUP,
	SCHED_STALL_USH,
	SCHED_N_STALLS
};

#define SCHED_HIST		257	/* histogram buckets (0..256 per cycle) */
#define SCHED_MAX_BUFFERS	16
#define SCHED_MAX_PRF		3

struct sched_buffer_stat {
	const char *name;
	unsigned size, max_used;
	uint64_t cumulative;		/* entries used, summed over cycles */
};

struct sched_prf_stat {
	const char *name;		/* NULL for the default file (#0) */
	unsigned size;			/* 0 = unbounded */
	uint64_t mappings;
	unsigned max_used;
	uint64_t move_candidates, moves_eliminated, zero_moves;
	unsigned max_moves_per_cycle;
};

struct sched_stats {
	uint64_t cycles;
	uint64_t stalls[SCHED_N_STALLS];
	uint64_t frontend_stalls;		/* corrected model: rename starved */
	uint64_t dispatched[SCHED_HIST];	/* cycles in which N uops were dispatched */
	uint64_t issued[SCHED_HIST];		/* ... issued */
	uint64_t retired[SCHED_HIST];		/* ... instructions retired */
	unsigned n_buffers;
	struct sched_buffer_stat buffers[SCHED_MAX_BUFFERS];
	unsigned rob_size, rob_max;
	uint64_t rob_cumulative;
	unsigned n_prf;				/* prf[0]: the default file */
	struct sched_prf_stat prf[SCHED_MAX_PRF];
	/* Bottleneck analysis: cycles in which the backend pressure grew,
	 * and why; per resource (model index) the cycles it was the cause. */
	uint64_t bn_cycles, bn_resource, bn_data, bn_register, bn_memory;
	uint64_t bn_per_resource[SCHED_MAX_RESOURCES];
	/* Corrected model: lower bounds of the cycles per iteration, and
	 * what sets them. */
	double bound_issue, bound_ports, bound_deps;
	uint64_t bound_port_columns;		/* pressure columns of the limiting ports */
	uint16_t bound_dep_reg;			/* register of the critical chain */
};

/* One edge of the bottleneck analysis' critical sequence (llvm-mca's
 * dependency graph over three iterations): instruction indices in the
 * block, a register (Zydis id, SCHED_REG_FLAGS for the flags) or a
 * resource (model index) and how often it delayed the dependent. */
struct sched_crit_edge {
	unsigned from, to;
	uint8_t type;			/* 1 register, 2 memory, 3 resource */
	uint16_t id;
	unsigned probability;		/* percent of the iterations */
};

/* Per-dynamic-instruction cycles for the timeline view. */
struct sched_timeline_entry {
	uint32_t dispatched, ready, issued, executed, retired;
	uint32_t dispatch_end;		/* last cycle of a dispatch spread over several */
};

struct sched_result {
	unsigned iterations, n_insns;
	uint64_t total_cycles, total_uops, total_insns;
	unsigned dispatch_width;
	double block_rthroughput;
	/* Steady-state cycles per iteration: the slope of the retire cycle of
	 * each iteration's last instruction over the second half of the
	 * iterations (total cycles / iterations under 4 iterations). */
	double throughput;
	/* Resource pressure columns: one per unit of each non-group
	 * resource, in the model's order (llvm-mca's "Resources:" list). */
	unsigned n_columns;
	char (*column_names)[32];
	double *pressure;		/* [n_insns][n_columns], cycles summed over iterations */
	unsigned timeline_iterations;
	struct sched_timeline_entry *timeline;	/* [timeline_iterations][n_insns] */
	struct sched_stats stats;
	bool in_order;			/* llvm-mca's in-order pipeline (no reorder
					 * buffer: the timeline shows no retirement) */
	unsigned n_crit;		/* bottleneck analysis' critical sequence */
	struct sched_crit_edge *crit;
};

const struct sched_model *sched_model_find(const char *name);

/* LLVM 14's model that llvm-mca-14 runs for -mcpu=CPU (skx and
 * cascadelake: SkylakeServer; x86-64, nehalem: Sandy Bridge; alderlake:
 * Skylake), or NULL if llvm-mca-14 has none for the name. */
const struct sched_model *sched_model_find14(const char *cpu);

/*
 * Fill si for the decoded instruction ii mapped to m (sched_map()) on the
 * model.  Returns 0, or -1 when the model has no data for the opcode
 * (si->opcode is still set, with one uop and no resources).
 */
int sched_insn_init(const struct sched_model *model, const struct insn_info *ii,
		    const struct sched_mapping *m, struct sched_insn *si);
/* LLVM's condition-dependent CMOVcc/SETcc costs (A/BE: one uop and one
 * cycle more on Skylake, Haswell, Sandy Bridge), for llvm-mca's pipeline. */
/* Registers LLVM's opcode defines beyond the decoder's (--model=llvm). */
void sched_insn_llvm_defs(const struct insn_info *ii, struct sched_insn *si);

/* The forwarding delay llvm-mca's instruction info adds to the latency
 * of the opcode (--model=llvm). */
unsigned sched_forwarding_delay(const struct sched_model *model, uint32_t opcode);

void sched_insn_cond_variant(const struct sched_model *model, const struct insn_info *ii,
			     struct sched_insn *si);

/*
 * The corrections of the default model that fit LLVM's pipeline, for CPUs
 * without a uop-level model (sched_uarch.h): the stack engine (push, pop,
 * call and ret neither wait for nor produce RSP), zero idioms and
 * dependency breakers whatever LLVM's variant says, and move elimination
 * (register moves take no unit and no cycle).
 */
void sched_insn_correct(const struct sched_model *model, const struct insn_info *ii,
			const struct sched_mapping *m, struct sched_insn *si);

/* The LOCK_PREFIX pseudo-instruction LLVM decodes before a locked one. */
int sched_insn_lock_prefix(const struct sched_model *model, struct sched_insn *si);

/* Simulate n instructions.  Returns 0 or -1 (no memory; r is then empty).
 * Free r with sched_result_free(). */
int sched_run(const struct sched_model *model, const struct sched_params *p,
	      const struct sched_insn *insns, unsigned n, struct sched_result *r);
void sched_result_free(struct sched_result *r);

/* Steady-state cycles per iteration from the retire cycle of each
 * iteration's last instruction (struct sched_result.throughput). */
double sched_steady_throughput(const uint32_t *iter_end, unsigned iterations,
			       uint64_t total_cycles);

/*
 * llvm-mca's -instruction-tables: each instruction's resource cycles
 * spread uniformly over the units that could take them, without
 * simulation.  pressure is [n][n_columns] (the columns of sched_run());
 * returns 0, or -1 if n_columns is not the model's.
 */
int sched_instruction_tables(const struct sched_model *model, const struct sched_insn *insns,
			     unsigned n, double *pressure, unsigned n_columns);

#endif /* MICAD_SCHED_PIPELINE_H */
