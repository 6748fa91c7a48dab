/*
 * A sample-mode session's profile read back from the database
 * (profile_read.h): samples summed per stack over a range, stacks walked
 * out to their outermost frame through profile_stack's parent links,
 * frames named and grouped into functions.
 */
#include "config.h"
#include "store/profile_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "u64map.h"
#include "util.h"

/* Deeper than this, a stack is taken for a cycle in profile_stack. */
#define MAX_DEPTH 65536

/* Rows as they are: summed per stack here, in a hash map, which costs a
 * third of SQLite's GROUP BY (a sort of every row). */
const char profile_sql_samples_session[] =
	"SELECT tid, stack_id, count, weight FROM profile_sample WHERE session_id = ?1";
const char profile_sql_samples_thread[] =
	"SELECT tid, stack_id, count, weight FROM profile_sample"
	" WHERE session_id = ?1 AND tid = ?2 AND interval BETWEEN ?3 AND ?4";

/* Each thread's intervals in the range: one range of indexes per thread
 * (a thread's intervals follow each other in time). */
static const char sql_ranges_all[] =
	"SELECT tid, min(idx), max(idx), sum(lost), count(*) FROM profile_interval"
	" WHERE session_id = ?1 AND ?2 IS NULL AND idx BETWEEN ?3 AND ?4"
	" AND ended_at > ?5 AND started_at < ?6 GROUP BY tid ORDER BY tid";
static const char sql_ranges_thread[] =
	"SELECT tid, min(idx), max(idx), sum(lost), count(*) FROM profile_interval"
	" WHERE session_id = ?1 AND tid = ?2 AND idx BETWEEN ?3 AND ?4"
	" AND ended_at > ?5 AND started_at < ?6 GROUP BY tid ORDER BY tid";
static const char sql_node[] =
	"SELECT parent_id, frame_id FROM profile_stack WHERE id = ?1 AND session_id = ?2";
static const char sql_frame[] =
	"SELECT module, symbol, offset, address FROM profile_frame WHERE id = ?1 AND session_id = ?2";

/* A node of the stack tree as read: its frame and the node outside it. */
struct node {
	int64_t parent;		/* index into nodes, -1 for an outermost frame */
	uint32_t frame;
	uint32_t depth;		/* 0 for an outermost frame */
};

/* One stack (of one thread, per_thread) of the range before its frames
 * are laid out. */
struct entry {
	int64_t tid, stack_id;
	uint64_t count, weight;
	size_t node;
	size_t next;		/* 1 + the next entry of the same stack */
};

struct profile_internal {
	sqlite3 *db;
	int64_t session;
	sqlite3_stmt *q_node, *q_frame;
	struct u64map node_map;		/* stack id -> index into nodes */
	struct u64map frame_map;	/* frame id -> index into frames */
	struct u64map func_map;		/* hash of (name, module) -> 1 + first function */
	uint32_t *func_next;		/* the next function of the same hash, + 1 */
	struct node *nodes;
	size_t n_nodes, cap_nodes;
	size_t cap_frames, cap_functions;
	struct entry *entries;
	size_t n_entries, cap_entries;
	struct u64map entry_map;	/* stack id -> 1 + its first entry */
	uint32_t *pool;			/* the stacks' frames */
	char *err;
	size_t errsz;
};

void
profile_range_init(struct profile_range *r, int64_t session)
{
	memset(r, 0, sizeof(*r));
	r->session = session;
	r->from = 0;
	r->to = INT64_MAX;
	r->since = -INFINITY;
	r->until = INFINITY;
}

bool
profile_range_is_partial(const struct profile_range *r)
{
	return r->from > 0 || r->to < INT64_MAX || r->since > -INFINITY || r->until < INFINITY;
}

const char *
profile_weight_unit(const char *sample_event)
{
	if (sample_event && (!strcmp(sample_event, "cpu-clock") || !strcmp(sample_event, "task-clock")))
		return "nanoseconds";
	return "events";
}

static int fail(struct profile_internal *in, const char *fmt, ...) ATTR_PRINTF(2, 3);

static int
fail(struct profile_internal *in, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(in->err, in->errsz, fmt, ap);
	va_end(ap);
	return -1;
}

static int
db_fail(struct profile_internal *in, const char *what)
{
	return fail(in, "%s: %s", what, sqlite3_errmsg(in->db));
}

static char *
col_strdup(sqlite3_stmt *q, int i)
{
	const unsigned char *s = sqlite3_column_text(q, i);

	return s ? xstrdup((const char *)s) : NULL;
}

int
profile_session_read(sqlite3 *db, int64_t id, struct profile_session *s, char *err,
		     size_t errsz)
{
	sqlite3_stmt *q = NULL;
	int rc;

	memset(s, 0, sizeof(*s));
	if (sqlite3_prepare_v2(db, "SELECT uid, engine, sample_event, sample_note, weighting,"
			       " command, started_at, ended_at FROM session WHERE id = ?1", -1, &q,
			       NULL) != SQLITE_OK) {
		snprintf(err, errsz, "reading session %lld: %s", (long long)id, sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		s->id = id;
		s->uid = sqlite3_column_int64(q, 0);
		s->engine = col_strdup(q, 1);
		s->sample_event = col_strdup(q, 2);
		s->sample_note = col_strdup(q, 3);
		s->weighting = col_strdup(q, 4);
		s->command = col_strdup(q, 5);
		s->started_at = sqlite3_column_double(q, 6);
		s->ended_at = sqlite3_column_type(q, 7) == SQLITE_NULL ? -1 : sqlite3_column_double(q, 7);
	} else if (rc != SQLITE_DONE) {
		snprintf(err, errsz, "reading session %lld: %s", (long long)id, sqlite3_errmsg(db));
	}
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

void
profile_session_free(struct profile_session *s)
{
	free(s->engine);
	free(s->sample_event);
	free(s->sample_note);
	free(s->weighting);
	free(s->command);
	memset(s, 0, sizeof(*s));
}

/* FNV-1a of name, a separator no UTF-8 text has, and module. */
static uint64_t
function_hash(const char *name, const char *module)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	h = (h ^ 0xff) * 0x100000001b3ull;
	for (const unsigned char *p = (const unsigned char *)module; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return h;
}

/* The function named name in module (both taken over), found or added. */
static int
function_of(struct profile *p, char *name, char *module, uint32_t *out)
{
	struct profile_internal *in = p->in;
	uint64_t h = function_hash(name, module);
	bool created;
	uint64_t *head = u64map_insert(&in->func_map, h, &created);

	if (!head) {
		free(name);
		free(module);
		return fail(in, "out of memory reading the profile");
	}
	for (uint64_t f = *head; f; f = in->func_next[f - 1]) {
		struct profile_function *fn = &p->functions[f - 1];

		if (!strcmp(fn->name, name) && !strcmp(fn->module, module)) {
			free(name);
			free(module);
			*out = (uint32_t)(f - 1);
			return 0;
		}
	}
	if (p->n_functions == in->cap_functions) {
		in->cap_functions = in->cap_functions ? 2 * in->cap_functions : 64;
		p->functions = xreallocarray(p->functions, in->cap_functions, sizeof(*p->functions));
		in->func_next = xreallocarray(in->func_next, in->cap_functions, sizeof(*in->func_next));
	}
	p->functions[p->n_functions].name = name;
	p->functions[p->n_functions].module = module;
	in->func_next[p->n_functions] = (uint32_t)*head;
	*head = p->n_functions + 1;
	*out = (uint32_t)p->n_functions++;
	return 0;
}

/*
 * A frame's name: its symbol; without one, the module's file name and
 * the offset in it ("libfoo.so+0x1a2b"); "[unknown]" when the module is
 * not known either.
 */
static char *
frame_name(const char *module, const char *symbol, int64_t offset)
{
	const char *slash;

	if (symbol && *symbol)
		return xstrdup(symbol);
	if (!*module || !strcmp(module, "[unknown]"))
		return xstrdup("[unknown]");
	slash = strrchr(module, '/');
	if (slash && slash[1])
		module = slash + 1;
	return xasprintf("%s+0x%llx", module, (unsigned long long)offset);
}

static int
frame_of(struct profile *p, int64_t frame_id, uint32_t *out)
{
	struct profile_internal *in = p->in;
	sqlite3_stmt *q = in->q_frame;
	struct profile_frame *fr;
	const char *module, *symbol;
	bool created;
	uint64_t *slot = u64map_insert(&in->frame_map, (uint64_t)frame_id, &created);
	int rc;

	if (!slot)
		return fail(in, "out of memory reading the profile");
	if (!created) {
		*out = (uint32_t)*slot;
		return 0;
	}
	sqlite3_reset(q);
	sqlite3_bind_int64(q, 1, frame_id);
	sqlite3_bind_int64(q, 2, in->session);
	rc = sqlite3_step(q);
	if (rc != SQLITE_ROW) {
		u64map_remove(&in->frame_map, (uint64_t)frame_id);
		if (rc != SQLITE_DONE)
			return db_fail(in, "reading profile_frame");
		return fail(in, "session %lld: frame %lld is used by a stack but has no row in "
			    "profile_frame", (long long)in->session, (long long)frame_id);
	}
	if (p->n_frames == in->cap_frames) {
		in->cap_frames = in->cap_frames ? 2 * in->cap_frames : 256;
		p->frames = xreallocarray(p->frames, in->cap_frames, sizeof(*p->frames));
	}
	fr = &p->frames[p->n_frames];
	memset(fr, 0, sizeof(*fr));
	fr->id = frame_id;
	fr->offset = sqlite3_column_int64(q, 2);
	fr->has_address = sqlite3_column_type(q, 3) != SQLITE_NULL;
	fr->address = (uint64_t)sqlite3_column_int64(q, 3);
	module = (const char *)sqlite3_column_text(q, 0);
	symbol = (const char *)sqlite3_column_text(q, 1);
	if (!module)
		module = "[unknown]";
	if (function_of(p, frame_name(module, symbol, fr->offset), xstrdup(module),
			&fr->function) < 0) {
		u64map_remove(&in->frame_map, (uint64_t)frame_id);
		return -1;
	}
	*slot = p->n_frames;
	*out = (uint32_t)p->n_frames++;
	return 0;
}

/*
 * The node of stack id, with every node outside it: the rows not read yet
 * are read by rowid, from id outwards to the first one known (or the
 * outermost), then made nodes from the outside in.
 */
static int
node_of(struct profile *p, int64_t stack_id, size_t *out)
{
	struct profile_internal *in = p->in;
	struct { int64_t id, frame_id; } *path = NULL;
	size_t n = 0, cap = 0;
	int64_t base = -1, id = stack_id;
	uint64_t *known;
	int ret = -1;

	while ((known = u64map_find(&in->node_map, (uint64_t)id)) == NULL) {
		sqlite3_stmt *q = in->q_node;
		int rc;

		if (n == MAX_DEPTH) {
			fail(in, "session %lld: stack %lld is deeper than %d frames (a cycle in "
			     "profile_stack?)", (long long)in->session, (long long)stack_id, MAX_DEPTH);
			goto out;
		}
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, in->session);
		rc = sqlite3_step(q);
		if (rc != SQLITE_ROW) {
			if (rc != SQLITE_DONE)
				db_fail(in, "reading profile_stack");
			else
				fail(in, "session %lld: stack node %lld has no row in profile_stack",
				     (long long)in->session, (long long)id);
			goto out;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			path = xreallocarray(path, cap, sizeof(*path));
		}
		path[n].id = id;
		path[n++].frame_id = sqlite3_column_int64(q, 1);
		id = sqlite3_column_int64(q, 0);
		if (id == 0)
			break;
	}
	if (known)
		base = (int64_t)*known;
	while (n > 0) {
		struct node *nd;
		uint32_t frame = 0;
		bool created;
		uint64_t *slot;

		n--;
		if (frame_of(p, path[n].frame_id, &frame) < 0)
			goto out;
		if (in->n_nodes == in->cap_nodes) {
			in->cap_nodes = in->cap_nodes ? 2 * in->cap_nodes : 256;
			in->nodes = xreallocarray(in->nodes, in->cap_nodes, sizeof(*in->nodes));
		}
		nd = &in->nodes[in->n_nodes];
		nd->parent = base;
		nd->frame = frame;
		nd->depth = base < 0 ? 0 : in->nodes[base].depth + 1;
		if (nd->depth >= MAX_DEPTH) {
			fail(in, "session %lld: stack %lld is deeper than %d frames",
			     (long long)in->session, (long long)stack_id, MAX_DEPTH);
			goto out;
		}
		slot = u64map_insert(&in->node_map, (uint64_t)path[n].id, &created);
		if (!slot) {
			fail(in, "out of memory reading the profile");
			goto out;
		}
		*slot = in->n_nodes;
		base = (int64_t)in->n_nodes++;
	}
	*out = (size_t)base;
	ret = 0;
out:
	free(path);
	return ret;
}

/* Add one sample row to its stack's (and thread's) entry. */
static int
add_entry(struct profile *p, const struct profile_range *r, sqlite3_stmt *q)
{
	struct profile_internal *in = p->in;
	int64_t tid = r->per_thread ? sqlite3_column_int64(q, 0) : -1;
	int64_t stack_id = sqlite3_column_int64(q, 1);
	int64_t count = sqlite3_column_int64(q, 2), weight = sqlite3_column_int64(q, 3);
	bool created;
	uint64_t *head;
	struct entry *e;

	if (count < 0 || weight < 0)
		return fail(in, "session %lld: negative sample count or weight for stack %lld",
			    (long long)in->session, (long long)stack_id);
	head = u64map_insert(&in->entry_map, (uint64_t)stack_id, &created);
	if (!head)
		return fail(in, "out of memory reading the profile");
	for (uint64_t i = *head; i; i = in->entries[i - 1].next) {
		e = &in->entries[i - 1];
		if (e->tid != tid)
			continue;
		if (e->count + (uint64_t)count < e->count || e->weight + (uint64_t)weight < e->weight)
			return fail(in, "session %lld: the samples of stack %lld overflow 64 bits",
				    (long long)in->session, (long long)stack_id);
		e->count += (uint64_t)count;
		e->weight += (uint64_t)weight;
		return 0;
	}
	if (in->n_entries == in->cap_entries) {
		in->cap_entries = in->cap_entries ? 2 * in->cap_entries : 256;
		in->entries = xreallocarray(in->entries, in->cap_entries, sizeof(*in->entries));
	}
	e = &in->entries[in->n_entries++];
	e->tid = tid;
	e->stack_id = stack_id;
	e->count = (uint64_t)count;
	e->weight = (uint64_t)weight;
	e->next = (size_t)*head;
	*head = in->n_entries;
	return 0;
}

static int
run_samples(struct profile *p, const struct profile_range *r, sqlite3_stmt *q)
{
	int rc;

	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		if (add_entry(p, r, q) < 0)
			return -1;
	return rc == SQLITE_DONE ? 0 : db_fail(p->in, "reading profile_sample");
}

/* The samples of the range summed per stack (and thread), and the lost
 * samples and interval count of the range. */
static int
read_samples(struct profile *p, const struct profile_range *r)
{
	struct profile_internal *in = p->in;
	sqlite3_stmt *ranges = NULL, *q = NULL;
	bool partial = profile_range_is_partial(r);
	int rc, ret = -1;

	if (sqlite3_prepare_v2(in->db, r->one_thread ? sql_ranges_thread : sql_ranges_all, -1,
			       &ranges, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(in->db, partial || r->one_thread ? profile_sql_samples_thread
			       : profile_sql_samples_session, -1, &q, NULL) != SQLITE_OK) {
		db_fail(in, "reading the profile");
		goto out;
	}
	sqlite3_bind_int64(q, 1, r->session);
	if (!partial) {
		/* The whole session (of a thread): every sample row, even one
		 * whose interval has no profile_interval row. */
		if (r->one_thread) {
			sqlite3_bind_int64(q, 2, r->tid);
			sqlite3_bind_int64(q, 3, INT64_MIN);
			sqlite3_bind_int64(q, 4, INT64_MAX);
		}
		if (run_samples(p, r, q) < 0)
			goto out;
	}
	sqlite3_bind_int64(ranges, 1, r->session);
	if (r->one_thread)
		sqlite3_bind_int64(ranges, 2, r->tid);
	else
		sqlite3_bind_null(ranges, 2);
	sqlite3_bind_int64(ranges, 3, r->from);
	sqlite3_bind_int64(ranges, 4, r->to);
	sqlite3_bind_double(ranges, 5, r->since);
	sqlite3_bind_double(ranges, 6, r->until);
	while ((rc = sqlite3_step(ranges)) == SQLITE_ROW) {
		p->lost += (uint64_t)sqlite3_column_int64(ranges, 3);
		p->intervals += (uint64_t)sqlite3_column_int64(ranges, 4);
		if (!partial)
			continue;
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 2, sqlite3_column_int64(ranges, 0));
		sqlite3_bind_int64(q, 3, sqlite3_column_int64(ranges, 1));
		sqlite3_bind_int64(q, 4, sqlite3_column_int64(ranges, 2));
		if (run_samples(p, r, q) < 0)
			goto out;
	}
	if (rc != SQLITE_DONE) {
		db_fail(in, "reading profile_interval");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(ranges);
	sqlite3_finalize(q);
	return ret;
}

/* Each entry's stack walked to its outermost frame, laid out in the pool
 * outermost first. */
static int
resolve_stacks(struct profile *p)
{
	struct profile_internal *in = p->in;
	size_t total = 0, at = 0;

	for (size_t i = 0; i < in->n_entries; i++) {
		if (node_of(p, in->entries[i].stack_id, &in->entries[i].node) < 0)
			return -1;
		total += in->nodes[in->entries[i].node].depth + 1;
	}
	in->pool = xcalloc(total ? total : 1, sizeof(*in->pool));
	p->stacks = xcalloc(in->n_entries ? in->n_entries : 1, sizeof(*p->stacks));
	for (size_t i = 0; i < in->n_entries; i++) {
		const struct entry *e = &in->entries[i];
		struct profile_stack *s = &p->stacks[i];
		uint32_t depth = in->nodes[e->node].depth + 1;
		int64_t nd = (int64_t)e->node;

		s->tid = e->tid;
		s->count = e->count;
		s->weight = e->weight;
		s->depth = depth;
		s->frames = in->pool + at;
		for (uint32_t k = depth; k-- > 0; nd = in->nodes[nd].parent)
			in->pool[at + k] = in->nodes[nd].frame;
		at += depth;
		p->samples += e->count;
		p->weight += e->weight;
	}
	p->n_stacks = in->n_entries;
	return 0;
}

struct profile *
profile_read(sqlite3 *db, const struct profile_range *r, char *err, size_t errsz)
{
	struct profile *p = xcalloc(1, sizeof(*p));
	struct profile_internal *in = xcalloc(1, sizeof(*in));

	p->in = in;
	in->db = db;
	in->session = r->session;
	in->err = err;
	in->errsz = errsz;
	if (u64map_init(&in->node_map, 10) < 0 || u64map_init(&in->frame_map, 10) < 0 ||
	    u64map_init(&in->func_map, 10) < 0 || u64map_init(&in->entry_map, 10) < 0) {
		fail(in, "out of memory reading the profile");
		goto fail;
	}
	if (sqlite3_prepare_v2(db, sql_node, -1, &in->q_node, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql_frame, -1, &in->q_frame, NULL) != SQLITE_OK) {
		db_fail(in, "reading the profile");
		goto fail;
	}
	if (read_samples(p, r) < 0 || resolve_stacks(p) < 0)
		goto fail;
	return p;
fail:
	profile_free(p);
	return NULL;
}

void
profile_free(struct profile *p)
{
	struct profile_internal *in;

	if (!p)
		return;
	in = p->in;
	for (size_t i = 0; i < p->n_functions; i++) {
		free(p->functions[i].name);
		free(p->functions[i].module);
	}
	free(p->functions);
	free(p->frames);
	free(p->stacks);
	if (in) {
		sqlite3_finalize(in->q_node);
		sqlite3_finalize(in->q_frame);
		u64map_free(&in->node_map);
		u64map_free(&in->frame_map);
		u64map_free(&in->func_map);
		u64map_free(&in->entry_map);
		free(in->func_next);
		free(in->nodes);
		free(in->entries);
		free(in->pool);
		free(in);
	}
	free(p);
}
