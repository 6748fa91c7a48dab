/*
 * 'micad serve': the daemon.  Its parts: the control socket loop
 * (serve.c), the sessions it runs, each in a worker process of its own
 * (serve_worker.c), and the rules of who may do what (serve_access.c).
 */
#ifndef MICAD_SERVE_H
#define MICAD_SERVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "control.h"
#include "session/trace_mgsim.h"

/*
 * What a worker tells the daemon while its session runs: a memfd mapped
 * by both (MAP_SHARED) per live session, written by the worker only.
 */
struct session_shared {
	_Atomic int64_t session;	/* database id, 0 until known */
	_Atomic int32_t target_pid;	/* the launched or attached process */
	_Atomic int32_t state;		/* enum session_state */
	_Atomic uint64_t instructions;	/* traced so far */
	_Atomic uint64_t millis;	/* tracing time so far */
	_Atomic uint64_t intervals;	/* finished intervals so far */
	struct mgsim_live mgsim;	/* the live MGSim counters (seqlock) */
};

enum session_state { SESSION_STARTING, SESSION_TRACING, SESSION_ENDING };

/* Who is asking: SO_PEERCRED and SO_PEERGROUPS of the connection. */
struct peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int ngroups;
};

int peer_get(int sock, struct peer *p);
void peer_free(struct peer *p);

/*
 * Whether peer may trace pid (the kernel's ptrace rules for the peer: same
 * real, effective and saved uid and gid, dumpable, Yama's ptrace_scope), or
 * is root.  0, or -1 with the rule that refused it in why.
 */
int access_may_attach(const struct peer *p, pid_t pid, char *why, size_t whysz);

struct worker_args {
	int conn;			/* the client's connection */
	struct ctl_msg *req;		/* op=run or op=attach, with its fds */
	const struct peer *peer;
	struct session_shared *shared;
	const char *db;
	bool as_root;			/* the daemon runs as root: trace as the client */
	int pidfd;			/* attach: the target, held since the request; else -1 */
	const char *cgroup;		/* the client's cgroup (v2 path), or NULL */
};

/* In the worker: run the session to its end, tell the client, and
 * return the exit status for the worker process. */
int worker_main(const struct worker_args *a);

/*
 * The worker is a fresh process image ('micad worker', started by the
 * daemon with fork and exec): a process forked from the daemon would
 * inherit SQLite's in-process lock bookkeeping of the daemon's own
 * connections (the HTTP server's), which SQLite forbids and which shows
 * as endless SQLITE_PROTOCOL errors.  Its fds: the connection, a memfd
 * holding the request's frame, the shared memfd, the target's pidfd
 * (--pidfd), then the --nfds N fds the request carried.
 *
 * The worker keeps the daemon's credentials: it writes the results
 * database.  It traces from a child process of its own that takes the
 * client's (trace_child.h).
 */
enum { WORKER_FD_CONN = 3, WORKER_FD_REQUEST = 4, WORKER_FD_SHARED = 5, WORKER_FD_PIDFD = 6,
       WORKER_FD_REQ_FDS = 7 };
int cmd_worker(int argc, char **argv);

#endif /* MICAD_SERVE_H */
