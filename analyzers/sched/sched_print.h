/*
 * An instruction's text as LLVM 14's X86 instruction printers write it
 * (what llvm-mca-14 shows): AT&T with the size suffixes of LLVM's
 * mnemonics (`addl`, `imull`, `movabsq`), decimal immediates and
 * displacements, the implicit operands LLVM prints (`shll %cl, %eax`,
 * `movsb (%rsi), %es:(%rdi)`) and not the ones it leaves out (`shll
 * %eax` for a shift by one); Intel with `qword ptr [r14 + 64]`; the
 * compare predicates in the mnemonic (`cmpeqsd`, `vcmpunordps`).
 */
#ifndef MICAD_SCHED_PRINT_H
#define MICAD_SCHED_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct insn_zydis;

/*
 * Write the text of the decoded instruction z, whose LLVM opcode is
 * opcode (sched_map.h), into buf.  src, when not NULL, is the
 * instruction as written in the input (AT&T, or Intel when src_intel):
 * its immediates and symbolic operands (labels, `foo(%rip)`) are printed
 * as LLVM's parser read them (`$0xffffffff` is 4294967295 where the
 * encoding says -1).  Returns 0, or -1 when LLVM 14 has no mnemonic for
 * the opcode (the caller then prints the instruction its own way).
 */
int sched_print_llvm(const struct insn_zydis *z, uint32_t opcode, const char *src,
		     bool src_intel, bool intel, char *buf, size_t size);

#endif
