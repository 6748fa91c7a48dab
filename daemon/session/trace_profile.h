/*
 * Sample mode's call-stack profile: a trace consumer of the producer's
 * samples (tracer.h TREC_SAMPLE, their strings TREC_STRING, the kernel's
 * counts of lost ones TREC_LOST) and its note (TREC_NOTE), that builds the session's frame dictionary and stack tree
 * and counts samples and their weight per thread, time interval and
 * stack, written to the results database (schema.sql's profile_* tables)
 * in one writer job per interval, never a row per sample.  A frame is a
 * module, a symbol and an offset (the same texts are the same frame,
 * whatever string ids named them); a stack is its innermost node of the
 * tree, whose outermost nodes have parent 0.
 */
#ifndef MICAD_TRACE_PROFILE_H
#define MICAD_TRACE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "session/trace_analysis.h"
#include "store/store_writer.h"

struct trace_profile;

/* The consumer of ta (its strings and interval times), writing session's
 * rows through w. */
struct trace_profile *trace_profile_new(struct trace_analysis *ta, struct store_writer *w,
					int64_t session);
struct trace_consumer trace_profile_consumer(struct trace_profile *p);

/* Samples counted so far, and those dropped because the session's frames
 * or stack nodes reached their bound (reported at the finish). */
uint64_t trace_profile_samples(const struct trace_profile *p);
uint64_t trace_profile_dropped(const struct trace_profile *p);

/* Samples the kernel reported lost (TREC_LOST), in profile_interval.lost. */
uint64_t trace_profile_lost(const struct trace_profile *p);

/* Whether a database write could not be queued (the writer stopped). */
bool trace_profile_failed(const struct trace_profile *p);

/* Free, once the writer is closed (its jobs use the consumer's map of
 * row ids). */
void trace_profile_free(struct trace_profile *p);

#endif /* MICAD_TRACE_PROFILE_H */
