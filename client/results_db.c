/*
 * The results database on micactl's side (results_db.h).
 */
#include "config.h"
#include "client/results_db.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

char *
results_db_path(const char *db_opt)
{
	char err[512], *path;

	if (db_opt)
		return xstrdup(db_opt);
	path = store_default_path(err, sizeof(err));
	if (!path)
		error_msg("%s", err);
	return path;
}

struct store *
results_db_open(const char *path)
{
	char err[512];
	struct store *st;

	if (access(path, F_OK) != 0) {
		if (errno == ENOENT)
			error_msg("no results database at %s yet: trace something first "
				  "(micad run -- PROGRAM), or pass --db FILE", path);
		else
			perror_msg("cannot open the results database %s", path);
		return NULL;
	}
	st = store_open(path, true, err, sizeof(err));
	if (!st)
		error_msg("%s", err);
	return st;
}
