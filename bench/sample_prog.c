/*
 * The program of 'make bench-sample': about 2 s of single-threaded work
 * spread over a few functions and a call chain a few frames deep (a
 * dynamically linked C program, like most profiled code), then "done".
 * argv[1]: the number of rounds (default 200).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void
leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) static void
mid(unsigned long n, int depth)
{
	if (depth > 0)
		mid(n, depth - 1);
	else
		leaf(n);
	sink++;
}

__attribute__((noinline)) static void
strided(unsigned long n)
{
	static unsigned long a[1 << 16];

	for (unsigned long i = 0; i < n; i++)
		a[(i * 17) & ((1 << 16) - 1)] += i;
	sink += a[7];
}

int
main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;

	for (long r = 0; r < rounds; r++) {
		mid(5000000, 4);
		strided(3000000);
	}
	puts("done");
	return 0;
}
