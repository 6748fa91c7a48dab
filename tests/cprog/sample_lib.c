/* The shared library of tests/cprog/sample_hot.c: its loop, in a module
 * of its own. */
#include "sample_lib.h"

volatile unsigned long lib_sink;

/* A call at the end: a frame pointer for --call-graph fp (gcc omits it
 * in leaf functions). */
__attribute__((noinline)) static void
lib_done(void)
{
	lib_sink++;
}

__attribute__((noinline)) void
lib_work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		lib_sink += i * i;
	lib_done();
}
