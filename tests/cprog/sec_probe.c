/*
 * Targets for the daemon's security tests (tests/daemon_security.sh):
 *   sec_probe euid FILE    print "euid=N read=yes|no" (FILE opened for
 *                          reading): installed setuid root, it shows
 *                          whether a traced run kept the privileges
 *   sec_probe nodump GO    prctl(PR_SET_DUMPABLE, 0), then wait until the
 *                          file GO exists (at most a minute): the
 *                          ssh-agent pattern, which only root may trace
 *   sec_probe wait GO      the same without giving up dumpability
 * Waiting ends by creating GO.done: the process ended by itself, unharmed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int
wait_for(const char *go)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	char done[4096];
	int fd;

	for (int i = 0; i < 3000 && access(go, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
	snprintf(done, sizeof(done), "%s.done", go);
	fd = open(done, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0)
		return 1;
	close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "euid") == 0) {
		int fd = open(argv[2], O_RDONLY);

		printf("euid=%d read=%s\n", (int)geteuid(), fd >= 0 ? "yes" : "no");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "nodump") == 0) {
		if (prctl(PR_SET_DUMPABLE, 0) < 0)
			return 1;
		return wait_for(argv[2]);
	}
	if (argc == 3 && strcmp(argv[1], "wait") == 0)
		return wait_for(argv[2]);
	fprintf(stderr, "usage: sec_probe euid FILE | nodump GO | wait GO\n");
	return 2;
}
