/*
 * Error reporting and allocation helpers, output files that do not follow
 * symbolic links, and escaping for terminals.
 */
#include "config.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *program_name = "micad";

/* The last error reported by this thread, for a session's record. */
static __thread char last_error[512];

const char *
last_error_msg(void)
{
	return last_error;
}

static void
vmsg(const char *prefix, const char *fmt, va_list ap, int err)
{
	if (!*prefix) {
		va_list copy;
		size_t n;

		va_copy(copy, ap);
		vsnprintf(last_error, sizeof(last_error), fmt, copy);
		va_end(copy);
		n = strlen(last_error);
		if (err && n < sizeof(last_error))
			snprintf(last_error + n, sizeof(last_error) - n, ": %s", strerror(err));
	}
	fflush(stdout);
	fprintf(stderr, "%s: %s", program_name, prefix);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void
error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap, 0);
	va_end(ap);
}

void
warning_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap, 0);
	va_end(ap);
}

void
perror_msg(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap, err);
	va_end(ap);
	errno = err;
}

void
error_msg_and_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void
perror_msg_and_die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap, err);
	va_end(ap);
	exit(1);
}

static void ATTR_NORETURN
die_out_of_memory(size_t n, size_t size)
{
	error_msg_and_die("out of memory allocating %zu x %zu bytes", n, size);
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die_out_of_memory(1, size);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die_out_of_memory(n, size);
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > (size_t)-1 / size)
		die_out_of_memory(n, size);
	p = realloc(p, n && size ? n * size : 1);
	if (!p)
		die_out_of_memory(n, size);
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die_out_of_memory(1, strlen(s) + 1);
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die_out_of_memory(1, 0);
	return s;
}

int
parse_u64(const char *s, unsigned long long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	return 0;
}

int
hex_digit(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int
write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int
output_open(const char *path, int flags, const char *what)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | flags, 0666);
	struct stat st;

	if (fd >= 0)
		return fd;
	/* ELOOP is also too many links on the way to path: say "link" only
	 * when path itself is one. */
	if (errno == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		error_msg("refusing to write '%s': it is a symbolic link (remove it, or choose "
			  "another path)", path);
		errno = ELOOP;
		return -1;
	}
	perror_msg("cannot write %s '%s'", what, path);
	return -1;
}

FILE *
output_fopen(const char *path, const char *what)
{
	int fd = output_open(path, O_TRUNC, what);
	FILE *f;

	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "w"))) {
		perror_msg("cannot write %s '%s': fdopen", what, path);
		close(fd);
	}
	return f;
}

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 if s does not
 * start one: overlong forms, surrogates and code points past U+10FFFF are
 * invalid (RFC 3629). */
static size_t
utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

char *
term_escape(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str);
	char *out = xreallocarray(NULL, len + 1, 4), *o = out;

	while (*s) {
		size_t n = utf8_len(s);
		/* C0 and DEL; C1 (U+0080..U+009F) is C2 80..C2 9F. */
		bool control = n == 1 ? *s < 0x20 || *s == 0x7f
				      : n == 2 && s[0] == 0xc2 && s[1] < 0xa0;

		if (n == 1 && *s == '\\') {
			*o++ = '\\';
			*o++ = '\\';
			s++;
		} else if (n == 0 || control) {
			for (size_t i = 0; i < (n ? n : 1); i++)
				o += sprintf(o, "\\x%02x", *s++);
		} else {
			memcpy(o, s, n);
			o += n;
			s += n;
		}
	}
	*o = '\0';
	return out;
}
