/*
 * Sample mode's options (sample_options.h).
 */
#include "config.h"
#include "trace/sample_options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void
sample_options_init(struct sample_options *o)
{
	memset(o, 0, sizeof(*o));
	o->freq = SAMPLE_DEFAULT_FREQ;
	o->call_graph = CALL_GRAPH_DWARF;
	o->stack_bytes = SAMPLE_DEFAULT_STACK;
	o->burst_unit = SAMPLE_DEFAULT_UNIT;
	o->burst_warmup = SAMPLE_DEFAULT_WARMUP;
	o->overhead = SAMPLE_DEFAULT_OVERHEAD;
	o->interval_time = SAMPLE_DEFAULT_INTERVAL;
}

const char *const sample_option_names[] = {
	"event", "freq", "count", "call-graph", "burst", "overhead", "no-bursts", "duration",
	"interval-time", NULL
};

void
sample_option_key(const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s", name);
	for (char *c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
}

/* A positive number of seconds (or a percentage), finite: 0 or -1. */
static int
parse_positive(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v) || *v <= 0)
		return -1;
	return 0;
}

/* A u64 in [lo, hi]: 0 or -1. */
static int
parse_range(const char *s, unsigned long long lo, unsigned long long hi, uint64_t *v)
{
	unsigned long long x;

	if (parse_u64(s, &x) < 0 || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

/* The largest user stack the kernel copies per sample: the sample must fit
 * its 16-bit record size (perf's limit too, rounded to 8 bytes). */
#define MAX_STACK_BYTES 65528

int
sample_option_set(struct sample_options *o, const char *name, const char *value,
		  char *err, size_t errsz)
{
	uint64_t u, w;
	double d;

	if (strcmp(name, "no-bursts") == 0) {
		o->no_bursts = true;
		return 0;
	}
	if (!value) {
		snprintf(err, errsz, "--%s needs a value", name);
		return -1;
	}
	if (strcmp(name, "event") == 0) {
		if (!*value || strlen(value) >= 64) {
			snprintf(err, errsz, "--event: '%s' is not an event name (1 to 63 "
				 "characters: cycles, cpu-clock, INST_RETIRED:ANY_P, ibs_op, ...)",
				 value);
			return -1;
		}
		o->event = value;
	} else if (strcmp(name, "freq") == 0) {
		if (parse_range(value, 1, 100000, &u) < 0) {
			snprintf(err, errsz, "--freq: '%s' is not a sampling rate in Hz "
				 "(1 to 100000)", value);
			return -1;
		}
		o->freq = u;
		o->count = 0;
	} else if (strcmp(name, "count") == 0) {
		if (parse_range(value, 1, 1ULL << 62, &u) < 0) {
			snprintf(err, errsz, "--count: '%s' is not a sample period (a positive "
				 "number of events)", value);
			return -1;
		}
		o->count = u;
		o->freq = 0;
	} else if (strcmp(name, "call-graph") == 0) {
		if (strcmp(value, "fp") == 0) {
			o->call_graph = CALL_GRAPH_FP;
		} else if (strcmp(value, "dwarf") == 0) {
			o->call_graph = CALL_GRAPH_DWARF;
		} else if (strncmp(value, "dwarf,", 6) == 0 &&
			   parse_range(value + 6, 8, MAX_STACK_BYTES, &u) == 0) {
			o->call_graph = CALL_GRAPH_DWARF;
			o->stack_bytes = (uint32_t)(u + 7) & ~7u;
		} else {
			snprintf(err, errsz, "--call-graph: '%s' is not fp, dwarf or dwarf,BYTES "
				 "(8 to %d bytes of stack per sample)", value, MAX_STACK_BYTES);
			return -1;
		}
	} else if (strcmp(name, "burst") == 0) {
		char unit[32];
		const char *comma = strchr(value, ',');
		size_t n = comma ? (size_t)(comma - value) : strlen(value);

		w = o->burst_warmup;
		if (n >= sizeof(unit))
			n = sizeof(unit) - 1;
		memcpy(unit, value, n);
		unit[n] = '\0';
		if (parse_range(unit, 1, 100000000, &u) < 0 ||
		    (comma && parse_range(comma + 1, 0, 100000000, &w) < 0)) {
			snprintf(err, errsz, "--burst: '%s' is not U[,W] (U measured instructions "
				 "per burst, 1 to 10^8; W warm-up instructions before them, 0 to "
				 "10^8)", value);
			return -1;
		}
		o->burst_unit = (uint32_t)u;
		o->burst_warmup = (uint32_t)w;
	} else if (strcmp(name, "overhead") == 0) {
		if (parse_positive(value, &d) < 0 || d > 90) {
			snprintf(err, errsz, "--overhead: '%s' is not a percentage (more than 0, "
				 "at most 90)", value);
			return -1;
		}
		o->overhead = d / 100;
	} else if (strcmp(name, "duration") == 0) {
		if (parse_positive(value, &d) < 0) {
			snprintf(err, errsz, "--duration: '%s' is not a positive number of seconds",
				 value);
			return -1;
		}
		o->duration = d;
	} else if (strcmp(name, "interval-time") == 0) {
		if (parse_positive(value, &d) < 0 || d < 0.01) {
			snprintf(err, errsz, "--interval-time: '%s' is not a number of seconds "
				 "(0.01 or more)", value);
			return -1;
		}
		o->interval_time = d;
	} else {
		snprintf(err, errsz, "internal error: no sample option '%s'", name);
		return -1;
	}
	return 0;
}
