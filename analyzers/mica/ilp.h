/*
 * ILP (spec mica.md §3.1): an ideal out-of-order core limited only by its
 * instruction window and true data dependences.  One struct ilp runs one
 * or more window sizes over the same DE stream (ilp: 32, 64, 128, 256;
 * ilp_one: ilp_size), sharing the register and block lookups.
 *
 * The 200-entry DE buffer and the interval checks made while it drains are
 * the driver's (mica_run.c): here DEs are processed when ilp_run() is
 * called.
 */
#ifndef MICAD_ILP_H
#define MICAD_ILP_H

#include <stdint.h>

#include "mica/mica.h"

struct ilp;

/* NULL if out of memory (or n_windows is not 1..MICA_ILP_WINDOWS, or a
 * window is not 1..MICA_MAX_ILP_SIZE). */
struct ilp *ilp_new(const uint32_t *windows, unsigned n_windows, unsigned block_shift);
void ilp_free(struct ilp *ilp);

/* Steps 1-7 of §3.1 for the DEs lo..hi-1 of batch b, in order; -1 if
 * memory ran out. */
int ilp_run(struct ilp *ilp, const struct mica_batch *b, unsigned lo, unsigned hi);

/* The interval's cycle counts into out; reset them and forget the
 * memory-ready map (window, clock and register table are kept). */
void ilp_close(struct ilp *ilp, struct mica_ilp_result *out);

/*
 * Sample mode (spec performance.md §3.3).  ilp_fresh(): a burst begins;
 * the window is emptied and every register and block is ready at once (the
 * previous burst's times say nothing about this one), so after its first
 * W DEs the window is that of an uninterrupted run.  ilp_take(): the cycle
 * counts since the last take or close into out, reset, and nothing else
 * forgotten (a unit's cycles, with the warm-up's dependences kept).
 */
void ilp_fresh(struct ilp *ilp);
void ilp_take(struct ilp *ilp, struct mica_ilp_result *out);

#endif /* MICAD_ILP_H */
