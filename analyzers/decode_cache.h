/*
 * Decode cache: one struct insn_info per instruction address, so a tracer
 * decodes each distinct instruction once.
 *
 * Records live in an arena and are never freed before the cache is:
 * invalidation only unlinks them, so events already in flight (which point
 * at their insn_info) stay valid.  Invalidate on exec (flush), on unmap or
 * mprotect of a range, and when the traced program writes over cached code
 * (decode_cache_overlaps() tells cheaply whether a write can matter).
 */
#ifndef MICAD_DECODE_CACHE_H
#define MICAD_DECODE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct decode_cache;

struct decode_cache *decode_cache_new(void);
void decode_cache_free(struct decode_cache *dc);

/* The cached record for pc, or NULL. */
const struct insn_info *decode_cache_lookup(struct decode_cache *dc, uint64_t pc);

/* Decode n bytes at pc (n >= 15 unless the mapping ends sooner), store and
 * return the record (an INSN_INVALID one if the bytes do not decode). */
const struct insn_info *decode_cache_insert(struct decode_cache *dc, uint64_t pc,
					    const uint8_t *bytes, size_t n);

/* Forget everything (exec: a new image). */
void decode_cache_flush(struct decode_cache *dc);

/* Forget every instruction overlapping [addr, addr + size). */
void decode_cache_invalidate(struct decode_cache *dc, uint64_t addr, uint64_t size);

/* Could a write to [addr, addr + size) touch a cached instruction?  O(1):
 * checks the 4 KiB pages that hold cached code. */
bool decode_cache_overlaps(const struct decode_cache *dc, uint64_t addr, uint64_t size);

/* Statistics: lookups that hit, records decoded, records invalidated. */
struct decode_cache_stats {
	uint64_t hits, decodes, invalidations, entries;
};
void decode_cache_get_stats(const struct decode_cache *dc, struct decode_cache_stats *st);

#endif /* MICAD_DECODE_CACHE_H */
