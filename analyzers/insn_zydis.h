/*
 * An instruction as Zydis decoded it, with all its operands: for the
 * callers that decode an instruction and then hand it to several
 * analyzers (micactl mca: the decoder, the LLVM opcode mapping, the
 * corrected model, the text), so that it is decoded once.  Each of those
 * has an entry point that decodes the bytes itself too.
 */
#ifndef MICAD_INSN_ZYDIS_H
#define MICAD_INSN_ZYDIS_H

#include <Zydis/Zydis.h>

#include "decoder.h"

struct insn_zydis {
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
};

/* Zydis's decoding of the bytes alone (64-bit mode); 0, or -1 when they
 * do not decode. */
int insn_zydis_decode(const uint8_t *bytes, size_t n, struct insn_zydis *z);

/* insn_decode(), keeping Zydis's decoding in *z. */
int insn_decode_zydis(const uint8_t *bytes, size_t n, uint64_t pc, struct insn_info *out,
		      struct insn_zydis *z);

/* insn_format() of the instruction ii that insn_decode_zydis() decoded
 * into z. */
int insn_format_zydis(const struct insn_info *ii, const struct insn_zydis *z, bool att,
		      char *buf, size_t size);

/* The full architectural register of r (EAX -> RAX, XMM1 -> ZMM1), as
 * ZydisRegisterGetLargestEnclosing gives it in 64-bit mode, except that
 * an MMX register is its own (Zydis gives none). */
static inline ZydisRegister
insn_full_reg(ZydisRegister r)
{
	if (ZydisRegisterGetClass(r) == ZYDIS_REGCLASS_MMX)
		return r;
	return ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
}

#endif
