/*
 * ILP (spec mica.md §3.1): an ideal out-of-order core limited only by its
 * instruction window and true data dependences.  One struct ilp runs one
 * or more window sizes over the same DE stream (ilp: 32, 64, 128, 256;
 * ilp_one: ilp_size), sharing one table lookup per register and block.
 *
 * The 200-entry DE buffer and the interval checks made while it drains are
 * the driver's (mica_run.c): here a DE is processed when ilp_step() is
 * called.
 */
#ifndef MICAD_ILP_H
#define MICAD_ILP_H

#include <stdint.h>

#include "event.h"
#include "mica.h"

/* What ILP keeps of a DE while it waits in the buffer. */
struct ilp_entry {
	const struct insn_info *info;	/* regs_read, regs_written */
	uint64_t read1, read2, write;	/* addresses; 0 = none (quirk Q9) */
	uint16_t read1_size, write_size;	/* read2 has read1's size */
};

struct ilp;

struct ilp *ilp_new(const uint32_t *windows, unsigned n_windows, unsigned block_shift);
void ilp_free(struct ilp *ilp);

/* Fill e from an event (MICA's read1 / read2 / write view). */
void ilp_entry_from_event(struct ilp_entry *e, const struct insn_event *ev);

/* A hint: start loading what ilp_step(e) will look up in the memory-ready
 * table (the driver calls it a few entries ahead while it drains its
 * buffer).  Changes nothing. */
void ilp_prefetch(const struct ilp *ilp, const struct ilp_entry *e);

/* Steps 1-7 of §3.1 for one DE; -1 if memory ran out. */
int ilp_step(struct ilp *ilp, const struct ilp_entry *e);

/* The interval's cycle counts into out; reset them and forget the
 * memory-ready map (window, clock and register table are kept). */
void ilp_close(struct ilp *ilp, struct mica_ilp_result *out);

#endif /* MICAD_ILP_H */
