/*
 * The HTTP server's output buffer: a growable byte string with JSON
 * writers that place commas themselves, escape every string (control
 * characters, quotes, '<', '>', '&', invalid UTF-8 becomes U+FFFD) and
 * print numbers in the C locale whatever the process locale is.
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http_int.h"

void
jb_init(struct jbuf *b)
{
	memset(b, 0, sizeof(*b));
}

void
jb_free(struct jbuf *b)
{
	free(b->p);
	jb_init(b);
}

char *
jb_take(struct jbuf *b, size_t *len)
{
	char *p;

	if (!b->p)
		jb_raw(b, "", 0);
	p = b->p;
	if (len)
		*len = b->len;
	jb_init(b);
	return p;
}

static void
reserve(struct jbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;

	if (b->len + n + 1 <= b->cap)
		return;
	while (cap < b->len + n + 1)
		cap *= 2;
	b->p = xreallocarray(b->p, cap, 1);
	b->cap = cap;
}

void
jb_raw(struct jbuf *b, const char *s, size_t n)
{
	reserve(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
jb_puts(struct jbuf *b, const char *s)
{
	jb_raw(b, s, strlen(s));
}

void
jb_printf(struct jbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	/* Most pieces are short: format on the stack, once. */
	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		jb_raw(b, tmp, (size_t)n);
		return;
	}
	reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Before any value or key: a comma unless first in its container or
 * right after a key. */
static void
sep(struct jbuf *b)
{
	if (b->after_key) {
		b->after_key = false;
		return;
	}
	if (b->depth > 0) {
		if (!b->first[b->depth])
			jb_raw(b, ",", 1);
		b->first[b->depth] = false;
	}
}

void
jb_rawval(struct jbuf *b, const char *s, size_t n)
{
	sep(b);
	jb_raw(b, s, n);
}

static void
open_c(struct jbuf *b, char c)
{
	sep(b);
	jb_raw(b, &c, 1);
	if (b->depth + 1 < (int)(sizeof(b->first) / sizeof(b->first[0])))
		b->depth++;
	b->first[b->depth] = true;
}

static void
close_c(struct jbuf *b, char c)
{
	jb_raw(b, &c, 1);
	if (b->depth > 0)
		b->depth--;
}

void jb_obj(struct jbuf *b) { open_c(b, '{'); }
void jb_obj_end(struct jbuf *b) { close_c(b, '}'); }
void jb_arr(struct jbuf *b) { open_c(b, '['); }
void jb_arr_end(struct jbuf *b) { close_c(b, ']'); }

size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

void
jb_strn(struct jbuf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	sep(b);
	jb_raw(b, "\"", 1);
	while (i < n) {
		unsigned char c = s[i];
		size_t l;

		switch (c) {
		case '"': jb_raw(b, "\\\"", 2); i++; continue;
		case '\\': jb_raw(b, "\\\\", 2); i++; continue;
		case '\n': jb_raw(b, "\\n", 2); i++; continue;
		case '\t': jb_raw(b, "\\t", 2); i++; continue;
		case '\r': jb_raw(b, "\\r", 2); i++; continue;
		case '<': case '>': case '&':
			/* Harmless in JSON, but never markup if a page ever
			 * inlines it. */
			jb_printf(b, "\\u%04x", c);
			i++;
			continue;
		default:
			break;
		}
		if (c < 0x20 || c == 0x7f) {
			jb_printf(b, "\\u%04x", c);
			i++;
			continue;
		}
		l = utf8_len(s + i, n - i);
		if (!l) {
			jb_raw(b, "\\ufffd", 6);
			i++;
			continue;
		}
		jb_raw(b, (const char *)s + i, l);
		i += l;
	}
	jb_raw(b, "\"", 1);
}

void
jb_str(struct jbuf *b, const char *s)
{
	if (!s)
		jb_null(b);
	else
		jb_strn(b, s, strlen(s));
}

void
jb_key(struct jbuf *b, const char *key)
{
	jb_str(b, key);
	jb_raw(b, ":", 1);
	b->after_key = true;
}

/* v in decimal, written backwards from end; returns where it starts. */
static char *
u64_digits(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

size_t
fmt_i64(char *out, int64_t v)
{
	char tmp[24], *p = u64_digits(tmp + sizeof(tmp), v < 0 ? -(uint64_t)v : (uint64_t)v);
	size_t n = (size_t)(tmp + sizeof(tmp) - p);

	if (v < 0)
		*out++ = '-';
	memcpy(out, p, n);
	out[n] = '\0';
	return n + (v < 0);
}

void
jb_i64(struct jbuf *b, int64_t v)
{
	char tmp[24];

	sep(b);
	jb_raw(b, tmp, fmt_i64(tmp, v));
}

void
jb_u64(struct jbuf *b, uint64_t v)
{
	char tmp[24], *p = u64_digits(tmp + sizeof(tmp), v);

	sep(b);
	jb_raw(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
make_c_locale(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* printf's way: "%.15g", then 16 and 17 digits until strtod reads it back. */
static void
fmt_double_printf(char *out, size_t size, double v)
{
	locale_t old = (locale_t)0;

	/* Whatever setlocale() the host program did, numbers use '.'. */
	pthread_once(&c_locale_once, make_c_locale);
	if (c_locale)
		old = uselocale(c_locale);
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(out, size, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			break;
	}
	if (c_locale && old)
		uselocale(old);
}

/* configure builds for x86_64 only, where GCC and Clang have 128-bit integers. */
typedef unsigned __int128 u128;

static const uint64_t pow10_u64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
	1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
	1000000000000000000ull, 10000000000000000000ull,
};

static u128
pow10_u128(int n)
{
	return n < 20 ? pow10_u64[n] : (u128)pow10_u64[19] * pow10_u64[n - 19];
}

/*
 * What fmt_double_printf() prints, worked out with integers: positive v
 * is m 2^e exactly (2^52 <= m < 2^53), and q + r / den = v 10^k with q of
 * 17 digits.  For 15, 16 and 17 digits in turn, the correctly rounded
 * decimal (ties to even, as printf rounds) is taken if it reads back as
 * v: if it is nearer to v than half the gap to v's neighbouring doubles
 * (below a power of two the gap is half the one above), a tie going to
 * the even m as strtod rounds.  Its digits (all prec of them), the
 * decimal exponent of the first and prec go to *digits, *exp10 and
 * *prec.  False outside 1e-6 <= v < 2^64, where 128 bits would no longer
 * hold the arithmetic.
 */
static bool
shortest_digits(double v, uint64_t *digits, int *exp10, int *prec)
{
	uint64_t bits, m;
	int e, k, e10;
	u128 num, den, ulp, q, r;

	if (!(v >= 1e-6 && v < 0x1p64))
		return false;
	memcpy(&bits, &v, sizeof(bits));
	m = (bits & ((1ull << 52) - 1)) | 1ull << 52;
	e = (int)(bits >> 52 & 0x7ff) - 1075;
	/* floor(log10(v)), or one less */
	e10 = (int)floor((e + 52) * 0.30102999566398120);
	for (;;) {
		k = 16 - e10;
		if (k > 22)
			return false;	/* m 10^k would not fit */
		num = (u128)m << (e > 0 ? e : 0);
		den = (u128)1 << (e < 0 ? -e : 0);
		if (k >= 0)
			num *= pow10_u128(k);
		else
			den *= pow10_u64[-k];
		q = num / den;
		r = num % den;
		if (q < pow10_u64[17])
			break;
		e10++;
	}
	/* v's gap to its neighbours in the units of r (1 / den) */
	ulp = ((u128)1 << (e > 0 ? e : 0)) * (k > 0 ? pow10_u128(k) : 1);
	for (int p = 15; p <= 17; p++) {
		uint64_t div = pow10_u64[17 - p], d = (uint64_t)q / div;
		u128 rest = (u128)((uint64_t)q % div) * den + r, whole = (u128)div * den, dist;
		__int128 diff;

		if (2 * rest > whole || (2 * rest == whole && (d & 1)))
			d++;
		/* the candidate minus v, in units of 1 / den */
		diff = ((__int128)d * div - (__int128)q) * (__int128)den - (__int128)r;
		dist = (diff < 0 ? (u128)-diff : (u128)diff) * (diff < 0 && m == 1ull << 52 ? 4 : 2);
		if (dist < ulp || (dist == ulp && !(m & 1))) {
			*exp10 = e10;
			if (d == pow10_u64[p]) {
				d = pow10_u64[p - 1];
				(*exp10)++;
			}
			*digits = d;
			*prec = p;
			return true;
		}
	}
	return false;
}

/*
 * The shortest "%g" form of 15 to 17 significant digits that reads back as
 * v, as fmt_double_printf() makes it, without printf and strtod for the
 * values an API serves (integers, ratios, counts): they cost 1-2 us a
 * value there, which made formatting a fifth of a 2,000-point series.
 */
void
fmt_double(char *out, size_t size, double v)
{
	char ds[24], *o = out;
	uint64_t d;
	int x, prec, nd;

	if (size < 32 || !isfinite(v)) {
		fmt_double_printf(out, size, v);
		return;
	}
	if (v == 0) {
		strcpy(out, signbit(v) ? "-0" : "0");
		return;
	}
	if (fabs(v) < 1e15 && v == (double)(int64_t)v) {
		fmt_i64(out, (int64_t)v);
		return;
	}
	if (!shortest_digits(fabs(v), &d, &x, &prec)) {
		fmt_double_printf(out, size, v);
		return;
	}
	u64_digits(ds + prec, d);
	for (nd = prec; nd > 1 && ds[nd - 1] == '0'; nd--)
		;
	if (v < 0)
		*o++ = '-';
	if (x < -4 || x >= prec) {
		*o++ = ds[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, ds + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		*o++ = 'e';
		*o++ = x < 0 ? '-' : '+';
		if (x < 0)
			x = -x;
		if (x < 10)
			*o++ = '0';
		o += fmt_i64(o, x);
	} else if (x >= 0) {
		memcpy(o, ds, (size_t)(nd > x + 1 ? x + 1 : nd));
		o += nd > x + 1 ? x + 1 : nd;
		for (int i = nd; i < x + 1; i++)
			*o++ = '0';
		if (nd > x + 1) {
			*o++ = '.';
			memcpy(o, ds + x + 1, (size_t)(nd - x - 1));
			o += nd - x - 1;
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -x - 1; i++)
			*o++ = '0';
		memcpy(o, ds, (size_t)nd);
		o += nd;
	}
	*o = '\0';
}

void
jb_double(struct jbuf *b, double v)
{
	char tmp[40];

	if (!isfinite(v)) {
		jb_null(b);
		return;
	}
	fmt_double(tmp, sizeof(tmp), v);
	sep(b);
	jb_puts(b, tmp);
}

void
jb_bool(struct jbuf *b, bool v)
{
	sep(b);
	jb_puts(b, v ? "true" : "false");
}

void
jb_null(struct jbuf *b)
{
	sep(b);
	jb_puts(b, "null");
}

void
jb_column(struct jbuf *b, sqlite3_stmt *s, int i)
{
	switch (sqlite3_column_type(s, i)) {
	case SQLITE_INTEGER:
		jb_i64(b, sqlite3_column_int64(s, i));
		break;
	case SQLITE_FLOAT:
		jb_double(b, sqlite3_column_double(s, i));
		break;
	case SQLITE_TEXT:
		jb_strn(b, (const char *)sqlite3_column_text(s, i),
			(size_t)sqlite3_column_bytes(s, i));
		break;
	default:
		jb_null(b);
		break;
	}
}
