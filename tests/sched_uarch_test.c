/*
 * The corrected scheduling model (sched_uarch.h) on small blocks whose
 * throughput follows by hand from the rules it implements (Skylake:
 * 4-wide rename, loads on ports 2 and 3, one store per cycle, 16-byte
 * predecode windows of at most 5 instructions, 4-cycle pointer-chasing
 * loads), each next to what LLVM's plain model (sched_run) says where
 * the correction is the point.  Prints TAP.
 */
#include "config.h"

#include <math.h>

#include "decoder.h"
#include "sched_map.h"
#include "sched_pipeline.h"
#include "sched_uarch.h"
#include "tap.h"
#include "util.h"

struct blk {
	unsigned n;
	struct sched_insn si[32];
	struct ua_insn ui[32];
};

static const struct sched_model *skl;
static const struct sched_uarch *skl_ua;
static struct ua_ports skl_pt;

static int
build(const char *hex, struct blk *b)
{
	uint8_t bytes[256];
	size_t n = 0;

	for (const char *p = hex; p[0] && p[1]; p += 2)
		bytes[n++] = (uint8_t)(hex_digit(p[0]) << 4 | hex_digit(p[1]));
	b->n = 0;
	for (size_t off = 0; off < n && b->n < 32;) {
		struct insn_info ii;
		struct sched_mapping m;

		if (insn_decode(bytes + off, n - off, off, &ii) < 0 ||
		    sched_map(bytes + off, n - off, &m) < 0 ||
		    sched_insn_init(skl, &ii, &m, &b->si[b->n]) < 0)
			return -1;
		ua_insn_build(skl, skl_ua, &skl_pt, &ii, &m, &b->si[b->n], &b->ui[b->n]);
		b->n++;
		off += ii.len;
	}
	return 0;
}

/* Steady-state cycles per iteration; total fused uops in *uops. */
static double
corrected(const char *hex, enum ua_tp_mode mode, uint64_t *uops)
{
	struct blk b;
	struct sched_params p = { .iterations = 200 };
	struct sched_result r;
	double tp;

	if (build(hex, &b) < 0 || ua_run_block(skl, skl_ua, &p, mode, b.ui, b.n, &r) < 0)
		return -1;
	tp = r.throughput;
	if (uops)
		*uops = r.total_uops;
	sched_result_free(&r);
	return tp;
}

static double
plain(const char *hex)
{
	struct blk b;
	struct sched_params p = { .iterations = 200, .noalias = true };
	struct sched_result r;
	double tp;

	if (build(hex, &b) < 0 || sched_run(skl, &p, b.si, b.n, &r) < 0)
		return -1;
	tp = r.throughput;
	sched_result_free(&r);
	return tp;
}

#define is_tp(got, want, ...) do { \
	double g_ = (got), w_ = (want); \
	if (!ok(fabs(g_ - w_) < 0.015, __VA_ARGS__)) \
		diag("  got %.3f cycles/iteration, want %.3f", g_, w_); \
} while (0)

int
main(void)
{
	struct blk b;
	uint64_t uops = 0;

	skl = sched_model_find("skylake");
	skl_ua = sched_uarch_find("skylake");
	if (!skl || !skl_ua || ua_ports_init(skl, skl_ua, &skl_pt) < 0) {
		ok(0, "skylake model and uarch");
		return 1;
	}

	/* imul %rax,%rax: a 3-cycle chain. */
	is_tp(corrected("480fafc0", UA_TP_UNROLLED, NULL), 3.0, "imul chain: 3 cycles");
	/* Four independent add $1,%r (16 bytes): 4 fused uops, one 16-byte
	 * window, four decoders: 1 cycle. */
	is_tp(corrected("4883c0014883c3014883c1014883c201", UA_TP_UNROLLED, NULL), 1.0,
	      "four independent adds: rename width 4 -> 1 cycle");
	/* mov %rax,%rbx; mov %rbx,%rax: eliminated moves, no latency; 2 slots
	 * = 0.5 cycle (predecode: 8 iterations in 3 windows taking 1+1+2
	 * cycles, also 0.5).  LLVM's model chains two 1-cycle moves. */
	is_tp(corrected("4889c34889d8", UA_TP_UNROLLED, NULL), 0.5, "move elimination: 0.5 cycle");
	is_tp(plain("4889c34889d8"), 2.0, "LLVM's model: 2 cycles (no move elimination)");
	/* xor %eax,%eax; imul %rax,%rax: the zero idiom breaks the chain;
	 * one imul per cycle on port 1. */
	is_tp(corrected("31c0480fafc0", UA_TP_UNROLLED, NULL), 1.0,
	      "zero idiom breaks the imul chain: 1 cycle (port 1)");
	/* Five pops: the stack engine updates RSP, five loads on two ports. */
	is_tp(corrected("585b595a5e", UA_TP_UNROLLED, NULL), 2.5, "five pops: 2.5 cycles (2 loads/cycle)");
	ok(plain("585b595a5e") >= 5.0, "LLVM's model chains the pops through RSP (%.2f >= 5)",
	   plain("585b595a5e"));
	/* push %rbx; mov %rsp,%rax: the explicit read of RSP after a push
	 * needs a sync uop: 3 fused uops per iteration. */
	corrected("534889e0", UA_TP_UNROLLED, &uops);
	is_u64(uops, 3 * 200, "push + mov %%rsp: a stack-sync uop (3 fused uops per iteration)");
	/* movabs $imm64,%rax (10 bytes): instruction ends per 16-byte window
	 * 1,2,1,2,2 over 80 bytes: 5 cycles for 8 -> 0.625; as a loop from
	 * the uop cache a taken branch ends each delivery: 1 cycle. */
	is_tp(corrected("48b88877665544332211", UA_TP_UNROLLED, NULL), 0.625,
	      "10-byte instructions: 16-byte predecode windows -> 0.625 cycle");
	is_tp(corrected("48b88877665544332211", UA_TP_LOOP, NULL), 1.0,
	      "the same as a loop: one uop-cache delivery per iteration -> 1 cycle");
	/* addw $0x1234,%ax: a length-changing prefix stalls predecode 3
	 * cycles per instruction: 4 per window -> 1 + 12 cycles per 4. */
	is_tp(corrected("66053412", UA_TP_UNROLLED, NULL), 3.25, "LCP stalls: 3.25 cycles");
	/* dec %rcx; jne back: macro-fused into one uop. */
	corrected("48ffc975fb", UA_TP_LOOP, &uops);
	is_u64(uops, 200, "dec + jne macro-fuse: one fused uop per iteration");
	/* mov %rax,8(%rsp); mov 8(%rsp),%rax: the load takes the stored data
	 * (dispatch with the store data) and needs 5 cycles: a 5-cycle chain. */
	is_tp(corrected("4889442408488b442408", UA_TP_UNROLLED, NULL), 5.0,
	      "store-to-load forwarding chain: 5 cycles");
	/* mov (%rax),%rax: pointer chasing, 4-cycle loads; with an index the
	 * load takes 5. */
	is_tp(corrected("488b00", UA_TP_UNROLLED, NULL), 4.0, "pointer chasing: 4 cycles");
	is_tp(corrected("488b0418", UA_TP_UNROLLED, NULL), 5.0, "indexed pointer chasing: 5 cycles");

	/* Instruction records. */
	if (build("48030418", &b) == 0)	/* add (%rax,%rbx),%rax */
		ok(b.ui[0].fused == 1 && b.ui[0].unlaminated == 0 && b.ui[0].n_load == 1 &&
		   b.ui[0].n_op == 1, "add (%%rax,%%rbx),%%rax: load+op micro-fused, stays fused");
	if (build("c5f0580418", &b) == 0)	/* vaddps (%rax,%rbx),%xmm1,%xmm0 */
		ok(b.ui[0].fused == 1 && b.ui[0].unlaminated == 1,
		   "vaddps (%%rax,%%rbx),%%xmm1,%%xmm0: three operands, unlaminated");
	if (build("48890418", &b) == 0)	/* mov %rax,(%rax,%rbx) */
		ok(b.ui[0].fused == 1 && b.ui[0].n_sta == 1 && b.ui[0].n_std == 1 &&
		   !(b.ui[0].uops[0].ports & b.ui[0].uops[1].ports & (1u << 7)),
		   "indexed store: fused, its address uop not on port 7");
	if (build("488d4c1808", &b) == 0)	/* lea 8(%rax,%rbx),%rcx */
		ok((b.ui[0].flags & UA_SLOW_LEA) && b.ui[0].op_lat == 3 &&
		   b.ui[0].uops[0].ports == 1u << 1, "three-component LEA: 3 cycles on port 1");
	if (build("53", &b) == 0)	/* push %rbx */
		ok(b.ui[0].n_uops == 2 && b.ui[0].fused == 1 && b.ui[0].stack_delta == -8,
		   "push: store address + data, no RSP uop, one fused uop");
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
