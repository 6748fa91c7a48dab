/*
 * The sampler of sample mode: one perf event per traced thread (opened as
 * the tracer learns of the thread), its ring buffer mapped and drained
 * here, each sample turned into a resolved TREC_SAMPLE record (stack
 * unwound, frames named through TREC_STRING records sent before first
 * use) in the tracer's ring, and each count of samples the kernel lost
 * into a TREC_LOST record of the buffer's thread.  It runs in the tracer's process, the
 * producer: it may read the target's files and memory, the consumer only
 * gets strings (tracer.h).
 *
 * The tracer polls the sampler's descriptors (added to its epoll set) and
 * calls sampler_drain() when one is readable; the callback sees each
 * sample's thread and time, which is how bursts are placed at samples.
 */
#ifndef MICAD_SAMPLER_H
#define MICAD_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/ring.h"
#include "trace/sample_event.h"
#include "trace/sample_options.h"

struct sampler;

struct sampler_stats {
	uint64_t samples;		/* TREC_SAMPLE records pushed */
	uint64_t lost;			/* samples the kernel dropped (TREC_LOST records) */
	uint64_t throttled;		/* THROTTLE records (the kernel slowed the rate) */
	uint64_t truncated;		/* stacks cut short */
	uint64_t bad;			/* records that did not parse */
	uint64_t strings;		/* TREC_STRING records pushed */
	unsigned unsampled_threads;	/* threads whose event could not be opened */
};

/*
 * Choose the event (sample_event_select(), which reports why it cannot)
 * for options o, producing into ring; the descriptors of thread events go
 * into epoll set epfd, with data.ptr NULL.  NULL after reporting.
 */
struct sampler *sampler_new(const struct sample_options *o, struct ring *ring, int epfd);
void sampler_free(struct sampler *s);

const struct sample_event *sampler_event(const struct sampler *s);

/* Push the TREC_NOTE record (once, before the first sample). */
void sampler_push_note(struct sampler *s);

/*
 * Sample thread tid of process pid from now on (enable_on_exec: from its
 * next execve, for a program being launched).  0, or -errno after
 * reporting why (the caller decides whether that is fatal: the first
 * thread's failure is).
 */
int sampler_add_thread(struct sampler *s, pid_t pid, pid_t tid, bool enable_on_exec);

/* The thread is gone or detached: its last samples are read, its event
 * closed. */
void sampler_del_thread(struct sampler *s, pid_t tid);

/* The process exited: forget its mappings and files. */
void sampler_del_proc(struct sampler *s, pid_t pid);

/* Called for each sample pushed, in each thread's order. */
typedef void (*sampler_sample_fn)(void *arg, pid_t pid, pid_t tid, uint64_t time_ns);

/* Read every thread's buffer. */
void sampler_drain(struct sampler *s, sampler_sample_fn fn, void *arg);

void sampler_get_stats(const struct sampler *s, struct sampler_stats *st);

#endif /* MICAD_SAMPLER_H */
