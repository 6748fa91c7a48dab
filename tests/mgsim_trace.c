/*
 * Test driver: trace a real program with micad's tracer and feed the
 * MGSim model (trace_mgsim) and the instruction counts, the way a tracing
 * session does; print the final counters and every snapshot, and check
 * the §4.2 invariants between consecutive snapshots.  mgsim_trace.sh
 * compares the output with hand counts and with what it derives itself
 * from the event dump.
 *
 *   mgsim_trace [-c SETTINGS] [-i INTERVAL_SIZE] [-d DUMP] [-f] [-u] [-R TRACE] -- PROG ARGS
 *   mgsim_trace [-c SETTINGS] [-i INTERVAL_SIZE] [-d DUMP] [-u] -r TRACE
 *     -c  mgsim_config_parse() settings     -i  MICA interval size (default full)
 *     -d  write the event dump there        -f  follow forks
 *     -u  one core cycle per event (instead of the simple cycle model)
 *     -R  also record the trace (tracefile.h) there
 *     -r  replay a recorded trace instead of tracing a program
 * Output lines:
 *   counter NAME VALUE          (the 21 counters at the end, in order)
 *   futex_waits N               (wait-class syscall events charged to 12)
 *   insns E H                   (instruction counts, all threads)
 *   cache NAME HITS MISSES FILLS EVICTIONS DIRTY_EVICTIONS   (l1i, l1d, l2)
 *   snapshot TID IDX FINAL N0 N1 ... N20
 *   check VIOLATIONS            (invariants over the snapshots, in order)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mgsim/mgsim.h"
#include "session/trace_analysis.h"
#include "session/trace_mgsim.h"
#include "store/tracefile.h"
#include "trace/ring.h"
#include "trace/tracer.h"

#define MAX_SNAPS 100000

static struct mgsim_snapshot *snaps;
static unsigned nsnaps;

static void
on_snapshot(void *arg, const struct mgsim_snapshot *s)
{
	(void)arg;
	if (nsnaps < MAX_SNAPS)
		snaps[nsnaps++] = *s;
}

static uint64_t
unit_cycles(void *arg, const struct insn_event *ev, const struct mgsim_event_cost *cost)
{
	(void)arg;
	(void)ev;
	(void)cost;
	return 1;
}

int
main(int argc, char **argv)
{
	struct trace_mgsim_opts o;
	struct tracer_options topt;
	struct trace_mgsim *tm;
	struct trace_analysis *ta;
	struct insn_counts *ic;
	struct trace_consumer c;
	struct ring *ring;
	FILE *dump = NULL;
	char err[256];
	uint64_t v[MGSIM_NUM_COUNTERS], e, h;
	struct mgsim_status st;
	int opt, bad = 0;
	bool unit = false;
	const char *record = NULL, *replay = NULL;
	struct tracefile_writer *rec = NULL;
	struct tracer *t = NULL;

	memset(&o, 0, sizeof(o));
	mgsim_config_default(&o.cfg);
	o.interval_size = -1;
	memset(&topt, 0, sizeof(topt));
	topt.step = STEP_LEAPFROG;
	topt.pin = true;
	topt.pin_cpu = -1;
	topt.target_pidfd = -1;
	topt.quiet = true;
	while ((opt = getopt(argc, argv, "c:i:d:fuR:r:")) != -1) {
		switch (opt) {
		case 'c':
			if (mgsim_config_parse(&o.cfg, optarg, err, sizeof(err)) < 0) {
				fprintf(stderr, "mgsim_trace: -c: %s\n", err);
				return 2;
			}
			break;
		case 'i':
			o.interval_size = strtoll(optarg, NULL, 0);
			break;
		case 'd':
			dump = fopen(optarg, "w");
			if (!dump) {
				perror(optarg);
				return 2;
			}
			break;
		case 'f':
			topt.follow_forks = true;
			break;
		case 'u':
			unit = true;
			break;
		case 'R':
			record = optarg;
			break;
		case 'r':
			replay = optarg;
			break;
		default:
			return 2;
		}
	}
	if (replay ? optind < argc || record : optind >= argc) {
		fprintf(stderr, "usage: mgsim_trace [-c SETTINGS] [-i S] [-d DUMP] [-f] [-u] "
			"[-R TRACE] -- PROG\n       mgsim_trace [...] -r TRACE\n");
		return 2;
	}
	snaps = calloc(MAX_SNAPS, sizeof(*snaps));
	if (!snaps)
		return 2;
	o.on_snapshot = on_snapshot;
	tm = trace_mgsim_new(&o, err, sizeof(err));
	if (!tm) {
		fprintf(stderr, "mgsim_trace: %s\n", err);
		return 2;
	}
	if (unit)
		mgsim_set_cycle_model(trace_mgsim_model(tm), "unit", unit_cycles, NULL);
	ring = ring_new(8u << 20);
	ta = trace_analysis_new();
	ic = insn_counts_new();
	if (dump) {
		c = event_dump_consumer(dump);
		trace_analysis_add(ta, &c);
	}
	c = insn_counts_consumer(ic);
	trace_analysis_add(ta, &c);
	c = trace_mgsim_consumer(tm);
	trace_analysis_add(ta, &c);
	if (record) {
		rec = tracefile_create(record);
		if (!rec)
			return 2;
		c = tracefile_consumer(rec);
		trace_analysis_add(ta, &c);
	}
	if (replay) {
		struct tracefile_reader *r = tracefile_open(replay, err, sizeof(err));
		struct tracefile_item *it = malloc(sizeof(*it));
		int rc;

		if (!r || !it) {
			fprintf(stderr, "mgsim_trace: %s\n", r ? "out of memory" : err);
			return 2;
		}
		while ((rc = tracefile_next(r, it, err, sizeof(err))) > 0) {
			if (it->kind == TF_EVENT)
				trace_analysis_feed_event(ta, &it->ev);
			else
				trace_analysis_feed_thread(ta, &it->thread);
		}
		if (rc < 0) {
			fprintf(stderr, "mgsim_trace: %s: %s\n", replay, err);
			return 2;
		}
		trace_analysis_finish(ta);
		tracefile_close_reader(r);
		free(it);
	} else {
		t = tracer_new(&topt, ring);
		if (tracer_launch(t, argv + optind) < 0)
			return 127;
		if (trace_analysis_start(ta, ring, tracer_cpu(t)) < 0)
			return 2;
		tracer_loop(t);
		trace_analysis_join(ta);
	}
	if (rec && tracefile_close(rec) < 0)
		return 2;
	if (dump && fclose(dump) != 0) {
		perror("dump");
		return 2;
	}

	mgsim_sample(trace_mgsim_model(tm), v);
	for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
		printf("counter %s %llu\n", mgsim_counter_info(i)->name, (unsigned long long)v[i]);
	mgsim_get_status(trace_mgsim_model(tm), &st);
	printf("futex_waits %llu\n", (unsigned long long)st.futex_waits);
	insn_counts_total(ic, &e, &h);
	printf("insns %llu %llu\n", (unsigned long long)e, (unsigned long long)h);
	for (int k = 0; k < 3; k++) {
		const struct mgsim *m = trace_mgsim_model(tm);
		const struct cache *ca = k == 0 ? mgsim_l1i(m) : k == 1 ? mgsim_l1d(m) : mgsim_l2(m);
		const struct cache_stats *cs;

		if (!ca)
			continue;
		cs = cache_get_stats(ca);
		printf("cache %s %llu %llu %llu %llu %llu\n", k == 0 ? "l1i" : k == 1 ? "l1d" : "l2",
		       (unsigned long long)cs->hits, (unsigned long long)cs->misses,
		       (unsigned long long)cs->fills, (unsigned long long)cs->evictions,
		       (unsigned long long)cs->dirty_evictions);
	}
	for (unsigned i = 0; i < nsnaps; i++) {
		printf("snapshot %d %lld %d", snaps[i].tid, (long long)snaps[i].idx, snaps[i].final);
		for (unsigned k = 0; k < MGSIM_NUM_COUNTERS; k++)
			printf(" %llu", (unsigned long long)snaps[i].v[k]);
		printf("\n");
		if (mgsim_check(i ? snaps[i - 1].v : NULL, snaps[i].v, &o.cfg, st.max_live_tasks,
				err, sizeof(err))) {
			fprintf(stderr, "snapshot %u: %s\n", i, err);
			bad++;
		}
	}
	printf("check %d\n", bad);
	trace_mgsim_free(tm);
	trace_analysis_free(ta);
	insn_counts_free(ic);
	tracer_free(t);
	ring_free(ring);
	free(snaps);
	return 0;
}
