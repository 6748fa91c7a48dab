/*
 * stride: data-stream strides (spec mica.md §3.5), local (per static
 * memory operand) and global, for reads and writes.
 *
 * Kept from MICA (Q8): a stride is measured from the last byte of the
 * previous access to the first byte of this one, as an absolute value;
 * first accesses are measured against address 0; read2 is sized as read1;
 * counts are per memory operand access.  Static identity is the address.
 * Fixed: slots of new static operands start at 0 (B7).  Only the counts
 * at the printed thresholds are kept (MICA: 2^19-entry histograms).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica.h"
#include "u64map.h"

static const uint64_t thresholds[MICA_STRIDE_CUM] = { 0, 8, 64, 512, 4096, 32768, 262144 };

enum { LOCAL_READ, GLOBAL_READ, LOCAL_WRITE, GLOBAL_WRITE };

struct stride {
	struct u64map index;	/* pc -> slot index */
	uint64_t (*slot)[3];	/* last byte: read1, read2, write */
	size_t n_slot, cap_slot;
	uint64_t last_read, last_write;
	uint64_t reads, writes;
	uint64_t hist[4][MICA_STRIDE_CUM + 1];	/* by first threshold >= stride */
	uint64_t last_pc;
	size_t last_idx;
};

static void
stride_destroy(void *p)
{
	struct stride *s = p;

	if (!s)
		return;
	u64map_free(&s->index);
	free(s->slot);
	free(s);
}

static void *
stride_create(const struct mica_config *cfg, char *err, size_t errsz)
{
	struct stride *s = calloc(1, sizeof(*s));

	(void)cfg;
	if (!s || u64map_init(&s->index, 10) < 0) {
		stride_destroy(s);
		if (errsz)
			strncpy(err, "stride: out of memory", errsz - 1), err[errsz - 1] = '\0';
		return NULL;
	}
	s->last_idx = SIZE_MAX;
	return s;
}

/* The first k with d <= thresholds[k], or MICA_STRIDE_CUM: the thresholds
 * are 0 and 8^k, so for d >= 1 it is 1 + (bits(d - 1) - 1) / 3 with at
 * least 3 bits counted, capped (bits(x) = the bit length of x). */
static inline unsigned
bin(uint64_t d)
{
	unsigned bits, k;

	if (d == 0)
		return 0;
	bits = d - 1 < 8 ? 3 : 64 - (unsigned)__builtin_clzll(d - 1);
	k = 1 + (bits - 1) / 3;
	return k < MICA_STRIDE_CUM ? k : MICA_STRIDE_CUM;
}

/* The definition, for the self-check of the formula above. */
static inline __attribute__((unused)) unsigned
bin_slow(uint64_t d)
{
	unsigned k = 0;

	while (k < MICA_STRIDE_CUM && d > thresholds[k])
		k++;
	return k;
}

static inline uint64_t
absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static void
stride_access(struct stride *s, uint64_t *slot, uint64_t *last, int local, uint64_t ea, uint64_t size)
{
	uint64_t end = ea + size - 1;

	s->hist[local][bin(absdiff(ea, *slot))]++;
	*slot = end;
	s->hist[local + 1][bin(absdiff(ea, *last))]++;
	*last = end;
}

static int
stride_event(void *p, const struct insn_event *ev, const struct mica_ctx *ctx)
{
	struct stride *s = p;
	const struct mica_mem_view v = ctx->mem;
	size_t idx;

	if (!v.read1 && !v.write)
		return 0;
	if (ev->pc == s->last_pc && s->last_idx != SIZE_MAX) {
		idx = s->last_idx;
	} else if (ctx->insn_cache && ctx->insn_cache[MICA_CACHE_STRIDE] != UINT64_MAX) {
		idx = (size_t)ctx->insn_cache[MICA_CACHE_STRIDE];
		s->last_pc = ev->pc;
		s->last_idx = idx;
	} else {
		bool created = false;
		uint64_t *x = u64map_find(&s->index, ev->pc);

		if (!x && !(x = u64map_insert(&s->index, ev->pc, &created)))
			return -1;
		if (created) {
			if (s->n_slot == s->cap_slot) {
				size_t cap = s->cap_slot ? s->cap_slot * 2 : 256;
				uint64_t (*n)[3] = realloc(s->slot, cap * sizeof(*n));

				if (!n) {
					u64map_remove(&s->index, ev->pc);
					return -1;
				}
				s->slot = n;
				s->cap_slot = cap;
			}
			memset(s->slot[s->n_slot], 0, sizeof(s->slot[0]));
			*x = s->n_slot++;
		}
		idx = *x;
		s->last_pc = ev->pc;
		s->last_idx = idx;
		if (ctx->insn_cache)
			ctx->insn_cache[MICA_CACHE_STRIDE] = idx;
	}
	if (v.read1) {
		s->reads++;
		stride_access(s, &s->slot[idx][0], &s->last_read, LOCAL_READ, v.read1->addr, v.read1->size);
		if (v.read2) {
			s->reads++;
			stride_access(s, &s->slot[idx][1], &s->last_read, LOCAL_READ, v.read2->addr,
			       v.read1->size);
		}
	}
	if (v.write) {
		s->writes++;
		stride_access(s, &s->slot[idx][2], &s->last_write, LOCAL_WRITE, v.write->addr,
		       v.write->size);
	}
	return 0;
}

static void
cumulate(const uint64_t *h, uint64_t *out)
{
	uint64_t sum = 0;

	for (int k = 0; k < MICA_STRIDE_CUM; k++)
		out[k] = sum += h[k];
}

static void
stride_close(void *p, struct mica_interval *out)
{
	struct stride *s = p;
	struct mica_stride_result *r = &out->stride;

	r->reads = s->reads;
	r->writes = s->writes;
	cumulate(s->hist[LOCAL_READ], r->local_read);
	cumulate(s->hist[GLOBAL_READ], r->global_read);
	cumulate(s->hist[LOCAL_WRITE], r->local_write);
	cumulate(s->hist[GLOBAL_WRITE], r->global_write);
	s->reads = s->writes = 0;
	memset(s->hist, 0, sizeof(s->hist));
}

const struct mica_analyzer_ops mica_stride_ops = {
	.id = MICA_STRIDE,
	.create = stride_create,
	.event = stride_event,
	.close = stride_close,
	.destroy = stride_destroy,
};
