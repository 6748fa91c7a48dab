/*
 * The instruction event: the contract between the tracer (or a trace
 * reader) and every analyzer.
 *
 * One event per dynamic execution ("DE" in MICA's words, spec mica.md
 * §1.1): one per executed instruction, one per iteration of a REP-prefixed
 * string instruction, and exactly one for a REP string instruction whose
 * count register is zero on entry (its memory operands are still reported:
 * MICA's "phantom" access, quirk Q10).
 *
 * An event is split in two:
 *  - struct insn_info: everything static about the instruction at one
 *    address (decoded once, owned by the decode cache or the trace reader,
 *    immutable while events point at it);
 *  - struct insn_event: what this execution did (effective addresses,
 *    branch outcome, REP iteration state, thread).
 * Analyzers only read both.  Nothing here does I/O.
 */
#ifndef MICAD_EVENT_H
#define MICAD_EVENT_H

#include <stddef.h>
#include <stdint.h>

/* Register ids are Zydis register enum values (ZydisRegister) for decoded
 * instructions, and small abstract numbers for text traces (mica.md §1.6).
 * 0 is never a valid register. */
typedef uint16_t reg_id;

#define INSN_MAX_REGS		16	/* per list; more is truncated, see INSN_REGS_TRUNCATED */
#define INSN_MAX_MEMOPS		8	/* static memory operand templates (ENTER with nesting) */
#define EV_MAX_MEM		16	/* dynamic accesses: a 16-element gather is the maximum */
#define INSN_MAX_BYTES		15

enum mem_dir {
	MEM_READ = 1,
	MEM_WRITE = 2,
};

/* Flags of one memory access (struct mem_access.flags) and of one memory
 * operand template (struct mem_template.flags). */
enum mem_flags {
	MEMF_PREFETCH = 1 << 0,	/* a prefetch hint: nothing is architecturally read */
	MEMF_ELEMENT = 1 << 1,	/* one element of a gather or a scatter */
	MEMF_PHANTOM = 1 << 2,	/* zero-count REP: reported but not performed */
	MEMF_IMPLICIT = 1 << 3,	/* not an explicit operand (stack, string, xlat) */
};

enum branch_kind {
	BR_NONE = 0,
	BR_COND,		/* Jcc, JRCXZ, LOOP*, XBEGIN */
	BR_JUMP,		/* unconditional JMP */
	BR_CALL,
	BR_RET,
	BR_OTHER,		/* syscall, int, iret, far transfers */
};

/* struct insn_info.flags */
enum insn_flags {
	INSN_INVALID = 1 << 0,	/* the bytes do not decode; only pc, len, bytes are valid */
	INSN_REP = 1 << 1,	/* a "real REP": REP/REPE/REPNE prefix on a string op */
	INSN_HAS_MEM_READ = 1 << 2,	/* static: has a memory read operand (MICA hasMemRead) */
	INSN_HAS_MEM_WRITE = 1 << 3,	/* static: has a memory write operand */
	INSN_MOV_ALL_REGS = 1 << 4,	/* MOV whose operands are all registers (isMovAllRegs) */
	INSN_INDIRECT = 1 << 5,	/* branch target from a register or memory */
	INSN_LOCK = 1 << 6,
	INSN_REGS_TRUNCATED = 1 << 7,	/* a register list hit INSN_MAX_REGS */
	INSN_ADDR32 = 1 << 8,	/* 0x67: effective addresses are 32-bit */
	INSN_SYSCALL = 1 << 9,	/* syscall / sysenter / int 0x80 */
	INSN_XBEGIN_XEND = 1 << 10,	/* skipped by MICA's ppm (spec §3.3) */
	INSN_REP_COND = 1 << 11,	/* REPE/REPNE: stops on the comparison too */
};

/*
 * A memory operand as a formula over the register snapshot:
 *   ea = seg_base(seg) + value(base) + value(index) * scale + disp
 * with value(RIP) = address of the next instruction.  Implicit stack, string
 * and XLAT accesses are expressed the same way (push: base RSP, disp -8).
 * For VSIB operands index is a vector register and there are elem_count
 * elements of elem_size bytes, each enabled by the mask register (a k
 * register for EVEX, the sign bit of each element of a vector for VEX).
 */
struct mem_template {
	reg_id base;
	reg_id index;
	reg_id seg;		/* ZYDIS_REGISTER_FS / GS, else 0 (base 0 in 64-bit mode) */
	reg_id mask;		/* VSIB only */
	int64_t disp;
	uint16_t size;		/* bytes per access (per element for VSIB) */
	uint8_t scale;
	uint8_t dir;		/* MEM_READ | MEM_WRITE (both: read-modify-write) */
	uint8_t flags;		/* enum mem_flags */
	uint8_t vsib;		/* 1 for VSIB (gather/scatter) */
	uint8_t elem_count;	/* VSIB element count */
	uint8_t index_elem_size;	/* VSIB: bytes per index element (4 or 8) */
};

struct insn_info {
	uint64_t pc;
	uint64_t direct_target;	/* for direct branches and calls */
	uint32_t flags;		/* enum insn_flags */
	uint16_t mnemonic;	/* ZydisMnemonic */
	uint16_t iclass;	/* index into the XED iclass table (iclass.h) */
	uint8_t category;	/* ZydisInstructionCategory == XED category */
	uint8_t isa_ext;	/* ZydisISAExt */
	uint8_t len;
	uint8_t branch;		/* enum branch_kind */
	uint8_t bytes[INSN_MAX_BYTES];
	uint8_t cond;		/* BR_COND: condition code (enum insn_cond, decoder.h) */
	reg_id target_reg;	/* jmp/call through a register: that register */

	/* Registers after MICA's filter (mica.md §1.3): GPRs of every width,
	 * MMX, XMM/YMM/ZMM, mask, x87 stack/control/status/tag, MXCSR; each
	 * as written in the instruction (EAX and RAX are distinct), explicit
	 * and implicit, base and index of memory operands included. */
	uint8_t n_regs_read, n_regs_written;
	reg_id regs_read[INSN_MAX_REGS];
	reg_id regs_written[INSN_MAX_REGS];
	/* The same lists folded to the full architectural register (EAX ->
	 * RAX, AH -> RAX, XMM3 -> ZMM3), duplicates removed. */
	uint8_t n_regs_read_full, n_regs_written_full;
	reg_id regs_read_full[INSN_MAX_REGS];
	reg_id regs_written_full[INSN_MAX_REGS];
	/* What the filter drops, kept apart: RFLAGS bits, RIP, segments. */
	uint32_t flags_read, flags_written;	/* ZYDIS_CPUFLAG_* bit masks */
	uint8_t reads_rip, writes_rip;
	uint8_t n_seg_read;
	reg_id seg_read[2];

	/* Register operands, explicit and implicit, unfiltered: MICA's
	 * regOperandCount (§1.2). */
	uint8_t reg_operand_count;

	uint8_t n_mem;
	struct mem_template mem[INSN_MAX_MEMOPS];

	/* The scheduling model's opcode index; 0 until a model maps it. */
	uint32_t sched_opcode;
};

struct mem_access {
	uint64_t addr;
	uint16_t size;
	uint8_t dir;		/* MEM_READ or MEM_WRITE, never both */
	uint8_t flags;		/* enum mem_flags */
	uint32_t reserved;
};

/* struct insn_event.flags */
enum event_flags {
	EV_TAKEN = 1 << 0,	/* branch taken (always for jumps/calls/rets) */
	EV_REP = 1 << 1,	/* an iteration of a real REP instruction */
	EV_REP_FIRST = 1 << 2,	/* ... and the first iteration */
	EV_NEXT_UNKNOWN = 1 << 3,	/* next_pc needs memory (ret, jmp [m]): the tracer fills it */
	EV_INVALID = 1 << 4,	/* info is an INSN_INVALID record */
	EV_SYSCALL = 1 << 5,	/* a `syscall` instruction: sys holds its number and arguments */
};

/*
 * The system call a `syscall` instruction (0F 05, the x86-64 Linux ABI)
 * asked for: the registers when it was stepped, rax = nr and rdi, rsi,
 * rdx, r10, r8, r9 = arg[0..5].  For a syscall the kernel interrupted and
 * restarts (ERESTART*), nr is the restarted call (orig_rax, or
 * restart_syscall).  Set by the tracer and by the trace file reader when
 * ev->flags has EV_SYSCALL (then n_mem is 0); never for `int 0x80` or
 * `sysenter` (another ABI: other numbers and registers), nor for text
 * traces or version 1 trace files, which do not have them.
 *
 * A syscall's event is produced when the instruction completes (the
 * call returned, or the task exited in it), after the events other
 * threads ran in the meantime: an analyzer that wants the time a task
 * spent blocked in it counts from the task's previous event.
 */
struct ev_syscall {
	uint64_t nr;
	uint64_t arg[6];
};

struct insn_event {
	const struct insn_info *info;
	uint64_t pc;
	uint64_t next_pc;	/* the address executed next (target if taken) */
	uint32_t tid;
	uint32_t rep_count;	/* EV_REP: count register (low 32 bits) before this iteration */
	uint16_t flags;		/* enum event_flags */
	uint8_t n_mem;
	uint8_t reserved[5];
	union {
		/* Accesses in architectural order: for MOVS read then
		 * write, for CMPS the [rsi] read then the [rdi] read, for
		 * RMW the read then the write, for gathers element 0
		 * first.  Only n_mem entries are valid; transports copy
		 * only those (insn_event_size()). */
		struct mem_access mem[EV_MAX_MEM];
		/* EV_SYSCALL only (a syscall has no memory operand, n_mem
		 * is 0): the call.  It shares the space of mem so that the
		 * other events do not grow. */
		struct ev_syscall sys;
	};
};

static inline size_t
insn_event_size(const struct insn_event *ev)
{
	if (ev->flags & EV_SYSCALL)
		return offsetof(struct insn_event, sys) + sizeof(ev->sys);
	return offsetof(struct insn_event, mem) + ev->n_mem * sizeof(ev->mem[0]);
}

/*
 * MICA's view of the accesses of one DE (§1.2): the first read (read1),
 * the second read (read2, whose size MICA takes from read1), and the first
 * write.  Returns pointers into ev or NULL.
 */
struct mica_mem_view {
	const struct mem_access *read1, *read2, *write;
};

static inline struct mica_mem_view
insn_event_mica_mem(const struct insn_event *ev)
{
	struct mica_mem_view v = { NULL, NULL, NULL };

	for (unsigned i = 0; i < ev->n_mem; i++) {
		const struct mem_access *m = &ev->mem[i];

		if (m->dir == MEM_READ) {
			if (!v.read1)
				v.read1 = m;
			else if (!v.read2)
				v.read2 = m;
		} else if (!v.write) {
			v.write = m;
		}
	}
	return v;
}

#endif /* MICAD_EVENT_H */
