/*
 * The control socket's frames and paths (control.h).
 */
#include "config.h"
#include "control.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

void
ctl_msg_init(struct ctl_msg *m, const char *op)
{
	memset(m, 0, sizeof(*m));
	if (op)
		ctl_msg_add(m, "op", op);
}

void
ctl_msg_free(struct ctl_msg *m)
{
	free(m->buf);
	for (unsigned i = 0; i < m->nfds; i++)
		if (m->fds[i] >= 0)
			close(m->fds[i]);
	memset(m, 0, sizeof(*m));
}

static void
msg_append(struct ctl_msg *m, const char *s, size_t n)
{
	if (m->len + n > m->cap) {
		size_t cap = m->cap ? m->cap : 256;

		while (cap < m->len + n)
			cap *= 2;
		m->buf = xreallocarray(m->buf, cap, 1);
		m->cap = cap;
	}
	memcpy(m->buf + m->len, s, n);
	m->len += n;
}

void
ctl_msg_add(struct ctl_msg *m, const char *key, const char *value)
{
	msg_append(m, key, strlen(key));
	msg_append(m, "=", 1);
	msg_append(m, value, strlen(value) + 1);
}

void
ctl_msg_addf(struct ctl_msg *m, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		error_msg_and_die("out of memory");
	va_end(ap);
	ctl_msg_add(m, key, s);
	free(s);
}

const char *
ctl_msg_next(const struct ctl_msg *m, const char *key, size_t *pos)
{
	size_t kl = strlen(key);

	while (*pos < m->len) {
		const char *s = m->buf + *pos;
		size_t n = strlen(s);

		*pos += n + 1;
		if (n > kl && memcmp(s, key, kl) == 0 && s[kl] == '=')
			return s + kl + 1;
	}
	return NULL;
}

const char *
ctl_msg_get(const struct ctl_msg *m, const char *key)
{
	size_t pos = 0;

	return ctl_msg_next(m, key, &pos);
}

bool
ctl_msg_is(const struct ctl_msg *m, const char *op)
{
	const char *v = ctl_msg_get(m, "op");

	return v && strcmp(v, op) == 0;
}

bool
ctl_msg_get_i64(const struct ctl_msg *m, const char *key, int64_t *v)
{
	const char *s = ctl_msg_get(m, key);
	char *end;
	long long x;

	if (!s || !*s)
		return false;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

int
ctl_send(int sock, const struct ctl_msg *m)
{
	uint32_t len = (uint32_t)m->len;
	struct iovec iov[2] = { { &len, sizeof(len) }, { m->buf, m->len } };
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
		struct cmsghdr align;
	} cm;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	size_t total = sizeof(len) + m->len, done = 0;

	if (m->nfds) {
		struct cmsghdr *c;

		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * m->nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * m->nfds);
		memcpy(CMSG_DATA(c), m->fds, sizeof(int) * m->nfds);
	}
	while (done < total) {
		ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
		/* The rest goes without the fds. */
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
		while (n > 0 && mh.msg_iovlen > 0) {
			if ((size_t)n >= mh.msg_iov->iov_len) {
				n -= (ssize_t)mh.msg_iov->iov_len;
				mh.msg_iov++;
				mh.msg_iovlen--;
			} else {
				mh.msg_iov->iov_base = (char *)mh.msg_iov->iov_base + n;
				mh.msg_iov->iov_len -= (size_t)n;
				n = 0;
			}
		}
	}
	return 0;
}

/* Milliseconds left until deadline (CLOCK_MONOTONIC ms), at least 0;
 * -1 without a deadline. */
static int
ms_left(int64_t deadline)
{
	struct timespec now;
	int64_t left;

	if (deadline < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	left = deadline - ((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000);
	return left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

static int
read_full(int sock, void *buf, size_t n, struct ctl_msg *m, int64_t deadline)
{
	size_t done = 0;

	while (done < n) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
			struct cmsghdr align;
		} cm;
		struct iovec iov = { (char *)buf + done, n - done };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cm.buf, .msg_controllen = sizeof(cm.buf) };
		ssize_t r;

		if (deadline >= 0) {
			/* The whole frame within the deadline, however slowly
			 * its bytes drip in. */
			struct pollfd pf = { sock, POLLIN, 0 };
			int left = ms_left(deadline), p;

			if (left == 0)
				return -ETIMEDOUT;
			p = poll(&pf, 1, left);
			if (p < 0 && errno == EINTR)
				continue;
			if (p < 0)
				return -errno;
			if (p == 0)
				return -ETIMEDOUT;
		}
		r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | (deadline >= 0 ? MSG_DONTWAIT : 0));
		if (r < 0 && deadline >= 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int *fds = (int *)CMSG_DATA(c);

			for (size_t i = 0; i < k; i++) {
				if (m->nfds < CTL_MAX_FDS)
					m->fds[m->nfds++] = fds[i];
				else
					close(fds[i]);
			}
		}
		if (mh.msg_flags & MSG_CTRUNC)
			return -EBADMSG;
		if (r == 0)
			return done == 0 ? 0 : -EBADMSG;
		done += (size_t)r;
	}
	return 1;
}

/* Every string must be NUL-terminated and hold a '=', and op= be there. */
static int
check_frame(const struct ctl_msg *m)
{
	size_t len = m->len;

	if (len == 0 || m->buf[len - 1] != '\0')
		return -EBADMSG;
	for (size_t p = 0; p < len; p += strlen(m->buf + p) + 1)
		if (!strchr(m->buf + p, '='))
			return -EBADMSG;
	if (!ctl_msg_get(m, "op"))
		return -EBADMSG;
	return 1;
}

int
ctl_recv_deadline(int sock, struct ctl_msg *m, int timeout_ms)
{
	int64_t deadline = -1;
	uint32_t len;
	int r;

	if (timeout_ms >= 0) {
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		deadline = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 + timeout_ms;
	}
	ctl_msg_init(m, NULL);
	r = read_full(sock, &len, sizeof(len), m, deadline);
	if (r <= 0)
		return r;
	if (len == 0 || len > CTL_MAX_FRAME)
		return -EBADMSG;
	m->buf = xmalloc(len);
	m->cap = len;
	r = read_full(sock, m->buf, len, m, deadline);
	if (r == 0)
		return -EBADMSG;
	if (r < 0)
		return r;
	m->len = len;
	return check_frame(m);
}

int
ctl_recv(int sock, struct ctl_msg *m)
{
	return ctl_recv_deadline(sock, m, -1);
}

int
ctl_msg_parse(struct ctl_msg *m, const void *buf, size_t len)
{
	ctl_msg_init(m, NULL);
	if (len == 0 || len > CTL_MAX_FRAME)
		return -EBADMSG;
	m->buf = xmalloc(len);
	m->cap = m->len = len;
	memcpy(m->buf, buf, len);
	return check_frame(m);
}

int
ctl_send_error(int sock, const char *fmt, ...)
{
	struct ctl_msg m;
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		error_msg_and_die("out of memory");
	va_end(ap);
	ctl_msg_init(&m, "error");
	ctl_msg_add(&m, "message", s);
	free(s);
	r = ctl_send(sock, &m);
	ctl_msg_free(&m);
	return r;
}

int
ctl_send_op(int sock, const char *op)
{
	struct ctl_msg m;
	int r;

	ctl_msg_init(&m, op);
	r = ctl_send(sock, &m);
	ctl_msg_free(&m);
	return r;
}

char *
ctl_user_socket_path(void)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");

	if (rt && *rt == '/')
		return xasprintf("%s/micad/control.sock", rt);
	return xasprintf("/tmp/micad-%u/control.sock", (unsigned)getuid());
}

int
ctl_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}
