/*
 * Load generator for micad's HTTP API on loopback: C keep-alive
 * connections, one thread each, every connection sending GETs of one
 * path template ("%u" is replaced by a pseudo-random number below
 * --spread) until --requests in all are done or --seconds passed.
 * Prints requests per second and latency percentiles; non-200 answers
 * count as errors.  Bounded in count and time, loopback only.
 *
 *   http_bench --port P --token T [--conns 4] [--requests 4000]
 *              [--seconds 30] [--spread 99900] PATH-TEMPLATE
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static unsigned port, conns = 4, spread = 99900;
static unsigned long total = 4000;
static double max_seconds = 30;
static const char *token, *tmpl;
static unsigned long next_req;		/* atomically taken */
static double t_start;

struct worker {
	pthread_t th;
	double *lat;
	unsigned long n, errors, bytes;
	unsigned seed;
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
connect_lo(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		return -1;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* One request/response on fd; the status, or -1 if the connection broke. */
static int
request(int fd, const char *path, char **buf, size_t *cap, unsigned long *bytes)
{
	char req[1024];
	size_t got = 0, hdr_end = 0, body_len = 0;
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			 "Authorization: Bearer %s\r\n\r\n", path, token);
	int status = -1;

	if (n <= 0 || (size_t)n >= sizeof(req) || write(fd, req, (size_t)n) != n)
		return -1;
	for (;;) {
		ssize_t r;

		if (got + 4096 > *cap) {
			*cap = *cap ? *cap * 2 : 65536;
			*buf = xreallocarray(*buf, *cap, 1);
		}
		r = read(fd, *buf + got, *cap - got - 1);
		if (r <= 0)
			return -1;
		got += (size_t)r;
		(*buf)[got] = '\0';
		if (!hdr_end) {
			char *e = strstr(*buf, "\r\n\r\n"), *cl;

			if (!e)
				continue;
			hdr_end = (size_t)(e - *buf) + 4;
			if (sscanf(*buf, "HTTP/1.1 %d", &status) != 1)
				return -1;
			cl = strcasestr(*buf, "\r\nContent-Length:");
			if (!cl || cl > e)
				return -1;
			body_len = strtoul(cl + 17, NULL, 10);
		}
		if (got >= hdr_end + body_len)
			break;
	}
	*bytes += got;
	return status;
}

/* The template with every "%u" replaced by x. */
static void
expand(char *out, size_t size, unsigned x)
{
	size_t o = 0;

	for (const char *p = tmpl; *p && o + 12 < size; p++) {
		if (p[0] == '%' && p[1] == 'u') {
			o += (size_t)snprintf(out + o, size - o, "%u", x);
			p++;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
}

static void *
run(void *arg)
{
	struct worker *w = arg;
	char *buf = NULL, path[512];
	size_t cap = 0;
	int fd = connect_lo();

	while (fd >= 0) {
		unsigned long k = __atomic_fetch_add(&next_req, 1, __ATOMIC_RELAXED);
		double t0;
		int st;

		if (k >= total || now() - t_start > max_seconds)
			break;
		w->seed = w->seed * 1103515245u + 12345u;
		expand(path, sizeof(path), (w->seed >> 8) % spread);
		t0 = now();
		st = request(fd, path, &buf, &cap, &w->bytes);
		w->lat[w->n++] = now() - t0;
		if (st != 200)
			w->errors++;
		if (st < 0) {
			close(fd);
			fd = connect_lo();
		}
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct worker *w;
	unsigned long n = 0, errors = 0, bytes = 0;
	double *all, secs;

	program_name = "http_bench";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--port") && v)
			port = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(a, "--token") && v)
			token = argv[++i];
		else if (!strcmp(a, "--conns") && v)
			conns = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(a, "--requests") && v)
			total = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(a, "--seconds") && v)
			max_seconds = strtod(argv[++i], NULL);
		else if (!strcmp(a, "--spread") && v)
			spread = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (a[0] != '-' && !tmpl)
			tmpl = a;
		else
			error_msg_and_die("usage: http_bench --port P --token T [--conns N] "
					  "[--requests N] [--seconds S] [--spread N] PATH-TEMPLATE");
	}
	if (!port || !token || !tmpl || !conns || conns > 64 || !spread || total > 10000000)
		error_msg_and_die("need --port, --token and a path; 1-64 connections");
	w = xcalloc(conns, sizeof(*w));
	t_start = now();
	for (unsigned i = 0; i < conns; i++) {
		w[i].lat = xcalloc(total, sizeof(double));
		w[i].seed = 12345 + i;
		if (pthread_create(&w[i].th, NULL, run, &w[i]))
			error_msg_and_die("pthread_create failed");
	}
	for (unsigned i = 0; i < conns; i++)
		pthread_join(w[i].th, NULL);
	secs = now() - t_start;
	all = xcalloc(total + 1, sizeof(double));
	for (unsigned i = 0; i < conns; i++) {
		memcpy(all + n, w[i].lat, w[i].n * sizeof(double));
		n += w[i].n;
		errors += w[i].errors;
		bytes += w[i].bytes;
		free(w[i].lat);
	}
	if (!n)
		error_msg_and_die("no request completed (server on port %u?)", port);
	qsort(all, n, sizeof(double), cmp_double);
	printf("requests %lu in %.2f s over %u connections, errors %lu\n", n, secs, conns, errors);
	printf("throughput %.0f requests/s, %.1f MB/s\n", n / secs, bytes / secs / 1e6);
	printf("latency ms: p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n", all[n / 2] * 1e3,
	       all[n * 9 / 10] * 1e3, all[n * 99 / 100] * 1e3, all[n - 1] * 1e3);
	/* For http_bench.sh's table: requests/s, p50 and p99 in ms, bytes per answer. */
	printf("result %.1f %.3f %.3f %.0f\n", n / secs, all[n / 2] * 1e3, all[n * 99 / 100] * 1e3,
	       (double)bytes / (double)n);
	free(all);
	free(w);
	return errors ? 1 : 0;
}
