/*
 * micactl export --format folded|pprof (export_profile.c): a sample-mode
 * session's call-stack profile as the folded-stack text of flamegraph.pl,
 * inferno and speedscope, or as a gzipped profile.proto for go tool pprof.
 */
#ifndef MICAD_CLIENT_EXPORT_PROFILE_H
#define MICAD_CLIENT_EXPORT_PROFILE_H

#include <stdbool.h>

#include "store/profile_read.h"

struct sqlite3;

enum profile_format { PROFILE_FOLDED, PROFILE_PPROF };

/*
 * Write the profile of r (r->session) to out, or to standard output when
 * out is NULL.  path is the database's, for messages.  Returns the exit
 * status: 0, or 1 after reporting why.
 */
int export_profile(struct sqlite3 *db, const char *path, enum profile_format format,
		   const struct profile_range *r, const char *out);

#endif /* MICAD_CLIENT_EXPORT_PROFILE_H */
