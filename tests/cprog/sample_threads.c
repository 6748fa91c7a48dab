/*
 * A multi-threaded target for attaching in sample mode: three threads
 * each run a fixed amount of work (about 2 s together on one CPU), then
 * the program prints "done 3 <checksum>" (the checksum is the same every
 * run: the work is deterministic) and exits 5.
 */
#include <pthread.h>
#include <stdio.h>

#define N 3
#define WORK 200000000UL

static unsigned long result[N];

static void *
work(void *arg)
{
	unsigned long *out = arg, x = 1;

	for (unsigned long i = 0; i < WORK; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	*out = x;
	return NULL;
}

int
main(void)
{
	pthread_t t[N];
	unsigned long sum = 0;

	for (int i = 0; i < N; i++)
		if (pthread_create(&t[i], NULL, work, &result[i]) != 0)
			return 1;
	for (int i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		sum ^= result[i];
	}
	printf("done %d %lx\n", N, sum);
	return 5;
}
