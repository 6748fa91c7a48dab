/*
 * Send raw bytes to a loopback HTTP server and print the status line of
 * the answer ("closed" if the server closed without one, "timeout" if none
 * came in time): for requests curl will not send (NUL bytes, garbage
 * request lines, no Host or two of them) and for many requests in a row.
 *
 *   http_raw [-n COUNT] [-t SECONDS] [-k | -c] PORT 'escaped bytes'  (\r \n \0 \\ only)
 *   http_raw [-n COUNT] [-t SECONDS] [-k | -c] PORT - <request    (bytes as they are)
 *
 * -n sends the bytes COUNT times, each on a new connection, one status
 * line printed per answer; it stops after a "timeout" or "closed" (the
 * server failed, the others would only wait as long).  -t is the deadline for each
 * answer (default 10 s).  The write side is shut down after the request,
 * so a server waiting for more sees the end; -k keeps it open, as a
 * browser does; -c closes the connection at once without waiting for an
 * answer and prints "sent" (a client that gives up: the server still
 * parses the request).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "util.h"

static void
usage(void)
{
	error_msg_and_die("usage: http_raw [-n COUNT] [-t SECONDS] [-k] PORT BYTES");
}

/* One request on a new connection; its status line into line. */
static void
one(unsigned port, const char *buf, size_t n, unsigned timeout_s, char mode, char *line,
    size_t size)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = timeout_s };
	size_t got = 0;
	bool timed_out = false;
	int fd;

	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		perror_msg_and_die("socket");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		perror_msg_and_die("setsockopt SO_RCVTIMEO");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		perror_msg_and_die("connect to 127.0.0.1:%u", port);
	if (write(fd, buf, n) != (ssize_t)n)
		perror_msg_and_die("write");
	if (mode == 'c') {
		snprintf(line, size, "sent");
		close(fd);
		return;
	}
	if (mode != 'k' && shutdown(fd, SHUT_WR) < 0)
		perror_msg_and_die("shutdown");
	while (got < size - 1) {
		ssize_t r = read(fd, line + got, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			timed_out = true;
			break;
		}
		if (r <= 0 || line[got] == '\n')
			break;
		got += (size_t)r;
	}
	line[got] = '\0';
	if (got && line[got - 1] == '\r')
		line[got - 1] = '\0';
	if (!got)
		snprintf(line, size, "%s", timed_out ? "timeout" : "closed");
	close(fd);
}

int
main(int argc, char **argv)
{
	unsigned long long port, count = 1, timeout_s = 10;
	char mode = 0;
	char *buf, line[512];
	size_t n = 0;
	int opt;

	program_name = "http_raw";
	while ((opt = getopt(argc, argv, "n:t:kc")) != -1) {
		switch (opt) {
		case 'n':
			if (parse_u64(optarg, &count) < 0 || count == 0)
				usage();
			break;
		case 't':
			if (parse_u64(optarg, &timeout_s) < 0 || timeout_s == 0 || timeout_s > 3600)
				usage();
			break;
		case 'k':
		case 'c':
			if (mode)
				usage();
			mode = (char)opt;
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2 || parse_u64(argv[optind], &port) < 0 || port > 65535)
		usage();
	if (!strcmp(argv[optind + 1], "-")) {
		/* Longer than one argument may be (128 KiB). */
		size_t cap = 1 << 16;
		ssize_t r;

		buf = xmalloc(cap);
		while ((r = read(0, buf + n, cap - n)) != 0) {
			if (r < 0) {
				if (errno == EINTR)
					continue;
				perror_msg_and_die("read the request from stdin");
			}
			n += (size_t)r;
			if (n == cap)
				buf = xreallocarray(buf, cap *= 2, 1);
		}
	} else {
		buf = xmalloc(strlen(argv[optind + 1]) + 1);
		for (const char *p = argv[optind + 1]; *p; p++) {
			if (*p == '\\' && p[1]) {
				p++;
				buf[n++] = *p == 'r' ? '\r' : *p == 'n' ? '\n' : *p == '0' ? '\0' : *p;
			} else {
				buf[n++] = *p;
			}
		}
	}
	for (unsigned long long i = 0; i < count; i++) {
		one((unsigned)port, buf, n, (unsigned)timeout_s, mode, line, sizeof(line));
		puts(line);
		if (!strcmp(line, "timeout") || !strcmp(line, "closed"))
			break;
	}
	free(buf);
	if (fflush(stdout) == EOF)
		perror_msg_and_die("write to stdout");
	return 0;
}
