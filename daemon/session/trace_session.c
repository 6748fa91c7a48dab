/*
 * One tracing session (trace_session.h).
 */
#include "config.h"
#include "session/trace_session.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mica_files.h"
#include "trace/ring.h"
#include "session/sample_dump.h"
#include "store/store_json.h"
#include "store/store_writer.h"
#include "session/trace_analysis.h"
#include "trace/trace_child.h"
#include "session/trace_mica.h"
#include "session/trace_mgsim.h"
#include "session/trace_profile.h"
#include "store/store_mgsim.h"
#include "session/trace_sched.h"
#include "store/store_sched.h"
#include "store/tracefile.h"
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
	sample_options_init(&o->t.sample);
	o->uid = getuid();
}

static bool is_run, in_child;
static pid_t run_pid;
/* Until the program runs (or is attached), a termination signal cancels
 * the start-up; it is acted on at the next step of it. */
static volatile sig_atomic_t tracing, startup_signal;

static void
on_term_signal(int sig)
{
	if (!tracing) {
		startup_signal = sig;
		return;
	}
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

/* Installed before anything else: opening a new database can take seconds
 * on a busy disk, and a Ctrl-C then must not kill micad with a session
 * row left 'running'. */
static void
install_signals(bool run, bool child)
{
	struct sigaction sa;

	is_run = run;
	in_child = child;
	run_pid = 0;
	tracing = 0;
	startup_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: waitpid must return to notice a detach request, and
	 * a blocking open (a FIFO) during the start-up to notice a signal. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* A termination signal came during the start-up: say so, and stop it. */
static bool
start_interrupted(char *why, size_t whysz)
{
	int sig = startup_signal;

	if (!sig)
		return false;
	snprintf(why, whysz, "interrupted by %s during the start-up: %s",
		 sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP",
		 is_run ? "the program was not started" : "the process was not attached");
	error_msg("%s", why);
	return true;
}

/* The program runs (or is attached): from now on signals go to it (or
 * detach).  One that came since the last check of the start-up did not
 * reach the program (no terminal's Ctrl-C did either): it gets it now, or
 * micad detaches at once. */
static void
tracing_started(pid_t pid)
{
	int sig;

	run_pid = pid;
	tracing = 1;
	sig = startup_signal;
	if (!sig)
		return;
	if (!is_run)
		trace_child_request_detach();
	else if (in_child)
		trace_child_signal(sig);
	else
		kill(pid, sig);
}

/* The progress line of 'micad run' and 'attach' on stderr: rewritten in
 * place with carriage returns on a terminal; elsewhere (a log file, a
 * pipe) a line of its own every 10 s, so that no '\r' lands in a file. */
struct progress_line {
	bool tty, shown, sample;
	double last;
};

static void
progress_line(void *arg, const struct tracer_stats *st, bool final)
{
	struct progress_line *p = arg;
	double rate = st->seconds > 0 ? st->steps / st->seconds / 1000.0 : 0.0;
	char what[128];

	if (p->sample)
		snprintf(what, sizeof(what), "%llu samples, %llu bursts",
			 (unsigned long long)st->samples, (unsigned long long)st->bursts);
	else
		snprintf(what, sizeof(what), "%llu instructions, %.1f K/s",
			 (unsigned long long)st->steps, rate);
	if (p->tty) {
		if (final && !p->shown)
			return;
		fprintf(stderr, "\rmicad: %s, %.1f s elapsed%s", what, st->seconds,
			final ? "\n" : "  ");
		p->shown = !final;
	} else {
		if (final || st->seconds - p->last < 10)
			return;
		fprintf(stderr, "micad: %s, %.1f s elapsed\n", what, st->seconds);
		p->last = st->seconds;
	}
	fflush(stderr);
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
	fprintf(f, ",\"engine\":\"%s\",\"step\":\"%s\",\"pin\":%s,\"follow_forks\":%s,"
		"\"mica_out\":", o->t.engine == ENGINE_VALGRIND ? "valgrind" : "ptrace",
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
		.engine = o->t.engine == ENGINE_VALGRIND ? "valgrind"
			  : o->t.sample.enabled ? "sample" : "step",
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

/* Add one reason results are missing to the list in *lost ("; " between). */
static void __attribute__((format(printf, 2, 3)))
add_lost(char **lost, const char *fmt, ...)
{
	char *one, *both;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&one, fmt, ap) < 0)
		error_msg_and_die("out of memory");
	va_end(ap);
	if (!*lost) {
		*lost = one;
		return;
	}
	both = xasprintf("%s; %s", *lost, one);
	free(one);
	free(*lost);
	*lost = both;
}

int
trace_session_run(const struct trace_session_opts *o, char **prog_argv, pid_t attach_pid)
{
	struct ring *ring = o->ring ? o->ring : o->tracer_process ? ring_new_shared(RING_BYTES)
			  : ring_new(RING_BYTES);
	struct trace_child *child = o->child, *own_child = NULL;
	struct mica_config_text own_config = { 0 };
	const struct mica_config_text *config = o->config_text;
	struct tracer *t = NULL;
	struct tracer_options topt = o->t;
	struct progress_line pl = { .tty = isatty(2) == 1, .sample = o->t.sample.enabled };
	struct trace_analysis *ta = trace_analysis_new();
	struct insn_counts *ic = insn_counts_new();
	struct tracefile_writer *rec = NULL;
	struct trace_consumer c;
	struct sample_dump *sdump = NULL;
	FILE *out = stderr, *dump = NULL;
	int ret = 0, status = 0, fail = prog_argv ? 127 : 1;
	struct trace_mica *mica = NULL;
	struct trace_mgsim *mg = NULL;
	struct store_mgsim_sink sink = { NULL, 0, 0 };
	struct trace_sched *sched = NULL;
	struct store_sched_sink ssink = { NULL, 0, 0 };
	struct store_writer *db = NULL;
	struct trace_profile *profile = NULL;
	int64_t session = -1;
	bool started = false, failed = false, ended = false;
	char *lost = NULL;
	int cpu = -1;
	char err[512], why[512] = "";

	if (!ring) {
		perror_msg("cannot map the event ring");
		return fail;
	}
	/* attach: the tracer in a process of its own, which detaches cleanly
	 * (breakpoints out, pending traps drained) if this one dies, even by
	 * SIGKILL (trace_child.h): the traced process must not die with us. */
	if (o->tracer_process && !child) {
		struct trace_child_opts co = { 0 };

		if (!topt.quiet && !topt.progress) {
			topt.progress = progress_line;
			topt.progress_arg = &pl;
		}
		child = own_child = trace_child_fork(&co, &topt, ring, prog_argv, attach_pid);
		if (!child) {
			ring_free(ring);
			return fail;
		}
	}
	/* First: a signal during the start-up is acted on, not lost. */
	install_signals(prog_argv != NULL, child != NULL);
	/* Sample mode's note comes next, as micad's first line (the tracer
	 * process's, with a child: it said it before we were let go). */
	if (!child && o->t.sample.enabled) {
		if (!topt.quiet && !topt.progress) {
			topt.progress = progress_line;
			topt.progress_arg = &pl;
		}
		t = tracer_new(&topt, ring);
		if (tracer_prepare(t) < 0) {
			ret = fail;
			goto out;
		}
	}
	/* Then everything that can be checked before any work: the output
	 * directory and files, the configuration. */
	if (o->mica_out && mica_out_dir_check(o->mica_out) < 0) {
		ret = fail;
		goto out;
	}
	if (o->output && !(out = output_fopen(o->output, "the counts file"))) {
		ret = fail;
		goto out;
	}
	if (o->dump && !(dump = output_fopen(o->dump, "the event dump"))) {
		ret = fail;
		goto out;
	}
	if (o->record && !(rec = tracefile_create(o->record))) {
		ret = fail;
		goto out;
	}
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
	if (start_interrupted(why, sizeof(why))) {
		ret = 128 + startup_signal;
		goto out;
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
	if (o->t.sample.enabled) {
		double it = o->t.sample.interval_time;
		uint64_t ns = it > 0 ? (uint64_t)(it * 1e9) : 0;

		trace_analysis_set_sample(ta, ns);
		if (mica)
			trace_mica_set_sampled(mica, ta);
		if (db)
			profile = trace_profile_new(ta, db, session);
	}
	if (mica && o->analysis_threads > 1 && trace_mica_set_threads(mica, o->analysis_threads) < 0) {
		error_msg("--analysis-threads: the analysis threads could not be started");
		ret = fail;
		goto out;
	}
	/* The MGSim counter view (mgsim-counters.md, Model A): its snapshots
	 * line up with the MICA intervals; live for the daemon's HTTP side. */
	if (db || o->mgsim_live) {
		struct trace_mgsim_opts mo;

		memset(&mo, 0, sizeof(mo));
		mgsim_config_default(&mo.cfg);
		mo.interval_size = mica ? trace_mica_config(mica)->interval_size : -1;
		mo.sampled = o->t.sample.enabled;
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
			so.quiet = o->quiet_warnings;
			ssink.w = db;
			ssink.session = session;
			so.on_snapshot = store_sched_on_snapshot;
			so.on_hot_block = store_sched_on_hot_block;
			so.arg = &ssink;
			so.mgsim = trace_mgsim_model(mg);
			so.sampled = o->t.sample.enabled;
			sched = trace_sched_new(&so, err, sizeof(err));
			if (!sched) {
				error_msg("--mcpu: %s", err);
				ret = fail;
				goto out;
			}
			mo.cfg.cycle_model = trace_sched_cpu(sched);
			if (store_writer_sched_config(db, session, trace_sched_cpu(sched),
						      TRACE_SCHED_REPORT_ITERATIONS) < 0)
				add_lost(&lost, "the scheduling model's settings were not written");
		}
		if (db && store_writer_mgsim_config(db, session, &mo.cfg) < 0)
			add_lost(&lost, "the MGSim settings were not written");
	}
	if (dump) {
		c = event_dump_consumer(dump);
		trace_analysis_add(ta, &c);
		if (o->t.sample.enabled) {
			sdump = sample_dump_new(dump);
			c = sample_dump_consumer(sdump);
			trace_analysis_add(ta, &c);
		}
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
	if (profile) {
		c = trace_profile_consumer(profile);
		trace_analysis_add(ta, &c);
	}
	if (rec) {
		c = tracefile_consumer(rec);
		trace_analysis_add(ta, &c);
	}
	if (start_interrupted(why, sizeof(why))) {
		ret = 128 + startup_signal;
		goto out;
	}
	if (child || o->t.engine == ENGINE_VALGRIND) {
		/* A producer that publishes its instructions and executables:
		 * the tracer process, or the valgrind engine (its processes'
		 * /proc/PID/exe is valgrind's). */
		trace_analysis_set_remote(ta);
		if (mica)
			trace_mica_set_exe_source(mica, exe_from_tracer, ta);
	}
	if (child) {
		if (trace_child_start(child) < 0) {
			snprintf(why, sizeof(why), "%s", trace_child_error(child));
			ret = fail;
			goto out;
		}
		cpu = trace_child_cpu(child);
		tracing_started(trace_child_main_pid(child));
	} else {
		if (!t) {
			if (!topt.quiet && !topt.progress) {
				topt.progress = progress_line;
				topt.progress_arg = &pl;
			}
			t = tracer_new(&topt, ring);
		}
		if (prog_argv ? tracer_launch(t, prog_argv) < 0 : tracer_attach(t, attach_pid) < 0) {
			ret = fail;
			goto out;
		}
		cpu = tracer_cpu(t);
		tracing_started(tracer_main_pid(t));
	}
	started = true;
	if (db) {
		struct session_pid_job *j = xcalloc(1, sizeof(*j));

		j->session = session;
		j->pid = run_pid;
		if (!prog_argv && child) {
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
			add_lost(&lost, "the session's pid was not written");
		if (o->on_session)
			o->on_session(o->arg, session);
	}
	if (trace_analysis_start(ta, ring, cpu) < 0) {
		snprintf(why, sizeof(why), "%s", last_error_msg());
		trace_child_request_detach();
		ret = 1;
		failed = true;
	}
	if (child ? trace_child_wait(child) < 0 : tracer_loop(t) < 0) {
		if (!why[0])
			snprintf(why, sizeof(why), "%s", child ? trace_child_error(child)
				 : last_error_msg());
		failed = true;
	}
	trace_analysis_join(ta);
	if (trace_analysis_rejected(ta)) {
		error_msg("%llu records of the tracer process were impossible and dropped",
			  (unsigned long long)trace_analysis_rejected(ta));
		add_lost(&lost, "%llu records of the tracer process were impossible and dropped",
			 (unsigned long long)trace_analysis_rejected(ta));
	}
	if (rec && tracefile_close(rec) < 0) {
		add_lost(&lost, "the trace file %s could not be written: %s", o->record,
			 last_error_msg());
		ret = 1;
	}
	rec = NULL;
	insn_counts_print(ic, out, out == stderr ? "micad: " : "");
	if (!o->t.quiet && o->t.sample.enabled) {
		struct tracer_stats st;

		if (child)
			trace_child_stats(child, &st);
		else
			tracer_get_stats(t, &st);
		fprintf(stderr, "micad: %llu samples (%llu lost) in %.2f s, %llu bursts (%llu cut "
			"short), %llu instructions stepped; threads held %.3f s (%.1f%% of the "
			"time)\n",
			(unsigned long long)st.samples, (unsigned long long)st.samples_lost,
			st.seconds, (unsigned long long)st.bursts,
			(unsigned long long)st.bursts_aborted, (unsigned long long)st.steps,
			st.stopped_seconds,
			st.seconds > 0 ? 100 * st.stopped_seconds / st.seconds : 0.0);
	} else if (!o->t.quiet) {
		struct tracer_stats st;
		char how[96];

		if (child)
			trace_child_stats(child, &st);
		else
			tracer_get_stats(t, &st);
		if (o->t.engine == ENGINE_VALGRIND && st.tool_cpu_seconds > 0)
			snprintf(how, sizeof(how), "valgrind engine (valgrind with micad's tool used "
				 "%.2f s of CPU)", st.tool_cpu_seconds);
		else if (o->t.engine == ENGINE_VALGRIND)
			snprintf(how, sizeof(how), "valgrind engine");
		else
			snprintf(how, sizeof(how), "%s, %s (%llu leaps)",
				 cpu >= 0 ? "pinned" : "not pinned",
				 o->t.step == STEP_LEAPFROG ? "leapfrog" : "tf",
				 (unsigned long long)st.leap_steps);
		fprintf(stderr, "micad: %llu instructions in %.2f s (%.1f K/s), %llu decoded, %s\n",
			(unsigned long long)st.steps, st.seconds,
			st.seconds > 0 ? st.steps / st.seconds / 1000 : 0.0,
			(unsigned long long)st.decode_misses, how);
	}
	ended = child ? trace_child_main_status(child, &status)
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
	/* A start-up that failed: its reason, for the session row (a signal
	 * that interrupted it first: an open of a FIFO returns EINTR). */
	if (!started && startup_signal) {
		if (!strstr(why, "during the start-up"))
			start_interrupted(why, sizeof(why));
		ret = 128 + startup_signal;
	} else if (!started && !why[0]) {
		snprintf(why, sizeof(why), "%s", last_error_msg());
	}
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
	sample_dump_free(sdump);
	trace_mgsim_free(mg);
	trace_sched_free(sched);
	if (sink.failed || ssink.failed)
		add_lost(&lost, "MGSim or scheduling snapshots were not queued (the database "
			 "writer had stopped)");
	if (profile && trace_profile_failed(profile))
		add_lost(&lost, "profile samples were not written");
	if (mica && trace_mica_lost(mica))
		add_lost(&lost, "%s", trace_mica_lost(mica));
	if (db && session > 0) {
		int exit_status;
		const char *reason = end_reason(started, failed, ended, status, &exit_status);
		unsigned long n;
		char first[512];

		/* After every interval queued before it (the writer is FIFO). */
		store_writer_flush(db);
		n = store_writer_lost(db, first, sizeof(first));
		if (n)
			add_lost(&lost, "%lu result%s not written to the database (%s)", n,
				 n == 1 ? "" : "s", first);
		if (store_writer_session_finish(db, session, exit_status, reason,
						!started || failed ? why : NULL, lost, err,
						sizeof(err)) < 0) {
			error_msg("cannot record the end of session %lld: %s", (long long)session,
				  err);
			ret = ret ? ret : 1;
		}
	}
	if (store_writer_close(db) < 0 && !lost)
		add_lost(&lost, "results were not written to the database");
	/* Whatever the program's status, never 0 when results were lost. */
	if (lost) {
		if (db && session > 0)
			error_msg("session %lld in %s is incomplete: %s", (long long)session, o->db,
				  lost);
		else
			error_msg("results were lost: %s", lost);
		ret = ret ? ret : 1;
	}
	/* after the writer: its jobs used the profile's map of row ids */
	trace_profile_free(profile);
	if (db && session > 0 && !o->t.quiet)
		fprintf(stderr, "micad: session %lld in %s%s\n", (long long)session, o->db,
			lost ? " (incomplete)" : "");
	if (trace_mica_free(mica) < 0 && ret == 0)
		ret = 1;
	insn_counts_free(ic);
	tracer_free(t);
	trace_child_free(own_child);
	if (!o->ring)
		ring_free(ring);
	mica_config_text_free(&own_config);
	free(lost);
	return ret;
}
