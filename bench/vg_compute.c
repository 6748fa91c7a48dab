/*
 * A compute-bound program for bench/vg_bench.sh: a multiplicative hash and
 * a floating-point sum, no memory traffic to speak of.  Argument: the
 * number of iterations (6 instructions each).
 */
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	unsigned long h = 1;
	double x = 0;

	for (long i = 0; i < n; i++) {
		h = h * 6364136223846793005UL + (unsigned long)i;
		x += (double)(h >> 40) * 1e-9;
	}
	printf("%lu %.3f\n", h, x);
	return 0;
}
