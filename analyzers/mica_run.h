/*
 * The MICA driver: one object per thread's event stream.  It keeps MICA's
 * instruction counters E and H (spec mica.md §1.5), feeds every DE to the
 * configured analyses, runs ILP through its 200-entry buffer (§3.1, §3.8),
 * takes the interval boundaries, and hands each interval's results to a
 * callback as structured data (struct mica_interval).  Pure: no I/O.
 */
#ifndef MICAD_MICA_RUN_H
#define MICAD_MICA_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "mica.h"

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

/* Totals so far: E and H. */
uint64_t mica_run_total_ins(const struct mica_run *run);
uint64_t mica_run_total_ins_aligned(const struct mica_run *run);

void mica_run_free(struct mica_run *run);

#endif /* MICAD_MICA_RUN_H */
