/*
 * The raw single-step rate: fork, exec the program under PTRACE_TRACEME,
 * then PTRACE_SINGLESTEP + waitpid until it exits, nothing else.  This is
 * the ceiling micad's step-mode tracer is measured against
 * (step_bench.sh).  Usage: step_bench [--pin] PROGRAM [ARGS...]
 * Prints: "raw STEPS steps in SECONDS s: RATE steps/s".
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	int pin = argc > 1 && strcmp(argv[1], "--pin") == 0;
	char **prog = argv + 1 + pin;
	struct timespec t0, t1;
	unsigned long long steps = 0;
	int status;
	pid_t pid;

	if (!prog[0]) {
		fprintf(stderr, "usage: step_bench [--pin] PROGRAM [ARGS...]\n");
		return 2;
	}
	if (pin) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(sched_getcpu(), &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(prog[0], prog);
		perror(prog[0]);
		_exit(127);
	}
	waitpid(pid, &status, 0);	/* the exec SIGTRAP */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL);
		waitpid(pid, &status, 0);
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		steps++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("raw %llu steps in %.3f s: %.0f steps/s\n", steps, s, steps / s);
	return 0;
}
