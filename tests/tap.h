/*
 * A tiny TAP producer for the C unit tests: every check is one counted
 * result; skips carry their reason.  Run under automake's tap-driver.
 */
#ifndef MICAD_TAP_H
#define MICAD_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int __attribute__((format(printf, 2, 3)))
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

static inline void __attribute__((format(printf, 1, 2)))
diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static inline void
skip(const char *name, const char *reason)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, name, reason);
}

#define is_u64(got, want, ...) do { \
	uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want); \
	if (!ok(g_ == w_, __VA_ARGS__)) \
		diag("  got %" PRIu64 " (0x%" PRIx64 "), want %" PRIu64 " (0x%" PRIx64 ")", g_, g_, w_, w_); \
} while (0)

#define is_str(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	if (!ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__)) \
		diag("  got \"%s\", want \"%s\"", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

static inline int
done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* MICAD_TAP_H */
