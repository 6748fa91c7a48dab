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
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "http.h"
#include "store.h"
#include "trace_mgsim.h"
#include "util.h"

#define MAX_SESSIONS 64
#define REQUEST_TIMEOUT_S 5
#define SHUTDOWN_GRACE_S 30

struct live {
	pid_t worker;			/* 0: a free slot */
	uid_t uid;
	struct session_shared *sh;	/* shared with the worker (a memfd) */
	char mode[8];
	char *command;
	time_t started;
};

struct serve {
	const char *socket_path;
	char *db;
	bool system, as_root, quiet;
	int listen_fd, lock_fd, sig_fd;
	bool stopping;
	struct http_server *http;
	struct live live[MAX_SESSIONS];
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
		"                      127.0.0.1:%u and [::1]:%u; a busy default port only\n"
		"                      disables HTTP with a warning)\n"
		"      --no-http       no HTTP server\n"
		"      --allow-remote  allow --http on an address that is not loopback\n"
		"      --http-host NAME  accept this Host header too (repeatable)\n"
		"      --web-root DIR  the web UI's files (default: the installed ones)\n"
		"  -q, --quiet         no log lines on standard error\n"
		"  -h, --help          this help\n"
		"\n"
		"Under systemd socket activation (LISTEN_FDS=1) the socket comes from systemd.\n",
		HTTP_DEFAULT_PORT, HTTP_DEFAULT_PORT);
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

static struct live *
live_find(struct serve *sv, int64_t session)
{
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sv->live[i].worker && atomic_load(&sv->live[i].sh->session) == session)
			return &sv->live[i];
	return NULL;
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

/* fd onto target in the child, whatever the fds' numbers were. */
static int
move_fds(const int *from, int n)
{
	int tmp[8];

	for (int i = 0; i < n; i++)
		if ((tmp[i] = fcntl(from[i], F_DUPFD_CLOEXEC, 64)) < 0)
			return -1;
	for (int i = 0; i < n; i++)
		if (dup2(tmp[i], WORKER_FD_CONN + i) < 0)
			return -1;
	return 0;
}

/*
 * The session's worker: a fresh 'micad worker' process (serve.h says why
 * not a plain fork), given the client's connection, the request (through
 * a socketpair, with the fds it carried) and the shared memfd.  Sets
 * l->sh and l->worker, or replies with the error and returns -1.
 */
static int
spawn_worker(struct serve *sv, struct live *l, int conn, struct ctl_msg *req)
{
	int sp[2] = { -1, -1 }, shfd = -1, r;
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
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
		ctl_send_error(conn, "cannot start a session: socketpair: %s", strerror(errno));
		goto fail;
	}
	/* The request with its fds waits in the socket for the worker. */
	if ((r = ctl_send(sp[0], req)) < 0) {
		ctl_send_error(conn, "cannot start a session: %s", strerror(-r));
		goto fail;
	}
	w = fork();
	if (w < 0) {
		ctl_send_error(conn, "cannot start a session: fork: %s", strerror(errno));
		goto fail;
	}
	if (w == 0) {
		const int fds[] = { conn, sp[1], shfd };
		char *argv[] = { "micad", "worker", "--db", sv->db,
				 sv->as_root ? "--as-root" : NULL, NULL };
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (move_fds(fds, 3) < 0)
			_exit(127);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(sp[0]);
	close(sp[1]);
	close(shfd);
	l->worker = w;
	return 0;
fail:
	if (sp[0] >= 0) {
		close(sp[0]);
		close(sp[1]);
	}
	if (shfd >= 0)
		close(shfd);
	if (l->sh)
		munmap(l->sh, sizeof(*l->sh));
	l->sh = NULL;
	return -1;
}

static void
start_session(struct serve *sv, int conn, struct ctl_msg *req, const struct peer *p)
{
	bool run = ctl_msg_is(req, "run");
	struct live *l = NULL;
	char why[512];
	int64_t pid = 0;

	if (sv->stopping) {
		ctl_send_error(conn, "micad is shutting down: try again when it is back");
		return;
	}
	if (run) {
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
	} else {
		if (!ctl_msg_get_i64(req, "pid", &pid) || pid <= 0 || pid > 0x7fffffff) {
			ctl_send_error(conn, "attach: '%s' is not a process id",
				       ctl_msg_get(req, "pid") ? ctl_msg_get(req, "pid") : "");
			return;
		}
		if (access_may_attach(p, (pid_t)pid, why, sizeof(why)) < 0) {
			ctl_send_error(conn, "attach %lld refused: %s", (long long)pid, why);
			return;
		}
		if (pid == getpid()) {
			ctl_send_error(conn, "attach %lld refused: that is micad itself",
				       (long long)pid);
			return;
		}
	}
	for (int i = 0; i < MAX_SESSIONS && !l; i++)
		if (!sv->live[i].worker)
			l = &sv->live[i];
	if (!l) {
		ctl_send_error(conn, "micad already runs %d sessions: stop one first",
			       MAX_SESSIONS);
		return;
	}
	if (spawn_worker(sv, l, conn, req) < 0)
		return;
	l->uid = p->uid;
	snprintf(l->mode, sizeof(l->mode), "%s", run ? "run" : "attach");
	l->command = run ? join_args(req) : xasprintf("pid %lld", (long long)pid);
	l->started = time(NULL);
	if (!sv->quiet) {
		char *command = term_escape(l->command);

		fprintf(stderr, "micad: uid %u: %s %s (worker %d)\n", (unsigned)p->uid, l->mode,
			command, (int)l->worker);
		free(command);
	}
}

/* ---- list and status ---- */

static bool
may_see(const struct peer *p, int64_t uid)
{
	return p->uid == 0 || (int64_t)p->uid == uid;
}

static void
send_live_row(int conn, const struct live *l)
{
	struct ctl_msg m;

	ctl_msg_init(&m, "row");
	ctl_msg_addf(&m, "session", "%lld", (long long)atomic_load(&l->sh->session));
	ctl_msg_add(&m, "mode", l->mode);
	ctl_msg_add(&m, "state", atomic_load(&l->sh->state) == SESSION_STARTING ? "starting"
		    : "running");
	ctl_msg_addf(&m, "pid", "%d", (int)atomic_load(&l->sh->target_pid));
	ctl_msg_addf(&m, "uid", "%u", (unsigned)l->uid);
	ctl_msg_addf(&m, "instructions", "%llu",
		     (unsigned long long)atomic_load(&l->sh->instructions));
	ctl_msg_addf(&m, "seconds", "%.3f", atomic_load(&l->sh->millis) / 1000.0);
	ctl_msg_addf(&m, "started", "%lld", (long long)l->started);
	ctl_msg_add(&m, "command", l->command);
	ctl_msg_add(&m, "live", "1");
	ctl_send(conn, &m);
	ctl_msg_free(&m);
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
		"(SELECT coalesce(sum(ins), 0) FROM interval i WHERE i.session_id = s.id) "
		"FROM session s WHERE (?1 = 0 OR s.id = ?1) ORDER BY s.id";
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int found = 0, r;

	if (sqlite3_open_v2(sv->db, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_busy_timeout(db, 2000) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		ctl_send_error(conn, "cannot read the results database '%s': %s", sv->db,
			       db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	sqlite3_bind_int64(st, 1, only);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), uid = sqlite3_column_int64(st, 4);
		struct live *l = live_find(sv, id);
		struct ctl_msg m;
		const char *reason = (const char *)sqlite3_column_text(st, 2);

		if (!may_see(p, uid))
			continue;
		found++;
		if (l) {
			send_live_row(conn, l);
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
		ctl_send(conn, &m);
		ctl_msg_free(&m);
	}
	if (r != SQLITE_DONE) {
		ctl_send_error(conn, "cannot read the results database '%s': %s", sv->db,
			       sqlite3_errmsg(db));
		goto out;
	}
	/* Live sessions whose row is not there yet. */
	for (int i = 0; i < MAX_SESSIONS; i++) {
		struct live *l = &sv->live[i];

		if (l->worker && atomic_load(&l->sh->session) == 0 && !only &&
		    may_see(p, l->uid)) {
			send_live_row(conn, l);
			found++;
		}
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
	l = live_find(sv, id);
	if (!l) {
		ctl_send_error(conn, "session %lld is not running here (see 'micactl list')",
			       (long long)id);
		return;
	}
	if (!may_see(p, l->uid)) {
		ctl_send_error(conn, "session %lld belongs to uid %u: you (uid %u) may stop only "
			       "your own sessions", (long long)id, (unsigned)l->uid,
			       (unsigned)p->uid);
		return;
	}
	if (kill(l->worker, SIGUSR1) < 0) {
		ctl_send_error(conn, "cannot stop session %lld: %s", (long long)id,
			       strerror(errno));
		return;
	}
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
	struct live *l = live_find(sv, session);
	struct mgsim_live_data d;

	if (!l)
		return false;
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
handle_connection(struct serve *sv, int conn)
{
	struct timeval tv = { REQUEST_TIMEOUT_S, 0 };
	struct ctl_msg req;
	struct peer p;
	int64_t v;
	int r;

	if (peer_get(conn, &p) < 0) {
		perror_msg("SO_PEERCRED");
		return;
	}
	/* A client that connects and says nothing must not hold the daemon. */
	setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r = ctl_recv(conn, &req);
	if (r <= 0) {
		if (r < 0)
			ctl_send_error(conn, "malformed request (%s)", strerror(-r));
		goto out;
	}
	tv.tv_sec = 0;
	setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (ctl_msg_is(&req, "info")) {
		send_info(sv, conn);
	} else if (ctl_msg_is(&req, "run") || ctl_msg_is(&req, "attach")) {
		start_session(sv, conn, &req, &p);
	} else if (ctl_msg_is(&req, "list")) {
		list_sessions(sv, conn, &p, 0);
	} else if (ctl_msg_is(&req, "status")) {
		if (ctl_msg_get(&req, "session")) {
			if (!ctl_msg_get_i64(&req, "session", &v) || v <= 0)
				ctl_send_error(conn, "status: '%s' is not a session number",
					       ctl_msg_get(&req, "session"));
			else
				list_sessions(sv, conn, &p, v);
		} else {
			for (int i = 0; i < MAX_SESSIONS; i++)
				if (sv->live[i].worker && may_see(&p, sv->live[i].uid))
					send_live_row(conn, &sv->live[i]);
			ctl_send_op(conn, "end");
		}
	} else if (ctl_msg_is(&req, "ui")) {
		send_ui(sv, conn, &p);
	} else if (ctl_msg_is(&req, "stop")) {
		stop_session(sv, conn, &req, &p);
	} else if (ctl_msg_is(&req, "shutdown")) {
		if (p.uid != 0 && p.uid != geteuid()) {
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
	peer_free(&p);
}

static int
live_count(const struct serve *sv)
{
	int n = 0;

	for (int i = 0; i < MAX_SESSIONS; i++)
		n += sv->live[i].worker != 0;
	return n;
}

static void
reap(struct serve *sv)
{
	int status;
	pid_t w;

	while ((w = waitpid(-1, &status, WNOHANG)) > 0)
		for (int i = 0; i < MAX_SESSIONS; i++)
			if (sv->live[i].worker == w) {
				if (!sv->quiet) {
					char *command = term_escape(sv->live[i].command);

					fprintf(stderr, "micad: session %lld (%s) ended\n",
						(long long)atomic_load(&sv->live[i].sh->session),
						command);
					free(command);
				}
				live_release(&sv->live[i]);
			}
}

static void
begin_shutdown(struct serve *sv)
{
	if (sv->stopping)
		return;
	sv->stopping = true;
	if (!sv->quiet)
		fprintf(stderr, "micad: stopping: detaching %d session(s)\n", live_count(sv));
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sv->live[i].worker)
			kill(sv->live[i].worker, SIGUSR1);
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
				for (int i = 0; i < MAX_SESSIONS; i++)
					if (sv->live[i].worker)
						kill(sv->live[i].worker, SIGKILL);
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
			handle_connection(sv, conn);
			close(conn);
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
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct serve sv = { .listen_fd = -1, .lock_fd = -1, .sig_fd = -1 };
	struct http_config hc = { 0 };
	const char **hosts = NULL;
	size_t n_hosts = 0;
	bool no_http = false;
	const char *socket_opt = NULL, *db_opt = NULL;
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
		if (!sv.http)
			warning_msg("no web UI: %s (pass --http ADDR:PORT to choose a port)", err);
		else if (!sv.quiet)
			fprintf(stderr, "micad: web UI and API on port %u ('micactl ui' prints "
				"your URL)\n", http_port(sv.http));
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
