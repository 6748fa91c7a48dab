/*
 * GET /api/sessions/{id}/sched (http_sched.h).
 */
#include "config.h"
#include "http/http_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As many as the web UI draws at once (web/session.js MAX_INTERVALS). */
#define SCHED_LIMIT_MAX 2000
#define SCHED_IDX_MAX ((uint64_t)INT64_MAX)

static int
fail(struct http_req *r, sqlite3_stmt *a, sqlite3_stmt *b)
{
	http_error(r, 500, "database query failed: %s", sqlite3_errmsg(r->db));
	http_finalize(a);
	http_finalize(b);
	return 0;
}

static void
ports_json(struct jbuf *b, sqlite3_stmt *p, int64_t session, int64_t tid, int64_t idx)
{
	sqlite3_reset(p);
	sqlite3_bind_int64(p, 1, session);
	sqlite3_bind_int64(p, 2, tid);
	sqlite3_bind_int64(p, 3, idx);
	jb_key(b, "ports");
	jb_obj(b);
	while (sqlite3_step(p) == SQLITE_ROW) {
		jb_key(b, (const char *)sqlite3_column_text(p, 0));
		jb_obj(b);
		jb_key(b, "uops");
		jb_column(b, p, 1);
		jb_key(b, "pressure");
		jb_column(b, p, 2);
		jb_obj_end(b);
	}
	jb_obj_end(b);
}

/*
 * The function a block's first instruction is in, from a sample-mode
 * session's profile frames: the symbol whose start (a frame's address
 * less its offset) is the nearest at or below the address, within 1 MiB
 * (index profile_frame_start).  null when the session has no such frame
 * (a step-mode session has no profile).
 */
static void
block_function(struct jbuf *b, sqlite3_stmt *f, int64_t session, int64_t addr)
{
	jb_key(b, "function");
	if (!f) {
		jb_null(b);
		return;
	}
	sqlite3_reset(f);
	sqlite3_bind_int64(f, 1, session);
	sqlite3_bind_int64(f, 2, addr);
	if (sqlite3_step(f) != SQLITE_ROW) {
		jb_null(b);
		return;
	}
	jb_obj(b);
	jb_key(b, "module");
	jb_column(b, f, 0);
	jb_key(b, "symbol");
	jb_column(b, f, 1);
	jb_key(b, "offset");
	jb_column(b, f, 2);
	jb_obj_end(b);
}

static int
hot_blocks(struct http_req *r, int64_t session)
{
	sqlite3_stmt *h = http_prepare(r, "SELECT rank, address, end_address, instructions, "
				       "executions, report FROM sched_hot_block "
				       "WHERE session_id = ?1 ORDER BY rank");
	/* NULL in a database without the profile tables. */
	sqlite3_stmt *f = h ? http_prepare_quiet(r, "SELECT module, symbol, ?2 - (address - offset) "
				   "FROM profile_frame WHERE session_id = ?1 AND symbol IS NOT NULL "
				   "AND address IS NOT NULL AND address - offset <= ?2 "
				   "AND address - offset > ?2 - 1048576 "
				   "ORDER BY address - offset DESC LIMIT 1") : NULL;
	int rc;

	if (!h)
		return -1;
	sqlite3_bind_int64(h, 1, session);
	jb_key(&r->body, "hot_blocks");
	jb_arr(&r->body);
	while ((rc = sqlite3_step(h)) == SQLITE_ROW) {
		char addr[32];
		const char *rep = (const char *)sqlite3_column_text(h, 5);

		jb_obj(&r->body);
		jb_key(&r->body, "rank");
		jb_column(&r->body, h, 0);
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)sqlite3_column_int64(h, 1));
		jb_key(&r->body, "address");
		jb_str(&r->body, addr);
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)sqlite3_column_int64(h, 2));
		jb_key(&r->body, "end_address");
		jb_str(&r->body, addr);
		jb_key(&r->body, "instructions");
		jb_column(&r->body, h, 3);
		jb_key(&r->body, "executions");
		jb_column(&r->body, h, 4);
		block_function(&r->body, f, session, sqlite3_column_int64(h, 1));
		/* Written by micad itself as JSON (trace_sched). */
		jb_key(&r->body, "report");
		if (rep)
			jb_rawval(&r->body, rep, strlen(rep));
		else
			jb_null(&r->body);
		jb_obj_end(&r->body);
	}
	jb_arr_end(&r->body);
	http_finalize(h);
	http_finalize(f);
	return rc == SQLITE_DONE ? 0 : -1;
}

int
http_api_sched(struct http_req *r, int64_t session)
{
	sqlite3_stmt *st = NULL, *p = NULL, *c;
	uint64_t limit, offset, from, to;
	int64_t tid, n = 0;
	bool has_tid;
	int rc;

	if (http_arg_i64(r, "tid", &tid, &has_tid) < 0 ||
	    http_arg_u64(r, "from", 0, SCHED_IDX_MAX, &from) < 0 ||
	    http_arg_u64(r, "to", SCHED_IDX_MAX, SCHED_IDX_MAX, &to) < 0 ||
	    http_arg_u64(r, "limit", 100, SCHED_LIMIT_MAX, &limit) < 0 ||
	    http_arg_u64(r, "offset", 0, SCHED_IDX_MAX, &offset) < 0)
		return 0;
	if (from > to)
		return http_error(r, 400, "parameters from/to: from is after to");
	c = http_prepare(r, "SELECT cpu FROM sched_config WHERE session_id = ?1");
	if (!c)
		return 0;
	sqlite3_bind_int64(c, 1, session);
	rc = sqlite3_step(c);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail(r, c, NULL);
	st = http_prepare(r, has_tid ?
		"SELECT tid, idx, final, instructions, cycles, ipc, "
		"CAST(cycles AS REAL) / NULLIF(instructions, 0) FROM sched_interval "
		"WHERE session_id = ?1 AND tid = ?2 AND idx BETWEEN ?3 AND ?4 "
		"ORDER BY tid, idx LIMIT ?5 OFFSET ?6" :
		"SELECT tid, idx, final, instructions, cycles, ipc, "
		"CAST(cycles AS REAL) / NULLIF(instructions, 0) FROM sched_interval "
		"WHERE session_id = ?1 AND ?2 IS NULL AND idx BETWEEN ?3 AND ?4 "
		"ORDER BY tid, idx LIMIT ?5 OFFSET ?6");
	p = st ? http_prepare(r, "SELECT port, uops, pressure FROM sched_port WHERE "
			      "session_id = ?1 AND tid = ?2 AND idx = ?3 ORDER BY port") : NULL;
	if (!st || !p) {
		http_finalize(c);
		http_finalize(st);
		return 0;
	}
	sqlite3_bind_int64(st, 1, session);
	if (has_tid)
		sqlite3_bind_int64(st, 2, tid);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_int64(st, 3, (int64_t)from);
	sqlite3_bind_int64(st, 4, (int64_t)to);
	sqlite3_bind_int64(st, 5, (int64_t)limit + 1);	/* one more: a next page? */
	sqlite3_bind_int64(st, 6, (int64_t)offset);
	jb_obj(&r->body);
	jb_key(&r->body, "session");
	jb_i64(&r->body, session);
	jb_key(&r->body, "cpu");
	if (rc == SQLITE_ROW)
		jb_column(&r->body, c, 0);
	else
		jb_null(&r->body);	/* no scheduling model in this session */
	http_finalize(c);
	jb_key(&r->body, "offset");
	jb_u64(&r->body, offset);
	jb_key(&r->body, "limit");
	jb_u64(&r->body, limit);
	jb_key(&r->body, "intervals");
	jb_arr(&r->body);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < (int64_t)limit) {
		jb_obj(&r->body);
		jb_key(&r->body, "tid");
		jb_column(&r->body, st, 0);
		jb_key(&r->body, "index");
		jb_column(&r->body, st, 1);
		jb_key(&r->body, "final");
		jb_bool(&r->body, sqlite3_column_int(st, 2));
		jb_key(&r->body, "instructions");
		jb_column(&r->body, st, 3);
		jb_key(&r->body, "cycles");
		jb_column(&r->body, st, 4);
		jb_key(&r->body, "ipc");
		jb_column(&r->body, st, 5);
		jb_key(&r->body, "cpi");
		jb_column(&r->body, st, 6);
		ports_json(&r->body, p, session, sqlite3_column_int64(st, 0),
			   sqlite3_column_int64(st, 1));
		jb_obj_end(&r->body);
		n++;
	}
	jb_arr_end(&r->body);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail(r, st, p);
	jb_key(&r->body, "next_offset");
	/* limit=0 asks for no rows: no page follows. */
	if (rc == SQLITE_ROW && limit)
		jb_i64(&r->body, (int64_t)offset + n);
	else
		jb_null(&r->body);
	http_finalize(st);
	http_finalize(p);
	if (hot_blocks(r, session) < 0)
		return fail(r, NULL, NULL);
	jb_obj_end(&r->body);
	return 0;
}
