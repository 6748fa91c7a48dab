/*
 * The results database: SQLite, one file, schema.sql embedded at build
 * time.  WAL journal, foreign keys on, a busy timeout (several micad
 * processes may write one file), one transaction per batch of intervals;
 * PRAGMA application_id marks the file as micad's and PRAGMA user_version
 * drives migrations.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mica/mica_sample.h"
#include "store/store.h"
#include "util.h"

#define MICAD_APPLICATION_ID 1296647009	/* 'MICA' */

extern const char micad_schema_sql[];	/* schema_sql.c, generated from schema.sql */

/* Migrations: migrations[v] takes a database from user_version v to v + 1
 * with what CREATE ... IF NOT EXISTS cannot do (new columns, views that
 * changed dropped first); schema.sql, run after each step, then creates
 * whatever is new.  Version 0 is an empty file: schema.sql creates the
 * current layout at once.  Version 1 was the layout of development builds
 * before the first release (no writer identity, no MGSim or scheduling
 * tables): it is refused, not migrated. */
#define PRERELEASE_SCHEMA_VERSION 1
static const char *const migrations[STORE_SCHEMA_VERSION] = {
	"",
	"",
	/* 2 -> 3: sample mode (the engine, the event and its profile) */
	"ALTER TABLE session ADD COLUMN engine TEXT NOT NULL DEFAULT 'step' "
	"CHECK (engine IN ('step', 'sample', 'valgrind'));"
	"ALTER TABLE session ADD COLUMN sample_event TEXT;"
	"ALTER TABLE session ADD COLUMN sample_note TEXT;"
	"ALTER TABLE session ADD COLUMN weighting TEXT "
	"CHECK (weighting IN ('instructions', 'time'));"
	"ALTER TABLE stride_total ADD COLUMN first_reads INTEGER;"
	"ALTER TABLE stride_total ADD COLUMN first_writes INTEGER;"
	"ALTER TABLE memstackdist ADD COLUMN censored INTEGER;"
	"ALTER TABLE memstackdist ADD COLUMN horizon INTEGER;"
	/* views that changed: metric gained the estimates' columns,
	 * mgsim_delta finds the previous snapshot when intervals have gaps */
	"DROP VIEW IF EXISTS metric;"
	"DROP VIEW IF EXISTS mgsim_delta;"
	/* reliability (issue 20): why a session failed, why results are missing */
	"ALTER TABLE session ADD COLUMN error TEXT;"
	"ALTER TABLE session ADD COLUMN incomplete TEXT;",
	/* 3 -> 4: proportions' intervals (table proportion_metric): the
	 * views that compute confidence intervals changed */
	"DROP VIEW IF EXISTS metric_ci;"
	"DROP VIEW IF EXISTS metric;"
	"DROP VIEW IF EXISTS metric_estimate;"
	"DROP VIEW IF EXISTS session_metric;",
};

enum stmt_id {
	S_INTERVAL, S_ILP, S_ITYPES, S_PPM, S_PPM_BRANCHES, S_REG, S_STRIDE_TOTAL, S_STRIDE,
	S_FOOTPRINT, S_MSD, S_MSD_BUCKET, S_OTHER, S_SAMPLE_INTERVAL, S_METRIC_SUMS, N_STMTS
};

static const char *const stmt_sql[N_STMTS] = {
	[S_INTERVAL] = "INSERT INTO interval (session_id, tid, idx, full, final, ins, ins_aligned,"
		       " total_ins, total_ins_aligned, started_at, ended_at)"
		       " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
	[S_ILP] = "INSERT INTO ilp (interval_id, analysis, window, cycles) VALUES (?,?,?,?)",
	[S_ITYPES] = "INSERT INTO itypes (interval_id, grp, count) VALUES (?,?,?)",
	[S_PPM] = "INSERT INTO ppm (interval_id, predictor_id, misses) VALUES (?,?,?)",
	[S_PPM_BRANCHES] = "INSERT INTO ppm_branches (interval_id, branches, transitions, taken)"
			   " VALUES (?,?,?,?)",
	[S_REG] = "INSERT INTO reg (interval_id, operands, values_, uses, reads,"
		  " c1, c2, c4, c8, c16, c32, c64) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
	[S_STRIDE_TOTAL] = "INSERT INTO stride_total (interval_id, reads, writes, first_reads,"
			   " first_writes) VALUES (?,?,?,?,?)",
	[S_STRIDE] = "INSERT INTO stride (interval_id, kind, le, count) VALUES (?,?,?,?)",
	[S_FOOTPRINT] = "INSERT INTO memfootprint (interval_id, data_blocks, data_pages,"
			" insn_blocks, insn_pages, block_size, page_size) VALUES (?,?,?,?,?,?,?)",
	[S_MSD] = "INSERT INTO memstackdist (interval_id, refs, cold, censored, horizon)"
		  " VALUES (?,?,?,?,?)",
	[S_MSD_BUCKET] = "INSERT INTO memstackdist_bucket (interval_id, bucket, count) VALUES (?,?,?)",
	[S_OTHER] = "INSERT OR IGNORE INTO itypes_other (session_id, tid, seq, category)"
		    " VALUES (?,?,?,?)",
	[S_SAMPLE_INTERVAL] = "INSERT INTO sample_interval (session_id, tid, idx, bursts, aborted,"
			      " warmup_ins) VALUES (?,?,?,?,?,?)",
	/* A mix metric (?5 NULL) is named as view instruction_mix names its
	 * group: the session's itypes_group name, else the number. */
	[S_METRIC_SUMS] = "INSERT INTO metric_sums (session_id, tid, idx, metric, n, sum_x, sum_y,"
			  " sum_xx, sum_xy, sum_yy, estimable) VALUES (?1, ?2, ?3,"
			  " coalesce(?4, 'mix_' || coalesce((SELECT name FROM itypes_group"
			  " WHERE session_id = ?1 AND grp = ?5), ?5)), ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
};

struct store {
	sqlite3 *db;
	char *path;
	bool writes;		/* opened to write */
	char *reserve;		/* the reserve file, while it is held (writers) */
	sqlite3_stmt *stmt[N_STMTS];
};

/*
 * A writer holds a little disk space in a file of its own beside the
 * database ("DB-reserve-PID", STORE_RESERVE bytes, allocated at open,
 * removed at close), so that when the disk fills up, results are lost but
 * the end of the session, and why results are missing, can still be
 * written: store_release_reserve() frees it for that last write.  A file
 * system without fallocate, or one already full, gets no reserve (not an
 * error).
 */
#define STORE_RESERVE (128 * 1024)

static char *
reserve_take(const char *db_path)
{
	char *path = xasprintf("%s-reserve-%ld", db_path, (long)getpid());
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(path, flags, 0600);

	/* One left by a process of this pid that died: a new one, never
	 * whatever that name points to. */
	if (fd < 0 && errno == EEXIST && unlink(path) == 0)
		fd = open(path, flags, 0600);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	if (posix_fallocate(fd, 0, STORE_RESERVE) != 0) {
		close(fd);
		unlink(path);
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

bool
store_release_reserve(struct store *st)
{
	if (!st->reserve)
		return false;
	unlink(st->reserve);
	free(st->reserve);
	st->reserve = NULL;
	return true;
}

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

double
store_wall_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}


static int
exec_sql(struct store *st, const char *sql, char *err, size_t errsz)
{
	char *msg = NULL;
	int rc;

	/* SQLITE_PROTOCOL is a WAL lock race with another process opening or
	 * closing the file (the busy handler does not cover it): retry, as
	 * SQLite's documentation says to. */
	for (int tries = 0;; tries++) {
		rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);
		if ((rc & 0xff) != SQLITE_PROTOCOL || tries == 50)
			break;
		sqlite3_free(msg);
		msg = NULL;
		sqlite3_sleep(10);
	}
	if (rc != SQLITE_OK) {
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
	if (ver == PRERELEASE_SCHEMA_VERSION) {
		set_err(err, errsz, "%s: made by a development build of micad before the first "
			"release (schema version 1), whose layout cannot be migrated: move it "
			"away (mv %s %s.old) or choose another file with --db", st->path, st->path,
			st->path);
		return -1;
	}
	if (read_only) {
		set_err(err, errsz, "%s: schema version %lld needs migrating to %d; open it once "
			"with micad (not read-only)", st->path, (long long)ver, STORE_SCHEMA_VERSION);
		return -1;
	}
	for (; ver < STORE_SCHEMA_VERSION; ver++) {
		int64_t to = ver == 0 ? STORE_SCHEMA_VERSION : ver + 1;
		char setver[64];

		snprintf(setver, sizeof(setver), "PRAGMA user_version = %lld", (long long)to);
		if (exec_sql(st, "BEGIN IMMEDIATE", err, errsz) < 0)
			return -1;
		if (exec_sql(st, migrations[ver], err, errsz) < 0 ||
		    exec_sql(st, micad_schema_sql, err, errsz) < 0 ||
		    exec_sql(st, setver, err, errsz) < 0) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
		if (exec_sql(st, "COMMIT", err, errsz) < 0)
			return -1;
		ver = to - 1;
	}
	return 0;
}

/*
 * A damaged file is refused before anything is added to it: appended to,
 * it would read back wrong (an export missing rows rather than saying
 * "malformed").  PRAGMA quick_check reads every page once, without the
 * full index comparison of integrity_check: about 2 s of CPU for 300 MB.
 */
static int
check_integrity(struct store *st, char *err, size_t errsz)
{
	sqlite3_stmt *q;
	const char *first = NULL;
	int rc;

	if (sqlite3_prepare_v2(st->db, "PRAGMA quick_check(1)", -1, &q, NULL) != SQLITE_OK) {
		set_err(err, errsz, "%s: %s: the file is damaged or not a database; move it away "
			"(mv %s %s.damaged) or choose another file with --db", st->path,
			sqlite3_errmsg(st->db), st->path, st->path);
		return -1;
	}
	char what[256];

	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		first = (const char *)sqlite3_column_text(q, 0);
	if (rc == SQLITE_ROW && first && strcmp(first, "ok") == 0) {
		sqlite3_finalize(q);
		return 0;
	}
	/* One line: SQLite's report spans several. */
	snprintf(what, sizeof(what), "%s", rc == SQLITE_ROW && first ? first
		 : sqlite3_errmsg(st->db));
	for (char *p = what; *p; p++)
		if (*p == '\n')
			*p = ' ';
	set_err(err, errsz, "%s fails its integrity check (%s): nothing more is written to it. "
		"Move it away (mv %s %s.damaged) and trace again with a new file; to save what "
		"it holds: sqlite3 %s.damaged '.recover' | sqlite3 recovered.db", st->path,
		what, st->path, st->path, st->path);
	sqlite3_finalize(q);
	return -1;
}

static void store_close_keep_code(struct store *st, int *code);

static struct store *
store_open_once(const char *path, bool read_only, char *err, size_t errsz, int *code)
{
	struct store *st = xcalloc(1, sizeof(*st));
	int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	st->path = xstrdup(path);
	if (sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		set_err(err, errsz, "cannot open database %s: %s", path,
			st->db ? sqlite3_errmsg(st->db) : "out of memory");
		store_close_keep_code(st, code);
		return NULL;
	}
	sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(st->db, 1);
	if (store_math_functions(st->db) < 0) {
		set_err(err, errsz, "%s: cannot give SQLite a sqrt() function: %s", path,
			sqlite3_errmsg(st->db));
		store_close_keep_code(st, code);
		return NULL;
	}
	if (!read_only &&
	    (exec_sql(st, "PRAGMA journal_mode = WAL", err, errsz) < 0 ||
	     exec_sql(st, "PRAGMA synchronous = NORMAL", err, errsz) < 0)) {
		store_close_keep_code(st, code);
		return NULL;
	}
	if (exec_sql(st, "PRAGMA foreign_keys = ON", err, errsz) < 0 ||
	    (!read_only && check_integrity(st, err, errsz) < 0) ||
	    migrate(st, read_only, err, errsz) < 0) {
		store_close_keep_code(st, code);
		return NULL;
	}
	if (!read_only) {
		st->writes = true;
		st->reserve = reserve_take(path);
		for (int i = 0; i < N_STMTS; i++) {
			if (sqlite3_prepare_v3(st->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					       &st->stmt[i], NULL) != SQLITE_OK) {
				set_err(err, errsz, "%s: preparing statements: %s", path,
					sqlite3_errmsg(st->db));
				store_close_keep_code(st, code);
				return NULL;
			}
		}
	}
	return st;
}

/* Close after a failed open, keeping the SQLite result code for
 * store_open's retry decision. */
static void
store_close_keep_code(struct store *st, int *code)
{
	*code = st->db ? sqlite3_extended_errcode(st->db) & 0xff : SQLITE_NOMEM;
	store_close(st);
}

/*
 * Create the database file mode 0600 if it does not exist, before SQLite
 * would create it 0644 (less the umask): the results hold command lines
 * and configurations, and a root daemon's hold every user's.  SQLite gives
 * the -wal and -shm files the database file's mode, so they follow.  An
 * existing file keeps its mode.  O_EXCL: never open (and close) an
 * existing file here, since a close drops every POSIX lock this process
 * holds on it, SQLite connections' included.
 */
static int
create_private(const char *path, char *err, size_t errsz)
{
	const int flags = O_RDONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC;
	int fd = open(path, flags | O_EXCL, 0600);
	struct stat st;

	if (fd < 0 && errno == EEXIST) {
		/* A link to a file not there yet: create that one. */
		if (stat(path, &st) == 0 || errno != ENOENT)
			return 0;
		fd = open(path, flags, 0600);
	}
	if (fd < 0) {
		set_err(err, errsz, "cannot create the database %s: %s (check its directory, or "
			"choose another file with --db)", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

struct store *
store_open(const char *path, bool read_only, char *err, size_t errsz)
{
	if (!read_only && create_private(path, err, errsz) < 0)
		return NULL;
	/* SQLITE_PROTOCOL (and a lock held past the busy timeout) while
	 * another process opens or closes the same WAL database: retry a few
	 * times, as SQLite's documentation says to. */
	for (int tries = 0;; tries++) {
		int code = SQLITE_OK;
		struct store *st = store_open_once(path, read_only, err, errsz, &code);

		if (st || (code != SQLITE_PROTOCOL && code != SQLITE_BUSY) || tries == 20)
			return st;
		sqlite3_sleep(20 + 10 * tries);
	}
}

struct sqlite3 *
store_sqlite(struct store *st)
{
	return st->db;
}

const char *
store_path(const struct store *st)
{
	return st->path;
}

int
store_exec(struct store *st, const char *sql, char *err, size_t errsz)
{
	return exec_sql(st, sql, err, errsz);
}

void
store_close(struct store *st)
{
	if (!st)
		return;
	for (int i = 0; i < N_STMTS; i++)
		sqlite3_finalize(st->stmt[i]);
	/* The last connection to close checkpoints the WAL into the file and
	 * deletes it, holding the exclusive lock all along: a reader opening
	 * then waits, up to "database is locked".  Checkpoint first, the way
	 * that leaves readers alone; the close then finds nothing to copy and
	 * holds the lock a moment only. */
	if (st->writes)
		sqlite3_exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	sqlite3_close(st->db);
	store_release_reserve(st);
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

/* Prepare sql; -1 with the reason in err. */
static int
prepare(struct store *st, const char *sql, sqlite3_stmt **q, char *err, size_t errsz)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, q, NULL) != SQLITE_OK) {
		set_err(err, errsz, "%s: %s", st->path, sqlite3_errmsg(st->db));
		return -1;
	}
	return 0;
}

/* Field 22 of /proc/PID/stat: the process's start time in clock ticks
 * after boot, or -1.  With the boot id it names a process uniquely. */
static int64_t
proc_start_time(long pid)
{
	char path[64], buf[1024];
	const char *p;
	FILE *f;
	size_t n;
	long long v;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "re")))
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name may hold spaces and ')': fields start after the
	 * last ')'; then state is field 3, starttime field 22. */
	if (!(p = strrchr(buf, ')')))
		return -1;
	p++;
	/* A zombie writes nothing more: its parent died with it unreaped
	 * (a killed daemon's worker, where init does not reap). */
	if (p[0] == ' ' && (p[1] == 'Z' || p[1] == 'X'))
		return -1;
	for (int field = 3; field < 22; field++) {
		p += strspn(p, " ");
		p += strcspn(p, " ");
	}
	if (sscanf(p, " %lld", &v) != 1)
		return -1;
	return v;
}

/* The kernel's boot id (a UUID), or "" if /proc does not say. */
static void
boot_id(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* The built-in itypes groups' names (mica.md §3.2's table). */
static const char *const builtin_group_names[] = {
	"mem_read", "mem_write", "control", "arithmetic", "fp", "stack", "shift", "string",
	"sse", "misc", "nop", "reg_transfer",
};

static const char *const itypes_kind_names[] = {
	[ITYPES_CATEGORY] = "CATEGORY", [ITYPES_OPCODE] = "OPCODE", [ITYPES_SPECIAL] = "SPECIAL",
};

/* Group g's identifiers, "CATEGORY X, OPCODE Y, ..." (malloc'd). */
static char *
group_identifiers(const struct itypes_spec *spec, unsigned g)
{
	char *s = xstrdup(""), *t;

	for (size_t i = 0; i < spec->n_idents; i++) {
		const struct itypes_ident *id = &spec->idents[i];

		if (id->group != g)
			continue;
		t = xasprintf("%s%s%s %s", s, *s ? ", " : "", itypes_kind_names[id->kind], id->name);
		free(s);
		s = t;
	}
	return s;
}

/* A name for group g: the built-in group's name when it has exactly the
 * same identifiers, else the identifiers' names joined with '+'. */
static char *
group_name(const struct itypes_spec *spec, const struct itypes_spec *builtin, unsigned g)
{
	char *mine = group_identifiers(spec, g), *s, *t;

	for (unsigned b = 0; builtin && b < builtin->n_groups &&
			     b < sizeof(builtin_group_names) / sizeof(builtin_group_names[0]); b++) {
		char *theirs = group_identifiers(builtin, b);
		bool same = strcmp(mine, theirs) == 0;

		free(theirs);
		if (same) {
			free(mine);
			return xstrdup(builtin_group_names[b]);
		}
	}
	free(mine);
	s = xstrdup("");
	for (size_t i = 0; i < spec->n_idents; i++) {
		if (spec->idents[i].group != g)
			continue;
		t = xasprintf("%s%s%s", s, *s ? "+" : "", spec->idents[i].name);
		free(s);
		s = t;
	}
	return s;
}

/* The itypes group names and identifiers of a session's configuration. */
static int
put_itypes_groups(struct store *st, int64_t session, const struct mica_config *cfg,
		  char *err, size_t errsz)
{
	struct itypes_spec *builtin = itypes_spec_builtin();
	const struct itypes_spec *spec = cfg->itypes_spec ? cfg->itypes_spec : builtin;
	sqlite3_stmt *q;
	int rc = 0;

	if (!builtin)
		error_msg_and_die("out of memory");
	if (prepare(st, "INSERT OR REPLACE INTO itypes_group (session_id, grp, name, identifiers)"
		    " VALUES (?,?,?,?)", &q, err, errsz) < 0) {
		itypes_spec_free(builtin);
		return -1;
	}
	for (unsigned g = 0; g <= spec->n_groups && rc == 0; g++) {
		char *name = g < spec->n_groups ? group_name(spec, builtin, g) : xstrdup("other");
		char *idents = g < spec->n_groups ? group_identifiers(spec, g) : NULL;

		sqlite3_bind_int64(q, 1, session);
		sqlite3_bind_int64(q, 2, g);
		sqlite3_bind_text(q, 3, name, -1, SQLITE_TRANSIENT);
		if (idents)
			sqlite3_bind_text(q, 4, idents, -1, SQLITE_TRANSIENT);
		rc = step_done(st, q, err, errsz);
		free(name);
		free(idents);
	}
	sqlite3_finalize(q);
	itypes_spec_free(builtin);
	return rc;
}

/* analysis_type as mica.conf writes it. */
static const char *
analysis_type(const struct mica_config *cfg)
{
	if (cfg->all)
		return "all";
	for (int a = 0; a < MICA_N_ANALYSES; a++)
		if (cfg->analyses == MICA_BIT(a))
			return mica_analysis_name((enum mica_analysis)a);
	return NULL;
}

int64_t
store_session_begin(struct store *st, const struct store_session *s, char *err, size_t errsz)
{
	static const char sql[] =
		"INSERT INTO session (mode, command, pid, uid, config, settings, analysis_type,"
		" interval_size, ilp_size, block_size, page_size, append_pid, itypes_spec_file,"
		" started_at, end_reason, writer_pid, writer_start, writer_boot_id, engine)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,'running',?,?,?,?)";
	const struct mica_config *m = s->mica;
	char boot[64];
	sqlite3_stmt *q;
	int64_t id, start;

	if (prepare(st, sql, &q, err, errsz) < 0)
		return -1;
	sqlite3_bind_text(q, 1, s->mode, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, s->command ? s->command : "", -1, SQLITE_STATIC);
	if (s->pid > 0)
		sqlite3_bind_int64(q, 3, s->pid);
	sqlite3_bind_int64(q, 4, s->uid);
	sqlite3_bind_text(q, 5, s->config ? s->config : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 6, s->settings ? s->settings : "{}", -1, SQLITE_STATIC);
	if (m) {
		sqlite3_bind_text(q, 7, analysis_type(m), -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 8, m->interval_size);
		sqlite3_bind_int64(q, 9, m->ilp_size);
		sqlite3_bind_int64(q, 10, m->block_size);
		sqlite3_bind_int64(q, 11, m->page_size);
		sqlite3_bind_int64(q, 12, m->append_pid);
		if (m->itypes_spec_file)
			sqlite3_bind_text(q, 13, m->itypes_spec_file, -1, SQLITE_STATIC);
	}
	sqlite3_bind_double(q, 14, store_wall_clock());
	sqlite3_bind_int64(q, 15, (int64_t)getpid());
	if ((start = proc_start_time((long)getpid())) >= 0)
		sqlite3_bind_int64(q, 16, start);
	boot_id(boot, sizeof(boot));
	if (*boot)
		sqlite3_bind_text(q, 17, boot, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 18, s->engine ? s->engine : "step", -1, SQLITE_STATIC);
	if (sqlite3_step(q) != SQLITE_DONE) {
		set_err(err, errsz, "%s: %s", st->path, sqlite3_errmsg(st->db));
		sqlite3_finalize(q);
		return -1;
	}
	sqlite3_finalize(q);
	id = sqlite3_last_insert_rowid(st->db);
	if (m && (m->analyses & MICA_BIT(MICA_ITYPES)) &&
	    put_itypes_groups(st, id, m, err, errsz) < 0)
		return -1;
	return id;
}

int
store_session_pid(struct store *st, int64_t session, int64_t pid, const char *command,
		  char *err, size_t errsz)
{
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, "UPDATE session SET pid = ?, command = coalesce(?, command) WHERE id = ?",
		    &q, err, errsz) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, pid);
	if (command)
		sqlite3_bind_text(q, 2, command, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, 2);
	sqlite3_bind_int64(q, 3, session);
	rc = step_done(st, q, err, errsz);
	sqlite3_finalize(q);
	return rc;
}

int
store_session_sample(struct store *st, int64_t session, const char *event, const char *note,
		     const char *weighting, char *err, size_t errsz)
{
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, "UPDATE session SET engine = 'sample', sample_event = ?, sample_note = ?,"
		    " weighting = ? WHERE id = ?", &q, err, errsz) < 0)
		return -1;
	sqlite3_bind_text(q, 1, event, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, note, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, weighting, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, session);
	rc = step_done(st, q, err, errsz);
	sqlite3_finalize(q);
	return rc;
}

static void
sqrt_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	double x;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	x = sqlite3_value_double(argv[0]);
	/* as SQLite's own: NULL for a negative argument */
	if (x >= 0)
		sqlite3_result_double(ctx, sqrt(x));
}

int
store_math_functions(sqlite3 *db)
{
	sqlite3_stmt *q;

	if (sqlite3_prepare_v2(db, "SELECT sqrt(1.0)", -1, &q, NULL) == SQLITE_OK) {
		sqlite3_finalize(q);
		return 0;
	}
	return sqlite3_create_function(db, "sqrt", 1,
				       SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
				       NULL, sqrt_fn, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

int
store_itypes_groups(struct store *st, int64_t session, const char *const *names, unsigned n,
		    char *err, size_t errsz)
{
	sqlite3_stmt *q;
	int rc = 0;

	if (prepare(st, "INSERT OR REPLACE INTO itypes_group (session_id, grp, name)"
		    " VALUES (?,?,?)", &q, err, errsz) < 0)
		return -1;
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
store_thread_begin(struct store *st, const struct store_thread *t, char *err, size_t errsz)
{
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, "INSERT OR IGNORE INTO thread (session_id, tid, pid, files_pid,"
		    " files_pid_always, started_at) VALUES (?,?,?,?,?,?)", &q, err, errsz) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, t->session);
	sqlite3_bind_int64(q, 2, t->tid);
	sqlite3_bind_int64(q, 3, t->pid);
	sqlite3_bind_int64(q, 4, t->files_pid);
	sqlite3_bind_int64(q, 5, t->files_pid_always);
	if (t->started_at > 0)
		sqlite3_bind_double(q, 6, t->started_at);
	rc = step_done(st, q, err, errsz);
	sqlite3_finalize(q);
	return rc;
}

int
store_thread(struct store *st, int64_t session, int64_t tid, int64_t pid, char *err, size_t errsz)
{
	struct store_thread t = {
		.session = session, .tid = tid, .pid = pid, .files_pid = pid,
		.files_pid_always = tid != pid, .started_at = store_wall_clock(),
	};

	return store_thread_begin(st, &t, err, errsz);
}

int
store_thread_end(struct store *st, int64_t session, int64_t tid, int wait_status,
		 const char *reason, double ended_at, char *err, size_t errsz)
{
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, "UPDATE thread SET ended_at = ?, exit_status = ?, end_reason = ?"
		    " WHERE session_id = ? AND tid = ?", &q, err, errsz) < 0)
		return -1;
	if (ended_at > 0)
		sqlite3_bind_double(q, 1, ended_at);
	if (wait_status >= 0)
		sqlite3_bind_int64(q, 2, WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status)
								  : WEXITSTATUS(wait_status));
	sqlite3_bind_text(q, 3, reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, session);
	sqlite3_bind_int64(q, 5, tid);
	rc = step_done(st, q, err, errsz);
	sqlite3_finalize(q);
	return rc;
}

int
store_process(struct store *st, int64_t session, int64_t pid, int64_t parent_pid,
	      const char *exe, char *err, size_t errsz)
{
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, "INSERT INTO process (session_id, pid, parent_pid, exe) VALUES (?,?,?,?)"
		    " ON CONFLICT (session_id, pid) DO UPDATE SET exe = COALESCE(excluded.exe, exe)",
		    &q, err, errsz) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, session);
	sqlite3_bind_int64(q, 2, pid);
	if (parent_pid > 0)
		sqlite3_bind_int64(q, 3, parent_pid);
	if (exe)
		sqlite3_bind_text(q, 4, exe, -1, SQLITE_STATIC);
	rc = step_done(st, q, err, errsz);
	sqlite3_finalize(q);
	return rc;
}

int
store_itypes_other(struct store *st, int64_t session, int64_t tid, const char *const *names,
		   size_t n, char *err, size_t errsz)
{
	sqlite3_stmt *q = st->stmt[S_OTHER];

	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(q, 1, session);
		sqlite3_bind_int64(q, 2, tid);
		sqlite3_bind_int64(q, 3, (int64_t)i);
		sqlite3_bind_text(q, 4, names[i], -1, SQLITE_STATIC);
		if (step_done(st, q, err, errsz) < 0)
			return -1;
	}
	return 0;
}

/* A reuse bucket (or CDF point) is estimable when no censored read can be
 * in it: every one of its distances is below the interval's horizon
 * (schema.sql, memstackdist.horizon).  The top bucket has no end.  The
 * cold fraction never is: a read of a block no burst saw is censored, so
 * cold is a lower bound (0), not an estimate of the run's (performance.md
 * §3.3), and an interval of width 0 around it would claim it exact. */
static bool
metric_estimable(const struct mica_metric *m, const struct mica_interval *iv)
{
	if (m->kind == MICA_M_REUSE_COLD)
		return false;
	if (m->kind != MICA_M_REUSE_BUCKET && m->kind != MICA_M_REUSE_CDF)
		return true;
	if (m->arg >= MICA_MSD_BUCKETS - 1)
		return false;
	return (2ull << m->arg) <= iv->memstackdist.horizon;
}

/* Sample mode: the interval's bursts (sample_interval) and, for the
 * metrics its units gave values to, their estimator sums (metric_sums). */
static int
store_sample_rows(struct store *st, int64_t session, const struct mica_interval *iv,
		  char *err, size_t errsz)
{
	const struct mica_sample_info *si = &iv->sample;
	int64_t v[6] = { session, iv->tid, (int64_t)iv->index, (int64_t)si->bursts,
			 (int64_t)si->aborted, (int64_t)si->warmup_ins };
	sqlite3_stmt *q = st->stmt[S_METRIC_SUMS];
	char name[64];

	if (run_ints(st, S_SAMPLE_INTERVAL, v, 6, err, errsz) < 0)
		return -1;
	for (size_t i = 0; i < si->n_metrics; i++) {
		const struct mica_metric *m = &si->metrics[i];

		if (!m->sums.n)
			continue;
		bind_ints(q, 1, v, 3);
		if (m->kind == MICA_M_MIX) {
			sqlite3_bind_int64(q, 5, m->arg);
		} else {
			mica_metric_name(m, iv, name, sizeof(name));
			sqlite3_bind_text(q, 4, name, -1, SQLITE_TRANSIENT);
		}
		sqlite3_bind_int64(q, 6, (int64_t)m->sums.n);
		sqlite3_bind_int64(q, 7, (int64_t)m->sums.sx);
		sqlite3_bind_int64(q, 8, (int64_t)m->sums.sy);
		sqlite3_bind_double(q, 9, m->sums.sxx);
		sqlite3_bind_double(q, 10, m->sums.sxy);
		sqlite3_bind_double(q, 11, m->sums.syy);
		sqlite3_bind_int64(q, 12, metric_estimable(m, iv));
		if (step_done(st, q, err, errsz) < 0)
			return -1;
	}
	return 0;
}

int64_t
store_interval(struct store *st, int64_t session, const struct mica_interval *iv,
	       const struct mica_config *cfg, double started_at, double ended_at,
	       char *err, size_t errsz)
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
	if (started_at > 0)
		sqlite3_bind_double(q, 10, started_at);
	if (ended_at > 0)
		sqlite3_bind_double(q, 11, ended_at);
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
		if (store_itypes_other(st, session, iv->tid, iv->itypes.other, iv->itypes.n_other,
				       err, errsz) < 0)
			return -1;
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
		int64_t t[5] = { id, (int64_t)s->reads, (int64_t)s->writes,
				 (int64_t)s->first_reads, (int64_t)s->first_writes };
		sqlite3_stmt *qs = st->stmt[S_STRIDE];

		/* first_reads and first_writes: NULL in step mode */
		if (run_ints(st, S_STRIDE_TOTAL, t, iv->sampled ? 5 : 3, err, errsz) < 0)
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
		int64_t v[5] = { id, (int64_t)m->refs, (int64_t)m->cold, (int64_t)m->censored,
				 (int64_t)m->horizon };

		/* censored and horizon: NULL in step mode */
		if (run_ints(st, S_MSD, v, iv->sampled ? 5 : 3, err, errsz) < 0)
			return -1;
		for (int b = 0; b < MICA_MSD_BUCKETS; b++) {
			int64_t w[3] = { id, b, (int64_t)m->bucket[b] };

			if (run_ints(st, S_MSD_BUCKET, w, 3, err, errsz) < 0)
				return -1;
		}
	}
	if (iv->sampled && store_sample_rows(st, session, iv, err, errsz) < 0)
		return -1;
	return id;
}

int
store_intervals(struct store *st, int64_t session, const struct mica_interval *const *iv, size_t n,
		const struct mica_config *cfg, char *err, size_t errsz)
{
	double now = store_wall_clock();

	if (n == 0)
		return 0;
	if (exec_sql(st, "BEGIN IMMEDIATE", err, errsz) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (store_interval(st, session, iv[i], cfg, 0, now, err, errsz) < 0) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
	}
	return exec_sql(st, "COMMIT", err, errsz);
}

int64_t
store_interval_id(struct store *st, int64_t session, int64_t tid, int64_t idx)
{
	sqlite3_stmt *q;
	int64_t id = -1;

	if (sqlite3_prepare_v2(st->db, "SELECT id FROM interval WHERE session_id = ? AND tid = ?"
			       " AND idx = ?", -1, &q, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(q, 1, session);
	sqlite3_bind_int64(q, 2, tid);
	sqlite3_bind_int64(q, 3, idx);
	if (sqlite3_step(q) == SQLITE_ROW)
		id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return id;
}

int
store_session_end(struct store *st, int64_t session, int exit_status, const char *reason,
		  char *err, size_t errsz)
{
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, "UPDATE session SET ended_at = ?, exit_status = ?,"
		    " end_reason = ? WHERE id = ?", &q, err, errsz) < 0)
		return -1;
	sqlite3_bind_double(q, 1, store_wall_clock());
	if (exit_status >= 0)
		sqlite3_bind_int64(q, 2, exit_status);
	sqlite3_bind_text(q, 3, reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, session);
	rc = step_done(st, q, err, errsz);
	sqlite3_finalize(q);
	return rc;
}

int
store_session_note(struct store *st, int64_t session, const char *error, const char *incomplete,
		   char *err, size_t errsz)
{
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, "UPDATE session SET error = coalesce(?, error),"
		    " incomplete = coalesce(?, incomplete) WHERE id = ?", &q, err, errsz) < 0)
		return -1;
	if (error)
		sqlite3_bind_text(q, 1, error, -1, SQLITE_STATIC);
	if (incomplete)
		sqlite3_bind_text(q, 2, incomplete, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 3, session);
	rc = step_done(st, q, err, errsz);
	sqlite3_finalize(q);
	return rc;
}

/* Is the process that wrote a 'running' session still alive?  It is when
 * this boot has a process with its pid and its start time; without a boot
 * id or start time to compare, when its pid exists. */
static bool
writer_alive(sqlite3_stmt *q)
{
	char boot[64];
	long pid;

	if (sqlite3_column_type(q, 1) == SQLITE_NULL)
		return false;
	pid = (long)sqlite3_column_int64(q, 1);
	if (pid <= 0)
		return false;
	boot_id(boot, sizeof(boot));
	if (sqlite3_column_type(q, 3) != SQLITE_NULL && *boot &&
	    strcmp((const char *)sqlite3_column_text(q, 3), boot) != 0)
		return false;
	if (sqlite3_column_type(q, 2) != SQLITE_NULL)
		return proc_start_time(pid) == sqlite3_column_int64(q, 2);
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

int
store_mark_cut_off(struct store *st, char *err, size_t errsz)
{
	sqlite3_stmt *q, *u;
	int64_t *gone = NULL;
	size_t n_gone = 0;
	int n = 0, rc;

	/* Collect first: no update under a running SELECT of the table. */
	if (prepare(st, "SELECT id, writer_pid, writer_start, writer_boot_id FROM session"
		    " WHERE end_reason = 'running'", &q, err, errsz) < 0)
		return -1;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (writer_alive(q))
			continue;
		gone = xreallocarray(gone, n_gone + 1, sizeof(*gone));
		gone[n_gone++] = sqlite3_column_int64(q, 0);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		set_err(err, errsz, "%s: %s", st->path, sqlite3_errmsg(st->db));
		free(gone);
		return -1;
	}
	if (n_gone == 0)
		return 0;
	if (prepare(st, "UPDATE session SET end_reason = 'cut-off', ended_at ="
		    " (SELECT max(ended_at) FROM interval WHERE session_id = session.id)"
		    " WHERE id = ? AND end_reason = 'running'", &u, err, errsz) < 0) {
		free(gone);
		return -1;
	}
	for (size_t i = 0; i < n_gone; i++) {
		sqlite3_bind_int64(u, 1, gone[i]);
		if (step_done(st, u, err, errsz) < 0) {
			n = -1;
			break;
		}
		n += sqlite3_changes(st->db);
	}
	sqlite3_finalize(u);
	free(gone);
	return n;
}
