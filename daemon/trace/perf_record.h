/*
 * perf_event ring records, parsed: the bytes of one record in, a struct
 * out, nothing else (no system calls, no allocation), so the parsing is
 * tested on constructed records of every kind (tests/perf_record_test.c),
 * including the hardware ones this project's machines cannot produce:
 * PEBS (address, weight, data source) and AMD IBS op (the raw MSR block).
 *
 * Layouts from the kernel's include/uapi/linux/perf_event.h (struct
 * perf_event_header, enum perf_event_type's comments) and, for IBS, the
 * kernel's arch/x86/events/amd/ibs.c and asm/amd-ibs.h (the PPR's MSR
 * layouts).  Pointers in a parsed record point into the caller's bytes.
 */
#ifndef MICAD_PERF_RECORD_H
#define MICAD_PERF_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* x86-64 user registers a sample can carry: PERF_REG_X86_AX .. R15
 * (asm/perf_regs.h numbering). */
enum perf_reg_x86 {
	PREG_AX, PREG_BX, PREG_CX, PREG_DX, PREG_SI, PREG_DI, PREG_BP, PREG_SP, PREG_IP,
	PREG_FLAGS, PREG_CS, PREG_SS, PREG_DS, PREG_ES, PREG_FS, PREG_GS,
	PREG_R8, PREG_R9, PREG_R10, PREG_R11, PREG_R12, PREG_R13, PREG_R14, PREG_R15,
	PREG_COUNT
};

/* What perf record asks for on x86-64: every general register, not the
 * segment registers ds, es, fs, gs (the kernel refuses them there). */
#define PERF_REGS_USER_X86_64 \
	(((1ULL << PREG_COUNT) - 1) & \
	 ~((1ULL << PREG_DS) | (1ULL << PREG_ES) | (1ULL << PREG_FS) | (1ULL << PREG_GS)))

/* What the samples of one event carry (its perf_event_attr's fields). */
struct perf_sample_format {
	uint64_t sample_type;		/* PERF_SAMPLE_* */
	uint64_t regs_user;		/* sample_regs_user */
	/* sample_id_all: records other than samples end with a struct
	 * sample_id (the TID, TIME, ID, STREAM_ID, CPU and IDENTIFIER
	 * fields of sample_type, in that order). */
	bool sample_id_all;
};

/* The PERF_SAMPLE_* bits perf_sample_parse() knows; others are refused
 * when the event is set up (perf_sample_format_ok()). */
bool perf_sample_format_ok(const struct perf_sample_format *f);

struct perf_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;			/* IDENTIFIER or ID */
	uint32_t cpu;
	uint64_t period;
	uint64_t nr_ips;		/* CALLCHAIN: context markers included */
	const uint8_t *ips;		/* nr_ips u64s, unaligned (memcpy them) */
	uint32_t raw_size;		/* RAW: bytes, padding included */
	const uint8_t *raw;
	uint64_t regs_abi;		/* REGS_USER: PERF_SAMPLE_REGS_ABI_*, 0: none */
	uint64_t regs[PREG_COUNT];	/* the registers in regs_user, by enum perf_reg_x86 */
	uint64_t stack_size;		/* STACK_USER: bytes copied ... */
	uint64_t stack_dyn_size;	/* ... of which valid */
	const uint8_t *stack;
	uint64_t weight;		/* WEIGHT, or WEIGHT_STRUCT's whole u64 */
	uint32_t weight_var1;		/* WEIGHT_STRUCT: var1_dw (PEBS: load latency) */
	uint16_t weight_var2;		/* var2_w (instruction latency) */
	uint16_t weight_var3;
	uint64_t data_src;		/* DATA_SRC: union perf_mem_data_src */
};

/* A PERF_RECORD_SAMPLE (header included) of len bytes: 0, or -1 if it is
 * shorter than its fields say. */
int perf_sample_parse(const struct perf_sample_format *f, const void *rec, size_t len,
		      struct perf_sample *s);

/* The other records sample mode reads. */
struct perf_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	bool has_build_id;		/* PERF_RECORD_MISC_MMAP_BUILD_ID: no maj/min/ino */
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot, flags;
	const char *filename;		/* NUL-terminated within the record */
};

struct perf_comm {
	uint32_t pid, tid;
	bool exec;			/* PERF_RECORD_MISC_COMM_EXEC */
	const char *comm;
};

struct perf_task {			/* PERF_RECORD_EXIT, PERF_RECORD_FORK */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct perf_lost {			/* PERF_RECORD_LOST, PERF_RECORD_LOST_SAMPLES */
	uint64_t lost;
	bool has_id;			/* its sample_id gave pid, tid and time */
	uint32_t pid, tid;
	uint64_t time;
};

struct perf_throttle {			/* PERF_RECORD_THROTTLE, UNTHROTTLE */
	uint64_t time;
};

int perf_mmap2_parse(const void *rec, size_t len, struct perf_mmap2 *m);
int perf_comm_parse(const void *rec, size_t len, struct perf_comm *c);
int perf_task_parse(const void *rec, size_t len, struct perf_task *t);
/* f: the event's format, for the sample_id that ends the record with
 * sample_id_all (NULL: none); a record too short for it is refused. */
int perf_lost_parse(const struct perf_sample_format *f, const void *rec, size_t len,
		    struct perf_lost *l);
int perf_throttle_parse(const void *rec, size_t len, struct perf_throttle *t);

/*
 * A lost-samples record read from the buffer of thread tid (process pid),
 * as the ring record the sampler pushes (tracer.h struct trace_lost_rec):
 * the samples lost are that thread's, whoever ran when the kernel wrote
 * the record; the time is the record's own when its sample_id has one,
 * else time (the sampler's: that of the thread's last sample before it).
 * 0, or -1 if the record does not parse or counts nothing.
 */
struct trace_lost_rec;
int perf_lost_trec(const struct perf_sample_format *f, const void *rec, size_t len,
		   int32_t pid, int32_t tid, uint64_t time, struct trace_lost_rec *out);

/*
 * An AMD IBS op sample's raw block (PERF_SAMPLE_RAW of the ibs_op PMU):
 * a u32 of IBS capabilities, then the MSRs IbsOpCtl, IbsOpRip, IbsOpData,
 * IbsOpData2, IbsOpData3, IbsDcLinAd, IbsDcPhysAd (then IbsBrTarget and
 * IbsOpData4 where the capabilities say so).
 */
struct ibs_op_sample {
	uint32_t caps;
	uint64_t op_ctl, op_rip, op_data, op_data2, op_data3, dc_lin_ad, dc_phys_ad;
	bool valid;			/* IbsOpCtl: IbsOpEn and IbsOpVal set */
	bool rip_valid;			/* IbsOpData bit 38 (IbsRipInvalid) clear */
	bool load, store;		/* IbsOpData3 bits 0, 1 */
	bool dc_miss;			/* bit 7 */
	bool lin_addr_valid;		/* bit 17: dc_lin_ad holds the data address */
	bool phys_addr_valid;		/* bit 18 */
	unsigned mem_width;		/* bits 22-25, decoded: bytes (0: not a load/store) */
	uint32_t dc_miss_latency;	/* bits 32-47: cycles, for a load that missed */
	uint32_t tag_to_retire;		/* IbsOpData bits 16-31: cycles */
};

/* 0, or -1 if the block is too short to hold the seven MSRs. */
int ibs_op_decode(const uint8_t *raw, size_t size, struct ibs_op_sample *o);

#endif /* MICAD_PERF_RECORD_H */
