/*
 * One tracing session: trace a program micad launches or a process it
 * attaches to (tracer.h), feed the analyses on another thread
 * (trace_analysis.h), and keep the results (MICA files, a recorded trace,
 * the results database).  'micad run' and 'micad attach' run one in the
 * foreground; 'micad serve' runs each in a worker process of its own.
 */
#ifndef MICAD_TRACE_SESSION_H
#define MICAD_TRACE_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mica_files.h"
#include "trace/trace_child.h"
#include "trace/tracer.h"

struct mgsim_live;

struct trace_session_opts {
	const char *config;	/* a mica.conf; NULL: none given */
	/* Or its text (and its itypes spec file's), read by the client:
	 * the daemon opens no path a client names.  NULL: none given. */
	const struct mica_config_text *config_text;
	const char *mica_out;	/* write MICA's files here; NULL: none */
	const char *record;	/* binary trace file; NULL: none */
	const char *output;	/* per-thread counts; NULL: standard error */
	const char *dump;	/* event dump; NULL: none */
	long long interval;	/* > 0: overrides interval_size */
	/* The MICA analyses in this many groups, each on a thread of its
	 * own (trace_mica_set_threads); 0 or 1: on the analysis thread. */
	unsigned analysis_threads;
	const char *db;		/* results database; NULL: none */
	const char *mode;	/* "run" or "attach" (session row) */
	int64_t uid;		/* the session's owner (who asked for it) */
	struct tracer_options t;
	/* The live scheduling model's CPU (-mcpu names); NULL: the host's. */
	const char *mcpu;
	/* The MGSim counters of the running session, published for the
	 * daemon's HTTP server (NULL: none). */
	struct mgsim_live *mgsim_live;
	/* Incremented for every finished interval (NULL: none). */
	_Atomic uint64_t *live_intervals;
	/* Called once the session's database row exists (NULL: not called). */
	void (*on_session)(void *arg, int64_t session_id);
	void *arg;
	/* The daemon's workers: the tracer runs in this child process
	 * (trace_child.h), producing into ring (ring_new_shared()), both the
	 * caller's; t is then the child's options as forked.  NULL: the
	 * tracer runs here, into a ring of its own. */
	struct trace_child *child;
	struct ring *ring;
	/* With no child given: run the tracer in a child process of this
	 * session's own all the same (attach: the traced process survives
	 * the death of the analysis side, trace_child.h). */
	bool tracer_process;
	/* -q: no warning that would repeat on every run (t.quiet is the
	 * progress line's and summary's, which the daemon's workers turn off
	 * for their own reasons). */
	bool quiet_warnings;
	/* Sample mode (issue 18) is t.sample.enabled: the producer samples
	 * and steps bursts (tracer.h: TREC_STRING, TREC_SAMPLE, TREC_BURST,
	 * TREC_NOTE, TREC_LOST); the profile goes to the database, the MICA analyses,
	 * the scheduling model and MGSim take the bursts, and intervals are
	 * t.sample.interval_time seconds long. */
};

void trace_session_opts_init(struct trace_session_opts *o);

/*
 * Trace argv (launched) or attach_pid (when argv is NULL) to the end.
 * Returns what 'micad run'/'attach' exit with: the program's status
 * (128+N if killed by signal N), 127 if it could not be started, 1 on
 * other errors (already reported).
 */
int trace_session_run(const struct trace_session_opts *o, char **argv, pid_t attach_pid);

#endif /* MICAD_TRACE_SESSION_H */
