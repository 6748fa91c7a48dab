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
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mica_files.h"
#include "session/trace_session.h"
#include "trace/trace_child.h"
#include "trace/tracer.h"
#include "trace/vg_engine.h"
#include "util.h"

struct worker {
	const struct worker_args *a;
	bool run;
	struct tracer_launch_env le;
	pthread_t main_thread;
	pthread_mutex_t send_lock;	/* the reader thread and progress both send */
	volatile sig_atomic_t detach_asked;
};

static struct worker *the_worker;

static void
on_usr1(int sig)
{
	(void)sig;
	if (the_worker)
		the_worker->detach_asked = 1;
	trace_child_request_detach();
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
			if (sig == 0) {
				w->detach_asked = 1;
				pthread_kill(w->main_thread, SIGUSR1);
			} else {
				/* Sent by the tracer process, as the client,
				 * through the program's pidfd. */
				trace_child_signal((int)sig);
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
		bool keep = fd <= 2 || fd == dfd || fd == a->conn || fd == a->pidfd;

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
 * The configuration: the text of the file the client read, and of the
 * itypes spec file it names (micactl reads both); no file is opened here.
 */
static bool
config_from(const struct ctl_msg *req, struct mica_config_text *c)
{
	const char *text = ctl_msg_get(req, "config");

	memset(c, 0, sizeof(*c));
	if (!text)
		return false;
	c->text = xstrdup(text);
	c->name = xstrdup(ctl_msg_get(req, "config_path") ? ctl_msg_get(req, "config_path")
			  : "mica.conf");
	if (ctl_msg_get(req, "itypes_spec")) {
		c->spec_text = xstrdup(ctl_msg_get(req, "itypes_spec"));
		c->spec_name = xstrdup(ctl_msg_get(req, "itypes_spec_path")
				       ? ctl_msg_get(req, "itypes_spec_path") : "itypes spec");
	}
	return true;
}

/*
 * The client's resource limits ("rlimit=RESOURCE:SOFT:HARD", "inf" for
 * unlimited).  False if there are none or one does not parse.
 */
static bool
rlimits_from(const struct ctl_msg *req, struct rlimit *out)
{
	size_t pos = 0;
	const char *s;
	unsigned seen = 0;

	for (int r = 0; r < RLIM_NLIMITS; r++)
		getrlimit(r, &out[r]);
	while ((s = ctl_msg_next(req, "rlimit", &pos))) {
		char soft[32], hard[32];
		unsigned res;
		rlim_t v[2];

		if (sscanf(s, "%u:%31[^:]:%31s", &res, soft, hard) != 3 || res >= RLIM_NLIMITS)
			return false;
		for (int i = 0; i < 2; i++) {
			const char *t = i ? hard : soft;
			unsigned long long x;

			if (strcmp(t, "inf") == 0)
				v[i] = RLIM_INFINITY;
			else if (parse_u64(t, &x) == 0)
				v[i] = (rlim_t)x;
			else
				return false;
		}
		if (v[0] > v[1])
			return false;
		out[res].rlim_cur = v[0];
		out[res].rlim_max = v[1];
		seen++;
	}
	return seen > 0;
}

/*
 * Where the cgroup hierarchy of a /proc/PID/cgroup line is mounted
 * ("0::" is cgroup v2; "N:CONTROLLERS:" a v1 hierarchy, named by its
 * controllers or name=), from /proc/self/mountinfo; the mount's root is
 * given too, which a path must begin with.  0 or -1.
 */
static int
cgroup_mount(const char *id, const char *controllers, char *mnt, size_t mn, char *root,
	     size_t rn)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int ret = -1;

	if (!f)
		return -1;
	while (ret < 0 && fgets(line, sizeof(line), f)) {
		char r[1024], m[1024], fstype[64], opts[1024];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		if (strcmp(id, "0") == 0 ? strcmp(fstype, "cgroup2") != 0
		    : strcmp(fstype, "cgroup") != 0)
			continue;
		if (strcmp(id, "0") != 0) {
			/* every controller of the hierarchy among the options */
			char *c = xstrdup(controllers), *save = NULL, *tok;
			bool all = true;

			for (tok = strtok_r(c, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				char *o = xasprintf(",%s,", opts), *t = xasprintf(",%s,", tok);

				all = all && strstr(o, t);
				free(o);
				free(t);
			}
			free(c);
			if (!all)
				continue;
		}
		snprintf(mnt, mn, "%s", m);
		snprintf(root, rn, "%s", r);
		ret = 0;
	}
	fclose(f);
	return ret;
}

/*
 * The client's control groups (its /proc/PID/cgroup, read by the daemon
 * while it was connected), so that what it runs through the daemon counts
 * against its own limits: the tracer process moves itself into each one
 * that is not micad's own, while it is still root.  A hierarchy it cannot
 * join is said once and otherwise ignored.
 */
static void
join_cgroups(const char *client)
{
	char *mine = mica_read_file("/proc/self/cgroup", &(size_t){ 0 });
	char *text = xstrdup(client), *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char mnt[1024], root[1024], *procs;
		size_t rl;
		int fd;

		if (!c2 || c2[1] != '/' || strstr(c2, "/..") || (mine && strstr(mine, l)))
			continue;
		*c1 = *c2 = '\0';
		if (cgroup_mount(l, c1 + 1, mnt, sizeof(mnt), root, sizeof(root)) < 0)
			continue;
		rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
		if (strncmp(c2 + 1, root, rl) != 0)
			continue;	/* outside what this namespace sees */
		procs = xasprintf("%s%s/cgroup.procs", mnt, c2 + 1 + rl);
		fd = open(procs, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 || write(fd, "0\n", 2) != 2)
			warning_msg("cannot run in your control group '%s' (%s): the program runs "
				    "in micad's", c2 + 1, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(procs);
	}
	free(text);
	free(mine);
}

/*
 * In the tracer process, as root: become the client.  Its resource
 * limits may be above micad's: the hard limits are raised while that is
 * still possible, so that the program gets exactly the client's (set
 * before its exec).  Then the client's groups, gid and uid, every
 * capability gone with uid 0, and for 'run' no way to gain privileges
 * (a setuid program runs as the client, as under strace).
 */
static int
enter_client(void *arg)
{
	const struct worker *w = arg;
	const struct peer *p = w->a->peer;
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	/* The daemon's page is for the worker alone. */
	munmap(w->a->shared, sizeof(*w->a->shared));
	if (w->a->cgroup)
		join_cgroups(w->a->cgroup);
	if (w->le.have_rlimits)
		for (int r = 0; r < RLIM_NLIMITS; r++) {
			struct rlimit cur;

			if (getrlimit(r, &cur) == 0 && w->le.rlimits[r].rlim_max > cur.rlim_max) {
				cur.rlim_max = w->le.rlimits[r].rlim_max;
				setrlimit(r, &cur);
			}
		}
	if (!w->a->as_root || p->uid == 0)
		goto nnp;
	if (setgroups((size_t)p->ngroups, p->groups) < 0 || setresgid(p->gid, p->gid, p->gid) < 0 ||
	    setresuid(p->uid, p->uid, p->uid) < 0) {
		perror_msg("cannot take your user and groups (uid %u, gid %u)", (unsigned)p->uid,
			   (unsigned)p->gid);
		return 1;
	}
	if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0 ||
	    ru != p->uid || eu != p->uid || su != p->uid || rg != p->gid || eg != p->gid ||
	    sg != p->gid || setuid(0) == 0) {
		error_msg("internal error: the tracer process kept privileges it must not have");
		return 1;
	}
	/* Not dumpable (the credential change made it so): the client cannot
	 * take the tracer over with ptrace. */
	prctl(PR_SET_DUMPABLE, 0);
nnp:
	if (w->run && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror_msg("prctl(PR_SET_NO_NEW_PRIVS)");
		return 1;
	}
	return 0;
}

int
worker_main(const struct worker_args *a)
{
	struct worker w = { .a = a };
	struct trace_session_opts o;
	struct tracer_launch_env *le = &w.le;
	struct mica_config_text config;
	struct trace_child_opts co;
	const struct ctl_msg *req = a->req;
	bool run = ctl_msg_is(req, "run");
	char **argv = NULL, **envp = NULL;
	struct ring *ring;
	struct sigaction sa;
	sigset_t none, all;
	pthread_t rd;
	int64_t v, pid = 0;
	struct ctl_msg end;
	const char *s;
	int code, keep[4];
	unsigned n_keep = 0;

	w.run = run;
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
	o.t.target_pidfd = a->pidfd;
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
	if ((s = ctl_msg_get(req, "engine")) && strcmp(s, "valgrind") == 0) {
		if (!run) {
			error_msg("attach: the valgrind engine cannot attach to a running process");
			return 1;
		}
		if (vg_engine_available() < 0)
			return 127;
		o.t.engine = ENGINE_VALGRIND;
	}
	if ((s = ctl_msg_get(req, "sample")) && strcmp(s, "1") == 0) {
		/* Checked by micactl already; again here, as any request. */
		char key[32], err[256];

		o.t.sample.enabled = true;
		for (const char *const *n = sample_option_names; *n; n++) {
			sample_option_key(*n, key, sizeof(key));
			if (!(s = ctl_msg_get(req, key)))
				continue;
			if (sample_option_set(&o.t.sample, *n, strcmp(*n, "no-bursts") ? s : NULL,
					      err, sizeof(err)) < 0) {
				error_msg("%s", err);
				return run ? 127 : 1;
			}
		}
	}
	if (config_from(req, &config))
		o.config_text = &config;
	if (o.t.pin)
		o.t.pin_cpu = sched_getcpu();

	if (run) {
		argv = collect(req, "arg");
		envp = collect(req, "env");
		if (!envp) {
			envp = xcalloc(1, sizeof(*envp));
		}
		le->cwd_fd = req->nfds >= 4 ? req->fds[3] : -1;
		le->umask = ctl_msg_get_i64(req, "umask", &v) && v >= 0 && v <= 0777 ? (int)v : -1;
		le->have_rlimits = rlimits_from(req, le->rlimits);
		for (int i = 0; i < 3; i++)
			le->stdio[i] = (unsigned)i < req->nfds ? req->fds[i] : -1;
		le->envp = envp;
		o.t.launch = le;
	} else {
		ctl_msg_get_i64(req, "pid", &pid);
	}
	if (!argv && run) {
		error_msg("run: no program given");
		return 127;
	}

	/* The tracer process, before anything else is opened here: it keeps
	 * only the program's fds and the target's pidfd. */
	ring = ring_new_shared(TRACE_CHILD_RING_BYTES);
	if (!ring) {
		perror_msg("cannot map the event ring");
		return run ? 127 : 1;
	}
	for (unsigned i = 0; run && i < req->nfds && i < 4; i++)
		keep[n_keep++] = req->fds[i];
	co = (struct trace_child_opts){ .enter = enter_client, .arg = &w, .keep = keep,
					 .n_keep = n_keep };
	o.child = trace_child_fork(&co, &o.t, ring, argv, (pid_t)pid);
	o.ring = ring;
	if (!o.child) {
		/* The reason is on the client's stderr already (a sample
		 * event that cannot be opened, said by the tracer process):
		 * the end says with what status. */
		code = run ? 127 : 1;
		ctl_msg_init(&end, "end");
		ctl_msg_addf(&end, "code", "%d", code);
		ctl_msg_add(&end, "reason", "error");
		ctl_msg_add(&end, "instructions", "0");
		send_locked(&w, &end);
		ctl_msg_free(&end);
		ring_free(ring);
		mica_config_text_free(&config);
		free(argv);
		free(envp);
		return code;
	}

	/* Signals (SIGUSR1: detach) must reach the waiting thread: the
	 * reader thread is born with every signal blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	if (pthread_create(&rd, NULL, reader, &w) != 0) {
		error_msg("cannot start the worker's reader thread");
		trace_child_free(o.child);
		ring_free(ring);
		return 1;
	}
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	pthread_detach(rd);
	code = trace_session_run(&o, argv, (pid_t)pid);
	atomic_store(&a->shared->state, SESSION_ENDING);
	trace_child_free(o.child);
	ring_free(ring);

	ctl_msg_init(&end, "end");
	ctl_msg_addf(&end, "code", "%d", code);
	ctl_msg_add(&end, "reason", w.detach_asked ? "detached" : "ended");
	ctl_msg_addf(&end, "session", "%lld", (long long)atomic_load(&a->shared->session));
	ctl_msg_addf(&end, "instructions", "%llu",
		     (unsigned long long)atomic_load(&a->shared->instructions));
	send_locked(&w, &end);
	ctl_msg_free(&end);
	mica_config_text_free(&config);
	free(argv);
	free(envp);
	return code;
}

/* 'micad worker --db FILE --nfds N [--as-root] [--pidfd] [--cgroup PATH]':
 * the fds of enum WORKER_FD_*. */
int
cmd_worker(int argc, char **argv)
{
	struct worker_args a = { .conn = WORKER_FD_CONN, .pidfd = -1 };
	unsigned long long nfds = 0;
	struct ctl_msg req;
	struct peer p;
	struct stat st;
	char *frame = NULL;
	void *sh;
	int r = -EBADMSG;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		return 1;	/* the daemon is gone already */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
			a.db = argv[++i];
		else if (strcmp(argv[i], "--nfds") == 0 && i + 1 < argc &&
			 parse_u64(argv[i + 1], &nfds) == 0 && nfds <= CTL_MAX_FDS)
			i++;
		else if (strcmp(argv[i], "--cgroup") == 0 && i + 1 < argc)
			a.cgroup = argv[++i];
		else if (strcmp(argv[i], "--as-root") == 0)
			a.as_root = true;
		else if (strcmp(argv[i], "--pidfd") == 0)
			a.pidfd = WORKER_FD_PIDFD;
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
	if (a.pidfd < 0)
		close(WORKER_FD_PIDFD);	/* a placeholder */
	if (fstat(WORKER_FD_REQUEST, &st) == 0 && st.st_size > 0 &&
	    (uint64_t)st.st_size <= CTL_MAX_FRAME) {
		frame = xmalloc((size_t)st.st_size);
		if (pread(WORKER_FD_REQUEST, frame, (size_t)st.st_size, 0) == st.st_size)
			r = ctl_msg_parse(&req, frame, (size_t)st.st_size);
		free(frame);
	}
	close(WORKER_FD_REQUEST);
	if (r > 0)
		for (unsigned i = 0; i < nfds; i++)
			req.fds[req.nfds++] = WORKER_FD_REQ_FDS + (int)i;
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
