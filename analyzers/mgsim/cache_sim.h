/*
 * A set-associative cache with true LRU replacement, for the simulated
 * L1I, L1D and L2 of the MGSim counter view (mgsim.h).  It only tracks
 * which lines are present and dirty: no data.  The caller decides the
 * write policy (write-through or write-back, allocate or not) by how it
 * combines the calls below.  Addresses are line numbers (byte address >>
 * log2(line size)); cache_line_of() converts.  Pure: no I/O.
 */
#ifndef MICAD_CACHE_SIM_H
#define MICAD_CACHE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cache_config {
	uint64_t size;		/* bytes */
	uint32_t assoc;		/* ways per set */
	uint32_t line;		/* bytes per line, a power of two */
};

/* Limits checked by cache_config_check(). */
#define CACHE_MAX_ASSOC		64
#define CACHE_MIN_LINE		8
#define CACHE_MAX_LINE		4096

struct cache_stats {
	uint64_t hits, misses;		/* cache_access() lookups */
	uint64_t fills;			/* lines allocated */
	uint64_t evictions;		/* valid lines replaced by a fill */
	uint64_t dirty_evictions;	/* ... of which dirty */
	uint64_t invalidations;		/* lines dropped by cache_invalidate() */
};

struct cache;

/* 0 if the geometry is usable: line a power of two in [8, 4096], assoc in
 * [1, 64], size a multiple of assoc * line, the number of sets a power of
 * two.  Else -1 with the reason in err. */
int cache_config_check(const struct cache_config *c, char *err, size_t errsz);

/* A new, empty cache; NULL if the configuration is bad (cache_config_check
 * says why) or memory ran out. */
struct cache *cache_new(const struct cache_config *c);
void cache_free(struct cache *c);

/* Empty the cache and zero the statistics. */
void cache_reset(struct cache *c);

const struct cache_config *cache_get_config(const struct cache *c);
unsigned cache_line_shift(const struct cache *c);

static inline uint64_t
cache_line_of(const struct cache *c, uint64_t addr)
{
	return addr >> cache_line_shift(c);
}

/*
 * Look up a line: true on a hit (the line becomes the most recently used;
 * when dirty is true it is also marked dirty).  Counts a hit or a miss.
 * A miss changes nothing else: allocate with cache_fill().
 */
bool cache_access(struct cache *c, uint64_t line, bool dirty);

/* Is the line present (no statistics, no LRU update)?  *dirty (may be
 * NULL) says whether it is dirty. */
bool cache_probe(const struct cache *c, uint64_t line, bool *dirty);

/*
 * Allocate a line that is not present (most recently used, dirty as
 * given), replacing the least recently used line of its set if the set is
 * full.  Returns true if a valid line was replaced, with its line number
 * in *victim and whether it was dirty in *victim_dirty.
 */
bool cache_fill(struct cache *c, uint64_t line, bool dirty, uint64_t *victim,
		bool *victim_dirty);

/* Drop a line if present; returns true if it was, with *was_dirty. */
bool cache_invalidate(struct cache *c, uint64_t line, bool *was_dirty);

/* Clear a present line's dirty bit; returns true if it was dirty. */
bool cache_clean(struct cache *c, uint64_t line);

const struct cache_stats *cache_get_stats(const struct cache *c);

#endif /* MICAD_CACHE_SIM_H */
