/*
 * Read a micad binary trace (tracefile.h) through the same consumers as a
 * live run: prints the per-thread instruction counts to argv[2] and the
 * event dump to argv[3], so tests can diff them against the live run's
 * -o and --dump-events output.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "session/trace_analysis.h"
#include "store/tracefile.h"
#include "util.h"

int
main(int argc, char **argv)
{
	struct trace_analysis *ta = trace_analysis_new();
	struct insn_counts *ic = insn_counts_new();
	struct tracefile_reader *r;
	struct tracefile_item it;
	struct trace_consumer c;
	char err[256];
	FILE *counts, *dump;
	int n;

	program_name = "trace_read";
	if (argc != 4)
		error_msg_and_die("usage: trace_read TRACE COUNTS_OUT DUMP_OUT");
	r = tracefile_open(argv[1], err, sizeof(err));
	if (!r)
		error_msg_and_die("%s", err);
	if (!(counts = fopen(argv[2], "w")) || !(dump = fopen(argv[3], "w")))
		perror_msg_and_die("cannot create the output files");
	c = event_dump_consumer(dump);
	trace_analysis_add(ta, &c);
	c = insn_counts_consumer(ic);
	trace_analysis_add(ta, &c);
	while ((n = tracefile_next(r, &it, err, sizeof(err))) > 0) {
		if (it.kind == TF_EVENT)
			trace_analysis_feed_event(ta, &it.ev);
		else
			trace_analysis_feed_thread(ta, &it.thread);
	}
	if (n < 0)
		error_msg_and_die("%s: %s", argv[1], err);
	trace_analysis_finish(ta);
	insn_counts_print(ic, counts, "");
	fclose(counts);
	fclose(dump);
	tracefile_close_reader(r);
	trace_analysis_free(ta);
	insn_counts_free(ic);
	return 0;
}
