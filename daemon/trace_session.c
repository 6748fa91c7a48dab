/*
 * One tracing session (trace_session.h).
 */
#include "config.h"
#include "trace_session.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mica_files.h"
#include "ring.h"
#include "store_json.h"
#include "store_writer.h"
#include "trace_analysis.h"
#include "trace_child.h"
#include "trace_mica.h"
#include "trace_mgsim.h"
#include "store_mgsim.h"
#include "trace_sched.h"
#include "store_sched.h"
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
	o->t.target_pidfd = -1;
	o->t.step = DEFAULT_STEP;
	o->uid = getuid();
}

static bool is_run, in_child;
static pid_t run_pid;

static void
on_term_signal(int sig)
{
	if (is_run) {
		/* 'run': the program decides (a terminal's Ctrl-C reached it
		 * already); SIGTERM is passed on. */
		if (sig == SIGTERM && in_child)
			trace_child_signal(SIGTERM);
		else if (sig == SIGTERM && run_pid > 0)
			kill(run_pid, SIGTERM);
		return;
	}
	trace_child_request_detach();
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

/* What the session row says the command was: argv joined with spaces, or
 * an attached process's /proc/PID/cmdline the same way (malloc'd). */
static char *
command_text(char **argv, pid_t pid)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		perror_msg_and_die("open_memstream");
	if (argv) {
		for (char **a = argv; *a; a++)
			fprintf(f, "%s%s", a == argv ? "" : " ", *a);
	} else {
		char path[64], chunk[4096];
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		while (fd >= 0 && (n = read(fd, chunk, sizeof(chunk))) > 0)
			for (ssize_t i = 0; i < n; i++)
				putc(chunk[i] ? chunk[i] : ' ', f);
		if (fd >= 0)
			close(fd);
	}
	if (fclose(f) != 0)
		perror_msg_and_die("open_memstream");
	/* cmdline ends with a NUL: no trailing space */
	while (len && buf[len - 1] == ' ')
		buf[--len] = '\0';
	if (!len) {
		free(buf);
		buf = xasprintf("pid %d", (int)pid);
	}
	return buf;
}

/* The effective settings, JSON: MICA's (after --interval) and the
 * tracer's (malloc'd). */
static char *
settings_json(const struct trace_session_opts *o, const struct mica_config_text *config,
	      const struct mica_config *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		perror_msg_and_die("open_memstream");
	fputs("{\"config_file\":", f);
	json_put_string(f, o->config || o->config_text ? config->name : NULL);
	fputs(",", f);
	json_put_mica_settings(f, c);
	fputs(",\"interval_override\":", f);
	if (o->interval > 0)
		fprintf(f, "%lld", o->interval);
	else
		fputs("null", f);
	fprintf(f, ",\"step\":\"%s\",\"pin\":%s,\"follow_forks\":%s,\"mica_out\":",
		o->t.step == STEP_TF ? "tf" : "leapfrog", o->t.pin ? "true" : "false",
		o->t.follow_forks ? "true" : "false");
	json_put_string(f, o->mica_out);
	fputs(",\"record\":", f);
	json_put_string(f, o->record);
	fputs("}", f);
	if (fclose(f) != 0)
		perror_msg_and_die("open_memstream");
	return buf;
}

/* The session row, before the program starts (its pid comes later). */
static int64_t
session_begin(const struct trace_session_opts *o, struct store_writer *db,
	      const struct trace_mica *mica, const struct mica_config_text *config,
	      char **argv, pid_t attach_pid)
{
	struct store_session s = {
		.mode = o->mode ? o->mode : argv ? "run" : "attach",
		.uid = o->uid,
		.mica = trace_mica_config(mica),
	};
	char err[512], *command, *settings;
	int64_t id;

	s.config = config ? config->text : TRACE_MICA_DEFAULT_CONFIG;
	/* A process the tracer has not attached to yet is not known to be
	 * one the client may look at: its command line comes once it is
	 * traced (session_pid_fn). */
	s.command = command = argv || !o->child ? command_text(argv, attach_pid)
			    : xasprintf("pid %d", (int)attach_pid);
	s.pid = attach_pid;
	s.settings = settings = settings_json(o, config, s.mica);
	id = store_writer_session_begin(db, &s, err, sizeof(err));
	if (id < 0)
		error_msg("cannot record the session: %s", err);
	free(command);
	free(settings);
	return id;
}

struct session_pid_job {
	int64_t session, pid;
	char *command;		/* NULL: the one recorded at the start */
};

static int
session_pid_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	struct session_pid_job *j = arg;

	return store_session_pid(st, j->session, j->pid, j->command, err, errsz);
}

static void
session_pid_free(void *arg)
{
	struct session_pid_job *j = arg;

	free(j->command);
	free(j);
}

static const char *
exe_from_tracer(void *arg, int32_t pid)
{
	return trace_analysis_exe(arg, pid);
}

/* How the session ended, for its row. */
static const char *
end_reason(bool started, bool failed, bool ended, int status, int *exit_status)
{
	*exit_status = -1;
	if (started && ended)
		*exit_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	if (!started || failed)
		return "error";
	if (!ended)
		return "detached";
	return WIFSIGNALED(status) ? "killed" : "exited";
}

int
trace_session_run(const struct trace_session_opts *o, char **prog_argv, pid_t attach_pid)
{
	struct ring *ring = o->ring ? o->ring : ring_new(RING_BYTES);
	struct mica_config_text own_config = { 0 };
	const struct mica_config_text *config = o->config_text;
	struct tracer *t = NULL;
	struct trace_analysis *ta = trace_analysis_new();
	struct insn_counts *ic = insn_counts_new();
	struct tracefile_writer *rec = NULL;
	struct trace_consumer c;
	FILE *out = stderr, *dump = NULL;
	int ret = 0, status = 0, fail = prog_argv ? 127 : 1;
	struct trace_mica *mica = NULL;
	struct trace_mgsim *mg = NULL;
	struct store_mgsim_sink sink = { NULL, 0, 0 };
	struct trace_sched *sched = NULL;
	struct store_sched_sink ssink = { NULL, 0, 0 };
	struct store_writer *db = NULL;
	int64_t session = -1;
	bool started = false, failed = false, ended = false;
	int cpu = -1;
	char err[512];

	if (o->config || o->config_text || o->mica_out || o->db) {
		/* The database alone runs the default configuration. */
		const char *conf = o->config ? o->config : o->mica_out ? "mica.conf" : NULL;

		if (!o->config && !config && o->mica_out && access(conf, F_OK) != 0) {
			error_msg("--mica-out needs a configuration: no mica.conf in the current "
				  "directory, pass one with -c FILE");
			ret = fail;
			goto out;
		}
		if (!config && conf) {
			if (mica_config_read(conf, &own_config) < 0) {
				ret = fail;
				goto out;
			}
			config = &own_config;
		}
		mica = trace_mica_new(config, o->interval, o->mica_out);
		if (!mica) {
			ret = fail;
			goto out;
		}
		if (o->live_intervals)
			trace_mica_set_live_intervals(mica, o->live_intervals);
	}
	if (o->db) {
		db = store_writer_open(o->db, err, sizeof(err));
		if (!db) {
			error_msg("%s (choose another file with --db FILE, or none with --no-db)", err);
			ret = fail;
			goto out;
		}
		session = session_begin(o, db, mica, config, prog_argv, attach_pid);
		if (session < 0) {
			ret = fail;
			goto out;
		}
		trace_mica_set_store(mica, db, session);
	}
	/* The MGSim counter view (mgsim-counters.md, Model A): its snapshots
	 * line up with the MICA intervals; live for the daemon's HTTP side. */
	if (db || o->mgsim_live) {
		struct trace_mgsim_opts mo;

		memset(&mo, 0, sizeof(mo));
		mgsim_config_default(&mo.cfg);
		mo.interval_size = mica ? trace_mica_config(mica)->interval_size : -1;
		if (db) {
			sink.w = db;
			sink.session = session;
			mo.on_snapshot = store_mgsim_on_snapshot;
			mo.arg = &sink;
		}
		mo.live = o->mgsim_live;
		mg = trace_mgsim_new(&mo, err, sizeof(err));
		if (!mg) {
			error_msg("MGSim counters: %s", err);
			ret = fail;
			goto out;
		}
		/* The scheduling model (issue 7, live): per-interval cycles,
		 * the hot blocks, and MGSim's counters 0 and 20. */
		if (db) {
			struct trace_sched_opts so;

			memset(&so, 0, sizeof(so));
			so.mcpu = o->mcpu;
			so.interval_size = mo.interval_size;
			ssink.w = db;
			ssink.session = session;
			so.on_snapshot = store_sched_on_snapshot;
			so.on_hot_block = store_sched_on_hot_block;
			so.arg = &ssink;
			so.mgsim = trace_mgsim_model(mg);
			sched = trace_sched_new(&so, err, sizeof(err));
			if (!sched) {
				error_msg("--mcpu: %s", err);
				ret = fail;
				goto out;
			}
			mo.cfg.cycle_model = trace_sched_cpu(sched);
			if (store_writer_sched_config(db, session, trace_sched_cpu(sched),
						      TRACE_SCHED_REPORT_ITERATIONS) < 0)
				failed = true;
		}
		if (db && store_writer_mgsim_config(db, session, &mo.cfg) < 0)
			failed = true;
	}
	if (o->output && !(out = output_fopen(o->output, "the counts file"))) {
		ret = fail;
		goto out;
	}
	if (o->dump) {
		if (!(dump = output_fopen(o->dump, "the event dump"))) {
			ret = fail;
			goto out;
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
	if (sched) {
		/* Before MGSim's: it takes the cycles of each event from it. */
		c = trace_sched_consumer(sched);
		trace_analysis_add(ta, &c);
	}
	if (mg) {
		c = trace_mgsim_consumer(mg);
		trace_analysis_add(ta, &c);
	}
	if (o->record) {
		rec = tracefile_create(o->record);
		if (!rec) {
			ret = fail;
			goto out;
		}
		c = tracefile_consumer(rec);
		trace_analysis_add(ta, &c);
	}
	is_run = prog_argv != NULL;
	in_child = o->child != NULL;
	install_signals();
	if (o->child) {
		trace_analysis_set_remote(ta);
		if (mica)
			trace_mica_set_exe_source(mica, exe_from_tracer, ta);
		if (trace_child_start(o->child) < 0) {
			ret = fail;
			goto out;
		}
		run_pid = trace_child_main_pid(o->child);
		cpu = trace_child_cpu(o->child);
	} else {
		t = tracer_new(&o->t, ring);
		if (prog_argv ? tracer_launch(t, prog_argv) < 0 : tracer_attach(t, attach_pid) < 0) {
			ret = fail;
			goto out;
		}
		run_pid = tracer_main_pid(t);
		cpu = tracer_cpu(t);
	}
	started = true;
	if (db) {
		struct session_pid_job *j = xcalloc(1, sizeof(*j));

		j->session = session;
		j->pid = run_pid;
		if (!prog_argv && o->child) {
			j->command = command_text(NULL, run_pid);
			/* Read as the daemon: keep it only if pid is still the
			 * process the client named and the tracer holds. */
			if (o->t.target_pidfd >= 0 &&
			    syscall(SYS_pidfd_send_signal, o->t.target_pidfd, 0, NULL, 0) < 0) {
				free(j->command);
				j->command = NULL;
			}
		}
		if (store_writer_submit(db, session_pid_fn, j, session_pid_free) < 0)
			failed = true;
		if (o->on_session)
			o->on_session(o->arg, session);
	}
	if (trace_analysis_start(ta, ring, cpu) < 0) {
		trace_child_request_detach();
		ret = 1;
		failed = true;
	}
	if (o->child ? trace_child_wait(o->child) < 0 : tracer_loop(t) < 0)
		failed = true;
	trace_analysis_join(ta);
	if (trace_analysis_rejected(ta)) {
		error_msg("%llu records of the tracer process were impossible and dropped",
			  (unsigned long long)trace_analysis_rejected(ta));
		failed = true;
	}
	if (rec && tracefile_close(rec) < 0)
		ret = 1;
	rec = NULL;
	insn_counts_print(ic, out, out == stderr ? "micad: " : "");
	if (!o->t.quiet) {
		struct tracer_stats st;

		if (o->child)
			trace_child_stats(o->child, &st);
		else
			tracer_get_stats(t, &st);
		fprintf(stderr, "micad: %llu instructions in %.2f s (%.1f K/s), %llu decoded, %s, "
			"%s (%llu leaps)\n",
			(unsigned long long)st.steps, st.seconds,
			st.seconds > 0 ? st.steps / st.seconds / 1000 : 0.0,
			(unsigned long long)st.decode_misses,
			cpu >= 0 ? "pinned" : "not pinned",
			o->t.step == STEP_LEAPFROG ? "leapfrog" : "tf",
			(unsigned long long)st.leap_steps);
	}
	ended = o->child ? trace_child_main_status(o->child, &status)
		: tracer_main_status(t, &status);
	if (prog_argv && ret == 0) {
		if (!ended)
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
	if (out && out != stderr && fclose(out) != 0) {
		perror_msg("cannot write the counts file '%s'", o->output);
		ret = ret ? ret : 1;
	}
	trace_analysis_free(ta);
	trace_mgsim_free(mg);
	trace_sched_free(sched);
	if (sink.failed || ssink.failed)
		failed = true;
	if (mica && trace_mica_failed(mica))
		failed = true;
	if (db && session > 0) {
		int exit_status;
		const char *reason = end_reason(started, failed, ended, status, &exit_status);

		/* What the user was told, kept with the session: the tracer
		 * process's report of a failed start, else this thread's. */
		if (!strcmp(reason, "error")) {
			const char *why = o->child && *trace_child_error(o->child) ?
					  trace_child_error(o->child) : last_error_msg();

			if (store_writer_session_error(db, session, *why ? why :
						       "micad could not trace or analyze the program "
						       "(no message was reported)", err, sizeof(err)) < 0)
				error_msg("cannot record why session %lld failed: %s",
					  (long long)session, err);
		}
		/* After every interval queued before it (the writer is FIFO). */
		if (store_writer_session_end(db, session, exit_status, reason, err,
					     sizeof(err)) < 0) {
			error_msg("cannot record the end of session %lld: %s", (long long)session,
				  err);
			ret = ret ? ret : 1;
		}
	}
	if (store_writer_close(db) < 0) {
		error_msg("some results of session %lld could not be written to %s (see above)",
			  (long long)session, o->db);
		ret = ret ? ret : 1;
	}
	if (db && session > 0 && !o->t.quiet)
		fprintf(stderr, "micad: session %lld in %s\n", (long long)session, o->db);
	if (trace_mica_free(mica) < 0 && ret == 0)
		ret = 1;
	insn_counts_free(ic);
	tracer_free(t);
	if (!o->ring)
		ring_free(ring);
	mica_config_text_free(&own_config);
	return ret;
}
