/*
 * perf_record.c on constructed records, laid out as the kernel writes them
 * (include/uapi/linux/perf_event.h): a cpu-clock sample with user
 * registers and stack (--call-graph dwarf), a frame-pointer callchain, an
 * Intel PEBS load sample (address, weight struct, data source), an AMD IBS
 * op sample (raw MSR block), mmap2/comm/lost/throttle records, and records
 * cut short; lost records as the TREC_LOST ring records the sampler pushes.
 * Every expected value is written out by hand.
 */
#include "config.h"

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "trace/perf_record.h"
#include "trace/tracer.h"

struct rec {
	uint8_t b[4096];
	size_t n;
};

static void
start(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };

	memcpy(r->b, &h, sizeof(h));
	r->n = sizeof(h);
}

static void
put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void
put64(struct rec *r, uint64_t v)
{
	put(r, &v, 8);
}

static void
put32(struct rec *r, uint32_t v)
{
	put(r, &v, 4);
}

/* Set the header's size (the kernel pads records to 8 bytes). */
static size_t
finish(struct rec *r)
{
	uint16_t size;

	while (r->n % 8)
		r->b[r->n++] = 0;
	size = (uint16_t)r->n;
	memcpy(r->b + 6, &size, 2);
	return r->n;
}

static void
test_cpu_clock_dwarf(void)
{
	struct perf_sample_format f = {
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
		PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
		PERF_REGS_USER_X86_64,
	};
	struct perf_sample s;
	struct rec r;
	uint8_t stack[24];
	size_t len;
	int nregs = 0;

	for (size_t i = 0; i < sizeof(stack); i++)
		stack[i] = (uint8_t)(0xa0 + i);
	start(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&r, 0x401136);			/* ip */
	put32(&r, 4242);			/* pid */
	put32(&r, 4243);			/* tid */
	put64(&r, 123456789012ULL);		/* time */
	put64(&r, 1001001);			/* period: ns of cpu-clock */
	put64(&r, PERF_SAMPLE_REGS_ABI_64);
	/* The registers in bit order: ax=0x100+bit, ..., skipping ds..gs. */
	for (int b = 0; b < PREG_COUNT; b++)
		if (PERF_REGS_USER_X86_64 & (1ULL << b)) {
			put64(&r, 0x100 + (uint64_t)b);
			nregs++;
		}
	put64(&r, sizeof(stack));		/* stack size */
	put(&r, stack, sizeof(stack));
	put64(&r, 16);				/* dyn_size: valid bytes */
	len = finish(&r);

	is_u64(nregs, 20, "x86-64 user register mask: 24 registers less ds, es, fs, gs");
	ok(perf_sample_format_ok(&f), "cpu-clock dwarf format is known");
	ok(perf_sample_parse(&f, r.b, len, &s) == 0, "cpu-clock dwarf sample parses");
	is_u64(s.ip, 0x401136, "ip");
	is_u64(s.pid, 4242, "pid");
	is_u64(s.tid, 4243, "tid");
	is_u64(s.time, 123456789012ULL, "time");
	is_u64(s.period, 1001001, "period");
	is_u64(s.regs_abi, PERF_SAMPLE_REGS_ABI_64, "regs abi");
	is_u64(s.regs[PREG_AX], 0x100, "ax is the first register");
	is_u64(s.regs[PREG_SP], 0x107, "sp (bit 7)");
	is_u64(s.regs[PREG_IP], 0x108, "ip register (bit 8)");
	is_u64(s.regs[PREG_DS], 0, "ds is not sampled");
	is_u64(s.regs[PREG_R8], 0x110, "r8 comes after the skipped segment registers");
	is_u64(s.regs[PREG_R15], 0x117, "r15 is the last");
	is_u64(s.stack_size, 24, "stack size");
	is_u64(s.stack_dyn_size, 16, "stack dyn_size");
	ok(s.stack && s.stack[0] == 0xa0 && s.stack[23] == 0xb7, "stack bytes in place");

	/* Cut anywhere before the end: refused. */
	for (size_t cut = 8; cut < len; cut += 8) {
		uint16_t size = (uint16_t)(len - cut);

		memcpy(r.b + 6, &size, 2);
		if (perf_sample_parse(&f, r.b, len, &s) == 0) {
			ok(0, "a record cut by %zu bytes is refused", cut);
			return;
		}
	}
	ok(1, "records cut short anywhere are refused");
	/* A header claiming more than the bytes given. */
	{
		uint16_t size = (uint16_t)(len + 8);

		memcpy(r.b + 6, &size, 2);
		ok(perf_sample_parse(&f, r.b, len, &s) < 0, "a size beyond the bytes is refused");
	}
}

static void
test_no_user_regs(void)
{
	struct perf_sample_format f = {
		PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
		PERF_REGS_USER_X86_64,
	};
	struct perf_sample s;
	struct rec r;
	size_t len;

	/* A sample in a kernel thread context: abi NONE, no registers, an
	 * empty stack without dyn_size. */
	start(&r, PERF_RECORD_SAMPLE, 0);
	put64(&r, 0xffffffff81000000ULL);
	put64(&r, PERF_SAMPLE_REGS_ABI_NONE);
	put64(&r, 0);
	len = finish(&r);
	ok(perf_sample_parse(&f, r.b, len, &s) == 0, "abi NONE: parses without registers");
	is_u64(s.stack_size, 0, "abi NONE: no stack");
	ok(s.stack == NULL, "abi NONE: no stack pointer");
}

static void
test_callchain(void)
{
	struct perf_sample_format f = {
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN, 0,
	};
	struct perf_sample s;
	struct rec r;
	uint64_t ip;
	size_t len;

	start(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&r, 0x401000);
	put32(&r, 7);
	put32(&r, 8);
	put64(&r, 4);
	put64(&r, (uint64_t)PERF_CONTEXT_USER);
	put64(&r, 0x401000);
	put64(&r, 0x401234);
	put64(&r, 0x7f0000001000ULL);
	len = finish(&r);
	ok(perf_sample_parse(&f, r.b, len, &s) == 0, "callchain sample parses");
	is_u64(s.nr_ips, 4, "callchain: 4 entries, the context marker included");
	memcpy(&ip, s.ips, 8);
	is_u64(ip, (uint64_t)PERF_CONTEXT_USER, "callchain[0] is PERF_CONTEXT_USER");
	memcpy(&ip, s.ips + 24, 8);
	is_u64(ip, 0x7f0000001000ULL, "callchain[3]");
	/* nr larger than the record. */
	memcpy(r.b + 8 + 8 + 8, &(uint64_t){ 1000 }, 8);
	ok(perf_sample_parse(&f, r.b, len, &s) < 0, "a callchain longer than its record is refused");
}

static void
test_pebs(void)
{
	/* What a MEM_INST_RETIRED.ALL_LOADS:pp (or mem-loads) sample carries. */
	struct perf_sample_format f = {
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC, 0,
	};
	struct perf_sample s;
	struct rec r;
	/* A load that hit L1: mem_op LOAD (0x02 << 0), mem_lvl L1|HIT
	 * ((0x08 | 0x02) << 5), mem_snoop NONE (0x02 << 19), mem_dtlb L1|HIT
	 * ((0x08 | 0x02) << 26): 0x142 | 0x100000 | 0x28000000. */
	uint64_t dsrc = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, L1) | PERF_MEM_S(LVL, HIT) |
			PERF_MEM_S(SNOOP, NONE) | PERF_MEM_S(TLB, L1) | PERF_MEM_S(TLB, HIT);
	size_t len;

	is_u64(dsrc, 0x142ULL | 0x100000ULL | 0x28000000ULL, "data_src of an L1 load hit");
	start(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP);
	put64(&r, 0x401a2b);			/* ip, exact */
	put32(&r, 100);
	put32(&r, 101);
	put64(&r, 5000000000ULL);		/* time */
	put64(&r, 0x7ffc0000beefULL);		/* addr: the loaded address */
	put64(&r, 10007);			/* period */
	/* union perf_sample_weight: var1_dw = 123 (load latency),
	 * var2_w = 45 (instruction latency), var3_w = 6. */
	put64(&r, 123ULL | (45ULL << 32) | (6ULL << 48));
	put64(&r, dsrc);
	len = finish(&r);
	ok(perf_sample_parse(&f, r.b, len, &s) == 0, "PEBS load sample parses");
	is_u64(s.ip, 0x401a2b, "PEBS: ip");
	is_u64(s.time, 5000000000ULL, "PEBS: time before addr");
	is_u64(s.addr, 0x7ffc0000beefULL, "PEBS: data address");
	is_u64(s.period, 10007, "PEBS: period after addr");
	is_u64(s.weight_var1, 123, "PEBS: load latency (var1_dw)");
	is_u64(s.weight_var2, 45, "PEBS: instruction latency (var2_w)");
	is_u64(s.weight_var3, 6, "PEBS: var3_w");
	is_u64(s.data_src, dsrc, "PEBS: data source");
	is_u64((s.data_src >> PERF_MEM_LVL_SHIFT) & 0x3fff, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT,
	       "PEBS: data source level decodes to L1 hit");

	/* Older kernels: PERF_SAMPLE_WEIGHT, a plain u64. */
	f.sample_type = (f.sample_type & ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT) | PERF_SAMPLE_WEIGHT;
	ok(perf_sample_parse(&f, r.b, len, &s) == 0, "PEBS sample with WEIGHT parses");
	is_u64(s.weight, 123ULL | (45ULL << 32) | (6ULL << 48), "WEIGHT: the whole u64");
	is_u64(s.weight_var1, 0, "WEIGHT: no struct fields");
	f.sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
	ok(!perf_sample_format_ok(&f), "WEIGHT and WEIGHT_STRUCT together are refused");
}

static void
test_ibs_op(void)
{
	struct perf_sample_format f = {
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
		PERF_SAMPLE_RAW, 0,
	};
	/* IbsOpCtl: max count 0x1000, IbsOpEn (17), IbsOpVal (18).
	 * IbsOpData: tag-to-retire 77 cycles (bits 16-31), completion 5.
	 * IbsOpData3: LdOp (0), DcMiss (7), DcLinAddrValid (17), width
	 * code 4 = 8 bytes (22-25), DcMissLat 250 cycles (32-47). */
	uint64_t msr[7] = {
		0x1000 | (1ULL << 17) | (1ULL << 18),
		0x401234,
		5 | (77ULL << 16),
		0,
		1 | (1ULL << 7) | (1ULL << 17) | (4ULL << 22) | (250ULL << 32),
		0x7ffd1000,
		0x12345000,
	};
	struct ibs_op_sample o;
	struct perf_sample s;
	struct rec r;
	size_t len;

	start(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&r, 0x401234);
	put32(&r, 9);
	put32(&r, 9);
	put64(&r, 42);
	put64(&r, 0x10000);
	/* raw: size 60 (4 + 60 = 64, 8-aligned), caps, the 7 MSRs. */
	put32(&r, 60);
	put32(&r, 0x3ff);			/* caps */
	put(&r, msr, sizeof(msr));
	len = finish(&r);
	ok(perf_sample_parse(&f, r.b, len, &s) == 0, "IBS op sample parses");
	is_u64(s.raw_size, 60, "IBS: raw size");
	is_u64(s.period, 0x10000, "IBS: period");
	ok(ibs_op_decode(s.raw, s.raw_size, &o) == 0, "IBS: raw block decodes");
	is_u64(o.caps, 0x3ff, "IBS: caps");
	ok(o.valid, "IBS: IbsOpEn and IbsOpVal");
	is_u64(o.op_rip, 0x401234, "IBS: IbsOpRip");
	ok(o.rip_valid, "IBS: RIP valid (IbsOpData bit 38 clear)");
	is_u64(o.tag_to_retire, 77, "IBS: tag-to-retire cycles");
	ok(o.load && !o.store, "IBS: a load");
	ok(o.dc_miss, "IBS: DC miss");
	ok(o.lin_addr_valid, "IBS: linear address valid");
	is_u64(o.dc_lin_ad, 0x7ffd1000, "IBS: IbsDcLinAd");
	is_u64(o.dc_phys_ad, 0x12345000, "IBS: IbsDcPhysAd");
	ok(!o.phys_addr_valid, "IBS: physical address not valid (bit 18 clear)");
	is_u64(o.mem_width, 8, "IBS: OpMemWidth code 4 is 8 bytes");
	is_u64(o.dc_miss_latency, 250, "IBS: DcMissLat");

	msr[2] |= 1ULL << 38;
	msr[0] &= ~(1ULL << 18);
	memcpy(r.b + r.n - sizeof(msr), msr, sizeof(msr));
	ok(ibs_op_decode(s.raw, s.raw_size, &o) == 0, "IBS: second block decodes");
	ok(!o.rip_valid, "IBS: IbsRipInvalid (bit 38) seen");
	ok(!o.valid, "IBS: IbsOpVal clear: not a valid sample");
	ok(ibs_op_decode(s.raw, 59, &o) < 0, "IBS: a block shorter than 7 MSRs is refused");
}

static void
test_side_records(void)
{
	struct perf_mmap2 m;
	struct perf_comm c;
	struct perf_lost l;
	struct perf_throttle th;
	struct perf_task tk;
	struct rec r;
	const char name[] = "/usr/lib/x86_64-linux-gnu/libm.so.6";
	size_t len;

	start(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put32(&r, 300);
	put32(&r, 301);
	put64(&r, 0x7f1234560000ULL);
	put64(&r, 0x8000);
	put64(&r, 0x3000);
	put32(&r, 8);				/* maj */
	put32(&r, 1);				/* min */
	put64(&r, 987654);			/* ino */
	put64(&r, 0);				/* ino generation */
	put32(&r, 5);				/* PROT_READ | PROT_EXEC */
	put32(&r, 2);				/* MAP_PRIVATE */
	put(&r, name, sizeof(name));
	len = finish(&r);
	ok(perf_mmap2_parse(r.b, len, &m) == 0, "mmap2 parses");
	is_u64(m.pid, 300, "mmap2: pid");
	is_u64(m.addr, 0x7f1234560000ULL, "mmap2: addr");
	is_u64(m.len, 0x8000, "mmap2: len");
	is_u64(m.pgoff, 0x3000, "mmap2: pgoff");
	is_u64(m.maj, 8, "mmap2: maj");
	is_u64(m.ino, 987654, "mmap2: ino");
	is_u64(m.prot, 5, "mmap2: prot");
	is_str(m.filename, name, "mmap2: filename");
	/* A filename without its NUL within the record. */
	memset(r.b + len - 8, 'x', 8);
	memset(r.b + len - sizeof(name) - 4, 'x', sizeof(name) + 4);
	ok(perf_mmap2_parse(r.b, len, &m) < 0, "mmap2: an unterminated filename is refused");

	start(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put32(&r, 1);
	put32(&r, 1);
	put64(&r, 0x1000);
	put64(&r, 0x1000);
	put64(&r, 0);
	for (int i = 0; i < 3; i++)
		put64(&r, 0xdddddddddddddddd);	/* build id */
	put32(&r, 4);
	put32(&r, 2);
	put(&r, "/bin/x", 7);
	len = finish(&r);
	ok(perf_mmap2_parse(r.b, len, &m) == 0 && m.has_build_id && m.ino == 0 && m.prot == 4 &&
	   strcmp(m.filename, "/bin/x") == 0, "mmap2 with a build id: no inode, the rest in place");

	start(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32(&r, 55);
	put32(&r, 55);
	put(&r, "prog", 5);
	len = finish(&r);
	ok(perf_comm_parse(r.b, len, &c) == 0 && c.exec && c.pid == 55 &&
	   strcmp(c.comm, "prog") == 0, "comm of an exec");

	start(&r, PERF_RECORD_LOST, 0);
	put64(&r, 77);				/* id */
	put64(&r, 1234);
	len = finish(&r);
	ok(perf_lost_parse(NULL, r.b, len, &l) == 0, "lost parses");
	is_u64(l.lost, 1234, "lost: the count after the id");
	ok(!l.has_id, "lost without sample_id_all: no pid, tid or time of its own");

	start(&r, PERF_RECORD_LOST_SAMPLES, 0);
	put64(&r, 99);
	len = finish(&r);
	ok(perf_lost_parse(NULL, r.b, len, &l) == 0 && l.lost == 99, "lost samples: the count");

	start(&r, PERF_RECORD_THROTTLE, 0);
	put64(&r, 31337);
	put64(&r, 1);
	put64(&r, 1);
	len = finish(&r);
	ok(perf_throttle_parse(r.b, len, &th) == 0 && th.time == 31337, "throttle: its time");

	start(&r, PERF_RECORD_EXIT, 0);
	put32(&r, 10);
	put32(&r, 1);
	put32(&r, 11);
	put32(&r, 10);
	put64(&r, 777);
	len = finish(&r);
	ok(perf_task_parse(r.b, len, &tk) == 0 && tk.pid == 10 && tk.ppid == 1 && tk.tid == 11 &&
	   tk.ptid == 10 && tk.time == 777, "exit: pid, ppid, tid, ptid, time");
	ok(perf_task_parse(r.b, 8, &tk) < 0, "exit: a header alone is refused");
}

/* PERF_RECORD_LOST and LOST_SAMPLES with the sample_id of sample mode's
 * events (sample_id_all; TID and TIME first, then the ID the format also
 * asks for here), and as TREC_LOST records. */
static void
test_lost_trec(void)
{
	struct perf_sample_format f = {
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		PERF_SAMPLE_PERIOD, 0, true,
	};
	struct trace_lost_rec t;
	struct perf_lost l;
	struct rec r;
	size_t len;

	start(&r, PERF_RECORD_LOST, 0);
	put64(&r, 77);				/* id */
	put64(&r, 41);				/* lost */
	put32(&r, 1200);			/* sample_id: pid */
	put32(&r, 1201);			/* tid */
	put64(&r, 5000000123ULL);		/* time */
	put64(&r, 77);				/* id */
	len = finish(&r);
	ok(perf_lost_parse(&f, r.b, len, &l) == 0 && l.has_id && l.lost == 41 && l.pid == 1200 &&
	   l.tid == 1201 && l.time == 5000000123ULL, "lost with sample_id: count, pid, tid, time");
	ok(perf_lost_trec(&f, r.b, len, 300, 301, 777, &t) == 0, "lost -> TREC_LOST");
	ok(t.lost == 41 && t.pid == 300 && t.tid == 301 && t.time_ns == 5000000123ULL,
	   "TREC_LOST: 41 lost of the buffer's thread 300/301 (not whoever ran), at the record's "
	   "time");
	ok(perf_lost_trec(NULL, r.b, len, 300, 301, 777, &t) == 0 && t.time_ns == 777 && t.lost == 41,
	   "TREC_LOST without sample_id_all: the time given (the thread's last sample's)");
	/* A whole record (its size says 32) with no room for the time. */
	start(&r, PERF_RECORD_LOST, 0);
	put64(&r, 77);
	put64(&r, 41);
	put32(&r, 1200);
	put32(&r, 1201);
	len = finish(&r);
	ok(perf_lost_trec(&f, r.b, len, 300, 301, 777, &t) < 0,
	   "lost whose sample_id is cut short: refused");

	start(&r, PERF_RECORD_LOST_SAMPLES, 0);
	put64(&r, 6);
	put32(&r, 1200);
	put32(&r, 1202);
	put64(&r, 6000000000ULL);
	put64(&r, 78);
	len = finish(&r);
	ok(perf_lost_trec(&f, r.b, len, 300, 302, 1, &t) == 0 && t.lost == 6 && t.tid == 302 &&
	   t.pid == 300 && t.time_ns == 6000000000ULL, "lost samples (PEBS) -> TREC_LOST: 6");

	start(&r, PERF_RECORD_LOST, 0);
	put64(&r, 77);
	put64(&r, 0);
	put32(&r, 1);
	put32(&r, 1);
	put64(&r, 9);
	put64(&r, 77);
	len = finish(&r);
	ok(perf_lost_trec(&f, r.b, len, 300, 301, 1, &t) < 0, "lost 0: no TREC_LOST");
	start(&r, PERF_RECORD_THROTTLE, 0);
	put64(&r, 31337);
	put64(&r, 1);
	put64(&r, 1);
	len = finish(&r);
	ok(perf_lost_trec(&f, r.b, len, 300, 301, 1, &t) < 0, "throttle: no TREC_LOST (no count)");
}

int
main(void)
{
	struct perf_sample_format f = { PERF_SAMPLE_IP | PERF_SAMPLE_READ, 0 };

	ok(!perf_sample_format_ok(&f), "PERF_SAMPLE_READ is not parsed: refused up front");
	test_cpu_clock_dwarf();
	test_no_user_regs();
	test_callchain();
	test_pebs();
	test_ibs_op();
	test_side_records();
	test_lost_trec();
	return done_testing();
}
