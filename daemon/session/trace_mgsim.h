/*
 * The MGSim counter view of a live trace: a trace consumer that feeds one
 * Model A simulation (analyzers/mgsim/mgsim.h) with the events of every traced
 * thread, in the order they ran, and
 *  - takes a snapshot of the chip-wide cumulative counters when a thread
 *    starts (interval index -1) and whenever one of its MICA intervals
 *    closes (mica.md §1.5: every interval_size H-instructions of that
 *    thread, and the remainder when it ends; full mode: one interval), so
 *    the snapshots line up with the rows of the database's interval table;
 *  - publishes the counters for the HTTP server into a struct mgsim_live
 *    (a seqlock that can live in MAP_SHARED memory) between two events.
 * Counter 12 (futex waits) comes from the events' system calls
 * (EV_SYSCALL, event.h), in mgsim_event() itself (mgsim.h).
 */
#ifndef MICAD_TRACE_MGSIM_H
#define MICAD_TRACE_MGSIM_H

#include <stdbool.h>
#include <stdint.h>

#include "mgsim/mgsim.h"
#include "session/trace_analysis.h"

/* ---- the live snapshot (seqlock) ---- */

#define MGSIM_LIVE_MAGIC	0x4c53474du	/* "MGSL" */
#define MGSIM_LIVE_VERSION	1

enum mgsim_live_state {
	MGSIM_LIVE_NONE = 0,		/* nothing published yet */
	MGSIM_LIVE_RUNNING = 1,
	MGSIM_LIVE_FINISHED = 2,	/* the trace ended: the final values */
};

/* One consistent copy.  Every field is a 64-bit word. */
struct mgsim_live_data {
	uint64_t v[MGSIM_NUM_COUNTERS];	/* 13-15 are 0: the reader applies its clock */
	uint64_t state;			/* enum mgsim_live_state */
	uint64_t publishes;		/* how many times published so far */
	uint64_t events;		/* events simulated (every DE) */
	uint64_t live_tasks;
	uint64_t ratio;			/* R, for the reader's derived columns */
};

#define MGSIM_LIVE_WORDS (sizeof(struct mgsim_live_data) / sizeof(uint64_t))

/*
 * One writer (the analysis thread), any number of readers in any process
 * mapping the same memory.  seq is odd while the writer updates words;
 * a reader copies the words and retries if seq was odd or changed.  Every
 * word is accessed atomically (relaxed), so no access is a data race.
 */
struct mgsim_live {
	uint32_t magic, version;
	uint64_t seq;
	uint64_t words[MGSIM_LIVE_WORDS];
};

/* Initialise (zero, magic, version) memory for one. */
void mgsim_live_init(struct mgsim_live *l);

/* A shared anonymous mapping holding an initialised struct mgsim_live, to
 * be created before fork() so parent and child see the same one; NULL
 * after reporting why. */
struct mgsim_live *mgsim_live_map(void);
void mgsim_live_unmap(struct mgsim_live *l);

/* Writer: publish d (only one thread may publish into l). */
void mgsim_live_publish(struct mgsim_live *l, const struct mgsim_live_data *d);

/*
 * Reader: a consistent copy into d.  Returns 0, or -1 if the magic is
 * wrong or no consistent copy was had in max_tries attempts (a writer
 * that died in the middle of an update leaves seq odd for ever); it
 * yields the CPU between attempts after the first few.
 */
int mgsim_live_read(const struct mgsim_live *l, struct mgsim_live_data *d, unsigned max_tries);

/* ---- the consumer ---- */

/* A snapshot of the chip-wide cumulative counters for a thread's interval. */
struct mgsim_snapshot {
	int32_t pid, tid;
	int64_t idx;		/* interval index (table interval's idx); -1: the thread's start */
	bool final;		/* the remainder at the thread's end */
	bool full;		/* full mode: the one interval of the whole run */
	double taken_at;	/* Unix seconds: the one clock reading of 13-15 */
	uint64_t v[MGSIM_NUM_COUNTERS];
};

typedef void (*mgsim_snapshot_fn)(void *arg, const struct mgsim_snapshot *s);

struct trace_mgsim_opts {
	struct mgsim_config cfg;
	/* MICA's interval_size S of the session (mica_config.interval_size):
	 * -1 full mode; a boundary whenever a thread's interval H == S. */
	int64_t interval_size;
	mgsim_snapshot_fn on_snapshot;	/* NULL: none */
	void *arg;
	struct mgsim_live *live;	/* NULL: no live view */
	/* Publish every this many events (0: 64), and at every thread start
	 * and end and at the finish. */
	unsigned publish_every;
	/*
	 * Sample mode (trace_analysis_set_sample): the model runs on every
	 * burst's events (its caches warm), but the cumulative counters it
	 * reports and publishes leave out what warm-ups and aborted bursts
	 * added: they count measured units only.  A thread's snapshots are
	 * taken at its start and at the end of each time interval in which
	 * a burst of it ended (interval_size is not used).
	 */
	bool sampled;
};

struct trace_mgsim;

/* NULL with the reason in err (a bad configuration). */
struct trace_mgsim *trace_mgsim_new(const struct trace_mgsim_opts *o, char *err, size_t errsz);
struct trace_consumer trace_mgsim_consumer(struct trace_mgsim *tm);
/* The model (for an end-of-run report; read it only after the analysis
 * thread is joined, or from the analysis thread). */
struct mgsim *trace_mgsim_model(struct trace_mgsim *tm);
/* Publish now (on the analysis thread, between two events). */
void trace_mgsim_publish(struct trace_mgsim *tm);
void trace_mgsim_free(struct trace_mgsim *tm);

#endif /* MICAD_TRACE_MGSIM_H */
