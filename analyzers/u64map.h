/*
 * An open-addressing hash map from uint64_t keys to uint64_t values, for
 * the MICA analyses' per-block, per-page and per-instruction tables.
 * Linear probing, Fibonacci hashing, backward-shift deletion (no
 * tombstones).  Every key is allowed: UINT64_MAX marks an empty slot and
 * the real key UINT64_MAX lives in a side slot.
 */
#ifndef MICAD_U64MAP_H
#define MICAD_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define U64MAP_EMPTY	UINT64_MAX

struct u64map_slot {
	uint64_t key, val;
};

struct u64map {
	struct u64map_slot *slots;
	size_t mask;		/* capacity - 1 (capacity a power of two) */
	size_t count;		/* keys, the side slot included */
	unsigned shift;		/* 64 - log2(capacity) */
	bool has_max;		/* the key UINT64_MAX is present */
	uint64_t max_val;
};

/* Capacity 2^log2_cap to start with; -1 if out of memory. */
int u64map_init(struct u64map *m, unsigned log2_cap);
void u64map_free(struct u64map *m);
/* Forget every key; keeps at most 2^log2_keep slots. */
void u64map_clear(struct u64map *m, unsigned log2_keep);
/* The value of key, inserted as 0 if absent (*created says which); NULL if
 * out of memory. */
uint64_t *u64map_insert(struct u64map *m, uint64_t key, bool *created);
/* Remove key if present. */
void u64map_remove(struct u64map *m, uint64_t key);

static inline size_t
u64map_hash(const struct u64map *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> m->shift);
}

/* The value of key, or NULL. */
static inline uint64_t *
u64map_find(struct u64map *m, uint64_t key)
{
	if (key == U64MAP_EMPTY)
		return m->has_max ? &m->max_val : NULL;
	for (size_t i = u64map_hash(m, key);; i = (i + 1) & m->mask) {
		struct u64map_slot *s = &m->slots[i];

		if (s->key == key)
			return &s->val;
		if (s->key == U64MAP_EMPTY)
			return NULL;
	}
}

#endif /* MICAD_U64MAP_H */
