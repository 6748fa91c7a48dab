/*
 * Pieces of finished sessions' series kept between requests: the points
 * (interval index, value) of one metric of one thread over HTTP_PIECE
 * consecutive interval indexes, as the series query returned them.  A
 * chart that pans or zooms, or several users of one session, ask for the
 * same stretches again; a 2,000-point series from kept pieces is copied
 * and formatted instead of read through four B-tree searches per point.
 *
 * Only finished sessions' pieces are kept, whose data no longer changes
 * (their answers carry ETags for the same reason), of values stored with
 * their interval in its transaction (series() decides), and the key also
 * holds the thread's interval count and latest interval id
 * (thread_total): an interval stored later, however it came, makes every
 * older piece of the thread unreachable.  At most PIECES_BYTES in all, the least recently
 * used dropped first; one lock, held only to look up and copy.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "http/http_int.h"

#define PIECES_BYTES (16u << 20)
#define PIECE_BUCKETS 1024

struct http_piece {
	struct http_piece *next_in_bucket, *newer, *older;
	struct http_piece_key key;	/* key.metric points into metric */
	char *metric;
	unsigned hash;
	int n;
	struct http_point p[];
};

struct http_pieces {
	pthread_mutex_t lock;
	struct http_piece *bucket[PIECE_BUCKETS];
	struct http_piece *newest, *oldest;
	size_t bytes;
};

static unsigned
key_hash(const struct http_piece_key *k)
{
	uint64_t h = 14695981039346656037ull;
	const int64_t num[] = { k->session, k->tid, k->intervals, k->last_id, k->piece };

	for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++)
		h = (h ^ (uint64_t)num[i]) * 1099511628211ull;
	for (const unsigned char *c = (const unsigned char *)k->metric; *c; c++)
		h = (h ^ *c) * 1099511628211ull;
	return (unsigned)(h ^ h >> 32);
}

static bool
key_eq(const struct http_piece_key *a, const struct http_piece_key *b)
{
	return a->session == b->session && a->tid == b->tid && a->intervals == b->intervals &&
	       a->last_id == b->last_id && a->piece == b->piece && !strcmp(a->metric, b->metric);
}

struct http_pieces *
http_pieces_new(void)
{
	struct http_pieces *ps = xcalloc(1, sizeof(*ps));

	pthread_mutex_init(&ps->lock, NULL);
	return ps;
}

static size_t
piece_bytes(const struct http_piece *e)
{
	return sizeof(*e) + (size_t)e->n * sizeof(e->p[0]) + strlen(e->metric) + 1;
}

static void
unlink_lru(struct http_pieces *ps, struct http_piece *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		ps->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		ps->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void
link_newest(struct http_pieces *ps, struct http_piece *e)
{
	e->older = ps->newest;
	e->newer = NULL;
	if (ps->newest)
		ps->newest->newer = e;
	ps->newest = e;
	if (!ps->oldest)
		ps->oldest = e;
}

static void
drop(struct http_pieces *ps, struct http_piece *e)
{
	struct http_piece **pp = &ps->bucket[e->hash % PIECE_BUCKETS];

	while (*pp != e)
		pp = &(*pp)->next_in_bucket;
	*pp = e->next_in_bucket;
	unlink_lru(ps, e);
	ps->bytes -= piece_bytes(e);
	free(e->metric);
	free(e);
}

int
http_piece_get(struct http_pieces *ps, const struct http_piece_key *k, struct http_point *out)
{
	unsigned h = key_hash(k);
	struct http_piece *e;
	int n = -1;

	pthread_mutex_lock(&ps->lock);
	for (e = ps->bucket[h % PIECE_BUCKETS]; e; e = e->next_in_bucket) {
		if (e->hash == h && key_eq(&e->key, k)) {
			memcpy(out, e->p, (size_t)e->n * sizeof(e->p[0]));
			n = e->n;
			unlink_lru(ps, e);
			link_newest(ps, e);
			break;
		}
	}
	pthread_mutex_unlock(&ps->lock);
	return n;
}

void
http_piece_put(struct http_pieces *ps, const struct http_piece_key *k, const struct http_point *p,
	       int n)
{
	struct http_piece *e = xmalloc(sizeof(*e) + (size_t)n * sizeof(e->p[0]));
	struct http_piece *old;

	e->key = *k;
	e->metric = xstrdup(k->metric);
	e->key.metric = e->metric;
	e->hash = key_hash(k);
	e->n = n;
	memcpy(e->p, p, (size_t)n * sizeof(e->p[0]));
	pthread_mutex_lock(&ps->lock);
	/* Two requests may make the same piece at once: keep one. */
	for (old = ps->bucket[e->hash % PIECE_BUCKETS]; old; old = old->next_in_bucket)
		if (old->hash == e->hash && key_eq(&old->key, k))
			break;
	if (old)
		drop(ps, old);
	e->next_in_bucket = ps->bucket[e->hash % PIECE_BUCKETS];
	ps->bucket[e->hash % PIECE_BUCKETS] = e;
	link_newest(ps, e);
	ps->bytes += piece_bytes(e);
	while (ps->bytes > PIECES_BYTES && ps->oldest != e)
		drop(ps, ps->oldest);
	pthread_mutex_unlock(&ps->lock);
}

void
http_pieces_free(struct http_pieces *ps)
{
	if (!ps)
		return;
	while (ps->oldest)
		drop(ps, ps->oldest);
	pthread_mutex_destroy(&ps->lock);
	free(ps);
}
