/*
 * 'micad serve': the daemon (serve.h).  One thread runs the control
 * socket: short requests (info, list, status, stop) are answered at once;
 * 'run' and 'attach' get a worker process each (serve_worker.c), which
 * keeps the client's connection.  SIGTERM or SIGINT: every session is
 * detached (its finished intervals are written by its worker), then the
 * daemon exits.
 */
#include "config.h"
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "http/http.h"
#include "mica_files.h"
#include "session/trace_mgsim.h"
#include "store/store.h"
#include "util.h"

#define MAX_SESSIONS 256
#define DEFAULT_SESSIONS_PER_USER 16
/* Connections served at once: in all, and of one user. */
#define MAX_CONNS 256
#define MAX_CONNS_PER_USER 16
/* A request must arrive whole within this; a reply be taken this fast. */
#define REQUEST_TIMEOUT_MS 5000
#define SEND_TIMEOUT_S 5
#define SHUTDOWN_GRACE_S 30

struct live {
	pid_t worker;			/* 0: a free slot */
	uid_t uid;
	struct session_shared *sh;	/* shared with the worker (a memfd) */
	char mode[8];
	char *command;
	time_t started;
};

/* What a connection's thread copies out of a live slot, under the lock. */
struct live_row {
	pid_t worker;
	int64_t session;
	char mode[8];
	int32_t state, pid;
	uid_t uid;
	uint64_t instructions, millis;
	time_t started;
	char *command;
};

struct conn_count {
	uid_t uid;
	int n;
};

/*
 * Connections are served each on a thread of its own, so that a slow or
 * silent client holds only its own thread; lock guards live[] and the
 * connection counts (the HTTP server's threads read live[] too).
 */
struct serve {
	const char *socket_path;
	char *db;
	bool system, as_root, quiet;
	int listen_fd, lock_fd, sig_fd;
	bool stopping;
	int max_per_user;		/* sessions at once of one non-root user */
	struct http_server *http;
	pthread_mutex_t lock;
	struct live live[MAX_SESSIONS];
	int n_conns;
	struct conn_count conns[MAX_CONNS];
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: micad serve [OPTIONS]\n"
		"Run the micad daemon: 'micactl run', 'attach', 'stop', 'list', 'status' talk\n"
		"to it over a Unix socket; each session runs in a worker process and writes\n"
		"into the results database.  SIGTERM or SIGINT detaches every session and\n"
		"exits once their finished intervals are written.\n"
		"\n"
		"Options:\n"
		"      --socket PATH   the control socket (default: $XDG_RUNTIME_DIR/micad/\n"
		"                      control.sock, else /tmp/micad-UID/control.sock;\n"
		"                      with --system: " CTL_SYSTEM_SOCKET ")\n"
		"      --db FILE       the results database (default: the per-user one,\n"
		"                      $XDG_DATA_HOME/micad/results.db; with --system:\n"
		"                      /var/lib/micad/results.db)\n"
		"      --system        serve every user of the machine (run as root): the\n"
		"                      socket is open to all, and each client may trace only\n"
		"                      what it could trace itself; programs run as the client\n"
		"      --http ADDR:PORT  serve the web UI and JSON API there (default\n"
		"                      127.0.0.1:%u and [::1]:%u; when that port is\n"
		"                      taken, any free one on 127.0.0.1: 'micactl ui')\n"
		"      --no-http       no HTTP server\n"
		"      --allow-remote  allow --http on an address that is not loopback\n"
		"      --http-host NAME  accept this Host header too (repeatable)\n"
		"      --web-root DIR  the web UI's files (default: the installed ones)\n"
		"      --token-file FILE  keep this user's HTTP access token there (mode 0600,\n"
		"                      the same across restarts: Prometheus's credentials_file;\n"
		"                      default: http-token beside the control socket)\n"
		"      --max-sessions-per-user N  sessions one user (not root) may run at\n"
		"                      once (default %d, at most %d)\n"
		"  -q, --quiet         no log lines on standard error\n"
		"  -h, --help          this help\n"
		"\n"
		"Under systemd socket activation (LISTEN_FDS=1) the socket comes from systemd.\n",
		HTTP_DEFAULT_PORT, HTTP_DEFAULT_PORT, DEFAULT_SESSIONS_PER_USER, MAX_SESSIONS);
}

/* ---- the socket ---- */

/* The directory of a per-user socket must be ours and private. */
static int
make_socket_dir(const char *sock, bool system)
{
	char *dir = xstrdup(sock), *slash = strrchr(dir, '/');
	struct stat st;
	int ret = 0;

	if (!slash || slash == dir) {
		free(dir);
		return 0;
	}
	*slash = '\0';
	if (mkdir(dir, system ? 0755 : 0700) < 0 && errno != EEXIST) {
		perror_msg("cannot create the socket directory '%s'", dir);
		ret = -1;
	} else if (stat(dir, &st) < 0) {
		perror_msg("cannot stat the socket directory '%s'", dir);
		ret = -1;
	} else if (!system && (st.st_uid != geteuid() || (st.st_mode & 022))) {
		error_msg("the socket directory '%s' is not private (it must belong to uid %u "
			  "and not be group or world writable): remove it or pass --socket",
			  dir, (unsigned)geteuid());
		ret = -1;
	}
	free(dir);
	return ret;
}

static int
open_socket(struct serve *sv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *lf = getenv("LISTEN_FDS"), *lp = getenv("LISTEN_PID");
	char *lock;
	int fd;

	if (lf && lp && atoi(lp) == getpid() && atoi(lf) >= 1) {
		sv->listen_fd = 3;	/* systemd socket activation */
		fcntl(3, F_SETFD, FD_CLOEXEC);
		return 0;
	}
	if (strlen(sv->socket_path) >= sizeof(sa.sun_path)) {
		error_msg("the socket path '%s' is too long (at most %zu bytes)", sv->socket_path,
			  sizeof(sa.sun_path) - 1);
		return -1;
	}
	if (make_socket_dir(sv->socket_path, sv->system) < 0)
		return -1;
	/* One daemon per socket: the lock is held for the daemon's life. */
	lock = xasprintf("%s.lock", sv->socket_path);
	sv->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (sv->lock_fd < 0) {
		perror_msg("cannot open the lock file '%s'", lock);
		free(lock);
		return -1;
	}
	if (flock(sv->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			error_msg("another micad already serves '%s' (stop it first, or pass "
				  "--socket)", sv->socket_path);
		else
			perror_msg("cannot lock '%s'", lock);
		free(lock);
		return -1;
	}
	free(lock);
	/* Holding the lock, a socket file left behind is stale. */
	if (unlink(sv->socket_path) < 0 && errno != ENOENT) {
		perror_msg("cannot remove the stale socket '%s'", sv->socket_path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror_msg("socket");
		return -1;
	}
	strcpy(sa.sun_path, sv->socket_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror_msg("cannot bind the control socket '%s'", sv->socket_path);
		close(fd);
		return -1;
	}
	if (chmod(sv->socket_path, sv->system ? 0666 : 0600) < 0 || listen(fd, 16) < 0) {
		perror_msg("cannot listen on '%s'", sv->socket_path);
		close(fd);
		return -1;
	}
	sv->listen_fd = fd;
	return 0;
}

/* ---- sessions ---- */

static void
sv_lock(struct serve *sv)
{
	int e = pthread_mutex_lock(&sv->lock);

	if (e)
		error_msg_and_die("pthread_mutex_lock: %s", strerror(e));
}

static void
sv_unlock(struct serve *sv)
{
	pthread_mutex_unlock(&sv->lock);
}

/* Under the lock. */
static struct live *
live_find(struct serve *sv, int64_t session)
{
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sv->live[i].worker && atomic_load(&sv->live[i].sh->session) == session)
			return &sv->live[i];
	return NULL;
}

/* Under the lock. */
static void
live_copy(const struct live *l, struct live_row *r)
{
	r->worker = l->worker;
	r->session = atomic_load(&l->sh->session);
	memcpy(r->mode, l->mode, sizeof(r->mode));
	r->state = atomic_load(&l->sh->state);
	r->pid = atomic_load(&l->sh->target_pid);
	r->uid = l->uid;
	r->instructions = atomic_load(&l->sh->instructions);
	r->millis = atomic_load(&l->sh->millis);
	r->started = l->started;
	r->command = xstrdup(l->command);
}

static void
live_release(struct live *l)
{
	munmap(l->sh, sizeof(*l->sh));
	free(l->command);
	memset(l, 0, sizeof(*l));
}

static char *
join_args(const struct ctl_msg *m)
{
	size_t pos = 0, len = 0;
	const char *s;
	char *out = xstrdup("");

	while ((s = ctl_msg_next(m, "arg", &pos))) {
		char *n = xasprintf("%s%s%s", out, len ? " " : "", s);

		free(out);
		out = n;
		len++;
	}
	return out;
}

/* from[i] onto WORKER_FD_CONN + i in the child, whatever the fds' numbers
 * were (async-signal-safe: between fork and exec). */
static int
move_fds(const int *from, int n)
{
	int tmp[16];

	for (int i = 0; i < n; i++)
		if ((tmp[i] = fcntl(from[i], F_DUPFD_CLOEXEC, 64)) < 0)
			return -1;
	for (int i = 0; i < n; i++)
		if (dup2(tmp[i], WORKER_FD_CONN + i) < 0)
			return -1;
	return 0;
}

/*
 * The client's control groups (its /proc/PID/cgroup), while its process
 * is the one that connected: its pid still holds the client's uid.
 * malloc'd, or NULL.
 */
static char *
peer_cgroup(const struct peer *p)
{
	char path[64], line[256];
	unsigned long ruid = (unsigned long)-1;
	size_t len;
	char *cg;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)p->pid);
	if (!(f = fopen(path, "re")))
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu", &ruid) == 1)
			break;
	fclose(f);
	if (ruid != p->uid)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)p->pid);
	cg = mica_read_file(path, &len);
	if (cg && (len == 0 || len > 65536)) {
		free(cg);
		cg = NULL;
	}
	return cg;
}

/*
 * The session's worker: a fresh 'micad worker' process (serve.h says why
 * not a plain fork), given the client's connection, the request in a
 * memfd (written whole before the worker exists: nothing here can wait on
 * it), the shared memfd, the target's pidfd and the fds the request
 * carried.  Sets l->sh and l->worker, or replies with the error and
 * returns -1.  Under the lock (a reaped worker must find its slot).
 */
static int
spawn_worker(struct serve *sv, struct live *l, int conn, struct ctl_msg *req, int pidfd,
	     const char *cgroup)
{
	int shfd = -1, rqfd = -1, fds[16], nfds = 0;
	char nfds_arg[16];
	pid_t w;

	shfd = memfd_create("micad-session", MFD_CLOEXEC);
	if (shfd < 0 || ftruncate(shfd, sizeof(*l->sh)) < 0 ||
	    (l->sh = mmap(NULL, sizeof(*l->sh), PROT_READ | PROT_WRITE, MAP_SHARED, shfd, 0))
	    == MAP_FAILED) {
		l->sh = NULL;
		ctl_send_error(conn, "cannot start a session: shared memory: %s", strerror(errno));
		goto fail;
	}
	mgsim_live_init(&l->sh->mgsim);
	rqfd = memfd_create("micad-request", MFD_CLOEXEC);
	if (rqfd < 0 || write_all(rqfd, req->buf, req->len) < 0 || lseek(rqfd, 0, SEEK_SET) < 0) {
		ctl_send_error(conn, "cannot start a session: request memfd: %s", strerror(errno));
		goto fail;
	}
	fds[nfds++] = conn;
	fds[nfds++] = rqfd;
	fds[nfds++] = shfd;
	fds[nfds++] = pidfd >= 0 ? pidfd : rqfd;	/* a placeholder when none */
	for (unsigned i = 0; i < req->nfds; i++)
		fds[nfds++] = req->fds[i];
	snprintf(nfds_arg, sizeof(nfds_arg), "%u", req->nfds);
	w = fork();
	if (w < 0) {
		ctl_send_error(conn, "cannot start a session: fork: %s", strerror(errno));
		goto fail;
	}
	if (w == 0) {
		char *argv[12] = { "micad", "worker", "--db", sv->db, "--nfds", nfds_arg };
		int a = 6;
		sigset_t none;

		if (sv->as_root)
			argv[a++] = "--as-root";
		if (pidfd >= 0)
			argv[a++] = "--pidfd";
		if (cgroup) {
			argv[a++] = "--cgroup";
			argv[a++] = (char *)cgroup;
		}
		argv[a] = NULL;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (move_fds(fds, nfds) < 0)
			_exit(127);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(rqfd);
	close(shfd);
	l->worker = w;
	return 0;
fail:
	if (rqfd >= 0)
		close(rqfd);
	if (shfd >= 0)
		close(shfd);
	if (l->sh)
		munmap(l->sh, sizeof(*l->sh));
	l->sh = NULL;
	return -1;
}

/*
 * Workers are forked by one thread that lives as long as the daemon: a
 * worker dies with the daemon (PR_SET_PDEATHSIG), and the kernel sends
 * that signal when the thread that forked it ends, not the process, so a
 * connection's short-lived thread must not be that parent.
 */
struct spawn_job {
	struct serve *sv;
	struct live *l;
	int conn, pidfd, result;
	struct ctl_msg *req;
	const char *cgroup;
	bool done;
};

static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t spawn_cond = PTHREAD_COND_INITIALIZER;
static struct spawn_job *spawn_pending;

static void *
spawner_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&spawn_lock);
	for (;;) {
		struct spawn_job *j;

		while (!spawn_pending)
			pthread_cond_wait(&spawn_cond, &spawn_lock);
		j = spawn_pending;
		spawn_pending = NULL;
		j->result = spawn_worker(j->sv, j->l, j->conn, j->req, j->pidfd, j->cgroup);
		j->done = true;
		pthread_cond_broadcast(&spawn_cond);
	}
	return NULL;
}

/* spawn_worker() on the spawner thread (under the serve lock). */
static int
spawn_on_spawner(struct serve *sv, struct live *l, int conn, struct ctl_msg *req, int pidfd,
		 const char *cgroup)
{
	struct spawn_job j = { sv, l, conn, pidfd, -1, req, cgroup, false };

	pthread_mutex_lock(&spawn_lock);
	while (spawn_pending)
		pthread_cond_wait(&spawn_cond, &spawn_lock);
	spawn_pending = &j;
	pthread_cond_broadcast(&spawn_cond);
	while (!j.done)
		pthread_cond_wait(&spawn_cond, &spawn_lock);
	pthread_mutex_unlock(&spawn_lock);
	return j.result;
}

static void
log_session(struct serve *sv, const struct peer *p, const char *mode, const char *command,
	    pid_t worker)
{
	char *escaped;

	if (sv->quiet)
		return;
	escaped = term_escape(command);
	fprintf(stderr, "micad: uid %u: %s %s (worker %d)\n", (unsigned)p->uid, mode, escaped,
		(int)worker);
	free(escaped);
}

static void
start_session(struct serve *sv, int conn, struct ctl_msg *req, const struct peer *p)
{
	bool run = ctl_msg_is(req, "run");
	struct live *l = NULL;
	char why[512], *command, *cgroup;
	int64_t pid = 0;
	int pidfd = -1, mine = 0;

	if (!run) {
		if (!ctl_msg_get_i64(req, "pid", &pid) || pid <= 0 || pid > INT32_MAX) {
			ctl_send_error(conn, "attach: '%s' is not a process id",
				       ctl_msg_get(req, "pid") ? ctl_msg_get(req, "pid") : "");
			return;
		}
		/* Held from now on: a number reused by another process while
		 * the session starts cannot be mistaken for the one named. */
		pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
		if (pidfd < 0) {
			if (errno == ESRCH)
				ctl_send_error(conn, "attach %lld refused: no process %lld",
					       (long long)pid, (long long)pid);
			else
				ctl_send_error(conn, "attach %lld refused: pidfd_open: %s",
					       (long long)pid, strerror(errno));
			return;
		}
		if (access_may_attach(p, (pid_t)pid, why, sizeof(why)) < 0) {
			ctl_send_error(conn, "attach %lld refused: %s", (long long)pid, why);
			close(pidfd);
			return;
		}
		if (pid == getpid()) {
			ctl_send_error(conn, "attach %lld refused: that is micad itself",
				       (long long)pid);
			close(pidfd);
			return;
		}
	} else {
		if (!ctl_msg_get(req, "arg")) {
			ctl_send_error(conn, "run: no program given");
			return;
		}
		if (req->nfds < 4) {
			ctl_send_error(conn, "run: the request must carry stdin, stdout, stderr "
				       "and the working directory");
			return;
		}
		if (!sv->as_root && p->uid != geteuid()) {
			ctl_send_error(conn, "this micad runs as uid %u and runs programs only for "
				       "that user (you are uid %u): use your own micad or the "
				       "system one", (unsigned)geteuid(), (unsigned)p->uid);
			return;
		}
	}
	command = run ? join_args(req) : xasprintf("pid %lld", (long long)pid);
	cgroup = p->uid ? peer_cgroup(p) : NULL;
	sv_lock(sv);
	if (sv->stopping) {
		ctl_send_error(conn, "micad is shutting down: try again when it is back");
		goto out;
	}
	for (int i = 0; i < MAX_SESSIONS; i++) {
		if (!sv->live[i].worker && !l)
			l = &sv->live[i];
		mine += sv->live[i].worker && sv->live[i].uid == p->uid;
	}
	if (p->uid != 0 && mine >= sv->max_per_user) {
		ctl_send_error(conn, "you (uid %u) have %d sessions running, the most this micad "
			       "allows one user (--max-sessions-per-user): stop one first "
			       "(micactl list, micactl stop SESSION)", (unsigned)p->uid, mine);
		goto out;
	}
	if (!l) {
		ctl_send_error(conn, "micad runs %d sessions, its most: try again when one has "
			       "ended", MAX_SESSIONS);
		goto out;
	}
	if (spawn_on_spawner(sv, l, conn, req, pidfd, cgroup) < 0)
		goto out;
	l->uid = p->uid;
	snprintf(l->mode, sizeof(l->mode), "%s", run ? "run" : "attach");
	l->command = command;
	command = NULL;
	l->started = time(NULL);
	log_session(sv, p, l->mode, l->command, l->worker);
out:
	sv_unlock(sv);
	free(command);
	free(cgroup);
	if (pidfd >= 0)
		close(pidfd);
}

/* ---- list and status ---- */

static bool
may_see(const struct peer *p, int64_t uid)
{
	return p->uid == 0 || (int64_t)p->uid == uid;
}

/* Send a live row (and free its copy). */
static int
send_live_row(int conn, struct live_row *l)
{
	struct ctl_msg m;
	int r;

	ctl_msg_init(&m, "row");
	ctl_msg_addf(&m, "session", "%lld", (long long)l->session);
	ctl_msg_add(&m, "mode", l->mode);
	ctl_msg_add(&m, "state", l->state == SESSION_STARTING ? "starting" : "running");
	ctl_msg_addf(&m, "pid", "%d", (int)l->pid);
	ctl_msg_addf(&m, "uid", "%u", (unsigned)l->uid);
	ctl_msg_addf(&m, "instructions", "%llu", (unsigned long long)l->instructions);
	ctl_msg_addf(&m, "seconds", "%.3f", l->millis / 1000.0);
	ctl_msg_addf(&m, "started", "%lld", (long long)l->started);
	ctl_msg_add(&m, "command", l->command);
	ctl_msg_add(&m, "live", "1");
	r = ctl_send(conn, &m);
	ctl_msg_free(&m);
	free(l->command);
	l->command = NULL;
	return r;
}

/*
 * Copies of the live sessions the peer may see; their count.  With a
 * session id, only that session's: the worker that published it, or the
 * one that wrote its row (writer, the row's writer_pid) and has not
 * published it yet.  Workers in skip[] are left out.
 */
static int
live_rows(struct serve *sv, const struct peer *p, int64_t only, int64_t writer,
	  const pid_t *skip, int n_skip, struct live_row *out)
{
	int n = 0;

	sv_lock(sv);
	for (int i = 0; i < MAX_SESSIONS; i++) {
		struct live *l = &sv->live[i];
		int64_t id;
		bool skipped = false;

		if (!l->worker || !l->sh || !may_see(p, l->uid))
			continue;
		/* Ending with a row: the row says how it ended, the worker
		 * only lingers. */
		if (atomic_load(&l->sh->state) == SESSION_ENDING && atomic_load(&l->sh->session))
			continue;
		for (int k = 0; k < n_skip; k++)
			skipped = skipped || skip[k] == l->worker;
		id = atomic_load(&l->sh->session);
		if (skipped || (only && id != only && !(id == 0 && l->worker == writer)))
			continue;
		live_copy(l, &out[n++]);
	}
	sv_unlock(sv);
	return n;
}

/*
 * Rows of the sessions table the peer may see (one session, or all);
 * live sessions carry their progress from the worker.
 */
static void
list_sessions(struct serve *sv, int conn, const struct peer *p, int64_t only)
{
	static const char sql[] =
		"SELECT s.id, s.mode, s.end_reason, s.pid, s.uid, s.started_at, s.ended_at, "
		"s.exit_status, s.command, "
		"(SELECT count(*) FROM interval i WHERE i.session_id = s.id), "
		"(SELECT coalesce(sum(ins), 0) FROM interval i WHERE i.session_id = s.id), "
		"s.writer_pid, s.error, s.incomplete "
		"FROM session s WHERE (?1 = 0 OR s.id = ?1) ORDER BY s.id";
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	pid_t sent[MAX_SESSIONS];
	int found = 0, n_sent = 0, r;

	/* A session's writer closing the file holds a lock a moment (store.c,
	 * store_close): wait as long as a writer would rather than fail. */
	if (sqlite3_open_v2(sv->db, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		ctl_send_error(conn, "cannot read the results database '%s': %s", sv->db,
			       db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	sqlite3_bind_int64(st, 1, only);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), uid = sqlite3_column_int64(st, 4);
		struct live_row lr;
		struct ctl_msg m;
		const char *reason = (const char *)sqlite3_column_text(st, 2);

		if (!may_see(p, uid))
			continue;
		found++;
		if (live_rows(sv, p, id, sqlite3_column_int64(st, 11), NULL, 0, &lr) == 1) {
			if (n_sent < MAX_SESSIONS)
				sent[n_sent++] = lr.worker;
			if (send_live_row(conn, &lr) < 0)
				goto out;
			continue;
		}
		ctl_msg_init(&m, "row");
		ctl_msg_addf(&m, "session", "%lld", (long long)id);
		ctl_msg_add(&m, "mode", (const char *)sqlite3_column_text(st, 1));
		/* 'running' with no worker here: another micad's, or cut off. */
		ctl_msg_add(&m, "state", reason ? reason : "unknown");
		ctl_msg_addf(&m, "pid", "%lld", (long long)sqlite3_column_int64(st, 3));
		ctl_msg_addf(&m, "uid", "%lld", (long long)uid);
		ctl_msg_addf(&m, "intervals", "%lld", (long long)sqlite3_column_int64(st, 9));
		ctl_msg_addf(&m, "instructions", "%lld", (long long)sqlite3_column_int64(st, 10));
		ctl_msg_addf(&m, "started", "%.0f", sqlite3_column_double(st, 5));
		if (sqlite3_column_type(st, 6) != SQLITE_NULL) {
			ctl_msg_addf(&m, "seconds", "%.3f",
				     sqlite3_column_double(st, 6) - sqlite3_column_double(st, 5));
			ctl_msg_addf(&m, "ended", "%.0f", sqlite3_column_double(st, 6));
		}
		if (sqlite3_column_type(st, 7) != SQLITE_NULL)
			ctl_msg_addf(&m, "status", "%lld", (long long)sqlite3_column_int64(st, 7));
		ctl_msg_add(&m, "command", (const char *)sqlite3_column_text(st, 8));
		if (sqlite3_column_type(st, 12) != SQLITE_NULL)
			ctl_msg_add(&m, "error", (const char *)sqlite3_column_text(st, 12));
		if (sqlite3_column_type(st, 13) != SQLITE_NULL)
			ctl_msg_add(&m, "incomplete", (const char *)sqlite3_column_text(st, 13));
		r = ctl_send(conn, &m);
		ctl_msg_free(&m);
		if (r < 0)
			goto out;	/* a client that does not read: let it go */
	}
	if (r != SQLITE_DONE) {
		ctl_send_error(conn, "cannot read the results database '%s': %s", sv->db,
			       sqlite3_errmsg(db));
		goto out;
	}
	/* Live sessions whose row is not there yet (or was written after
	 * this query began). */
	if (!only) {
		struct live_row *rows = xcalloc(MAX_SESSIONS, sizeof(*rows));
		int n = live_rows(sv, p, 0, 0, sent, n_sent, rows);

		for (int i = 0; i < n; i++)
			send_live_row(conn, &rows[i]);
		found += n;
		free(rows);
	}
	if (only && !found)
		ctl_send_error(conn, "no session %lld (see 'micactl list')", (long long)only);
	else
		ctl_send_op(conn, "end");
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void
stop_session(struct serve *sv, int conn, const struct ctl_msg *req, const struct peer *p)
{
	int64_t id;
	struct live *l;

	if (!ctl_msg_get_i64(req, "session", &id) || id <= 0) {
		ctl_send_error(conn, "stop: '%s' is not a session number",
			       ctl_msg_get(req, "session") ? ctl_msg_get(req, "session") : "");
		return;
	}
	sv_lock(sv);
	l = live_find(sv, id);
	if (!l) {
		sv_unlock(sv);
		ctl_send_error(conn, "session %lld is not running here (see 'micactl list')",
			       (long long)id);
		return;
	}
	if (!may_see(p, l->uid)) {
		uid_t owner = l->uid;

		sv_unlock(sv);
		ctl_send_error(conn, "session %lld belongs to uid %u: you (uid %u) may stop only "
			       "your own sessions", (long long)id, (unsigned)owner,
			       (unsigned)p->uid);
		return;
	}
	if (kill(l->worker, SIGUSR1) < 0) {
		int e = errno;

		sv_unlock(sv);
		ctl_send_error(conn, "cannot stop session %lld: %s", (long long)id, strerror(e));
		return;
	}
	sv_unlock(sv);
	ctl_send_op(conn, "ok");
}

static void
send_info(struct serve *sv, int conn)
{
	struct ctl_msg m;

	ctl_msg_init(&m, "info");
	ctl_msg_add(&m, "version", PACKAGE_VERSION);
	ctl_msg_add(&m, "db", sv->db);
	ctl_msg_add(&m, "socket", sv->socket_path);
	ctl_msg_addf(&m, "pid", "%d", (int)getpid());
	ctl_send(conn, &m);
	ctl_msg_free(&m);
}

/* ---- HTTP ---- */

/* The HTTP server's view of a running session (its threads call this:
 * only fields the loop thread never frees while a worker lives are read). */
static bool
http_live_cb(void *arg, int64_t session, struct http_live *out)
{
	struct serve *sv = arg;
	struct live *l;
	struct mgsim_live_data d;

	sv_lock(sv);
	l = live_find(sv, session);
	if (!l) {
		sv_unlock(sv);
		return false;
	}
	memset(out, 0, sizeof(*out));
	out->session = session;
	snprintf(out->state, sizeof(out->state), "%s",
		 atomic_load(&l->sh->state) == SESSION_ENDING ? "stopping" : "running");
	out->instructions = atomic_load(&l->sh->instructions);
	out->intervals = atomic_load(&l->sh->intervals);
	if (mgsim_live_read(&l->sh->mgsim, &d, 1000) == 0 &&
	    d.state != MGSIM_LIVE_NONE) {
		out->has_mgsim = true;
		for (int i = 0; i < HTTP_MGSIM_COUNTERS && i < MGSIM_NUM_COUNTERS; i++)
			out->mgsim[i] = d.v[i];
	}
	sv_unlock(sv);
	return true;
}

static void
send_ui(struct serve *sv, int conn, const struct peer *p)
{
	struct ctl_msg m;
	char *url;

	if (!sv->http) {
		ctl_send_error(conn, "this micad serves no HTTP (started with --no-http, or its "
			       "port was busy: see its log); restart it with --http ADDR:PORT");
		return;
	}
	url = http_url(sv->http, p->uid);
	ctl_msg_init(&m, "ui");
	ctl_msg_add(&m, "url", url);
	ctl_send(conn, &m);
	ctl_msg_free(&m);
	free(url);
}

/* ---- the loop ---- */

static void
handle_connection(struct serve *sv, int conn, struct peer *p)
{
	struct timeval tv = { SEND_TIMEOUT_S, 0 };
	struct ctl_msg req;
	int64_t v;
	int r;

	/* A client that does not read its replies holds only this thread,
	 * and only so long. */
	setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	/* A client that says nothing, or drips its request, neither. */
	r = ctl_recv_deadline(conn, &req, REQUEST_TIMEOUT_MS);
	if (r <= 0) {
		if (r == -ETIMEDOUT)
			ctl_send_error(conn, "the request did not arrive within %d s",
				       REQUEST_TIMEOUT_MS / 1000);
		else if (r < 0)
			ctl_send_error(conn, "malformed request (%s)", strerror(-r));
		goto out;
	}
	if (ctl_msg_is(&req, "info")) {
		send_info(sv, conn);
	} else if (ctl_msg_is(&req, "run") || ctl_msg_is(&req, "attach")) {
		start_session(sv, conn, &req, p);
	} else if (ctl_msg_is(&req, "list")) {
		list_sessions(sv, conn, p, 0);
	} else if (ctl_msg_is(&req, "status")) {
		if (ctl_msg_get(&req, "session")) {
			if (!ctl_msg_get_i64(&req, "session", &v) || v <= 0)
				ctl_send_error(conn, "status: '%s' is not a session number",
					       ctl_msg_get(&req, "session"));
			else
				list_sessions(sv, conn, p, v);
		} else {
			struct live_row *rows = xcalloc(MAX_SESSIONS, sizeof(*rows));
			int n = live_rows(sv, p, 0, 0, NULL, 0, rows);

			for (int i = 0; i < n; i++)
				send_live_row(conn, &rows[i]);
			free(rows);
			ctl_send_op(conn, "end");
		}
	} else if (ctl_msg_is(&req, "ui")) {
		send_ui(sv, conn, p);
	} else if (ctl_msg_is(&req, "stop")) {
		stop_session(sv, conn, &req, p);
	} else if (ctl_msg_is(&req, "shutdown")) {
		if (p->uid != 0 && p->uid != geteuid()) {
			ctl_send_error(conn, "shutdown: only root or uid %u may stop this micad",
				       (unsigned)geteuid());
		} else {
			ctl_send_op(conn, "ok");
			kill(getpid(), SIGTERM);
		}
	} else {
		ctl_send_error(conn, "unknown request '%s'", ctl_msg_get(&req, "op"));
	}
out:
	ctl_msg_free(&req);
}

struct conn_job {
	struct serve *sv;
	int fd;
	struct peer peer;
};

/* Under the lock: count a connection of uid in (+1) or out (-1); false
 * if one more is not allowed. */
static bool
conn_count(struct serve *sv, uid_t uid, int delta)
{
	struct conn_count *c = NULL;

	for (int i = 0; i < sv->n_conns; i++)
		if (sv->conns[i].uid == uid)
			c = &sv->conns[i];
	if (delta > 0) {
		int total = 0;

		for (int i = 0; i < sv->n_conns; i++)
			total += sv->conns[i].n;
		if (total >= MAX_CONNS || (c && c->n >= MAX_CONNS_PER_USER && uid != 0))
			return false;
		if (!c) {
			c = &sv->conns[sv->n_conns++];
			c->uid = uid;
			c->n = 0;
		}
	}
	if (c) {
		c->n += delta;
		if (c->n == 0)
			*c = sv->conns[--sv->n_conns];
	}
	return true;
}

static void *
conn_thread(void *arg)
{
	struct conn_job *j = arg;

	handle_connection(j->sv, j->fd, &j->peer);
	close(j->fd);
	sv_lock(j->sv);
	conn_count(j->sv, j->peer.uid, -1);
	sv_unlock(j->sv);
	peer_free(&j->peer);
	free(j);
	return NULL;
}

/* A new connection: its own thread, within the per-user limit. */
static void
accept_connection(struct serve *sv, int conn)
{
	struct conn_job *j = xcalloc(1, sizeof(*j));
	pthread_attr_t at;
	pthread_t th;
	bool ok;
	int e;

	j->sv = sv;
	j->fd = conn;
	if (peer_get(conn, &j->peer) < 0) {
		perror_msg("SO_PEERCRED");
		goto drop;
	}
	sv_lock(sv);
	ok = conn_count(sv, j->peer.uid, +1);
	sv_unlock(sv);
	if (!ok) {
		struct ctl_msg m;

		/* Never wait on this client: the reply goes if it fits. */
		ctl_msg_init(&m, "error");
		ctl_msg_addf(&m, "message", "too many connections of uid %u at once: try again "
			     "later", (unsigned)j->peer.uid);
		send(conn, &(uint32_t){ (uint32_t)m.len }, 4, MSG_DONTWAIT | MSG_NOSIGNAL);
		send(conn, m.buf, m.len, MSG_DONTWAIT | MSG_NOSIGNAL);
		ctl_msg_free(&m);
		goto drop;
	}
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	e = pthread_create(&th, &at, conn_thread, j);
	pthread_attr_destroy(&at);
	if (e == 0)
		return;
	errno = e;
	perror_msg("cannot serve a connection (pthread_create)");
	sv_lock(sv);
	conn_count(sv, j->peer.uid, -1);
	sv_unlock(sv);
drop:
	close(conn);
	peer_free(&j->peer);
	free(j);
}

static int
live_count(struct serve *sv)
{
	int n = 0;

	sv_lock(sv);
	for (int i = 0; i < MAX_SESSIONS; i++)
		n += sv->live[i].worker != 0;
	sv_unlock(sv);
	return n;
}

static void
reap(struct serve *sv)
{
	int status;
	pid_t w;

	sv_lock(sv);
	while ((w = waitpid(-1, &status, WNOHANG)) > 0)
		for (int i = 0; i < MAX_SESSIONS; i++)
			if (sv->live[i].worker == w) {
				if (!sv->quiet) {
					char *command = term_escape(sv->live[i].command);

					long long id = (long long)atomic_load(&sv->live[i].sh->session);

					if (id > 0)
						fprintf(stderr, "micad: session %lld (%s) ended\n", id,
							command);
					else
						fprintf(stderr, "micad: worker %d (%s) ended before "
							"its session began\n", (int)w, command);
					free(command);
				}
				live_release(&sv->live[i]);
			}
	sv_unlock(sv);
}

static void
begin_shutdown(struct serve *sv)
{
	if (sv->stopping)
		return;
	sv_lock(sv);
	sv->stopping = true;
	sv_unlock(sv);
	if (!sv->quiet)
		fprintf(stderr, "micad: stopping: detaching %d session(s)\n", live_count(sv));
	sv_lock(sv);
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sv->live[i].worker)
			kill(sv->live[i].worker, SIGUSR1);
	sv_unlock(sv);
	if (sv->listen_fd >= 0) {
		close(sv->listen_fd);
		sv->listen_fd = -1;
	}
}

static int
serve_loop(struct serve *sv)
{
	time_t deadline = 0;

	for (;;) {
		struct pollfd pf[2] = { { sv->sig_fd, POLLIN, 0 }, { sv->listen_fd, POLLIN, 0 } };
		int n = sv->listen_fd >= 0 ? 2 : 1;

		if (sv->stopping) {
			if (live_count(sv) == 0)
				return 0;
			if (!deadline)
				deadline = time(NULL) + SHUTDOWN_GRACE_S;
			if (time(NULL) > deadline) {
				error_msg("sessions did not end within %d s of the detach request: "
					  "killing their workers", SHUTDOWN_GRACE_S);
				sv_lock(sv);
				for (int i = 0; i < MAX_SESSIONS; i++)
					if (sv->live[i].worker)
						kill(sv->live[i].worker, SIGKILL);
				sv_unlock(sv);
			}
		}
		if (poll(pf, (nfds_t)n, sv->stopping ? 1000 : -1) < 0) {
			if (errno == EINTR)
				continue;
			perror_msg("poll");
			return 1;
		}
		if (pf[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sv->sig_fd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGCHLD)
					reap(sv);
				else
					begin_shutdown(sv);
			}
		}
		if (n == 2 && (pf[1].revents & POLLIN)) {
			int conn = accept4(sv->listen_fd, NULL, NULL, SOCK_CLOEXEC);

			if (conn < 0) {
				if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
					perror_msg("accept");
				continue;
			}
			accept_connection(sv, conn);
		}
	}
}

int
cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "db", required_argument, NULL, 'd' },
		{ "system", no_argument, NULL, 'S' },
		{ "http", required_argument, NULL, 'H' },
		{ "no-http", no_argument, NULL, 'N' },
		{ "allow-remote", no_argument, NULL, 'R' },
		{ "http-host", required_argument, NULL, 'n' },
		{ "web-root", required_argument, NULL, 'w' },
		{ "token-file", required_argument, NULL, 't' },
		{ "max-sessions-per-user", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct serve sv = { .listen_fd = -1, .lock_fd = -1, .sig_fd = -1,
			    .max_per_user = DEFAULT_SESSIONS_PER_USER,
			    .lock = PTHREAD_MUTEX_INITIALIZER };
	unsigned long long u;
	struct http_config hc = { 0 };
	const char **hosts = NULL;
	size_t n_hosts = 0;
	bool no_http = false;
	const char *socket_opt = NULL, *db_opt = NULL, *token_opt = NULL;
	char *socket_path = NULL, err[512];
	struct store *st;
	sigset_t mask;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+qh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			socket_opt = optarg;
			break;
		case 'd':
			db_opt = optarg;
			break;
		case 'S':
			sv.system = true;
			break;
		case 'H':
			hc.listen = optarg;
			break;
		case 'N':
			no_http = true;
			break;
		case 'R':
			hc.allow_remote = true;
			break;
		case 'n':
			hosts = xreallocarray(hosts, n_hosts + 2, sizeof(*hosts));
			hosts[n_hosts++] = optarg;
			hosts[n_hosts] = NULL;
			break;
		case 'w':
			hc.web_root = optarg;
			break;
		case 't':
			token_opt = optarg;
			break;
		case 'm':
			if (parse_u64(optarg, &u) < 0 || u == 0 || u > MAX_SESSIONS) {
				error_msg("--max-sessions-per-user: '%s' is not a number of sessions "
					  "from 1 to %d", optarg, MAX_SESSIONS);
				return 2;
			}
			sv.max_per_user = (int)u;
			break;
		case 'q':
			sv.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		error_msg("serve: unexpected argument '%s'", argv[optind]);
		return 2;
	}
	sv.as_root = geteuid() == 0;
	if (sv.system && !sv.as_root) {
		error_msg("--system: the system micad must run as root (it starts programs as "
			  "each client's user)");
		return 1;
	}
	socket_path = socket_opt ? xstrdup(socket_opt)
		    : sv.system ? xstrdup(CTL_SYSTEM_SOCKET) : ctl_user_socket_path();
	sv.socket_path = socket_path;
	if (db_opt) {
		sv.db = xstrdup(db_opt);
	} else if (sv.system) {
		if (mkdir("/var/lib/micad", 0700) < 0 && errno != EEXIST) {
			perror_msg("cannot create /var/lib/micad");
			return 1;
		}
		sv.db = xstrdup("/var/lib/micad/results.db");
	} else if (!(sv.db = store_default_path(err, sizeof(err)))) {
		error_msg("%s", err);
		return 1;
	}
	/* Create or migrate the database now, and mark the sessions a previous
	 * daemon left unfinished. */
	st = store_open(sv.db, false, err, sizeof(err));
	if (!st) {
		error_msg("%s", err);
		return 1;
	}
	if ((c = store_mark_cut_off(st, err, sizeof(err))) < 0)
		warning_msg("%s", err);
	else if (c > 0 && !sv.quiet)
		fprintf(stderr, "micad: %d session(s) left unfinished by a previous micad marked "
			"cut-off\n", c);
	store_close(st);

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
	    (sv.sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		perror_msg("signalfd");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	if (open_socket(&sv) < 0)
		return 1;
	if (!sv.quiet)
		fprintf(stderr, "micad: serving %s (pid %d), database %s\n", sv.socket_path,
			(int)getpid(), sv.db);
	if (!no_http) {
		hc.host_names = hosts;
		hc.db_path = sv.db;
		hc.live = http_live_cb;
		hc.live_arg = &sv;
		if (!hc.web_root)
			hc.web_root = http_default_web_root();
		sv.http = http_start(&hc, err, sizeof(err));
		if (!sv.http && hc.listen) {
			error_msg("--http %s: %s", hc.listen, err);
			return 1;
		}
		if (!sv.http) {
			/* The default port taken (another user's micad, say):
			 * any free one, which 'micactl ui' tells. */
			char first[512];

			snprintf(first, sizeof(first), "%s", err);
			hc.listen = "127.0.0.1:0";
			sv.http = http_start(&hc, err, sizeof(err));
			hc.listen = NULL;
			if (sv.http && !sv.quiet)
				fprintf(stderr, "micad: port %u is taken (%s): web UI on port %u "
					"instead\n", HTTP_DEFAULT_PORT, first, http_port(sv.http));
			else if (!sv.http)
				warning_msg("no web UI: %s (pass --http ADDR:PORT to choose a port)",
					    first);
		}
		if (sv.http) {
			/* Beside the socket: the runtime directory, ours alone. */
			const char *slash = strrchr(sv.socket_path, '/');
			char *tf = token_opt ? xstrdup(token_opt) :
				   xasprintf("%.*s/http-token", slash ? (int)(slash - sv.socket_path) : 1,
					     slash ? sv.socket_path : ".");

			if (http_token_file(sv.http, geteuid(), tf, err, sizeof(err)) < 0)
				warning_msg("%s; the token is a new one for this run only", err);
			else if (!sv.quiet)
				fprintf(stderr, "micad: HTTP access token of uid %u in %s\n",
					(unsigned)geteuid(), tf);
			free(tf);
		}
		if (sv.http && !sv.quiet)
			fprintf(stderr, "micad: web UI and API on port %u ('micactl ui' prints "
				"your URL)\n", http_port(sv.http));
	}
	{
		/* Born with every signal blocked, as the loop's are. */
		pthread_t th;
		int e = pthread_create(&th, NULL, spawner_thread, NULL);

		if (e) {
			errno = e;
			perror_msg("cannot start the thread that starts sessions");
			return 1;
		}
		pthread_detach(th);
	}
	ret = serve_loop(&sv);
	if (sv.http)
		http_stop(sv.http);
	free(hosts);
	if (sv.listen_fd >= 0)
		close(sv.listen_fd);
	if (sv.lock_fd >= 0) {	/* ours, not systemd's */
		unlink(sv.socket_path);
		close(sv.lock_fd);
	}
	close(sv.sig_fd);
	free(sv.db);
	free(socket_path);
	return ret;
}
