/*
 * JSON strings and numbers (store_json.h).
 */
#include "config.h"
#include "store/store_json.h"

#include <math.h>
#include <stdlib.h>

void
json_put_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			/* Control characters escaped; other bytes (UTF-8 from the
			 * target, as given) copied. */
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				putc(*p, f);
		}
	}
	putc('"', f);
}

void
json_fmt_real(char *buf, size_t size, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
}

void
json_put_real(FILE *f, double v)
{
	char buf[32];

	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	json_fmt_real(buf, sizeof(buf), v);
	fputs(buf, f);
}

void
json_put_mica_settings(FILE *f, const struct mica_config *c)
{
	fputs("\"analyses\":[", f);
	for (int a = 0, n = 0; a < MICA_N_ANALYSES; a++) {
		if (!(c->analyses & MICA_BIT(a)))
			continue;
		fputs(n++ ? "," : "", f);
		json_put_string(f, mica_analysis_name((enum mica_analysis)a));
	}
	fprintf(f, "],\"interval_size\":%lld,\"ilp_size\":%u,\"block_size\":%u,"
		"\"page_size\":%u,\"append_pid\":%s,\"itypes_spec_file\":",
		(long long)c->interval_size, c->ilp_size, c->block_size, c->page_size,
		c->append_pid ? "true" : "false");
	json_put_string(f, c->itypes_spec_file);
}
