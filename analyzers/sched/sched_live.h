/*
 * Live scheduling: the traced instruction stream of a process fed, one
 * executed instruction at a time, to the corrected pipeline model
 * (sched_uarch.h), giving simulated cycles, IPC and per-port pressure per
 * interval, and the hottest basic blocks with a static-style report for
 * each.  Pure: no I/O, no ptrace; the caller (the daemon) feeds events
 * and stores what comes out.
 *
 *   live = sched_live_new("skylake");	  NULL: no uop model for that CPU
 *   for each event: sched_live_feed(live, &ev);
 *   at each interval end: sched_live_interval(live, &iv);
 *   at the end: sched_live_flush(live); sched_live_interval(live, &iv);
 *   n = sched_live_hot_blocks(live, blocks, 10);
 *   json = sched_live_block_report(live, &blocks[i], 100);	  free() it
 *   sched_live_free(live);
 *
 * What the model sees of the live stream: real branch outcomes (a taken
 * branch ends a fetch block), real memory addresses (a load depends on
 * the last older store to an overlapping address), instructions from the
 * uop cache (hot code), and no branch mispredictions, cache misses or
 * interrupts.  Cycles are those of the modelled core, not of the host.
 */
#ifndef MICAD_SCHED_LIVE_H
#define MICAD_SCHED_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "sched/sched_uarch.h"

#define SCHED_LIVE_BLOCK_BYTES	512

struct sched_live;

/* What happened since the previous call (or the start). */
struct sched_live_interval {
	uint64_t insns;			/* instructions retired in the interval */
	uint64_t cycles;		/* simulated cycles in the interval */
	double ipc;			/* insns / cycles (0 when no cycle) */
	unsigned n_ports;
	uint64_t port_uops[UA_MAX_PORTS];	/* uops executed on each port */
	double port_pressure[UA_MAX_PORTS];	/* port_uops / cycles */
	uint64_t total_insns, total_cycles;	/* since the start */
};

/* A basic block of the stream: straight-line code from a branch target
 * (or the instruction after a taken branch) to the next branch. */
struct sched_live_block {
	uint64_t start_pc, end_pc;	/* first and last instruction */
	uint64_t executions;
	uint64_t insns_executed;	/* executions x n_insns: the sort key */
	unsigned n_insns, n_bytes;	/* n_bytes 0: too long to keep */
	uint8_t bytes[SCHED_LIVE_BLOCK_BYTES];
};

/* A live model of the CPU named as -mcpu names it; NULL if there is no
 * uop-level model for it (AMD models: use "skylake" or another Intel
 * one) or no memory. */
struct sched_live *sched_live_new(const char *mcpu);
void sched_live_free(struct sched_live *l);
const char *sched_live_cpu(const struct sched_live *l);

/* Names of the ports (the model's resource names, "SKLPort0"...);
 * returns their number. */
unsigned sched_live_ports(const struct sched_live *l, const char **names, unsigned max);

/* One executed instruction.  Returns 0, or -1 if ev->info could not be
 * mapped to the model (the instruction then counts as one ALU uop). */
int sched_live_feed(struct sched_live *l, const struct insn_event *ev);

/* Simulate until everything fed has retired (end of a trace). */
void sched_live_flush(struct sched_live *l);

/* How many times the stall watchdog restarted the pipeline model (each
 * restart loses the timing of the instructions then in flight). */
unsigned sched_live_restarts(const struct sched_live *l);

/* The interval since the previous call; starts the next one. */
void sched_live_interval(struct sched_live *l, struct sched_live_interval *out);

/* Instructions fed that no model opcode matched. */
uint64_t sched_live_unmapped(const struct sched_live *l);

/* The max hottest blocks (most instructions executed) into out, hottest
 * first; returns how many. */
unsigned sched_live_hot_blocks(const struct sched_live *l, struct sched_live_block *out,
			       unsigned max);

/*
 * The static analysis of one block as a loop of `iterations` iterations
 * (the corrected model, the CPU of l): a JSON object with the summary
 * (total_cycles, throughput, ipc, block_rthroughput), the bounds of the
 * bottleneck analysis and, per instruction, its text, uops, latency and
 * port pressure.  malloc'ed; NULL if the bytes do not decode or no
 * memory.
 */
char *sched_live_block_report(const struct sched_live *l, const struct sched_live_block *b,
			      unsigned iterations);

#endif /* MICAD_SCHED_LIVE_H */
