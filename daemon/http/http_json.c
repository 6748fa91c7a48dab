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

void
jb_i64(struct jbuf *b, int64_t v)
{
	sep(b);
	jb_printf(b, "%lld", (long long)v);
}

void
jb_u64(struct jbuf *b, uint64_t v)
{
	sep(b);
	jb_printf(b, "%llu", (unsigned long long)v);
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
make_c_locale(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

void
fmt_double(char *out, size_t size, double v)
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
