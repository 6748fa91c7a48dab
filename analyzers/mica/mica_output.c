/*
 * MICA's output file formats (spec mica.md §4.1), byte for byte, with
 * MICA's idiosyncrasies kept (Q4, Q7): which lines start with S, E_int or
 * no count at all, and where a trailing space or newline goes.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mica/mica_output.h"

static int
add_file(struct mica_output *o, char *name, bool trunc)
{
	struct mica_output_file *n;

	if (!name)
		return -1;
	n = realloc(o->files, (o->n_files + 1) * sizeof(*n));
	if (!n) {
		free(name);
		return -1;
	}
	o->files = n;
	memset(&n[o->n_files], 0, sizeof(*n));
	n[o->n_files].name = name;
	n[o->n_files].truncate_at_start = trunc;
	return (int)o->n_files++;
}

static char *
file_name(const char *base, const struct mica_config *cfg, long pid)
{
	char buf[256];
	const char *mode = mica_config_full(cfg) ? "full" : "phases";

	if (cfg->append_pid)
		snprintf(buf, sizeof(buf), "%s_%s_int_%ld_pin.out", base, mode, pid);
	else
		snprintf(buf, sizeof(buf), "%s_%s_int_pin.out", base, mode);
	return strdup(buf);
}

struct mica_output *
mica_output_new(const struct mica_config *cfg, long pid)
{
	struct mica_output *o = calloc(1, sizeof(*o));
	bool trunc = !mica_config_full(cfg);

	if (!o)
		return NULL;
	o->other_categories = -1;
	for (int a = 0; a < MICA_N_ANALYSES; a++) {
		char base[32];

		o->file_of[a] = -1;
		if (!(cfg->analyses & MICA_BIT(a)))
			continue;
		if (a == MICA_ILP_ONE)
			snprintf(base, sizeof(base), "ilp-win%" PRIu32, cfg->ilp_size);
		else
			snprintf(base, sizeof(base), "%s", mica_analysis_name((enum mica_analysis)a));
		o->file_of[a] = add_file(o, file_name(base, cfg, pid), trunc);
		if (o->file_of[a] < 0)
			goto fail;
	}
	if (cfg->analyses & MICA_BIT(MICA_ITYPES)) {
		o->other_categories = add_file(o, strdup("itypes_other_group_categories.txt"), false);
		if (o->other_categories < 0)
			goto fail;
	}
	return o;
fail:
	mica_output_free(o);
	return NULL;
}

void
mica_output_free(struct mica_output *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n_files; i++) {
		free(o->files[i].name);
		free(o->files[i].data);
	}
	free(o->files);
	free(o);
}

void
mica_output_clear(struct mica_output *o)
{
	for (size_t i = 0; i < o->n_files; i++)
		o->files[i].len = 0;
}

static void __attribute__((format(printf, 2, 3)))
put(struct mica_output_file *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = f->cap - f->len;

		va_start(ap, fmt);
		n = vsnprintf(f->data ? f->data + f->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			f->len += (size_t)n;
			return;
		}
		size_t cap = (f->cap ? f->cap * 2 : 256) + (size_t)n;
		char *d = realloc(f->data, cap);

		if (!d)
			return;
		f->data = d;
		f->cap = cap;
	}
}

int
mica_output_comment(struct mica_output *o, const char *text)
{
	for (int a = 0; a < MICA_N_ANALYSES; a++) {
		if (o->file_of[a] < 0)
			continue;
		struct mica_output_file *f = &o->files[o->file_of[a]];
		size_t before = f->len;

		put(f, "# %s\n", text);
		if (f->len == before)
			return -1;
	}
	return 0;
}

/* Numbers separated by spaces, no leading or trailing space. */
static void
put_list(struct mica_output_file *f, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(f, i ? " %" PRIu64 : "%" PRIu64, v[i]);
}

/* Line heads and tails by line kind: full, per-boundary, final. */
enum kind { FULL, BOUNDARY, FINAL };

static enum kind
kind_of(const struct mica_interval *iv)
{
	return iv->full ? FULL : iv->final ? FINAL : BOUNDARY;
}

static void
out_ilp(struct mica_output_file *f, const struct mica_interval *iv)
{
	enum kind k = kind_of(iv);

	put(f, "%" PRIu64 " ", iv->ins);
	put_list(f, iv->ilp.cycles, MICA_ILP_WINDOWS);
	put(f, k == BOUNDARY ? "\n" : " \n");
}

static void
out_ilp_one(struct mica_output_file *f, const struct mica_interval *iv)
{
	switch (kind_of(iv)) {
	case FULL:
		put(f, " %" PRIu64 "\n", iv->ilp_one.cycles[0]);
		break;
	case BOUNDARY:
		put(f, "%" PRId64 " %" PRIu64 "\n", iv->interval_size, iv->ilp_one.cycles[0]);
		break;
	case FINAL:
		put(f, "%" PRIu64 " %" PRIu64 "\n", iv->ins, iv->ilp_one.cycles[0]);
		break;
	}
}

static void
out_itypes(struct mica_output_file *f, const struct mica_interval *iv)
{
	const struct mica_itypes_result *r = &iv->itypes;

	switch (kind_of(iv)) {
	case FULL:	/* the catch-all group is not printed (Q4) */
		put(f, "%" PRIu64 " %" PRIu64 " ", iv->total_ins_aligned, iv->total_ins);
		put_list(f, r->counts, r->n_groups);
		put(f, "\n ");
		break;
	case BOUNDARY:
		put(f, "%" PRId64 " ", iv->interval_size);
		put_list(f, r->counts, r->n_groups + 1);
		put(f, "\n");
		break;
	case FINAL:
		put(f, "%" PRIu64 " ", iv->ins);
		put_list(f, r->counts, r->n_groups + 1);
		put(f, "\n ");
		break;
	}
}

static void
out_ppm(struct mica_output_file *f, const struct mica_interval *iv)
{
	const struct mica_ppm_result *r = &iv->ppm;
	uint64_t v[MICA_PPM_LENGTHS * MICA_PPM_ORGS + 3];
	size_t n = 0;

	for (int l = 0; l < MICA_PPM_LENGTHS; l++)
		for (int o = 0; o < MICA_PPM_ORGS; o++)
			v[n++] = r->miss[l][o];
	v[n++] = r->branches;
	v[n++] = r->transitions;
	v[n++] = r->taken;
	if (kind_of(iv) == BOUNDARY)
		put(f, "%" PRId64 " ", iv->interval_size);
	put_list(f, v, n);
	put(f, kind_of(iv) == BOUNDARY ? "\n" : "\n ");
}

void
mica_reg_numbers(const struct mica_reg_result *r, uint64_t v[MICA_REG_NUMBERS])
{
	static const unsigned dist[MICA_REG_CUM] = { 1, 2, 4, 8, 16, 32, 64 };
	uint64_t cum = 0;
	unsigned a = 0;

	memset(v, 0, MICA_REG_NUMBERS * sizeof(v[0]));
	for (unsigned i = 1; i < MICA_REG_OPS; i++)
		v[0] += i * r->op_count[i];
	for (unsigned i = 0; i < MICA_REG_HIST; i++) {
		v[1] += r->use_dist[i];
		v[2] += i * r->use_dist[i];
		v[3] += r->age_dist[i];
	}
	for (int d = 0; d < MICA_REG_CUM; d++) {
		for (; a <= dist[d]; a++)
			cum += r->age_dist[a];
		v[4 + d] = cum;
	}
}

static void
out_reg(struct mica_output_file *f, const struct mica_interval *iv)
{
	uint64_t v[MICA_REG_NUMBERS];

	mica_reg_numbers(&iv->reg, v);
	if (kind_of(iv) == BOUNDARY)
		put(f, "%" PRId64 " ", iv->interval_size);
	put_list(f, v, MICA_REG_NUMBERS);
	put(f, kind_of(iv) == BOUNDARY ? "\n" : "\n ");
}

static void
out_stride(struct mica_output_file *f, const struct mica_interval *iv)
{
	const struct mica_stride_result *r = &iv->stride;

	put(f, "%" PRIu64 " ", r->reads);
	put_list(f, r->local_read, MICA_STRIDE_CUM);
	put(f, " ");
	put_list(f, r->global_read, MICA_STRIDE_CUM);
	put(f, " %" PRIu64 " ", r->writes);
	put_list(f, r->local_write, MICA_STRIDE_CUM);
	put(f, " ");
	put_list(f, r->global_write, MICA_STRIDE_CUM);
	put(f, "\n");
}

static void
out_memfootprint(struct mica_output_file *f, const struct mica_interval *iv)
{
	const struct mica_memfootprint_result *r = &iv->memfootprint;
	uint64_t v[4] = { r->data_blocks, r->data_pages, r->insn_blocks, r->insn_pages };

	put_list(f, v, 4);
	put(f, kind_of(iv) == BOUNDARY ? "\n" : "\n ");
}

static void
out_memstackdist(struct mica_output_file *f, const struct mica_interval *iv)
{
	const struct mica_memstackdist_result *r = &iv->memstackdist;

	put(f, "%" PRIu64 " %" PRIu64 " ", r->refs, r->cold);
	put_list(f, r->bucket, MICA_MSD_BUCKETS);
	put(f, kind_of(iv) == BOUNDARY ? "\n" : " ");
}

int
mica_output_add(void *p, const struct mica_interval *iv)
{
	struct mica_output *o = p;
	static void (*const out[MICA_N_ANALYSES])(struct mica_output_file *,
						  const struct mica_interval *) = {
		[MICA_ILP] = out_ilp,
		[MICA_ILP_ONE] = out_ilp_one,
		[MICA_ITYPES] = out_itypes,
		[MICA_PPM] = out_ppm,
		[MICA_REG] = out_reg,
		[MICA_STRIDE] = out_stride,
		[MICA_MEMFOOTPRINT] = out_memfootprint,
		[MICA_MEMSTACKDIST] = out_memstackdist,
	};

	for (int a = 0; a < MICA_N_ANALYSES; a++) {
		if (o->file_of[a] < 0 || !(iv->analyses & MICA_BIT(a)))
			continue;
		struct mica_output_file *f = &o->files[o->file_of[a]];
		size_t before = f->len;

		out[a](f, iv);
		if (f->len == before)
			o->failed = true;
	}
	if (o->other_categories >= 0 && iv->final) {
		struct mica_output_file *f = &o->files[o->other_categories];

		for (size_t i = 0; i < iv->itypes.n_other; i++)
			put(f, "%s\n", iv->itypes.other[i]);
	}
	return o->failed ? -1 : 0;
}
