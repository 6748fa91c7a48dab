/*
 * Fuzz target for the trace readers of 'micad replay' (tests/fuzz_run.sh
 * runs it): bit 0 of byte 0 picks the reader (0: micad's binary trace,
 * tracefile.h; 1: the text notation of mica.md §1.6, trace_text.h), the
 * rest is the file.  Every event a reader lets through goes on to MICA
 * analyses in intervals of 200, as in a replay: nothing a reader accepts
 * may crash them.  The other bits of byte 0 pick them: one analysis
 * (0-7), or all (8; a new memstackdist costs megabytes, so not every
 * input runs it).  Seeds: tests/fuzz/trace/.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "mica/mica_config.h"
#include "mica/mica_run.h"
#include "mica/trace_text.h"
#include "store/tracefile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *
category(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return insn_category_name(ii);
}

static const char *
iclass(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return insn_iclass_name(ii);
}

static const struct mica_names decoded = { category, iclass, NULL };

static int
on_interval(void *arg, const struct mica_interval *iv)
{
	++*(unsigned long *)arg;
	if (iv->ins > iv->total_ins)
		abort();	/* an interval holds more than the whole thread */
	return 0;
}

/* Configuration k: analysis k alone (0-7), or all (8). */
static const struct mica_config *
config(unsigned k)
{
	static struct mica_config c[MICA_N_ANALYSES + 1];
	static bool done;
	char text[128], err[256];

	if (!done) {
		for (unsigned i = 0; i <= MICA_N_ANALYSES; i++) {
			snprintf(text, sizeof(text), "analysis_type: %s\ninterval_size: 200\n"
				 "ilp_size: 16\n", i < MICA_N_ANALYSES ?
				 mica_analysis_name((enum mica_analysis)i) : "all");
			mica_config_init(&c[i]);
			if (mica_config_parse(&c[i], "fuzz", text, strlen(text), err,
					      sizeof(err)) < 0) {
				fprintf(stderr, "%s\n", err);
				abort();
			}
		}
		done = true;
	}
	return &c[k % (MICA_N_ANALYSES + 1)];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct mica_names *names = &decoded;
	const struct mica_config *cfg;
	struct trace_text *tt = NULL;
	struct tracefile_reader *tr = NULL;
	struct mica_run *run;
	unsigned long intervals = 0;
	size_t pos = 0;
	unsigned line = 0;
	char err[512];
	bool text;

	if (size < 2)
		return 0;
	text = data[0] & 1;
	cfg = config(data[0] >> 1);
	data++;
	size--;
	if (text) {
		tt = trace_text_new();
		names = trace_text_names(tt);
	} else {
		FILE *f = fmemopen((void *)data, size, "rb");

		if (!f || !(tr = tracefile_open_stream(f, "fuzz", err, sizeof(err))))
			return 0;
	}
	run = mica_run_new(cfg, names, 0, on_interval, &intervals, err, sizeof(err));
	if (!run)
		abort();
	for (;;) {
		int r;

		if (text) {
			struct insn_event ev;

			r = trace_text_next(tt, (const char *)data, size, &pos, &line, &ev, err,
					    sizeof(err));
			if (r > 0 && mica_run_event(run, &ev) < 0)
				break;
		} else {
			struct tracefile_item it;

			r = tracefile_next(tr, &it, err, sizeof(err));
			if (r > 0 && it.kind == TF_EVENT && mica_run_event(run, &it.ev) < 0)
				break;
		}
		if (r < 0)
			break;
		if (r == 0) {
			mica_run_finish(run);
			break;
		}
	}
	mica_run_free(run);
	trace_text_free(tt);
	tracefile_close_reader(tr);
	return 0;
}
