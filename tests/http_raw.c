/*
 * Send raw bytes to a loopback HTTP server and print the status line of
 * the answer ("closed" if the server closed without one): for requests
 * curl will not send (NUL bytes, garbage request lines, no Host).
 *
 *   http_raw PORT 'printf-style escaped bytes'   (\r \n \0 \\ only)
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util.h"

int
main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	unsigned long long port;
	char *buf, line[512];
	size_t n = 0, got = 0;
	int fd;

	program_name = "http_raw";
	if (argc != 3 || parse_u64(argv[1], &port) < 0 || port > 65535)
		error_msg_and_die("usage: http_raw PORT BYTES");
	buf = xmalloc(strlen(argv[2]) + 1);
	for (const char *p = argv[2]; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			buf[n++] = *p == 'r' ? '\r' : *p == 'n' ? '\n' : *p == '0' ? '\0' : *p;
		} else {
			buf[n++] = *p;
		}
	}
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		perror_msg_and_die("socket");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		perror_msg_and_die("connect to 127.0.0.1:%llu", port);
	if (write(fd, buf, n) != (ssize_t)n)
		perror_msg_and_die("write");
	shutdown(fd, SHUT_WR);
	while (got < sizeof(line) - 1) {
		ssize_t r = read(fd, line + got, 1);

		if (r <= 0 || line[got] == '\n')
			break;
		got += (size_t)r;
	}
	line[got] = '\0';
	if (got && line[got - 1] == '\r')
		line[got - 1] = '\0';
	puts(got ? line : "closed");
	free(buf);
	close(fd);
	return 0;
}
