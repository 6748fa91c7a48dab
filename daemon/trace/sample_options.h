/*
 * The options of sample mode (issue 18), in one struct that the tracer
 * (tracer_options.sample), the session and the daemon's request all carry:
 * which event samples the program and how often, how stacks are taken,
 * and how bursts of stepped instructions are sized and budgeted.
 *
 * One parser serves 'micad run/attach --sample', 'micactl run/attach
 * --sample' (which checks the values before sending them) and the daemon's
 * worker (which reads them back from the request), so all three accept and
 * refuse exactly the same spellings.
 */
#ifndef MICAD_SAMPLE_OPTIONS_H
#define MICAD_SAMPLE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sample_call_graph {
	CALL_GRAPH_DWARF = 0,	/* user registers + a copy of the user stack, libunwind */
	CALL_GRAPH_FP = 1,	/* the kernel walks frame pointers (PERF_SAMPLE_CALLCHAIN) */
};

/* perf record's defaults: 999 Hz (not 1000, which aliases with timer
 * ticks), 8 KiB of user stack per sample for dwarf. */
#define SAMPLE_DEFAULT_FREQ	999
#define SAMPLE_DEFAULT_STACK	8192
/* SMARTS's unit and detailed warm-up (performance.md §3.1). */
#define SAMPLE_DEFAULT_UNIT	1000
#define SAMPLE_DEFAULT_WARMUP	2000
#define SAMPLE_DEFAULT_OVERHEAD	0.05
#define SAMPLE_DEFAULT_INTERVAL	1.0

struct sample_options {
	bool enabled;		/* --sample */
	const char *event;	/* -e; NULL: the default (cycles, else cpu-clock) */
	uint64_t freq;		/* -F: samples per second; 0 when count is set */
	uint64_t count;		/* -c: events per sample; 0 when freq is set */
	int call_graph;		/* enum sample_call_graph */
	uint32_t stack_bytes;	/* dwarf: user stack bytes copied per sample */
	uint32_t burst_unit;	/* U: measured instructions per burst */
	uint32_t burst_warmup;	/* W: warm-up instructions before them */
	double overhead;	/* the budget: bursts may slow the target by this fraction */
	bool no_bursts;		/* profile only */
	double duration;	/* seconds; 0: until the end */
	double interval_time;	/* seconds per interval of the profile */
};

void sample_options_init(struct sample_options *o);

/* The options' long names, NULL-terminated ("no-bursts" takes no
 * value); the daemon's request keys are the same with '_' for '-'. */
extern const char *const sample_option_names[];

/* name's request key ("call-graph" -> "call_graph") into buf. */
void sample_option_key(const char *name, char *buf, size_t n);

/*
 * Set one option from its long name without the dashes ("event", "freq",
 * "count", "call-graph", "burst", "overhead", "no-bursts", "duration",
 * "interval-time") and its text (NULL for "no-bursts").  value must stay
 * valid while o is used (event points into it).  0, or -1 with the reason
 * in err ("--burst: '0' is not ...").
 */
int sample_option_set(struct sample_options *o, const char *name, const char *value,
		      char *err, size_t errsz);

#endif /* MICAD_SAMPLE_OPTIONS_H */
