/*
 * llvm-mca's default pipeline, cycle by cycle, in C: retire, then
 * execute (write-back of finished instructions, issue of ready ones to
 * resource units), then dispatch (issue width, reorder buffer, scheduler
 * buffers), each cycle in that order as llvm::mca::Pipeline::runCycle()
 * runs its stages.  The resource manager (unit masks, group selection
 * round-robin, reserved groups), the initialisation of an instruction's
 * resource usage from LLVM's expanded WriteProcRes list, the scheduler's
 * age-and-users priority and the load/store unit's memory groups follow
 * LLVM 14's lib/MCA so that, given the same per-instruction data, the
 * cycle counts are llvm-mca's.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "sched_pipeline.h"

const struct sched_model *
sched_model_find(const char *name)
{
	static const struct {
		const char *alias, *model;
	} aliases[] = {
		{ "ivybridge", "sandybridge" },
		{ "skylake-avx512", "skylake" },
		{ "cascadelake", "skylake" },
		{ "alderlake-p", "alderlake" },
	};

	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].alias) == 0)
			name = aliases[i].model;
	for (const struct sched_model *m = sched_models; m->name; m++)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Instruction records                                                 */

static bool
vex_or_evex(const struct insn_info *ii)
{
	for (unsigned i = 0; i < ii->len; i++) {
		uint8_t b = ii->bytes[i];

		if (b == 0x66 || b == 0x67 || b == 0xF2 || b == 0xF3 || b == 0x2E ||
		    b == 0x36 || b == 0x3E || b == 0x26 || b == 0x64 || b == 0x65 ||
		    b == 0xF0 || (b & 0xF0) == 0x40)
			continue;
		return b == 0xC4 || b == 0xC5 || b == 0x62;
	}
	return false;
}

static bool
is_address_reg(const struct insn_info *ii, reg_id full)
{
	for (unsigned i = 0; i < ii->n_mem; i++) {
		reg_id b = ii->mem[i].base, x = ii->mem[i].index;

		if ((b && ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, b) == full) ||
		    (x && ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, x) == full))
			return true;
	}
	return false;
}

static void
add_operand(struct sched_operand *ops, unsigned *n, uint16_t reg, uint8_t adv, uint8_t partial)
{
	for (unsigned i = 0; i < *n; i++) {
		if (ops[i].reg == reg) {
			if (adv < ops[i].read_advance)
				ops[i].read_advance = adv;
			if (!partial)
				ops[i].partial = 0;
			return;
		}
	}
	if (*n < SCHED_MAX_OPERANDS)
		ops[(*n)++] = (struct sched_operand){ reg, adv, partial };
}

/* ReadAfterLd class of a register source of a load-op instruction. */
static uint8_t
read_advance_for(const struct sched_model *model, reg_id reg)
{
	switch (ZydisRegisterGetClass(reg)) {
	case ZYDIS_REGCLASS_MMX:
		return model->read_advance[1];
	case ZYDIS_REGCLASS_XMM:
		return model->read_advance[2];
	case ZYDIS_REGCLASS_YMM:
	case ZYDIS_REGCLASS_ZMM:
		return model->read_advance[3];
	default:
		return model->read_advance[0];
	}
}

static void
insn_from_desc(const struct sched_model *model, uint32_t opcode, struct sched_insn *si)
{
	const struct sched_desc *d = &model->descs[model->by_opcode[opcode]];

	si->opcode = opcode;
	si->uops = d->uops;
	si->latency = d->latency;
	si->rthroughput = d->rthroughput_x100 / 100.0;
	si->may_load = (d->flags & SCHED_MAY_LOAD) != 0;
	si->may_store = (d->flags & SCHED_MAY_STORE) != 0;
	si->n_uses = d->n_uses < SCHED_MAX_USES ? d->n_uses : SCHED_MAX_USES;
	memcpy(si->uses, &model->uses[d->first_use], si->n_uses * sizeof(si->uses[0]));
}

int
sched_insn_init(const struct sched_model *model, const struct insn_info *ii,
		const struct sched_mapping *m, struct sched_insn *si)
{
	bool vex = vex_or_evex(ii);
	const struct sched_desc *d;

	memset(si, 0, sizeof(*si));
	si->opcode = m->opcode;
	si->has_side_effects = (ii->flags & (INSN_LOCK | INSN_SYSCALL)) != 0;
	if (!m->opcode || !model->by_opcode[m->opcode]) {
		si->uops = 1;
		return -1;
	}
	d = &model->descs[model->by_opcode[m->opcode]];
	insn_from_desc(model, m->opcode, si);
	/* The idiom rules apply where the model says the cost varies. */
	if (d->flags & SCHED_VARIANT) {
		si->zero_idiom = m->zero_idiom;
		si->dep_breaking = m->dep_breaking;
	}
	if (si->zero_idiom) {
		si->latency = 0;
		si->n_uses = 0;
	}
	if (!si->dep_breaking) {
		for (unsigned i = 0; i < ii->n_regs_read; i++) {
			reg_id r = ii->regs_read[i];
			reg_id full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
			uint8_t adv = 0;

			if (!full)
				continue;
			if (si->may_load && !is_address_reg(ii, full))
				adv = read_advance_for(model, r);
			add_operand(si->reads, &si->n_reads, full, adv, 0);
		}
		if (ii->flags_read)
			add_operand(si->reads, &si->n_reads, SCHED_REG_FLAGS,
				    si->may_load ? model->read_advance[0] : 0, 0);
	}
	for (unsigned i = 0; i < ii->n_regs_written; i++) {
		reg_id r = ii->regs_written[i];
		reg_id full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
		ZydisRegisterClass rc = ZydisRegisterGetClass(r);
		uint8_t partial = rc == ZYDIS_REGCLASS_GPR8 || rc == ZYDIS_REGCLASS_GPR16 ||
				  (rc == ZYDIS_REGCLASS_XMM && !vex);

		if (full)
			add_operand(si->writes, &si->n_writes, full, 0, partial);
	}
	if (ii->flags_written)
		add_operand(si->writes, &si->n_writes, SCHED_REG_FLAGS, 0, 0);
	return 0;
}

int
sched_insn_lock_prefix(const struct sched_model *model, struct sched_insn *si)
{
	uint32_t op = sched_opcode_find("LOCK_PREFIX");

	memset(si, 0, sizeof(*si));
	si->uops = 1;
	si->has_side_effects = true;
	if (!op || !model->by_opcode[op])
		return -1;
	insn_from_desc(model, op, si);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Resources (llvm::mca::ResourceManager)                              */

struct res_state {
	uint64_t mask;		/* leading bit + member unit bits for groups */
	uint64_t size_mask;	/* all sub-resources */
	uint64_t ready_mask;	/* available sub-resources */
	int available_slots, buffer;
	bool is_group, reserved;
	unsigned num_units;
	/* DefaultResourceStrategy */
	uint64_t unit_mask, next_in_seq, removed;
	int column;		/* first pressure column (units only), else -1 */
};

struct res_use {		/* InstrDesc::Resources entry */
	uint64_t mask;
	unsigned cycles, num_units;
	bool reserved;
};

struct insn_desc {
	unsigned n_res;
	struct res_use res[SCHED_MAX_USES];
	uint64_t used_buffers, used_groups;
	unsigned uops, latency;
	bool zero_latency;
};

struct busy {
	uint64_t rsrc, sub;	/* (resource, unit) or (group, group) when reserved */
	unsigned cycles;
};

struct rm {
	struct res_state rs[64];
	uint64_t resource2groups[64];
	uint64_t proc_res_unit_mask, reserved_groups;
	uint64_t model_mask[SCHED_MAX_RESOURCES];
	struct busy *busy;
	unsigned n_busy, cap_busy;
};

static unsigned
popcount(uint64_t x)
{
	return (unsigned)__builtin_popcountll(x);
}

static unsigned
state_index(uint64_t mask)
{
	return 63u - (unsigned)__builtin_clzll(mask);
}

static uint64_t
pow2_floor(uint64_t x)
{
	return x ? 1ULL << state_index(x) : 0;
}

static void
rm_init(struct rm *rm, const struct sched_model *model, unsigned *n_columns)
{
	unsigned id = 0, col = 0;

	memset(rm, 0, sizeof(*rm));
	for (unsigned i = 0; i < model->n_resources; i++)
		if (!model->resources[i].is_group)
			rm->model_mask[i] = 1ULL << id++;
	for (unsigned i = 0; i < model->n_resources; i++) {
		uint64_t mem = model->resources[i].members;

		if (!model->resources[i].is_group)
			continue;
		rm->model_mask[i] = 1ULL << id++;
		for (unsigned j = 0; j < model->n_resources; j++)
			if (mem & (1ULL << j))
				rm->model_mask[i] |= rm->model_mask[j];
	}
	for (unsigned i = 0; i < model->n_resources; i++) {
		const struct sched_resource *d = &model->resources[i];
		uint64_t mask = rm->model_mask[i];
		struct res_state *rs = &rm->rs[state_index(mask)];

		rs->mask = mask;
		rs->is_group = popcount(mask) > 1;
		rs->num_units = d->units;
		rs->size_mask = rs->is_group ? mask ^ (1ULL << state_index(mask))
					     : (d->units >= 64 ? ~0ULL : (1ULL << d->units) - 1);
		rs->ready_mask = rs->size_mask;
		rs->buffer = d->buffer;
		rs->available_slots = d->buffer < 0 ? 0 : d->buffer;
		rs->unit_mask = rs->next_in_seq = rs->size_mask;
		rs->column = -1;
		if (!rs->is_group) {
			rs->column = (int)col;
			col += d->units;
			rm->proc_res_unit_mask |= mask;
		} else {
			uint64_t m = mask ^ (1ULL << state_index(mask));

			while (m) {
				uint64_t unit = m & (~m + 1);

				rm->resource2groups[state_index(unit)] |= 1ULL << state_index(mask);
				m ^= unit;
			}
		}
	}
	*n_columns = col;
}

static uint64_t
strategy_select(struct res_state *rs, uint64_t ready)
{
	uint64_t cand = ready & rs->next_in_seq;

	if (cand) {
		cand = pow2_floor(cand);
		rs->next_in_seq &= cand | (cand - 1);
		return cand;
	}
	rs->next_in_seq = rs->unit_mask ^ rs->removed;
	rs->removed = 0;
	cand = ready & rs->next_in_seq;
	if (cand) {
		cand = pow2_floor(cand);
		rs->next_in_seq &= cand | (cand - 1);
		return cand;
	}
	rs->next_in_seq = rs->unit_mask;
	cand = pow2_floor(ready & rs->next_in_seq);
	rs->next_in_seq &= cand | (cand - 1);
	return cand;
}

static void
strategy_used(struct res_state *rs, uint64_t mask)
{
	if (mask > rs->next_in_seq) {
		rs->removed |= mask;
		return;
	}
	rs->next_in_seq &= ~mask;
	if (rs->next_in_seq)
		return;
	rs->next_in_seq = rs->unit_mask ^ rs->removed;
	rs->removed = 0;
}

static bool
rs_ready(const struct res_state *rs, unsigned num_units)
{
	return !rs->reserved && popcount(rs->ready_mask) >= num_units;
}

static void
rm_select_pipe(struct rm *rm, uint64_t id, uint64_t *rsrc, uint64_t *sub)
{
	for (;;) {
		struct res_state *rs = &rm->rs[state_index(id)];
		uint64_t s;

		if (!rs->is_group && rs->num_units == 1) {
			*rsrc = id;
			*sub = rs->ready_mask;
			return;
		}
		s = strategy_select(rs, rs->ready_mask);
		if (!rs->is_group) {
			*rsrc = id;
			*sub = s;
			return;
		}
		id = s;
	}
}

static void
rm_use(struct rm *rm, uint64_t rsrc, uint64_t sub)
{
	unsigned idx = state_index(rsrc);
	struct res_state *rs = &rm->rs[idx];
	uint64_t users;

	rs->ready_mask ^= sub;
	if (rs->num_units > 1)
		strategy_used(rs, sub);
	if (rs->ready_mask)
		return;
	users = rm->resource2groups[idx];
	while (users) {
		unsigned g = state_index(users & (~users + 1));

		rm->rs[g].ready_mask ^= rsrc;
		strategy_used(&rm->rs[g], rsrc);
		users &= users - 1;
	}
}

static void
rm_release(struct rm *rm, uint64_t rsrc, uint64_t sub)
{
	unsigned idx = state_index(rsrc);
	struct res_state *rs = &rm->rs[idx];
	bool was_full = rs->ready_mask == 0;
	uint64_t users;

	rs->ready_mask |= sub;
	if (!was_full)
		return;
	users = rm->resource2groups[idx];
	while (users) {
		unsigned g = state_index(users & (~users + 1));

		rm->rs[g].ready_mask |= rsrc;
		users &= users - 1;
	}
}

static bool
rm_can_issue(const struct rm *rm, const struct insn_desc *d)
{
	for (unsigned i = 0; i < d->n_res; i++) {
		const struct res_use *u = &d->res[i];

		if (!rs_ready(&rm->rs[state_index(u->mask)], u->reserved ? 0 : u->num_units))
			return false;
	}
	return (d->used_groups & rm->reserved_groups) == 0;
}

static bool
rm_buffers_available(const struct rm *rm, uint64_t buffers)
{
	while (buffers) {
		uint64_t b = buffers & (~buffers + 1);
		const struct res_state *rs = &rm->rs[state_index(b)];

		if (rs->buffer > 0 && rs->available_slots == 0)
			return false;
		buffers ^= b;
	}
	return true;
}

static void
rm_buffers_adjust(struct rm *rm, uint64_t buffers, int delta)
{
	while (buffers) {
		uint64_t b = buffers & (~buffers + 1);
		struct res_state *rs = &rm->rs[state_index(b)];

		if (rs->buffer > 0)
			rs->available_slots += delta;
		buffers ^= b;
	}
}

static int
rm_add_busy(struct rm *rm, uint64_t rsrc, uint64_t sub, unsigned cycles)
{
	for (unsigned i = 0; i < rm->n_busy; i++) {
		if (rm->busy[i].rsrc == rsrc && rm->busy[i].sub == sub) {
			rm->busy[i].cycles += cycles;
			return 0;
		}
	}
	if (rm->n_busy == rm->cap_busy) {
		unsigned cap = rm->cap_busy ? rm->cap_busy * 2 : 32;
		struct busy *nb = realloc(rm->busy, cap * sizeof(*nb));

		if (!nb)
			return -1;
		rm->busy = nb;
		rm->cap_busy = cap;
	}
	rm->busy[rm->n_busy++] = (struct busy){ rsrc, sub, cycles };
	return 0;
}

/* Decrement busy cycles; release what reaches zero. */
static void
rm_cycle_event(struct rm *rm)
{
	unsigned k = 0;

	for (unsigned i = 0; i < rm->n_busy; i++) {
		struct busy *b = &rm->busy[i];

		if (b->cycles)
			b->cycles--;
		if (b->cycles) {
			rm->busy[k++] = *b;
			continue;
		}
		if (popcount(b->rsrc) == 1)
			rm_release(rm, b->rsrc, b->sub);
		else
			rm->rs[state_index(b->rsrc)].reserved = false;
		if (popcount(b->rsrc) > 1)
			rm->reserved_groups &= ~b->rsrc;
	}
	rm->n_busy = k;
}

/* Build an instruction's resource usage the way llvm-mca's InstrBuilder
 * does: units before groups, a group's cycles minus those of the
 * resources it contains, reserved groups when a group needs more units
 * than it has. */
static void
desc_init(const struct rm *rm, const struct sched_model *model, const struct sched_insn *si,
	  struct insn_desc *d)
{
	struct res_use w[SCHED_MAX_USES];
	unsigned n = 0;
	uint64_t used_units = 0;

	memset(d, 0, sizeof(*d));
	d->uops = si->uops;
	d->latency = si->latency;
	for (unsigned i = 0; i < si->n_uses && n < SCHED_MAX_USES; i++) {
		unsigned r = si->uses[i].resource;

		if (!si->uses[i].cycles)
			continue;
		if (model->resources[r].buffer >= 0)
			d->used_buffers |= 1ULL << state_index(rm->model_mask[r]);
		w[n++] = (struct res_use){ rm->model_mask[r], si->uses[i].cycles, 1, false };
	}
	for (unsigned i = 1; i < n; i++) {
		struct res_use t = w[i];
		unsigned j = i;

		while (j > 0 && (popcount(w[j - 1].mask) > popcount(t.mask) ||
				 (popcount(w[j - 1].mask) == popcount(t.mask) && w[j - 1].mask > t.mask))) {
			w[j] = w[j - 1];
			j--;
		}
		w[j] = t;
	}
	for (unsigned i = 0; i < n; i++) {
		struct res_use *a = &w[i];
		uint64_t norm = a->mask;

		if (!a->cycles) {
			d->used_groups |= pow2_floor(a->mask);
			continue;
		}
		d->res[d->n_res++] = *a;
		if (popcount(a->mask) == 1) {
			used_units |= a->mask;
		} else {
			uint64_t avail;

			norm ^= pow2_floor(norm);
			d->used_groups |= a->mask ^ norm;
			avail = norm & ~used_units;
			if (norm != avail && popcount(avail) == 1)
				used_units |= avail;
		}
		for (unsigned j = i + 1; j < n; j++) {
			struct res_use *b = &w[j];

			if ((norm & b->mask) == norm) {
				b->cycles = b->cycles > a->cycles ? b->cycles - a->cycles : 0;
				if (popcount(b->mask) > 1)
					b->num_units++;
			}
		}
	}
	for (unsigned i = 0; i < d->n_res; i++) {
		struct res_use *u = &d->res[i];

		if (popcount(u->mask) > 1) {
			uint64_t m = u->mask ^ pow2_floor(u->mask);

			if (u->num_units > popcount(m)) {
				u->reserved = true;
				u->num_units = popcount(m);
			}
		}
	}
	d->zero_latency = d->latency == 0 && d->n_res == 0;
}

/* ------------------------------------------------------------------ */
/* Load/store unit (llvm::mca::LSUnit memory groups)                   */

enum { EDGE_ORDER, EDGE_DATA, EDGE_RELEASED };

struct mem_group {
	unsigned n_instr, n_issued, n_executed;
	unsigned n_pred, n_executed_pred;
	/* successors: index into the group array; order successors are
	 * released when this group has issued, data ones when it executed */
	unsigned *succ;
	uint8_t *succ_data;
	unsigned n_succ, cap_succ;
};

struct lsu {
	struct mem_group *g;
	unsigned n, cap;
	unsigned cur_load, cur_store;	/* 0 = none; ids are index + 1 */
	bool noalias;
};

static struct mem_group *
grp(struct lsu *l, unsigned id)
{
	return &l->g[id - 1];
}

static int
lsu_new_group(struct lsu *l)
{
	if (l->n == l->cap) {
		unsigned cap = l->cap ? l->cap * 2 : 64;
		struct mem_group *ng = realloc(l->g, cap * sizeof(*ng));

		if (!ng)
			return -1;
		l->g = ng;
		l->cap = cap;
	}
	memset(&l->g[l->n], 0, sizeof(l->g[0]));
	return (int)++l->n;
}

static int
lsu_add_succ(struct lsu *l, unsigned pred, unsigned succ, bool data)
{
	struct mem_group *p = grp(l, pred);

	if (p->n_succ == p->cap_succ) {
		unsigned cap = p->cap_succ ? p->cap_succ * 2 : 4;
		unsigned *ns = realloc(p->succ, cap * sizeof(*ns));
		uint8_t *nd;

		if (!ns)
			return -1;
		p->succ = ns;
		nd = realloc(p->succ_data, cap);
		if (!nd)
			return -1;
		p->succ_data = nd;
		p->cap_succ = cap;
	}
	p->succ[p->n_succ] = succ;
	p->succ_data[p->n_succ++] = data ? EDGE_DATA : EDGE_ORDER;
	grp(l, succ)->n_pred++;
	/* A predecessor already past the point that releases this edge. */
	if ((!data && p->n_issued == p->n_instr) || (data && p->n_executed == p->n_instr)) {
		grp(l, succ)->n_executed_pred++;
		p->succ_data[p->n_succ - 1] = EDGE_RELEASED;
	}
	return 0;
}

/* Every instruction of the group issued, some still executing: a new
 * load may not join it (MemoryGroup::isExecuting). */
static bool
lsu_executing(struct lsu *l, unsigned id)
{
	struct mem_group *g = grp(l, id);

	return g->n_issued == g->n_instr && g->n_issued > g->n_executed;
}

/* Returns the group id, or -1 on allocation failure. */
static int
lsu_dispatch(struct lsu *l, bool load, bool store)
{
	int id;

	if (store) {
		unsigned dom = l->cur_load;

		id = lsu_new_group(l);
		if (id < 0)
			return -1;
		grp(l, (unsigned)id)->n_instr = 1;
		if (dom && lsu_add_succ(l, dom, (unsigned)id, !l->noalias) < 0)
			return -1;
		if (l->cur_store && lsu_add_succ(l, l->cur_store, (unsigned)id, true) < 0)
			return -1;
		l->cur_store = (unsigned)id;
		if (load)
			l->cur_load = (unsigned)id;
		return id;
	}
	if (!l->cur_load || l->cur_load <= l->cur_store || lsu_executing(l, l->cur_load)) {
		id = lsu_new_group(l);
		if (id < 0)
			return -1;
		grp(l, (unsigned)id)->n_instr = 1;
		if (!l->noalias && l->cur_store &&
		    lsu_add_succ(l, l->cur_store, (unsigned)id, true) < 0)
			return -1;
		l->cur_load = (unsigned)id;
		return id;
	}
	grp(l, l->cur_load)->n_instr++;
	return (int)l->cur_load;
}

static bool
lsu_ready(struct lsu *l, unsigned id)
{
	struct mem_group *g = grp(l, id);

	return g->n_executed_pred == g->n_pred;
}

static void
lsu_issued(struct lsu *l, unsigned id)
{
	struct mem_group *g = grp(l, id);

	if (++g->n_issued != g->n_instr)
		return;
	for (unsigned i = 0; i < g->n_succ; i++) {
		if (g->succ_data[i] == EDGE_ORDER) {
			grp(l, g->succ[i])->n_executed_pred++;
			g->succ_data[i] = EDGE_RELEASED;
		}
	}
}

static void
lsu_executed(struct lsu *l, unsigned id)
{
	struct mem_group *g = grp(l, id);

	if (++g->n_executed != g->n_instr)
		return;
	for (unsigned i = 0; i < g->n_succ; i++) {
		if (g->succ_data[i] == EDGE_DATA) {
			grp(l, g->succ[i])->n_executed_pred++;
			g->succ_data[i] = EDGE_RELEASED;
		}
	}
}

static void
lsu_free(struct lsu *l)
{
	for (unsigned i = 0; i < l->n; i++) {
		free(l->g[i].succ);
		free(l->g[i].succ_data);
	}
	free(l->g);
}

/* ------------------------------------------------------------------ */
/* The pipeline                                                        */

enum dyn_state { D_NEW, D_DISPATCHED, D_ISSUED, D_EXECUTED, D_RETIRED };

struct dep {
	uint32_t prod;
	uint8_t advance;
};

struct dyn {
	uint8_t state;
	int32_t mem_group;	/* 0 = not a memory operation */
	uint32_t dispatched, issued, executed, retired, ready;
	unsigned cycles_left, num_users, n_deps;
	struct dep deps[2 * SCHED_MAX_OPERANDS];
};

/* Last writers of a register: the last full write and a later partial
 * one (a read depends on both, as llvm-mca's sub-register mappings do). */
struct reg_map {
	int64_t full, partial;
};

#define N_REG_SLOTS	(ZYDIS_REGISTER_MAX_VALUE + 2)

static unsigned
reg_slot(uint16_t reg)
{
	return reg == SCHED_REG_FLAGS ? ZYDIS_REGISTER_MAX_VALUE + 1 : reg;
}

static unsigned
retire_per_cycle(const struct sched_model *model)
{
	/* RetireControlUnit<..., MaxRetirePerCycle> of LLVM's models (not
	 * part of the dump): Jaguar retires 2 per cycle, Zen 3/4 8. */
	if (strcmp(model->name, "btver2") == 0)
		return 2;
	if (strcmp(model->name, "znver3") == 0 || strcmp(model->name, "znver4") == 0)
		return 8;
	return 0;
}

static bool
dyn_regs_ready(const struct dyn *dy, const struct dyn *all, const struct insn_desc *descs,
	       unsigned n, uint32_t cycle)
{
	for (unsigned i = 0; i < dy->n_deps; i++) {
		const struct dyn *p = &all[dy->deps[i].prod];
		unsigned lat = descs[dy->deps[i].prod % n].latency;
		unsigned wait = lat > dy->deps[i].advance ? lat - dy->deps[i].advance : 0;

		if (p->state < D_ISSUED || cycle < p->issued + wait)
			return false;
	}
	return true;
}

int
sched_run(const struct sched_model *model, const struct sched_params *p,
	  const struct sched_insn *insns, unsigned n, struct sched_result *r)
{
	unsigned iters = p->iterations ? p->iterations : 100;
	unsigned width = p->dispatch_width ? p->dispatch_width : model->issue_width;
	unsigned rob = p->micro_op_buffer_size ? p->micro_op_buffer_size : model->micro_op_buffer_size;
	unsigned max_retire = retire_per_cycle(model);
	unsigned tl_iters = p->timeline_max_iterations;
	uint64_t total = (uint64_t)iters * n, next = 0, retired = 0, head = 0;
	struct insn_desc *descs = NULL;
	struct dyn *dyn = NULL;
	struct reg_map *regs = NULL;
	uint64_t *pending = NULL;	/* dispatched, not issued, in dispatch order */
	uint64_t *issued = NULL;	/* issued, not executed */
	unsigned n_pending = 0, n_issued = 0;
	unsigned rob_avail = rob, carry = 0;
	struct rm rm;
	struct lsu lsu = { .noalias = p->noalias };
	unsigned ncols;
	double usage[SCHED_MAX_RESOURCES] = { 0 };
	uint32_t cycle;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (!n)
		return -1;
	rm_init(&rm, model, &ncols);
	descs = calloc(n, sizeof(*descs));
	dyn = calloc(total, sizeof(*dyn));
	regs = malloc(N_REG_SLOTS * sizeof(*regs));
	pending = malloc(total * sizeof(*pending));
	issued = malloc(total * sizeof(*issued));
	r->pressure = calloc((size_t)n * (ncols ? ncols : 1), sizeof(double));
	r->column_names = calloc(ncols ? ncols : 1, sizeof(*r->column_names));
	if (tl_iters > iters)
		tl_iters = iters;
	r->timeline = calloc((size_t)tl_iters * n + 1, sizeof(*r->timeline));
	if (!descs || !dyn || !regs || !pending || !issued || !r->pressure ||
	    !r->column_names || !r->timeline)
		goto out;
	for (unsigned i = 0; i < N_REG_SLOTS; i++)
		regs[i].full = regs[i].partial = -1;
	for (unsigned i = 0; i < n; i++)
		desc_init(&rm, model, &insns[i], &descs[i]);
	for (unsigned i = 0; i < model->n_resources; i++) {
		const struct sched_resource *res = &model->resources[i];
		int col = rm.rs[state_index(rm.model_mask[i])].column;

		if (res->is_group)
			continue;
		for (unsigned u = 0; u < res->units; u++) {
			if (res->units > 1)
				snprintf(r->column_names[col + (int)u], 32, "%s.%u", res->name, u);
			else
				snprintf(r->column_names[col + (int)u], 32, "%s", res->name);
		}
	}

	for (cycle = 0; retired < total; cycle++) {
		unsigned avail, n_ret = 0;

		/* Retire stage. */
		while (head < total && dyn[head].state == D_EXECUTED &&
		       (!max_retire || n_ret < max_retire)) {
			struct dyn *d = &dyn[head];
			unsigned uops = descs[head % n].uops;

			d->state = D_RETIRED;
			d->retired = cycle;
			rob_avail += uops ? (uops < rob ? uops : rob) : 1;
			head++;
			retired++;
			n_ret++;
		}

		/* Execute stage: write-back, then issue. */
		rm_cycle_event(&rm);
		for (unsigned i = 0; i < n_issued;) {
			struct dyn *d = &dyn[issued[i]];

			if (d->cycles_left)
				d->cycles_left--;
			if (d->cycles_left) {
				i++;
				continue;
			}
			d->state = D_EXECUTED;
			d->executed = cycle;
			if (d->mem_group)
				lsu_executed(&lsu, (unsigned)d->mem_group);
			memmove(&issued[i], &issued[i + 1], (n_issued - i - 1) * sizeof(*issued));
			n_issued--;
		}
		for (;;) {
			int best = -1;
			long best_rank = 0;
			uint64_t id;
			struct dyn *d;
			const struct insn_desc *ds;

			for (unsigned i = 0; i < n_pending; i++) {
				uint64_t k = pending[i];
				struct dyn *c = &dyn[k];
				long rank = (long)k - (long)c->num_users;

				if (c->ready == UINT32_MAX) {
					if (!dyn_regs_ready(c, dyn, descs, n, cycle))
						continue;
					if (c->mem_group && !lsu_ready(&lsu, (unsigned)c->mem_group))
						continue;
					c->ready = cycle;
				}
				if (best >= 0 && (rank > best_rank ||
						  (rank == best_rank && k > pending[best])))
					continue;
				if (!rm_can_issue(&rm, &descs[k % n]))
					continue;
				best = (int)i;
				best_rank = rank;
			}
			if (best < 0)
				break;
			id = pending[best];
			memmove(&pending[best], &pending[best + 1],
				(n_pending - (unsigned)best - 1) * sizeof(*pending));
			n_pending--;
			d = &dyn[id];
			ds = &descs[id % n];
			rm_buffers_adjust(&rm, ds->used_buffers, +1);
			for (unsigned i = 0; i < ds->n_res; i++) {
				const struct res_use *u = &ds->res[i];

				if (!u->reserved) {
					uint64_t rsrc, sub;

					rm_select_pipe(&rm, u->mask, &rsrc, &sub);
					rm_use(&rm, rsrc, sub);
					if (rm_add_busy(&rm, rsrc, sub, u->cycles) < 0)
						goto out;
					{
						const struct res_state *rs = &rm.rs[state_index(rsrc)];
						int col = rs->column + (rs->num_units > 1 ? (int)state_index(sub) : 0);

						if (col >= 0)
							r->pressure[(id % n) * ncols + (unsigned)col] += u->cycles;
					}
				} else {
					rm.rs[state_index(u->mask)].reserved = true;
					rm.reserved_groups |= u->mask;
					if (rm_add_busy(&rm, u->mask, u->mask, u->cycles) < 0)
						goto out;
				}
			}
			d->issued = cycle;
			d->cycles_left = ds->latency;
			if (d->mem_group)
				lsu_issued(&lsu, (unsigned)d->mem_group);
			if (ds->latency) {
				d->state = D_ISSUED;
				issued[n_issued++] = id;
			} else {
				d->state = D_EXECUTED;
				d->executed = cycle;
				if (d->mem_group)
					lsu_executed(&lsu, (unsigned)d->mem_group);
			}
		}

		/* Dispatch stage. */
		if (carry) {
			avail = carry >= width ? 0 : width - carry;
			carry -= width - avail;
		} else {
			avail = width;
		}
		while (next < total) {
			const struct sched_insn *si = &insns[next % n];
			const struct insn_desc *ds = &descs[next % n];
			struct dyn *d = &dyn[next];
			unsigned uops = ds->uops;
			unsigned need = uops < width ? uops : width;
			unsigned entries = uops ? (uops < rob ? uops : rob) : 1;

			if (need > avail || entries > rob_avail ||
			    !rm_buffers_available(&rm, ds->used_buffers))
				break;
			if (uops > width) {
				avail = 0;
				carry = uops - width;
			} else {
				avail -= uops;
			}
			rob_avail -= entries;
			for (unsigned i = 0; i < si->n_reads; i++) {
				struct reg_map *m = &regs[reg_slot(si->reads[i].reg)];
				int64_t w[2] = { m->full, m->partial };

				for (int k = 0; k < 2; k++) {
					struct dyn *pd;

					if (w[k] < 0)
						continue;
					pd = &dyn[w[k]];
					if (pd->state >= D_EXECUTED)
						continue;
					if (pd->state < D_ISSUED)
						pd->num_users++;
					d->deps[d->n_deps++] = (struct dep){ (uint32_t)w[k],
									     si->reads[i].read_advance };
				}
			}
			for (unsigned i = 0; i < si->n_writes; i++) {
				struct reg_map *m = &regs[reg_slot(si->writes[i].reg)];

				if (si->writes[i].partial) {
					m->partial = (int64_t)next;
				} else {
					m->full = (int64_t)next;
					m->partial = -1;
				}
			}
			rm_buffers_adjust(&rm, ds->used_buffers, -1);
			if (si->may_load || si->may_store) {
				int g = lsu_dispatch(&lsu, si->may_load, si->may_store);

				if (g < 0)
					goto out;
				d->mem_group = g;
			}
			d->state = D_DISPATCHED;
			d->dispatched = cycle;
			d->ready = UINT32_MAX;
			if (ds->zero_latency && dyn_regs_ready(d, dyn, descs, n, cycle) &&
			    (!d->mem_group || lsu_ready(&lsu, (unsigned)d->mem_group))) {
				d->ready = d->issued = d->executed = cycle;
				d->state = D_EXECUTED;
				rm_buffers_adjust(&rm, ds->used_buffers, +1);
				if (d->mem_group) {
					lsu_issued(&lsu, (unsigned)d->mem_group);
					lsu_executed(&lsu, (unsigned)d->mem_group);
				}
			} else {
				pending[n_pending++] = next;
			}
			next++;
			if (!avail)
				break;
		}
	}

	r->iterations = iters;
	r->n_insns = n;
	r->total_cycles = cycle;
	r->total_insns = total;
	r->dispatch_width = width;
	r->n_columns = ncols;
	for (unsigned i = 0; i < n; i++) {
		r->total_uops += (uint64_t)descs[i].uops * iters;
		for (unsigned k = 0; k < descs[i].n_res; k++) {
			for (unsigned j = 0; j < model->n_resources; j++)
				if (rm.model_mask[j] == descs[i].res[k].mask)
					usage[j] += descs[i].res[k].cycles;
		}
	}
	{
		unsigned uops = 0;
		double max;

		for (unsigned i = 0; i < n; i++)
			uops += descs[i].uops;
		max = (double)uops / width;
		for (unsigned j = 0; j < model->n_resources; j++)
			if (usage[j] / model->resources[j].units > max)
				max = usage[j] / model->resources[j].units;
		r->block_rthroughput = max;
	}
	r->timeline_iterations = tl_iters;
	for (uint64_t k = 0; k < (uint64_t)tl_iters * n; k++) {
		struct sched_timeline_entry *t = &r->timeline[k];

		t->dispatched = dyn[k].dispatched;
		t->ready = dyn[k].ready;
		t->issued = dyn[k].issued;
		t->executed = dyn[k].executed;
		t->retired = dyn[k].retired;
	}
	ret = 0;
out:
	if (ret < 0)
		sched_result_free(r);
	free(descs);
	free(dyn);
	free(regs);
	free(pending);
	free(issued);
	free(rm.busy);
	lsu_free(&lsu);
	return ret;
}

void
sched_result_free(struct sched_result *r)
{
	free(r->pressure);
	free(r->column_names);
	free(r->timeline);
	memset(r, 0, sizeof(*r));
}
