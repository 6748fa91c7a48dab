/*
 * The MGSim counter view in the results database (schema.sql, block
 * "MGSim counters"): a session's model settings (table mgsim_config) and
 * the cumulative snapshots of trace_mgsim (table mgsim_counters).  The
 * store_* functions run on the connection's thread (the writer's, through
 * store_writer_submit); the store_writer_* ones copy their data and queue
 * such a job.
 */
#ifndef MICAD_STORE_MGSIM_H
#define MICAD_STORE_MGSIM_H

#include <stddef.h>
#include <stdint.h>

#include "mgsim/mgsim.h"
#include "session/trace_mgsim.h"
#include "store/store.h"
#include "store/store_writer.h"

/* The settings row of a session (replaced if there is one). */
int store_mgsim_config(struct store *st, int64_t session, const struct mgsim_config *c,
		       char *err, size_t errsz);

/* One snapshot row (replaced if there is one for the same thread and idx). */
int store_mgsim_snapshot(struct store *st, int64_t session, const struct mgsim_snapshot *s,
			 char *err, size_t errsz);

/* Queued (asynchronous) forms; -1 once the writer has stopped. */
int store_writer_mgsim_config(struct store_writer *w, int64_t session,
			      const struct mgsim_config *c);
int store_writer_mgsim_snapshot(struct store_writer *w, int64_t session,
				const struct mgsim_snapshot *s);

/*
 * A snapshot callback for trace_mgsim_opts.on_snapshot: arg is a struct
 * store_mgsim_sink whose session is set before the first snapshot.
 */
struct store_mgsim_sink {
	struct store_writer *w;
	int64_t session;
	unsigned long failed;	/* submits refused (the writer stopped) */
};
void store_mgsim_on_snapshot(void *arg, const struct mgsim_snapshot *s);

#endif /* MICAD_STORE_MGSIM_H */
