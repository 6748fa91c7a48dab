/*
 * Tables with an element per static instruction.  The driver (mica_run.c)
 * numbers static instructions 0, 1, 2... in order of first appearance
 * (their sids) and says in each batch how many there are so far
 * (struct mica_batch's n_statics, mica.h); an analysis keeps what it
 * derives from an instruction in a plain array indexed by sid, and grows
 * it with this when a batch brings new ones.  Its own unit, so that the
 * analyses (ilp.c, itypes.c, ppm.c, stride.c, memfootprint.c) do not
 * depend on the driver that depends on them.  No I/O.
 */
#ifndef MICAD_SID_TABLE_H
#define MICAD_SID_TABLE_H

#include <stddef.h>

/* A table with an element per sid, of *n elements of sz bytes, grown to at
 * least want elements (doubling, from 256), the new ones filled with the
 * byte fill: returns the table and sets *n to its new size, or returns
 * NULL if out of memory (t and *n are then unchanged). */
void *mica_sid_table_grow(void *t, size_t *n, size_t want, size_t sz, int fill);

#endif /* MICAD_SID_TABLE_H */
