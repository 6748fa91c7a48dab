/*
 * The JSON API under /api/: sessions (list, detail), threads, intervals
 * with each analysis' raw counts and the derived metrics of schema.sql's
 * views, the names of a session's metrics, one metric as a series per
 * thread for charts (the long `metric` view), one metric of a thread
 * downsampled into buckets (overview), and any of the conversion views as
 * JSON or CSV rows, a page at a time.  Every session-scoped route first
 * checks that the asking uid may see the session; a finished session's
 * answers carry an ETag.
 *
 * A sample-mode session's metrics are estimates: each value served (a
 * series point, an interval's, an overview bucket's, the session's) comes
 * with its 95% confidence interval and burst count (ci_low, ci_high,
 * n_bursts, estimable; null in step mode), computed here from the sums of
 * metric_sums exactly as schema.sql's metric_ci and session_metric do.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http_int.h"
#include "mica/ratio_estimate.h"
#include "http/http_profile.h"
#include "http/http_sched.h"

#define LIST_LIMIT_MAX 1000
#define ROWS_LIMIT_MAX 1000000
/* Rows of a view in one answer: by default, and at most. */
#define VIEW_LIMIT 10000
#define VIEW_LIMIT_MAX 100000
#define IDX_MAX ((uint64_t)INT64_MAX)

static double
ratio(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

static int
db_fail(struct http_req *r)
{
	return http_error(r, 500, "database query failed: %s", sqlite3_errmsg(r->db));
}

/* ---- sessions ---- */

/* Counts and instructions from thread_total (schema.sql), kept as the
 * intervals are stored: a list row costs the same for a session of ten
 * intervals as for one of a million. */
#define SESSION_COLUMNS \
	"s.id, s.mode, s.command, s.pid, s.uid, s.started_at, s.ended_at, s.exit_status, " \
	"s.end_reason, (SELECT count(*) FROM thread t WHERE t.session_id = s.id), " \
	"(SELECT coalesce(sum(tt.intervals), 0) FROM thread_total tt WHERE tt.session_id = s.id), " \
	"(SELECT coalesce(sum(tt.instructions), 0) FROM thread_total tt WHERE tt.session_id = s.id), " \
	"s.error"
#define SESSION_NCOLS 13

static void
live_json(struct http_req *r, int64_t id)
{
	struct http_live lv;

	if (!r->srv->live)
		return;
	memset(&lv, 0, sizeof(lv));
	if (!r->srv->live(r->srv->live_arg, id, &lv))
		return;
	lv.state[sizeof(lv.state) - 1] = '\0';
	jb_key(&r->body, "live");
	jb_obj(&r->body);
	jb_key(&r->body, "state");
	jb_str(&r->body, lv.state);
	jb_key(&r->body, "instructions");
	jb_u64(&r->body, lv.instructions);
	jb_key(&r->body, "intervals");
	jb_u64(&r->body, lv.intervals);
	jb_key(&r->body, "mgsim");
	jb_bool(&r->body, lv.has_mgsim);
	jb_obj_end(&r->body);
}

/* The fields of SESSION_COLUMNS, without the closing brace. */
static void
session_fields(struct http_req *r, sqlite3_stmt *st)
{
	static const char *const names[] = {
		"id", "mode", "command", "pid", "uid", "started_at", "ended_at", "exit_status",
		"end_reason", "threads", "intervals", "instructions", "error",
	};
	const unsigned char *er = sqlite3_column_text(st, 8);

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
		jb_key(&r->body, names[i]);
		jb_column(&r->body, st, i);
	}
	jb_key(&r->body, "running");
	jb_bool(&r->body, er && !strcmp((const char *)er, "running"));
	if (er && !strcmp((const char *)er, "running"))
		live_json(r, sqlite3_column_int64(st, 0));
}

static int
sessions_list(struct http_req *r)
{
	const char *state = http_arg(r, "state");
	const char *filter = "";
	uint64_t limit, offset;
	sqlite3_stmt *st;
	char *sql;
	int64_t total = 0, n = 0;
	int rc;

	if (http_arg_u64(r, "limit", 50, LIST_LIMIT_MAX, &limit) < 0 ||
	    http_arg_u64(r, "offset", 0, IDX_MAX, &offset) < 0)
		return 0;
	if (state && !strcmp(state, "running"))
		filter = " AND s.end_reason = 'running'";
	else if (state && !strcmp(state, "ended"))
		filter = " AND s.end_reason IS NOT 'running'";
	else if (state && strcmp(state, "all"))
		return http_error(r, 400, "parameter state: want running, ended or all");

	/* Spelled out per case: "(?1 = 0 OR s.uid = ?1)" keeps SQLite off
	 * the (uid, id) index. */
	sql = xasprintf("SELECT count(*) FROM session s WHERE %s%s",
			r->uid ? "s.uid = ?1" : "?1 = 0", filter);
	st = http_prepare(r, sql);
	free(sql);
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, (int64_t)r->uid);
	if (sqlite3_step(st) == SQLITE_ROW)
		total = sqlite3_column_int64(st, 0);
	http_finalize(st);

	sql = xasprintf("SELECT " SESSION_COLUMNS " FROM session s WHERE %s%s "
			"ORDER BY s.id DESC LIMIT ?2 OFFSET ?3", r->uid ? "s.uid = ?1" : "?1 = 0", filter);
	st = http_prepare(r, sql);
	free(sql);
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, (int64_t)r->uid);
	sqlite3_bind_int64(st, 2, (int64_t)limit);
	sqlite3_bind_int64(st, 3, (int64_t)offset);
	jb_obj(&r->body);
	jb_key(&r->body, "total");
	jb_i64(&r->body, total);
	jb_key(&r->body, "offset");
	jb_u64(&r->body, offset);
	jb_key(&r->body, "limit");
	jb_u64(&r->body, limit);
	jb_key(&r->body, "sessions");
	jb_arr(&r->body);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		jb_obj(&r->body);
		session_fields(r, st);
		jb_obj_end(&r->body);
		n++;
	}
	jb_arr_end(&r->body);
	jb_key(&r->body, "next_offset");
	if (limit && (int64_t)offset + n < total)	/* limit=0: no page follows */
		jb_i64(&r->body, (int64_t)offset + n);
	else
		jb_null(&r->body);
	jb_obj_end(&r->body);
	http_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(r);
	return 0;
}

/* Analyses present in a session, judged by its first interval. */
static void
analyses_json(struct http_req *r, int64_t session)
{
	static const char *const tables[][2] = {
		{ "ilp", "ilp" }, { "itypes", "itypes" }, { "ppm", "ppm_branches" },
		{ "reg", "reg" }, { "stride", "stride_total" },
		{ "memfootprint", "memfootprint" }, { "memstackdist", "memstackdist" },
	};
	sqlite3_stmt *st = http_prepare(r, "SELECT min(first_interval_id) FROM thread_total "
					"WHERE session_id = ?");
	int64_t first = -1;

	if (!st)
		return;
	sqlite3_bind_int64(st, 1, session);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		first = sqlite3_column_int64(st, 0);
	http_finalize(st);
	jb_key(&r->body, "analyses");
	jb_arr(&r->body);
	for (size_t i = 0; first >= 0 && i < sizeof(tables) / sizeof(tables[0]); i++) {
		char *sql = xasprintf("SELECT 1 FROM %s WHERE interval_id = ? LIMIT 1", tables[i][1]);

		st = http_prepare(r, sql);
		free(sql);
		if (!st)
			return;
		sqlite3_bind_int64(st, 1, first);
		if (sqlite3_step(st) == SQLITE_ROW)
			jb_str(&r->body, tables[i][0]);
		http_finalize(st);
	}
	/* The scheduling model (simulated cycles per interval). */
	if (first >= 0 && (st = http_prepare_quiet(r, "SELECT 1 FROM sched_interval "
						   "WHERE session_id = ? LIMIT 1"))) {
		sqlite3_bind_int64(st, 1, session);
		if (sqlite3_step(st) == SQLITE_ROW)
			jb_str(&r->body, "sched");
		http_finalize(st);
	}
	jb_arr_end(&r->body);
}

/*
 * A JSON text as a JSON value: walked with SQLite's json_tree (document
 * order) and written again through the jbuf helpers, so strings get the
 * same escaping as everything else; text that is not JSON stays a string.
 */
static void
json_text(struct http_req *r, const char *text)
{
	struct jbuf *b = &r->body;
	sqlite3_stmt *st;
	int64_t stack[32];
	bool is_obj[32];
	int depth = 0;

	if (!text) {
		jb_null(b);
		return;
	}
	st = http_prepare(r, "SELECT json_valid(?1), key, type, atom, id, parent "
			  "FROM json_tree(CASE WHEN json_valid(?1) THEN ?1 ELSE 'null' END)");
	if (!st) {
		jb_str(b, text);
		return;
	}
	sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 2);
		int64_t parent = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1
				 : sqlite3_column_int64(st, 5);

		if (!sqlite3_column_int(st, 0)) {
			jb_str(b, text);
			break;
		}
		while (depth > 0 && stack[depth - 1] != parent) {
			if (is_obj[--depth])
				jb_obj_end(b);
			else
				jb_arr_end(b);
		}
		if (depth > 0 && is_obj[depth - 1])
			jb_key(b, (const char *)sqlite3_column_text(st, 1));
		if (!strcmp(type, "object") || !strcmp(type, "array")) {
			if (depth == (int)(sizeof(stack) / sizeof(stack[0]))) {
				jb_null(b);
				continue;
			}
			is_obj[depth] = type[0] == 'o';
			stack[depth++] = sqlite3_column_int64(st, 4);
			if (type[0] == 'o')
				jb_obj(b);
			else
				jb_arr(b);
		} else if (!strcmp(type, "true") || !strcmp(type, "false")) {
			jb_bool(b, type[0] == 't');
		} else {
			jb_column(b, st, 3);
		}
	}
	while (depth > 0) {
		if (is_obj[--depth])
			jb_obj_end(b);
		else
			jb_arr_end(b);
	}
	http_finalize(st);
}

static int
session_detail(struct http_req *r, int64_t id)
{
	sqlite3_stmt *st = http_prepare(r, "SELECT " SESSION_COLUMNS ", s.config, s.settings, "
					"s.engine, s.sample_event, s.sample_note, s.weighting, "
					"s.incomplete "
					"FROM session s WHERE s.id = ?");
	static const char *const sampling[] = { "engine", "sample_event", "sample_note", "weighting" };

	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		http_finalize(st);
		return db_fail(r);
	}
	jb_obj(&r->body);
	session_fields(r, st);
	jb_key(&r->body, "config");
	jb_column(&r->body, st, SESSION_NCOLS);
	/* Effective settings: JSON written by micad itself, re-emitted value
	 * by value (escaped like every string here) as an object. */
	jb_key(&r->body, "settings");
	json_text(r, (const char *)sqlite3_column_text(st, SESSION_NCOLS + 1));
	/* How the instructions were seen: sample mode says which event
	 * sampled them and why (schema version 3). */
	for (int i = 0; i < 4; i++) {
		jb_key(&r->body, sampling[i]);
		jb_column(&r->body, st, SESSION_NCOLS + 2 + i);
	}
	/* Why results are missing (why it failed, "error", is with the
	 * session's fields). */
	jb_key(&r->body, "incomplete");
	jb_column(&r->body, st, SESSION_NCOLS + 6);
	http_finalize(st);

	st = http_prepare(r, "SELECT pid, parent_pid, exe FROM process WHERE session_id = ? "
			  "ORDER BY pid");
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	jb_key(&r->body, "processes");
	jb_arr(&r->body);
	while (sqlite3_step(st) == SQLITE_ROW) {
		jb_obj(&r->body);
		jb_key(&r->body, "pid");
		jb_column(&r->body, st, 0);
		jb_key(&r->body, "parent_pid");
		jb_column(&r->body, st, 1);
		jb_key(&r->body, "exe");
		jb_column(&r->body, st, 2);
		jb_obj_end(&r->body);
	}
	jb_arr_end(&r->body);
	http_finalize(st);

	st = http_prepare(r, "SELECT name FROM itypes_group WHERE session_id = ? ORDER BY grp");
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	jb_key(&r->body, "itypes_groups");
	jb_arr(&r->body);
	while (sqlite3_step(st) == SQLITE_ROW)
		jb_column(&r->body, st, 0);
	jb_arr_end(&r->body);
	http_finalize(st);
	analyses_json(r, id);
	jb_obj_end(&r->body);
	return 0;
}

static int
threads_list(struct http_req *r, int64_t id)
{
	sqlite3_stmt *st = http_prepare(r,
		"SELECT t.tid, t.pid, coalesce(tt.intervals, 0), coalesce(tt.instructions, 0), "
		"tt.first_idx, tt.last_idx FROM thread t LEFT JOIN thread_total tt "
		"ON tt.session_id = t.session_id AND tt.tid = t.tid "
		"WHERE t.session_id = ? ORDER BY t.tid");
	static const char *const names[] = {
		"tid", "pid", "intervals", "instructions", "first_interval", "last_interval",
	};

	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	jb_obj(&r->body);
	jb_key(&r->body, "session");
	jb_i64(&r->body, id);
	jb_key(&r->body, "threads");
	jb_arr(&r->body);
	while (sqlite3_step(st) == SQLITE_ROW) {
		jb_obj(&r->body);
		for (int i = 0; i < 6; i++) {
			jb_key(&r->body, names[i]);
			jb_column(&r->body, st, i);
		}
		jb_obj_end(&r->body);
	}
	jb_arr_end(&r->body);
	jb_obj_end(&r->body);
	http_finalize(st);
	return 0;
}

/* ---- sample mode's estimates ---- */

#define CI_LEVEL 0.95

/* Whether session id was sampled (engine 'sample'): its metrics are
 * estimates with confidence intervals. */
static bool
session_sampled(struct http_req *r, int64_t id)
{
	sqlite3_stmt *st = http_prepare(r, "SELECT engine = 'sample' FROM session WHERE id = ?1");
	bool s = false;

	if (!st)
		return false;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		s = sqlite3_column_int(st, 0) != 0;
	http_finalize(st);
	return s;
}

/* The ratio estimator's sums of some units (metric_sums' columns, or
 * theirs added: sums pool). */
struct sums {
	int64_t n;
	double sx, sy, sxx, sxy, syy;
	bool estimable;
};

/* Columns c .. c + 6 of st: n, sum_x, sum_y, sum_xx, sum_xy, sum_yy,
 * estimable; false when they are NULL (no row of metric_sums). */
static bool
sums_read(sqlite3_stmt *st, int c, struct sums *s)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return false;
	s->n = sqlite3_column_int64(st, c);
	s->sx = sqlite3_column_double(st, c + 1);
	s->sy = sqlite3_column_double(st, c + 2);
	s->sxx = sqlite3_column_double(st, c + 3);
	s->sxy = sqlite3_column_double(st, c + 4);
	s->syy = sqlite3_column_double(st, c + 5);
	s->estimable = sqlite3_column_int(st, c + 6) != 0;
	return true;
}

/* s added to to (which starts zeroed); estimable only if both are. */
static void
sums_add(struct sums *to, const struct sums *s)
{
	if (!to->n)
		to->estimable = true;
	to->n += s->n;
	to->sx += s->sx;
	to->sy += s->sy;
	to->sxx += s->sxx;
	to->sxy += s->sxy;
	to->syy += s->syy;
	to->estimable = to->estimable && s->estimable;
}

/* NAN where the views have NULL. */
struct estimate {
	double value, se, hw, lo, hi;
};

/*
 * As schema.sql's metric_ci: R = sum_y / sum_x; SE(R) = sqrt( sum (y_i -
 * R x_i)^2 / (n (n - 1)) ) / mean(x), the sum of squares from the sums
 * (never below 0), none with fewer than 2 units; the interval R -/+ hw, hw
 * = t(n - 1) SE (ratio_t975), none for a metric not estimable.  A
 * proportion (metric's scale, proportion_metric) never seen or always seen
 * gets the rule of three's SE and quantile 1.96, and its interval is
 * clamped to [0, scale].
 */
static void
estimate_of(const struct sums *s, const char *metric, struct estimate *e)
{
	double n = (double)s->n, scale = ratio_proportion_scale(metric);

	e->value = s->sx != 0 ? s->sy / s->sx : NAN;
	e->se = NAN;
	e->hw = NAN;
	if (s->n >= 2 && !isnan(e->value)) {
		double q = s->syy - 2 * e->value * s->sxy + e->value * e->value * s->sxx;

		if (scale > 0 && (s->sy == 0 || s->sy == scale * s->sx)) {
			e->se = scale * 3.0 / (RATIO_Z95 * n);
			e->hw = RATIO_Z95 * e->se;
		} else {
			e->se = sqrt((q > 0 ? q : 0) / (n * (n - 1))) / (s->sx / n);
			e->hw = ratio_t975((uint64_t)s->n - 1) * e->se;
		}
	}
	e->lo = s->estimable ? e->value - e->hw : NAN;
	e->hi = s->estimable ? e->value + e->hw : NAN;
	if (scale > 0 && !isnan(e->lo)) {
		e->lo = fmax(e->lo, 0);
		e->hi = fmin(e->hi, scale);
	}
}

/* A series' estimate arrays, point by point (ci_point). */
struct ci_cols {
	struct jbuf lo, hi, nb, est;
};

static void
ci_open(struct ci_cols *c)
{
	struct jbuf *all[] = { &c->lo, &c->hi, &c->nb, &c->est };

	for (int i = 0; i < 4; i++) {
		jb_init(all[i]);
		jb_arr(all[i]);
	}
}

/* A point: its interval's bursts (column b of st; NULL: no row of
 * sample_interval) and its metric's sums (columns c .. c + 6; NULL: none,
 * as for a footprint). */
static void
ci_point(struct ci_cols *cc, sqlite3_stmt *st, int b, int c, const char *metric)
{
	struct sums s;
	struct estimate e;

	if (st)
		jb_column(&cc->nb, st, b);
	else
		jb_null(&cc->nb);
	if (st && sums_read(st, c, &s)) {
		estimate_of(&s, metric, &e);
		jb_double(&cc->lo, e.lo);
		jb_double(&cc->hi, e.hi);
		jb_bool(&cc->est, s.estimable);
	} else {
		jb_null(&cc->lo);
		jb_null(&cc->hi);
		jb_null(&cc->est);
	}
}

/* The arrays as keys of the object being written (each key null in step
 * mode: sampled false), and freed; b NULL: only freed. */
static void
ci_put(struct jbuf *b, struct ci_cols *c, bool sampled)
{
	static const char *const keys[] = { "ci_low", "ci_high", "n_bursts", "estimable" };
	struct jbuf *all[] = { &c->lo, &c->hi, &c->nb, &c->est };

	for (int i = 0; i < 4; i++) {
		if (b) {
			jb_key(b, keys[i]);
			if (sampled) {
				jb_arr_end(all[i]);
				jb_rawval(b, all[i]->p, all[i]->len);
			} else {
				jb_null(b);
			}
		}
		jb_free(all[i]);
	}
}

/* One interval's bursts and one metric's sums, for the series read
 * interval by interval: ?1 session, ?2 tid, ?3 idx, ?4 metric. */
#define CI_LOOKUP_SQL \
	"SELECT (SELECT bursts FROM sample_interval WHERE session_id = ?1 AND tid = ?2 " \
	"AND idx = ?3), s.n, s.sum_x, s.sum_y, s.sum_xx, s.sum_xy, s.sum_yy, s.estimable " \
	"FROM (SELECT 1) LEFT JOIN metric_sums s ON s.session_id = ?1 AND s.tid = ?2 " \
	"AND s.idx = ?3 AND s.metric = ?4"

/* ---- intervals: raw counts and derived metrics per analysis ---- */

enum { A_ILP, A_ITYPES, A_PPM, A_PPMB, A_REG, A_STRIDE_T, A_STRIDE, A_FOOT, A_MSD, A_MSD_B, A_N };

static const char *const analysis_sql[A_N] = {
	[A_ILP] = "SELECT analysis, window, cycles FROM ilp WHERE interval_id = ?1 "
		  "ORDER BY analysis, window",
	[A_ITYPES] = "SELECT t.grp, g.name, t.count FROM itypes t LEFT JOIN itypes_group g "
		     "ON g.session_id = ?2 AND g.grp = t.grp WHERE t.interval_id = ?1 ORDER BY t.grp",
	[A_PPM] = "SELECT p.organization, p.history, m.misses FROM ppm m JOIN ppm_predictor p "
		  "ON p.id = m.predictor_id WHERE m.interval_id = ?1 ORDER BY m.predictor_id",
	[A_PPMB] = "SELECT branches, transitions, taken FROM ppm_branches WHERE interval_id = ?1",
	[A_REG] = "SELECT operands, values_, uses, reads, c1, c2, c4, c8, c16, c32, c64 FROM reg "
		  "WHERE interval_id = ?1",
	[A_STRIDE_T] = "SELECT reads, writes FROM stride_total WHERE interval_id = ?1",
	[A_STRIDE] = "SELECT kind, le, count FROM stride WHERE interval_id = ?1 ORDER BY "
		     "CASE kind WHEN 'local_read' THEN 0 WHEN 'global_read' THEN 1 "
		     "WHEN 'local_write' THEN 2 ELSE 3 END, le",
	[A_FOOT] = "SELECT data_blocks, data_pages, insn_blocks, insn_pages, block_size, page_size "
		   "FROM memfootprint WHERE interval_id = ?1",
	[A_MSD] = "SELECT refs, cold FROM memstackdist WHERE interval_id = ?1",
	[A_MSD_B] = "SELECT b.bucket, rb.lo, rb.hi, b.count FROM memstackdist_bucket b "
		    "JOIN reuse_bucket rb ON rb.bucket = b.bucket WHERE b.interval_id = ?1 "
		    "ORDER BY b.bucket",
};

static const char *const analysis_names[] = {
	"ilp", "itypes", "ppm", "reg", "stride", "memfootprint", "memstackdist",
};
#define N_ANALYSES (sizeof(analysis_names) / sizeof(analysis_names[0]))

/* Bit i: analysis_names[i] asked for (all by default). */
static int
parse_analyses(struct http_req *r, unsigned *mask)
{
	const char *a = http_arg(r, "analysis");

	*mask = (1u << N_ANALYSES) - 1;
	if (!a)
		return 0;
	*mask = 0;
	while (*a) {
		size_t n = strcspn(a, ",");
		size_t i;

		for (i = 0; i < N_ANALYSES; i++)
			if (strlen(analysis_names[i]) == n && !strncmp(a, analysis_names[i], n))
				break;
		if (i == N_ANALYSES) {
			http_error(r, 400, "parameter analysis: want a comma-separated list of ilp, "
				   "itypes, ppm, reg, stride, memfootprint, memstackdist");
			return -1;
		}
		*mask |= 1u << i;
		a += n;
		if (*a == ',')
			a++;
	}
	return 0;
}

static sqlite3_stmt *
run_a(sqlite3_stmt **s, int which, int64_t interval_id, int64_t session)
{
	sqlite3_stmt *st = s[which];

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, interval_id);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, session);
	return st;
}

static void
interval_analyses(struct http_req *r, sqlite3_stmt **s, unsigned mask, int64_t iid,
		  int64_t session, int64_t ins)
{
	struct jbuf *b = &r->body;
	sqlite3_stmt *st;
	bool any;

	if (mask & 1u << 0) {
		st = run_a(s, A_ILP, iid, session);
		any = false;
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t cycles = sqlite3_column_int64(st, 2);

			if (!any) {
				jb_key(b, "ilp");
				jb_arr(b);
				any = true;
			}
			jb_obj(b);
			jb_key(b, "analysis");
			jb_column(b, st, 0);
			jb_key(b, "window");
			jb_column(b, st, 1);
			jb_key(b, "cycles");
			jb_i64(b, cycles);
			jb_key(b, "ilp");
			jb_double(b, ratio((double)ins, (double)cycles));
			jb_obj_end(b);
		}
		if (any)
			jb_arr_end(b);
	}
	if (mask & 1u << 1) {
		st = run_a(s, A_ITYPES, iid, session);
		any = false;
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t count = sqlite3_column_int64(st, 2);

			if (!any) {
				jb_key(b, "itypes");
				jb_arr(b);
				any = true;
			}
			jb_obj(b);
			jb_key(b, "group");
			jb_column(b, st, 0);
			jb_key(b, "name");
			jb_column(b, st, 1);
			jb_key(b, "count");
			jb_i64(b, count);
			jb_key(b, "fraction");
			jb_double(b, ratio((double)count, (double)ins));
			jb_obj_end(b);
		}
		if (any)
			jb_arr_end(b);
	}
	if (mask & 1u << 2) {
		st = run_a(s, A_PPMB, iid, session);
		if (sqlite3_step(st) == SQLITE_ROW) {
			int64_t br = sqlite3_column_int64(st, 0);
			sqlite3_stmt *p;

			jb_key(b, "ppm");
			jb_obj(b);
			jb_key(b, "branches");
			jb_i64(b, br);
			jb_key(b, "transitions");
			jb_column(b, st, 1);
			jb_key(b, "taken");
			jb_column(b, st, 2);
			jb_key(b, "transition_rate");
			jb_double(b, ratio(sqlite3_column_double(st, 1), (double)br));
			jb_key(b, "taken_rate");
			jb_double(b, ratio(sqlite3_column_double(st, 2), (double)br));
			jb_key(b, "predictors");
			jb_arr(b);
			p = run_a(s, A_PPM, iid, session);
			while (sqlite3_step(p) == SQLITE_ROW) {
				double m = sqlite3_column_double(p, 2);

				jb_obj(b);
				jb_key(b, "organization");
				jb_column(b, p, 0);
				jb_key(b, "history");
				jb_column(b, p, 1);
				jb_key(b, "misses");
				jb_column(b, p, 2);
				jb_key(b, "rate");
				jb_double(b, ratio(m, (double)br));
				jb_key(b, "mpki");
				jb_double(b, ratio(1000.0 * m, (double)ins));
				jb_obj_end(b);
			}
			jb_arr_end(b);
			jb_obj_end(b);
		}
	}
	if (mask & 1u << 3) {
		st = run_a(s, A_REG, iid, session);
		if (sqlite3_step(st) == SQLITE_ROW) {
			static const char *const d[] = { "1", "2", "4", "8", "16", "32", "64" };
			double reads = sqlite3_column_double(st, 3);

			jb_key(b, "reg");
			jb_obj(b);
			jb_key(b, "operands");
			jb_column(b, st, 0);
			jb_key(b, "values");
			jb_column(b, st, 1);
			jb_key(b, "uses");
			jb_column(b, st, 2);
			jb_key(b, "reads");
			jb_column(b, st, 3);
			jb_key(b, "age_le");
			jb_obj(b);
			for (int i = 0; i < 7; i++) {
				jb_key(b, d[i]);
				jb_column(b, st, 4 + i);
			}
			jb_obj_end(b);
			jb_key(b, "avg_operands");
			jb_double(b, ratio(sqlite3_column_double(st, 0), (double)ins));
			jb_key(b, "avg_degree_of_use");
			jb_double(b, ratio(sqlite3_column_double(st, 2), sqlite3_column_double(st, 1)));
			jb_key(b, "dependency_distance_cdf");
			jb_obj(b);
			for (int i = 0; i < 7; i++) {
				jb_key(b, d[i]);
				jb_double(b, ratio(sqlite3_column_double(st, 4 + i), reads));
			}
			jb_obj_end(b);
			jb_obj_end(b);
		}
	}
	if (mask & 1u << 4) {
		st = run_a(s, A_STRIDE_T, iid, session);
		if (sqlite3_step(st) == SQLITE_ROW) {
			double rd = sqlite3_column_double(st, 0), wr = sqlite3_column_double(st, 1);
			char kind[32] = "";
			sqlite3_stmt *k;

			jb_key(b, "stride");
			jb_obj(b);
			jb_key(b, "reads");
			jb_column(b, st, 0);
			jb_key(b, "writes");
			jb_column(b, st, 1);
			jb_key(b, "kinds");
			jb_obj(b);
			k = run_a(s, A_STRIDE, iid, session);
			any = false;
			while (sqlite3_step(k) == SQLITE_ROW) {
				const char *kn = (const char *)sqlite3_column_text(k, 0);
				size_t kl = kn ? strlen(kn) : 0;
				double c = sqlite3_column_double(k, 2);

				if (!kn)
					continue;
				if (!any || strcmp(kind, kn)) {
					if (any)
						jb_arr_end(b);
					jb_key(b, kn);
					jb_arr(b);
					any = true;
				}
				snprintf(kind, sizeof(kind), "%s", kn);
				jb_obj(b);
				jb_key(b, "le");
				jb_column(b, k, 1);
				jb_key(b, "count");
				jb_column(b, k, 2);
				jb_key(b, "probability");
				jb_double(b, ratio(c, kl > 4 && !strcmp(kn + kl - 4, "read") ? rd : wr));
				jb_obj_end(b);
			}
			if (any)
				jb_arr_end(b);
			jb_obj_end(b);
			jb_obj_end(b);
		}
	}
	if (mask & 1u << 5) {
		st = run_a(s, A_FOOT, iid, session);
		if (sqlite3_step(st) == SQLITE_ROW) {
			static const char *const raw[] = {
				"data_blocks", "data_pages", "insn_blocks", "insn_pages",
				"block_size", "page_size",
			};
			static const char *const bytes[] = {
				"data_block_bytes", "data_page_bytes", "insn_block_bytes",
				"insn_page_bytes",
			};
			int bs = sqlite3_column_int(st, 4), ps = sqlite3_column_int(st, 5);

			jb_key(b, "memfootprint");
			jb_obj(b);
			for (int i = 0; i < 6; i++) {
				jb_key(b, raw[i]);
				jb_column(b, st, i);
			}
			for (int i = 0; i < 4; i++) {
				int sh = i % 2 ? ps : bs;

				jb_key(b, bytes[i]);
				if (sh >= 0 && sh < 63)
					jb_u64(b, (uint64_t)sqlite3_column_int64(st, i) << sh);
				else
					jb_null(b);
			}
			jb_obj_end(b);
		}
	}
	if (mask & 1u << 6) {
		st = run_a(s, A_MSD, iid, session);
		if (sqlite3_step(st) == SQLITE_ROW) {
			double refs = sqlite3_column_double(st, 0), cum = 0;
			sqlite3_stmt *k;

			jb_key(b, "memstackdist");
			jb_obj(b);
			jb_key(b, "refs");
			jb_column(b, st, 0);
			jb_key(b, "cold");
			jb_column(b, st, 1);
			jb_key(b, "cold_fraction");
			jb_double(b, ratio(sqlite3_column_double(st, 1), refs));
			jb_key(b, "buckets");
			jb_arr(b);
			k = run_a(s, A_MSD_B, iid, session);
			while (sqlite3_step(k) == SQLITE_ROW) {
				double c = sqlite3_column_double(k, 3);

				cum += c;
				jb_obj(b);
				jb_key(b, "bucket");
				jb_column(b, k, 0);
				jb_key(b, "lo");
				jb_column(b, k, 1);
				jb_key(b, "hi");
				jb_column(b, k, 2);
				jb_key(b, "count");
				jb_column(b, k, 3);
				jb_key(b, "fraction");
				jb_double(b, ratio(c, refs));
				jb_key(b, "cdf");
				jb_double(b, ratio(cum, refs));
				jb_obj_end(b);
			}
			jb_arr_end(b);
			jb_obj_end(b);
		}
	}
}

/* Common filters: tid, from, to (interval indexes, inclusive). */
struct range {
	int64_t tid;
	bool has_tid;
	uint64_t from, to;
};

static int
parse_range(struct http_req *r, struct range *g)
{
	if (http_arg_i64(r, "tid", &g->tid, &g->has_tid) < 0 ||
	    http_arg_u64(r, "from", 0, IDX_MAX, &g->from) < 0 ||
	    http_arg_u64(r, "to", IDX_MAX, IDX_MAX, &g->to) < 0)
		return -1;
	if (g->from > g->to) {
		http_error(r, 400, "parameters from/to: from is after to");
		return -1;
	}
	return 0;
}

/* Written out rather than "(?2 IS NULL OR tid = ?2)", which keeps SQLite
 * from using the (session_id, tid, idx) index. */
#define TID_COND(g) ((g)->has_tid ? "tid = ?2" : "?2 IS NULL")

static void
bind_range(sqlite3_stmt *st, int64_t session, const struct range *g)
{
	sqlite3_bind_int64(st, 1, session);
	if (g->has_tid)
		sqlite3_bind_int64(st, 2, g->tid);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_int64(st, 3, (int64_t)g->from);
	sqlite3_bind_int64(st, 4, (int64_t)g->to);
}

/*
 * A sampled interval's bursts (si: sample_interval's row) and the estimate
 * of each of its metrics that has sums (ms: metric_sums' rows, by name),
 * each null in step mode (si and ms NULL).
 */
static void
interval_estimates(struct http_req *r, sqlite3_stmt *si, sqlite3_stmt *ms, int64_t session,
		   int64_t tid, int64_t idx)
{
	static const char *const keys[] = { "n_bursts", "aborted_bursts", "warmup_ins" };
	struct jbuf *b = &r->body;
	bool row = false;

	if (si) {
		sqlite3_reset(si);
		sqlite3_bind_int64(si, 1, session);
		sqlite3_bind_int64(si, 2, tid);
		sqlite3_bind_int64(si, 3, idx);
		row = sqlite3_step(si) == SQLITE_ROW;
	}
	for (int k = 0; k < 3; k++) {
		jb_key(b, keys[k]);
		if (row)
			jb_column(b, si, k);
		else
			jb_null(b);
	}
	jb_key(b, "estimates");
	if (!ms) {
		jb_null(b);
		return;
	}
	sqlite3_reset(ms);
	sqlite3_bind_int64(ms, 1, session);
	sqlite3_bind_int64(ms, 2, tid);
	sqlite3_bind_int64(ms, 3, idx);
	jb_obj(b);
	while (sqlite3_step(ms) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(ms, 0);
		struct estimate e;
		struct sums s;

		if (!name || !sums_read(ms, 1, &s))
			continue;
		estimate_of(&s, name, &e);
		jb_key(b, name);
		jb_obj(b);
		jb_key(b, "value");
		jb_double(b, e.value);
		jb_key(b, "ci_low");
		jb_double(b, e.lo);
		jb_key(b, "ci_high");
		jb_double(b, e.hi);
		jb_key(b, "se");
		jb_double(b, e.se);
		jb_key(b, "n_bursts");
		jb_i64(b, s.n);
		jb_key(b, "estimable");
		jb_bool(b, s.estimable);
		jb_obj_end(b);
	}
	jb_obj_end(b);
}

static int
intervals_list(struct http_req *r, int64_t id)
{
	static const char *const cols[] = {
		"tid", "index", "full", "final", "ins", "ins_aligned", "total_ins",
		"total_ins_aligned", "started_at", "ended_at",
	};
	sqlite3_stmt *s[A_N] = { NULL }, *st, *si = NULL, *ms = NULL;
	struct range g;
	char *sql;
	uint64_t limit, offset;
	unsigned mask;
	int64_t n = 0;
	int rc;

	if (parse_range(r, &g) < 0 || parse_analyses(r, &mask) < 0 ||
	    http_arg_u64(r, "limit", 100, LIST_LIMIT_MAX, &limit) < 0 ||
	    http_arg_u64(r, "offset", 0, IDX_MAX, &offset) < 0)
		return 0;
	for (int i = 0; i < A_N; i++)
		if (!(s[i] = http_prepare(r, analysis_sql[i])))
			goto out;
	/* Sample mode: each interval's bursts and estimates, by key (the
	 * sums in their key's order: by name). */
	if (session_sampled(r, id) &&
	    (!(si = http_prepare(r, "SELECT bursts, aborted, warmup_ins FROM sample_interval "
				 "WHERE session_id = ?1 AND tid = ?2 AND idx = ?3")) ||
	     !(ms = http_prepare(r, "SELECT metric, n, sum_x, sum_y, sum_xx, sum_xy, sum_yy, "
				 "estimable FROM metric_sums WHERE session_id = ?1 AND tid = ?2 "
				 "AND idx = ?3 ORDER BY metric"))))
		goto out;
	sql = xasprintf("SELECT id, tid, idx, full, final, ins, ins_aligned, total_ins, "
			"total_ins_aligned, started_at, ended_at FROM interval "
			"WHERE session_id = ?1 AND %s AND idx BETWEEN ?3 AND ?4 "
			"ORDER BY tid, idx LIMIT ?5 OFFSET ?6", TID_COND(&g));
	st = http_prepare(r, sql);
	free(sql);
	if (!st)
		goto out;
	bind_range(st, id, &g);
	sqlite3_bind_int64(st, 5, (int64_t)limit + 1);	/* one more: is there a next page? */
	sqlite3_bind_int64(st, 6, (int64_t)offset);
	jb_obj(&r->body);
	jb_key(&r->body, "session");
	jb_i64(&r->body, id);
	jb_key(&r->body, "offset");
	jb_u64(&r->body, offset);
	jb_key(&r->body, "limit");
	jb_u64(&r->body, limit);
	jb_key(&r->body, "intervals");
	jb_arr(&r->body);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < (int64_t)limit) {
		int64_t iid = sqlite3_column_int64(st, 0);

		jb_obj(&r->body);
		for (int i = 0; i < 10; i++) {
			jb_key(&r->body, cols[i]);
			if (i == 2 || i == 3)
				jb_bool(&r->body, sqlite3_column_int(st, 1 + i));
			else
				jb_column(&r->body, st, 1 + i);
		}
		interval_analyses(r, s, mask, iid, id, sqlite3_column_int64(st, 5));
		interval_estimates(r, si, ms, id, sqlite3_column_int64(st, 1),
				   sqlite3_column_int64(st, 2));
		jb_obj_end(&r->body);
		n++;
	}
	jb_arr_end(&r->body);
	jb_key(&r->body, "next_offset");
	/* limit=0 asks for no rows: no page follows. */
	if (rc == SQLITE_ROW && limit)
		jb_i64(&r->body, (int64_t)offset + n);
	else
		jb_null(&r->body);
	jb_obj_end(&r->body);
	http_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		db_fail(r);
out:
	for (int i = 0; i < A_N; i++)
		http_finalize(s[i]);
	http_finalize(si);
	http_finalize(ms);
	return 0;
}

/* ---- metric names, series, views ---- */

/*
 * Every metric of one interval (?1 = interval id) as (metric, value), with
 * the names and conversions of schema.sql's `metric` view.  The view is
 * the reference; this spells it out per interval id because SQLite cannot
 * push a filter into the view's window-function and UNION arms and would
 * build it whole (seconds on 100,000 intervals).  tests/http_api.sh
 * compares the two.
 */
const char http_metric_pairs_sql[] =
	"SELECT metric, value FROM ("
	"SELECT l.analysis || '_' || l.window AS metric,"
	" CAST(i.ins AS REAL) / NULLIF(l.cycles, 0) AS value"
	" FROM ilp l JOIN interval i ON i.id = l.interval_id WHERE l.interval_id = ?1"
	" UNION ALL SELECT 'mix_' || COALESCE(g.name, t.grp), CAST(t.count AS REAL) / NULLIF(i.ins, 0)"
	" FROM itypes t JOIN interval i ON i.id = t.interval_id"
	" LEFT JOIN itypes_group g ON g.session_id = i.session_id AND g.grp = t.grp"
	" WHERE t.interval_id = ?1"
	" UNION ALL SELECT 'mispredict_' || p.organization || '_' || p.history,"
	" CAST(m.misses AS REAL) / NULLIF(b.branches, 0)"
	" FROM ppm m JOIN ppm_predictor p ON p.id = m.predictor_id"
	" JOIN ppm_branches b ON b.interval_id = m.interval_id WHERE m.interval_id = ?1"
	" UNION ALL SELECT 'mpki_' || p.organization || '_' || p.history,"
	" 1000.0 * m.misses / NULLIF(i.ins, 0)"
	" FROM ppm m JOIN ppm_predictor p ON p.id = m.predictor_id"
	" JOIN interval i ON i.id = m.interval_id WHERE m.interval_id = ?1"
	" UNION ALL SELECT 'taken_rate', CAST(taken AS REAL) / NULLIF(branches, 0)"
	" FROM ppm_branches WHERE interval_id = ?1"
	" UNION ALL SELECT 'transition_rate', CAST(transitions AS REAL) / NULLIF(branches, 0)"
	" FROM ppm_branches WHERE interval_id = ?1"
	" UNION ALL SELECT 'avg_register_operands', CAST(r.operands AS REAL) / NULLIF(i.ins, 0)"
	" FROM reg r JOIN interval i ON i.id = r.interval_id WHERE r.interval_id = ?1"
	" UNION ALL SELECT 'avg_degree_of_use', CAST(uses AS REAL) / NULLIF(values_, 0)"
	" FROM reg WHERE interval_id = ?1"
	" UNION ALL SELECT 'dependency_distance_le_' || d.column1, CAST(CASE d.column1"
	" WHEN 1 THEN c1 WHEN 2 THEN c2 WHEN 4 THEN c4 WHEN 8 THEN c8 WHEN 16 THEN c16"
	" WHEN 32 THEN c32 ELSE c64 END AS REAL) / NULLIF(reads, 0)"
	" FROM reg, (VALUES (1), (2), (4), (8), (16), (32), (64)) d WHERE interval_id = ?1"
	" UNION ALL SELECT 'stride_' || s.kind || '_le_' || s.le, CAST(s.count AS REAL) /"
	" NULLIF(CASE WHEN s.kind LIKE '%read' THEN t.reads ELSE t.writes END, 0)"
	" FROM stride s JOIN stride_total t ON t.interval_id = s.interval_id"
	" WHERE s.interval_id = ?1"
	" UNION ALL SELECT 'data_footprint_bytes', data_blocks << block_size"
	" FROM memfootprint WHERE interval_id = ?1"
	" UNION ALL SELECT 'data_footprint_page_bytes', data_pages << page_size"
	" FROM memfootprint WHERE interval_id = ?1"
	" UNION ALL SELECT 'insn_footprint_bytes', insn_blocks << block_size"
	" FROM memfootprint WHERE interval_id = ?1"
	" UNION ALL SELECT 'insn_footprint_page_bytes', insn_pages << page_size"
	" FROM memfootprint WHERE interval_id = ?1"
	" UNION ALL SELECT 'reuse_bucket_' || b.bucket, CAST(b.count AS REAL) / NULLIF(m.refs, 0)"
	" FROM memstackdist_bucket b JOIN memstackdist m ON m.interval_id = b.interval_id"
	" WHERE b.interval_id = ?1"
	" UNION ALL SELECT 'reuse_cdf_' || b.bucket, CAST((SELECT SUM(b2.count) FROM"
	" memstackdist_bucket b2 WHERE b2.interval_id = ?1 AND b2.bucket <= b.bucket) AS REAL)"
	" / NULLIF(m.refs, 0)"
	" FROM memstackdist_bucket b JOIN memstackdist m ON m.interval_id = b.interval_id"
	" WHERE b.interval_id = ?1"
	" UNION ALL SELECT 'reuse_cold', CAST(cold AS REAL) / NULLIF(refs, 0)"
	" FROM memstackdist WHERE interval_id = ?1"
	" UNION ALL SELECT 'reuse_censored', CAST(censored AS REAL) / NULLIF(refs, 0)"
	" FROM memstackdist WHERE interval_id = ?1 AND censored IS NOT NULL"
	") WHERE ?2 IS NULL OR metric = ?2";


static int
metric_names(struct http_req *r, int64_t id)
{
	sqlite3_stmt *first = http_prepare(r, "SELECT min(first_interval_id) FROM thread_total "
					   "WHERE session_id = ?"), *st;
	char *sql;

	if (!first)
		return 0;
	sqlite3_bind_int64(first, 1, id);
	sql = xasprintf("%s ORDER BY metric", http_metric_pairs_sql);
	st = http_prepare(r, sql);
	free(sql);
	if (!st) {
		http_finalize(first);
		return 0;
	}
	jb_obj(&r->body);
	jb_key(&r->body, "session");
	jb_i64(&r->body, id);
	jb_key(&r->body, "metrics");
	jb_arr(&r->body);
	/* The names of the session's first interval (every interval of a
	 * session has the same analyses). */
	if (sqlite3_step(first) == SQLITE_ROW && sqlite3_column_type(first, 0) != SQLITE_NULL) {
		sqlite3_bind_int64(st, 1, sqlite3_column_int64(first, 0));
		while (sqlite3_step(st) == SQLITE_ROW)
			jb_column(&r->body, st, 0);
	}
	jb_arr_end(&r->body);
	jb_obj_end(&r->body);
	http_finalize(st);
	http_finalize(first);
	return 0;
}

/*
 * One metric over a range of a session's intervals in one query, (tid,
 * idx, value) in (tid, idx) order through the (session_id, tid, idx) index
 * and the analysis table's key, for the metric families that charts draw
 * (the conversions are http_metric_pairs_sql's, the metric view's): ?1
 * session, ?2 tid (or "?2 IS NULL"), ?3..?4 the index range, ?6 a limit,
 * ?7 and ?8 the family's own parameters (bind_metric).  NULL for another
 * name (the caller reads interval by interval).  Also ipc (the scheduling
 * model) and instructions, which the metric view does not have.  Sampled:
 * also the interval's bursts (column 3) and the metric's sums (4 .. 10,
 * ?9 its name), each row's by the tables' keys.
 */
struct metric_q {
	char *sql;
	const char *text;	/* ?7 as text, or NULL */
	int64_t num;		/* ?8 */
	char org[8];
	const char *name;	/* ?9 when sampled */
	/* The values are in rows stored with their interval, in its
	 * transaction (not the scheduling model's, stored apart and
	 * replaced when a snapshot is taken again). */
	bool with_interval;
};

#define SAMPLED_COLS ", si.bursts, ms.n, ms.sum_x, ms.sum_y, ms.sum_xx, ms.sum_xy, ms.sum_yy, " \
	"ms.estimable"
#define SAMPLED_JOINS " LEFT JOIN sample_interval si ON si.session_id = i.session_id " \
	"AND si.tid = i.tid AND si.idx = i.idx LEFT JOIN metric_sums ms " \
	"ON ms.session_id = i.session_id AND ms.tid = i.tid AND ms.idx = i.idx AND ms.metric = ?9"

static bool
metric_sql(const char *metric, bool has_tid, bool sampled, struct metric_q *q)
{
	const char *tidc = has_tid ? "i.tid = ?2" : "?2 IS NULL";
	const char *cols = sampled ? SAMPLED_COLS : "", *joins = sampled ? SAMPLED_JOINS : "";
	unsigned long long w, h;
	const char *join = NULL, *expr = NULL;

	memset(q, 0, sizeof(*q));
	if (sampled)
		q->name = metric;
	if (!strcmp(metric, "ipc")) {
		q->sql = xasprintf("SELECT i.tid, i.idx, i.ipc%s FROM sched_interval i%s WHERE "
				   "i.session_id = ?1 AND %s AND i.idx BETWEEN ?3 AND ?4 "
				   "ORDER BY i.tid, i.idx LIMIT ?6", cols, joins, tidc);
		return true;
	}
	if (!strcmp(metric, "instructions")) {
		expr = "i.ins";
		join = "";
	} else if ((sscanf(metric, "ilp_one_%llu", &w) == 1 || sscanf(metric, "ilp_%llu", &w) == 1) &&
		   w <= INT32_MAX) {
		q->text = strncmp(metric, "ilp_one_", 8) ? "ilp" : "ilp_one";
		q->num = (int64_t)w;
		join = "JOIN ilp l ON l.interval_id = i.id AND l.analysis = ?7 AND l.window = ?8";
		expr = "CAST(i.ins AS REAL) / NULLIF(l.cycles, 0)";
	} else if (!strncmp(metric, "mix_", 4)) {
		q->text = metric + 4;
		join = "JOIN itypes c ON c.interval_id = i.id AND c.grp = (SELECT grp FROM itypes_group "
		       "WHERE session_id = ?1 AND name = ?7)";
		expr = "CAST(c.count AS REAL) / NULLIF(i.ins, 0)";
	} else if ((sscanf(metric, "mispredict_%7[A-Za-z]_%llu", q->org, &h) == 2 ||
		    sscanf(metric, "mpki_%7[A-Za-z]_%llu", q->org, &h) == 2) && h <= 64) {
		q->text = q->org;
		q->num = (int64_t)h;
		join = "JOIN ppm m ON m.interval_id = i.id AND m.predictor_id = (SELECT id FROM "
		       "ppm_predictor WHERE organization = ?7 AND history = ?8) "
		       "JOIN ppm_branches pb ON pb.interval_id = i.id";
		expr = metric[1] == 'i' ? "CAST(m.misses AS REAL) / NULLIF(pb.branches, 0)"
		       : "1000.0 * m.misses / NULLIF(i.ins, 0)";
	} else if (!strcmp(metric, "taken_rate") || !strcmp(metric, "transition_rate")) {
		join = "JOIN ppm_branches pb ON pb.interval_id = i.id";
		expr = metric[1] == 'a' ? "CAST(pb.taken AS REAL) / NULLIF(pb.branches, 0)"
		       : "CAST(pb.transitions AS REAL) / NULLIF(pb.branches, 0)";
	} else if (!strcmp(metric, "avg_register_operands") || !strcmp(metric, "avg_degree_of_use")) {
		join = "JOIN reg g ON g.interval_id = i.id";
		expr = metric[4] == 'r' ? "CAST(g.operands AS REAL) / NULLIF(i.ins, 0)"
		       : "CAST(g.uses AS REAL) / NULLIF(g.values_, 0)";
	} else if (!strcmp(metric, "data_footprint_bytes") ||
		   !strcmp(metric, "data_footprint_page_bytes") ||
		   !strcmp(metric, "insn_footprint_bytes") ||
		   !strcmp(metric, "insn_footprint_page_bytes")) {
		static const char *const e[] = {
			"f.data_blocks << f.block_size", "f.data_pages << f.page_size",
			"f.insn_blocks << f.block_size", "f.insn_pages << f.page_size",
		};
		join = "JOIN memfootprint f ON f.interval_id = i.id";
		expr = e[(metric[0] == 'i') * 2 + (strstr(metric, "page") != NULL)];
	} else if (!strcmp(metric, "reuse_cold")) {
		join = "JOIN memstackdist d ON d.interval_id = i.id";
		expr = "CAST(d.cold AS REAL) / NULLIF(d.refs, 0)";
	} else {
		return false;
	}
	q->sql = xasprintf("SELECT i.tid, i.idx, %s%s FROM interval i %s%s WHERE i.session_id = ?1 "
			   "AND %s AND i.idx BETWEEN ?3 AND ?4 ORDER BY i.tid, i.idx LIMIT ?6",
			   expr, cols, join, joins, tidc);
	q->with_interval = true;
	return true;
}

static void
bind_metric(sqlite3_stmt *st, const struct metric_q *q)
{
	if (q->text)
		sqlite3_bind_text(st, 7, q->text, -1, SQLITE_STATIC);
	if (q->num)
		sqlite3_bind_int64(st, 8, q->num);
	if (q->name)
		sqlite3_bind_text(st, 9, q->name, -1, SQLITE_STATIC);
}

/* A series answer's start, up to the opening of its "threads" array. */
static void
series_head(struct http_req *r, int64_t id, const char *metric, bool sampled)
{
	jb_obj(&r->body);
	jb_key(&r->body, "session");
	jb_i64(&r->body, id);
	jb_key(&r->body, "metric");
	jb_str(&r->body, metric);
	jb_key(&r->body, "sampled");
	jb_bool(&r->body, sampled);
	jb_key(&r->body, "level");
	jb_double(&r->body, sampled ? CI_LEVEL : NAN);
	jb_key(&r->body, "threads");
	jb_arr(&r->body);
}

/* A thread's object, up to its open "interval" array; its values go to
 * vals (reset). */
static void
series_thread(struct http_req *r, struct jbuf *vals, int64_t tid)
{
	jb_free(vals);
	jb_arr(vals);
	jb_obj(&r->body);
	jb_key(&r->body, "tid");
	jb_i64(&r->body, tid);
	jb_key(&r->body, "interval");
	jb_arr(&r->body);
}

/* The rest of the thread's object: its values and estimates (cc freed). */
static void
series_thread_end(struct http_req *r, struct jbuf *vals, struct ci_cols *cc, bool sampled)
{
	jb_arr_end(&r->body);
	jb_arr_end(vals);
	jb_key(&r->body, "value");
	jb_rawval(&r->body, vals->p, vals->len);
	ci_put(&r->body, cc, sampled);
	jb_obj_end(&r->body);
}

/* The answer's end; a 404 instead when it has no point. */
static int
series_tail(struct http_req *r, int64_t id, const char *metric, const struct range *g, int64_t n)
{
	jb_arr_end(&r->body);
	jb_key(&r->body, "points");
	jb_i64(&r->body, n);
	jb_obj_end(&r->body);
	if (n == 0)
		return http_error(r, 404, "no values of metric '%s' in session %lld%s", metric,
				  (long long)id, g->has_tid ? " for that thread" : "");
	return 0;
}

/*
 * One piece of a series (http_pieces.c) read with st, q's query over the
 * whole range of the thread: the points of interval indexes piece *
 * HTTP_PIECE .. + HTTP_PIECE - 1 into p.  Their number, or -1 when the
 * query failed (an error set, unless it was interrupted: process() says
 * why).  The tables are STRICT and the metric expressions numeric, so a
 * value is an integer, a real or null.
 */
static int
read_piece(struct http_req *r, sqlite3_stmt *st, int64_t piece, struct http_point *p)
{
	int rc = SQLITE_DONE, n = 0;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 3, piece * HTTP_PIECE);
	sqlite3_bind_int64(st, 4, piece * HTTP_PIECE + HTTP_PIECE - 1);
	sqlite3_bind_int64(st, 6, HTTP_PIECE);
	while (n < HTTP_PIECE && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		p[n].idx = sqlite3_column_int64(st, 1);
		p[n].type = sqlite3_column_type(st, 2);
		if (p[n].type == SQLITE_INTEGER)
			p[n].v.i = sqlite3_column_int64(st, 2);
		else if (p[n].type == SQLITE_FLOAT)
			p[n].v.d = sqlite3_column_double(st, 2);
		else
			p[n].type = SQLITE_NULL;
		n++;
	}
	if (n < HTTP_PIECE && rc != SQLITE_DONE) {
		if (!r->cancel)
			db_fail(r);
		return -1;
	}
	return n;
}

/*
 * series() of one thread of a finished step-mode session, for a metric
 * of metric_sql's families stored with their interval (q), from kept
 * pieces: each piece the range
 * touches is taken from http_pieces.c or read and kept.  The same points
 * in the same JSON as the query over the range; the thread's object is
 * written when it has a point.  Its points in *n; 0, or -1 on an error.
 */
static int
series_pieces(struct http_req *r, int64_t id, const char *metric, const struct metric_q *q,
	      const struct range *g, uint64_t limit, int64_t *n)
{
	struct http_piece_key k = { .session = id, .tid = g->tid, .metric = metric };
	sqlite3_stmt *tt, *st = NULL;
	struct http_point *p;
	struct jbuf vals;
	struct ci_cols cc;
	uint64_t end;
	int ret = 0;

	tt = http_prepare(r, "SELECT intervals, last_interval_id, last_idx FROM thread_total "
			  "WHERE session_id = ?1 AND tid = ?2");
	if (!tt)
		return -1;
	sqlite3_bind_int64(tt, 1, id);
	sqlite3_bind_int64(tt, 2, g->tid);
	if (sqlite3_step(tt) != SQLITE_ROW) {
		http_finalize(tt);
		return 0;	/* no such thread: no point */
	}
	k.intervals = sqlite3_column_int64(tt, 0);
	k.last_id = sqlite3_column_int64(tt, 1);
	end = (uint64_t)sqlite3_column_int64(tt, 2);
	http_finalize(tt);
	if (end > g->to)
		end = g->to;
	p = xmalloc(HTTP_PIECE * sizeof(*p));
	jb_init(&vals);
	for (k.piece = (int64_t)(g->from / HTTP_PIECE);
	     (uint64_t)*n < limit && (uint64_t)k.piece <= end / HTTP_PIECE; k.piece++) {
		int np = http_piece_get(r->srv->pieces, &k, p);

		if (np < 0) {
			if (!st && !(st = http_prepare(r, q->sql))) {
				ret = -1;
				break;
			}
			bind_metric(st, q);
			bind_range(st, id, g);
			np = read_piece(r, st, k.piece, p);
			if (np < 0) {
				ret = -1;
				break;
			}
			http_piece_put(r->srv->pieces, &k, p, np);
		}
		for (int i = 0; i < np && (uint64_t)*n < limit; i++) {
			if ((uint64_t)p[i].idx < g->from || (uint64_t)p[i].idx > g->to)
				continue;
			if (!*n)
				series_thread(r, &vals, g->tid);
			jb_i64(&r->body, p[i].idx);
			if (p[i].type == SQLITE_INTEGER)
				jb_i64(&vals, p[i].v.i);
			else if (p[i].type == SQLITE_FLOAT)
				jb_double(&vals, p[i].v.d);
			else
				jb_null(&vals);
			++*n;
		}
	}
	if (*n && !ret) {
		ci_open(&cc);
		series_thread_end(r, &vals, &cc, false);
	}
	jb_free(&vals);
	http_finalize(st);
	free(p);
	return ret;
}

static int
series(struct http_req *r, int64_t id)
{
	const char *metric = http_arg(r, "metric");
	sqlite3_stmt *st, *pst = NULL, *cst = NULL;
	struct metric_q mq;
	bool direct, sampled;
	struct range g;
	struct jbuf vals;
	struct ci_cols cc;
	char *sql;
	int64_t cur_tid = 0;
	bool any = false;
	uint64_t limit;
	int64_t n = 0;
	int rc;

	if (!metric || !*metric)
		return http_error(r, 400, "parameter metric required (see .../metrics for names)");
	if (parse_range(r, &g) < 0 ||
	    http_arg_u64(r, "limit", ROWS_LIMIT_MAX, ROWS_LIMIT_MAX, &limit) < 0)
		return 0;
	sampled = session_sampled(r, id);
	/* One query for the families charts draw; else interval by
	 * interval through the pairs of http_metric_pairs_sql. */
	direct = metric_sql(metric, g.has_tid, sampled, &mq);
	/* A finished session's thread in step mode: from kept pieces when
	 * at least a piece's worth is asked for (fewer points cost less read
	 * directly than a piece), for values stored with their interval
	 * (the pieces' key holds the thread's interval count), not with a
	 * plan log (its tests see every query). */
	if (direct && mq.with_interval && !sampled && g.has_tid && r->cacheable &&
	    !r->srv->plan_log && limit >= HTTP_PIECE && g.to - g.from >= HTTP_PIECE - 1) {
		series_head(r, id, metric, false);
		rc = series_pieces(r, id, metric, &mq, &g, limit, &n);
		free(mq.sql);
		return rc < 0 ? 0 : series_tail(r, id, metric, &g, n);
	}
	if (direct) {
		sql = mq.sql;
	} else {
		sql = xasprintf("SELECT id, tid, idx FROM interval WHERE session_id = ?1 AND %s "
				"AND idx BETWEEN ?3 AND ?4 ORDER BY tid, idx LIMIT ?6", TID_COND(&g));
	}
	st = http_prepare(r, sql);
	free(sql);
	if (!st)
		return 0;
	if (!direct) {
		pst = http_prepare(r, http_metric_pairs_sql);
		if (sampled && pst)
			cst = http_prepare(r, CI_LOOKUP_SQL);
		if (!pst || (sampled && !cst)) {
			http_finalize(st);
			http_finalize(pst);
			return 0;
		}
		sqlite3_bind_text(pst, 2, metric, -1, SQLITE_TRANSIENT);
		if (cst) {
			sqlite3_bind_int64(cst, 1, id);
			sqlite3_bind_text(cst, 4, metric, -1, SQLITE_TRANSIENT);
		}
	} else {
		bind_metric(st, &mq);
	}
	bind_range(st, id, &g);
	sqlite3_bind_int64(st, 6, (int64_t)limit);
	/* Column-oriented, one object per thread: {"tid", "interval": [...],
	 * "value": [...], and the estimates' "ci_low", "ci_high",
	 * "n_bursts", "estimable": [...] (each null in step mode)}, what
	 * chart libraries take directly. */
	jb_init(&vals);
	ci_open(&cc);
	series_head(r, id, metric, sampled);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(st, direct ? 0 : 1);

		if (!direct) {
			sqlite3_reset(pst);
			sqlite3_bind_int64(pst, 1, sqlite3_column_int64(st, 0));
			if (sqlite3_step(pst) != SQLITE_ROW)
				continue;
		}
		if (!any || tid != cur_tid) {
			if (any) {
				series_thread_end(r, &vals, &cc, sampled);
				ci_open(&cc);
			}
			series_thread(r, &vals, tid);
			cur_tid = tid;
			any = true;
		}
		jb_column(&r->body, st, direct ? 1 : 2);
		if (direct)
			jb_column(&vals, st, 2);
		else
			jb_column(&vals, pst, 1);
		if (sampled && direct) {
			ci_point(&cc, st, 3, 4, metric);
		} else if (sampled) {
			sqlite3_reset(cst);
			sqlite3_bind_int64(cst, 2, tid);
			sqlite3_bind_int64(cst, 3, sqlite3_column_int64(st, 2));
			ci_point(&cc, sqlite3_step(cst) == SQLITE_ROW ? cst : NULL, 0, 1, metric);
		}
		n++;
	}
	if (any)
		series_thread_end(r, &vals, &cc, sampled);
	else
		ci_put(NULL, &cc, false);
	jb_free(&vals);
	http_finalize(st);
	http_finalize(pst);
	http_finalize(cst);
	if (rc != SQLITE_DONE)
		return db_fail(r);
	return series_tail(r, id, metric, &g, n);
}

/*
 * GET .../overview?metric=M&tid=T&from=&to=&buckets=B: one metric of one
 * thread over a range of intervals (the whole thread by default), cut
 * into at most B buckets of equal width, each with its first and last
 * interval, how many intervals had a value, the minimum, maximum and mean:
 * what a chart of the whole run draws, a few kilobytes whatever the
 * number of intervals.  One pass over the range through the (session_id,
 * tid, idx) index and the tables' keys (metric_sql's families).  In a
 * sampled session each bucket also has the estimate of its intervals'
 * units pooled (their sums added), its confidence interval, whether it is
 * estimable and the bursts (null in step mode).
 */
#define OVERVIEW_BUCKETS_MAX 2000

struct obucket {
	int64_t n;
	double min, max, sum;
	int64_t bursts;
	bool has_bursts, has_sums;
	struct sums sums;
};

static int
overview(struct http_req *r, int64_t id)
{
	const char *metric = http_arg(r, "metric");
	sqlite3_stmt *st = NULL, *t;
	struct obucket *b;
	struct metric_q mq;
	struct range g;
	uint64_t nb;
	int64_t first, last, width, count;
	bool sampled;
	int rc;

	if (!metric)
		return http_error(r, 400, "parameter metric required: ipc, instructions, ilp_W, "
				  "ilp_one_W, mix_GROUP or mispredict_ORG_H");
	if (parse_range(r, &g) < 0 ||
	    http_arg_u64(r, "buckets", 500, OVERVIEW_BUCKETS_MAX, &nb) < 0)
		return 0;
	if (!g.has_tid)
		return http_error(r, 400, "parameter tid required (an overview is of one thread)");
	if (nb == 0)
		return http_error(r, 400, "parameter buckets: at least 1");
	t = http_prepare(r, "SELECT first_idx, last_idx FROM thread_total "
			 "WHERE session_id = ?1 AND tid = ?2");
	if (!t)
		return 0;
	sqlite3_bind_int64(t, 1, id);
	sqlite3_bind_int64(t, 2, g.tid);
	if (sqlite3_step(t) != SQLITE_ROW) {
		http_finalize(t);
		return http_error(r, 404, "thread %lld of session %lld has no interval",
				  (long long)g.tid, (long long)id);
	}
	first = sqlite3_column_int64(t, 0);
	last = sqlite3_column_int64(t, 1);
	http_finalize(t);
	if ((int64_t)g.from > first)
		first = (int64_t)g.from;
	if (g.to < (uint64_t)last)
		last = (int64_t)g.to;
	if (first > last)
		return http_error(r, 404, "no interval of thread %lld in that range",
				  (long long)g.tid);
	count = last - first + 1;
	width = (count + (int64_t)nb - 1) / (int64_t)nb;
	nb = (uint64_t)((count + width - 1) / width);

	sampled = session_sampled(r, id);
	if (!metric_sql(metric, true, sampled, &mq))
		return http_error(r, 400, "parameter metric: want ipc, instructions, ilp_W, ilp_one_W, "
				  "mix_GROUP, mispredict_ORG_H, mpki_ORG_H, taken_rate, transition_rate, "
				  "avg_register_operands, avg_degree_of_use, data_footprint_bytes, "
				  "data_footprint_page_bytes, insn_footprint_bytes, "
				  "insn_footprint_page_bytes or reuse_cold");
	st = http_prepare(r, mq.sql);
	free(mq.sql);
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, g.tid);
	sqlite3_bind_int64(st, 3, first);
	sqlite3_bind_int64(st, 4, last);
	sqlite3_bind_int64(st, 6, -1);
	bind_metric(st, &mq);
	b = xcalloc(nb, sizeof(*b));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t k = (sqlite3_column_int64(st, 1) - first) / width;
		double v;

		if (k < 0 || k >= (int64_t)nb)
			continue;
		if (sampled) {
			struct sums s;

			if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
				b[k].bursts += sqlite3_column_int64(st, 3);
				b[k].has_bursts = true;
			}
			if (sums_read(st, 4, &s)) {
				sums_add(&b[k].sums, &s);
				b[k].has_sums = true;
			}
		}
		if (sqlite3_column_type(st, 2) == SQLITE_NULL)
			continue;
		v = sqlite3_column_double(st, 2);
		if (!b[k].n || v < b[k].min)
			b[k].min = v;
		if (!b[k].n || v > b[k].max)
			b[k].max = v;
		b[k].sum += v;
		b[k].n++;
	}
	http_finalize(st);
	if (rc != SQLITE_DONE) {
		free(b);
		return db_fail(r);
	}
	jb_obj(&r->body);
	jb_key(&r->body, "session");
	jb_i64(&r->body, id);
	jb_key(&r->body, "tid");
	jb_i64(&r->body, g.tid);
	jb_key(&r->body, "metric");
	jb_str(&r->body, metric);
	jb_key(&r->body, "from");
	jb_i64(&r->body, first);
	jb_key(&r->body, "to");
	jb_i64(&r->body, last);
	jb_key(&r->body, "bucket_width");
	jb_i64(&r->body, width);
	jb_key(&r->body, "sampled");
	jb_bool(&r->body, sampled);
	jb_key(&r->body, "level");
	jb_double(&r->body, sampled ? CI_LEVEL : NAN);
	jb_key(&r->body, "buckets");
	jb_obj(&r->body);
	{
		static const char *const keys[] = {
			"lo", "hi", "n", "min", "max", "mean",
			"estimate", "ci_low", "ci_high", "n_bursts", "estimable",
		};

		for (int k = 0; k < 11; k++) {
			struct estimate e;

			jb_key(&r->body, keys[k]);
			if (k >= 6 && !sampled) {
				jb_null(&r->body);
				continue;
			}
			if (k >= 6) {
				jb_arr(&r->body);
				for (uint64_t i = 0; i < nb; i++) {
					if (k == 9) {
						if (b[i].has_bursts)
							jb_i64(&r->body, b[i].bursts);
						else
							jb_null(&r->body);
						continue;
					}
					if (!b[i].has_sums) {
						jb_null(&r->body);
						continue;
					}
					estimate_of(&b[i].sums, metric, &e);
					if (k == 10)
						jb_bool(&r->body, b[i].sums.estimable);
					else
						jb_double(&r->body, k == 6 ? e.value : k == 7 ? e.lo : e.hi);
				}
				jb_arr_end(&r->body);
				continue;
			}
			jb_arr(&r->body);
			for (uint64_t i = 0; i < nb; i++) {
				int64_t lo = first + (int64_t)i * width;

				switch (k) {
				case 0:
					jb_i64(&r->body, lo);
					break;
				case 1:
					jb_i64(&r->body, lo + width - 1 < last ? lo + width - 1 : last);
					break;
				case 2:
					jb_i64(&r->body, b[i].n);
					break;
				default:
					if (!b[i].n)
						jb_null(&r->body);
					else
						jb_double(&r->body, k == 3 ? b[i].min : k == 4 ? b[i].max
								  : b[i].sum / (double)b[i].n);
				}
			}
			jb_arr_end(&r->body);
		}
	}
	jb_obj_end(&r->body);
	jb_obj_end(&r->body);
	free(b);
	return 0;
}

/*
 * GET .../estimates?tid=&from=&to=: a sampled session's estimate of each
 * metric over all its units pooled, as schema.sql's session_metric has
 * them (value, ci_low, ci_high, se, half_width, rel_half_width, cv,
 * n_bursts, U, W, level, estimable: only if estimable in every interval);
 * with tid, from or to, over that thread's or range's units (sums pool).
 * Null in step mode.  The sums are read in their key's order through the
 * (session_id, tid, idx, metric) key and added up per metric here, not
 * grouped by SQLite (a sort of all the session's rows).
 */
struct mtotal {
	char *metric;
	struct sums s;
};

struct mtotals {
	struct mtotal *m;
	size_t n, cap, hint;
};

/* The total of metric name, added (in name order) if new. */
static struct mtotal *
mtotal_of(struct mtotals *t, const char *name)
{
	size_t lo = 0, hi = t->n;

	/* Every interval has the same metrics, in the same order. */
	if (t->hint < t->n && !strcmp(t->m[t->hint].metric, name))
		return &t->m[t->hint++];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(t->m[mid].metric, name);

		if (!c) {
			t->hint = mid + 1;
			return &t->m[mid];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->m = xreallocarray(t->m, t->cap, sizeof(*t->m));
	}
	memmove(&t->m[lo + 1], &t->m[lo], (t->n - lo) * sizeof(*t->m));
	memset(&t->m[lo], 0, sizeof(t->m[lo]));
	t->m[lo].metric = xstrdup(name);
	t->n++;
	t->hint = lo + 1;
	return &t->m[lo];
}

static double
ratio_abs(double num, double den)
{
	return isnan(den) || den == 0 ? NAN : num / fabs(den);
}

static int
estimates(struct http_req *r, int64_t id)
{
	const char *tidc;
	struct mtotals t = { NULL, 0, 0, 0 };
	struct range g;
	sqlite3_stmt *st;
	double u = NAN, w = NAN;
	int64_t bursts = -1;
	char *sql;
	int rc;

	if (parse_range(r, &g) < 0)
		return 0;
	jb_obj(&r->body);
	jb_key(&r->body, "session");
	jb_i64(&r->body, id);
	jb_key(&r->body, "tid");
	if (g.has_tid)
		jb_i64(&r->body, g.tid);
	else
		jb_null(&r->body);
	jb_key(&r->body, "from");
	jb_u64(&r->body, g.from);
	jb_key(&r->body, "to");
	if (g.to == IDX_MAX)
		jb_null(&r->body);
	else
		jb_u64(&r->body, g.to);
	jb_key(&r->body, "sampled");
	if (!session_sampled(r, id)) {
		static const char *const keys[] = { "level", "n_bursts", "U", "W", "estimates" };

		jb_bool(&r->body, false);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			jb_key(&r->body, keys[k]);
			jb_null(&r->body);
		}
		jb_obj_end(&r->body);
		return 0;
	}
	jb_bool(&r->body, true);

	/* U: measured instructions per burst (the intervals' E), W: warm-up
	 * instructions per burst, as session_metric's. */
	tidc = g.has_tid ? "si.tid = ?2" : "?2 IS NULL";
	sql = xasprintf("SELECT sum(si.bursts), CAST(sum(si.warmup_ins) AS REAL) / "
			"NULLIF(sum(si.bursts), 0), CAST(sum(i.ins) AS REAL) / "
			"NULLIF(sum(CASE WHEN i.id IS NOT NULL THEN si.bursts END), 0) "
			"FROM sample_interval si LEFT JOIN interval i ON i.session_id = si.session_id "
			"AND i.tid = si.tid AND i.idx = si.idx WHERE si.session_id = ?1 AND %s "
			"AND si.idx BETWEEN ?3 AND ?4", tidc);
	st = http_prepare(r, sql);
	free(sql);
	if (!st)
		return 0;
	bind_range(st, id, &g);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			bursts = sqlite3_column_int64(st, 0);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			w = sqlite3_column_double(st, 1);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			u = sqlite3_column_double(st, 2);
	}
	http_finalize(st);

	sql = xasprintf("SELECT metric, n, sum_x, sum_y, sum_xx, sum_xy, sum_yy, estimable "
			"FROM metric_sums WHERE session_id = ?1 AND %s AND idx BETWEEN ?3 AND ?4 "
			"ORDER BY session_id, tid, idx, metric", TID_COND(&g));
	st = http_prepare(r, sql);
	free(sql);
	if (!st)
		return 0;
	bind_range(st, id, &g);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		struct sums s;

		if (name && sums_read(st, 1, &s))
			sums_add(&mtotal_of(&t, name)->s, &s);
	}
	http_finalize(st);
	if (rc != SQLITE_DONE) {
		for (size_t i = 0; i < t.n; i++)
			free(t.m[i].metric);
		free(t.m);
		return db_fail(r);
	}
	jb_key(&r->body, "level");
	jb_double(&r->body, CI_LEVEL);
	jb_key(&r->body, "n_bursts");
	if (bursts >= 0)
		jb_i64(&r->body, bursts);
	else
		jb_null(&r->body);
	jb_key(&r->body, "U");
	jb_double(&r->body, u);
	jb_key(&r->body, "W");
	jb_double(&r->body, w);
	jb_key(&r->body, "estimates");
	jb_arr(&r->body);
	for (size_t i = 0; i < t.n; i++) {
		const struct sums *s = &t.m[i].s;
		struct estimate e;

		estimate_of(s, t.m[i].metric, &e);
		jb_obj(&r->body);
		jb_key(&r->body, "metric");
		jb_str(&r->body, t.m[i].metric);
		jb_key(&r->body, "value");
		jb_double(&r->body, e.value);
		jb_key(&r->body, "ci_low");
		jb_double(&r->body, e.lo);
		jb_key(&r->body, "ci_high");
		jb_double(&r->body, e.hi);
		jb_key(&r->body, "se");
		jb_double(&r->body, e.se);
		jb_key(&r->body, "half_width");
		jb_double(&r->body, e.hw);
		jb_key(&r->body, "rel_half_width");
		jb_double(&r->body, ratio_abs(e.hw, e.value));
		jb_key(&r->body, "cv");
		jb_double(&r->body, ratio_abs(sqrt((double)s->n) * e.se, e.value));
		jb_key(&r->body, "n_bursts");
		jb_i64(&r->body, s->n);
		jb_key(&r->body, "U");
		jb_double(&r->body, u);
		jb_key(&r->body, "W");
		jb_double(&r->body, w);
		jb_key(&r->body, "level");
		jb_double(&r->body, CI_LEVEL);
		jb_key(&r->body, "estimable");
		jb_bool(&r->body, s->estimable);
		jb_obj_end(&r->body);
		free(t.m[i].metric);
	}
	jb_arr_end(&r->body);
	jb_obj_end(&r->body);
	free(t.m);
	return 0;
}

/*
 * The conversion views a client may read, page by page, in a stable
 * order (tid, interval, then the view's own key).  Some are spelled out
 * here as the view filtered first, so that every query walks the
 * session's intervals through the (session_id, tid, idx) index and the
 * other tables by key, rows coming out already in order: a page costs its
 * rows (and the offset's), never a sort of the whole session
 * (tests/http_scale.sh checks each plan).  `metric` is read interval by
 * interval (http_metric_pairs_sql).
 */
/* reuse_distance with the cumulative sum per interval as a key range
 * (its window function would sort every row of the session first). */
#define REUSE_DISTANCE_FILTERED \
	"(SELECT i.session_id, i.tid, i.idx AS interval, b.bucket, rb.lo, rb.hi, b.count, " \
	"m.refs, CAST(b.count AS REAL) / NULLIF(m.refs, 0) AS fraction, " \
	"CAST((SELECT sum(b2.count) FROM memstackdist_bucket b2 WHERE b2.interval_id = i.id " \
	"AND b2.bucket <= b.bucket) AS REAL) / NULLIF(m.refs, 0) AS cdf FROM interval i " \
	"JOIN memstackdist m ON m.interval_id = i.id " \
	"JOIN memstackdist_bucket b ON b.interval_id = i.id " \
	"JOIN reuse_bucket rb ON rb.bucket = b.bucket " \
	"WHERE i.session_id = ?1 AND ", " AND i.idx BETWEEN ?3 AND ?4)"
/* dependency_distance_cdf with the intervals as the outer loop. */
#define DEPENDENCY_DISTANCE_FILTERED \
	"(SELECT i.session_id, i.tid, i.idx AS interval, d.distance, " \
	"CASE d.distance WHEN 1 THEN r.c1 WHEN 2 THEN r.c2 WHEN 4 THEN r.c4 WHEN 8 THEN r.c8 " \
	"WHEN 16 THEN r.c16 WHEN 32 THEN r.c32 ELSE r.c64 END AS count, r.reads, " \
	"CAST(CASE d.distance WHEN 1 THEN r.c1 WHEN 2 THEN r.c2 WHEN 4 THEN r.c4 " \
	"WHEN 8 THEN r.c8 WHEN 16 THEN r.c16 WHEN 32 THEN r.c32 ELSE r.c64 END AS REAL) " \
	"/ NULLIF(r.reads, 0) AS probability FROM interval i JOIN reg r ON r.interval_id = i.id " \
	"CROSS JOIN (SELECT 1 AS distance UNION ALL SELECT 2 UNION ALL SELECT 4 UNION ALL " \
	"SELECT 8 UNION ALL SELECT 16 UNION ALL SELECT 32 UNION ALL SELECT 64) d " \
	"WHERE i.session_id = ?1 AND ", " AND i.idx BETWEEN ?3 AND ?4)"

static const struct {
	const char *name, *order;
	/* NULL: the view itself; else a subquery in two halves around the
	 * tid condition. */
	const char *from_head, *from_tail;
	bool whole;		/* per thread, no interval column */
} views[] = {
	{ "ilp_per_window", "analysis, window" },
	{ "instruction_mix", "grp" },
	{ "misprediction_rate", "history, organization" },
	{ "branch_behaviour", "interval" },
	{ "register_traffic", "interval" },
	{ "dependency_distance_cdf", "distance", DEPENDENCY_DISTANCE_FILTERED },
	{ "stride_cdf", "kind, le" },
	{ "footprint_bytes", "interval" },
	{ "reuse_distance", "bucket", REUSE_DISTANCE_FILTERED },
	{ "reuse_distance_session", "bucket", NULL, NULL, true },
	{ "cold_references", "interval" },
	{ "metric", "metric" },
};

static void
csv_field(struct jbuf *b, sqlite3_stmt *st, int i)
{
	const char *t;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		return;
	case SQLITE_INTEGER: {
		char tmp[24];

		jb_raw(b, tmp, fmt_i64(tmp, sqlite3_column_int64(st, i)));
		return;
	}
	case SQLITE_FLOAT: {
		char tmp[40];

		fmt_double(tmp, sizeof(tmp), sqlite3_column_double(st, i));
		jb_puts(b, tmp);
		return;
	}
	default:
		t = (const char *)sqlite3_column_text(st, i);
		if (!t)
			return;
		if (!strpbrk(t, ",\"\r\n") && t[0] != '=' && t[0] != '+' && t[0] != '-' &&
		    t[0] != '@') {
			jb_puts(b, t);
			return;
		}
		/* Quoted, and never a formula for a spreadsheet. */
		jb_raw(b, "\"", 1);
		if (t[0] == '=' || t[0] == '+' || t[0] == '-' || t[0] == '@')
			jb_raw(b, "'", 1);
		for (; *t; t++) {
			if (*t == '"')
				jb_raw(b, "\"", 1);
			jb_raw(b, t, 1);
		}
		jb_raw(b, "\"", 1);
	}
}

/* The rows of a view: one statement, or (metric) the intervals and each
 * one's (metric, value, ci_low, ci_high, n_bursts). */
struct rows {
	sqlite3_stmt *st;	/* the view; for metric: id, session_id, tid, idx */
	sqlite3_stmt *pairs;	/* metric: the current interval's pairs */
	bool in_pairs;
};

/*
 * The metric view's rows of one interval (?1 its id; ?3, ?4, ?5 its
 * session, tid and idx) in its order: the pairs, and in a sampled session
 * the estimates' columns as the view joins them (metric_ci and
 * sample_interval by their keys); NULL in step mode.
 */
#define METRIC_ROWS_SAMPLED \
	"SELECT p.metric, p.value, CASE WHEN c.estimable THEN c.ci_low END, " \
	"CASE WHEN c.estimable THEN c.ci_high END, si.bursts FROM (%s) p " \
	"LEFT JOIN sample_interval si ON si.session_id = ?3 AND si.tid = ?4 AND si.idx = ?5 " \
	"LEFT JOIN metric_ci c ON c.session_id = ?3 AND c.tid = ?4 AND c.interval = ?5 " \
	"AND c.metric = p.metric ORDER BY p.metric"
#define METRIC_ROWS_STEP \
	"SELECT metric, value, NULL, NULL, NULL FROM (%s) ORDER BY metric"


static int
rows_step(struct rows *w)
{
	int rc;

	if (!w->pairs)
		return sqlite3_step(w->st);
	for (;;) {
		if (w->in_pairs) {
			rc = sqlite3_step(w->pairs);
			if (rc != SQLITE_DONE)
				return rc;
			w->in_pairs = false;
		}
		rc = sqlite3_step(w->st);
		if (rc != SQLITE_ROW)
			return rc;
		sqlite3_reset(w->pairs);
		sqlite3_bind_int64(w->pairs, 1, sqlite3_column_int64(w->st, 0));
		for (int i = 1; i <= 3; i++)
			sqlite3_bind_int64(w->pairs, 2 + i, sqlite3_column_int64(w->st, i));
		w->in_pairs = true;
	}
}

/* Column i of the current row as (statement, column). */
static sqlite3_stmt *
rows_col(struct rows *w, int i, int *col)
{
	if (!w->pairs) {
		*col = i;
		return w->st;
	}
	if (i < 3) {
		*col = i + 1;
		return w->st;
	}
	*col = i - 3;
	return w->pairs;
}

static const char *const metric_columns[] = {
	"session_id", "tid", "interval", "metric", "value", "ci_low", "ci_high", "n_bursts",
};
#define METRIC_NCOLS ((int)(sizeof(metric_columns) / sizeof(metric_columns[0])))

static int
view_rows(struct http_req *r, int64_t id, const char *name)
{
	const char *format = http_arg(r, "format");
	bool csv = format && !strcmp(format, "csv");
	uint64_t limit, offset;
	struct range g;
	struct rows w = { NULL, NULL, false };
	size_t v;
	char *sql;
	int64_t n = 0;
	int rc, ncol, c;
	sqlite3_stmt *q;

	for (v = 0; v < sizeof(views) / sizeof(views[0]); v++)
		if (!strcmp(name, views[v].name))
			break;
	if (v == sizeof(views) / sizeof(views[0]))
		return http_error(r, 404, "no view '%s' (see /api for the list)", name);
	if (format && !csv && strcmp(format, "json"))
		return http_error(r, 400, "parameter format: want json or csv");
	if (parse_range(r, &g) < 0 ||
	    http_arg_u64(r, "limit", VIEW_LIMIT, VIEW_LIMIT_MAX, &limit) < 0 ||
	    http_arg_u64(r, "offset", 0, IDX_MAX, &offset) < 0)
		return 0;
	if (!strcmp(views[v].name, "metric")) {
		/* The pairs in the view's order; the offset is skipped below. */
		sql = xasprintf(session_sampled(r, id) ? METRIC_ROWS_SAMPLED : METRIC_ROWS_STEP,
				http_metric_pairs_sql);
		w.pairs = http_prepare(r, sql);
		free(sql);
		if (!w.pairs)
			return 0;
		sqlite3_bind_null(w.pairs, 2);
		sql = xasprintf("SELECT id, session_id, tid, idx FROM interval WHERE session_id = ?1 "
				"AND %s AND idx BETWEEN ?3 AND ?4 ORDER BY tid, idx", TID_COND(&g));
	} else if (views[v].from_head) {
		sql = xasprintf("SELECT * FROM %s%s%s ORDER BY tid, interval, %s LIMIT ?5 OFFSET ?6",
				views[v].from_head, g.has_tid ? "i.tid = ?2" : "?2 IS NULL",
				views[v].from_tail, views[v].order);
	} else if (views[v].whole) {
		sql = xasprintf("SELECT * FROM %s WHERE session_id = ?1 AND %s AND ?3 <= ?4 "
				"ORDER BY tid, %s LIMIT ?5 OFFSET ?6", views[v].name, TID_COND(&g),
				views[v].order);
	} else {
		sql = xasprintf("SELECT * FROM %s WHERE session_id = ?1 AND %s "
				"AND interval BETWEEN ?3 AND ?4 ORDER BY tid, interval, %s "
				"LIMIT ?5 OFFSET ?6", views[v].name, TID_COND(&g), views[v].order);
	}
	w.st = http_prepare(r, sql);
	free(sql);
	if (!w.st) {
		http_finalize(w.pairs);
		return 0;
	}
	bind_range(w.st, id, &g);
	if (w.pairs) {
		ncol = METRIC_NCOLS;
		rc = SQLITE_ROW;
		for (uint64_t k = 0; k < offset && (rc = rows_step(&w)) == SQLITE_ROW; k++)
			;
	} else {
		sqlite3_bind_int64(w.st, 5, (int64_t)limit + 1);
		sqlite3_bind_int64(w.st, 6, (int64_t)offset);
		ncol = sqlite3_column_count(w.st);
		rc = SQLITE_ROW;
	}
	if (csv) {
		char *disp = xasprintf("attachment; filename=\"micad-session-%lld-%s.csv\"",
				       (long long)id, views[v].name);

		r->content_type = "text/csv; charset=utf-8";
		http_add_header(r, "Content-Disposition", disp);
		free(disp);
		for (int i = 0; i < ncol; i++) {
			if (i)
				jb_raw(&r->body, ",", 1);
			jb_puts(&r->body, w.pairs ? metric_columns[i] : sqlite3_column_name(w.st, i));
		}
		jb_raw(&r->body, "\n", 1);
		while (rc == SQLITE_ROW && (rc = rows_step(&w)) == SQLITE_ROW && n < (int64_t)limit) {
			for (int i = 0; i < ncol; i++) {
				q = rows_col(&w, i, &c);
				if (i)
					jb_raw(&r->body, ",", 1);
				csv_field(&r->body, q, c);
			}
			jb_raw(&r->body, "\n", 1);
			n++;
		}
		/* The next page of a CSV download (RFC 8288), since the body
		 * has no room to say it. */
		if (rc == SQLITE_ROW && limit) {
			char *next = xasprintf("<?offset=%lld>; rel=\"next\"", (long long)offset + n);

			http_add_header(r, "Link", next);
			free(next);
		}
	} else {
		jb_obj(&r->body);
		jb_key(&r->body, "session");
		jb_i64(&r->body, id);
		jb_key(&r->body, "view");
		jb_str(&r->body, views[v].name);
		jb_key(&r->body, "columns");
		jb_arr(&r->body);
		for (int i = 0; i < ncol; i++)
			jb_str(&r->body, w.pairs ? metric_columns[i] : sqlite3_column_name(w.st, i));
		jb_arr_end(&r->body);
		jb_key(&r->body, "rows");
		jb_arr(&r->body);
		while (rc == SQLITE_ROW && (rc = rows_step(&w)) == SQLITE_ROW && n < (int64_t)limit) {
			jb_arr(&r->body);
			for (int i = 0; i < ncol; i++) {
				q = rows_col(&w, i, &c);
				jb_column(&r->body, q, c);
			}
			jb_arr_end(&r->body);
			n++;
		}
		jb_arr_end(&r->body);
		jb_key(&r->body, "offset");
		jb_u64(&r->body, offset);
		jb_key(&r->body, "limit");
		jb_u64(&r->body, limit);
		jb_key(&r->body, "next_offset");
		/* limit=0 asks for no rows: no page follows. */
		if (rc == SQLITE_ROW && limit)
			jb_i64(&r->body, (int64_t)offset + n);
		else
			jb_null(&r->body);
		jb_obj_end(&r->body);
	}
	http_finalize(w.st);
	http_finalize(w.pairs);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(r);
	return 0;
}

/* ---- routing ---- */

static int
api_index(struct http_req *r)
{
	static const char *const endpoints[] = {
		"/api/sessions", "/api/sessions/{id}", "/api/sessions/{id}/threads",
		"/api/sessions/{id}/intervals", "/api/sessions/{id}/metrics",
		"/api/sessions/{id}/series?metric=NAME", "/api/sessions/{id}/overview?metric=NAME&tid=T",
		"/api/sessions/{id}/views/{view}", "/api/sessions/{id}/estimates",
		"/api/sessions/{id}/mgsim", "/api/sessions/{id}/mgsim/counters",
		"/api/sessions/{id}/mgsim/counters/{n}", "/api/sessions/{id}/mgsim/mmio?addr=A&size=S",
		"/api/sessions/{id}/mgsim/intervals", "/api/sessions/{id}/sched",
		"/api/sessions/{id}/profile", "/api/sessions/{id}/profile/functions",
		"/api/sessions/{id}/profile/rate", "/metrics",
	};

	jb_obj(&r->body);
	jb_key(&r->body, "api");
	jb_str(&r->body, "micad");
	jb_key(&r->body, "version");
	jb_i64(&r->body, 1);
	jb_key(&r->body, "uid");
	jb_u64(&r->body, r->uid);
	jb_key(&r->body, "endpoints");
	jb_arr(&r->body);
	for (size_t i = 0; i < sizeof(endpoints) / sizeof(endpoints[0]); i++)
		jb_str(&r->body, endpoints[i]);
	jb_arr_end(&r->body);
	jb_key(&r->body, "views");
	jb_arr(&r->body);
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		jb_str(&r->body, views[i].name);
	jb_arr_end(&r->body);
	jb_obj_end(&r->body);
	return 0;
}

int
http_api(struct http_req *r)
{
	unsigned long long id;
	const char *sub;
	bool running;
	int v;

	if (r->nseg == 1)
		return api_index(r);
	if (strcmp(r->segs[1], "sessions"))
		return http_error(r, 404, "no API endpoint /%s (see /api)", r->segs[1]);
	if (r->nseg == 2)
		return sessions_list(r);
	if (parse_u64(r->segs[2], &id) < 0 || id > (unsigned long long)INT64_MAX)
		return http_error(r, 404, "no session '%s': session ids are integers", r->segs[2]);
	v = http_session_visible(r, (int64_t)id, &running);
	if (v <= 0)
		return 0;
	sub = r->nseg > 3 ? r->segs[3] : NULL;
	/* A finished session's data no longer changes: its answers carry an
	 * ETag (the server's nonce, the request without its token) and a
	 * revalidation is a 304 that reads nothing more.  Not the MGSim view,
	 * whose reads count in the monitoring variables. */
	if (!running && (!sub || strcmp(sub, "mgsim"))) {
		char *key = http_uri_without_token(r->raw_uri), etag[64];
		uint64_t h = 14695981039346656037ull ^ r->srv->nonce;

		for (const unsigned char *p = (const unsigned char *)key; *p; p++)
			h = (h ^ *p) * 1099511628211ull;
		free(key);
		snprintf(etag, sizeof(etag), "W/\"s%llu-%016llx\"", id, (unsigned long long)h);
		http_add_header(r, MHD_HTTP_HEADER_ETAG, etag);
		r->cacheable = true;
		if (http_not_modified(r, etag)) {
			r->status = 304;
			return 0;
		}
	}
	if (r->nseg == 3)
		return session_detail(r, (int64_t)id);
	if (!strcmp(sub, "mgsim"))
		return http_api_mgsim(r, (int64_t)id, 4);
	if (!strcmp(sub, "profile"))
		return http_api_profile(r, (int64_t)id, 4);
	if (r->nseg == 5 && !strcmp(sub, "views"))
		return view_rows(r, (int64_t)id, r->segs[4]);
	if (r->nseg != 4)
		return http_error(r, 404, "no such API endpoint");
	if (!strcmp(sub, "threads"))
		return threads_list(r, (int64_t)id);
	if (!strcmp(sub, "intervals"))
		return intervals_list(r, (int64_t)id);
	if (!strcmp(sub, "metrics"))
		return metric_names(r, (int64_t)id);
	if (!strcmp(sub, "series"))
		return series(r, (int64_t)id);
	if (!strcmp(sub, "overview"))
		return overview(r, (int64_t)id);
	if (!strcmp(sub, "estimates"))
		return estimates(r, (int64_t)id);
	if (!strcmp(sub, "sched"))
		return http_api_sched(r, (int64_t)id);
	return http_error(r, 404, "no API endpoint '%s' for a session", sub);
}
