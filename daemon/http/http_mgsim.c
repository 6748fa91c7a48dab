/*
 * The MGSim counter view of a session (mgsim-counters.md, Model A):
 *   .../mgsim                  discovery (21 counters, base, the ASR
 *                              block), each counter's definition and
 *                              mapping, the model's settings, the
 *                              monitoring variables
 *   .../mgsim/counters         a snapshot of the 21 counters: live for a
 *                              running session, else the last interval
 *                              snapshot; ?since=TID:IDX gives an mtperf
 *                              interval record (before, after, deltas,
 *                              pl_eff, tt_occp, ft_occp, xq_avg)
 *   .../mgsim/counters/N       one counter
 *   .../mgsim/mmio?addr&size   a read decoded with MGSim's MMIO rules
 *   .../mgsim/intervals        cumulative values at each interval end
 *                              (table mgsim_counters), deltas and rates
 *                              per interval, derived columns
 * Reads of the counters count in the monitoring variables as §5.1 says:
 * a snapshot is 1 cycle read + 20 others, one counter is one read.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http/http_int.h"
#include "mgsim/mgsim.h"

struct snapshot {
	uint64_t v[MGSIM_NUM_COUNTERS];
	bool live;
	int64_t tid, idx;	/* the boundary's interval (not live) */
	double at;		/* Unix time of the boundary or the live read */
};

/* The model's settings of a session (table mgsim_config; the defaults
 * when the session has none). */
static void
session_config(struct http_req *r, int64_t session, struct mgsim_config *c)
{
	sqlite3_stmt *st;

	mgsim_config_default(c);
	if (!(st = http_prepare_quiet(r, "SELECT core_mhz, master_mhz, l1i_size, l1i_assoc, "
			       "l1i_line, l1d_size, l1d_assoc, l1d_line, l1d_policy, l2_size, l2_assoc, "
			       "l2_line, cycle_model, l2_latency, mem_latency, thread_entries, "
			       "family_entries, xq_mode, mmio_base, time_format FROM mgsim_config "
			       "WHERE session_id = ?")))
		return;		/* a database from before the MGSim view */
	sqlite3_bind_int64(st, 1, session);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *t;

		c->core_mhz = (uint32_t)sqlite3_column_int64(st, 0);
		c->master_mhz = (uint32_t)sqlite3_column_int64(st, 1);
		c->l1i.size = (uint64_t)sqlite3_column_int64(st, 2);
		c->l1i.assoc = (uint32_t)sqlite3_column_int64(st, 3);
		c->l1i.line = (uint32_t)sqlite3_column_int64(st, 4);
		c->l1d.size = (uint64_t)sqlite3_column_int64(st, 5);
		c->l1d.assoc = (uint32_t)sqlite3_column_int64(st, 6);
		c->l1d.line = (uint32_t)sqlite3_column_int64(st, 7);
		t = (const char *)sqlite3_column_text(st, 8);
		c->l1d_policy = t && !strcmp(t, "write-back") ? MGSIM_WRITE_BACK : MGSIM_WRITE_THROUGH;
		c->has_l2 = sqlite3_column_type(st, 9) != SQLITE_NULL;
		if (c->has_l2) {
			c->l2.size = (uint64_t)sqlite3_column_int64(st, 9);
			c->l2.assoc = (uint32_t)sqlite3_column_int64(st, 10);
			c->l2.line = (uint32_t)sqlite3_column_int64(st, 11);
		}
		/* Names the server knows (the string must outlive st). */
		t = (const char *)sqlite3_column_text(st, 12);
		if (t)
			c->cycle_model = !strcmp(t, "simple") ? "simple" : "scheduling";
		c->l2_latency = (uint32_t)sqlite3_column_int64(st, 13);
		c->mem_latency = (uint32_t)sqlite3_column_int64(st, 14);
		c->thread_entries = (uint32_t)sqlite3_column_int64(st, 15);
		c->family_entries = (uint32_t)sqlite3_column_int64(st, 16);
		t = (const char *)sqlite3_column_text(st, 17);
		c->xq_mode = t && !strcmp(t, "off") ? MGSIM_XQ_OFF : MGSIM_XQ_FUTEX;
		c->mmio_base = (uint64_t)sqlite3_column_int64(st, 18);
		t = (const char *)sqlite3_column_text(st, 19);
		c->alpha_time = t && !strcmp(t, "alpha");
		/* Never divide by zero in the derived columns. */
		if (!c->core_mhz)
			c->core_mhz = 1;
		if (!c->master_mhz)
			c->master_mhz = c->core_mhz;
		if (!c->thread_entries)
			c->thread_entries = 256;
		if (!c->family_entries)
			c->family_entries = 32;
	}
	http_finalize(st);
}

/* ", a.clocks, a.n_exec_insns, ..." */
static void
counter_columns(struct jbuf *b, const char *a)
{
	for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
		jb_printf(b, ", %s.%s", a, mgsim_counter_info(i)->name);
}

static void
row_counters(sqlite3_stmt *st, int first, uint64_t *v)
{
	for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
		v[i] = (uint64_t)sqlite3_column_int64(st, first + (int)i);
}

/* Prepare on the request's database; NULL after a 404 when the database
 * has no MGSim tables (written before the MGSim view existed). */
static sqlite3_stmt *
prepare_mgsim(struct http_req *r, struct jbuf *sql)
{
	sqlite3_stmt *st;

	if (!http_db(r))
		return NULL;
	if (!(st = http_prepare_quiet(r, sql->p))) {
		http_error(r, 404, "no MGSim counters in this database (%s)", sqlite3_errmsg(r->db));
		return NULL;
	}
	return st;
}

/* The live snapshot (running here, with a model), with one clock reading
 * for counters 13-15. */
static bool
live_snapshot(struct http_req *r, int64_t session, struct snapshot *s)
{
	struct http_live lv;
	struct timespec now;

	if (!r->srv->live)
		return false;
	memset(&lv, 0, sizeof(lv));
	if (!r->srv->live(r->srv->live_arg, session, &lv) || !lv.has_mgsim)
		return false;
	clock_gettime(CLOCK_REALTIME, &now);
	memcpy(s->v, lv.mgsim, sizeof(s->v));
	mgsim_apply_clock(s->v, &now, false);
	s->live = true;
	s->tid = s->idx = -1;
	s->at = (double)now.tv_sec + now.tv_nsec / 1e9;
	return true;
}

/* The snapshot "TID:IDX" (IDX "start" or -1: the thread's start), or the
 * latest one when spec is NULL.  1: found, 0: error sent. */
static int
stored_snapshot(struct http_req *r, int64_t session, const char *spec, struct snapshot *s)
{
	int64_t tid = 0, idx = 0;
	sqlite3_stmt *st;
	struct jbuf sql;
	int ok = 0;

	if (spec) {
		unsigned long long t, i;
		const char *colon = strchr(spec, ':');
		char tb[32];

		if (!colon || (size_t)(colon - spec) >= sizeof(tb))
			return http_error(r, 400, "want a snapshot as TID:INDEX (the end of that "
					  "interval) or TID:start");
		memcpy(tb, spec, (size_t)(colon - spec));
		tb[colon - spec] = '\0';
		if (parse_u64(tb, &t) < 0 || t > INT64_MAX)
			return http_error(r, 400, "want a snapshot as TID:INDEX or TID:start");
		if (!strcmp(colon + 1, "start") || !strcmp(colon + 1, "-1"))
			idx = -1;
		else if (parse_u64(colon + 1, &i) < 0 || i > INT64_MAX)
			return http_error(r, 400, "want a snapshot as TID:INDEX or TID:start");
		else
			idx = (int64_t)i;
		tid = (int64_t)t;
	}
	jb_init(&sql);
	jb_puts(&sql, "SELECT c.tid, c.idx, c.taken_at");
	counter_columns(&sql, "c");
	jb_puts(&sql, " FROM mgsim_counters c WHERE c.session_id = ?1");
	if (spec)
		jb_puts(&sql, " AND c.tid = ?2 AND c.idx = ?3");
	else
		jb_puts(&sql, " ORDER BY c.clocks DESC, c.taken_at DESC LIMIT 1");
	st = prepare_mgsim(r, &sql);
	jb_free(&sql);
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, session);
	if (spec) {
		sqlite3_bind_int64(st, 2, tid);
		sqlite3_bind_int64(st, 3, idx);
	}
	if (sqlite3_step(st) == SQLITE_ROW) {
		row_counters(st, 3, s->v);
		s->live = false;
		s->tid = sqlite3_column_int64(st, 0);
		s->idx = sqlite3_column_int64(st, 1);
		s->at = sqlite3_column_double(st, 2);
		ok = 1;
	} else if (spec) {
		http_error(r, 404, "no MGSim snapshot %s in session %lld", spec, (long long)session);
	} else {
		http_error(r, 404, "no MGSim counters recorded for session %lld",
			   (long long)session);
	}
	http_finalize(st);
	return ok;
}

static void
counters_obj(struct jbuf *b, const uint64_t *v)
{
	jb_obj(b);
	for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++) {
		jb_key(b, mgsim_counter_info(i)->name);
		jb_u64(b, v[i]);
	}
	jb_obj_end(b);
}

static void
source_fields(struct jbuf *b, const struct snapshot *s)
{
	jb_key(b, "source");
	jb_str(b, s->live ? "live" : "interval");
	jb_key(b, "snapshot");
	if (s->live) {
		jb_null(b);
	} else {
		char tmp[64];

		if (s->idx < 0)
			snprintf(tmp, sizeof(tmp), "%lld:start", (long long)s->tid);
		else
			snprintf(tmp, sizeof(tmp), "%lld:%lld", (long long)s->tid, (long long)s->idx);
		jb_str(b, tmp);
	}
	jb_key(b, "at");
	jb_double(b, s->at);
}

static void
derived_obj(struct jbuf *b, const struct mgsim_derived *d)
{
	jb_obj(b);
	jb_key(b, "pl_eff");
	jb_double(b, d->pl_eff);
	jb_key(b, "tt_occp");
	jb_double(b, d->tt_occp);
	jb_key(b, "ft_occp");
	jb_double(b, d->ft_occp);
	jb_key(b, "xq_avg");
	jb_double(b, d->xq_avg);
	jb_obj_end(b);
}

/* Δ of cumulative counters (null for 9 and the clock readings 13-15). */
static void
delta_obj(struct jbuf *b, const uint64_t *before, const uint64_t *after)
{
	jb_obj(b);
	for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++) {
		const struct mgsim_counter_info *ci = mgsim_counter_info(i);

		jb_key(b, ci->name);
		if (ci->cumulative)
			jb_u64(b, after[i] - before[i]);
		else
			jb_null(b);
	}
	jb_obj_end(b);
}

/* The current snapshot: live if the session runs here, else the latest
 * boundary.  1 or 0 (error sent). */
static int
current(struct http_req *r, int64_t session, struct snapshot *s)
{
	const char *at = http_arg(r, "at");

	if (at && strcmp(at, "live") && strcmp(at, "latest"))
		return stored_snapshot(r, session, at, s);
	if ((!at || !strcmp(at, "live")) && live_snapshot(r, session, s))
		return 1;
	if (at && !strcmp(at, "live"))
		return http_error(r, 404, "session %lld has no live MGSim snapshot (not running "
				  "here, or no model)", (long long)session);
	return stored_snapshot(r, session, NULL, s);
}

static int
counters(struct http_req *r, int64_t session)
{
	const char *since = http_arg(r, "since");
	struct snapshot s, b0;
	struct mgsim_config cfg;
	struct mgsim_derived d;
	struct jbuf *b = &r->body;

	if (!current(r, session, &s))
		return 0;
	if (since && !stored_snapshot(r, session, since, &b0))
		return 0;
	http_count_sample(r->srv, session, MGSIM_NUM_COUNTERS);	/* all 21 */
	jb_obj(b);
	jb_key(b, "session");
	jb_i64(b, session);
	source_fields(b, &s);
	jb_key(b, "counters");
	counters_obj(b, s.v);
	jb_key(b, "values");
	jb_arr(b);
	for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
		jb_u64(b, s.v[i]);
	jb_arr_end(b);
	if (since) {
		/* An mtperf interval record: after - before, and the four
		 * derived columns. */
		session_config(r, session, &cfg);
		mgsim_derive(b0.v, s.v, &cfg, &d);
		jb_key(b, "since");
		jb_obj(b);
		source_fields(b, &b0);
		jb_key(b, "counters");
		counters_obj(b, b0.v);
		jb_obj_end(b);
		jb_key(b, "delta");
		delta_obj(b, b0.v, s.v);
		jb_key(b, "derived");
		derived_obj(b, &d);
	}
	jb_obj_end(b);
	return 0;
}

static void
one_counter(struct http_req *r, int64_t session, const struct snapshot *s, unsigned i)
{
	const struct mgsim_counter_info *ci = mgsim_counter_info(i);
	struct jbuf *b = &r->body;
	char word[17];

	http_count_sample(r->srv, session, i);
	jb_obj(b);
	jb_key(b, "session");
	jb_i64(b, session);
	source_fields(b, s);
	jb_key(b, "index");
	jb_u64(b, i);
	jb_key(b, "name");
	jb_str(b, ci->name);
	jb_key(b, "unit");
	jb_str(b, ci->unit);
	jb_key(b, "value");
	jb_u64(b, s->v[i]);
	/* As MGSim stores it: one 8-byte word, little-endian (x86-64, like
	 * MT-Alpha). */
	for (int k = 0; k < 8; k++)
		snprintf(word + 2 * k, 3, "%02x", (unsigned)(s->v[i] >> (8 * k)) & 0xff);
	jb_key(b, "word_le");
	jb_str(b, word);
}

static int
counter_n(struct http_req *r, int64_t session, const char *arg)
{
	unsigned long long n;
	struct snapshot s;
	int idx;

	idx = mgsim_counter_index(arg);
	if (idx < 0) {
		if (parse_u64(arg, &n) < 0 || n >= MGSIM_NUM_COUNTERS)
			return http_error(r, 404, "no counter '%s': counters are 0..20 or their "
					  "names (n_exec_insns, ...)", arg);
		idx = (int)n;
	}
	if (!current(r, session, &s))
		return 0;
	one_counter(r, session, &s, (unsigned)idx);
	jb_obj_end(&r->body);
	return 0;
}

/* Decimal or 0x-hexadecimal. */
static int
parse_addr(const char *s, uint64_t *out)
{
	unsigned long long v = 0;

	if (!s || !*s)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		if (!*s || strlen(s) > 16)
			return -1;
		for (; *s; s++) {
			int d = hex_digit(*s);

			if (d < 0)
				return -1;
			v = v << 4 | (unsigned)d;
		}
		*out = v;
		return 0;
	}
	if (parse_u64(s, &v) < 0)
		return -1;
	*out = v;
	return 0;
}

static int
mmio(struct http_req *r, int64_t session)
{
	struct mgsim_config cfg;
	struct snapshot s;
	uint64_t addr, size;
	enum mgsim_mmio_status st;
	const char *why = "";
	unsigned idx = 0;
	char hex[32];

	if (parse_addr(http_arg(r, "addr"), &addr) < 0)
		return http_error(r, 400, "parameter addr: want an address (decimal or 0x hex)");
	if (!http_arg(r, "size"))
		size = MGSIM_WORD_SIZE;
	else if (parse_addr(http_arg(r, "size"), &size) < 0)
		return http_error(r, 400, "parameter size: want a byte count");
	session_config(r, session, &cfg);
	st = mgsim_mmio_decode(cfg.mmio_base, addr, size, &idx, &why);
	if (st != MGSIM_MMIO_OK)
		return http_error(r, st, "read of %llu bytes at 0x%llx: %s", (unsigned long long)size,
				  (unsigned long long)addr, why);
	if (!current(r, session, &s))
		return 0;
	one_counter(r, session, &s, idx);
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)addr);
	jb_key(&r->body, "addr");
	jb_str(&r->body, hex);
	jb_key(&r->body, "size");
	jb_u64(&r->body, size);
	jb_obj_end(&r->body);
	return 0;
}

/* Each snapshot with the one before it of the same thread (its previous
 * interval, or its start): cumulative values, deltas, rates, derived. */
static int
intervals(struct http_req *r, int64_t session)
{
	struct jbuf *b = &r->body, sql;
	uint64_t prev[MGSIM_NUM_COUNTERS], cur[MGSIM_NUM_COUNTERS];
	struct mgsim_config cfg;
	struct mgsim_derived d;
	uint64_t limit, offset, from, to;
	int64_t tid = 0, n = 0;
	bool has_tid;
	sqlite3_stmt *st;
	int rc;

	if (http_arg_i64(r, "tid", &tid, &has_tid) < 0 ||
	    http_arg_u64(r, "from", 0, INT64_MAX, &from) < 0 ||
	    http_arg_u64(r, "to", INT64_MAX, INT64_MAX, &to) < 0 ||
	    http_arg_u64(r, "limit", 1000, 100000, &limit) < 0 ||
	    http_arg_u64(r, "offset", 0, INT64_MAX, &offset) < 0)
		return 0;
	session_config(r, session, &cfg);
	jb_init(&sql);
	jb_puts(&sql, "SELECT c.tid, c.idx, c.final, c.taken_at, p.taken_at, p.idx");
	counter_columns(&sql, "c");
	counter_columns(&sql, "p");
	jb_puts(&sql, " FROM mgsim_counters c LEFT JOIN mgsim_counters p ON p.session_id = "
		"c.session_id AND p.tid = c.tid AND p.idx = c.idx - 1 WHERE c.session_id = ?1 AND ");
	/* Spelled out: "(?2 IS NULL OR ...)" would keep SQLite off the index. */
	jb_puts(&sql, has_tid ? "c.tid = ?2" : "?2 IS NULL");
	jb_puts(&sql, " AND c.idx BETWEEN ?3 AND ?4 ORDER BY c.tid, c.idx LIMIT ?5 OFFSET ?6");
	st = prepare_mgsim(r, &sql);
	jb_free(&sql);
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, session);
	if (has_tid)
		sqlite3_bind_int64(st, 2, tid);
	sqlite3_bind_int64(st, 3, (int64_t)from);
	sqlite3_bind_int64(st, 4, (int64_t)to);
	sqlite3_bind_int64(st, 5, (int64_t)limit + 1);
	sqlite3_bind_int64(st, 6, (int64_t)offset);
	jb_obj(b);
	jb_key(b, "session");
	jb_i64(b, session);
	jb_key(b, "offset");
	jb_u64(b, offset);
	jb_key(b, "limit");
	jb_u64(b, limit);
	jb_key(b, "names");
	jb_arr(b);
	for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
		jb_str(b, mgsim_counter_info(i)->name);
	jb_arr_end(b);
	jb_key(b, "intervals");
	jb_arr(b);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < (int64_t)limit) {
		bool has_prev = sqlite3_column_type(st, 5) != SQLITE_NULL;
		double dt = sqlite3_column_double(st, 3) - sqlite3_column_double(st, 4);
		double dc;

		row_counters(st, 6, cur);
		row_counters(st, 6 + MGSIM_NUM_COUNTERS, prev);
		dc = (double)(cur[MGSIM_CLOCKS] - prev[MGSIM_CLOCKS]);
		jb_obj(b);
		jb_key(b, "tid");
		jb_column(b, st, 0);
		jb_key(b, "index");
		jb_column(b, st, 1);
		jb_key(b, "final");
		jb_bool(b, sqlite3_column_int(st, 2));
		jb_key(b, "taken_at");
		jb_column(b, st, 3);
		jb_key(b, "seconds");
		if (has_prev)
			jb_double(b, dt);
		else
			jb_null(b);
		jb_key(b, "values");
		jb_arr(b);
		for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
			jb_u64(b, cur[i]);
		jb_arr_end(b);
		/* Deltas of the cumulative counters; rates per master cycle and
		 * per second of wall-clock time between the two snapshots. */
		jb_key(b, "delta");
		jb_arr(b);
		for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
			if (has_prev && mgsim_counter_info(i)->cumulative)
				jb_u64(b, cur[i] - prev[i]);
			else
				jb_null(b);
		jb_arr_end(b);
		jb_key(b, "per_cycle");
		jb_arr(b);
		for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
			if (has_prev && mgsim_counter_info(i)->cumulative && dc > 0)
				jb_double(b, (double)(cur[i] - prev[i]) / dc);
			else
				jb_null(b);
		jb_arr_end(b);
		jb_key(b, "per_second");
		jb_arr(b);
		for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
			if (has_prev && mgsim_counter_info(i)->cumulative && dt > 0)
				jb_double(b, (double)(cur[i] - prev[i]) / dt);
			else
				jb_null(b);
		jb_arr_end(b);
		jb_key(b, "derived");
		if (has_prev) {
			mgsim_derive(prev, cur, &cfg, &d);
			derived_obj(b, &d);
		} else {
			jb_null(b);
		}
		jb_obj_end(b);
		n++;
	}
	jb_arr_end(b);
	jb_key(b, "next_offset");
	/* limit=0 asks for no rows: no page follows. */
	if (rc == SQLITE_ROW && limit)
		jb_i64(b, (int64_t)offset + n);
	else
		jb_null(b);
	jb_obj_end(b);
	http_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return http_error(r, 500, "database query failed: %s", sqlite3_errmsg(r->db));
	return 0;
}

static int
info(struct http_req *r, int64_t session)
{
	struct jbuf *b = &r->body;
	struct mgsim_config cfg;
	struct mgsim_monitor mon;
	struct snapshot s;
	char json[1024];
	int n;

	session_config(r, session, &cfg);
	http_sample_ops(r->srv, session, &mon.cycle_sample_ops, &mon.other_sample_ops);
	jb_obj(b);
	jb_key(b, "session");
	jb_i64(b, session);
	jb_key(b, "model");
	jb_str(b, "A");
	jb_key(b, "num_counters");
	jb_u64(b, MGSIM_NUM_COUNTERS);
	jb_key(b, "word_size");
	jb_u64(b, MGSIM_WORD_SIZE);
	jb_key(b, "base");
	jb_u64(b, cfg.mmio_base);
	jb_key(b, "mapped");
	jb_bool(b, cfg.mmio_base != 0);
	/* Discovery as MGSim offers it: ASR 4 and 5 of the ASR window. */
	jb_key(b, "asr");
	jb_obj(b);
	jb_key(b, "window");
	jb_u64(b, MGSIM_ASR_WINDOW);
	jb_key(b, "num_perfcounters");
	jb_obj(b);
	jb_key(b, "index");
	jb_u64(b, MGSIM_ASR_NUM_COUNTERS);
	jb_key(b, "addr");
	jb_u64(b, MGSIM_ASR_WINDOW + MGSIM_ASR_NUM_COUNTERS * MGSIM_WORD_SIZE);
	jb_key(b, "value");
	jb_u64(b, MGSIM_NUM_COUNTERS);
	jb_obj_end(b);
	jb_key(b, "perfcounters_base");
	jb_obj(b);
	jb_key(b, "index");
	jb_u64(b, MGSIM_ASR_COUNTERS_BASE);
	jb_key(b, "addr");
	jb_u64(b, MGSIM_ASR_WINDOW + MGSIM_ASR_COUNTERS_BASE * MGSIM_WORD_SIZE);
	jb_key(b, "value");
	jb_u64(b, cfg.mmio_base);
	jb_obj_end(b);
	jb_obj_end(b);
	jb_key(b, "monitoring");
	jb_obj(b);
	jb_key(b, "nCycleSampleOps");
	jb_u64(b, mon.cycle_sample_ops);
	jb_key(b, "nOtherSampleOps");
	jb_u64(b, mon.other_sample_ops);
	jb_obj_end(b);
	jb_key(b, "live");
	jb_bool(b, live_snapshot(r, session, &s));
	n = mgsim_config_json(&cfg, json, sizeof(json));
	jb_key(b, "config");
	if (n > 0 && (size_t)n < sizeof(json))
		jb_rawval(b, json, (size_t)n);
	else
		jb_null(b);
	jb_key(b, "counters");
	jb_arr(b);
	for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++) {
		const struct mgsim_counter_info *ci = mgsim_counter_info(i);

		jb_obj(b);
		jb_key(b, "index");
		jb_u64(b, i);
		jb_key(b, "name");
		jb_str(b, ci->name);
		jb_key(b, "macro");
		jb_str(b, ci->macro);
		jb_key(b, "addr");
		jb_u64(b, cfg.mmio_base + i * MGSIM_WORD_SIZE);
		jb_key(b, "unit");
		jb_str(b, ci->unit);
		jb_key(b, "scope");
		jb_str(b, ci->scope);
		jb_key(b, "kind");
		jb_str(b, ci->kind);
		jb_key(b, "cumulative");
		jb_bool(b, ci->cumulative);
		jb_key(b, "how");
		jb_str(b, ci->how);
		jb_obj_end(b);
	}
	jb_arr_end(b);
	jb_obj_end(b);
	return 0;
}

int
http_api_mgsim(struct http_req *r, int64_t session, int seg)
{
	int rest = r->nseg - seg;

	if (rest == 0)
		return info(r, session);
	if (!strcmp(r->segs[seg], "counters")) {
		if (rest == 1)
			return counters(r, session);
		if (rest == 2)
			return counter_n(r, session, r->segs[seg + 1]);
	}
	if (rest == 1 && !strcmp(r->segs[seg], "mmio"))
		return mmio(r, session);
	if (rest == 1 && !strcmp(r->segs[seg], "intervals"))
		return intervals(r, session);
	return http_error(r, 404, "no MGSim endpoint %s (see /api)", r->path);
}
