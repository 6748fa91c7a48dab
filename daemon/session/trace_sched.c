/*
 * The scheduling-model trace consumer (trace_sched.h).
 */
#include "config.h"
#include "session/trace_sched.h"

#include <cpuid.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* LLVM's name for the host CPU among the models we have, from CPUID: the
 * -mcpu default of micactl mca (as llvm-mca's) and of traced sessions. */
const char *
trace_sched_host_cpu(void)
{
	unsigned eax, ebx, ecx, edx, family, model;
	char vendor[13];

	if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
		return "znver4";
	memcpy(vendor, &ebx, 4);
	memcpy(vendor + 4, &edx, 4);
	memcpy(vendor + 8, &ecx, 4);
	vendor[12] = '\0';
	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		return "znver4";
	family = (eax >> 8) & 0xf;
	model = (eax >> 4) & 0xf;
	if (family == 0xf)
		family += (eax >> 20) & 0xff;
	if (family == 0x6 || family >= 0xf)
		model |= ((eax >> 16) & 0xf) << 4;
	if (strcmp(vendor, "AuthenticAMD") == 0) {
		if (family == 0x16)
			return "btver2";
		if (family == 0x17)
			return "znver3";
		if (family == 0x19)
			return (model <= 0x0f || (model >= 0x20 && model <= 0x5f)) ? "znver3" : "znver4";
		return "znver4";
	}
	if (strcmp(vendor, "GenuineIntel") != 0 || family != 6)
		return "znver4";
	switch (model) {
	case 0x2a: case 0x2d:
		return "sandybridge";
	case 0x3a: case 0x3e:
		return "ivybridge";
	case 0x3c: case 0x3f: case 0x45: case 0x46:
	case 0x3d: case 0x47: case 0x4f: case 0x56:
		return "haswell";
	case 0x97: case 0x9a: case 0xb7: case 0xba: case 0xbf: case 0xaa: case 0xac:
	case 0x8f: case 0xcf:
		return "alderlake";
	default:
		return "skylake";
	}
}

enum burst_phase { PH_IDLE, PH_WARMUP, PH_UNIT };

struct ts_thread {
	int32_t pid, tid;
	struct sched_live *live;
	uint64_t h;		/* H of the current interval (mica.md §1.5) */
	int64_t idx;		/* the current interval */
	/* the current interval so far */
	uint64_t insns, cycles, port_uops[UA_MAX_PORTS];
	/* Sample mode: where the model's work goes now (the warm-up's and an
	 * aborted unit's go nowhere), and whether a burst ended in the
	 * interval (then it has a row, as the MICA interval has). */
	uint8_t phase;		/* enum burst_phase */
	bool active;
	uint64_t u_insns, u_cycles, u_port_uops[UA_MAX_PORTS];
};

struct trace_sched {
	const char *mcpu;	/* the model's name */
	int64_t s;
	sched_snapshot_fn on_snapshot;
	sched_hot_fn on_hot_block;
	void *arg;
	struct mgsim *mgsim;
	uint64_t mgsim_pending;	/* simulated cycles not given to MGSim yet */
	/* the blocks of ended threads, merged by start address */
	struct sched_live_block *blocks;
	size_t n_blocks, cap_blocks;
	uint64_t unmapped;
	unsigned n_ports;
	const char *port_names[UA_MAX_PORTS];
	struct sched_live *reporter;	/* for the block reports */
	bool sampled;
};

/* MGSim's cycle model: the cycles the scheduling model simulated for the
 * events fed since the previous call (the event MGSim is at included:
 * this consumer sees each event first). */
static uint64_t
mgsim_cycles(void *arg, const struct insn_event *ev, const struct mgsim_event_cost *cost)
{
	struct trace_sched *ts = arg;
	uint64_t n = ts->mgsim_pending;

	(void)ev;
	(void)cost;
	ts->mgsim_pending = 0;
	return n;
}

struct trace_sched *
trace_sched_new(const struct trace_sched_opts *o, char *err, size_t errsz)
{
	const char *mcpu = o->mcpu ? o->mcpu : trace_sched_host_cpu();
	struct trace_sched *ts;
	struct sched_live *l;

	if (!sched_model_find(mcpu)) {
		snprintf(err, errsz, "'%s' is not a CPU model (use skylake, haswell, "
			 "sandybridge, ivybridge, alderlake, btver2, znver3 or znver4)", mcpu);
		return NULL;
	}
	l = sched_live_new(mcpu);
	if (!l) {
		if (!o->quiet)
			warning_msg("the live scheduling model has no uop-level model of '%s': "
				    "using skylake's", mcpu);
		l = sched_live_new("skylake");
		if (!l) {
			snprintf(err, errsz, "cannot set up the skylake scheduling model "
				 "(out of memory?)");
			return NULL;
		}
	}
	ts = xcalloc(1, sizeof(*ts));
	ts->reporter = l;
	ts->mcpu = sched_live_cpu(l);
	ts->n_ports = sched_live_ports(l, ts->port_names, UA_MAX_PORTS);
	if (ts->n_ports > UA_MAX_PORTS)
		ts->n_ports = UA_MAX_PORTS;
	ts->s = o->interval_size;
	ts->on_snapshot = o->on_snapshot;
	ts->on_hot_block = o->on_hot_block;
	ts->arg = o->arg;
	ts->mgsim = o->mgsim;
	ts->sampled = o->sampled;
	if (ts->mgsim)
		mgsim_set_cycle_model(ts->mgsim, ts->mcpu, mgsim_cycles, ts);
	return ts;
}

const char *
trace_sched_cpu(const struct trace_sched *ts)
{
	return ts->mcpu;
}

uint64_t
trace_sched_unmapped(const struct trace_sched *ts)
{
	return ts->unmapped;
}

void
trace_sched_free(struct trace_sched *ts)
{
	if (!ts)
		return;
	sched_live_free(ts->reporter);
	free(ts->blocks);
	free(ts);
}

/* Take what the model did since the last call into the thread's interval
 * (and MGSim's pending cycles). */
static void
take(struct trace_sched *ts, struct ts_thread *t)
{
	struct sched_live_interval iv;

	sched_live_interval(t->live, &iv);
	ts->mgsim_pending += iv.cycles;
	if (ts->sampled) {
		if (t->phase != PH_UNIT)
			return;
		t->u_insns += iv.insns;
		t->u_cycles += iv.cycles;
		for (unsigned p = 0; p < iv.n_ports && p < UA_MAX_PORTS; p++)
			t->u_port_uops[p] += iv.port_uops[p];
		return;
	}
	t->insns += iv.insns;
	t->cycles += iv.cycles;
	for (unsigned p = 0; p < iv.n_ports && p < UA_MAX_PORTS; p++)
		t->port_uops[p] += iv.port_uops[p];
}

static void
close_interval(struct trace_sched *ts, struct ts_thread *t, bool final)
{
	struct sched_snapshot s;

	if (ts->on_snapshot) {
		memset(&s, 0, sizeof(s));
		s.pid = t->pid;
		s.tid = t->tid;
		s.idx = t->idx;
		s.final = final;
		s.insns = t->insns;
		s.cycles = t->cycles;
		s.ipc = t->cycles ? (double)t->insns / t->cycles : 0.0;
		s.n_ports = ts->n_ports;
		for (unsigned p = 0; p < ts->n_ports; p++) {
			s.port_names[p] = ts->port_names[p];
			s.port_uops[p] = t->port_uops[p];
			s.port_pressure[p] = t->cycles ? (double)t->port_uops[p] / t->cycles : 0.0;
		}
		ts->on_snapshot(ts->arg, &s);
	}
	t->idx++;
	t->h = 0;
	t->insns = 0;
	t->cycles = 0;
	memset(t->port_uops, 0, sizeof(t->port_uops));
}

static void *
ts_thread_start(void *arg, const struct trace_thread_rec *r)
{
	struct trace_sched *ts = arg;
	struct ts_thread *t = xcalloc(1, sizeof(*t));

	t->pid = r->pid;
	t->tid = r->tid;
	t->idx = ts->sampled ? -1 : 0;
	t->live = sched_live_new(ts->mcpu);
	if (!t->live)
		error_msg_and_die("cannot set up the scheduling model of thread %d "
				  "(out of memory)", r->tid);
	return t;
}

static void
ts_event(void *arg, void *tstate, const struct insn_event *ev)
{
	struct trace_sched *ts = arg;
	struct ts_thread *t = tstate;

	sched_live_feed(t->live, ev);
	take(ts, t);
	/* H: REP instructions once, on a first iteration with a count. */
	if (!(ev->flags & EV_REP) || ((ev->flags & EV_REP_FIRST) && ev->rep_count > 0))
		t->h++;
	if (!ts->sampled && ts->s != -1 && (int64_t)t->h == ts->s)
		close_interval(ts, t, false);
}

static void
drop_unit(struct ts_thread *t)
{
	t->u_insns = t->u_cycles = 0;
	memset(t->u_port_uops, 0, sizeof(t->u_port_uops));
}

/* Sample mode's markers. */
static void
ts_burst(void *arg, void *tstate, const struct trace_burst_rec *r)
{
	struct trace_sched *ts = arg;
	struct ts_thread *t = tstate;

	if (!ts->sampled)
		return;
	if (t->phase == PH_IDLE) {
		/* A burst begins (at its warm-up, or at its unit when it has
		 * none): the previous one's tail drains, counted nowhere. */
		sched_live_flush(t->live);
	}
	take(ts, t);
	switch (r->kind) {
	case BURST_WARMUP:
		t->phase = PH_WARMUP;
		break;
	case BURST_MEASURE:
		drop_unit(t);
		t->phase = PH_UNIT;
		break;
	case BURST_END:
		t->insns += t->u_insns;
		t->cycles += t->u_cycles;
		for (unsigned p = 0; p < UA_MAX_PORTS; p++)
			t->port_uops[p] += t->u_port_uops[p];
		/* fall through */
	default:
		drop_unit(t);
		t->phase = PH_IDLE;
		t->active = true;
		break;
	}
}

/* Sample mode: the thread's current interval has a row if a burst ended
 * in it. */
static void
ts_interval(void *arg, void *tstate, int64_t idx)
{
	struct trace_sched *ts = arg;
	struct ts_thread *t = tstate;

	if (!ts->sampled || idx <= t->idx)
		return;
	if (t->active)
		close_interval(ts, t, false);
	t->active = false;
	t->idx = idx;
}

/* Add the thread's blocks to the session's, merged by start address. */
static void
merge_blocks(struct trace_sched *ts, const struct sched_live *l)
{
	struct sched_live_block *b;
	unsigned n;

	/* The hottest of each thread: a session's hottest block is among
	 * them unless it is spread thin over many threads. */
	b = xcalloc(TRACE_SCHED_HOT_BLOCKS, sizeof(*b));
	n = sched_live_hot_blocks(l, b, TRACE_SCHED_HOT_BLOCKS);
	for (unsigned i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < ts->n_blocks; j++)
			if (ts->blocks[j].start_pc == b[i].start_pc &&
			    ts->blocks[j].end_pc == b[i].end_pc)
				break;
		if (j < ts->n_blocks) {
			ts->blocks[j].executions += b[i].executions;
			ts->blocks[j].insns_executed += b[i].insns_executed;
			continue;
		}
		if (ts->n_blocks == ts->cap_blocks) {
			ts->cap_blocks = ts->cap_blocks ? 2 * ts->cap_blocks : 16;
			ts->blocks = xreallocarray(ts->blocks, ts->cap_blocks, sizeof(*ts->blocks));
		}
		ts->blocks[ts->n_blocks++] = b[i];
	}
	free(b);
}

static void
ts_thread_rec(void *arg, void *tstate, const struct trace_thread_rec *r)
{
	struct trace_sched *ts = arg;
	struct ts_thread *t = tstate;

	if (r->kind != TT_EXIT && r->kind != TT_DETACH)
		return;
	sched_live_flush(t->live);
	t->phase = PH_IDLE;	/* sample mode: a drain is no unit's */
	take(ts, t);
	/* The drain counts in this thread's last interval; MGSim gets it
	 * now, before its own snapshot of the thread's end. */
	if (ts->mgsim && ts->mgsim_pending && !ts->sampled)
		mgsim_add_cycles(ts->mgsim, ts->mgsim_pending);
	ts->mgsim_pending = 0;
	if (!ts->sampled || t->active)
		close_interval(ts, t, true);
	ts->unmapped += sched_live_unmapped(t->live);
	if (sched_live_restarts(t->live))
		warning_msg("scheduling model: thread %d: the pipeline model stalled and was "
			    "restarted %u time(s); the simulated cycles around those points are "
			    "approximate", (int)r->tid, sched_live_restarts(t->live));
	merge_blocks(ts, t->live);
	sched_live_free(t->live);
	free(t);
}

static int
by_heat(const void *a, const void *b)
{
	const struct sched_live_block *x = a, *y = b;

	if (x->insns_executed != y->insns_executed)
		return x->insns_executed < y->insns_executed ? 1 : -1;
	return x->start_pc < y->start_pc ? -1 : x->start_pc > y->start_pc;
}

static void
ts_finish(void *arg)
{
	struct trace_sched *ts = arg;

	if (!ts->on_hot_block)
		return;
	if (ts->n_blocks)
		qsort(ts->blocks, ts->n_blocks, sizeof(*ts->blocks), by_heat);
	for (size_t i = 0; i < ts->n_blocks && i < TRACE_SCHED_HOT_BLOCKS; i++) {
		const struct sched_live_block *b = &ts->blocks[i];
		struct sched_hot_block h;
		char *report = b->n_bytes ? sched_live_block_report(ts->reporter, b,
								   TRACE_SCHED_REPORT_ITERATIONS)
					  : NULL;

		h.rank = (unsigned)i + 1;
		h.start_pc = b->start_pc;
		h.end_pc = b->end_pc;
		h.executions = b->executions;
		h.insns_executed = b->insns_executed;
		h.n_insns = b->n_insns;
		h.report = report;
		ts->on_hot_block(ts->arg, &h);
		free(report);
	}
}

struct trace_consumer
trace_sched_consumer(struct trace_sched *ts)
{
	struct trace_consumer c = {
		.thread_start = ts_thread_start, .event = ts_event, .thread_rec = ts_thread_rec,
		.finish = ts_finish, .arg = ts, .interval = ts_interval, .burst = ts_burst,
	};

	return c;
}
