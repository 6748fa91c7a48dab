/*
 * XED iclass names.  MICA (through Pin) names opcodes by XED iclass
 * ("CALL_NEAR", "RET_NEAR", "REP_MOVSB", "MOVSD_XMM"); Zydis names them by
 * mnemonic ("call", "ret", "movsb" + a REP prefix, "movsd").  This maps the
 * one onto the other.  An iclass is a small integer: Zydis mnemonics keep
 * their enum value, the XED-only forms get numbers above them.
 */
#ifndef MICAD_ICLASS_H
#define MICAD_ICLASS_H

#include <stdbool.h>
#include <stdint.h>

enum iclass_prefix {
	ICLASS_NO_REP = 0,
	ICLASS_REP,		/* F3 on MOVS/STOS/LODS/INS/OUTS */
	ICLASS_REPE,		/* F3 on CMPS/SCAS */
	ICLASS_REPNE,		/* F2 on CMPS/SCAS */
};

/* The iclass of a Zydis mnemonic in context: far is true for far
 * call/jmp/ret, sse_form for MOVSD/CMPSD on XMM registers (as opposed to
 * the string instructions of the same mnemonic). */
uint16_t iclass_of(uint16_t mnemonic, enum iclass_prefix rep, bool far, bool sse_form);

/* The XED iclass of the LOCK-prefixed form: ADD -> ADD_LOCK,
 * CMPXCHG -> CMPXCHG_LOCK (XED names locked forms apart); unchanged for
 * instructions without a _LOCK iclass. */
uint16_t iclass_locked(uint16_t iclass);

/* The XED spelling: "CALL_NEAR", "REP_MOVSB", "ADD". */
const char *iclass_name(uint16_t iclass);

/* Look up a name as a spec file writes it: the XED iclass ("RET_NEAR") or
 * the Zydis mnemonic in any case ("ret").  Returns false if unknown. */
bool iclass_lookup(const char *name, uint16_t *iclass);

/* Is name exactly the XED spelling of an iclass the decoder gives (as
 * itypes compares an OPCODE line: case and all)? */
bool iclass_known(const char *name);

#endif /* MICAD_ICLASS_H */
