/*
 * A session of 'micad serve' in its own worker process (serve.h): the
 * daemon forks one per 'run' or 'attach' and hands it the client's
 * connection.  The worker runs the session exactly as 'micad run' or
 * 'micad attach' would (trace_session.h), writes into the daemon's
 * database, and talks to the client itself: the session id, progress,
 * and the end.  Its standard error is the client's, so every message
 * about the program reaches the person who asked.
 *
 * A process per session keeps sessions apart (each tracer waits for its
 * own tracees; a failing session cannot take the daemon down) and dies
 * with the daemon (PR_SET_PDEATHSIG), leaving the session to be marked
 * cut off by the next daemon.
 */
#include "config.h"
#include "serve.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "trace_session.h"
#include "tracer.h"
#include "util.h"

struct worker {
	const struct worker_args *a;
	pthread_t main_thread;
	pthread_mutex_t send_lock;	/* the reader thread and progress both send */
	volatile sig_atomic_t detach_asked;
	char config_fd_path[64];
};

static struct worker *the_worker;

static void
on_usr1(int sig)
{
	(void)sig;
	if (the_worker)
		the_worker->detach_asked = 1;
	tracer_request_detach();
}

static void
send_locked(struct worker *w, const struct ctl_msg *m)
{
	pthread_mutex_lock(&w->send_lock);
	/* The client may be gone: the session goes on regardless. */
	(void)ctl_send(w->a->conn, m);
	pthread_mutex_unlock(&w->send_lock);
}

static void
on_session(void *arg, int64_t id)
{
	struct worker *w = arg;
	struct ctl_msg m;

	atomic_store(&w->a->shared->session, id);
	ctl_msg_init(&m, "session");
	ctl_msg_addf(&m, "session", "%lld", (long long)id);
	ctl_msg_addf(&m, "pid", "%d", (int)atomic_load(&w->a->shared->target_pid));
	send_locked(w, &m);
	ctl_msg_free(&m);
}

static void
on_started(void *arg, pid_t pid)
{
	struct worker *w = arg;

	atomic_store(&w->a->shared->target_pid, pid);
	atomic_store(&w->a->shared->state, SESSION_TRACING);
}

static void
on_progress(void *arg, const struct tracer_stats *st, bool final)
{
	struct worker *w = arg;
	struct ctl_msg m;

	atomic_store(&w->a->shared->instructions, st->steps);
	atomic_store(&w->a->shared->millis, (uint64_t)(st->seconds * 1000));
	if (final)
		return;
	ctl_msg_init(&m, "progress");
	ctl_msg_addf(&m, "instructions", "%llu", (unsigned long long)st->steps);
	ctl_msg_addf(&m, "seconds", "%.3f", st->seconds);
	send_locked(w, &m);
	ctl_msg_free(&m);
}

/*
 * Messages from the client during the session: a signal to pass on to the
 * program (its Ctrl-C), or sig=0 to stop tracing and detach.  When the
 * connection ends the session goes on.
 */
static void *
reader(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		struct ctl_msg m;
		int64_t sig;
		int r = ctl_recv(w->a->conn, &m);

		if (r <= 0) {
			ctl_msg_free(&m);
			return NULL;
		}
		if (ctl_msg_is(&m, "signal") && ctl_msg_get_i64(&m, "sig", &sig) &&
		    sig >= 0 && sig < 65) {
			pid_t pid = atomic_load(&w->a->shared->target_pid);

			if (sig == 0) {
				w->detach_asked = 1;
				tracer_request_detach();
				pthread_kill(w->main_thread, SIGUSR1);
			} else if (pid > 0) {
				kill(pid, (int)sig);
			}
		}
		ctl_msg_free(&m);
	}
}

/* Everything the daemon had open but the connection and the request's
 * fds: the worker must not hold the daemon's sockets or database. */
static void
close_inherited(const struct worker_args *a)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int dfd;

	if (!d)
		return;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);
		bool keep = fd <= 2 || fd == dfd || fd == a->conn;

		for (unsigned i = 0; i < a->req->nfds; i++)
			keep = keep || fd == a->req->fds[i];
		if (!keep)
			close(fd);
	}
	closedir(d);
}

static char **
collect(const struct ctl_msg *m, const char *key)
{
	size_t pos = 0, n = 0;
	char **v = NULL;
	const char *s;

	while ((s = ctl_msg_next(m, key, &pos))) {
		v = xreallocarray(v, n + 2, sizeof(*v));
		v[n++] = (char *)s;
	}
	if (v)
		v[n] = NULL;
	return v;
}

/*
 * The configuration: the client names a file and sends its text.  A
 * daemon running as the client reads the file itself (so an itypes spec
 * file beside it resolves the same way); a root daemon must not read files
 * for a client, so it uses the text the client read, through a memfd.
 */
static const char *
config_for(struct worker *w, const struct ctl_msg *req)
{
	const char *path = ctl_msg_get(req, "config_path");
	const char *text = ctl_msg_get(req, "config");
	int fd;

	if (!path)
		return NULL;
	if (!w->a->as_root || w->a->peer->uid == 0 || !text)
		return path;
	fd = memfd_create("mica.conf", MFD_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror_msg("cannot pass the configuration on (memfd)");
		return path;
	}
	snprintf(w->config_fd_path, sizeof(w->config_fd_path), "/proc/self/fd/%d", fd);
	return w->config_fd_path;
}

int
worker_main(const struct worker_args *a)
{
	struct worker w = { .a = a };
	struct trace_session_opts o;
	struct tracer_launch_env le;
	const struct ctl_msg *req = a->req;
	bool run = ctl_msg_is(req, "run");
	char **argv = NULL, **envp = NULL;
	struct sigaction sa;
	sigset_t none, all;
	pthread_t rd;
	int64_t v, pid = 0;
	struct ctl_msg end;
	const char *s;
	int code;

	close_inherited(a);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGCHLD, SIG_DFL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART: waitpid must return */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	the_worker = &w;
	w.main_thread = pthread_self();
	pthread_mutex_init(&w.send_lock, NULL);

	/* The client's stderr becomes ours: micad's messages reach them
	 * (run: the third of stdin, stdout, stderr, cwd; attach: the only). */
	if (run && req->nfds >= 3)
		dup2(req->fds[2], 2);
	else if (!run && req->nfds == 1)
		dup2(req->fds[0], 2);

	trace_session_opts_init(&o);
	o.mode = run ? "run" : "attach";
	o.db = a->db;
	o.uid = a->peer->uid;
	o.t.quiet = true;
	o.output = "/dev/null";	/* the counts are in the database and in op=end */
	o.t.progress = on_progress;
	o.t.live_steps = &a->shared->instructions;
	o.t.progress_arg = &w;
	o.t.started = on_started;
	o.t.started_arg = &w;
	o.mgsim_live = &a->shared->mgsim;
	o.live_intervals = &a->shared->intervals;
	o.on_session = on_session;
	o.arg = &w;
	if (ctl_msg_get_i64(req, "interval", &v) && v > 0)
		o.interval = v;
	if ((s = ctl_msg_get(req, "follow_forks")) && strcmp(s, "1") == 0)
		o.t.follow_forks = true;
	if ((s = ctl_msg_get(req, "no_pin")) && strcmp(s, "1") == 0)
		o.t.pin = false;
	if ((s = ctl_msg_get(req, "step")))
		o.t.step = strcmp(s, "tf") == 0 ? STEP_TF : STEP_LEAPFROG;
	if (req->nfds >= 4 && fchdir(req->fds[3]) < 0)
		perror_msg("cannot enter your working directory");
	o.config = config_for(&w, req);

	if (run) {
		argv = collect(req, "arg");
		envp = collect(req, "env");
		if (!envp) {
			envp = xcalloc(1, sizeof(*envp));
		}
		memset(&le, 0, sizeof(le));
		le.set_ids = a->as_root;
		le.uid = a->peer->uid;
		le.gid = a->peer->gid;
		le.groups = a->peer->groups;
		le.ngroups = a->peer->ngroups;
		le.cwd_fd = req->nfds >= 4 ? req->fds[3] : -1;
		le.umask = ctl_msg_get_i64(req, "umask", &v) && v >= 0 && v <= 0777 ? (int)v : -1;
		for (int i = 0; i < 3; i++)
			le.stdio[i] = (unsigned)i < req->nfds ? req->fds[i] : -1;
		le.envp = envp;
		o.t.launch = &le;
	} else {
		ctl_msg_get_i64(req, "pid", &pid);
	}

	/* Signals (SIGUSR1: detach) must reach the tracing thread's waitpid:
	 * the reader thread is born with every signal blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	if (pthread_create(&rd, NULL, reader, &w) != 0) {
		error_msg("cannot start the worker's reader thread");
		return 1;
	}
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	pthread_detach(rd);
	code = trace_session_run(&o, argv, (pid_t)pid);
	atomic_store(&a->shared->state, SESSION_ENDING);

	ctl_msg_init(&end, "end");
	ctl_msg_addf(&end, "code", "%d", code);
	ctl_msg_add(&end, "reason", w.detach_asked ? "detached" : "ended");
	ctl_msg_addf(&end, "session", "%lld", (long long)atomic_load(&a->shared->session));
	ctl_msg_addf(&end, "instructions", "%llu",
		     (unsigned long long)atomic_load(&a->shared->instructions));
	send_locked(&w, &end);
	ctl_msg_free(&end);
	free(argv);
	free(envp);
	return code;
}

/* 'micad worker --db FILE [--as-root]': the fds of enum WORKER_FD_*. */
int
cmd_worker(int argc, char **argv)
{
	struct worker_args a = { .conn = WORKER_FD_CONN };
	struct ctl_msg req;
	struct peer p;
	void *sh;
	int r;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		return 1;	/* the daemon is gone already */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
			a.db = argv[++i];
		else if (strcmp(argv[i], "--as-root") == 0)
			a.as_root = true;
		else {
			error_msg("worker: '%s': this command is micad serve's, not for use by hand",
				  argv[i]);
			return 2;
		}
	}
	if (!a.db || peer_get(WORKER_FD_CONN, &p) < 0) {
		error_msg("worker: started without its connection (this command is micad "
			  "serve's, not for use by hand)");
		return 2;
	}
	r = ctl_recv(WORKER_FD_REQUEST, &req);
	close(WORKER_FD_REQUEST);
	sh = mmap(NULL, sizeof(struct session_shared), PROT_READ | PROT_WRITE, MAP_SHARED,
		  WORKER_FD_SHARED, 0);
	close(WORKER_FD_SHARED);
	if (r <= 0 || sh == MAP_FAILED) {
		ctl_send_error(WORKER_FD_CONN, "micad could not start the session's worker");
		return 1;
	}
	a.req = &req;
	a.peer = &p;
	a.shared = sh;
	r = worker_main(&a);
	ctl_msg_free(&req);
	peer_free(&p);
	return r;
}
