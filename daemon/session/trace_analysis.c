/*
 * The analysis thread and the instruction-count consumer
 * (trace_analysis.h).
 *
 * Every record of a producer that may not be trusted (another process:
 * trace_analysis_set_remote; sample mode's records always) is copied out
 * of the ring before it is looked at, and checked before any consumer
 * sees it; what cannot be is dropped and counted in rejected.
 */
#include "config.h"
#include "session/trace_analysis.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "decoder.h"
#include "u64map.h"
#include "util.h"

enum ta_burst { TB_IDLE, TB_WARMUP, TB_UNIT };

struct ta_thread {
	int32_t tid, pid;
	uint8_t burst;		/* sample mode: enum ta_burst */
	void *state[TRACE_MAX_CONSUMERS];
	struct ta_thread *next;
};

#define TA_HASH 256
#define TA_KEY_CACHE 4096	/* a power of two */

static inline size_t
key_slot(uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 52) & (TA_KEY_CACHE - 1);
}

struct trace_analysis {
	struct trace_consumer c[TRACE_MAX_CONSUMERS];
	int n;
	struct ta_thread *threads[TA_HASH];
	struct ta_thread *last;
	struct ring *ring;
	int avoid_cpu;
	pthread_t thread;
	bool started, finished;
	/* A producer in another process (trace_analysis_set_remote): its
	 * instructions decoded again here, by key, and its executables. */
	bool remote;
	struct u64map insns;		/* key -> struct ta_insn * */
	/* The last instructions looked up by key: a key is mostly one the
	 * events just used (a loop), and a map probe per event shows. */
	struct ta_key_cache {
		uint64_t key;
		const struct insn_info *ii;
	} key_cache[TA_KEY_CACHE];
	struct ta_insn *insn_list;
	struct ta_exe *exes;
	uint64_t rejected;
	/* Sample mode (trace_analysis_set_sample). */
	bool sample;
	uint64_t interval_ns;
	bool have_t0;
	uint64_t t0;		/* the first timed record's CLOCK_MONOTONIC time */
	int64_t cur_idx;	/* the latest interval a record fell in */
	double wall_minus_mono;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, seconds */
	struct u64map string_ids;	/* id -> index into strings */
	struct u64map string_hash;	/* hash of a text -> index of the first with it */
	char **strings;		/* interned: each text once */
	uint32_t *string_next;	/* [index]: the next text with the same hash + 1, 0 none */
	size_t n_strings, cap_strings;
	uint64_t string_bytes;
	void *buf;		/* a record copied out of the ring */
	size_t buf_cap;
};

/* A producer's strings are held until the end of the session: a bound on
 * what it can make the daemon keep (a module path or a demangled name is
 * rarely more than a few KiB; a session rarely names a million). */
#define TA_STRING_MAX		(64u << 10)
#define TA_STRINGS_BYTES	(256ull << 20)

struct ta_insn {
	struct insn_info ii;
	struct ta_insn *next;
};

struct ta_exe {
	int32_t pid;
	char *path;
	struct ta_exe *next;
};

static struct ta_thread *ta_find(struct trace_analysis *ta, int32_t tid);

struct trace_analysis *
trace_analysis_new(void)
{
	return xcalloc(1, sizeof(struct trace_analysis));
}

void
trace_analysis_free(struct trace_analysis *ta)
{
	if (!ta)
		return;
	for (int i = 0; i < TA_HASH; i++)
		for (struct ta_thread *t = ta->threads[i], *n; t; t = n) {
			n = t->next;
			free(t);
		}
	if (ta->remote)
		u64map_free(&ta->insns);
	if (ta->sample) {
		u64map_free(&ta->string_ids);
		u64map_free(&ta->string_hash);
	}
	for (size_t i = 0; i < ta->n_strings; i++)
		free(ta->strings[i]);
	free(ta->strings);
	free(ta->string_next);
	free(ta->buf);
	for (struct ta_insn *x = ta->insn_list, *n; x; x = n) {
		n = x->next;
		free(x);
	}
	for (struct ta_exe *x = ta->exes, *n; x; x = n) {
		n = x->next;
		free(x->path);
		free(x);
	}
	free(ta);
}

void
trace_analysis_set_remote(struct trace_analysis *ta)
{
	if (u64map_init(&ta->insns, 10) < 0)
		error_msg_and_die("out of memory");
	ta->remote = true;
}

const char *
trace_analysis_exe(const struct trace_analysis *ta, int32_t pid)
{
	for (const struct ta_exe *x = ta->exes; x; x = x->next)
		if (x->pid == pid)
			return x->path;
	return NULL;
}

uint64_t
trace_analysis_rejected(const struct trace_analysis *ta)
{
	return ta->rejected;
}

/* TREC_INSN: decode the producer's bytes here; the key names it. */
static void
remote_insn(struct trace_analysis *ta, const void *data, size_t len)
{
	struct trace_insn_rec r;
	struct ta_insn *x;
	uint64_t *slot;
	bool created;

	if (len < sizeof(r)) {
		ta->rejected++;
		return;
	}
	memcpy(&r, data, sizeof(r));
	x = xmalloc(sizeof(*x));
	insn_decode(r.bytes, r.len < INSN_MAX_BYTES ? r.len : INSN_MAX_BYTES, r.pc, &x->ii);
	x->next = ta->insn_list;
	ta->insn_list = x;
	slot = u64map_insert(&ta->insns, r.key, &created);
	if (!slot)
		error_msg_and_die("out of memory");
	*slot = (uint64_t)(uintptr_t)&x->ii;
	ta->key_cache[key_slot(r.key)] = (struct ta_key_cache){ r.key, &x->ii };
}

static void
remote_exe(struct trace_analysis *ta, const void *data, size_t len)
{
	const struct trace_exe_rec *r = data;
	struct ta_exe *x;
	size_t n;

	if (len <= sizeof(*r) || memchr(r->path, '\0', len - sizeof(*r)) == NULL) {
		ta->rejected++;
		return;
	}
	n = strlen(r->path);
	for (x = ta->exes; x && x->pid != r->pid; x = x->next)
		;
	if (!x) {
		x = xcalloc(1, sizeof(*x));
		x->pid = r->pid;
		x->next = ta->exes;
		ta->exes = x;
	}
	free(x->path);
	x->path = xmalloc(n + 1);
	memcpy(x->path, r->path, n + 1);
}

/*
 * An event of a producer in another process: its info is a key of a
 * TREC_INSN record sent before, and nothing in it may take the analyzers
 * outside their tables.  False: dropped (counted in rejected).
 */
static bool
remote_event(struct trace_analysis *ta, struct insn_event *ev, size_t len)
{
	uint64_t key = (uint64_t)(uintptr_t)ev->info, *v;
	struct ta_key_cache *c = &ta->key_cache[key_slot(key)];

	if (len < offsetof(struct insn_event, mem) || ev->n_mem > EV_MAX_MEM ||
	    len < insn_event_size(ev)) {
		ta->rejected++;
		return false;
	}
	if (c->ii && c->key == key) {
		ev->info = c->ii;
		return true;
	}
	if (!(v = u64map_find(&ta->insns, key))) {
		ta->rejected++;
		return false;
	}
	ev->info = (const struct insn_info *)(uintptr_t)*v;
	*c = (struct ta_key_cache){ key, ev->info };
	return true;
}

/* ---- sample mode ---- */

void
trace_analysis_set_sample(struct trace_analysis *ta, uint64_t interval_ns)
{
	struct timespec wall, mono;

	if (u64map_init(&ta->string_ids, 10) < 0 || u64map_init(&ta->string_hash, 10) < 0)
		error_msg_and_die("out of memory");
	ta->sample = true;
	ta->interval_ns = interval_ns ? interval_ns : TRACE_SAMPLE_INTERVAL_NS;
	/* The producer's times are CLOCK_MONOTONIC; the database's Unix
	 * seconds. */
	if (clock_gettime(CLOCK_REALTIME, &wall) < 0 || clock_gettime(CLOCK_MONOTONIC, &mono) < 0)
		perror_msg_and_die("cannot read the clocks for sample mode's interval times");
	ta->wall_minus_mono = (double)(wall.tv_sec - mono.tv_sec) +
			      (double)(wall.tv_nsec - mono.tv_nsec) / 1e9;
}

const char *
trace_analysis_string(const struct trace_analysis *ta, uint32_t id)
{
	const uint64_t *x;

	if (!ta->sample)
		return NULL;
	x = u64map_find((struct u64map *)&ta->string_ids, id);
	return x ? ta->strings[*x] : NULL;
}

double
trace_analysis_interval_start(const struct trace_analysis *ta, int64_t idx)
{
	uint64_t t = ta->t0 + (uint64_t)idx * ta->interval_ns;

	return (double)t / 1e9 + ta->wall_minus_mono;
}

double
trace_analysis_interval_end(const struct trace_analysis *ta, int64_t idx)
{
	return trace_analysis_interval_start(ta, idx + 1);
}

/* FNV-1a */
static uint64_t
text_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/* The index of text (n bytes) among the interned strings, added if new;
 * -1 past the bound. */
static int64_t
intern(struct trace_analysis *ta, const char *text, size_t n)
{
	uint64_t h = text_hash(text, n), *first;
	bool created;
	size_t i;

	first = u64map_insert(&ta->string_hash, h, &created);
	if (!first)
		error_msg_and_die("out of memory");
	if (!created)
		for (i = *first;; i = ta->string_next[i] - 1) {
			if (strcmp(ta->strings[i], text) == 0)
				return (int64_t)i;
			if (!ta->string_next[i])
				break;
		}
	if (ta->string_bytes + n + 1 > TA_STRINGS_BYTES || ta->n_strings == UINT32_MAX) {
		if (created)
			u64map_remove(&ta->string_hash, h);
		return -1;
	}
	if (ta->n_strings == ta->cap_strings) {
		ta->cap_strings = ta->cap_strings ? 2 * ta->cap_strings : 256;
		ta->strings = xreallocarray(ta->strings, ta->cap_strings, sizeof(*ta->strings));
		ta->string_next = xreallocarray(ta->string_next, ta->cap_strings,
						sizeof(*ta->string_next));
	}
	ta->strings[ta->n_strings] = xmalloc(n + 1);
	memcpy(ta->strings[ta->n_strings], text, n + 1);
	ta->string_next[ta->n_strings] = 0;
	if (!created) {
		/* at the end of its hash's chain */
		for (i = *first; ta->string_next[i]; i = ta->string_next[i] - 1)
			;
		ta->string_next[i] = (uint32_t)ta->n_strings + 1;
	} else {
		*first = ta->n_strings;
	}
	ta->string_bytes += n + 1;
	return (int64_t)ta->n_strings++;
}

/* TREC_STRING: an id never seen, or seen with the same text. */
static bool
sample_string(struct trace_analysis *ta, const void *data, size_t len)
{
	const struct trace_string_rec *r = data;
	const char *end;
	uint64_t *slot;
	int64_t x;
	bool created;
	size_t n;

	if (len <= sizeof(*r) || r->id == 0 ||
	    !(end = memchr(r->text, '\0', len - sizeof(*r))))
		return false;
	n = (size_t)(end - r->text);
	if (n > TA_STRING_MAX)
		return false;
	slot = u64map_find(&ta->string_ids, r->id);
	if (slot)
		return strcmp(ta->strings[*slot], r->text) == 0;
	if ((x = intern(ta, r->text, n)) < 0)
		return false;
	if (!(slot = u64map_insert(&ta->string_ids, r->id, &created)))
		error_msg_and_die("out of memory");
	*slot = (uint64_t)x;
	return true;
}

static bool
string_known(struct trace_analysis *ta, uint32_t id)
{
	return id == 0 || u64map_find(&ta->string_ids, id) != NULL;
}

/* A sample: its frames within the record (trailing padding of less than
 * 8 bytes allowed), at least one, every string id sent before. */
static bool
sample_ok(struct trace_analysis *ta, const void *data, size_t len)
{
	const struct trace_sample_rec *r = data;
	size_t need;

	if (len < sizeof(*r) || r->n_frames == 0)
		return false;
	need = sizeof(*r) + (size_t)r->n_frames * sizeof(struct trace_frame);
	if (len < need || len - need >= 8)
		return false;
	for (unsigned i = 0; i < r->n_frames; i++)
		if (!string_known(ta, r->frames[i].module) || !string_known(ta, r->frames[i].symbol))
			return false;
	return true;
}

/* The interval of a record's time; time reaching a new interval tells
 * every thread's consumers. */
static int64_t
time_idx(struct trace_analysis *ta, uint64_t t)
{
	int64_t idx;

	if (!ta->have_t0) {
		ta->have_t0 = true;
		ta->t0 = t;
	}
	idx = t < ta->t0 ? 0 : (int64_t)((t - ta->t0) / ta->interval_ns);
	if (idx > ta->cur_idx) {
		ta->cur_idx = idx;
		for (int h = 0; h < TA_HASH; h++)
			for (struct ta_thread *x = ta->threads[h]; x; x = x->next)
				for (int i = 0; i < ta->n; i++)
					if (ta->c[i].interval)
						ta->c[i].interval(ta->c[i].arg, x->state[i], idx);
	}
	return idx;
}

static void
dispatch_burst(struct trace_analysis *ta, struct ta_thread *t, const struct trace_burst_rec *r)
{
	t->burst = r->kind == BURST_WARMUP ? TB_WARMUP : r->kind == BURST_MEASURE ? TB_UNIT
		   : TB_IDLE;
	for (int i = 0; i < ta->n; i++)
		if (ta->c[i].burst)
			ta->c[i].burst(ta->c[i].arg, t->state[i], r);
}

/* TREC_BURST: of a thread the producer started (TT_START: a burst cannot
 * make the daemon set up analyses for threads without end), in sequence. */
static bool
sample_burst(struct trace_analysis *ta, const void *data, size_t len)
{
	struct trace_burst_rec r;
	struct ta_thread *t;
	bool in_seq;

	if (len < sizeof(r))
		return false;
	memcpy(&r, data, sizeof(r));
	if (r.kind < BURST_WARMUP || r.kind > BURST_ABORT)
		return false;
	if (!(t = ta_find(ta, r.tid)))
		return false;
	switch (r.kind) {
	case BURST_WARMUP:
		in_seq = t->burst == TB_IDLE;
		break;
	case BURST_MEASURE:
		in_seq = t->burst != TB_UNIT;
		break;
	case BURST_END:
		in_seq = t->burst == TB_UNIT;
		break;
	default:
		in_seq = t->burst != TB_IDLE;
		break;
	}
	if (!in_seq)
		return false;
	time_idx(ta, r.time_ns);
	/* time_idx() may have run the consumers' interval hooks: t is
	 * still the thread's (nothing ends a thread there) */
	dispatch_burst(ta, t, &r);
	return true;
}

static bool
sample_note(struct trace_analysis *ta, const void *data, size_t len)
{
	const struct trace_note_rec *r = data;

	if (len <= sizeof(*r) || (r->weighting != 1 && r->weighting != 2) ||
	    !memchr(r->event, '\0', sizeof(r->event)) ||
	    !memchr(r->note, '\0', len - sizeof(*r)))
		return false;
	for (int i = 0; i < ta->n; i++)
		if (ta->c[i].note)
			ta->c[i].note(ta->c[i].arg, r);
	return true;
}

/* An event in sample mode belongs to a burst of its thread. */
static bool
in_burst(struct trace_analysis *ta, const struct insn_event *ev)
{
	const struct ta_thread *t = ta_find(ta, (int32_t)ev->tid);

	return t && t->burst != TB_IDLE;
}

void
trace_analysis_add(struct trace_analysis *ta, const struct trace_consumer *c)
{
	if (ta->n == TRACE_MAX_CONSUMERS)
		error_msg_and_die("internal error: too many trace consumers");
	ta->c[ta->n++] = *c;
}

static struct ta_thread *
ta_find(struct trace_analysis *ta, int32_t tid)
{
	if (ta->last && ta->last->tid == tid)
		return ta->last;
	for (struct ta_thread *t = ta->threads[(uint32_t)tid % TA_HASH]; t; t = t->next)
		if (t->tid == tid)
			return ta->last = t;
	return NULL;
}

static struct ta_thread *
ta_start(struct trace_analysis *ta, const struct trace_thread_rec *r)
{
	struct ta_thread *t = xcalloc(1, sizeof(*t));
	unsigned h = (uint32_t)r->tid % TA_HASH;

	t->tid = r->tid;
	t->pid = r->pid;
	t->next = ta->threads[h];
	ta->threads[h] = t;
	for (int i = 0; i < ta->n; i++)
		t->state[i] = ta->c[i].thread_start ? ta->c[i].thread_start(ta->c[i].arg, r) : NULL;
	/* Sample mode: the thread's first interval is the current one. */
	for (int i = 0; ta->sample && i < ta->n; i++)
		if (ta->c[i].interval)
			ta->c[i].interval(ta->c[i].arg, t->state[i], ta->cur_idx);
	return ta->last = t;
}

static void
ta_remove(struct trace_analysis *ta, struct ta_thread *t)
{
	struct ta_thread **pp = &ta->threads[(uint32_t)t->tid % TA_HASH];

	while (*pp != t)
		pp = &(*pp)->next;
	*pp = t->next;
	if (ta->last == t)
		ta->last = NULL;
	free(t);
}

void
trace_analysis_feed_thread(struct trace_analysis *ta, const struct trace_thread_rec *r)
{
	struct ta_thread *t = ta_find(ta, r->tid);

	if (r->kind == TT_START) {
		if (t) {
			/* A tid reused: the old thread is gone. */
			struct trace_thread_rec end = *r;

			end.kind = TT_EXIT;
			end.status = 0;
			trace_analysis_feed_thread(ta, &end);
		}
		ta_start(ta, r);
		return;
	}
	if (!t)
		return;
	if ((r->kind == TT_EXIT || r->kind == TT_DETACH) && t->burst != TB_IDLE) {
		/* The producer ended the thread in a burst: its unit is not
		 * complete, whatever the producer says next. */
		struct trace_burst_rec b = { BURST_ABORT, t->pid, t->tid, 0, 0 };

		dispatch_burst(ta, t, &b);
	}
	for (int i = 0; i < ta->n; i++)
		if (ta->c[i].thread_rec)
			ta->c[i].thread_rec(ta->c[i].arg, t->state[i], r);
	if (r->kind == TT_EXIT || r->kind == TT_DETACH)
		ta_remove(ta, t);
}

void
trace_analysis_feed_event(struct trace_analysis *ta, const struct insn_event *ev)
{
	struct ta_thread *t = ta_find(ta, (int32_t)ev->tid);

	if (!t) {
		/* A stream without thread records (a text trace). */
		struct trace_thread_rec r = { TT_START, (int32_t)ev->tid, (int32_t)ev->tid, 0, 0, 0 };

		t = ta_start(ta, &r);
	}
	for (int i = 0; i < ta->n; i++)
		if (ta->c[i].event)
			ta->c[i].event(ta->c[i].arg, t->state[i], ev);
}

/* A TREC_SAMPLE checked: to the consumers with its interval. */
static bool
sample_sample(struct trace_analysis *ta, const void *data, size_t len)
{
	const struct trace_sample_rec *r = data;
	int64_t idx;

	if (!sample_ok(ta, data, len))
		return false;
	idx = time_idx(ta, r->time_ns);
	for (int i = 0; i < ta->n; i++)
		if (ta->c[i].sample)
			ta->c[i].sample(ta->c[i].arg, r, idx);
	return true;
}

/* A TREC_LOST checked (trace_sample_rec_ok): to the consumers with the
 * interval of its time. */
static bool
sample_lost(struct trace_analysis *ta, const void *data, size_t len)
{
	const struct trace_lost_rec *r = data;
	int64_t idx;

	if (!trace_sample_rec_ok(TREC_LOST, data, len))
		return false;
	idx = time_idx(ta, r->time_ns);
	for (int i = 0; i < ta->n; i++)
		if (ta->c[i].lost)
			ta->c[i].lost(ta->c[i].arg, r, idx);
	return true;
}

/* Any record but an event or a thread record, copied out of the ring
 * (aligned for its struct). */
static void
feed_other(struct trace_analysis *ta, uint32_t type, const void *data, size_t len)
{
	bool good = true;

	if (type >= TREC_STRING && type <= TREC_LOST) {
		/* The raw records, for consumers that want them as they come
		 * (the event dump). */
		bool ok = trace_sample_rec_ok(type, data, len);

		for (int i = 0; i < ta->n && ok; i++)
			if (ta->c[i].sample_rec)
				ta->c[i].sample_rec(ta->c[i].arg, type, data, len);
	}
	switch (type) {
	case TREC_INSN:
		if (ta->remote)
			remote_insn(ta, data, len);
		return;
	case TREC_EXE:
		if (ta->remote)
			remote_exe(ta, data, len);
		return;
	case TREC_STRING:
		good = ta->sample && sample_string(ta, data, len);
		break;
	case TREC_SAMPLE:
		good = ta->sample && sample_sample(ta, data, len);
		break;
	case TREC_BURST:
		good = ta->sample && sample_burst(ta, data, len);
		break;
	case TREC_NOTE:
		good = ta->sample && sample_note(ta, data, len);
		break;
	case TREC_LOST:
		good = ta->sample && sample_lost(ta, data, len);
		break;
	default:
		return;
	}
	if (!good)
		ta->rejected++;
}

/* Room for a record of len bytes in ta->buf. */
static void *
record_buf(struct trace_analysis *ta, size_t len)
{
	if (len > ta->buf_cap) {
		free(ta->buf);
		ta->buf_cap = len < 4096 ? 4096 : len;
		ta->buf = xmalloc(ta->buf_cap);
	}
	return ta->buf;
}

/* An event copied into ev (len bytes of it valid). */
static void
feed_event_checked(struct trace_analysis *ta, struct insn_event *ev, size_t len)
{
	if (ta->remote && !remote_event(ta, ev, len))
		return;
	if (ta->sample && !in_burst(ta, ev)) {
		ta->rejected++;
		return;
	}
	trace_analysis_feed_event(ta, ev);
}

void
trace_analysis_finish(struct trace_analysis *ta)
{
	if (ta->finished)
		return;
	ta->finished = true;
	/* Threads the stream never ended (a truncated trace) end here. */
	for (int i = 0; i < TA_HASH; i++)
		while (ta->threads[i]) {
			struct trace_thread_rec r = { TT_DETACH, 0, ta->threads[i]->tid, 0, 0, 0 };

			trace_analysis_feed_thread(ta, &r);
		}
	for (int i = 0; i < ta->n; i++)
		if (ta->c[i].finish)
			ta->c[i].finish(ta->c[i].arg);
}

bool
trace_sample_rec_ok(uint32_t type, const void *data, size_t len)
{
	switch (type) {
	case TREC_STRING: {
		const struct trace_string_rec *r = data;

		return len > sizeof(*r) && r->id != 0 &&
		       memchr(r->text, '\0', len - sizeof(*r)) != NULL;
	}
	case TREC_SAMPLE: {
		const struct trace_sample_rec *r = data;

		return len >= sizeof(*r) &&
		       (len - sizeof(*r)) / sizeof(struct trace_frame) >= r->n_frames;
	}
	case TREC_BURST: {
		const struct trace_burst_rec *r = data;

		return len >= sizeof(*r) && r->kind >= BURST_WARMUP && r->kind <= BURST_ABORT;
	}
	case TREC_NOTE: {
		const struct trace_note_rec *r = data;

		return len > sizeof(*r) && memchr(r->event, '\0', sizeof(r->event)) != NULL &&
		       memchr(r->note, '\0', len - sizeof(*r)) != NULL;
	}
	case TREC_LOST: {
		const struct trace_lost_rec *r = data;

		return len >= sizeof(*r) && r->lost > 0;
	}
	}
	return false;
}

/*
 * An event out of the ring: its fixed head, then its accesses 8 bytes at a
 * time (records are 8-byte aligned).  A variable-size memcpy() here was
 * compiled to rep movsq, which costs tens of cycles to start for the 40 to
 * 100 bytes of an event: a fifth of this thread's time at the valgrind
 * engine's rates.
 */
static inline void
copy_event(struct insn_event *ev, const void *data, size_t len)
{
	size_t head = offsetof(struct insn_event, mem);

	if (len < head) {
		memcpy(ev, data, len);
		return;
	}
	memcpy(ev, data, head);
	for (size_t o = head; o + 8 <= len; o += 8)
		memcpy((char *)ev + o, (const char *)data + o, 8);
}

/*
 * A TREC_EVENTS record: the events in it, each checked as a TREC_EVENT
 * record is (its size within the record, its access count; a remote
 * producer's info key known).  The first impossible one ends the record.
 */
static void
feed_events(struct trace_analysis *ta, const uint8_t *p, size_t len)
{
	size_t head = offsetof(struct insn_event, mem), off = 0;
	struct insn_event ev;

	while (off < len) {
		size_t n;

		if (len - off < head) {
			ta->rejected++;
			return;
		}
		memcpy(&ev, p + off, head);
		if (ev.n_mem > EV_MAX_MEM) {
			ta->rejected++;
			return;
		}
		n = (insn_event_size(&ev) + 7) & ~(size_t)7;
		if (len - off < n || n > sizeof(ev)) {
			ta->rejected++;
			return;
		}
		/* again, whole: the head may have changed (a remote producer) */
		copy_event(&ev, p + off, n);
		off += n;
		if (ev.n_mem > EV_MAX_MEM || insn_event_size(&ev) > n) {
			ta->rejected++;
			return;
		}
		feed_event_checked(ta, &ev, n);
	}
}

static void *
ta_main(void *arg)
{
	struct trace_analysis *ta = arg;
	/* Events are copied out of the ring: a record's slot may be reused
	 * as soon as it is released, and it need not be aligned for the
	 * consumers. */
	struct insn_event ev;

	if (ta->avoid_cpu >= 0) {
		cpu_set_t set;

		if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 1) {
			CPU_CLR(ta->avoid_cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
	}
	for (;;) {
		const void *data;
		size_t len;
		uint32_t type = ring_peek(ta->ring, &data, &len);

		if (type == RING_END)
			break;
		if (type == TREC_EVENT) {
			copy_event(&ev, data, len < sizeof(ev) ? len : sizeof(ev));
			ring_release(ta->ring);
			if (!ta->remote && !ta->sample)
				trace_analysis_feed_event(ta, &ev);
			else
				feed_event_checked(ta, &ev, len);
		} else if (type == TREC_EVENTS) {
			feed_events(ta, data, len);
			ring_release(ta->ring);
		} else if (type == TREC_THREAD && len >= sizeof(struct trace_thread_rec)) {
			struct trace_thread_rec r;

			memcpy(&r, data, sizeof(r));
			ring_release(ta->ring);
			trace_analysis_feed_thread(ta, &r);
		} else if (type == TREC_INSN && ta->remote) {
			remote_insn(ta, data, len);
			ring_release(ta->ring);
		} else if (type == TREC_EXE && ta->remote) {
			remote_exe(ta, data, len);
			ring_release(ta->ring);
		} else if (type >= TREC_STRING && type <= TREC_LOST) {
			/* Copied first: a producer in another process could
			 * change the record while it is checked. */
			void *buf = record_buf(ta, len);

			memcpy(buf, data, len);
			ring_release(ta->ring);
			feed_other(ta, type, buf, len);
		} else {
			ring_release(ta->ring);
		}
	}
	return NULL;
}

int
trace_analysis_start(struct trace_analysis *ta, struct ring *ring, int avoid_cpu)
{
	int e;

	sigset_t all, old;

	ta->ring = ring;
	ta->avoid_cpu = avoid_cpu;
	/* Signals are for the tracer's thread (a SIGINT must interrupt its
	 * waitpid): the analysis thread is born with every signal blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&ta->thread, NULL, ta_main, ta);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		errno = e;
		perror_msg("cannot start the analysis thread");
		return -1;
	}
	ta->started = true;
	return 0;
}

void
trace_analysis_join(struct trace_analysis *ta)
{
	if (ta->started) {
		pthread_join(ta->thread, NULL);
		ta->started = false;
	}
	trace_analysis_finish(ta);
}

/* ---- instruction counts ---- */

enum ic_end { IC_RUNNING, IC_EXITED, IC_DETACHED };

struct ic_thread {
	int32_t pid, tid;
	uint64_t e, h;
	enum ic_end end;
	int status;
	struct ic_thread *next;
};

struct insn_counts {
	struct ic_thread *first, **tail;
};

struct insn_counts *
insn_counts_new(void)
{
	struct insn_counts *ic = xcalloc(1, sizeof(*ic));

	ic->tail = &ic->first;
	return ic;
}

void
insn_counts_free(struct insn_counts *ic)
{
	if (!ic)
		return;
	for (struct ic_thread *t = ic->first, *n; t; t = n) {
		n = t->next;
		free(t);
	}
	free(ic);
}

static void *
ic_thread_start(void *arg, const struct trace_thread_rec *r)
{
	struct insn_counts *ic = arg;
	struct ic_thread *t = xcalloc(1, sizeof(*t));

	t->pid = r->pid;
	t->tid = r->tid;
	*ic->tail = t;
	ic->tail = &t->next;
	return t;
}

static void
ic_event(void *arg, void *tstate, const struct insn_event *ev)
{
	struct ic_thread *t = tstate;

	(void)arg;
	t->e++;
	if (!(ev->flags & EV_REP) || ((ev->flags & EV_REP_FIRST) && ev->rep_count > 0))
		t->h++;
}

static void
ic_thread_rec(void *arg, void *tstate, const struct trace_thread_rec *r)
{
	struct ic_thread *t = tstate;

	(void)arg;
	if (r->kind == TT_EXIT) {
		t->end = IC_EXITED;
		t->status = r->status;
	} else if (r->kind == TT_DETACH) {
		t->end = IC_DETACHED;
	}
}

struct trace_consumer
insn_counts_consumer(struct insn_counts *ic)
{
	struct trace_consumer c = { ic_thread_start, ic_event, ic_thread_rec, NULL, ic };

	return c;
}

void
insn_counts_print(const struct insn_counts *ic, FILE *f, const char *prefix)
{
	for (const struct ic_thread *t = ic->first; t; t = t->next) {
		fprintf(f, "%spid %d tid %d: %llu instructions (E), %llu (H); ", prefix,
			t->pid, t->tid, (unsigned long long)t->e, (unsigned long long)t->h);
		if (t->end == IC_DETACHED)
			fprintf(f, "detached\n");
		else if (t->end == IC_RUNNING)
			fprintf(f, "still running\n");
		else if (WIFSIGNALED(t->status))
			fprintf(f, "killed by signal %d\n", WTERMSIG(t->status));
		else
			fprintf(f, "exited with status %d\n", WEXITSTATUS(t->status));
	}
}

void
insn_counts_total(const struct insn_counts *ic, uint64_t *e, uint64_t *h)
{
	*e = *h = 0;
	for (const struct ic_thread *t = ic->first; t; t = t->next) {
		*e += t->e;
		*h += t->h;
	}
}

/* ---- event dump ---- */

static void
dump_event(void *arg, void *tstate, const struct insn_event *ev)
{
	FILE *f = arg;

	(void)tstate;
	fprintf(f, "%u %llx %llx %u %u", ev->tid, (unsigned long long)ev->pc,
		(unsigned long long)ev->next_pc, ev->flags, ev->rep_count);
	for (unsigned i = 0; i < ev->n_mem; i++)
		fprintf(f, " %c=%llx:%u%s", ev->mem[i].dir == MEM_WRITE ? 'w' : 'r',
			(unsigned long long)ev->mem[i].addr, ev->mem[i].size,
			ev->mem[i].flags & MEMF_PHANTOM ? "p" : "");
	fputc('\n', f);
}

struct trace_consumer
event_dump_consumer(FILE *f)
{
	struct trace_consumer c = { NULL, dump_event, NULL, NULL, f };

	return c;
}
