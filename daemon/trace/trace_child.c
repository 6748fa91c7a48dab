/*
 * The tracer in a process of its own (trace_child.h).
 *
 * Two pipes order the start: the worker writes one byte on "go" when its
 * side is ready (a closed pipe: give up), the child writes one byte on
 * "status" once it traces (an end of file: it could not).  The end is the
 * child's exit, seen through a pidfd, after it wrote its results into the
 * shared page.
 */
#include "config.h"
#include "trace/trace_child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

enum child_phase { PHASE_WAITING, PHASE_TRACING, PHASE_DONE };

#define TICKS_PER_PROGRESS 20

/* Written by the child (but forward, written by the worker); the worker
 * reads numbers only. */
struct child_shared {
	_Atomic uint64_t steps;
	_Atomic uint64_t forward;	/* signals to pass on: bit sig - 1 */
	_Atomic int32_t phase;		/* enum child_phase */
	_Atomic int32_t main_pid;
	_Atomic int32_t cpu;
	_Atomic uint64_t samples, bursts;	/* sample mode's progress */
	int32_t result;			/* tracer_loop()'s */
	int32_t main_ended, main_status;
	struct tracer_stats stats;
	char error[512];		/* why the tracing could not start */
};

struct trace_child {
	pid_t pid;
	int pidfd;
	int go_fd, status_fd;		/* the worker's ends */
	struct child_shared *sh;
	struct ring *ring;
	const struct tracer_options *t;
	bool started, reaped;
	struct timespec t0;
};

/* For the async-signal-safe requests. */
static volatile pid_t the_child;
static struct child_shared *volatile the_shared;

/* ---- in the child ---- */

static struct tracer *child_tracer;

static void
child_on_detach(int sig)
{
	(void)sig;
	tracer_request_detach();
}

/* The worker died (PR_SET_PDEATHSIG): detach every thread cleanly, and
 * never wait for a consumer that is gone. */
static struct ring *child_ring;

static void
child_on_orphaned(int sig)
{
	(void)sig;
	if (child_ring)
		ring_abandon(child_ring);
	tracer_request_detach();
}

static void
child_on_forward(int sig)
{
	uint64_t m = atomic_exchange(&the_shared->forward, 0);

	(void)sig;
	for (int s = 1; s <= 64; s++)
		if (m & (1ULL << (s - 1)))
			tracer_signal_main(s);
}

/* The tracer's progress (about once a second): what the worker's progress
 * line shows besides the steps it reads itself. */
static void
child_progress(void *arg, const struct tracer_stats *st, bool final)
{
	struct child_shared *sh = arg;

	(void)final;
	atomic_store(&sh->samples, st->samples);
	atomic_store(&sh->bursts, st->bursts);
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Close every fd but 0..2 and keep[] (close_range: no /proc needed). */
static void
close_all_but(const int *keep, unsigned n)
{
	int *k = xcalloc(n + 1, sizeof(*k));
	unsigned lo = 3;

	memcpy(k, keep, n * sizeof(*k));
	qsort(k, n, sizeof(*k), cmp_int);
	for (unsigned i = 0; i < n; i++) {
		if (k[i] < 3 || (unsigned)k[i] < lo)
			continue;
		if ((unsigned)k[i] > lo)
			syscall(SYS_close_range, lo, (unsigned)k[i] - 1, 0);
		lo = (unsigned)k[i] + 1;
	}
	syscall(SYS_close_range, lo, ~0U, 0);
	free(k);
}

static void __attribute__((noreturn))
child_main(const struct trace_child_opts *o, const struct tracer_options *topt,
	   struct trace_child *c, int go, int status, char *const *argv, pid_t attach_pid)
{
	static const int detach_sigs[] = { SIGUSR1, SIGTERM, SIGINT, SIGHUP };
	struct tracer_options t = *topt;
	struct sigaction sa;
	pid_t parent = getppid();
	int *keep = xcalloc(o->n_keep + 3, sizeof(*keep));
	sigset_t none;
	char byte;
	int r;

	if (o->n_keep)
		memcpy(keep, o->keep, o->n_keep * sizeof(*keep));
	keep[o->n_keep] = go;
	keep[o->n_keep + 1] = status;
	keep[o->n_keep + 2] = t.target_pidfd;
	close_all_but(keep, o->n_keep + 3);
	free(keep);
	if (o->enter && (r = o->enter(o->arg)) != 0) {
		snprintf(c->sh->error, sizeof(c->sh->error), "%s", last_error_msg());
		_exit(r);
	}
	/* After enter(): a change of credentials clears it.  Not SIGKILL:
	 * the traced process must not die with the worker (a trap of ours
	 * pending, an int3 planted), so the tracer detaches it first. */
	child_ring = c->ring;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = child_on_orphaned;
	sigaction(SIGPWR, &sa, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGPWR) < 0 || getppid() != parent)
		_exit(1);
	sa.sa_handler = child_on_detach;	/* no SA_RESTART: waitpid returns */
	for (size_t i = 0; i < sizeof(detach_sigs) / sizeof(detach_sigs[0]); i++)
		sigaction(detach_sigs[i], &sa, NULL);
	sa.sa_handler = child_on_forward;
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	t.publish = true;
	t.quiet = true;
	t.progress = child_progress;
	t.progress_arg = c->sh;
	t.started = NULL;
	t.live_steps = &c->sh->steps;
	child_tracer = tracer_new(&t, c->ring);
	atomic_store(&c->sh->cpu, tracer_cpu(child_tracer));
	/* Sample mode: the event, chosen with the client's credentials, and
	 * its note on the client's stderr before the worker says anything
	 * (trace_child_fork() waits for this byte). */
	if (t.sample.enabled) {
		if (tracer_prepare(child_tracer) < 0)
			_exit(argv ? 127 : 1);
		byte = 'N';
		if (write(status, &byte, 1) != 1)
			_exit(1);
	}
	if (read(go, &byte, 1) != 1)
		_exit(0);	/* the worker gave up before the start */
	close(go);
	r = argv ? tracer_launch(child_tracer, argv) : tracer_attach(child_tracer, attach_pid);
	if (r < 0) {
		snprintf(c->sh->error, sizeof(c->sh->error), "%s", last_error_msg());
		_exit(argv ? 127 : 1);
	}
	atomic_store(&c->sh->main_pid, tracer_main_pid(child_tracer));
	atomic_store(&c->sh->phase, PHASE_TRACING);
	byte = 'S';
	if (write(status, &byte, 1) != 1)
		tracer_request_detach();	/* the worker is gone */
	close(status);
	c->sh->result = tracer_loop(child_tracer);
	if (c->sh->result < 0)
		snprintf(c->sh->error, sizeof(c->sh->error), "%s", last_error_msg());
	tracer_get_stats(child_tracer, &c->sh->stats);
	{
		int st;

		c->sh->main_ended = tracer_main_status(child_tracer, &st);
		c->sh->main_status = st;
	}
	atomic_store(&c->sh->phase, PHASE_DONE);
	_exit(0);
}

/* ---- in the worker ---- */

struct trace_child *
trace_child_fork(const struct trace_child_opts *o, const struct tracer_options *t,
		 struct ring *ring, char *const *argv, pid_t attach_pid)
{
	struct trace_child *c = xcalloc(1, sizeof(*c));
	int go[2] = { -1, -1 }, st[2] = { -1, -1 };

	c->pidfd = -1;
	c->ring = ring;
	c->t = t;
	c->sh = mmap(NULL, sizeof(*c->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (c->sh == MAP_FAILED) {
		perror_msg("cannot start the tracer process: mmap");
		free(c);
		return NULL;
	}
	atomic_store(&c->sh->cpu, -1);
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(st, O_CLOEXEC) < 0) {
		perror_msg("cannot start the tracer process: pipe");
		goto fail;
	}
	the_shared = c->sh;
	c->pid = fork();
	if (c->pid < 0) {
		perror_msg("cannot start the tracer process: fork");
		goto fail;
	}
	if (c->pid == 0)
		child_main(o, t, c, go[0], st[1], argv, attach_pid);
	close(go[0]);
	close(st[1]);
	c->go_fd = go[1];
	c->status_fd = st[0];
	the_child = c->pid;
	/* Our child, not reaped before trace_child_free: surely this one. */
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (c->pidfd < 0) {
		perror_msg("cannot watch the tracer process (pidfd_open)");
		trace_child_free(c);
		return NULL;
	}
	if (t->sample.enabled) {
		/* The event chosen and said (or the child said why not). */
		char byte = 0;
		ssize_t n;

		do
			n = read(c->status_fd, &byte, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1 || byte != 'N') {
			trace_child_free(c);
			return NULL;
		}
	}
	return c;
fail:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (st[i] >= 0)
			close(st[i]);
	}
	munmap(c->sh, sizeof(*c->sh));
	free(c);
	return NULL;
}

const char *
trace_child_error(const struct trace_child *c)
{
	return c->sh->error;
}

int
trace_child_start(struct trace_child *c)
{
	char byte = 'G';
	ssize_t n;

	clock_gettime(CLOCK_MONOTONIC, &c->t0);
	if (write(c->go_fd, &byte, 1) != 1) {
		perror_msg("cannot start the tracer process (it is gone)");
		return -1;
	}
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->status_fd, &byte, 1);
	while (n < 0 && errno == EINTR);
	close(c->status_fd);
	c->status_fd = -1;
	if (n != 1)
		return -1;
	c->started = true;
	if (c->t->started)
		c->t->started(c->t->started_arg, atomic_load(&c->sh->main_pid));
	return 0;
}

static void
progress(struct trace_child *c, bool final)
{
	struct tracer_stats st;
	struct timespec now;

	if (final) {
		st = c->sh->stats;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &now);
		memset(&st, 0, sizeof(st));
		st.steps = atomic_load(&c->sh->steps);
		st.samples = atomic_load(&c->sh->samples);
		st.bursts = atomic_load(&c->sh->bursts);
		st.seconds = (double)(now.tv_sec - c->t0.tv_sec) +
			     (now.tv_nsec - c->t0.tv_nsec) / 1e9;
	}
	if (c->t->live_steps)
		atomic_store_explicit(c->t->live_steps, st.steps, memory_order_relaxed);
	if (c->t->progress)
		c->t->progress(c->t->progress_arg, &st, final);
}

static int
reap(struct trace_child *c, int *status)
{
	pid_t r;

	do
		r = waitpid(c->pid, status, 0);
	while (r < 0 && errno == EINTR);
	c->reaped = true;
	the_child = 0;
	return r == c->pid ? 0 : -1;
}

int
trace_child_wait(struct trace_child *c)
{
	struct pollfd pf = { c->pidfd, POLLIN, 0 };
	int status, ret = 0;

	/* The live count often (the daemon shows it), progress once a
	 * second. */
	for (unsigned tick = 1;; tick++) {
		int r = poll(&pf, 1, 1000 / TICKS_PER_PROGRESS);

		if (r < 0 && errno != EINTR) {
			perror_msg("poll on the tracer process");
			break;
		}
		if (r > 0)
			break;
		if (c->t->live_steps)
			atomic_store_explicit(c->t->live_steps, atomic_load(&c->sh->steps),
					      memory_order_relaxed);
		if (tick % TICKS_PER_PROGRESS == 0)
			progress(c, false);
	}
	if (reap(c, &status) < 0) {
		perror_msg("waitpid of the tracer process");
		ret = -1;
	} else if (WIFSIGNALED(status)) {
		error_msg("the tracer process died of signal %d (%s): tracing ended there; "
			  "what it traced is kept", WTERMSIG(status), strsignal(WTERMSIG(status)));
		ret = -1;
	} else if (atomic_load(&c->sh->phase) != PHASE_DONE || WEXITSTATUS(status) != 0) {
		error_msg("the tracer process ended abnormally (status %d): what it traced is "
			  "kept", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		ret = -1;
	} else {
		progress(c, true);
		ret = c->sh->result < 0 ? -1 : 0;
	}
	/* Closed by the child at its end; not if it died. */
	ring_close(c->ring);
	return ret;
}

int
trace_child_cpu(const struct trace_child *c)
{
	return atomic_load(&c->sh->cpu);
}

pid_t
trace_child_main_pid(const struct trace_child *c)
{
	return atomic_load(&c->sh->main_pid);
}

bool
trace_child_main_status(const struct trace_child *c, int *status)
{
	if (atomic_load(&c->sh->phase) != PHASE_DONE) {
		*status = 0;
		return false;
	}
	*status = c->sh->main_status;
	return c->sh->main_ended;
}

void
trace_child_stats(const struct trace_child *c, struct tracer_stats *st)
{
	if (atomic_load(&c->sh->phase) == PHASE_DONE)
		*st = c->sh->stats;
	else
		memset(st, 0, sizeof(*st));
}

void
trace_child_free(struct trace_child *c)
{
	int status;

	if (!c)
		return;
	if (!c->reaped) {
		if (c->go_fd >= 0) {
			/* Not started: a closed pipe tells it to go. */
			close(c->go_fd);
			c->go_fd = -1;
		} else {
			kill(c->pid, SIGKILL);
		}
		reap(c, &status);
	}
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->status_fd >= 0)
		close(c->status_fd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	the_shared = NULL;
	munmap(c->sh, sizeof(*c->sh));
	free(c);
}

void
trace_child_request_detach(void)
{
	pid_t p = the_child;

	tracer_request_detach();
	if (p > 0)
		kill(p, SIGUSR1);
}

void
trace_child_signal(int sig)
{
	struct child_shared *sh = the_shared;
	pid_t p = the_child;

	if (!sh || p <= 0 || sig < 1 || sig > 64)
		return;
	atomic_fetch_or(&sh->forward, 1ULL << (sig - 1));
	kill(p, SIGUSR2);
}
