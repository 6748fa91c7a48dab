/*
 * A program that handles its own SIGTRAPs, for tests/tracer_sigtrap.sh:
 * under micad it must behave as it does alone (its traps told apart from
 * micad's by their siginfo, its handler never reset by a step while it
 * blocks SIGTRAP).  argv[1]:
 *   send   raise(), kill() and tgkill() of itself: "traps 3", exit 0
 *   int3   two int3 instructions: exit 10 + traps (12)
 *   block  SIGTRAP blocked, raised (pending), then unblocked: the handler
 *          runs at the unblock, and the mask was kept while blocked:
 *          "pending 1 traps 1", exit 0
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t traps;

static void
on_trap(int sig)
{
	(void)sig;
	traps++;
}

int
main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_trap };
	sigset_t set, pend;

	sigemptyset(&sa.sa_mask);
	if (argc != 2 || sigaction(SIGTRAP, &sa, NULL) < 0)
		return 2;
	if (strcmp(argv[1], "send") == 0) {
		raise(SIGTRAP);
		kill(getpid(), SIGTRAP);
		syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGTRAP);
		printf("traps %d\n", (int)traps);
		return 0;
	}
	if (strcmp(argv[1], "int3") == 0) {
		__asm__ volatile("int3");
		__asm__ volatile("int3");
		return 10 + traps;
	}
	if (strcmp(argv[1], "block") == 0) {
		sigemptyset(&set);
		sigaddset(&set, SIGTRAP);
		sigprocmask(SIG_BLOCK, &set, NULL);
		raise(SIGTRAP);
		sigpending(&pend);
		printf("pending %d ", sigismember(&pend, SIGTRAP));
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		printf("traps %d\n", (int)traps);
		return 0;
	}
	return 2;
}
