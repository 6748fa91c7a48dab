/*
 * The sampler (sampler.h).
 *
 * Each thread's event has its own ring buffer: the kernel refuses to
 * share one between per-thread events of different tasks
 * (PERF_EVENT_IOC_SET_OUTPUT wants the same task when cpu is -1).  A
 * buffer is 2^n data pages after the control page; records are read
 * between data_tail (ours) and data_head (the kernel's), copied out when
 * they wrap.
 */
#include "config.h"
#include "trace/sampler.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "trace/perf_record.h"
#include "trace/symbols.h"
#include "trace/tracer.h"
#include "trace/unwind.h"
#include "util.h"

#define MAX_FRAMES 128
/* Where x86-64 kernel addresses start (a kernel frame, with :k). */
#define KERNEL_START 0xffff800000000000ULL

struct sthread {
	pid_t pid, tid;
	int fd;
	uint8_t *base;			/* control page, then data */
	size_t data_size;
	uint64_t last_time;		/* of its last sample read (a LOST record's
					 * time when the record has none) */
};

struct strentry {
	char *text;
	uint32_t id;
};

struct sampler {
	struct sample_event ev;
	const struct sample_options *o;
	struct ring *ring;
	int epfd;
	long page;
	struct sthread *threads;
	size_t n_threads, cap_threads;
	struct symbols *syms;
	struct strentry *strs;		/* open addressing, power-of-two size */
	size_t n_strs, cap_strs;
	uint32_t next_id;
	uint32_t kernel_id;
	uint8_t rec[65536];		/* a record copied out of a wrapping buffer */
	uint64_t ips[MAX_FRAMES];
	bool caller[MAX_FRAMES];
	struct sampler_stats st;
	bool warned_open;
};

struct sampler *
sampler_new(const struct sample_options *o, struct ring *ring, int epfd)
{
	struct sampler *s = xcalloc(1, sizeof(*s));

	if (sample_event_select(o, &s->ev) < 0) {
		free(s);
		return NULL;
	}
	s->o = o;
	s->ring = ring;
	s->epfd = epfd;
	s->page = sysconf(_SC_PAGESIZE);
	s->syms = symbols_new();
	s->cap_strs = 1024;
	s->strs = xcalloc(s->cap_strs, sizeof(*s->strs));
	s->next_id = 1;
	return s;
}

static void
thread_close(struct sampler *s, struct sthread *t)
{
	if (t->base)
		munmap(t->base, (size_t)s->page + t->data_size);
	if (t->fd >= 0)
		close(t->fd);
}

void
sampler_free(struct sampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_threads; i++)
		thread_close(s, &s->threads[i]);
	free(s->threads);
	for (size_t i = 0; i < s->cap_strs; i++)
		free(s->strs[i].text);
	free(s->strs);
	symbols_free(s->syms);
	free(s);
}

const struct sample_event *
sampler_event(const struct sampler *s)
{
	return &s->ev;
}

void
sampler_get_stats(const struct sampler *s, struct sampler_stats *st)
{
	*st = s->st;
}

void
sampler_push_note(struct sampler *s)
{
	size_t n = strlen(s->ev.note) + 1;
	struct trace_note_rec *r = ring_reserve(s->ring, TREC_NOTE, sizeof(*r) + n);

	memset(r, 0, sizeof(*r));
	r->weighting = (uint32_t)s->ev.weighting;
	snprintf(r->event, sizeof(r->event), "%s", s->ev.name);
	memcpy(r->note, s->ev.note, n);
	ring_commit(s->ring);
}

/* ---- strings ---- */

static uint64_t
hash_str(const char *t)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *t; t++)
		h = (h ^ (uint8_t)*t) * 1099511628211ULL;
	return h;
}

/* The id of text, pushing its TREC_STRING record the first time. */
static uint32_t
string_id(struct sampler *s, const char *text)
{
	size_t mask = s->cap_strs - 1, i = hash_str(text) & mask;
	size_t n = strlen(text) + 1;
	struct trace_string_rec *r;

	for (; s->strs[i].text; i = (i + 1) & mask)
		if (strcmp(s->strs[i].text, text) == 0)
			return s->strs[i].id;
	/* A name longer than a ring record is cut (C++ templates). */
	if (n > 4096)
		n = 4096;
	s->strs[i].text = xmalloc(n);
	memcpy(s->strs[i].text, text, n - 1);
	s->strs[i].text[n - 1] = '\0';
	s->strs[i].id = s->next_id++;
	r = ring_reserve(s->ring, TREC_STRING, sizeof(*r) + n);
	r->id = s->strs[i].id;
	memcpy(r->text, s->strs[i].text, n);
	ring_commit(s->ring);
	s->st.strings++;
	if (++s->n_strs * 2 > s->cap_strs) {
		struct strentry *old = s->strs;
		size_t oldcap = s->cap_strs;
		uint32_t id = s->strs[i].id;

		s->cap_strs *= 2;
		s->strs = xcalloc(s->cap_strs, sizeof(*s->strs));
		for (size_t k = 0; k < oldcap; k++) {
			size_t j;

			if (!old[k].text)
				continue;
			for (j = hash_str(old[k].text) & (s->cap_strs - 1); s->strs[j].text;
			     j = (j + 1) & (s->cap_strs - 1))
				;
			s->strs[j] = old[k];
		}
		free(old);
		return id;
	}
	return s->strs[i].id;
}

/* ---- threads ---- */

static struct sthread *
thread_find(struct sampler *s, pid_t tid)
{
	for (size_t i = 0; i < s->n_threads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	return NULL;
}

int
sampler_add_thread(struct sampler *s, pid_t pid, pid_t tid, bool enable_on_exec)
{
	struct perf_event_attr a = s->ev.attr;
	struct sthread t = { .pid = pid, .tid = tid, .fd = -1 };
	/* A dwarf sample is about 8 KiB: 128 pages hold some 60 of them, and
	 * the kernel wakes the loop at half (30 ms at 999 Hz), which a
	 * loaded machine may take to schedule it: perf record's size. */
	size_t pages = s->o->call_graph == CALL_GRAPH_DWARF ? 128 : 16;
	struct epoll_event ee = { .events = EPOLLIN, .data.ptr = NULL };
	char msg[2048];
	int e;

	if (thread_find(s, tid))
		return 0;
	a.disabled = enable_on_exec;
	a.enable_on_exec = enable_on_exec;
	/* Profile only: the kernel's default wake-up, at half the buffer.
	 * Bursts start at samples: then each one wakes the tracer. */
	if (!s->o->no_bursts)
		a.wakeup_events = 1;
	t.fd = sample_event_open(&a, tid);
	if (t.fd < 0) {
		e = errno;
		if (e == ESRCH)
			return -e;	/* it died meanwhile */
		sample_event_strerror(s->ev.name, &a, e, msg, sizeof(msg));
		error_msg("thread %d: %s", tid, msg);
		s->st.unsampled_threads++;
		return -e;
	}
	/* Locked memory is limited (perf_event_mlock_kb plus RLIMIT_MEMLOCK
	 * for an unprivileged user): smaller buffers before none. */
	for (;;) {
		t.data_size = pages * (size_t)s->page;
		t.base = mmap(NULL, (size_t)s->page + t.data_size, PROT_READ | PROT_WRITE,
			      MAP_SHARED, t.fd, 0);
		if (t.base != MAP_FAILED)
			break;
		e = errno;
		t.base = NULL;
		if ((e != EPERM && e != ENOMEM) || pages <= 2) {
			errno = e;
			perror_msg("thread %d: cannot map the buffer of its sample event (%zu KiB; "
				   "the locked-memory limit: kernel.perf_event_mlock_kb, ulimit -l)",
				   tid, t.data_size / 1024);
			thread_close(s, &t);
			s->st.unsampled_threads++;
			return -e;
		}
		pages /= 2;
	}
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, t.fd, &ee) < 0) {
		e = errno;
		perror_msg("thread %d: epoll_ctl of its sample event", tid);
		thread_close(s, &t);
		return -e;
	}
	if (s->n_threads == s->cap_threads) {
		s->cap_threads = s->cap_threads ? s->cap_threads * 2 : 16;
		s->threads = xreallocarray(s->threads, s->cap_threads, sizeof(*s->threads));
	}
	s->threads[s->n_threads++] = t;
	return 0;
}

static void drain_thread(struct sampler *s, struct sthread *t, sampler_sample_fn fn, void *arg);

void
sampler_del_thread(struct sampler *s, pid_t tid)
{
	struct sthread *t = thread_find(s, tid);

	if (!t)
		return;
	drain_thread(s, t, NULL, NULL);
	/* Closing the fd takes it out of the epoll set. */
	thread_close(s, t);
	*t = s->threads[--s->n_threads];
}

void
sampler_del_proc(struct sampler *s, pid_t pid)
{
	symbols_proc_del(s->syms, pid);
}

/* ---- samples ---- */

static void
frame_fill(struct sampler *s, struct sym_proc *p, uint64_t addr, bool caller,
	   struct trace_frame *f)
{
	struct sym_lookup l;

	f->address = addr;
	if (addr >= KERNEL_START) {
		if (!s->kernel_id)
			s->kernel_id = string_id(s, "[kernel]");
		f->module = s->kernel_id;
		f->symbol = 0;
		f->offset = addr;
		return;
	}
	sym_resolve(s->syms, p, addr, caller, &l);
	f->module = 0;
	if (l.map && l.map->name) {
		if (!l.map->name_id)
			l.map->name_id = string_id(s, l.map->name);
		f->module = l.map->name_id;
	}
	f->symbol = 0;
	if (l.symbol) {
		if (!*l.symbol_id)
			*l.symbol_id = string_id(s, l.symbol);
		f->symbol = *l.symbol_id;
	}
	f->offset = l.offset;
}

/* The frames of sample ps into s->ips/s->caller: how many. */
static int
sample_frames(struct sampler *s, struct sym_proc *p, const struct perf_sample *ps,
	      bool *truncated)
{
	int n = 0;

	*truncated = false;
	if (ps->stack && ps->regs_abi != PERF_SAMPLE_REGS_ABI_NONE) {
		/* A kernel sample (:k): its IP first, then the user stack
		 * from where the thread entered the kernel. */
		bool kernel = ps->ip >= KERNEL_START;

		n = unwind_stack(s->syms, p, ps->regs, ps->stack, ps->stack_dyn_size,
				 s->ips + kernel, s->caller + kernel, MAX_FRAMES - kernel, truncated);
		/* The sample's IP is the precise one (PEBS, IBS); the
		 * registers are where the interrupt came. */
		s->ips[0] = ps->ip;
		s->caller[0] = false;
		return n + kernel;
	}
	if (ps->ips) {
		uint64_t real = 0;

		for (uint64_t i = 0; i < ps->nr_ips; i++) {
			uint64_t ip;

			memcpy(&ip, ps->ips + i * 8, 8);
			if (ip >= (uint64_t)PERF_CONTEXT_MAX)
				continue;	/* PERF_CONTEXT_USER and the like */
			real++;
			if (n == MAX_FRAMES) {
				*truncated = true;
				break;
			}
			s->caller[n] = n > 0;
			s->ips[n++] = ip;
		}
		/* The kernel stops at kernel.perf_event_max_stack (127). */
		if (real >= 127)
			*truncated = true;
		if (n)
			return n;
	}
	s->ips[0] = ps->ip;
	s->caller[0] = false;
	return 1;
}

static void
on_sample(struct sampler *s, struct sthread *t, const void *rec, size_t len,
	  sampler_sample_fn fn, void *arg)
{
	struct perf_sample ps;
	struct trace_sample_rec *r;
	struct sym_proc *p;
	uint16_t flags = 0;
	uint64_t addr = 0, data_src = 0;
	uint32_t latency = 0;
	bool truncated;
	int n;

	if (perf_sample_parse(&s->ev.fmt, rec, len, &ps) < 0) {
		s->st.bad++;
		return;
	}
	p = symbols_proc(s->syms, (pid_t)ps.pid);
	if (s->ev.ibs_op) {
		struct ibs_op_sample ibs;

		if (ibs_op_decode(ps.raw, ps.raw_size, &ibs) == 0 && ibs.valid) {
			if (ibs.rip_valid)
				ps.ip = ibs.op_rip;
			if (ibs.lin_addr_valid) {
				addr = ibs.dc_lin_ad;
				flags |= TSAMPLE_HAS_ADDR;
			}
			if (ibs.load && ibs.dc_miss && ibs.dc_miss_latency) {
				latency = ibs.dc_miss_latency;
				flags |= TSAMPLE_HAS_LATENCY;
			}
		}
	} else {
		if ((s->ev.fmt.sample_type & PERF_SAMPLE_ADDR) && ps.addr) {
			addr = ps.addr;
			flags |= TSAMPLE_HAS_ADDR;
		}
		/* PEBS load latency: WEIGHT_STRUCT's var1, or WEIGHT's low
		 * 32 bits on older kernels. */
		latency = s->ev.fmt.sample_type & PERF_SAMPLE_WEIGHT_STRUCT ? ps.weight_var1
			  : (uint32_t)ps.weight;
		if (latency)
			flags |= TSAMPLE_HAS_LATENCY;
	}
	/* A data source whose operation is "not available" says nothing. */
	if ((s->ev.fmt.sample_type & PERF_SAMPLE_DATA_SRC) && ps.data_src &&
	    (ps.data_src & 0x1f) != PERF_MEM_OP_NA) {
		data_src = ps.data_src;
		flags |= TSAMPLE_HAS_DATA_SRC;
	}
	n = sample_frames(s, p, &ps, &truncated);
	if (truncated) {
		flags |= TSAMPLE_TRUNCATED;
		s->st.truncated++;
	}
	{
		/* Strings first (they are records of their own), then the
		 * sample. */
		struct trace_frame frames[MAX_FRAMES];

		for (int i = 0; i < n; i++)
			frame_fill(s, p, s->ips[i], s->caller[i], &frames[i]);
		r = ring_reserve(s->ring, TREC_SAMPLE, sizeof(*r) + (size_t)n * sizeof(frames[0]));
		r->time_ns = ps.time;
		r->pid = (int32_t)ps.pid;
		r->tid = (int32_t)ps.tid;
		r->weight = ps.period;
		r->addr = addr;
		r->data_src = data_src;
		r->latency = latency;
		r->flags = flags;
		r->n_frames = (uint16_t)n;
		memcpy(r->frames, frames, (size_t)n * sizeof(frames[0]));
		ring_commit(s->ring);
	}
	s->st.samples++;
	t->last_time = ps.time;
	if (fn)
		fn(arg, (pid_t)ps.pid, (pid_t)ps.tid, ps.time);
}

/* Samples the kernel dropped from thread t's buffer: a TREC_LOST record. */
static void
on_lost(struct sampler *s, struct sthread *t, const void *rec, size_t len)
{
	struct trace_lost_rec l, *r;
	uint64_t when = t->last_time;

	if (!when) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		when = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	if (perf_lost_trec(&s->ev.fmt, rec, len, (int32_t)t->pid, (int32_t)t->tid, when, &l) < 0) {
		s->st.bad++;
		return;
	}
	s->st.lost += l.lost;
	r = ring_reserve(s->ring, TREC_LOST, sizeof(*r));
	*r = l;
	ring_commit(s->ring);
}

static void
on_record(struct sampler *s, struct sthread *t, const void *rec, size_t len,
	  sampler_sample_fn fn, void *arg)
{
	const struct perf_event_header *h = rec;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(s, t, rec, len, fn, arg);
		break;
	case PERF_RECORD_MMAP2: {
		struct perf_mmap2 m;

		if (perf_mmap2_parse(rec, len, &m) < 0) {
			s->st.bad++;
			break;
		}
		sym_proc_mmap(s->syms, symbols_proc(s->syms, (pid_t)m.pid), m.addr, m.len, m.pgoff,
			      (m.prot & PROT_EXEC) != 0, m.has_build_id ? 0 : m.ino, m.filename);
		break;
	}
	case PERF_RECORD_COMM: {
		struct perf_comm c;

		if (perf_comm_parse(rec, len, &c) < 0) {
			s->st.bad++;
			break;
		}
		/* In stream order: samples before it were of the old image,
		 * the new image's mappings follow. */
		if (c.exec)
			sym_proc_exec(symbols_proc(s->syms, (pid_t)c.pid));
		break;
	}
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		on_lost(s, t, rec, len);
		break;
	case PERF_RECORD_THROTTLE:
		/* No count of what was not sampled: counted for the summary
		 * line only (the rate chart shows fewer samples). */
		s->st.throttled++;
		break;
	default:
		/* EXIT, FORK, UNTHROTTLE: the tracer knows threads from
		 * ptrace. */
		break;
	}
}

static void
drain_thread(struct sampler *s, struct sthread *t, sampler_sample_fn fn, void *arg)
{
	struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)t->base;
	const uint8_t *data;
	uint64_t head, tail, mask;

	if (!pg)
		return;
	data = t->base + s->page;
	mask = t->data_size - 1;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & mask;
		const void *rec;

		if (head - tail < sizeof(h))
			break;
		if (off + sizeof(h) <= t->data_size) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			size_t first = t->data_size - off;

			memcpy(&h, data + off, first);
			memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || h.size > head - tail) {
			s->st.bad++;
			tail = head;	/* the buffer cannot be trusted past here */
			break;
		}
		if (off + h.size <= t->data_size) {
			rec = data + off;
		} else {
			size_t first = t->data_size - off;

			memcpy(s->rec, data + off, first);
			memcpy(s->rec + first, data, h.size - first);
			rec = s->rec;
		}
		on_record(s, t, rec, h.size, fn, arg);
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

void
sampler_drain(struct sampler *s, sampler_sample_fn fn, void *arg)
{
	for (size_t i = 0; i < s->n_threads; i++)
		drain_thread(s, &s->threads[i], fn, arg);
}
