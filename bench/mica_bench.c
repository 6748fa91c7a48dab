/*
 * MICA analyses throughput: events per second for each analysis and for
 * `all` on a generated stream with a realistic mix (loads, stores,
 * branches, stack traffic, REP strings), memstackdist's LRU stack alone on
 * small and large footprints, and peak memory; and, in the same run, the
 * raw single-step rate (a bare PTRACE_SINGLESTEP loop, as bench/step_bench
 * measures it), so that the analyses' rate is printed as a multiple of
 * what tracing can deliver.  Built by 'make bench-mica' (and 'make bench').
 *
 * Rates are per second of CPU time of this process (one core), the median
 * of 3 runs: the machine is shared, and CPU time and medians keep the
 * figures steady.  The single-step rate is per wall second (the tracee's
 * run time and the kernel's are what limit it).
 *
 * Usage: mica_bench [EVENTS [ANALYSIS]]   (default 10^7, every analysis)
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mica/lru_stack.h"
#include "mica/mica_run.h"

#define N_STATIC	4096
#define BLOCK_LEN	6	/* instructions per basic block, the last a branch */

static const char *const cat_names[] = {
	"DATAXFER", "BINARY", "LOGICAL", "PUSH", "POP", "COND_BR", "STRINGOP", "SSE", "SHIFT",
	"MISC",
};
enum { C_DATAXFER, C_BINARY, C_LOGICAL, C_PUSH, C_POP, C_COND_BR, C_STRINGOP, C_SSE, C_SHIFT,
       C_MISC, N_CATS };

static const char *
cat_name(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return cat_names[ii->category];
}

static const char *
iclass_name(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return ii->category == C_STRINGOP ? "REP_MOVSB" : "X";
}

static const struct mica_names names = { cat_name, iclass_name, NULL };

static struct insn_info prog[N_STATIC];
static uint8_t kind[N_STATIC];	/* 0 alu, 1 load, 2 store, 3 rmw, 4 push, 5 pop, 6 rep */
static uint8_t bias[N_STATIC];

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static inline uint64_t
xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
make_program(void)
{
	for (unsigned i = 0; i < N_STATIC; i++) {
		struct insn_info *ii = &prog[i];
		uint64_t r = xorshift();

		memset(ii, 0, sizeof(*ii));
		ii->pc = 0x400000 + i * 4;
		ii->len = 4;
		ii->n_regs_read = 1 + r % 2;
		ii->regs_read[0] = 1 + (r >> 8) % 16;
		ii->regs_read[1] = 1 + (r >> 12) % 16;
		ii->n_regs_written = 1;
		ii->regs_written[0] = 1 + (r >> 16) % 16;
		ii->reg_operand_count = 1 + (r >> 20) % 3;
		if (i % BLOCK_LEN == BLOCK_LEN - 1) {
			ii->category = C_COND_BR;
			ii->branch = BR_COND;
			ii->n_regs_written = 0;
			bias[i] = (r >> 24) % 100;
			continue;
		}
		unsigned k = (r >> 24) % 100;

		if (k < 30) {		/* load */
			kind[i] = 1;
			ii->category = C_DATAXFER;
			ii->flags = INSN_HAS_MEM_READ;
		} else if (k < 42) {	/* store */
			kind[i] = 2;
			ii->category = C_DATAXFER;
			ii->flags = INSN_HAS_MEM_WRITE;
		} else if (k < 47) {	/* read-modify-write */
			kind[i] = 3;
			ii->category = C_BINARY;
			ii->flags = INSN_HAS_MEM_READ | INSN_HAS_MEM_WRITE;
		} else if (k < 52) {
			kind[i] = 4;
			ii->category = C_PUSH;
			ii->flags = INSN_HAS_MEM_WRITE;
		} else if (k < 57) {
			kind[i] = 5;
			ii->category = C_POP;
			ii->flags = INSN_HAS_MEM_READ;
		} else if (k < 58) {
			kind[i] = 6;
			ii->category = C_STRINGOP;
			ii->flags = INSN_HAS_MEM_READ | INSN_HAS_MEM_WRITE | INSN_REP;
		} else {
			kind[i] = 0;
			ii->category = (uint8_t)(k < 75 ? C_BINARY : k < 85 ? C_LOGICAL :
						 k < 92 ? C_SSE : k < 97 ? C_SHIFT : C_MISC);
		}
	}
}

/* The generator: walks basic blocks; data from the stack (hot), array
 * walks (sequential) and a heap (random: 39 in 40 within a hot 256 KiB,
 * the rest over 64 MiB). */
struct gen {
	unsigned pc_idx;
	uint64_t sp, walk;
	unsigned rep_left;
	uint32_t rep_count;
};

static inline void
gen_next(struct gen *g, struct insn_event *ev)
{
	unsigned i = g->pc_idx;
	const struct insn_info *ii = &prog[i];
	uint64_t r = xorshift();

	ev->info = ii;
	ev->pc = ii->pc;
	ev->flags = 0;
	ev->n_mem = 0;
	switch (ii->branch == BR_COND ? 7 : kind[i]) {
	case 1:
	case 3: {
		uint64_t a = r % 4 == 0 ? 0x10000000 + (r % 40 ? (r >> 8) % (256 << 10)
							     : (r >> 8) % (64 << 20))
			: r % 4 == 1 ? (g->walk += 8) % (8 << 20) + 0x20000000
			: g->sp + (r >> 8) % 256;

		ev->mem[ev->n_mem++] = (struct mem_access){ a & ~7ull, 8, MEM_READ, 0, 0 };
		if (kind[i] == 3)
			ev->mem[ev->n_mem++] = (struct mem_access){ a & ~7ull, 8, MEM_WRITE, 0, 0 };
		break;
	}
	case 2: {
		uint64_t a = r % 2 ? g->sp + (r >> 8) % 256
			: 0x10000000 + (r % 40 ? (r >> 8) % (256 << 10) : (r >> 8) % (64 << 20));

		ev->mem[ev->n_mem++] = (struct mem_access){ a & ~7ull, 8, MEM_WRITE, 0, 0 };
		break;
	}
	case 4:
		g->sp -= 8;
		ev->mem[ev->n_mem++] = (struct mem_access){ g->sp, 8, MEM_WRITE, 0, 0 };
		break;
	case 5:
		ev->mem[ev->n_mem++] = (struct mem_access){ g->sp, 8, MEM_READ, 0, 0 };
		g->sp += 8;
		break;
	case 6:
		if (!g->rep_left) {
			g->rep_left = g->rep_count = 1 + (uint32_t)(r % 16);
			ev->flags = EV_REP | EV_REP_FIRST;
		} else {
			ev->flags = EV_REP;
		}
		ev->rep_count = g->rep_left;
		ev->mem[ev->n_mem++] = (struct mem_access){ 0x30000000 + g->rep_left, 1, MEM_READ, 0, 0 };
		ev->mem[ev->n_mem++] = (struct mem_access){ 0x38000000 + g->rep_left, 1, MEM_WRITE, 0, 0 };
		if (--g->rep_left)
			return;	/* next iteration of the same instruction */
		break;
	case 7:
		if ((r >> 8) % 100 < bias[i]) {
			ev->flags = EV_TAKEN;
			g->pc_idx = (unsigned)((i / BLOCK_LEN + (r >> 20) % 9 + N_STATIC) % (N_STATIC / BLOCK_LEN)) *
				BLOCK_LEN;
			if (g->sp < 0x7fff0000 - 4096)
				g->sp = 0x7fff0000;
			return;
		}
		break;
	}
	g->pc_idx = (i + 1) % (N_STATIC / BLOCK_LEN * BLOCK_LEN);
}

/* CPU time of this (single-threaded) process: the rate on one core, and
 * steady on a machine shared with other work, which wall time is not. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long
peak_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int
count_interval(void *arg, const struct mica_interval *iv)
{
	(void)iv;
	++*(uint64_t *)arg;
	return 0;
}

static double
gen_only(uint64_t n)
{
	struct gen g = { .sp = 0x7fff0000 };
	struct insn_event ev;
	uint64_t sink = 0;
	double t0 = now();

	rng = 0x9e3779b97f4a7c15ull;
	for (uint64_t i = 0; i < n; i++) {
		gen_next(&g, &ev);
		sink += ev.n_mem;
	}
	if (sink == 42)
		puts("");
	return now() - t0;
}

#define RUNS	3

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* One run of analysis type over n events: CPU seconds. */
static double
run_analysis(const char *type, uint64_t n, uint64_t *intervals)
{
	struct mica_config cfg;
	char conf[128], err[256];
	struct mica_run *run;
	struct gen g = { .sp = 0x7fff0000 };
	struct insn_event ev;

	snprintf(conf, sizeof(conf), "analysis_type: %s\ninterval_size: 1000000\nilp_size: 64\n", type);
	mica_config_init(&cfg);
	if (mica_config_parse(&cfg, "bench", conf, strlen(conf), err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	*intervals = 0;
	run = mica_run_new(&cfg, &names, 1, count_interval, intervals, err, sizeof(err));
	if (!run) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	rng = 0x9e3779b97f4a7c15ull;
	double t0 = now();

	for (uint64_t i = 0; i < n; i++) {
		gen_next(&g, &ev);
		if (mica_run_event(run, &ev) < 0) {
			fprintf(stderr, "mica_run_event failed\n");
			exit(1);
		}
	}
	if (mica_run_finish(run) < 0) {
		fprintf(stderr, "mica_run_finish failed\n");
		exit(1);
	}
	double t = now() - t0;

	mica_run_free(run);
	mica_config_free(&cfg);
#ifdef __GLIBC__
	malloc_trim(0);	/* so that the next run's peak memory is its own */
#endif
	return t;
}

/* The median rate of `type` (M events/s), printed with the rate of the
 * analysis alone (the generator's time taken out) and the ratio to the
 * single-step rate (0: not measured). */
static double
bench_analysis(const char *type, uint64_t n, double t_gen, double step_rate)
{
	double rate[RUNS], alone[RUNS];
	uint64_t intervals = 0;

	for (int r = 0; r < RUNS; r++) {
		double t = run_analysis(type, n, &intervals);
		double ta = t - t_gen > 1e-9 ? t - t_gen : 1e-9;

		rate[r] = n / t / 1e6;
		alone[r] = n / ta / 1e6;
	}
	double m = median(rate, RUNS), ma = median(alone, RUNS);

	printf("%-14s %8.2f M events/s (analysis only: %8.2f M/s)", type, m, ma);
	if (step_rate > 0)
		printf("  %7.0f x the trap rate", m * 1e6 / step_rate);
	printf("  %3" PRIu64 " intervals  peak RSS %ld MiB\n", intervals, peak_kib() / 1024);
	return m;
}

static void
bench_lru(const char *what, uint64_t n, uint64_t footprint)
{
	double rate[RUNS];
	uint64_t cold = 0;
	double held = 0;

	for (int r = 0; r < RUNS; r++) {
		struct lru_stack *s = lru_stack_new();
		double t0;

		if (!s) {
			fprintf(stderr, "lru_stack_new: out of memory\n");
			exit(1);
		}
		rng = 12345;
		cold = 0;
		t0 = now();
		for (uint64_t i = 0; i < n; i++)
			cold += lru_stack_access(s, xorshift() % footprint) == LRU_STACK_COLD;
		rate[r] = n / (now() - t0) / 1e6;
		held = lru_stack_bytes(s) / 1048576.0;
		lru_stack_free(s);
#ifdef __GLIBC__
		malloc_trim(0);
#endif
	}
	printf("memstackdist stack, %-26s %8.2f M accesses/s  (%" PRIu64 " cold, %.1f MiB held)"
	       "  peak RSS %ld MiB\n", what, median(rate, RUNS), cold, held, peak_kib() / 1024);
}

static double
wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * The raw single-step rate: a child that spins, stepped by
 * PTRACE_SINGLESTEP + waitpid `steps` times, both pinned to this CPU (as
 * micad runs by default).  Steps per wall second, or 0 (with a message)
 * if ptrace is not allowed here.
 */
static double
step_rate(unsigned long steps)
{
	cpu_set_t set, old;
	int status, pinned;
	pid_t pid;
	double t0, t;

	pinned = sched_getaffinity(0, sizeof(old), &old) == 0;
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &set);
	if (pinned && sched_setaffinity(0, sizeof(set), &set) < 0)
		pinned = 0;
	pid = fork();
	if (pid < 0) {
		perror("mica_bench: fork");
		return 0;
	}
	if (pid == 0) {
		volatile unsigned long x = 0;

		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(127);
		raise(SIGSTOP);
		for (;;)
			x++;
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status)) {
		fprintf(stderr, "mica_bench: the single-step child did not stop (ptrace not allowed?)\n");
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return 0;
	}
	t0 = wall();
	for (unsigned long i = 0; i < steps; i++) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0 || waitpid(pid, &status, 0) < 0) {
			fprintf(stderr, "mica_bench: PTRACE_SINGLESTEP: %s\n", strerror(errno));
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return 0;
		}
	}
	t = wall() - t0;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	return steps / t;
}

int
main(int argc, char **argv)
{
	static const char *const types[] = {
		"ilp", "ilp_one", "itypes", "ppm", "reg", "stride", "memfootprint", "memstackdist",
		"all",
	};
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	double steps[RUNS], step = 0, all = 0;

	make_program();
	if (argc <= 2) {
		for (int r = 0; r < RUNS; r++)
			steps[r] = step_rate(100000);
		step = median(steps, RUNS);
		if (step > 0)
			printf("raw single-step rate (PTRACE_SINGLESTEP + waitpid, pinned, median of %d):"
			       " %.0f steps/s\n", RUNS, step);
	}

	double g[RUNS];

	for (int r = 0; r < RUNS; r++)
		g[r] = gen_only(n);

	double t_gen = median(g, RUNS);

	printf("MICA analyses on %" PRIu64 " generated events (interval_size 1000000; "
	       "rates per CPU second, median of %d); generator alone: %.2f M events/s\n",
	       n, RUNS, n / t_gen / 1e6);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (argc > 2 && strcmp(argv[2], types[i]) != 0)
			continue;
		double m = bench_analysis(types[i], n, t_gen, step);

		if (strcmp(types[i], "all") == 0)
			all = m;
	}
	if (argc > 2)
		return 0;
	bench_lru("1 K blocks random:", 20000000, 1024);
	bench_lru("64 K blocks random:", 20000000, 65536);
	bench_lru("4 M blocks uniform:", 20000000, 4u << 20);
	if (step > 0 && all > 0)
		printf("all / raw single-step: %.2f M events/s / %.0f steps/s = %.0f\n", all, step,
		       all * 1e6 / step);
	return 0;
}
