/*
 * The protocol between micad's valgrind tool (micadvg.c, running inside
 * the traced program's process) and micad's valgrind engine (vg_engine.c).
 * Both sides include this file; it has macros only, so that it builds with
 * valgrind's tool flags (no libc) and with micad's.
 *
 * Each process under the tool connects to the engine's Unix socket (the
 * tool's --micadvg-socket option): when valgrind starts it, after an exec,
 * and in the child of a fork.  It sends a hello and reads one reply word:
 * MVG_REPLY_RECORD to record, MVG_REPLY_IDLE to run on without recording
 * (a process micad does not follow).  Then the connection carries a stream
 * of little-endian 64-bit words, written in blocks: instruction records and
 * markers.  A record is written when its instruction has completed, so an
 * instruction that faults (its signal is delivered instead) has none.
 *
 * Instruction records.  Before a superblock is instrumented, every
 * instruction of it the engine has not seen with these bytes goes to the
 * engine in a MVG_M_QUERY marker (pc, length, bytes); the tool waits for the
 * answer, one word per instruction: its recipe (bits 0-31), which register
 * values its records must carry so that the engine can evaluate the
 * instruction exactly as step mode does (decoder.h insn_eval: the
 * registers its memory operands, REP count and syscall use), sampled when
 * the instruction starts; and its number (bits 32-63), which its records
 * carry instead of its pc.  A record is then
 *
 *   header: number | nvals << 32 | MVG_HAS_NEXT
 *   [next pc]          when MVG_HAS_NEXT: where execution went on
 *                      (else pc + length)
 *   values[nvals]      in the recipe's order (MVG_R_*)
 *
 * A REP string instruction has one record per pass of valgrind's loop:
 * one per iteration, and one more when the count register reaches zero
 * (the engine drops that one, see vg_engine.c).
 *
 * Markers have bit 63 set, their kind in bits 56-62 and an argument in
 * bits 0-55, and are followed by the words their kind says.
 */
#ifndef MICAD_VG_PROTO_H
#define MICAD_VG_PROTO_H

#define MVG_VERSION		1
#define MVG_MAGIC		0x31677664616369ULL	/* "icadvg1" */

/* The hello: MVG_HELLO_WORDS words, then the executable's path (as given
 * to execve or valgrind) and the working directory at start-up, each
 * NUL-terminated, their lengths (NULs included) in words 5 and 6, padded
 * with NULs to a multiple of 8 bytes. */
#define MVG_HELLO_WORDS		7
#define MVG_HELLO_MAGIC		0	/* MVG_MAGIC */
#define MVG_HELLO_VERSION	1
#define MVG_HELLO_PID		2
#define MVG_HELLO_PPID		3
#define MVG_HELLO_REASON	4	/* MVG_START, MVG_FORK */
#define MVG_HELLO_EXE_LEN	5
#define MVG_HELLO_CWD_LEN	6
#define MVG_PATH_MAX		4096

/* Valgrind started: the launched program, or a process that exec'd
 * (micad knows its pid already). */
#define MVG_START		1
#define MVG_FORK		2	/* the child of a fork */

#define MVG_REPLY_IDLE		0
#define MVG_REPLY_RECORD	1

/* Instruction record header. */
#define MVG_NUMBER_MASK		0xffffffffULL
#define MVG_NVALS_SHIFT		32
#define MVG_NVALS_MASK		63ULL
#define MVG_HAS_NEXT		(1ULL << 38)

/* An answer to a query: the recipe, and the number. */
#define MVG_RECIPE_MASK		0xffffffffULL
#define MVG_NUMBER_SHIFT	32

#define MVG_PC_MASK		((1ULL << 48) - 1)

/* Markers. */
#define MVG_MARKER		(1ULL << 63)
#define MVG_KIND_SHIFT		56
#define MVG_KIND(w)		(((w) >> MVG_KIND_SHIFT) & 0x7f)
#define MVG_ARG(w)		((w) & ((1ULL << 56) - 1))
#define MVG_MARK(kind, arg)	(MVG_MARKER | (unsigned long long)(kind) << MVG_KIND_SHIFT | (arg))

enum {
	/* arg n; then n instructions of 3 words: pc; length (byte 0) and
	 * bytes 0-6 (bytes 1-7); bytes 7-14.  The tool then waits for n
	 * recipe words. */
	MVG_M_QUERY = 1,
	/* arg: the OS thread id the following records belong to */
	MVG_M_THREAD = 2,
	/* arg: a new thread's id (it is current); 1 word: the thread that
	 * created it */
	MVG_M_THREAD_START = 3,
	/* arg: a thread that ended; 1 word: its wait status, or
	 * MVG_STATUS_UNKNOWN */
	MVG_M_THREAD_EXIT = 4,
	/* arg: the child's pid; 1 word: the thread that forked */
	MVG_M_FORK = 5,
	/* arg: a signal delivered to the current thread (its handler runs) */
	MVG_M_SIGNAL = 6,
	/* arg: the exit code of an exit_group of the current thread */
	MVG_M_EXIT_GROUP = 7,
	/* arg 0: the process is ending (valgrind's shutdown) */
	MVG_M_END = 8,
	/* arg: where the current thread resumes after its rt_sigreturn */
	MVG_M_SIGRETURN = 9,
};

#define MVG_QUERY_MAX		128	/* instructions per query (a superblock has <= 100) */
#define MVG_STATUS_UNKNOWN	0xffffffffffffffffULL

/*
 * A recipe: the values an instruction's records carry, in this order.
 * They are read from valgrind's guest state when the instruction starts,
 * which is exact only with every register updated at each instruction
 * (the tool sets it: else VEX drops register writes that a later
 * instruction overwrites).
 * GPRs by their x86 number (rax 0, rcx 1, rdx 2, rbx 3, rsp 4, rbp 5,
 * rsi 6, rdi 7, r8-r15 8-15), 64 bits each; the FS and GS segment bases;
 * RFLAGS; for a VSIB memory operand the 4 64-bit lanes of its index YMM
 * register and then of its mask YMM register.
 */
#define MVG_R_GPR(n)		(1ULL << (n))
#define MVG_R_FS		(1ULL << 16)
#define MVG_R_GS		(1ULL << 17)
#define MVG_R_RFLAGS		(1ULL << 18)
#define MVG_R_VSIB		(1ULL << 19)
#define MVG_R_VINDEX_SHIFT	20	/* 4 bits: the index YMM register */
#define MVG_R_VMASK_SHIFT	24	/* 4 bits: the mask YMM register */
/* An exit back to the instruction itself completes it (a REP iteration,
 * a branch to itself); otherwise such an exit is a retry (a failed CAS)
 * and has no record. */
#define MVG_R_SELF_EXIT		(1ULL << 28)
#define MVG_R_VALUE_BITS	(MVG_R_VSIB | (MVG_R_VSIB - 1))

/* Number of value words of a recipe. */
#define MVG_RECIPE_NVALS(r)	(__builtin_popcountll((r) & (MVG_R_VSIB - 1)) + \
				 (((r) & MVG_R_VSIB) ? 8 : 0))

#endif /* MICAD_VG_PROTO_H */
