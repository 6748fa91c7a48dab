/*
 * The server's kept series pieces (daemon/http/http_pieces.c) alone: a
 * piece comes back as it was put, under its whole key only (another
 * thread's totals, metric or piece number finds nothing); a piece put
 * again replaces the first; past 16 MiB the least recently used pieces
 * are dropped, never the one just used or put.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "http/http_int.h"
#include "tap.h"

static struct http_point pts[HTTP_PIECE], got[HTTP_PIECE];

static void
fill(int64_t piece, int n)
{
	for (int i = 0; i < n; i++) {
		pts[i].idx = piece * HTTP_PIECE + i;
		pts[i].type = i % 3 == 0 ? SQLITE_INTEGER : i % 3 == 1 ? SQLITE_FLOAT : SQLITE_NULL;
		pts[i].v.d = 0;
		if (pts[i].type == SQLITE_INTEGER)
			pts[i].v.i = piece * 1000 + i;
		else if (pts[i].type == SQLITE_FLOAT)
			pts[i].v.d = (double)piece / (i + 1);
	}
}

/* Is what came back piece's n points (fill)? */
static bool
same(int64_t piece, int n, int got_n)
{
	fill(piece, n);
	return got_n == n && !memcmp(pts, got, (size_t)n * sizeof(pts[0]));
}

int
main(void)
{
	struct http_pieces *ps = http_pieces_new();
	struct http_piece_key k = { .session = 1, .tid = 400, .intervals = 100000, .last_id = 100000,
				    .piece = 7, .metric = "ilp_256" }, o;
	char other_metric[] = "ilp_64";
	int64_t kept = 0, n_put;
	int n;

	fill(7, HTTP_PIECE);
	http_piece_put(ps, &k, pts, HTTP_PIECE);
	n = http_piece_get(ps, &k, got);
	ok(same(7, HTTP_PIECE, n), "a piece comes back as it was put (%d points)", n);
	for (int i = 0; i < 5; i++) {
		static const char *const what[] = { "interval count of the thread",
			"latest interval", "thread", "piece (the next)", "metric" };

		o = k;
		switch (i) {
		case 0: o.intervals++; break;
		case 1: o.last_id++; break;
		case 2: o.tid++; break;
		case 3: o.piece++; break;
		default: o.metric = other_metric; break;
		}
		ok(http_piece_get(ps, &o, got) < 0, "nothing for another %s", what[i]);
	}

	fill(7, 10);
	http_piece_put(ps, &k, pts, 10);
	ok(same(7, 10, http_piece_get(ps, &k, got)), "a piece put again replaces the first");
	o = k;
	o.metric = other_metric;
	http_piece_put(ps, &o, pts, 0);
	ok(http_piece_get(ps, &o, got) == 0, "an empty piece is kept as empty");

	/* 16 MiB hold about 2,700 full pieces: put 4,000, reading piece 7
	 * of "ilp_256" after each, which keeps it the most recently used. */
	for (n_put = 0; n_put < 4000; n_put++) {
		o = k;
		o.metric = "mix_mem_read";
		o.piece = n_put;
		fill(n_put, HTTP_PIECE);
		http_piece_put(ps, &o, pts, HTTP_PIECE);
		http_piece_get(ps, &k, got);
	}
	for (int64_t i = 0; i < n_put; i++) {
		o = k;
		o.metric = "mix_mem_read";
		o.piece = i;
		n = http_piece_get(ps, &o, got);
		if (n >= 0 && same(i, HTTP_PIECE, n))
			kept++;
	}
	ok(kept > 2000 && kept < n_put, "past 16 MiB pieces are dropped: %lld of %lld kept",
	   (long long)kept, (long long)n_put);
	o.piece = 0;
	ok(http_piece_get(ps, &o, got) < 0, "... the least recently used first (the first put)");
	o.piece = n_put - 1;
	ok(same(n_put - 1, HTTP_PIECE, http_piece_get(ps, &o, got)), "... never the last one put");
	ok(same(7, 10, http_piece_get(ps, &k, got)), "... nor one used all along");
	http_pieces_free(ps);
	return done_testing();
}
