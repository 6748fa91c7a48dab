/*
 * The MICA consumer of a live trace (trace_mica.h).
 */
#include "config.h"
#include "session/trace_mica.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decoder.h"
#include "session/event_fanout.h"
#include "mica/mica_config.h"
#include "mica/mica_output.h"
#include "mica/mica_run.h"
#include "mica_files.h"
#include "util.h"

/* A traced thread's process, for the process rows' parent pid. */
struct tm_tid {
	int32_t tid, pid;
};

struct trace_mica {
	struct mica_config cfg;
	const char *out_dir;
	uint64_t des;		/* DEs analyzed, for mica_progress() */
	int32_t first_pid;
	bool failed;
	bool files_failed;	/* the MICA files stopped; the database goes on */
	char lost[256];		/* why results are missing, the first reason */
	struct store_writer *store;
	int64_t session;
	struct tm_tid *tids;
	size_t n_tids;
	_Atomic uint64_t *live_intervals;	/* intervals stored so far, or NULL */
	const char *(*exe_source)(void *arg, int32_t pid);
	void *exe_arg;
	const struct trace_analysis *sampled;	/* sample mode: its time intervals */
	/* trace_mica_set_threads(): the analyses in groups, group g on
	 * worker g of fan, with its own configuration (the same but for its
	 * analyses); every thread in a list, to collect their intervals. */
	unsigned n_groups;
	struct mica_config group_cfg[TRACE_MICA_MAX_GROUPS];
	struct event_fanout *fan;
	struct tm_thread *threads;
	pthread_mutex_t qlock;	/* the groups' q and failed */
};

/* An interval a group delivered, kept until every group has delivered
 * it: its itypes counts and categories copied (the analysis reuses its
 * own). */
struct tm_saved {
	struct mica_interval iv;
	uint64_t *counts;
	char **other;
};

/* One group's analyses of a thread.  run is the group's worker's while
 * a batch is handed over, the analysis thread's between batches; the
 * worker adds to q and sets failed, and the analysis thread takes from q
 * meanwhile: both under trace_mica.qlock. */
struct tm_group {
	struct trace_mica *m;
	struct mica_run *run;
	struct tm_saved *q;
	size_t n_q, cap_q;
	bool failed;		/* out of memory */
};

struct tm_thread {
	struct trace_mica *m;
	struct mica_run *run;
	struct mica_output *out;
	double interval_start;	/* wall clock, Unix seconds */
	int64_t idx;		/* sample mode: the current interval, -1 none yet */
	/* With groups (run is then NULL): */
	struct tm_group g[TRACE_MICA_MAX_GROUPS];
	uint32_t tid;
	bool dead;		/* a group failed: no more events, no intervals */
	struct tm_thread *next;	/* in trace_mica.threads */
};

static const char *
tm_category(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return insn_category_name(ii);
}

static const char *
tm_iclass(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return insn_iclass_name(ii);
}

static const struct mica_names tm_names = { tm_category, tm_iclass, NULL };

struct trace_mica *
trace_mica_new(const struct mica_config_text *config, long long interval, const char *out_dir)
{
	struct trace_mica *m = xcalloc(1, sizeof(*m));
	char err[256];

	if (config) {
		if (mica_config_load_text(&m->cfg, config) < 0) {
			mica_config_free(&m->cfg);
			free(m);
			return NULL;
		}
	} else {
		mica_config_init(&m->cfg);
		if (mica_config_parse(&m->cfg, "(default configuration)", TRACE_MICA_DEFAULT_CONFIG,
				      strlen(TRACE_MICA_DEFAULT_CONFIG), err, sizeof(err)) < 0)
			error_msg_and_die("internal error: %s", err);
	}
	if (interval > 0) {
		m->cfg.interval_size = interval;
		if (mica_config_check(&m->cfg, "--interval", 0, err, sizeof(err)) < 0) {
			error_msg("%s", err);
			mica_config_free(&m->cfg);
			free(m);
			return NULL;
		}
	}
	m->out_dir = out_dir;
	return m;
}

const struct mica_config *
trace_mica_config(const struct trace_mica *m)
{
	return &m->cfg;
}

void
trace_mica_set_exe_source(struct trace_mica *m, const char *(*fn)(void *arg, int32_t pid),
			  void *arg)
{
	m->exe_source = fn;
	m->exe_arg = arg;
}

void
trace_mica_set_store(struct trace_mica *m, struct store_writer *w, int64_t session)
{
	m->store = w;
	m->session = session;
}

void
trace_mica_set_sampled(struct trace_mica *m, const struct trace_analysis *ta)
{
	m->sampled = ta;
	/* Intervals in time: MICA's interval-mode ("phases") files. */
	m->cfg.interval_size = 0;
}

void
trace_mica_set_live_intervals(struct trace_mica *m, _Atomic uint64_t *counter)
{
	m->live_intervals = counter;
}

bool
trace_mica_failed(const struct trace_mica *m)
{
	return m->failed;
}

const char *
trace_mica_lost(const struct trace_mica *m)
{
	return m->failed ? m->lost : NULL;
}

/* Results are missing: keep the first reason for the session row. */
static void __attribute__((format(printf, 2, 3)))
tm_lost(struct trace_mica *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->failed) {
		va_start(ap, fmt);
		vsnprintf(m->lost, sizeof(m->lost), fmt, ap);
		va_end(ap);
	}
	m->failed = true;
}

/* The MICA files cannot be written (already reported, file by file): they
 * stop here, said once; the database, a consumer of its own, goes on. */
static void
tm_files_failed(struct trace_mica *m, const struct mica_interval *iv)
{
	if (m->files_failed)
		return;
	m->files_failed = true;
	/* The write's own report (file, errno) first, then this one. */
	tm_lost(m, "MICA files in %s: not written from interval %llu of thread %u on: %s",
		m->out_dir, (unsigned long long)iv->index, (unsigned)iv->tid, last_error_msg());
	error_msg("MICA files in %s: not written from interval %llu of thread %u on%s",
		  m->out_dir, (unsigned long long)iv->index, (unsigned)iv->tid,
		  m->store ? " (the database keeps every interval)" : "");
}

static int
tm_interval(void *arg, const struct mica_interval *iv)
{
	struct tm_thread *t = arg;
	struct trace_mica *m = t->m;
	double now = store_wall_clock();

	/* Sample mode: the time interval's own times (the last one of a
	 * thread ends when the thread does, about now). */
	if (iv->sampled) {
		t->interval_start = trace_analysis_interval_start(m->sampled, (int64_t)iv->index);
		if (!iv->final)
			now = trace_analysis_interval_end(m->sampled, (int64_t)iv->index);
	}

	if (mica_output_add(t->out, iv) < 0) {
		error_msg("out of memory formatting the MICA output");
		return -1;
	}
	/* Each consumer on its own: a failing one does not take the other
	 * down. */
	if (m->out_dir && !m->files_failed) {
		if (mica_files_flush(t->out, m->out_dir) < 0)
			tm_files_failed(m, iv);
	} else {
		mica_output_clear(t->out);
	}
	/* The interval is copied into the writer's queue: this thread never
	 * waits on SQLite (only on a full queue, rather than lose results). */
	if (m->store && store_writer_interval(m->store, m->session, iv, &m->cfg, t->interval_start,
					      now) < 0) {
		if (!m->failed)
			error_msg("the results database writer has stopped: interval %llu of "
				  "thread %u on not written", (unsigned long long)iv->index,
				  (unsigned)iv->tid);
		tm_lost(m, "the results database writer stopped at interval %llu of thread %u",
			(unsigned long long)iv->index, (unsigned)iv->tid);
	}
	t->interval_start = now;
	if (m->live_intervals)
		atomic_fetch_add(m->live_intervals, 1);
	return 0;
}

/* ---- the analyses in groups, on workers (trace_mica_set_threads) ---- */

/*
 * Each analysis' share of the analysis thread's samples under `all`, in
 * tenths of a percent, from perf on the valgrind engine's pointer chase
 * and gzip (bench/vg_bench.sh), averaged (ilp_one, not in `all`: half of
 * ilp's four windows): what the groups are balanced by.  ILP alone is
 * about as much as the rest together.
 */
static const unsigned tm_cost[MICA_N_ANALYSES] = {
	[MICA_ILP] = 210, [MICA_ILP_ONE] = 100, [MICA_ITYPES] = 12, [MICA_PPM] = 34,
	[MICA_REG] = 42, [MICA_STRIDE] = 15, [MICA_MEMFOOTPRINT] = 38, [MICA_MEMSTACKDIST] = 77,
};

static void
tm_saved_free(struct tm_saved *s)
{
	if (s->other)
		for (size_t i = 0; i < s->iv.itypes.n_other; i++)
			free(s->other[i]);
	free(s->other);
	free(s->counts);
}

/* A group's interval (on its worker, or on the analysis thread at the
 * end): kept until the others have theirs. */
static int
tm_group_interval(void *arg, const struct mica_interval *iv)
{
	struct tm_group *g = arg;
	struct tm_saved s = { .iv = *iv };

	if (iv->analyses & MICA_BIT(MICA_ITYPES)) {
		const struct mica_itypes_result *it = &iv->itypes;

		s.counts = xreallocarray(NULL, it->n_groups + 1, sizeof(*s.counts));
		memcpy(s.counts, it->counts, (it->n_groups + 1) * sizeof(*s.counts));
		s.iv.itypes.counts = s.counts;
		if (it->n_other) {
			s.other = xreallocarray(NULL, it->n_other, sizeof(*s.other));
			for (size_t i = 0; i < it->n_other; i++)
				s.other[i] = xstrdup(it->other[i]);
		}
		s.iv.itypes.other = (const char *const *)s.other;
	}
	pthread_mutex_lock(&g->m->qlock);
	if (g->n_q == g->cap_q) {
		g->cap_q = g->cap_q ? 2 * g->cap_q : 4;
		g->q = xreallocarray(g->q, g->cap_q, sizeof(*g->q));
	}
	g->q[g->n_q++] = s;
	pthread_mutex_unlock(&g->m->qlock);
	return 0;
}

/* Worker g: its group's analyses of one event of thread target. */
static void
tm_group_event(void *arg, unsigned g, void *target, const struct insn_event *ev)
{
	struct tm_group *tg = &((struct tm_thread *)target)->g[g];

	(void)arg;
	/* Only this worker writes failed while batches run. */
	if (!tg->failed && mica_run_event(tg->run, ev) < 0) {
		pthread_mutex_lock(&tg->m->qlock);
		tg->failed = true;
		pthread_mutex_unlock(&tg->m->qlock);
	}
}

/* The results of analyses a of in into out. */
static void
tm_merge(struct mica_interval *out, const struct mica_interval *in, unsigned a)
{
	_Static_assert(MICA_N_ANALYSES == 8, "tm_merge: one line per analysis");

	if (a & MICA_BIT(MICA_ILP))
		out->ilp = in->ilp;
	if (a & MICA_BIT(MICA_ILP_ONE))
		out->ilp_one = in->ilp_one;
	if (a & MICA_BIT(MICA_ITYPES))
		out->itypes = in->itypes;
	if (a & MICA_BIT(MICA_PPM))
		out->ppm = in->ppm;
	if (a & MICA_BIT(MICA_REG))
		out->reg = in->reg;
	if (a & MICA_BIT(MICA_STRIDE))
		out->stride = in->stride;
	if (a & MICA_BIT(MICA_MEMFOOTPRINT))
		out->memfootprint = in->memfootprint;
	if (a & MICA_BIT(MICA_MEMSTACKDIST))
		out->memstackdist = in->memstackdist;
}

/*
 * Between batches: the intervals every group of t has delivered, merged
 * into one and handed on as the single run's would be (the groups close
 * their intervals at the same DEs: the boundaries are the driver's, not
 * the analyses').  A group out of memory stops the thread's analyses.
 */
static void
tm_collect(struct trace_mica *m, struct tm_thread *t)
{
	struct tm_saved *take[TRACE_MICA_MAX_GROUPS];
	size_t n = SIZE_MAX;
	bool failed = false;

	if (t->dead)
		return;
	pthread_mutex_lock(&m->qlock);
	for (unsigned g = 0; g < m->n_groups; g++) {
		failed |= t->g[g].failed;
		if (t->g[g].n_q < n)
			n = t->g[g].n_q;
	}
	for (unsigned g = 0; g < m->n_groups && !failed && n; g++) {
		struct tm_group *tg = &t->g[g];

		take[g] = xreallocarray(NULL, n, sizeof(*take[g]));
		memcpy(take[g], tg->q, n * sizeof(*take[g]));
		memmove(tg->q, tg->q + n, (tg->n_q - n) * sizeof(*tg->q));
		tg->n_q -= n;
	}
	pthread_mutex_unlock(&m->qlock);
	if (failed) {
		tm_lost(m, "the MICA analyses of thread %u stopped (out of memory)",
			(unsigned)t->tid);
		t->dead = true;
		return;
	}
	if (!n)
		return;
	for (size_t k = 0; k < n; k++) {
		struct mica_interval iv = take[0][k].iv;

		for (unsigned g = 1; g < m->n_groups; g++)
			tm_merge(&iv, &take[g][k].iv, m->group_cfg[g].analyses);
		iv.analyses = m->cfg.analyses;
		if (!t->dead && tm_interval(t, &iv) < 0) {
			tm_lost(m, "the MICA analyses of thread %u stopped (out of memory)",
				(unsigned)iv.tid);
			t->dead = true;
		}
	}
	for (unsigned g = 0; g < m->n_groups; g++) {
		for (size_t k = 0; k < n; k++)
			tm_saved_free(&take[g][k]);
		free(take[g]);
	}
}

static void
tm_collect_all(struct trace_mica *m)
{
	for (struct tm_thread *t = m->threads; t; t = t->next)
		tm_collect(m, t);
}

/* t ends: the workers done with its events, its last intervals, and its
 * groups freed. */
static void
tm_groups_finish(struct trace_mica *m, struct tm_thread *t)
{
	struct tm_thread **pp;

	event_fanout_sync(m->fan);
	tm_collect_all(m);
	for (unsigned g = 0; g < m->n_groups && !t->dead; g++)
		if (!t->g[g].failed && mica_run_finish(t->g[g].run) < 0)
			t->g[g].failed = true;
	if (!t->dead) {
		tm_collect(m, t);
		if (t->dead)
			tm_lost(m, "the last interval of thread %u was lost (out of memory)",
				(unsigned)t->tid);
	}
	for (unsigned g = 0; g < m->n_groups; g++) {
		struct tm_group *tg = &t->g[g];

		for (size_t k = 0; k < tg->n_q; k++)
			tm_saved_free(&tg->q[k]);
		free(tg->q);
		mica_run_free(tg->run);
	}
	for (pp = &m->threads; *pp != t; pp = &(*pp)->next)
		;
	*pp = t->next;
}

int
trace_mica_set_threads(struct trace_mica *m, unsigned n)
{
	unsigned order[MICA_N_ANALYSES], n_an = 0, load[TRACE_MICA_MAX_GROUPS] = { 0 };

	if (m->sampled || m->fan)
		return 0;
	for (unsigned a = 0; a < MICA_N_ANALYSES; a++)
		if (m->cfg.analyses & MICA_BIT(a))
			order[n_an++] = a;
	if (n > n_an)
		n = n_an;
	if (n <= 1)
		return 0;
	/* The costliest first, each to the group with the least so far. */
	for (unsigned i = 1; i < n_an; i++)
		for (unsigned j = i; j > 0 && tm_cost[order[j]] > tm_cost[order[j - 1]]; j--) {
			unsigned x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (unsigned g = 0; g < n; g++) {
		m->group_cfg[g] = m->cfg;
		m->group_cfg[g].analyses = 0;
	}
	for (unsigned i = 0; i < n_an; i++) {
		unsigned best = 0;

		for (unsigned g = 1; g < n; g++)
			if (load[g] < load[best])
				best = g;
		load[best] += tm_cost[order[i]];
		m->group_cfg[best].analyses |= MICA_BIT(order[i]);
	}
	m->n_groups = n;
	pthread_mutex_init(&m->qlock, NULL);
	m->fan = event_fanout_new(n, tm_group_event, m);
	if (!m->fan) {
		pthread_mutex_destroy(&m->qlock);
		m->n_groups = 0;
		return -1;
	}
	return 0;
}

/* The executable of process pid (malloc'd), or NULL if /proc does not say
 * (the process may be gone already: the analysis lags the tracer), or as
 * the tracer read it (trace_mica_set_exe_source). */
static char *
process_exe(const struct trace_mica *m, int32_t pid)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	if (m->exe_source) {
		const char *exe = m->exe_source(m->exe_arg, pid);

		return exe ? xstrdup(exe) : NULL;
	}
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

static int32_t
pid_of_tid(const struct trace_mica *m, int32_t tid)
{
	for (size_t i = 0; i < m->n_tids; i++)
		if (m->tids[i].tid == tid)
			return m->tids[i].pid;
	return 0;
}

/* The database rows of a new thread (and of its process, when it is the
 * process's first thread). */
static void
tm_store_thread(struct trace_mica *m, const struct trace_thread_rec *r, bool files_pid_always,
		double now)
{
	struct store_thread row = {
		.session = m->session, .tid = r->tid, .pid = r->pid,
		.files_pid = r->tid == r->pid ? r->pid : r->tid,
		.files_pid_always = files_pid_always, .started_at = now,
	};
	int32_t parent_pid = r->parent ? pid_of_tid(m, r->parent) : 0;

	if (pid_of_tid(m, r->tid) != r->pid) {
		m->tids = xreallocarray(m->tids, m->n_tids + 1, sizeof(*m->tids));
		m->tids[m->n_tids++] = (struct tm_tid){ r->tid, r->pid };
	}
	if (r->tid == r->pid) {
		char *exe = process_exe(m, r->pid);

		if (store_writer_process(m->store, m->session, r->pid, parent_pid, exe) < 0)
			tm_lost(m, "the results database writer stopped");
		free(exe);
	}
	if (store_writer_thread(m->store, &row) < 0)
		tm_lost(m, "the results database writer stopped");
}

static void *
tm_thread_start(void *arg, const struct trace_thread_rec *r)
{
	struct trace_mica *m = arg;
	struct tm_thread *t = xcalloc(1, sizeof(*t));
	struct mica_config c = m->cfg;
	char err[256];
	bool forced;

	if (!m->first_pid)
		m->first_pid = r->pid;
	t->m = m;
	t->interval_start = store_wall_clock();
	forced = r->tid != r->pid || r->pid != m->first_pid;
	if (forced)
		c.append_pid = true;
	t->out = mica_output_new(&c, r->tid == r->pid ? r->pid : r->tid);
	if (!t->out)
		error_msg_and_die("out of memory");
	if (m->fan) {
		t->tid = (uint32_t)r->tid;
		for (unsigned g = 0; g < m->n_groups; g++) {
			t->g[g].m = m;
			t->g[g].run = mica_run_new(&m->group_cfg[g], &tm_names, (uint32_t)r->tid,
						   tm_group_interval, &t->g[g], err, sizeof(err));
			if (!t->g[g].run)
				error_msg_and_die("%s", err);
		}
		t->next = m->threads;
		m->threads = t;
	} else {
		t->run = mica_run_new(&m->cfg, &tm_names, (uint32_t)r->tid, tm_interval, t, err,
				      sizeof(err));
		if (!t->run)
			error_msg_and_die("%s", err);
	}
	t->idx = -1;
	if (m->sampled && mica_run_set_sampled(t->run) < 0)
		error_msg_and_die("out of memory setting up thread %d's analyses", (int)r->tid);
	if (m->out_dir && !m->files_failed && mica_files_begin(t->out, m->out_dir) < 0) {
		struct mica_interval none = { .tid = (uint32_t)r->tid };

		tm_files_failed(m, &none);
	}
	if (m->sampled && mica_output_comment(t->out, "micad sample mode: each line's counts are "
					      "sums over the measured units of its interval's "
					      "bursts, not the whole run; their ratios estimate "
					      "the program's") < 0)
		error_msg_and_die("out of memory");
	if (m->store)
		tm_store_thread(m, r, forced, t->interval_start);
	return t;
}

static void
tm_event(void *arg, void *tstate, const struct insn_event *ev)
{
	struct trace_mica *m = arg;
	struct tm_thread *t = tstate;

	if (m->fan) {
		if (t->dead)
			return;
		if (event_fanout_push(m->fan, t, ev))
			tm_collect_all(m);
		if (m->out_dir && !m->files_failed)
			mica_progress(m->out_dir, ++m->des);
		return;
	}
	if (t->run && mica_run_event(t->run, ev) < 0) {
		tm_lost(m, "the MICA analyses of thread %u stopped (out of memory)",
			(unsigned)ev->tid);
		mica_run_free(t->run);
		t->run = NULL;
	} else if (t->run && m->out_dir && !m->files_failed) {
		mica_progress(m->out_dir, ++m->des);
	}
}

static void
tm_thread_rec(void *arg, void *tstate, const struct trace_thread_rec *r)
{
	struct trace_mica *m = arg;
	struct tm_thread *t = tstate;

	if (r->kind == TT_EXEC && m->store && r->tid == r->pid) {
		char *exe = process_exe(m, r->pid);

		if (exe && store_writer_process(m->store, m->session, r->pid, 0, exe) < 0)
			tm_lost(m, "the results database writer stopped");
		free(exe);
	}
	if (r->kind != TT_EXIT && r->kind != TT_DETACH)
		return;
	if (m->fan)
		tm_groups_finish(m, t);
	if (t->run && (m->sampled ? mica_run_sample_interval(t->run, (uint64_t)t->idx, true)
		       : mica_run_finish(t->run)) < 0)
		tm_lost(m, "the last interval of thread %u was lost (out of memory)",
			(unsigned)r->tid);
	if (m->store) {
		const char *reason = r->kind == TT_DETACH ? "detached"
				     : WIFSIGNALED(r->status) ? "killed" : "exited";

		if (store_writer_thread_end(m->store, m->session, r->tid,
					    r->kind == TT_EXIT ? r->status : -1, reason,
					    store_wall_clock()) < 0)
			tm_lost(m, "the results database writer stopped");
	}
	mica_run_free(t->run);
	mica_output_free(t->out);
	free(t);
}

/* Sample mode: time reached interval idx; the thread's current one ends
 * (and has a row if a burst ended in it). */
static void
tm_sample_interval(void *arg, void *tstate, int64_t idx)
{
	struct trace_mica *m = arg;
	struct tm_thread *t = tstate;

	if (!m->sampled || idx <= t->idx)
		return;
	if (t->idx >= 0 && t->run && mica_run_sample_interval(t->run, (uint64_t)t->idx, false) < 0)
		m->failed = true;
	t->idx = idx;
}

static void
tm_burst(void *arg, void *tstate, const struct trace_burst_rec *r)
{
	static const enum mica_burst_mark mark[] = {
		[BURST_WARMUP] = MICA_WARMUP, [BURST_MEASURE] = MICA_MEASURE,
		[BURST_END] = MICA_END, [BURST_ABORT] = MICA_ABORT,
	};
	struct trace_mica *m = arg;
	struct tm_thread *t = tstate;

	/* trace_analysis passes markers in sequence only */
	if (m->sampled && t->run && mica_run_burst(t->run, mark[r->kind]) < 0) {
		error_msg("the MICA analyses of thread %d failed at a burst (out of memory?)",
			  (int)r->tid);
		m->failed = true;
		mica_run_free(t->run);
		t->run = NULL;
	}
}

struct trace_consumer
trace_mica_consumer(struct trace_mica *m)
{
	struct trace_consumer c = {
		.thread_start = tm_thread_start, .event = tm_event, .thread_rec = tm_thread_rec,
		.arg = m, .interval = tm_sample_interval, .burst = tm_burst,
	};

	return c;
}

int
trace_mica_free(struct trace_mica *m)
{
	int ret;

	if (!m)
		return 0;
	if (m->fan) {
		event_fanout_free(m->fan);
		pthread_mutex_destroy(&m->qlock);
	}
	ret = m->failed ? -1 : 0;
	mica_config_free(&m->cfg);
	free(m->tids);
	free(m);
	return ret;
}
