/*
 * A memory-bound program for bench/vg_bench.sh: a pointer chase through a
 * random cyclic permutation of 4 M longs (32 MiB: every step misses the
 * caches).  Argument: the number of steps; building the permutation comes
 * first (about 30 instructions per element).
 */
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 4000000, n = 1L << 22, p = 0;
	long *next = malloc(n * sizeof(*next)), *perm = malloc(n * sizeof(*perm));
	unsigned long r = 12345;

	if (!next || !perm)
		return 1;
	for (long i = 0; i < n; i++)
		perm[i] = i;
	for (long i = n - 1; i > 0; i--) {
		long j, t;

		r = r * 6364136223846793005UL + 1442695040888963407UL;
		j = (long)((r >> 33) % (unsigned long)(i + 1));
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (long i = 0; i < n; i++)
		next[perm[i]] = perm[(i + 1) % n];
	for (long s = 0; s < steps; s++)
		p = next[p];
	printf("%ld\n", p);
	return 0;
}
