/*
 * The MICA driver: one object per thread's event stream.  It keeps MICA's
 * instruction counters E and H (spec mica.md §1.5), feeds every DE to the
 * configured analyses, runs ILP through its 200-entry buffer (§3.1, §3.8),
 * takes the interval boundaries, and hands each interval's results to a
 * callback as structured data (struct mica_interval).  Pure: no I/O.
 */
#ifndef MICAD_MICA_RUN_H
#define MICAD_MICA_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "mica/mica.h"

/* Called at each boundary and once at the end; non-zero stops the run
 * (mica_run_event() and mica_run_finish() then return -1). */
typedef int (*mica_interval_fn)(void *arg, const struct mica_interval *iv);

struct mica_run;

/*
 * cfg (and its itypes spec) and names must outlive the run.  tid is
 * copied into every result.  Returns NULL with a message in err.
 */
struct mica_run *mica_run_new(const struct mica_config *cfg, const struct mica_names *names,
			      uint32_t tid, mica_interval_fn fn, void *arg,
			      char *err, size_t errsz);

/* One DE.  For a real REP, EV_REP on every iteration, EV_REP_FIRST and
 * rep_count decide whether it counts in H.  Returns 0, or -1 if memory
 * ran out or the callback failed. */
int mica_run_event(struct mica_run *run, const struct insn_event *ev);

/* The end of the stream: drains the ILP buffer and delivers the last
 * interval (the whole run in full mode).  Call once. */
int mica_run_finish(struct mica_run *run);

/*
 * Sample mode (spec performance.md §3.3): the stream is a thread's bursts,
 * each a warm-up and a measured unit, and intervals are the caller's (in
 * time), not every S instructions.  mica_run_set_sampled() before the
 * first DE; then mica_run_burst() at each marker, and
 * mica_run_sample_interval() when an interval ends (with final at the
 * thread's end, instead of mica_run_finish()).
 *  - WARMUP: a burst begins.  Its DEs update the analyses' state but are
 *    not counted; state is kept across bursts (stale warming) as each
 *    analysis needs: ILP starts from an empty window with every register
 *    ready, memstackdist censors reads older than the burst, reg does not
 *    record the degree of use of values older than the burst.
 *  - MEASURE: the measured unit begins (a burst may start here: no
 *    warm-up).
 *  - END: the unit's counts are added to the interval's, and its (x, y)
 *    to each metric's sums (mica_sample.h).
 *  - ABORT: the burst is discarded.
 * The interval delivered has sampled set: its counts are the sums over
 * its units (memfootprint: every block its bursts touched), its sample
 * info the bursts and the metrics' sums.  An interval in which no burst
 * ended (measured or aborted) is not delivered.  Returns 0, or -1 (out of
 * memory, the callback failed, or a marker out of sequence).
 */
enum mica_burst_mark { MICA_WARMUP, MICA_MEASURE, MICA_END, MICA_ABORT };

int mica_run_set_sampled(struct mica_run *run);
int mica_run_burst(struct mica_run *run, enum mica_burst_mark m);
int mica_run_sample_interval(struct mica_run *run, uint64_t index, bool final);

/* Totals so far: E and H. */
uint64_t mica_run_total_ins(const struct mica_run *run);
uint64_t mica_run_total_ins_aligned(const struct mica_run *run);

void mica_run_free(struct mica_run *run);

#endif /* MICAD_MICA_RUN_H */
