/*
 * Live scheduling (sched_live.h): a per-address cache of the corrected
 * model's instruction records, a one-instruction look-ahead for
 * macro-fusion, the streaming engine of sched_uarch.c with a uop-cache
 * front end, and a table of the basic blocks seen.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "decoder.h"
#include "sched/sched_live.h"
#include "sched/sched_map.h"
#include "sched/sched_pipeline.h"
#include "u64map.h"

#define CHUNK		1024		/* cache entries per allocation (never move) */
#define MAX_BLOCK_INSNS	256

struct live_insn {
	uint64_t pc;
	uint8_t len;
	uint8_t bytes[INSN_MAX_BYTES];
	struct ua_insn ui;
};

struct live_block {
	struct sched_live_block b;
};

struct sched_live {
	const struct sched_model *model;
	const struct sched_uarch *ua;
	struct ua_ports pt;
	struct ua_sim *sim;
	/* per-address records */
	struct u64map by_pc;		/* pc -> index + 1 */
	struct live_insn **chunks;
	size_t n_insns, n_chunks;
	uint64_t unmapped;
	/* macro-fusion look-ahead: the instruction fed last, not pushed yet */
	bool has_pending;
	const struct ua_insn *p_ui;
	uint64_t p_pc, p_mem;
	bool p_taken;
	uint8_t p_fuse;
	/* interval */
	uint64_t last_cycles, last_insns, last_port[UA_MAX_PORTS];
	/* counts of simulators restarted by the stall watchdog */
	uint64_t base_cycles, base_insns, base_port[UA_MAX_PORTS];
	uint64_t watch_insns, watch_cycle;
	unsigned restarts;
	/* basic blocks */
	struct u64map by_start;		/* start pc -> index + 1 */
	struct live_block *blocks;
	size_t n_blocks, cap_blocks;
	bool in_block;
	uint64_t cur_start, expect_pc;
	unsigned cur_insns, cur_bytes;
	uint8_t cur[SCHED_LIVE_BLOCK_BYTES];
};

struct sched_live *
sched_live_new(const char *mcpu)
{
	struct sched_live *l;
	const struct sched_uarch *ua = sched_uarch_find(mcpu);
	const struct sched_model *model = ua ? sched_model_find(ua->model) : NULL;

	if (!ua || !model)
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->ua = ua;
	l->model = model;
	if (ua_ports_init(model, ua, &l->pt) < 0 || u64map_init(&l->by_pc, 10) < 0) {
		free(l);
		return NULL;
	}
	if (u64map_init(&l->by_start, 8) < 0) {
		u64map_free(&l->by_pc);
		free(l);
		return NULL;
	}
	l->sim = ua_sim_new(model, ua, UA_FE_DSB);
	if (!l->sim) {
		sched_live_free(l);
		return NULL;
	}
	return l;
}

void
sched_live_free(struct sched_live *l)
{
	if (!l)
		return;
	ua_sim_free(l->sim);
	for (size_t i = 0; i < l->n_chunks; i++)
		free(l->chunks[i]);
	free(l->chunks);
	u64map_free(&l->by_pc);
	u64map_free(&l->by_start);
	free(l->blocks);
	free(l);
}

const char *
sched_live_cpu(const struct sched_live *l)
{
	return l->ua->name;
}

unsigned
sched_live_ports(const struct sched_live *l, const char **names, unsigned max)
{
	for (unsigned p = 0; p < l->pt.n && p < max; p++)
		names[p] = l->model->resources[l->pt.res[p]].name;
	return l->pt.n;
}

uint64_t
sched_live_unmapped(const struct sched_live *l)
{
	return l->unmapped;
}

static struct live_insn *
entry(const struct sched_live *l, size_t i)
{
	return &l->chunks[i / CHUNK][i % CHUNK];
}

/* Build the record of one instruction; an unmappable one becomes one
 * ALU uop of latency 1. */
static int
build(struct sched_live *l, const struct insn_info *ii, struct ua_insn *ui)
{
	struct sched_mapping m;
	struct sched_insn si;

	if (sched_map(ii->bytes, ii->len, &m) < 0 ||
	    sched_insn_init(l->model, ii, &m, &si) < 0) {
		memset(ui, 0, sizeof(*ui));
		ui->len = ii->len;
		ui->fused = 1;
		ui->n_uops = ui->n_op = 1;
		ui->op_lat = 1;
		ui->uops[0] = (struct ua_uop){ l->pt.alu, UA_OP, 0, 0 };
		return -1;
	}
	ua_insn_build(l->model, l->ua, &l->pt, ii, &m, &si, ui);
	return 0;
}

static struct live_insn *
new_entry(struct sched_live *l)
{
	if (l->n_insns == l->n_chunks * CHUNK) {
		struct live_insn **nc = realloc(l->chunks, (l->n_chunks + 1) * sizeof(*nc));

		if (!nc)
			return NULL;
		l->chunks = nc;
		nc[l->n_chunks] = malloc(CHUNK * sizeof(struct live_insn));
		if (!nc[l->n_chunks])
			return NULL;
		l->n_chunks++;
	}
	return entry(l, l->n_insns++);
}

/* The record for the instruction at ii->pc, built once; a new one if the
 * bytes there changed (the old one may still be in flight: records never
 * move nor change). */
static const struct ua_insn *
lookup(struct sched_live *l, const struct insn_info *ii, bool *failed)
{
	bool created;
	uint64_t *slot = u64map_insert(&l->by_pc, ii->pc, &created);
	struct live_insn *e;

	*failed = false;
	if (!slot)
		return NULL;
	if (!created) {
		e = entry(l, (size_t)*slot - 1);
		if (e->len == ii->len && memcmp(e->bytes, ii->bytes, ii->len) == 0)
			return &e->ui;
	}
	e = new_entry(l);
	if (!e) {
		if (created)
			u64map_remove(&l->by_pc, ii->pc);
		return NULL;
	}
	*slot = l->n_insns;
	e->pc = ii->pc;
	e->len = ii->len;
	memcpy(e->bytes, ii->bytes, ii->len);
	*failed = build(l, ii, &e->ui) < 0;
	return &e->ui;
}

/*
 * One simulated cycle, under a watchdog: a pipeline that retires nothing
 * for STALL_CYCLES cycles is stuck (a uop the model can never issue: a
 * model bug, seen on real programs), and a stuck model must not stop the
 * trace it runs beside.  The simulator is then restarted empty; its counts
 * up to its last retirement are kept, the stalled cycles are not.
 */
#define STALL_CYCLES 100000

static void
live_cycle(struct sched_live *l)
{
	const struct ua_stats *st;
	struct ua_sim *fresh;

	ua_sim_cycle(l->sim, NULL, NULL);
	st = ua_sim_stats(l->sim);
	if (st->insns != l->watch_insns) {
		l->watch_insns = st->insns;
		l->watch_cycle = st->cycles;
		return;
	}
	if (st->cycles - l->watch_cycle < STALL_CYCLES)
		return;
	fresh = ua_sim_new(l->model, l->ua, UA_FE_DSB);
	if (!fresh)
		return;		/* out of memory: keep trying with the old one */
	l->base_cycles += l->watch_cycle;
	l->base_insns += st->insns;
	for (unsigned p = 0; p < l->pt.n; p++)
		l->base_port[p] += st->port_uops[p];
	ua_sim_free(l->sim);
	l->sim = fresh;
	l->watch_insns = 0;
	l->watch_cycle = 0;
	l->restarts++;
}

static void
run_until(struct sched_live *l, unsigned queued)
{
	while (ua_sim_queued(l->sim) >= queued && !ua_sim_idle(l->sim))
		live_cycle(l);
}

static void
push_pending(struct sched_live *l)
{
	if (!l->has_pending)
		return;
	/* The ring has room for a look-ahead and more. */
	while (ua_sim_push(l->sim, l->p_ui, l->p_pc, 0, l->p_fuse, l->p_taken, l->p_mem) < 0)
		live_cycle(l);
	l->has_pending = false;
	run_until(l, UA_LOOKAHEAD);
}

static void
block_end(struct sched_live *l, uint64_t last_pc)
{
	bool created;
	uint64_t *slot;
	struct live_block *b;

	l->in_block = false;
	if (!l->cur_insns)
		return;
	slot = u64map_insert(&l->by_start, l->cur_start, &created);
	if (!slot)
		return;
	if (created) {
		if (l->n_blocks == l->cap_blocks) {
			size_t cap = l->cap_blocks ? l->cap_blocks * 2 : 64;
			struct live_block *nb = realloc(l->blocks, cap * sizeof(*nb));

			if (!nb) {
				u64map_remove(&l->by_start, l->cur_start);
				return;
			}
			l->blocks = nb;
			l->cap_blocks = cap;
		}
		b = &l->blocks[l->n_blocks];
		memset(b, 0, sizeof(*b));
		b->b.start_pc = l->cur_start;
		b->b.end_pc = last_pc;
		b->b.n_insns = l->cur_insns;
		if (l->cur_bytes <= SCHED_LIVE_BLOCK_BYTES) {
			b->b.n_bytes = l->cur_bytes;
			memcpy(b->b.bytes, l->cur, l->cur_bytes);
		}
		*slot = ++l->n_blocks;
	}
	b = &l->blocks[*slot - 1];
	b->b.executions++;
	b->b.insns_executed += l->cur_insns;
}

static void
block_track(struct sched_live *l, const struct insn_event *ev, bool ends)
{
	const struct insn_info *ii = ev->info;

	bool rep_again = (ev->flags & EV_REP) && !(ev->flags & EV_REP_FIRST) &&
			 l->in_block && l->expect_pc == ev->pc + ii->len;

	/* A REP string instruction: one event per iteration, one instruction
	 * of the block. */
	if (rep_again) {
		if (ends)
			block_end(l, ev->pc);
		return;
	}
	if (l->in_block && ev->pc != l->expect_pc)
		block_end(l, l->expect_pc);	/* a discontinuity (signal, trace gap) */
	if (!l->in_block) {
		l->in_block = true;
		l->cur_start = ev->pc;
		l->cur_insns = 0;
		l->cur_bytes = 0;
	}
	if (l->cur_insns < MAX_BLOCK_INSNS)
		l->cur_insns++;
	if (l->cur_bytes + ii->len <= SCHED_LIVE_BLOCK_BYTES)
		memcpy(l->cur + l->cur_bytes, ii->bytes, ii->len);
	l->cur_bytes += ii->len;	/* past the buffer: too long to keep */
	l->expect_pc = ev->pc + ii->len;
	if (l->cur_bytes > SCHED_LIVE_BLOCK_BYTES)
		l->cur_bytes = SCHED_LIVE_BLOCK_BYTES + 1;
	if (ends)
		block_end(l, ev->pc);
}

int
sched_live_feed(struct sched_live *l, const struct insn_event *ev)
{
	const struct insn_info *ii = ev->info;
	const struct ua_insn *ui;
	bool failed = false, taken;
	uint64_t mem = 0;
	uint8_t fuse = 0;

	if ((ev->flags & EV_INVALID) || !ii || (ii->flags & INSN_INVALID)) {
		static struct ua_insn nop = { .flags = UA_NOP, .len = 1, .fused = 1 };

		ui = &nop;
		failed = true;
	} else {
		ui = lookup(l, ii, &failed);
		if (!ui)
			return -1;
	}
	if (failed)
		l->unmapped++;
	taken = (ev->flags & EV_TAKEN) || (ii && ev->next_pc && ev->next_pc != ev->pc + ii->len);
	for (unsigned i = 0; i < ev->n_mem; i++) {
		if (!(ev->mem[i].flags & (MEMF_PREFETCH | MEMF_PHANTOM))) {
			mem = ev->mem[i].addr;
			break;
		}
	}
	/* Macro-fusion: the previous instruction and this Jcc right after it. */
	if (l->has_pending && l->p_fuse != 2 && ui != l->p_ui && l->p_pc + l->p_ui->len == ev->pc &&
	    !l->p_taken && ua_fusible(l->p_ui, ui)) {
		l->p_fuse = 1;
		fuse = 2;
	}
	push_pending(l);
	l->has_pending = true;
	l->p_ui = ui;
	l->p_pc = ev->pc;
	l->p_mem = mem;
	l->p_taken = taken;
	l->p_fuse = fuse;
	if (ii && !(ii->flags & INSN_INVALID))
		block_track(l, ev, ii->branch != BR_NONE || taken);
	return failed ? -1 : 0;
}

void
sched_live_flush(struct sched_live *l)
{
	push_pending(l);
	while (!ua_sim_idle(l->sim))
		live_cycle(l);
}

unsigned
sched_live_restarts(const struct sched_live *l)
{
	return l->restarts;
}

void
sched_live_interval(struct sched_live *l, struct sched_live_interval *out)
{
	const struct ua_stats *st = ua_sim_stats(l->sim);
	uint64_t cycles = l->base_cycles + st->cycles, insns = l->base_insns + st->insns;

	memset(out, 0, sizeof(*out));
	out->cycles = cycles - l->last_cycles;
	out->insns = insns - l->last_insns;
	out->ipc = out->cycles ? (double)out->insns / out->cycles : 0.0;
	out->n_ports = l->pt.n;
	for (unsigned p = 0; p < l->pt.n; p++) {
		uint64_t u = l->base_port[p] + st->port_uops[p];

		out->port_uops[p] = u - l->last_port[p];
		out->port_pressure[p] = out->cycles ? (double)out->port_uops[p] / out->cycles : 0.0;
		l->last_port[p] = u;
	}
	out->total_insns = insns;
	out->total_cycles = cycles;
	l->last_cycles = cycles;
	l->last_insns = insns;
}

unsigned
sched_live_hot_blocks(const struct sched_live *l, struct sched_live_block *out, unsigned max)
{
	unsigned n = 0;

	/* Insertion into a short sorted list: max is small. */
	for (size_t i = 0; i < l->n_blocks; i++) {
		const struct sched_live_block *b = &l->blocks[i].b;
		unsigned j = n < max ? n : max;

		if (j == max && (max == 0 || out[max - 1].insns_executed >= b->insns_executed))
			continue;
		while (j > 0 && out[j - 1].insns_executed < b->insns_executed) {
			if (j < max)
				out[j] = out[j - 1];
			j--;
		}
		if (j < max)
			out[j] = *b;
		if (n < max)
			n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* The static report of a block                                        */

struct sbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void __attribute__((format(printf, 2, 3)))
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if ((size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		{
			size_t cap = (b->cap + (size_t)n + 1) * 2;
			char *ns = realloc(b->s, cap);

			if (!ns) {
				b->failed = true;
				return;
			}
			b->s = ns;
			b->cap = cap;
		}
	}
}

static void
sb_str(struct sbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20)
			sb_printf(b, "\\u%04x", c);
		else
			sb_printf(b, "%c", c);
	}
	sb_printf(b, "\"");
}

char *
sched_live_block_report(const struct sched_live *l, const struct sched_live_block *blk,
			unsigned iterations)
{
	struct ua_insn *ui = NULL;
	struct sched_insn *si = NULL;
	char (*text)[96] = NULL;
	unsigned n = 0;
	struct sched_result r;
	struct sched_params p = { .iterations = iterations ? iterations : 100 };
	struct sbuf b = { NULL, 0, 0, false };
	char *ret = NULL;

	memset(&r, 0, sizeof(r));
	if (!blk->n_bytes)
		return NULL;
	ui = calloc(blk->n_insns + 1, sizeof(*ui));
	si = calloc(blk->n_insns + 1, sizeof(*si));
	text = calloc(blk->n_insns + 1, sizeof(*text));
	if (!ui || !si || !text)
		goto out;
	for (unsigned off = 0; off < blk->n_bytes && n < blk->n_insns;) {
		struct insn_info ii;
		struct sched_mapping m;

		if (insn_decode(blk->bytes + off, blk->n_bytes - off, blk->start_pc + off, &ii) < 0)
			goto out;
		insn_format(&ii, true, text[n], sizeof(text[n]));
		if (sched_map(ii.bytes, ii.len, &m) < 0 ||
		    sched_insn_init(l->model, &ii, &m, &si[n]) < 0) {
			ui[n].len = ii.len;
			ui[n].fused = 1;
			ui[n].n_uops = ui[n].n_op = 1;
			ui[n].op_lat = 1;
			ui[n].uops[0] = (struct ua_uop){ l->pt.alu, UA_OP, 0, 0 };
		} else {
			ua_insn_build(l->model, l->ua, &l->pt, &ii, &m, &si[n], &ui[n]);
		}
		off += ii.len;
		n++;
	}
	if (!n || ua_run_block(l->model, l->ua, &p, UA_TP_LOOP, ui, n, &r) < 0)
		goto out;
	sb_printf(&b, "{\"cpu\": \"%s\", \"model\": \"corrected\", \"throughput_mode\": \"loop\", "
		  "\"start_pc\": %llu, \"instructions\": %u, \"iterations\": %u, "
		  "\"total_cycles\": %llu, \"total_uops\": %llu, \"throughput\": %.4f, "
		  "\"ipc\": %.4f, \"block_rthroughput\": %.4f, \"bound_issue\": %.4f, "
		  "\"bound_ports\": %.4f, \"bound_deps\": %.4f, \"ports\": [", l->ua->name,
		  (unsigned long long)blk->start_pc, n, r.iterations,
		  (unsigned long long)r.total_cycles, (unsigned long long)r.total_uops,
		  r.throughput, r.total_cycles ? (double)r.total_insns / r.total_cycles : 0.0,
		  r.block_rthroughput, r.stats.bound_issue, r.stats.bound_ports,
		  r.stats.bound_deps);
	for (unsigned c = 0; c < r.n_columns; c++) {
		sb_printf(&b, "%s", c ? ", " : "");
		sb_str(&b, r.column_names[c]);
	}
	sb_printf(&b, "], \"instruction_info\": [");
	for (unsigned i = 0; i < n; i++) {
		sb_printf(&b, "%s{\"text\": ", i ? ", " : "");
		sb_str(&b, text[i]);
		sb_printf(&b, ", \"uops\": %u, \"latency\": %u, \"pressure\": [", ui[i].fused,
			  si[i].latency);
		for (unsigned c = 0; c < r.n_columns; c++)
			sb_printf(&b, "%s%.4f", c ? ", " : "",
				  r.pressure[i * r.n_columns + c] / r.iterations);
		sb_printf(&b, "]}");
	}
	sb_printf(&b, "]}");
	if (!b.failed) {
		ret = b.s;
		b.s = NULL;
	}
out:
	free(b.s);
	sched_result_free(&r);
	free(ui);
	free(si);
	free(text);
	return ret;
}
