/*
 * /metrics in Prometheus text exposition format (version 0.0.4): for each
 * running session the asking uid may see (or the one named by
 * ?session=N), its progress (counters), its MGSim counters (counters for
 * the cumulative ones, a gauge for the others, one metric name and one
 * unit each; the packed date and time words are not numbers and are left
 * out) and the metrics of each thread's latest finished interval as
 * gauges labelled by session and thread, never by interval: a series per
 * session, thread and metric, however long the session runs.  Every
 * value is read through a primary key or thread_total (schema.sql), so a
 * scrape costs the same at the millionth interval as at the first.
 * Label values are escaped as the format requires and made valid UTF-8.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http/http_int.h"
#include "mgsim/mgsim.h"

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

static void
help(struct jbuf *b, const char *name, const char *type, const char *text)
{
	jb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/*
 * The MGSim counters (mgsim-counters.md, Model A) as Prometheus metrics:
 * the name says what is counted in which unit; NULL: not exported (the
 * packed date and time of counters 14 and 15 are bit fields, not
 * quantities).  Counter 13 is the host clock in seconds, a timestamp.
 */
static const struct {
	const char *name, *type, *help;
} mgsim_prom[MGSIM_NUM_COUNTERS] = {
	{ "micad_mgsim_master_cycles_total", "counter", "MGSim counter 0 (clocks): master clock cycles" },
	{ "micad_mgsim_executed_instructions_total", "counter", "MGSim counter 1 (n_exec_insns): instructions executed" },
	{ "micad_mgsim_issued_fp_instructions_total", "counter", "MGSim counter 2 (n_issued_flops): floating-point instructions issued" },
	{ "micad_mgsim_completed_load_instructions_total", "counter", "MGSim counter 3 (n_compl_core_loads): load instructions completed" },
	{ "micad_mgsim_completed_store_instructions_total", "counter", "MGSim counter 4 (n_compl_core_stores): store instructions completed" },
	{ "micad_mgsim_l1_to_core_bytes_total", "counter", "MGSim counter 5 (n_bytes_l1tocore): bytes loaded from L1 by the core" },
	{ "micad_mgsim_core_to_l1_bytes_total", "counter", "MGSim counter 6 (n_bytes_coretol1): bytes stored by the core to L1" },
	{ "micad_mgsim_l2_to_l1_lines_total", "counter", "MGSim counter 7 (n_reqs_l2tol1): cache lines read from L2 into L1" },
	{ "micad_mgsim_l1_to_l2_lines_total", "counter", "MGSim counter 8 (n_reqs_l1tol2): cache lines written from L1 to L2" },
	{ "micad_mgsim_place_cores", "gauge", "MGSim counter 9 (notused1): cores in the place" },
	{ "micad_mgsim_thread_table_occupancy_entry_cycles_total", "counter", "MGSim counter 10 (tt_total): thread table entries in use, summed over master cycles" },
	{ "micad_mgsim_family_table_occupancy_entry_cycles_total", "counter", "MGSim counter 11 (ft_total): family table entries in use, summed over master cycles" },
	{ "micad_mgsim_exclusive_queue_request_cycles_total", "counter", "MGSim counter 12 (xq_total): exclusive queue requests waiting, summed over master cycles" },
	{ "micad_mgsim_host_time_seconds", "gauge", "MGSim counter 13 (notused2): the host clock at the snapshot, Unix seconds" },
	{ NULL, NULL, NULL },
	{ NULL, NULL, NULL },
	{ "micad_mgsim_external_memory_load_lines_total", "counter", "MGSim counter 16 (n_cl_loads_ext): cache lines loaded from external memory" },
	{ "micad_mgsim_external_memory_store_lines_total", "counter", "MGSim counter 17 (n_cl_stores_ext): cache lines stored to external memory" },
	{ "micad_mgsim_created_threads_total", "counter", "MGSim counter 18 (n_cr_threads): threads created" },
	{ "micad_mgsim_created_families_total", "counter", "MGSim counter 19 (n_cr_families): families created" },
	{ "micad_mgsim_core_cycles_total", "counter", "MGSim counter 20 (core_clocks): core clock cycles" },
};

/*
 * The gauges of a thread's latest interval: one family per kind of value,
 * the variable part of the metric view's name (schema.sql, `metric`) as
 * labels.  Matched in order: the first prefix (or whole name, when exact)
 * that fits.
 */
enum split { WHOLE, REST, ORG_HIST, STRIDE, FOOT_DATA_BLOCK, FOOT_DATA_PAGE, FOOT_INSN_BLOCK,
	     FOOT_INSN_PAGE };

static const struct ifam {
	const char *prefix;
	bool exact;
	const char *name, *help;
	enum split split;
	const char *label;	/* REST: the label the rest of the name goes to */
	const char *fixed;	/* labels that come first, e.g. analysis="ilp" */
	double scale;
} ifams[] = {
	{ "ilp_one_", false, "micad_interval_ilp", "ILP of the latest interval: instructions per cycle of an ideal machine with a window of that many instructions", REST, "window", "analysis=\"ilp_one\"", 1 },
	{ "ilp_", false, "micad_interval_ilp", NULL, REST, "window", "analysis=\"ilp\"", 1 },
	{ "mix_", false, "micad_interval_instruction_mix_ratio", "Share of the latest interval's instructions in an itypes group (groups overlap)", REST, "group", NULL, 1 },
	{ "mispredict_", false, "micad_interval_misprediction_ratio", "Mispredictions per conditional branch of a PPM predictor in the latest interval", ORG_HIST, NULL, NULL, 1 },
	{ "mpki_", false, "micad_interval_mispredictions_per_instruction", "Mispredictions of a PPM predictor per instruction in the latest interval (MPKI / 1000)", ORG_HIST, NULL, NULL, 1e-3 },
	{ "taken_rate", true, "micad_interval_branch_taken_ratio", "Taken conditional branches per conditional branch (folded to at most 0.5) in the latest interval", WHOLE, NULL, NULL, 1 },
	{ "transition_rate", true, "micad_interval_branch_transition_ratio", "Conditional branches whose outcome changed, per conditional branch (folded) in the latest interval", WHOLE, NULL, NULL, 1 },
	{ "avg_register_operands", true, "micad_interval_register_operands_per_instruction", "Register operands read per instruction in the latest interval", WHOLE, NULL, NULL, 1 },
	{ "avg_degree_of_use", true, "micad_interval_register_uses_per_value", "Reads of each register value written, in the latest interval", WHOLE, NULL, NULL, 1 },
	{ "dependency_distance_le_", false, "micad_interval_dependency_distance_cdf_ratio", "Share of register reads whose producer is at most max_distance instructions back, latest interval", REST, "max_distance", NULL, 1 },
	{ "stride_", false, "micad_interval_stride_cdf_ratio", "Share of memory accesses (of the kind) with a stride of at most max_bytes bytes, latest interval", STRIDE, NULL, NULL, 1 },
	{ "data_footprint_bytes", true, "micad_interval_footprint_bytes", "Distinct memory touched in the latest interval, in whole blocks or pages", FOOT_DATA_BLOCK, NULL, NULL, 1 },
	{ "data_footprint_page_bytes", true, "micad_interval_footprint_bytes", NULL, FOOT_DATA_PAGE, NULL, NULL, 1 },
	{ "insn_footprint_bytes", true, "micad_interval_footprint_bytes", NULL, FOOT_INSN_BLOCK, NULL, NULL, 1 },
	{ "insn_footprint_page_bytes", true, "micad_interval_footprint_bytes", NULL, FOOT_INSN_PAGE, NULL, NULL, 1 },
	{ "reuse_bucket_", false, "micad_interval_reuse_distance_ratio", "Share of data reads with a reuse distance in the bucket [2^bucket, 2^(bucket+1)) blocks (bucket 0: below 2), latest interval", REST, "bucket", NULL, 1 },
	{ "reuse_cdf_", false, "micad_interval_reuse_distance_cdf_ratio", "Share of data reads with a reuse distance below the bucket's upper bound, latest interval", REST, "bucket", NULL, 1 },
	{ "reuse_cold", true, "micad_interval_cold_reference_ratio", "Share of data reads of a block never read before, latest interval", WHOLE, NULL, NULL, 1 },
};
#define N_IFAMS (sizeof(ifams) / sizeof(ifams[0]))

/* Families after the interval metrics' (indexes into samples' fam). */
enum { F_INSTRUCTIONS = N_IFAMS, F_IPC, F_THREAD_INS, F_THREAD_IVS, F_LAST, N_FAMS };

struct sample {
	unsigned fam;
	size_t seq;		/* order of addition: kept within a family */
	char *labels;		/* rendered, without braces */
	double v;
};

struct samples {
	struct sample *s;
	size_t n;
};

static void
add_sample(struct samples *ss, unsigned fam, char *labels, double v)
{
	ss->s = xreallocarray(ss->s, ss->n + 1, sizeof(*ss->s));
	ss->s[ss->n].fam = fam;
	ss->s[ss->n].seq = ss->n;
	ss->s[ss->n].labels = labels;
	ss->s[ss->n].v = v;
	ss->n++;
}

/* session="S",tid="T" and the labels of metric name m under family f. */
static char *
metric_labels(const struct ifam *f, const char *m, long long session, long long tid)
{
	const char *rest = m + strlen(f->prefix);
	struct jbuf b;

	jb_init(&b);
	jb_printf(&b, "session=\"%lld\",tid=\"%lld\"", session, tid);
	if (f->fixed)
		jb_printf(&b, ",%s", f->fixed);
	switch (f->split) {
	case WHOLE:
		break;
	case REST:
		jb_printf(&b, ",%s=", f->label);
		label_value(&b, rest);
		break;
	case ORG_HIST: {
		/* "GAg_4" */
		const char *u = strrchr(rest, '_');

		if (!u)
			break;
		jb_printf(&b, ",organization=\"%.*s\",history=", (int)(u - rest), rest);
		label_value(&b, u + 1);
		break;
	}
	case STRIDE: {
		/* "local_read_le_64" */
		const char *le = strstr(rest, "_le_");

		if (!le)
			break;
		jb_printf(&b, ",kind=\"%.*s\",max_bytes=", (int)(le - rest), rest);
		label_value(&b, le + 4);
		break;
	}
	case FOOT_DATA_BLOCK:
	case FOOT_DATA_PAGE:
	case FOOT_INSN_BLOCK:
	case FOOT_INSN_PAGE:
		jb_printf(&b, ",memory=\"%s\",granularity=\"%s\"",
			  f->split <= FOOT_DATA_PAGE ? "data" : "instructions",
			  f->split == FOOT_DATA_BLOCK || f->split == FOOT_INSN_BLOCK ? "block" : "page");
		break;
	}
	return jb_take(&b, NULL);
}

static const struct ifam *
metric_family(const char *m, unsigned *idx)
{
	for (unsigned i = 0; i < N_IFAMS; i++) {
		size_t n = strlen(ifams[i].prefix);

		if (ifams[i].exact ? !strcmp(m, ifams[i].prefix) : !strncmp(m, ifams[i].prefix, n)) {
			*idx = i;
			return &ifams[i];
		}
	}
	return NULL;
}

struct msession {
	int64_t id;
	char *mode, *command;
	int64_t intervals, instructions;
	bool running;
	uint64_t mgsim[MGSIM_NUM_COUNTERS];
	bool has_mgsim;
};

/* The latest stored MGSim snapshot of a session that is not live here
 * (index mgsim_counters_latest). */
static void
stored_mgsim(struct http_req *r, struct msession *m)
{
	struct jbuf sql;
	sqlite3_stmt *st;

	jb_init(&sql);
	jb_puts(&sql, "SELECT 1");
	for (unsigned c = 0; c < MGSIM_NUM_COUNTERS; c++)
		jb_printf(&sql, ", %s", mgsim_counter_info(c)->name);
	jb_puts(&sql, " FROM mgsim_counters WHERE session_id = ?1 "
		"ORDER BY clocks DESC, taken_at DESC LIMIT 1");
	st = http_prepare_quiet(r, sql.p);
	jb_free(&sql);
	if (!st)
		return;		/* a database without the MGSim tables */
	sqlite3_bind_int64(st, 1, m->id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		for (unsigned c = 0; c < MGSIM_NUM_COUNTERS; c++)
			m->mgsim[c] = (uint64_t)sqlite3_column_int64(st, 1 + (int)c);
		m->has_mgsim = true;
	}
	http_finalize(st);
}

/* Each thread's latest interval: its metrics, E and simulated IPC.  0, or
 * -1 when a query failed (out then lacks samples). */
static int
interval_samples(struct http_req *r, const struct msession *m, struct samples *out)
{
	sqlite3_stmt *t, *pairs, *ipc;
	int rc = SQLITE_ERROR, prc = SQLITE_DONE;

	t = http_prepare(r, "SELECT tt.tid, tt.last_idx, tt.last_interval_id, i.ins, tt.intervals, "
			 "tt.instructions FROM thread_total tt JOIN interval i ON i.id = "
			 "tt.last_interval_id WHERE tt.session_id = ?1 ORDER BY tt.tid");
	/* In the pairs' own order (each family's samples are gathered
	 * below): no sort. */
	pairs = t ? http_prepare(r, http_metric_pairs_sql) : NULL;
	/* NULL in a database without the scheduling model. */
	ipc = pairs ? http_prepare_quiet(r, "SELECT ipc FROM sched_interval WHERE session_id = ?1 "
					 "AND tid = ?2 AND idx = ?3") : NULL;
	if (!pairs)
		goto out;
	sqlite3_bind_int64(t, 1, m->id);
	while (prc == SQLITE_DONE && (rc = sqlite3_step(t)) == SQLITE_ROW) {
		long long tid = sqlite3_column_int64(t, 0), idx = sqlite3_column_int64(t, 1);

		add_sample(out, F_THREAD_INS, xasprintf("session=\"%lld\",tid=\"%lld\"",
			   (long long)m->id, tid), sqlite3_column_double(t, 5));
		add_sample(out, F_THREAD_IVS, xasprintf("session=\"%lld\",tid=\"%lld\"",
			   (long long)m->id, tid), sqlite3_column_double(t, 4));
		add_sample(out, F_LAST, xasprintf("session=\"%lld\",tid=\"%lld\"",
			   (long long)m->id, tid), (double)idx);
		add_sample(out, F_INSTRUCTIONS, xasprintf("session=\"%lld\",tid=\"%lld\"",
			   (long long)m->id, tid), sqlite3_column_double(t, 3));
		if (ipc) {
			sqlite3_reset(ipc);
			sqlite3_bind_int64(ipc, 1, m->id);
			sqlite3_bind_int64(ipc, 2, tid);
			sqlite3_bind_int64(ipc, 3, idx);
			prc = sqlite3_step(ipc);
			if (prc == SQLITE_ROW)
				add_sample(out, F_IPC, xasprintf("session=\"%lld\",tid=\"%lld\"",
					   (long long)m->id, tid), sqlite3_column_double(ipc, 0));
			else if (prc != SQLITE_DONE)
				break;
		}
		sqlite3_reset(pairs);
		sqlite3_bind_int64(pairs, 1, sqlite3_column_int64(t, 2));
		sqlite3_bind_null(pairs, 2);
		while ((prc = sqlite3_step(pairs)) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(pairs, 0);
			const struct ifam *f;
			unsigned fi;

			if (!name || !(f = metric_family(name, &fi)))
				continue;
			/* A ratio of nothing (no write, no branch in the
			 * interval) is NaN, not a missing sample: the series
			 * stay the same from one interval to the next. */
			add_sample(out, fi, metric_labels(f, name, (long long)m->id, tid),
				   sqlite3_column_type(pairs, 1) == SQLITE_NULL ? NAN :
				   sqlite3_column_double(pairs, 1) * f->scale);
		}
	}
out:
	http_finalize(ipc);
	http_finalize(pairs);
	http_finalize(t);
	return rc == SQLITE_DONE && prc == SQLITE_DONE ? 0 : -1;
}

static const struct {
	const char *name, *type, *help;
} other_fams[N_FAMS - N_IFAMS] = {
	[F_INSTRUCTIONS - N_IFAMS] = { "micad_interval_instructions", "gauge",
		"Instructions executed in the latest interval (E, REP iterations included)" },
	[F_IPC - N_IFAMS] = { "micad_interval_simulated_ipc", "gauge",
		"Instructions per cycle of the scheduling model in the latest interval" },
	[F_THREAD_INS - N_IFAMS] = { "micad_thread_instructions_total", "counter",
		"Instructions the thread executed up to its latest stored interval" },
	[F_THREAD_IVS - N_IFAMS] = { "micad_thread_intervals_total", "counter",
		"Intervals of the thread stored" },
	[F_LAST - N_IFAMS] = { "micad_thread_latest_interval", "gauge",
		"Index of the thread's latest stored interval, the one the micad_interval_* gauges describe" },
};

static int
cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->fam != y->fam)
		return (x->fam > y->fam) - (x->fam < y->fam);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static const char *
fam_name(unsigned f)
{
	return f < N_IFAMS ? ifams[f].name : other_fams[f - N_IFAMS].name;
}

/*
 * The gauges of the latest interval of each thread of the n sessions,
 * each family's samples together in a fixed order (stable within a
 * family: sessions, then threads, then the metric view's order), into g;
 * kept under key (http_keep) when every query succeeded.
 */
static void
interval_gauges(struct http_req *r, const struct msession *ss, size_t n, const char *key,
		struct jbuf *g)
{
	struct samples smp = { NULL, 0 };
	int failed = 0;

	for (size_t i = 0; i < n && http_db(r); i++)
		failed |= interval_samples(r, &ss[i], &smp);
	if (smp.n)
		qsort(smp.s, smp.n, sizeof(*smp.s), cmp_sample);
	for (size_t i = 0; i < smp.n; i++) {
		unsigned f = smp.s[i].fam;
		const char *name = fam_name(f);

		if (i == 0 || strcmp(name, fam_name(smp.s[i - 1].fam))) {
			const char *h = NULL;

			if (f < N_IFAMS) {
				/* The family's help is on its first entry. */
				for (unsigned k = 0; k < N_IFAMS && !h; k++)
					if (!strcmp(ifams[k].name, name))
						h = ifams[k].help;
				help(g, name, "gauge", h);
			} else {
				help(g, name, other_fams[f - N_IFAMS].type, other_fams[f - N_IFAMS].help);
			}
		}
		jb_printf(g, "%s{%s}", name, smp.s[i].labels);
		sample_double(g, smp.s[i].v);
	}
	for (size_t i = 0; i < smp.n; i++)
		free(smp.s[i].labels);
	free(smp.s);
	if (!failed && r->db)
		http_keep(r, key, g->p ? g->p : "", g->len);
}

int
http_metrics(struct http_req *r)
{
	struct jbuf *b = &r->body;
	struct msession *ss = NULL;
	struct jbuf key, gauges;
	const char *kept;
	size_t n = 0, kept_len;
	sqlite3_stmt *st;
	char *sql;
	int64_t only = 0;
	bool has_only;
	struct timespec now;

	jb_init(&key);
	jb_init(&gauges);
	if (http_arg_i64(r, "session", &only, &has_only) < 0)
		return 0;
	if (has_only && http_session_visible(r, only, NULL) <= 0)
		return 0;
	/* Per case, so that SQLite uses the (uid, id) index or the key. */
	sql = xasprintf("SELECT s.id, s.mode, s.command, s.end_reason = 'running', "
			"(SELECT coalesce(sum(intervals), 0) FROM thread_total WHERE session_id = s.id), "
			"(SELECT coalesce(sum(instructions), 0) FROM thread_total WHERE session_id = s.id) "
			"FROM session s WHERE %s AND %s ORDER BY s.id",
			r->uid ? "s.uid = ?1" : "?1 = 0",
			has_only ? "s.id = ?2" : "s.end_reason = 'running' AND ?2 IS NULL");
	st = http_prepare(r, sql);
	free(sql);
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, (int64_t)r->uid);
	if (has_only)
		sqlite3_bind_int64(st, 2, only);
	else
		sqlite3_bind_null(st, 2);
	while (sqlite3_step(st) == SQLITE_ROW) {
		ss = xreallocarray(ss, n + 1, sizeof(*ss));
		memset(&ss[n], 0, sizeof(ss[n]));
		ss[n].id = sqlite3_column_int64(st, 0);
		ss[n].mode = xstrdup((const char *)sqlite3_column_text(st, 1));
		ss[n].command = xstrdup((const char *)sqlite3_column_text(st, 2));
		ss[n].running = sqlite3_column_int(st, 3);
		ss[n].intervals = sqlite3_column_int64(st, 4);
		ss[n].instructions = sqlite3_column_int64(st, 5);
		n++;
	}
	http_finalize(st);

	/* Live state first (one consistent copy per session). */
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
				memcpy(ss[i].mgsim, lv.mgsim, sizeof(ss[i].mgsim));
				ss[i].has_mgsim = true;
				http_count_sample(r->srv, ss[i].id, MGSIM_NUM_COUNTERS);
			}
		}
		if (!ss[i].has_mgsim && http_db(r))
			stored_mgsim(r, &ss[i]);
	}

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
	help(b, "micad_session_instructions_total", "counter",
	     "Instructions executed (E, REP iterations included): live count, else the sum "
	     "over the threads' stored intervals");
	for (size_t i = 0; i < n; i++)
		jb_printf(b, "micad_session_instructions_total{session=\"%lld\"} %lld\n",
			  (long long)ss[i].id, (long long)ss[i].instructions);
	help(b, "micad_session_intervals_total", "counter", "Finished intervals");
	for (size_t i = 0; i < n; i++)
		jb_printf(b, "micad_session_intervals_total{session=\"%lld\"} %lld\n",
			  (long long)ss[i].id, (long long)ss[i].intervals);
	for (unsigned c = 0; c < MGSIM_NUM_COUNTERS; c++) {
		bool any = false;

		if (!mgsim_prom[c].name)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!ss[i].has_mgsim)
				continue;
			if (!any)
				help(b, mgsim_prom[c].name, mgsim_prom[c].type, mgsim_prom[c].help);
			any = true;
			jb_printf(b, "%s{session=\"%lld\"} %llu\n", mgsim_prom[c].name,
				  (long long)ss[i].id, (unsigned long long)ss[i].mgsim[c]);
		}
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

	/* The latest intervals' gauges, most of a scrape's work: kept for
	 * the next scrape of the same sessions while nothing new is stored. */
	jb_puts(&key, "metrics");
	for (size_t i = 0; i < n; i++)
		jb_printf(&key, " %lld", (long long)ss[i].id);
	kept = http_kept(r, key.p, &kept_len);
	if (kept) {
		jb_raw(b, kept, kept_len);
	} else {
		interval_gauges(r, ss, n, key.p, &gauges);
		jb_raw(b, gauges.p ? gauges.p : "", gauges.len);
	}
	{
		static const char *const why[3] = { "time", "size", "client_gone" };
		unsigned long long stopped[3];
		unsigned busy;

		http_stats(r->srv, &busy, stopped);
		help(b, "micad_http_requests_in_flight", "gauge",
		     "HTTP requests being answered, this scrape included");
		jb_printf(b, "micad_http_requests_in_flight %u\n", busy);
		help(b, "micad_http_requests_interrupted_total", "counter",
		     "HTTP requests whose queries were stopped: past the time budget (503), past "
		     "the answer size limit (413), or the client gone");
		for (int i = 0; i < 3; i++)
			jb_printf(b, "micad_http_requests_interrupted_total{reason=\"%s\"} %llu\n",
				  why[i], stopped[i]);
	}
	jb_free(&key);
	jb_free(&gauges);
	for (size_t i = 0; i < n; i++) {
		free(ss[i].mode);
		free(ss[i].command);
	}
	free(ss);
	return 0;
}
