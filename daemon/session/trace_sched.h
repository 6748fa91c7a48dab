/*
 * The scheduling model of a live trace: a trace consumer that feeds each
 * traced thread's instructions to a pipeline model of its own
 * (analyzers/sched/sched_live.h) and
 *  - at each of the thread's MICA intervals (mica.md §1.5: a boundary when
 *    the thread's H count reaches interval_size, the remainder when it
 *    ends; full mode: one interval) reports the simulated cycles, IPC and
 *    per-port uops and pressure of that interval, so the rows line up with
 *    the database's interval table;
 *  - at the end, reports the session's hottest basic blocks (the most
 *    instructions executed, over every thread) with a static-style
 *    analysis of each as a loop;
 *  - optionally drives the MGSim model's cycles (counters 0 and 20): Model
 *    A has one core for all threads, and its core cycles are the sum of
 *    the threads' simulated cycles, added as they are simulated.
 */
#ifndef MICAD_TRACE_SCHED_H
#define MICAD_TRACE_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "mgsim/mgsim.h"
#include "sched/sched_live.h"
#include "session/trace_analysis.h"

#define TRACE_SCHED_HOT_BLOCKS	10
#define TRACE_SCHED_REPORT_ITERATIONS	100

/* One closed interval of one thread. */
struct sched_snapshot {
	int32_t pid, tid;
	int64_t idx;		/* table interval's idx */
	bool final;		/* the remainder at the thread's end */
	uint64_t insns, cycles;
	double ipc;		/* insns / cycles; 0 when no cycle */
	unsigned n_ports;
	const char *port_names[UA_MAX_PORTS];	/* the model's (static strings) */
	uint64_t port_uops[UA_MAX_PORTS];
	double port_pressure[UA_MAX_PORTS];	/* port_uops / cycles */
};

/* One of the session's hottest blocks. */
struct sched_hot_block {
	unsigned rank;		/* 1: the hottest */
	uint64_t start_pc, end_pc;
	uint64_t executions, insns_executed;
	unsigned n_insns;
	const char *report;	/* JSON (sched_live_block_report); NULL if none */
};

typedef void (*sched_snapshot_fn)(void *arg, const struct sched_snapshot *s);
typedef void (*sched_hot_fn)(void *arg, const struct sched_hot_block *b);

struct trace_sched_opts {
	const char *mcpu;	/* -mcpu name; NULL: the host's (trace_sched_host_cpu) */
	int64_t interval_size;	/* as trace_mgsim_opts: -1 full mode */
	sched_snapshot_fn on_snapshot;	/* NULL: none */
	sched_hot_fn on_hot_block;	/* at the finish, hottest first; NULL: none */
	void *arg;
	/* Drive this model's core cycles (NULL: leave it alone).  Feed the
	 * scheduling consumer before the MGSim one. */
	struct mgsim *mgsim;
	/* Sample mode (trace_analysis_set_sample): intervals are the time
	 * intervals in which a burst of the thread ended, and only the
	 * bursts' measured units count; the pipeline is drained at each
	 * burst's start (what the previous burst left in flight is not this
	 * one's).  interval_size is then not used. */
	bool sampled;
	/* No warning that would repeat on every run (micad -q). */
	bool quiet;
};

struct trace_sched;

/* LLVM's name of the host CPU among the models (micactl mca's default). */
const char *trace_sched_host_cpu(void);

/* NULL with the reason in err (an unknown CPU).  A CPU with no uop-level
 * model (AMD) falls back to "skylake" with a warning (unless quiet). */
struct trace_sched *trace_sched_new(const struct trace_sched_opts *o, char *err, size_t errsz);
struct trace_consumer trace_sched_consumer(struct trace_sched *ts);
/* The model's CPU name (a static string). */
const char *trace_sched_cpu(const struct trace_sched *ts);
/* Instructions no model opcode matched (counted as one ALU uop each). */
uint64_t trace_sched_unmapped(const struct trace_sched *ts);
void trace_sched_free(struct trace_sched *ts);

#endif /* MICAD_TRACE_SCHED_H */
