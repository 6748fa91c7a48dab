/*
 * Batches of instruction events handed to worker threads: every worker
 * sees every event of a batch, in order, and does its own share of the
 * work on it (trace_mica.c: each worker runs its own group of the MICA
 * analyses).  One thread pushes; while the workers go through one batch
 * it fills the next, and it waits for them only when that one is full
 * too.
 */
#ifndef MICAD_EVENT_FANOUT_H
#define MICAD_EVENT_FANOUT_H

#include <stdbool.h>

#include "event.h"

/* Worker w's share of one event; target is what the pusher passed with
 * it.  Called on worker w's thread only. */
typedef void (*event_fanout_fn)(void *arg, unsigned w, void *target,
				const struct insn_event *ev);

struct event_fanout;

/* n workers (2 or more), each on a thread of its own; NULL if a thread
 * could not be started. */
struct event_fanout *event_fanout_new(unsigned n, event_fanout_fn fn, void *arg);

/*
 * Queue a copy of ev (its info must stay valid until the batch is done).
 * When the batch is full it is handed over, after the workers are done
 * with the previous one: then true is returned, and what the workers
 * produced up to the batch before is the pusher's to read.
 */
bool event_fanout_push(struct event_fanout *f, void *target, const struct insn_event *ev);

/* Hand over what is queued and wait until the workers are done with
 * everything pushed. */
void event_fanout_sync(struct event_fanout *f);

/* Sync, stop the workers and free. */
void event_fanout_free(struct event_fanout *f);

#endif /* MICAD_EVENT_FANOUT_H */
