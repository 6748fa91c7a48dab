/*
 * Set-associative LRU cache model (cache_sim.h).
 *
 * Each set is `assoc` consecutive ways; a way holds a line number
 * (CS_INVALID when empty), a dirty bit and the value of a counter taken at
 * its last use, so the least recently used way is the one with the
 * smallest stamp.  Sets are found by the low bits of the line number.
 */
#include "config.h"
#include "mgsim/cache_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CS_INVALID UINT64_MAX	/* never a line number: lines are addr >> 3 or more */

struct cache {
	struct cache_config cfg;
	unsigned shift;		/* log2(line) */
	uint64_t set_mask;	/* sets - 1 */
	uint32_t assoc;
	uint64_t clock;		/* LRU stamps */
	uint64_t *tag;		/* sets * assoc */
	uint64_t *stamp;
	uint8_t *dirty;
	struct cache_stats st;
};

static bool
is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static unsigned
log2u(uint64_t v)
{
	unsigned n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

int
cache_config_check(const struct cache_config *c, char *err, size_t errsz)
{
	uint64_t way_bytes;

	if (!is_pow2(c->line) || c->line < CACHE_MIN_LINE || c->line > CACHE_MAX_LINE) {
		snprintf(err, errsz, "line size %u is not a power of two between %u and %u bytes",
			 c->line, CACHE_MIN_LINE, CACHE_MAX_LINE);
		return -1;
	}
	if (c->assoc < 1 || c->assoc > CACHE_MAX_ASSOC) {
		snprintf(err, errsz, "associativity %u is not between 1 and %u", c->assoc,
			 CACHE_MAX_ASSOC);
		return -1;
	}
	way_bytes = (uint64_t)c->assoc * c->line;
	if (c->size == 0 || c->size % way_bytes != 0) {
		snprintf(err, errsz, "size %llu is not a non-zero multiple of associativity x line "
			 "size (%llu bytes)", (unsigned long long)c->size,
			 (unsigned long long)way_bytes);
		return -1;
	}
	if (!is_pow2(c->size / way_bytes)) {
		snprintf(err, errsz, "size %llu gives %llu sets, not a power of two",
			 (unsigned long long)c->size, (unsigned long long)(c->size / way_bytes));
		return -1;
	}
	if (c->size / way_bytes > (1u << 24)) {
		snprintf(err, errsz, "size %llu is too large (more than 2^24 sets)",
			 (unsigned long long)c->size);
		return -1;
	}
	return 0;
}

struct cache *
cache_new(const struct cache_config *cfg)
{
	char err[128];
	struct cache *c;
	uint64_t ways;

	if (cache_config_check(cfg, err, sizeof(err)) < 0)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cfg = *cfg;
	c->shift = log2u(cfg->line);
	c->assoc = cfg->assoc;
	c->set_mask = cfg->size / ((uint64_t)cfg->assoc * cfg->line) - 1;
	ways = cfg->size / cfg->line;
	c->tag = malloc(ways * sizeof(*c->tag));
	c->stamp = malloc(ways * sizeof(*c->stamp));
	c->dirty = malloc(ways);
	if (!c->tag || !c->stamp || !c->dirty) {
		cache_free(c);
		return NULL;
	}
	cache_reset(c);
	return c;
}

void
cache_free(struct cache *c)
{
	if (!c)
		return;
	free(c->tag);
	free(c->stamp);
	free(c->dirty);
	free(c);
}

void
cache_reset(struct cache *c)
{
	uint64_t ways = (c->set_mask + 1) * c->assoc;

	for (uint64_t i = 0; i < ways; i++)
		c->tag[i] = CS_INVALID;
	memset(c->stamp, 0, ways * sizeof(*c->stamp));
	memset(c->dirty, 0, ways);
	memset(&c->st, 0, sizeof(c->st));
	c->clock = 0;
}

const struct cache_config *
cache_get_config(const struct cache *c)
{
	return &c->cfg;
}

unsigned
cache_line_shift(const struct cache *c)
{
	return c->shift;
}

const struct cache_stats *
cache_get_stats(const struct cache *c)
{
	return &c->st;
}

/* The first way of line's set. */
static inline uint64_t
set_base(const struct cache *c, uint64_t line)
{
	return (line & c->set_mask) * c->assoc;
}

/* The way holding line, or -1. */
static inline int64_t
find_way(const struct cache *c, uint64_t line)
{
	uint64_t b = set_base(c, line);

	for (uint32_t w = 0; w < c->assoc; w++)
		if (c->tag[b + w] == line)
			return (int64_t)(b + w);
	return -1;
}

bool
cache_access(struct cache *c, uint64_t line, bool dirty)
{
	int64_t w = find_way(c, line);

	if (w < 0) {
		c->st.misses++;
		return false;
	}
	c->st.hits++;
	c->stamp[w] = ++c->clock;
	if (dirty)
		c->dirty[w] = 1;
	return true;
}

bool
cache_probe(const struct cache *c, uint64_t line, bool *dirty)
{
	int64_t w = find_way(c, line);

	if (dirty)
		*dirty = w >= 0 && c->dirty[w];
	return w >= 0;
}

bool
cache_fill(struct cache *c, uint64_t line, bool dirty, uint64_t *victim, bool *victim_dirty)
{
	uint64_t b = set_base(c, line), v = b;
	bool replaced = false;

	/* An empty way if there is one, else the least recently used. */
	for (uint32_t w = 0; w < c->assoc; w++) {
		if (c->tag[b + w] == CS_INVALID) {
			v = b + w;
			break;
		}
		if (c->stamp[b + w] < c->stamp[v])
			v = b + w;
	}
	if (c->tag[v] != CS_INVALID) {
		replaced = true;
		c->st.evictions++;
		if (c->dirty[v])
			c->st.dirty_evictions++;
		if (victim)
			*victim = c->tag[v];
		if (victim_dirty)
			*victim_dirty = c->dirty[v];
	}
	c->tag[v] = line;
	c->dirty[v] = dirty;
	c->stamp[v] = ++c->clock;
	c->st.fills++;
	return replaced;
}

bool
cache_invalidate(struct cache *c, uint64_t line, bool *was_dirty)
{
	int64_t w = find_way(c, line);

	if (was_dirty)
		*was_dirty = w >= 0 && c->dirty[w];
	if (w < 0)
		return false;
	c->tag[w] = CS_INVALID;
	c->dirty[w] = 0;
	c->stamp[w] = 0;
	c->st.invalidations++;
	return true;
}

bool
cache_clean(struct cache *c, uint64_t line)
{
	int64_t w = find_way(c, line);
	bool was;

	if (w < 0)
		return false;
	was = c->dirty[w];
	c->dirty[w] = 0;
	return was;
}
