/*
 * A small static glibc program for the tracer's comparison with callgrind
 * (tests/tracer_callgrind.sh) and for the leapfrog-vs-TF equality test
 * (tests/tracer_leapfrog.sh): loops, calls (a recursion), array work and
 * memcpy.  Built with 'gcc -O1 -static' by its own rule (tests/tracer.mk),
 * never with the build's CFLAGS.
 *
 * work() and everything it calls (fill, sum, fib, mix) are the program's
 * own code: no glibc routine, so no ifunc-resolved string function whose
 * variant depends on the CPU features glibc detects.  main() calls
 * memcpy (an ifunc: under valgrind glibc sees other CPUID bits and picks
 * another variant) and printf.
 */
#include <stdio.h>
#include <string.h>

#define N 64
#define NOINLINE __attribute__((noinline, noclone))

static int a[N];
static char src[256], dst[256];
/* volatile: memcpy is a real call with a length gcc cannot see. */
static volatile size_t copy_len = 200;

static NOINLINE void
fill(int *v, int n, int seed)
{
	for (int i = 0; i < n; i++)
		v[i] = (i * 7 + seed) & 31;
}

static NOINLINE long
sum(const int *v, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

static NOINLINE int
fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Data-dependent branches: odd/even and a threshold. */
static NOINLINE long
mix(const int *v, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++) {
		if (v[i] & 1)
			s += v[i] * 3;
		else if (v[i] > 16)
			s -= v[i];
		else
			s ^= v[i];
	}
	return s;
}

static NOINLINE long
work(void)
{
	long s = 0;

	for (int r = 0; r < 20; r++) {
		fill(a, N, r);
		s += sum(a, N);
		s += mix(a, N);
	}
	return s + fib(14);
}

int
main(void)
{
	long s, c = 0;

	for (int i = 0; i < 256; i++)
		src[i] = (char)i;
	for (int i = 0; i < 8; i++) {
		memcpy(dst, src + i, copy_len);
		c += dst[i * 3];
	}
	s = work();
	printf("work %ld copy %ld\n", s, c);
	return 0;
}
