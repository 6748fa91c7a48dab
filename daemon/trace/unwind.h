/*
 * Call stacks of dwarf samples (--call-graph dwarf): libunwind's remote
 * unwinding over what the sample carries, the thread's user registers and
 * a copy of the top of its user stack, with the unwind tables
 * (.eh_frame_hdr, .eh_frame) read from the ELF files of the process's
 * mappings (symbols.h).  The way perf's util/unwind-libunwind-local.c
 * does it: the target never stops for a stack.
 *
 * Debian's libunwind has no dwarf_find_debug_frame(), so a file with only
 * .debug_frame (no .eh_frame_hdr) ends the stack there, marked truncated.
 */
#ifndef MICAD_UNWIND_H
#define MICAD_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/perf_record.h"
#include "trace/symbols.h"

/*
 * The frames of a sample of process p, innermost first: ips[0] is the
 * sampled IP; caller[i] says ips[i] is a return address (not a signal
 * frame's exact IP).  At most max frames.  *truncated: more frames were
 * there but could not be read (the stack copy ended, no unwind table,
 * max reached).  Returns the number of frames (at least 1).
 */
int unwind_stack(struct symbols *s, struct sym_proc *p, const uint64_t regs[PREG_COUNT],
		 const uint8_t *stack, size_t stack_size, uint64_t *ips, bool *caller, int max,
		 bool *truncated);

#endif /* MICAD_UNWIND_H */
