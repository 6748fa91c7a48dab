/*
 * Fuzz target for the HTTP request path (tests/fuzz_run.sh runs it): the
 * input is what a client sends on one connection (request line, headers,
 * a body, more requests); libmicrohttpd parses it and micad's checks and
 * handlers answer (one Host header, the parameter limit, the path, the
 * token, the API routes, /metrics, the static files) on the fixture
 * database of tests/http_fixture, without a network: the server runs with
 * http_config.external on this thread, the connection is a socketpair.
 * "@TOKEN@" in the input stands for uid 1000's access token and "@ROOT@"
 * for root's, so that the authenticated routes are reached.
 *
 * The web root is a directory of the harness's own with an index.html,
 * and a symbolic link "out" to the directory above it, which holds a
 * secret file: no answer may ever carry the secret.  Every answer must
 * start with an HTTP status line.  The checks report on standard output:
 * tests/fuzz_run.sh closes standard error, where libmicrohttpd logs every
 * malformed request.  Seeds: tests/fuzz/http/.
 *
 * Environment: MICAD_FUZZ_DB, the fixture database (required).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http/http.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SECRET "FUZZ-SECRET-0x5eC2e7"
#define MAX_IN (64 * 1024)
#define MAX_OUT (1 << 20)	/* answer bytes kept for the checks */

static struct http_server *srv;
static const char *tokens[2];
static char *out;

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

static void
put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		die(path);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char dir[] = "/tmp/fuzz_http.XXXXXX";
	static char web[sizeof(dir) + 8];
	char path[sizeof(dir) + 32], err[512];
	struct http_config c;

	(void)argc;
	(void)argv;
	memset(&c, 0, sizeof(c));
	c.db_path = getenv("MICAD_FUZZ_DB");
	if (!c.db_path) {
		fprintf(stderr, "fuzz_http: set MICAD_FUZZ_DB to a database made by "
			"tests/http_fixture\n");
		exit(1);
	}
	if (!mkdtemp(dir))
		die("mkdtemp");
	snprintf(web, sizeof(web), "%s/web", dir);
	if (mkdir(web, 0700) < 0)
		die(web);
	snprintf(path, sizeof(path), "%s/secret.txt", dir);
	put_file(path, SECRET "\n");
	snprintf(path, sizeof(path), "%s/index.html", web);
	put_file(path, "<!doctype html><title>fuzz</title>\n");
	snprintf(path, sizeof(path), "%s/out", web);
	if (symlink("..", path) < 0)
		die(path);
	c.listen = "127.0.0.1:8766";
	c.web_root = web;
	c.external = true;
	c.timeout_s = 1;
	srv = http_start(&c, err, sizeof(err));
	if (!srv) {
		fprintf(stderr, "fuzz_http: %s\n", err);
		exit(1);
	}
	tokens[0] = http_token_for_uid(srv, 1000);
	tokens[1] = http_token_for_uid(srv, 0);
	/* A token handed out stays valid when others are made (found here:
	 * they moved with the array, under another thread's feet). */
	for (uid_t u = 1; u < 100; u++)
		http_token_for_uid(srv, u);
	if (strlen(tokens[0]) != 64 || strcmp(tokens[0], http_token_for_uid(srv, 1000)) != 0) {
		printf("fuzz_http: uid 1000's token changed\n");
		abort();
	}
	out = malloc(MAX_OUT);
	if (!out)
		die("malloc");
	return 0;
}

/* The input with the token placeholders replaced, in buf; its length. */
static size_t
expand(const uint8_t *data, size_t size, char *buf)
{
	static const char *const marks[2] = { "@TOKEN@", "@ROOT@" };
	size_t n = 0;

	for (size_t i = 0; i < size && n < MAX_IN - 80;) {
		int k;

		for (k = 0; k < 2; k++)
			if (size - i >= strlen(marks[k]) &&
			    !memcmp(data + i, marks[k], strlen(marks[k])))
				break;
		if (k < 2) {
			memcpy(buf + n, tokens[k], strlen(tokens[k]));
			n += strlen(tokens[k]);
			i += strlen(marks[k]);
		} else {
			buf[n++] = (char)data[i++];
		}
	}
	return n;
}

/* Read what the server sent so far; keep the first MAX_OUT bytes. */
static void
drain(int fd, size_t *got, bool *more)
{
	char sink[4096];
	ssize_t r;

	for (;;) {
		if (*got < MAX_OUT)
			r = read(fd, out + *got, MAX_OUT - *got);
		else
			r = read(fd, sink, sizeof(sink));
		if (r <= 0)
			return;
		if (*got < MAX_OUT)
			*got += (size_t)r;
		else
			*more = true;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char in[MAX_IN];
	size_t n = expand(data, size, in), sent = 0, got = 0;
	bool more = false;
	int sv[2], turn;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair");
	if (http_add_connection(srv, sv[1]) < 0)
		die("http_add_connection");
	if (n == 0)
		shutdown(sv[0], SHUT_WR);
	/* Send, serve and read in turns until the server closes the
	 * connection (it sees the end of the input after the last request;
	 * an idle one is closed after the 1 s timeout). */
	for (turn = 0; turn < 1000000; turn++) {
		if (sent < n) {
			ssize_t r = write(sv[0], in + sent, n - sent);

			if (r > 0)
				sent += (size_t)r;
			if (sent == n)
				shutdown(sv[0], SHUT_WR);
		}
		if (http_run(srv) == 0)
			break;
		drain(sv[0], &got, &more);
	}
	if (turn == 1000000) {
		printf("fuzz_http: the connection never ended\n");
		fflush(stdout);
		abort();
	}
	drain(sv[0], &got, &more);
	close(sv[0]);
	if (got && strncmp(out, "HTTP/1.", 7) != 0) {
		printf("fuzz_http: an answer without a status line: %.200s\n", out);
		fflush(stdout);
		abort();
	}
	/* (Unless the request carries the secret itself: error messages
	 * quote the path.) */
	if (memmem(out, got, SECRET, strlen(SECRET)) && !memmem(in, n, SECRET, strlen(SECRET))) {
		printf("fuzz_http: a file outside the web root was served\n");
		fflush(stdout);
		abort();
	}
	return 0;
}
