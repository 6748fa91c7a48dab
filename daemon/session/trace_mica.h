/*
 * The MICA consumer of a live trace: one mica_run (mica_run.h) per traced
 * thread, its intervals written as MICA's files into a directory
 * (mica_files.h) and into the results database (store_writer.h).  A
 * process's main thread gets MICA's file names (with its pid when
 * append_pid is set, or for a followed child process); any other thread's
 * files carry its tid where append_pid puts the pid.
 */
#ifndef MICAD_TRACE_MICA_H
#define MICAD_TRACE_MICA_H

#include <stdbool.h>
#include <stdint.h>

#include "mica/mica_config.h"
#include "mica_files.h"
#include "session/trace_analysis.h"
#include "store/store_writer.h"

/*
 * What runs when the results database is on and no configuration is
 * given: every analysis of MICA's `all`, in intervals of 100,000
 * instructions (a multiple of ILP's 200-entry buffer; about a second of
 * tracing at step-mode rates, so a run gives a curve, not a point).
 */
#define TRACE_MICA_DEFAULT_CONFIG "analysis_type: all\ninterval_size: 100000\n"

struct trace_mica;

/* Load config (a mica.conf's text, mica_files.h; NULL:
 * TRACE_MICA_DEFAULT_CONFIG), override its interval size when interval > 0,
 * write MICA's files into out_dir (NULL: none).  NULL after reporting the
 * error. */
struct trace_mica *trace_mica_new(const struct mica_config_text *config, long long interval,
				  const char *out_dir);

/* The configuration in effect (the interval override applied). */
const struct mica_config *trace_mica_config(const struct trace_mica *m);

/* Also write the rows of every process, thread and interval of the trace
 * into session of w's database (call before the trace starts). */
void trace_mica_set_store(struct trace_mica *m, struct store_writer *w, int64_t session);

/* Executables come from fn(arg, pid) (NULL: unknown) instead of
 * /proc/PID/exe: the tracer read them (trace_analysis_exe), since the
 * analysis lags and a pid may by then be another process's. */
void trace_mica_set_exe_source(struct trace_mica *m, const char *(*fn)(void *arg, int32_t pid),
			       void *arg);

/* Count every interval handed to the database writer in *counter (the
 * daemon's shared progress for its HTTP server; call before the trace). */
void trace_mica_set_live_intervals(struct trace_mica *m, _Atomic uint64_t *counter);

/*
 * Sample mode (call before the trace starts): every thread's analyses
 * take its bursts (mica_run_set_sampled), and its intervals are ta's time
 * intervals (trace_analysis_set_sample), one row per interval in which a
 * burst of the thread ended, with the interval's times.  MICA's files
 * are then interval-mode files, with a comment at the top that says
 * their counts are sums over bursts.
 */
void trace_mica_set_sampled(struct trace_mica *m, const struct trace_analysis *ta);

/*
 * Run each thread's analyses in up to n groups, each on a thread of its
 * own fed by the same batches of events (event_fanout.h); n <= 1: all of
 * them on the analysis thread, each event as it comes.  The groups are
 * balanced by each analysis' measured cost; the results are the same
 * either way, byte for byte.  Not in sample mode (its bursts are marks
 * between events): there the analyses stay on the analysis thread.  Call
 * before the trace starts; -1 if the threads could not be started.
 */
#define TRACE_MICA_MAX_GROUPS	MICA_N_ANALYSES
int trace_mica_set_threads(struct trace_mica *m, unsigned n);

struct trace_consumer trace_mica_consumer(struct trace_mica *m);

/* Whether an analysis, a file write or a database write failed so far
 * (each already reported). */
bool trace_mica_failed(const struct trace_mica *m);
/* Why results are missing (the first reason), or NULL when none is. */
const char *trace_mica_lost(const struct trace_mica *m);

/* -1 if anything failed (trace_mica_failed). */
int trace_mica_free(struct trace_mica *m);

#endif /* MICAD_TRACE_MICA_H */
