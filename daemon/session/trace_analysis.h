/*
 * The analysis side of tracing: a thread that drains the tracer's event
 * ring and hands each event to the consumers (instruction counts, the
 * trace recorder, the MICA analyses), with one state per traced thread and
 * consumer.  The same dispatch serves a trace file replay (feed the records
 * in order with trace_analysis_feed_*()).
 */
#ifndef MICAD_TRACE_ANALYSIS_H
#define MICAD_TRACE_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "event.h"
#include "trace/ring.h"
#include "trace/tracer.h"

/*
 * A consumer.  thread_start returns its state for a new thread (may be
 * NULL); event (if set) gets every event of that thread in order; thread_rec gets
 * the thread's TT_EXEC, and finally its TT_EXIT or TT_DETACH, after which
 * the state is not used again.  finish runs once after the last record.
 *
 * Sample mode (trace_analysis_set_sample(); tracer.h's TREC_STRING,
 * TREC_SAMPLE, TREC_BURST, TREC_NOTE, TREC_LOST), each hook optional,
 * every record checked before a hook sees it:
 *   interval: time has reached interval idx of the session's grid (a
 *	thread also gets its first interval right after thread_start);
 *	what the thread gathered in earlier intervals can be closed
 *   burst:	a marker of the thread's burst, always in sequence (WARMUP,
 *	MEASURE, then END or ABORT; MEASURE may open a burst without
 *	warm-up; a thread that ends in a burst gets an ABORT first)
 *   sample:	a profile sample in interval idx (its own time's, which
 *	may be an interval the others have closed: records can arrive a
 *	little out of time order), its strings known to
 *	trace_analysis_string()
 *   note:	what sampling is in effect, once before the samples
 *   lost:	samples the kernel dropped from a thread's buffer, in
 *	interval idx (of the record's time, as for a sample)
 */
struct trace_consumer {
	void *(*thread_start)(void *arg, const struct trace_thread_rec *r);
	void (*event)(void *arg, void *tstate, const struct insn_event *ev);
	void (*thread_rec)(void *arg, void *tstate, const struct trace_thread_rec *r);
	void (*finish)(void *arg);
	void *arg;
	void (*interval)(void *arg, void *tstate, int64_t idx);
	void (*burst)(void *arg, void *tstate, const struct trace_burst_rec *r);
	void (*sample)(void *arg, const struct trace_sample_rec *r, int64_t idx);
	void (*note)(void *arg, const struct trace_note_rec *r);
	void (*lost)(void *arg, const struct trace_lost_rec *r, int64_t idx);
	/* The same records raw, in ring order, each checked by
	 * trace_sample_rec_ok() and 8-byte aligned (the event dump); NULL:
	 * not wanted. */
	void (*sample_rec)(void *arg, uint32_t type, const void *data, size_t len);
};

/*
 * Whether a sample-mode record of a producer the consumer does not trust
 * is whole: its fixed part there, a sample's frames within its length, a
 * string or note NUL-terminated within it, a burst kind known, a count of
 * lost samples not 0.
 */
bool trace_sample_rec_ok(uint32_t type, const void *data, size_t len);

#define TRACE_MAX_CONSUMERS 8

struct trace_analysis;

struct trace_analysis *trace_analysis_new(void);
void trace_analysis_free(struct trace_analysis *ta);
void trace_analysis_add(struct trace_analysis *ta, const struct trace_consumer *c);

/* Start the analysis thread on ring (pinned away from avoid_cpu when it is
 * >= 0); join waits until the ring is closed and drained, then runs the
 * consumers' finish. */
int trace_analysis_start(struct trace_analysis *ta, struct ring *ring, int avoid_cpu);
void trace_analysis_join(struct trace_analysis *ta);

/*
 * The ring's producer is a tracer in another process (tracer_options
 * .publish): its TREC_INSN records are decoded here and its events'
 * info keys mapped to them; an event that names no instruction sent
 * before, or whose size or access count is impossible, is dropped and
 * counted.  Call before trace_analysis_start().
 */
void trace_analysis_set_remote(struct trace_analysis *ta);

/* The executable of process pid as the remote tracer last read it, or
 * NULL (valid until the analysis is freed). */
const char *trace_analysis_exe(const struct trace_analysis *ta, int32_t pid);

/* Records of the remote producer dropped as impossible. */
uint64_t trace_analysis_rejected(const struct trace_analysis *ta);

/*
 * Sample mode: the producer samples and steps bursts (tracer.h).
 * Intervals are in time, interval_ns long, from the first timed record
 * (a sample or a burst marker, CLOCK_MONOTONIC): interval k holds the
 * records of times [t0 + k interval_ns, t0 + (k + 1) interval_ns).  An
 * event outside its thread's burst, a marker out of sequence, a string
 * that redefines an id, a sample whose frames overrun the record or name
 * a string not sent before: all dropped and counted (rejected).  Call
 * before trace_analysis_start().  A burst marker of a thread the
 * producer has not started (TT_START) is dropped too.
 */
#define TRACE_SAMPLE_INTERVAL_NS	1000000000ull	/* the default: 1 s */
void trace_analysis_set_sample(struct trace_analysis *ta, uint64_t interval_ns);

/* Sample mode: the text of string id (a module or a symbol), NULL if not
 * sent.  Equal texts are one pointer (interned); valid until the analysis
 * is freed. */
const char *trace_analysis_string(const struct trace_analysis *ta, uint32_t id);

/* Sample mode: when interval idx begins and ends, Unix seconds. */
double trace_analysis_interval_start(const struct trace_analysis *ta, int64_t idx);
double trace_analysis_interval_end(const struct trace_analysis *ta, int64_t idx);

/* Synchronous feeding (replay). */
void trace_analysis_feed_thread(struct trace_analysis *ta, const struct trace_thread_rec *r);
void trace_analysis_feed_event(struct trace_analysis *ta, const struct insn_event *ev);
void trace_analysis_finish(struct trace_analysis *ta);

/*
 * The instruction-count consumer: E and H of mica.md §1.5 per thread
 * (E: +1 per event; H: +1 per non-REP event and per first iteration of a
 * REP with a non-zero count).  Its summary, one line per thread in the
 * order threads started:
 *   pid P tid T: E instructions (E), H (H); exited with status N
 * ("killed by signal N", "detached", "still running").
 */
struct insn_counts;
struct insn_counts *insn_counts_new(void);
void insn_counts_free(struct insn_counts *ic);
struct trace_consumer insn_counts_consumer(struct insn_counts *ic);
void insn_counts_print(const struct insn_counts *ic, FILE *f, const char *prefix);
void insn_counts_total(const struct insn_counts *ic, uint64_t *e, uint64_t *h);

/*
 * The event-dump consumer: one line per event, for tests and debugging:
 *   tid pc next_pc flags rep_count [r|w=addr:size ...]
 * (numbers in hex except tid, flags and the count; accesses in order).
 */
struct trace_consumer event_dump_consumer(FILE *f);

#endif /* MICAD_TRACE_ANALYSIS_H */
