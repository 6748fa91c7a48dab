/*
 * The HTTP server's number formatting (http_json.c) against printf: every
 * double must come out exactly as the shortest of "%.15g", "%.16g" and
 * "%.17g" that strtod reads back (what the API served before fmt_double
 * worked it out with integers), in the C locale whatever the process
 * locale, and integers as "%lld" prints them.  Random bit patterns, the
 * values an API serves (ratios of counts, integers, powers of two) and
 * the edges of each of fmt_double's ways.
 */
#include "config.h"

#include <float.h>
#include <locale.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http_int.h"
#include "tap.h"

static unsigned long mismatches;

static void
reference(char *out, size_t size, double v)
{
	int prec = 15;

	snprintf(out, size, "%.*g", prec, v);
	while (prec < 17 && strtod(out, NULL) != v)
		snprintf(out, size, "%.*g", ++prec, v);
}

/* One value; the first few differences are shown. */
static void
check(double v)
{
	char got[40], want[40];

	fmt_double(got, sizeof(got), v);
	reference(want, sizeof(want), v);
	if (strcmp(got, want) || (!isnan(v) && strtod(got, NULL) != v)) {
		if (mismatches++ < 10)
			diag("%a: got %s, want %s", v, got, want);
	}
}

/* 64 random bits (mrand48's fixed seed: the same values every run) */
static uint64_t
next_rand(void)
{
	return (uint64_t)(uint32_t)mrand48() << 32 | (uint32_t)mrand48();
}

static double
from_bits(uint64_t b)
{
	double v;

	memcpy(&v, &b, sizeof(v));
	return v;
}

/*
 * de_DE.UTF-8 compiled by localedef into a new directory (its path into
 * dir, for the caller to remove), made the process's locale through
 * LOCPATH (glibc looks for the codeset's normalized name, de_DE.utf8);
 * false, dir empty or not, when that cannot be done.
 */
static bool
own_locale(char *dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	char cmd[600];

	snprintf(dir, size, "%s/micad-locale-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return false;
	}
	snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 '%s/de_DE.utf8' >/dev/null 2>&1", dir);
	if (system(cmd) != 0 || setenv("LOCPATH", dir, 1) != 0)
		return false;
	return setlocale(LC_ALL, "de_DE.UTF-8") != NULL;
}

int
main(void)
{
	static const double edges[] = {
		0.0, 1.0, 0.5, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 1e-6, 1e-5, 1e-4, 9.9999e-5,
		1e-7, 1e14, 1e15, 1e15 - 1, 1e15 + 1, 1.5e15, 1e16, 1e17, 1e19, 0x1p52, 0x1p53,
		0x1p53 + 2, 0x1p63, 0x1p64, 0x1p64 - 2048, 1e20, 123456789012345678.0,
		9007199254740993.0, 5e-324, DBL_MIN, DBL_MAX, DBL_EPSILON, 0.1 + 0.2,
		1234567890123456.5, 999999999999999.9, 9.999999999999999e22, 4.35, 2.675,
		1e-6 * (1 + DBL_EPSILON), 0x1.fffffffffffffp-21, 0x1p-20,
	};
	char buf[40], locdir[512] = "";
	unsigned long n = 0;

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		check(edges[i]);
		check(-edges[i]);
		check(nextafter(edges[i], 0));
		check(nextafter(edges[i], INFINITY));
		n += 4;
	}
	/* every power of two fmt_double works out itself, and around it */
	for (int e = -30; e <= 70; e++) {
		double p = ldexp(1, e);

		check(p);
		check(nextafter(p, 0));
		check(nextafter(p, INFINITY));
		check(p * 3);
		check(p * 5);
		n += 5;
	}
	/* ratios of counts, as the metric views make them */
	for (unsigned a = 0; a < 400; a++)
		for (unsigned b = 1; b < 400; b++, n += 2) {
			check((double)a / b);
			check(1000.0 * a / b);
		}
	/* integers around the fast path's 1e15 */
	for (int64_t k = -2000; k <= 2000; k++, n += 2) {
		check((double)(1000000000000000LL + k));
		check((double)k);
	}
	/* random doubles: any bits, and in each decade of fmt_double's range */
	for (unsigned i = 0; i < 300000; i++, n += 2) {
		uint64_t b = next_rand();
		int dec = (int)(next_rand() % 27) - 7;

		check(from_bits(b));
		check(ldexp((double)(b >> 11), -53) * pow(10, dec));
	}
	ok(mismatches == 0, "fmt_double matches printf's shortest %%.15g-%%.17g in %lu values "
	   "(%lu differ)", n, mismatches);

	fmt_double(buf, sizeof(buf), NAN);
	ok(strtod(buf, NULL) != strtod(buf, NULL), "NaN stays NaN (%s)", buf);
	fmt_double(buf, sizeof(buf), -INFINITY);
	is_str(buf, "-inf", "-Inf as printf writes it");
	fmt_double(buf, sizeof(buf), -0.0);
	is_str(buf, "-0", "negative zero");

	/* A locale with a decimal comma: the system's, or one compiled here
	 * from Debian's locale sources (package locales) into a directory of
	 * our own (LOCPATH), so that a machine without generated locales
	 * tests this too. */
	if (setlocale(LC_ALL, "de_DE.UTF-8") || setlocale(LC_ALL, "fr_FR.UTF-8") ||
	    own_locale(locdir, sizeof(locdir))) {
		fmt_double(buf, sizeof(buf), 1.0 / 3);
		is_str(buf, "0.3333333333333333", "C locale under a decimal-comma locale");
		fmt_double(buf, sizeof(buf), 1e-7 / 3);
		is_str(buf, "3.3333333333333334e-08", "C locale on printf's way too (17 digits: 16 do not read back)");
		setlocale(LC_ALL, "C");
	} else {
		skip("C locale under a decimal-comma locale",
		     "no de_DE or fr_FR locale, and localedef could not make one (apt-get install locales)");
	}
	if (locdir[0]) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", locdir);
		if (system(cmd) != 0)
			diag("could not remove %s", locdir);
	}

	fmt_i64(buf, INT64_MIN);
	is_str(buf, "-9223372036854775808", "INT64_MIN");
	fmt_i64(buf, INT64_MAX);
	is_str(buf, "9223372036854775807", "INT64_MAX");
	fmt_i64(buf, 0);
	is_str(buf, "0", "zero");
	{
		struct jbuf b;

		jb_init(&b);
		jb_arr(&b);
		jb_i64(&b, -42);
		jb_u64(&b, UINT64_MAX);
		jb_double(&b, 0.1);
		jb_double(&b, NAN);
		jb_arr_end(&b);
		is_str(b.p, "[-42,18446744073709551615,0.1,null]", "JSON numbers");
		jb_free(&b);
	}
	return done_testing();
}
