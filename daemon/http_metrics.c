/*
 * /metrics in Prometheus text exposition format (version 0.0.4): for each
 * running session the asking uid may see (or the one named by
 * ?session=N), its progress, its live MGSim counters and the metrics of
 * each thread's latest finished interval, so one Prometheus can scrape
 * many hosts.  Label values are escaped as the format requires and made
 * valid UTF-8.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_int.h"
#include "mgsim.h"

/*
 * A label value between double quotes.  The text format escapes only
 * backslash, double quote and line feed (as \\, \" and \n) and wants UTF-8,
 * but a target's command line or a path may hold any bytes.  Invalid UTF-8
 * and the other control characters (a CR ends the line for some readers,
 * an ESC drives the terminal of whoever reads the scrape) become the four
 * characters \xNN (the backslash escaped in the output), so the scrape
 * parses and still shows which byte it was.
 */
static void
label_value(struct jbuf *b, const char *v)
{
	const unsigned char *s = (const unsigned char *)(v ? v : "");
	size_t n = strlen((const char *)s);

	jb_raw(b, "\"", 1);
	for (size_t i = 0; i < n;) {
		size_t l;

		if (s[i] == '\\') {
			jb_raw(b, "\\\\", 2);
			i++;
		} else if (s[i] == '"') {
			jb_raw(b, "\\\"", 2);
			i++;
		} else if (s[i] == '\n') {
			jb_raw(b, "\\n", 2);
			i++;
		} else if (s[i] < 0x20 || s[i] == 0x7f || !(l = utf8_len(s + i, n - i))) {
			jb_printf(b, "\\\\x%02x", s[i]);
			i++;
		} else {
			jb_raw(b, (const char *)s + i, l);
			i += l;
		}
	}
	jb_raw(b, "\"", 1);
}

static void
sample_double(struct jbuf *b, double v)
{
	char tmp[40];

	if (isnan(v))
		jb_puts(b, " NaN\n");
	else if (isinf(v))
		jb_puts(b, v > 0 ? " +Inf\n" : " -Inf\n");
	else {
		fmt_double(tmp, sizeof(tmp), v);
		jb_printf(b, " %s\n", tmp);
	}
}

struct msession {
	int64_t id;
	char *mode, *command;
	int64_t intervals, instructions;
	bool running;
	uint64_t *mgsim;	/* live counters, or NULL */
};

static void
help(struct jbuf *b, const char *name, const char *type, const char *text)
{
	jb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

int
http_metrics(struct http_req *r)
{
	struct jbuf *b = &r->body;
	struct msession *ss = NULL;
	size_t n = 0;
	sqlite3_stmt *st, *mst;
	char *msql;
	int64_t only = 0;
	bool has_only;
	struct timespec now;

	if (http_arg_i64(r, "session", &only, &has_only) < 0)
		return 0;
	if (has_only && http_session_visible(r, only, NULL) <= 0)
		return 0;
	st = http_prepare(r, "SELECT s.id, s.mode, s.command, s.end_reason = 'running', "
			  "(SELECT count(*) FROM interval i WHERE i.session_id = s.id), "
			  "(SELECT coalesce(sum(i.total_ins), 0) FROM thread t JOIN interval i ON i.id = "
			  "(SELECT id FROM interval WHERE session_id = s.id AND tid = t.tid "
			  "ORDER BY idx DESC LIMIT 1) WHERE t.session_id = s.id) "
			  "FROM session s WHERE (?1 = 0 OR s.uid = ?1) AND "
			  "(CASE WHEN ?2 IS NULL THEN s.end_reason = 'running' ELSE s.id = ?2 END) "
			  "ORDER BY s.id");
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, (int64_t)r->uid);
	if (has_only)
		sqlite3_bind_int64(st, 2, only);
	else
		sqlite3_bind_null(st, 2);
	while (sqlite3_step(st) == SQLITE_ROW) {
		ss = xreallocarray(ss, n + 1, sizeof(*ss));
		ss[n].id = sqlite3_column_int64(st, 0);
		ss[n].mode = xstrdup((const char *)sqlite3_column_text(st, 1));
		ss[n].command = xstrdup((const char *)sqlite3_column_text(st, 2));
		ss[n].running = sqlite3_column_int(st, 3);
		ss[n].intervals = sqlite3_column_int64(st, 4);
		ss[n].instructions = sqlite3_column_int64(st, 5);
		ss[n].mgsim = NULL;
		n++;
	}
	sqlite3_finalize(st);

	r->content_type = "text/plain; version=0.0.4; charset=utf-8";
	help(b, "micad_session_running", "gauge",
	     "1 while the session is traced (sessions listed: the running ones, or ?session=N)");
	for (size_t i = 0; i < n; i++) {
		jb_printf(b, "micad_session_running{session=\"%lld\",mode=", (long long)ss[i].id);
		label_value(b, ss[i].mode);
		jb_puts(b, ",command=");
		label_value(b, ss[i].command);
		jb_printf(b, "} %d\n", ss[i].running);
	}

	/* Live state first: each family's samples must be contiguous. */
	for (size_t i = 0; i < n; i++) {
		struct http_live lv;

		memset(&lv, 0, sizeof(lv));
		if (ss[i].running && r->srv->live && r->srv->live(r->srv->live_arg, ss[i].id, &lv)) {
			ss[i].instructions = (int64_t)lv.instructions;
			ss[i].intervals = (int64_t)lv.intervals;
			if (lv.has_mgsim) {
				/* One clock reading for 13-15; a read of all 21
				 * counters for the monitoring variables (§5.1). */
				clock_gettime(CLOCK_REALTIME, &now);
				mgsim_apply_clock(lv.mgsim, &now, false);
				ss[i].mgsim = xmalloc(sizeof(lv.mgsim));
				memcpy(ss[i].mgsim, lv.mgsim, sizeof(lv.mgsim));
				http_count_sample(r->srv, ss[i].id, MGSIM_NUM_COUNTERS);
			}
		}
	}
	help(b, "micad_session_instructions_total", "counter",
	     "Instructions executed (E, REP iterations included): live count, else the sum "
	     "over stored intervals");
	for (size_t i = 0; i < n; i++)
		jb_printf(b, "micad_session_instructions_total{session=\"%lld\"} %lld\n",
			  (long long)ss[i].id, (long long)ss[i].instructions);
	help(b, "micad_session_intervals_total", "counter", "Finished intervals");
	for (size_t i = 0; i < n; i++)
		jb_printf(b, "micad_session_intervals_total{session=\"%lld\"} %lld\n",
			  (long long)ss[i].id, (long long)ss[i].intervals);
	help(b, "micad_mgsim_counter", "gauge",
	     "MGSim counter (Model A, mgsim-counters.md) of a live session; name = slcore's column");
	for (size_t i = 0; i < n; i++) {
		for (unsigned c = 0; ss[i].mgsim && c < MGSIM_NUM_COUNTERS; c++)
			jb_printf(b, "micad_mgsim_counter{session=\"%lld\",index=\"%u\",name=\"%s\"} "
				  "%llu\n", (long long)ss[i].id, c, mgsim_counter_info(c)->name,
				  (unsigned long long)ss[i].mgsim[c]);
	}
	help(b, "micad_mgsim_sample_ops_total", "counter",
	     "MGSim monitoring variables nCycleSampleOps (kind=cycle) and nOtherSampleOps "
	     "(kind=other): counter reads served for the session");
	for (size_t i = 0; i < n; i++) {
		uint64_t cyc, oth;

		http_sample_ops(r->srv, ss[i].id, &cyc, &oth);
		jb_printf(b, "micad_mgsim_sample_ops_total{session=\"%lld\",kind=\"cycle\"} %llu\n",
			  (long long)ss[i].id, (unsigned long long)cyc);
		jb_printf(b, "micad_mgsim_sample_ops_total{session=\"%lld\",kind=\"other\"} %llu\n",
			  (long long)ss[i].id, (unsigned long long)oth);
	}

	help(b, "micad_interval_metric", "gauge",
	     "Metrics of each thread's latest finished interval (names as in the metric view)");
	/* Each thread's latest interval, then its metrics by interval id. */
	st = http_prepare(r, "SELECT i.tid, i.idx, i.id FROM thread t JOIN interval i ON i.id = "
			  "(SELECT id FROM interval WHERE session_id = ?1 AND tid = t.tid "
			  "ORDER BY idx DESC LIMIT 1) WHERE t.session_id = ?1 ORDER BY t.tid");
	msql = xasprintf("%s ORDER BY metric", http_metric_pairs_sql);
	mst = st ? http_prepare(r, msql) : NULL;
	free(msql);
	for (size_t i = 0; mst && i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, ss[i].id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			long long tid = sqlite3_column_int64(st, 0), idx = sqlite3_column_int64(st, 1);

			sqlite3_reset(mst);
			sqlite3_bind_int64(mst, 1, sqlite3_column_int64(st, 2));
			while (sqlite3_step(mst) == SQLITE_ROW) {
				if (sqlite3_column_type(mst, 1) == SQLITE_NULL)
					continue;
				jb_printf(b, "micad_interval_metric{session=\"%lld\",tid=\"%lld\","
					  "interval=\"%lld\",metric=", (long long)ss[i].id, tid, idx);
				label_value(b, (const char *)sqlite3_column_text(mst, 0));
				jb_raw(b, "}", 1);
				sample_double(b, sqlite3_column_double(mst, 1));
			}
		}
	}
	sqlite3_finalize(mst);
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++) {
		free(ss[i].mode);
		free(ss[i].command);
		free(ss[i].mgsim);
	}
	free(ss);
	return 0;
}
