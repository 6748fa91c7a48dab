/*
 * micactl export --format folded|pprof (export_profile.h).
 *
 * folded: one line per distinct stack of functions, "outer;...;inner
 * COUNT", sorted (C locale), the stacks of every thread summed: what
 * flamegraph.pl, inferno-flamegraph and speedscope read.
 *
 * pprof: profile.proto (client/profile.proto, encoded by protobuf-c),
 * gzipped with zlib: two sample types (samples/count, then the weight:
 * cpu/nanoseconds for the software clocks, else EVENT/events), a sample per
 * stack and thread (label "tid"), a location per frame (its address and
 * mapping), a function per symbol (its module as the file name), a
 * mapping per module spanning the addresses seen in it.
 */
#include "config.h"
#include "client/export_profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>
#include <zlib.h>

#include "client/profile.pb-c.h"
#include "u64map.h"
#include "util.h"

/* Why a range has no samples, for the message. */
static void
no_samples(int64_t session, const struct profile_range *r)
{
	char what[160] = "";

	if (r->one_thread)
		snprintf(what, sizeof(what), " of thread %" PRId64, r->tid);
	if (r->from > 0 || r->to < INT64_MAX) {
		size_t n = strlen(what);

		if (r->to < INT64_MAX)
			snprintf(what + n, sizeof(what) - n, " in intervals %" PRId64 "..%" PRId64,
				 r->from, r->to);
		else
			snprintf(what + n, sizeof(what) - n, " in intervals %" PRId64 "..", r->from);
	}
	error_msg("session %" PRId64 " has no samples%s", session, what);
}

/* ---- folded ---- */

struct line {
	char *stack;
	uint64_t count;
};

static int
by_stack(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->stack, ((const struct line *)b)->stack);
}

/* Append s to the line; a frame's name with ';' (which separates frames)
 * as ':' and control characters as '?' (a space stays: readers split the
 * count off at the last one). */
static void
append(char **buf, size_t *len, size_t *cap, const char *s, bool frame)
{
	size_t n = strlen(s);

	if (*len + n + 1 > *cap) {
		while (*len + n + 1 > *cap)
			*cap = *cap ? 2 * *cap : 256;
		*buf = xreallocarray(*buf, *cap, 1);
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (frame && c == ';')
			c = ':';
		else if (frame && (c < 0x20 || c == 0x7f))
			c = '?';
		(*buf)[(*len)++] = (char)c;
	}
	(*buf)[*len] = '\0';
}

static int
write_folded(const struct profile *p, FILE *f)
{
	struct line *lines = xcalloc(p->n_stacks ? p->n_stacks : 1, sizeof(*lines));
	size_t n = 0;

	for (size_t i = 0; i < p->n_stacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		char *buf = NULL;
		size_t len = 0, cap = 0;

		if (!s->count || !s->depth)
			continue;
		for (uint32_t k = 0; k < s->depth; k++) {
			if (k)
				append(&buf, &len, &cap, ";", false);
			append(&buf, &len, &cap, p->functions[p->frames[s->frames[k]].function].name,
			       true);
		}
		lines[n].stack = buf;
		lines[n++].count = s->count;
	}
	qsort(lines, n, sizeof(*lines), by_stack);
	for (size_t i = 0; i < n; i++) {
		uint64_t c = lines[i].count;

		/* Stacks that differ only in offsets inside functions are one. */
		while (i + 1 < n && !strcmp(lines[i].stack, lines[i + 1].stack)) {
			free(lines[i].stack);
			c += lines[++i].count;
		}
		fprintf(f, "%s %" PRIu64 "\n", lines[i].stack, c);
		free(lines[i].stack);
	}
	free(lines);
	return 0;
}

/* ---- pprof ---- */

struct strtab {
	char **s;
	size_t n, cap;
	struct u64map map;	/* FNV-1a -> 1 + first index */
	size_t *next;		/* 1 + next index of the same hash */
};

static int64_t
str_index(struct strtab *t, const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	bool created;
	uint64_t *head;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	head = u64map_insert(&t->map, h, &created);
	if (!head)
		error_msg_and_die("out of memory");
	for (uint64_t i = *head; i; i = t->next[i - 1])
		if (!strcmp(t->s[i - 1], s))
			return (int64_t)(i - 1);
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->s = xreallocarray(t->s, t->cap, sizeof(*t->s));
		t->next = xreallocarray(t->next, t->cap, sizeof(*t->next));
	}
	t->s[t->n] = xstrdup(s);
	t->next[t->n] = (size_t)*head;
	*head = t->n + 1;
	return (int64_t)t->n++;
}

/* Everything the encoder points into, freed at once. */
struct pprof {
	Perftools__Profiles__Profile prof;
	Perftools__Profiles__ValueType types[2];
	Perftools__Profiles__ValueType *type_ptrs[2];
	Perftools__Profiles__Function *funcs;
	Perftools__Profiles__Function **func_ptrs;
	Perftools__Profiles__Mapping *maps;
	Perftools__Profiles__Mapping **map_ptrs;
	Perftools__Profiles__Location *locs;
	Perftools__Profiles__Location **loc_ptrs;
	Perftools__Profiles__Line *lines;
	Perftools__Profiles__Line **line_ptrs;
	Perftools__Profiles__Sample *samples;
	Perftools__Profiles__Sample **sample_ptrs;
	Perftools__Profiles__Label *labels;
	Perftools__Profiles__Label **label_ptrs;
	uint64_t *location_ids;
	int64_t *values;
	int64_t comments[3];
	struct strtab strings;
};

static void
pprof_free(struct pprof *x)
{
	free(x->funcs);
	free(x->func_ptrs);
	free(x->maps);
	free(x->map_ptrs);
	free(x->locs);
	free(x->loc_ptrs);
	free(x->lines);
	free(x->line_ptrs);
	free(x->samples);
	free(x->sample_ptrs);
	free(x->labels);
	free(x->label_ptrs);
	free(x->location_ids);
	free(x->values);
	for (size_t i = 0; i < x->strings.n; i++)
		free(x->strings.s[i]);
	free(x->strings.s);
	free(x->strings.next);
	u64map_free(&x->strings.map);
}

static uint64_t
clamp_ns(double seconds)
{
	return seconds > 0 && seconds < 9e9 ? (uint64_t)(seconds * 1e9 + 0.5) : 0;
}

/* The mappings: one per module with a file ("[unknown]" has none), in
 * the order the frames meet them, spanning the addresses seen in it.
 * frame_map[i] gets frame i's mapping id (0: none). */
static void
build_mappings(struct pprof *x, const struct profile *p, uint64_t *frame_map)
{
	size_t n = 0;
	uint64_t *of_function = xcalloc(p->n_functions ? p->n_functions : 1, sizeof(*of_function));

	x->maps = xcalloc(p->n_functions ? p->n_functions : 1, sizeof(*x->maps));
	x->map_ptrs = xcalloc(p->n_functions ? p->n_functions : 1, sizeof(*x->map_ptrs));
	for (size_t i = 0; i < p->n_frames; i++) {
		const struct profile_frame *fr = &p->frames[i];
		const char *module = p->functions[fr->function].module;
		Perftools__Profiles__Mapping *m;
		uint64_t id = of_function[fr->function];

		if (!strcmp(module, "[unknown]")) {
			frame_map[i] = 0;
			continue;
		}
		if (!id) {
			/* Another function of a module seen already? */
			for (size_t k = 0; k < n && !id; k++)
				if (!strcmp(x->strings.s[x->maps[k].filename], module))
					id = k + 1;
			if (!id) {
				m = &x->maps[n];
				perftools__profiles__mapping__init(m);
				m->id = n + 1;
				m->filename = str_index(&x->strings, module);
				m->has_functions = true;
				x->map_ptrs[n] = m;
				id = ++n;
			}
			of_function[fr->function] = id;
		}
		m = &x->maps[id - 1];
		frame_map[i] = id;
		if (fr->has_address) {
			if (!m->memory_limit || fr->address < m->memory_start)
				m->memory_start = fr->address;
			if (fr->address + 1 > m->memory_limit)
				m->memory_limit = fr->address + 1;
		}
	}
	x->prof.n_mapping = n;
	x->prof.mapping = x->map_ptrs;
	free(of_function);
}

static void
build_pprof(struct pprof *x, const struct profile *p, const struct profile_session *s)
{
	Perftools__Profiles__Profile *pr = &x->prof;
	uint64_t *frame_map = xcalloc(p->n_frames ? p->n_frames : 1, sizeof(*frame_map));
	size_t n_loc_ids = 0, at = 0;
	bool clock = !strcmp(profile_weight_unit(s->sample_event), "nanoseconds");
	char *comment;

	memset(x, 0, sizeof(*x));
	if (u64map_init(&x->strings.map, 8) < 0)
		error_msg_and_die("out of memory");
	perftools__profiles__profile__init(pr);
	str_index(&x->strings, "");
	for (int i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&x->types[i]);
		x->type_ptrs[i] = &x->types[i];
	}
	x->types[0].type = str_index(&x->strings, "samples");
	x->types[0].unit = str_index(&x->strings, "count");
	x->types[1].type = str_index(&x->strings, clock ? "cpu" :
				     s->sample_event ? s->sample_event : "events");
	x->types[1].unit = str_index(&x->strings, clock ? "nanoseconds" : "events");
	pr->n_sample_type = 2;
	pr->sample_type = x->type_ptrs;

	x->funcs = xcalloc(p->n_functions ? p->n_functions : 1, sizeof(*x->funcs));
	x->func_ptrs = xcalloc(p->n_functions ? p->n_functions : 1, sizeof(*x->func_ptrs));
	for (size_t i = 0; i < p->n_functions; i++) {
		Perftools__Profiles__Function *f = &x->funcs[i];

		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = f->system_name = str_index(&x->strings, p->functions[i].name);
		f->filename = str_index(&x->strings, p->functions[i].module);
		x->func_ptrs[i] = f;
	}
	pr->n_function = p->n_functions;
	pr->function = x->func_ptrs;

	build_mappings(x, p, frame_map);

	x->locs = xcalloc(p->n_frames ? p->n_frames : 1, sizeof(*x->locs));
	x->loc_ptrs = xcalloc(p->n_frames ? p->n_frames : 1, sizeof(*x->loc_ptrs));
	x->lines = xcalloc(p->n_frames ? p->n_frames : 1, sizeof(*x->lines));
	x->line_ptrs = xcalloc(p->n_frames ? p->n_frames : 1, sizeof(*x->line_ptrs));
	for (size_t i = 0; i < p->n_frames; i++) {
		Perftools__Profiles__Location *l = &x->locs[i];

		perftools__profiles__location__init(l);
		perftools__profiles__line__init(&x->lines[i]);
		l->id = i + 1;
		l->mapping_id = frame_map[i];
		l->address = p->frames[i].has_address ? p->frames[i].address : 0;
		x->lines[i].function_id = p->frames[i].function + 1;
		x->line_ptrs[i] = &x->lines[i];
		l->n_line = 1;
		l->line = &x->line_ptrs[i];
		x->loc_ptrs[i] = l;
	}
	pr->n_location = p->n_frames;
	pr->location = x->loc_ptrs;

	for (size_t i = 0; i < p->n_stacks; i++)
		n_loc_ids += p->stacks[i].depth;
	x->samples = xcalloc(p->n_stacks ? p->n_stacks : 1, sizeof(*x->samples));
	x->sample_ptrs = xcalloc(p->n_stacks ? p->n_stacks : 1, sizeof(*x->sample_ptrs));
	x->labels = xcalloc(p->n_stacks ? p->n_stacks : 1, sizeof(*x->labels));
	x->label_ptrs = xcalloc(p->n_stacks ? p->n_stacks : 1, sizeof(*x->label_ptrs));
	x->location_ids = xcalloc(n_loc_ids ? n_loc_ids : 1, sizeof(*x->location_ids));
	x->values = xcalloc(2 * (p->n_stacks ? p->n_stacks : 1), sizeof(*x->values));
	for (size_t i = 0; i < p->n_stacks; i++) {
		const struct profile_stack *st = &p->stacks[i];
		Perftools__Profiles__Sample *sm = &x->samples[i];
		Perftools__Profiles__Label *lb = &x->labels[i];

		perftools__profiles__sample__init(sm);
		perftools__profiles__label__init(lb);
		sm->location_id = &x->location_ids[at];
		sm->n_location_id = st->depth;
		for (uint32_t k = 0; k < st->depth; k++)	/* innermost first */
			x->location_ids[at++] = (uint64_t)st->frames[st->depth - 1 - k] + 1;
		x->values[2 * i] = (int64_t)st->count;
		x->values[2 * i + 1] = (int64_t)st->weight;
		sm->value = &x->values[2 * i];
		sm->n_value = 2;
		lb->key = str_index(&x->strings, "tid");
		lb->num = st->tid;
		x->label_ptrs[i] = lb;
		sm->label = &x->label_ptrs[i];
		sm->n_label = 1;
		x->sample_ptrs[i] = sm;
	}
	pr->n_sample = p->n_stacks;
	pr->sample = x->sample_ptrs;

	pr->time_nanos = (int64_t)clamp_ns(s->started_at);
	if (s->ended_at > s->started_at)
		pr->duration_nanos = (int64_t)clamp_ns(s->ended_at - s->started_at);
	comment = xasprintf("micad session %" PRId64 ": %s", s->id, s->command ? s->command : "");
	x->comments[pr->n_comment++] = str_index(&x->strings, comment);
	free(comment);
	if (s->sample_note)
		x->comments[pr->n_comment++] = str_index(&x->strings, s->sample_note);
	if (s->weighting) {
		comment = xasprintf("bursts weighted by %s", s->weighting);
		x->comments[pr->n_comment++] = str_index(&x->strings, comment);
		free(comment);
	}
	pr->comment = x->comments;
	pr->n_string_table = x->strings.n;
	pr->string_table = x->strings.s;
	free(frame_map);
}

/* The encoded profile gzipped (pprof reads both; gzip is the norm). */
static unsigned char *
gzip(const uint8_t *in, size_t n, size_t *out_len)
{
	z_stream z;
	unsigned char *out;
	uLong cap;
	int rc;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		error_msg("zlib: deflateInit2 failed: %s", z.msg ? z.msg : "out of memory?");
		return NULL;
	}
	cap = deflateBound(&z, (uLong)n) + 32;
	out = xmalloc(cap);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	*out_len = cap - z.avail_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		error_msg("zlib: deflate failed (%d)", rc);
		free(out);
		return NULL;
	}
	return out;
}

static int
write_pprof(const struct profile *p, const struct profile_session *s, FILE *f)
{
	struct pprof x;
	uint8_t *buf;
	unsigned char *gz;
	size_t n, gz_len;
	int ret = -1;

	build_pprof(&x, p, s);
	n = perftools__profiles__profile__get_packed_size(&x.prof);
	if (n > UINT32_MAX) {
		error_msg("the profile is too large for one pprof file (%zu bytes)", n);
		pprof_free(&x);
		return -1;
	}
	buf = xmalloc(n ? n : 1);
	if (perftools__profiles__profile__pack(&x.prof, buf) != n) {
		error_msg("protobuf-c packed a different size than it announced");
		goto out;
	}
	gz = gzip(buf, n, &gz_len);
	if (!gz)
		goto out;
	if (fwrite(gz, 1, gz_len, f) == gz_len)
		ret = 0;
	free(gz);
out:
	free(buf);
	pprof_free(&x);
	return ret;
}

int
export_profile(sqlite3 *db, const char *path, enum profile_format format,
	       const struct profile_range *r, const char *out)
{
	struct profile_range range = *r;
	struct profile_session s;
	struct profile *p = NULL;
	char err[512];
	FILE *f = NULL;
	int rc, ret = 1;

	rc = profile_session_read(db, r->session, &s, err, sizeof(err));
	if (rc <= 0) {
		if (rc < 0)
			error_msg("%s: %s", path, err);
		else
			error_msg("no session %" PRId64 " in %s (micactl query 'SELECT id, command "
				  "FROM session' lists them)", r->session, path);
		return 1;
	}
	if (!s.engine || strcmp(s.engine, "sample")) {
		error_msg("session %" PRId64 " was not sampled (engine '%s'): it has no call-stack "
			  "profile (micad run --sample records one)", r->session,
			  s.engine ? s.engine : "?");
		goto out;
	}
	range.per_thread = format == PROFILE_PPROF;
	p = profile_read(db, &range, err, sizeof(err));
	if (!p) {
		error_msg("%s: %s", path, err);
		goto out;
	}
	if (!p->samples) {
		no_samples(r->session, r);
		goto out;
	}
	if (out) {
		if (!(f = fopen(out, format == PROFILE_PPROF ? "wb" : "w"))) {
			perror_msg("cannot write %s", out);
			goto out;
		}
	} else {
		if (format == PROFILE_PPROF && isatty(STDOUT_FILENO)) {
			error_msg("a pprof profile is binary: write it to a file with -o FILE");
			goto out;
		}
		f = stdout;
	}
	if ((format == PROFILE_FOLDED ? write_folded(p, f) : write_pprof(p, &s, f)) < 0)
		goto out;
	ret = 0;
out:
	if (f && f != stdout) {
		bool bad = ferror(f) != 0;

		if (fclose(f) != 0)
			bad = true;
		if (bad && ret == 0) {
			perror_msg("cannot write %s", out);
			ret = 1;
		}
	}
	if (f == stdout && (fflush(stdout) != 0 || ferror(stdout)) && ret == 0) {
		perror_msg("cannot write the standard output");
		ret = 1;
	}
	profile_free(p);
	profile_session_free(&s);
	return ret;
}
