/*
 * GET /api/sessions/{id}/profile, .../profile/functions and
 * .../profile/rate (http_profile.h): a sample-mode session's call-stack
 * profile as the flame graph's tree (pruned to a bounded size, and the
 * answer says what was pruned), as the table of hot functions (self and
 * total share), and the samples and sample rate per interval of each
 * thread.  The profile is read with profile_read.h; nothing is cached.
 */
#include "config.h"
#include "http/http_profile.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/profile_read.h"
#include "u64map.h"

#define IDX_MAX ((uint64_t)INT64_MAX)
#define NODES_DEFAULT 5000
#define NODES_MAX 1000000
#define MIN_SHARE_DEFAULT 0.001
#define FUNCTIONS_DEFAULT 100
#define FUNCTIONS_MAX 100000
#define RATE_DEFAULT 10000
#define RATE_MAX 1000000

/* The request's filter and what the values count. */
struct pquery {
	struct profile_range range;
	bool weight;		/* values are weights, not sample counts */
};

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
make_c_locale(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* A decimal number argument (C locale); absent: *out = def.  400 and -1
 * on junk or outside [lo, hi]. */
static int
arg_double(struct http_req *r, const char *name, double def, double lo, double hi, double *out)
{
	const char *v = http_arg(r, name);
	char *end;
	double x;

	*out = def;
	if (!v)
		return 0;
	pthread_once(&c_locale_once, make_c_locale);
	x = c_locale ? strtod_l(v, &end, c_locale) : strtod(v, &end);
	if (!*v || *end || !isfinite(x) || x < lo || x > hi) {
		http_error(r, 400, "parameter %s: want a number from %g to %g", name, lo, hi);
		return -1;
	}
	*out = x;
	return 0;
}

/* tid, from, to, since, until and value.  -1 after a 400. */
static int
parse_query(struct http_req *r, int64_t session, struct pquery *pq)
{
	const char *value = http_arg(r, "value");
	uint64_t from, to;
	bool has_tid;

	memset(pq, 0, sizeof(*pq));
	profile_range_init(&pq->range, session);
	if (http_arg_i64(r, "tid", &pq->range.tid, &has_tid) < 0 ||
	    http_arg_u64(r, "from", 0, IDX_MAX, &from) < 0 ||
	    http_arg_u64(r, "to", IDX_MAX, IDX_MAX, &to) < 0 ||
	    arg_double(r, "since", -INFINITY, -1e18, 1e18, &pq->range.since) < 0 ||
	    arg_double(r, "until", INFINITY, -1e18, 1e18, &pq->range.until) < 0)
		return -1;
	if (from > to) {
		http_error(r, 400, "parameters from/to: from is after to");
		return -1;
	}
	if (pq->range.since >= pq->range.until) {
		http_error(r, 400, "parameters since/until: since is not before until");
		return -1;
	}
	pq->range.one_thread = has_tid;
	pq->range.from = (int64_t)from;
	pq->range.to = (int64_t)to;
	if (value && !strcmp(value, "weight")) {
		pq->weight = true;
	} else if (value && strcmp(value, "samples")) {
		http_error(r, 400, "parameter value: want samples or weight");
		return -1;
	}
	return 0;
}

/* The session must be a sample-mode one: 1, or 0 after a 404/500. */
static int
sampled_session(struct http_req *r, int64_t session, struct profile_session *s)
{
	char err[512];
	int rc = profile_session_read(r->db, session, s, err, sizeof(err));

	if (rc < 0) {
		http_error(r, 500, "%s", err);
		return 0;
	}
	if (rc == 0) {
		http_error(r, 404, "no session %lld", (long long)session);
		return 0;
	}
	if (!s->engine || strcmp(s->engine, "sample")) {
		http_error(r, 404, "session %lld was not sampled (engine '%s'): it has no profile",
			   (long long)session, s->engine ? s->engine : "?");
		profile_session_free(s);
		return 0;
	}
	return 1;
}

/* The fields every answer starts with: the session's sampling record and
 * the filter as understood. */
static void
head_fields(struct http_req *r, const struct profile_session *s, const struct pquery *pq)
{
	struct jbuf *b = &r->body;
	const struct profile_range *g = &pq->range;

	jb_key(b, "session");
	jb_i64(b, s->id);
	jb_key(b, "sampling");
	jb_obj(b);
	jb_key(b, "engine");
	jb_str(b, s->engine);
	jb_key(b, "event");
	jb_str(b, s->sample_event);
	jb_key(b, "note");
	jb_str(b, s->sample_note);
	jb_key(b, "weighting");
	jb_str(b, s->weighting);
	jb_key(b, "weight_unit");
	jb_str(b, profile_weight_unit(s->sample_event));
	jb_obj_end(b);
	jb_key(b, "tid");
	if (g->one_thread)
		jb_i64(b, g->tid);
	else
		jb_null(b);
	jb_key(b, "from");
	jb_i64(b, g->from);
	jb_key(b, "to");
	if (g->to == INT64_MAX)
		jb_null(b);
	else
		jb_i64(b, g->to);
	jb_key(b, "since");
	jb_double(b, g->since);	/* null when unbounded */
	jb_key(b, "until");
	jb_double(b, g->until);
	jb_key(b, "value");
	jb_str(b, pq->weight ? "weight" : "samples");
}

/* The profile of the request's range, or NULL after a 500. */
static struct profile *
read_profile(struct http_req *r, const struct pquery *pq)
{
	char err[512];
	struct profile *p = profile_read(r->db, &pq->range, err, sizeof(err));

	if (!p)
		http_error(r, 500, "reading the profile: %s", err);
	return p;
}

static void
totals_fields(struct jbuf *b, const struct profile *p)
{
	jb_key(b, "samples");
	jb_u64(b, p->samples);
	jb_key(b, "weight");
	jb_u64(b, p->weight);
	jb_key(b, "lost");
	jb_u64(b, p->lost);
	jb_key(b, "intervals");
	jb_u64(b, p->intervals);
}

/* ---- the flame graph's tree ---- */

#define ROOT_FUNCTION UINT32_MAX

struct tnode {
	uint32_t function;	/* ROOT_FUNCTION for the root */
	int64_t parent;		/* -1 for the root */
	uint32_t depth;
	uint64_t self, total;
	bool kept;
	size_t first_kid, n_kids;	/* in the sorted kids array */
};

struct tree {
	const struct profile *p;
	struct tnode *n;
	size_t len, cap;
	size_t *kids;		/* kept nodes but the root, by parent then name */
	size_t n_kept;
	uint64_t pruned_value;	/* totals of the pruned subtrees */
};

static size_t
tree_add(struct tree *t, uint32_t function, int64_t parent)
{
	struct tnode *n;

	if (t->len == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->n = xreallocarray(t->n, t->cap, sizeof(*t->n));
	}
	n = &t->n[t->len];
	memset(n, 0, sizeof(*n));
	n->function = function;
	n->parent = parent;
	n->depth = parent < 0 ? 0 : t->n[parent].depth + 1;
	return t->len++;
}

/* Stacks merged by function, outermost first: a node per distinct path
 * of functions (a recursive function is one node per level). */
static int
tree_build(struct tree *t, const struct profile *p, bool weight)
{
	struct u64map kid;	/* parent << 32 | function -> node */

	memset(t, 0, sizeof(*t));
	t->p = p;
	if (u64map_init(&kid, 10) < 0)
		return -1;
	tree_add(t, ROOT_FUNCTION, -1);
	for (size_t i = 0; i < p->n_stacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		uint64_t v = weight ? s->weight : s->count;
		size_t cur = 0;

		t->n[0].total += v;
		for (uint32_t k = 0; k < s->depth; k++) {
			uint32_t f = p->frames[s->frames[k]].function;
			bool created;
			uint64_t *slot;

			if (cur > UINT32_MAX) {
				u64map_free(&kid);
				return -1;
			}
			slot = u64map_insert(&kid, (uint64_t)cur << 32 | f, &created);
			if (!slot) {
				u64map_free(&kid);
				return -1;
			}
			if (created)
				*slot = tree_add(t, f, (int64_t)cur);
			cur = (size_t)*slot;
			t->n[cur].total += v;
		}
		t->n[cur].self += v;
	}
	u64map_free(&kid);
	return 0;
}

static const char *
fname(const struct tree *t, size_t i)
{
	return t->n[i].function == ROOT_FUNCTION ? "all" : t->p->functions[t->n[i].function].name;
}

static const char *
fmodule(const struct tree *t, size_t i)
{
	return t->n[i].function == ROOT_FUNCTION ? "" : t->p->functions[t->n[i].function].module;
}

/* Heaviest first; a parent is never lighter than its child, and on a tie
 * the shallower comes first: every node comes after its parent. */
static int
by_weight(const void *a, const void *b, void *arg)
{
	const struct tree *t = arg;
	const struct tnode *x = &t->n[*(const size_t *)a], *y = &t->n[*(const size_t *)b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Siblings in the order of flame graphs: by name (then module). */
static int
by_parent_name(const void *a, const void *b, void *arg)
{
	const struct tree *t = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c;

	if (t->n[i].parent != t->n[j].parent)
		return t->n[i].parent < t->n[j].parent ? -1 : 1;
	c = strcmp(fname(t, i), fname(t, j));
	if (!c)
		c = strcmp(fmodule(t, i), fmodule(t, j));
	return c ? c : (i < j ? -1 : 1);
}

/*
 * Keep the heaviest nodes: at most max_nodes (the root included), none
 * whose total is below min_share of the root's.  A node is kept only with
 * its parent, so what is kept is a tree, and a pruned subtree's value
 * stays in its parent's total (drawn as the parent's self).
 */
static void
tree_prune(struct tree *t, double min_share, uint64_t max_nodes)
{
	size_t *order = xcalloc(t->len, sizeof(*order));
	double floor_v = min_share * (double)t->n[0].total;
	size_t k = 0;

	for (size_t i = 0; i < t->len; i++)
		order[i] = i;
	qsort_r(order, t->len, sizeof(*order), by_weight, t);
	for (size_t i = 0; i < t->len; i++) {
		struct tnode *n = &t->n[order[i]];

		if (n->parent < 0) {
			n->kept = true;
			t->n_kept++;
		} else if (t->n[n->parent].kept && t->n_kept < max_nodes &&
			   (double)n->total >= floor_v && n->total > 0) {
			n->kept = true;
			t->n_kept++;
		} else if (t->n[n->parent].kept) {
			t->pruned_value += n->total;
		}
	}
	t->kids = xcalloc(t->len, sizeof(*t->kids));
	for (size_t i = 1; i < t->len; i++)
		if (t->n[i].kept)
			t->kids[k++] = i;
	qsort_r(t->kids, k, sizeof(*t->kids), by_parent_name, t);
	for (size_t i = 0; i < k; i++) {
		struct tnode *par = &t->n[t->n[t->kids[i]].parent];

		if (!par->n_kids)
			par->first_kid = i;
		par->n_kids++;
	}
	free(order);
}

/* A JSON string at any depth: escaped by a scratch buffer at depth 0. */
static void
put_str(struct jbuf *out, struct jbuf *scratch, const char *s)
{
	scratch->len = 0;
	jb_str(scratch, s);
	jb_raw(out, scratch->p, scratch->len);
}

/*
 * The kept tree as nested JSON objects, written without recursion (a
 * deep stack is as deep as the program's) and without jbuf's nesting
 * bookkeeping, which tracks 32 levels.
 */
static void
tree_json(struct jbuf *out, const struct tree *t)
{
	struct jbuf scratch;
	struct { size_t node, next; } *stack = xcalloc(t->len, sizeof(*stack));
	size_t sp = 0;

	jb_init(&scratch);
	stack[sp].node = 0;
	stack[sp++].next = 0;
	for (;;) {
		size_t i = stack[sp - 1].node, c = stack[sp - 1].next;
		const struct tnode *n = &t->n[i];

		if (c == 0) {
			jb_raw(out, "{\"name\":", 8);
			put_str(out, &scratch, fname(t, i));
			jb_raw(out, ",\"module\":", 10);
			if (n->function == ROOT_FUNCTION)
				jb_raw(out, "null", 4);
			else
				put_str(out, &scratch, fmodule(t, i));
			jb_printf(out, ",\"self\":%llu,\"total\":%llu,\"children\":[",
				  (unsigned long long)n->self, (unsigned long long)n->total);
		}
		if (c < n->n_kids) {
			if (c)
				jb_raw(out, ",", 1);
			stack[sp - 1].next = c + 1;
			stack[sp].node = t->kids[n->first_kid + c];
			stack[sp++].next = 0;
			continue;
		}
		jb_raw(out, "]}", 2);
		if (--sp == 0)
			break;
	}
	free(stack);
	jb_free(&scratch);
}

static int
profile_tree(struct http_req *r, int64_t session)
{
	struct profile_session s;
	struct pquery pq;
	struct profile *p;
	struct tree t;
	struct jbuf tb;
	uint64_t max_nodes;
	double min_share;
	char *text;
	size_t len;

	if (parse_query(r, session, &pq) < 0 ||
	    arg_double(r, "min_share", MIN_SHARE_DEFAULT, 0, 1, &min_share) < 0 ||
	    http_arg_u64(r, "max_nodes", NODES_DEFAULT, NODES_MAX, &max_nodes) < 0)
		return 0;
	if (max_nodes == 0)
		return http_error(r, 400, "parameter max_nodes: want at least 1 (the root)");
	if (!sampled_session(r, session, &s))
		return 0;
	p = read_profile(r, &pq);
	if (!p) {
		profile_session_free(&s);
		return 0;
	}
	if (tree_build(&t, p, pq.weight) < 0) {
		free(t.n);
		profile_free(p);
		profile_session_free(&s);
		return http_error(r, 500, "out of memory building the profile's tree");
	}
	tree_prune(&t, min_share, max_nodes);

	jb_obj(&r->body);
	head_fields(r, &s, &pq);
	totals_fields(&r->body, p);
	jb_key(&r->body, "pruning");
	jb_obj(&r->body);
	jb_key(&r->body, "min_share");
	jb_double(&r->body, min_share);
	jb_key(&r->body, "max_nodes");
	jb_u64(&r->body, max_nodes);
	jb_key(&r->body, "nodes");
	jb_u64(&r->body, t.len);
	jb_key(&r->body, "kept");
	jb_u64(&r->body, t.n_kept);
	jb_key(&r->body, "pruned");
	jb_u64(&r->body, t.len - t.n_kept);
	jb_key(&r->body, "pruned_value");
	jb_u64(&r->body, t.pruned_value);
	jb_key(&r->body, "note");
	if (t.n_kept == t.len) {
		jb_str(&r->body, "nothing pruned");
	} else {
		char note[256];

		snprintf(note, sizeof(note), "%zu of %zu nodes shown: the heaviest, none below "
			 "the min_share of the total, at most max_nodes; a pruned node's value "
			 "stays in its parent's total", t.n_kept, t.len);
		jb_str(&r->body, note);
	}
	jb_obj_end(&r->body);
	jb_key(&r->body, "tree");
	jb_init(&tb);
	tree_json(&tb, &t);
	text = jb_take(&tb, &len);
	jb_rawval(&r->body, text, len);
	free(text);
	jb_obj_end(&r->body);
	free(t.n);
	free(t.kids);
	profile_free(p);
	profile_session_free(&s);
	return 0;
}

/* ---- hot functions ---- */

struct fstat {
	uint32_t function;
	uint64_t self, total;
	size_t stamp;		/* 1 + the last stack counted in total */
};

static int
by_self(const void *a, const void *b, void *arg)
{
	const struct profile *p = arg;
	const struct fstat *x = a, *y = b;
	int c;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	c = strcmp(p->functions[x->function].name, p->functions[y->function].name);
	if (!c)
		c = strcmp(p->functions[x->function].module, p->functions[y->function].module);
	return c ? c : (x->function < y->function ? -1 : 1);
}

static double
share(uint64_t v, uint64_t all)
{
	return all ? (double)v / (double)all : NAN;
}

static int
profile_functions(struct http_req *r, int64_t session)
{
	struct profile_session s;
	struct pquery pq;
	struct profile *p;
	struct fstat *f;
	uint64_t limit, offset, all;
	size_t n;

	if (parse_query(r, session, &pq) < 0 ||
	    http_arg_u64(r, "limit", FUNCTIONS_DEFAULT, FUNCTIONS_MAX, &limit) < 0 ||
	    http_arg_u64(r, "offset", 0, IDX_MAX, &offset) < 0)
		return 0;
	if (!sampled_session(r, session, &s))
		return 0;
	p = read_profile(r, &pq);
	if (!p) {
		profile_session_free(&s);
		return 0;
	}
	f = xcalloc(p->n_functions ? p->n_functions : 1, sizeof(*f));
	for (size_t i = 0; i < p->n_functions; i++)
		f[i].function = (uint32_t)i;
	/* Self: the innermost frame's function.  Total: every function on
	 * the stack, once however often it recurs. */
	for (size_t i = 0; i < p->n_stacks; i++) {
		const struct profile_stack *st = &p->stacks[i];
		uint64_t v = pq.weight ? st->weight : st->count;

		if (!st->depth)
			continue;
		f[p->frames[st->frames[st->depth - 1]].function].self += v;
		for (uint32_t k = 0; k < st->depth; k++) {
			struct fstat *x = &f[p->frames[st->frames[k]].function];

			if (x->stamp != i + 1) {
				x->stamp = i + 1;
				x->total += v;
			}
		}
	}
	n = p->n_functions;
	qsort_r(f, n, sizeof(*f), by_self, p);
	all = pq.weight ? p->weight : p->samples;

	jb_obj(&r->body);
	head_fields(r, &s, &pq);
	totals_fields(&r->body, p);
	jb_key(&r->body, "functions_total");
	jb_u64(&r->body, n);
	jb_key(&r->body, "offset");
	jb_u64(&r->body, offset);
	jb_key(&r->body, "limit");
	jb_u64(&r->body, limit);
	jb_key(&r->body, "functions");
	jb_arr(&r->body);
	for (uint64_t i = offset; i < n && i - offset < limit; i++) {
		const struct profile_function *fn = &p->functions[f[i].function];

		jb_obj(&r->body);
		jb_key(&r->body, "name");
		jb_str(&r->body, fn->name);
		jb_key(&r->body, "module");
		jb_str(&r->body, fn->module);
		jb_key(&r->body, "self");
		jb_u64(&r->body, f[i].self);
		jb_key(&r->body, "total");
		jb_u64(&r->body, f[i].total);
		jb_key(&r->body, "self_share");
		jb_double(&r->body, share(f[i].self, all));
		jb_key(&r->body, "total_share");
		jb_double(&r->body, share(f[i].total, all));
		jb_obj_end(&r->body);
	}
	jb_arr_end(&r->body);
	jb_key(&r->body, "next_offset");
	if (limit && offset < n && n - offset > limit)	/* limit=0: no page follows */
		jb_u64(&r->body, offset + limit);
	else
		jb_null(&r->body);
	jb_obj_end(&r->body);
	free(f);
	profile_free(p);
	profile_session_free(&s);
	return 0;
}

/* ---- the sample rate per thread ---- */

struct series {
	struct jbuf idx, start, end, samples, lost, rate;
};

static void
series_open(struct series *x)
{
	struct jbuf *all[] = { &x->idx, &x->start, &x->end, &x->samples, &x->lost, &x->rate };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		jb_init(all[i]);
		jb_arr(all[i]);
	}
}

/* Close the thread's arrays into the answer. */
static void
series_put(struct jbuf *b, int64_t tid, struct series *x)
{
	static const char *const names[] = {
		"interval", "started_at", "ended_at", "samples", "lost", "rate",
	};
	struct jbuf *all[] = { &x->idx, &x->start, &x->end, &x->samples, &x->lost, &x->rate };

	jb_obj(b);
	jb_key(b, "tid");
	jb_i64(b, tid);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		char *text;
		size_t len;

		jb_arr_end(all[i]);
		text = jb_take(all[i], &len);
		jb_key(b, names[i]);
		jb_rawval(b, text, len);
		free(text);
	}
	jb_obj_end(b);
}

static int
profile_rate(struct http_req *r, int64_t session)
{
	struct profile_session s;
	struct pquery pq;
	struct series x;
	sqlite3_stmt *q;
	uint64_t limit, in_thread = 0;
	int64_t cur = 0;
	bool open = false, truncated = false;
	int rc;

	if (parse_query(r, session, &pq) < 0 ||
	    http_arg_u64(r, "limit", RATE_DEFAULT, RATE_MAX, &limit) < 0)
		return 0;
	if (!sampled_session(r, session, &s))
		return 0;
	q = http_prepare(r, pq.range.one_thread ?
		"SELECT tid, idx, started_at, ended_at, samples, lost FROM profile_interval"
		" WHERE session_id = ?1 AND tid = ?2 AND idx BETWEEN ?3 AND ?4"
		" AND ended_at > ?5 AND started_at < ?6 ORDER BY tid, idx" :
		"SELECT tid, idx, started_at, ended_at, samples, lost FROM profile_interval"
		" WHERE session_id = ?1 AND ?2 IS NULL AND idx BETWEEN ?3 AND ?4"
		" AND ended_at > ?5 AND started_at < ?6 ORDER BY tid, idx");
	if (!q) {
		profile_session_free(&s);
		return 0;
	}
	sqlite3_bind_int64(q, 1, session);
	if (pq.range.one_thread)
		sqlite3_bind_int64(q, 2, pq.range.tid);
	else
		sqlite3_bind_null(q, 2);
	sqlite3_bind_int64(q, 3, pq.range.from);
	sqlite3_bind_int64(q, 4, pq.range.to);
	sqlite3_bind_double(q, 5, pq.range.since);
	sqlite3_bind_double(q, 6, pq.range.until);

	jb_obj(&r->body);
	head_fields(r, &s, &pq);
	jb_key(&r->body, "limit");
	jb_u64(&r->body, limit);
	jb_key(&r->body, "threads");
	jb_arr(&r->body);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t tid = sqlite3_column_int64(q, 0);
		double t0 = sqlite3_column_double(q, 2), t1 = sqlite3_column_double(q, 3);

		if (!open || tid != cur) {
			if (open)
				series_put(&r->body, cur, &x);
			series_open(&x);
			open = true;
			cur = tid;
			in_thread = 0;
		}
		if (in_thread++ >= limit) {
			truncated = true;
			continue;
		}
		jb_column(&x.idx, q, 1);
		jb_column(&x.start, q, 2);
		jb_column(&x.end, q, 3);
		jb_column(&x.samples, q, 4);
		jb_column(&x.lost, q, 5);
		jb_double(&x.rate, t1 > t0 ? (double)sqlite3_column_int64(q, 4) / (t1 - t0) : NAN);
	}
	if (open)
		series_put(&r->body, cur, &x);
	jb_arr_end(&r->body);
	jb_key(&r->body, "truncated");
	jb_bool(&r->body, truncated);
	jb_obj_end(&r->body);
	http_finalize(q);
	profile_session_free(&s);
	if (rc != SQLITE_DONE)
		return http_error(r, 500, "reading profile_interval: %s", sqlite3_errmsg(r->db));
	return 0;
}

int
http_api_profile(struct http_req *r, int64_t session, int seg)
{
	if (!http_db(r))
		return 0;
	if (r->nseg == seg)
		return profile_tree(r, session);
	if (r->nseg == seg + 1 && !strcmp(r->segs[seg], "functions"))
		return profile_functions(r, session);
	if (r->nseg == seg + 1 && !strcmp(r->segs[seg], "rate"))
		return profile_rate(r, session);
	return http_error(r, 404, "no such profile endpoint (profile, profile/functions, "
			  "profile/rate)");
}
