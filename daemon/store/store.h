/*
 * The results database (schema.sql): open/create/migrate, and write
 * sessions, processes, threads and finished intervals.  One writer per
 * database (store_writer.h runs it on a thread of its own): each batch of
 * intervals is one transaction, so a crash loses at most the batch in
 * flight and never corrupts the file (WAL).
 */
#ifndef MICAD_STORE_H
#define MICAD_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mica/mica.h"
#include "mica/mica_output.h"

#define STORE_SCHEMA_VERSION 4

/* How long a connection, reading or writing, waits for another's lock
 * (ms): a writer's transaction, a closing writer's checkpoint. */
#define STORE_BUSY_TIMEOUT_MS 30000

struct store;
struct sqlite3;

/* Open (creating and migrating if needed, unless read_only) the database
 * at path.  Returns NULL with the reason in err.  Opened to write, a file
 * that fails PRAGMA quick_check is refused with what to do. */
struct store *store_open(const char *path, bool read_only, char *err, size_t errsz);
void store_close(struct store *st);

/* A writer keeps a small reserve of disk space beside the database (a
 * file DB-reserve-PID, removed at close).  Free it, for a last write after
 * the disk filled up: true if there was one to free. */
bool store_release_reserve(struct store *st);

/* The connection, for insert functions of other areas (run them on the
 * writer thread: store_writer_submit) and for read-side code. */
struct sqlite3 *store_sqlite(struct store *st);
const char *store_path(const struct store *st);

/* The wall clock, Unix seconds: the time columns' unit. */
double store_wall_clock(void);

/* Run SQL text (no result rows); -1 with SQLite's message in err. */
int store_exec(struct store *st, const char *sql, char *err, size_t errsz);

/* The default database: $XDG_DATA_HOME/micad/results.db, else
 * ~/.local/share/micad/results.db; the directory is created.  Returns a
 * malloc'd path, or NULL with the reason in err. */
char *store_default_path(char *err, size_t errsz);

struct store_session {
	const char *mode;	/* "run", "attach", "replay" */
	const char *command;
	int64_t pid;		/* 0: none */
	int64_t uid;
	const char *config;	/* mica.conf text */
	const char *settings;	/* JSON */
	/* The MICA settings in effect (analysis_type, interval_size, ...
	 * columns, and the itypes group names); NULL: not recorded. */
	const struct mica_config *mica;
	/* How the instructions are seen: "step", "sample" or "valgrind"
	 * (schema.sql, session.engine); NULL: "step". */
	const char *engine;
};

/* A new session row, recording this process as its writer (pid, start
 * time, boot id: see store_mark_cut_off); returns its id, or -1 with the
 * reason in err. */
int64_t store_session_begin(struct store *st, const struct store_session *s,
			    char *err, size_t errsz);

/* The session's first traced process, once it is known, and its command
 * line (NULL: unchanged). */
int store_session_pid(struct store *st, int64_t session, int64_t pid, const char *command,
		      char *err, size_t errsz);

/*
 * Sample mode: what sampling is in effect and why (the producer's note,
 * tracer.h struct trace_note_rec): the session's engine becomes 'sample',
 * with its sample_event, sample_note and weighting ("instructions" or
 * "time").
 */
int store_session_sample(struct store *st, int64_t session, const char *event, const char *note,
			 const char *weighting, char *err, size_t errsz);

/*
 * Give connection db sqrt(), which the estimates' views use, when SQLite
 * was built without its math functions (Debian's has them).  0, or -1 if
 * it could not be registered.
 */
int store_math_functions(struct sqlite3 *db);

/* Group names for itypes of a session ("other" is added for the
 * catch-all). */
int store_itypes_groups(struct store *st, int64_t session, const char *const *names,
			unsigned n, char *err, size_t errsz);

/* A thread row: files_pid = pid, and its MICA file names carry it when
 * tid != pid. */
int store_thread(struct store *st, int64_t session, int64_t tid, int64_t pid,
		 char *err, size_t errsz);

struct store_thread {
	int64_t session, tid, pid;
	/* What `micad export --format mica` needs to name this thread's files
	 * as --mica-out did: the number they carry where append_pid puts the
	 * pid, and whether they carry it even without append_pid (a thread
	 * other than the first process's main thread). */
	int64_t files_pid;
	bool files_pid_always;
	double started_at;	/* Unix seconds; <= 0: unknown */
};
int store_thread_begin(struct store *st, const struct store_thread *t, char *err, size_t errsz);

/* A thread's end: wait_status as waitpid's (< 0: unknown), reason one of
 * "exited", "killed", "detached". */
int store_thread_end(struct store *st, int64_t session, int64_t tid, int wait_status,
		     const char *reason, double ended_at, char *err, size_t errsz);

/* A process row (exe may be NULL); parent_pid 0: none. */
int store_process(struct store *st, int64_t session, int64_t pid, int64_t parent_pid,
		  const char *exe, char *err, size_t errsz);

/* itypes catch-all categories of a thread, in discovery order (the list is
 * cumulative: names already stored are skipped). */
int store_itypes_other(struct store *st, int64_t session, int64_t tid,
		       const char *const *names, size_t n, char *err, size_t errsz);

/* Write n finished intervals of a session in one transaction (ended now). */
int store_intervals(struct store *st, int64_t session, const struct mica_interval *const *iv,
		    size_t n, const struct mica_config *cfg, char *err, size_t errsz);

/* One interval, in the caller's transaction, with its wall-clock times
 * (Unix seconds; <= 0: unknown); its catch-all categories too.  Returns
 * the interval's row id, or -1. */
int64_t store_interval(struct store *st, int64_t session, const struct mica_interval *iv,
		       const struct mica_config *cfg, double started_at, double ended_at,
		       char *err, size_t errsz);

/* The row id of interval idx of thread tid (for tables that reference
 * interval(id), e.g. the MGSim counters), or -1 if there is none. */
int64_t store_interval_id(struct store *st, int64_t session, int64_t tid, int64_t idx);

/* The end: exit_status < 0 means unknown; reason as in schema.sql. */
int store_session_end(struct store *st, int64_t session, int exit_status, const char *reason,
		      char *err, size_t errsz);

/* What end_reason does not say (schema.sql): why the session failed
 * (error) and why some of its results are missing (incomplete); NULL
 * leaves a column as it is. */
int store_session_note(struct store *st, int64_t session, const char *error,
		       const char *incomplete, char *err, size_t errsz);

/* Sessions left 'running' by a writer process that is gone (not alive, or
 * its pid reused by another process, or another boot) become 'cut-off',
 * ended at their last interval's end.  Returns how many, or -1. */
int store_mark_cut_off(struct store *st, char *err, size_t errsz);

#endif /* MICAD_STORE_H */
