/*
 * Internals shared by the HTTP server's files: the server and request
 * structures, the JSON/text output buffer, the read-only database pool
 * and the handlers of each area (API, MGSim view, /metrics, static
 * files).  Not for use outside daemon/http/ and its tests.
 */
#ifndef MICAD_HTTP_INT_H
#define MICAD_HTTP_INT_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <microhttpd.h>
#include <sqlite3.h>

#include "http/http.h"
#include "mgsim/mgsim.h"
#include "util.h"

#define HTTP_TOKEN_HEX 64		/* 32 random bytes */
#define HTTP_MAX_SEGS 12
/* Read-only connections kept open between requests (more are opened when
 * more requests run at once, and closed after). */
#define HTTP_DB_POOL 16

/* ---- output buffer with JSON helpers (http_json.c) ---- */

struct jbuf {
	char *p;
	size_t len, cap;
	int depth;
	bool after_key;
	bool first[32];		/* per nesting level: nothing written yet */
};

void jb_init(struct jbuf *b);
void jb_free(struct jbuf *b);
/* Take the buffer (malloc'd, NUL-terminated); b is reset. */
char *jb_take(struct jbuf *b, size_t *len);
void jb_raw(struct jbuf *b, const char *s, size_t n);
void jb_puts(struct jbuf *b, const char *s);
/* A ready-made JSON value (e.g. a document built in another buffer). */
void jb_rawval(struct jbuf *b, const char *s, size_t n);
void jb_printf(struct jbuf *b, const char *fmt, ...) ATTR_PRINTF(2, 3);

/* JSON structure: commas are inserted automatically. */
void jb_obj(struct jbuf *b);
void jb_obj_end(struct jbuf *b);
void jb_arr(struct jbuf *b);
void jb_arr_end(struct jbuf *b);
void jb_key(struct jbuf *b, const char *key);
void jb_str(struct jbuf *b, const char *s);	/* NULL: null */
void jb_strn(struct jbuf *b, const char *s, size_t n);
void jb_i64(struct jbuf *b, int64_t v);
void jb_u64(struct jbuf *b, uint64_t v);
void jb_double(struct jbuf *b, double v);	/* NaN, inf: null */
void jb_bool(struct jbuf *b, bool v);
void jb_null(struct jbuf *b);
/* The value of column i of a row: integer, real, text or null. */
void jb_column(struct jbuf *b, sqlite3_stmt *s, int i);

/* Length of the valid UTF-8 sequence at s (at most n bytes, n > 0), 0 if
 * invalid: overlong forms, surrogates and code points past U+10FFFF are. */
size_t utf8_len(const unsigned char *s, size_t n);

/* Shortest "%g" form of 15 to 17 digits that reads back as the same
 * double (C locale); size at least 32. */
void fmt_double(char *out, size_t size, double v);
/* v in decimal into out (at least 21 bytes), NUL-terminated; the length. */
size_t fmt_i64(char *out, int64_t v);

/* ---- pieces of finished sessions' series (http_pieces.c) ---- */

#define HTTP_PIECE 256		/* consecutive interval indexes in a piece */

/* A point of a series: interval index and value as SQLite typed it
 * (SQLITE_INTEGER, SQLITE_FLOAT or SQLITE_NULL). */
struct http_point {
	int64_t idx;
	int type;
	union {
		int64_t i;
		double d;
	} v;
};

/* What a piece holds: a metric of a thread of a session, over interval
 * indexes piece * HTTP_PIECE .. + HTTP_PIECE - 1, while the thread has
 * that many intervals and that latest interval (thread_total). */
struct http_piece_key {
	int64_t session, tid, intervals, last_id, piece;
	const char *metric;
};

struct http_pieces;
struct http_pieces *http_pieces_new(void);
void http_pieces_free(struct http_pieces *ps);
/* The kept piece of k copied to out (HTTP_PIECE points at most): its
 * number of points, or -1 when none is kept. */
int http_piece_get(struct http_pieces *ps, const struct http_piece_key *k, struct http_point *out);
/* Keep n points as the piece of k (copied). */
void http_piece_put(struct http_pieces *ps, const struct http_piece_key *k, const struct http_point *p,
		    int n);

/* ---- the server ---- */

struct http_token {
	uid_t uid;
	char hex[HTTP_TOKEN_HEX + 1];
};

/*
 * A pooled read-only connection and its prepared statements, kept between
 * requests: preparing the API's statements (the metric pairs' is 20 UNION
 * arms) cost more than running them on one interval.  A statement is
 * lent to one request at a time (busy) and reset when given back.
 */
#define HTTP_STMT_CACHE 64
struct http_dbconn {
	sqlite3 *db;
	struct {
		char *sql;
		sqlite3_stmt *st;
		bool busy;
	} stmt[HTTP_STMT_CACHE];
	int n_stmt;
	/* http_keep()'s text, made from the snapshot of data_version */
	struct {
		char *key, *text;
		size_t len;
		int64_t data_version;
	} kept;
};

struct http_server {
	struct MHD_Daemon *d[2];	/* IPv4 and IPv6 loopback by default */
	unsigned port;
	char cookie_name[24];		/* micad_token_PORT */
	uint64_t nonce;			/* random per start: in every API ETag */
	char *host_for_url;		/* "127.0.0.1" or "[::1]" or the address */
	char **allowed_hosts;		/* lower case, without port */
	size_t n_allowed_hosts;
	char *db_path;
	char *web_root;			/* realpath, or NULL */
	bool (*live)(void *arg, int64_t session, struct http_live *out);
	void *live_arg;

	pthread_mutex_t lock;		/* tokens, monitoring counts, pool */
	struct http_token **tokens;	/* each its own block: what
					 * http_token_for_uid returned stays valid */
	size_t n_tokens;

	/* MGSim monitoring variables (§5.1), per session, since start. */
	struct http_sample_ops {
		int64_t session;
		struct mgsim_monitor mon;
	} *sample_ops;
	size_t n_sample_ops;

	struct http_dbconn *pool[HTTP_DB_POOL];
	size_t n_pool;

	/* Every request's database work runs under a budget (http_db). */
	unsigned budget_ms;
	size_t max_body;
	unsigned in_flight;		/* requests being answered (lock) */
	unsigned long long stopped[3];	/* interrupted: time, size, client gone */
	char *plan_log;			/* EXPLAIN QUERY PLAN of every query, or NULL */
	struct http_pieces *pieces;	/* kept pieces of finished sessions' series */
};

/* Why a request's queries were interrupted (http_req.cancel). */
enum http_cancel { CANCEL_NONE, CANCEL_TIME, CANCEL_SIZE, CANCEL_GONE };

/* One request: created by the URI callback, freed when it completes. */
struct http_req {
	struct http_server *srv;
	struct MHD_Connection *conn;
	char *raw_uri;
	const char *method;
	const char *host;		/* the checked Host header */
	bool head;
	bool answered;			/* a response is queued */
	bool authed;
	uid_t uid;
	char *path;			/* decoded path, '/'-separated, no query */
	char *segs[HTTP_MAX_SEGS];	/* decoded segments (point into segbuf) */
	int nseg;
	char *segbuf;

	unsigned status;
	struct jbuf body;
	const char *content_type;
	char *extra_header[6][2];	/* copies, freed with the request */
	int n_extra;
	sqlite3 *db;			/* dbc->db once asked for */
	struct http_dbconn *dbc;

	double started, deadline;	/* CLOCK_MONOTONIC seconds */
	double next_poll;		/* when to look at the socket again */
	int fd;				/* the connection's socket */
	enum http_cancel cancel;
	bool counted;			/* in srv->in_flight */
	bool cacheable;			/* an API answer with an ETag (finished session) */
};

/* Query argument (decoded) or NULL. */
const char *http_arg(struct http_req *r, const char *name);
/* Unsigned argument: absent -> def; bad or > max: 400 and -1. */
int http_arg_u64(struct http_req *r, const char *name, uint64_t def, uint64_t max,
		 uint64_t *out);
/* Signed integer argument (ids, tids). Absent: *present = false. */
int http_arg_i64(struct http_req *r, const char *name, int64_t *out, bool *present);

/* A JSON error body {"error":{"status":N,"message":"..."}}; returns 0. */
int http_error(struct http_req *r, unsigned status, const char *fmt, ...) ATTR_PRINTF(3, 4);
void http_add_header(struct http_req *r, const char *name, const char *value);

/* The read-only database of the request (pooled); NULL after a 503. */
sqlite3 *http_db(struct http_req *r);
/* Prepare, or 500 and NULL (NULL too once the request was interrupted). */
sqlite3_stmt *http_prepare(struct http_req *r, const char *sql);

/* Give back a statement of http_prepare (or finalize any other): use
 * instead of sqlite3_finalize in the handlers. */
void http_finalize(sqlite3_stmt *st);

/* The same without an error answer: NULL when the database lacks what sql
 * reads (an optional table of an older schema). */
sqlite3_stmt *http_prepare_quiet(struct http_req *r, const char *sql);

/*
 * Text made from the database that a later request may reuse instead of
 * making it again (what /metrics renders of the latest intervals): kept
 * on the request's pooled connection under a key that names what it was
 * made of.  http_kept() gives it back (len bytes) only while nothing was
 * committed since, else NULL; http_keep() replaces it (not when the
 * request was interrupted, nor when it is larger than HTTP_KEEP_MAX).
 */
#define HTTP_KEEP_MAX (256u << 10)
const char *http_kept(struct http_req *r, const char *key, size_t *len);
void http_keep(struct http_req *r, const char *key, const char *text, size_t len);

/* Requests being answered and requests interrupted (for /metrics). */
void http_stats(struct http_server *s, unsigned *in_flight, unsigned long long stopped[3]);

/* Session visible to the request's uid?  1: yes, 0: 404 sent, -1: error
 * sent.  On 1, *running tells whether its end_reason is 'running'. */
int http_session_visible(struct http_req *r, int64_t session, bool *running);

/* MGSim monitoring variables: count one read of counter index, or of all
 * 21 (a snapshot) when index is MGSIM_NUM_COUNTERS. */
void http_count_sample(struct http_server *s, int64_t session, unsigned index);
void http_sample_ops(struct http_server *s, int64_t session, uint64_t *cycle, uint64_t *other);

/* Add the common headers (CSP, nosniff, Cache-Control, content type,
 * r's extra headers), queue resp with r->status and destroy it. */
enum MHD_Result http_queue(struct http_req *r, struct MHD_Response *resp, bool no_store);
/* Queue body (malloc'd, taken), gzipped when the client accepts it and it
 * is text of 1 KiB or more. */
enum MHD_Result http_send_buffer(struct http_req *r, char *body, size_t len, bool no_store);
/* The request target without any token parameter (malloc'd). */
char *http_uri_without_token(const char *raw);
/* If-None-Match names etag (weak comparison): answer 304. */
bool http_not_modified(struct http_req *r, const char *etag);

/* (metric, value) of interval ?1, all or only metric ?2 (http_api.c). */
extern const char http_metric_pairs_sql[];

/* ---- handlers ---- */
int http_api(struct http_req *r);		/* /api/... */
int http_api_mgsim(struct http_req *r, int64_t session, int seg);	/* .../mgsim... */
int http_metrics(struct http_req *r);		/* /metrics */
/* Static file: queues the response itself; returns MHD_YES/MHD_NO, or
 * -1 when it set an error in r to be sent by the caller. */
int http_static(struct http_req *r, enum MHD_Result *ret);

#endif /* MICAD_HTTP_INT_H */
