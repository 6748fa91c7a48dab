/*
 * Decode cache: insert/lookup, one record per address, invalidation of a
 * range that overlaps an instruction's tail, flush, the O(1) overlap test,
 * growth past thousands of entries, and records that stay readable after
 * they are invalidated (events in flight point at them).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode_cache.h"
#include "decoder.h"
#include "tap.h"

/* mov rax, [rip+0x1000]: 7 bytes */
static const uint8_t mov7[] = { 0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00, 0x90, 0x90, 0x90,
				0x90, 0x90, 0x90, 0x90, 0x90 };
static const uint8_t nop1[] = { 0x90 };
static const uint8_t bad1[] = { 0x06 };	/* push es: invalid in 64-bit mode */

static void
test_basic(void)
{
	struct decode_cache *dc = decode_cache_new();
	const struct insn_info *a, *b, *c;
	struct decode_cache_stats st;

	ok(dc != NULL, "new cache");
	ok(decode_cache_lookup(dc, 0x401000) == NULL, "empty cache misses");
	a = decode_cache_insert(dc, 0x401000, mov7, sizeof(mov7));
	ok(a && a->pc == 0x401000 && a->len == 7 && !(a->flags & INSN_INVALID),
	   "insert decodes mov rax, [rip+0x1000] (7 bytes)");
	ok(decode_cache_lookup(dc, 0x401000) == a, "lookup returns the inserted record");
	ok(decode_cache_lookup(dc, 0x401001) == NULL, "no record in the middle of an instruction");
	b = decode_cache_insert(dc, 0x401000, nop1, sizeof(nop1));
	ok(b == a && b->len == 7, "second insert at the same pc returns the same record, not a re-decode");
	c = decode_cache_insert(dc, 0x402000, bad1, sizeof(bad1));
	ok(c && (c->flags & INSN_INVALID) && c->len == 1 && c->bytes[0] == 0x06,
	   "invalid bytes are cached as an INSN_INVALID record");
	decode_cache_get_stats(dc, &st);
	is_u64(st.decodes, 2, "two decodes");
	is_u64(st.entries, 2, "two entries");
	is_u64(st.hits, 1, "one lookup hit");

	ok(decode_cache_overlaps(dc, 0x401003, 1), "a write into cached code overlaps");
	ok(decode_cache_overlaps(dc, 0x400fff, 2), "a write across the page holding code overlaps");
	ok(!decode_cache_overlaps(dc, 0x500000, 0x1000), "a write to a page without code does not");
	ok(!decode_cache_overlaps(dc, 0x401000, 0), "an empty range never overlaps");

	/* Invalidate only the last byte of the mov: the record must go. */
	decode_cache_invalidate(dc, 0x401006, 1);
	ok(decode_cache_lookup(dc, 0x401000) == NULL, "invalidating the tail byte drops the instruction");
	ok(decode_cache_lookup(dc, 0x402000) == c, "an unrelated record survives");
	/* The old record is still readable and unchanged. */
	ok(a->pc == 0x401000 && a->len == 7 && memcmp(a->bytes, mov7, 7) == 0,
	   "an invalidated record stays valid for events in flight");
	decode_cache_invalidate(dc, 0x402001, 4);
	ok(decode_cache_lookup(dc, 0x402000) == c, "a range just past an instruction leaves it alone");
	b = decode_cache_insert(dc, 0x401000, nop1, sizeof(nop1));
	ok(b && b != a && b->len == 1, "re-insert after invalidation decodes the new bytes");
	ok(a->len == 7 && a->bytes[0] == 0x48, "... into a new record, the old one untouched");

	decode_cache_flush(dc);
	ok(decode_cache_lookup(dc, 0x401000) == NULL && decode_cache_lookup(dc, 0x402000) == NULL,
	   "flush forgets everything");
	decode_cache_get_stats(dc, &st);
	is_u64(st.entries, 0, "no entries after flush");
	ok(!decode_cache_overlaps(dc, 0x401000, 16), "no code pages after flush");
	ok(c->flags & INSN_INVALID && c->pc == 0x402000, "records survive a flush");
	decode_cache_free(dc);
}

static void
test_growth(void)
{
	struct decode_cache *dc = decode_cache_new();
	const struct insn_info **recs;
	const unsigned n = 20000;
	uint64_t base = 0x7f0000000000ULL;
	unsigned good = 1, survivors = 1, gone = 1;
	struct decode_cache_stats st;

	recs = calloc(n, sizeof(*recs));
	/* n one-byte NOPs followed by 7-byte movs, back to back. */
	for (unsigned i = 0; i < n; i++) {
		uint64_t pc = base + (uint64_t)i * 8;

		recs[i] = decode_cache_insert(dc, pc, mov7, sizeof(mov7));
		good &= recs[i] != NULL && recs[i]->pc == pc && recs[i]->len == 7;
	}
	ok(good, "%u inserts", n);
	decode_cache_get_stats(dc, &st);
	is_u64(st.entries, n, "%u entries", n);
	for (unsigned i = 0; i < n; i++)
		good &= decode_cache_lookup(dc, base + (uint64_t)i * 8) == recs[i];
	ok(good, "every record found again after growth, same pointer");

	/* Invalidate a range in the middle: instructions 100..199 (and the
	 * one whose tail reaches into the range). */
	decode_cache_invalidate(dc, base + 100 * 8 + 3, 100 * 8);
	for (unsigned i = 0; i < n; i++) {
		const struct insn_info *ii = decode_cache_lookup(dc, base + (uint64_t)i * 8);

		if (i >= 100 && i <= 200)
			gone &= ii == NULL;
		else
			survivors &= ii == recs[i];
	}
	ok(gone, "a middle range is invalidated, including the instruction it starts in");
	ok(survivors, "everything else survives the backward-shift deletion");
	decode_cache_get_stats(dc, &st);
	is_u64(st.entries, n - 101, "entries after invalidation");
	good = 1;
	for (unsigned i = 0; i < n; i++)
		good &= recs[i]->pc == base + (uint64_t)i * 8 && recs[i]->len == 7;
	ok(good, "all records (invalidated or not) still hold their contents");

	/* A huge range takes the table-walk path. */
	decode_cache_invalidate(dc, base, (uint64_t)n * 8);
	decode_cache_get_stats(dc, &st);
	is_u64(st.entries, 0, "a range over everything empties the cache");
	decode_cache_free(dc);
	free(recs);
}

int
main(void)
{
	test_basic();
	test_growth();
	return done_testing();
}
