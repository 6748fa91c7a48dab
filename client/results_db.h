/*
 * Which results database micactl's read-side commands (export, query)
 * open, and opening it read-only.
 */
#ifndef MICAD_CLIENT_RESULTS_DB_H
#define MICAD_CLIENT_RESULTS_DB_H

#include "store/store.h"

/*
 * The database to read: db_opt (--db FILE) when given, else the per-user
 * default (store_default_path).  The one place that decides it: asking a
 * running daemon for its database would go here.  Returns a malloc'd path,
 * or NULL after reporting why.
 */
char *results_db_path(const char *db_opt);

/*
 * Open the database read-only (SQLITE_OPEN_READONLY; a missing file or a
 * file that is not micad's is refused with what to do).  NULL after
 * reporting why.
 */
struct store *results_db_open(const char *path);

#endif /* MICAD_CLIENT_RESULTS_DB_H */
