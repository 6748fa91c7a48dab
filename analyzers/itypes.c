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
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica.h"
#include "u64map.h"

struct itypes {
	struct itypes_spec *spec;
	bool own_spec;
	bool reg_transfer;	/* SPECIAL reg_transfer can match */
	struct u64map classes;	/* insn_info pointer -> offset << 16 | count */
	uint16_t *groups;	/* the lists of group ids */
	size_t n_groups_used, groups_cap;
	uint64_t *counts;	/* n_groups + 1 live, then as many closed */
	char **other;
	size_t n_other;
	const struct insn_info *last_ii;
	uint64_t last_class;
};

static void
itypes_destroy(void *p)
{
	struct itypes *it = p;

	if (!it)
		return;
	if (it->own_spec)
		itypes_spec_free(it->spec);
	u64map_free(&it->classes);
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
	if (!it->counts || u64map_init(&it->classes, 10) < 0)
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
itypes_event(void *p, const struct insn_event *ev, const struct mica_ctx *ctx)
{
	struct itypes *it = p;
	uint64_t c;

	if (ev->info == it->last_ii) {
		c = it->last_class;
	} else if (ctx->insn_cache && ctx->insn_cache[MICA_CACHE_ITYPES] != UINT64_MAX) {
		c = ctx->insn_cache[MICA_CACHE_ITYPES];
		it->last_ii = ev->info;
		it->last_class = c;
	} else {
		uint64_t *v = u64map_find(&it->classes, (uint64_t)(uintptr_t)ev->info);

		if (v) {
			c = *v;
		} else {
			bool created;

			c = classify(it, ev->info, ctx->names);
			if (c == UINT64_MAX)
				return -1;
			v = u64map_insert(&it->classes, (uint64_t)(uintptr_t)ev->info, &created);
			if (!v)
				return -1;
			*v = c;
		}
		it->last_ii = ev->info;
		it->last_class = c;
		if (ctx->insn_cache)
			ctx->insn_cache[MICA_CACHE_ITYPES] = c;
	}
	const uint16_t *g = &it->groups[c >> 16];

	for (unsigned n = c & 0xffff; n; n--, g++)
		it->counts[*g]++;
	return 0;
}

static void
itypes_close(void *p, struct mica_interval *out)
{
	struct itypes *it = p;
	unsigned n = it->spec->n_groups;

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
	.event = itypes_event,
	.close = itypes_close,
	.destroy = itypes_destroy,
};
