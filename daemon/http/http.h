/*
 * micad's HTTP server (libmicrohttpd): the read-only JSON API under
 * /api/, Prometheus text at /metrics and the web UI's static files.
 * Loopback only unless allow_remote, Host header checked (DNS rebinding),
 * a random access token per uid that says who is asking (a user sees only
 * their own sessions, root sees all), GET and HEAD only.
 */
#ifndef MICAD_HTTP_H
#define MICAD_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HTTP_DEFAULT_PORT 8766
#define HTTP_MGSIM_COUNTERS 21

/*
 * What the server needs from a running session, filled by the daemon's
 * live() callback as one consistent copy (taken between two traced
 * instructions, e.g. under trace_mgsim.h's seqlock).
 */
struct http_live {
	int64_t session;
	char state[16];			/* "running", "stopping", ... */
	uint64_t instructions;		/* E so far, all threads */
	uint64_t intervals;		/* finished intervals so far */
	bool has_mgsim;			/* false: no MGSim model in this session */
	/* MGSim Model A counters at the snapshot (index = counter number).
	 * Counters 13-15 (host clock) are filled by the server from one clock
	 * reading when it answers; whatever is here is ignored. */
	uint64_t mgsim[HTTP_MGSIM_COUNTERS];
};

struct http_config {
	/* "ADDR:PORT", "[V6ADDR]:PORT" or ":PORT"; NULL: 127.0.0.1 and ::1 on
	 * HTTP_DEFAULT_PORT.  Port 0 picks a free port (see http_port). */
	const char *listen;
	bool allow_remote;		/* required for a non-loopback address */
	const char *const *host_names;	/* extra allowed Host names, NULL-terminated */
	const char *db_path;		/* the results database (opened read-only) */
	const char *web_root;		/* directory of web/ files; NULL: no UI */
	/* Live sessions (may be NULL): a consistent copy of session's live
	 * state, or false when it is not running here. */
	bool (*live)(void *arg, int64_t session, struct http_live *out);
	void *live_arg;
	/* Each connection is served by a thread of its own (so a slow request
	 * holds only its own connection), up to connection_limit at once. */
	unsigned connection_limit;	/* 0: 64 */
	unsigned timeout_s;		/* idle connection timeout; 0: 30 s */
	/* No socket and no thread of its own: connections are handed in with
	 * http_add_connection() and served by http_run() on the caller's
	 * thread (the fuzz harness drives the server without a network).
	 * listen then only names the port the Host header may carry. */
	bool external;
	/* Every request's database queries together may run this long; then
	 * they are interrupted and the answer is a 503 that says so.  They are
	 * interrupted too when the client goes away. */
	unsigned budget_ms;		/* 0: 10 s */
	size_t max_response;		/* bytes of one answer; more: 413.  0: 64 MiB */
	/* Tests: append each query's EXPLAIN QUERY PLAN to this file. */
	const char *plan_log;
};

struct http_server;

/* Start serving; NULL with the reason in err (address in use, bad listen
 * string, non-loopback address without allow_remote, ...). */
struct http_server *http_start(const struct http_config *c, char *err, size_t errsz);

/* The token of uid, created (getrandom) on first use; owned by s. */
const char *http_token_for_uid(struct http_server *s, uid_t uid);

/* uid's token from the file at path, or a new one written there (mode
 * 0600): a credential that stays the same across restarts.  -1 with the
 * reason in err. */
int http_token_file(struct http_server *s, uid_t uid, const char *path, char *err, size_t errsz);

/* "http://HOST:PORT/?token=TOKEN" for uid; malloc'd. */
char *http_url(struct http_server *s, uid_t uid);

/* The port actually bound (useful with port 0). */
unsigned http_port(const struct http_server *s);

void http_stop(struct http_server *s);

/* An external server (http_config.external): serve fd, one end of a
 * connected stream socket, as a client on 127.0.0.1.  0, or -1. */
int http_add_connection(struct http_server *s, int fd);
/* An external server: do what is ready now, without waiting.  Returns the
 * number of connections still open. */
unsigned http_run(struct http_server *s);

/* The web UI's files: the installed ones, else (a build tree) the
 * sources'. */
const char *http_default_web_root(void);

#endif /* MICAD_HTTP_H */
