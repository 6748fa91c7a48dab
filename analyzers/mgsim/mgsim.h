/*
 * The simulated MGSim performance counters (spec mgsim-counters.md), Model
 * A of §4: every traced task runs on one simulated multithreaded core with
 * one L1I and one L1D, an optional L2, and one cycle timeline.  The model
 * takes the instruction events (event.h) of all threads in the order they
 * ran, and task starts and ends; it keeps the 21 counters of §1 as §4.2
 * defines them.  Also here: the packed date and time words (§2), MGSim's
 * MMIO decode rules (§3), the mtperf derived columns and the monitoring
 * variables (§5), and the invariants of §4.2 as a self-check.
 *
 * Pure: no I/O, no clock reads (the caller passes one clock reading in),
 * no locking (one thread drives a model; readers take copies).
 */
#ifndef MICAD_MGSIM_H
#define MICAD_MGSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "event.h"
#include "mgsim/cache_sim.h"

#define MGSIM_NUM_COUNTERS	21
#define MGSIM_WORD_SIZE		8	/* x86-64 is 64-bit, like MT-Alpha */
#define MGSIM_DEFAULT_BASE	8	/* MGSim's shipped config.ini */
/* Discovery (§3): the ancillary registers ASR 4 and 5, word-indexed from
 * the ASR window at 0x400. */
#define MGSIM_ASR_WINDOW	0x400
#define MGSIM_ASR_NUM_COUNTERS	4
#define MGSIM_ASR_COUNTERS_BASE	5

/* Counter indices (§1); names as slcore's mtperf prints them. */
enum mgsim_counter {
	MGSIM_CLOCKS = 0,		/* clocks: master cycles */
	MGSIM_EXEC_INSNS = 1,		/* n_exec_insns */
	MGSIM_ISSUED_FLOPS = 2,		/* n_issued_flops */
	MGSIM_LOADS = 3,		/* n_compl_core_loads */
	MGSIM_STORES = 4,		/* n_compl_core_stores */
	MGSIM_LOAD_BYTES = 5,		/* n_bytes_l1tocore */
	MGSIM_STORE_BYTES = 6,		/* n_bytes_coretol1 */
	MGSIM_L2_LOADS = 7,		/* n_reqs_l2tol1: line reads by the L1s */
	MGSIM_L2_STORES = 8,		/* n_reqs_l1tol2: line writes by the L1s */
	MGSIM_PLACE_SIZE = 9,		/* notused1 */
	MGSIM_TT_TOTAL = 10,		/* tt_total: thread slot-cycles */
	MGSIM_FT_TOTAL = 11,		/* ft_total: family slot-cycles */
	MGSIM_XQ_TOTAL = 12,		/* xq_total: exclusive queue integral */
	MGSIM_UNIX_CTIME = 13,		/* notused2: time() */
	MGSIM_UNIX_DATE = 14,		/* notused3: packed date */
	MGSIM_UNIX_TIME = 15,		/* notused4: packed time */
	MGSIM_EXT_LOADS = 16,		/* n_cl_loads_ext */
	MGSIM_EXT_STORES = 17,		/* n_cl_stores_ext */
	MGSIM_CR_THREADS = 18,		/* n_cr_threads */
	MGSIM_CR_FAMILIES = 19,		/* n_cr_families */
	MGSIM_CORE_CLOCKS = 20,		/* core_clocks */
};

/* What the API and the README say about a counter. */
struct mgsim_counter_info {
	const char *name;	/* slcore column name, the JSON key: "n_exec_insns" */
	const char *macro;	/* perf.h: "EXECUTED_INSNS" */
	const char *unit;	/* "instructions", "master cycles", ... */
	const char *scope;	/* "global", "place", "chip", "host", "core" */
	const char *kind;	/* "natural", "invented", "natural + invented rules", ... */
	bool cumulative;	/* false for 9 and the clock readings 13-15 */
	const char *how;	/* one sentence: how micad produces it */
};

/* NULL if i >= MGSIM_NUM_COUNTERS. */
const struct mgsim_counter_info *mgsim_counter_info(unsigned i);
/* The index of a counter name, or -1. */
int mgsim_counter_index(const char *name);

/* ---- configuration ---- */

enum mgsim_l1d_policy {
	MGSIM_WRITE_THROUGH = 0,	/* no allocate on a write miss: MGSim's D-cache */
	MGSIM_WRITE_BACK = 1,		/* write-allocate, dirty lines written back */
};

enum mgsim_xq_mode {
	MGSIM_XQ_FUTEX = 0,	/* counter 12 integrates tasks in a futex wait */
	MGSIM_XQ_OFF = 1,	/* counter 12 is always 0 */
};

struct mgsim_config {
	struct cache_config l1i, l1d, l2;
	bool has_l2;		/* false: a flat memory, 16 == 7 and 17 == 8 */
	int l1d_policy;		/* enum mgsim_l1d_policy */
	uint32_t core_mhz, master_mhz;	/* R = master / core, an integer >= 1 */
	/* The simple cycle model (mgsim_simple_cycles): core cycles added
	 * per L1 miss served by the L2, and per line fetched from memory. */
	uint32_t l2_latency, mem_latency;
	/* Nominal table sizes for tt_occp and ft_occp (MGSim: 256, 32). */
	uint32_t thread_entries, family_entries;
	int xq_mode;		/* enum mgsim_xq_mode */
	uint64_t mmio_base;	/* 0: the MMIO view is unmapped */
	bool alpha_time;	/* counter 15 sign-extended as 64-bit MT-Alpha MGSim */
	const char *cycle_model;	/* its name: "simple" (mgsim_set_cycle_model) */
};

/*
 * Defaults: L1I and L1D 32 KiB, 8-way, 64-byte lines; L1D write-through
 * no-allocate (MGSim's); L2 1 MiB, 16-way, 64-byte lines, write-back
 * write-allocate; 1000 MHz core and master clock (R = 1); L2 latency 10,
 * memory latency 100 core cycles; 256 thread and 32 family entries; futex
 * wait tracking on; MMIO base 8; clean 32-bit time word.
 */
void mgsim_config_default(struct mgsim_config *c);

/*
 * Change settings from a comma-separated list of KEY=VALUE:
 *   l1i=SIZE:ASSOC:LINE  l1d=SIZE:ASSOC:LINE  l2=SIZE:ASSOC:LINE | l2=none
 *   l1d_policy=wt|wb  (also write-through, write-back)
 *   core_mhz=N  master_mhz=N  l2_latency=N  mem_latency=N
 *   thread_entries=N  family_entries=N  xq=futex|off  base=N
 *   time=clean|alpha
 * SIZE takes a K or M suffix (KiB, MiB).  "mgsim" alone selects MGSim's
 * shipped geometry (1 KiB 4-way L1s, no L2).  Returns 0, or -1 with the
 * reason in err (c may be partly changed).  Checks with mgsim_config_check.
 */
int mgsim_config_parse(struct mgsim_config *c, const char *spec, char *err, size_t errsz);
int mgsim_config_check(const struct mgsim_config *c, char *err, size_t errsz);

/* R: master cycles per core cycle. */
static inline uint64_t
mgsim_ratio(const struct mgsim_config *c)
{
	return c->core_mhz ? c->master_mhz / c->core_mhz : 1;
}

/* The settings as one JSON object (C locale, stable keys) into buf;
 * returns the length it needs, as snprintf. */
int mgsim_config_json(const struct mgsim_config *c, char *buf, size_t size);

/* ---- the model ---- */

/*
 * The cycle model: core cycles an event takes.  cost says what the caches
 * did for it.  The default is mgsim_simple_cycles(); the scheduling model
 * can take over with mgsim_set_cycle_model().
 */
struct mgsim_event_cost {
	unsigned l1i_misses;	/* instruction lines fetched from below L1 */
	unsigned l1d_misses;	/* data lines fetched from below L1 (reads, write-allocate) */
	unsigned mem_fills;	/* of those, lines that came from memory */
};
typedef uint64_t (*mgsim_cycle_fn)(void *arg, const struct insn_event *ev,
				   const struct mgsim_event_cost *cost);

/*
 * The documented default: 1 cycle per event (each REP iteration is one,
 * like the D-RISC loop it stands for) + l2_latency per L1 miss served by
 * the L2 + mem_latency per line fetched from memory (with no L2 every L1
 * miss goes to memory).  Stores cost nothing extra (a write buffer).
 * arg is the struct mgsim_config.
 */
uint64_t mgsim_simple_cycles(void *arg, const struct insn_event *ev,
			     const struct mgsim_event_cost *cost);

struct mgsim;

/* NULL with the reason in err (bad configuration, out of memory). */
struct mgsim *mgsim_new(const struct mgsim_config *c, char *err, size_t errsz);
void mgsim_free(struct mgsim *m);
const struct mgsim_config *mgsim_get_config(const struct mgsim *m);

/* Replace the cycle model, named name in the configuration (a static
 * string); fn NULL: back to mgsim_simple_cycles. */
void mgsim_set_cycle_model(struct mgsim *m, const char *name, mgsim_cycle_fn fn, void *arg);

/* Core cycles that pass with no event (a cycle model's pipeline draining
 * at a task's end). */
void mgsim_add_cycles(struct mgsim *m, uint64_t n);

/*
 * Task life (§4.1): a task (Linux thread) tid of process pid starts, or
 * ends.  A start counts in 18; the first task of a process not yet live
 * makes a family (11), and counts in 19 unless it is the first family of
 * the model (MGSim does not count the boot family).  A start of a tid
 * still live ends the old one first.  Ending an unknown tid does nothing.
 * Both settle the integrals 10-12 at the current cycle first.
 */
void mgsim_task_start(struct mgsim *m, int32_t pid, int32_t tid);
void mgsim_task_end(struct mgsim *m, int32_t tid);

/*
 * Counter 12's queue, by hand: a live task enters a futex wait-class
 * syscall, and leaves it.  Ignored when xq_mode is MGSIM_XQ_OFF, for
 * unknown tasks, or twice in a row.  mgsim_futex_waits() says whether
 * syscall nr (x86-64 numbers) with futex_op (its second argument) is
 * wait-class: futex(2) with FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_LOCK_PI,
 * FUTEX_LOCK_PI2 or FUTEX_WAIT_REQUEUE_PI after FUTEX_CMD_MASK (the
 * private and clock-realtime flags do not matter), and futex_waitv (449)
 * whatever its arguments.  Not FUTEX_TRYLOCK_PI: it never blocks.
 *
 * mgsim_event() does it from the events themselves: an EV_SYSCALL event
 * whose call is wait-class is charged to counter 12 for the master
 * cycles since its task last ran (event.h: a syscall's event comes when
 * it has returned), i.e. from the end of the task's previous event, or
 * its start, to the start of the syscall's event, in the order the tracer
 * serialised the tasks.  The charge is made when the event arrives: a
 * read during the wait does not include it yet.  A task alone never
 * waits (nothing else can run meanwhile: 0).  These hooks are for callers
 * that know waits another way; a task marked waiting by them is not
 * charged by its events as well.
 */
void mgsim_wait_begin(struct mgsim *m, int32_t tid);
void mgsim_wait_end(struct mgsim *m, int32_t tid);
bool mgsim_futex_waits(uint64_t nr, uint64_t futex_op);

/* One event (every DE, in the order the threads ran); see above for
 * EV_SYSCALL events and counter 12. */
void mgsim_event(struct mgsim *m, const struct insn_event *ev);

/*
 * The counters now (between two events): out[13..15] are set to 0; fill
 * them with mgsim_apply_clock().  Integrals are evaluated at the current
 * cycle without changing the model (MGSim's lazy update on a read).
 */
void mgsim_sample(const struct mgsim *m, uint64_t out[MGSIM_NUM_COUNTERS]);

/* Counters 13-15 from one clock reading (CLOCK_REALTIME). */
void mgsim_apply_clock(uint64_t v[MGSIM_NUM_COUNTERS], const struct timespec *now,
		       bool alpha_time);

/* mgsim_sample + mgsim_apply_clock with the model's time setting. */
void mgsim_read(const struct mgsim *m, const struct timespec *now,
		uint64_t out[MGSIM_NUM_COUNTERS]);

/* Live tasks, live families, waiting tasks, core cycles so far. */
struct mgsim_status {
	uint64_t live_tasks, live_families, waiting_tasks;
	uint64_t max_live_tasks;	/* the most live at once */
	uint64_t core_cycles, events;
	uint64_t futex_waits;		/* wait-class syscall events charged to 12 */
};
void mgsim_get_status(const struct mgsim *m, struct mgsim_status *st);

/* The caches, for tests and end-of-run statistics (l2: NULL if none). */
const struct cache *mgsim_l1i(const struct mgsim *m);
const struct cache *mgsim_l1d(const struct mgsim *m);
const struct cache *mgsim_l2(const struct mgsim *m);

/* ---- packed date and time (§2) ---- */

/* mday | mon0 << 5 | (year - 1900) << 9, UTC.  0 if the time cannot be
 * broken down. */
uint64_t mgsim_pack_date(time_t t);
/* (usec >> 5 & 0x7fff) | sec << 15 | min << 21 | hour << 27, UTC; the
 * 32-bit value, or with alpha set the 64-bit MT-Alpha form (bits 32-63 all
 * ones when hour >= 16). */
uint64_t mgsim_pack_time(time_t t, long usec, bool alpha);

/* ---- MMIO decode (§3) ---- */

enum mgsim_mmio_status {
	MGSIM_MMIO_OK = 200,
	MGSIM_MMIO_BAD = 400,		/* InvalidArgument in MGSim */
	MGSIM_MMIO_NOT_FOUND = 404,	/* not a counter address */
};

/*
 * Decode a read of size bytes at addr with MGSim's rules, window base ..
 * base + 21 * 8 - 1: the whole access must lie in the window, else 404
 * (MGSim routes it to ordinary memory; base 0 maps nothing); then size must
 * be 8, addr - base a multiple of 8 and the index < 21, else 400.  On 200
 * *index is the counter.  *why (may be NULL) gets a short reason.
 */
enum mgsim_mmio_status mgsim_mmio_decode(uint64_t base, uint64_t addr, uint64_t size,
					 unsigned *index, const char **why);

/* ---- mtperf derived columns (§5.2) ---- */

struct mgsim_derived {
	/* NaN when Δcounter0 or counter 9 is 0. */
	double pl_eff;		/* (Δ1 / c9) x R / Δ0: instructions per core-cycle per core */
	double tt_occp;		/* Δ10 / c9 / thread_entries / Δ0 */
	double ft_occp;		/* Δ11 / c9 / family_entries / Δ0 */
	double xq_avg;		/* Δ12 / c9 / Δ0 */
};
void mgsim_derive(const uint64_t before[MGSIM_NUM_COUNTERS],
		  const uint64_t after[MGSIM_NUM_COUNTERS], const struct mgsim_config *c,
		  struct mgsim_derived *out);

/* ---- monitoring variables (§5.1) ---- */

/* nCycleSampleOps (reads of counter 0) and nOtherSampleOps (reads of any
 * other counter).  Safe to update from several threads (atomic adds). */
struct mgsim_monitor {
	uint64_t cycle_sample_ops, other_sample_ops;
};
/* One successful read of counter index (an MMIO read, .../counters/N). */
void mgsim_monitor_read_one(struct mgsim_monitor *mon, unsigned index);
/* A full snapshot: as a program reading all 21 words (1 cycle + 20 other). */
void mgsim_monitor_read_all(struct mgsim_monitor *mon);
void mgsim_monitor_get(const struct mgsim_monitor *mon, uint64_t *cycle_ops, uint64_t *other_ops);

/* ---- self-check (the invariants at the end of §4.2) ---- */

/*
 * Check one sample after, and if before is not NULL the change since
 * before: 0 >= 20 (== when R = 1, 0 == 20 x R); 16 == 7 and 17 == 8 with no
 * L2; 9 == 1; 12 <= (max_live - 1) x 0 (a wait is charged when it ends, so
 * only over the whole run); Δ10 <= max_live x Δ0 and Δ11 <= max_live x Δ0;
 * every cumulative counter monotone.  Returns the number of violations, the
 * first described in err.
 */
int mgsim_check(const uint64_t *before, const uint64_t after[MGSIM_NUM_COUNTERS],
		const struct mgsim_config *c, uint64_t max_live, char *err, size_t errsz);

#endif /* MICAD_MGSIM_H */
