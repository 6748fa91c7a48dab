/*
 * The tracer in a process of its own: what the daemon's workers run so
 * that ptrace happens with the client's credentials while the analyses
 * and the results database stay with the daemon (ARCHITECTURE.md,
 * "Security model").
 *
 * The worker forks the child before it opens anything of its own; the
 * child first calls enter() (the worker drops to the client's uid, gids
 * and groups there, without capabilities), closes every file descriptor
 * but the ones it is told to keep, and waits.  trace_child_start() lets it
 * launch or attach with the ordinary tracer (tracer.h), which produces
 * into a ring shared with the worker (ring_new_shared(), with TREC_INSN
 * and TREC_EXE records: tracer_options.publish); the worker's analysis
 * thread consumes it (trace_analysis_set_remote()).  So the kernel judges
 * every ptrace request exactly as it judges strace's: dumpable, extra
 * capabilities, a setuid exec, Yama.
 *
 * The child cannot harm the worker: what it shares is the ring, whose
 * records the consumer checks, and a few numbers (progress, the end).
 */
#ifndef MICAD_TRACE_CHILD_H
#define MICAD_TRACE_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

#include "trace/ring.h"
#include "trace/tracer.h"

/* The shared event ring's size (ring_new_shared()). */
#define TRACE_CHILD_RING_BYTES (8u << 20)

struct trace_child_opts {
	/* In the child, first; nonzero: the child exits with that status
	 * (after enter reported why on stderr). */
	int (*enter)(void *arg);
	void *arg;
	/* File descriptors the child keeps open (0, 1 and 2 always). */
	const int *keep;
	unsigned n_keep;
};

struct trace_child;

/*
 * Fork the child for a session that launches argv (or attaches to
 * attach_pid when argv is NULL) with tracer options t, producing into
 * ring.  t->progress, t->started and t->live_steps are the caller's: they
 * are called and set here, in the caller's process.  In sample mode the
 * child chooses the event and says so (tracer_prepare()) before this
 * returns.  NULL after reporting why (the child reports its own).
 */
struct trace_child *trace_child_fork(const struct trace_child_opts *o,
				     const struct tracer_options *t, struct ring *ring,
				     char *const *argv, pid_t attach_pid);

/* Let the child launch or attach: 0 once it traces (t->started was
 * called), else -1 (the child said why on stderr). */
int trace_child_start(struct trace_child *c);
/* After trace_child_start() failed: the tracer process's reason, as it
 * reported it ("" if it gave none). */
const char *trace_child_error(const struct trace_child *c);

/* Wait until the child has traced to the end (about once a second the
 * progress callback runs); the ring is closed afterwards in any case.
 * 0, or -1 if the child failed or died (reported). */
int trace_child_wait(struct trace_child *c);

/* The CPU the child pins the tracer to, or -1. */
int trace_child_cpu(const struct trace_child *c);
pid_t trace_child_main_pid(const struct trace_child *c);
bool trace_child_main_status(const struct trace_child *c, int *status);
void trace_child_stats(const struct trace_child *c, struct tracer_stats *st);

/* Kill the child if it still runs (a session that fails before its
 * start), reap it and free. */
void trace_child_free(struct trace_child *c);

/* Async-signal-safe: ask the child to detach every thread, or to pass
 * sig on to the traced program (through its pidfd, as the client). */
void trace_child_request_detach(void);
void trace_child_signal(int sig);

#endif /* MICAD_TRACE_CHILD_H */
