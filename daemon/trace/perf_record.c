/*
 * perf_event ring records, parsed (perf_record.h).
 *
 * Every read goes through a cursor that knows the record's end, so a
 * record shorter than its own fields claim is refused, never over-read.
 */
#include "config.h"
#include "trace/perf_record.h"

#include <linux/perf_event.h>
#include <string.h>

#include "trace/tracer.h"

struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static const uint8_t *
take(struct cursor *c, size_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

static uint64_t
u64(struct cursor *c)
{
	const uint8_t *p = take(c, 8);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return v;
}

static uint32_t
u32(struct cursor *c)
{
	const uint8_t *p = take(c, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return v;
}

/* The record after its header, bounded by its length (the header's size
 * and len must agree: a record is never longer than its bytes). */
static bool
cursor_init(struct cursor *c, const void *rec, size_t len, struct perf_event_header *h)
{
	if (len < sizeof(*h))
		return false;
	memcpy(h, rec, sizeof(*h));
	if (h->size < sizeof(*h) || h->size > len)
		return false;
	c->p = (const uint8_t *)rec + sizeof(*h);
	c->end = (const uint8_t *)rec + h->size;
	c->bad = false;
	return true;
}

#define KNOWN_SAMPLE_BITS \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC)

bool
perf_sample_format_ok(const struct perf_sample_format *f)
{
	if (f->sample_type & ~(uint64_t)KNOWN_SAMPLE_BITS)
		return false;
	/* The kernel refuses both at once; so do we. */
	if ((f->sample_type & PERF_SAMPLE_WEIGHT) && (f->sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
		return false;
	return !(f->regs_user & ~((1ULL << PREG_COUNT) - 1));
}

int
perf_sample_parse(const struct perf_sample_format *f, const void *rec, size_t len,
		  struct perf_sample *s)
{
	uint64_t t = f->sample_type;
	struct perf_event_header h;
	struct cursor c;

	memset(s, 0, sizeof(*s));
	if (!cursor_init(&c, rec, len, &h) || h.type != PERF_RECORD_SAMPLE)
		return -1;
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = u64(&c);
	if (t & PERF_SAMPLE_IP)
		s->ip = u64(&c);
	if (t & PERF_SAMPLE_TID) {
		s->pid = u32(&c);
		s->tid = u32(&c);
	}
	if (t & PERF_SAMPLE_TIME)
		s->time = u64(&c);
	if (t & PERF_SAMPLE_ADDR)
		s->addr = u64(&c);
	if (t & PERF_SAMPLE_ID)
		s->id = u64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		u64(&c);
	if (t & PERF_SAMPLE_CPU) {
		s->cpu = u32(&c);
		u32(&c);
	}
	if (t & PERF_SAMPLE_PERIOD)
		s->period = u64(&c);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		s->nr_ips = u64(&c);
		if (s->nr_ips > (size_t)(c.end - c.p) / 8)
			return -1;
		s->ips = take(&c, s->nr_ips * 8);
	}
	if (t & PERF_SAMPLE_RAW) {
		/* The u32 size counts the padding that keeps the record
		 * 8-byte aligned. */
		s->raw_size = u32(&c);
		s->raw = take(&c, s->raw_size);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		s->regs_abi = u64(&c);
		/* No registers follow when the sample hit no user context
		 * (PERF_SAMPLE_REGS_ABI_NONE). */
		if (s->regs_abi != PERF_SAMPLE_REGS_ABI_NONE)
			for (int r = 0; r < PREG_COUNT; r++)
				if (f->regs_user & (1ULL << r))
					s->regs[r] = u64(&c);
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		s->stack_size = u64(&c);
		if (s->stack_size) {
			if (s->stack_size > (size_t)(c.end - c.p))
				return -1;
			s->stack = take(&c, s->stack_size);
			s->stack_dyn_size = u64(&c);
			if (s->stack_dyn_size > s->stack_size)
				return -1;
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		s->weight = u64(&c);
		if (t & PERF_SAMPLE_WEIGHT_STRUCT) {
			/* union perf_sample_weight, little-endian:
			 * var1_dw, var2_w, var3_w. */
			s->weight_var1 = (uint32_t)s->weight;
			s->weight_var2 = (uint16_t)(s->weight >> 32);
			s->weight_var3 = (uint16_t)(s->weight >> 48);
		}
	}
	if (t & PERF_SAMPLE_DATA_SRC)
		s->data_src = u64(&c);
	return c.bad ? -1 : 0;
}

/* A NUL-terminated string that ends within the record (the kernel pads
 * it to 8 bytes, sample_id fields may follow). */
static const char *
string_in(struct cursor *c)
{
	const char *s = (const char *)c->p;

	if (c->bad || !memchr(c->p, '\0', (size_t)(c->end - c->p))) {
		c->bad = true;
		return NULL;
	}
	return s;
}

int
perf_mmap2_parse(const void *rec, size_t len, struct perf_mmap2 *m)
{
	struct perf_event_header h;
	struct cursor c;

	memset(m, 0, sizeof(*m));
	if (!cursor_init(&c, rec, len, &h) || h.type != PERF_RECORD_MMAP2)
		return -1;
	m->pid = u32(&c);
	m->tid = u32(&c);
	m->addr = u64(&c);
	m->len = u64(&c);
	m->pgoff = u64(&c);
	/* maj, min, ino, ino_generation; or the build id in the same 24
	 * bytes. */
	m->has_build_id = (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) != 0;
	if (m->has_build_id) {
		take(&c, 24);
	} else {
		m->maj = u32(&c);
		m->min = u32(&c);
		m->ino = u64(&c);
		u64(&c);
	}
	m->prot = u32(&c);
	m->flags = u32(&c);
	m->filename = string_in(&c);
	return c.bad ? -1 : 0;
}

int
perf_comm_parse(const void *rec, size_t len, struct perf_comm *cm)
{
	struct perf_event_header h;
	struct cursor c;

	memset(cm, 0, sizeof(*cm));
	if (!cursor_init(&c, rec, len, &h) || h.type != PERF_RECORD_COMM)
		return -1;
	cm->pid = u32(&c);
	cm->tid = u32(&c);
	cm->exec = (h.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
	cm->comm = string_in(&c);
	return c.bad ? -1 : 0;
}

int
perf_task_parse(const void *rec, size_t len, struct perf_task *tk)
{
	struct perf_event_header h;
	struct cursor c;

	memset(tk, 0, sizeof(*tk));
	if (!cursor_init(&c, rec, len, &h) ||
	    (h.type != PERF_RECORD_EXIT && h.type != PERF_RECORD_FORK))
		return -1;
	tk->pid = u32(&c);
	tk->ppid = u32(&c);
	tk->tid = u32(&c);
	tk->ptid = u32(&c);
	tk->time = u64(&c);
	return c.bad ? -1 : 0;
}

int
perf_lost_parse(const struct perf_sample_format *f, const void *rec, size_t len,
		struct perf_lost *l)
{
	struct perf_event_header h;
	struct cursor c;

	memset(l, 0, sizeof(*l));
	if (!cursor_init(&c, rec, len, &h))
		return -1;
	if (h.type == PERF_RECORD_LOST) {
		u64(&c);	/* the event's id */
		l->lost = u64(&c);
	} else if (h.type == PERF_RECORD_LOST_SAMPLES) {
		l->lost = u64(&c);
	} else {
		return -1;
	}
	/* struct sample_id: TID and TIME come first. */
	if (f && f->sample_id_all && (f->sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME))) {
		if (f->sample_type & PERF_SAMPLE_TID) {
			l->pid = u32(&c);
			l->tid = u32(&c);
		}
		if (f->sample_type & PERF_SAMPLE_TIME)
			l->time = u64(&c);
		l->has_id = (f->sample_type & PERF_SAMPLE_TID) && (f->sample_type & PERF_SAMPLE_TIME);
	}
	return c.bad ? -1 : 0;
}

int
perf_lost_trec(const struct perf_sample_format *f, const void *rec, size_t len,
	       int32_t pid, int32_t tid, uint64_t time, struct trace_lost_rec *out)
{
	struct perf_lost l;

	memset(out, 0, sizeof(*out));
	if (perf_lost_parse(f, rec, len, &l) < 0 || l.lost == 0)
		return -1;
	/* The samples lost are the buffer's, whoever was running when the
	 * kernel wrote the record. */
	out->lost = l.lost;
	out->pid = pid;
	out->tid = tid;
	out->time_ns = l.has_id ? l.time : time;
	return 0;
}

int
perf_throttle_parse(const void *rec, size_t len, struct perf_throttle *th)
{
	struct perf_event_header h;
	struct cursor c;

	memset(th, 0, sizeof(*th));
	if (!cursor_init(&c, rec, len, &h) ||
	    (h.type != PERF_RECORD_THROTTLE && h.type != PERF_RECORD_UNTHROTTLE))
		return -1;
	th->time = u64(&c);
	return c.bad ? -1 : 0;
}

/* IbsOpCtl bits 17 (IbsOpEn), 18 (IbsOpVal); IbsOpData bit 38;
 * IbsOpData3 bits. */
#define IBS_OP_CTL_EN		(1ULL << 17)
#define IBS_OP_CTL_VAL		(1ULL << 18)
#define IBS_OP_DATA_RIP_INVALID	(1ULL << 38)
#define IBS_DATA3_LD_OP		(1ULL << 0)
#define IBS_DATA3_ST_OP		(1ULL << 1)
#define IBS_DATA3_DC_MISS	(1ULL << 7)
#define IBS_DATA3_LIN_VALID	(1ULL << 17)
#define IBS_DATA3_PHYS_VALID	(1ULL << 18)

int
ibs_op_decode(const uint8_t *raw, size_t size, struct ibs_op_sample *o)
{
	uint64_t msr[7];
	unsigned width;

	memset(o, 0, sizeof(*o));
	if (!raw || size < 4 + sizeof(msr))
		return -1;
	memcpy(&o->caps, raw, 4);
	/* The MSRs follow the u32 of capabilities: unaligned. */
	memcpy(msr, raw + 4, sizeof(msr));
	o->op_ctl = msr[0];
	o->op_rip = msr[1];
	o->op_data = msr[2];
	o->op_data2 = msr[3];
	o->op_data3 = msr[4];
	o->dc_lin_ad = msr[5];
	o->dc_phys_ad = msr[6];
	o->valid = (o->op_ctl & IBS_OP_CTL_EN) && (o->op_ctl & IBS_OP_CTL_VAL);
	o->rip_valid = !(o->op_data & IBS_OP_DATA_RIP_INVALID);
	o->tag_to_retire = (uint32_t)((o->op_data >> 16) & 0xffff);
	o->load = (o->op_data3 & IBS_DATA3_LD_OP) != 0;
	o->store = (o->op_data3 & IBS_DATA3_ST_OP) != 0;
	o->dc_miss = (o->op_data3 & IBS_DATA3_DC_MISS) != 0;
	o->lin_addr_valid = (o->op_data3 & IBS_DATA3_LIN_VALID) != 0;
	o->phys_addr_valid = (o->op_data3 & IBS_DATA3_PHYS_VALID) != 0;
	/* OpMemWidth is log2(bytes) + 1 (perf's amd-sample-raw.c prints
	 * 1 << (width - 1)); 0: not a load or store. */
	width = (unsigned)((o->op_data3 >> 22) & 0xf);
	o->mem_width = width ? 1u << (width - 1) : 0;
	o->dc_miss_latency = (uint32_t)((o->op_data3 >> 32) & 0xffff);
	return 0;
}
