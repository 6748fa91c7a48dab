/*
 * 'micad run' and 'micad attach': trace every instruction of a program
 * (tracer.h) and feed the analyses on another thread (trace_analysis.h).
 */
#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "store/store.h"
#include "http/trace_http.h"
#include "session/trace_mica.h"
#include "session/trace_session.h"
#include "sched/sched_pipeline.h"
#include "session/trace_sched.h"
#include "util.h"
#include "trace/vg_engine.h"

static void
usage(FILE *f, bool run)
{
	if (run)
		fprintf(f, "Usage: micad run [OPTIONS] -- PROGRAM [ARGS...]\n"
			"Launch PROGRAM and trace every instruction of every thread until it exits;\n"
			"exit with its exit status (128+N if killed by signal N, 127 if it cannot run).\n");
	else
		fprintf(f, "Usage: micad attach [OPTIONS] PID\n"
			"Trace every instruction of every thread of the running process PID until it\n"
			"exits, or until micad gets SIGINT or SIGTERM: then detach, and the process\n"
			"goes on as if nothing happened.\n");
	fprintf(f, "\n"
		"Options:\n"
		"  -c, --config FILE   a mica.conf: the analyses to run (spec mica.md §2)\n"
		"      --mica-out DIR  write MICA's output files for those analyses into DIR\n"
		"      --record FILE   write the event stream to FILE (compact binary trace,\n"
		"                      for 'micad replay')\n"
		"      --interval N    interval size in instructions (overrides interval_size)\n"
		"      --analysis-threads N  run the MICA analyses in N groups, each on a\n"
		"                      thread of its own (the same results; default 1: all\n"
		"                      on one thread)\n"
		"      --db FILE       the results database (default: $XDG_DATA_HOME/micad/\n"
		"                      results.db or ~/.local/share/micad/results.db); without\n"
		"                      -c, every analysis ('all') in intervals of 100000\n"
		"      --no-db         do not write the results database\n"
		"      --mcpu CPU      the CPU model of the simulated cycles per interval in the\n"
		"                      database (as 'micactl mca -mcpu'; default: the host's,\n"
		"                      %s; AMD models fall back to skylake)\n"
		"      --follow-forks  trace child processes too, each characterized apart\n"
		"      --no-pin        do not pin micad and the program to one CPU (slower)\n"
		"      --engine=ENGINE how the instructions are seen: 'ptrace' (step mode, the\n"
		"                      default) or, for run only, 'valgrind' (micad's valgrind\n"
		"                      tool runs the program: the same results, much faster)\n"
		"      --step=MODE     how to step: 'leapfrog' (int3 on the next instruction,\n"
		"                      PTRACE_CONT; single-step where it cannot: the default)\n"
		"                      or 'tf' (PTRACE_SINGLESTEP, the trap flag, always)\n"
		"  -o, --output FILE   write the per-thread instruction counts to FILE\n"
		"                      (default: standard error)\n"
		"      --dump-events FILE  one text line per event (tests, debugging)\n"
		"      --http[=ADDR:PORT]  serve the web UI and JSON API while tracing (as\n"
		"                      micad serve does; default 127.0.0.1:8766 and [::1])\n"
		"  -q, --quiet         no progress line, summary or warning repeated every run\n"
		"  -h, --help          this help\n"
		"\n"
		"Sample mode (the program runs natively; a perf event samples it):\n"
		"      --sample        sample instead of stepping every instruction\n"
		"  -e, --event EVENT   the sampling event: cycles[:p|:pp|:ppp|:P],\n"
		"                      instructions, cpu-clock, task-clock, a libpfm4 name\n"
		"                      (INST_RETIRED:ANY_P, MEM_INST_RETIRED:ALL_LOADS:pp),\n"
		"                      or a PMU (ibs_op, ibs_op/cnt_ctl=1/); ':u', ':k' for\n"
		"                      user, kernel (default: cycles at the most precise level,\n"
		"                      else cpu-clock where there is no hardware PMU)\n"
		"  -F, --freq HZ       samples per second (default %d)\n"
		"      --count N       a sample every N events instead\n"
		"      --call-graph fp|dwarf[,BYTES]  stacks by frame pointers, or by\n"
		"                      libunwind over a copy of the user stack (default dwarf,\n"
		"                      %d bytes)\n"
		"      --burst U[,W]   instructions stepped per burst: U measured after W\n"
		"                      of warm-up (default %d,%d)\n"
		"      --overhead PCT  bursts may slow the program by this much (default %g)\n"
		"      --no-bursts     profile only\n"
		"      --duration S    stop after S seconds (attach: detach; run: let the\n"
		"                      program go on and wait for its end)\n"
		"      --interval-time S  profile intervals of S seconds (default %g)\n",
		trace_sched_host_cpu(), SAMPLE_DEFAULT_FREQ, SAMPLE_DEFAULT_STACK,
		SAMPLE_DEFAULT_UNIT, SAMPLE_DEFAULT_WARMUP, SAMPLE_DEFAULT_OVERHEAD * 100,
		SAMPLE_DEFAULT_INTERVAL);
}

static char *default_db;
static bool no_db;
static const char *http_listen;	/* --http: NULL none, "" the default */

static int
parse_opts(int argc, char **argv, struct trace_session_opts *o, bool run)
{
	enum { OPT_MICA_OUT = 256, OPT_RECORD, OPT_INTERVAL, OPT_FOLLOW, OPT_NO_PIN, OPT_DUMP,
	       OPT_STEP, OPT_DB, OPT_NO_DB, OPT_MCPU, OPT_HTTP, OPT_SAMPLE, OPT_SAMPLE_OPT,
	       OPT_ENGINE, OPT_THREADS };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "mica-out", required_argument, NULL, OPT_MICA_OUT },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "follow-forks", no_argument, NULL, OPT_FOLLOW },
		{ "no-pin", no_argument, NULL, OPT_NO_PIN },
		{ "dump-events", required_argument, NULL, OPT_DUMP },
		{ "step", required_argument, NULL, OPT_STEP },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "analysis-threads", required_argument, NULL, OPT_THREADS },
		{ "db", required_argument, NULL, OPT_DB },
		{ "no-db", no_argument, NULL, OPT_NO_DB },
		{ "mcpu", required_argument, NULL, OPT_MCPU },
		{ "http", optional_argument, NULL, OPT_HTTP },
		{ "sample", no_argument, NULL, OPT_SAMPLE },
		{ "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, OPT_SAMPLE_OPT },
		{ "call-graph", required_argument, NULL, OPT_SAMPLE_OPT },
		{ "burst", required_argument, NULL, OPT_SAMPLE_OPT },
		{ "overhead", required_argument, NULL, OPT_SAMPLE_OPT },
		{ "no-bursts", no_argument, NULL, OPT_SAMPLE_OPT },
		{ "duration", required_argument, NULL, OPT_SAMPLE_OPT },
		{ "interval-time", required_argument, NULL, OPT_SAMPLE_OPT },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *sample_opt = NULL;	/* a sample option given, for the check */
	unsigned long long v;
	char err[256];
	int c, li = -1;

	trace_session_opts_init(o);
	o->mode = run ? "run" : "attach";
	while ((c = getopt_long(argc, argv, "+c:o:qhe:F:", longopts, &li)) != -1) {
		switch (c) {
		case OPT_SAMPLE:
			o->t.sample.enabled = true;
			break;
		case 'e':
		case 'F':
		case OPT_SAMPLE_OPT:
			/* li is set for long options only. */
			sample_opt = c == 'e' ? "event" : c == 'F' ? "freq" : longopts[li].name;
			if (sample_option_set(&o->t.sample, sample_opt, optarg, err,
					      sizeof(err)) < 0) {
				error_msg("%s", err);
				return 2;
			}
			break;
		case 'c':
			o->config = optarg;
			break;
		case OPT_MICA_OUT:
			o->mica_out = optarg;
			break;
		case OPT_RECORD:
			o->record = optarg;
			break;
		case OPT_THREADS:
			if (parse_u64(optarg, &v) < 0 || v > TRACE_MICA_MAX_GROUPS) {
				error_msg("--analysis-threads: '%s' is not a number of threads from 0 "
					  "to %d", optarg, TRACE_MICA_MAX_GROUPS);
				return 2;
			}
			o->analysis_threads = (unsigned)v;
			break;
		case OPT_INTERVAL:
			if (parse_u64(optarg, &v) < 0 || v == 0 || v > (1ULL << 62)) {
				error_msg("--interval: '%s' is not a positive number of instructions", optarg);
				return 2;
			}
			o->interval = (long long)v;
			break;
		case OPT_FOLLOW:
			o->t.follow_forks = true;
			break;
		case OPT_NO_PIN:
			o->t.pin = false;
			break;
		case OPT_DUMP:
			o->dump = optarg;
			break;
		case OPT_STEP:
			if (strcmp(optarg, "leapfrog") == 0) {
				o->t.step = STEP_LEAPFROG;
			} else if (strcmp(optarg, "tf") == 0) {
				o->t.step = STEP_TF;
			} else {
				error_msg("--step: '%s' is not a step mode (leapfrog or tf)", optarg);
				return 2;
			}
			break;
		case OPT_ENGINE:
			if (strcmp(optarg, "ptrace") == 0) {
				o->t.engine = ENGINE_PTRACE;
			} else if (strcmp(optarg, "valgrind") == 0 && run) {
				o->t.engine = ENGINE_VALGRIND;
			} else if (strcmp(optarg, "valgrind") == 0) {
				error_msg("attach: --engine=valgrind cannot attach to a running "
					  "process (valgrind must start the program): use 'micad run "
					  "--engine=valgrind', or attach with --engine=ptrace");
				return 2;
			} else {
				error_msg("--engine: '%s' is not an engine (ptrace or valgrind)", optarg);
				return 2;
			}
			break;
		case OPT_DB:
			o->db = optarg;
			no_db = false;
			break;
		case OPT_NO_DB:
			o->db = NULL;
			no_db = true;
			break;
		case OPT_MCPU:
			if (!sched_model_find(optarg)) {
				error_msg("--mcpu: '%s' is not a CPU model (skylake, haswell, "
					  "sandybridge, ivybridge, alderlake, btver2, znver3, znver4)",
					  optarg);
				return 2;
			}
			o->mcpu = optarg;
			break;
		case OPT_HTTP:
			http_listen = optarg ? optarg : "";
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->t.quiet = true;
			o->quiet_warnings = true;
			break;
		case 'h':
			usage(stdout, run);
			return 0;
		default:
			usage(stderr, run);
			return 2;
		}
	}
	if (sample_opt && !o->t.sample.enabled) {
		error_msg("--%s is an option of sample mode: add --sample", sample_opt);
		return 2;
	}
	if (o->record && o->t.sample.enabled) {
		/* A trace file is one instruction stream, replayed as if every
		 * instruction had been seen; bursts are pieces of one. */
		error_msg("--record is for exact runs: a trace file holds every instruction, and "
			  "sample mode sees bursts of them (drop --sample to record, or keep the "
			  "sampled results in the database)");
		return 2;
	}
	return -1;
}

/* The default database unless --db or --no-db said otherwise (after the
 * usage checks: a usage error creates no directory).  -1 after reporting. */
static int
resolve_db(struct trace_session_opts *o)
{
	char err[512];

	if (o->db || no_db)
		return 0;
	default_db = store_default_path(err, sizeof(err));
	if (!default_db) {
		error_msg("the results database: %s, or --no-db", err);
		return -1;
	}
	o->db = default_db;
	return 0;
}

/* The session, with the HTTP server beside it when --http asked. */
static int
run_session(struct trace_session_opts *o, char **argv, pid_t pid)
{
	struct trace_http *th = NULL;
	int r;

	if (http_listen && !(th = trace_http_start(o, http_listen)))
		return argv ? 127 : 1;
	/* attach: the process must outlive us, whatever kills us */
	o->tracer_process = argv == NULL;
	r = trace_session_run(o, argv, pid);
	trace_http_stop(th);
	return r;
}

int
cmd_run(int argc, char **argv)
{
	struct trace_session_opts o;
	int r = parse_opts(argc, argv, &o, true);

	if (r >= 0)
		return r;
	if (optind >= argc) {
		error_msg("run: no program given (usage: micad run [OPTIONS] -- PROGRAM [ARGS...])");
		return 2;
	}
	if (o.t.engine == ENGINE_VALGRIND && vg_engine_available() < 0)
		return 127;
	if (resolve_db(&o) < 0)
		return 1;
	r = run_session(&o, argv + optind, 0);
	free(default_db);
	return r;
}

int
cmd_attach(int argc, char **argv)
{
	struct trace_session_opts o;
	unsigned long long pid;
	int r = parse_opts(argc, argv, &o, false);

	if (r >= 0)
		return r;
	if (optind + 1 != argc) {
		error_msg("attach: give exactly one PID (usage: micad attach [OPTIONS] PID)");
		return 2;
	}
	if (parse_u64(argv[optind], &pid) < 0 || pid == 0 || pid > 0x7fffffff) {
		error_msg("attach: '%s' is not a process id", argv[optind]);
		return 2;
	}
	if (resolve_db(&o) < 0)
		return 1;
	r = run_session(&o, NULL, (pid_t)pid);
	free(default_db);
	return r;
}
