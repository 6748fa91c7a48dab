/*
 * Fuzz target for the control socket's frames (control.h; tests/
 * fuzz_run.sh runs it): byte 0 picks the decoder (even: ctl_msg_parse of a
 * frame's body, as the worker reads its request; odd: ctl_recv_deadline
 * of a byte stream, length prefixes included, as the daemon reads a
 * connection), the rest is the input.  Every frame accepted is walked
 * with the getters the daemon uses.  Seeds: tests/fuzz/control/.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_control: invariant failed: %s (%s:%d)\n", #cond, \
			__FILE__, __LINE__); \
		abort(); \
	} \
} while (0)

/* What the daemon and its worker read of a request. */
static void
walk(const struct ctl_msg *m)
{
	static const char *const keys[] = { "op", "arg", "env", "rlimit", "session", "pid",
					    "config", "itypes_spec", "interval", "sig" };
	int64_t v;

	CHECK(ctl_msg_get(m, "op") != NULL);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		size_t pos = 0, n = 0;
		const char *s;

		while ((s = ctl_msg_next(m, keys[k], &pos)) != NULL) {
			CHECK(s >= m->buf && s < m->buf + m->len);
			CHECK(pos <= m->len);
			n++;
		}
		CHECK(n < m->len + 1);
		ctl_msg_get_i64(m, keys[k], &v);
	}
	ctl_msg_is(m, "run");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_msg m;
	int r;

	if (size < 1)
		return 0;
	if (!(data[0] & 1)) {
		r = ctl_msg_parse(&m, data + 1, size - 1);
		if (r > 0)
			walk(&m);
		ctl_msg_free(&m);
		return 0;
	} else {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			abort();
		/* libFuzzer's inputs are at most a few KB: the socket's buffer
		 * holds them whole. */
		if (size > 1 && write(sv[0], data + 1, size - 1) != (ssize_t)(size - 1))
			abort();
		shutdown(sv[0], SHUT_WR);
		while ((r = ctl_recv_deadline(sv[1], &m, 1000)) > 0) {
			walk(&m);
			ctl_msg_free(&m);
		}
		ctl_msg_free(&m);
		close(sv[0]);
		close(sv[1]);
	}
	return 0;
}
