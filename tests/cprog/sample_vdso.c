/*
 * Time spent in the vDSO: clock_gettime(CLOCK_MONOTONIC) in a loop (no
 * system call: the vDSO answers it), then "done".  Sample mode must name
 * the vDSO's function from the image in the process's memory.
 */
#include <stdio.h>
#include <time.h>

int
main(void)
{
	struct timespec ts;
	unsigned long sum = 0;

	for (int i = 0; i < 4000000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += (unsigned long)ts.tv_nsec;
	}
	puts(sum ? "done" : "zero");
	return 0;
}
