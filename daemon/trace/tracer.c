/*
 * The step-mode tracer (tracer.h): ptrace single-stepping of every thread,
 * one event per executed instruction.
 *
 * How a thread moves on (tracer.h, enum tracer_step_mode): by leapfrog
 * (an int3 planted on the pending instruction's successor, PTRACE_CONT; at
 * the int3's SIGTRAP RIP is rewound onto it, and the next write moves the
 * int3 on), or by the trap flag.  A process holds at most one int3, only
 * while it has one thread; it is taken out before any single-step (so a
 * syscall, fork or exec never sees it), any signal injection and any
 * detach.  Reads of the tracee's code see the original byte.
 *
 * How a stop is read.  Each thread carries a "pending" event: the
 * instruction at its RIP, evaluated from the registers before it runs.
 * When the thread stops again the pending event is committed (pushed to
 * the ring, with next_pc = the new RIP) if the instruction did execute,
 * and the next pending event is built from the same registers, so one
 * PTRACE_GETREGS serves two events.  Whether the instruction executed:
 *  - a SIGTRAP after a step is the trap flag firing (si_code TRAP_TRACE),
 *    or, after a syscall instruction, the kernel's syscall-exit report
 *    (SI_USER): both mean "executed";
 *  - after an event stop (a new thread, an attach interrupt, the first
 *    exec) the first SIGTRAP may be a syscall-exit report for a syscall we
 *    never saw: there, and only there, PTRACE_GETSIGINFO tells the two
 *    apart;
 *  - a signal-delivery stop means the instruction has not run yet: the
 *    signal is injected with the next step; if the program catches it the
 *    kernel stops again at the handler's first instruction (si_code
 *    SIGTRAP) and the pending event is rebuilt there;
 *  - a syscall interrupted and about to be restarted (rax = -ERESTART*)
 *    will run again from RIP - 2: the pending event is built there.
 */
#include "config.h"
#include "trace/tracer.h"

#include <dirent.h>
#include <elf.h>
#include <stddef.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "decode_cache.h"
#include "decoder.h"
#include "iclass.h"
#include "trace/burst_budget.h"
#include "trace/sampler.h"
#include "trace/vg_engine.h"
#include "util.h"

#ifndef TRAP_TRACE
# define TRAP_TRACE 2
#endif
#define ERESTARTSYS_		512
#define ERESTARTNOINTR_		513
#define ERESTARTNOHAND_		514
#define ERESTART_RESTARTBLOCK_	516

struct tproc {
	pid_t pid;
	struct decode_cache *dc;
	int mem_fd;		/* /proc/PID/mem, opened if process_vm_readv fails */
	int wfd;		/* /proc/PID/mem for breakpoints, or -1 */
	uint64_t bp_addr;	/* leapfrog's int3, 0 if none is planted */
	uint8_t bp_orig;	/* the byte it replaced */
	bool no_leap;		/* shares its memory with another traced process */
	/* It has a SIGTRAP handler (SigCgt), as read at attach, exec and
	 * each rt_sigaction(SIGTRAP): a trap of ours while it blocks SIGTRAP
	 * would reset that handler (resume_untraced()). */
	bool catches_trap;
	int nthreads;
	struct tproc *next;
};

enum thread_state {
	TS_RUNNING,		/* resumed by us (stepping, or free in sample mode) */
	TS_LISTENING,		/* in group-stop, PTRACE_LISTEN */
	TS_DETACHED,
};

struct tthread {
	pid_t tid;
	struct tproc *proc;
	enum thread_state state;
	bool have_pending;
	bool check_next_trap;	/* next SIGTRAP: ask the kernel why */
	bool skip_build;	/* resume without a pending event (handler entry) */
	bool regs_valid;
	bool last_rep;
	bool leaping;		/* resumed by PTRACE_CONT towards proc->bp_addr */
	bool rip_rewind;	/* set RIP to rewind_to before resuming */
	bool eat_sigtrap;	/* a queued SIGTRAP of our int3 is still to come */
	bool step_owed;		/* resumed by PTRACE_SINGLESTEP, its trap not seen yet */
	/* Runs untraced from system call to system call (PTRACE_SYSCALL)
	 * until one's exit finds SIGTRAP unblocked (resume_untraced()). */
	bool trap_blocked;
	/* The pending system call is stepped by its entry and exit stops
	 * (PTRACE_SYSCALL), not by the trap flag (step_by_syscall()). */
	bool sysstep;
	bool in_syscall;	/* between a syscall's entry and exit stops */
	/* A caught signal was delivered with a step: the next stop is its
	 * handler's entry (ptrace_notify, no signal forced). */
	bool entering_handler;
	int inject_sig;
	uint64_t rewind_to;
	uint64_t last_pc, last_next_pc;
	/* Sample mode: where the thread is in a burst (enum burst_phase),
	 * events left in the phase, when it was interrupted, and its
	 * affinity before the burst pinned it. */
	int burst;
	uint32_t burst_left;
	uint64_t burst_t0;
	bool burst_mask_saved;
	/* Its affinity without micad: before micad pinned it (attach), or
	 * what its creator's was (a thread born pinned), or micad's own
	 * before it pinned itself (a launched program), given back at detach. */
	bool mask_saved;
	cpu_set_t orig_mask;
	bool burst_late;		/* interrupted: its burst took too long */
	cpu_set_t burst_mask;
	struct user_regs_struct regs;
	struct insn_event pending;
	struct tthread *hnext;
};

#define THREAD_HASH 1024

struct tracer {
	struct tracer_options opt;
	struct ring *ring;
	struct tthread *threads[THREAD_HASH];
	struct tthread *last;	/* lookup cache */
	struct tproc *procs;
	int nthreads;
	int cpu;		/* pinned CPU or -1 */
	cpu_set_t own_mask;	/* micad's affinity before it pinned itself */
	bool own_mask_saved;
	unsigned long options;
	pid_t main_pid;
	bool main_done;
	int main_status;
	struct tracer_stats st;
	struct timespec t0, last_progress;
	uint64_t progress_steps;
	bool progress_shown;
	struct vec_state vec;
	uint16_t ic_ret_near, ic_jmp_far, ic_call_far;
	bool warned_trap_handler;
	/* Sample mode. */
	struct sampler *sampler;	/* NULL: step mode */
	int epfd;
	bool launched;			/* tracer_launch(): the program is our child */
	int bursting;			/* threads in a burst's warm-up or measure */
	timer_t burst_timer;		/* while bursts step: a tick to the loop */
	bool have_burst_timer;
	int burst_pending;		/* threads interrupted for a burst, not stopped yet */
	struct burst_budget budget;	/* where bursts go, time held */
	struct vg_engine *vg;	/* the valgrind engine instead (ENGINE_VALGRIND) */
};

/* A sample-mode thread's burst. */
enum burst_phase { BP_NONE, BP_WANTED, BP_WARMUP, BP_MEASURE };

static volatile sig_atomic_t detach_requested;
/* Sample mode's loop sleeps in epoll_wait: a detach request or a SIGCHLD
 * (a tracee stopped) wakes it through this eventfd, from whichever thread
 * the signal reached. */
static volatile sig_atomic_t wake_efd = -1;

static void
wake_loop(void)
{
	uint64_t one = 1;
	int fd = wake_efd, e = errno;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
		/* Full (2^64-2 wakes pending): the loop is awake anyway. */
	}
	errno = e;
}
/* The launched or attached process's pidfd, for tracer_signal_main(). */
static volatile sig_atomic_t main_pidfd = -1;

int
tracer_signal_main(int sig)
{
	int fd = main_pidfd;

	if (fd < 0)
		return -ESRCH;
	if (syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) < 0)
		return -errno;
	return 0;
}

void
tracer_request_detach(void)
{
	detach_requested = 1;
	wake_loop();
	vg_engine_request_detach();
}

static double
ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(a->tv_sec - b->tv_sec) + (a->tv_nsec - b->tv_nsec) / 1e9;
}

struct tracer *
tracer_new(const struct tracer_options *opt, struct ring *ring)
{
	struct tracer *t = xcalloc(1, sizeof(*t));

	t->opt = *opt;
	t->ring = ring;
	t->cpu = -1;
	t->epfd = -1;
	if (opt->engine == ENGINE_VALGRIND) {
		t->vg = vg_engine_new(opt, ring);
		return t;
	}
	if (opt->pin) {
		cpu_set_t set;
		int cpu = opt->pin_cpu >= 0 ? opt->pin_cpu : sched_getcpu();

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		t->own_mask_saved = sched_getaffinity(0, sizeof(t->own_mask), &t->own_mask) == 0;
		if (sched_setaffinity(0, sizeof(set), &set) == 0)
			t->cpu = cpu;
		else
			perror_msg("cannot pin the tracer to CPU %d (tracing unpinned, about 3x slower)", cpu);
	}
	if (!iclass_lookup("RET_NEAR", &t->ic_ret_near) ||
	    !iclass_lookup("JMP_FAR", &t->ic_jmp_far) ||
	    !iclass_lookup("CALL_FAR", &t->ic_call_far))
		t->opt.step = STEP_TF;	/* cannot tell near from far */
	t->options = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD |
		     PTRACE_O_TRACEEXIT;
	if (opt->follow_forks)
		t->options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	return t;
}

int
tracer_cpu(const struct tracer *t)
{
	return t->cpu;
}

void
tracer_free(struct tracer *t)
{
	if (!t)
		return;
	sampler_free(t->sampler);
	if (t->epfd >= 0)
		close(t->epfd);
	vg_engine_free(t->vg);
	for (int i = 0; i < THREAD_HASH; i++) {
		struct tthread *th = t->threads[i], *n;

		for (; th; th = n) {
			n = th->hnext;
			free(th);
		}
	}
	/* Decode caches die last: events in the ring point into them, and
	 * the caller frees the tracer only after the consumer is done. */
	for (struct tproc *p = t->procs, *n; p; p = n) {
		n = p->next;
		decode_cache_free(p->dc);
		if (p->mem_fd >= 0)
			close(p->mem_fd);
		if (p->wfd >= 0)
			close(p->wfd);
		free(p);
	}
	free(t);
}

/* ---- bookkeeping ---- */

static struct tthread *
thread_find(struct tracer *t, pid_t tid)
{
	if (t->last && t->last->tid == tid)
		return t->last;
	for (struct tthread *th = t->threads[tid % THREAD_HASH]; th; th = th->hnext)
		if (th->tid == tid)
			return t->last = th;
	return NULL;
}

void
trace_push_thread_rec(struct ring *ring, enum trace_thread_kind kind, pid_t pid, pid_t tid,
		      pid_t parent, int status)
{
	struct trace_thread_rec *r = ring_reserve(ring, TREC_THREAD, sizeof(*r));

	r->kind = kind;
	r->pid = pid;
	r->tid = tid;
	r->parent = parent;
	r->status = status;
	r->reserved = 0;
	ring_commit(ring);
}

/* A process's executable for a consumer in another process (TREC_EXE),
 * read now, while the process is stopped and surely this one. */
static void
push_exe_rec(struct tracer *t, pid_t pid)
{
	char link[64], path[PATH_MAX];
	struct trace_exe_rec *r;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return;
	path[n] = '\0';
	r = ring_reserve(t->ring, TREC_EXE, sizeof(*r) + (size_t)n + 1);
	r->pid = pid;
	memcpy(r->path, path, (size_t)n + 1);
	ring_commit(t->ring);
}

/* An instruction just decoded, for a consumer in another process. */
static void
publish_insn(struct tracer *t, const struct insn_info *ii)
{
	struct trace_insn_rec *r;

	if (!t->opt.publish)
		return;
	r = ring_reserve(t->ring, TREC_INSN, sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->key = (uint64_t)(uintptr_t)ii;
	r->pc = ii->pc;
	r->len = ii->len;
	memcpy(r->bytes, ii->bytes, ii->len);
	ring_commit(t->ring);
}

static void
push_thread_rec(struct tracer *t, enum trace_thread_kind kind, pid_t pid, pid_t tid,
		pid_t parent, int status)
{
	if (t->opt.publish && ((kind == TT_START && tid == pid) || kind == TT_EXEC))
		push_exe_rec(t, pid);
	trace_push_thread_rec(t->ring, kind, pid, tid, parent, status);
}

static struct tproc *
proc_find(struct tracer *t, pid_t pid)
{
	for (struct tproc *p = t->procs; p; p = p->next)
		if (p->pid == pid && p->nthreads > 0)
			return p;
	return NULL;
}

static struct tproc *
proc_new(struct tracer *t, pid_t pid)
{
	struct tproc *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->dc = decode_cache_new();
	p->mem_fd = -1;
	p->wfd = -1;
	p->next = t->procs;
	t->procs = p;
	return p;
}

static struct tthread *
thread_new(struct tracer *t, struct tproc *p, pid_t tid, pid_t parent)
{
	struct tthread *th = xcalloc(1, sizeof(*th));

	th->tid = tid;
	th->proc = p;
	th->state = TS_RUNNING;
	th->hnext = t->threads[tid % THREAD_HASH];
	t->threads[tid % THREAD_HASH] = th;
	p->nthreads++;
	t->nthreads++;
	push_thread_rec(t, TT_START, p->pid, tid, parent, 0);
	/* Not fatal for a thread after the first: it runs unsampled (the
	 * sampler said why). */
	if (t->sampler)
		sampler_add_thread(t->sampler, p->pid, tid, false);
	return th;
}

static void
thread_del(struct tracer *t, struct tthread *th)
{
	struct tthread **pp = &t->threads[th->tid % THREAD_HASH];

	while (*pp != th)
		pp = &(*pp)->hnext;
	*pp = th->hnext;
	if (t->last == th)
		t->last = NULL;
	if (t->sampler) {
		sampler_del_thread(t->sampler, th->tid);
		if (th->proc->nthreads == 1)
			sampler_del_proc(t->sampler, th->proc->pid);
	}
	th->proc->nthreads--;
	t->nthreads--;
	free(th);
}

/* Thread group id of tid from /proc, or -1. */
static pid_t
read_tgid(pid_t tid)
{
	char path[64], line[256];
	pid_t tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* A hexadecimal signal mask field ("SigCgt:", "SigPnd:") of a thread. */
static uint64_t
read_sigmask(pid_t pid, pid_t tid, const char *field)
{
	char path[96], line[256];
	unsigned long long mask = 0;
	size_t flen = strlen(field);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, flen) == 0) {
			mask = strtoull(line + flen, NULL, 16);
			break;
		}
	fclose(f);
	return mask;
}

static void
pin_task(struct tracer *t, struct tthread *th)
{
	cpu_set_t set;

	if (t->cpu < 0 || t->sampler)
		return;		/* sample mode pins a thread only for its bursts */
	if (!th->mask_saved &&
	    sched_getaffinity(th->tid, sizeof(th->orig_mask), &th->orig_mask) == 0)
		th->mask_saved = true;
	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	sched_setaffinity(th->tid, sizeof(set), &set);
}

/* ---- reading the tracee ---- */

/* Read up to n bytes of code at addr; a read that stops at the end of a
 * mapping returns what could be read.  Returns the byte count, or -1. */
static ssize_t
read_code(struct tproc *p, pid_t tid, uint64_t addr, uint8_t *buf, size_t n)
{
	uint64_t page_end = (addr | 4095) + 1;
	size_t first = page_end - addr < n ? page_end - addr : n;
	struct iovec local = { buf, n };
	struct iovec remote[2] = {
		{ (void *)addr, first },
		{ (void *)page_end, n - first },
	};
	ssize_t r = process_vm_readv(tid, &local, 1, remote, first < n ? 2 : 1, 0);

	if (r <= 0) {
		if (p->mem_fd < 0) {
			char path[64];

			snprintf(path, sizeof(path), "/proc/%d/mem", p->pid);
			p->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
			if (p->mem_fd < 0)
				return -1;
		}
		r = pread(p->mem_fd, buf, n, (off_t)addr);
		if (r <= 0 && first < n)
			r = pread(p->mem_fd, buf, first, (off_t)addr);
		if (r <= 0)
			return -1;
	}
	/* The program's bytes, not leapfrog's int3. */
	if (p->bp_addr && p->bp_addr - addr < (uint64_t)r)
		buf[p->bp_addr - addr] = p->bp_orig;
	return r;
}

/* Write n bytes into the tracee's memory (text included: /proc/PID/mem
 * writes through page protections). */
static int
poke_bytes(struct tproc *p, uint64_t addr, const uint8_t *buf, size_t n)
{
	if (p->wfd < 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/mem", p->pid);
		p->wfd = open(path, O_RDWR | O_CLOEXEC);
		if (p->wfd < 0)
			return -1;
	}
	return pwrite(p->wfd, buf, n, (off_t)addr) == (ssize_t)n ? 0 : -1;
}

/* Take leapfrog's breakpoint out of the process, if one is in. */
static void
bp_remove(struct tproc *p)
{
	if (p->bp_addr) {
		poke_bytes(p, p->bp_addr, &p->bp_orig, 1);	/* fails only if it is gone */
		p->bp_addr = 0;
	}
}

/* Fill t->vec from the XSAVE area (standard format: XMM at 160, YMM upper
 * halves at 576, opmask at 1088, ZMM upper halves at 1152, ZMM16-31 at
 * 1664). */
static const struct vec_state *
read_vec_state(struct tracer *t, pid_t tid)
{
	static uint8_t xs[8192];
	struct iovec iov = { xs, sizeof(xs) };
	uint64_t bv;

	memset(&t->vec, 0, sizeof(t->vec));
	if (ptrace(PTRACE_GETREGSET, tid, NT_X86_XSTATE, &iov) < 0)
		return &t->vec;
	memcpy(&bv, xs + 512, 8);
	for (int i = 0; i < 16; i++) {
		memcpy(t->vec.zmm[i], xs + 160 + 16 * i, 16);
		if ((bv & 4) && iov.iov_len >= 576 + 256)
			memcpy(t->vec.zmm[i] + 16, xs + 576 + 16 * i, 16);
		if ((bv & 0x40) && iov.iov_len >= 1152 + 512)
			memcpy(t->vec.zmm[i] + 32, xs + 1152 + 32 * i, 32);
	}
	if ((bv & 0x80) && iov.iov_len >= 1664 + 1024)
		for (int i = 16; i < 32; i++)
			memcpy(t->vec.zmm[i], xs + 1664 + 64 * (i - 16), 64);
	if ((bv & 0x20) && iov.iov_len >= 1088 + 64)
		memcpy(t->vec.k, xs + 1088, 64);
	return &t->vec;
}

/* ---- events ---- */

static void
show_progress(struct tracer *t, bool final)
{
	struct timespec now;
	double dt, el;

	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = ts_diff(&now, &t->last_progress);
	if (!final && dt < 1.0)
		return;
	el = ts_diff(&now, &t->t0);
	if (t->opt.progress) {
		t->st.seconds = el;
		if (t->sampler) {
			struct sampler_stats ss;

			sampler_get_stats(t->sampler, &ss);
			t->st.samples = ss.samples;
		}
		t->opt.progress(t->opt.progress_arg, &t->st, final);
		t->last_progress = now;
		return;
	}
	if (t->sampler && (!final || t->progress_shown)) {
		struct sampler_stats ss;

		sampler_get_stats(t->sampler, &ss);
		fprintf(stderr, "\rmicad: %llu samples, %llu bursts, %.1f s elapsed%s",
			(unsigned long long)ss.samples, (unsigned long long)t->st.bursts, el,
			final ? "\n" : "  ");
		fflush(stderr);
		t->progress_shown = !final;
	} else if (!final || t->progress_shown) {
		fprintf(stderr, "\rmicad: %llu instructions, %.1f K/s, %.1f s elapsed%s",
			(unsigned long long)t->st.steps,
			el > 0 ? t->st.steps / el / 1000.0 : 0.0, el,
			final ? "\n" : "  ");
		fflush(stderr);
		t->progress_shown = !final;
	}
	t->last_progress = now;
}

/* ---- bursts (sample mode) ---- */

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void
push_burst(struct tracer *t, struct tthread *th, enum trace_burst_kind kind)
{
	struct trace_burst_rec *r = ring_reserve(t->ring, TREC_BURST, sizeof(*r));

	r->kind = kind;
	r->pid = th->proc->pid;
	r->tid = th->tid;
	r->reserved = 0;
	r->time_ns = mono_ns();
	ring_commit(t->ring);
}

/*
 * While bursts step, the loop waits in waitpid: SIGCHLD, one per step,
 * would only run its handler for nothing.  Blocked meanwhile, it stays
 * pending and wakes the loop once afterwards.
 */
static void
block_sigchld(bool block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* Every 20 ms of a burst, a signal interrupts the loop's waitpid: the
 * sample buffers are read meanwhile, and a burst stuck in a blocking
 * system call is given up (sample_loop()). */
#define BURST_TICK_NS 20000000L
/* A burst that takes this much longer than bursts have lately is given
 * up: its thread is blocked (a read, a lock), not being stepped. */
#define BURST_LATE_FACTOR 10

static void
burst_ticks(struct tracer *t, bool on)
{
	struct itimerspec its = { { 0, on ? BURST_TICK_NS : 0 }, { 0, on ? BURST_TICK_NS : 0 } };

	if (t->have_burst_timer && timer_settime(t->burst_timer, 0, &its, NULL) < 0)
		perror_msg("timer_settime of the burst tick");
}

/*
 * th's burst is over: ended (BURST_END), cut short (BURST_ABORT), or
 * given up before it began (the interrupted thread exited first: no
 * marker then).  The time it was held counts against the budget.
 */
static void
burst_finish(struct tracer *t, struct tthread *th, enum trace_burst_kind kind)
{
	uint64_t dt;

	if (th->burst == BP_NONE)
		return;
	dt = mono_ns() - th->burst_t0;
	th->burst_late = false;
	burst_budget_held(&t->budget, dt, th->burst >= BP_WARMUP);
	if (th->burst >= BP_WARMUP) {
		push_burst(t, th, kind);
		if (--t->bursting == 0) {
			burst_ticks(t, false);
			block_sigchld(false);
		}
		if (kind == BURST_END)
			t->st.bursts++;
		else
			t->st.bursts_aborted++;
	} else {
		t->burst_pending--;
	}
	th->burst = BP_NONE;
	if (th->burst_mask_saved) {
		th->burst_mask_saved = false;
		if (sched_setaffinity(th->tid, sizeof(th->burst_mask), &th->burst_mask) < 0 &&
		    errno != ESRCH)
			perror_msg("cannot give thread %d its CPU affinity back after a burst",
				   th->tid);
	}
}

/* The warm-up is done: the measured unit begins; or that is done too. */
static void
burst_phase_done(struct tracer *t, struct tthread *th)
{
	if (th->burst == BP_WARMUP) {
		push_burst(t, th, BURST_MEASURE);
		th->burst = BP_MEASURE;
		th->burst_left = t->opt.sample.burst_unit;
	} else {
		burst_finish(t, th, BURST_END);
	}
}

static void resume(struct tracer *t, struct tthread *th);

/*
 * The thread interrupted for a burst has stopped: step it from here (on
 * the tracer's CPU, where a step costs a third of what it costs across
 * CPUs, performance.md §2).
 */
static void resume_free(struct tracer *t, struct tthread *th);

static void
burst_begin(struct tracer *t, struct tthread *th)
{
	const struct sample_options *o = &t->opt.sample;

	if (read_sigmask(th->proc->pid, th->tid, "SigBlk:") & (1ULL << (SIGTRAP - 1))) {
		/* In its own SIGTRAP handler (or it blocks SIGTRAP): a step
		 * would reset the handler (resume_trap_blocked()). */
		burst_finish(t, th, BURST_ABORT);
		resume_free(t, th);
		return;
	}
	if (t->cpu >= 0 &&
	    sched_getaffinity(th->tid, sizeof(th->burst_mask), &th->burst_mask) == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		th->burst_mask_saved = sched_setaffinity(th->tid, sizeof(set), &set) == 0;
	}
	t->burst_pending--;
	if (t->bursting++ == 0) {
		block_sigchld(true);
		burst_ticks(t, true);
	}
	th->burst = BP_WARMUP;
	th->burst_left = o->burst_warmup;
	push_burst(t, th, BURST_WARMUP);
	if (th->burst_left == 0)
		burst_phase_done(t, th);
	/* As after an attach: the first trap may report a syscall's exit. */
	th->check_next_trap = true;
	th->have_pending = false;
	th->regs_valid = false;
	resume(t, th);
}

/* A sample was pushed (sampler_drain()'s callback): start a burst on its
 * thread if one is due. */
static void
on_sample(void *arg, pid_t pid, pid_t tid, uint64_t time_ns)
{
	struct tracer *t = arg;
	struct tthread *th;
	uint64_t now;
	bool due;

	(void)pid;
	if (t->opt.sample.no_bursts)
		return;
	due = burst_budget_due(&t->budget, time_ns);
	if (t->bursting || t->burst_pending || !due)
		return;
	now = mono_ns();
	if (!burst_budget_room(&t->budget, now))
		return;
	th = thread_find(t, tid);
	if (!th || th->state != TS_RUNNING || th->burst != BP_NONE)
		return;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0)
		return;
	th->burst = BP_WANTED;
	th->burst_t0 = now;
	t->burst_pending++;
	burst_budget_next(&t->budget, now);
}

static void
commit(struct tracer *t, struct tthread *th, uint64_t next_pc)
{
	struct insn_event *ev = &th->pending;
	struct decode_cache *dc = th->proc->dc;
	size_t sz;
	void *p;

	th->have_pending = false;
	ev->next_pc = next_pc;
	ev->flags &= ~EV_NEXT_UNKNOWN;
	if ((ev->flags & EV_REP) &&
	    !(th->last_rep && th->last_pc == ev->pc && th->last_next_pc == ev->pc))
		ev->flags |= EV_REP_FIRST;
	th->last_rep = (ev->flags & EV_REP) != 0;
	th->last_pc = ev->pc;
	th->last_next_pc = next_pc;
	for (unsigned i = 0; i < ev->n_mem; i++)
		if (ev->mem[i].dir == MEM_WRITE && !(ev->mem[i].flags & MEMF_PHANTOM) &&
		    decode_cache_overlaps(dc, ev->mem[i].addr, ev->mem[i].size))
			decode_cache_invalidate(dc, ev->mem[i].addr, ev->mem[i].size);
	if ((ev->flags & EV_SYSCALL) && ev->sys.nr == SYS_rt_sigaction && ev->sys.arg[0] == SIGTRAP)
		th->proc->catches_trap = read_sigmask(th->proc->pid, th->tid, "SigCgt:") &
					 (1ULL << (SIGTRAP - 1));
	sz = insn_event_size(ev);
	p = ring_reserve(t->ring, TREC_EVENT, sz);
	memcpy(p, ev, sz);
	ring_commit(t->ring);
	if (t->opt.live_steps)
		atomic_store_explicit(t->opt.live_steps, t->st.steps + 1, memory_order_relaxed);
	if ((++t->st.steps & 4095) == 0 && (!t->opt.quiet || t->opt.progress))
		show_progress(t, false);
	if (th->burst >= BP_WARMUP && --th->burst_left == 0)
		burst_phase_done(t, th);
}

static int
get_regs(struct tthread *th)
{
	if (th->regs_valid)
		return 0;
	if (ptrace(PTRACE_GETREGS, th->tid, NULL, &th->regs) < 0)
		return -1;
	th->regs_valid = true;
	return 0;
}

/* Build the pending event from th->regs. */
static void
build_pending(struct tracer *t, struct tthread *th)
{
	struct user_regs_struct *regs = &th->regs;
	struct decode_cache *dc = th->proc->dc;
	const struct insn_info *ii;
	const struct vec_state *vec = NULL;
	long long rax = (long long)regs->rax;

	/* At a stop inside the kernel's signal handling an interrupted
	 * syscall has not been restarted yet: without a handler to run it
	 * will be, from the syscall instruction. */
	if ((long long)regs->orig_rax >= 0 &&
	    (rax == -ERESTARTSYS_ || rax == -ERESTARTNOINTR_ ||
	     rax == -ERESTARTNOHAND_ || rax == -ERESTART_RESTARTBLOCK_)) {
		regs->rip -= 2;
		regs->rax = rax == -ERESTART_RESTARTBLOCK_ ? SYS_restart_syscall : regs->orig_rax;
	}
	ii = decode_cache_lookup(dc, regs->rip);
	if (!ii) {
		uint8_t buf[INSN_MAX_BYTES + 1];
		ssize_t n = read_code(th->proc, th->tid, regs->rip, buf, INSN_MAX_BYTES);

		if (n < 0)
			n = 0;
		ii = decode_cache_insert(dc, regs->rip, buf, (size_t)n);
		t->st.decode_misses++;
		publish_insn(t, ii);
	}
	if (insn_needs_vector_state(ii))
		vec = read_vec_state(t, th->tid);
	insn_eval(ii, regs, vec, (uint32_t)th->tid, &th->pending);
	th->have_pending = true;
	if ((ii->flags & INSN_SYSCALL) && ii->len >= 2 && ii->bytes[ii->len - 2] == 0x0f &&
	    ii->bytes[ii->len - 1] == 0x05 && th->pending.n_mem == 0) {
		/* `syscall` (not int 0x80, sysenter): the call it makes,
		 * for the analyzers (event.h). */
		th->pending.flags |= EV_SYSCALL;
		th->pending.sys.nr = regs->rax;
		th->pending.sys.arg[0] = regs->rdi;
		th->pending.sys.arg[1] = regs->rsi;
		th->pending.sys.arg[2] = regs->rdx;
		th->pending.sys.arg[3] = regs->r10;
		th->pending.sys.arg[4] = regs->r8;
		th->pending.sys.arg[5] = regs->r9;
	}
	if (ii->flags & INSN_SYSCALL) {
		/* Code may go away or change protection: forget it first. */
		switch (regs->rax) {
		case SYS_munmap:
		case SYS_mprotect:
		case SYS_mremap:
		case SYS_pkey_mprotect:
		case SYS_madvise:
			decode_cache_invalidate(dc, regs->rdi, regs->rsi);
			break;
		case SYS_mmap:
			/* A fixed mapping replaces whatever was there. */
			if (regs->r10 & (MAP_FIXED | MAP_FIXED_NOREPLACE))
				decode_cache_invalidate(dc, regs->rdi, regs->rsi);
			break;
		}
	}
}

/* ---- leapfrog ---- */

/*
 * Where the pending instruction goes next, if leapfrog can take it there
 * exactly: its fall-through, its branch target (the outcome is known from
 * the flags), a register's value, or a ret's / jmp [m]'s / call [m]'s
 * target read from memory now.  0: single-step it.
 */
static uint64_t
leap_successor(struct tracer *t, struct tthread *th)
{
	const struct insn_event *ev = &th->pending;
	const struct insn_info *ii = ev->info;
	uint64_t next = ev->next_pc;

	if ((ii->flags & (INSN_INVALID | INSN_REP | INSN_SYSCALL | INSN_XBEGIN_XEND)) ||
	    ii->branch == BR_OTHER || ii->len == 0)
		return 0;
	if (ev->flags & EV_NEXT_UNKNOWN) {
		const struct mem_access *m = NULL;
		uint8_t target[8];

		if (ii->branch == BR_RET ? ii->iclass != t->ic_ret_near :
		    (ii->branch != BR_JUMP && ii->branch != BR_CALL) ||
		    ii->iclass == t->ic_jmp_far || ii->iclass == t->ic_call_far)
			return 0;
		for (unsigned i = 0; i < ev->n_mem; i++)
			if (ev->mem[i].dir == MEM_READ) {
				m = &ev->mem[i];
				break;
			}
		if (!m || m->size != 8 ||
		    read_code(th->proc, th->tid, m->addr, target, 8) != 8)
			return 0;
		memcpy(&next, target, 8);
	}
	if (next == ev->pc || next == 0)
		return 0;	/* a one-instruction loop: TF tells the iterations apart */
	/* An instruction that reads or writes the breakpoint's byte would see
	 * or overwrite the int3. */
	for (unsigned i = 0; i < ev->n_mem; i++)
		if (next - ev->mem[i].addr < ev->mem[i].size)
			return 0;
	return next;
}

/*
 * The program's bytes of [lo, hi) from the decode cache: instructions
 * decoded back to back from lo (a loop body just run, a fall-through).
 * False if an instruction there is not cached.
 */
static bool
cached_bytes(struct decode_cache *dc, uint64_t lo, uint64_t hi, uint8_t *buf)
{
	for (uint64_t a = lo; a < hi;) {
		const struct insn_info *ii = decode_cache_lookup(dc, a);
		uint64_t n;

		if (!ii || ii->len == 0 || (ii->flags & INSN_INVALID))
			return false;
		n = ii->len < hi - a ? ii->len : hi - a;
		memcpy(buf + (a - lo), ii->bytes, n);
		a += n;
	}
	return true;
}

#define LEAP_SPAN 64	/* longest single write that moves the breakpoint */

/*
 * Put the int3 on next, and take it off the pending instruction if the
 * thread stands there having just hit it.  When both addresses are close
 * (a fall-through, a short loop's back edge) one pwrite does both, its
 * bytes taken from the decode cache; else one write takes the old int3
 * out and one puts the new one in.  The original byte comes from the
 * decode cache, which the successor's decode fills: nothing is read back.
 * Returns false if the breakpoint cannot be placed.
 */
static bool
leap_arm(struct tracer *t, struct tthread *th, uint64_t next)
{
	struct tproc *p = th->proc;
	const struct insn_info *ni;
	uint8_t buf[LEAP_SPAN];
	static const uint8_t int3 = 0xcc;
	uint64_t old = p->bp_addr;
	bool moved = false;

	if (old == next)
		return true;
	ni = decode_cache_lookup(p->dc, next);
	if (!ni) {
		ssize_t n = read_code(p, th->tid, next, buf, INSN_MAX_BYTES);

		if (n <= 0)
			return false;	/* unmapped: TF, and the fault comes as usual */
		ni = decode_cache_insert(p->dc, next, buf, (size_t)n);
		t->st.decode_misses++;
		publish_insn(t, ni);
	}
	if (ni->len == 0)
		return false;
	if (old) {
		uint64_t lo = old < next ? old : next;
		uint64_t hi = (old > next ? old : next) + 1;

		if (hi - lo <= LEAP_SPAN && cached_bytes(p->dc, lo, hi, buf)) {
			buf[old - lo] = p->bp_orig;
			buf[next - lo] = int3;
			if (poke_bytes(p, lo, buf, hi - lo) < 0)
				return false;
			moved = true;
		} else {
			bp_remove(p);
		}
	}
	if (!moved && poke_bytes(p, next, &int3, 1) < 0)
		return false;
	p->bp_addr = next;
	p->bp_orig = ni->bytes[0];
	return true;
}

/* A stop other than the breakpoint while leaping (a signal, an exit): the
 * pending instruction ran if the thread stands on its successor; if it
 * stands right after the int3, the int3 ran too and its SIGTRAP is still
 * queued.  The breakpoint comes out either way. */
static void
leap_interrupted(struct tracer *t, struct tthread *th)
{
	struct tproc *p = th->proc;

	th->leaping = false;
	if (get_regs(th) == 0 && p->bp_addr) {
		if (th->regs.rip == p->bp_addr + 1) {
			th->regs.rip = p->bp_addr;
			th->rip_rewind = true;
			th->rewind_to = p->bp_addr;
			th->eat_sigtrap = true;
		}
		if (th->have_pending && th->regs.rip == p->bp_addr)
			commit(t, th, th->regs.rip);
	}
	bp_remove(p);
}

/* RIP back on leapfrog's int3 if the thread ran into it (rip_rewind). */
static void
rewind_rip(struct tthread *th)
{
	if (!th->rip_rewind)
		return;
	th->rip_rewind = false;
	if (ptrace(PTRACE_POKEUSER, th->tid, offsetof(struct user_regs_struct, rip),
		   (void *)th->rewind_to) < 0 && errno != ESRCH)
		perror_msg("PTRACE_POKEUSER (rip) of thread %d", th->tid);
}

/*
 * Resume a thread without stepping it (PTRACE_CONT, PTRACE_SYSCALL), with
 * the signal it is to get: leapfrog's int3 out first, RIP back on it if
 * the thread ran into it, nothing pending.
 */
static void
resume_unstepped(struct tracer *t, struct tthread *th, int request, const char *name)
{
	int sig = th->inject_sig;

	bp_remove(th->proc);
	rewind_rip(th);
	th->inject_sig = 0;
	th->have_pending = false;
	th->skip_build = false;
	th->regs_valid = false;
	th->leaping = false;
	th->state = TS_RUNNING;
	if (sig)
		t->st.signals++;
	if (ptrace(request, th->tid, NULL, (void *)(long)sig) < 0 && errno != ESRCH)
		perror_msg("%s of thread %d", name, th->tid);
}

/* Sample mode: let a thread run freely, with the signal it is to get. */
static void
resume_free(struct tracer *t, struct tthread *th)
{
	resume_unstepped(t, th, PTRACE_CONT, "PTRACE_CONT");
}

/* Resume a stopped thread for one step: by leapfrog where it can, else by
 * the trap flag.  In sample mode, outside a burst: freely. */
static void resume(struct tracer *t, struct tthread *th);

/*
 * SIGTRAP and a program that handles it.  Every trap of ours (the trap
 * flag's, leapfrog's int3) is a SIGTRAP the kernel forces on the thread:
 * if the thread blocks SIGTRAP at that moment (it does in its own SIGTRAP
 * handler, in code that blocks every signal around a system call, as
 * raise() does), the kernel resets the handler to the default and
 * unblocks SIGTRAP (force_sig_info), and the program's next SIGTRAP
 * kills it.  So for a process with a SIGTRAP handler:
 *  - a system call that may block SIGTRAP (rt_sigprocmask, rt_sigreturn)
 *    is stepped by its entry and exit stops, which force nothing;
 *  - a signal is delivered with PTRACE_SYSCALL: its handler runs;
 *  - while SIGTRAP is blocked after either, the thread runs untraced
 *    from system call to system call, until one's exit finds SIGTRAP
 *    unblocked: then stepping goes on.
 * Its instructions meanwhile are not traced (untraced_spans, said once).
 * A process without a SIGTRAP handler loses nothing to the reset (its
 * SIGTRAP is the default already), only the unblocking.
 */
static void
resume_untraced(struct tracer *t, struct tthread *th)
{
	if (!th->trap_blocked) {
		th->trap_blocked = true;
		th->in_syscall = false;
		t->st.untraced_spans++;
		if (!t->warned_trap_handler) {
			t->warned_trap_handler = true;
			warning_msg("pid %d handles SIGTRAP: its instructions while it blocks SIGTRAP "
				    "(in a signal handler, around a system call) are not traced, as a "
				    "step there would reset its handler (README, 'SIGTRAP')",
				    th->proc->pid);
		}
	}
	resume_unstepped(t, th, PTRACE_SYSCALL, "PTRACE_SYSCALL");
}

static bool
sigtrap_blocked(struct tthread *th)
{
	return read_sigmask(th->proc->pid, th->tid, "SigBlk:") & (1ULL << (SIGTRAP - 1));
}

/* Whether the pending instruction is a system call to step by its stops. */
static bool
step_by_syscall(const struct tthread *th)
{
	return th->proc->catches_trap && th->have_pending && (th->pending.flags & EV_SYSCALL) &&
	       (th->pending.sys.nr == SYS_rt_sigprocmask || th->pending.sys.nr == SYS_rt_sigreturn);
}

/*
 * A system call stop (SIGTRAP | 0x80) of a thread stepped by its system
 * calls or running untraced: at an exit, the stepped call is committed,
 * and stepping goes on if SIGTRAP is unblocked.
 */
static void
syscall_stop(struct tracer *t, struct tthread *th)
{
	th->in_syscall = !th->in_syscall;
	if (th->in_syscall) {
		th->state = TS_RUNNING;
		if (ptrace(PTRACE_SYSCALL, th->tid, NULL, NULL) < 0 && errno != ESRCH)
			perror_msg("PTRACE_SYSCALL of thread %d", th->tid);
		return;
	}
	if (th->sysstep) {
		th->sysstep = false;
		if (th->have_pending && get_regs(th) == 0)
			commit(t, th, th->regs.rip);
		th->have_pending = false;
	}
	if (sigtrap_blocked(th)) {
		resume_untraced(t, th);
		return;
	}
	th->trap_blocked = false;
	th->check_next_trap = true;
	resume(t, th);
}

static void
resume(struct tracer *t, struct tthread *th)
{
	int sig = th->inject_sig;
	struct tproc *p = th->proc;
	bool leap = false;

	if (t->sampler && th->burst < BP_WARMUP) {
		resume_free(t, th);
		return;
	}
	if (th->trap_blocked) {
		resume_untraced(t, th);
		return;
	}
	if (th->skip_build) {
		th->skip_build = false;
		th->have_pending = false;
	} else if (!th->have_pending && get_regs(th) == 0) {
		build_pending(t, th);
	}
	if (t->opt.step == STEP_LEAPFROG && !sig && th->have_pending && p->nthreads == 1 &&
	    !p->no_leap && !th->eat_sigtrap) {
		uint64_t next = leap_successor(t, th);

		leap = next && leap_arm(t, th, next);
	}
	if (!leap)
		bp_remove(p);
	rewind_rip(th);
	th->inject_sig = 0;
	th->regs_valid = false;
	th->state = TS_RUNNING;
	th->leaping = leap;
	if (sig)
		t->st.signals++;
	if (leap) {
		t->st.leap_steps++;
		if (ptrace(PTRACE_CONT, th->tid, NULL, NULL) < 0 && errno != ESRCH)
			perror_msg("PTRACE_CONT of thread %d", th->tid);
	} else if (!sig && step_by_syscall(th)) {
		th->sysstep = true;
		th->in_syscall = false;
		if (ptrace(PTRACE_SYSCALL, th->tid, NULL, NULL) < 0 && errno != ESRCH)
			perror_msg("PTRACE_SYSCALL of thread %d", th->tid);
	} else {
		th->step_owed = true;
		if (ptrace(PTRACE_SINGLESTEP, th->tid, NULL, (void *)(long)sig) < 0 &&
		    errno != ESRCH)
			perror_msg("PTRACE_SINGLESTEP of thread %d", th->tid);
	}
}

/*
 * Whether a SIGTRAP someone sent (kill, tgkill, sigqueue: si_code <= 0)
 * rather than a trap of the CPU: the program's own signal, to deliver.
 * Asked only where one can hide behind a step (after a system call).
 */
static bool
sent_sigtrap(struct tthread *th)
{
	siginfo_t si;

	return ptrace(PTRACE_GETSIGINFO, th->tid, NULL, &si) == 0 && si.si_code <= 0;
}

static bool
is_int_insn(const struct insn_info *ii)
{
	return ii->bytes[0] == 0xcc || ii->bytes[0] == 0xcd || ii->bytes[0] == 0xf1;
}

static void on_signal(struct tracer *t, struct tthread *th, int sig);

/* A SIGTRAP stop: the step finished, or a syscall-exit report, or the
 * program's own breakpoint. */
static void
on_sigtrap(struct tracer *t, struct tthread *th)
{
	bool check = th->check_next_trap;

	th->check_next_trap = false;
	th->step_owed = false;
	if (get_regs(th) < 0)
		return;
	if (th->entering_handler) {
		/* The handler's mask is in effect now: if it blocks SIGTRAP,
		 * a step in it would reset the program's SIGTRAP handler. */
		th->entering_handler = false;
		if (th->proc->catches_trap && sigtrap_blocked(th)) {
			th->have_pending = false;
			resume_untraced(t, th);
			return;
		}
	}
	if (th->leaping) {
		struct tproc *p = th->proc;

		th->leaping = false;
		if (p->bp_addr && th->regs.rip == p->bp_addr + 1) {
			/* Our int3: the pending instruction ran and went
			 * where we said.  Back onto the breakpoint's address. */
			th->regs.rip = p->bp_addr;
			th->rip_rewind = true;
			th->rewind_to = p->bp_addr;
			if (th->have_pending)
				commit(t, th, p->bp_addr);
			resume(t, th);
			return;
		}
		/* A SIGTRAP someone sent. */
		leap_interrupted(t, th);
		on_signal(t, th, SIGTRAP);
		return;
	}
	if (th->eat_sigtrap) {
		/* The queued trap of an int3 already accounted for. */
		th->eat_sigtrap = false;
		resume(t, th);
		return;
	}
	if (th->have_pending) {
		const struct insn_info *ii = th->pending.info;
		bool executed = true;

		if (ii->flags & INSN_SYSCALL) {
			/* It ran.  A SIGTRAP it sent (raise(SIGTRAP)) comes
			 * as this very stop: a second SIGTRAP pending merges
			 * with the first, so the step's trap hides in it. */
			executed = true;
			if (sent_sigtrap(th))
				th->inject_sig = SIGTRAP;
			/* A process-wide SIGTRAP it sent (kill) is pending
			 * beside the step's and comes as the next stop. */
			th->check_next_trap = true;
		} else if (check || is_int_insn(ii)) {
			siginfo_t si;

			if (ptrace(PTRACE_GETSIGINFO, th->tid, NULL, &si) < 0)
				return;
			if (si.si_code == TRAP_TRACE) {
				executed = true;
			} else if (si.si_code == SI_KERNEL && is_int_insn(ii)) {
				th->inject_sig = SIGTRAP;	/* the program's own int3 */
			} else {
				executed = false;
				if (si.si_code <= 0)	/* sent: kill, tgkill, sigqueue */
					th->inject_sig = SIGTRAP;
			}
		}
		if (executed)
			commit(t, th, th->regs.rip);
		th->have_pending = false;
	}
	if (th->inject_sig == SIGTRAP && th->proc->catches_trap) {
		/* Its handler runs first: nothing to build before it. */
		th->skip_build = true;
		th->entering_handler = true;
	}
	resume(t, th);
}

static void
on_signal(struct tracer *t, struct tthread *th, int sig)
{
	uint64_t caught = read_sigmask(th->proc->pid, th->tid, "SigCgt:");

	th->inject_sig = sig;
	if (caught & (1ULL << (sig - 1))) {
		/* The handler runs first; the kernel stops at its entry. */
		th->skip_build = true;
		th->entering_handler = true;
	} else if (th->have_pending) {
		/* Not yet run; still the next instruction (the signal is
		 * ignored, stops the process, or kills it). */
	}
	resume(t, th);
}

static void
on_event(struct tracer *t, struct tthread *th, int event)
{
	unsigned long msg = 0;

	ptrace(PTRACE_GETEVENTMSG, th->tid, NULL, &msg);
	switch (event) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK: {
		pid_t ntid = (pid_t)msg;
		struct tthread *nt = thread_find(t, ntid);

		if (!nt) {
			pid_t tgid = event == PTRACE_EVENT_CLONE ? read_tgid(ntid) : ntid;
			struct tproc *p = tgid == th->proc->pid ? th->proc : proc_new(t, ntid);

			p->catches_trap = th->proc->catches_trap;	/* handlers are inherited */

			if (event == PTRACE_EVENT_CLONE && p != th->proc)
				p->no_leap = th->proc->no_leap = true;	/* CLONE_VM, likely */
			nt = thread_new(t, p, ntid, th->tid);
			nt->check_next_trap = true;
		}
		if (!nt->mask_saved && th->mask_saved) {
			/* born pinned: its own affinity is its creator's */
			nt->mask_saved = true;
			nt->orig_mask = th->orig_mask;
		}
		break;
	}
	case PTRACE_EVENT_EXEC: {
		pid_t former = (pid_t)msg;

		/* A new image: the burst's unit would mix two programs. */
		if (th->burst >= BP_WARMUP)
			burst_finish(t, th, BURST_ABORT);

		if (former != th->tid) {
			/* A non-leader thread exec'd and took the leader's
			 * tid: its state moves to the leader's entry. */
			struct tthread *ft = thread_find(t, former);

			if (ft) {
				th->have_pending = ft->have_pending;
				th->pending = ft->pending;
				th->pending.tid = (uint32_t)th->tid;
				push_thread_rec(t, TT_EXIT, ft->proc->pid, former, 0, 0);
				thread_del(t, ft);
			}
		}
		decode_cache_flush(th->proc->dc);
		if (th->proc->mem_fd >= 0) {
			close(th->proc->mem_fd);
			th->proc->mem_fd = -1;
		}
		if (th->proc->wfd >= 0) {
			close(th->proc->wfd);
			th->proc->wfd = -1;
		}
		th->proc->bp_addr = 0;	/* a new image; it was out anyway (TF on syscalls) */
		th->proc->catches_trap = false;	/* exec resets handlers */
		push_thread_rec(t, TT_EXEC, th->proc->pid, th->tid, 0, 0);
		th->check_next_trap = true;
		break;
	}
	case PTRACE_EVENT_EXIT:
		/* A syscall that entered the kernel (exit, exit_group, or one
		 * another thread's exit_group cut short) did run. */
		if (th->have_pending && (th->pending.info->flags & INSN_SYSCALL) &&
		    get_regs(th) == 0 && (long long)th->regs.orig_rax >= 0 &&
		    th->regs.rip == th->pending.pc + th->pending.info->len)
			commit(t, th, th->regs.rip);
		burst_finish(t, th, BURST_ABORT);
		th->have_pending = false;
		th->state = TS_RUNNING;
		ptrace(PTRACE_CONT, th->tid, NULL, NULL);
		return;
	case PTRACE_EVENT_STOP:
		th->check_next_trap = true;
		break;
	}
	resume(t, th);
}

static void
thread_exited(struct tracer *t, struct tthread *th, int status)
{
	struct tproc *p = th->proc;

	if (th->tid == t->main_pid) {
		t->main_done = true;
		t->main_status = status;
	}
	burst_finish(t, th, BURST_ABORT);
	push_thread_rec(t, TT_EXIT, p->pid, th->tid, 0, status);
	thread_del(t, th);
}

static bool
is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Whether the SIGTRAP stop of th is a single-step's trap (TRAP_TRACE). */
static bool
step_trap(struct tthread *th)
{
	siginfo_t si;

	return ptrace(PTRACE_GETSIGINFO, th->tid, NULL, &si) == 0 && si.si_code == TRAP_TRACE;
}

/*
 * Sample mode: a stop of a thread that runs freely (not in a burst).
 * The interrupt asked for a burst starts it; signals are delivered, event
 * stops kept track of, group-stops listened to, and the thread let go.
 */
static void
free_stop(struct tracer *t, struct tthread *th, int sig, int event)
{
	if (event == PTRACE_EVENT_STOP) {
		if (is_stop_signal(sig)) {
			burst_finish(t, th, BURST_ABORT);	/* the burst cannot wait */
			th->state = TS_LISTENING;
			ptrace(PTRACE_LISTEN, th->tid, NULL, NULL);
		} else if (th->burst == BP_WANTED) {
			burst_begin(t, th);
		} else {
			resume_free(t, th);
		}
		return;
	}
	if (event) {
		on_event(t, th, event);
		return;
	}
	if (sig == SIGTRAP && th->eat_sigtrap) {
		th->eat_sigtrap = false;	/* leapfrog's int3, queued at a burst's end */
	} else if (sig == SIGTRAP && th->step_owed && step_trap(th)) {
		/* The trap of a step in flight when its burst was cut short
		 * (interrupted, detached): ours, not the program's. */
		th->step_owed = false;
	} else if (sig != (SIGTRAP | 0x80)) {
		th->inject_sig = sig;
	}
	resume_free(t, th);
}

static void
handle_stop(struct tracer *t, pid_t pid, int status)
{
	struct tthread *th = thread_find(t, pid);

	t->st.stops++;
	if (!th) {
		/* A new thread reporting before its creator's clone event. */
		pid_t tgid = read_tgid(pid);
		struct tproc *p = proc_find(t, tgid);

		if (!p)
			p = proc_new(t, pid);
		th = thread_new(t, p, pid, 0);
		th->check_next_trap = true;
	}
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		thread_exited(t, th, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	th->regs_valid = false;

	int sig = WSTOPSIG(status);
	int event = status >> 16;

	if (th->leaping && (event || sig != SIGTRAP))
		leap_interrupted(t, th);
	if (th->burst_late && event == PTRACE_EVENT_STOP && !is_stop_signal(sig)) {
		/* The interrupt of a burst given up (sample_loop()). */
		burst_finish(t, th, BURST_ABORT);
		resume_free(t, th);
		return;
	}
	if (t->sampler && th->burst < BP_WARMUP) {
		free_stop(t, th, sig, event);
		return;
	}
	if (event == PTRACE_EVENT_STOP && is_stop_signal(sig)) {
		/* Group-stop: stay stopped, but keep reporting.  A burst
		 * cannot wait for the SIGCONT. */
		burst_finish(t, th, BURST_ABORT);
		th->state = TS_LISTENING;
		ptrace(PTRACE_LISTEN, pid, NULL, NULL);
		return;
	}
	if (event) {
		on_event(t, th, event);
	} else if (sig == SIGTRAP) {
		on_sigtrap(t, th);
	} else if (sig == (SIGTRAP | 0x80)) {
		if (th->trap_blocked || th->sysstep)
			syscall_stop(t, th);
		else
			resume(t, th);
	} else {
		on_signal(t, th, sig);
	}
}

/* ---- launch and attach ---- */

/*
 * The client's resource limits for the program.  A hard limit above ours
 * cannot be given without CAP_SYS_RESOURCE (the daemon's tracer process
 * raised its own while it could): then the program gets ours, never more
 * than the client's, and the client is told.  0, or -1 with errno set.
 */
static int
set_client_limits(const struct tracer_launch_env *le)
{
	static const char *const names[RLIM_NLIMITS] = {
		[RLIMIT_CPU] = "cpu time", [RLIMIT_FSIZE] = "file size",
		[RLIMIT_DATA] = "data size", [RLIMIT_STACK] = "stack size",
		[RLIMIT_CORE] = "core size", [RLIMIT_NOFILE] = "open files",
		[RLIMIT_AS] = "address space", [RLIMIT_NPROC] = "processes",
		[RLIMIT_MEMLOCK] = "locked memory",
	};

	for (int r = 0; r < RLIM_NLIMITS; r++) {
		struct rlimit want = le->rlimits[r], cur;

		if (setrlimit(r, &want) == 0)
			continue;
		if (errno != EPERM || getrlimit(r, &cur) < 0 || want.rlim_max <= cur.rlim_max)
			return -1;
		want.rlim_max = cur.rlim_max;
		if (want.rlim_cur > want.rlim_max)
			want.rlim_cur = want.rlim_max;
		if (setrlimit(r, &want) < 0)
			return -1;
		warning_msg("your hard limit of %s (resource %d) is above micad's, which cannot "
			    "raise it (no CAP_SYS_RESOURCE): the program gets micad's, %llu",
			    names[r] ? names[r] : "a resource", r,
			    (unsigned long long)want.rlim_max);
	}
	return 0;
}

/*
 * In the child, before exec: what micad changed for itself must not leak
 * into the program (signal dispositions it ignores, a blocked signal mask:
 * both survive exec), then the daemon's launch environment.  Returns 0,
 * or the stage that failed with errno set.
 */
int
tracer_launch_prepare(const struct tracer_launch_env *le)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2,
				    SIGCHLD, SIGQUIT };
	extern char **environ;
	sigset_t none;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* A tracer that changed credentials is not dumpable, and so would be
	 * its child until exec: the tracer could not seize it. */
	if (prctl(PR_GET_DUMPABLE) == 0)
		prctl(PR_SET_DUMPABLE, 1);
	if (!le)
		return 0;
	for (int fd = 0; fd < 3; fd++)
		if (le->stdio[fd] >= 0 && le->stdio[fd] != fd && dup2(le->stdio[fd], fd) < 0)
			return LAUNCH_STDIO;
	if (le->cwd_fd >= 0 && fchdir(le->cwd_fd) < 0)
		return LAUNCH_CWD;
	if (le->umask >= 0)
		umask((mode_t)le->umask);
	if (le->have_rlimits && set_client_limits(le) < 0)
		return LAUNCH_LIMITS;
	if (le->set_ids) {
		if (setgroups((size_t)le->ngroups, le->groups) < 0 || setgid(le->gid) < 0 ||
		    setuid(le->uid) < 0)
			return LAUNCH_IDS;
	}
	if (le->envp)
		environ = le->envp;
	return 0;
}

/* Say why the child could not become the program. */
void
tracer_launch_failed(const int fail[2], const char *prog)
{
	static const char *const what[] = {
		[LAUNCH_EXEC] = "cannot run",
		[LAUNCH_STDIO] = "cannot give its standard input/output to",
		[LAUNCH_CWD] = "cannot enter the requested working directory for",
		[LAUNCH_IDS] = "cannot take the requested user and groups for",
		[LAUNCH_LIMITS] = "cannot give your resource limits (ulimit) to",
	};

	errno = fail[1];
	perror_msg("%s '%s'", what[fail[0] > 0 && fail[0] <= LAUNCH_LIMITS ? fail[0] : 1], prog);
}

/* Sample mode (tracer_prepare()): the event and the loop's epoll set. */
int
tracer_prepare(struct tracer *t)
{
	if (!t->opt.sample.enabled || t->sampler)
		return 0;
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epfd < 0) {
		perror_msg("epoll_create1");
		return -1;
	}
	t->sampler = sampler_new(&t->opt.sample, t->ring, t->epfd);
	if (!t->sampler)
		return -1;
	fprintf(stderr, "%s: %s\n", program_name, sampler_event(t->sampler)->note);
	fflush(stderr);
	sampler_push_note(t->sampler);
	return 0;
}

int
tracer_launch(struct tracer *t, char *const argv[])
{
	int go[2], err[2];
	pid_t pid;
	char c = 0;
	int fail[2];	/* the child's enum launch_stage and errno */
	ssize_t n;

	if (t->vg) {
		if (vg_engine_launch(t->vg, argv) < 0)
			return -1;
		t->main_pid = vg_engine_main_pid(t->vg);
		main_pidfd = vg_engine_main_pidfd(t->vg);
		return 0;
	}
	if (tracer_prepare(t) < 0)
		return -1;
	t->launched = true;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		perror_msg("pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror_msg("fork");
		return -1;
	}
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		if (t->cpu >= 0 && !t->sampler) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(t->cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		} else if (t->sampler && t->own_mask_saved) {
			/* Sample mode: the program runs where it would
			 * without micad (bursts pin it for their length). */
			sched_setaffinity(0, sizeof(t->own_mask), &t->own_mask);
		}
		/* Ready (LAUNCH_OK) or why not: the tracer seizes us only
		 * once we are traceable. */
		fail[0] = tracer_launch_prepare(t->opt.launch);
		fail[1] = errno;
		if (write(err[1], fail, sizeof(fail)) < 0 || fail[0] != LAUNCH_OK)
			_exit(127);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fail[0] = LAUNCH_EXEC;
		fail[1] = errno;
		if (write(err[1], fail, sizeof(fail)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	do
		n = read(err[0], fail, sizeof(fail));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(fail) || fail[0] != LAUNCH_OK) {
		if (n != sizeof(fail))
			error_msg("cannot start '%s': the new process died before its exec", argv[0]);
		else
			tracer_launch_failed(fail, argv[0]);
		close(go[1]);
		close(err[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)(t->options | PTRACE_O_EXITKILL)) < 0) {
		perror_msg("cannot trace the program started (PTRACE_SEIZE of pid %d)", pid);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	/* Sampled from its execve on. */
	if (t->sampler && sampler_add_thread(t->sampler, pid, pid, true) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		return -1;
	}
	t->main_pid = pid;
	/* Our child, not reaped before the loop: surely this process. */
	main_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	{
		struct tthread *th = thread_new(t, proc_new(t, pid), pid, 0);

		/* It would have run where micad ran before pinning itself. */
		if (t->cpu >= 0 && !t->sampler && t->own_mask_saved) {
			th->orig_mask = t->own_mask;
			th->mask_saved = true;
		}
	}
	if (write(go[1], &c, 1) != 1)
		perror_msg("pipe write");
	close(go[1]);
	n = read(err[0], fail, sizeof(fail));
	close(err[0]);
	if (n == sizeof(fail)) {
		int status;

		tracer_launch_failed(fail, argv[0]);
		while (waitpid(pid, &status, __WALL) == pid && !WIFEXITED(status) && !WIFSIGNALED(status))
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		return -1;
	}
	if (t->opt.started)
		t->opt.started(t->opt.started_arg, pid);
	return 0;
}

/* Why PTRACE_SEIZE of pid failed with EPERM, the way strace says it: the
 * kernel's rules (ptrace(2), "Ptrace access mode checking") one by one. */
static void
explain_eperm(pid_t pid)
{
	char path[64], line[256];
	int tracer = 0;
	unsigned uid = 0;
	unsigned long long their_caps = 0, my_caps = 0;
	bool have_uid = false, have_caps = false;
	int kthread = 0;
	char state = 0;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			sscanf(line, "TracerPid: %d", &tracer);
			sscanf(line, "Kthread: %d", &kthread);
			sscanf(line, "State: %c", &state);
			if (sscanf(line, "Uid: %u", &uid) == 1)
				have_uid = true;
			if (sscanf(line, "CapPrm: %llx", &their_caps) == 1)
				have_caps = true;
		}
		fclose(f);
	}
	if (kthread) {
		error_msg("attach to pid %d: Operation not permitted: it is a kernel thread, which "
			  "runs no program to trace", pid);
		return;
	}
	if (state == 'Z') {
		error_msg("attach to pid %d: Operation not permitted: it is a zombie (it has exited "
			  "and waits for its parent to reap it): there is nothing left to trace", pid);
		return;
	}
	f = fopen("/proc/self/status", "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			sscanf(line, "CapEff: %llx", &my_caps);
		fclose(f);
	}
	if (tracer > 0) {
		error_msg("attach to pid %d: Operation not permitted: it is already traced by "
			  "pid %d (a process has only one tracer: stop the other one first)", pid, tracer);
		return;
	}
	if (have_uid && uid != geteuid() && geteuid() != 0) {
		error_msg("attach to pid %d: Operation not permitted: it belongs to uid %u and you "
			  "are uid %u (trace it as that user, or as root)", pid, uid,
			  (unsigned)geteuid());
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (geteuid() != 0 && stat(path, &st) == 0 && have_uid && st.st_uid != uid) {
		/* /proc/PID's files belong to root while it is not dumpable */
		error_msg("attach to pid %d: Operation not permitted: it is not dumpable (it "
			  "changed credentials, ran a program you may not read, or called "
			  "prctl(PR_SET_DUMPABLE, 0)): only root may trace it, as with strace -p", pid);
		return;
	}
	if (have_caps && (their_caps & ~my_caps)) {
		error_msg("attach to pid %d: Operation not permitted: it holds capabilities you "
			  "do not (CapPrm %llx): only a tracer with all of them, or root, may trace "
			  "it, as with strace -p", pid, their_caps);
		return;
	}
	f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	if (f) {
		int scope = 0;

		if (fscanf(f, "%d", &scope) == 1 && scope > 0) {
			fclose(f);
			error_msg("attach to pid %d: Operation not permitted: kernel.yama.ptrace_scope is %d, "
				  "which %s (as root: sysctl -w kernel.yama.ptrace_scope=0, or launch the "
				  "program with 'micad run')", pid, scope,
				  scope == 1 ? "allows tracing only descendants" :
				  scope == 2 ? "allows tracing only with CAP_SYS_PTRACE" : "forbids all tracing");
			return;
		}
		fclose(f);
	}
	error_msg("attach to pid %d: Operation not permitted: the kernel refused it (a security "
		  "module, or no CAP_SYS_PTRACE for this process)", pid);
}

int
tracer_attach(struct tracer *t, pid_t pid)
{
	struct tthread *th;
	struct tproc *p;
	bool found_new;

	if (t->vg) {
		error_msg("attach to pid %d: the valgrind engine cannot attach to a running "
			  "process (valgrind must start it): use 'run', or attach with "
			  "--engine=ptrace", pid);
		return -EINVAL;
	}
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		error_msg("attach to pid %d: no such process", pid);
		return -ESRCH;
	}
	if (t->opt.sample.enabled) {
		int e;

		if (tracer_prepare(t) < 0)
			return -EINVAL;
		/* A burst must never leave an int3 in a process micad did
		 * not start, should micad die in the middle of it. */
		t->opt.step = STEP_TF;
		/* Its main thread's event first: nothing to undo if the
		 * kernel refuses it. */
		e = sampler_add_thread(t->sampler, pid, pid, false);
		if (e < 0) {
			if (e == -ESRCH)
				error_msg("attach to pid %d: no such process", pid);
			return e;
		}
	}
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)t->options) < 0) {
		int e = errno;

		if (e == EPERM)
			explain_eperm(pid);
		else if (e == ESRCH)
			error_msg("attach to pid %d: no such process", pid);
		else
			perror_msg("attach to pid %d", pid);
		return -e;
	}
	if (t->opt.target_pidfd >= 0 && syscall(SYS_pidfd_send_signal, t->opt.target_pidfd, 0,
						 NULL, 0) < 0) {
		/* The process the client named is gone, and pid is another
		 * one's now: let it go untouched (a seized thread detaches
		 * from a stop). */
		int status;

		if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) == 0 &&
		    waitpid(pid, &status, __WALL) == pid && WIFSTOPPED(status))
			ptrace(PTRACE_DETACH, pid, NULL, NULL);
		error_msg("attach to pid %d: the process you named has exited (pid %d is now "
			  "another process): nothing traced", pid, pid);
		return -ESRCH;
	}
	main_pidfd = t->opt.target_pidfd >= 0 ? t->opt.target_pidfd
		   : (int)syscall(SYS_pidfd_open, pid, 0);
	t->main_pid = pid;
	p = proc_new(t, pid);
	p->catches_trap = read_sigmask(pid, pid, "SigCgt:") & (1ULL << (SIGTRAP - 1));
	th = thread_new(t, p, pid, 0);
	th->check_next_trap = true;
	pin_task(t, th);
	ptrace(PTRACE_INTERRUPT, pid, NULL, NULL);
	/* Threads may be created while we look: list until nothing is new. */
	do {
		char path[64];
		struct dirent *de;
		DIR *d;

		found_new = false;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		d = opendir(path);
		if (!d)
			break;
		while ((de = readdir(d))) {
			pid_t tid = atoi(de->d_name);

			if (tid <= 0 || thread_find(t, tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)t->options) < 0)
				continue;	/* it exited meanwhile */
			th = thread_new(t, p, tid, 0);
			th->check_next_trap = true;
			pin_task(t, th);
			ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
			found_new = true;
		}
		closedir(d);
	} while (found_new);
	if (t->opt.started)
		t->opt.started(t->opt.started_arg, pid);
	return 0;
}

/* ---- detach ---- */

static void
detach_thread(struct tracer *t, struct tthread *th, int sig)
{
	struct tproc *p = th->proc;

	if (ptrace(PTRACE_DETACH, th->tid, NULL, (void *)(long)sig) < 0 && errno != ESRCH)
		perror_msg("PTRACE_DETACH of thread %d", th->tid);
	if (th->mask_saved && sched_setaffinity(th->tid, sizeof(th->orig_mask), &th->orig_mask) < 0 &&
	    errno != ESRCH)
		perror_msg("cannot give thread %d its CPU affinity back", th->tid);
	push_thread_rec(t, TT_DETACH, p->pid, th->tid, 0, 0);
	thread_del(t, th);
}

/*
 * Stop every thread and detach it, delivering any signal it was about to
 * get.  A step trap that fired while we interrupted would reach the
 * program as a real SIGTRAP and kill it: such a queued trap is drained
 * (PTRACE_CONT, then its signal-delivery stop is suppressed) first.
 */
static void
detach_all(struct tracer *t)
{
	for (int i = 0; i < THREAD_HASH; i++)
		for (struct tthread *th = t->threads[i]; th; th = th->hnext) {
			burst_finish(t, th, BURST_ABORT);
			ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL);
		}
	while (t->nthreads > 0) {
		int status;
		pid_t pid = waitpid(-1, &status, __WALL);
		struct tthread *th;

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		th = thread_find(t, pid);
		if (!th) {
			/* A thread born during the detach: traced already. */
			struct tproc *p = proc_find(t, read_tgid(pid));

			if (!p)
				p = proc_new(t, pid);
			th = thread_new(t, p, pid, 0);
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			thread_exited(t, th, status);
			continue;
		}
		int sig = WSTOPSIG(status);
		int event = status >> 16;

		if (th->leaping || th->proc->bp_addr) {
			/* Take leapfrog's int3 out; if the thread ran into it,
			 * put RIP back on it (its SIGTRAP, delivered now or
			 * still queued, is not passed on). */
			struct tproc *p = th->proc;
			struct user_regs_struct r;

			th->leaping = false;
			if (p->bp_addr && ptrace(PTRACE_GETREGS, th->tid, NULL, &r) == 0 &&
			    r.rip == p->bp_addr + 1)
				ptrace(PTRACE_POKEUSER, th->tid, offsetof(struct user_regs_struct, rip),
				       (void *)p->bp_addr);
			bp_remove(p);
		}
		if (event == PTRACE_EVENT_STOP || (event && event != PTRACE_EVENT_EXIT)) {
			if (read_sigmask(th->proc->pid, th->tid, "SigPnd:") & (1ULL << (SIGTRAP - 1))) {
				ptrace(PTRACE_CONT, th->tid, NULL, NULL);
				continue;
			}
			detach_thread(t, th, th->inject_sig);
		} else if (event == PTRACE_EVENT_EXIT) {
			ptrace(PTRACE_CONT, th->tid, NULL, NULL);
		} else if (sig == SIGTRAP) {
			detach_thread(t, th, th->inject_sig);
		} else {
			detach_thread(t, th, sig);
		}
	}
}

/* ---- the loop ---- */

static void
on_sigchld(int sig)
{
	(void)sig;
	wake_loop();
}

static void
on_burst_tick(int sig)
{
	(void)sig;	/* its work is to interrupt waitpid */
}

/* The burst tick: a timer signalling this thread (not the process: it
 * must interrupt this thread's waitpid), with a handler installed
 * without SA_RESTART. */
static void
burst_timer_create(struct tracer *t)
{
	struct sigevent sev;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_burst_tick;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGRTMIN, &sa, NULL) < 0) {
		perror_msg("sigaction of the burst tick (bursts are not given up when stuck)");
		return;
	}
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGRTMIN;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &t->burst_timer) < 0) {
		perror_msg("timer_create of the burst tick (bursts are not given up when stuck)");
		return;
	}
	t->have_burst_timer = true;
}

/* Give up a burst that has taken far longer than bursts take (its thread
 * blocks in a system call, or the machine starves the stepping): it is
 * interrupted, and its stop ends the burst. */
static void
burst_check_late(struct tracer *t)
{
	uint64_t now = mono_ns();
	double late = burst_budget_expected_ns(&t->budget) * BURST_LATE_FACTOR;

	for (int i = 0; i < THREAD_HASH; i++)
		for (struct tthread *th = t->threads[i]; th; th = th->hnext)
			if (th->burst >= BP_WARMUP && !th->burst_late &&
			    (double)(now - th->burst_t0) > late &&
			    ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) == 0)
				th->burst_late = true;
}

/* A tick during bursts (or every so many steps): read the buffers, look
 * for a late burst. */
static void
burst_tick(struct tracer *t)
{
	sampler_drain(t->sampler, on_sample, t);
	burst_check_late(t);
}

/*
 * After --duration: a program micad launched goes on untraced; 'run'
 * still ends with it, so wait for its end (it is our child).
 */
static void
wait_launched(struct tracer *t)
{
	int status;
	pid_t r;

	if (!t->launched || t->main_done)
		return;
	do
		r = waitpid(t->main_pid, &status, 0);
	while (r < 0 && errno == EINTR && !detach_requested);
	if (r == t->main_pid) {
		t->main_done = true;
		t->main_status = status;
	}
}

/*
 * Sample mode's loop: threads run freely, and the loop sleeps in
 * epoll_wait on the sample events' buffers and an eventfd that SIGCHLD
 * (a tracee stopped) and detach requests write; it then reaps the stops
 * without blocking and reads the buffers (where bursts are started).
 * While a burst steps, it waits in waitpid as step mode does (a step is
 * a stop), reading the buffers now and then.
 */
static int
sample_loop(struct tracer *t)
{
	struct epoll_event ee = { .events = EPOLLIN, .data.ptr = t };
	struct sigaction sa, old_sa;
	uint64_t end_ns = 0, k = 0, now0;
	bool timed_out = false;
	int efd, ret = 0;

	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd < 0 || epoll_ctl(t->epfd, EPOLL_CTL_ADD, efd, &ee) < 0) {
		perror_msg("cannot set up the sampling loop (eventfd, epoll_ctl)");
		if (efd >= 0)
			close(efd);
		detach_all(t);
		return -1;
	}
	wake_efd = efd;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old_sa);
	if (!t->opt.sample.no_bursts)
		burst_timer_create(t);
	now0 = mono_ns();
	burst_budget_init(&t->budget, t->opt.sample.overhead,
			  t->opt.sample.burst_unit + t->opt.sample.burst_warmup,
			  sampler_event(t->sampler)->weighting == WEIGHT_INSTRUCTIONS, now0,
			  now0 ^ ((uint64_t)getpid() << 32));
	if (t->opt.sample.duration > 0)
		end_ns = now0 + (uint64_t)(t->opt.sample.duration * 1e9);
	while (t->nthreads > 0) {
		struct epoll_event evs[16];
		uint64_t now;
		int status, n, timeout = 100;
		pid_t pid;

		if (end_ns && mono_ns() >= end_ns)
			timed_out = true;
		if (detach_requested || timed_out) {
			sampler_drain(t->sampler, NULL, NULL);
			detach_all(t);
			break;
		}
		if (t->bursting) {
			pid = waitpid(-1, &status, __WALL);
			if (pid < 0) {
				if (errno == EINTR) {
					burst_tick(t);
					continue;
				}
				if (errno != ECHILD)
					perror_msg("waitpid");
				break;
			}
			handle_stop(t, pid, status);
			/* The tick may not find waitpid to interrupt. */
			if ((++k & 255) == 0)
				burst_tick(t);
			continue;
		}
		if (end_ns) {
			now = mono_ns();
			if (end_ns - now < 100000000ULL)
				timeout = (int)((end_ns - now) / 1000000) + 1;
		}
		n = epoll_wait(t->epfd, evs, 16, timeout);
		if (n < 0 && errno != EINTR) {
			perror_msg("epoll_wait");
			ret = -1;
			detach_all(t);
			break;
		}
		for (int i = 0; i < n; i++)
			if (evs[i].data.ptr == t) {
				uint64_t v;

				while (read(efd, &v, sizeof(v)) == sizeof(v))
					;
			}
		while ((pid = waitpid(-1, &status, __WALL | WNOHANG)) > 0)
			handle_stop(t, pid, status);
		if (pid < 0 && errno == ECHILD)
			break;
		sampler_drain(t->sampler, on_sample, t);
		if (!t->opt.quiet || t->opt.progress)
			show_progress(t, false);
	}
	sigaction(SIGCHLD, &old_sa, NULL);
	if (t->have_burst_timer) {
		timer_delete(t->burst_timer);
		t->have_burst_timer = false;
	}
	wake_efd = -1;
	close(efd);
	if (timed_out)
		wait_launched(t);
	return ret;
}

int
tracer_loop(struct tracer *t)
{
	struct timespec end;
	int ret = 0;

	if (t->vg)
		return vg_engine_loop(t->vg);
	clock_gettime(CLOCK_MONOTONIC, &t->t0);
	t->last_progress = t->t0;
	if (t->sampler)
		ret = sample_loop(t);
	while (!t->sampler && t->nthreads > 0) {
		int status;
		pid_t pid;

		if (detach_requested) {
			detach_all(t);
			break;
		}
		pid = waitpid(-1, &status, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (errno != ECHILD)
				perror_msg("waitpid");
			break;
		}
		handle_stop(t, pid, status);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	t->st.seconds = ts_diff(&end, &t->t0);
	if (t->sampler) {
		struct sampler_stats ss;

		sampler_get_stats(t->sampler, &ss);
		t->st.samples = ss.samples;
		t->st.samples_lost = ss.lost;
		t->st.stopped_seconds = (double)t->budget.held_ns / 1e9;
	}
	if (t->opt.progress)
		show_progress(t, true);
	else if (!t->opt.quiet && t->progress_shown)
		show_progress(t, true);
	ring_close(t->ring);
	return ret;
}

bool
tracer_main_status(const struct tracer *t, int *status)
{
	if (t->vg)
		return vg_engine_main_status(t->vg, status);
	*status = t->main_status;
	return t->main_done;
}

void
tracer_get_stats(const struct tracer *t, struct tracer_stats *st)
{
	if (t->vg) {
		vg_engine_get_stats(t->vg, st);
		return;
	}
	*st = t->st;
}

pid_t
tracer_main_pid(const struct tracer *t)
{
	return t->main_pid;
}
