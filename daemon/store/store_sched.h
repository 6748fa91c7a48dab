/*
 * The live scheduling model in the results database (schema.sql, block
 * "Scheduling model (live)"): a session's CPU model (sched_config), the
 * per-interval cycles and per-port uops of trace_sched (sched_interval,
 * sched_port) and the hottest blocks (sched_hot_block).  The store_*
 * functions run on the connection's thread (the writer's, through
 * store_writer_submit); the store_writer_* ones copy their data and queue
 * such a job.
 */
#ifndef MICAD_STORE_SCHED_H
#define MICAD_STORE_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "session/trace_sched.h"
#include "store/store.h"
#include "store/store_writer.h"

int store_sched_config(struct store *st, int64_t session, const char *cpu, unsigned iterations,
		       char *err, size_t errsz);
/* One interval row and its port rows (replaced if there are some). */
int store_sched_snapshot(struct store *st, int64_t session, const struct sched_snapshot *s,
			 char *err, size_t errsz);
int store_sched_hot_block(struct store *st, int64_t session, const struct sched_hot_block *b,
			  char *err, size_t errsz);

/* Queued (asynchronous) forms; -1 once the writer has stopped. */
int store_writer_sched_config(struct store_writer *w, int64_t session, const char *cpu,
			      unsigned iterations);
int store_writer_sched_snapshot(struct store_writer *w, int64_t session,
				const struct sched_snapshot *s);
int store_writer_sched_hot_block(struct store_writer *w, int64_t session,
				 const struct sched_hot_block *b);

/*
 * Callbacks for trace_sched_opts.on_snapshot and .on_hot_block: arg is a
 * struct store_sched_sink whose session is set before the first call.
 */
struct store_sched_sink {
	struct store_writer *w;
	int64_t session;
	unsigned long failed;	/* submits refused (the writer stopped) */
};
void store_sched_on_snapshot(void *arg, const struct sched_snapshot *s);
void store_sched_on_hot_block(void *arg, const struct sched_hot_block *b);

#endif /* MICAD_STORE_SCHED_H */
