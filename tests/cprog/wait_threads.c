/*
 * Three threads (main and two) that wait, 10 ms at a time, until the file
 * argv[1] exists, then exit 3: a target whose threads a test can give
 * different CPU affinities (tests/tracer_affinity.sh).
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

static const char *go;

static void *
wait_go(void *arg)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 12000 && access(go, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
	return arg;
}

int
main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc != 2)
		return 2;
	go = argv[1];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, wait_go, NULL) != 0)
			return 1;
	wait_go(NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 3;
}
