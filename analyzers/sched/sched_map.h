/*
 * Mapping of decoded x86-64 instructions to LLVM opcodes (the keys of the
 * scheduling tables, sched_tables.h), with the operand rules LLVM's
 * models express as variants (zero idioms, dependency breakers).
 */
#ifndef MICAD_SCHED_MAP_H
#define MICAD_SCHED_MAP_H

#include <stddef.h>
#include <stdint.h>

struct sched_mapping {
	uint32_t opcode;	/* LLVM opcode id (sched_tables.h); 0 = unmapped */
	uint8_t lock;		/* LOCK prefix: LLVM decodes it as its own LOCK_PREFIX */
	uint8_t zero_idiom;	/* xor r,r and kin: no execution uop, no input dependence */
	uint8_t dep_breaking;	/* pcmpeq x,x and kin: no input dependence */
	uint8_t same_sources;	/* both sources one register (cmp r,r) */
	/* When unmapped: the last name tried, e.g. "FOO64rm", for the report. */
	char tried[48];
};

/* Map the instruction at the start of bytes.  Returns 0, or -1 if the
 * bytes do not decode or no LLVM opcode fits (out->tried says what was
 * looked for). */
int sched_map(const uint8_t *bytes, size_t n, struct sched_mapping *out);

/* sched_map() of an instruction already decoded (insn_zydis.h). */
struct insn_zydis;
int sched_map_zydis(const struct insn_zydis *z, struct sched_mapping *out);

/* Opcode id of an LLVM opcode name, 0 if no model knows it. */
uint32_t sched_opcode_find(const char *name);

#endif /* MICAD_SCHED_MAP_H */
