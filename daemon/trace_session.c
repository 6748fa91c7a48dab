/*
 * One tracing session (trace_session.h).
 */
#include "config.h"
#include "trace_session.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring.h"
#include "trace_analysis.h"
#include "trace_mica.h"
#include "tracefile.h"
#include "util.h"

#define RING_BYTES (8u << 20)

/* Leapfrog: 1.4-1.7x the TF rate in bench/step_bench.sh (pinned, same run), with
 * identical events (tests/tracer_leapfrog.sh). */
#define DEFAULT_STEP STEP_LEAPFROG

void
trace_session_opts_init(struct trace_session_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->t.pin = true;
	o->t.pin_cpu = -1;
	o->t.step = DEFAULT_STEP;
	o->uid = getuid();
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

int
trace_session_run(const struct trace_session_opts *o, char **prog_argv, pid_t attach_pid)
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
		mica = trace_mica_new(conf, o->interval, o->mica_out);
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

