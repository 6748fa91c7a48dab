/*
 * The pipeline stall found by the live model's watchdog on the bundled
 * sample traced with --mcpu alderlake: `fnstcw -0xa6(%rbp)` then
 * `movzwl -0xa6(%rbp), %eax` (glibc's x87 control-word check).  LLVM's
 * Alder Lake data give FNSTCW16m a port-4-only store-data uop (Alder Lake
 * has two store-data ports, 4 and 9); the uop classifier took only a uop
 * on both for store data, so the store had an address but no store-data
 * uop, its std_time was never set, and the load that forwards from it
 * waited for ever at the head of the reorder buffer.  Fixed twice: the
 * classifier takes any uop limited to store-data ports, and a load that
 * matches a store without a store-data uop reads the data once the store
 * retires (fwd_fail_delay later) instead of waiting for a forward.
 * The cycle counts below are worked out by hand in the comments.
 */
#include "config.h"

#include "decoder.h"
#include "sched/sched_live.h"
#include "sched/sched_map.h"
#include "sched/sched_pipeline.h"
#include "sched/sched_uarch.h"
#include "tap.h"
#include "util.h"

/* fnstcw -0xa6(%rbp); movzwl -0xa6(%rbp), %eax */
static const uint8_t code[] = {
	0xd9, 0xbd, 0x5a, 0xff, 0xff, 0xff,
	0x0f, 0xb7, 0x85, 0x5a, 0xff, 0xff, 0xff,
};
#define BASE	0x44d109
#define ADDR	0x7ffd407a389aULL

struct ret_log {
	unsigned n;
	uint32_t retired[4];
};

static void
log_retire(void *arg, const struct ua_retired *r)
{
	struct ret_log *lg = arg;

	if (lg->n < 4)
		lg->retired[lg->n] = r->retired;
	lg->n++;
}

int
main(void)
{
	const struct sched_model *m = sched_model_find("alderlake");
	const struct sched_uarch *ua = sched_uarch_find("alderlake");
	struct insn_info ii[2];
	struct sched_insn si[2];
	struct ua_insn ui[2];
	struct ua_ports pt;
	struct sched_live *l;
	struct sched_live_interval iv;
	unsigned std = 0, sta = 0;

	if (!ok(m && ua && ua_ports_init(m, ua, &pt) == 0, "alderlake has a uop model"))
		return 1;
	for (unsigned i = 0, off = 0; i < 2; i++) {
		struct sched_mapping map;

		if (insn_decode(code + off, sizeof(code) - off, BASE + off, &ii[i]) < 0 ||
		    sched_map(ii[i].bytes, ii[i].len, &map) < 0)
			return !ok(0, "instruction %u decodes and maps", i);
		sched_insn_init(m, &ii[i], &map, &si[i]);
		ua_insn_build(m, ua, &pt, &ii[i], &map, &si[i], &ui[i]);
		off += ii[i].len;
	}

	/* The classifier: fnstcw's port-4 uop is its store data; its
	 * port 2/3/7 uop its store address. */
	for (unsigned u = 0; u < ui[0].n_uops; u++) {
		if (ui[0].uops[u].kind == UA_STD)
			std |= ui[0].uops[u].ports;
		if (ui[0].uops[u].kind == UA_STA)
			sta |= ui[0].uops[u].ports;
	}
	is_u64(ui[0].n_std, 1, "fnstcw on alderlake: one store-data uop");
	ok(std != 0 && (std & ~pt.std) == 0, "  on a store-data port (mask %#x, ports %#x)", std,
	   pt.std);
	is_u64(ui[0].n_sta, 1, "  one store-address uop");
	ok(sta != 0 && (sta & ~(pt.load | pt.sta)) == 0, "  on an address port (mask %#x)", sta);
	is_u64(ui[0].n_op, 1, "  one other uop");
	ok(ui[1].n_load == 1 && (ui[1].flags & UA_PURE_LOAD), "movzwl: a pure load");

	/*
	 * Fed live, once, both accesses at ADDR (the uop cache front end):
	 * cycle 0 both enter the IDQ, cycle 1 both are renamed; fnstcw's
	 * uops are ready at 2: its operation (latency 2) gives the data at
	 * 4, the store-data uop, which waits for it, dispatches at 4 and
	 * is done at 5; fnstcw retires at 6.  The load forwards from the
	 * store data (no delay): dispatched at 4, 5-cycle load, done at 9,
	 * retired at 10: 11 cycles (0..10), 2 instructions, no restart.
	 * Before the fix the load never dispatched and the watchdog restarted
	 * the model after 100000 cycles.
	 */
	l = sched_live_new("alderlake");
	if (!ok(l != NULL, "a live model of alderlake"))
		return 1;
	for (unsigned i = 0; i < 2; i++) {
		struct insn_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.info = &ii[i];
		ev.pc = ii[i].pc;
		ev.next_pc = ii[i].pc + ii[i].len;
		ev.mem[0].addr = ADDR;
		ev.mem[0].size = 2;
		ev.mem[0].dir = i == 0 ? MEM_WRITE : MEM_READ;
		ev.n_mem = 1;
		sched_live_feed(l, &ev);
	}
	sched_live_flush(l);
	sched_live_interval(l, &iv);
	is_u64(iv.insns, 2, "fed live: both retire");
	is_u64(iv.cycles, 11, "  in 11 cycles (worked out above)");
	is_u64(sched_live_restarts(l), 0, "  the watchdog did not fire");
	sched_live_free(l);

	/*
	 * The safety net: the same store with its store-data uop turned
	 * into an ordinary one (a store without a store-data uop, as any
	 * model's data may give).  Pushed at cycle 0 with the uop cache
	 * front end: renamed at 1; its two operation uops (latency 2) and
	 * its address uop dispatch at 2; done at 4, retired at 5.  The load
	 * cannot take a forward that never comes: it reads once the store
	 * has retired, fwd_fail_delay (7) later: dispatched at 12, done at
	 * 17, retired at 18.
	 */
	{
		struct ua_insn st = ui[0];
		struct ua_sim *s = ua_sim_new(m, ua, UA_FE_DSB);
		struct ret_log lg = { 0 };

		for (unsigned u = 0; u < st.n_uops; u++)
			if (st.uops[u].kind == UA_STD)
				st.uops[u].kind = UA_OP;
		st.n_op = (uint8_t)(st.n_op + st.n_std);
		st.n_std = 0;
		if (!ok(s != NULL, "a simulator"))
			return 1;
		ok(ua_sim_push(s, &st, BASE, 0, 0, false, ADDR) == 0 &&
		   ua_sim_push(s, &ui[1], BASE + 6, 1, 0, false, ADDR) == 0, "both pushed");
		while (!ua_sim_idle(s) && ua_sim_stats(s)->cycles < 1000)
			ua_sim_cycle(s, log_retire, &lg);
		is_u64(lg.n, 2, "a store without a store-data uop, then a load of it: both retire");
		is_u64(lg.retired[0], 5, "  the store at cycle 5");
		is_u64(lg.retired[1], 18, "  the load at cycle 18 (read after the store retired)");
		ua_sim_free(s);
	}

	/* The static analysis (unrolled, legacy decode) of the block:
	 * predecoded at 0, decoded at 1, renamed at 2, so every time of the
	 * live run one later: the load retires at 11, 12 cycles. */
	{
		struct sched_params p = { .iterations = 1 };
		struct sched_result r;

		if (ok(ua_run_block(m, ua, &p, UA_TP_UNROLLED, ui, 2, &r) == 0,
		       "static analysis of the block (before the fix: no end)")) {
			is_u64(r.total_cycles, 12, "  12 cycles for one iteration");
			sched_result_free(&r);
		}
	}
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
