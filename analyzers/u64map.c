/*
 * The open-addressing uint64_t -> uint64_t hash map (u64map.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "u64map.h"

static int
alloc_slots(struct u64map *m, unsigned log2_cap)
{
	size_t cap = (size_t)1 << log2_cap;
	struct u64map_slot *s = malloc(cap * sizeof(*s));

	if (!s)
		return -1;
	memset(s, 0xff, cap * sizeof(*s));	/* every key U64MAP_EMPTY */
	m->slots = s;
	m->mask = cap - 1;
	m->shift = 64 - log2_cap;
	return 0;
}

int
u64map_init(struct u64map *m, unsigned log2_cap)
{
	memset(m, 0, sizeof(*m));
	if (log2_cap < 4)
		log2_cap = 4;
	return alloc_slots(m, log2_cap);
}

void
u64map_free(struct u64map *m)
{
	free(m->slots);
	m->slots = NULL;
}

void
u64map_clear(struct u64map *m, unsigned log2_keep)
{
	size_t cap = m->mask + 1;

	if (log2_keep < 4)
		log2_keep = 4;
	if (cap > ((size_t)1 << log2_keep)) {
		struct u64map_slot *old = m->slots;

		if (alloc_slots(m, log2_keep) == 0)
			free(old);
		else
			memset(old, 0xff, cap * sizeof(*old));
	} else {
		memset(m->slots, 0xff, cap * sizeof(*m->slots));
	}
	m->count = 0;
	m->has_max = false;
	m->max_val = 0;
}

static int
grow(struct u64map *m)
{
	struct u64map_slot *old = m->slots;
	size_t old_cap = m->mask + 1;

	if (alloc_slots(m, 64 - m->shift + 1) < 0) {
		m->slots = old;
		return -1;
	}
	for (size_t i = 0; i < old_cap; i++) {
		if (old[i].key == U64MAP_EMPTY)
			continue;
		size_t j = u64map_hash(m, old[i].key);

		while (m->slots[j].key != U64MAP_EMPTY)
			j = (j + 1) & m->mask;
		m->slots[j] = old[i];
	}
	free(old);
	return 0;
}

uint64_t *
u64map_insert(struct u64map *m, uint64_t key, bool *created)
{
	if (key == U64MAP_EMPTY) {
		*created = !m->has_max;
		if (!m->has_max) {
			m->has_max = true;
			m->max_val = 0;
			m->count++;
		}
		return &m->max_val;
	}
	for (size_t i = u64map_hash(m, key);; i = (i + 1) & m->mask) {
		struct u64map_slot *s = &m->slots[i];

		if (s->key == key) {
			*created = false;
			return &s->val;
		}
		if (s->key != U64MAP_EMPTY)
			continue;
		/* Absent: keep the load at most 1/2. */
		if ((m->count + 1) * 2 > m->mask + 1) {
			if (grow(m) < 0)
				return NULL;
			return u64map_insert(m, key, created);
		}
		s->key = key;
		s->val = 0;
		m->count++;
		*created = true;
		return &s->val;
	}
}

void
u64map_remove(struct u64map *m, uint64_t key)
{
	size_t i, j;

	if (key == U64MAP_EMPTY) {
		if (m->has_max) {
			m->has_max = false;
			m->count--;
		}
		return;
	}
	for (i = u64map_hash(m, key);; i = (i + 1) & m->mask) {
		if (m->slots[i].key == key)
			break;
		if (m->slots[i].key == U64MAP_EMPTY)
			return;
	}
	/* Backward shift: pull later members of the cluster into the hole
	 * when their home slot is not between the hole and them. */
	for (j = i;;) {
		j = (j + 1) & m->mask;
		if (m->slots[j].key == U64MAP_EMPTY)
			break;
		size_t home = u64map_hash(m, m->slots[j].key);

		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].key = U64MAP_EMPTY;
	m->count--;
}
