/*
 * The results database: SQLite, one file, schema.sql embedded at build
 * time.  WAL journal, foreign keys on, one transaction per batch of
 * intervals; PRAGMA application_id marks the file as micad's and
 * PRAGMA user_version drives migrations.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <sqlite3.h>

#include "store.h"
#include "util.h"

#define MICAD_APPLICATION_ID 1296647009	/* 'MICA' */

extern const char micad_schema_sql[];	/* schema_sql.c, generated from schema.sql */

/* Migrations: migrations[v] takes a database from user_version v to v + 1.
 * Version 0 is an empty file. */
static const char *const migrations[STORE_SCHEMA_VERSION] = {
	micad_schema_sql,
};

enum stmt_id {
	S_INTERVAL, S_ILP, S_ITYPES, S_PPM, S_PPM_BRANCHES, S_REG, S_STRIDE_TOTAL, S_STRIDE,
	S_FOOTPRINT, S_MSD, S_MSD_BUCKET, N_STMTS
};

static const char *const stmt_sql[N_STMTS] = {
	[S_INTERVAL] = "INSERT INTO interval (session_id, tid, idx, full, final, ins, ins_aligned,"
		       " total_ins, total_ins_aligned, ended_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
	[S_ILP] = "INSERT INTO ilp (interval_id, analysis, window, cycles) VALUES (?,?,?,?)",
	[S_ITYPES] = "INSERT INTO itypes (interval_id, grp, count) VALUES (?,?,?)",
	[S_PPM] = "INSERT INTO ppm (interval_id, predictor_id, misses) VALUES (?,?,?)",
	[S_PPM_BRANCHES] = "INSERT INTO ppm_branches (interval_id, branches, transitions, taken)"
			   " VALUES (?,?,?,?)",
	[S_REG] = "INSERT INTO reg (interval_id, operands, values_, uses, reads,"
		  " c1, c2, c4, c8, c16, c32, c64) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_STRIDE_TOTAL] = "INSERT INTO stride_total (interval_id, reads, writes) VALUES (?,?,?)",
	[S_STRIDE] = "INSERT INTO stride (interval_id, kind, le, count) VALUES (?,?,?,?)",
	[S_FOOTPRINT] = "INSERT INTO memfootprint (interval_id, data_blocks, data_pages,"
			" insn_blocks, insn_pages, block_size, page_size) VALUES (?,?,?,?,?,?,?)",
	[S_MSD] = "INSERT INTO memstackdist (interval_id, refs, cold) VALUES (?,?,?)",
	[S_MSD_BUCKET] = "INSERT INTO memstackdist_bucket (interval_id, bucket, count) VALUES (?,?,?)",
};

struct store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *stmt[N_STMTS];
};

static void __attribute__((format(printf, 3, 4)))
set_err(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errsz)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

static double
now_unix(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
exec_sql(struct store *st, const char *sql, char *err, size_t errsz)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		set_err(err, errsz, "%s: %s", st->path, msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int64_t
pragma_int(struct store *st, const char *sql)
{
	sqlite3_stmt *s;
	int64_t v = -1;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* Bring the schema to STORE_SCHEMA_VERSION, one migration per
 * transaction. */
static int
migrate(struct store *st, bool read_only, char *err, size_t errsz)
{
	int64_t app = pragma_int(st, "PRAGMA application_id");
	int64_t ver = pragma_int(st, "PRAGMA user_version");
	int64_t tables = pragma_int(st, "SELECT count(*) FROM sqlite_schema");

	if (app < 0 || ver < 0 || tables < 0) {
		set_err(err, errsz, "%s: cannot read the database header: %s", st->path,
			sqlite3_errmsg(st->db));
		return -1;
	}
	if (app != MICAD_APPLICATION_ID && (app != 0 || tables > 0)) {
		set_err(err, errsz, "%s: not a micad results database (application_id %lld); "
			"choose another file with --db", st->path, (long long)app);
		return -1;
	}
	if (ver > STORE_SCHEMA_VERSION) {
		set_err(err, errsz, "%s: made by a newer micad (schema version %lld, this one "
			"knows %d): upgrade micad or use another --db", st->path, (long long)ver,
			STORE_SCHEMA_VERSION);
		return -1;
	}
	if (ver == STORE_SCHEMA_VERSION)
		return 0;
	if (read_only) {
		set_err(err, errsz, "%s: schema version %lld needs migrating to %d; open it once "
			"with micad (not read-only)", st->path, (long long)ver, STORE_SCHEMA_VERSION);
		return -1;
	}
	for (; ver < STORE_SCHEMA_VERSION; ver++) {
		char setver[64];

		snprintf(setver, sizeof(setver), "PRAGMA user_version = %lld", (long long)ver + 1);
		if (exec_sql(st, "BEGIN IMMEDIATE", err, errsz) < 0)
			return -1;
		if (exec_sql(st, migrations[ver], err, errsz) < 0 ||
		    exec_sql(st, setver, err, errsz) < 0) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
		if (exec_sql(st, "COMMIT", err, errsz) < 0)
			return -1;
	}
	return 0;
}

struct store *
store_open(const char *path, bool read_only, char *err, size_t errsz)
{
	struct store *st = xcalloc(1, sizeof(*st));
	int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	st->path = xstrdup(path);
	if (sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		set_err(err, errsz, "cannot open database %s: %s", path,
			st->db ? sqlite3_errmsg(st->db) : "out of memory");
		store_close(st);
		return NULL;
	}
	sqlite3_busy_timeout(st->db, 10000);
	sqlite3_extended_result_codes(st->db, 1);
	if (!read_only &&
	    (exec_sql(st, "PRAGMA journal_mode = WAL", err, errsz) < 0 ||
	     exec_sql(st, "PRAGMA synchronous = NORMAL", err, errsz) < 0)) {
		store_close(st);
		return NULL;
	}
	if (exec_sql(st, "PRAGMA foreign_keys = ON", err, errsz) < 0 ||
	    migrate(st, read_only, err, errsz) < 0) {
		store_close(st);
		return NULL;
	}
	if (!read_only) {
		for (int i = 0; i < N_STMTS; i++) {
			if (sqlite3_prepare_v3(st->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					       &st->stmt[i], NULL) != SQLITE_OK) {
				set_err(err, errsz, "%s: preparing statements: %s", path,
					sqlite3_errmsg(st->db));
				store_close(st);
				return NULL;
			}
		}
	}
	return st;
}

void
store_close(struct store *st)
{
	if (!st)
		return;
	for (int i = 0; i < N_STMTS; i++)
		sqlite3_finalize(st->stmt[i]);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

static int
mkdir_p(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

char *
store_default_path(char *err, size_t errsz)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	char *dir, *path;

	if (xdg && *xdg == '/') {
		dir = xasprintf("%s/micad", xdg);
	} else if (home && *home) {
		dir = xasprintf("%s/.local/share/micad", home);
	} else {
		set_err(err, errsz, "neither XDG_DATA_HOME nor HOME is set: pass --db FILE");
		return NULL;
	}
	if (mkdir_p(dir) < 0) {
		set_err(err, errsz, "cannot create %s: %s (pass --db FILE to use another place)",
			dir, strerror(errno));
		free(dir);
		return NULL;
	}
	path = xasprintf("%s/results.db", dir);
	free(dir);
	return path;
}

static int
step_done(struct store *st, sqlite3_stmt *s, char *err, size_t errsz)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE) {
		set_err(err, errsz, "%s: %s", st->path, sqlite3_errmsg(st->db));
		return -1;
	}
	return 0;
}

/* Bind n int64 values from position first. */
static void
bind_ints(sqlite3_stmt *s, int first, const int64_t *v, int n)
{
	for (int i = 0; i < n; i++)
		sqlite3_bind_int64(s, first + i, v[i]);
}

static int
run_ints(struct store *st, enum stmt_id id, const int64_t *v, int n, char *err, size_t errsz)
{
	bind_ints(st->stmt[id], 1, v, n);
	return step_done(st, st->stmt[id], err, errsz);
}

int64_t
store_session_begin(struct store *st, const struct store_session *s, char *err, size_t errsz)
{
	static const char sql[] =
		"INSERT INTO session (mode, command, pid, uid, config, settings, started_at, end_reason)"
		" VALUES (?,?,?,?,?,?,?,'running')";
	sqlite3_stmt *q;
	int64_t id;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		set_err(err, errsz, "%s: %s", st->path, sqlite3_errmsg(st->db));
		return -1;
	}
	sqlite3_bind_text(q, 1, s->mode, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, s->command ? s->command : "", -1, SQLITE_STATIC);
	if (s->pid > 0)
		sqlite3_bind_int64(q, 3, s->pid);
	sqlite3_bind_int64(q, 4, s->uid);
	sqlite3_bind_text(q, 5, s->config ? s->config : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 6, s->settings ? s->settings : "{}", -1, SQLITE_STATIC);
	sqlite3_bind_double(q, 7, now_unix());
	if (sqlite3_step(q) != SQLITE_DONE) {
		set_err(err, errsz, "%s: %s", st->path, sqlite3_errmsg(st->db));
		sqlite3_finalize(q);
		return -1;
	}
	sqlite3_finalize(q);
	id = sqlite3_last_insert_rowid(st->db);
	return id;
}

int
store_itypes_groups(struct store *st, int64_t session, const char *const *names, unsigned n,
		    char *err, size_t errsz)
{
	sqlite3_stmt *q;
	int rc = 0;

	if (sqlite3_prepare_v2(st->db, "INSERT OR REPLACE INTO itypes_group (session_id, grp, name)"
			       " VALUES (?,?,?)", -1, &q, NULL) != SQLITE_OK) {
		set_err(err, errsz, "%s: %s", st->path, sqlite3_errmsg(st->db));
		return -1;
	}
	for (unsigned g = 0; g <= n && rc == 0; g++) {
		sqlite3_bind_int64(q, 1, session);
		sqlite3_bind_int64(q, 2, g);
		sqlite3_bind_text(q, 3, g < n ? names[g] : "other", -1, SQLITE_STATIC);
		rc = step_done(st, q, err, errsz);
	}
	sqlite3_finalize(q);
	return rc;
}

int
store_thread(struct store *st, int64_t session, int64_t tid, int64_t pid, char *err, size_t errsz)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(st->db, "INSERT OR IGNORE INTO thread (session_id, tid, pid)"
			       " VALUES (?,?,?)", -1, &q, NULL) != SQLITE_OK) {
		set_err(err, errsz, "%s: %s", st->path, sqlite3_errmsg(st->db));
		return -1;
	}
	sqlite3_bind_int64(q, 1, session);
	sqlite3_bind_int64(q, 2, tid);
	sqlite3_bind_int64(q, 3, pid);
	rc = step_done(st, q, err, errsz);
	sqlite3_finalize(q);
	return rc;
}

static int
put_interval(struct store *st, int64_t session, const struct mica_interval *iv,
	     const struct mica_config *cfg, char *err, size_t errsz)
{
	static const char *const stride_kinds[4] = {
		"local_read", "global_read", "local_write", "global_write"
	};
	static const int64_t stride_le[MICA_STRIDE_CUM] = { 0, 8, 64, 512, 4096, 32768, 262144 };
	sqlite3_stmt *q = st->stmt[S_INTERVAL];
	int64_t id;

	sqlite3_bind_int64(q, 1, session);
	sqlite3_bind_int64(q, 2, iv->tid);
	sqlite3_bind_int64(q, 3, (int64_t)iv->index);
	sqlite3_bind_int64(q, 4, iv->full);
	sqlite3_bind_int64(q, 5, iv->final);
	sqlite3_bind_int64(q, 6, (int64_t)iv->ins);
	sqlite3_bind_int64(q, 7, (int64_t)iv->ins_aligned);
	sqlite3_bind_int64(q, 8, (int64_t)iv->total_ins);
	sqlite3_bind_int64(q, 9, (int64_t)iv->total_ins_aligned);
	sqlite3_bind_double(q, 10, now_unix());
	if (step_done(st, q, err, errsz) < 0)
		return -1;
	id = sqlite3_last_insert_rowid(st->db);

	if (iv->analyses & (MICA_BIT(MICA_ILP) | MICA_BIT(MICA_ILP_ONE))) {
		const struct mica_ilp_result *r[2] = { &iv->ilp, &iv->ilp_one };

		for (int k = 0; k < 2; k++) {
			if (!(iv->analyses & MICA_BIT(k == 0 ? MICA_ILP : MICA_ILP_ONE)))
				continue;
			for (unsigned w = 0; w < r[k]->n_windows; w++) {
				sqlite3_stmt *qi = st->stmt[S_ILP];

				sqlite3_bind_int64(qi, 1, id);
				sqlite3_bind_text(qi, 2, k == 0 ? "ilp" : "ilp_one", -1, SQLITE_STATIC);
				sqlite3_bind_int64(qi, 3, r[k]->window[w]);
				sqlite3_bind_int64(qi, 4, (int64_t)r[k]->cycles[w]);
				if (step_done(st, qi, err, errsz) < 0)
					return -1;
			}
		}
	}
	if (iv->analyses & MICA_BIT(MICA_ITYPES)) {
		for (unsigned g = 0; g <= iv->itypes.n_groups; g++) {
			int64_t v[3] = { id, g, (int64_t)iv->itypes.counts[g] };

			if (run_ints(st, S_ITYPES, v, 3, err, errsz) < 0)
				return -1;
		}
	}
	if (iv->analyses & MICA_BIT(MICA_PPM)) {
		const struct mica_ppm_result *p = &iv->ppm;
		int64_t b[4] = { id, (int64_t)p->branches, (int64_t)p->transitions, (int64_t)p->taken };

		for (int h = 0; h < MICA_PPM_LENGTHS; h++) {
			for (int o = 0; o < MICA_PPM_ORGS; o++) {
				int64_t v[3] = { id, h * MICA_PPM_ORGS + o, (int64_t)p->miss[h][o] };

				if (run_ints(st, S_PPM, v, 3, err, errsz) < 0)
					return -1;
			}
		}
		if (run_ints(st, S_PPM_BRANCHES, b, 4, err, errsz) < 0)
			return -1;
	}
	if (iv->analyses & MICA_BIT(MICA_REG)) {
		uint64_t n[MICA_REG_NUMBERS];
		int64_t v[1 + MICA_REG_NUMBERS] = { id };

		mica_reg_numbers(&iv->reg, n);
		for (int i = 0; i < MICA_REG_NUMBERS; i++)
			v[1 + i] = (int64_t)n[i];
		if (run_ints(st, S_REG, v, 1 + MICA_REG_NUMBERS, err, errsz) < 0)
			return -1;
	}
	if (iv->analyses & MICA_BIT(MICA_STRIDE)) {
		const struct mica_stride_result *s = &iv->stride;
		const uint64_t *cum[4] = { s->local_read, s->global_read, s->local_write, s->global_write };
		int64_t t[3] = { id, (int64_t)s->reads, (int64_t)s->writes };
		sqlite3_stmt *qs = st->stmt[S_STRIDE];

		if (run_ints(st, S_STRIDE_TOTAL, t, 3, err, errsz) < 0)
			return -1;
		for (int k = 0; k < 4; k++) {
			for (int d = 0; d < MICA_STRIDE_CUM; d++) {
				sqlite3_bind_int64(qs, 1, id);
				sqlite3_bind_text(qs, 2, stride_kinds[k], -1, SQLITE_STATIC);
				sqlite3_bind_int64(qs, 3, stride_le[d]);
				sqlite3_bind_int64(qs, 4, (int64_t)cum[k][d]);
				if (step_done(st, qs, err, errsz) < 0)
					return -1;
			}
		}
	}
	if (iv->analyses & MICA_BIT(MICA_MEMFOOTPRINT)) {
		const struct mica_memfootprint_result *f = &iv->memfootprint;
		int64_t v[7] = { id, (int64_t)f->data_blocks, (int64_t)f->data_pages,
				 (int64_t)f->insn_blocks, (int64_t)f->insn_pages,
				 cfg->block_size, cfg->page_size };

		if (run_ints(st, S_FOOTPRINT, v, 7, err, errsz) < 0)
			return -1;
	}
	if (iv->analyses & MICA_BIT(MICA_MEMSTACKDIST)) {
		const struct mica_memstackdist_result *m = &iv->memstackdist;
		int64_t v[3] = { id, (int64_t)m->refs, (int64_t)m->cold };

		if (run_ints(st, S_MSD, v, 3, err, errsz) < 0)
			return -1;
		for (int b = 0; b < MICA_MSD_BUCKETS; b++) {
			int64_t w[3] = { id, b, (int64_t)m->bucket[b] };

			if (run_ints(st, S_MSD_BUCKET, w, 3, err, errsz) < 0)
				return -1;
		}
	}
	return 0;
}

int
store_intervals(struct store *st, int64_t session, const struct mica_interval *const *iv, size_t n,
		const struct mica_config *cfg, char *err, size_t errsz)
{
	if (n == 0)
		return 0;
	if (exec_sql(st, "BEGIN IMMEDIATE", err, errsz) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (put_interval(st, session, iv[i], cfg, err, errsz) < 0) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
	}
	return exec_sql(st, "COMMIT", err, errsz);
}

int
store_session_end(struct store *st, int64_t session, int exit_status, const char *reason,
		  char *err, size_t errsz)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(st->db, "UPDATE session SET ended_at = ?, exit_status = ?,"
			       " end_reason = ? WHERE id = ?", -1, &q, NULL) != SQLITE_OK) {
		set_err(err, errsz, "%s: %s", st->path, sqlite3_errmsg(st->db));
		return -1;
	}
	sqlite3_bind_double(q, 1, now_unix());
	if (exit_status >= 0)
		sqlite3_bind_int64(q, 2, exit_status);
	sqlite3_bind_text(q, 3, reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, session);
	rc = step_done(st, q, err, errsz);
	sqlite3_finalize(q);
	return rc;
}

int
store_mark_cut_off(struct store *st, char *err, size_t errsz)
{
	if (exec_sql(st, "UPDATE session SET end_reason = 'cut-off' WHERE end_reason = 'running'",
		     err, errsz) < 0)
		return -1;
	return sqlite3_changes(st->db);
}
