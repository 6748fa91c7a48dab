/*
 * Which perf event samples the program, and why (performance.md §5):
 * the event named with -e (perf's generic names and modifiers, libpfm4's
 * PMU event names, or a sysfs PMU such as AMD's ibs_op), or by default
 * cycles at the most precise level the CPU takes, else, where there is no
 * hardware PMU (virtual machines without a vPMU), the cpu-clock software
 * timer, with a note that says so.
 *
 * Each choice is confirmed by opening the event on the calling process:
 * an encoding libpfm4 accepts says nothing about what this kernel or
 * hypervisor takes.  Failures are explained the way perf explains them
 * (perf_event_paranoid's value and what each level forbids, a busy PMU, a
 * precise level the CPU lacks, an event it does not have).
 */
#ifndef MICAD_SAMPLE_EVENT_H
#define MICAD_SAMPLE_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "trace/perf_record.h"
#include "trace/sample_options.h"

enum sample_weighting {
	WEIGHT_INSTRUCTIONS = 1,	/* bursts placed every so many retired instructions */
	WEIGHT_TIME = 2,		/* bursts placed in time */
};

struct sample_event {
	struct perf_event_attr attr;	/* as confirmed (disabled, no enable_on_exec) */
	struct perf_sample_format fmt;
	char name[64];			/* the event in effect: "cpu-clock", "cycles:pp", ... */
	int weighting;			/* enum sample_weighting */
	bool ibs_op;			/* PERF_SAMPLE_RAW carries an IBS op block */
	char note[512];			/* what is in effect and why, one line */
};

/*
 * Choose and confirm the event for options o (bursts or not, the call
 * graph, the rate).  0, or -1 after reporting on stderr why the event
 * cannot be used and what to do.
 */
int sample_event_select(const struct sample_options *o, struct sample_event *ev);

/* perf_event_open(2) of attr for thread tid (any CPU, no group): the fd,
 * or -1 with errno set. */
int sample_event_open(const struct perf_event_attr *attr, pid_t tid);

/*
 * Why opening event name failed with err, as perf says it: into buf, one
 * or more lines without the final newline.  For EACCES/EPERM: the current
 * perf_event_paranoid value and what each level forbids.
 */
void sample_event_strerror(const char *name, const struct perf_event_attr *attr, int err,
			   char *buf, size_t n);

#endif /* MICAD_SAMPLE_EVENT_H */
