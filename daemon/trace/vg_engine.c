/*
 * The valgrind engine (vg_engine.h): micad's side of the tool's protocol
 * (vgtool/vg_proto.h).
 *
 * One loop polls the listening socket, each tool's connection and each
 * process's pidfd.  A process has one connection at a time: a new one is
 * held (not read) until its turn comes, so that each thread's records stay
 * in order: a fork's child until its parent's MVG_M_FORK marker has been
 * read (the child then starts with a copy of the parent's instructions,
 * as its tool has the parent's translations), an exec's new tool until the
 * old connection has ended.  A process ends when its connection has ended
 * and its pidfd says it has exited.
 *
 * An event is what step mode would have built for the instruction
 * (tracer.c build_pending and commit): insn_eval() on the registers the
 * record carries, with the next pc valgrind took.  Valgrind runs a REP
 * string instruction as a loop whose last pass only finds the count
 * register at zero: that pass is not an iteration and is dropped, and the
 * last real iteration goes on to the next instruction, as the CPU's does.
 * An execve's event follows the exec (its next pc is the new program's
 * first instruction), as in step mode.
 */
#include "config.h"
#include "trace/vg_engine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "decoder.h"
#include "trace/vgtool/vg_proto.h"
#include "util.h"

#define TOOL_FILE	"micadvg-amd64-linux"
#define READ_CHUNK	(1u << 20)	/* bytes read from a connection at a time */
#define HELLO_TIMEOUT_MS 10000
#define BATCH_BYTES	(64u << 10)	/* events per TREC_EVENTS ring record */
#define POLL_MS		50		/* live count; progress about once a second */

/* An instruction the tool asked about, decoded. */
struct vinsn {
	struct insn_info ii;
	uint64_t recipe;
	uint64_t fallthrough;	/* pc + the length valgrind decoded */
	uint8_t nvals;
	bool syscall;		/* `syscall` (0F 05): the event says which call */
	/* An instruction whose recipe has no value (its accesses are
	 * RIP-relative or absolute, if any) has one event, but for its
	 * thread and where it went: made once (insn_event_size() bytes). */
	struct insn_event *fixed_ev;
	struct vinsn *next;	/* all of them, freed with the engine */
};

struct vthread {
	int32_t tid;
	/* Valgrind's REP loop goes back to pc once more at its end (the
	 * pass that finds the count at zero); while a signal handler runs
	 * in between, this is kept. */
	uint64_t rep_cont_pc;
	bool rep_cont_sig;
	/* The previous event, for EV_REP_FIRST (as tracer.c commit()). */
	bool last_rep;
	uint64_t last_pc, last_next_pc;
	/* An event whose next pc comes later (an execve: the new program's
	 * first instruction; an rt_sigreturn: where the thread resumes);
	 * UINT64_MAX until known. */
	bool held;
	struct insn_event held_ev;
	struct vthread *next;
};

struct vproc;

struct vconn {
	int fd;
	struct vproc *p;
	pid_t ppid;		/* a fork's child: its parent */
	bool held;
	char *exe;		/* the program this tool runs (resolved) */
	unsigned char *buf;	/* received, not yet parsed */
	size_t len, cap;
	struct vconn *next;
};

struct vproc {
	pid_t pid;
	int pidfd;
	bool gone;		/* exited (its pidfd said so) */
	bool announced;		/* TT_START is out */
	struct vconn *conn;	/* the tool's connection now, or NULL */
	struct vconn *pending;	/* an exec'd tool waiting for conn to end */
	struct vinsn **insn;	/* by the number the tool's records carry */
	size_t n_insn, cap_insn;
	struct vthread *threads, *cur;
	bool has_group_status;
	int group_status;	/* of an exit_group */
	struct vproc *next;
};

struct vg_engine {
	struct tracer_options opt;
	struct ring *ring;
	char dir[64], sock_path[96];
	int listen_fd;
	pid_t main_pid;
	int main_pidfd;
	bool main_seen, main_done;
	int main_status;
	struct rusage main_usage;	/* valgrind's, with the tool and the program */
	struct vproc *procs;
	struct vconn *limbo;	/* a fork's child's, until its parent's fork marker */
	struct vinsn *insns;
	struct user_regs_struct regs;
	struct vec_state vec;
	/* The TREC_EVENTS record being filled, in the ring (reserved). */
	uint8_t *batch;
	size_t batch_len;
	struct tracer_stats st;
	struct timespec t0, last_progress;
	bool progress_shown;
};

static volatile sig_atomic_t detach_requested;

void
vg_engine_request_detach(void)
{
	detach_requested = 1;
}

/* ---- where the tool is ---- */

/*
 * MICAD_VALGRIND_LIB (micad's own environment, never the program's) names
 * another directory holding the tool next to links to valgrind's
 * vgpreload_core-amd64-linux.so and default.supp: the tests run valgrind's
 * own tools from the same directory, so that their programs see the same
 * environment (VALGRIND_LIB is in it).  Else the installed tool, else this
 * build tree's.
 */
static const char *
tool_dir(void)
{
#ifdef HAVE_VGTOOL
	const char *dir = getenv("MICAD_VALGRIND_LIB");

	if (dir && dir[0] == '/')
		return dir;
	if (access(MICAD_VGTOOL_DIR "/" TOOL_FILE, X_OK) == 0)
		return MICAD_VGTOOL_DIR;
	if (access(MICAD_BUILD_VGTOOL_DIR "/" TOOL_FILE, X_OK) == 0)
		return MICAD_BUILD_VGTOOL_DIR;
#endif
	return NULL;
}

#ifdef HAVE_VGTOOL
static bool
tool_file_ok(const char *dir, const char *file, int mode)
{
	char *path = xasprintf("%s/%s", dir, file);
	bool ok = access(path, mode) == 0;

	free(path);
	return ok;
}
#endif

int
vg_engine_available(void)
{
#ifndef HAVE_VGTOOL
	error_msg("--engine=valgrind: this micad was built without the valgrind engine (%s): "
		  "install the Debian package 'valgrind', then configure and build micad again",
		  MICAD_VGTOOL_MISSING);
	return -1;
#else
	if (access(MICAD_VALGRIND, X_OK) != 0) {
		perror_msg("--engine=valgrind: cannot run %s (install the Debian package "
			   "'valgrind')", MICAD_VALGRIND);
		return -1;
	}
	if (!tool_dir()) {
		error_msg("--engine=valgrind: micad's valgrind tool is not in %s (run 'make "
			  "install') nor in the build tree %s", MICAD_VGTOOL_DIR,
			  MICAD_BUILD_VGTOOL_DIR);
		return -1;
	}
	if (access(tool_dir(), R_OK | X_OK) != 0 ||
	    !tool_file_ok(tool_dir(), TOOL_FILE, X_OK) ||
	    !tool_file_ok(tool_dir(), "vgpreload_core-amd64-linux.so", R_OK)) {
		error_msg("--engine=valgrind: %s must hold %s and a link to valgrind's "
			  "vgpreload_core-amd64-linux.so", tool_dir(), TOOL_FILE);
		return -1;
	}
	return 0;
#endif
}

/* ---- records out ---- */

/*
 * Events go into one TREC_EVENTS record at a time, reserved in the ring
 * and published when full, before any other record (the order of the
 * records is the order of the events and thread records), and before the
 * engine waits for more.
 */
static void
flush_events(struct vg_engine *e)
{
	if (!e->batch)
		return;
	ring_commit_len(e->ring, e->batch_len);
	e->batch = NULL;
	e->batch_len = 0;
}

static void
push_exe(struct vg_engine *e, pid_t pid, const char *exe)
{
	size_t n = strlen(exe);
	struct trace_exe_rec *r;

	flush_events(e);
	r = ring_reserve(e->ring, TREC_EXE, sizeof(*r) + n + 1);

	r->pid = pid;
	memcpy(r->path, exe, n + 1);
	ring_commit(e->ring);
}

static void
push_thread(struct vg_engine *e, enum trace_thread_kind kind, pid_t pid, pid_t tid, pid_t parent,
	    int status)
{
	flush_events(e);
	trace_push_thread_rec(e->ring, kind, pid, tid, parent, status);
}

static void
show_progress(struct vg_engine *e, bool final)
{
	struct timespec now;
	double el;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!final && (now.tv_sec - e->last_progress.tv_sec) * 1000000000L +
		      (now.tv_nsec - e->last_progress.tv_nsec) < 1000000000L)
		return;
	e->last_progress = now;
	el = (double)(now.tv_sec - e->t0.tv_sec) + (now.tv_nsec - e->t0.tv_nsec) / 1e9;
	e->st.seconds = el;
	if (e->opt.progress) {
		e->opt.progress(e->opt.progress_arg, &e->st, final);
		return;
	}
	if (e->opt.quiet || (final && !e->progress_shown))
		return;
	fprintf(stderr, "\rmicad: %llu instructions, %.1f K/s, %.1f s elapsed%s",
		(unsigned long long)e->st.steps, el > 0 ? e->st.steps / el / 1000.0 : 0.0, el,
		final ? "\n" : "  ");
	fflush(stderr);
	e->progress_shown = !final;
}

/* An event's insn_event_size() bytes: its fixed head, then 8 bytes at a
 * time (a variable-size memcpy() became a slow rep movsq: see
 * trace_analysis.c copy_event). */
static inline void
copy_event(void *dst, const struct insn_event *ev, size_t sz)
{
	size_t head = offsetof(struct insn_event, mem);

	memcpy(dst, ev, head);
	for (size_t o = head; o < sz; o += 8)
		memcpy((char *)dst + o, (const char *)ev + o, 8);
}

/*
 * Room for the largest event at the end of the batch: on_record() builds
 * its event there.  Built elsewhere and copied, each event cost a
 * store-forwarding stall or two: the copy's 16-byte loads span fields
 * just written one by one (next pc, tid, REP count), and waited for
 * those stores to reach the cache (three quarters of the copy's time,
 * about a fifth of the engine's on gzip).
 */
static struct insn_event *
event_slot(struct vg_engine *e)
{
	if (e->batch && e->batch_len + sizeof(struct insn_event) > BATCH_BYTES)
		flush_events(e);
	if (!e->batch)
		e->batch = ring_reserve(e->ring, TREC_EVENTS, BATCH_BYTES);
	return (struct insn_event *)(void *)(e->batch + e->batch_len);
}

/* The event in the slot is in the batch. */
static void
commit_event(struct vg_engine *e, const struct insn_event *ev)
{
	e->batch_len += (insn_event_size(ev) + 7) & ~(size_t)7;
	e->st.steps++;
	if ((e->st.steps & 4095) == 0) {
		if (e->opt.live_steps)
			atomic_store_explicit(e->opt.live_steps, e->st.steps, memory_order_relaxed);
		show_progress(e, false);
	}
}

/* ---- processes and threads ---- */

static struct vthread *
thread_find(struct vproc *p, int32_t tid)
{
	for (struct vthread *t = p->threads; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

static struct vthread *
thread_start(struct vg_engine *e, struct vproc *p, int32_t tid, int32_t parent)
{
	struct vthread *t = xcalloc(1, sizeof(*t));

	t->tid = tid;
	t->next = p->threads;
	p->threads = t;
	push_thread(e, TT_START, p->pid, tid, parent, 0);
	return t;
}

static void
flush_held(struct vg_engine *e, struct vthread *t, uint64_t next_pc)
{
	if (!t->held)
		return;
	t->held = false;
	if (t->held_ev.next_pc == UINT64_MAX)
		t->held_ev.next_pc = next_pc;
	struct insn_event *ev = event_slot(e);

	copy_event(ev, &t->held_ev, insn_event_size(&t->held_ev));
	commit_event(e, ev);
}

static void
thread_end(struct vg_engine *e, struct vproc *p, struct vthread *t, bool known, int status)
{
	struct vthread **pp = &p->threads;

	/* It did not get anywhere else. */
	if (t->held)
		flush_held(e, t, t->held_ev.pc + t->held_ev.info->len);

	while (*pp != t)
		pp = &(*pp)->next;
	*pp = t->next;
	if (p->cur == t)
		p->cur = NULL;
	push_thread(e, known ? TT_EXIT : TT_DETACH, p->pid, t->tid, 0, known ? status : 0);
	free(t);
}

static struct vproc *
proc_find(struct vg_engine *e, pid_t pid)
{
	for (struct vproc *p = e->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static struct vproc *
proc_new(struct vg_engine *e, pid_t pid, int pidfd)
{
	struct vproc *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->pidfd = pidfd;
	p->next = e->procs;
	e->procs = p;
	return p;
}

static void
conn_free(struct vconn *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->exe);
	free(c->buf);
	free(c);
}

/* The process has exited and its tool's records are all in: its threads
 * end with its status (an exit_group's, or the launched process's wait
 * status), else as detached (micad cannot know how it ended). */
static void
proc_finish(struct vg_engine *e, struct vproc *p)
{
	struct vproc **pp = &e->procs;
	bool known = p->has_group_status;
	int status = p->group_status;

	if (p->pid == e->main_pid && e->main_done) {
		known = true;
		status = e->main_status;
	}
	while (p->threads)
		thread_end(e, p, p->threads, known, status);
	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	conn_free(p->conn);
	conn_free(p->pending);
	if (p->pidfd >= 0 && p->pidfd != e->main_pidfd)
		close(p->pidfd);
	free(p->insn);
	free(p);
}

/* ---- instructions ---- */

static int
gpr_number(reg_id reg)
{
	switch (ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, (ZydisRegister)reg)) {
	case ZYDIS_REGISTER_RAX: return 0;
	case ZYDIS_REGISTER_RCX: return 1;
	case ZYDIS_REGISTER_RDX: return 2;
	case ZYDIS_REGISTER_RBX: return 3;
	case ZYDIS_REGISTER_RSP: return 4;
	case ZYDIS_REGISTER_RBP: return 5;
	case ZYDIS_REGISTER_RSI: return 6;
	case ZYDIS_REGISTER_RDI: return 7;
	case ZYDIS_REGISTER_R8: return 8;
	case ZYDIS_REGISTER_R9: return 9;
	case ZYDIS_REGISTER_R10: return 10;
	case ZYDIS_REGISTER_R11: return 11;
	case ZYDIS_REGISTER_R12: return 12;
	case ZYDIS_REGISTER_R13: return 13;
	case ZYDIS_REGISTER_R14: return 14;
	case ZYDIS_REGISTER_R15: return 15;
	default: return -1;
	}
}

static uint64_t
reg_bit(reg_id reg)
{
	int n = reg ? gpr_number(reg) : -1;

	if (reg == ZYDIS_REGISTER_FS)
		return MVG_R_FS;
	if (reg == ZYDIS_REGISTER_GS)
		return MVG_R_GS;
	return n >= 0 ? MVG_R_GPR(n) : 0;
}

/* A YMM register's number for a VSIB operand's vector register (XMM or
 * YMM; valgrind has no AVX-512), or -1. */
static int
ymm_number(reg_id reg)
{
	ZydisRegisterClass cls = ZydisRegisterGetClass((ZydisRegister)reg);

	if (cls != ZYDIS_REGCLASS_XMM && cls != ZYDIS_REGCLASS_YMM)
		return -1;
	return ZydisRegisterGetId((ZydisRegister)reg) < 16 ? ZydisRegisterGetId((ZydisRegister)reg)
							    : -1;
}

/*
 * What an instruction's records must carry for insn_eval() to do what it
 * does on step mode's register snapshot: the registers of its memory
 * operands, the count register of a REP or LOOP-like instruction, the
 * flags of a conditional branch whose target is its own fall-through (its
 * outcome is not in where it went), and a syscall's number and arguments.
 */
static uint64_t
recipe_of(const struct insn_info *ii)
{
	uint64_t r = 0;

	if (ii->flags & INSN_INVALID)
		return 0;
	for (unsigned i = 0; i < ii->n_mem; i++) {
		const struct mem_template *t = &ii->mem[i];

		r |= reg_bit(t->base) | reg_bit(t->seg);
		if (!t->vsib) {
			r |= reg_bit(t->index);
		} else if (!(r & MVG_R_VSIB)) {
			int idx = ymm_number(t->index), mask = t->mask ? ymm_number(t->mask) : -1;

			if (idx >= 0 && (mask >= 0 || !t->mask))
				r |= MVG_R_VSIB | (uint64_t)idx << MVG_R_VINDEX_SHIFT |
				     (uint64_t)(mask >= 0 ? mask : idx) << MVG_R_VMASK_SHIFT;
		}
	}
	if ((ii->flags & INSN_REP) || ii->cond == COND_CXZ || ii->cond == COND_LOOP ||
	    ii->cond == COND_LOOPE || ii->cond == COND_LOOPNE)
		r |= MVG_R_GPR(1);
	if (ii->branch == BR_COND && ii->direct_target == ii->pc + ii->len)
		r |= MVG_R_RFLAGS | MVG_R_GPR(1);
	if ((ii->flags & INSN_SYSCALL) && ii->len >= 2 && ii->bytes[ii->len - 2] == 0x0f &&
	    ii->bytes[ii->len - 1] == 0x05)
		r |= MVG_R_GPR(0) | MVG_R_GPR(7) | MVG_R_GPR(6) | MVG_R_GPR(2) | MVG_R_GPR(10) |
		     MVG_R_GPR(8) | MVG_R_GPR(9);
	if ((ii->flags & INSN_REP) ||
	    ((ii->branch == BR_COND || ii->branch == BR_JUMP) && ii->direct_target == ii->pc &&
	     !(ii->flags & INSN_INDIRECT)))
		r |= MVG_R_SELF_EXIT;
	return r;
}

static struct vinsn *
vinsn_new(struct vg_engine *e, uint64_t pc, const uint8_t *bytes, unsigned len)
{
	struct vinsn *v = xcalloc(1, sizeof(*v));

	insn_decode(bytes, len, pc, &v->ii);
	v->fallthrough = pc + len;
	v->recipe = recipe_of(&v->ii);
	v->nvals = (uint8_t)MVG_RECIPE_NVALS(v->recipe);
	v->syscall = (v->ii.flags & INSN_SYSCALL) && v->ii.len >= 2 &&
		     v->ii.bytes[v->ii.len - 2] == 0x0f && v->ii.bytes[v->ii.len - 1] == 0x05;
	if (!(v->recipe & MVG_R_VALUE_BITS)) {
		struct user_regs_struct none;
		struct insn_event ev;

		memset(&none, 0, sizeof(none));
		insn_eval(&v->ii, &none, NULL, 0, &ev);
		v->fixed_ev = xmalloc(insn_event_size(&ev));
		copy_event(v->fixed_ev, &ev, insn_event_size(&ev));
	}
	v->next = e->insns;
	e->insns = v;
	e->st.decode_misses++;
	return v;
}

static void
publish_insn(struct vg_engine *e, const struct vinsn *v)
{
	struct trace_insn_rec *r;

	flush_events(e);
	r = ring_reserve(e->ring, TREC_INSN, sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->key = (uint64_t)(uintptr_t)&v->ii;
	r->pc = v->ii.pc;
	r->len = v->ii.len;
	memcpy(r->bytes, v->ii.bytes, v->ii.len);
	ring_commit(e->ring);
}

/* ---- the tool's records in ---- */

static const size_t gpr_field[16] = {
	offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rcx),
	offsetof(struct user_regs_struct, rdx), offsetof(struct user_regs_struct, rbx),
	offsetof(struct user_regs_struct, rsp), offsetof(struct user_regs_struct, rbp),
	offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
	offsetof(struct user_regs_struct, r8), offsetof(struct user_regs_struct, r9),
	offsetof(struct user_regs_struct, r10), offsetof(struct user_regs_struct, r11),
	offsetof(struct user_regs_struct, r12), offsetof(struct user_regs_struct, r13),
	offsetof(struct user_regs_struct, r14), offsetof(struct user_regs_struct, r15),
};

/* The registers of a record into e->regs (and e->vec). */
static void
load_values(struct vg_engine *e, uint64_t r, const uint64_t *v)
{
	for (unsigned m = r & 0xffff; m; m &= m - 1)
		memcpy((char *)&e->regs + gpr_field[__builtin_ctz(m)], v++, 8);
	if (r & MVG_R_FS)
		e->regs.fs_base = *v++;
	if (r & MVG_R_GS)
		e->regs.gs_base = *v++;
	if (r & MVG_R_RFLAGS)
		e->regs.eflags = *v++;
	if (r & MVG_R_VSIB) {
		memcpy(e->vec.zmm[(r >> MVG_R_VINDEX_SHIFT) & 15], v, 32);
		memcpy(e->vec.zmm[(r >> MVG_R_VMASK_SHIFT) & 15], v + 4, 32);
	}
}

/* One instruction record (its words already checked to be there). */
static void
on_record(struct vg_engine *e, struct vproc *p, const uint64_t *w)
{
	uint64_t hdr = w[0], number = hdr & MVG_NUMBER_MASK, pc, vex_next, next;
	bool has_next = (hdr & MVG_HAS_NEXT) != 0;
	struct vthread *th = p->cur;
	struct insn_event *ev;
	const struct vinsn *v;

	if (number >= p->n_insn || !th) {
		e->st.stops++;
		return;
	}
	v = p->insn[number];
	if (v->nvals != ((hdr >> MVG_NVALS_SHIFT) & MVG_NVALS_MASK)) {
		e->st.stops++;
		return;
	}
	pc = v->ii.pc;
	flush_held(e, th, pc);
	ev = event_slot(e);
	if (v->fixed_ev) {
		copy_event(ev, v->fixed_ev, insn_event_size(v->fixed_ev));
		ev->tid = (uint32_t)th->tid;
	} else {
		load_values(e, v->recipe, w + 1 + has_next);
		insn_eval(&v->ii, &e->regs, (v->recipe & MVG_R_VSIB) ? &e->vec : NULL,
			  (uint32_t)th->tid, ev);
	}
	vex_next = has_next ? w[1] : v->fallthrough;
	next = vex_next;
	if (v->ii.flags & INSN_REP) {
		uint64_t count = (v->ii.flags & INSN_ADDR32) ? (uint32_t)e->regs.rcx : e->regs.rcx;

		if (count == 0 && th->rep_cont_pc == pc) {
			/* Valgrind's last pass over the loop, not an iteration. */
			th->rep_cont_pc = 0;
			th->rep_cont_sig = false;
			return;
		}
		th->rep_cont_pc = vex_next == pc ? pc : 0;
		th->rep_cont_sig = false;
		if (count == 1)
			next = pc + v->ii.len;
	} else if (th->rep_cont_pc && !th->rep_cont_sig) {
		th->rep_cont_pc = 0;
	}
	ev->next_pc = next;
	ev->flags &= (uint16_t)~EV_NEXT_UNKNOWN;
	if (v->ii.branch == BR_COND && !(v->recipe & MVG_R_RFLAGS)) {
		if (next == v->ii.direct_target)
			ev->flags |= EV_TAKEN;
		else
			ev->flags &= (uint16_t)~EV_TAKEN;
	}
	if (v->syscall && ev->n_mem == 0) {
		ev->flags |= EV_SYSCALL;
		ev->sys.nr = e->regs.rax;
		ev->sys.arg[0] = e->regs.rdi;
		ev->sys.arg[1] = e->regs.rsi;
		ev->sys.arg[2] = e->regs.rdx;
		ev->sys.arg[3] = e->regs.r10;
		ev->sys.arg[4] = e->regs.r8;
		ev->sys.arg[5] = e->regs.r9;
	}
	if ((ev->flags & EV_REP) &&
	    !(th->last_rep && th->last_pc == ev->pc && th->last_next_pc == ev->pc))
		ev->flags |= EV_REP_FIRST;
	th->last_rep = (ev->flags & EV_REP) != 0;
	th->last_pc = ev->pc;
	th->last_next_pc = next;
	if ((ev->flags & EV_SYSCALL) && (ev->sys.nr == SYS_execve || ev->sys.nr == SYS_execveat ||
					 ev->sys.nr == SYS_rt_sigreturn)) {
		th->held = true;
		memcpy(&th->held_ev, ev, insn_event_size(ev));
		th->held_ev.next_pc = UINT64_MAX;
		return;
	}
	commit_event(e, ev);
}

/* MVG_M_QUERY: decode the instructions (the tool asks about each pc
 * once, and again when its bytes change), answer their recipes and
 * numbers.  False if the tool is gone. */
static bool
on_query(struct vg_engine *e, struct vproc *p, struct vconn *c, const uint64_t *w, unsigned n)
{
	uint64_t reply[MVG_QUERY_MAX];
	const unsigned char *q;
	size_t off = 0;

	if (p->n_insn + n > MVG_NUMBER_MASK)
		return false;
	if (p->n_insn + n > p->cap_insn) {
		p->cap_insn = 2 * (p->n_insn + n) + 1024;
		p->insn = xreallocarray(p->insn, p->cap_insn, sizeof(*p->insn));
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t pc = w[3 * i] & MVG_PC_MASK;
		uint8_t b[16];
		unsigned len;
		struct vinsn *v;

		memcpy(b, &w[3 * i + 1], 16);
		len = b[0] <= INSN_MAX_BYTES ? b[0] : INSN_MAX_BYTES;
		v = vinsn_new(e, pc, b + 1, len);
		publish_insn(e, v);
		reply[i] = v->recipe | (uint64_t)p->n_insn << MVG_NUMBER_SHIFT;
		p->insn[p->n_insn++] = v;
	}
	q = (const unsigned char *)reply;
	while (off < n * sizeof(reply[0])) {
		ssize_t r = write(c->fd, q + off, n * sizeof(reply[0]) - off);

		if (r < 0 && errno == EAGAIN) {
			struct pollfd pf = { c->fd, POLLOUT, 0 };

			if (poll(&pf, 1, HELLO_TIMEOUT_MS) <= 0)
				return false;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		off += (size_t)r;
	}
	return true;
}

static void release_child(struct vg_engine *e, struct vproc *child);

/* MVG_M_FORK: the child's stream may start (with a copy of the parent's
 * instructions and its thread started), if forks are followed. */
static void
on_fork(struct vg_engine *e, struct vproc *parent, pid_t child_pid, int32_t tid)
{
	struct vproc *c;

	if (!e->opt.follow_forks || child_pid <= 0)
		return;
	c = proc_find(e, child_pid);
	if (!c) {
		int fd = (int)syscall(SYS_pidfd_open, child_pid, 0);

		c = proc_new(e, child_pid, fd);
		c->gone = fd < 0;	/* gone already */
	}
	if (c->announced)
		return;
	c->insn = xreallocarray(NULL, parent->n_insn + 1, sizeof(*c->insn));
	memcpy(c->insn, parent->insn, parent->n_insn * sizeof(*c->insn));
	c->n_insn = c->cap_insn = parent->n_insn;
	c->announced = true;
	if (parent->conn && parent->conn->exe)
		push_exe(e, child_pid, parent->conn->exe);
	c->cur = thread_start(e, c, child_pid, tid);
	release_child(e, c);
}

/*
 * The records of one connection, as far as they are complete.  Returns
 * the bytes used, or (size_t)-1 on a protocol error (the connection is
 * dropped: a tool that sends what it must not).
 */
static size_t
parse(struct vg_engine *e, struct vconn *c, const uint64_t *w, size_t nw)
{
	struct vproc *p = c->p;
	size_t i = 0;

	while (i < nw && !c->held) {
		uint64_t x = w[i];
		size_t need;

		if (!(x & MVG_MARKER)) {
			need = 1 + ((x & MVG_HAS_NEXT) ? 1 : 0) + ((x >> MVG_NVALS_SHIFT) & MVG_NVALS_MASK);
			if (i + need > nw)
				break;
			on_record(e, p, w + i);
			i += need;
			continue;
		}
		switch (MVG_KIND(x)) {
		case MVG_M_QUERY: {
			uint64_t n = MVG_ARG(x);

			if (n == 0 || n > MVG_QUERY_MAX)
				return (size_t)-1;
			need = 1 + 3 * n;
			if (i + need > nw)
				return i * 8;
			if (!on_query(e, p, c, w + i + 1, (unsigned)n))
				return (size_t)-1;
			break;
		}
		case MVG_M_THREAD: {
			int32_t tid = (int32_t)MVG_ARG(x);

			need = 1;
			p->cur = thread_find(p, tid);
			if (!p->cur)
				p->cur = thread_start(e, p, tid, 0);
			break;
		}
		case MVG_M_THREAD_START: {
			int32_t tid = (int32_t)MVG_ARG(x);

			need = 2;
			if (i + need > nw)
				return i * 8;
			p->cur = thread_find(p, tid);
			if (!p->cur)
				p->cur = thread_start(e, p, tid, (int32_t)w[i + 1]);
			break;
		}
		case MVG_M_THREAD_EXIT: {
			struct vthread *t = thread_find(p, (int32_t)MVG_ARG(x));

			need = 2;
			if (i + need > nw)
				return i * 8;
			/* Without its own exit status the thread ends with
			 * the process (an exit_group, a signal). */
			if (t && w[i + 1] != MVG_STATUS_UNKNOWN)
				thread_end(e, p, t, true, (int)w[i + 1]);
			break;
		}
		case MVG_M_FORK:
			need = 2;
			if (i + need > nw)
				return i * 8;
			on_fork(e, p, (pid_t)MVG_ARG(x), (int32_t)w[i + 1]);
			break;
		case MVG_M_SIGNAL:
			need = 1;
			if (p->cur && p->cur->rep_cont_pc)
				p->cur->rep_cont_sig = true;
			break;
		case MVG_M_EXIT_GROUP:
			need = 1;
			p->has_group_status = true;
			p->group_status = (int)((MVG_ARG(x) & 0xff) << 8);
			break;
		case MVG_M_END:
			need = 1;
			break;
		case MVG_M_SIGRETURN:
			need = 1;
			if (p->cur)
				flush_held(e, p->cur, MVG_ARG(x));
			break;
		default:
			return (size_t)-1;
		}
		i += need;
	}
	return i * 8;
}

/* Read what a connection has; false at its end (or on an error). */
static bool
conn_read(struct vg_engine *e, struct vconn *c)
{
	ssize_t r;
	size_t used;

	if (c->cap - c->len < READ_CHUNK) {
		c->cap = c->len + READ_CHUNK;
		c->buf = realloc(c->buf, c->cap);
		if (!c->buf)
			error_msg_and_die("out of memory");
	}
	r = read(c->fd, c->buf + c->len, READ_CHUNK);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (r <= 0)
		return false;
	c->len += (size_t)r;
	used = parse(e, c, (const uint64_t *)(void *)c->buf, c->len / 8);
	if (used == (size_t)-1) {
		error_msg("the valgrind tool of process %d sent records micad cannot read: "
			  "the rest of that process is not characterized", (int)c->p->pid);
		return false;
	}
	memmove(c->buf, c->buf + used, c->len - used);
	c->len -= used;
	return true;
}

/* ---- connections ---- */

static void
reply(int fd, uint64_t word)
{
	if (write_all(fd, &word, sizeof(word)) < 0)
		return;	/* the tool is gone: its connection ends */
}

static bool
read_timed(int fd, void *buf, size_t n)
{
	unsigned char *b = buf;

	while (n > 0) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&pf, 1, HELLO_TIMEOUT_MS) <= 0)
			return false;
		r = read(fd, b, n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return false;
		b += r;
		n -= (size_t)r;
	}
	return true;
}

/* The executable a tool runs: as given, against its working directory,
 * links resolved when they can be. */
static char *
resolve_exe(const char *exe, const char *cwd)
{
	char *joined = exe[0] == '/' ? xstrdup(exe) : xasprintf("%s/%s", cwd, exe);
	char *real = realpath(joined, NULL);

	if (real) {
		free(joined);
		return real;
	}
	return joined;
}

/* A new thread of records for p begins (launch, exec). */
static void
attach_conn(struct vproc *p, struct vconn *c)
{
	c->p = p;
	c->held = false;
	p->conn = c;
}

/* An exec'd tool takes over from the ended connection of p. */
static void
exec_transition(struct vg_engine *e, struct vproc *p, struct vconn *c)
{
	struct vthread *leader;
	struct insn_event execve;
	bool have_execve = false;

	/* The execve's event goes on in the new program. */
	for (struct vthread *t = p->threads; t; t = t->next)
		if (t->held) {
			memcpy(&execve, &t->held_ev, insn_event_size(&t->held_ev));
			t->held = false;
			have_execve = true;
		}
	/* The other threads die in an exec; the one that exec'd becomes the
	 * leader (tracer.c on_event, PTRACE_EVENT_EXEC). */
	for (struct vthread *t = p->threads, *n; t; t = n) {
		n = t->next;
		if (t->tid != p->pid)
			thread_end(e, p, t, true, 0);
	}
	leader = thread_find(p, p->pid);
	if (!leader)
		leader = thread_start(e, p, p->pid, 0);
	if (have_execve) {
		execve.tid = (uint32_t)p->pid;
		memcpy(&leader->held_ev, &execve, insn_event_size(&execve));
		leader->held = true;
	}
	leader->rep_cont_pc = 0;
	leader->last_rep = false;
	p->n_insn = 0;
	push_exe(e, p->pid, c->exe);
	push_thread(e, TT_EXEC, p->pid, p->pid, 0, 0);
	p->cur = leader;
	attach_conn(p, c);
}

/* A fork's child whose parent's marker is in: its records may be read. */
static void
release_child(struct vg_engine *e, struct vproc *child)
{
	for (struct vconn **pp = &e->limbo; *pp; pp = &(*pp)->next) {
		struct vconn *c = *pp;

		if (c->p == child) {
			*pp = c->next;
			c->next = NULL;
			attach_conn(child, c);
			return;
		}
	}
}

/*
 * A tool connects: who is it, and is it to record?  The launched process,
 * a process we know that exec'd, or a fork's child of a recorded process
 * (when following forks).  Anything else is told to run on idle.
 */
static void
on_accept(struct vg_engine *e, int fd)
{
	uint64_t h[MVG_HELLO_WORDS];
	struct ucred cr;
	socklen_t crl = sizeof(cr);
	char *paths = NULL;
	size_t pl;
	struct vconn *c;
	struct vproc *p;
	pid_t pid;
	bool record = false;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl) < 0 || cr.uid != geteuid() ||
	    !read_timed(fd, h, sizeof(h)) || h[MVG_HELLO_MAGIC] != MVG_MAGIC ||
	    h[MVG_HELLO_VERSION] != MVG_VERSION || h[MVG_HELLO_PID] != (uint64_t)cr.pid ||
	    h[MVG_HELLO_EXE_LEN] < 1 || h[MVG_HELLO_EXE_LEN] > MVG_PATH_MAX ||
	    h[MVG_HELLO_CWD_LEN] < 1 || h[MVG_HELLO_CWD_LEN] > MVG_PATH_MAX) {
		close(fd);
		return;
	}
	pl = ((h[MVG_HELLO_EXE_LEN] + 7) & ~7ULL) + ((h[MVG_HELLO_CWD_LEN] + 7) & ~7ULL);
	paths = xmalloc(pl);
	if (!read_timed(fd, paths, pl) || paths[h[MVG_HELLO_EXE_LEN] - 1] != '\0' ||
	    paths[((h[MVG_HELLO_EXE_LEN] + 7) & ~7ULL) + h[MVG_HELLO_CWD_LEN] - 1] != '\0') {
		free(paths);
		close(fd);
		return;
	}
	pid = (pid_t)h[MVG_HELLO_PID];
	c = xcalloc(1, sizeof(*c));
	c->fd = fd;
	c->held = true;
	c->exe = resolve_exe(paths, paths + ((h[MVG_HELLO_EXE_LEN] + 7) & ~7ULL));
	free(paths);
	p = proc_find(e, pid);
	if (h[MVG_HELLO_REASON] == MVG_START && !p && pid == e->main_pid && !e->main_seen) {
		e->main_seen = true;
		p = proc_new(e, pid, e->main_pidfd);
		p->announced = true;
		push_exe(e, pid, c->exe);
		p->cur = thread_start(e, p, pid, 0);
		attach_conn(p, c);
		record = true;
	} else if (h[MVG_HELLO_REASON] == MVG_START && p && !p->pending) {
		/* An exec: after the old tool's last record (which may still
		 * wait for its parent's fork marker). */
		c->p = p;
		if (p->conn || !p->announced)
			p->pending = c;
		else
			exec_transition(e, p, c);
		record = true;
	} else if (h[MVG_HELLO_REASON] == MVG_FORK && e->opt.follow_forks &&
		   proc_find(e, (pid_t)h[MVG_HELLO_PPID]) && (!p || (p->announced && !p->conn))) {
		if (!p) {
			/* Before its parent's fork marker: it waits. */
			p = proc_new(e, pid, (int)syscall(SYS_pidfd_open, pid, 0));
			c->p = p;
			c->ppid = (pid_t)h[MVG_HELLO_PPID];
			c->next = e->limbo;
			e->limbo = c;
		} else {
			attach_conn(p, c);
		}
		record = true;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	reply(fd, record ? MVG_REPLY_RECORD : MVG_REPLY_IDLE);
	if (!record)
		conn_free(c);
}

static void
accept_all(struct vg_engine *e)
{
	for (;;) {
		int fd = accept4(e->listen_fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			return;
		on_accept(e, fd);
	}
}

/* ---- launch ---- */

struct vg_engine *
vg_engine_new(const struct tracer_options *opt, struct ring *ring)
{
	struct vg_engine *e = xcalloc(1, sizeof(*e));

	e->opt = *opt;
	e->ring = ring;
	e->listen_fd = -1;
	e->main_pidfd = -1;
	return e;
}

void
vg_engine_free(struct vg_engine *e)
{
	if (!e)
		return;
	while (e->procs)
		proc_finish(e, e->procs);
	while (e->limbo) {
		struct vconn *c = e->limbo;

		e->limbo = c->next;
		conn_free(c);
	}
	if (e->listen_fd >= 0)
		close(e->listen_fd);
	if (e->sock_path[0])
		unlink(e->sock_path);
	if (e->dir[0])
		rmdir(e->dir);
	if (e->main_pidfd >= 0)
		close(e->main_pidfd);
	for (struct vinsn *v = e->insns, *n; v; v = n) {
		n = v->next;
		free(v->fixed_ev);
		free(v);
	}
	free(e);
}

/* The socket in a directory only we can enter. */
static int
make_socket(struct vg_engine *e)
{
	const char *tmp = getenv("TMPDIR");
	struct sockaddr_un sa;

	if (!tmp || tmp[0] != '/' || strlen(tmp) > 32)
		tmp = "/tmp";
	snprintf(e->dir, sizeof(e->dir), "%s/micad-vg.XXXXXX", tmp);
	if (!mkdtemp(e->dir)) {
		perror_msg("--engine=valgrind: cannot create a private directory in %s", tmp);
		e->dir[0] = '\0';
		return -1;
	}
	snprintf(e->sock_path, sizeof(e->sock_path), "%s/tool", e->dir);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, e->sock_path, strlen(e->sock_path) + 1);
	e->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (e->listen_fd < 0 || bind(e->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(e->listen_fd, 64) < 0) {
		perror_msg("--engine=valgrind: cannot listen on %s", e->sock_path);
		e->sock_path[0] = '\0';
		return -1;
	}
	return 0;
}

/* argv[0] as execvp would find it in the program's PATH, for an error
 * worded as step mode's before valgrind starts.  0, or an errno. */
static int
check_program(const char *prog, char *const *envp)
{
	const char *path = NULL;
	char *dirs, *save = NULL;
	int err = ENOENT;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? 0 : errno;
	for (char *const *v = envp; v && *v; v++)
		if (strncmp(*v, "PATH=", 5) == 0)
			path = *v + 5;
	dirs = xstrdup(path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/%s", *d ? d : ".", prog);

		if (access(f, X_OK) == 0)
			err = 0;
		else if (errno == EACCES && err == ENOENT)
			err = EACCES;
		free(f);
		if (err == 0)
			break;
	}
	free(dirs);
	return err;
}

/* The program's environment for valgrind: valgrind's own variables are
 * micad's to set. */
static char **
valgrind_env(char *const *envp, const char *dir)
{
	size_t n = 0, k = 0;
	char **out;

	while (envp && envp[n])
		n++;
	out = xcalloc(n + 2, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], "VALGRIND_", 9) != 0)
			out[k++] = envp[i];
	out[k++] = xasprintf("VALGRIND_LIB=%s", dir);
	out[k] = NULL;
	return out;
}

/*
 * Say which of this CPU's features valgrind's virtual CPU lacks, when it
 * lacks some: code that looks at CPUID (glibc's string functions, any
 * program with AVX-512 paths) takes another path than natively.  VEX
 * decodes no AVX-512 and reports none in its CPUID.
 */
static void
cpu_note(void)
{
	char list[256] = "";
	size_t n = 0;

	__builtin_cpu_init();
#define FEATURE(f) { f, __builtin_cpu_supports(f) }
	const struct {
		const char *name;
		int has;
	} features[] = {
		FEATURE("avx512f"), FEATURE("avx512vl"), FEATURE("avx512bw"), FEATURE("avx512dq"),
		FEATURE("avx512cd"), FEATURE("avx512ifma"), FEATURE("avx512vbmi"),
		FEATURE("avx512vbmi2"), FEATURE("avx512vnni"), FEATURE("avx512bitalg"),
		FEATURE("avx512vpopcntdq"),
	};
#undef FEATURE

	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (features[i].has)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? " " : "",
					      features[i].name);
	if (n)
		fprintf(stderr, "micad: valgrind's virtual CPU lacks this CPU's %s: code that checks "
			"the CPU (glibc's string functions, AVX-512 paths) may take other paths "
			"than natively\n", list);
}

int
vg_engine_launch(struct vg_engine *e, char *const argv[])
{
	extern char **environ;
	const struct tracer_launch_env *le = e->opt.launch;
	char *const *envp = le && le->envp ? le->envp : environ;
	const char *dir;
	char **venv = NULL, **vargv = NULL, *sockopt = NULL;
	size_t argc = 0, k = 0;
	int err[2] = { -1, -1 }, fail[2], ret = -1, e_prog;
	ssize_t n;
	pid_t pid;

	if (vg_engine_available() < 0)
		return -1;
	dir = tool_dir();
	e_prog = check_program(argv[0], envp);
	if (e_prog) {
		errno = e_prog;
		perror_msg("cannot run '%s'", argv[0]);
		return -1;
	}
	if (make_socket(e) < 0)
		return -1;
	while (argv[argc])
		argc++;
	vargv = xcalloc(argc + 12, sizeof(*vargv));
	vargv[k++] = (char *)MICAD_VALGRIND;
	vargv[k++] = (char *)"--tool=micadvg";
	vargv[k++] = (char *)"-q";
	vargv[k++] = (char *)"--trace-children=yes";
	/* Nothing the program would not run natively. */
	vargv[k++] = (char *)"--run-libc-freeres=no";
	vargv[k++] = (char *)"--run-cxx-freeres=no";
	/* Code that changes is decoded again wherever it is. */
	vargv[k++] = (char *)"--smc-check=all";
	vargv[k++] = sockopt = xasprintf("--micadvg-socket=%s", e->sock_path);
	for (size_t i = 0; i < argc; i++)
		vargv[k++] = argv[i];
	venv = valgrind_env(envp, dir);
	if (pipe2(err, O_CLOEXEC) < 0) {
		perror_msg("--engine=valgrind: pipe");
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		perror_msg("--engine=valgrind: fork");
		goto out;
	}
	if (pid == 0) {
		close(err[0]);
		/* No PR_SET_PDEATHSIG: when micad stops recording (a detach)
		 * or dies, the tool finds its connection closed and the
		 * program runs on. */
		fail[0] = tracer_launch_prepare(le);
		fail[1] = errno;
		if (fail[0] == LAUNCH_OK) {
			execve(MICAD_VALGRIND, vargv, venv);
			fail[0] = LAUNCH_EXEC;
			fail[1] = errno;
		}
		if (write(err[1], fail, sizeof(fail)) < 0)
			_exit(127);
		_exit(127);
	}
	close(err[1]);
	err[1] = -1;
	do
		n = read(err[0], fail, sizeof(fail));
	while (n < 0 && errno == EINTR);
	if (n == sizeof(fail)) {
		tracer_launch_failed(fail, fail[0] == LAUNCH_EXEC ? MICAD_VALGRIND : argv[0]);
		waitpid(pid, NULL, 0);
		goto out;
	}
	e->main_pid = pid;
	e->main_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (e->main_pidfd < 0) {
		perror_msg("--engine=valgrind: pidfd_open");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	/* Until its tool says hello, or valgrind gives up. */
	while (!e->main_seen) {
		struct pollfd pf[2] = { { e->listen_fd, POLLIN, 0 }, { e->main_pidfd, POLLIN, 0 } };
		int status;

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror_msg("--engine=valgrind: poll");
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			goto out;
		}
		if (pf[0].revents)
			accept_all(e);
		if (!e->main_seen && pf[1].revents) {
			waitpid(pid, &status, 0);
			error_msg("valgrind could not run '%s' (%s %d; its message is above)",
				  argv[0], WIFSIGNALED(status) ? "killed by signal" : "exit status",
				  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			goto out;
		}
	}
	if (!e->opt.quiet)
		cpu_note();
	if (e->opt.started)
		e->opt.started(e->opt.started_arg, pid);
	ret = 0;
out:
	for (int i = 0; i < 2; i++)
		if (err[i] >= 0)
			close(err[i]);
	if (venv) {
		for (size_t i = 0; venv[i]; i++)
			if (strncmp(venv[i], "VALGRIND_LIB=", 13) == 0)
				free(venv[i]);
		free(venv);
	}
	free(sockopt);
	free(vargv);
	return ret;
}

/* ---- the loop ---- */

static double
tv_seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + tv->tv_usec / 1e6;
}

/* Stop reading: every tool finds its connection closed and lets its
 * program run on without recording.  Each thread is detached. */
static void
detach_all(struct vg_engine *e)
{
	for (struct vproc *p = e->procs; p; p = p->next)
		while (p->threads)
			thread_end(e, p, p->threads, false, 0);
	while (e->procs) {
		struct vproc *p = e->procs;

		p->gone = true;
		proc_finish(e, p);
	}
}

int
vg_engine_loop(struct vg_engine *e)
{
	struct pollfd *pf = NULL;
	void **who = NULL;
	size_t cap = 0;

	clock_gettime(CLOCK_MONOTONIC, &e->t0);
	e->last_progress = e->t0;
	while (e->procs || e->limbo) {
		size_t n = 0;
		int r;

		if (detach_requested) {
			detach_all(e);
			break;
		}
		for (struct vproc *p = e->procs; p; p = p->next)
			n += 2;
		if (n + 1 > cap) {
			cap = 2 * (n + 1);
			pf = xreallocarray(pf, cap, sizeof(*pf));
			who = xreallocarray(who, cap, sizeof(*who));
		}
		n = 0;
		pf[n] = (struct pollfd){ e->listen_fd, POLLIN, 0 };
		who[n++] = NULL;
		for (struct vproc *p = e->procs; p; p = p->next) {
			if (p->conn && !p->conn->held) {
				pf[n] = (struct pollfd){ p->conn->fd, POLLIN, 0 };
				who[n++] = p->conn;
			}
			if (!p->gone && p->pidfd >= 0) {
				pf[n] = (struct pollfd){ p->pidfd, POLLIN, 0 };
				who[n++] = p;
			}
		}
		flush_events(e);
		r = poll(pf, n, POLL_MS);
		if (r < 0 && errno != EINTR) {
			perror_msg("--engine=valgrind: poll");
			break;
		}
		if (e->opt.live_steps)
			atomic_store_explicit(e->opt.live_steps, e->st.steps, memory_order_relaxed);
		show_progress(e, false);
		if (r <= 0)
			continue;
		if (pf[0].revents)
			accept_all(e);
		for (size_t i = 1; i < n; i++) {
			if (!pf[i].revents)
				continue;
			for (struct vproc *p = e->procs; p; p = p->next) {
				if (who[i] == p) {
					p->gone = true;
					if (p->pid == e->main_pid)
						e->main_done = wait4(p->pid, &e->main_status, 0,
								     &e->main_usage) == p->pid;
				} else if (p->conn && who[i] == p->conn && !conn_read(e, p->conn)) {
					conn_free(p->conn);
					p->conn = NULL;
					if (p->pending) {
						struct vconn *c = p->pending;

						p->pending = NULL;
						exec_transition(e, p, c);
					}
				}
			}
		}
		for (struct vproc *p = e->procs, *next; p; p = next) {
			next = p->next;
			if (p->gone && !p->conn && !p->pending) {
				bool in_limbo = false;

				for (struct vconn *c = e->limbo; c; c = c->next)
					in_limbo |= c->p == p;
				if (!in_limbo)
					proc_finish(e, p);
			}
		}
		/* A fork's child whose parent ended without its marker. */
		for (struct vconn **pp = &e->limbo; *pp;) {
			struct vconn *c = *pp;

			if (proc_find(e, c->ppid)) {
				pp = &c->next;
				continue;
			}
			*pp = c->next;
			c->next = NULL;
			c->p->announced = true;
			c->p->cur = thread_start(e, c->p, c->p->pid, 0);
			attach_conn(c->p, c);
		}
	}
	free(pf);
	free(who);
	flush_events(e);
	show_progress(e, true);
	if (e->st.stops)
		error_msg("%llu records of valgrind's tool named no instruction or thread micad "
			  "knows, and were dropped (a bug: please report it)",
			  (unsigned long long)e->st.stops);
	if (e->main_done)
		e->st.tool_cpu_seconds = tv_seconds(&e->main_usage.ru_utime) +
					 tv_seconds(&e->main_usage.ru_stime);
	if (e->opt.live_steps)
		atomic_store_explicit(e->opt.live_steps, e->st.steps, memory_order_relaxed);
	ring_close(e->ring);
	return 0;
}

pid_t
vg_engine_main_pid(const struct vg_engine *e)
{
	return e->main_pid;
}

int
vg_engine_main_pidfd(const struct vg_engine *e)
{
	return e->main_pidfd;
}

bool
vg_engine_main_status(const struct vg_engine *e, int *status)
{
	*status = e->main_status;
	return e->main_done;
}

void
vg_engine_get_stats(const struct vg_engine *e, struct tracer_stats *st)
{
	*st = e->st;
}
