/*
 * 'micad run' and 'micad attach': trace every instruction of a program
 * (tracer.h) and feed the analyses on another thread (trace_analysis.h).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "ring.h"
#include "trace_analysis.h"
#include "trace_mica.h"
#include "tracefile.h"
#include "tracer.h"
#include "util.h"

#define RING_BYTES (8u << 20)

/* Leapfrog: 1.4-1.7x the TF rate in bench/step_bench.sh (pinned, same run), with
 * identical events (tests/tracer_leapfrog.sh). */
#define DEFAULT_STEP STEP_LEAPFROG

struct trace_cmd_opts {
	const char *config, *mica_out, *record, *output, *dump;
	long long interval;
	bool have_interval;
	struct tracer_options t;
};

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
		"      --follow-forks  trace child processes too, each characterized apart\n"
		"      --no-pin        do not pin micad and the program to one CPU (slower)\n"
		"      --step=MODE     how to step: 'leapfrog' (int3 on the next instruction,\n"
		"                      PTRACE_CONT; single-step where it cannot: the default)\n"
		"                      or 'tf' (PTRACE_SINGLESTEP, the trap flag, always)\n"
		"  -o, --output FILE   write the per-thread instruction counts to FILE\n"
		"                      (default: standard error)\n"
		"      --dump-events FILE  one text line per event (tests, debugging)\n"
		"  -q, --quiet         no progress line\n"
		"  -h, --help          this help\n");
}

static int
parse_opts(int argc, char **argv, struct trace_cmd_opts *o, bool run)
{
	enum { OPT_MICA_OUT = 256, OPT_RECORD, OPT_INTERVAL, OPT_FOLLOW, OPT_NO_PIN, OPT_DUMP,
	       OPT_STEP };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "mica-out", required_argument, NULL, OPT_MICA_OUT },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "follow-forks", no_argument, NULL, OPT_FOLLOW },
		{ "no-pin", no_argument, NULL, OPT_NO_PIN },
		{ "dump-events", required_argument, NULL, OPT_DUMP },
		{ "step", required_argument, NULL, OPT_STEP },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned long long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->t.pin = true;
	o->t.pin_cpu = -1;
	o->t.step = DEFAULT_STEP;
	while ((c = getopt_long(argc, argv, "+c:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case OPT_MICA_OUT:
			o->mica_out = optarg;
			break;
		case OPT_RECORD:
			o->record = optarg;
			break;
		case OPT_INTERVAL:
			if (parse_u64(optarg, &v) < 0 || v == 0 || v > (1ULL << 62)) {
				error_msg("--interval: '%s' is not a positive number of instructions", optarg);
				return 2;
			}
			o->interval = (long long)v;
			o->have_interval = true;
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
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->t.quiet = true;
			break;
		case 'h':
			usage(stdout, run);
			return 0;
		default:
			usage(stderr, run);
			return 2;
		}
	}
	return -1;
}

static bool is_run;
static pid_t run_pid;

static void
on_term_signal(int sig)
{
	if (is_run) {
		/* 'run': the program decides (a terminal's Ctrl-C reached it
		 * already); SIGTERM is passed on. */
		if (sig == SIGTERM && run_pid > 0)
			kill(run_pid, SIGTERM);
		return;
	}
	tracer_request_detach();
}

static void
install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: waitpid must return to notice a detach request. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int
trace_main(struct trace_cmd_opts *o, char **prog_argv, pid_t attach_pid)
{
	struct ring *ring = ring_new(RING_BYTES);
	struct tracer *t;
	struct trace_analysis *ta = trace_analysis_new();
	struct insn_counts *ic = insn_counts_new();
	struct tracefile_writer *rec = NULL;
	struct trace_consumer c;
	FILE *out = stderr, *dump = NULL;
	int ret = 0, status = 0;

	struct trace_mica *mica = NULL;

	if (o->config || o->mica_out) {
		const char *conf = o->config ? o->config : "mica.conf";

		if (!o->config && access(conf, F_OK) != 0) {
			error_msg("--mica-out needs a configuration: no mica.conf in the current "
				  "directory, pass one with -c FILE");
			return prog_argv ? 127 : 1;
		}
		mica = trace_mica_new(conf, o->have_interval ? o->interval : 0, o->mica_out);
		if (!mica)
			return prog_argv ? 127 : 1;
	}
	if (o->output && !(out = fopen(o->output, "w"))) {
		perror_msg("cannot write the counts to '%s'", o->output);
		return prog_argv ? 127 : 1;
	}
	if (o->dump) {
		if (!(dump = fopen(o->dump, "w"))) {
			perror_msg("cannot write the event dump '%s'", o->dump);
			return prog_argv ? 127 : 1;
		}
		c = event_dump_consumer(dump);
		trace_analysis_add(ta, &c);
	}
	c = insn_counts_consumer(ic);
	trace_analysis_add(ta, &c);
	if (mica) {
		c = trace_mica_consumer(mica);
		trace_analysis_add(ta, &c);
	}
	if (o->record) {
		rec = tracefile_create(o->record);
		if (!rec)
			return prog_argv ? 127 : 1;
		c = tracefile_consumer(rec);
		trace_analysis_add(ta, &c);
	}
	is_run = prog_argv != NULL;
	install_signals();
	t = tracer_new(&o->t, ring);
	if (prog_argv) {
		if (tracer_launch(t, prog_argv) < 0) {
			ret = 127;
			goto out;
		}
	} else if (tracer_attach(t, attach_pid) < 0) {
		ret = 1;
		goto out;
	}
	run_pid = tracer_main_pid(t);
	if (trace_analysis_start(ta, ring, tracer_cpu(t)) < 0) {
		tracer_request_detach();
		ret = 1;
	}
	tracer_loop(t);
	trace_analysis_join(ta);
	if (rec && tracefile_close(rec) < 0)
		ret = 1;
	rec = NULL;
	insn_counts_print(ic, out, out == stderr ? "micad: " : "");
	if (!o->t.quiet) {
		struct tracer_stats st;

		tracer_get_stats(t, &st);
		fprintf(stderr, "micad: %llu instructions in %.2f s (%.1f K/s), %llu decoded, %s, "
			"%s (%llu leaps)\n",
			(unsigned long long)st.steps, st.seconds,
			st.seconds > 0 ? st.steps / st.seconds / 1000 : 0.0,
			(unsigned long long)st.decode_misses,
			tracer_cpu(t) >= 0 ? "pinned" : "not pinned",
			o->t.step == STEP_LEAPFROG ? "leapfrog" : "tf",
			(unsigned long long)st.leap_steps);
	}
	if (prog_argv && ret == 0) {
		if (!tracer_main_status(t, &status))
			ret = 1;
		else if (WIFSIGNALED(status))
			ret = 128 + WTERMSIG(status);
		else
			ret = WEXITSTATUS(status);
	}
out:
	if (rec)
		tracefile_close(rec);
	if (dump && fclose(dump) != 0) {
		perror_msg("cannot write the event dump '%s'", o->dump);
		ret = ret ? ret : 1;
	}
	if (out != stderr && fclose(out) != 0) {
		perror_msg("cannot write the counts to '%s'", o->output);
		ret = ret ? ret : 1;
	}
	trace_analysis_free(ta);
	if (trace_mica_free(mica) < 0 && ret == 0)
		ret = 1;
	insn_counts_free(ic);
	tracer_free(t);
	ring_free(ring);
	return ret;
}

int
cmd_run(int argc, char **argv)
{
	struct trace_cmd_opts o;
	int r = parse_opts(argc, argv, &o, true);

	if (r >= 0)
		return r;
	if (optind >= argc) {
		error_msg("run: no program given (usage: micad run [OPTIONS] -- PROGRAM [ARGS...])");
		return 2;
	}
	return trace_main(&o, argv + optind, 0);
}

int
cmd_attach(int argc, char **argv)
{
	struct trace_cmd_opts o;
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
	return trace_main(&o, NULL, (pid_t)pid);
}
