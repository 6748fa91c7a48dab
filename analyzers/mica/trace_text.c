/*
 * The text trace reader (trace_text.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mica/trace_text.h"
#include "u64map.h"

#define CHUNK		1024	/* insn_info records per allocation */
#define MAX_NAMES	256	/* category and iclass names: indexes fit insn_info */

struct interned {
	struct insn_info info;
	char *key;
	size_t next;		/* next record with the same hash, or SIZE_MAX */
};

struct trace_text {
	struct interned **chunks;
	size_t n, n_chunks;
	struct u64map by_hash;	/* hash of the static key -> first record */
	char *cat[MAX_NAMES], *mn[65536];
	unsigned n_cat, n_mn;
	struct mica_names names;
};

static const char *
cat_name(void *ctx, const struct insn_info *ii)
{
	struct trace_text *t = ctx;

	return ii->category < t->n_cat ? t->cat[ii->category] : "INVALID";
}

static const char *
mn_name(void *ctx, const struct insn_info *ii)
{
	struct trace_text *t = ctx;

	return ii->iclass < t->n_mn ? t->mn[ii->iclass] : "INVALID";
}

struct trace_text *
trace_text_new(void)
{
	struct trace_text *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (u64map_init(&t->by_hash, 10) < 0) {
		free(t);
		return NULL;
	}
	t->names.category = cat_name;
	t->names.iclass = mn_name;
	t->names.ctx = t;
	return t;
}

void
trace_text_free(struct trace_text *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->chunks[i / CHUNK][i % CHUNK].key);
	for (size_t i = 0; i < t->n_chunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	for (unsigned i = 0; i < t->n_cat; i++)
		free(t->cat[i]);
	for (unsigned i = 0; i < t->n_mn; i++)
		free(t->mn[i]);
	u64map_free(&t->by_hash);
	free(t);
}

const struct mica_names *
trace_text_names(struct trace_text *t)
{
	return &t->names;
}

/* Index of name in table (added if new); -1 if the table is full. */
static int
intern_name(char **table, unsigned *n, unsigned max, const char *s, size_t len)
{
	for (unsigned i = 0; i < *n; i++)
		if (strlen(table[i]) == len && memcmp(table[i], s, len) == 0)
			return (int)i;
	if (*n == max || !(table[*n] = strndup(s, len)))
		return -1;
	return (int)(*n)++;
}

static uint64_t
fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static struct interned *
rec(struct trace_text *t, size_t i)
{
	return &t->chunks[i / CHUNK][i % CHUNK];
}

/* The record for info (with its static key), interned. */
static const struct insn_info *
intern(struct trace_text *t, const struct insn_info *info, const char *key)
{
	uint64_t h = fnv1a(key);
	bool created;
	uint64_t *first = u64map_insert(&t->by_hash, h, &created);
	size_t i;

	if (!first)
		return NULL;
	if (!created) {
		for (i = *first; i != SIZE_MAX; i = rec(t, i)->next)
			if (strcmp(rec(t, i)->key, key) == 0)
				return &rec(t, i)->info;
	}
	if (t->n == t->n_chunks * CHUNK) {
		struct interned **c = realloc(t->chunks, (t->n_chunks + 1) * sizeof(*c));

		if (!c)
			return NULL;
		t->chunks = c;
		if (!(c[t->n_chunks] = malloc(CHUNK * sizeof(**c))))
			return NULL;
		t->n_chunks++;
	}
	struct interned *r = rec(t, t->n);

	if (!(r->key = strdup(key)))
		return NULL;
	r->info = *info;
	r->next = created ? SIZE_MAX : (size_t)*first;
	*first = t->n++;
	return &r->info;
}

static int
parse_u64(const char *s, size_t len, uint64_t *out)
{
	char buf[32], *end;
	unsigned long long v;

	if (len == 0 || len >= sizeof(buf) || s[0] == '-' || s[0] == '+')
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int
parse_regs(const char *v, size_t len, reg_id *regs, uint8_t *n, char *err, size_t errsz,
	   const char *field)
{
	size_t i = 0;

	*n = 0;
	while (i <= len) {
		size_t j = i;
		uint64_t r;

		while (j < len && v[j] != ',')
			j++;
		if (parse_u64(v + i, j - i, &r) < 0 || r == 0 || r > 65535) {
			snprintf(err, errsz, "%s=: register ids are numbers from 1 to 65535, not '%.*s'",
				 field, (int)(j - i), v + i);
			return -1;
		}
		if (*n == INSN_MAX_REGS) {
			snprintf(err, errsz, "%s=: more than %d registers", field, INSN_MAX_REGS);
			return -1;
		}
		regs[(*n)++] = (reg_id)r;
		i = j + 1;
	}
	return 0;
}

/* "EA:SIZE" (size optional when allowed). */
static int
parse_mem(const char *v, size_t len, uint64_t *ea, uint64_t *size, bool need_size)
{
	const char *colon = memchr(v, ':', len);

	if (!colon)
		return need_size ? -1 : parse_u64(v, len, ea);
	if (!need_size)
		return -1;
	if (parse_u64(v, (size_t)(colon - v), ea) < 0 ||
	    parse_u64(colon + 1, len - (size_t)(colon - v) - 1, size) < 0 || *size > 65535)
		return -1;
	return 0;
}

int
trace_text_parse_line(struct trace_text *t, const char *s, size_t len, struct insn_event *ev,
		      char *err, size_t errsz)
{
	struct insn_info ii;
	const char *cat = NULL, *mn = NULL;
	size_t cat_len = 0, mn_len = 0;
	uint64_t r1 = 0, r1s = 0, r2 = 0, w = 0, ws = 0, v64;
	bool has_pc = false, has_r1 = false, has_r2 = false, has_w = false, has_br = false;
	bool taken = false, has_rep = false, rep_first = false;
	uint64_t rep_count = 0;
	size_t i = 0, cur_len = 0;
	unsigned seen = 0;
	const char *cur = s;

	memset(&ii, 0, sizeof(ii));
	memset(ev, 0, offsetof(struct insn_event, mem));
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	if (i == len || s[i] == '#')
		return 0;
	while (i < len) {
		size_t j = i, k;

		while (j < len && s[j] != ' ' && s[j] != '\t' && s[j] != '\r')
			j++;
		const char *f = s + i, *eq = memchr(f, '=', j - i);
		size_t flen = eq ? (size_t)(eq - f) : j - i;
		const char *v = eq ? eq + 1 : NULL;
		size_t vlen = eq ? (size_t)(s + j - v) : 0;

		cur = f;
		cur_len = j - i;
		static const char *const fields[] = {
			"pc", "sz", "r", "w", "ops", "mr", "mr2", "mw", "br", "cat", "mn",
			"regxfer", "rep"
		};

		for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
			if (strlen(fields[k]) == flen && memcmp(fields[k], f, flen) == 0)
				break;
		if (k == sizeof(fields) / sizeof(fields[0])) {
			snprintf(err, errsz, "unknown field '%.*s' (known: pc sz r w ops mr mr2 mw "
				 "br cat mn regxfer rep)", (int)flen, f);
			return -1;
		}
		if (seen & (1u << k)) {
			snprintf(err, errsz, "field '%s' given twice", fields[k]);
			return -1;
		}
		seen |= 1u << k;
		if ((k == 11) != !v) {
			snprintf(err, errsz, k == 11 ? "regxfer takes no value" :
				 "field '%s' needs a value: %s=...", fields[k], fields[k]);
			return -1;
		}
		switch (k) {
		case 0:
			if (parse_u64(v, vlen, &ev->pc) < 0)
				goto bad_number;
			has_pc = true;
			break;
		case 1:
			if (parse_u64(v, vlen, &v64) < 0 || v64 > 255)
				goto bad_number;
			ii.len = (uint8_t)v64;
			break;
		case 2:
			if (parse_regs(v, vlen, ii.regs_read, &ii.n_regs_read, err, errsz, "r") < 0)
				return -1;
			break;
		case 3:
			if (parse_regs(v, vlen, ii.regs_written, &ii.n_regs_written, err, errsz,
				       "w") < 0)
				return -1;
			break;
		case 4:
			if (parse_u64(v, vlen, &v64) < 0 || v64 > 255)
				goto bad_number;
			ii.reg_operand_count = (uint8_t)v64;
			break;
		case 5:
			if (parse_mem(v, vlen, &r1, &r1s, true) < 0)
				goto bad_mem;
			has_r1 = true;
			break;
		case 6:
			if (parse_mem(v, vlen, &r2, NULL, false) < 0) {
				snprintf(err, errsz, "mr2= takes an address only (its size is mr's), "
					 "not '%.*s'", (int)vlen, v);
				return -1;
			}
			has_r2 = true;
			break;
		case 7:
			if (parse_mem(v, vlen, &w, &ws, true) < 0)
				goto bad_mem;
			has_w = true;
			break;
		case 8:
			if (vlen != 1 || (v[0] != 'T' && v[0] != 'N')) {
				snprintf(err, errsz, "br= is T (taken) or N (not taken), not '%.*s'",
					 (int)vlen, v);
				return -1;
			}
			has_br = true;
			taken = v[0] == 'T';
			break;
		case 9:
			cat = v;
			cat_len = vlen;
			break;
		case 10:
			mn = v;
			mn_len = vlen;
			break;
		case 11:
			ii.flags |= INSN_MOV_ALL_REGS;
			break;
		case 12: {
			const char *colon = memchr(v, ':', vlen);
			uint64_t first;

			if (!colon || parse_u64(v, (size_t)(colon - v), &first) < 0 || first > 1 ||
			    parse_u64(colon + 1, vlen - (size_t)(colon - v) - 1, &rep_count) < 0 ||
			    rep_count > UINT32_MAX) {
				snprintf(err, errsz, "rep= is FIRST:COUNT with FIRST 0 or 1, e.g. "
					 "rep=1:3, not '%.*s'", (int)vlen, v);
				return -1;
			}
			has_rep = true;
			rep_first = first;
			break;
		}
		}
		i = j;
		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
	}
	if (!has_pc) {
		snprintf(err, errsz, "no pc= field");
		return -1;
	}
	if (has_r2 && !has_r1) {
		snprintf(err, errsz, "mr2= without mr=: the second read takes the first's size");
		return -1;
	}
	if (has_br && cat && !(cat_len == 7 && memcmp(cat, "COND_BR", 7) == 0)) {
		snprintf(err, errsz, "br= implies cat=COND_BR, not cat=%.*s", (int)cat_len, cat);
		return -1;
	}
	if (!cat) {
		cat = has_br ? "COND_BR" : "INVALID";
		cat_len = strlen(cat);
	}
	if (!mn) {
		mn = "INVALID";
		mn_len = strlen(mn);
	}
	int ci = intern_name(t->cat, &t->n_cat, MAX_NAMES, cat, cat_len);
	int mi = intern_name(t->mn, &t->n_mn, 65536, mn, mn_len);

	if (ci < 0 || mi < 0) {
		snprintf(err, errsz, "too many distinct category or iclass names");
		return -1;
	}
	ii.pc = ev->pc;
	ii.category = (uint8_t)ci;
	ii.iclass = (uint16_t)mi;
	if (cat_len == 7 && memcmp(cat, "COND_BR", 7) == 0)
		ii.branch = BR_COND;
	if (has_r1)
		ii.flags |= INSN_HAS_MEM_READ;
	if (has_w)
		ii.flags |= INSN_HAS_MEM_WRITE;
	if (has_rep)
		ii.flags |= INSN_REP;

	/* The static key: every static field, in a fixed order. */
	char key[512];
	int n = snprintf(key, sizeof(key), "%" PRIx64 " %u %u %u %u %u %u", ii.pc, ii.len,
			 ii.reg_operand_count, ii.flags, ii.branch, ii.category, ii.iclass);

	for (unsigned r = 0; r < ii.n_regs_read && n > 0 && (size_t)n < sizeof(key); r++)
		n += snprintf(key + n, sizeof(key) - (size_t)n, " r%u", ii.regs_read[r]);
	for (unsigned r = 0; r < ii.n_regs_written && n > 0 && (size_t)n < sizeof(key); r++)
		n += snprintf(key + n, sizeof(key) - (size_t)n, " w%u", ii.regs_written[r]);
	ev->info = intern(t, &ii, key);
	if (!ev->info) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	ev->next_pc = ev->pc + ii.len;
	if (taken)
		ev->flags |= EV_TAKEN;
	if (has_rep) {
		ev->flags |= EV_REP | (rep_first ? EV_REP_FIRST : 0);
		ev->rep_count = (uint32_t)rep_count;
	}
	uint8_t mflags = has_rep && rep_count == 0 ? MEMF_PHANTOM : 0;

	if (has_r1)
		ev->mem[ev->n_mem++] = (struct mem_access){ r1, (uint16_t)r1s, MEM_READ, mflags, 0 };
	if (has_r2)
		ev->mem[ev->n_mem++] = (struct mem_access){ r2, (uint16_t)r1s, MEM_READ, mflags, 0 };
	if (has_w)
		ev->mem[ev->n_mem++] = (struct mem_access){ w, (uint16_t)ws, MEM_WRITE, mflags, 0 };
	return 1;

bad_number:
	snprintf(err, errsz, "bad number in '%.*s'", (int)cur_len, cur);
	return -1;
bad_mem:
	snprintf(err, errsz, "'%.*s': a memory access is EA:SIZE (e.g. mr=0x1000:8)",
		 (int)cur_len, cur);
	return -1;
}

int
trace_text_next(struct trace_text *t, const char *buf, size_t len, size_t *pos, unsigned *line,
		struct insn_event *ev, char *err, size_t errsz)
{
	while (*pos < len) {
		const char *s = buf + *pos, *nl = memchr(s, '\n', len - *pos);
		size_t l = nl ? (size_t)(nl - s) : len - *pos;
		char msg[256];
		int r;

		*pos += l + (nl ? 1 : 0);
		++*line;
		r = trace_text_parse_line(t, s, l, ev, msg, sizeof(msg));
		if (r < 0) {
			snprintf(err, errsz, "%u: %s", *line, msg);
			return -1;
		}
		if (r > 0)
			return 1;
	}
	return 0;
}
