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
 *
 * Reads and writes are separate streams (their own last byte, their own
 * histograms), so a batch is taken as its list of reads, then its list of
 * writes: no branch on what each DE accesses.
 *
 * Sample mode (spec performance.md §3.3): the slots are kept across
 * bursts, and an operand's first access ever is not measured against
 * address 0 but counted apart (first_reads, first_writes): it has no
 * previous access to be a stride from.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica/mica.h"
#include "mica/sid_table.h"
#include "u64map.h"

enum { LOCAL_READ, GLOBAL_READ, LOCAL_WRITE, GLOBAL_WRITE };

struct stride {
	struct u64map index;	/* pc -> slot index */
	uint64_t (*slot)[3];	/* last byte: read1, read2, write */
	size_t n_slot, cap_slot;
	uint64_t last_read, last_write;
	uint64_t reads, writes;
	uint64_t hist[4][MICA_STRIDE_CUM + 1];	/* by first threshold >= stride */
	uint32_t *sidx;		/* [sid]: slot index, UINT32_MAX unknown */
	size_t n_sidx;
	bool sampled;		/* new slots hold NEVER, not 0 */
	uint64_t first[2];	/* sample mode: first accesses, read and write */
};

/* Sample mode: a slot never accessed. */
#define NEVER	UINT64_MAX

static void
stride_destroy(void *p)
{
	struct stride *s = p;

	if (!s)
		return;
	u64map_free(&s->index);
	free(s->slot);
	free(s->sidx);
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
	return s;
}

/* The first k with d <= 0, 8, 64, 512, 4096, 32768, 262144 (the k-th), or
 * MICA_STRIDE_CUM: the thresholds are 0 and 8^k, so for d >= 1 it is
 * 1 + (bits(d - 1) - 1) / 3 with at least 3 bits counted, capped (bits(x)
 * = the bit length of x); this table holds it by bits(d - 1) (bits(0)
 * counted as 1).  tests/mica_unit checks d and d + 1 at every threshold. */
static const uint8_t bin_of_bits[65] = {
	1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
};

static inline unsigned
bin(uint64_t d)
{
	unsigned k = bin_of_bits[64 - __builtin_clzll((d - 1) | 1)];

	return d ? k : 0;
}

static inline uint64_t
absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* One access: its local stride (from the operand's last access) and its
 * global one (from the last access of the same direction).  sampled is a
 * constant in each copy: step mode's loop has no test for NEVER. */
static inline __attribute__((always_inline)) void
stride_access(uint64_t (*hist)[MICA_STRIDE_CUM + 1], uint64_t *slot, uint64_t *last, int local,
	      uint64_t ea, uint64_t size, const bool sampled, uint64_t *first)
{
	uint64_t end = ea + size - 1;

	if (sampled && *slot == NEVER)
		(*first)++;
	else
		hist[local][bin(absdiff(ea, *slot))]++;
	*slot = end;
	hist[local + 1][bin(absdiff(ea, *last))]++;
	*last = end;
}

/* The slot index of the instruction at pc (new slots start at 0); -1 if
 * out of memory. */
static int64_t
slot_of(struct stride *s, uint64_t pc)
{
	bool created = false;
	uint64_t *x = u64map_find(&s->index, pc);

	if (!x && !(x = u64map_insert(&s->index, pc, &created)))
		return -1;
	if (created) {
		uint64_t (*n)[3] = NULL;

		if (s->n_slot == s->cap_slot &&
		    (s->n_slot >= UINT32_MAX / 2 ||
		     !(n = realloc(s->slot, 2 * (s->cap_slot ? s->cap_slot : 128) * sizeof(*n))))) {
			u64map_remove(&s->index, pc);
			return -1;
		}
		if (n) {
			s->slot = n;
			s->cap_slot = 2 * (s->cap_slot ? s->cap_slot : 128);
		}
		memset(s->slot[s->n_slot], s->sampled ? 0xff : 0, sizeof(s->slot[0]));
		*x = s->n_slot++;
	}
	return (int64_t)*x;
}

/* The accesses a[0..n) of one direction; local is LOCAL_READ or
 * LOCAL_WRITE, last the direction's last byte. */
static inline __attribute__((always_inline)) int
stride_list_mode(struct stride *s, const struct mica_batch *b, const struct mica_access *a,
		 unsigned n, uint64_t *last, int local, const bool sampled)
{
	uint64_t *first = &s->first[local == LOCAL_WRITE];
	uint64_t (*hist)[MICA_STRIDE_CUM + 1] = s->hist;
	uint64_t l = *last;
	unsigned i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		uint32_t idx = s->sidx[a[i].sid];

		if (__builtin_expect(idx == UINT32_MAX, 0)) {
			int64_t x = slot_of(s, b->statics[a[i].sid].pc);

			if (x < 0) {
				ret = -1;
				break;
			}
			idx = s->sidx[a[i].sid] = (uint32_t)x;
		}
		stride_access(hist, &s->slot[idx][a[i].op], &l, local, a[i].addr, a[i].size,
			      sampled, first);
	}
	*last = l;
	if (local == LOCAL_READ)
		s->reads += i;
	else
		s->writes += i;
	return ret;
}

static int
stride_list(struct stride *s, const struct mica_batch *b, const struct mica_access *a,
	    unsigned n, uint64_t *last, int local)
{
	if (s->sampled)
		return stride_list_mode(s, b, a, n, last, local, true);
	return stride_list_mode(s, b, a, n, last, local, false);
}

static int
stride_run(void *p, const struct mica_batch *b)
{
	struct stride *s = p;

	if (b->n_statics > s->n_sidx) {
		uint32_t *t = mica_sid_table_grow(s->sidx, &s->n_sidx, b->n_statics,
						  sizeof(*t), 0xff);

		if (!t)
			return -1;
		s->sidx = t;
	}
	/* Reads and writes are separate streams: each list in order. */
	if (stride_list(s, b, b->reads, b->n_reads, &s->last_read, LOCAL_READ) < 0 ||
	    stride_list(s, b, b->writes, b->n_writes, &s->last_write, LOCAL_WRITE) < 0)
		return -1;
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
	r->first_reads = s->first[0];
	r->first_writes = s->first[1];
	cumulate(s->hist[LOCAL_READ], r->local_read);
	cumulate(s->hist[GLOBAL_READ], r->global_read);
	cumulate(s->hist[LOCAL_WRITE], r->local_write);
	cumulate(s->hist[GLOBAL_WRITE], r->global_write);
	s->reads = s->writes = 0;
	s->first[0] = s->first[1] = 0;
	memset(s->hist, 0, sizeof(s->hist));
}

static void
stride_sample(void *p, enum mica_sample_event ev, uint64_t e)
{
	struct stride *s = p;

	(void)e;
	if (ev == MICA_SAMPLE_ON)
		s->sampled = true;
}

const struct mica_analyzer_ops mica_stride_ops = {
	.id = MICA_STRIDE,
	.create = stride_create,
	.run = stride_run,
	.close = stride_close,
	.destroy = stride_destroy,
	.sample = stride_sample,
};
