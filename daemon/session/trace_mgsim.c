/*
 * The MGSim trace consumer and its live seqlock (trace_mgsim.h).
 */
#include "config.h"
#include "session/trace_mgsim.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "util.h"

/* ---- seqlock ---- */

void
mgsim_live_init(struct mgsim_live *l)
{
	memset(l, 0, sizeof(*l));
	l->magic = MGSIM_LIVE_MAGIC;
	l->version = MGSIM_LIVE_VERSION;
}

struct mgsim_live *
mgsim_live_map(void)
{
	void *p = mmap(NULL, sizeof(struct mgsim_live), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror_msg("cannot map shared memory for the live MGSim counters (%zu bytes)",
			   sizeof(struct mgsim_live));
		return NULL;
	}
	mgsim_live_init(p);
	return p;
}

void
mgsim_live_unmap(struct mgsim_live *l)
{
	if (l && munmap(l, sizeof(*l)) < 0)
		perror_msg("cannot unmap the live MGSim counters");
}

void
mgsim_live_publish(struct mgsim_live *l, const struct mgsim_live_data *d)
{
	const uint64_t *w = (const uint64_t *)d;
	uint64_t s = __atomic_load_n(&l->seq, __ATOMIC_RELAXED);

	/* Odd: an update is in progress.  The release fence keeps the word
	 * stores below from becoming visible before the odd value. */
	__atomic_store_n(&l->seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (size_t i = 0; i < MGSIM_LIVE_WORDS; i++)
		__atomic_store_n(&l->words[i], w[i], __ATOMIC_RELAXED);
	__atomic_store_n(&l->seq, s + 2, __ATOMIC_RELEASE);
}

int
mgsim_live_read(const struct mgsim_live *l, struct mgsim_live_data *d, unsigned max_tries)
{
	uint64_t *w = (uint64_t *)d;

	if (l->magic != MGSIM_LIVE_MAGIC || l->version != MGSIM_LIVE_VERSION)
		return -1;
	for (unsigned t = 0; t < max_tries; t++) {
		uint64_t s1 = __atomic_load_n(&l->seq, __ATOMIC_ACQUIRE), s2;

		if (t >= 4)
			sched_yield();
		if (s1 & 1)
			continue;
		for (size_t i = 0; i < MGSIM_LIVE_WORDS; i++)
			w[i] = __atomic_load_n(&l->words[i], __ATOMIC_RELAXED);
		/* The word loads complete before seq is read again. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&l->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			return 0;
	}
	return -1;
}

/* ---- the consumer ---- */

enum burst_phase { PH_IDLE, PH_WARMUP, PH_UNIT };

struct tm_thread {
	int32_t pid, tid;
	uint64_t h;		/* H of the current interval (mica.md §1.5) */
	int64_t idx;		/* the current interval */
	/* Sample mode: the burst's phase, what its unit added so far, and
	 * whether a burst ended in the interval. */
	uint8_t phase;
	bool active;
	uint64_t unit[MGSIM_NUM_COUNTERS];
};

struct trace_mgsim {
	struct mgsim *m;
	int64_t s;		/* interval_size */
	mgsim_snapshot_fn on_snapshot;
	void *arg;
	struct mgsim_live *live;
	unsigned publish_every, since_publish;
	uint64_t publishes;
	bool finished, clock_failed;
	bool sampled;
	/* Sample mode: what warm-ups and aborted units added to each
	 * cumulative counter, left out of what is reported. */
	uint64_t excluded[MGSIM_NUM_COUNTERS];
};

/* The counters as reported: sample mode leaves the excluded part out. */
static void
reported(const struct trace_mgsim *tm, uint64_t v[MGSIM_NUM_COUNTERS])
{
	if (!tm->sampled)
		return;
	for (unsigned k = 0; k < MGSIM_NUM_COUNTERS; k++)
		if (mgsim_counter_info(k)->cumulative)
			v[k] -= tm->excluded[k];
}

struct trace_mgsim *
trace_mgsim_new(const struct trace_mgsim_opts *o, char *err, size_t errsz)
{
	struct trace_mgsim *tm = xcalloc(1, sizeof(*tm));

	tm->m = mgsim_new(&o->cfg, err, errsz);
	if (!tm->m) {
		free(tm);
		return NULL;
	}
	tm->s = o->interval_size;
	tm->on_snapshot = o->on_snapshot;
	tm->arg = o->arg;
	tm->live = o->live;
	tm->publish_every = o->publish_every ? o->publish_every : 64;
	tm->sampled = o->sampled;
	return tm;
}

void
trace_mgsim_free(struct trace_mgsim *tm)
{
	if (!tm)
		return;
	mgsim_free(tm->m);
	free(tm);
}

struct mgsim *
trace_mgsim_model(struct trace_mgsim *tm)
{
	return tm->m;
}

void
trace_mgsim_publish(struct trace_mgsim *tm)
{
	struct mgsim_live_data d;
	struct mgsim_status st;

	tm->since_publish = 0;
	if (!tm->live)
		return;
	memset(&d, 0, sizeof(d));
	mgsim_sample(tm->m, d.v);
	reported(tm, d.v);
	mgsim_get_status(tm->m, &st);
	d.state = tm->finished ? MGSIM_LIVE_FINISHED : MGSIM_LIVE_RUNNING;
	d.publishes = ++tm->publishes;
	d.events = st.events;
	d.live_tasks = st.live_tasks;
	d.ratio = mgsim_ratio(mgsim_get_config(tm->m));
	mgsim_live_publish(tm->live, &d);
}

static void
snapshot(struct trace_mgsim *tm, const struct tm_thread *t, bool final)
{
	struct mgsim_snapshot s;
	struct timespec now;

	if (!tm->on_snapshot)
		return;
	if (clock_gettime(CLOCK_REALTIME, &now) < 0) {
		if (!tm->clock_failed)
			perror_msg("cannot read the clock for the MGSim counters 13-15 "
				   "(they are 0 in the database)");
		tm->clock_failed = true;
		now.tv_sec = 0;
		now.tv_nsec = 0;
	}
	memset(&s, 0, sizeof(s));
	s.pid = t->pid;
	s.tid = t->tid;
	s.idx = t->idx;
	s.final = final;
	s.full = final && tm->s == -1;
	s.taken_at = (double)now.tv_sec + now.tv_nsec / 1e9;
	mgsim_read(tm->m, &now, s.v);
	reported(tm, s.v);
	tm->on_snapshot(tm->arg, &s);
}

static void *
tm_thread_start(void *arg, const struct trace_thread_rec *r)
{
	struct trace_mgsim *tm = arg;
	struct tm_thread *t = xcalloc(1, sizeof(*t));

	t->pid = r->pid;
	t->tid = r->tid;
	mgsim_task_start(tm->m, r->pid, r->tid);
	t->idx = -1;
	snapshot(tm, t, false);
	t->idx = 0;
	trace_mgsim_publish(tm);
	return t;
}

/* Sample mode: one event, what it added to the counters going to the
 * unit or to what is left out. */
static void
sampled_event(struct trace_mgsim *tm, struct tm_thread *t, const struct insn_event *ev)
{
	uint64_t before[MGSIM_NUM_COUNTERS], after[MGSIM_NUM_COUNTERS];

	mgsim_sample(tm->m, before);
	mgsim_event(tm->m, ev);
	mgsim_sample(tm->m, after);
	for (unsigned k = 0; k < MGSIM_NUM_COUNTERS; k++) {
		if (t->phase == PH_UNIT)
			t->unit[k] += after[k] - before[k];
		else
			tm->excluded[k] += after[k] - before[k];
	}
}

static void
tm_event(void *arg, void *tstate, const struct insn_event *ev)
{
	struct trace_mgsim *tm = arg;
	struct tm_thread *t = tstate;

	if (tm->sampled) {
		sampled_event(tm, t, ev);
	} else {
		mgsim_event(tm->m, ev);
	}
	/* H: REP instructions once, on a first iteration with a count. */
	if (!(ev->flags & EV_REP) || ((ev->flags & EV_REP_FIRST) && ev->rep_count > 0))
		t->h++;
	if (!tm->sampled && tm->s != -1 && (int64_t)t->h == tm->s) {
		snapshot(tm, t, false);
		t->idx++;
		t->h = 0;
	}
	if (++tm->since_publish >= tm->publish_every)
		trace_mgsim_publish(tm);
}

static void
tm_thread_rec(void *arg, void *tstate, const struct trace_thread_rec *r)
{
	struct trace_mgsim *tm = arg;
	struct tm_thread *t = tstate;

	if (r->kind != TT_EXIT && r->kind != TT_DETACH)
		return;
	if (!tm->sampled || t->active)
		snapshot(tm, t, true);
	mgsim_task_end(tm->m, t->tid);
	free(t);
	trace_mgsim_publish(tm);
}

static void
tm_finish(void *arg)
{
	struct trace_mgsim *tm = arg;

	tm->finished = true;
	trace_mgsim_publish(tm);
}

static void
tm_burst(void *arg, void *tstate, const struct trace_burst_rec *r)
{
	struct trace_mgsim *tm = arg;
	struct tm_thread *t = tstate;

	if (!tm->sampled)
		return;
	switch (r->kind) {
	case BURST_WARMUP:
		t->phase = PH_WARMUP;
		break;
	case BURST_MEASURE:
		memset(t->unit, 0, sizeof(t->unit));
		t->phase = PH_UNIT;
		break;
	case BURST_ABORT:
		for (unsigned k = 0; k < MGSIM_NUM_COUNTERS; k++)
			tm->excluded[k] += t->unit[k];
		/* fall through */
	default:
		memset(t->unit, 0, sizeof(t->unit));
		t->phase = PH_IDLE;
		t->active = true;
		break;
	}
}

/* Sample mode: the thread's interval has a snapshot if a burst ended in
 * it. */
static void
tm_sample_interval(void *arg, void *tstate, int64_t idx)
{
	struct trace_mgsim *tm = arg;
	struct tm_thread *t = tstate;

	if (!tm->sampled || idx <= t->idx)
		return;
	if (t->active)
		snapshot(tm, t, false);
	t->active = false;
	t->idx = idx;
}

struct trace_consumer
trace_mgsim_consumer(struct trace_mgsim *tm)
{
	struct trace_consumer c = {
		.thread_start = tm_thread_start, .event = tm_event, .thread_rec = tm_thread_rec,
		.finish = tm_finish, .arg = tm, .interval = tm_sample_interval,
		.burst = tm_burst,
	};

	return c;
}
