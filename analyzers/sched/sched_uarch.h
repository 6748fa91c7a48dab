/*
 * The corrected scheduling model (micactl mca's default on Intel CPUs):
 * a uop-level simulation of an Intel core in the spirit of uiCA (Abel and
 * Reineke, 2022), fed with LLVM's per-instruction data.  What it models
 * that llvm-mca does not (mca.md's list, in its order):
 *   - the stack engine (push/pop/call/ret update RSP in the front end; a
 *     sync uop when RSP is then read explicitly),
 *   - fused-domain accounting (micro-fusion of load+op and store
 *     address+data, unlamination of indexed forms, issue and retire of
 *     fused uops at the real width),
 *   - the front end: 16-byte predecode windows, length-changing-prefix
 *     stalls, the instruction queue, decoders (only the first handles
 *     multi-uop instructions), the microcode sequencer, the uop queue;
 *     or, for a loop, the uop cache,
 *   - macro-fusion of flag-setting instructions with a following Jcc,
 *   - port assignment at rename from the per-port queue lengths,
 *   - move elimination and zero idioms,
 *   - per-operand latencies: an instruction is split into load, operation,
 *     store-address and store-data uops with their own inputs; fast
 *     pointer chasing; store-to-load forwarding for addresses that match
 *     through simple register arithmetic.
 * Pure: no I/O.  The engine is streaming (instructions are pushed one at
 * a time), so the same code serves the static analysis of a block and the
 * live per-interval cycles (sched_live.h).
 */
#ifndef MICAD_SCHED_UARCH_H
#define MICAD_SCHED_UARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "sched/sched_map.h"
#include "sched/sched_pipeline.h"
#include "sched/tables/sched_tables.h"

#define UA_MAX_PORTS	16
#define UA_MAX_UOPS	12
#define UA_MAX_SRCS	10

/* Parameters of one microarchitecture (sources: Intel's optimization
 * manual, uops.info, uiCA's configurations; see sched_uarch.c). */
struct sched_uarch {
	const char *name;		/* -mcpu name */
	const char *model;		/* LLVM model whose data it uses */
	const char *port_prefix;	/* "SKLPort": unit resources that are ports */
	const char *load_res, *sta_res, *std_res, *branch_res, *alu_res;
	unsigned issue_width, retire_width, rob, rs, idq, iq, lb, sb;
	unsigned predecode_width, predecode_bytes, decoders, decode_uops;
	unsigned dsb_width, dsb_window;
	unsigned ms_switch;		/* cycles lost switching to the microcode sequencer */
	unsigned fwd_delay;		/* store data -> dependent load dispatch */
	unsigned fwd_fail_delay;	/* store retired -> load that could not
					 * forward (partial overlap) may dispatch */
	unsigned fwd_save;		/* cycles a load served by store forwarding
					 * takes less than one from the cache */
	bool move_elim;			/* reg-reg moves eliminated at rename (always:
					 * uiCA's limited elimination slots were
					 * measured and did not help on BHive) */
	bool unlaminate_all;		/* SNB/IVB: every indexed micro-fused pair */
	bool fast_ptr_chase;		/* 4-cycle [base+disp<2048] loads after a load */
	bool slow_lea;			/* base+index+disp LEA: 3 cycles, port 1 */
	bool false_dep_popcnt;		/* popcnt/lzcnt/tzcnt wait for their destination */
	bool lzcnt_dep_fixed;		/* ... but lzcnt/tzcnt no longer (Skylake) */
	uint8_t shift_cl_lat;		/* register latency of SHL/SHR/SAR r,cl; 0 = LLVM's */
	bool load_ports_alternate;	/* HSW/SKL: loads go to ports 2 and 3 in
					 * turn, not to the less loaded one */
	unsigned simple_sta_port;	/* port that takes only [base+disp] store
					 * addresses (port 7), or UA_MAX_PORTS */
	bool fusible_not_last;		/* SNB..HSW: a macro-fusible instruction
					 * (cmp, test, add, sub, and, inc, dec) is
					 * not decoded by the last decoder, nor
					 * before the next one is predecoded */
	bool pop5c_complex;		/* SNB..HSW: pop %rsp / pop %r12 need the
					 * first (complex) decoder */
	bool cc_complex;		/* SNB..SKL: single-uop CMOVcc and SETcc need the
					 * first (complex) decoder */
	bool partial_load_merge;	/* HSW/SKL: a load into an 8/16-bit register
					 * merges with an ALU uop */
	uint8_t stack_page_miss;	/* cycles per 4 KiB page a block's stack
					 * moves into when unrolled (a DTLB miss
					 * that hits the STLB); 0 = not modelled */
	uint8_t cc_both_uop;		/* CMOVBE/CMOVNBE, SETBE/SETNBE read CF and
					 * ZF: the extra uop goes to 1 = the flag
					 * uop's ports (p06, p05), 2 = any ALU port */
};

/* The uarch for an -mcpu name, NULL when there is none (AMD models: the
 * corrected model is then the LLVM pipeline with sched_insn_correct()). */
const struct sched_uarch *sched_uarch_find(const char *mcpu);

enum ua_uop_kind { UA_OP, UA_LOAD, UA_STA, UA_STD };

struct ua_uop {
	uint16_t ports;		/* bit p: port p of the uarch */
	uint8_t kind;		/* enum ua_uop_kind */
	uint8_t busy;		/* cycles it keeps the busy unit (divider), 0 = none */
	uint8_t busy_unit;	/* index of that unit (struct ua_ports.busy) */
};

enum ua_insn_flags {
	UA_ZERO_IDIOM = 1 << 0,	/* no uop executes, no input dependence */
	UA_MOVE_ELIM = 1 << 1,	/* eliminated at rename: dst aliases src */
	UA_STACK_OP = 1 << 2,	/* push/pop/call/ret: RSP by the stack engine */
	UA_READS_RSP = 1 << 3,	/* reads RSP explicitly (sync uop if needed) */
	UA_WRITES_RSP = 1 << 4,	/* writes RSP explicitly */
	UA_MACRO_FIRST = 1 << 5,	/* may macro-fuse with a following Jcc */
	UA_COND_JUMP = 1 << 6,
	UA_BRANCH = 1 << 7,	/* any control transfer */
	UA_LCP = 1 << 8,	/* length-changing prefix: predecode stall */
	UA_NOP = 1 << 9,
	UA_PURE_LOAD = 1 << 10,	/* result comes from the load uop alone */
	UA_PTR_LOAD = 1 << 11,	/* [base+disp<2048] GPR load: pointer chasing */
	UA_DEP_BREAK = 1 << 12,	/* reads no data registers (pcmpeq x,x) */
	UA_SLOW_LEA = 1 << 13,	/* three-component LEA */
	UA_POP5C = 1 << 14,	/* pop %rsp / pop %r12 (opcode 5C): ends a decode group */
	UA_COMPLEX_DEC = 1 << 15,	/* one uop, but only the first decoder takes it */
	UA_DEC_FIRST = 1 << 16,	/* only the first decoder of a group takes it (more
				 * than one fused uop, UA_COMPLEX_DEC, or UA_POP5C
				 * where pop5c_complex): set by ua_insn_build() */
};

/* How the value of a written GPR relates to a register before it, for
 * matching store and load addresses. */
enum ua_vt { UA_VT_NEW, UA_VT_DELTA, UA_VT_COPY };

struct ua_mem {
	uint16_t base, index;	/* folded registers; base RIP is rip != 0 */
	uint8_t scale, rip, size;
	int64_t disp;
};

/* The value an instruction gives its first destination (a GPR) or
 * writes to memory, for ua_sim_bhive_env()'s known register and memory
 * values: op(A, B) with A the register a (0 for none), or the value
 * loaded when amem, and B the register b (its low bsize bytes, extended)
 * times scale plus imm, or the value loaded when bmem; a 4-byte result
 * is zero-extended to 64 bits, a store writes its own size. */
enum ua_ev_op {
	UA_EV_NONE,		/* unknown: a new value */
	UA_EV_B,		/* B (mov, a load, an immediate) */
	UA_EV_SAME,		/* A when A = B (cmov: either way) */
	UA_EV_ADD, UA_EV_SUB, UA_EV_AND, UA_EV_OR, UA_EV_XOR,
	UA_EV_SHL, UA_EV_SHR, UA_EV_SAR,
};

struct ua_eval {
	uint8_t op;		/* enum ua_ev_op */
	uint8_t width;		/* bytes of the destination: a register's 4 or 8, memory's */
	uint8_t scale;
	uint8_t amem, bmem;	/* A, B is the loaded value */
	uint8_t bsize;		/* bytes of B's register or load (1, 2, 4, 8) */
	uint8_t sext;		/* B's register or load is sign-extended */
	uint16_t a, b;		/* registers, 0 for none */
	int64_t imm;
};

/* One instruction as the corrected model sees it. */
struct ua_insn {
	uint32_t flags;		/* enum ua_insn_flags */
	uint8_t len;
	uint8_t opc_pos;	/* offset of the opcode byte (after prefixes, escapes) */
	uint8_t macro_class;	/* 1 cmp/test, 2 add/sub/and, 3 inc/dec (macro-fusion) */
	uint8_t cond;		/* Jcc condition (enum insn_cond) */
	uint8_t fused;		/* fused-domain uops as decoded (>= 1) */
	uint8_t unlaminated;	/* extra issue slots from unlamination */
	uint8_t n_uops;		/* unfused uops that execute */
	uint8_t n_load, n_op, n_sta, n_std;
	uint8_t load_lat, op_lat;
	int8_t stack_delta;	/* push -8, pop +8, ... */
	struct ua_uop uops[UA_MAX_UOPS];
	uint8_t n_addr, n_data, n_dst;
	uint16_t addr[4], data[UA_MAX_SRCS], dst[UA_MAX_SRCS];
	uint16_t move_src;	/* UA_MOVE_ELIM: the source register */
	uint8_t has_load_mem, has_store_mem;
	struct ua_mem load_mem, store_mem;
	uint8_t vt;		/* enum ua_vt for dst[0] when it is a GPR */
	uint16_t vt_src;
	int64_t vt_delta;
	uint16_t fe_stall;	/* cycles the front end stops after it (pause) */
	struct ua_eval ev;	/* dst[0]'s value (BHive environment) */
	struct ua_eval sv;	/* the value stored (BHive environment) */
	/* LLVM's numbers, for the instruction info view. */
	unsigned llvm_latency;
};

/* The ports of a uarch resolved against its LLVM model. */
struct ua_ports {
	unsigned n;			/* ports */
	uint8_t res[UA_MAX_PORTS];	/* model resource index of port p */
	uint8_t unit[UA_MAX_PORTS];	/* which unit of it (SBPort23 has two) */
	unsigned n_busy;
	uint8_t busy[4];		/* non-port units (dividers) */
	uint16_t load, sta, std, branch, alu;	/* port masks */
};

int ua_ports_init(const struct sched_model *model, const struct sched_uarch *ua,
		  struct ua_ports *pt);

/* Build ui for the decoded instruction ii, mapped (m) and initialised for
 * the LLVM pipeline (si, sched_insn_init()).  Returns 0. */
int ua_insn_build(const struct sched_model *model, const struct sched_uarch *ua,
		  const struct ua_ports *pt, const struct insn_info *ii,
		  const struct sched_mapping *m, const struct sched_insn *si,
		  struct ua_insn *ui);

/* ua_insn_build() of an instruction already decoded into z
 * (insn_zydis.h; NULL: it did not decode). */
struct insn_zydis;
int ua_insn_build_zydis(const struct sched_model *model, const struct sched_uarch *ua,
			const struct ua_ports *pt, const struct insn_info *ii,
			const struct insn_zydis *z, const struct sched_mapping *m,
			const struct sched_insn *si, struct ua_insn *ui);

/* Mark macro-fused pairs of a block (ui[i] with ui[i + 1]): fills fused[]
 * with 1 for the first of a pair, 2 for the Jcc absorbed by it. */
void ua_macro_fuse(const struct sched_uarch *ua, const struct ua_insn *ui, unsigned n,
		   uint8_t *fused);

/* Does b (a Jcc) macro-fuse with a (a flag-setting instruction before it)? */
bool ua_fusible(const struct ua_insn *a, const struct ua_insn *b);

/* ------------------------------------------------------------------ */
/* The streaming engine                                                */

enum ua_frontend {
	UA_FE_MITE,		/* legacy decode: predecoder, decoders (unrolled code) */
	UA_FE_DSB,		/* uop cache (a loop, or hot code) */
};

struct ua_sim;

/* Instructions a feeder keeps pushed ahead of rename before it simulates
 * a cycle (ua_run_block() and sched_live do the same, so that a block
 * fed live gives the cycles of its static analysis). */
#define UA_LOOKAHEAD	96

struct ua_stats {
	uint64_t cycles, insns, fused_uops, uops;
	uint64_t port_uops[UA_MAX_PORTS];
	/* Cycles in which rename stopped, by reason. */
	uint64_t stall_frontend, stall_rob, stall_rs, stall_lb, stall_sb;
	/* The last cycle: fused uops renamed, uops dispatched to ports,
	 * instructions retired; the occupancy at its end. */
	unsigned cyc_renamed, cyc_dispatched, cyc_retired;
	unsigned rob_used, rs_used, regs_used;
	uint64_t mappings;		/* register writes renamed */
};

struct ua_sim *ua_sim_new(const struct sched_model *model, const struct sched_uarch *ua,
			  enum ua_frontend fe);

/* BHive's measurement environment (its timing harness): every
 * general-purpose register starts at 0x2324000 but RSP (that plus 0x800)
 * and RBP (plus 0x7f0), every virtual page maps one physical page whose
 * 8-byte words all start at 0x2324000.  The engine follows the values
 * it can (moves, immediates, add/sub/logic/shift, lea, loads, stores), so
 * that addresses are known where the harness makes them known; a load
 * and an older store to the same offset of the page depend on each other
 * (through forwarding at the same virtual address, through the cache
 * once the store is written at another).  Call before pushing
 * anything.  -1: out of memory (the engine is left as it was). */
int ua_sim_bhive_env(struct ua_sim *s);
void ua_sim_free(struct ua_sim *s);

/* Instructions the front end still holds (pushed, not yet renamed). */
unsigned ua_sim_queued(const struct ua_sim *s);

/*
 * Push one instruction in program order.  addr: its fetch address (for
 * the predecode and uop-cache windows); tag: the caller's, reported back
 * per instruction (e.g. block index and iteration); fuse: 1 if it
 * macro-fuses with the next pushed instruction, 2 if it is absorbed by the
 * previous one (ua_macro_fuse()); taken: a taken branch ends the fetch
 * block after it (DSB front end); mem_addr: the effective address of its
 * memory operand when known (live streams; 0 = unknown: matched through
 * register arithmetic).  ui must stay valid until the instruction
 * retires.  Returns 0, or -1 when the window is full (run cycles first).
 */
int ua_sim_push(struct ua_sim *s, const struct ua_insn *ui, uint64_t addr, uint32_t tag,
		uint8_t fuse, bool taken, uint64_t mem_addr);

/* Times of a retired instruction, as the views want them. */
struct ua_retired {
	uint32_t tag;
	uint32_t fetched, decoded, issued, ready, dispatched, executed, retired;
	uint16_t port_uops[UA_MAX_PORTS];	/* uops per port (set for the
						 * ports of port_mask only) */
	uint16_t busy_cycles[4];		/* (units of busy_mask only) */
	uint16_t port_mask;			/* ports with port_uops[p] != 0 */
	uint8_t busy_mask;			/* units with busy_cycles[k] != 0 */
};

typedef void (*ua_retire_fn)(void *arg, const struct ua_retired *r);

/* Simulate one cycle; retired instructions are reported through fn. */
void ua_sim_cycle(struct ua_sim *s, ua_retire_fn fn, void *arg);

/* Cycles so far, and the counters. */
const struct ua_stats *ua_sim_stats(const struct ua_sim *s);
bool ua_sim_idle(const struct ua_sim *s);

/* ------------------------------------------------------------------ */
/* A block repeated: the static analysis                               */

enum ua_tp_mode {
	UA_TP_UNROLLED,		/* back-to-back copies (BHive's measurement) */
	UA_TP_LOOP,		/* the block as a loop body (uop cache, same addresses) */
};

/*
 * Simulate the block of n instructions for p->iterations iterations and
 * fill r like sched_run() does (pressure columns: the model's units),
 * plus r->throughput: steady-state cycles per iteration (the slope of the
 * retire cycle of each iteration's last instruction over the second
 * half).  Returns 0, -1 (no memory) or UA_RUN_STUCK: no instruction
 * retired for UA_STUCK_CYCLES cycles (a model bug; r is then empty).
 */
#define UA_RUN_STUCK	(-2)
#define UA_STUCK_CYCLES	1000000u
int ua_run_block(const struct sched_model *model, const struct sched_uarch *ua,
		 const struct sched_params *p, enum ua_tp_mode mode,
		 const struct ua_insn *ui, unsigned n, struct sched_result *r);

/* The same for a caller that analyzes many blocks: *sim (NULL at first)
 * keeps the engine between calls, reset rather than allocated again;
 * free it with ua_sim_free(). */
int ua_run_block_reuse(struct ua_sim **sim, const struct sched_model *model,
		       const struct sched_uarch *ua, const struct sched_params *p,
		       enum ua_tp_mode mode, const struct ua_insn *ui, unsigned n,
		       struct sched_result *r);

/* -instruction-tables for the corrected model: each uop spread uniformly
 * over its ports (columns as in ua_run_block()).  Returns 0 or -1. */
int ua_instruction_tables(const struct sched_model *model, const struct sched_uarch *ua,
			  const struct ua_insn *ui, unsigned n, double *pressure,
			  unsigned n_columns);

#endif /* MICAD_SCHED_UARCH_H */
