/*
 * Unit tests of the simulated MGSim counters (analyzers/mgsim/mgsim.h) and the
 * cache model (analyzers/mgsim/cache_sim.h): every counter on small event
 * streams built by decoding real instruction bytes, with the expected
 * values worked out by hand in the comments; the caches (hits, misses,
 * evictions, line-crossing accesses, write-through versus write-back, the
 * L2 and memory traffic); the packed date and time words with the worked
 * examples of mgsim-counters.md §2 and at every hour, minute, second, day,
 * month and year boundary against the bit layout; the MMIO decode rules (§3); the derived
 * columns and monitoring variables (§5); the invariants (§4.2).
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "decoder.h"
#include "mgsim/cache_sim.h"
#include "mgsim/mgsim.h"
#include "tap.h"

/* ---- building events ---- */

#define POOL 64
static struct insn_info pool[POOL];
static unsigned npool;

static const struct insn_info *
decode_at(const char *hex, uint64_t pc)
{
	uint8_t b[16];
	int n = 0;
	unsigned v;

	while (*hex) {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		if (sscanf(hex, "%2x", &v) != 1 || n == 16)
			abort();
		b[n++] = (uint8_t)v;
		hex += 2;
	}
	if (npool == POOL)
		npool = 0;
	if (insn_decode(b, (size_t)n, pc, &pool[npool]) < 0) {
		diag("cannot decode %s", hex);
		abort();
	}
	return &pool[npool++];
}

static struct user_regs_struct regs;
static uint32_t cur_tid = 1;

/* One instruction at pc, with the registers in regs. */
static void
step(struct mgsim *m, const char *hex, uint64_t pc)
{
	const struct insn_info *ii = decode_at(hex, pc);
	struct insn_event ev;

	insn_eval(ii, &regs, NULL, cur_tid, &ev);
	if (ev.flags & EV_NEXT_UNKNOWN)
		ev.next_pc = pc + ii->len;
	ev.flags &= (uint16_t)~EV_NEXT_UNKNOWN;
	mgsim_event(m, &ev);
}

/*
 * A REP string instruction run for `iters` iterations from count rcx =
 * count (iters <= count; 0 for a zero count: one phantom event), the way
 * the tracer reports it: EV_REP_FIRST on the first event, next_pc = pc
 * until the last.  rsi/rdi advance by `size` when adv_si/adv_di.
 */
static void
rep_run(struct mgsim *m, const char *hex, uint64_t pc, uint64_t count, unsigned iters,
	unsigned size, bool adv_si, bool adv_di, bool last_done)
{
	const struct insn_info *ii = decode_at(hex, pc);
	struct insn_event ev;

	regs.rcx = count;
	if (count == 0) {
		insn_eval(ii, &regs, NULL, cur_tid, &ev);
		ev.flags |= EV_REP_FIRST;
		ev.next_pc = pc + ii->len;
		mgsim_event(m, &ev);
		return;
	}
	for (unsigned k = 0; k < iters; k++) {
		insn_eval(ii, &regs, NULL, cur_tid, &ev);
		if (k == 0)
			ev.flags |= EV_REP_FIRST;
		ev.flags &= (uint16_t)~EV_NEXT_UNKNOWN;
		ev.next_pc = (k + 1 == iters && last_done) ? pc + ii->len : pc;
		mgsim_event(m, &ev);
		regs.rcx--;
		if (adv_si)
			regs.rsi += size;
		if (adv_di)
			regs.rdi += size;
	}
}

static struct mgsim *
new_model(const struct mgsim_config *c)
{
	char err[256];
	struct mgsim *m = mgsim_new(c, err, sizeof(err));

	if (!m) {
		diag("mgsim_new: %s", err);
		abort();
	}
	memset(&regs, 0, sizeof(regs));
	cur_tid = 1;
	return m;
}

static void
sample(const struct mgsim *m, uint64_t v[MGSIM_NUM_COUNTERS])
{
	mgsim_sample(m, v);
}

static void
check_invariants(const uint64_t *before, const uint64_t *after, const struct mgsim *m,
		 const char *what)
{
	char err[256];
	struct mgsim_status st;
	int n;

	mgsim_get_status(m, &st);
	n = mgsim_check(before, after, mgsim_get_config(m), st.max_live_tasks, err, sizeof(err));
	if (!ok(n == 0, "%s: the §4.2 invariants hold", what))
		diag("  %d violation(s): %s", n, err);
}

/* ---- the counters ---- */

static void
test_counter_info(void)
{
	static const char *const names[MGSIM_NUM_COUNTERS] = {
		"clocks", "n_exec_insns", "n_issued_flops", "n_compl_core_loads",
		"n_compl_core_stores", "n_bytes_l1tocore", "n_bytes_coretol1", "n_reqs_l2tol1",
		"n_reqs_l1tol2", "notused1", "tt_total", "ft_total", "xq_total", "notused2",
		"notused3", "notused4", "n_cl_loads_ext", "n_cl_stores_ext", "n_cr_threads",
		"n_cr_families", "core_clocks",
	};
	unsigned bad = 0, noncum = 0;

	for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++) {
		const struct mgsim_counter_info *ci = mgsim_counter_info(i);

		if (!ci || strcmp(ci->name, names[i]) || mgsim_counter_index(names[i]) != (int)i ||
		    !ci->macro || !ci->unit || !ci->scope || !ci->kind || !ci->how)
			bad++;
		if (!ci->cumulative)
			noncum |= 1u << i;
	}
	is_u64(bad, 0, "the 21 counters carry slcore's names, in order, with descriptions");
	is_u64(noncum, (1u << 9) | (1u << 13) | (1u << 14) | (1u << 15),
	       "non-cumulative: 9 and the clock readings 13-15");
	ok(mgsim_counter_info(21) == NULL && mgsim_counter_index("bogus") == -1,
	   "no counter 21, no counter 'bogus'");
	is_str(mgsim_counter_info(7)->macro, "L2_LOADS", "counter 7 is slcore's L2_LOADS");
}

/*
 * One thread, every kind of instruction.  No L2, write-through L1D, R = 2
 * (master 2000 MHz, core 1000 MHz), memory latency 100: an event costs 1
 * core cycle + 100 per L1 miss.  Running totals in the comments.
 */
static void
test_counters(void)
{
	struct mgsim_config c;
	struct mgsim *m;
	uint64_t v[MGSIM_NUM_COUNTERS], v1[MGSIM_NUM_COUNTERS];

	mgsim_config_default(&c);
	c.has_l2 = false;
	c.master_mhz = 2000;
	c.mem_latency = 100;
	m = new_model(&c);
	mgsim_task_start(m, 1, 1);
	regs.rbx = 0x10000;
	regs.rsi = 0x20000;
	regs.rdi = 0x30000;

	/* mov rax,[rbx]: L1I miss (line 0x40) + L1D miss (line 0x400):
	 * c7 = 2, 1 + 2 x 100 = 201 cycles. */
	step(m, "48 8b 03", 0x1000);
	sample(m, v1);
	is_u64(v1[MGSIM_CORE_CLOCKS], 201, "mov rax,[rbx]: 1 + 2 misses x 100 = 201 core cycles");
	is_u64(v1[MGSIM_CLOCKS], 402, "counter 0 = 201 x R (2)");
	is_u64(v1[MGSIM_L2_LOADS], 2, "an L1I miss and an L1D miss: counter 7 = 2");
	is_u64(v1[MGSIM_LOADS], 1, "one load");
	is_u64(v1[MGSIM_LOAD_BYTES], 8, "8 bytes loaded");

	step(m, "48 89 03", 0x1003);		/* mov [rbx],rax: c8 1, 202 */
	step(m, "48 01 03", 0x1006);		/* add [rbx],rax: RMW, c8 2, 203 */
	sample(m, v);
	is_u64(v[MGSIM_LOADS], 2, "add [m],r (RMW) counts one load ...");
	is_u64(v[MGSIM_STORES], 2, "... and one store");
	is_u64(v[MGSIM_STORE_BYTES], 16, "8 + 8 bytes stored");
	is_u64(v[MGSIM_L2_STORES], 2, "write-through: one line write per store");
	is_u64(v[MGSIM_L2_LOADS], 2, "write-through stores and the hitting RMW read fetch nothing");
	check_invariants(v1, v, m, "after 3 events");

	step(m, "f2 0f 58 c1", 0x1009);		/* addsd: FP 1 */
	step(m, "f2 0f 5d c1", 0x100d);		/* minsd: not FP */
	step(m, "66 0f 2f c1", 0x1011);		/* comisd: not FP */
	step(m, "c4 e2 f1 a9 c2", 0x1015);	/* vfmadd213sd: FP 2 */
	step(m, "0f 18 0b", 0x101a);		/* prefetcht0 [rbx]: no load */
	step(m, "48 8d 04 0b", 0x101d);		/* lea: no access */
	sample(m, v);
	is_u64(v[MGSIM_ISSUED_FLOPS], 2, "addsd and vfmadd213sd count, minsd and comisd do not");
	is_u64(v[MGSIM_LOADS], 2, "prefetch and lea are not loads");
	is_u64(v[MGSIM_EXEC_INSNS], 9, "9 instructions");
	is_u64(v[MGSIM_CORE_CLOCKS], 209, "209 cycles (no new miss)");

	/* rep movsb, rcx = 3: per iteration a load and a store; the source
	 * line 0x800 misses once (+100), each store is a line write. */
	rep_run(m, "f3 a4", 0x1021, 3, 3, 1, true, true, true);
	sample(m, v);
	is_u64(v[MGSIM_EXEC_INSNS], 10, "rep movsb x3 counts one instruction");
	is_u64(v[MGSIM_LOADS], 5, "... three loads (one per iteration)");
	is_u64(v[MGSIM_STORES], 5, "... three stores");
	is_u64(v[MGSIM_LOAD_BYTES], 19, "... 3 bytes loaded");
	is_u64(v[MGSIM_L2_STORES], 5, "... three line writes");
	is_u64(v[MGSIM_L2_LOADS], 3, "... one line fill");
	is_u64(v[MGSIM_CORE_CLOCKS], 312, "... 3 + 100 cycles");

	rep_run(m, "f3 a4", 0x1023, 0, 0, 1, true, true, true);	/* zero count */
	sample(m, v);
	is_u64(v[MGSIM_EXEC_INSNS], 11, "a zero-count rep movsb retires: one instruction");
	is_u64(v[MGSIM_LOADS], 5, "... and loads nothing (phantom accesses)");
	is_u64(v[MGSIM_STORES], 5, "... and stores nothing");

	step(m, "0f 05", 0x1025);		/* syscall: 1 */
	step(m, "f2 0f 51 c1", 0x1027);		/* sqrtsd: FP 3 */
	step(m, "d8 c1", 0x102b);		/* fadd st0,st1: FP 4 */
	step(m, "66 0f 3a 41 c1 ff", 0x102d);	/* dppd: FP 5 */
	step(m, "0f 53 c1", 0x1033);		/* rcpps: excluded */
	step(m, "f3 0f 5a c1", 0x1036);		/* cvtss2sd: excluded */
	step(m, "0f 54 c1", 0x103a);		/* andps: excluded */
	sample(m, v);
	is_u64(v[MGSIM_ISSUED_FLOPS], 5, "sqrtsd, fadd, dppd count; rcpps, cvtss2sd, andps do not");
	is_u64(v[MGSIM_EXEC_INSNS], 18, "syscall counts 1: 18 instructions");
	is_u64(v[MGSIM_CORE_CLOCKS], 320, "320 cycles");

	/* vaddps zmm at 0x103d, 6 bytes: its last byte is in line 0x41. */
	step(m, "62 f1 7c 48 58 c1", 0x103d);
	sample(m, v);
	is_u64(v[MGSIM_ISSUED_FLOPS], 6, "vaddps zmm counts once (not per lane)");
	is_u64(v[MGSIM_L2_LOADS], 4, "an instruction across two lines: the second line is fetched");
	is_u64(v[MGSIM_CORE_CLOCKS], 421, "... 1 + 100 cycles");

	/* An 8-byte access at 0x1003c spans lines 0x400 (cached) and 0x401. */
	regs.rbx = 0x1003c;
	step(m, "48 8b 03", 0x1043);
	sample(m, v);
	is_u64(v[MGSIM_L2_LOADS], 5, "a line-crossing load misses in its second line only");
	is_u64(v[MGSIM_LOADS], 6, "... it is one load");
	is_u64(v[MGSIM_LOAD_BYTES], 27, "... of its full 8 bytes");
	step(m, "48 89 03", 0x1046);
	sample(m, v);
	is_u64(v[MGSIM_L2_STORES], 7, "a line-crossing write-through store writes 2 lines");
	is_u64(v[MGSIM_STORES], 6, "... and is one store");

	regs.rax = 0x50000;
	step(m, "48 0f c3 18", 0x1049);		/* movnti [rax],rbx */
	sample(m, v);
	is_u64(v[MGSIM_L2_STORES], 8, "movnti: one line write");
	is_u64(v[MGSIM_STORES], 7, "movnti is a store");
	is_u64(v[MGSIM_STORE_BYTES], 35, "... of 8 bytes");

	step(m, "0f ae 3b", 0x104d);		/* clflush [rbx]: line 0x400 */
	sample(m, v);
	is_u64(v[MGSIM_LOADS], 6, "clflush is not a load");
	step(m, "48 8b 03", 0x1050);		/* line 0x400 misses again */
	sample(m, v);
	is_u64(v[MGSIM_L2_LOADS], 6, "after clflush the line is fetched again");

	/* The whole stream: 24 instructions, 626 core cycles. */
	is_u64(v[MGSIM_EXEC_INSNS], 24, "total: 24 instructions");
	is_u64(v[MGSIM_CORE_CLOCKS], 626, "total: 626 core cycles");
	is_u64(v[MGSIM_CLOCKS], 1252, "total: 1252 master cycles (R = 2)");
	is_u64(v[MGSIM_LOADS], 7, "total: 7 loads");
	is_u64(v[MGSIM_STORES], 7, "total: 7 stores");
	is_u64(v[MGSIM_LOAD_BYTES], 35, "total: 35 bytes loaded");
	is_u64(v[MGSIM_STORE_BYTES], 35, "total: 35 bytes stored");
	is_u64(v[MGSIM_PLACE_SIZE], 1, "counter 9: one core");
	is_u64(v[MGSIM_TT_TOTAL], 1252, "counter 10: 1 task x 1252 master cycles");
	is_u64(v[MGSIM_FT_TOTAL], 1252, "counter 11: 1 family x 1252 master cycles");
	is_u64(v[MGSIM_XQ_TOTAL], 0, "counter 12: nobody waited");
	is_u64(v[MGSIM_EXT_LOADS], v[MGSIM_L2_LOADS], "no L2: counter 16 == counter 7");
	is_u64(v[MGSIM_EXT_STORES], v[MGSIM_L2_STORES], "no L2: counter 17 == counter 8");
	is_u64(v[MGSIM_CR_THREADS], 1, "counter 18: the first task counts");
	is_u64(v[MGSIM_CR_FAMILIES], 0, "counter 19: the first process does not");
	ok(v[MGSIM_UNIX_CTIME] == 0 && v[MGSIM_UNIX_DATE] == 0 && v[MGSIM_UNIX_TIME] == 0,
	   "mgsim_sample leaves the clock counters to the caller");
	check_invariants(v1, v, m, "whole stream");
	mgsim_free(m);
}

/* A REP interrupted by a signal handler and resumed: counted once, when
 * it completes. */
static void
test_rep_interrupted(void)
{
	struct mgsim_config c;
	struct mgsim *m;
	uint64_t v[MGSIM_NUM_COUNTERS];

	mgsim_config_default(&c);
	m = new_model(&c);
	mgsim_task_start(m, 1, 1);
	regs.rsi = 0x20000;
	regs.rdi = 0x30000;
	rep_run(m, "f3 a4", 0x1000, 4, 2, 1, true, true, false);	/* 2 of 4, interrupted */
	step(m, "90", 0x2000);					/* the handler */
	rep_run(m, "f3 a4", 0x1000, 2, 2, 1, true, true, true);	/* resumed: 2 more */
	sample(m, v);
	is_u64(v[MGSIM_EXEC_INSNS], 2, "interrupted rep movsb counts once, the handler's nop once");
	is_u64(v[MGSIM_LOADS], 4, "... four iterations, four loads");
	/* A REPE CMPSB that stops on a mismatch after 2 of 5: the last
	 * event's next_pc moves on. */
	regs.rsi = 0x20000;
	regs.rdi = 0x30000;
	rep_run(m, "f3 a6", 0x1002, 5, 2, 1, true, true, true);
	sample(m, v);
	is_u64(v[MGSIM_EXEC_INSNS], 3, "repe cmpsb stopping early counts once");
	is_u64(v[MGSIM_LOADS], 6, "... one load per iteration (two reads each)");
	is_u64(v[MGSIM_LOAD_BYTES], 8, "... both reads' bytes: 4 + 2 x 2");
	mgsim_free(m);
}

/* The same accesses through a write-through and a write-back L1D of 2
 * sets x 1 way (lines 0 and 2 share set 0), no L2. */
static void
test_write_policy(void)
{
	for (int pol = MGSIM_WRITE_THROUGH; pol <= MGSIM_WRITE_BACK; pol++) {
		const char *name = pol == MGSIM_WRITE_BACK ? "write-back" : "write-through";
		struct mgsim_config c;
		struct mgsim *m;
		uint64_t v[MGSIM_NUM_COUNTERS];
		const struct cache_stats *st;

		mgsim_config_default(&c);
		c.has_l2 = false;
		c.l1d = (struct cache_config){ 128, 1, 64 };
		c.l1d_policy = pol;
		m = new_model(&c);
		mgsim_task_start(m, 1, 1);
		regs.rbx = 0;
		step(m, "48 89 03", 0x1000);	/* store A */
		step(m, "48 89 03", 0x1003);	/* store A */
		regs.rbx = 0x80;
		step(m, "48 8b 03", 0x1006);	/* load B (same set) */
		regs.rbx = 0;
		step(m, "48 8b 03", 0x1009);	/* load A */
		sample(m, v);
		st = cache_get_stats(mgsim_l1d(m));
		if (pol == MGSIM_WRITE_THROUGH) {
			/* fetch 1; stores: 2 line writes, no allocation;
			 * load B: fill; load A: fill (B evicted). */
			is_u64(v[MGSIM_L2_LOADS], 3, "%s: counter 7 = 1 fetch + 2 read misses", name);
			is_u64(v[MGSIM_L2_STORES], 2, "%s: counter 8 = one per store", name);
			ok(st->misses == 4 && st->hits == 0 && st->fills == 2 && st->evictions == 1 &&
			   st->dirty_evictions == 0,
			   "%s: L1D 4 misses, 2 fills, 1 clean eviction", name);
		} else {
			/* store A: write-allocate fill; store A: hit; load B:
			 * fill, evicts dirty A (1 write-back); load A: fill. */
			is_u64(v[MGSIM_L2_LOADS], 4, "%s: counter 7 = 1 fetch + 3 fills", name);
			is_u64(v[MGSIM_L2_STORES], 1, "%s: counter 8 = the one dirty eviction", name);
			ok(st->misses == 3 && st->hits == 1 && st->fills == 3 && st->evictions == 2 &&
			   st->dirty_evictions == 1,
			   "%s: L1D 3 misses, 1 hit, 3 fills, 2 evictions (1 dirty)", name);
		}
		is_u64(v[MGSIM_EXT_LOADS], v[MGSIM_L2_LOADS], "%s, no L2: 16 == 7", name);
		is_u64(v[MGSIM_EXT_STORES], v[MGSIM_L2_STORES], "%s, no L2: 17 == 8", name);
		is_u64(v[MGSIM_LOADS], 2, "%s: 2 loads", name);
		is_u64(v[MGSIM_STORES], 2, "%s: 2 stores", name);
		mgsim_free(m);
	}
}

/*
 * The L2 and memory: write-back L1D of one line, L2 of 2 sets x 1 way;
 * code in line 1 (L2 set 1), data A = line 0 and C = line 2 (L2 set 0).
 * L2 latency 10, memory 100.
 */
static void
test_l2(void)
{
	struct mgsim_config c;
	struct mgsim *m;
	uint64_t v[MGSIM_NUM_COUNTERS];

	mgsim_config_default(&c);
	c.l1d = (struct cache_config){ 64, 1, 64 };
	c.l2 = (struct cache_config){ 128, 1, 64 };
	c.l1d_policy = MGSIM_WRITE_BACK;
	c.l2_latency = 10;
	c.mem_latency = 100;
	m = new_model(&c);
	mgsim_task_start(m, 1, 1);
	/* store A: fetch misses L1I and L2 (16: 1); A misses L1D and L2
	 * (16: 2).  1 + 2 x 10 + 2 x 100 = 221 cycles. */
	regs.rbx = 0;
	step(m, "48 89 03", 0x40);
	sample(m, v);
	is_u64(v[MGSIM_CORE_CLOCKS], 221, "store A: 1 + 2 L1 misses x 10 + 2 memory fills x 100");
	/* load C: L1D miss (7: 3), L2 miss (16: 3) evicting clean A; the
	 * L1D evicts dirty A (8: 1): written into the L2 as a full line (no
	 * fetch), evicting clean C. */
	regs.rbx = 0x80;
	step(m, "48 8b 03", 0x43);
	/* load A: L1D miss (7: 4), L2 hit. */
	regs.rbx = 0;
	step(m, "48 8b 03", 0x46);
	/* load C: L1D miss (7: 5), L2 miss (16: 4) evicting dirty A (17: 1). */
	regs.rbx = 0x80;
	step(m, "48 8b 03", 0x49);
	sample(m, v);
	is_u64(v[MGSIM_L2_LOADS], 5, "L2: counter 7 = 5 L1 fills");
	is_u64(v[MGSIM_L2_STORES], 1, "L2: counter 8 = 1 L1D write-back");
	is_u64(v[MGSIM_EXT_LOADS], 4, "L2: counter 16 = 4 lines from memory");
	is_u64(v[MGSIM_EXT_STORES], 1, "L2: counter 17 = 1 dirty L2 eviction");
	is_u64(v[MGSIM_CORE_CLOCKS], 221 + 111 + 11 + 111, "L2: cycles 221 + 111 + 11 + 111");
	check_invariants(NULL, v, m, "with an L2");
	mgsim_free(m);
}

/* CLWB, CLFLUSH and a non-temporal store with a write-back L1D and an L2. */
static void
test_cache_ops(void)
{
	struct mgsim_config c;
	struct mgsim *m;
	uint64_t v[MGSIM_NUM_COUNTERS];

	mgsim_config_default(&c);
	c.l1d_policy = MGSIM_WRITE_BACK;
	m = new_model(&c);
	mgsim_task_start(m, 1, 1);
	regs.rbx = 0x10000;
	regs.rax = 0x10000;
	step(m, "48 89 03", 0x1000);		/* store A: 7: 2, 16: 2 (fetch + A) */
	step(m, "66 0f ae 33", 0x1003);		/* clwb: 8: 1 into L2, then 17: 1 */
	sample(m, v);
	is_u64(v[MGSIM_L2_STORES], 1, "clwb of a dirty L1D line: one line write to the L2");
	is_u64(v[MGSIM_EXT_STORES], 1, "... and the L2 writes it to memory");
	step(m, "48 8b 03", 0x1007);		/* load A: still cached */
	sample(m, v);
	is_u64(v[MGSIM_L2_LOADS], 2, "clwb keeps the line: the next load hits");
	step(m, "48 89 03", 0x100a);		/* store A: hit, dirty */
	step(m, "0f ae 3b", 0x100d);		/* clflush: 8: 2, 17: 2 */
	step(m, "48 8b 03", 0x1010);		/* load A: misses L1D and L2 */
	sample(m, v);
	is_u64(v[MGSIM_L2_STORES], 2, "clflush of a dirty line: a write-back");
	is_u64(v[MGSIM_EXT_STORES], 2, "... through the L2 to memory");
	is_u64(v[MGSIM_L2_LOADS], 3, "clflush drops the line from the L1D ...");
	is_u64(v[MGSIM_EXT_LOADS], 3, "... and from the L2");
	step(m, "48 0f c3 18", 0x1013);		/* movnti [rax]: around the caches */
	step(m, "48 8b 03", 0x1017);		/* load A: misses L1D and L2 again */
	sample(m, v);
	is_u64(v[MGSIM_L2_STORES], 3, "movnti: one L1 line write");
	is_u64(v[MGSIM_EXT_STORES], 3, "movnti: one line written to memory");
	is_u64(v[MGSIM_L2_LOADS], 4, "movnti drops the cached copy (L1D) ...");
	is_u64(v[MGSIM_EXT_LOADS], 4, "... and the L2's");
	is_u64(v[MGSIM_LOADS], 3, "clwb and clflush are neither loads ...");
	is_u64(v[MGSIM_STORES], 3, "... nor stores; movnti is a store");
	mgsim_free(m);
}

/* A cycle model that charges 1 per event, for round numbers. */
static uint64_t
one_per_event(void *arg, const struct insn_event *ev, const struct mgsim_event_cost *cost)
{
	unsigned *calls = arg;

	(void)ev;
	(void)cost;
	++*calls;
	return 1;
}

static void
nops(struct mgsim *m, int32_t tid, unsigned n)
{
	cur_tid = (uint32_t)tid;
	for (unsigned i = 0; i < n; i++)
		step(m, "90", 0x1000);
}

/*
 * Tasks, families and the integrals, 1 cycle per event:
 *   0: task 100 of process 100 starts      live 1 task, 1 family
 *  10: task 101 of process 100 starts      live 2, 1
 *  15: task 200 of process 200 (a fork)    live 3, 2
 *  20: 101 enters a futex wait
 *  30: 101 leaves it and exits             live 2, 2
 *  40: 200 exits                           live 1, 1
 * tt = 10x1 + 5x2 + 15x3 + 10x2 = 85; ft = 15x1 + 25x2 = 65; xq = 10x1.
 */
static void
test_tasks(unsigned ratio)
{
	struct mgsim_config c;
	struct mgsim *m;
	uint64_t v[MGSIM_NUM_COUNTERS], w[MGSIM_NUM_COUNTERS];
	unsigned calls = 0;
	struct mgsim_status st;

	mgsim_config_default(&c);
	c.master_mhz = 1000 * ratio;
	m = new_model(&c);
	mgsim_set_cycle_model(m, "test", one_per_event, &calls);
	is_str(mgsim_get_config(m)->cycle_model, "test", "the cycle model is named in the settings");
	mgsim_task_start(m, 100, 100);
	nops(m, 100, 10);
	mgsim_task_start(m, 100, 101);
	nops(m, 101, 5);
	mgsim_task_start(m, 200, 200);
	nops(m, 200, 5);
	mgsim_wait_begin(m, 101);
	mgsim_wait_begin(m, 101);		/* twice: ignored */
	nops(m, 100, 10);
	mgsim_wait_end(m, 101);
	mgsim_task_end(m, 101);
	nops(m, 200, 10);
	mgsim_task_end(m, 200);
	mgsim_task_end(m, 999);			/* unknown: ignored */
	sample(m, v);
	sample(m, w);
	is_u64(calls, 40, "R=%u: the custom cycle model saw every event", ratio);
	is_u64(v[MGSIM_CORE_CLOCKS], 40, "R=%u: 40 core cycles", ratio);
	is_u64(v[MGSIM_CLOCKS], 40 * ratio, "R=%u: counter 0 = 40 x R", ratio);
	is_u64(v[MGSIM_TT_TOTAL], 85 * ratio, "R=%u: counter 10 = 85 task-cycles x R", ratio);
	is_u64(v[MGSIM_FT_TOTAL], 65 * ratio, "R=%u: counter 11 = 65 family-cycles x R", ratio);
	is_u64(v[MGSIM_XQ_TOTAL], 10 * ratio, "R=%u: counter 12 = 10 waiting-cycles x R", ratio);
	is_u64(v[MGSIM_CR_THREADS], 3, "R=%u: counter 18 = 3 tasks", ratio);
	is_u64(v[MGSIM_CR_FAMILIES], 1, "R=%u: counter 19 = 1 (the fork; not the first process)",
	       ratio);
	ok(memcmp(v, w, sizeof(v)) == 0, "R=%u: a read changes nothing", ratio);
	nops(m, 100, 10);
	sample(m, w);
	is_u64(w[MGSIM_TT_TOTAL], 95 * ratio, "R=%u: 10 more cycles with 1 task: 95 x R", ratio);
	is_u64(w[MGSIM_FT_TOTAL], 75 * ratio, "R=%u: ... 75 x R family-cycles", ratio);
	mgsim_get_status(m, &st);
	ok(st.live_tasks == 1 && st.live_families == 1 && st.max_live_tasks == 3 &&
	   st.waiting_tasks == 0, "R=%u: 1 task and 1 family live, at most 3 tasks", ratio);
	check_invariants(v, w, m, "tasks");
	/* A tid reused without an exit ends the old task first. */
	mgsim_task_start(m, 100, 100);
	mgsim_get_status(m, &st);
	sample(m, w);
	ok(st.live_tasks == 1 && w[MGSIM_CR_THREADS] == 4,
	   "R=%u: a reused tid: still 1 live task, 4 created", ratio);
	mgsim_free(m);

	/* xq=off: waits are not tracked. */
	c.xq_mode = MGSIM_XQ_OFF;
	m = new_model(&c);
	mgsim_task_start(m, 1, 1);
	mgsim_task_start(m, 1, 2);
	mgsim_wait_begin(m, 2);
	nops(m, 1, 7);
	sample(m, v);
	is_u64(v[MGSIM_XQ_TOTAL], 0, "R=%u, xq=off: counter 12 stays 0", ratio);
	is_u64(v[MGSIM_TT_TOTAL], v[MGSIM_CLOCKS] * 2, "R=%u: 2 tasks x counter 0", ratio);
	mgsim_free(m);
}

/* Task tid's `syscall` (0F 05) asking for call nr with futex_op as its
 * second argument, as the tracer reports it: EV_SYSCALL, rax and rsi. */
static void
sys_event(struct mgsim *m, int32_t tid, uint64_t nr, uint64_t futex_op)
{
	const struct insn_info *ii = decode_at("0f 05", 0x2000);
	struct insn_event ev;

	cur_tid = (uint32_t)tid;
	insn_eval(ii, &regs, NULL, cur_tid, &ev);
	ev.flags &= (uint16_t)~EV_NEXT_UNKNOWN;
	ev.next_pc = 0x2002;
	ev.flags |= EV_SYSCALL;
	memset(&ev.sys, 0, sizeof(ev.sys));
	ev.sys.nr = nr;
	ev.sys.arg[0] = 0x404000;	/* uaddr */
	ev.sys.arg[1] = futex_op;
	mgsim_event(m, &ev);
}

/*
 * Counter 12 from syscall events, 1 core cycle per event (so the core
 * cycle after k events is k), tasks 1 and 2 of process 10 started at 0.
 * A wait-class event is charged (cycle at its start) - (cycle when its
 * task last ran or started), x R:
 *   1: 3 nops  0-3        2: 2 nops  3-5 (1 off from 3)
 *   1: 7 nops  5-12 (2 off from 5)
 *   2: FUTEX_WAIT_PRIVATE at 12: charged 12 - 5 = 7          12-13
 *   1: FUTEX_WAKE_PRIVATE at 13: not wait-class                13-14
 *   2: nop 14-15, FUTEX_WAIT at 15 right after its own nop: 0  15-16
 *   1: 4 nops 16-20 (1 off from 20)
 *   2: FUTEX_TRYLOCK_PI at 20: never blocks, 0                 20-21
 *   2: 3 nops 21-24
 *   1: futex_waitv at 24: charged 24 - 20 = 4                  24-25
 *   task 3 starts at 25; 1: 6 nops 25-31
 *   3: FUTEX_WAIT_BITSET|CLOCK_REALTIME at 31, its first event:
 *      charged 31 - 25 (its start) = 6                          31-32
 *   mgsim_wait_begin(2) at 32; 1: 5 nops 32-37; 2: FUTEX_WAIT at 37
 *      (already waiting by the hooks: not charged again) 37-38;
 *      mgsim_wait_end(2) at 38: the hooks charge 38 - 32 = 6
 *   99 (never started): FUTEX_WAIT at 38: unknown task, 0       38-39
 * Counter 12 = (7 + 4 + 6 + 6) x R = 23 x R; counter 0 = 39 x R;
 * xq_avg over the run = 23 / 39.
 */
static void
test_futex_events(unsigned ratio)
{
	struct mgsim_config c;
	struct mgsim *m;
	uint64_t v0[MGSIM_NUM_COUNTERS], v[MGSIM_NUM_COUNTERS];
	unsigned calls = 0;
	struct mgsim_status st;
	struct mgsim_derived d;

	mgsim_config_default(&c);
	c.master_mhz = 1000 * ratio;
	m = new_model(&c);
	mgsim_set_cycle_model(m, "test", one_per_event, &calls);
	mgsim_task_start(m, 10, 1);
	mgsim_task_start(m, 10, 2);
	sample(m, v0);
	nops(m, 1, 3);
	nops(m, 2, 2);
	nops(m, 1, 7);
	sample(m, v);
	is_u64(v[MGSIM_XQ_TOTAL], 0, "R=%u: during the wait counter 12 does not show it yet "
	       "(its syscall event has not come)", ratio);
	sys_event(m, 2, 202, 128);
	sample(m, v);
	is_u64(v[MGSIM_XQ_TOTAL], 7 * ratio, "R=%u: FUTEX_WAIT_PRIVATE of task 2 while task 1 "
	       "ran 7 cycles: 7 x R", ratio);
	sys_event(m, 1, 202, 129);
	nops(m, 2, 1);
	sys_event(m, 2, 202, 0);
	sample(m, v);
	is_u64(v[MGSIM_XQ_TOTAL], 7 * ratio, "R=%u: FUTEX_WAKE adds 0; a FUTEX_WAIT right after "
	       "the task's own event adds 0", ratio);
	nops(m, 1, 4);
	sys_event(m, 2, 202, 8);
	sample(m, v);
	is_u64(v[MGSIM_XQ_TOTAL], 7 * ratio, "R=%u: FUTEX_TRYLOCK_PI adds 0 (it never blocks)",
	       ratio);
	nops(m, 2, 3);
	sys_event(m, 1, 449, 0);
	sample(m, v);
	is_u64(v[MGSIM_XQ_TOTAL], 11 * ratio, "R=%u: futex_waitv of task 1, off since cycle 20, "
	       "at 24: + 4 x R", ratio);
	mgsim_task_start(m, 10, 3);
	nops(m, 1, 6);
	sys_event(m, 3, 202, 9 | 256);
	sample(m, v);
	is_u64(v[MGSIM_XQ_TOTAL], 17 * ratio, "R=%u: a wait as a task's first event counts from "
	       "its start: + 6 x R", ratio);
	mgsim_wait_begin(m, 2);
	nops(m, 1, 5);
	sys_event(m, 2, 202, 0);
	mgsim_wait_end(m, 2);
	sys_event(m, 99, 202, 0);
	sample(m, v);
	is_u64(v[MGSIM_XQ_TOTAL], 23 * ratio, "R=%u: a task waiting by the hooks is not charged "
	       "twice (+ 6 x R); an unknown task adds 0", ratio);
	is_u64(v[MGSIM_CLOCKS], 39 * ratio, "R=%u: counter 0 = 39 x R", ratio);
	is_u64(calls, 39, "R=%u: 39 events", ratio);
	mgsim_get_status(m, &st);
	is_u64(st.futex_waits, 3, "R=%u: 3 waits charged by their events", ratio);
	mgsim_derive(v0, v, &c, &d);
	ok(fabs(d.xq_avg - 23.0 / 39.0) < 1e-12, "R=%u: xq_avg = 23 / 39 (got %g)", ratio,
	   d.xq_avg);
	check_invariants(v0, v, m, "futex events");
	/* The waiter exits right after its wait: the charge stays. */
	mgsim_task_end(m, 2);
	sample(m, v);
	is_u64(v[MGSIM_XQ_TOTAL], 23 * ratio, "R=%u: the task's exit keeps its charge", ratio);
	mgsim_free(m);

	/* The same first wait with xq=off: 0. */
	c.xq_mode = MGSIM_XQ_OFF;
	m = new_model(&c);
	mgsim_set_cycle_model(m, "test", one_per_event, &calls);
	mgsim_task_start(m, 10, 1);
	mgsim_task_start(m, 10, 2);
	nops(m, 2, 2);
	nops(m, 1, 7);
	sys_event(m, 2, 202, 128);
	sample(m, v);
	is_u64(v[MGSIM_XQ_TOTAL], 0, "R=%u, xq=off: a futex wait adds nothing", ratio);
	mgsim_free(m);

	/* One task alone: its waits never see anything run, 0. */
	c.xq_mode = MGSIM_XQ_FUTEX;
	m = new_model(&c);
	mgsim_set_cycle_model(m, "test", one_per_event, &calls);
	mgsim_task_start(m, 10, 1);
	nops(m, 1, 5);
	sys_event(m, 1, 202, 0);
	nops(m, 1, 5);
	sys_event(m, 1, 449, 0);
	sample(m, v);
	is_u64(v[MGSIM_XQ_TOTAL], 0, "R=%u: a single task's futex waits: counter 12 = 0", ratio);
	is_u64(v[MGSIM_CLOCKS], 12 * ratio, "R=%u: ... while the clock ran 12 x R", ratio);
	mgsim_free(m);
}

static void
test_futex_class(void)
{
	ok(mgsim_futex_waits(202, 0), "futex FUTEX_WAIT is wait-class");
	ok(mgsim_futex_waits(202, 128), "futex FUTEX_WAIT_PRIVATE is wait-class");
	ok(mgsim_futex_waits(202, 9 | 128 | 256), "FUTEX_WAIT_BITSET|PRIVATE|CLOCK_REALTIME too");
	ok(mgsim_futex_waits(202, 6) && mgsim_futex_waits(202, 11) && mgsim_futex_waits(202, 13),
	   "FUTEX_LOCK_PI, FUTEX_WAIT_REQUEUE_PI, FUTEX_LOCK_PI2 too");
	ok(mgsim_futex_waits(449, 0), "futex_waitv too");
	ok(!mgsim_futex_waits(202, 1) && !mgsim_futex_waits(202, 129) &&
	   !mgsim_futex_waits(202, 12) && !mgsim_futex_waits(0, 0),
	   "FUTEX_WAKE, FUTEX_CMP_REQUEUE_PI and read(2) are not");
	ok(!mgsim_futex_waits(202, 8) && !mgsim_futex_waits(202, 8 | 128),
	   "FUTEX_TRYLOCK_PI is not (it never blocks)");
	ok(mgsim_futex_waits(202, 0xffffff00u | 128 | 6), "the op is masked with FUTEX_CMD_MASK");
}

/* ---- the cache model on its own ---- */

static void
test_cache_sim(void)
{
	struct cache_config cc = { 256, 2, 64 };	/* 2 sets x 2 ways */
	char err[128];
	struct cache *c = cache_new(&cc);
	uint64_t victim = 0;
	bool vd = false, d;
	const struct cache_stats *st;

	ok(c != NULL, "cache 256 B, 2-way, 64-byte lines");
	is_u64(cache_line_of(c, 0x1234), 0x48, "line of 0x1234 is 0x48");
	ok(!cache_access(c, 0, false), "line 0: miss");
	ok(!cache_fill(c, 0, false, &victim, &vd), "fill line 0: nothing replaced");
	ok(!cache_access(c, 2, false) && !cache_fill(c, 2, true, &victim, &vd),
	   "line 2 (same set): miss, filled dirty, nothing replaced");
	ok(cache_access(c, 0, false), "line 0: hit (now the most recent)");
	ok(!cache_access(c, 4, false), "line 4: miss");
	ok(cache_fill(c, 4, false, &victim, &vd) && victim == 2 && vd,
	   "fill line 4 replaces the least recently used, dirty line 2");
	ok(cache_probe(c, 0, &d) && !d && !cache_probe(c, 2, NULL) && cache_probe(c, 4, NULL),
	   "set 0 now holds lines 0 and 4");
	ok(!cache_access(c, 1, false) && !cache_fill(c, 1, false, NULL, NULL) &&
	   cache_access(c, 1, true) && cache_probe(c, 1, &d) && d,
	   "line 1 goes to set 1; a write hit marks it dirty");
	ok(cache_clean(c, 1) && cache_probe(c, 1, &d) && !d && !cache_clean(c, 1),
	   "clean: was dirty once, then clean");
	ok(cache_invalidate(c, 0, &d) && !d && !cache_probe(c, 0, NULL) &&
	   !cache_invalidate(c, 0, NULL), "invalidate line 0");
	ok(!cache_fill(c, 6, false, &victim, &vd), "the freed way takes line 6 without an eviction");
	st = cache_get_stats(c);
	ok(st->hits == 2 && st->misses == 4 && st->fills == 5 && st->evictions == 1 &&
	   st->dirty_evictions == 1 && st->invalidations == 1,
	   "statistics: 2 hits, 4 misses, 5 fills, 1 dirty eviction, 1 invalidation");
	cache_reset(c);
	ok(!cache_probe(c, 4, NULL) && cache_get_stats(c)->fills == 0, "reset empties it");
	cache_free(c);

	cc = (struct cache_config){ 192, 1, 64 };
	ok(cache_config_check(&cc, err, sizeof(err)) < 0 && strstr(err, "power of two"),
	   "3 sets are refused: %s", err);
	cc = (struct cache_config){ 256, 2, 48 };
	ok(cache_config_check(&cc, err, sizeof(err)) < 0, "a 48-byte line is refused: %s", err);
	cc = (struct cache_config){ 256, 0, 64 };
	ok(cache_config_check(&cc, err, sizeof(err)) < 0, "0 ways are refused: %s", err);
	cc = (struct cache_config){ 100, 1, 64 };
	ok(cache_config_check(&cc, err, sizeof(err)) < 0, "100 bytes are refused: %s", err);
	ok(cache_new(&cc) == NULL, "cache_new refuses a bad geometry");
	cc = (struct cache_config){ 4096, 64, 64 };
	ok(cache_config_check(&cc, err, sizeof(err)) == 0, "fully associative 4 KiB (64 ways) is fine");
}

/* ---- configuration ---- */

static void
test_config(void)
{
	struct mgsim_config c;
	char err[256], json[1024];

	mgsim_config_default(&c);
	ok(c.l1i.size == 32768 && c.l1i.assoc == 8 && c.l1i.line == 64 && c.l1d.size == 32768 &&
	   c.has_l2 && c.l2.size == 1048576 && c.l2.assoc == 16 &&
	   c.l1d_policy == MGSIM_WRITE_THROUGH && mgsim_ratio(&c) == 1 && c.mmio_base == 8 &&
	   c.thread_entries == 256 && c.family_entries == 32,
	   "defaults: 32K/8/64 L1s, write-through L1D, 1M/16/64 L2, R 1, base 8, 256/32 entries");
	ok(mgsim_config_parse(&c, "l1d=64K:8:64,l1d_policy=wb,l2=none,core_mhz=500,master_mhz=1500",
			      err, sizeof(err)) == 0, "parse a list of settings");
	ok(c.l1d.size == 65536 && c.l1d_policy == MGSIM_WRITE_BACK && !c.has_l2 &&
	   mgsim_ratio(&c) == 3, "... 64 KiB L1D, write-back, no L2, R = 3");
	ok(mgsim_config_parse(&c, "l2=2MiB:16:128,xq=off,base=0x100,time=alpha", err,
			      sizeof(err)) == 0 && c.has_l2 && c.l2.size == 2097152 &&
	   c.l2.line == 128 && c.xq_mode == MGSIM_XQ_OFF && c.mmio_base == 0x100 && c.alpha_time,
	   "an L2 back, xq off, base 0x100, alpha time");
	mgsim_config_json(&c, json, sizeof(json));
	ok(strstr(json, "\"l2\":{\"size\":2097152,\"assoc\":16,\"line\":128}") &&
	   strstr(json, "\"policy\":\"write-back\"") && strstr(json, "\"ratio\":3") &&
	   strstr(json, "\"mmio_base\":256") && strstr(json, "\"xq\":\"off\""),
	   "JSON of the settings");
	ok(mgsim_config_parse(&c, "mgsim", err, sizeof(err)) == 0 && c.l1d.size == 1024 &&
	   c.l1d.assoc == 4 && c.l1i.size == 1024 && !c.has_l2 && c.l1d_policy == MGSIM_WRITE_THROUGH,
	   "'mgsim': MGSim's shipped geometry (1 KiB 4-way L1s, no L2)");
	mgsim_config_json(&c, json, sizeof(json));
	ok(strstr(json, "\"l2\":null") != NULL, "JSON: no L2 is null");
	ok(mgsim_config_parse(&c, "l1d=48K:8:64", err, sizeof(err)) < 0, "48 KiB 8-way: %s", err);
	mgsim_config_default(&c);
	ok(mgsim_config_parse(&c, "master_mhz=1500", err, sizeof(err)) < 0,
	   "master 1500 / core 1000 is not an integer: %s", err);
	mgsim_config_default(&c);
	ok(mgsim_config_parse(&c, "bogus=1", err, sizeof(err)) < 0 && strstr(err, "bogus"),
	   "unknown key: %s", err);
	ok(mgsim_config_parse(&c, "l1d_policy=sometimes", err, sizeof(err)) < 0, "bad value: %s",
	   err);
	ok(mgsim_config_parse(&c, "l1i=32K:8", err, sizeof(err)) < 0, "geometry needs 3 parts: %s",
	   err);
	ok(mgsim_config_parse(&c, "l1i", err, sizeof(err)) < 0, "a key without a value: %s", err);
}

/* ---- §2: packed date and time ---- */

static void
test_date_time(void)
{
	struct timespec ts = { 1709214330, 123456789 };
	uint64_t v[MGSIM_NUM_COUNTERS] = { 0 };
	uint64_t t;

	/* The worked examples. */
	is_u64(mgsim_pack_date(0), 0x8C01, "1970-01-01: date word 35841 (0x8C01)");
	is_u64(mgsim_pack_time(0, 0, false), 0, "00:00:00.000000: time word 0");
	is_u64(mgsim_pack_time(0, 0, true), 0, "... 0 on MT-Alpha too");
	is_u64(mgsim_pack_date(1709214330), 63549, "2024-02-29: date word 63549 (0xF83D)");
	is_u64(mgsim_pack_time(1709214330, 123456, false), 0x6DAF0F12,
	       "13:45:30.123456: time word 0x6DAF0F12 (123456 >> 5 = 3858)");
	is_u64(mgsim_pack_time(1709214330, 123456, true), 0x6DAF0F12,
	       "... the same on MT-Alpha (hour < 16)");
	is_u64(mgsim_pack_date(1490054399), 0xEA54, "2017-03-20: date word 59988 (0xEA54)");
	t = mgsim_pack_time(1490054399, 999999, false);
	is_u64(t, 0xBF7DFA11, "23:59:59.999999: time word 0xBF7DFA11 (clean 32-bit)");
	is_u64(mgsim_pack_time(1490054399, 999999, true), 0xFFFFFFFFBF7DFA11ull,
	       "... MT-Alpha sign-extends it (hour >= 16): 0xFFFFFFFFBF7DFA11");
	is_u64(mgsim_pack_time(1490022000, 999999, true), 0x78007A11,
	       "15:00:00.999999 on MT-Alpha: 0x78007A11, not sign-extended");
	ok((t >> 27) == 23 && (t >> 21 & 63) == 59 && (t >> 15 & 63) == 59 &&
	   (t & 0x7fff) << 5 == 999968,
	   "decoding the third word: 23:59:59 and 999968 us (32 us truncation)");
	is_u64(mgsim_pack_time(1709214330, 31, false) & 0x7fff, 0, "31 us truncate to 0");
	is_u64(mgsim_pack_time(1709214330, 32, false) & 0x7fff, 1, "32 us are 1");
	/* One clock reading gives 13, 14 and 15. */
	mgsim_apply_clock(v, &ts, false);
	ok(v[MGSIM_UNIX_CTIME] == 1709214330 && v[MGSIM_UNIX_DATE] == 63549 &&
	   v[MGSIM_UNIX_TIME] == 0x6DAF0F12,
	   "apply_clock: 13, 14, 15 from one reading (123456789 ns = 123456 us)");
}

/*
 * The packing at every boundary, against values built here from the bit
 * layout of mgsim-counters.md §2 and a calendar computed here (days from
 * 1970-01-01 to year, month and day by the proleptic Gregorian rules, not
 * gmtime): every second of whole days (so every hour, minute and second
 * boundary) with microseconds 0, 31, 32 and 999999, both forms of the time
 * word (the MT-Alpha one sign-extended from hour 16 exactly); and the date
 * word at the first and last second of every day from 1970 to 2199 (every
 * month and year edge, 29 February of 2000 and its absence in 2100).
 */
static int
is_leap(long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days since 1970-01-01 -> year, month (1-12), day, counted day by day. */
static void
civil_from_days(long days, long *y, int *mon, int *d)
{
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	*y = 1970;
	while (days >= 365 + is_leap(*y))
		days -= 365 + is_leap((*y)++);
	for (*mon = 1;; (*mon)++) {
		int n = mdays[*mon - 1] + (*mon == 2 && is_leap(*y));

		if (days < n)
			break;
		days -= n;
	}
	*d = (int)days + 1;
}

static void
test_pack_boundaries(void)
{
	static const long usecs[] = { 0, 31, 32, 999999 };
	/* 1970-01-01, 2000-02-29, 2017-03-20, 2038-01-19 (2^31 s), 2100-02-28 */
	static const long days[] = { 0, 11016, 17245, 24855, 47540 };
	unsigned long n = 0, bad = 0, bad_alpha = 0;
	char first[160] = "";

	for (size_t k = 0; k < sizeof(days) / sizeof(days[0]); k++)
		for (unsigned h = 0; h < 24; h++)
			for (unsigned m = 0; m < 60; m++)
				for (unsigned sec = 0; sec < 60; sec++)
					for (size_t u = 0; u < sizeof(usecs) / sizeof(usecs[0]); u++) {
						time_t t = days[k] * 86400 + h * 3600 + m * 60 + sec;
						uint64_t w = (uint64_t)(usecs[u] / 32) | (uint64_t)sec << 15 |
							     (uint64_t)m << 21 | (uint64_t)h << 27;
						uint64_t wa = h >= 16 ? w | 0xffffffff00000000ull : w;
						uint64_t got = mgsim_pack_time(t, usecs[u], false);
						uint64_t got_a = mgsim_pack_time(t, usecs[u], true);

						n++;
						bad += got != w;
						bad_alpha += got_a != wa;
						if ((got != w || got_a != wa) && !first[0])
							snprintf(first, sizeof(first),
								 "day %ld %02u:%02u:%02u.%06ld: got 0x%" PRIx64
								 " / 0x%" PRIx64 ", want 0x%" PRIx64 " / 0x%" PRIx64,
								 days[k], h, m, sec, usecs[u], got, got_a, w, wa);
					}
	ok(bad == 0, "time word: every second of 5 days, 4 microsecond values each (%lu): "
	   "usec / 32 | s << 15 | min << 21 | h << 27", n);
	ok(bad_alpha == 0, "MT-Alpha time word: the same, bits 32-63 set from hour 16 to 23 and "
	   "only then");
	if (first[0])
		diag("  %s", first);

	/* Hours 15, 16 and 17 at their first and last microsecond. */
	is_u64(mgsim_pack_time(15 * 3600 + 3599, 999999, true), 0x7F7DFA11ull,
	       "15:59:59.999999 on MT-Alpha: 0x7F7DFA11 (hour 15, not extended)");
	is_u64(mgsim_pack_time(16 * 3600, 0, true), 0xFFFFFFFF80000000ull,
	       "16:00:00.000000 on MT-Alpha: 0xFFFFFFFF80000000 (hour 16: extended)");
	is_u64(mgsim_pack_time(16 * 3600, 0, false), 0x80000000ull,
	       "16:00:00.000000 clean: 0x80000000");

	n = bad = 0;
	first[0] = '\0';
	for (long d = 0; d < 84006; d++) {	/* 1970-01-01 .. 2199-12-31 */
		long y;
		int mon, mday;

		civil_from_days(d, &y, &mon, &mday);
		uint64_t want = (uint64_t)mday | (uint64_t)(mon - 1) << 5 | (uint64_t)(y - 1900) << 9;

		for (long s = 0; s < 86400; s += 86399) {
			uint64_t got = mgsim_pack_date(d * 86400 + s);

			n++;
			if (got != want && !bad++)
				snprintf(first, sizeof(first),
					 "%ld-%02d-%02d +%lds: got 0x%" PRIx64 ", want 0x%" PRIx64,
					 y, mon, mday, s, got, want);
		}
	}
	ok(bad == 0, "date word: the first and last second of every day 1970-2199 (%lu): "
	   "mday | (month - 1) << 5 | (year - 1900) << 9", n);
	if (first[0])
		diag("  %s", first);
	is_u64(mgsim_pack_date(11016L * 86400), 29 | 1 << 5 | 100 << 9, "2000-02-29 exists");
	is_u64(mgsim_pack_date(47540L * 86400 + 86400), 1 | 2 << 5 | 200 << 9,
	       "2100-02-28 is followed by 2100-03-01");
	is_u64(mgsim_pack_date(10957L * 86400 - 1), 31 | 11 << 5 | 99 << 9,
	       "1999-12-31 23:59:59: December is month 11");
	is_u64(mgsim_pack_date(10957L * 86400), 1 | 0 << 5 | 100 << 9,
	       "2000-01-01 00:00:00: January is month 0, year 100");
}

/* ---- §3: MMIO ---- */

static void
test_mmio(void)
{
	unsigned idx = 99;
	const char *why;

	ok(mgsim_mmio_decode(8, 8, 8, &idx, &why) == MGSIM_MMIO_OK && idx == 0,
	   "base 8: address 8 is counter 0");
	ok(mgsim_mmio_decode(8, 8 + 20 * 8, 8, &idx, &why) == MGSIM_MMIO_OK && idx == 20,
	   "address 0xA8 is counter 20");
	ok(mgsim_mmio_decode(8, 0x50, 8, &idx, &why) == MGSIM_MMIO_OK && idx == 9,
	   "index = (0x50 - 8) / 8 = 9");
	is_u64(mgsim_mmio_decode(8, 0xB0, 8, &idx, &why), 404,
	       "0xB0, just past the window (8 + 168): 404 (%s)", why);
	is_u64(mgsim_mmio_decode(8, 0, 8, &idx, &why), 404, "0, before the window: 404");
	is_u64(mgsim_mmio_decode(8, 4, 8, &idx, &why), 404, "4..11, starts before it: 404");
	is_u64(mgsim_mmio_decode(8, 0xA8, 16, &idx, &why), 404,
	       "0xA8 size 16 runs past the window: 404 (MGSim: ordinary memory)");
	is_u64(mgsim_mmio_decode(8, 9, 8, &idx, &why), 400, "9, misaligned: 400 (%s)", why);
	for (uint64_t off = 1; off < 8; off++)
		if (!ok(mgsim_mmio_decode(8, 8 + 8 * 5 + off, 8, &idx, &why) == 400,
			"base + 40 + %u, misaligned by %u (half a word too): 400", (unsigned)off,
			(unsigned)off))
			break;
	is_u64(mgsim_mmio_decode(8, 8, 4, &idx, &why), 400, "size 4: 400 (%s)", why);
	is_u64(mgsim_mmio_decode(8, 8, 16, &idx, &why), 400, "size 16 inside the window: 400");
	is_u64(mgsim_mmio_decode(8, 8, 0, &idx, &why), 400, "size 0: 400");
	is_u64(mgsim_mmio_decode(8, UINT64_MAX - 3, 8, &idx, &why), 404,
	       "an address at the top of the space: 404, no wrap-around");
	is_u64(mgsim_mmio_decode(0, 8, 8, &idx, &why), 404, "base 0: not mapped, 404 (%s)", why);
	ok(mgsim_mmio_decode(0x1000, 0x1000 + 13 * 8, 8, &idx, NULL) == MGSIM_MMIO_OK && idx == 13,
	   "another base: 0x1000 + 104 is counter 13");
	is_u64(MGSIM_ASR_WINDOW + MGSIM_ASR_NUM_COUNTERS * MGSIM_WORD_SIZE, 0x420,
	       "discovery: ASR 4 (number of counters) at 0x420");
	is_u64(MGSIM_ASR_WINDOW + MGSIM_ASR_COUNTERS_BASE * MGSIM_WORD_SIZE, 0x428,
	       "discovery: ASR 5 (base) at 0x428");
}

/* ---- §5: derived columns and monitoring variables ---- */

static void
test_derived(void)
{
	struct mgsim_config c;
	struct mgsim_derived d;
	uint64_t a[MGSIM_NUM_COUNTERS] = { 0 }, b[MGSIM_NUM_COUNTERS] = { 0 };

	mgsim_config_default(&c);
	a[MGSIM_CLOCKS] = 1000;
	a[MGSIM_TT_TOTAL] = 500;
	b[MGSIM_CLOCKS] = 3000;
	b[MGSIM_EXEC_INSNS] = 1000;
	b[MGSIM_PLACE_SIZE] = 1;
	b[MGSIM_TT_TOTAL] = 4500;
	b[MGSIM_FT_TOTAL] = 2000;
	b[MGSIM_XQ_TOTAL] = 500;
	mgsim_derive(a, b, &c, &d);
	ok(d.pl_eff == 0.5, "pl_eff = 1000 insns / 1 core x R 1 / 2000 cycles = 0.5");
	ok(d.tt_occp == 4000.0 / 256 / 2000, "tt_occp = 4000 / 1 / 256 / 2000");
	ok(d.ft_occp == 2000.0 / 32 / 2000, "ft_occp = 2000 / 1 / 32 / 2000");
	ok(d.xq_avg == 0.25, "xq_avg = 500 / 1 / 2000 = 0.25");
	c.master_mhz = 2000;
	mgsim_derive(a, b, &c, &d);
	ok(d.pl_eff == 1.0, "pl_eff with R = 2: 1.0 instruction per core cycle");
	mgsim_derive(b, b, &c, &d);
	ok(isnan(d.pl_eff) && isnan(d.tt_occp) && isnan(d.xq_avg), "no cycles passed: NaN");
}

static void
test_monitor(void)
{
	struct mgsim_monitor mon = { 0, 0 };
	uint64_t cy, other;

	mgsim_monitor_read_all(&mon);
	mgsim_monitor_get(&mon, &cy, &other);
	ok(cy == 1 && other == 20, "a full snapshot: 1 cycle sample + 20 other samples");
	mgsim_monitor_read_one(&mon, 0);
	mgsim_monitor_read_one(&mon, 5);
	mgsim_monitor_read_one(&mon, 20);
	mgsim_monitor_read_one(&mon, 21);
	mgsim_monitor_get(&mon, &cy, &other);
	ok(cy == 2 && other == 22, "counter 0 adds to nCycleSampleOps, 5 and 20 to "
	   "nOtherSampleOps, 21 to nothing");
}

/* ---- the self-check catches what it should ---- */

static void
test_check(void)
{
	struct mgsim_config c;
	uint64_t a[MGSIM_NUM_COUNTERS] = { 0 }, b[MGSIM_NUM_COUNTERS];
	char err[256];

	mgsim_config_default(&c);
	c.has_l2 = false;
	a[MGSIM_PLACE_SIZE] = 1;
	a[MGSIM_CLOCKS] = a[MGSIM_CORE_CLOCKS] = 100;
	a[MGSIM_TT_TOTAL] = 100;
	a[MGSIM_UNIX_CTIME] = 50;
	memcpy(b, a, sizeof(b));
	b[MGSIM_CLOCKS] = b[MGSIM_CORE_CLOCKS] = 200;
	b[MGSIM_TT_TOTAL] = 300;
	b[MGSIM_UNIX_CTIME] = 40;	/* a clock reading may go back */
	is_u64(mgsim_check(a, b, &c, 2, err, sizeof(err)), 0, "a consistent pair passes");
	b[MGSIM_EXT_LOADS] = 1;
	ok(mgsim_check(a, b, &c, 2, err, sizeof(err)) == 1 && strstr(err, "16"),
	   "no L2 and 16 != 7: %s", err);
	b[MGSIM_EXT_LOADS] = 0;
	b[MGSIM_CLOCKS] = 150;
	ok(mgsim_check(a, b, &c, 4, err, sizeof(err)) >= 1, "0 != 20 x R: %s", err);
	b[MGSIM_CLOCKS] = 200;
	b[MGSIM_LOADS] = 0;
	a[MGSIM_LOADS] = 1;
	ok(mgsim_check(a, b, &c, 2, err, sizeof(err)) == 1 && strstr(err, "went down"),
	   "a counter going down: %s", err);
	a[MGSIM_LOADS] = 0;
	ok(mgsim_check(a, b, &c, 1, err, sizeof(err)) == 1 && strstr(err, "counter 10"),
	   "counter 10 growing faster than 1 live task allows: %s", err);
	b[MGSIM_PLACE_SIZE] = 2;
	ok(mgsim_check(NULL, b, &c, 1, err, sizeof(err)) == 1, "counter 9 != 1: %s", err);
	b[MGSIM_PLACE_SIZE] = 1;
	/* Counter 12: a whole wait charged at once passes (150 in 100
	 * cycles of the pair), up to (2 - 1) x counter 0 = 200 ... */
	b[MGSIM_XQ_TOTAL] = 150;
	is_u64(mgsim_check(a, b, &c, 2, err, sizeof(err)), 0,
	       "counter 12 growing by a whole wait at once passes");
	b[MGSIM_XQ_TOTAL] = 201;
	ok(mgsim_check(a, b, &c, 2, err, sizeof(err)) == 1 && strstr(err, "counter 12"),
	   "... but not more than (live - 1) x counter 0: %s", err);
	b[MGSIM_XQ_TOTAL] = 1;
	ok(mgsim_check(NULL, b, &c, 1, err, sizeof(err)) == 1 && strstr(err, "counter 12"),
	   "a task alone never waits: %s", err);
}

int
main(void)
{
	test_counter_info();
	test_counters();
	test_rep_interrupted();
	test_write_policy();
	test_l2();
	test_cache_ops();
	test_tasks(1);
	test_tasks(3);
	test_futex_class();
	test_futex_events(1);
	test_futex_events(2);
	test_cache_sim();
	test_config();
	test_date_time();
	test_pack_boundaries();
	test_mmio();
	test_derived();
	test_monitor();
	test_check();
	return done_testing();
}
