/*
 * Live scheduling (sched_live.h): a loop fed one executed instruction at
 * a time gives the cycles of the static analysis of the same loop for the
 * same iterations, intervals add up, port pressure counts every uop, the
 * hottest blocks come out in order with their bytes, real addresses make
 * real store-to-load dependences.  Prints TAP; the feeding rate is a
 * diagnostic, never a check.
 */
#include "config.h"

#include <math.h>
#include <time.h>

#include "decoder.h"
#include "sched/sched_live.h"
#include "sched/sched_map.h"
#include "sched/sched_pipeline.h"
#include "sched/sched_uarch.h"
#include "tap.h"
#include "util.h"

#define MAXI	16

struct code {
	unsigned n;
	struct insn_info ii[MAXI];
	uint8_t bytes[256];
	size_t len;
};

static void
decode(const char *hex, uint64_t base, struct code *c)
{
	c->len = 0;
	for (const char *p = hex; p[0] && p[1]; p += 2)
		c->bytes[c->len++] = (uint8_t)(hex_digit(p[0]) << 4 | hex_digit(p[1]));
	c->n = 0;
	for (size_t off = 0; off < c->len && c->n < MAXI;) {
		if (insn_decode(c->bytes + off, c->len - off, base + off, &c->ii[c->n]) < 0)
			break;
		off += c->ii[c->n++].len;
	}
}

/* Feed `iters` iterations of the loop c; stores write at mem, loads read
 * at mem + load_off. */
static void
feed(struct sched_live *l, const struct code *c, unsigned iters, uint64_t mem, uint64_t load_off)
{
	for (unsigned it = 0; it < iters; it++) {
		for (unsigned i = 0; i < c->n; i++) {
			struct insn_event ev;
			const struct insn_info *ii = &c->ii[i];

			memset(&ev, 0, sizeof(ev));
			ev.info = ii;
			ev.pc = ii->pc;
			ev.next_pc = i + 1 < c->n ? ii->pc + ii->len : c->ii[0].pc;
			if (i + 1 == c->n)
				ev.flags |= EV_TAKEN;
			for (unsigned k = 0; k < ii->n_mem && k < EV_MAX_MEM; k++) {
				ev.mem[k].size = ii->mem[k].size;
				ev.mem[k].dir = ii->mem[k].dir & MEM_WRITE ? MEM_WRITE : MEM_READ;
				ev.mem[k].addr = mem + (ev.mem[k].dir == MEM_READ ? load_off : 0);
				ev.n_mem++;
			}
			sched_live_feed(l, &ev);
		}
	}
}

/* The static analysis of c as a loop (the corrected model). */
static uint64_t
static_cycles(const struct code *c, unsigned iters)
{
	const struct sched_model *m = sched_model_find("skylake");
	const struct sched_uarch *ua = sched_uarch_find("skylake");
	struct ua_ports pt;
	struct sched_insn si[MAXI];
	struct ua_insn ui[MAXI];
	struct sched_params p = { .iterations = iters };
	struct sched_result r;
	uint64_t cyc;

	ua_ports_init(m, ua, &pt);
	for (unsigned i = 0; i < c->n; i++) {
		struct sched_mapping map;

		sched_map(c->ii[i].bytes, c->ii[i].len, &map);
		sched_insn_init(m, &c->ii[i], &map, &si[i]);
		ua_insn_build(m, ua, &pt, &c->ii[i], &map, &si[i], &ui[i]);
	}
	if (ua_run_block(m, ua, &p, UA_TP_LOOP, ui, c->n, &r) < 0)
		return 0;
	cyc = r.total_cycles;
	sched_result_free(&r);
	return cyc;
}

int
main(void)
{
	struct sched_live *l;
	struct sched_live_interval a, b;
	struct sched_live_block hot[4];
	struct code loop, other, mem;
	uint64_t want, uops = 0, cyc_same, cyc_apart;
	const char *names[UA_MAX_PORTS];
	unsigned nb;
	char *json;

	ok(sched_live_new("znver4") == NULL, "no uop model for znver4: NULL");
	l = sched_live_new("skylake");
	if (!ok(l != NULL, "a live model of skylake"))
		return 1;
	ok(sched_live_ports(l, names, UA_MAX_PORTS) == 8 && strcmp(names[0], "SKLPort0") == 0 &&
	   strcmp(names[7], "SKLPort7") == 0, "eight ports, SKLPort0..SKLPort7");

	/* add %rax,%rbx; imul %rbx,%rcx; dec %rdx; jne back */
	decode("4801c3480fafcb48ffca75f4", 0x401000, &loop);
	want = static_cycles(&loop, 100);
	feed(l, &loop, 50, 0, 0);
	sched_live_interval(l, &a);
	feed(l, &loop, 50, 0, 0);
	sched_live_flush(l);
	sched_live_interval(l, &b);
	is_u64(a.cycles + b.cycles, want, "100 iterations fed live: the static analysis' total cycles");
	is_u64(b.total_cycles, want, "total cycles so far");
	is_u64(a.insns + b.insns, 400, "400 instructions retired over the two intervals");
	ok(a.insns > 0 && b.insns > 0 && a.cycles > 0 && b.cycles > 0, "both intervals progressed");
	ok(fabs(b.ipc - (double)b.insns / b.cycles) < 1e-9, "IPC of the interval = insns / cycles");
	for (unsigned p = 0; p < a.n_ports; p++)
		uops += a.port_uops[p] + b.port_uops[p];
	/* add, imul: one uop each; dec+jne: one fused uop. */
	is_u64(uops, 300, "port pressure counts every executed uop (3 per iteration)");
	ok(b.port_pressure[1] > 0.0 && b.port_uops[1] >= 50,
	   "imul's port 1 busy once per iteration");

	/* A second, colder loop: xor %eax,%eax; jmp back */
	decode("31c0ebfc", 0x402000, &other);
	feed(l, &other, 30, 0, 0);
	sched_live_flush(l);
	nb = sched_live_hot_blocks(l, hot, 4);
	ok(nb == 2, "two basic blocks seen");
	ok(hot[0].start_pc == 0x401000 && hot[0].executions == 100 && hot[0].n_insns == 4 &&
	   hot[0].insns_executed == 400, "hottest: the 4-instruction loop, 100 executions");
	ok(hot[0].n_bytes == loop.len && memcmp(hot[0].bytes, loop.bytes, loop.len) == 0,
	   "its bytes are kept");
	ok(nb > 1 && hot[1].start_pc == 0x402000 && hot[1].executions == 30,
	   "then the 2-instruction loop, 30 executions");
	json = sched_live_block_report(l, &hot[0], 100);
	if (ok(json != NULL, "static report of the hottest block")) {
		char key[64];

		snprintf(key, sizeof(key), "\"total_cycles\": %llu", (unsigned long long)want);
		ok(strstr(json, key) != NULL, "the report's total cycles are the static analysis' (%s)",
		   key);
		ok(strstr(json, "\"text\": \"imul %rbx, %rcx\"") != NULL, "the report names the instructions");
		free(json);
	}
	ok(sched_live_unmapped(l) == 0, "every instruction mapped");
	sched_live_free(l);

	/* mov %rax,(%rdi); mov (%rsi),%rax; jmp: with both accesses at one
	 * address the load waits for the store data each iteration (5-cycle
	 * chain); 64 bytes apart, it does not. */
	decode("488907488b06ebf8", 0x403000, &mem);
	l = sched_live_new("skylake");
	feed(l, &mem, 200, 0x7000, 0);
	sched_live_flush(l);
	sched_live_interval(l, &a);
	cyc_same = a.cycles;
	sched_live_free(l);
	l = sched_live_new("skylake");
	feed(l, &mem, 200, 0x7000, 0x40);
	sched_live_flush(l);
	sched_live_interval(l, &a);
	cyc_apart = a.cycles;
	ok(cyc_same >= 4 * 200 && cyc_apart < cyc_same / 2,
	   "real addresses: same address %llu cycles (store-to-load chain), 64 bytes apart "
	   "%llu", (unsigned long long)cyc_same, (unsigned long long)cyc_apart);
	sched_live_free(l);

	/* The feeding rate, for the record. */
	{
		struct timespec t0, t1;
		double s;

		l = sched_live_new("skylake");
		clock_gettime(CLOCK_MONOTONIC, &t0);
		feed(l, &loop, 250000, 0, 0);
		sched_live_flush(l);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		diag("fed 1M instructions in %.3f s: %.2f M instructions/s", s, 1.0 / s);
		sched_live_free(l);
	}
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
