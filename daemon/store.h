/*
 * The results database (schema.sql): open/create/migrate, and write
 * sessions, threads and finished intervals.  One writer per database:
 * callers batch intervals, and each batch is one transaction, so a crash
 * loses at most the batch in flight and never corrupts the file (WAL).
 */
#ifndef MICAD_STORE_H
#define MICAD_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mica.h"
#include "mica_output.h"

#define STORE_SCHEMA_VERSION 1

struct store;

/* Open (creating and migrating if needed, unless read_only) the database
 * at path.  Returns NULL with the reason in err. */
struct store *store_open(const char *path, bool read_only, char *err, size_t errsz);
void store_close(struct store *st);

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
};

/* A new session row; returns its id, or -1 with the reason in err. */
int64_t store_session_begin(struct store *st, const struct store_session *s,
			    char *err, size_t errsz);

/* Group names for itypes of a session ("other" is added for the
 * catch-all). */
int store_itypes_groups(struct store *st, int64_t session, const char *const *names,
			unsigned n, char *err, size_t errsz);

int store_thread(struct store *st, int64_t session, int64_t tid, int64_t pid,
		 char *err, size_t errsz);

/* Write n finished intervals of a session in one transaction. */
int store_intervals(struct store *st, int64_t session, const struct mica_interval *const *iv,
		    size_t n, const struct mica_config *cfg, char *err, size_t errsz);

/* The end: exit_status < 0 means unknown; reason as in schema.sql. */
int store_session_end(struct store *st, int64_t session, int exit_status, const char *reason,
		      char *err, size_t errsz);

/* Sessions a previous daemon left 'running' become 'cut-off'.  Returns
 * how many, or -1. */
int store_mark_cut_off(struct store *st, char *err, size_t errsz);

#endif /* MICAD_STORE_H */
