/*
 * mica.conf and itypes spec file parsing (spec mica.md §2, §3.2).
 *
 * mica.conf is read the way MICA's fscanf("%[^:]: %s\n") reads it: an
 * entry is everything up to the first ':' (the key, exactly), optional
 * white space, one white-space-free token (the value), then any white
 * space.  Extensions: a '#' where a key would start comments out the rest
 * of the line, and analysis_type takes a comma list of analyses (the
 * "custom" mode made real).  Where MICA would go on with a guess (unknown
 * analysis type, non-numeric numbers, shifts of 64 bits or more, a
 * negative interval_size, a key given twice of which MICA silently keeps
 * the last, a NUL byte that would cut a key or value short) this parser
 * stops with an error: nothing runs on a half-understood configuration.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "iclass.h"
#include "mica/mica_config.h"

static const char *const analysis_names[MICA_N_ANALYSES] = {
	[MICA_ILP] = "ilp",
	[MICA_ILP_ONE] = "ilp_one",
	[MICA_ITYPES] = "itypes",
	[MICA_PPM] = "ppm",
	[MICA_REG] = "reg",
	[MICA_STRIDE] = "stride",
	[MICA_MEMFOOTPRINT] = "memfootprint",
	[MICA_MEMSTACKDIST] = "memstackdist",
};

static const char *const key_names[] = {
	"analysis_type", "interval_size", "ilp_size", "block_size", "page_size",
	"itypes_spec_file", "append_pid",
};
#define N_KEYS (sizeof(key_names) / sizeof(key_names[0]))
static const char known_keys[] =
	"analysis_type, interval_size, ilp_size, block_size, page_size, "
	"itypes_spec_file, append_pid";
static const char known_types[] =
	"all, ilp, ilp_one, itypes, ppm, reg, stride, memfootprint, "
	"memstackdist, or a comma list of these but all (custom)";

const char *
mica_analysis_name(enum mica_analysis a)
{
	return (unsigned)a < MICA_N_ANALYSES ? analysis_names[a] : "?";
}

void
mica_config_init(struct mica_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_size = 0;	/* MICA's global default: absent means 0 */
	c->block_size = 6;
	c->page_size = 12;
}

void
mica_config_free(struct mica_config *c)
{
	free(c->itypes_spec_file);
	c->itypes_spec_file = NULL;
	itypes_spec_free(c->itypes_spec);
	c->itypes_spec = NULL;
}

static void __attribute__((format(printf, 5, 6)))
set_err(char *err, size_t errsz, const char *fname, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!errsz)
		return;
	n = line ? snprintf(err, errsz, "%s:%u: ", fname, line) : snprintf(err, errsz, "%s: ", fname);
	if (n < 0 || (size_t)n >= errsz)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errsz - n, fmt, ap);
	va_end(ap);
}

/* A whole decimal integer, optionally signed. */
static int
parse_int(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int
parse_analyses(struct mica_config *c, const char *val, const char *fname, unsigned line,
	       char *err, size_t errsz)
{
	unsigned set = 0;
	const char *p = val;

	if (strcmp(val, "all") == 0) {
		c->analyses = MICA_ALL_SET;
		c->all = true;
		return 0;
	}
	if (strcmp(val, "custom") == 0) {
		set_err(err, errsz, fname, line,
			"analysis_type 'custom' needs the list of analyses to run, "
			"e.g. 'analysis_type: ilp,ppm,memstackdist' (valid: %s)", known_types);
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		int a;

		for (a = 0; a < MICA_N_ANALYSES; a++)
			if (strlen(analysis_names[a]) == n && strncmp(p, analysis_names[a], n) == 0)
				break;
		if (a == MICA_N_ANALYSES) {
			set_err(err, errsz, fname, line, "unknown analysis type '%.*s' (valid: %s)",
				(int)n, p, known_types);
			return -1;
		}
		set |= MICA_BIT(a);
		p += n;
		if (*p == ',' && !*++p) {
			set_err(err, errsz, fname, line, "analysis list '%s' ends with a comma", val);
			return -1;
		}
	}
	if (!set) {
		set_err(err, errsz, fname, line, "empty analysis type (valid: %s)", known_types);
		return -1;
	}
	c->analyses = set;
	c->all = false;
	return 0;
}

static int
parse_shift(const char *key, const char *val, unsigned *out, const char *fname,
	    unsigned line, char *err, size_t errsz)
{
	int64_t v;

	if (parse_int(val, &v) < 0 || v < 0 || v > 63) {
		set_err(err, errsz, fname, line,
			"%s must be the log2 of a size in bytes, 0 to 63 (6 = 64 bytes), not '%s'",
			key, val);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int
apply_entry(struct mica_config *c, const char *key, const char *val, const char *fname,
	    unsigned line, char *err, size_t errsz)
{
	int64_t v;

	if (strcmp(key, "analysis_type") == 0)
		return parse_analyses(c, val, fname, line, err, errsz);
	if (strcmp(key, "interval_size") == 0) {
		if (strcmp(val, "full") == 0) {
			c->interval_size = MICA_FULL;
			return 0;
		}
		/* -1 is how MICA stores 'full' (atoll("-1") is the same); any
		 * other negative size would never close an interval. */
		if (parse_int(val, &v) < 0 || (v < 0 && v != MICA_FULL)) {
			set_err(err, errsz, fname, line,
				"interval_size must be 'full' or a number of instructions "
				"(0 or more), not '%s'", val);
			return -1;
		}
		c->interval_size = v;
		return 0;
	}
	if (strcmp(key, "ilp_size") == 0) {
		if (parse_int(val, &v) < 0 || v < 0 || v > MICA_MAX_ILP_SIZE) {
			set_err(err, errsz, fname, line,
				"ilp_size must be a window size from 1 to %d, not '%s'",
				MICA_MAX_ILP_SIZE, val);
			return -1;
		}
		c->ilp_size = (uint32_t)v;
		return 0;
	}
	if (strcmp(key, "block_size") == 0)
		return parse_shift(key, val, &c->block_size, fname, line, err, errsz);
	if (strcmp(key, "page_size") == 0)
		return parse_shift(key, val, &c->page_size, fname, line, err, errsz);
	if (strcmp(key, "itypes_spec_file") == 0) {
		char *s = strdup(val);

		if (!s) {
			set_err(err, errsz, fname, line, "out of memory");
			return -1;
		}
		free(c->itypes_spec_file);
		c->itypes_spec_file = s;
		return 0;
	}
	if (strcmp(key, "append_pid") == 0) {
		if (strcmp(val, "yes") == 0)
			c->append_pid = true;
		else if (strcmp(val, "no") == 0)
			c->append_pid = false;
		else {
			set_err(err, errsz, fname, line, "append_pid can be either yes or no, not '%s'",
				val);
			return -1;
		}
		return 0;
	}
	set_err(err, errsz, fname, line, "unknown config parameter '%s' (known: %s)", key,
		known_keys);
	return -1;
}

int
mica_config_parse(struct mica_config *c, const char *fname, const char *text, size_t len,
		  char *err, size_t errsz)
{
	const char *p = text, *end = text + len, *nul = memchr(text, '\0', len);
	unsigned line = 1, entries = 0, key_seen[N_KEYS] = { 0 };
	bool have_type = false;
	unsigned type_line = 0;

	if (nul) {
		for (const char *q = text; q < nul; q++)
			line += *q == '\n';
		set_err(err, errsz, fname, line, "a NUL byte: a configuration is text, "
			"'KEY: VALUE' entries (is this a binary file?)");
		return -1;
	}
	for (;;) {
		/* After an entry: skip white space (MICA's "\n" in the format),
		 * and comment lines (our extension). */
		while (p < end && (isspace((unsigned char)*p) || *p == '#')) {
			if (*p == '#') {
				while (p < end && *p != '\n')
					p++;
				continue;
			}
			if (*p == '\n')
				line++;
			p++;
		}
		if (p == end)
			break;

		unsigned key_line = line;
		const char *k = p;

		while (p < end && *p != ':' && *p != '\n')
			p++;
		if (p == end || p == k || *p == '\n') {
			set_err(err, errsz, fname, key_line,
				"invalid config entry '%.*s': expected 'KEY: VALUE'",
				(int)(p - k > 60 ? 60 : p - k), k);
			return -1;
		}
		size_t klen = (size_t)(p - k);

		p++;	/* ':' */
		while (p < end && isspace((unsigned char)*p)) {
			if (*p == '\n')
				line++;
			p++;
		}
		const char *v = p;

		while (p < end && !isspace((unsigned char)*p))
			p++;
		if (p == v) {
			set_err(err, errsz, fname, key_line, "invalid config entry: '%.*s' has no value",
				(int)(klen > 60 ? 60 : klen), k);
			return -1;
		}

		char *key = strndup(k, klen), *val = strndup(v, (size_t)(p - v));
		int r;

		if (!key || !val) {
			free(key);
			free(val);
			set_err(err, errsz, fname, key_line, "out of memory");
			return -1;
		}
		for (size_t i = 0; i < N_KEYS; i++) {
			if (strcmp(key, key_names[i]) != 0)
				continue;
			if (key_seen[i]) {
				set_err(err, errsz, fname, key_line, "%s given twice (first at line "
					"%u): keep one (MICA would silently take the last)", key,
					key_seen[i]);
				free(key);
				free(val);
				return -1;
			}
			key_seen[i] = key_line;
		}
		r = apply_entry(c, key, val, fname, line, err, errsz);
		if (r == 0 && strcmp(key, "analysis_type") == 0) {
			have_type = true;
			type_line = line;
		}
		free(key);
		free(val);
		if (r < 0)
			return -1;
		entries++;
	}
	if (!entries) {
		set_err(err, errsz, fname, 0, "invalid config entry: the file is empty");
		return -1;
	}
	if (!have_type) {
		set_err(err, errsz, fname, 0,
			"no analysis_type: the file must say which analyses to run (valid: %s)",
			known_types);
		return -1;
	}
	return mica_config_check(c, fname, type_line, err, errsz);
}

int
mica_config_check(const struct mica_config *c, const char *fname, unsigned line, char *err,
		  size_t errsz)
{
	if ((c->analyses & MICA_BIT(MICA_ILP_ONE)) && c->ilp_size == 0) {
		set_err(err, errsz, fname, line,
			"\"ilp_one\" needs a window size: add 'ilp_size: N' (N > 0)");
		return -1;
	}
	if ((c->analyses & (MICA_BIT(MICA_ILP) | MICA_BIT(MICA_ILP_ONE))) &&
	    !mica_config_full(c) && c->interval_size % MICA_ILP_BUFFER != 0) {
		set_err(err, errsz, fname, 0,
			"interval_size %lld is not a multiple of the ILP buffer size (%d), "
			"which ILP analyses need in interval mode",
			(long long)c->interval_size, MICA_ILP_BUFFER);
		return -1;
	}
	return 0;
}

/* ---- itypes spec files ---- */

void
itypes_spec_free(struct itypes_spec *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_idents; i++)
		free(s->idents[i].name);
	free(s->idents);
	free(s);
}

static int
spec_add(struct itypes_spec *s, unsigned group, unsigned subgroup, enum itypes_kind kind,
	 const char *name, size_t nlen)
{
	struct itypes_ident *n = realloc(s->idents, (s->n_idents + 1) * sizeof(*n));

	if (!n)
		return -1;
	s->idents = n;
	n = &s->idents[s->n_idents];
	n->name = strndup(name, nlen);
	if (!n->name)
		return -1;
	n->group = group;
	n->subgroup = subgroup;
	n->kind = kind;
	s->n_idents++;
	if (group + 1 > s->n_groups)
		s->n_groups = group + 1;
	return 0;
}

static const char builtin_spec[] =
	"0, 0, SPECIAL, mem_read\n"
	"1, 0, SPECIAL, mem_write\n"
	"2, 0, CATEGORY, COND_BR\n"
	"2, 1, CATEGORY, UNCOND_BR\n"
	"2, 2, OPCODE, LEAVE\n"
	"2, 3, OPCODE, RET_NEAR\n"
	"2, 4, OPCODE, CALL_NEAR\n"
	"3, 0, CATEGORY, LOGICAL\n"
	"3, 1, CATEGORY, DATAXFER\n"
	"3, 2, CATEGORY, BINARY\n"
	"3, 3, CATEGORY, FLAGOP\n"
	"3, 4, CATEGORY, BITBYTE\n"
	"4, 0, CATEGORY, X87_ALU\n"
	"4, 1, CATEGORY, FCMOV\n"
	"5, 0, CATEGORY, POP\n"
	"5, 1, CATEGORY, PUSH\n"
	"6, 0, CATEGORY, SHIFT\n"
	"7, 0, CATEGORY, STRINGOP\n"
	"8, 0, CATEGORY, MMX\n"
	"8, 1, CATEGORY, SSE\n"
	"9, 0, CATEGORY, INTERRUPT\n"
	"9, 1, CATEGORY, ROTATE\n"
	"9, 2, CATEGORY, SEMAPHORE\n"
	"9, 3, CATEGORY, CMOV\n"
	"9, 4, CATEGORY, SYSTEM\n"
	"9, 5, CATEGORY, MISC\n"
	"9, 6, CATEGORY, PREFETCH\n"
	"9, 7, CATEGORY, SYSCALL\n"
	"10, 0, CATEGORY, WIDENOP\n"
	"10, 1, CATEGORY, NOP\n"
	"11, 0, SPECIAL, reg_transfer\n";

struct itypes_spec *
itypes_spec_builtin(void)
{
	char err[128];

	return itypes_spec_parse("(built-in)", builtin_spec, sizeof(builtin_spec) - 1, err,
				 sizeof(err));
}

/* An unsigned decimal after optional blanks (fscanf's %d); NULL if none. */
static const char *
spec_uint(const char *p, const char *eol, unsigned *out)
{
	unsigned long v = 0;
	const char *d;

	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	d = p;
	while (p < eol && isdigit((unsigned char)*p) && v < 1000000)
		v = v * 10 + (unsigned)(*p++ - '0');
	if (p == d || v >= 1000000)
		return NULL;
	*out = (unsigned)v;
	return p;
}

/* ", " in a scanf format: a comma, then any blanks. */
static const char *
spec_comma(const char *p, const char *eol)
{
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (p == eol || *p != ',')
		return NULL;
	p++;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/*
 * Is this identifier one that can ever match?  MICA accepts any name and
 * then never matches a misspelt one (a whole group silently empty), nor
 * one with the trailing blank or '\r' it keeps as part of the name: each
 * is refused here, with the valid values.  CATEGORY names are the
 * decoder's XED categories, OPCODE names its XED iclasses (exactly, as
 * itypes compares them), SPECIAL mem_read, mem_write or reg_transfer.
 */
static int
check_ident(enum itypes_kind kind, const char *name, size_t n, const char *fname, unsigned line,
	    char *err, size_t errsz)
{
	char buf[64], list[2048];
	size_t used = 0;
	uint16_t ic;

	if (n && (name[n - 1] == ' ' || name[n - 1] == '\t' || name[n - 1] == '\r')) {
		set_err(err, errsz, fname, line, "identifier '%.*s' ends with %s: MICA reads the "
			"rest of the line as the name, which then never matches; remove it%s",
			(int)(n - 1 > 60 ? 60 : n - 1), name,
			name[n - 1] == '\r' ? "a carriage return" : "a blank",
			name[n - 1] == '\r' ? " (a CRLF file: convert it with dos2unix)" : "");
		return -1;
	}
	if (n >= sizeof(buf)) {
		set_err(err, errsz, fname, line, "identifier '%.40s...' is too long to be a %s",
			name, kind == ITYPES_OPCODE ? "XED iclass" : "name");
		return -1;
	}
	memcpy(buf, name, n);
	buf[n] = '\0';
	switch (kind) {
	case ITYPES_SPECIAL:
		if (!strcmp(buf, "mem_read") || !strcmp(buf, "mem_write") ||
		    !strcmp(buf, "reg_transfer"))
			return 0;
		set_err(err, errsz, fname, line, "unknown SPECIAL identifier '%s' (valid: mem_read, "
			"mem_write, reg_transfer)", buf);
		return -1;
	case ITYPES_CATEGORY:
		list[0] = '\0';
		for (unsigned i = 0; insn_category_by_index(i); i++) {
			const char *c = insn_category_by_index(i);

			if (!strcmp(buf, c))
				return 0;
			used += (size_t)snprintf(list + used, used < sizeof(list) ? sizeof(list) - used
						 : 0, "%s%s", i ? ", " : "", c);
		}
		set_err(err, errsz, fname, line, "unknown CATEGORY '%s' (valid, XED's categories: "
			"%s)", buf, list);
		return -1;
	case ITYPES_OPCODE:
		if (iclass_known(buf))
			return 0;
		if (iclass_lookup(buf, &ic))
			set_err(err, errsz, fname, line, "unknown OPCODE '%s': did you mean %s? "
				"(valid: XED iclass names, upper case, e.g. ADD, CALL_NEAR, RET_NEAR, "
				"REP_MOVSB, MOVSD_XMM, ADD_LOCK)", buf, iclass_name(ic));
		else
			set_err(err, errsz, fname, line, "unknown OPCODE '%s' (valid: XED iclass "
				"names, upper case, e.g. ADD, CALL_NEAR, RET_NEAR, REP_MOVSB, "
				"MOVSD_XMM, ADD_LOCK)", buf);
		return -1;
	}
	return -1;
}

struct itypes_spec *
itypes_spec_parse(const char *fname, const char *text, size_t len, char *err, size_t errsz)
{
	struct itypes_spec *s = calloc(1, sizeof(*s));
	const char *p = text, *end = text + len;
	unsigned line = 0, group = 0, subgroup = 0;
	bool first = true;

	if (!s) {
		set_err(err, errsz, fname, 0, "out of memory");
		return NULL;
	}
	if (memchr(text, '\0', len)) {
		for (const char *z = text; *z; z++)
			line += *z == '\n';
		set_err(err, errsz, fname, line + 1, "a NUL byte: a spec file is text, "
			"'<group>, <subgroup>, <TYPE>, <identifier>' lines");
		goto fail;
	}
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q, *t;
		unsigned g, sg;
		enum itypes_kind kind;

		if (!eol)
			eol = end;
		line++;
		for (q = p; q < eol && isspace((unsigned char)*q); q++)
			;
		if (q == eol || *q == '#') {
			p = eol + 1;
			continue;
		}
		if (!(q = spec_uint(p, eol, &g)) || !(q = spec_comma(q, eol)) ||
		    !(q = spec_uint(q, eol, &sg)) || !(q = spec_comma(q, eol))) {
			set_err(err, errsz, fname, line,
				"expected '<group>, <subgroup>, <TYPE>, <identifier>', e.g. "
				"'2, 0, CATEGORY, COND_BR'");
			goto fail;
		}
		t = q;
		while (q < eol && *q != ',')
			q++;
		if (q == eol || q == t) {
			set_err(err, errsz, fname, line,
				"expected '<group>, <subgroup>, <TYPE>, <identifier>': no identifier");
			goto fail;
		}
		if (q - t == 8 && memcmp(t, "CATEGORY", 8) == 0)
			kind = ITYPES_CATEGORY;
		else if (q - t == 6 && memcmp(t, "OPCODE", 6) == 0)
			kind = ITYPES_OPCODE;
		else if (q - t == 7 && memcmp(t, "SPECIAL", 7) == 0)
			kind = ITYPES_SPECIAL;
		else {
			set_err(err, errsz, fname, line,
				"unknown identifier type '%.*s' (valid: CATEGORY, OPCODE, SPECIAL)",
				(int)(q - t), t);
			goto fail;
		}
		q = spec_comma(q, eol);
		if (first && g != 0) {
			set_err(err, errsz, fname, line,
				"group %u out of order: the first group must be 0", g);
			goto fail;
		}
		if (!first && g != group && g != group + 1) {
			set_err(err, errsz, fname, line,
				"group %u out of order: groups must be numbered 0, 1, 2... in "
				"ascending order (expected %u or %u)", g, group, group + 1);
			goto fail;
		}
		if (first || g != group ? sg != 0 : sg != subgroup && sg != subgroup + 1) {
			set_err(err, errsz, fname, line,
				"subgroup %u out of order: subgroups must be numbered 0, 1, 2... "
				"within each group", sg);
			goto fail;
		}
		if (q == eol) {
			set_err(err, errsz, fname, line, "empty identifier");
			goto fail;
		}
		/* The identifier is the rest of the line, as MICA reads it. */
		if (check_ident(kind, q, (size_t)(eol - q), fname, line, err, errsz) < 0)
			goto fail;
		if (spec_add(s, g, sg, kind, q, (size_t)(eol - q)) < 0) {
			set_err(err, errsz, fname, line, "out of memory");
			goto fail;
		}
		group = g;
		subgroup = sg;
		first = false;
		p = eol + 1;
	}
	if (first) {
		set_err(err, errsz, fname, 0, "no groups: the file defines no identifier");
		goto fail;
	}
	return s;
fail:
	itypes_spec_free(s);
	return NULL;
}
