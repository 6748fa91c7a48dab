/*
 * itypes: the instruction mix by groups of XED categories and iclasses
 * (spec mica.md §3.2).
 *
 * Each static instruction is classified once, at its first DE (MICA does
 * it at instrumentation time), into the list of groups it counts in; every
 * DE then adds 1 to each.  Kept from MICA (Q4, Q5): SPECIAL reg_transfer
 * counts its group without ending the group's scan nor categorising the
 * instruction, and never matches under `analysis_type: all`; the catch-all
 * category list is cumulative.  In a custom list reg_transfer matches, as
 * in standalone itypes.
 *
 * Each static instruction's list of groups is found at its first DE and
 * kept in a table indexed by its number (sid), with the instruction's DE
 * count in the interval: a DE costs one increment, and the counts are
 * spread over the groups at the interval's end.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica/mica.h"
#include "mica/sid_table.h"

struct itypes {
	struct itypes_spec *spec;
	bool own_spec;
	bool reg_transfer;	/* SPECIAL reg_transfer can match */
	struct itypes_static {
		uint64_t cls;	/* offset << 16 | count; UINT64_MAX unknown */
		uint64_t n;	/* DEs in this interval */
	} *st;			/* [sid] */
	size_t n_st;
	uint32_t *touched;	/* sids with n > 0 */
	size_t n_touched, cap_touched;
	uint16_t *groups;	/* the lists of group ids */
	size_t n_groups_used, groups_cap;
	uint64_t *counts;	/* n_groups + 1 live, then as many closed */
	char **other;
	size_t n_other;
};

static void
itypes_destroy(void *p)
{
	struct itypes *it = p;

	if (!it)
		return;
	if (it->own_spec)
		itypes_spec_free(it->spec);
	free(it->st);
	free(it->touched);
	free(it->groups);
	free(it->counts);
	for (size_t i = 0; i < it->n_other; i++)
		free(it->other[i]);
	free(it->other);
	free(it);
}

static void *
itypes_create(const struct mica_config *cfg, char *err, size_t errsz)
{
	struct itypes *it = calloc(1, sizeof(*it));

	if (!it)
		goto oom;
	it->reg_transfer = !cfg->all;
	if (cfg->itypes_spec) {
		it->spec = cfg->itypes_spec;
	} else {
		it->spec = itypes_spec_builtin();
		it->own_spec = true;
		if (!it->spec)
			goto oom;
	}
	it->counts = calloc(2 * ((size_t)it->spec->n_groups + 1), sizeof(uint64_t));
	if (!it->counts)
		goto oom;
	return it;
oom:
	itypes_destroy(it);
	if (errsz)
		strncpy(err, "itypes: out of memory", errsz - 1), err[errsz - 1] = '\0';
	return NULL;
}

static int
add_group(struct itypes *it, unsigned g)
{
	if (it->n_groups_used == it->groups_cap) {
		size_t cap = it->groups_cap ? it->groups_cap * 2 : 256;
		uint16_t *n = realloc(it->groups, cap * sizeof(*n));

		if (!n)
			return -1;
		it->groups = n;
		it->groups_cap = cap;
	}
	it->groups[it->n_groups_used++] = (uint16_t)g;
	return 0;
}

static int
add_other(struct itypes *it, const char *cat)
{
	char **n, *s;

	for (size_t i = 0; i < it->n_other; i++)
		if (strcmp(it->other[i], cat) == 0)
			return 0;
	n = realloc(it->other, (it->n_other + 1) * sizeof(*n));
	if (!n)
		return -1;
	it->other = n;
	if (!(s = strdup(cat)))
		return -1;
	it->other[it->n_other++] = s;
	return 0;
}

static bool
ident_matches(const struct itypes *it, const struct itypes_ident *id, const struct insn_info *ii,
	      const char *cat, const char *iclass, bool *reg_transfer)
{
	*reg_transfer = false;
	switch (id->kind) {
	case ITYPES_CATEGORY:
		return strcmp(id->name, cat) == 0;
	case ITYPES_OPCODE:
		return strcmp(id->name, iclass) == 0;
	case ITYPES_SPECIAL:
		if (strcmp(id->name, "mem_read") == 0)
			return ii->flags & INSN_HAS_MEM_READ;
		if (strcmp(id->name, "mem_write") == 0)
			return ii->flags & INSN_HAS_MEM_WRITE;
		if (strcmp(id->name, "reg_transfer") == 0)
			*reg_transfer = it->reg_transfer && (ii->flags & INSN_MOV_ALL_REGS);
		return false;
	}
	return false;
}

/* Classify ii; returns offset << 16 | count, or UINT64_MAX if out of memory. */
static uint64_t
classify(struct itypes *it, const struct insn_info *ii, const struct mica_names *names)
{
	const struct itypes_spec *s = it->spec;
	const char *cat = names->category(names->ctx, ii);
	const char *iclass = names->iclass(names->ctx, ii);
	size_t start = it->n_groups_used;
	bool categorised = false;
	size_t i = 0;

	while (i < s->n_idents) {
		unsigned g = s->idents[i].group;
		bool done = false;

		for (; i < s->n_idents && s->idents[i].group == g; i++) {
			bool rt;

			if (done)
				continue;
			if (ident_matches(it, &s->idents[i], ii, cat, iclass, &rt)) {
				if (add_group(it, g) < 0)
					return UINT64_MAX;
				categorised = done = true;
			} else if (rt && add_group(it, g) < 0) {
				return UINT64_MAX;
			}
		}
	}
	if (!categorised) {
		if (add_group(it, s->n_groups) < 0 || add_other(it, cat) < 0)
			return UINT64_MAX;
	}
	return (uint64_t)start << 16 | (it->n_groups_used - start);
}

static int
itypes_run(void *p, const struct mica_batch *b)
{
	struct itypes *it = p;

	if (b->n_statics > it->n_st) {
		size_t old = it->n_st;
		struct itypes_static *t = mica_sid_table_grow(it->st, &it->n_st, b->n_statics,
							      sizeof(*t), 0xff);

		if (!t)
			return -1;
		for (size_t i = old; i < it->n_st; i++)
			t[i].n = 0;
		it->st = t;
	}
	if (it->cap_touched < it->n_st) {	/* a sid is listed at most once */
		uint32_t *tl = realloc(it->touched, it->n_st * sizeof(*tl));

		if (!tl)
			return -1;
		it->touched = tl;
		it->cap_touched = it->n_st;
	}
	struct itypes_static *st = it->st;
	uint32_t *touched = it->touched;
	size_t nt = it->n_touched;

	for (unsigned i = 0; i < b->n; i++) {
		const struct mica_de *d = &b->de[i];
		struct itypes_static *s = &st[d->sid];

		if (__builtin_expect(s->cls == UINT64_MAX, 0)) {
			uint64_t c = classify(it, b->statics[d->sid].info, b->names);

			if (c == UINT64_MAX) {
				it->n_touched = nt;
				return -1;
			}
			s->cls = c;
		}
		if (!s->n++)
			touched[nt++] = d->sid;
	}
	it->n_touched = nt;
	return 0;
}

static void
itypes_close(void *p, struct mica_interval *out)
{
	struct itypes *it = p;
	unsigned n = it->spec->n_groups;

	for (size_t i = 0; i < it->n_touched; i++) {
		struct itypes_static *s = &it->st[it->touched[i]];
		const uint16_t *g = &it->groups[s->cls >> 16];

		for (unsigned k = s->cls & 0xffff; k; k--, g++)
			it->counts[*g] += s->n;
		s->n = 0;
	}
	it->n_touched = 0;
	/* The result points at a copy kept until the next close. */
	out->itypes.n_groups = n;
	out->itypes.n_other = it->n_other;
	out->itypes.other = (const char *const *)it->other;
	out->itypes.counts = it->counts + n + 1;
	memcpy(it->counts + n + 1, it->counts, (n + 1) * sizeof(uint64_t));
	memset(it->counts, 0, (n + 1) * sizeof(uint64_t));
}

const struct mica_analyzer_ops mica_itypes_ops = {
	.id = MICA_ITYPES,
	.create = itypes_create,
	.run = itypes_run,
	.close = itypes_close,
	.destroy = itypes_destroy,
};
