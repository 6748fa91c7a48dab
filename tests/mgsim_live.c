/*
 * The daemon side of the MGSim view (daemon/session/trace_mgsim.h):
 *  - the live seqlock: a writer thread publishing while a reader thread
 *    copies, then a writer process and a reader process sharing a
 *    MAP_SHARED mapping: every copy is consistent (all its words from one
 *    publication) and the copies never go back in time; a writer that
 *    died mid-update makes reads fail instead of hang;
 *  - the trace consumer on a hand-made stream of two threads: the
 *    snapshots (thread start, each interval boundary, the remainder) with
 *    their counters, and their interval indices against the MICA driver's
 *    own intervals (mica_run.h) on the same events;
 *  - the live view it publishes.
 */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decoder.h"
#include "mica/mica_config.h"
#include "mica/mica_run.h"
#include "session/trace_analysis.h"
#include "session/trace_mgsim.h"
#include "tap.h"

/* ---- seqlock ---- */

#define N_PUBLISH 300000

static void
fill(struct mgsim_live_data *d, uint64_t k)
{
	uint64_t *w = (uint64_t *)d;

	for (size_t i = 0; i < MGSIM_LIVE_WORDS; i++)
		w[i] = k * 1000 + i;	/* every word says which publication it is from */
}

/* The publication a copy comes from, or UINT64_MAX if its words are from
 * different ones (torn). */
static uint64_t
which(const struct mgsim_live_data *d)
{
	const uint64_t *w = (const uint64_t *)d;
	uint64_t k = w[0] / 1000;

	for (size_t i = 0; i < MGSIM_LIVE_WORDS; i++)
		if (w[i] != k * 1000 + i)
			return UINT64_MAX;
	return k;
}

static void *
writer(void *arg)
{
	struct mgsim_live *l = arg;
	struct mgsim_live_data d;

	for (uint64_t k = 1; k <= N_PUBLISH; k++) {
		fill(&d, k);
		mgsim_live_publish(l, &d);
	}
	return NULL;
}

struct read_stats {
	unsigned long reads, failed, torn, backwards;
	uint64_t last;
};

static void
read_until(const struct mgsim_live *l, struct read_stats *rs, uint64_t until)
{
	struct mgsim_live_data d;

	memset(rs, 0, sizeof(*rs));
	while (rs->last < until) {
		uint64_t k;

		if (mgsim_live_read(l, &d, 1000) < 0) {
			rs->failed++;
			continue;
		}
		rs->reads++;
		k = which(&d);
		if (k == UINT64_MAX)
			rs->torn++;
		else if (k < rs->last)
			rs->backwards++;
		else
			rs->last = k;
	}
}

static void
test_seqlock_threads(void)
{
	struct mgsim_live l;
	pthread_t w;
	struct read_stats rs;

	struct mgsim_live_data d0;

	mgsim_live_init(&l);
	fill(&d0, 0);
	mgsim_live_publish(&l, &d0);	/* publication 0, before the writer starts */
	if (pthread_create(&w, NULL, writer, &l) != 0) {
		ok(0, "start the writer thread");
		return;
	}
	read_until(&l, &rs, N_PUBLISH);
	pthread_join(w, NULL);
	diag("threads: %lu consistent reads, %lu gave up (1000 tries each)", rs.reads, rs.failed);
	ok(rs.reads > 0, "threads: the reader got copies while the writer ran");
	is_u64(rs.torn, 0, "threads: no copy mixes two publications");
	is_u64(rs.backwards, 0, "threads: copies never go back in time");
	is_u64(rs.last, N_PUBLISH, "threads: the last copy is the last publication");
	is_u64(l.seq, 2 * N_PUBLISH + 2, "threads: seq is even, 2 per publication");
}

static void
test_seqlock_processes(void)
{
	struct mgsim_live *l = mgsim_live_map();
	struct mgsim_live_data d0;
	struct read_stats rs;
	pid_t pid;
	int status = -1;

	if (!l) {
		ok(0, "map the shared live snapshot");
		return;
	}
	fill(&d0, 0);
	mgsim_live_publish(l, &d0);
	pid = fork();
	if (pid < 0) {
		ok(0, "fork the writer process");
		mgsim_live_unmap(l);
		return;
	}
	if (pid == 0) {
		writer(l);
		_exit(0);
	}
	read_until(l, &rs, N_PUBLISH);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "processes: the writer process exited");
	ok(rs.reads > 0, "processes: the reader process got copies (%lu)", rs.reads);
	is_u64(rs.torn, 0, "processes: no copy mixes two publications");
	is_u64(rs.backwards, 0, "processes: copies never go back in time");
	is_u64(rs.last, N_PUBLISH, "processes: the last copy is the last publication");
	mgsim_live_unmap(l);
}

static void
test_seqlock_dead_writer(void)
{
	struct mgsim_live l;
	struct mgsim_live_data d;

	mgsim_live_init(&l);
	ok(mgsim_live_read(&l, &d, 3) == 0 && d.state == MGSIM_LIVE_NONE && d.publishes == 0,
	   "nothing published: a copy of zeros, state none");
	l.seq = 7;	/* a writer that died in the middle of an update */
	is_u64(mgsim_live_read(&l, &d, 50), (uint64_t)-1, "a writer stuck mid-update: the read gives up");
	l.seq = 8;
	l.magic = 0;
	is_u64(mgsim_live_read(&l, &d, 50), (uint64_t)-1, "a wrong magic: the read fails");
}

/* ---- the consumer ---- */

static struct insn_info infos[4];
static struct user_regs_struct regs;

static const struct insn_info *
decode(const uint8_t *b, size_t n, uint64_t pc, unsigned slot)
{
	insn_decode(b, n, pc, &infos[slot]);
	return &infos[slot];
}

#define MAX_SNAPS 32
static struct mgsim_snapshot snaps[MAX_SNAPS];
static unsigned nsnaps;

static void
on_snapshot(void *arg, const struct mgsim_snapshot *s)
{
	(void)arg;
	if (nsnaps < MAX_SNAPS)
		snaps[nsnaps++] = *s;
}

/* MICA's intervals of one thread, from the driver itself. */
static unsigned mica_intervals[2];
static int64_t mica_last_index[2];

static int
on_mica_interval(void *arg, const struct mica_interval *iv)
{
	unsigned t = (unsigned)(uintptr_t)arg;

	mica_intervals[t]++;
	mica_last_index[t] = (int64_t)iv->index;
	return 0;
}

static const char *
cat_name(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return insn_category_name(ii);
}

static const char *
iclass_name_of(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return insn_iclass_name(ii);
}

static struct trace_analysis *ta;
static struct mica_run *runs[2];

static void
feed(const struct insn_info *ii, uint32_t tid, uint64_t rcx, bool first, bool last)
{
	struct insn_event ev;

	regs.rcx = rcx;
	insn_eval(ii, &regs, NULL, tid, &ev);
	if (ev.flags & EV_REP) {
		if (first)
			ev.flags |= EV_REP_FIRST;
		ev.next_pc = last ? ii->pc + ii->len : ii->pc;
	}
	ev.flags &= (uint16_t)~EV_NEXT_UNKNOWN;
	trace_analysis_feed_event(ta, &ev);
	mica_run_event(runs[tid == 10 ? 0 : 1], &ev);
}

static void
thread_rec(uint32_t kind, int32_t pid, int32_t tid)
{
	struct trace_thread_rec r = { kind, pid, tid, 0, 0, 0 };

	trace_analysis_feed_thread(ta, &r);
}

static void
test_consumer(void)
{
	static const uint8_t nop[] = { 0x90 }, movsb[] = { 0xf3, 0xa4 };
	static const char conf[] = "analysis_type: memfootprint\ninterval_size: 3\n";
	struct mica_names names = { cat_name, iclass_name_of, NULL };
	struct mica_config mcfg;
	struct trace_mgsim_opts o;
	struct trace_mgsim *tm;
	struct trace_consumer c;
	struct mgsim_live live;
	struct mgsim_live_data d;
	char err[256];
	const struct insn_info *n, *rep;
	static const struct {
		int32_t tid;
		int64_t idx;
		bool final;
		uint64_t insns, threads;
	} want[] = {
		{ 10, -1, false, 0, 1 },	/* thread 10 starts */
		{ 10, 0, false, 3, 1 },		/* H = 3 */
		{ 10, 1, false, 6, 1 },		/* H = 6 */
		{ 11, -1, false, 7, 2 },	/* thread 11 starts */
		{ 10, 2, false, 10, 2 },	/* nop, rep movsb x5 (H 1), nop */
		{ 11, 0, true, 10, 2 },		/* 11 ends: its remainder (1 nop) */
		{ 10, 3, true, 10, 2 },		/* 10 ends: an empty remainder */
	};
	unsigned bad = 0;

	mica_config_init(&mcfg);
	if (mica_config_parse(&mcfg, "test.conf", conf, strlen(conf), err, sizeof(err)) < 0) {
		ok(0, "mica config: %s", err);
		return;
	}
	for (unsigned t = 0; t < 2; t++) {
		runs[t] = mica_run_new(&mcfg, &names, t ? 11 : 10, on_mica_interval,
				       (void *)(uintptr_t)t, err, sizeof(err));
		if (!runs[t]) {
			ok(0, "mica_run_new: %s", err);
			return;
		}
	}
	memset(&o, 0, sizeof(o));
	mgsim_config_default(&o.cfg);
	o.interval_size = 3;
	o.on_snapshot = on_snapshot;
	o.live = &live;
	o.publish_every = 1;
	mgsim_live_init(&live);
	tm = trace_mgsim_new(&o, err, sizeof(err));
	if (!tm) {
		ok(0, "trace_mgsim_new: %s", err);
		return;
	}
	ta = trace_analysis_new();
	c = trace_mgsim_consumer(tm);
	trace_analysis_add(ta, &c);

	n = decode(nop, 1, 0x1000, 0);
	rep = decode(movsb, 2, 0x1001, 1);
	regs.rsi = 0x20000;
	regs.rdi = 0x30000;
	thread_rec(TT_START, 10, 10);
	for (int i = 0; i < 7; i++)
		feed(n, 10, 0, false, false);
	ok(mgsim_live_read(&live, &d, 10) == 0 && d.v[MGSIM_EXEC_INSNS] == 7 && d.events == 7 &&
	   d.state == MGSIM_LIVE_RUNNING && d.live_tasks == 1,
	   "live view after 7 events: 7 instructions, running, 1 task");
	thread_rec(TT_START, 10, 11);
	feed(n, 11, 0, false, false);
	for (unsigned k = 5; k >= 1; k--)
		feed(rep, 10, k, k == 5, k == 1);
	feed(n, 10, 0, false, false);
	thread_rec(TT_EXIT, 10, 11);
	thread_rec(TT_EXIT, 10, 10);
	trace_analysis_finish(ta);
	for (unsigned t = 0; t < 2; t++)
		mica_run_finish(runs[t]);

	is_u64(nsnaps, sizeof(want) / sizeof(want[0]), "7 snapshots");
	for (unsigned i = 0; i < nsnaps && i < sizeof(want) / sizeof(want[0]); i++) {
		const struct mgsim_snapshot *s = &snaps[i];

		if (s->tid != want[i].tid || s->idx != want[i].idx || s->final != want[i].final ||
		    s->v[MGSIM_EXEC_INSNS] != want[i].insns ||
		    s->v[MGSIM_CR_THREADS] != want[i].threads || s->full || s->pid != 10) {
			bad++;
			diag("snapshot %u: tid %d idx %lld final %d insns %llu threads %llu", i, s->tid,
			     (long long)s->idx, s->final, (unsigned long long)s->v[MGSIM_EXEC_INSNS],
			     (unsigned long long)s->v[MGSIM_CR_THREADS]);
		}
	}
	is_u64(bad, 0, "snapshots: thread, interval index, final, counters 1 and 18 as expected");
	is_u64(mica_intervals[0], 4, "MICA's driver: thread 10 has 4 intervals ...");
	is_u64(mica_last_index[0], 3, "... the last is index 3, as the final MGSim snapshot");
	is_u64(mica_intervals[1], 1, "MICA's driver: thread 11 has 1 interval (index 0) ...");
	is_u64(mica_last_index[1], 0, "... as the MGSim snapshot of thread 11");
	ok(snaps[0].taken_at > 1.6e9 && snaps[0].v[MGSIM_UNIX_CTIME] == (uint64_t)snaps[0].taken_at &&
	   snaps[0].v[MGSIM_UNIX_DATE] == mgsim_pack_date((time_t)snaps[0].v[MGSIM_UNIX_CTIME]),
	   "a snapshot's 13 and 14 come from its own clock reading (taken_at)");
	{
		uint64_t prev_loads = snaps[3].v[MGSIM_LOADS], loads = snaps[4].v[MGSIM_LOADS];

		is_u64(loads - prev_loads, 5, "interval 2 of thread 10 holds the 5 loads of rep movsb");
	}
	ok(mgsim_live_read(&live, &d, 10) == 0 && d.state == MGSIM_LIVE_FINISHED &&
	   d.v[MGSIM_EXEC_INSNS] == 10 && d.live_tasks == 0 && d.events == 14 && d.ratio == 1,
	   "live view at the end: finished, 10 instructions, 14 events, no task");
	ok(d.publishes >= 14, "published at every event and thread record (%llu times)",
	   (unsigned long long)d.publishes);

	trace_analysis_free(ta);
	trace_mgsim_free(tm);
	for (unsigned t = 0; t < 2; t++)
		mica_run_free(runs[t]);
	mica_config_free(&mcfg);
}

/* Full mode: one snapshot per thread at its end, marked full. */
static void
test_full_mode(void)
{
	static const uint8_t nop[] = { 0x90 };
	struct trace_mgsim_opts o;
	struct trace_mgsim *tm;
	struct trace_consumer c;
	char err[256];
	const struct insn_info *n;

	nsnaps = 0;
	memset(&o, 0, sizeof(o));
	mgsim_config_default(&o.cfg);
	o.interval_size = -1;
	o.on_snapshot = on_snapshot;
	tm = trace_mgsim_new(&o, err, sizeof(err));
	ta = trace_analysis_new();
	c = trace_mgsim_consumer(tm);
	trace_analysis_add(ta, &c);
	n = decode(nop, 1, 0x1000, 0);
	for (int i = 0; i < 5; i++) {
		struct insn_event ev;

		insn_eval(n, &regs, NULL, 42, &ev);
		trace_analysis_feed_event(ta, &ev);	/* no thread records: a text trace */
	}
	trace_analysis_finish(ta);
	ok(nsnaps == 2 && snaps[0].idx == -1 && snaps[1].idx == 0 && snaps[1].final &&
	   snaps[1].full && snaps[1].v[MGSIM_EXEC_INSNS] == 5 && snaps[1].tid == 42,
	   "full mode: the start and one final, full snapshot with 5 instructions");
	trace_analysis_free(ta);
	trace_mgsim_free(tm);

	o.cfg.master_mhz = 1001;
	ok(trace_mgsim_new(&o, err, sizeof(err)) == NULL, "a bad configuration is refused: %s", err);
}

int
main(void)
{
	test_seqlock_threads();
	test_seqlock_processes();
	test_seqlock_dead_writer();
	test_consumer();
	test_full_mode();
	return done_testing();
}
