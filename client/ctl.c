/*
 * micactl's daemon commands: run, attach, stop, list, status, shutdown.
 * They talk to 'micad serve' over its control socket (daemon/control.h),
 * starting a per-user daemon when none is listening.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "control.h"
#include "mica/mica_config.h"
#include "mica_files.h"
#include "trace/sample_options.h"
#include "util.h"

#define SPAWN_WAIT_MS 10000

struct ctl_opts {
	const char *socket;
	bool no_spawn, quiet, background;
};

extern char **environ;

/* ---- reaching the daemon ---- */

/* The micad next to this micactl (a build tree, or the same bin/), else
 * the one in PATH. */
static char *
micad_path(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		char *slash, *p;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			p = xasprintf("%s/micad", self);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	return xstrdup("micad");
}

/*
 * Whether a daemon socket may be trusted with a request (which carries
 * our environment, our terminal and our working directory): its
 * directory is a real directory that belongs to us (or to root, for the
 * system daemon and sockets root made) and that nobody else may write to,
 * else another user could have put a daemon of theirs there.  0, or -1
 * after saying why.
 */
static int
check_socket_dir(const char *sock, bool must_be_mine)
{
	char *dir = xstrdup(sock), *slash = strrchr(dir, '/');
	struct stat st;
	int ret = -1;

	if (!slash) {
		free(dir);
		dir = xstrdup(".");
	} else if (slash == dir) {
		slash[1] = '\0';
	} else {
		*slash = '\0';
	}
	if (lstat(dir, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (!S_ISDIR(st.st_mode))
		error_msg("refusing the daemon socket '%s': '%s' is not a directory (a symbolic "
			  "link?): remove it if it is not yours", sock, dir);
	else if (st.st_uid != getuid() && (must_be_mine || st.st_uid != 0))
		error_msg("refusing the daemon socket '%s': its directory '%s' belongs to uid %u, "
			  "not to you (uid %u)%s: someone else may be posing as micad; remove it if "
			  "you know whose it is, or pass --socket", sock, dir, (unsigned)st.st_uid,
			  (unsigned)getuid(), must_be_mine ? "" : " or root");
	else if (st.st_mode & (must_be_mine ? 077 : 022))
		error_msg("refusing the daemon socket '%s': its directory '%s' is open to other "
			  "users (mode %03o): make it 0700 (chmod 700 '%s') or remove it", sock, dir,
			  (unsigned)(st.st_mode & 0777), dir);
	else
		ret = 0;
out:
	free(dir);
	return ret;
}

/* Connect to path and check that the server is root or ourselves, before
 * anything is sent.  The fd, or -errno (-EPERM after saying why). */
static int
trusted_connect(const char *path, bool must_be_mine)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	int fd, r = check_socket_dir(path, must_be_mine);

	if (r < 0)
		return r == -1 ? -EPERM : r;
	fd = ctl_connect(path);
	if (fd < 0)
		return fd;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		r = -errno;
		perror_msg("SO_PEERCRED on '%s'", path);
		close(fd);
		return r;
	}
	if (cr.uid != 0 && cr.uid != getuid()) {
		error_msg("refusing the daemon at '%s': it runs as uid %u, neither root nor you "
			  "(uid %u): someone else may be posing as micad", path, (unsigned)cr.uid,
			  (unsigned)getuid());
		close(fd);
		return -EPERM;
	}
	return fd;
}

/*
 * Start 'micad serve' for this user, detached from us (its own session,
 * not our child), logging into micad.log beside the socket, in a directory
 * of ours that nobody else may write to; then wait for the socket to
 * answer.
 */
static int
spawn_daemon(const char *sock)
{
	char *micad = micad_path(), *log = xasprintf("%s.log", sock);
	char *dir = xstrdup(sock), *slash = strrchr(dir, '/');
	pid_t pid;
	int fd = -1, logfd = -1, in = -1;

	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
			perror_msg("cannot create the socket directory '%s'", dir);
			goto fail;
		}
	}
	if (check_socket_dir(sock, true) < 0)
		goto fail;
	logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (logfd < 0 || in < 0) {
		perror_msg("cannot start micad: %s", logfd < 0 ? log : "/dev/null");
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		perror_msg("cannot start micad: fork");
		goto fail;
	}
	if (pid == 0) {
		char *argv[] = { micad, "serve", "--socket", (char *)sock, NULL };

		setsid();
		if (fork() != 0)
			_exit(0);
		if (dup2(in, 0) < 0 || dup2(logfd, 1) < 0 || dup2(logfd, 2) < 0)
			_exit(127);
		execvp(micad, argv);
		_exit(127);
	}
	if (waitpid(pid, NULL, 0) < 0)
		perror_msg("waitpid");
	for (int waited = 0; waited < SPAWN_WAIT_MS; waited += 20) {
		fd = ctl_connect(sock);
		if (fd >= 0)
			break;
		usleep(20000);
	}
	if (fd >= 0) {
		close(fd);
		fd = trusted_connect(sock, true);
	}
	if (fd < 0) {
		error_msg("started micad (%s serve --socket %s) but it does not answer: see %s",
			  micad, sock, log);
		goto fail;
	}
	fprintf(stderr, "micactl: started micad for uid %u (socket %s, log %s)\n",
		(unsigned)getuid(), sock, log);
fail:
	if (logfd >= 0)
		close(logfd);
	if (in >= 0)
		close(in);
	free(dir);
	free(micad);
	free(log);
	return fd;
}

/*
 * Connect: --socket or $MICAD_SOCKET exactly; else this user's daemon,
 * else the system one, else start this user's (unless --no-spawn).  Every
 * socket is checked before anything is sent (trusted_connect).
 */
static int
daemon_connect(const struct ctl_opts *o)
{
	const char *explicit_path = o->socket ? o->socket : getenv("MICAD_SOCKET");
	char *user;
	int fd, e;

	if (explicit_path && *explicit_path) {
		fd = trusted_connect(explicit_path, false);
		if (fd < 0 && fd != -EPERM)
			error_msg("cannot reach micad at '%s': %s (is 'micad serve --socket %s' "
				  "running?)", explicit_path, strerror(-fd), explicit_path);
		return fd;
	}
	user = ctl_user_socket_path();
	fd = trusted_connect(user, true);
	if (fd >= 0 || fd == -EPERM)
		goto out;
	e = -fd;
	if (access(CTL_SYSTEM_SOCKET, F_OK) == 0 &&
	    ((fd = trusted_connect(CTL_SYSTEM_SOCKET, false)) >= 0 || fd == -EPERM))
		goto out;
	if (o->no_spawn) {
		error_msg("cannot reach micad at '%s': %s; start it with 'micad serve' (or "
			  "drop --no-spawn and micactl starts it)", user, strerror(e));
		fd = -1;
		goto out;
	}
	fd = spawn_daemon(user);
out:
	free(user);
	return fd < 0 ? -1 : fd;
}

/* Read one reply; on op=error print its message.  1: a reply, 0: the
 * daemon hung up, -1: an error reply or a broken connection. */
static int
recv_reply(int fd, struct ctl_msg *m)
{
	int r = ctl_recv(fd, m);

	if (r == 0) {
		error_msg("micad closed the connection (see its log)");
		return 0;
	}
	if (r < 0) {
		error_msg("bad reply from micad: %s", strerror(-r));
		return -1;
	}
	if (ctl_msg_is(m, "error")) {
		error_msg("%s", ctl_msg_get(m, "message") ? ctl_msg_get(m, "message") : "error");
		return -1;
	}
	return 1;
}

/* ---- options shared by the commands ---- */

enum { OPT_SOCKET = 256, OPT_NO_SPAWN, OPT_INTERVAL, OPT_FOLLOW, OPT_NO_PIN, OPT_STEP, OPT_SAMPLE,
       OPT_SAMPLE_OPT, OPT_ENGINE };

#define COMMON_LONGOPTS \
	{ "socket", required_argument, NULL, OPT_SOCKET }, \
	{ "no-spawn", no_argument, NULL, OPT_NO_SPAWN }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "help", no_argument, NULL, 'h' }

#define COMMON_HELP \
	"      --socket PATH   the daemon's control socket (default: $MICAD_SOCKET, else\n" \
	"                      this user's micad, else the system one)\n" \
	"      --no-spawn      do not start a micad when none is listening\n" \
	"  -q, --quiet         no progress on standard error\n" \
	"  -h, --help          this help\n"

static bool
common_opt(int c, struct ctl_opts *o)
{
	switch (c) {
	case OPT_SOCKET:
		o->socket = optarg;
		return true;
	case OPT_NO_SPAWN:
		o->no_spawn = true;
		return true;
	case 'q':
		o->quiet = true;
		return true;
	}
	return false;
}

/* ---- run and attach ---- */

static volatile sig_atomic_t pending_sig;

static void
on_signal(int sig)
{
	pending_sig = sig;
}

static void
forward_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Follow a session to its end: its id, progress lines, the end.  In run
 * mode a signal micactl gets goes to the program; in attach mode it
 * detaches.  Returns micactl's exit status.
 */
static int
follow_session(int fd, const struct ctl_opts *o, bool run)
{
	bool tty = isatty(2) && !o->quiet, progress_shown = false;
	long long session = 0;
	int code = 1;

	forward_signals();
	for (;;) {
		struct pollfd pf = { fd, POLLIN, 0 };
		struct ctl_msg m;
		int r;

		if (pending_sig) {
			struct ctl_msg s;
			int sig = pending_sig;

			pending_sig = 0;
			ctl_msg_init(&s, "signal");
			ctl_msg_addf(&s, "sig", "%d", run ? sig : 0);
			if (!run && !o->quiet)
				fprintf(stderr, "%smicactl: detaching from session %lld\n",
					progress_shown ? "\n" : "", session);
			progress_shown = false;
			ctl_send(fd, &s);
			ctl_msg_free(&s);
		}
		if (poll(&pf, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror_msg("poll");
			return 1;
		}
		r = recv_reply(fd, &m);
		if (r <= 0) {
			ctl_msg_free(&m);
			return 1;
		}
		if (ctl_msg_is(&m, "session")) {
			session = atoll(ctl_msg_get(&m, "session") ? ctl_msg_get(&m, "session") : "0");
			if (!o->quiet)
				fprintf(stderr, "micactl: session %lld, pid %s\n", session,
					ctl_msg_get(&m, "pid") ? ctl_msg_get(&m, "pid") : "?");
			if (o->background) {
				ctl_msg_free(&m);
				return 0;
			}
		} else if (ctl_msg_is(&m, "progress") && tty) {
			const char *ins = ctl_msg_get(&m, "instructions");
			const char *sec = ctl_msg_get(&m, "seconds");
			double s = sec ? atof(sec) : 0, n = ins ? atof(ins) : 0;

			fprintf(stderr, "\rmicactl: session %lld: %s instructions, %.1f K/s, %.1f s  ",
				session, ins ? ins : "0", s > 0 ? n / s / 1000 : 0.0, s);
			progress_shown = true;
		} else if (ctl_msg_is(&m, "end")) {
			const char *c = ctl_msg_get(&m, "code");
			const char *reason = ctl_msg_get(&m, "reason");

			code = c ? atoi(c) : 1;
			if (progress_shown)
				fputc('\n', stderr);
			if (!o->quiet && session > 0)
				fprintf(stderr, "micactl: session %lld %s: %s instructions traced "
					"(micactl status %lld; micactl export %lld --format mica)\n",
					session, reason && strcmp(reason, "detached") == 0 ?
					"detached" : "ended",
					ctl_msg_get(&m, "instructions") ? ctl_msg_get(&m, "instructions")
					: "0", session, session);
			if (reason && strcmp(reason, "detached") == 0 && run)
				code = 0;
			ctl_msg_free(&m);
			return code;
		}
		ctl_msg_free(&m);
	}
}

static void
session_usage(FILE *f, bool run)
{
	if (run)
		fprintf(f, "Usage: micactl run [OPTIONS] -- PROGRAM [ARGS...]\n"
			"Run PROGRAM under the micad daemon, as you, in this directory, with this\n"
			"environment and terminal, tracing every instruction; results go to the\n"
			"daemon's database.  Exits with the program's exit status.  Ctrl-C goes to\n"
			"the program.\n");
	else
		fprintf(f, "Usage: micactl attach [OPTIONS] PID\n"
			"Trace the running process PID (yours, or any if you are root) under the\n"
			"micad daemon until it exits, or until Ctrl-C (then detach: the process\n"
			"goes on).\n");
	fprintf(f, "\n"
		"Options:\n"
		"  -c, --config FILE   a mica.conf: the analyses to run\n"
		"      --interval N    interval size in instructions\n"
		"      --follow-forks  trace child processes too\n"
		"      --no-pin        do not pin the tracer and the program to one CPU\n"
		"      --step=MODE     leapfrog (default) or tf\n"
		"      --engine=ENGINE ptrace (step mode, the default) or, for run only,\n"
		"                      valgrind (the same results, much faster)\n"
		"      --sample        sample mode: the program runs natively, a perf event\n"
		"                      samples it, bursts of steps at samples (micad run's\n"
		"                      options: -e EVENT, -F HZ, --count N, --call-graph\n"
		"                      fp|dwarf, --burst U[,W], --overhead PCT, --no-bursts,\n"
		"                      --duration S, --interval-time S)\n");
	if (!run)
		fprintf(f, "  -b, --background    return once the session has started\n");
	fprintf(f, COMMON_HELP);
}

static int
session_cmd(int argc, char **argv, bool run)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "follow-forks", no_argument, NULL, OPT_FOLLOW },
		{ "no-pin", no_argument, NULL, OPT_NO_PIN },
		{ "step", required_argument, NULL, OPT_STEP },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "background", no_argument, NULL, 'b' },
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
		COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct ctl_opts o = { 0 };
	const char *config = NULL, *interval = NULL, *step = NULL, *engine = NULL;
	bool follow = false, no_pin = false, sample = false;
	/* Sample options as given (checked here, sent as request keys). */
	const char *sample_name[16], *sample_value[16];
	unsigned n_sample = 0;
	struct sample_options so;
	unsigned long long v;
	struct ctl_msg req;
	char err[256];
	int c, fd, ret, li = -1;

	sample_options_init(&so);
	while ((c = getopt_long(argc, argv, run ? "+c:qhe:F:" : "+c:bqhe:F:", longopts,
				&li)) != -1) {
		if (common_opt(c, &o))
			continue;
		switch (c) {
		case OPT_SAMPLE:
			sample = true;
			break;
		case 'e':
		case 'F':
		case OPT_SAMPLE_OPT: {
			const char *name = c == 'e' ? "event" : c == 'F' ? "freq" : longopts[li].name;

			if (sample_option_set(&so, name, optarg, err, sizeof(err)) < 0) {
				error_msg("%s", err);
				return 2;
			}
			if (n_sample < sizeof(sample_name) / sizeof(sample_name[0])) {
				sample_name[n_sample] = name;
				sample_value[n_sample++] = optarg ? optarg : "1";
			}
			break;
		}
		case 'c':
			config = optarg;
			break;
		case OPT_INTERVAL:
			if (parse_u64(optarg, &v) < 0 || v == 0 || v > (1ULL << 62)) {
				error_msg("--interval: '%s' is not a positive number of instructions",
					  optarg);
				return 2;
			}
			interval = optarg;
			break;
		case OPT_FOLLOW:
			follow = true;
			break;
		case OPT_NO_PIN:
			no_pin = true;
			break;
		case OPT_STEP:
			if (strcmp(optarg, "leapfrog") != 0 && strcmp(optarg, "tf") != 0) {
				error_msg("--step: '%s' is not a step mode (leapfrog or tf)", optarg);
				return 2;
			}
			step = optarg;
			break;
		case OPT_ENGINE:
			if (strcmp(optarg, "valgrind") == 0 && !run) {
				error_msg("attach: --engine=valgrind cannot attach to a running "
					  "process (valgrind must start the program): use 'micactl "
					  "run --engine=valgrind', or attach with --engine=ptrace");
				return 2;
			}
			if (strcmp(optarg, "ptrace") != 0 && strcmp(optarg, "valgrind") != 0) {
				error_msg("--engine: '%s' is not an engine (ptrace or valgrind)", optarg);
				return 2;
			}
			engine = optarg;
			break;
		case 'b':
			o.background = true;
			break;
		case 'h':
			session_usage(stdout, run);
			return 0;
		default:
			session_usage(stderr, run);
			return 2;
		}
	}
	if (n_sample && !sample) {
		error_msg("--%s is an option of sample mode: add --sample", sample_name[0]);
		return 2;
	}
	if (run && optind >= argc) {
		error_msg("run: no program given (usage: micactl run [OPTIONS] -- PROGRAM [ARGS...])");
		return 2;
	}
	if (!run && optind + 1 != argc) {
		error_msg("attach: give exactly one PID (usage: micactl attach [OPTIONS] PID)");
		return 2;
	}
	if (!run && (parse_u64(argv[optind], &v) < 0 || v == 0 || v > 0x7fffffff)) {
		error_msg("attach: '%s' is not a process id", argv[optind]);
		return 2;
	}

	ctl_msg_init(&req, run ? "run" : "attach");
	if (config) {
		/* Read and checked here, as this user, with its own name in any
		 * message: the daemon gets the texts, and opens no path of
		 * ours. */
		struct mica_config_text text;
		struct mica_config cfg;
		char *abs = realpath(config, NULL);

		if (!abs || mica_config_read(abs, &text) < 0) {
			if (!abs)
				perror_msg("cannot read the configuration '%s'", config);
			free(abs);
			ctl_msg_free(&req);
			return run ? 127 : 1;
		}
		if (mica_config_load_text(&cfg, &text) < 0) {
			mica_config_free(&cfg);
			mica_config_text_free(&text);
			free(abs);
			ctl_msg_free(&req);
			return run ? 127 : 1;
		}
		mica_config_free(&cfg);
		ctl_msg_add(&req, "config_path", abs);
		ctl_msg_add(&req, "config", text.text);
		if (text.spec_text) {
			ctl_msg_add(&req, "itypes_spec_path", text.spec_name);
			ctl_msg_add(&req, "itypes_spec", text.spec_text);
		}
		mica_config_text_free(&text);
		free(abs);
	}
	if (interval)
		ctl_msg_add(&req, "interval", interval);
	if (follow)
		ctl_msg_add(&req, "follow_forks", "1");
	if (no_pin)
		ctl_msg_add(&req, "no_pin", "1");
	if (step)
		ctl_msg_add(&req, "step", step);
	if (sample) {
		ctl_msg_add(&req, "sample", "1");
		for (unsigned i = 0; i < n_sample; i++) {
			char key[32];

			sample_option_key(sample_name[i], key, sizeof(key));
			ctl_msg_add(&req, key, sample_value[i]);
		}
	}
	if (engine)
		ctl_msg_add(&req, "engine", engine);
	if (run) {
		int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (cwd < 0) {
			perror_msg("cannot open the current directory");
			ctl_msg_free(&req);
			return 127;
		}
		for (int i = optind; i < argc; i++)
			ctl_msg_add(&req, "arg", argv[i]);
		for (char **e = environ; *e; e++)
			ctl_msg_add(&req, "env", *e);
		{
			mode_t um = umask(0);

			umask(um);
			ctl_msg_addf(&req, "umask", "%u", (unsigned)um);
		}
		/* The program is ours: it gets our limits, as if we ran it. */
		for (int r = 0; r < RLIM_NLIMITS; r++) {
			struct rlimit rl;
			char soft[24], hard[24];

			if (getrlimit(r, &rl) < 0)
				continue;
			snprintf(soft, sizeof(soft), "%llu", (unsigned long long)rl.rlim_cur);
			snprintf(hard, sizeof(hard), "%llu", (unsigned long long)rl.rlim_max);
			ctl_msg_addf(&req, "rlimit", "%d:%s:%s", r,
				     rl.rlim_cur == RLIM_INFINITY ? "inf" : soft,
				     rl.rlim_max == RLIM_INFINITY ? "inf" : hard);
		}
		req.fds[0] = 0;
		req.fds[1] = 1;
		req.fds[2] = 2;
		req.fds[3] = cwd;
		req.nfds = 4;
	} else {
		ctl_msg_add(&req, "pid", argv[optind]);
		req.fds[0] = 2;	/* micad's messages about the session */
		req.nfds = 1;
	}

	fd = daemon_connect(&o);
	if (fd < 0) {
		if (run)
			close(req.fds[3]);
		req.nfds = 0;
		ctl_msg_free(&req);
		return run ? 127 : 1;
	}
	ret = ctl_send(fd, &req);
	if (run)
		close(req.fds[3]);
	req.nfds = 0;	/* ours, not to be closed by ctl_msg_free */
	ctl_msg_free(&req);
	if (ret < 0) {
		error_msg("cannot send the request to micad: %s", strerror(-ret));
		close(fd);
		return run ? 127 : 1;
	}
	ret = follow_session(fd, &o, run);
	close(fd);
	return ret;
}

int
cmd_ctl_run(int argc, char **argv)
{
	return session_cmd(argc, argv, true);
}

int
cmd_ctl_attach(int argc, char **argv)
{
	return session_cmd(argc, argv, false);
}

/* ---- stop, list, status, shutdown ---- */

static int
simple_opts(int argc, char **argv, struct ctl_opts *o, const char *usage_text)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "+qh", longopts, NULL)) != -1) {
		if (common_opt(c, o))
			continue;
		switch (c) {
		case 'h':
			printf("%s\nOptions:\n%s", usage_text, COMMON_HELP);
			return 0;
		default:
			fprintf(stderr, "%s\nOptions:\n%s", usage_text, COMMON_HELP);
			return 2;
		}
	}
	return -1;
}

static bool
parse_session(const char *s, long long *id)
{
	unsigned long long v;

	if (parse_u64(s, &v) < 0 || v == 0 || v > (1ULL << 62)) {
		error_msg("'%s' is not a session number (see 'micactl list')", s);
		return false;
	}
	*id = (long long)v;
	return true;
}

/*
 * One request, one reply: send req (freed here) and read the answer into
 * reply.  0, or 1 after reporting (an unreachable daemon, an error reply).
 */
static int
daemon_request(const struct ctl_opts *o, struct ctl_msg *req, struct ctl_msg *reply)
{
	int fd = daemon_connect(o), r;

	ctl_msg_init(reply, NULL);
	if (fd < 0) {
		ctl_msg_free(req);
		return 1;
	}
	r = ctl_send(fd, req);
	ctl_msg_free(req);
	if (r < 0)
		error_msg("cannot send the request to micad: %s", strerror(-r));
	else if (recv_reply(fd, reply) > 0)
		r = 1;
	close(fd);
	return r == 1 ? 0 : 1;
}

int
cmd_ctl_stop(int argc, char **argv)
{
	struct ctl_opts o;
	struct ctl_msg req, m;
	long long id;
	int r = simple_opts(argc, argv, &o,
			    "Usage: micactl stop SESSION\n"
			    "Stop tracing a running session: its process is detached and goes on;\n"
			    "every finished interval is kept.\n");

	if (r >= 0)
		return r;
	if (optind + 1 != argc) {
		error_msg("stop: give exactly one session number");
		return 2;
	}
	if (!parse_session(argv[optind], &id))
		return 2;
	o.no_spawn = true;
	ctl_msg_init(&req, "stop");
	ctl_msg_addf(&req, "session", "%lld", id);
	r = daemon_request(&o, &req, &m);
	ctl_msg_free(&m);
	if (r)
		return r;
	if (!o.quiet)
		fprintf(stderr, "micactl: session %lld: detach requested\n", id);
	return 0;
}

static void
fmt_time(const char *unix_s, char *buf, size_t n)
{
	time_t t = unix_s ? (time_t)atoll(unix_s) : 0;
	struct tm tm;

	if (!t || !localtime_r(&t, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, n, "-");
}

static const char *
get_or(const struct ctl_msg *m, const char *key, const char *dflt)
{
	const char *v = ctl_msg_get(m, key);

	return v ? v : dflt;
}

/* Send op (with session= when id > 0), print each row as a table line
 * (list) or as a block of "key: value" lines (status). */
static int
rows_cmd(const struct ctl_opts *o, const char *op, long long id, bool table)
{
	struct ctl_msg m;
	int fd, r, n = 0;
	struct ctl_opts oo = *o;

	oo.no_spawn = true;
	fd = daemon_connect(&oo);
	if (fd < 0)
		return 1;
	ctl_msg_init(&m, op);
	if (id > 0)
		ctl_msg_addf(&m, "session", "%lld", id);
	r = ctl_send(fd, &m);
	ctl_msg_free(&m);
	if (r < 0) {
		error_msg("cannot send the request to micad: %s", strerror(-r));
		close(fd);
		return 1;
	}
	if (table)
		printf("%7s  %-6s  %-9s  %7s  %14s  %-19s  %s\n", "SESSION", "MODE", "STATE", "PID",
		       "INSTRUCTIONS", "STARTED", "COMMAND");
	while ((r = recv_reply(fd, &m)) > 0 && ctl_msg_is(&m, "row")) {
		char started[32];
		/* The target's command line: no control bytes to the terminal. */
		char *command = term_escape(get_or(&m, "command", ""));

		fmt_time(ctl_msg_get(&m, "started"), started, sizeof(started));
		if (table) {
			printf("%7s  %-6s  %-9s  %7s  %14s  %-19s  %s\n", get_or(&m, "session", "-"),
			       get_or(&m, "mode", "-"), get_or(&m, "state", "-"),
			       get_or(&m, "pid", "-"), get_or(&m, "instructions", "0"), started,
			       command);
		} else {
			const char *sec = ctl_msg_get(&m, "seconds");
			double s = sec ? atof(sec) : 0;
			double ins = atof(get_or(&m, "instructions", "0"));

			if (n)
				putchar('\n');
			printf("session:       %s\n", get_or(&m, "session", "-"));
			printf("command:       %s\n", command);
			printf("mode:          %s\n", get_or(&m, "mode", "-"));
			printf("state:         %s\n", get_or(&m, "state", "-"));
			printf("pid:           %s\n", get_or(&m, "pid", "-"));
			printf("uid:           %s\n", get_or(&m, "uid", "-"));
			printf("started:       %s\n", started);
			printf("instructions:  %s\n", get_or(&m, "instructions", "0"));
			if (ctl_msg_get(&m, "intervals"))
				printf("intervals:     %s\n", ctl_msg_get(&m, "intervals"));
			if (sec) {
				printf("traced for:    %.1f s\n", s);
				if (s > 0 && ctl_msg_get(&m, "live"))
					printf("rate:          %.1f K instructions/s\n", ins / s / 1000);
			}
			if (ctl_msg_get(&m, "status"))
				printf("exit status:   %s\n", ctl_msg_get(&m, "status"));
			/* Stored text (a program's name): escaped as the command. */
			if (ctl_msg_get(&m, "error")) {
				char *e = term_escape(ctl_msg_get(&m, "error"));

				printf("error:         %s\n", e);
				free(e);
			}
			if (ctl_msg_get(&m, "incomplete")) {
				char *e = term_escape(ctl_msg_get(&m, "incomplete"));

				printf("incomplete:    %s\n", e);
				free(e);
			}
		}
		n++;
		free(command);
		ctl_msg_free(&m);
	}
	ctl_msg_free(&m);
	close(fd);
	if (r <= 0)
		return 1;
	if (!table && n == 0 && !o->quiet)
		fprintf(stderr, "micactl: no session is running (see 'micactl list')\n");
	return 0;
}

int
cmd_ctl_list(int argc, char **argv)
{
	struct ctl_opts o;
	int r = simple_opts(argc, argv, &o,
			    "Usage: micactl list\n"
			    "List your sessions (all sessions for root): running, finished, cut off.\n");

	if (r >= 0)
		return r;
	if (optind != argc) {
		error_msg("list: unexpected argument '%s'", argv[optind]);
		return 2;
	}
	return rows_cmd(&o, "list", 0, true);
}

int
cmd_ctl_status(int argc, char **argv)
{
	struct ctl_opts o;
	long long id = 0;
	int r = simple_opts(argc, argv, &o,
			    "Usage: micactl status [SESSION]\n"
			    "Progress of your running sessions, or everything about one session.\n");

	if (r >= 0)
		return r;
	if (optind + 1 < argc) {
		error_msg("status: give at most one session number");
		return 2;
	}
	if (optind < argc && !parse_session(argv[optind], &id))
		return 2;
	return rows_cmd(&o, "status", id, false);
}

int
cmd_ctl_shutdown(int argc, char **argv)
{
	struct ctl_opts o;
	struct ctl_msg req, m;
	int r = simple_opts(argc, argv, &o,
			    "Usage: micactl shutdown\n"
			    "Stop the daemon: every session is detached, its finished intervals\n"
			    "written.\n");

	if (r >= 0)
		return r;
	o.no_spawn = true;
	ctl_msg_init(&req, "shutdown");
	r = daemon_request(&o, &req, &m);
	ctl_msg_free(&m);
	return r;
}

int
cmd_ctl_ui(int argc, char **argv)
{
	struct ctl_opts o;
	struct ctl_msg req, m;
	int r = simple_opts(argc, argv, &o,
			    "Usage: micactl ui\n"
			    "Print the address of the daemon's web UI with your access token (open\n"
			    "it in a browser; the token also works as 'Authorization: Bearer' and\n"
			    "'?token=' for scripts).  Starts a daemon if none is running.\n");

	if (r >= 0)
		return r;
	if (optind != argc) {
		error_msg("ui: unexpected argument '%s'", argv[optind]);
		return 2;
	}
	ctl_msg_init(&req, "ui");
	r = daemon_request(&o, &req, &m);
	if (r == 0)
		printf("%s\n", ctl_msg_get(&m, "url") ? ctl_msg_get(&m, "url") : "");
	ctl_msg_free(&m);
	return r;
}
