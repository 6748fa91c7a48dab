/*
 * The decoder: instruction bytes + a register snapshot in, events out.
 * Pure: no I/O, no ptrace.  Built on Zydis 4.
 *
 *   insn_decode()  bytes at an address -> struct insn_info (static part)
 *   insn_eval()    insn_info + registers -> struct insn_event (dynamic part)
 *
 * The decode cache (decode_cache.h) keeps one insn_info per address so a
 * tracer decodes each distinct instruction once.
 */
#ifndef MICAD_DECODER_H
#define MICAD_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#include "event.h"

/* Condition of a conditional branch (insn_info.cond), evaluated from RFLAGS
 * and the count register. */
enum insn_cond {
	COND_NONE = 0,
	COND_O, COND_NO, COND_B, COND_NB, COND_Z, COND_NZ, COND_BE, COND_NBE,
	COND_S, COND_NS, COND_P, COND_NP, COND_L, COND_NL, COND_LE, COND_NLE,
	COND_CXZ,		/* JCXZ/JECXZ/JRCXZ: count register == 0 */
	COND_LOOP,		/* LOOP: --count != 0 */
	COND_LOOPE,		/* LOOPE: --count != 0 && ZF */
	COND_LOOPNE,		/* LOOPNE: --count != 0 && !ZF */
	COND_XBEGIN,		/* taken only on abort; treated as not taken */
};

/*
 * Vector state for VSIB gathers and scatters: the index vector and the
 * mask.  The tracer fills it from PTRACE_GETREGSET(NT_X86_XSTATE) only for
 * instructions that need it (insn_needs_vector_state()).
 */
struct vec_state {
	uint8_t zmm[32][64];	/* zmm0..31; xmm/ymm are the low 16/32 bytes */
	uint64_t k[8];		/* AVX-512 mask registers */
};

/* Decode the instruction at pc from up to n bytes.  Returns 0, or -1 if the
 * bytes do not decode (out is then an INSN_INVALID record holding pc and
 * the bytes, with len = min(n, 15) and no operands). */
int insn_decode(const uint8_t *bytes, size_t n, uint64_t pc, struct insn_info *out);

/* True if insn_eval() needs vector state for this instruction. */
bool insn_needs_vector_state(const struct insn_info *ii);

/*
 * Fill ev for one execution of ii with the registers as they are before
 * the instruction executes.  vec may be NULL unless
 * insn_needs_vector_state(ii).  Sets: info, pc, tid (from the argument),
 * memory accesses with effective addresses, EV_TAKEN and next_pc for
 * conditional branches (from RFLAGS/RCX), direct and register-indirect
 * targets; EV_NEXT_UNKNOWN when the target is read from memory (ret,
 * jmp/call [m]): the caller sets next_pc from the next RIP.  For a real
 * REP: EV_REP, rep_count; if the count is zero the accesses are flagged
 * MEMF_PHANTOM.  EV_REP_FIRST is the caller's to set: only it knows whether
 * the previous event was an earlier iteration of the same instruction.
 */
void insn_eval(const struct insn_info *ii, const struct user_regs_struct *regs,
	       const struct vec_state *vec, uint32_t tid, struct insn_event *ev);

/* Value of a general-purpose, RIP or segment-base register from the
 * snapshot, at the register's width (AH is bits 8..15 of RAX).  Returns
 * false for registers not in user_regs_struct. */
bool reg_value(const struct user_regs_struct *regs, reg_id reg, uint64_t *value);

/* Is the condition true with these flags and count register? */
bool insn_cond_holds(uint8_t cond, uint64_t rflags, uint64_t count);

/* Names: the register as Zydis spells it ("rax", "ah"); the XED category
 * ("COND_BR"); the XED iclass ("CALL_NEAR", "REP_MOVSB", "MOVSD_XMM"). */
const char *reg_name(reg_id reg);
const char *insn_category_name(const struct insn_info *ii);
const char *insn_iclass_name(const struct insn_info *ii);
const char *insn_mnemonic_name(const struct insn_info *ii);
/* The XED category names the decoder gives, for i = 0, 1, ...; NULL past
 * the last (what an itypes spec file's CATEGORY lines may name). */
const char *insn_category_by_index(unsigned i);

/* Format the instruction in AT&T (att = true) or Intel syntax into buf. */
int insn_format(const struct insn_info *ii, bool att, char *buf, size_t size);

#endif /* MICAD_DECODER_H */
