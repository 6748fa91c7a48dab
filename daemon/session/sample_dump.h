/*
 * The text dump of sample mode's records (--dump-events with --sample),
 * for tests and debugging: one line per record, strings resolved.
 *   note WEIGHTING EVENT NOTE
 *   sample TIME PID TID WEIGHT FLAGS ADDR DATA_SRC LATENCY N<TAB>FRAME<TAB>...
 *     FRAME: 0xADDRESS MODULE SYMBOL+0xOFFSET ([unknown] where there is none)
 *   burst warmup|measure|end|abort PID TID TIME
 *   lost TIME PID TID COUNT
 * (numbers decimal but ADDR, DATA_SRC and frame offsets and addresses in
 * hex).  String records are not printed: their text is in the frames.
 */
#ifndef MICAD_SAMPLE_DUMP_H
#define MICAD_SAMPLE_DUMP_H

#include <stdio.h>

#include "session/trace_analysis.h"

struct sample_dump;

struct sample_dump *sample_dump_new(FILE *f);
void sample_dump_free(struct sample_dump *d);
struct trace_consumer sample_dump_consumer(struct sample_dump *d);

#endif /* MICAD_SAMPLE_DUMP_H */
