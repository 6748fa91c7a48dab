/*
 * micactl export: a session's results out of the database, as MICA's own
 * files (rebuilt into struct mica_interval values and written by the same
 * formatter as --mica-out: byte-identical), or as CSV or JSON with one
 * row or object per interval.  A sample-mode session's records carry
 * its bursts and every metric's estimate and 95% confidence interval,
 * and its MICA files say, in a comment at the top, that their counts are
 * sums over bursts; its call-stack profile goes out as folded stacks or
 * pprof (export_profile.c).
 */
#include "config.h"

#include <errno.h>
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "client/export_profile.h"
#include "client/results_db.h"
#include "commands.h"
#include "mica/mica_output.h"
#include "mica_files.h"
#include "store/store_json.h"
#include "util.h"

enum format { F_MICA, F_CSV, F_JSON, F_FOLDED, F_PPROF };

struct export_opts {
	enum format format;
	bool one_thread;
	int64_t tid;
	int64_t lo, hi;		/* interval indexes, inclusive */
	const char *out;
	const char *db;
};

struct session {
	int64_t id;
	struct mica_config cfg;
	unsigned n_groups;	/* itypes user groups */
	bool sampled;		/* engine 'sample' */
	char *event, *weighting;	/* sample mode; NULL: not said */
	char **group_names;	/* their names as CSV/JSON field names (itypes_NAME) */
};

struct thread {
	int64_t tid, files_pid;
	bool files_pid_always;
	struct mica_output *out;	/* --format mica */
	/* The thread's itypes catch-all categories (cumulative list). */
	char **other;
	size_t n_other;
};

/* A metric's estimate in sample mode (view metric). */
struct ex_estimate {
	char *metric;
	bool has[3];
	double v[3];		/* value, ci_low, ci_high */
};

/* One interval read back, with the storage its pointers point into. */
struct ex_interval {
	struct mica_interval iv;
	int64_t idx;
	double started_at, ended_at;	/* < 0: NULL */
	uint64_t *counts;
	/* sample mode */
	uint64_t bursts, aborted, warmup_ins;
	struct ex_estimate *est;
	size_t n_est;
};

enum { Q_INTERVALS, Q_ILP, Q_ITYPES, Q_PPM, Q_PPM_BRANCHES, Q_REG, Q_STRIDE_TOTAL, Q_STRIDE,
       Q_FOOTPRINT, Q_MSD, Q_MSD_BUCKET, Q_OTHER, Q_SAMPLE, Q_ESTIMATES, N_QUERIES };

static const char *const query_sql[N_QUERIES] = {
	/* In the order they were written, which is the order the analyses
	 * finished them: MICA's files of several threads then interleave as
	 * the live run's did (itypes_other_group_categories.txt is shared). */
	[Q_INTERVALS] = "SELECT id, idx, full, final, ins, ins_aligned, total_ins, total_ins_aligned,"
			" started_at, ended_at, tid FROM interval WHERE session_id = ?1"
			" AND (?2 IS NULL OR tid = ?2) AND idx BETWEEN ?3 AND ?4 ORDER BY id",
	[Q_ILP] = "SELECT analysis, window, cycles FROM ilp WHERE interval_id = ?1"
		  " ORDER BY analysis, window",
	[Q_ITYPES] = "SELECT grp, count FROM itypes WHERE interval_id = ?1 ORDER BY grp",
	[Q_PPM] = "SELECT predictor_id, misses FROM ppm WHERE interval_id = ?1",
	[Q_PPM_BRANCHES] = "SELECT branches, transitions, taken FROM ppm_branches"
			   " WHERE interval_id = ?1",
	[Q_REG] = "SELECT operands, values_, uses, reads, c1, c2, c4, c8, c16, c32, c64 FROM reg"
		  " WHERE interval_id = ?1",
	[Q_STRIDE_TOTAL] = "SELECT reads, writes, first_reads, first_writes FROM stride_total"
			   " WHERE interval_id = ?1",
	[Q_STRIDE] = "SELECT kind, le, count FROM stride WHERE interval_id = ?1",
	[Q_FOOTPRINT] = "SELECT data_blocks, data_pages, insn_blocks, insn_pages FROM memfootprint"
			" WHERE interval_id = ?1",
	[Q_MSD] = "SELECT refs, cold, censored, horizon FROM memstackdist WHERE interval_id = ?1",
	[Q_MSD_BUCKET] = "SELECT bucket, count FROM memstackdist_bucket WHERE interval_id = ?1",
	[Q_OTHER] = "SELECT category FROM itypes_other WHERE session_id = ?1 AND tid = ?2"
		    " ORDER BY seq",
	[Q_SAMPLE] = "SELECT bursts, aborted, warmup_ins FROM sample_interval"
		     " WHERE session_id = ?1 AND tid = ?2 AND idx = ?3",
	[Q_ESTIMATES] = "SELECT metric, value, ci_low, ci_high FROM metric"
			" WHERE session_id = ?1 AND tid = ?2 AND interval = ?3 ORDER BY metric",
};

struct reader {
	sqlite3 *db;
	const char *path;
	sqlite3_stmt *q[N_QUERIES];
	const struct session *s;
};

static const char *const stride_kinds[4] = {
	"local_read", "global_read", "local_write", "global_write"
};
static const int64_t stride_le[MICA_STRIDE_CUM] = { 0, 8, 64, 512, 4096, 32768, 262144 };
static const char *const ppm_orgs[MICA_PPM_ORGS] = { "GAg", "PAg", "GAs", "PAs" };
static const unsigned ppm_lengths[MICA_PPM_LENGTHS] = { 4, 8, 12 };
static const unsigned reg_dist[MICA_REG_CUM] = { 1, 2, 4, 8, 16, 32, 64 };

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: micactl export SESSION [OPTIONS]\n"
		"\n"
		"Write the results of a session from the results database.\n"
		"\n"
		"Options:\n"
		"  -f, --format FMT     mica: MICA's own output files, byte for byte what\n"
		"                       --mica-out writes (the default); csv or json: one\n"
		"                       row or object per interval.  Sample mode: the\n"
		"                       counts are sums over bursts (the MICA files say\n"
		"                       so in a first '#' line), and csv and json add\n"
		"                       n_bursts and every metric's estimate, METRIC_ci_low\n"
		"                       and METRIC_ci_high (95%%); folded (flamegraph.pl,\n"
		"                       inferno, speedscope) or pprof (gzipped profile.proto,\n"
		"                       go tool pprof): a sample-mode session's call stacks\n"
		"  -t, --thread TID     only this thread (default: every thread); also --tid\n"		"  -i, --intervals A..B only intervals A to B (0-based, inclusive; A.., ..B\n"
		"                       or a single N); also --from A and --to B\n"
		"  -o, --output PATH    mica: the directory for the files (default: the\n"
		"                       current directory); the others: the file (default:\n"
		"                       standard output)\n"
		"      --db FILE        the results database (default: the per-user one)\n"
		"  -h, --help           this help\n");
}

/* "A..B", "A..", "..B" or "N" */
static int
parse_range(const char *s, int64_t *lo, int64_t *hi)
{
	const char *dots = strstr(s, "..");
	unsigned long long a = 0, b = INT64_MAX;
	char *first;

	if (!dots)
		return parse_u64(s, &a) < 0 || a > INT64_MAX ? -1 : (*lo = *hi = (int64_t)a, 0);
	first = xasprintf("%.*s", (int)(dots - s), s);
	if ((*first && parse_u64(first, &a) < 0) || (dots[2] && parse_u64(dots + 2, &b) < 0) ||
	    a > INT64_MAX || b > INT64_MAX) {
		free(first);
		return -1;
	}
	free(first);
	*lo = (int64_t)a;
	*hi = (int64_t)b;
	return 0;
}

static int
sql_fail(const struct reader *r, const char *what)
{
	error_msg("%s: %s: %s", r->path, what, sqlite3_errmsg(r->db));
	return -1;
}

/* Bind interval_id and step: true if a row came. */
static bool
row_of(sqlite3_stmt *q, int64_t id)
{
	sqlite3_reset(q);
	sqlite3_bind_int64(q, 1, id);
	return sqlite3_step(q) == SQLITE_ROW;
}

static uint64_t
col_u64(sqlite3_stmt *q, int i)
{
	return (uint64_t)sqlite3_column_int64(q, i);
}

/*
 * reg keeps MICA's 11 numbers, not the histograms behind them: rebuild
 * histograms that give the same numbers through mica_reg_numbers().  Uses
 * are capped at 127 per value (§3.4), so totUses <= 127 nVals and the
 * split into floor/ceil of the mean fits the histogram.
 */
static int
reg_from_numbers(struct mica_reg_result *r, const uint64_t v[MICA_REG_NUMBERS])
{
	uint64_t vals = v[1], uses = v[2], q, prev = 0;

	memset(r, 0, sizeof(*r));
	r->op_count[1] = v[0];
	if (vals) {
		q = uses / vals;
		if (q >= MICA_REG_HIST - 1 && uses % vals)
			return -1;
		r->use_dist[q] = vals - uses % vals;
		if (uses % vals)
			r->use_dist[q + 1] = uses % vals;
	} else if (uses) {
		return -1;
	}
	for (int d = 0; d < MICA_REG_CUM; d++) {
		if (v[4 + d] < prev)
			return -1;
		r->age_dist[reg_dist[d]] = v[4 + d] - prev;
		prev = v[4 + d];
	}
	if (v[3] < prev)
		return -1;
	r->age_dist[MICA_REG_HIST - 1] = v[3] - prev;
	return 0;
}

static void
free_interval(struct ex_interval *x)
{
	for (size_t i = 0; i < x->n_est; i++)
		free(x->est[i].metric);
	free(x->est);
	free(x->counts);
}

/* Sample mode: the interval's bursts and its metrics' estimates.  -1 if
 * its sample_interval row is missing. */
static int
read_sample(struct reader *r, const struct thread *t, struct ex_interval *x)
{
	sqlite3_stmt *q = r->q[Q_SAMPLE];

	sqlite3_reset(q);
	sqlite3_bind_int64(q, 1, r->s->id);
	sqlite3_bind_int64(q, 2, t->tid);
	sqlite3_bind_int64(q, 3, x->idx);
	if (sqlite3_step(q) != SQLITE_ROW)
		return -1;
	x->bursts = col_u64(q, 0);
	x->aborted = col_u64(q, 1);
	x->warmup_ins = col_u64(q, 2);
	q = r->q[Q_ESTIMATES];
	sqlite3_reset(q);
	sqlite3_bind_int64(q, 1, r->s->id);
	sqlite3_bind_int64(q, 2, t->tid);
	sqlite3_bind_int64(q, 3, x->idx);
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct ex_estimate *e;

		x->est = xreallocarray(x->est, x->n_est + 1, sizeof(*x->est));
		e = &x->est[x->n_est++];
		e->metric = xstrdup((const char *)sqlite3_column_text(q, 0));
		for (int c = 0; c < 3; c++) {
			e->has[c] = sqlite3_column_type(q, 1 + c) != SQLITE_NULL;
			e->v[c] = sqlite3_column_double(q, 1 + c);
		}
	}
	return 0;
}

/* The rows of one interval of thread t back into x (the interval row is
 * the current row of Q_INTERVALS).  -1 after reporting what is missing. */
static int
read_interval(struct reader *r, const struct thread *t, struct ex_interval *x)
{
	int64_t tid = t->tid;
	sqlite3_stmt *iq = r->q[Q_INTERVALS], *q;
	const struct session *s = r->s;
	struct mica_interval *iv = &x->iv;
	int64_t id = sqlite3_column_int64(iq, 0);
	const char *missing = NULL;

	memset(x, 0, sizeof(*x));
	x->idx = sqlite3_column_int64(iq, 1);
	iv->tid = (uint32_t)tid;
	iv->index = (uint64_t)x->idx;
	iv->full = sqlite3_column_int64(iq, 2) != 0;
	iv->final = sqlite3_column_int64(iq, 3) != 0;
	iv->ins = col_u64(iq, 4);
	iv->ins_aligned = col_u64(iq, 5);
	iv->total_ins = col_u64(iq, 6);
	iv->total_ins_aligned = col_u64(iq, 7);
	x->started_at = sqlite3_column_type(iq, 8) == SQLITE_NULL ? -1 : sqlite3_column_double(iq, 8);
	x->ended_at = sqlite3_column_type(iq, 9) == SQLITE_NULL ? -1 : sqlite3_column_double(iq, 9);
	/* Sample mode: MICA's per-boundary lines start with the interval's H
	 * (its intervals are in time, not every S instructions). */
	iv->interval_size = s->sampled ? (int64_t)iv->ins_aligned : s->cfg.interval_size;
	iv->analyses = s->cfg.analyses;
	iv->sampled = s->sampled;

	if (iv->analyses & (MICA_BIT(MICA_ILP) | MICA_BIT(MICA_ILP_ONE))) {
		q = r->q[Q_ILP];
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		while (sqlite3_step(q) == SQLITE_ROW) {
			bool one = strcmp((const char *)sqlite3_column_text(q, 0), "ilp_one") == 0;
			struct mica_ilp_result *l = one ? &iv->ilp_one : &iv->ilp;

			if (l->n_windows == MICA_ILP_WINDOWS)
				break;
			l->window[l->n_windows] = (uint32_t)sqlite3_column_int64(q, 1);
			l->cycles[l->n_windows++] = col_u64(q, 2);
		}
		if ((iv->analyses & MICA_BIT(MICA_ILP)) && iv->ilp.n_windows != MICA_ILP_WINDOWS)
			missing = "ilp";
		if ((iv->analyses & MICA_BIT(MICA_ILP_ONE)) && iv->ilp_one.n_windows != 1)
			missing = "ilp (ilp_one)";
	}
	if (iv->analyses & MICA_BIT(MICA_ITYPES)) {
		unsigned n = 0;

		x->counts = xcalloc(s->n_groups + 1, sizeof(*x->counts));
		q = r->q[Q_ITYPES];
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		while (sqlite3_step(q) == SQLITE_ROW) {
			int64_t g = sqlite3_column_int64(q, 0);

			if (g >= 0 && g <= (int64_t)s->n_groups) {
				x->counts[g] = col_u64(q, 1);
				n++;
			}
		}
		if (n != s->n_groups + 1)
			missing = "itypes";
		iv->itypes.n_groups = s->n_groups;
		iv->itypes.counts = x->counts;
		iv->itypes.other = (const char *const *)t->other;
		iv->itypes.n_other = t->n_other;
	}
	if (iv->analyses & MICA_BIT(MICA_PPM)) {
		unsigned n = 0;

		q = r->q[Q_PPM];
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		while (sqlite3_step(q) == SQLITE_ROW) {
			int64_t p = sqlite3_column_int64(q, 0);

			if (p >= 0 && p < MICA_PPM_LENGTHS * MICA_PPM_ORGS) {
				iv->ppm.miss[p / MICA_PPM_ORGS][p % MICA_PPM_ORGS] = col_u64(q, 1);
				n++;
			}
		}
		q = r->q[Q_PPM_BRANCHES];
		if (n != MICA_PPM_LENGTHS * MICA_PPM_ORGS || !row_of(q, id)) {
			missing = "ppm";
		} else {
			iv->ppm.branches = col_u64(q, 0);
			iv->ppm.transitions = col_u64(q, 1);
			iv->ppm.taken = col_u64(q, 2);
		}
	}
	if (iv->analyses & MICA_BIT(MICA_REG)) {
		uint64_t v[MICA_REG_NUMBERS];

		q = r->q[Q_REG];
		if (!row_of(q, id)) {
			missing = "reg";
		} else {
			for (int i = 0; i < MICA_REG_NUMBERS; i++)
				v[i] = col_u64(q, i);
			if (reg_from_numbers(&iv->reg, v) < 0)
				missing = "consistent reg";
		}
	}
	if (iv->analyses & MICA_BIT(MICA_STRIDE)) {
		uint64_t *cum[4] = { iv->stride.local_read, iv->stride.global_read,
				     iv->stride.local_write, iv->stride.global_write };
		unsigned n = 0;

		q = r->q[Q_STRIDE];
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		while (sqlite3_step(q) == SQLITE_ROW) {
			const char *kind = (const char *)sqlite3_column_text(q, 0);
			int64_t le = sqlite3_column_int64(q, 1);

			for (int k = 0; k < 4; k++)
				for (int d = 0; d < MICA_STRIDE_CUM; d++)
					if (strcmp(kind, stride_kinds[k]) == 0 && le == stride_le[d]) {
						cum[k][d] = col_u64(q, 2);
						n++;
					}
		}
		q = r->q[Q_STRIDE_TOTAL];
		if (n != 4 * MICA_STRIDE_CUM || !row_of(q, id)) {
			missing = "stride";
		} else {
			iv->stride.reads = col_u64(q, 0);
			iv->stride.writes = col_u64(q, 1);
			iv->stride.first_reads = col_u64(q, 2);
			iv->stride.first_writes = col_u64(q, 3);
		}
	}
	if (iv->analyses & MICA_BIT(MICA_MEMFOOTPRINT)) {
		q = r->q[Q_FOOTPRINT];
		if (!row_of(q, id)) {
			missing = "memfootprint";
		} else {
			iv->memfootprint.data_blocks = col_u64(q, 0);
			iv->memfootprint.data_pages = col_u64(q, 1);
			iv->memfootprint.insn_blocks = col_u64(q, 2);
			iv->memfootprint.insn_pages = col_u64(q, 3);
		}
	}
	if (iv->analyses & MICA_BIT(MICA_MEMSTACKDIST)) {
		unsigned n = 0;

		q = r->q[Q_MSD_BUCKET];
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		while (sqlite3_step(q) == SQLITE_ROW) {
			int64_t b = sqlite3_column_int64(q, 0);

			if (b >= 0 && b < MICA_MSD_BUCKETS) {
				iv->memstackdist.bucket[b] = col_u64(q, 1);
				n++;
			}
		}
		q = r->q[Q_MSD];
		if (n != MICA_MSD_BUCKETS || !row_of(q, id)) {
			missing = "memstackdist";
		} else {
			iv->memstackdist.refs = col_u64(q, 0);
			iv->memstackdist.cold = col_u64(q, 1);
			iv->memstackdist.censored = col_u64(q, 2);
			iv->memstackdist.horizon = col_u64(q, 3);
		}
	}
	if (s->sampled && !missing && read_sample(r, t, x) < 0)
		missing = "sample_interval";
	if (missing) {
		error_msg("%s: interval %" PRId64 " of thread %" PRId64 " of session %" PRId64
			  " has no %s rows", r->path, x->idx, tid, s->id, missing);
		free_interval(x);
		return -1;
	}
	return 0;
}

static int
load_other(struct reader *r, struct thread *t)
{
	sqlite3_stmt *q = r->q[Q_OTHER];
	int rc;

	sqlite3_reset(q);
	sqlite3_bind_int64(q, 1, r->s->id);
	sqlite3_bind_int64(q, 2, t->tid);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		t->other = xreallocarray(t->other, t->n_other + 1, sizeof(*t->other));
		t->other[t->n_other++] = xstrdup((const char *)sqlite3_column_text(q, 0));
	}
	return rc == SQLITE_DONE ? 0 : sql_fail(r, "reading itypes_other");
}

static void
free_threads(struct thread *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < t[i].n_other; k++)
			free(t[i].other[k]);
		free(t[i].other);
		mica_output_free(t[i].out);
	}
	free(t);
}

/*
 * CSV and JSON: one flat record per interval, fields in a fixed order
 * that depends only on the session's analyses (and itypes group count).
 */
struct sink {
	FILE *f;
	enum format format;
	bool header;	/* CSV: print the names, not the values */
	unsigned n;	/* fields so far in this record */
	int64_t session;
	unsigned long records;
	char *const *group_names;	/* itypes groups, as field names */
};

static void
field_begin(struct sink *k, const char *name)
{
	if (k->format == F_JSON) {
		fputs(k->n++ ? "," : "{", k->f);
		json_put_string(k->f, name);
		putc(':', k->f);
	} else {
		if (k->n++)
			putc(',', k->f);
		if (k->header)
			fputs(name, k->f);
	}
}

static void
put_u(struct sink *k, const char *name, uint64_t v)
{
	field_begin(k, name);
	if (!k->header || k->format == F_JSON)
		fprintf(k->f, "%" PRIu64, v);
}

/* A flag: true/false in JSON, 1/0 in CSV (a number a spreadsheet sums). */
static void
put_bool(struct sink *k, const char *name, bool v)
{
	field_begin(k, name);
	if (k->format == F_JSON)
		fputs(v ? "true" : "false", k->f);
	else if (!k->header)
		putc(v ? '1' : '0', k->f);
}

static void
put_time(struct sink *k, const char *name, double v)
{
	field_begin(k, name);
	if (k->header && k->format == F_CSV)
		return;
	if (v < 0)
		fputs(k->format == F_JSON ? "null" : "", k->f);
	else
		fprintf(k->f, "%.6f", v);
}

/* A real number, or null (JSON) / nothing (CSV); C locale digits. */
static void
put_real(struct sink *k, const char *name, bool has, double v)
{
	field_begin(k, name);
	if (k->header && k->format == F_CSV)
		return;
	if (!has)
		fputs(k->format == F_JSON ? "null" : "", k->f);
	else
		fprintf(k->f, "%.10g", v);
}

static void
put_uf(struct sink *k, uint64_t v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
put_uf(struct sink *k, uint64_t v, const char *fmt, ...)
{
	char name[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	put_u(k, name, v);
}

static void
emit_record(struct sink *k, const struct ex_interval *x)
{
	const struct mica_interval *iv = &x->iv;
	uint64_t reg[MICA_REG_NUMBERS];

	k->n = 0;
	put_u(k, "session", (uint64_t)k->session);
	put_u(k, "tid", iv->tid);
	put_u(k, "interval", iv->index);
	put_bool(k, "full", iv->full);
	put_bool(k, "final", iv->final);
	put_u(k, "ins", iv->ins);
	put_u(k, "ins_aligned", iv->ins_aligned);
	put_u(k, "total_ins", iv->total_ins);
	put_u(k, "total_ins_aligned", iv->total_ins_aligned);
	put_time(k, "started_at", x->started_at);
	put_time(k, "ended_at", x->ended_at);
	if (iv->analyses & MICA_BIT(MICA_ILP))
		for (unsigned w = 0; w < iv->ilp.n_windows; w++)
			put_uf(k, iv->ilp.cycles[w], "ilp_%u_cycles", iv->ilp.window[w]);
	if (iv->analyses & MICA_BIT(MICA_ILP_ONE))
		put_uf(k, iv->ilp_one.cycles[0], "ilp_one_%u_cycles", iv->ilp_one.window[0]);
	if (iv->analyses & MICA_BIT(MICA_ITYPES)) {
		for (unsigned g = 0; g < iv->itypes.n_groups; g++)
			put_uf(k, iv->itypes.counts[g], "itypes_%s", k->group_names[g]);
		put_u(k, "itypes_other", iv->itypes.counts[iv->itypes.n_groups]);
	}
	if (iv->analyses & MICA_BIT(MICA_PPM)) {
		for (int l = 0; l < MICA_PPM_LENGTHS; l++)
			for (int o = 0; o < MICA_PPM_ORGS; o++)
				put_uf(k, iv->ppm.miss[l][o], "ppm_%s_%u_misses", ppm_orgs[o],
				       ppm_lengths[l]);
		put_u(k, "ppm_branches", iv->ppm.branches);
		put_u(k, "ppm_transitions", iv->ppm.transitions);
		put_u(k, "ppm_taken", iv->ppm.taken);
	}
	if (iv->analyses & MICA_BIT(MICA_REG)) {
		mica_reg_numbers(&iv->reg, reg);
		put_u(k, "reg_operands", reg[0]);
		put_u(k, "reg_values", reg[1]);
		put_u(k, "reg_uses", reg[2]);
		put_u(k, "reg_reads", reg[3]);
		for (int d = 0; d < MICA_REG_CUM; d++)
			put_uf(k, reg[4 + d], "reg_distance_le_%u", reg_dist[d]);
	}
	if (iv->analyses & MICA_BIT(MICA_STRIDE)) {
		const uint64_t *cum[4] = { iv->stride.local_read, iv->stride.global_read,
					   iv->stride.local_write, iv->stride.global_write };

		put_u(k, "stride_reads", iv->stride.reads);
		put_u(k, "stride_writes", iv->stride.writes);
		for (int s = 0; s < 4; s++)
			for (int d = 0; d < MICA_STRIDE_CUM; d++)
				put_uf(k, cum[s][d], "stride_%s_le_%" PRId64, stride_kinds[s],
				       stride_le[d]);
	}
	if (iv->analyses & MICA_BIT(MICA_MEMFOOTPRINT)) {
		put_u(k, "footprint_data_blocks", iv->memfootprint.data_blocks);
		put_u(k, "footprint_data_pages", iv->memfootprint.data_pages);
		put_u(k, "footprint_insn_blocks", iv->memfootprint.insn_blocks);
		put_u(k, "footprint_insn_pages", iv->memfootprint.insn_pages);
	}
	if (iv->analyses & MICA_BIT(MICA_MEMSTACKDIST)) {
		put_u(k, "memstackdist_refs", iv->memstackdist.refs);
		put_u(k, "memstackdist_cold", iv->memstackdist.cold);
		for (int b = 0; b < MICA_MSD_BUCKETS; b++)
			put_uf(k, iv->memstackdist.bucket[b], "memstackdist_bucket_%d", b);
	}
	if (iv->sampled) {
		char name[160];

		put_u(k, "n_bursts", x->bursts);
		put_u(k, "aborted_bursts", x->aborted);
		put_u(k, "warmup_ins", x->warmup_ins);
		if (iv->analyses & MICA_BIT(MICA_STRIDE)) {
			put_u(k, "stride_first_reads", iv->stride.first_reads);
			put_u(k, "stride_first_writes", iv->stride.first_writes);
		}
		if (iv->analyses & MICA_BIT(MICA_MEMSTACKDIST)) {
			put_u(k, "memstackdist_censored", iv->memstackdist.censored);
			put_u(k, "memstackdist_horizon", iv->memstackdist.horizon);
		}
		/* every metric of the view: its estimate, then its CI */
		for (size_t i = 0; i < x->n_est; i++) {
			const struct ex_estimate *e = &x->est[i];

			put_real(k, e->metric, e->has[0], e->v[0]);
			snprintf(name, sizeof(name), "%s_ci_low", e->metric);
			put_real(k, name, e->has[1], e->v[1]);
			snprintf(name, sizeof(name), "%s_ci_high", e->metric);
			put_real(k, name, e->has[2], e->v[2]);
		}
	}
	if (k->format == F_JSON)
		putc('}', k->f);
	else
		putc('\n', k->f);
}

/* The session's row and MICA settings.  -1 after reporting why. */
static int
load_session(struct reader *r, int64_t id, struct session *s)
{
	sqlite3_stmt *q;
	char *text, err[512];
	int rc;

	memset(s, 0, sizeof(*s));
	s->id = id;
	mica_config_init(&s->cfg);
	if (sqlite3_prepare_v2(r->db, "SELECT analysis_type, interval_size, ilp_size, block_size,"
			       " page_size, append_pid, engine, sample_event, weighting FROM session"
			       " WHERE id = ?", -1, &q, NULL) != SQLITE_OK)
		return sql_fail(r, "reading the session");
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(q);
		if (rc != SQLITE_DONE)
			return sql_fail(r, "reading the session");
		error_msg("no session %" PRId64 " in %s (micactl query 'SELECT id, command FROM "
			  "session' lists them)", id, r->path);
		return -1;
	}
	if (sqlite3_column_type(q, 0) == SQLITE_NULL) {
		sqlite3_finalize(q);
		error_msg("session %" PRId64 " in %s has no MICA settings recorded: nothing to "
			  "export", id, r->path);
		return -1;
	}
	/* The settings through mica.conf's own parser and checks. */
	if (sqlite3_column_int64(q, 1) == MICA_FULL)
		text = xasprintf("analysis_type: %s\ninterval_size: full\n",
				 (const char *)sqlite3_column_text(q, 0));
	else
		text = xasprintf("analysis_type: %s\ninterval_size: %lld\n",
				 (const char *)sqlite3_column_text(q, 0),
				 (long long)sqlite3_column_int64(q, 1));
	if (sqlite3_column_int64(q, 2) > 0) {
		char *t = xasprintf("%silp_size: %lld\n", text, (long long)sqlite3_column_int64(q, 2));

		free(text);
		text = t;
	}
	rc = mica_config_parse(&s->cfg, "(session settings)", text, strlen(text), err, sizeof(err));
	free(text);
	if (rc < 0) {
		sqlite3_finalize(q);
		error_msg("session %" PRId64 " in %s: %s", id, r->path, err);
		return -1;
	}
	s->cfg.block_size = (unsigned)sqlite3_column_int64(q, 3);
	s->cfg.page_size = (unsigned)sqlite3_column_int64(q, 4);
	s->cfg.append_pid = sqlite3_column_int64(q, 5) != 0;
	s->sampled = sqlite3_column_text(q, 6) &&
		     strcmp((const char *)sqlite3_column_text(q, 6), "sample") == 0;
	if (s->sampled) {
		/* intervals in time: MICA's interval-mode ("phases") files */
		s->cfg.interval_size = 0;
		if (sqlite3_column_text(q, 7))
			s->event = xstrdup((const char *)sqlite3_column_text(q, 7));
		if (sqlite3_column_text(q, 8))
			s->weighting = xstrdup((const char *)sqlite3_column_text(q, 8));
	}
	sqlite3_finalize(q);

	if (s->cfg.analyses & MICA_BIT(MICA_ITYPES)) {
		if (sqlite3_prepare_v2(r->db, "SELECT count(*) FROM itypes_group WHERE session_id = ?",
				       -1, &q, NULL) != SQLITE_OK)
			return sql_fail(r, "reading the itypes groups");
		sqlite3_bind_int64(q, 1, id);
		if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int64(q, 0) > 0)
			s->n_groups = (unsigned)sqlite3_column_int64(q, 0) - 1;
		sqlite3_finalize(q);
		if (!s->n_groups) {
			error_msg("session %" PRId64 " in %s has no itypes group names recorded",
				  id, r->path);
			return -1;
		}
		/* Field names after the groups (itypes_mem_read, ...): letters,
		 * digits and '_' (a custom group's "A+B" becomes A_B). */
		if (sqlite3_prepare_v2(r->db, "SELECT grp, name FROM itypes_group WHERE session_id = ? "
				       "AND grp < ? ORDER BY grp", -1, &q, NULL) != SQLITE_OK)
			return sql_fail(r, "reading the itypes groups");
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, s->n_groups);
		s->group_names = xcalloc(s->n_groups, sizeof(*s->group_names));
		while (sqlite3_step(q) == SQLITE_ROW) {
			int64_t g = sqlite3_column_int64(q, 0);
			const char *name = (const char *)sqlite3_column_text(q, 1);
			char *c;

			if (g < 0 || g >= (int64_t)s->n_groups || !name || s->group_names[g])
				continue;
			s->group_names[g] = xstrdup(name);
			for (c = s->group_names[g]; *c; c++)
				if (!isalnum((unsigned char)*c) && *c != '_')
					*c = '_';
		}
		sqlite3_finalize(q);
		for (unsigned g = 0; g < s->n_groups; g++)
			if (!s->group_names[g])
				s->group_names[g] = xasprintf("%u", g);
	}
	return 0;
}

/* The session's threads in the order they started (or the one asked
 * for).  -1 after reporting why. */
static int
load_threads(struct reader *r, const struct export_opts *o, struct thread **out, size_t *n)
{
	sqlite3_stmt *q;
	struct thread *t = NULL;
	size_t k = 0;
	int rc;

	if (sqlite3_prepare_v2(r->db, "SELECT tid, files_pid, files_pid_always FROM thread"
			       " WHERE session_id = ? ORDER BY rowid", -1, &q, NULL) != SQLITE_OK)
		return sql_fail(r, "reading the threads");
	sqlite3_bind_int64(q, 1, r->s->id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (o->one_thread && sqlite3_column_int64(q, 0) != o->tid)
			continue;
		t = xreallocarray(t, k + 1, sizeof(*t));
		memset(&t[k], 0, sizeof(t[k]));
		t[k].tid = sqlite3_column_int64(q, 0);
		t[k].files_pid = sqlite3_column_int64(q, 1);
		t[k].files_pid_always = sqlite3_column_int64(q, 2) != 0;
		k++;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		free_threads(t, k);
		return sql_fail(r, "reading the threads");
	}
	for (size_t i = 0; i < k; i++) {
		if ((r->s->cfg.analyses & MICA_BIT(MICA_ITYPES)) && load_other(r, &t[i]) < 0) {
			free_threads(t, k);
			return -1;
		}
	}
	if (k == 0) {
		if (o->one_thread)
			error_msg("session %" PRId64 " has no thread %" PRId64 " (micactl query "
				  "'SELECT tid FROM thread WHERE session_id = %" PRId64 "' lists them)",
				  r->s->id, o->tid, r->s->id);
		else
			error_msg("session %" PRId64 " has no threads: nothing to export", r->s->id);
		return -1;
	}
	*out = t;
	*n = k;
	return 0;
}

/* The intervals in the range (of one thread with --thread), each handed
 * to fn with its thread.  Returns how many, or -1. */
static long
each_interval(struct reader *r, const struct export_opts *o, struct thread *threads,
	      size_t n_threads, int (*fn)(void *arg, struct thread *t, const struct ex_interval *x),
	      void *arg)
{
	sqlite3_stmt *q = r->q[Q_INTERVALS];
	long n = 0;
	int rc;

	sqlite3_reset(q);
	sqlite3_bind_int64(q, 1, r->s->id);
	if (o->one_thread)
		sqlite3_bind_int64(q, 2, o->tid);
	sqlite3_bind_int64(q, 3, o->lo);
	sqlite3_bind_int64(q, 4, o->hi);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(q, 10);
		struct thread *t = NULL;
		struct ex_interval x;
		int fr;

		for (size_t i = 0; i < n_threads && !t; i++)
			if (threads[i].tid == tid)
				t = &threads[i];
		if (!t) {
			error_msg("%s: session %" PRId64 " has intervals of thread %" PRId64
				  " but no row for that thread", r->path, r->s->id, tid);
			return -1;
		}
		if (read_interval(r, t, &x) < 0)
			return -1;
		fr = fn(arg, t, &x);
		free_interval(&x);
		if (fr < 0)
			return -1;
		n++;
	}
	if (rc != SQLITE_DONE)
		return sql_fail(r, "reading the intervals");
	return n;
}

/* MICA's files: each thread's named as --mica-out named them. */
static int
mica_one(void *arg, struct thread *t, const struct ex_interval *x)
{
	const char *dir = arg;

	if (mica_output_add(t->out, &x->iv) < 0) {
		error_msg("out of memory formatting the MICA files");
		return -1;
	}
	return mica_files_flush(t->out, dir);
}

static int
mica_begin(const struct session *s, struct thread *t, const char *dir)
{
	struct mica_config c = s->cfg;

	if (t->files_pid_always)
		c.append_pid = true;
	t->out = mica_output_new(&c, (long)t->files_pid);
	if (!t->out)
		error_msg_and_die("out of memory");
	if (mica_files_begin(t->out, dir) < 0)
		return -1;
	if (s->sampled) {
		char *text = xasprintf("micad sample mode (event %s, %s-weighted): each line's "
				       "counts are sums over the measured units of its interval's "
				       "bursts, not the whole run; their ratios estimate the "
				       "program's (95%% intervals: micactl query 'SELECT * FROM "
				       "metric_estimate WHERE session_id = %" PRId64 "')",
				       s->event ? s->event : "unknown",
				       s->weighting ? s->weighting : "unknown", s->id);
		int rc = mica_output_comment(t->out, text);

		free(text);
		if (rc < 0)
			error_msg_and_die("out of memory");
	}
	return 0;
}

static int
record_one(void *arg, struct thread *t, const struct ex_interval *x)
{
	struct sink *k = arg;

	(void)t;
	if (k->records == 0 && k->format == F_CSV) {
		k->header = true;
		emit_record(k, x);
		k->header = false;
	}
	if (k->format == F_JSON)
		fputs(k->records ? ",\n" : "[\n", k->f);
	emit_record(k, x);
	k->records++;
	return 0;
}

static int
export(struct reader *r, const struct export_opts *o)
{
	struct thread *threads = NULL;
	size_t n_threads = 0;
	struct sink k = { .format = o->format, .session = r->s->id,
			  .group_names = r->s->group_names };
	const char *dir = o->out ? o->out : ".";
	long total = 0;
	int ret = 1;

	if (load_threads(r, o, &threads, &n_threads) < 0)
		return 1;
	if (o->format == F_MICA) {
		if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
			perror_msg("cannot create the directory %s for the MICA files", dir);
			goto out;
		}
	} else if (o->out) {
		if (!(k.f = output_fopen(o->out, "the export")))
			goto out;
	} else {
		k.f = stdout;
	}
	if (o->format == F_MICA) {
		for (size_t i = 0; i < n_threads; i++)
			if (mica_begin(r->s, &threads[i], dir) < 0)
				goto out;
		total = each_interval(r, o, threads, n_threads, mica_one, (void *)dir);
	} else {
		total = each_interval(r, o, threads, n_threads, record_one, &k);
	}
	if (total < 0)
		goto out;
	if (total == 0) {
		if (o->lo == 0 && o->hi == INT64_MAX)
			error_msg("session %" PRId64 " has no intervals yet", r->s->id);
		else
			error_msg("session %" PRId64 " has no intervals in %" PRId64 "..%" PRId64,
				  r->s->id, o->lo, o->hi);
		goto out;
	}
	if (o->format == F_JSON)
		fputs("\n]\n", k.f);
	ret = 0;
out:
	if (k.f && k.f != stdout && fclose(k.f) != 0 && ret == 0) {
		perror_msg("cannot write the export '%s'", o->out);
		ret = 1;
	}
	if (k.f == stdout && fflush(stdout) != 0 && ret == 0) {
		perror_msg("cannot write the standard output");
		ret = 1;
	}
	free_threads(threads, n_threads);
	return ret;
}

int
cmd_ctl_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "thread", required_argument, NULL, 't' },
		{ "tid", required_argument, NULL, 't' },
		{ "intervals", required_argument, NULL, 'i' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct export_opts o = { .format = F_MICA, .lo = 0, .hi = INT64_MAX };
	struct reader r = { 0 };
	struct session s;
	unsigned long long v;
	char *path = NULL;
	struct store *st = NULL;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "f:t:i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "mica") == 0) {
				o.format = F_MICA;
			} else if (strcmp(optarg, "csv") == 0) {
				o.format = F_CSV;
			} else if (strcmp(optarg, "json") == 0) {
				o.format = F_JSON;
			} else if (strcmp(optarg, "folded") == 0) {
				o.format = F_FOLDED;
			} else if (strcmp(optarg, "pprof") == 0) {
				o.format = F_PPROF;
			} else {
				error_msg("--format: '%s' is not one of mica, csv, json, folded, pprof",
					  optarg);
				return 2;
			}
			break;
		case 't':
			if (parse_u64(optarg, &v) < 0 || v > INT32_MAX) {
				error_msg("--thread: '%s' is not a thread id", optarg);
				return 2;
			}
			o.one_thread = true;
			o.tid = (int64_t)v;
			break;
		case 'i':
			if (parse_range(optarg, &o.lo, &o.hi) < 0 || o.lo > o.hi) {
				error_msg("--intervals: '%s' is not a range A..B of interval numbers "
					  "(A <= B)", optarg);
				return 2;
			}
			break;
		case 'F':
		case 'T':
			if (parse_u64(optarg, &v) < 0 || v > INT64_MAX) {
				error_msg("--%s: '%s' is not an interval number", c == 'F' ? "from" : "to",
					  optarg);
				return 2;
			}
			*(c == 'F' ? &o.lo : &o.hi) = (int64_t)v;
			break;
		case 'o':
			o.out = optarg;
			break;
		case 'd':
			o.db = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		error_msg(optind == argc ? "export: which session? (micactl export SESSION)"
			  : "export: one session at a time");
		usage(stderr);
		return 2;
	}
	if (parse_u64(argv[optind], &v) < 0 || v == 0 || v > INT64_MAX) {
		error_msg("export: '%s' is not a session number", argv[optind]);
		return 2;
	}
	if (o.lo > o.hi) {
		error_msg("--from/--to: the range %" PRId64 "..%" PRId64 " is empty", o.lo, o.hi);
		return 2;
	}
	if (!(path = results_db_path(o.db)) || !(st = results_db_open(path)))
		goto out;
	r.db = store_sqlite(st);
	r.path = path;
	if (o.format == F_FOLDED || o.format == F_PPROF) {
		struct profile_range pr;

		profile_range_init(&pr, (int64_t)v);
		pr.one_thread = o.one_thread;
		pr.tid = o.tid;
		pr.from = o.lo;
		pr.to = o.hi;
		ret = export_profile(r.db, path, o.format == F_PPROF ? PROFILE_PPROF : PROFILE_FOLDED,
				     &pr, o.out);
		goto out;
	}
	for (int i = 0; i < N_QUERIES; i++)
		if (sqlite3_prepare_v2(r.db, query_sql[i], -1, &r.q[i], NULL) != SQLITE_OK) {
			sql_fail(&r, "preparing the export");
			goto out;
		}
	if (load_session(&r, (int64_t)v, &s) >= 0) {
		r.s = &s;
		ret = export(&r, &o);
	}
	for (unsigned g = 0; s.group_names && g < s.n_groups; g++)
		free(s.group_names[g]);
	free(s.group_names);
	mica_config_free(&s.cfg);
	free(s.event);
	free(s.weighting);
out:
	for (int i = 0; i < N_QUERIES; i++)
		sqlite3_finalize(r.q[i]);
	store_close(st);
	free(path);
	return ret;
}
