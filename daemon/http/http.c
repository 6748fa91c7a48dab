/*
 * micad's HTTP server: libmicrohttpd daemons on loopback (IPv4 and IPv6
 * by default), the checks every request passes before any handler runs
 * (one exact Host header against DNS rebinding, at most MAX_PARAMS query
 * parameters, GET/HEAD only, path traversal in raw or percent-encoded
 * form, the per-uid access token as Bearer header, ?token= or a cookie
 * named after the port), the token-for-cookie exchange of HTML pages
 * opened by the user, the read-only database pool with every request's
 * time budget and answer size limit (SQLite's progress handler, which also
 * stops the queries of a client that went away), gzip, ETags and 304s,
 * and the response headers (CSP, nosniff, no-store for the API).  Each
 * connection has a thread of its own.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "http/http_int.h"
#include "mgsim/mgsim.h"
#include "store/store.h"

_Static_assert(HTTP_MGSIM_COUNTERS == MGSIM_NUM_COUNTERS, "http.h and mgsim.h disagree");

#define MEMORY_LIMIT (128 * 1024)	/* per connection: request line + headers */
#define MAX_PARAMS 400			/* query parameters; more: 414 */
#define DEFAULT_BUDGET_MS 10000		/* a request's database time */
#define DEFAULT_MAX_BODY (64u << 20)	/* bytes of one answer */
#define POLL_EVERY 0.05			/* s between looks at a busy request's socket */

/* ---- small helpers used by the handlers ---- */

/* Drop the headers http_add_header() gave the answer so far. */
static void
clear_headers(struct http_req *r)
{
	for (int i = 0; i < r->n_extra; i++) {
		free(r->extra_header[i][0]);
		free(r->extra_header[i][1]);
	}
	r->n_extra = 0;
}

void
http_add_header(struct http_req *r, const char *name, const char *value)
{
	if (r->n_extra < (int)(sizeof(r->extra_header) / sizeof(r->extra_header[0]))) {
		r->extra_header[r->n_extra][0] = xstrdup(name);
		r->extra_header[r->n_extra][1] = xstrdup(value);
		r->n_extra++;
	}
}

int
http_error(struct http_req *r, unsigned status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	jb_free(&r->body);
	r->status = status;
	r->content_type = "application/json";
	jb_obj(&r->body);
	jb_key(&r->body, "error");
	jb_obj(&r->body);
	jb_key(&r->body, "status");
	jb_u64(&r->body, status);
	jb_key(&r->body, "message");
	jb_str(&r->body, msg);
	jb_obj_end(&r->body);
	jb_obj_end(&r->body);
	jb_raw(&r->body, "\n", 1);
	return 0;
}

const char *
http_arg(struct http_req *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

int
http_arg_u64(struct http_req *r, const char *name, uint64_t def, uint64_t max, uint64_t *out)
{
	const char *v = http_arg(r, name);
	unsigned long long x;

	if (!v) {
		*out = def;
		return 0;
	}
	if (parse_u64(v, &x) < 0 || x > max) {
		http_error(r, 400, "parameter %s: want an integer from 0 to %llu", name,
			   (unsigned long long)max);
		return -1;
	}
	*out = x;
	return 0;
}

int
http_arg_i64(struct http_req *r, const char *name, int64_t *out, bool *present)
{
	const char *v = http_arg(r, name);
	unsigned long long x;
	bool neg;

	*present = v != NULL;
	if (!v)
		return 0;
	neg = v[0] == '-';
	if (parse_u64(v + neg, &x) < 0 || x > (unsigned long long)INT64_MAX) {
		http_error(r, 400, "parameter %s: want an integer", name);
		return -1;
	}
	*out = neg ? -(int64_t)x : (int64_t)x;
	return 0;
}

/* ---- read-only database pool ---- */

static double
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * SQLite calls this every few thousand virtual-machine steps of a query of
 * the request: a non-zero return interrupts the query (SQLITE_INTERRUPT).
 * It stops a request whose queries ran past its budget, whose answer grew
 * past the size limit, or whose client went away (a peer that closed or
 * shut down its side: nobody will read the answer).  process() then sends
 * the 503 or 413 that says which, or drops the connection.
 */
static int
progress(void *arg)
{
	struct http_req *r = arg;
	double now;

	if (r->cancel)
		return 1;
	if (r->body.len > r->srv->max_body) {
		r->cancel = CANCEL_SIZE;
		return 1;
	}
	now = mono_now();
	if (now > r->deadline) {
		r->cancel = CANCEL_TIME;
		return 1;
	}
	if (now >= r->next_poll && r->fd >= 0) {
		struct pollfd p = { .fd = r->fd, .events = POLLRDHUP };

		r->next_poll = now + POLL_EVERY;
		if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
			r->cancel = CANCEL_GONE;
			return 1;
		}
	}
	return 0;
}

/* The request being answered on this thread (http_finalize's). */
static __thread struct http_req *cur_req;

static void
dbconn_close(struct http_dbconn *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n_stmt; i++) {
		sqlite3_finalize(c->stmt[i].st);
		free(c->stmt[i].sql);
	}
	sqlite3_close(c->db);
	free(c->kept.key);
	free(c->kept.text);
	free(c);
}

sqlite3 *
http_db(struct http_req *r)
{
	struct http_server *s = r->srv;
	struct http_dbconn *c = NULL;
	sqlite3 *db = NULL;
	int rc;

	if (r->db)
		return r->db;
	pthread_mutex_lock(&s->lock);
	if (s->n_pool)
		c = s->pool[--s->n_pool];
	pthread_mutex_unlock(&s->lock);
	if (!c) {
		rc = sqlite3_open_v2(s->db_path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
		if (rc != SQLITE_OK) {
			http_error(r, 503, "cannot open the results database %s read-only: %s "
				   "(no session recorded yet?)", s->db_path,
				   db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
			sqlite3_close(db);
			return NULL;
		}
		sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
		sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL);
		/* the estimates' views need sqrt() */
		store_math_functions(db);
		c = xcalloc(1, sizeof(*c));
		c->db = db;
	}
	sqlite3_progress_handler(c->db, 1000, progress, r);
	/* One read transaction for all of the request's queries: one
	 * snapshot, so the answer is consistent even while the writer
	 * writes, and the file's locks taken once instead of per query. */
	sqlite3_exec(c->db, "BEGIN", NULL, NULL, NULL);
	r->dbc = c;
	r->db = c->db;
	return c->db;
}

static void
db_release(struct http_server *s, struct http_dbconn *c)
{
	if (!c)
		return;
	sqlite3_progress_handler(c->db, 0, NULL, NULL);
	/* Whatever a handler left running ends its read transaction here. */
	for (int i = 0; i < c->n_stmt; i++) {
		sqlite3_reset(c->stmt[i].st);
		sqlite3_clear_bindings(c->stmt[i].st);
		c->stmt[i].busy = false;
	}
	if (!sqlite3_get_autocommit(c->db))
		sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
	pthread_mutex_lock(&s->lock);
	if (s->n_pool < HTTP_DB_POOL) {
		s->pool[s->n_pool++] = c;
		c = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	dbconn_close(c);
}

void
http_finalize(sqlite3_stmt *st)
{
	struct http_dbconn *c = cur_req ? cur_req->dbc : NULL;

	if (!st)
		return;
	for (int i = 0; c && i < c->n_stmt; i++) {
		if (c->stmt[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			c->stmt[i].busy = false;
			return;
		}
	}
	sqlite3_finalize(st);
}

/* A statement of sql on the request's connection: a cached one that is
 * free, else a new one, kept if there is room.  SQLITE_OK or SQLite's
 * error. */
static int
prepare_cached(struct http_req *r, const char *sql, sqlite3_stmt **out)
{
	struct http_dbconn *c = r->dbc;
	int rc;

	for (int i = 0; i < c->n_stmt; i++) {
		if (!c->stmt[i].busy && !strcmp(c->stmt[i].sql, sql)) {
			c->stmt[i].busy = true;
			*out = c->stmt[i].st;
			return SQLITE_OK;
		}
	}
	rc = sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL);
	if (rc != SQLITE_OK || c->n_stmt == HTTP_STMT_CACHE)
		return rc;
	c->stmt[c->n_stmt].sql = xstrdup(sql);
	c->stmt[c->n_stmt].st = *out;
	c->stmt[c->n_stmt].busy = true;
	c->n_stmt++;
	return SQLITE_OK;
}

/* The plan of sql, appended to the plan log (tests/http_scale.sh reads it):
 * "QUERY <sql>" then one "PLAN <detail>" line per step. */
static void
log_plan(struct http_req *r, const char *sql)
{
	sqlite3_stmt *q;
	char *eqp;
	FILE *f;

	eqp = xasprintf("EXPLAIN QUERY PLAN %s", sql);
	if (sqlite3_prepare_v2(r->db, eqp, -1, &q, NULL) != SQLITE_OK) {
		free(eqp);
		return;
	}
	free(eqp);
	pthread_mutex_lock(&r->srv->lock);
	f = fopen(r->srv->plan_log, "ae");
	if (f) {
		fprintf(f, "QUERY %s\n", sql);
		while (sqlite3_step(q) == SQLITE_ROW)
			fprintf(f, "PLAN %s\n", (const char *)sqlite3_column_text(q, 3));
		fclose(f);
	}
	pthread_mutex_unlock(&r->srv->lock);
	sqlite3_finalize(q);
}

sqlite3_stmt *
http_prepare_quiet(struct http_req *r, const char *sql)
{
	sqlite3 *db = r->cancel ? NULL : http_db(r);
	sqlite3_stmt *st = NULL;

	if (!db || prepare_cached(r, sql, &st) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	if (r->srv->plan_log)
		log_plan(r, sql);
	return st;
}

sqlite3_stmt *
http_prepare(struct http_req *r, const char *sql)
{
	sqlite3 *db = r->cancel ? NULL : http_db(r);
	sqlite3_stmt *st = NULL;

	if (!db)
		return NULL;
	if (prepare_cached(r, sql, &st) != SQLITE_OK) {
		/* Most likely a database written by another schema version. */
		http_error(r, 500, "database query failed: %s (schema version mismatch?)",
			   sqlite3_errmsg(db));
		return NULL;
	}
	if (r->srv->plan_log)
		log_plan(r, sql);
	return st;
}

/*
 * The version of the database the request's read transaction sees:
 * SQLite's PRAGMA data_version, which changes on this connection whenever
 * another connection (the writer) has committed.  -1 if it cannot be read.
 */
static int64_t
data_version(struct http_req *r)
{
	sqlite3_stmt *st = http_prepare_quiet(r, "PRAGMA data_version");
	int64_t v = -1;

	if (st && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	http_finalize(st);
	return v;
}

/*
 * One text per connection is enough for what is kept (one /metrics scrape
 * after another), and it needs no lock: a connection serves one request
 * at a time.  The version and the text come from the same read
 * transaction, so equal versions mean the same data.  With a plan log
 * (the tests of every query's plan) nothing is kept: every request runs
 * its queries.
 */
const char *
http_kept(struct http_req *r, const char *key, size_t *len)
{
	struct http_dbconn *c;
	int64_t v;

	if (r->srv->plan_log || r->cancel || !http_db(r))
		return NULL;
	c = r->dbc;
	if (!c->kept.text || strcmp(c->kept.key, key))
		return NULL;
	v = data_version(r);
	if (v < 0 || v != c->kept.data_version)
		return NULL;
	*len = c->kept.len;
	return c->kept.text;
}

void
http_keep(struct http_req *r, const char *key, const char *text, size_t len)
{
	struct http_dbconn *c = r->dbc;
	int64_t v;

	if (r->srv->plan_log || r->cancel || !c || len > HTTP_KEEP_MAX)
		return;
	v = data_version(r);
	if (v < 0)
		return;
	free(c->kept.key);
	free(c->kept.text);
	c->kept.key = xstrdup(key);
	c->kept.text = xmalloc(len + 1);
	memcpy(c->kept.text, text, len);
	c->kept.text[len] = '\0';
	c->kept.len = len;
	c->kept.data_version = v;
}

void
http_stats(struct http_server *s, unsigned *in_flight, unsigned long long stopped[3])
{
	pthread_mutex_lock(&s->lock);
	*in_flight = s->in_flight;
	memcpy(stopped, s->stopped, sizeof(s->stopped));
	pthread_mutex_unlock(&s->lock);
}

int
http_session_visible(struct http_req *r, int64_t session, bool *running)
{
	sqlite3_stmt *st = http_prepare(r, "SELECT uid, end_reason FROM session WHERE id = ?");
	int rc, ret = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, session);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (r->uid == 0 || sqlite3_column_int64(st, 0) == (int64_t)r->uid) {
			const unsigned char *er = sqlite3_column_text(st, 1);

			if (running)
				*running = er && !strcmp((const char *)er, "running");
			ret = 1;
		}
	} else if (rc != SQLITE_DONE) {
		http_error(r, 500, "database query failed: %s", sqlite3_errmsg(r->db));
		ret = -1;
	}
	http_finalize(st);
	/* Another user's session is as unknown as a missing one. */
	if (ret == 0)
		http_error(r, 404, "no session %lld", (long long)session);
	return ret;
}

/* ---- MGSim monitoring variables (§5.1 of mgsim-counters.md) ---- */

static struct http_sample_ops *
sample_ops_locked(struct http_server *s, int64_t session)
{
	for (size_t i = 0; i < s->n_sample_ops; i++)
		if (s->sample_ops[i].session == session)
			return &s->sample_ops[i];
	s->sample_ops = xreallocarray(s->sample_ops, s->n_sample_ops + 1, sizeof(*s->sample_ops));
	memset(&s->sample_ops[s->n_sample_ops], 0, sizeof(*s->sample_ops));
	s->sample_ops[s->n_sample_ops].session = session;
	return &s->sample_ops[s->n_sample_ops++];
}

void
http_count_sample(struct http_server *s, int64_t session, unsigned index)
{
	struct http_sample_ops *o;

	pthread_mutex_lock(&s->lock);
	o = sample_ops_locked(s, session);
	if (index >= MGSIM_NUM_COUNTERS)
		mgsim_monitor_read_all(&o->mon);
	else
		mgsim_monitor_read_one(&o->mon, index);
	pthread_mutex_unlock(&s->lock);
}

void
http_sample_ops(struct http_server *s, int64_t session, uint64_t *cycle, uint64_t *other)
{
	*cycle = *other = 0;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n_sample_ops; i++)
		if (s->sample_ops[i].session == session)
			mgsim_monitor_get(&s->sample_ops[i].mon, cycle, other);
	pthread_mutex_unlock(&s->lock);
}

/* ---- tokens ---- */

const char *
http_token_for_uid(struct http_server *s, uid_t uid)
{
	static const char hexd[] = "0123456789abcdef";
	unsigned char rnd[HTTP_TOKEN_HEX / 2];
	struct http_token *t;
	const char *ret = NULL;
	size_t got = 0;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n_tokens; i++)
		if (s->tokens[i]->uid == uid) {
			ret = s->tokens[i]->hex;
			goto out;
		}
	while (got < sizeof(rnd)) {
		ssize_t n = getrandom(rnd + got, sizeof(rnd) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror_msg("getrandom for an HTTP access token");
			goto out;
		}
		got += (size_t)n;
	}
	/* Another thread may hold a token this call returned before: the
	 * array moves, the tokens do not. */
	s->tokens = xreallocarray(s->tokens, s->n_tokens + 1, sizeof(*s->tokens));
	t = s->tokens[s->n_tokens++] = xmalloc(sizeof(*t));
	t->uid = uid;
	for (size_t i = 0; i < sizeof(rnd); i++) {
		t->hex[2 * i] = hexd[rnd[i] >> 4];
		t->hex[2 * i + 1] = hexd[rnd[i] & 15];
	}
	t->hex[HTTP_TOKEN_HEX] = '\0';
	ret = t->hex;
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/*
 * The token of uid kept in a file, so that it outlives the server: a
 * scraper's credentials (Prometheus's credentials_file) stay valid across
 * restarts.  An existing file is used only if it is a regular file of
 * ours that no one else may read or write (mode 0600 or less), not a
 * symbolic link, holding 64 hex digits (trailing white space allowed); a
 * missing one is created mode 0600 (O_EXCL: never through a link) with
 * the token the server made, 64 hex digits and no newline.
 */
int
http_token_file(struct http_server *s, uid_t uid, const char *path, char *err, size_t errsz)
{
	char buf[HTTP_TOKEN_HEX + 64];
	const char *tok;
	struct stat st;
	ssize_t n;
	size_t len;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0) {
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    (st.st_mode & 077)) {
			snprintf(err, errsz, "token file %s: not a regular file of uid %u with mode "
				 "0600 (remove it: micad makes a new one)", path, (unsigned)geteuid());
			close(fd);
			return -1;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		len = n > 0 ? (size_t)n : 0;
		while (len && strchr(" \t\r\n", buf[len - 1]))
			len--;
		buf[len] = '\0';
		if (len != HTTP_TOKEN_HEX || strspn(buf, "0123456789abcdef") != HTTP_TOKEN_HEX) {
			snprintf(err, errsz, "token file %s: want 64 lower-case hex digits (remove "
				 "it: micad makes a new one)", path);
			return -1;
		}
		pthread_mutex_lock(&s->lock);
		{
			size_t i;

			for (i = 0; i < s->n_tokens && s->tokens[i]->uid != uid; i++)
				;
			if (i == s->n_tokens) {
				/* each token its own block: a pointer handed out to
				 * a request stays valid (http_token_for_uid) */
				s->tokens = xreallocarray(s->tokens, s->n_tokens + 1,
							  sizeof(*s->tokens));
				s->tokens[s->n_tokens++] = xmalloc(sizeof(**s->tokens));
			}
			s->tokens[i]->uid = uid;
			memcpy(s->tokens[i]->hex, buf, HTTP_TOKEN_HEX + 1);
		}
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	if (errno != ENOENT) {
		snprintf(err, errsz, "token file %s: %s", path, strerror(errno));
		return -1;
	}
	tok = http_token_for_uid(s, uid);
	fd = tok ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
	if (fd < 0 || write(fd, tok, HTTP_TOKEN_HEX) != HTTP_TOKEN_HEX || fsync(fd) < 0) {
		snprintf(err, errsz, "cannot write the token file %s: %s", path,
			 tok ? strerror(errno) : "no token");
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	close(fd);
	return 0;
}

/* Constant-time comparison, so response times do not leak a prefix. */
static bool
token_eq(const char *a, const char *b)
{
	unsigned char diff = 0;

	if (strlen(a) != HTTP_TOKEN_HEX || strlen(b) != HTTP_TOKEN_HEX)
		return false;
	for (size_t i = 0; i < HTTP_TOKEN_HEX; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

static bool
token_uid(struct http_server *s, const char *tok, uid_t *uid)
{
	bool found = false;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n_tokens; i++)
		if (token_eq(tok, s->tokens[i]->hex)) {
			*uid = s->tokens[i]->uid;
			found = true;
		}
	pthread_mutex_unlock(&s->lock);
	return found;
}

/* The value of cookie name in a Cookie header, copied into buf, or NULL. */
static const char *
cookie_value(const char *cookies, const char *name, char *buf, size_t size)
{
	const char *p = cookies;
	size_t klen = strlen(name);

	while (p && *p) {
		while (*p == ' ' || *p == ';')
			p++;
		if (!strncmp(p, name, klen) && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, "; ");

			if (n >= size)
				return NULL;
			memcpy(buf, p + klen + 1, n);
			buf[n] = '\0';
			return buf;
		}
		p = strchr(p, ';');
	}
	return NULL;
}

unsigned
http_port(const struct http_server *s)
{
	return s->port;
}

char *
http_url(struct http_server *s, uid_t uid)
{
	const char *tok = http_token_for_uid(s, uid);

	if (!tok)
		return NULL;
	return xasprintf("http://%s:%u/?token=%s", s->host_for_url, s->port, tok);
}

/* ---- request checks ---- */

/*
 * The Host header is the browser's idea of whom it talks to; checking it
 * defeats DNS rebinding (a page of evil.example whose name then resolves to
 * 127.0.0.1 sends "Host: evil.example").  The value must be exactly an
 * allowed name, optionally followed by ':' and our port in decimal: no
 * trailing bytes after "[::1]", no other port, no trailing dot.
 */
static bool
host_allowed(const struct http_server *s, const char *host)
{
	char port[8];
	size_t n;

	if (host[0] == '[') {
		const char *e = strchr(host, ']');

		if (!e)
			return false;
		n = (size_t)(e - host) + 1;
	} else {
		n = strcspn(host, ":");
	}
	if (host[n]) {
		snprintf(port, sizeof(port), "%u", s->port);
		if (host[n] != ':' || strcmp(host + n + 1, port))
			return false;
	}
	for (size_t i = 0; i < s->n_allowed_hosts; i++)
		if (strlen(s->allowed_hosts[i]) == n && !strncasecmp(host, s->allowed_hosts[i], n))
			return true;
	return false;
}

static enum MHD_Result
count_host(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	(void)kind;
	(void)value;
	if (!strcasecmp(key, MHD_HTTP_HEADER_HOST))
		++*(int *)cls;
	return MHD_YES;
}

/* The request's one Host header, or NULL with an error set in r. */
static const char *
request_host(struct http_req *r)
{
	const char *host = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_HOST);
	int n = 0;

	/* Two Host headers may be read differently by a proxy and by us
	 * (the lookup above takes the first).  The count is the iterator's,
	 * the call's return value counts every header. */
	MHD_get_connection_values(r->conn, MHD_HEADER_KIND, count_host, &n);
	if (n > 1) {
		http_error(r, 400, "%d Host headers: send exactly one", n);
		return NULL;
	}
	if (!host || !host_allowed(r->srv, host)) {
		http_error(r, 421, "Host header not accepted: use http://127.0.0.1:%u/, "
			   "http://localhost:%u/, http://[::1]:%u/ or a host name configured in "
			   "micad (DNS rebinding protection)", r->srv->port, r->srv->port,
			   r->srv->port);
		return NULL;
	}
	return host;
}

/* Split and decode the path of the raw request target.  Refuses what
 * could name something outside the tree or be read two ways: "." and ".."
 * segments (raw or encoded), encoded '/' and '\\', NUL and other control
 * bytes, bad escapes.  Returns 0 or an HTTP status. */
static unsigned
parse_path(struct http_req *r)
{
	const char *u = r->raw_uri;
	size_t n = strcspn(u, "?#");
	char *out, *seg;

	if (n == 0 || u[0] != '/')
		return 400;
	out = r->segbuf = xmalloc(n + 1);
	r->path = xmalloc(n + 1);
	r->path[0] = '\0';
	r->nseg = 0;
	seg = out;
	for (size_t i = 1; i <= n; i++) {
		int c = i < n ? (unsigned char)u[i] : '/';

		if (c == '%') {
			int hi = i + 2 < n + 1 ? hex_digit(u[i + 1]) : -1;
			int lo = hi >= 0 ? hex_digit(u[i + 2]) : -1;

			if (hi < 0 || lo < 0)
				return 400;
			c = hi * 16 + lo;
			i += 2;
			if (c == '/' || c == '\\' || c < 0x20 || c == 0x7f)
				return 400;
		} else if (c == '\\' || (c < 0x20 && i < n) || c == 0x7f) {
			return 400;
		}
		if (c == '/' && (i == n || u[i] == '/')) {
			*out = '\0';
			if (!strcmp(seg, ".") || !strcmp(seg, ".."))
				return 400;
			if (*seg) {
				if (r->nseg == HTTP_MAX_SEGS)
					return 404;
				r->segs[r->nseg++] = seg;
				strcat(r->path, "/");
				strcat(r->path, seg);
			}
			seg = ++out;
			continue;
		}
		*out++ = (char)c;
	}
	return 0;
}

/* The request target without its token parameter, for the redirect after
 * the cookie is set (and the API's ETags). */
char *
http_uri_without_token(const char *raw)
{
	const char *q = strchr(raw, '?');
	struct jbuf b;
	bool first = true;

	jb_init(&b);
	if (!q) {
		jb_puts(&b, raw);
		return jb_take(&b, NULL);
	}
	jb_raw(&b, raw, (size_t)(q - raw));
	q++;
	while (*q && *q != '#') {
		size_t n = strcspn(q, "&#");

		if (n && strncmp(q, "token=", 6) && !(n == 5 && !strncmp(q, "token", 5))) {
			jb_raw(&b, first ? "?" : "&", 1);
			jb_raw(&b, q, n);
			first = false;
		}
		q += n;
		if (*q == '&')
			q++;
	}
	return jb_take(&b, NULL);
}

/* Who is asking: 1 with r->uid set, 0 when no token was presented, -1
 * when the presented one is wrong.  Order: Authorization header, ?token=,
 * cookie; the first one present decides. */
static int
authenticate(struct http_req *r)
{
	const char *auth = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_AUTHORIZATION);
	const char *tok = NULL;
	char buf[HTTP_TOKEN_HEX + 2];

	if (auth) {
		if (strncasecmp(auth, "Bearer ", 7))
			return -1;
		tok = auth + 7;
		while (*tok == ' ')
			tok++;
	}
	if (!tok)
		tok = http_arg(r, "token");
	if (!tok) {
		const char *c = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
							    MHD_HTTP_HEADER_COOKIE);

		tok = cookie_value(c, r->srv->cookie_name, buf, sizeof(buf));
	}
	if (!tok)
		return 0;
	if (!token_uid(r->srv, tok, &r->uid))
		return -1;
	r->authed = true;
	return 1;
}

/*
 * May a ?token= set the cookie?  Only when the browser says the request
 * comes from the user (an address typed or pasted, a bookmark: Sec-Fetch-
 * Site "none") or from our own pages ("same-origin").  Otherwise a link on
 * any site could sign the browser in with the link author's token (login
 * CSRF), and the user would take the author's sessions for theirs.  A
 * browser without Fetch Metadata must show an Origin, else a Referer, of
 * ours; a request with none of the three proves nothing and is refused.
 */
static bool
same_origin(struct http_req *r)
{
	const char *site = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Sec-Fetch-Site");
	const char *origin = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Origin");
	const char *referer = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
							  MHD_HTTP_HEADER_REFERER);
	size_t n = strlen(r->host);

	if (site)
		return !strcmp(site, "same-origin") || !strcmp(site, "none");
	if (origin)
		return !strncmp(origin, "http://", 7) && !strcasecmp(origin + 7, r->host);
	return referer && !strncmp(referer, "http://", 7) &&
	       !strncasecmp(referer + 7, r->host, n) &&
	       (referer[7 + n] == '/' || referer[7 + n] == '\0');
}

static bool
is_html_page(const struct http_req *r)
{
	size_t n;

	if (r->nseg == 0)
		return true;
	n = strlen(r->segs[r->nseg - 1]);
	return n > 5 && !strcmp(r->segs[r->nseg - 1] + n - 5, ".html");
}

/* ---- MHD callbacks ---- */

/*
 * Per-connection state: the raw request target of the request being read.
 * libmicrohttpd decodes the target in place before the access handler
 * sees it, so uri_cb() keeps a copy for parse_path().  The copy belongs to
 * the connection, which conn_cb() sets up and frees for every connection
 * libmicrohttpd accepts and closes; the request's own state is made by
 * handler().  Not in uri_cb(): libmicrohttpd does not call completed_cb()
 * for every request it logged but never handed to handler() (one whose
 * query parameters overflow its memory pool is dropped without it), and
 * 2000 such requests leaked 37 MB.
 */
struct http_conn {
	char *raw_uri;
};

static void
conn_cb(void *cls, struct MHD_Connection *conn, void **socket_context,
	enum MHD_ConnectionNotificationCode toe)
{
	struct http_conn *hc = *socket_context;

	(void)cls;
	(void)conn;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		*socket_context = xcalloc(1, sizeof(*hc));
		return;
	}
	if (hc) {
		free(hc->raw_uri);
		free(hc);
	}
	*socket_context = NULL;
}

static struct http_conn *
conn_state(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* Query parameters of a raw request target, as libmicrohttpd splits them:
 * at each '&', an empty piece counting except at the end. */
static size_t
count_params(const char *uri)
{
	const char *q = strchr(uri, '?');
	size_t n = 0;

	if (!q || !q[1])
		return 0;
	for (q++; *q; q++)
		n += *q == '&' && q[1];
	return n + 1;
}

static void *
uri_cb(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct http_conn *hc = conn_state(conn);

	(void)cls;
	if (!hc)
		return NULL;
	free(hc->raw_uri);
	hc->raw_uri = xstrdup(uri ? uri : "");
	/* libmicrohttpd (0.9.75 to 0.9.77) stores every query parameter in
	 * the connection's memory pool before handler() runs.  When they do
	 * not fit, it queues a 431 and then overwrites the connection's
	 * state: nothing is sent, and the connection waits for the idle
	 * timeout.  MEMORY_LIMIT holds MAX_PARAMS and far more, which
	 * handler() refuses with a 414; a request with more than that is
	 * refused anyway, so do not let it hold a connection for 30 s. */
	if (count_params(hc->raw_uri) > MAX_PARAMS &&
	    MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, 1u) != MHD_YES)
		error_msg("http: cannot shorten the timeout of a request with too many "
			  "parameters");
	return NULL;
}

static void
completed_cb(void *cls, struct MHD_Connection *conn, void **con_cls,
	     enum MHD_RequestTerminationCode toe)
{
	struct http_req *r = *con_cls;

	(void)cls;
	(void)conn;
	(void)toe;
	if (!r)
		return;
	if (r->counted) {
		pthread_mutex_lock(&r->srv->lock);
		r->srv->in_flight--;
		pthread_mutex_unlock(&r->srv->lock);
	}
	db_release(r->srv, r->dbc);
	clear_headers(r);
	jb_free(&r->body);
	free(r->raw_uri);
	free(r->segbuf);
	free(r->path);
	free(r);
	*con_cls = NULL;
}

static void
logger(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* What libmicrohttpd says when process() drops the connection of a
	 * client that went away (counted in /metrics instead). */
	if (!strncmp(msg, "Application reported internal error", 35))
		return;
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	error_msg("http: %s", msg);
}

enum MHD_Result
http_queue(struct http_req *r, struct MHD_Response *resp, bool no_store)
{
	enum MHD_Result ret;

	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				r->content_type ? r->content_type : "application/json");
	MHD_add_response_header(resp, "Content-Security-Policy",
				"default-src 'self'; frame-ancestors 'none'");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
				no_store ? "no-store" : r->cacheable ? "private, no-cache" : "no-cache");
	for (int i = 0; i < r->n_extra; i++)
		MHD_add_response_header(resp, r->extra_header[i][0], r->extra_header[i][1]);
	ret = MHD_queue_response(r->conn, r->status ? r->status : 200, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * Does the client take gzip?  Accept-Encoding lists codings, each maybe
 * with ";q=VALUE"; gzip (or "*") with a q that is not zero says yes.
 */
static bool
accepts_gzip(struct http_req *r)
{
	const char *ae = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_ACCEPT_ENCODING);
	const char *p = ae;

	while (p && *p) {
		size_t n, tl;
		const char *q;

		p += strspn(p, " \t,");
		n = strcspn(p, ",");
		tl = strcspn(p, " \t;,");
		if ((tl == 4 && !strncasecmp(p, "gzip", 4)) || (tl == 1 && *p == '*')) {
			q = memchr(p, ';', n);
			if (!q)
				return true;
			q += strspn(q + 1, " \t") + 1;
			if (strncasecmp(q, "q=", 2))
				return true;
			/* q=0, q=0.0, q=0.000: refused */
			q += 2;
			if (*q != '0')
				return true;
			for (q++; *q == '.' || *q == '0'; q++)
				;
			if (q < p + n && *q >= '1' && *q <= '9')
				return true;
		}
		p += n;
	}
	return false;
}

/* Text worth compressing: JSON, CSV, the metrics and the UI's files. */
static bool
compressible(const char *type)
{
	return type && (!strncmp(type, "application/json", 16) || !strncmp(type, "text/", 5) ||
			!strncmp(type, "image/svg", 9));
}

/* body (len bytes) gzipped into a new buffer, or NULL when that would not
 * be shorter (or zlib fails). */
static char *
gzip_body(const char *body, size_t len, size_t *out_len)
{
	z_stream z;
	char *out;
	size_t cap;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	cap = deflateBound(&z, len);
	out = xmalloc(cap);
	z.next_in = (Bytef *)body;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)cap;
	if (len > UINT32_MAX || deflate(&z, Z_FINISH) != Z_STREAM_END || z.total_out >= len) {
		deflateEnd(&z);
		free(out);
		return NULL;
	}
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

enum MHD_Result
http_send_buffer(struct http_req *r, char *body, size_t len, bool no_store)
{
	struct MHD_Response *resp;
	bool text = compressible(r->content_type ? r->content_type : "application/json");

	/* Small answers are sent as they are: gzip's header and the CPU
	 * would not pay. */
	if (text && len >= 1024 && r->status != 304 && !r->head && accepts_gzip(r)) {
		size_t zlen;
		char *z = gzip_body(body, len, &zlen);

		if (z) {
			free(body);
			body = z;
			len = zlen;
			http_add_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
		}
	}
	if (text)
		http_add_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	resp = MHD_create_response_from_buffer_with_free_callback(len, body, free);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	return http_queue(r, resp, no_store);
}

static enum MHD_Result
send_response(struct http_req *r)
{
	size_t len;
	char *body;
	bool api = r->nseg > 0 && (!strcmp(r->segs[0], "api") || !strcmp(r->segs[0], "metrics"));

	body = jb_take(&r->body, &len);
	return http_send_buffer(r, body, len, (api && !r->cacheable) || r->status == 303);
}

/*
 * Does the request's If-None-Match name etag?  A list of entity tags or
 * "*", compared weakly (the W/ prefix ignored), as RFC 9110 wants for
 * If-None-Match.
 */
bool
http_not_modified(struct http_req *r, const char *etag)
{
	const char *inm = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_IF_NONE_MATCH);
	const char *mine = strncmp(etag, "W/", 2) ? etag : etag + 2;
	size_t ml = strlen(mine);

	while (inm && *inm) {
		size_t n;

		inm += strspn(inm, " \t,");
		if (*inm == '*')
			return true;
		if (!strncmp(inm, "W/", 2))
			inm += 2;
		n = strcspn(inm, ",");
		while (n && (inm[n - 1] == ' ' || inm[n - 1] == '\t'))
			n--;
		if (n == ml && !strncmp(inm, mine, ml))
			return true;
		inm += strcspn(inm, ",");
	}
	return false;
}

static enum MHD_Result
token_redirect(struct http_req *r)
{
	char *set = xasprintf("%s=%s; Path=/; HttpOnly; SameSite=Strict", r->srv->cookie_name,
			      http_token_for_uid(r->srv, r->uid));
	char *loc = http_uri_without_token(r->raw_uri);
	enum MHD_Result ret;

	r->status = 303;
	r->content_type = "text/plain; charset=utf-8";
	jb_puts(&r->body, "see the Location header\n");
	http_add_header(r, MHD_HTTP_HEADER_SET_COOKIE, set);
	http_add_header(r, MHD_HTTP_HEADER_LOCATION, loc);
	ret = send_response(r);
	free(set);
	free(loc);
	return ret;
}

static enum MHD_Result process(struct http_req *r);

static enum MHD_Result
answer(struct http_req *r)
{
	r->answered = true;
	return send_response(r);
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
	const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct http_req *r = *con_cls;
	struct http_conn *hc;
	unsigned status;
	int nparams;

	(void)url;
	(void)version;
	(void)upload_data;
	if (r) {
		/* Later calls: drop any body; answer at the last call (size
		 * 0), after the whole request was read, so the connection can
		 * be kept alive. */
		if (*upload_data_size || r->answered) {
			*upload_data_size = 0;
			return MHD_YES;
		}
		return process(r);
	}

	/* First call, headers only.  The request's state is made here:
	 * from now on libmicrohttpd calls completed_cb() for it whatever
	 * happens. */
	hc = conn_state(conn);
	if (!hc || !hc->raw_uri)
		return MHD_NO;	/* uri_cb() always runs first: cannot happen */
	r = xcalloc(1, sizeof(*r));
	r->srv = cls;
	r->conn = conn;
	r->method = method;
	r->raw_uri = hc->raw_uri;
	hc->raw_uri = NULL;
	jb_init(&r->body);
	*con_cls = r;

	/* Refuse at once what fails the checks (libmicrohttpd then closes
	 * the connection). */
	r->host = request_host(r);
	if (!r->host)
		return answer(r);
	nparams = MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, NULL, NULL);
	if (nparams > MAX_PARAMS) {
		http_error(r, 414, "too many query parameters (%d): the limit is %d", nparams,
			   MAX_PARAMS);
		http_add_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
		return answer(r);
	}
	r->head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && !r->head) {
		http_error(r, 405, "method %s not allowed: the server is read-only", method);
		http_add_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
		return answer(r);
	}
	status = parse_path(r);
	if (status) {
		http_error(r, status, "bad request path (\".\", \"..\", encoded '/', '\\\\' or "
			   "control bytes are refused)");
		return answer(r);
	}
	return MHD_YES;
}

/*
 * The answer of a request whose queries were interrupted (progress()):
 * whatever the handler made of the interrupted query is replaced by an
 * error that says what happened and what to ask for instead.
 */
static void
interrupted(struct http_req *r)
{
	struct http_server *s = r->srv;

	pthread_mutex_lock(&s->lock);
	s->stopped[r->cancel - 1]++;
	pthread_mutex_unlock(&s->lock);
	r->content_type = NULL;
	clear_headers(r);
	r->cacheable = false;
	if (r->cancel == CANCEL_TIME) {
		http_error(r, 503, "the request's database queries ran out of their time budget "
			   "(%.1f s) and were stopped: ask for less (tid, from/to, a smaller limit) "
			   "and page with offset", s->budget_ms / 1000.0);
		http_add_header(r, "Retry-After", "10");
	} else {
		http_error(r, 413, "the answer would exceed %zu bytes and was stopped: ask for less "
			   "(tid, from/to, a smaller limit) and page with offset", s->max_body);
	}
}

/* The request passed the first checks and was read whole: route it. */
static enum MHD_Result
process(struct http_req *r)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	int a;

	r->answered = true;
	r->started = mono_now();
	r->deadline = r->started + r->srv->budget_ms / 1000.0;
	r->next_poll = r->started + POLL_EVERY;
	r->fd = ci ? ci->connect_fd : -1;
	pthread_mutex_lock(&r->srv->lock);
	r->srv->in_flight++;
	r->counted = true;
	pthread_mutex_unlock(&r->srv->lock);
	cur_req = r;
	a = authenticate(r);
	if (r->nseg > 0 && (!strcmp(r->segs[0], "api") || !strcmp(r->segs[0], "metrics"))) {
		if (a <= 0) {
			http_error(r, 401, a < 0 ? "wrong access token" :
				   "access token required: run 'micactl ui' for the URL, or send "
				   "'Authorization: Bearer TOKEN'");
			http_add_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"micad\"");
			return send_response(r);
		}
		if (!strcmp(r->segs[0], "api"))
			http_api(r);
		else if (r->nseg == 1)
			http_metrics(r);
		else
			http_error(r, 404, "no such page");
		cur_req = NULL;
		if (r->cancel == CANCEL_NONE && r->body.len > r->srv->max_body)
			r->cancel = CANCEL_SIZE;
		if (r->cancel == CANCEL_GONE) {
			pthread_mutex_lock(&r->srv->lock);
			r->srv->stopped[CANCEL_GONE - 1]++;
			pthread_mutex_unlock(&r->srv->lock);
			return MHD_NO;	/* nobody is there to read an answer */
		}
		if (r->cancel)
			interrupted(r);
		return send_response(r);
	}

	cur_req = NULL;
	/* An HTML page reached with ?token=: trade it for a cookie and
	 * redirect, so the token leaves the address bar and history. */
	if (http_arg(r, "token") && is_html_page(r)) {
		if (!same_origin(r)) {
			http_error(r, 403, "a ?token= link from another site cannot sign you in: "
				   "paste the URL that 'micactl ui' prints into the address bar");
			return send_response(r);
		}
		if (a <= 0) {
			http_error(r, 401, "wrong access token: run 'micactl ui' for a fresh URL");
			return send_response(r);
		}
		return token_redirect(r);
	}
	{
		enum MHD_Result ret;

		if (http_static(r, &ret) == 0)
			return ret;
		return send_response(r);
	}
}

/* ---- start and stop ---- */

static bool
is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return false;
}

/* "ADDR:PORT", "[V6]:PORT", ":PORT" or "PORT" into sa (family AF_UNSPEC
 * when the address is left to the default).  -1 on junk. */
static int
parse_listen(const char *s, struct sockaddr_storage *sa, unsigned *port, char *addr,
	     size_t addrsz)
{
	const char *p;
	unsigned long long pn;
	size_t n;

	memset(sa, 0, sizeof(*sa));
	addr[0] = '\0';
	if (s[0] == '[') {
		p = strchr(s, ']');
		if (!p || p[1] != ':')
			return -1;
		n = (size_t)(p - s - 1);
		if (n >= addrsz)
			return -1;
		memcpy(addr, s + 1, n);
		addr[n] = '\0';
		p += 2;
	} else if ((p = strrchr(s, ':'))) {
		n = (size_t)(p - s);
		if (n >= addrsz)
			return -1;
		memcpy(addr, s, n);
		addr[n] = '\0';
		p++;
	} else {
		p = s;
	}
	if (parse_u64(p, &pn) < 0 || pn > 65535)
		return -1;
	*port = (unsigned)pn;
	if (!addr[0] || !strcmp(addr, "localhost")) {
		addr[0] = '\0';
		sa->ss_family = AF_UNSPEC;
		return 0;
	}
	if (inet_pton(AF_INET, addr, &((struct sockaddr_in *)sa)->sin_addr) == 1) {
		sa->ss_family = AF_INET;
		((struct sockaddr_in *)sa)->sin_port = htons((uint16_t)pn);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)sa)->sin6_addr) == 1) {
		sa->ss_family = AF_INET6;
		((struct sockaddr_in6 *)sa)->sin6_port = htons((uint16_t)pn);
		return 0;
	}
	return -1;
}

static struct MHD_Daemon *
start_one(struct http_server *s, const struct http_config *c, struct sockaddr_storage *sa)
{
	/* A thread per connection: a request that takes its time (up to the
	 * budget) holds its own connection only, never another client's. */
	unsigned flags = MHD_USE_AUTO | MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;

	if (c->external)
		return MHD_start_daemon(MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG, 0, NULL, NULL,
			handler, s,
			MHD_OPTION_EXTERNAL_LOGGER, logger, s,
			MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
			MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(c->timeout_s ? c->timeout_s : 30),
			MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MEMORY_LIMIT,
			MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
			MHD_OPTION_NOTIFY_CONNECTION, conn_cb, s,
			MHD_OPTION_URI_LOG_CALLBACK, uri_cb, s,
			MHD_OPTION_NOTIFY_COMPLETED, completed_cb, s,
			MHD_OPTION_END);
	if (sa->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	return MHD_start_daemon(flags, 0, NULL, NULL, handler, s,
		MHD_OPTION_EXTERNAL_LOGGER, logger, s,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)sa,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)(c->connection_limit ? c->connection_limit : 64),
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(c->timeout_s ? c->timeout_s : 30),
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MEMORY_LIMIT,
		/* Refuse what RFC 7230 forbids (a missing Host in HTTP/1.1,
		 * bad whitespace) instead of guessing. */
		MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
		MHD_OPTION_NOTIFY_CONNECTION, conn_cb, s,
		MHD_OPTION_URI_LOG_CALLBACK, uri_cb, s,
		MHD_OPTION_NOTIFY_COMPLETED, completed_cb, s,
		MHD_OPTION_END);
}

static void
allow_host(struct http_server *s, const char *name)
{
	char *h = xstrdup(name);

	for (char *p = h; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	s->allowed_hosts = xreallocarray(s->allowed_hosts, s->n_allowed_hosts + 1,
					 sizeof(*s->allowed_hosts));
	s->allowed_hosts[s->n_allowed_hosts++] = h;
}

struct http_server *
http_start(const struct http_config *c, char *err, size_t errsz)
{
	struct http_server *s;
	struct sockaddr_storage sa, sa6;
	char addr[INET6_ADDRSTRLEN + 8];
	unsigned port = HTTP_DEFAULT_PORT;
	bool dual = false;
	const union MHD_DaemonInfo *info;

	if (c->listen && parse_listen(c->listen, &sa, &port, addr, sizeof(addr)) < 0) {
		snprintf(err, errsz, "bad HTTP listen address '%s': want ADDR:PORT, [V6ADDR]:PORT "
			 "or :PORT with numeric addresses", c->listen);
		return NULL;
	}
	if (!c->listen)
		sa.ss_family = AF_UNSPEC;
	if (!c->db_path) {
		snprintf(err, errsz, "HTTP server: no results database path given");
		return NULL;
	}
	if (sa.ss_family == AF_UNSPEC) {
		/* The default: both loopbacks on one port. */
		struct sockaddr_in *in = (struct sockaddr_in *)&sa;

		dual = true;
		memset(&sa, 0, sizeof(sa));
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		snprintf(addr, sizeof(addr), "127.0.0.1");
	} else if (!is_loopback((struct sockaddr *)&sa)) {
		if (!c->allow_remote) {
			snprintf(err, errsz, "HTTP address %s is not loopback: the API shows traced "
				 "programs' data, so another address needs the explicit "
				 "allow-remote option", addr);
			return NULL;
		}
		warning_msg("HTTP server listens on non-loopback address %s: anyone who can "
			    "reach it and holds a token sees the sessions (no TLS)", addr);
	}

	s = xcalloc(1, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	/* A new server (another build, maybe another file at the path) never
	 * takes a client's cached answer for its own. */
	if (getrandom(&s->nonce, sizeof(s->nonce), 0) != sizeof(s->nonce))
		s->nonce = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	s->db_path = xstrdup(c->db_path);
	s->budget_ms = c->budget_ms ? c->budget_ms : DEFAULT_BUDGET_MS;
	s->max_body = c->max_response ? c->max_response : DEFAULT_MAX_BODY;
	s->plan_log = c->plan_log ? xstrdup(c->plan_log) : NULL;
	s->pieces = http_pieces_new();
	s->live = c->live;
	s->live_arg = c->live_arg;
	if (c->web_root) {
		s->web_root = realpath(c->web_root, NULL);
		if (!s->web_root)
			warning_msg("web UI directory %s: %s; serving the API only", c->web_root,
				    strerror(errno));
	}
	allow_host(s, "localhost");
	allow_host(s, "127.0.0.1");
	allow_host(s, "[::1]");
	if (sa.ss_family == AF_INET6) {
		char *b = xasprintf("[%s]", addr);

		allow_host(s, b);
		s->host_for_url = b;
	} else {
		allow_host(s, addr);
		s->host_for_url = xstrdup(addr);
	}
	for (const char *const *h = c->host_names; h && *h; h++)
		allow_host(s, *h);

	s->d[0] = start_one(s, c, &sa);
	if (!s->d[0]) {
		snprintf(err, errsz, "cannot start the HTTP server on %s%s%s:%u (address in use? "
			 "choose another with --http ADDR:PORT)", sa.ss_family == AF_INET6 ? "[" : "",
			 addr, sa.ss_family == AF_INET6 ? "]" : "", port);
		http_stop(s);
		return NULL;
	}
	info = c->external ? NULL : MHD_get_daemon_info(s->d[0], MHD_DAEMON_INFO_BIND_PORT);
	s->port = info && info->port ? info->port : port;
	/* Cookies ignore ports: two servers on one host share the browser's
	 * jar, so each names its token cookie after its port. */
	snprintf(s->cookie_name, sizeof(s->cookie_name), "micad_token_%u", s->port);
	if (dual && !c->external) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&sa6;

		memset(&sa6, 0, sizeof(sa6));
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)s->port);
		in6->sin6_addr = in6addr_loopback;
		s->d[1] = start_one(s, c, &sa6);
		if (!s->d[1])
			warning_msg("HTTP server: cannot also listen on [::1]:%u; IPv4 loopback only",
				    s->port);
	}
	return s;
}

int
http_add_connection(struct http_server *s, int fd)
{
	struct sockaddr_in peer;

	memset(&peer, 0, sizeof(peer));
	peer.sin_family = AF_INET;
	peer.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return MHD_add_connection(s->d[0], fd, (struct sockaddr *)&peer, sizeof(peer)) == MHD_YES
	       ? 0 : -1;
}

unsigned
http_run(struct http_server *s)
{
	const union MHD_DaemonInfo *info;

	MHD_run(s->d[0]);
	info = MHD_get_daemon_info(s->d[0], MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	return info ? info->num_connections : 0;
}

void
http_stop(struct http_server *s)
{
	if (!s)
		return;
	for (int i = 0; i < 2; i++)
		if (s->d[i])
			MHD_stop_daemon(s->d[i]);
	for (size_t i = 0; i < s->n_pool; i++)
		dbconn_close(s->pool[i]);
	http_pieces_free(s->pieces);
	for (size_t i = 0; i < s->n_allowed_hosts; i++)
		free(s->allowed_hosts[i]);
	free(s->allowed_hosts);
	for (size_t i = 0; i < s->n_tokens; i++)
		free(s->tokens[i]);
	free(s->tokens);
	free(s->sample_ops);
	free(s->host_for_url);
	free(s->db_path);
	free(s->plan_log);
	free(s->web_root);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

const char *
http_default_web_root(void)
{
	return access(MICAD_WEB_DIR "/index.html", R_OK) == 0 ? MICAD_WEB_DIR
							       : MICAD_SRC_WEB_DIR;
}
