/*
 * A profile with a known shape, for sample mode: hot() takes about 70% of
 * the time, called half from caller_a() and half from caller_b(); cold()
 * about 10%; lib_work() in a shared library (libsample_lib.so) about 10%;
 * and the rest in a library loaded with dlopen (argv[1]) whose work is
 * the C++ function sample_ns::spin(unsigned long), about 10%.  Each
 * function runs the same loop, so time goes by iteration count: 7 units
 * to hot, 1 to each other.  Prints "done" and exits 0.
 *
 * Built -O1 without inlining or sibling calls, so every call is a real
 * frame: the unwinder must find main -> caller_a/caller_b -> hot.  Each
 * work function ends with a call, so that gcc gives it a frame pointer
 * (it omits it in leaf functions even with -fno-omit-frame-pointer) and
 * --call-graph fp sees its caller too.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "sample_lib.h"

#define UNIT 80000000UL

volatile unsigned long sink;

__attribute__((noinline)) void
work_done(void)
{
	sink++;
}

__attribute__((noinline)) void
hot(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
	work_done();
}

__attribute__((noinline)) void
cold(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
	work_done();
}

__attribute__((noinline)) void
caller_a(void)
{
	hot(UNIT * 7 / 2 / 4);
}

__attribute__((noinline)) void
caller_b(void)
{
	hot(UNIT * 7 / 2 / 4);
}

int
main(int argc, char **argv)
{
	void (*dl_work)(unsigned long);
	void *h;

	if (argc != 2) {
		fprintf(stderr, "usage: sample_hot LIBRARY_TO_DLOPEN\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "sample_hot: %s\n", dlerror());
		return 1;
	}
	*(void **)&dl_work = dlsym(h, "dl_work");
	if (!dl_work) {
		fprintf(stderr, "sample_hot: %s\n", dlerror());
		return 1;
	}
	/* Four rounds, so every part spreads over the run. */
	for (int r = 0; r < 4; r++) {
		caller_a();
		caller_b();
		cold(UNIT / 4);
		lib_work(UNIT / 4);
		dl_work(UNIT / 4);
	}
	puts("done");
	return 0;
}
