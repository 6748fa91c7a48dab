/*
 * The corrected scheduling model: a uop-level simulation of an Intel core
 * (front end, rename, per-port scheduler, retire) on top of LLVM's
 * per-instruction data.  See sched_uarch.h for what it models.
 *
 * Micro-architectural parameters are published facts: Intel's
 * optimization reference manual (issue/retire widths, ROB, RS, IDQ, load
 * and store buffers, predecode and decode rules, unlamination), the
 * measurements of uops.info and the parameters of uiCA (Abel and Reineke,
 * ICS 2022) for the details the manual leaves out.  No code is taken from
 * those projects.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "decoder.h"
#include "sched/sched_uarch.h"
#include "insn_zydis.h"

static const struct sched_uarch uarchs[] = {
	{
		.name = "skylake", .model = "skylake", .port_prefix = "SKLPort",
		.load_res = "SKLPort23", .sta_res = "SKLPort237", .std_res = "SKLPort4",
		.branch_res = "SKLPort06", .alu_res = "SKLPort0156",
		.issue_width = 4, .retire_width = 4, .rob = 224, .rs = 97, .idq = 64,
		.iq = 25, .lb = 72, .sb = 56,
		.predecode_width = 5, .predecode_bytes = 16, .decoders = 4, .decode_uops = 5,
		.dsb_width = 6, .dsb_window = 32, .ms_switch = 2, .fwd_delay = 0,
		.fwd_fail_delay = 7, .slow_lea = true, .false_dep_popcnt = true,
		.move_elim = true, .unlaminate_all = false, .fast_ptr_chase = true,
		.simple_sta_port = 7, .fwd_save = 1,
		.cc_complex = true, .cc_both_uop = 1, .partial_load_merge = true,
		.stack_page_miss = 9, .lzcnt_dep_fixed = true, .shift_cl_lat = 1,
		.load_ports_alternate = true,
	},
	{
		.name = "haswell", .model = "haswell", .port_prefix = "HWPort",
		.load_res = "HWPort23", .sta_res = "HWPort237", .std_res = "HWPort4",
		.branch_res = "HWPort06", .alu_res = "HWPort0156",
		.issue_width = 4, .retire_width = 4, .rob = 192, .rs = 60, .idq = 56,
		.iq = 20, .lb = 72, .sb = 42,
		.predecode_width = 5, .predecode_bytes = 16, .decoders = 4, .decode_uops = 4,
		.dsb_width = 4, .dsb_window = 32, .ms_switch = 2, .fwd_delay = 0,
		.fwd_fail_delay = 7, .slow_lea = true, .false_dep_popcnt = true,
		.move_elim = true, .unlaminate_all = false, .fast_ptr_chase = true,
		.simple_sta_port = 7,
		.fusible_not_last = true, .pop5c_complex = true,
		.cc_both_uop = 2, .cc_complex = true, .partial_load_merge = true,
		.stack_page_miss = 8, .shift_cl_lat = 1, .load_ports_alternate = true,
	},
	{
		.name = "ivybridge", .model = "sandybridge", .port_prefix = "SBPort",
		.load_res = "SBPort23", .sta_res = "SBPort23", .std_res = "SBPort4",
		.branch_res = "SBPort5", .alu_res = "SBPort015",
		.issue_width = 4, .retire_width = 4, .rob = 168, .rs = 54, .idq = 56,
		.iq = 20, .lb = 64, .sb = 36,
		.predecode_width = 5, .predecode_bytes = 16, .decoders = 4, .decode_uops = 4,
		.dsb_width = 4, .dsb_window = 32, .ms_switch = 2, .fwd_delay = 0,
		.fwd_fail_delay = 7, .slow_lea = true, .false_dep_popcnt = true,
		.move_elim = true, .unlaminate_all = true, .fast_ptr_chase = true,
		.simple_sta_port = UA_MAX_PORTS,
		.fusible_not_last = true, .pop5c_complex = true,
		.cc_both_uop = 1, .cc_complex = true, .stack_page_miss = 7, .shift_cl_lat = 1,
	},
	{
		.name = "sandybridge", .model = "sandybridge", .port_prefix = "SBPort",
		.load_res = "SBPort23", .sta_res = "SBPort23", .std_res = "SBPort4",
		.branch_res = "SBPort5", .alu_res = "SBPort015",
		.issue_width = 4, .retire_width = 4, .rob = 168, .rs = 54, .idq = 28,
		.iq = 20, .lb = 64, .sb = 36,
		.predecode_width = 5, .predecode_bytes = 16, .decoders = 4, .decode_uops = 4,
		.dsb_width = 4, .dsb_window = 32, .ms_switch = 2, .fwd_delay = 0,
		.fwd_fail_delay = 7, .slow_lea = true, .false_dep_popcnt = true,
		.move_elim = false, .unlaminate_all = true, .fast_ptr_chase = true,
		.simple_sta_port = UA_MAX_PORTS,
		.fusible_not_last = true, .pop5c_complex = true,
		.cc_both_uop = 1, .cc_complex = true, .shift_cl_lat = 1,
	},
	{
		.name = "alderlake", .model = "alderlake", .port_prefix = "ADLPPort",
		.load_res = "ADLPPort02_03_11", .sta_res = "ADLPPort07_08",
		.std_res = "ADLPPort04_09", .branch_res = "ADLPPort00_06",
		.alu_res = "ADLPPort00_01_05_06_10",
		.issue_width = 6, .retire_width = 8, .rob = 512, .rs = 160, .idq = 144,
		.iq = 50, .lb = 192, .sb = 114,
		.predecode_width = 6, .predecode_bytes = 32, .decoders = 6, .decode_uops = 6,
		.dsb_width = 8, .dsb_window = 64, .ms_switch = 2, .fwd_delay = 0,
		.fwd_fail_delay = 7, .slow_lea = false, .false_dep_popcnt = false,
		.move_elim = true, .unlaminate_all = false, .fast_ptr_chase = true,
		.simple_sta_port = UA_MAX_PORTS,
	},
};

const struct sched_uarch *
sched_uarch_find(const char *mcpu)
{
	static const struct {
		const char *alias, *name;
	} aliases[] = {
		{ "skylake-avx512", "skylake" }, { "cascadelake", "skylake" },
		{ "alderlake-p", "alderlake" },
	};

	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(mcpu, aliases[i].alias) == 0)
			mcpu = aliases[i].name;
	for (size_t i = 0; i < sizeof(uarchs) / sizeof(uarchs[0]); i++)
		if (strcmp(uarchs[i].name, mcpu) == 0)
			return &uarchs[i];
	return NULL;
}

/*
 * Instructions where LLVM's data are far from measurements (uops.info,
 * and BHive blocks dominated by them): fused uops, latency, cycles on the
 * divider, cycles the front end stops.
 */
static const struct ua_fix {
	const char *uarch, *opcode;
	uint8_t fused, latency, busy;
	uint16_t fe_stall;
} fixes[] = {
	{ "skylake", "DIV32r", 10, 26, 6, 0 },
	{ "skylake", "IDIV32r", 10, 26, 6, 0 },
	{ "skylake", "DIV64r", 36, 35, 21, 0 },
	{ "skylake", "IDIV64r", 57, 42, 24, 0 },
	{ "skylake", "PAUSE", 4, 1, 0, 140 },
	{ "haswell", "DIV32r", 9, 26, 9, 0 },
	{ "haswell", "IDIV32r", 9, 26, 8, 0 },
	{ "haswell", "DIV64r", 36, 35, 21, 0 },
	{ "haswell", "IDIV64r", 59, 42, 24, 0 },
	{ "haswell", "PAUSE", 5, 1, 0, 9 },
	{ "ivybridge", "DIV32r", 10, 26, 9, 0 },
	{ "ivybridge", "IDIV32r", 10, 26, 9, 0 },
	{ "ivybridge", "DIV64r", 36, 35, 21, 0 },
	{ "ivybridge", "IDIV64r", 59, 42, 24, 0 },
	{ "ivybridge", "PAUSE", 7, 1, 0, 10 },
	{ "sandybridge", "PAUSE", 7, 1, 0, 10 },
};

/*
 * Slow paths LLVM's data miss.  FP divides (DIVSD/VDIVSD, register and
 * memory forms) with ordinary operands: Haswell and Ivy Bridge take 10
 * cycles of latency and keep the divider 8 (Agner Fog's tables give
 * 10-20 and 8-14; BHive: vdivsd chained through one register 10.1
 * cycles on Haswell, three independent ones 24.5 on Ivy Bridge), not
 * LLVM's 20-22 and 14.  Locked read-modify-writes (mnemonic INVALID
 * below): one every busy cycles, busy_xchg for XCHG with memory (BHive:
 * lock add 19.0 and three xchg 73.0 cycles on Haswell, lock xadd 18.0 on
 * Skylake).  Ivy Bridge's locked instructions are not measured in the
 * sample and keep LLVM's numbers.
 */
#define UA_LOCK_UNIT 3	/* busy unit index past the model's dividers */
static const struct ua_slow {
	const char *uarch;
	ZydisMnemonic mnemonic;
	uint8_t latency, busy, busy_xchg;
} slow_ops[] = {
	{ "haswell", ZYDIS_MNEMONIC_DIVSD, 10, 8, 0 },
	{ "haswell", ZYDIS_MNEMONIC_VDIVSD, 10, 8, 0 },
	{ "ivybridge", ZYDIS_MNEMONIC_DIVSD, 10, 8, 0 },
	{ "ivybridge", ZYDIS_MNEMONIC_VDIVSD, 10, 8, 0 },
	{ "skylake", ZYDIS_MNEMONIC_INVALID, 0, 18, 18 },
	{ "haswell", ZYDIS_MNEMONIC_INVALID, 0, 19, 24 },
};

static int
find_resource(const struct sched_model *model, const char *name)
{
	for (unsigned i = 0; i < model->n_resources; i++)
		if (strcmp(model->resources[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Port mask of a model resource (a port or a group of ports). */
static uint16_t
resource_ports(const struct sched_model *model, const struct ua_ports *pt, unsigned r)
{
	uint64_t members = model->resources[r].is_group ? model->resources[r].members
							 : 1ULL << r;
	uint16_t mask = 0;

	for (unsigned p = 0; p < pt->n; p++)
		if (members & (1ULL << pt->res[p]))
			mask |= (uint16_t)(1u << p);
	return mask;
}

int
ua_ports_init(const struct sched_model *model, const struct sched_uarch *ua,
	      struct ua_ports *pt)
{
	size_t plen = strlen(ua->port_prefix);
	const char *names[] = { ua->load_res, ua->sta_res, ua->std_res, ua->branch_res,
				ua->alu_res };
	uint16_t *masks[] = { &pt->load, &pt->sta, &pt->std, &pt->branch, &pt->alu };

	memset(pt, 0, sizeof(*pt));
	for (unsigned i = 0; i < model->n_resources && i < 64; i++) {
		const struct sched_resource *r = &model->resources[i];

		if (r->is_group)
			continue;
		if (strncmp(r->name, ua->port_prefix, plen) == 0 &&
		    strstr(r->name, "Invalid") == NULL) {
			for (unsigned u = 0; u < r->units; u++) {
				if (pt->n == UA_MAX_PORTS)
					return -1;
				pt->unit[pt->n] = (uint8_t)u;
				pt->res[pt->n++] = (uint8_t)i;
			}
		} else if (pt->n_busy < sizeof(pt->busy)) {
			pt->busy[pt->n_busy++] = (uint8_t)i;
		}
	}
	for (unsigned k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		int r = find_resource(model, names[k]);

		if (r < 0)
			return -1;
		*masks[k] = resource_ports(model, pt, (unsigned)r);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Instructions                                                        */

static unsigned
popcount16(uint16_t x)
{
	/* Without -mpopcnt __builtin_popcount() is a libgcc call. */
	x = (uint16_t)(x - ((x >> 1) & 0x5555));
	x = (uint16_t)((x & 0x3333) + ((x >> 2) & 0x3333));
	x = (uint16_t)((x + (x >> 4)) & 0x0F0F);
	return (unsigned)((x + (x >> 8)) & 0x1F);
}

/* The engine's number of a register of the model's lists: the Zydis id,
 * the flags (SCHED_REG_FLAGS) one past the last.  ua_insn_build() stores
 * these in struct ua_insn. */
static unsigned
reg_slot(uint16_t reg)
{
	return reg == SCHED_REG_FLAGS ? ZYDIS_REGISTER_MAX_VALUE + 1 : reg;
}

static reg_id
fold(reg_id r)
{
	return r ? (reg_id)insn_full_reg((ZydisRegister)r) : 0;
}

static void
add_reg(uint16_t *list, uint8_t *n, unsigned cap, uint16_t reg)
{
	for (unsigned i = 0; i < *n; i++)
		if (list[i] == reg)
			return;
	if (*n < cap)
		list[(*n)++] = reg;
}

static bool
name_in(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i][0] == name[0] && strcmp(name, list[i]) == 0)
			return true;
	return false;
}

static bool
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Register moves that rename eliminates (IVB and later). */
static bool
is_eliminable_move(const char *name)
{
	static const char *const moves[] = {
		"MOV64rr", "MOV64rr_REV", "MOV32rr", "MOV32rr_REV",
		"MOVAPSrr", "MOVAPSrr_REV", "MOVAPDrr", "MOVAPDrr_REV",
		"MOVUPSrr", "MOVUPSrr_REV", "MOVUPDrr", "MOVUPDrr_REV",
		"MOVDQArr", "MOVDQArr_REV", "MOVDQUrr", "MOVDQUrr_REV",
		"VMOVAPSrr", "VMOVAPSrr_REV", "VMOVAPDrr", "VMOVAPDrr_REV",
		"VMOVUPSrr", "VMOVUPSrr_REV", "VMOVUPDrr", "VMOVUPDrr_REV",
		"VMOVDQArr", "VMOVDQArr_REV", "VMOVDQUrr", "VMOVDQUrr_REV",
		"VMOVAPSYrr", "VMOVAPSYrr_REV", "VMOVAPDYrr", "VMOVAPDYrr_REV",
		"VMOVUPSYrr", "VMOVUPSYrr_REV", "VMOVUPDYrr", "VMOVUPDYrr_REV",
		"VMOVDQAYrr", "VMOVDQAYrr_REV", "VMOVDQUYrr", "VMOVDQUYrr_REV",
	};

	return name_in(name, moves, sizeof(moves) / sizeof(moves[0]));
}

/* Legacy-SSE scalar operations that write the low element of an XMM
 * register and keep the rest: the destination is an input too. */
static bool
merges_xmm_dest(const char *name)
{
	static const char *const prefixes[] = {
		"SQRTSS", "SQRTSD", "RCPSS", "RSQRTSS", "ROUNDSS", "ROUNDSD",
		"CVTSS2SD", "CVTSD2SS", "CVTSI2SS", "CVTSI2SD", "CVTSI642SS", "CVTSI642SD",
	};

	if (strcmp(name, "MOVSSrr") == 0 || strcmp(name, "MOVSDrr") == 0)
		return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (starts_with(name, prefixes[i]))
			return true;
	return false;
}

struct own_use {
	unsigned res, size;
	uint64_t members;
	int cycles;
};

/* LLVM lists each resource with the cycles of the resources it contains
 * added (TableGen's expansion); take them back out, smallest first, so
 * that what remains is what each unit or group is used for itself. */
static unsigned
own_uses(const struct sched_model *model, const struct sched_insn *si, struct own_use *u)
{
	unsigned n = 0;

	for (unsigned i = 0; i < si->n_uses; i++) {
		const struct sched_resource *r = &model->resources[si->uses[i].resource];

		u[n].res = si->uses[i].resource;
		u[n].members = r->is_group ? r->members : 1ULL << si->uses[i].resource;
		u[n].size = (unsigned)__builtin_popcountll(u[n].members);
		u[n].cycles = si->uses[i].cycles;
		n++;
	}
	for (unsigned i = 1; i < n; i++) {
		struct own_use t = u[i];
		unsigned j = i;

		while (j > 0 && u[j - 1].size > t.size) {
			u[j] = u[j - 1];
			j--;
		}
		u[j] = t;
	}
	for (unsigned i = 0; i < n; i++) {
		int own = u[i].cycles;

		for (unsigned j = 0; j < i; j++)
			if (u[j].size < u[i].size && (u[j].members & ~u[i].members) == 0)
				own -= u[j].cycles;
		u[i].cycles = own;
	}
	/* u[j].cycles now hold own cycles; the subtraction above used them as
	 * they were updated in order, which is what the expansion needs. */
	return n;
}

static uint8_t
read_advance_class(const struct sched_model *model, const struct insn_info *ii)
{
	unsigned cls = 0;

	for (unsigned k = 0; k < 2; k++) {
		const reg_id *l = k ? ii->regs_written : ii->regs_read;
		unsigned nl = k ? ii->n_regs_written : ii->n_regs_read;

		for (unsigned i = 0; i < nl; i++) {
			switch (ZydisRegisterGetClass((ZydisRegister)l[i])) {
			case ZYDIS_REGCLASS_MMX:
				if (cls < 1)
					cls = 1;
				break;
			case ZYDIS_REGCLASS_XMM:
				if (cls < 2)
					cls = 2;
				break;
			case ZYDIS_REGCLASS_YMM:
			case ZYDIS_REGCLASS_ZMM:
				cls = 3;
				break;
			default:
				break;
			}
		}
	}
	return model->read_advance[cls];
}

static void
set_mem(struct ua_mem *m, const struct mem_template *t)
{
	memset(m, 0, sizeof(*m));
	m->rip = t->base == ZYDIS_REGISTER_RIP;
	m->base = m->rip ? 0 : fold(t->base);
	m->index = t->vsib ? 0 : fold(t->index);
	m->scale = t->scale;
	m->disp = t->disp;
	m->size = (uint8_t)(t->size > 255 ? 255 : t->size);
}

int
ua_insn_build(const struct sched_model *model, const struct sched_uarch *ua,
	      const struct ua_ports *pt, const struct insn_info *ii,
	      const struct sched_mapping *m, const struct sched_insn *si,
	      struct ua_insn *ui)
{
	struct insn_zydis z;

	return ua_insn_build_zydis(model, ua, pt, ii,
				   insn_zydis_decode(ii->bytes, ii->len, &z) == 0 ? &z : NULL,
				   m, si, ui);
}

/* B of a value from operand o: a register (not AH..DH), an immediate or
 * the loaded value. */
static bool
eval_operand(const ZydisDecodedOperand *o, struct ua_eval *e)
{
	switch (o->type) {
	case ZYDIS_OPERAND_TYPE_REGISTER:
		if (ZydisRegisterGetClass(o->reg.value) != ZYDIS_REGCLASS_GPR64 &&
		    ZydisRegisterGetClass(o->reg.value) != ZYDIS_REGCLASS_GPR32 &&
		    ZydisRegisterGetClass(o->reg.value) != ZYDIS_REGCLASS_GPR16 &&
		    ZydisRegisterGetClass(o->reg.value) != ZYDIS_REGCLASS_GPR8)
			return false;
		if (o->reg.value == ZYDIS_REGISTER_AH || o->reg.value == ZYDIS_REGISTER_BH ||
		    o->reg.value == ZYDIS_REGISTER_CH || o->reg.value == ZYDIS_REGISTER_DH)
			return false;
		e->b = fold(o->reg.value);
		e->scale = 1;
		e->bsize = (uint8_t)(o->size / 8);
		return true;
	case ZYDIS_OPERAND_TYPE_IMMEDIATE:
		e->imm = o->imm.is_signed ? o->imm.value.s : (int64_t)o->imm.value.u;
		return true;
	case ZYDIS_OPERAND_TYPE_MEMORY:
		if (o->mem.type != ZYDIS_MEMOP_TYPE_MEM)
			return false;
		e->bmem = 1;
		e->bsize = (uint8_t)(o->size / 8);
		return true;
	default:
		return false;
	}
}

/* The values an instruction gives its destination register (ui->ev) and
 * writes to memory (ui->sv), for the BHive environment; UA_EV_NONE where
 * it is not one of the few operations followed. */
static void
eval_build(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
	   struct ua_insn *ui)
{
	const ZydisDecodedOperand *d = &ops[0];
	struct ua_eval e = { 0 };
	bool to_mem, ok = true;
	unsigned nv = in->operand_count_visible;

	if (in->mnemonic == ZYDIS_MNEMONIC_PUSH && nv == 1) {
		e.op = UA_EV_B;
		e.width = 8;
		if (eval_operand(&ops[0], &e) && !e.bmem)
			ui->sv = e;
		return;
	}
	if (in->mnemonic == ZYDIS_MNEMONIC_POP && nv == 1 &&
	    d->type == ZYDIS_OPERAND_TYPE_REGISTER && d->size == 64) {
		ui->ev = (struct ua_eval){ .op = UA_EV_B, .width = 8, .bmem = 1, .bsize = 8 };
		return;
	}
	if (nv < 1 || (d->type != ZYDIS_OPERAND_TYPE_REGISTER && d->type != ZYDIS_OPERAND_TYPE_MEMORY))
		return;
	to_mem = d->type == ZYDIS_OPERAND_TYPE_MEMORY;
	if (!to_mem && ((d->size != 32 && d->size != 64) ||
			(ZydisRegisterGetClass(d->reg.value) != ZYDIS_REGCLASS_GPR64 &&
			 ZydisRegisterGetClass(d->reg.value) != ZYDIS_REGCLASS_GPR32)))
		return;
	e.width = (uint8_t)(d->size / 8);
	/* A is the destination for two-operand arithmetic */
	if (to_mem)
		e.amem = 1;
	else
		e.a = fold(d->reg.value);
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_MOV:
	case ZYDIS_MNEMONIC_MOVZX:
	case ZYDIS_MNEMONIC_MOVSX:
	case ZYDIS_MNEMONIC_MOVSXD:
		e.op = UA_EV_B;
		e.a = 0;
		e.amem = 0;
		e.sext = in->mnemonic == ZYDIS_MNEMONIC_MOVSX || in->mnemonic == ZYDIS_MNEMONIC_MOVSXD;
		ok = nv == 2 && eval_operand(&ops[1], &e);
		break;
	case ZYDIS_MNEMONIC_LEA:
		if (nv != 2 || ops[1].mem.base == ZYDIS_REGISTER_RIP)
			return;
		e.op = UA_EV_ADD;
		e.a = fold(ops[1].mem.base);
		e.b = fold(ops[1].mem.index);
		e.scale = ops[1].mem.scale ? ops[1].mem.scale : 1;
		e.bsize = 8;
		e.imm = ops[1].mem.disp.value;
		break;
	case ZYDIS_MNEMONIC_ADD: e.op = UA_EV_ADD; goto two;
	case ZYDIS_MNEMONIC_SUB: e.op = UA_EV_SUB; goto two;
	case ZYDIS_MNEMONIC_AND: e.op = UA_EV_AND; goto two;
	case ZYDIS_MNEMONIC_OR: e.op = UA_EV_OR; goto two;
	case ZYDIS_MNEMONIC_XOR: e.op = UA_EV_XOR; goto two;
	case ZYDIS_MNEMONIC_SHL: e.op = UA_EV_SHL; goto two;
	case ZYDIS_MNEMONIC_SHR: e.op = UA_EV_SHR; goto two;
	case ZYDIS_MNEMONIC_SAR: e.op = UA_EV_SAR; goto two;
	two:
		if (nv == 1) {		/* shift by 1 */
			e.imm = 1;
			break;
		}
		ok = nv == 2 && eval_operand(&ops[1], &e) && !(e.bmem && e.amem);
		/* xor/sub of a register with itself: 0 whatever it held */
		if (ok && !to_mem && !e.bmem && e.b == e.a && e.bsize == e.width &&
		    (e.op == UA_EV_XOR || e.op == UA_EV_SUB)) {
			e = (struct ua_eval){ .op = UA_EV_B, .width = e.width };
		}
		break;
	case ZYDIS_MNEMONIC_INC:
	case ZYDIS_MNEMONIC_DEC:
		e.op = UA_EV_ADD;
		e.imm = in->mnemonic == ZYDIS_MNEMONIC_INC ? 1 : -1;
		break;
	case ZYDIS_MNEMONIC_CMOVB: case ZYDIS_MNEMONIC_CMOVBE: case ZYDIS_MNEMONIC_CMOVL:
	case ZYDIS_MNEMONIC_CMOVLE: case ZYDIS_MNEMONIC_CMOVNB: case ZYDIS_MNEMONIC_CMOVNBE:
	case ZYDIS_MNEMONIC_CMOVNL: case ZYDIS_MNEMONIC_CMOVNLE: case ZYDIS_MNEMONIC_CMOVNO:
	case ZYDIS_MNEMONIC_CMOVNP: case ZYDIS_MNEMONIC_CMOVNS: case ZYDIS_MNEMONIC_CMOVNZ:
	case ZYDIS_MNEMONIC_CMOVO: case ZYDIS_MNEMONIC_CMOVP: case ZYDIS_MNEMONIC_CMOVS:
	case ZYDIS_MNEMONIC_CMOVZ:
		e.op = UA_EV_SAME;
		ok = !to_mem && nv == 2 && eval_operand(&ops[1], &e);
		break;
	default:
		return;
	}
	if (!ok)
		return;
	if (to_mem)
		ui->sv = e;
	else
		ui->ev = e;
}

int
ua_insn_build_zydis(const struct sched_model *model, const struct sched_uarch *ua,
		    const struct ua_ports *pt, const struct insn_info *ii,
		    const struct insn_zydis *z, const struct sched_mapping *m,
		    const struct sched_insn *si, struct ua_insn *ui)
{
	const ZydisDecodedInstruction *const in = z ? &z->in : NULL;
	const ZydisDecodedOperand *const ops = z ? z->ops : NULL;
	const char *name = m->opcode ? sched_opcode_name(m->opcode) : "";
	struct own_use own[SCHED_MAX_USES];
	unsigned n_own, raw = 0, busy = 0, busy_unit = 0, ra;
	bool decoded, indexed = false, stack_op, has_imm = false;
	int op_to_drop = -1;
	const struct mem_template *lt = NULL, *st = NULL;

	memset(ui, 0, sizeof(*ui));
	ui->len = ii->len;
	ui->llvm_latency = si->latency;
	decoded = z != NULL;

	/* Control flow, stack engine, nops. */
	if (ii->branch != BR_NONE)
		ui->flags |= UA_BRANCH;
	if (ii->branch == BR_COND && ii->cond >= COND_O && ii->cond <= COND_NLE) {
		ui->flags |= UA_COND_JUMP;
		ui->cond = ii->cond;
	}
	stack_op = false;
	for (unsigned i = 0; i < ii->n_mem; i++) {
		const struct mem_template *t = &ii->mem[i];

		if ((t->flags & MEMF_IMPLICIT) && fold(t->base) == ZYDIS_REGISTER_RSP)
			stack_op = true;
		if ((t->dir & MEM_READ) && !lt)
			lt = t;
		if ((t->dir & MEM_WRITE) && !st)
			st = t;
	}
	if (stack_op) {
		ui->flags |= UA_STACK_OP;
		if (st && !lt)
			ui->stack_delta = (int8_t)-(st->size ? st->size : 8);
		else if (lt && !st)
			ui->stack_delta = (int8_t)(lt->size ? lt->size : 8);
		else
			ui->stack_delta = 0;	/* push [mem] / pop [mem]: rare */
		if (ii->branch == BR_CALL)
			ui->stack_delta = -8;
		else if (ii->branch == BR_RET)
			ui->stack_delta = 8;
	}
	if (decoded && in->mnemonic == ZYDIS_MNEMONIC_NOP)
		ui->flags |= UA_NOP;
	if (decoded) {
		/* The opcode byte precedes ModRM, else the displacement or
		 * immediate, else it ends the instruction. */
		unsigned pos = (in->attributes & ZYDIS_ATTRIB_HAS_MODRM) ? in->raw.modrm.offset
			     : in->raw.disp.size ? in->raw.disp.offset
			     : in->raw.imm[0].size ? in->raw.imm[0].offset : in->length;

		ui->opc_pos = (uint8_t)(pos ? pos - 1 : 0);
	}
	if (decoded && in->mnemonic == ZYDIS_MNEMONIC_POP && in->opcode == 0x5C)
		ui->flags |= UA_POP5C;
	if (decoded) {
		for (unsigned i = 0; i < in->operand_count_visible; i++)
			if (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
				has_imm = true;
		/* Length-changing prefix: 66h with a 16-bit immediate. */
		if ((in->attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE) && in->raw.imm[0].size == 16)
			ui->flags |= UA_LCP;
		switch (in->mnemonic) {
		case ZYDIS_MNEMONIC_CMP:
		case ZYDIS_MNEMONIC_ADD:
		case ZYDIS_MNEMONIC_SUB:
			ui->macro_class = 2;
			break;
		case ZYDIS_MNEMONIC_TEST:
		case ZYDIS_MNEMONIC_AND:
			ui->macro_class = 1;
			break;
		case ZYDIS_MNEMONIC_INC:
		case ZYDIS_MNEMONIC_DEC:
			ui->macro_class = 3;
			break;
		default:
			break;
		}
		if (ui->macro_class && ((ii->n_mem && has_imm) || (lt && lt->base == ZYDIS_REGISTER_RIP)))
			ui->macro_class = 0;
		if (ui->macro_class)
			ui->flags |= UA_MACRO_FIRST;
	}

	/* Uops from LLVM's resource usage. */
	n_own = own_uses(model, si, own);
	for (unsigned i = 0; i < n_own; i++) {
		const struct sched_resource *r = &model->resources[own[i].res];
		uint16_t ports;
		bool is_busy = false;

		if (own[i].cycles <= 0)
			continue;
		for (unsigned b = 0; b < pt->n_busy; b++) {
			if (pt->busy[b] == own[i].res) {
				is_busy = true;
				busy = (unsigned)own[i].cycles;
				busy_unit = b;
			}
		}
		if (is_busy)
			continue;
		ports = resource_ports(model, pt, own[i].res);
		if (!ports || (r->is_group && popcount16(ports) == pt->n && pt->n > 4 &&
			       strstr(r->name, "Any")))
			continue;
		for (int c = 0; c < own[i].cycles; c++) {
			raw++;
			if (ui->n_uops < UA_MAX_UOPS)
				ui->uops[ui->n_uops++] = (struct ua_uop){ ports, UA_OP, 0, 0 };
		}
	}
	/* Classify: store data, store address, load, operation. */
	{
		unsigned n_std = 0;
		uint16_t agu_mask = pt->load | pt->sta;

		for (unsigned i = 0; i < ui->n_uops; i++) {
			struct ua_uop *u = &ui->uops[i];

			/* Any uop that can only go to store-data ports: Alder
			 * Lake's are two (4 and 9) and LLVM gives some stores
			 * (FNSTCW16m) a port-4-only uop. */
			if (si->may_store && u->ports && (u->ports & ~pt->std) == 0) {
				u->kind = UA_STD;
				n_std++;
			}
		}
		/* Store addresses first: prefer uops that can use a store-only
		 * port (port 7), else the last AGU uops. */
		for (unsigned pass = 0; pass < 2 && si->may_store; pass++) {
			for (int i = (int)ui->n_uops - 1; i >= 0 && ui->n_sta < n_std; i--) {
				struct ua_uop *u = &ui->uops[i];

				if (u->kind != UA_OP || (u->ports & ~agu_mask))
					continue;
				if (pass == 0 && !(u->ports & ~pt->load))
					continue;
				u->kind = UA_STA;
				ui->n_sta++;
			}
		}
		for (unsigned i = 0; i < ui->n_uops; i++) {
			struct ua_uop *u = &ui->uops[i];

			if (u->kind == UA_OP && si->may_load && (u->ports & ~agu_mask) == 0)
				u->kind = UA_LOAD;
		}
	}
	/* The stack engine does the RSP update of push/pop/call/ret. */
	if (stack_op) {
		unsigned best = 0;

		for (unsigned i = 0; i < ui->n_uops; i++) {
			const struct ua_uop *u = &ui->uops[i];

			if (u->kind == UA_OP && (u->ports & ~pt->alu) == 0 &&
			    popcount16(u->ports) > best) {
				best = popcount16(u->ports);
				op_to_drop = (int)i;
			}
		}
		/* Only when the ALU uop is not the instruction's own work
		 * (pop to a register, push of a register or immediate). */
		if (op_to_drop >= 0 && !(ii->branch == BR_NONE || ii->branch == BR_CALL ||
					 ii->branch == BR_RET))
			op_to_drop = -1;
		if (op_to_drop >= 0) {
			memmove(&ui->uops[op_to_drop], &ui->uops[op_to_drop + 1],
				(size_t)(ui->n_uops - (unsigned)op_to_drop - 1) * sizeof(ui->uops[0]));
			ui->n_uops--;
			raw--;
		}
	}
	for (unsigned i = 0; i < ui->n_uops; i++) {
		switch (ui->uops[i].kind) {
		case UA_LOAD: ui->n_load++; break;
		case UA_STA: ui->n_sta++; break;
		case UA_STD: ui->n_std++; break;
		default: ui->n_op++; break;
		}
	}
	/* n_sta was counted twice (classification and the loop above). */
	ui->n_sta = 0;
	for (unsigned i = 0; i < ui->n_uops; i++)
		ui->n_sta += ui->uops[i].kind == UA_STA;
	if (busy) {
		for (unsigned i = 0; i < ui->n_uops; i++) {
			if (ui->uops[i].kind == UA_OP) {
				ui->uops[i].busy = (uint8_t)(busy > 255 ? 255 : busy);
				ui->uops[i].busy_unit = (uint8_t)busy_unit;
				break;
			}
		}
	}

	/* Memory operands. */
	if (lt && si->may_load) {
		ui->has_load_mem = 1;
		set_mem(&ui->load_mem, lt);
	}
	if (st && si->may_store) {
		ui->has_store_mem = 1;
		set_mem(&ui->store_mem, st);
	}
	for (unsigned i = 0; i < ii->n_mem; i++)
		if (ii->mem[i].index && !ii->mem[i].vsib)
			indexed = true;

	/* Latencies: load part and operation part (ReadAfterLd). */
	ra = read_advance_class(model, ii);
	if (ui->n_load && ui->n_op) {
		unsigned l = si->latency;

		ui->load_lat = (uint8_t)(ra ? ra : model->load_latency);
		l = l > ui->load_lat + (ui->n_std ? 1u : 0u) ? l - ui->load_lat - (ui->n_std ? 1u : 0u) : 1;
		ui->op_lat = (uint8_t)(l > 255 ? 255 : l);
	} else if (ui->n_load) {
		ui->flags |= UA_PURE_LOAD;
		ui->load_lat = (uint8_t)(op_to_drop >= 0 ? model->load_latency
				: si->latency ? (si->latency > 255 ? 255 : si->latency) : 1);
		ui->op_lat = 1;
	} else {
		ui->op_lat = (uint8_t)(si->latency ? (si->latency > 255 ? 255 : si->latency) : 1);
	}
	if ((ui->flags & UA_PURE_LOAD) && lt && !lt->index && lt->base &&
	    lt->base != ZYDIS_REGISTER_RIP && lt->disp >= 0 && lt->disp < 2048 &&
	    ZydisRegisterGetClass((ZydisRegister)lt->base) == ZYDIS_REGCLASS_GPR64 &&
	    ui->load_lat == model->load_latency)
		ui->flags |= UA_PTR_LOAD;

	/* Registers: address inputs, data inputs, outputs. */
	if (!(ui->flags & UA_NOP)) {
		for (unsigned i = 0; i < ii->n_regs_read; i++) {
			reg_id r = ii->regs_read[i], f = fold(r);
			bool is_addr = false;

			if (!f || r == ZYDIS_REGISTER_MXCSR)
				continue;
			for (unsigned k = 0; k < ii->n_mem; k++)
				if (fold(ii->mem[k].base) == f || fold(ii->mem[k].index) == f)
					is_addr = true;
			if (is_addr) {
				add_reg(ui->addr, &ui->n_addr, 4, f);
				/* Also a data input when used as a plain operand. */
				for (unsigned k = 0; decoded && k < in->operand_count_visible; k++)
					if (ops[k].type == ZYDIS_OPERAND_TYPE_REGISTER &&
					    fold(ops[k].reg.value) == f)
						add_reg(ui->data, &ui->n_data, UA_MAX_SRCS, f);
			} else {
				add_reg(ui->data, &ui->n_data, UA_MAX_SRCS, f);
			}
		}
		if (ii->flags_read)
			add_reg(ui->data, &ui->n_data, UA_MAX_SRCS, SCHED_REG_FLAGS);
	}
	for (unsigned i = 0; i < ii->n_regs_written; i++) {
		reg_id r = ii->regs_written[i], f = fold(r);
		ZydisRegisterClass rc = ZydisRegisterGetClass((ZydisRegister)r);

		if (!f || r == ZYDIS_REGISTER_MXCSR)
			continue;
		if (stack_op && f == ZYDIS_REGISTER_RSP)
			continue;
		add_reg(ui->dst, &ui->n_dst, UA_MAX_SRCS, f);
		if (rc == ZYDIS_REGCLASS_GPR8 || rc == ZYDIS_REGCLASS_GPR16)
			add_reg(ui->data, &ui->n_data, UA_MAX_SRCS, f);
		if (rc == ZYDIS_REGCLASS_XMM && merges_xmm_dest(name))
			add_reg(ui->data, &ui->n_data, UA_MAX_SRCS, f);
	}
	if (ii->flags_written)
		add_reg(ui->dst, &ui->n_dst, UA_MAX_SRCS, SCHED_REG_FLAGS);
	if (!stack_op) {
		for (unsigned i = 0; i < ui->n_addr; i++)
			if (ui->addr[i] == ZYDIS_REGISTER_RSP)
				ui->flags |= UA_READS_RSP;
		for (unsigned i = 0; i < ui->n_data; i++)
			if (ui->data[i] == ZYDIS_REGISTER_RSP)
				ui->flags |= UA_READS_RSP;
		for (unsigned i = 0; i < ui->n_dst; i++)
			if (ui->dst[i] == ZYDIS_REGISTER_RSP)
				ui->flags |= UA_WRITES_RSP;
	}

	/* Destinations that are inputs too: CMOVcc (always reads it), BSF/BSR
	 * (kept when the source is zero), POPCNT/LZCNT/TZCNT (a false
	 * dependency up to Skylake, which fixed it for LZCNT and TZCNT). */
	if (decoded && ui->n_dst && (starts_with(name, "CMOV") || in->mnemonic == ZYDIS_MNEMONIC_BSF ||
				     in->mnemonic == ZYDIS_MNEMONIC_BSR ||
				     (ua->false_dep_popcnt && (in->mnemonic == ZYDIS_MNEMONIC_POPCNT ||
							       (!ua->lzcnt_dep_fixed &&
								(in->mnemonic == ZYDIS_MNEMONIC_LZCNT ||
								 in->mnemonic == ZYDIS_MNEMONIC_TZCNT))))))
		add_reg(ui->data, &ui->n_data, UA_MAX_SRCS, ui->dst[0]);
	/* Three-component LEA (base, index and an encoded displacement, even
	 * a zero one as [rbp+r*s] needs): 3 cycles on port 1. */
	if (decoded && ua->slow_lea && in->mnemonic == ZYDIS_MNEMONIC_LEA &&
	    ops[1].mem.base != ZYDIS_REGISTER_NONE && ops[1].mem.index != ZYDIS_REGISTER_NONE &&
	    in->raw.disp.size > 0 && ui->n_uops == 1 && pt->n > 1) {
		ui->flags |= UA_SLOW_LEA;
		ui->op_lat = 3;
		ui->uops[0].ports = 1u << 1;
	}
	/* SHL/SHR/SAR by CL: of their 3 uops only one shifts, the others
	 * merge the flags (kept when the count is 0), so the register result
	 * is ready a cycle after the shift (Agner Fog, uops.info), not after
	 * LLVM's 3. */
	if (decoded && ua->shift_cl_lat && ui->n_load == 0 &&
	    (in->mnemonic == ZYDIS_MNEMONIC_SHL || in->mnemonic == ZYDIS_MNEMONIC_SHR ||
	     in->mnemonic == ZYDIS_MNEMONIC_SAR) &&
	    in->operand_count_visible == 2 && ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	    ops[1].reg.value == ZYDIS_REGISTER_CL)
		ui->op_lat = ua->shift_cl_lat;
	/* HSW/SKL rename no low 8- or 16-bit register apart: a load into
	 * one (mov (%rbx),%al) merges into the old register with an ALU uop
	 * after the load (2 uops: p23 + p0156), so it depends on the
	 * register's last writer. */
	if (ua->partial_load_merge && (ui->flags & UA_PURE_LOAD) && ui->n_op == 0 &&
	    ui->n_uops < UA_MAX_UOPS && !stack_op) {
		bool part = false;

		for (unsigned i = 0; i < ii->n_regs_written; i++) {
			ZydisRegisterClass rc = ZydisRegisterGetClass((ZydisRegister)ii->regs_written[i]);

			if (rc == ZYDIS_REGCLASS_GPR8 || rc == ZYDIS_REGCLASS_GPR16)
				part = true;
		}
		if (part) {
			ui->uops[ui->n_uops++] = (struct ua_uop){ pt->alu, UA_OP, 0, 0 };
			ui->n_op++;
			raw++;
			ui->flags &= ~(uint32_t)(UA_PURE_LOAD | UA_PTR_LOAD);
			ui->op_lat = 1;
		}
	}
	/* CMOVcc and SETcc.  BE and NBE (A) read CF and the ZF/SF/OF group,
	 * renamed apart: one uop and one cycle more than the other
	 * conditions (LLVM's CMOVA/CMOVBE and SETA/SETBE variants, which the
	 * dumped tables leave unresolved).  SNB to SKL decode even the
	 * single-uop forms on the first decoder only (BHive: five
	 * instructions with one CMOVE or SETE take 2 cycles, not 1.25). */
	if (decoded && (in->meta.category == ZYDIS_CATEGORY_CMOV ||
			in->meta.category == ZYDIS_CATEGORY_SETCC)) {
		bool both = in->mnemonic == ZYDIS_MNEMONIC_CMOVBE ||
			    in->mnemonic == ZYDIS_MNEMONIC_CMOVNBE ||
			    in->mnemonic == ZYDIS_MNEMONIC_SETBE || in->mnemonic == ZYDIS_MNEMONIC_SETNBE;

		if (both && ua->cc_both_uop && ui->n_uops < UA_MAX_UOPS) {
			uint16_t ports = pt->alu;

			for (unsigned i = 0; ua->cc_both_uop == 1 && i < ui->n_uops; i++) {
				if (ui->uops[i].kind == UA_OP) {
					ports = ui->uops[i].ports;
					break;
				}
			}
			ui->uops[ui->n_uops++] = (struct ua_uop){ ports, UA_OP, 0, 0 };
			ui->n_op++;
			raw++;
			ui->op_lat++;
		}
		if (ua->cc_complex)
			ui->flags |= UA_COMPLEX_DEC;
	}
	for (size_t i = 0; i < sizeof(fixes) / sizeof(fixes[0]); i++) {
		const struct ua_fix *fx = &fixes[i];
		size_t nl;
		bool mem_form;

		if (fx->opcode[0] != name[0] || strcmp(fx->uarch, ua->name) != 0)
			continue;
		nl = strlen(name);
		/* The memory form (DIV64m for DIV64r): the same uops after a
		 * load (uops.info; LLVM gives it 2 uops). */
		mem_form = nl > 1 && name[nl - 1] == 'm' && ui->n_load &&
			   strlen(fx->opcode) == nl && fx->opcode[nl - 1] == 'r' &&
			   strncmp(fx->opcode, name, nl - 1) == 0;
		if (strcmp(fx->opcode, name) != 0 && !mem_form)
			continue;
		raw = fx->fused + mem_form;
		ui->op_lat = fx->latency;
		ui->fe_stall = fx->fe_stall;
		ui->n_uops = ui->n_op = ui->n_load = 0;
		if (mem_form) {
			ui->uops[ui->n_uops++] = (struct ua_uop){ pt->load, UA_LOAD, 0, 0 };
			ui->n_load = 1;
		}
		for (unsigned k = 0; k < fx->fused && ui->n_uops < UA_MAX_UOPS; k++) {
			ui->uops[ui->n_uops++] = (struct ua_uop){ k ? pt->alu : (uint16_t)1u, UA_OP,
								  0, 0 };
			ui->n_op++;
		}
		if (fx->busy && pt->n_busy) {
			ui->uops[mem_form].busy = fx->busy;
			ui->uops[mem_form].busy_unit = 0;
		}
	}
	for (size_t i = 0; i < sizeof(slow_ops) / sizeof(slow_ops[0]); i++) {
		const struct ua_slow *so = &slow_ops[i];

		if (strcmp(so->uarch, ua->name) != 0)
			continue;
		if (so->mnemonic == ZYDIS_MNEMONIC_INVALID) {
			/* A locked read-modify-write (LOCK prefix, or XCHG
			 * with memory, locked implicitly) drains the store
			 * buffer and holds the cache line: one every N
			 * cycles, on a unit of its own.  (The caller passes
			 * a locked instruction without its prefix byte.) */
			bool xchg = decoded && in->mnemonic == ZYDIS_MNEMONIC_XCHG && si->may_store;
			uint8_t n = xchg ? so->busy_xchg : so->busy;

			if (!m->lock && !xchg)
				continue;
			if (n && ui->n_uops && pt->n_busy < UA_LOCK_UNIT + 1) {
				ui->uops[0].busy = n;
				ui->uops[0].busy_unit = UA_LOCK_UNIT;
			}
			continue;
		}
		/* FP divide: BHive's operands take the divider's fast path
		 * (the low end of the latency and throughput ranges). */
		if (!decoded || in->mnemonic != so->mnemonic)
			continue;
		ui->op_lat = so->latency;
		for (unsigned k = 0; k < ui->n_uops; k++)
			if (ui->uops[k].busy)
				ui->uops[k].busy = so->busy;
	}

	/* Idioms. */
	if (m->zero_idiom) {
		ui->flags |= UA_ZERO_IDIOM;
		ui->n_data = ui->n_addr = 0;
		ui->n_uops = ui->n_op = 0;
		ui->flags &= ~(uint32_t)(UA_READS_RSP);
	} else if (m->dep_breaking && strcmp(name, "SBB32rr") != 0 &&
		   strcmp(name, "SBB64rr") != 0) {
		/* pcmpeq x,x: the only register input is the destination */
		ui->flags |= UA_DEP_BREAK;
		ui->n_data = 0;
	}
	if (ua->move_elim && is_eliminable_move(name) && ii->n_regs_read >= 1) {
		reg_id src = 0;

		for (unsigned i = 0; i < ii->n_regs_read; i++)
			if (fold(ii->regs_read[i]) != ui->dst[0])
				src = fold(ii->regs_read[i]);
		if (src) {
			ui->flags |= UA_MOVE_ELIM;
			ui->move_src = src;
			ui->n_uops = ui->n_op = 0;
		}
	}

	/* Fused-domain uops and unlamination. */
	{
		int f = (int)raw;
		bool lo_pair = ui->n_load && ui->n_op, st_pair = ui->n_sta && ui->n_std;

		if (lo_pair)
			f--;
		if (st_pair)
			f -= ui->n_sta < ui->n_std ? ui->n_sta : ui->n_std;
		if (raw == 0)
			f = si->uops ? (int)si->uops : 1;
		if (ui->flags & (UA_ZERO_IDIOM | UA_MOVE_ELIM | UA_NOP))
			f = 1;
		if (f < 1)
			f = 1;
		ui->fused = (uint8_t)(f > 255 ? 255 : f);
		if (indexed && (lo_pair || st_pair)) {
			if (ua->unlaminate_all) {
				ui->unlaminated = (uint8_t)(lo_pair + st_pair);
			} else if (lo_pair) {
				/* HSW/SKL keep an indexed load+op fused only for
				 * two-operand forms whose destination is a source. */
				bool keep = false;

				if (decoded && !st_pair && in->operand_count_visible == 2 &&
				    ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
				    (ops[0].actions & ZYDIS_OPERAND_ACTION_MASK_READ) &&
				    (ops[0].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
					keep = true;
				ui->unlaminated = !keep;
			}
		}
		if (indexed && ui->n_sta && ua->simple_sta_port < pt->n) {
			for (unsigned i = 0; i < ui->n_uops; i++)
				if (ui->uops[i].kind == UA_STA &&
				    popcount16(ui->uops[i].ports) > 1)
					ui->uops[i].ports &= (uint16_t)~(1u << ua->simple_sta_port);
		}
	}

	/* Value tracking for address matching. */
	ui->vt = UA_VT_NEW;
	if (decoded && ui->n_dst && ZydisRegisterGetClass((ZydisRegister)ui->dst[0]) ==
	    ZYDIS_REGCLASS_GPR64 && in->operand_count_visible >= 1 &&
	    ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[0].size == 64) {
		switch (in->mnemonic) {
		case ZYDIS_MNEMONIC_ADD:
		case ZYDIS_MNEMONIC_SUB:
			if (in->operand_count_visible == 2 && ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
				ui->vt = UA_VT_DELTA;
				ui->vt_delta = in->mnemonic == ZYDIS_MNEMONIC_ADD ? ops[1].imm.value.s
										 : -ops[1].imm.value.s;
			}
			break;
		case ZYDIS_MNEMONIC_INC:
		case ZYDIS_MNEMONIC_DEC:
			ui->vt = UA_VT_DELTA;
			ui->vt_delta = in->mnemonic == ZYDIS_MNEMONIC_INC ? 1 : -1;
			break;
		case ZYDIS_MNEMONIC_LEA:
			if (ops[1].mem.index == ZYDIS_REGISTER_NONE && ops[1].mem.base != ZYDIS_REGISTER_NONE &&
			    ops[1].mem.base != ZYDIS_REGISTER_RIP) {
				ui->vt = UA_VT_COPY;
				ui->vt_src = fold(ops[1].mem.base);
				ui->vt_delta = ops[1].mem.disp.value;
			}
			break;
		case ZYDIS_MNEMONIC_MOV:
			if (ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[1].size == 64) {
				ui->vt = UA_VT_COPY;
				ui->vt_src = fold(ops[1].reg.value);
				ui->vt_delta = 0;
			}
			break;
		default:
			break;
		}
	}
	if (decoded)
		eval_build(in, ops, ui);
	if (ui->fused > 1 || (ui->flags & UA_COMPLEX_DEC) ||
	    (ua->pop5c_complex && (ui->flags & UA_POP5C)))
		ui->flags |= UA_DEC_FIRST;
	/* The flags as the engine numbers them (reg_slot()): its register
	 * arrays are indexed by these lists as they are. */
	for (unsigned i = 0; i < ui->n_addr; i++)
		ui->addr[i] = (uint16_t)reg_slot(ui->addr[i]);
	for (unsigned i = 0; i < ui->n_data; i++)
		ui->data[i] = (uint16_t)reg_slot(ui->data[i]);
	for (unsigned i = 0; i < ui->n_dst; i++)
		ui->dst[i] = (uint16_t)reg_slot(ui->dst[i]);
	ui->move_src = (uint16_t)reg_slot(ui->move_src);
	ui->vt_src = (uint16_t)reg_slot(ui->vt_src);
	return 0;
}

bool
ua_fusible(const struct ua_insn *a, const struct ua_insn *b)
{
	uint8_t c = b->cond;

	if (!(a->flags & UA_MACRO_FIRST) || !(b->flags & UA_COND_JUMP))
		return false;
	switch (a->macro_class) {
	case 1:
		return true;
	case 2:
		return !(c == COND_O || c == COND_NO || c == COND_S || c == COND_NS ||
			 c == COND_P || c == COND_NP);
	default:
		return c == COND_Z || c == COND_NZ || c == COND_L || c == COND_NL ||
		       c == COND_LE || c == COND_NLE;
	}
}

void
ua_macro_fuse(const struct sched_uarch *ua, const struct ua_insn *ui, unsigned n,
	      uint8_t *fused)
{
	(void)ua;
	memset(fused, 0, n);
	for (unsigned i = 0; i + 1 < n; i++) {
		if (fused[i] || !ua_fusible(&ui[i], &ui[i + 1]))
			continue;
		fused[i] = 1;
		fused[i + 1] = 2;
	}
}

/* ------------------------------------------------------------------ */
/* The engine                                                          */

#define UA_STORES	64
#define NEVER		UINT32_MAX
#define N_REGS		(ZYDIS_REGISTER_MAX_VALUE + 2)

enum { REF_RESULT = 0, REF_SYNC = 1 };

/* ua_sim_push() does not clear a slot: it sets the fields read before a
 * stage writes them (those set at rename are set by rename_insn(), the
 * stage times by their stages).  A new field must be set there. */
struct ua_dyn {
	/* Hot: what dependents, the scheduler and dispatch look at (its
	 * first cache line: the ring is aligned on lines, and so is each
	 * record). */
	uint64_t seq;
	uint32_t result_ready, sync_ready, load_ready, std_time, t_retire;
	uint32_t done, t_issue, res_max;
	const struct ua_insn *ui;
	uint8_t uops_left, ops_left, n_uops, slots;
	uint8_t fuse, taken, needs_sync, ptr_chase;
	uint32_t t_ready, t_dispatch;
	/* The rest. */
	uint64_t addr;
	uint32_t tag;
	uint8_t slots_left, retire_left, started, idq_uops;
	uint8_t n_src_addr, n_src_data, has_lkey, has_skey;
	uint8_t lsize, ssize, fwd_fail;
	uint32_t t_fetch, t_predec, t_dec;
	uint32_t sta_time;		/* a store's address uop dispatched */
	uint32_t src_addr[4], src_data[UA_MAX_SRCS], src_sync;	/* producer refs */
	uint64_t fwd;
	uint8_t uop_port[UA_MAX_UOPS + 1];
} __attribute__((aligned(64)));

/* The address keys of a ring slot's load and store (struct ua_dyn's
 * has_lkey, has_skey): set at push, read at rename only, so kept apart
 * from the records the other stages look at. */
struct ua_keys {
	uint64_t lkey_a, lkey_b, skey_a, skey_b;
};

/* Fields of struct ua_dyn a waiting uop may be blocked on. */
enum { F_RESULT, F_SYNC, F_LOAD, F_STD, F_RETIRE };

/*
 * The scheduler is event driven: a uop waits on the instruction whose
 * time it misses (a wait list per ring slot), then in a timing wheel
 * until its cycle, then in its port's list of ready uops (oldest first).
 */
#define RS_SLOTS	512
#define WHEEL		1024

struct rs_slot {
	uint64_t seq;
	uint32_t ready;
	int32_t next;		/* wait list, wheel bucket or free list */
	uint8_t uop;		/* index into ui->uops, or UA_MAX_UOPS for the sync uop */
	uint8_t port;
};

struct store_rec {
	uint64_t a, b, seq;
	unsigned size;
	bool has_std;		/* it has a store-data uop (std_time gets set) */
	uint64_t prev;		/* number of the previous store of its bucket */
};

/* Stores by address key: the newest store of each bucket, each store
 * linked to the one before it in its bucket (a load looks only at stores
 * whose key may match, newest first, as a scan of all of them would). */
#define STORE_BUCKETS	64
#define NO_STORE	UINT64_MAX

static unsigned
store_bucket(uint64_t a)
{
	return (unsigned)((a ^ (a >> 29) ^ (a >> 47)) % STORE_BUCKETS);
}

struct ua_sim {
	const struct sched_model *model;
	const struct sched_uarch *ua;
	struct ua_ports pt;
	enum ua_frontend fe;
	struct ua_dyn *ring;
	struct ua_keys *keys;		/* per ring slot */
	uint64_t mask;			/* ring size - 1: > ROB + IDQ + IQ + look-ahead */
	uint64_t push_end, pd_head, dec_head, ren_head, ret_head;
	uint32_t cycle;
	/* front end */
	uint64_t pd_block;
	unsigned pd_stall, ms_stall, idq_uops;
	/* back end */
	unsigned rob_used, lb_used, sb_used, rs_n;
	struct rs_slot rs[RS_SLOTS];
	int32_t rs_free;
	int32_t *waiters;		/* per ring slot: uops waiting on it */
	int32_t wheel[WHEEL];
	uint16_t cand[UA_MAX_PORTS][RS_SLOTS];	/* ready uops per port, by age */
	unsigned n_cand[UA_MAX_PORTS];
	unsigned cand_mask;		/* ports with n_cand[p] != 0 */
	unsigned cand_added;		/* ports given a ready uop (dispatch_stage()) */
	unsigned pending[UA_MAX_PORTS];
	unsigned load_turn;		/* loads renamed so far (load_ports_alternate) */
	uint32_t busy_until[4];
	uint32_t prod[N_REGS];		/* register -> producer ref (make_ref()) */
	/* stack engine and address values */
	int64_t se_offset;
	uint64_t vid[N_REGS];
	int64_t voff[N_REGS];
	uint64_t next_vid;
	struct store_rec stores[UA_STORES];
	unsigned n_stores, store_pos;
	uint64_t n_stored;			/* stores recorded so far */
	uint64_t store_head[STORE_BUCKETS];	/* newest store number, or NO_STORE */
	bool bhive;
	uint8_t *bh_mem;		/* BHive's page: bytes, then a known flag per byte */
	struct block_ctx *blk;		/* ua_run_block_reuse()'s accounting, or NULL */

	struct ua_stats st;
};


/* The state of a new engine, from one whose first `used' ring slots were
 * used (a fresh one: all): only what a run changes is written again.
 * A reused engine passes 0: a ring slot and its wait list are read only
 * for an instruction pushed since (through a producer reference, a store
 * record, a scheduler entry or a stage's head, all cleared here), and
 * ua_sim_push() sets its seq and wait list, so stale slots are never
 * looked at. */
static void
sim_clear(struct ua_sim *s, uint64_t used)
{
	uint64_t size = s->mask + 1;
	/* A run that ended with every uop dispatched left every scheduler
	 * slot on the free list (in another order: slot numbers mean
	 * nothing) and the wheel empty. */
	bool drained = used == 0 && s->rs_n == 0;

	if (used > size)
		used = size;
	for (uint64_t i = 0; i < used; i++) {
		s->ring[i].seq = UINT64_MAX;
		s->waiters[i] = -1;
	}
	s->push_end = s->pd_head = s->dec_head = s->ren_head = s->ret_head = 0;
	s->cycle = 0;
	s->pd_block = UINT64_MAX;
	s->pd_stall = s->ms_stall = s->idq_uops = 0;
	s->rob_used = s->lb_used = s->sb_used = s->rs_n = 0;
	if (!drained) {
		for (int i = 0; i < RS_SLOTS; i++)
			s->rs[i].next = i + 1 < RS_SLOTS ? i + 1 : -1;
		s->rs_free = 0;
		for (unsigned i = 0; i < WHEEL; i++)
			s->wheel[i] = -1;
	}
	memset(s->n_cand, 0, sizeof(s->n_cand));
	s->cand_mask = s->cand_added = 0;
	memset(s->pending, 0, sizeof(s->pending));
	s->load_turn = 0;
	memset(s->busy_until, 0, sizeof(s->busy_until));
	memset(s->prod, 0, sizeof(s->prod));
	s->se_offset = 0;
	for (unsigned i = 0; i < N_REGS; i++)
		s->vid[i] = i + 1;
	memset(s->voff, 0, sizeof(s->voff));
	s->next_vid = N_REGS + 1;
	s->n_stores = s->store_pos = 0;
	s->n_stored = 0;
	for (unsigned i = 0; i < STORE_BUCKETS; i++)
		s->store_head[i] = NO_STORE;
	s->bhive = false;
	s->blk = NULL;
	memset(&s->st, 0, sizeof(s->st));
}

struct ua_sim *
ua_sim_new(const struct sched_model *model, const struct sched_uarch *ua, enum ua_frontend fe)
{
	struct ua_sim *s = calloc(1, sizeof(*s));
	unsigned size = 64;

	if (!s)
		return NULL;
	while (size < ua->rob + ua->idq + ua->iq + 2 * UA_LOOKAHEAD)
		size *= 2;
	s->mask = size - 1;
	s->ring = aligned_alloc(64, size * sizeof(*s->ring));
	s->keys = malloc(size * sizeof(*s->keys));
	s->waiters = malloc(size * sizeof(*s->waiters));
	if (!s->ring || !s->keys || !s->waiters || ua_ports_init(model, ua, &s->pt) < 0) {
		free(s->ring);
		free(s->keys);
		free(s->waiters);
		free(s);
		return NULL;
	}
	s->model = model;
	s->ua = ua;
	s->fe = fe;
	sim_clear(s, size);
	return s;
}

/* BHive's environment (ua_sim_bhive_env()).  A known value is vid
 * BH_KNOWN with the value in voff (the register "none", vid 1 and 0,
 * reads as a known 0); an address from known values has key BH_KEY and
 * the virtual address. */
#define BH_KNOWN	1
#define BH_KEY		0x6268697665ULL
#define BH_PAGE		4096u
#define BH_INIT		0x2324000u

int
ua_sim_bhive_env(struct ua_sim *s)
{
	if (!s->bh_mem)
		s->bh_mem = malloc(2 * BH_PAGE);
	if (!s->bh_mem)
		return -1;
	for (unsigned r = ZYDIS_REGISTER_RAX; r <= ZYDIS_REGISTER_R15; r++) {
		s->vid[r] = BH_KNOWN;
		s->voff[r] = BH_INIT;
	}
	s->voff[ZYDIS_REGISTER_RSP] = BH_INIT + 0x800;
	s->voff[ZYDIS_REGISTER_RBP] = BH_INIT + 0x7f0;
	for (unsigned i = 0; i < BH_PAGE; i += 8) {
		uint64_t v = BH_INIT;

		memcpy(s->bh_mem + i, &v, 8);
	}
	memset(s->bh_mem + BH_PAGE, 1, BH_PAGE);
	s->bhive = true;
	return 0;
}

/* The size bytes at virtual address addr (little-endian, zero-extended)
 * if every one is known. */
static bool
bh_read(const struct ua_sim *s, uint64_t addr, unsigned size, uint64_t *v)
{
	uint64_t x = 0;

	if (size == 0 || size > 8)
		return false;
	for (unsigned i = 0; i < size; i++) {
		unsigned o = (unsigned)(addr + i) % BH_PAGE;

		if (!s->bh_mem[BH_PAGE + o])
			return false;
		x |= (uint64_t)s->bh_mem[o] << (8 * i);
	}
	*v = x;
	return true;
}

static void
bh_write(struct ua_sim *s, uint64_t addr, unsigned size, bool known, uint64_t v)
{
	if (size > BH_PAGE)
		size = BH_PAGE;
	for (unsigned i = 0; i < size; i++) {
		unsigned o = (unsigned)(addr + i) % BH_PAGE;

		s->bh_mem[o] = (uint8_t)(i < 8 ? v >> (8 * i) : 0);
		s->bh_mem[BH_PAGE + o] = known && i < 8;
	}
}

static uint64_t
bh_ext(uint64_t v, unsigned size, bool sext)
{
	if (size >= 8 || size == 0)
		return v;
	v &= (1ULL << (8 * size)) - 1;
	if (sext && (v >> (8 * size - 1)) & 1)
		v |= ~0ULL << (8 * size);
	return v;
}

/* The value e gives, if its inputs are known; mem: the loaded value. */
static bool
bh_eval(const struct ua_sim *s, const struct ua_eval *e, bool mem_ok, uint64_t mem,
	uint64_t *out)
{
	uint64_t a, b, r;

	if (e->op == UA_EV_NONE || ((e->amem || e->bmem) && !mem_ok))
		return false;
	if (e->amem) {
		a = mem;
	} else {
		if (s->vid[e->a] != BH_KNOWN)
			return false;
		a = (uint64_t)s->voff[e->a];
	}
	if (e->bmem) {
		b = bh_ext(mem, e->bsize, e->sext);
	} else {
		if (s->vid[e->b] != BH_KNOWN)
			return false;
		b = bh_ext((uint64_t)s->voff[e->b], e->bsize, e->sext) * e->scale +
		    (uint64_t)e->imm;
	}
	switch (e->op) {
	case UA_EV_B: r = b; break;
	case UA_EV_SAME:
		if (a != b)
			return false;
		r = a;
		break;
	case UA_EV_ADD: r = a + b; break;
	case UA_EV_SUB: r = a - b; break;
	case UA_EV_AND: r = a & b; break;
	case UA_EV_OR: r = a | b; break;
	case UA_EV_XOR: r = a ^ b; break;
	case UA_EV_SHL:
	case UA_EV_SHR:
	case UA_EV_SAR:
		/* 32- and 64-bit shifts (a byte or word in memory: not followed) */
		if (e->width == 8)
			r = e->op == UA_EV_SHL ? a << (b & 63) : e->op == UA_EV_SHR ? a >> (b & 63)
			    : (uint64_t)((int64_t)a >> (b & 63));
		else if (e->width == 4)
			r = e->op == UA_EV_SHL ? a << (b & 31)
			    : e->op == UA_EV_SHR ? (uint64_t)((uint32_t)a >> (b & 31))
			    : (uint64_t)(uint32_t)((int32_t)(uint32_t)a >> (b & 31));
		else
			return false;
		break;
	default:
		return false;
	}
	/* a 32-bit result is zero-extended; a store keeps the bytes it writes */
	*out = e->width == 4 ? (uint64_t)(uint32_t)r : r;
	return true;
}

static bool
bh_known_addr(const struct ua_sim *s, const struct ua_mem *m)
{
	return !m->rip && s->vid[m->base] == BH_KNOWN && s->vid[m->index] == BH_KNOWN;
}

/* Memory after ui, in the BHive environment, and the value it gives
 * dst[0] when that is known (returns true): the bytes it stores at a
 * known address are known when their value is. */
static bool
bh_values(struct ua_sim *s, const struct ua_insn *ui, struct ua_keys *key, uint64_t *dst0)
{
	uint64_t mem = 0, v = 0;
	bool mem_ok = false;

	/* Addresses from known values: their key says so (mem_key() has
	 * put the address in the second half). */
	if (ui->has_load_mem && bh_known_addr(s, &ui->load_mem))
		key->lkey_a = BH_KEY;
	if (ui->has_store_mem && bh_known_addr(s, &ui->store_mem))
		key->skey_a = BH_KEY;

	if (ui->has_load_mem && key->lkey_a == BH_KEY)
		mem_ok = bh_read(s, key->lkey_b, ui->load_mem.size, &mem);
	if (ui->has_store_mem && key->skey_a == BH_KEY) {
		bool known = bh_eval(s, &ui->sv, mem_ok, mem, &v);

		bh_write(s, key->skey_b, ui->store_mem.size ? ui->store_mem.size : 1, known, v);
	}
	return ui->n_dst && bh_eval(s, &ui->ev, mem_ok, mem, dst0);
}

void
ua_sim_free(struct ua_sim *s)
{
	if (!s)
		return;
	free(s->ring);
	free(s->keys);
	free(s->waiters);
	free(s->bh_mem);
	free(s);
}

unsigned
ua_sim_queued(const struct ua_sim *s)
{
	return (unsigned)(s->push_end - s->ren_head);
}

bool
ua_sim_idle(const struct ua_sim *s)
{
	return s->ret_head == s->push_end;
}

const struct ua_stats *
ua_sim_stats(const struct ua_sim *s)
{
	return &s->st;
}

static void
mem_key(const struct ua_sim *s, const struct ua_mem *m, uint64_t addr, unsigned len,
	uint64_t *a, uint64_t *b)
{
	if (m->rip) {
		*a = 1;
		*b = addr + len + (uint64_t)m->disp;
		return;
	}
	*a = s->vid[m->base] * 0x9E3779B97F4A7C15ULL ^ s->vid[m->index] * 0xC2B2AE3D27D4EB4FULL ^
	     m->scale;
	*b = (uint64_t)(m->disp + s->voff[m->base] + (int64_t)m->scale * s->voff[m->index]);
}

int
ua_sim_push(struct ua_sim *s, const struct ua_insn *ui, uint64_t addr, uint32_t tag,
	    uint8_t fuse, bool taken, uint64_t mem_addr)
{
	struct ua_dyn *d;
	struct ua_keys *key;
	uint64_t value = 0;
	bool known;

	if (s->push_end - s->ret_head >= s->mask)
		return -1;
	d = &s->ring[s->push_end & s->mask];
	key = &s->keys[s->push_end & s->mask];
	/* Only the fields read before a later stage writes them (no
	 * memset: see struct ua_dyn). */
	d->needs_sync = d->ptr_chase = d->started = 0;
	d->has_lkey = d->has_skey = 0;
	d->fwd = 0;
	s->waiters[s->push_end & s->mask] = -1;
	d->ui = ui;
	d->seq = s->push_end++;
	d->addr = addr;
	d->tag = tag;
	d->fuse = fuse;
	d->taken = taken;
	d->t_fetch = s->cycle;
	d->t_ready = d->t_dispatch = d->t_retire = NEVER;

	/* Stack engine: implicit RSP updates accumulate in the front end;
	 * an explicit read of RSP then needs a sync uop. */
	if (ui->flags & UA_STACK_OP)
		s->se_offset += ui->stack_delta;
	if ((ui->flags & UA_READS_RSP) && s->se_offset != 0) {
		d->needs_sync = 1;
		s->se_offset = 0;
	}
	if (ui->flags & UA_WRITES_RSP)
		s->se_offset = 0;

	/* Addresses for store-to-load forwarding. */
	if (ui->has_load_mem) {
		d->has_lkey = 1;
		d->lsize = ui->load_mem.size;
		if (mem_addr) {
			key->lkey_a = 0;
			key->lkey_b = mem_addr;
		} else {
			mem_key(s, &ui->load_mem, addr, ui->len, &key->lkey_a, &key->lkey_b);
		}
	}
	if (ui->has_store_mem) {
		d->has_skey = 1;
		d->ssize = ui->store_mem.size;
		if (mem_addr) {
			key->skey_a = 0;
			key->skey_b = mem_addr;
		} else {
			mem_key(s, &ui->store_mem, addr, ui->len, &key->skey_a, &key->skey_b);
		}
	}
	/* Register values: in BHive's environment the known ones (vid
	 * BH_KNOWN), else how dst[0] relates to a register before it. */
	known = s->bhive && bh_values(s, ui, key, &value);
	if (ui->flags & UA_STACK_OP)
		s->voff[ZYDIS_REGISTER_RSP] += ui->stack_delta;
	for (unsigned i = 0; i < ui->n_dst; i++) {
		unsigned r = ui->dst[i];

		if (i == 0 && known) {
			s->vid[r] = BH_KNOWN;
			s->voff[r] = (int64_t)value;
		} else if (i == 0 && ui->vt == UA_VT_DELTA && s->vid[r] != BH_KNOWN) {
			s->voff[r] += ui->vt_delta;
		} else if (i == 0 && ui->vt == UA_VT_COPY && s->vid[ui->vt_src] != BH_KNOWN) {
			unsigned src = ui->vt_src;

			s->vid[r] = s->vid[src];
			s->voff[r] = s->voff[src] + ui->vt_delta;
		} else {
			s->vid[r] = s->next_vid++;
			s->voff[r] = 0;
		}
	}

	/* Issue slots: fused uops, unlamination, the sync uop; a Jcc fused
	 * into the previous instruction takes none. */
	if (fuse == 2) {
		d->slots = 0;
		d->idq_uops = 0;
	} else {
		unsigned sl = ui->fused + ui->unlaminated + d->needs_sync;

		d->slots = (uint8_t)(sl > 255 ? 255 : sl);
		d->idq_uops = (uint8_t)(ui->fused + d->needs_sync > 255 ? 255 : ui->fused + d->needs_sync);
	}
	d->slots_left = d->retire_left = d->slots;
	/* A macro-fused pair executes as the first one's uops, its ALU uop
	 * on a branch port; the Jcc brings none. */
	d->n_uops = (uint8_t)(fuse == 2 ? 0 : ui->n_uops + d->needs_sync);
	return 0;
}

struct blocker {
	uint64_t seq;
	uint8_t field;
};

/* A producer reference: the low 31 bits of (seq + 1) and which time
 * (result or sync); 0 = none.  Producers a consumer can see are within
 * the ring, far less than 2^31 instructions back. */
static inline __attribute__((always_inline)) uint32_t
ref_time(const struct ua_sim *s, uint32_t ref, struct blocker *b)
{
	const struct ua_dyn *p;
	uint32_t t;

	if (!ref)
		return 0;
	p = &s->ring[((ref >> 1) - 1) & s->mask];
	if ((uint32_t)((p->seq + 1) << 1) != (ref & ~1u))
		return 0;
	t = (ref & 1) ? p->sync_ready : p->result_ready;
	if (t == NEVER && p->t_retire != NEVER)
		return 0;
	if (t == NEVER) {
		b->seq = p->seq;
		b->field = (ref & 1) ? F_SYNC : F_RESULT;
	}
	return t;
}

static uint32_t
make_ref(uint64_t seq, unsigned kind)
{
	return (uint32_t)((seq + 1) << 1) | kind;
}

static uint32_t
max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* The cycle from which uop u of d may dispatch, NEVER while an input's
 * time is not known yet.  Known times never change, so it is cached. */
/* The cycle from which uop u of d may dispatch, or NEVER while an input's
 * time is not known yet (*b then says which: known times never change, so
 * the caller caches the answer and asks again only when that one is
 * known). */
static uint32_t
uop_ready_time(const struct ua_sim *s, const struct ua_dyn *d, unsigned u, struct blocker *b)
{
	const struct ua_insn *ui = d->ui;
	unsigned kind = u == UA_MAX_UOPS ? 255 : ui->uops[u].kind;
	uint32_t t = d->t_issue + 1;

#define NEED(x) do { uint32_t v_ = (x); if (v_ == NEVER) return NEVER; t = max32(t, v_); } while (0)
	if (kind == 255) {
		NEED(ref_time(s, d->src_sync, b));
		return t;
	}
	if (kind == UA_LOAD || kind == UA_STA) {
		for (unsigned i = 0; i < d->n_src_addr; i++)
			NEED(ref_time(s, d->src_addr[i], b));
		if (kind == UA_LOAD && d->fwd) {
			uint64_t seq = d->fwd - 1;
			const struct ua_dyn *st = &s->ring[seq & s->mask];

			/* Forwarded from the store's data, or, when the load
			 * is not within the store, read once it is written. */
			if (st->seq == seq) {
				uint32_t w = d->fwd_fail ? st->t_retire : st->std_time;

				/* and the store's address known */
				if (!d->fwd_fail && st->ui->n_sta && st->sta_time > w)
					w = st->sta_time;

				if (w == NEVER) {
					b->seq = seq;
					b->field = d->fwd_fail ? F_RETIRE : F_STD;
					return NEVER;
				}
				t = max32(t, w + (d->fwd_fail ? s->ua->fwd_fail_delay : s->ua->fwd_delay));
			}
		}
		return t;
	}
	b->seq = d->seq;
	if (kind == UA_STD && ui->n_op) {
		b->field = F_RESULT;
		NEED(d->result_ready);
		return t;
	}
	b->field = F_LOAD;
	if (kind == UA_STD && ui->n_load)
		NEED(d->load_ready);	/* movs: the data is the load's */
	if (kind == UA_OP && ui->n_load)
		NEED(d->load_ready);
	for (unsigned i = 0; i < d->n_src_data; i++)
		NEED(ref_time(s, d->src_data[i], b));
#undef NEED
	return t;
}

static void wake(struct ua_sim *s, const struct ua_dyn *d);
static void block_retired(struct block_ctx *b, const struct ua_dyn *d, uint32_t cycle);

static void
retire_stage(struct ua_sim *s, ua_retire_fn fn, void *arg)
{
	unsigned budget = s->ua->retire_width;

	while (s->ret_head < s->ren_head) {
		struct ua_dyn *d = &s->ring[s->ret_head & s->mask];
		unsigned take;

		if (d->uops_left || d->done + 1 > s->cycle)
			break;
		take = d->retire_left < budget ? d->retire_left : budget;
		d->retire_left = (uint8_t)(d->retire_left - take);
		budget -= take;
		if (d->retire_left)
			break;
		d->t_retire = s->cycle;
		wake(s, d);
		s->rob_used -= d->slots;
		if (d->ui->n_load)
			s->lb_used--;
		if (d->ui->n_sta)
			s->sb_used--;
		s->st.insns++;
		s->st.cyc_retired++;
		if (!(d->ui->flags & UA_MOVE_ELIM) && !(d->ui->flags & UA_ZERO_IDIOM) && d->fuse != 2)
			s->st.regs_used -= d->ui->n_dst;
		if (s->blk) {
			block_retired(s->blk, d, s->cycle);
		} else if (fn) {
			struct ua_retired r;

			/* port_uops[p] and busy_cycles[k] are zeroed when
			 * their bit of port_mask or busy_mask is first set:
			 * only those are meaningful. */
			r.port_mask = 0;
			r.busy_mask = 0;
			r.tag = d->tag;
			r.fetched = d->t_fetch;
			r.decoded = d->t_dec;
			r.issued = d->t_issue;
			r.dispatched = d->t_dispatch == NEVER ? d->t_issue : d->t_dispatch;
			r.ready = d->t_ready == NEVER ? r.dispatched : d->t_ready;
			r.executed = d->done;
			r.retired = s->cycle;
			for (unsigned u = 0; u < d->n_uops && u <= UA_MAX_UOPS; u++) {
				unsigned idx = u < d->ui->n_uops ? u : UA_MAX_UOPS;
				unsigned pp = d->uop_port[idx];

				if (!(r.port_mask & (1u << pp)))
					r.port_uops[pp] = 0;
				r.port_uops[pp]++;
				r.port_mask |= (uint16_t)(1u << pp);
				if (idx < d->ui->n_uops && d->ui->uops[idx].busy) {
					unsigned bu = d->ui->uops[idx].busy_unit;

					if (!(r.busy_mask & (1u << bu)))
						r.busy_cycles[bu] = 0;
					r.busy_cycles[bu] += d->ui->uops[idx].busy;
					r.busy_mask |= (uint8_t)(1u << bu);
				}
			}
			fn(arg, &r);
		}
		s->ret_head++;
		if (!budget)
			break;
	}
}

static void
uop_done(struct ua_dyn *d, uint32_t t)
{
	if (t > d->done || d->done == NEVER)
		d->done = t;
}

/* e->ready for slot i, or, while an input's time is unknown, slot i on
 * that instruction's wait list (returns false).  Out of line: the
 * common calls of rs_place() (a known time) stay cheap. */
static __attribute__((noinline)) bool
rs_ready(struct ua_sim *s, struct rs_slot *e, int32_t i)
{
	struct blocker b = { UINT64_MAX, F_RETIRE };

	e->ready = uop_ready_time(s, &s->ring[e->seq & s->mask], e->uop, &b);
	if (e->ready == NEVER) {
		unsigned w = (unsigned)(b.seq & s->mask);

		e->next = s->waiters[w];
		s->waiters[w] = i;
		return false;
	}
	return true;
}

/* Put slot i where it belongs now: waiting on an instruction, in the
 * wheel, or among its port's ready uops. */
static inline void
rs_place(struct ua_sim *s, int32_t i)
{
	struct rs_slot *e = &s->rs[i];
	uint32_t c = s->cycle;

	if (e->ready == NEVER && !rs_ready(s, e, i))
		return;
	if (e->ready > c) {
		uint32_t at = e->ready - c >= WHEEL ? c + WHEEL - 1 : e->ready;

		e->next = s->wheel[at % WHEEL];
		s->wheel[at % WHEEL] = i;
		return;
	}
	{
		unsigned p = e->port, n = s->n_cand[p], j = n;
		struct ua_dyn *d = &s->ring[e->seq & s->mask];

		if (d->t_ready == NEVER || d->t_ready > c)
			d->t_ready = c;
		while (j > 0 && s->rs[s->cand[p][j - 1]].seq > e->seq) {
			s->cand[p][j] = s->cand[p][j - 1];
			j--;
		}
		s->cand[p][j] = (uint16_t)i;
		s->n_cand[p] = n + 1;
		s->cand_mask |= 1u << p;
		s->cand_added |= 1u << p;
	}
}

/* A time of d became known: its waiters look again. */
static void
wake(struct ua_sim *s, const struct ua_dyn *d)
{
	unsigned w = (unsigned)(d->seq & s->mask);
	int32_t i = s->waiters[w];

	s->waiters[w] = -1;
	while (i >= 0) {
		int32_t next = s->rs[i].next;

		rs_place(s, i);
		i = next;
	}
}

static void
dispatch_uop(struct ua_sim *s, int32_t i)
{
	struct rs_slot *e = &s->rs[i];
	struct ua_dyn *d = &s->ring[e->seq & s->mask];
	const struct ua_uop *u = e->uop < UA_MAX_UOPS ? &d->ui->uops[e->uop] : NULL;
	uint32_t c = s->cycle;

	s->pending[e->port]--;
	s->st.port_uops[e->port]++;
	s->st.cyc_dispatched++;
	s->rs_n--;
	e->next = s->rs_free;
	s->rs_free = i;
	if (d->t_dispatch == NEVER)
		d->t_dispatch = c;
	d->uops_left--;
	if (!u) {
		d->sync_ready = c + 1;
		uop_done(d, c + 1);
		wake(s, d);
		return;
	}
	if (u->busy)
		s->busy_until[u->busy_unit] = c + u->busy;
	switch (u->kind) {
	case UA_LOAD: {
		unsigned lat = d->ptr_chase ? 4u : d->ui->load_lat;

		/* Data forwarded from a store in flight: the store buffer
		 * answers sooner than the cache. */
		if (d->fwd && !d->fwd_fail && s->ua->fwd_save && !d->ptr_chase &&
		    lat > s->ua->fwd_save + 1)
			lat -= s->ua->fwd_save;

		d->load_ready = c + lat;
		if (d->ui->flags & UA_PURE_LOAD)
			d->result_ready = d->load_ready;
		uop_done(d, c + lat);
		break;
	}
	case UA_STA:
		d->sta_time = c;
		uop_done(d, c + 1);
		break;
	case UA_STD:
		d->std_time = c;
		uop_done(d, c + 1);
		break;
	default:
		if (c + d->ui->op_lat > d->res_max)
			d->res_max = c + d->ui->op_lat;
		if (--d->ops_left == 0)
			d->result_ready = d->res_max;
		uop_done(d, c + d->ui->op_lat);
		break;
	}
	wake(s, d);
}

static void
dispatch_stage(struct ua_sim *s)
{
	uint32_t c = s->cycle;
	uint32_t used = 0;
	int32_t i = s->wheel[c % WHEEL];

	s->wheel[c % WHEEL] = -1;
	while (i >= 0) {
		int32_t next = s->rs[i].next;

		rs_place(s, i);
		i = next;
	}
	/* Each port takes its oldest ready uop; a second round lets a port
	 * take a uop woken by this cycle's dispatches (store data to a load
	 * with no forwarding delay).  A port that found nothing in the first
	 * round and was given no uop since finds nothing again (uops leave
	 * a list only by dispatch, busy units only get busier), so the
	 * second round looks only at the ports given one. */
	s->cand_added = 0;
	for (unsigned round = 0; round < 2; round++) {
		/* The ports in increasing order, each as it is when reached
		 * (a dispatch may give a later port a uop). */
		for (unsigned p = 0;; p++) {
			unsigned m = s->cand_mask & ~used & ~((1u << p) - 1);

			if (round)
				m &= s->cand_added;
			if (!m)
				break;
			p = (unsigned)__builtin_ctz(m);
			for (unsigned j = 0; j < s->n_cand[p]; j++) {
				int32_t k = s->cand[p][j];
				const struct rs_slot *e = &s->rs[k];
				const struct ua_dyn *d = &s->ring[e->seq & s->mask];
				const struct ua_uop *u = e->uop < UA_MAX_UOPS ? &d->ui->uops[e->uop] : NULL;

				if (u && u->busy && s->busy_until[u->busy_unit] > c)
					continue;
				/* (a short list: no memmove call) */
				for (unsigned q = j + 1; q < s->n_cand[p]; q++)
					s->cand[p][q - 1] = s->cand[p][q];
				if (--s->n_cand[p] == 0)
					s->cand_mask &= ~(1u << p);
				used |= 1u << p;
				dispatch_uop(s, k);
				break;
			}
		}
	}
}

static __attribute__((noinline)) unsigned
choose_port_of(struct ua_sim *s, uint16_t mask, const unsigned *load)
{
	unsigned best = UINT_MAX;

	/* HSW/SKL: loads take their two ports in turn, whatever the queues
	 * hold (a load queued behind its address is not work a port has). */
	if (s->ua->load_ports_alternate && mask == s->pt.load && popcount16(mask) == 2)
		return (unsigned)__builtin_ctz(s->load_turn++ & 1 ? mask & (mask - 1) : mask);
	/* The ports of the mask in increasing order (the first of the
	 * least loaded wins): the least of (load, port), without a branch
	 * per port (loads are below RS_SLOTS, ports below 16). */
	for (unsigned m = mask & ((1u << s->pt.n) - 1); m; m &= m - 1) {
		unsigned p = (unsigned)__builtin_ctz(m), key = load[p] << 4 | p;

		best = key < best ? key : best;
	}
	return best == UINT_MAX ? 0 : best & 15;
}

/* The port of a uop that may go to the ports of mask: the only one, or
 * choose_port_of()'s. */
static inline unsigned
choose_port(struct ua_sim *s, uint16_t mask, const unsigned *load)
{
	if (mask && !(mask & (mask - 1)))
		return (unsigned)__builtin_ctz(mask);
	return choose_port_of(s, mask, load);
}

/* A renamed uop enters the scheduler; it is placed once the whole
 * instruction is renamed (rs_place()). */
static int32_t
rs_add(struct ua_sim *s, uint64_t seq, unsigned uop, unsigned port)
{
	int32_t i = s->rs_free;

	s->rs_free = s->rs[i].next;
	s->rs[i] = (struct rs_slot){ seq, NEVER, -1, (uint8_t)uop, (uint8_t)port };
	s->rs_n++;
	return i;
}

/* The store a load d forwards from (d->fwd, d->fwd_fail): the newest
 * older store of the last n_stores that overlaps it, looked for among
 * those whose key falls in the load's bucket, newest first.  page: the
 * load's address is known in BHive's environment, whose pages are one:
 * addresses match by their offset in the page, and a store to another
 * virtual page cannot forward. */
static inline __attribute__((always_inline)) void
find_store(const struct ua_sim *s, struct ua_dyn *d, const struct ua_keys *key, bool page)
{
	uint64_t oldest = s->n_stored - s->n_stores;

	for (uint64_t k = s->store_head[store_bucket(key->lkey_a)];
	     k != NO_STORE && k >= oldest; k = s->stores[k % UA_STORES].prev) {
		const struct store_rec *r = &s->stores[k % UA_STORES];
		/* offsets may wrap: compare differences */
		int64_t diff = (int64_t)(key->lkey_b - r->b);
		int64_t lsize = d->lsize ? d->lsize : 1;
		bool other_page = false;

		if (page) {
			int64_t pd = (int64_t)((key->lkey_b - r->b) % BH_PAGE);

			if (pd >= (int64_t)BH_PAGE / 2)
				pd -= BH_PAGE;
			other_page = pd != diff;
			diff = pd;
		}
		/* Older than anything in flight: its data is in the cache
		 * by now (and so is every older store's). */
		if (r->seq + 64 < s->ret_head)
			break;
		if (r->seq >= d->seq || r->a != key->lkey_a || diff >= (int64_t)r->size ||
		    -diff >= lsize)
			continue;
		d->fwd = r->seq + 1;
		/* A store with no store-data uop never sets std_time: the
		 * load reads the data once the store is written. */
		d->fwd_fail = diff < 0 || diff + lsize > (int64_t)r->size || !r->has_std ||
			      other_page;
		break;
	}
}

static void
rename_insn(struct ua_sim *s, struct ua_dyn *d, unsigned *load)
{
	const struct ua_insn *ui = d->ui;
	const struct ua_keys *key = &s->keys[d->seq & s->mask];
	uint32_t c = s->cycle;
	int32_t added[UA_MAX_UOPS + 1];
	unsigned n_added = 0;

	d->t_issue = c;
	d->load_ready = d->result_ready = d->sync_ready = d->std_time = d->sta_time = NEVER;
	d->done = c;
	d->res_max = 0;
	if (d->needs_sync) {
		d->src_sync = s->prod[ZYDIS_REGISTER_RSP];
		s->prod[ZYDIS_REGISTER_RSP] = make_ref(d->seq, REF_SYNC);
	}
	d->n_src_addr = ui->n_addr;
	for (unsigned i = 0; i < ui->n_addr; i++)
		d->src_addr[i] = s->prod[ui->addr[i]];
	d->n_src_data = ui->n_data;
	for (unsigned i = 0; i < ui->n_data; i++)
		d->src_data[i] = s->prod[ui->data[i]];
	/* Fast pointer chasing: a simple load whose base came from a load. */
	if ((ui->flags & UA_PTR_LOAD) && s->ua->fast_ptr_chase && d->n_src_addr) {
		uint32_t ref = s->prod[ui->load_mem.base];

		if (ref && !(ref & 1)) {
			const struct ua_dyn *p = &s->ring[((ref >> 1) - 1) & s->mask];

			if ((uint32_t)((p->seq + 1) << 1) == ref && (p->ui->flags & UA_PURE_LOAD))
				d->ptr_chase = 1;
		}
	}
	if (ui->flags & UA_MOVE_ELIM) {
		s->prod[ui->dst[0]] = s->prod[ui->move_src];
		for (unsigned i = 1; i < ui->n_dst; i++)
			s->prod[ui->dst[i]] = make_ref(d->seq, REF_RESULT);
		d->result_ready = c;
	} else {
		for (unsigned i = 0; i < ui->n_dst; i++)
			s->prod[ui->dst[i]] = make_ref(d->seq, REF_RESULT);
		if (!ui->n_op && !ui->n_load)
			d->result_ready = c;
	}
	/* Store-to-load forwarding through a matching address: the newest
	 * older store that overlaps the load. */
	if (d->has_lkey) {
		if (s->bhive && key->lkey_a == BH_KEY)
			find_store(s, d, key, true);
		else
			find_store(s, d, key, false);
	}
	if (d->has_skey) {
		unsigned bk = store_bucket(key->skey_a);

		s->stores[s->store_pos] = (struct store_rec){ key->skey_a, key->skey_b, d->seq,
							      d->ssize ? d->ssize : 1u,
							      ui->n_std != 0, s->store_head[bk] };
		s->store_head[bk] = s->n_stored++;
		s->store_pos = (s->store_pos + 1) % UA_STORES;
		if (s->n_stores < UA_STORES)
			s->n_stores++;
	}
	/* Uops to the scheduler, each bound to a port now. */
	d->ops_left = ui->n_op;
	d->uops_left = 0;
	for (unsigned u = 0; d->fuse != 2 && u < ui->n_uops; u++) {
		unsigned p = choose_port(s, ui->uops[u].ports, load);

		if (d->fuse == 1 && ui->uops[u].kind == UA_OP)
			p = choose_port(s, s->pt.branch, load);
		load[p]++;
		s->pending[p]++;
		d->uop_port[u] = (uint8_t)p;
		added[n_added++] = rs_add(s, d->seq, u, p);
		d->uops_left++;
	}
	if (d->needs_sync) {
		unsigned p = choose_port(s, s->pt.alu, load);

		load[p]++;
		s->pending[p]++;
		d->uop_port[UA_MAX_UOPS] = (uint8_t)p;
		added[n_added++] = rs_add(s, d->seq, UA_MAX_UOPS, p);
		d->uops_left++;
	}
	for (unsigned i = 0; i < n_added; i++)
		rs_place(s, added[i]);
	if (ui->n_load)
		s->lb_used++;
	if (ui->n_sta)
		s->sb_used++;
	s->st.uops += d->uops_left;
	s->st.fused_uops += d->slots;
	if (!(ui->flags & UA_MOVE_ELIM) && !(ui->flags & UA_ZERO_IDIOM) && d->fuse != 2) {
		s->st.regs_used += ui->n_dst;
		s->st.mappings += ui->n_dst;
	}
}

static void
rename_stage(struct ua_sim *s)
{
	unsigned budget = s->ua->issue_width;
	/* Each port's queue as the cycle began, plus the uops this cycle
	 * gave it (port assignment at rename sees no dispatch of its own
	 * cycle). */
	unsigned load[UA_MAX_PORTS];
	bool any = false;

	memcpy(load, s->pending, sizeof(load));
	while (budget && s->ren_head < s->dec_head) {
		struct ua_dyn *d = &s->ring[s->ren_head & s->mask];
		unsigned take;

		if (!d->started) {
			const struct ua_insn *ui = d->ui;
			unsigned nu = d->n_uops;

			if (s->rob_used + d->slots > s->ua->rob) {
				if (!any)
					s->st.stall_rob++;
				break;
			}
			if (s->rs_n + nu > s->ua->rs || s->rs_n + nu > RS_SLOTS) {
				if (!any)
					s->st.stall_rs++;
				break;
			}
			if (ui->n_load && s->lb_used >= s->ua->lb) {
				if (!any)
					s->st.stall_lb++;
				break;
			}
			if (ui->n_sta && s->sb_used >= s->ua->sb) {
				if (!any)
					s->st.stall_sb++;
				break;
			}
			d->started = 1;
			s->rob_used += d->slots;
		}
		take = d->slots_left < budget ? d->slots_left : budget;
		d->slots_left = (uint8_t)(d->slots_left - take);
		budget -= take;
		s->st.cyc_renamed += take;
		any = true;
		if (d->slots_left)
			break;
		s->idq_uops -= d->idq_uops;
		rename_insn(s, d, load);
		s->ren_head++;
	}
	if (!any && s->ren_head == s->dec_head)
		s->st.stall_frontend++;
}

/* a / w, a shift when w is a power of two (the windows are): no
 * division per instruction */
static uint64_t
div_w(uint64_t a, unsigned w)
{
	return (w & (w - 1)) == 0 ? a >> __builtin_ctz(w) : a / w;
}

static uint64_t
end_block(const struct ua_dyn *d, unsigned w)
{
	return div_w(d->addr + d->ui->len - 1, w);
}

static void
predecode_stage(struct ua_sim *s)
{
	const struct sched_uarch *ua = s->ua;
	unsigned n = 0;
	uint64_t blk;

	if (s->pd_stall) {
		s->pd_stall--;
		return;
	}
	if (s->pd_head == s->push_end)
		return;
	if (s->pd_head - s->dec_head + ua->predecode_width > ua->iq)
		return;
	/* One 16-byte window per cycle: the instructions that end in it
	 * (one that crosses into the next window is predecoded with it). */
	blk = end_block(&s->ring[s->pd_head & s->mask], ua->predecode_bytes);
	s->pd_block = blk;
	while (s->pd_head < s->push_end && n < ua->predecode_width) {
		struct ua_dyn *d = &s->ring[s->pd_head & s->mask];

		if (end_block(d, ua->predecode_bytes) != s->pd_block)
			break;
		d->t_predec = s->cycle;
		if (d->ui->flags & UA_LCP)
			s->pd_stall += 3;
		s->pd_head++;
		n++;
		if (d->taken)
			break;
	}
	/* Five instructions predecoded and the next one starts in this
	 * window with its opcode byte, but ends in the next: the predecoder
	 * spends a cycle on it alone (uiCA's measured behaviour). */
	if (n == ua->predecode_width && s->pd_head < s->push_end) {
		const struct ua_dyn *d = &s->ring[s->pd_head & s->mask];

		if (div_w(d->addr, ua->predecode_bytes) == s->pd_block &&
		    end_block(d, ua->predecode_bytes) != s->pd_block &&
		    d->addr % ua->predecode_bytes + d->ui->opc_pos < ua->predecode_bytes)
			s->pd_stall += 1;
	}
}

static void
decode_stage(struct ua_sim *s)
{
	const struct sched_uarch *ua = s->ua;
	unsigned n = 0, uops = 0;

	if (s->ms_stall) {
		s->ms_stall--;
		return;
	}
	while (n < ua->decoders && s->dec_head < s->pd_head) {
		struct ua_dyn *d = &s->ring[s->dec_head & s->mask];
		unsigned f = d->idq_uops;
		bool pair = d->fuse == 1;

		if (d->t_predec >= s->cycle)
			break;
		if (d->fuse == 2) {
			d->t_dec = s->cycle;
			s->dec_head++;
			continue;
		}
		if ((d->ui->flags & UA_DEC_FIRST) && n > 0)
			break;
		/* The stack engine's sync uop is inserted after the
		 * decoders: it takes no decoder uop slot. */
		if (n > 0 && uops + f - d->needs_sync > ua->decode_uops)
			break;
		/* One larger than the whole IDQ (a microcoded instruction)
		 * enters it empty, or it would never enter. */
		if (s->idq_uops + f > ua->idq && s->idq_uops)
			break;
		if (pair && (s->dec_head + 1 >= s->pd_head ||
			     s->ring[(s->dec_head + 1) & s->mask].t_predec >= s->cycle))
			break;
		/* SNB..HSW decide macro-fusion in the decoder: a fusible
		 * instruction waits for a decoder after which one more
		 * remains, and for the next instruction to be predecoded,
		 * even when that one turns out not to be a Jcc. */
		if (ua->fusible_not_last && !pair && (d->ui->flags & UA_MACRO_FIRST) &&
		    (n == ua->decoders - 1 ||
		     (s->dec_head + 1 < s->push_end && (s->dec_head + 1 >= s->pd_head ||
		      s->ring[(s->dec_head + 1) & s->mask].t_predec >= s->cycle))))
			break;
		d->t_dec = s->cycle;
		s->idq_uops += f;
		s->dec_head++;
		if (pair) {
			s->ring[s->dec_head & s->mask].t_dec = s->cycle;
			s->dec_head++;
		}
		n++;
		uops += f - d->needs_sync;
		if (d->ui->fe_stall) {
			s->ms_stall = d->ui->fe_stall;
			break;
		}
		if (d->ui->fused > 4) {
			s->ms_stall = (d->ui->fused + 3) / 4 - 1 + ua->ms_switch;
			break;
		}
		if (d->taken || (pair && s->ring[(s->dec_head - 1) & s->mask].taken))
			break;
		/* pop %rsp / pop %r12 end the decode group (uops.info) */
		if (d->ui->flags & UA_POP5C)
			break;
	}
}

static void
dsb_stage(struct ua_sim *s)
{
	const struct sched_uarch *ua = s->ua;
	unsigned uops = 0;
	uint64_t win = UINT64_MAX;

	if (s->ms_stall) {
		s->ms_stall--;
		return;
	}
	while (s->pd_head < s->push_end) {
		struct ua_dyn *d = &s->ring[s->pd_head & s->mask];
		unsigned f = d->idq_uops;

		/* One larger than the whole IDQ (a microcoded instruction)
		 * enters it empty, or it would never enter. */
		if (s->idq_uops + f > ua->idq && s->idq_uops)
			break;
		if (uops && uops + f > ua->dsb_width)
			break;
		if (win != UINT64_MAX && div_w(d->addr, ua->dsb_window) != win)
			break;
		if (d->ui->fused > 4 && uops)
			break;
		win = div_w(d->addr, ua->dsb_window);
		d->t_predec = d->t_dec = s->cycle;
		s->idq_uops += f;
		s->pd_head++;
		s->dec_head = s->pd_head;
		uops += f;
		if (d->ui->fe_stall) {
			s->ms_stall = d->ui->fe_stall;
			break;
		}
		if (d->ui->fused > 4) {
			s->ms_stall = (d->ui->fused + 3) / 4 - 1 + ua->ms_switch;
			break;
		}
		if (d->taken)
			break;
	}
}

void
ua_sim_cycle(struct ua_sim *s, ua_retire_fn fn, void *arg)
{
	s->st.cyc_renamed = s->st.cyc_dispatched = s->st.cyc_retired = 0;
	retire_stage(s, fn, arg);
	dispatch_stage(s);
	rename_stage(s);
	if (s->fe == UA_FE_MITE) {
		decode_stage(s);
		predecode_stage(s);
	} else {
		dsb_stage(s);
	}
	s->cycle++;
	s->st.cycles = s->cycle;
	s->st.rob_used = s->rob_used;
	s->st.rs_used = s->rs_n;
}

/* ------------------------------------------------------------------ */
/* Blocks                                                              */

struct block_ctx {
	unsigned n, iters, tl_iters;
	struct sched_result *r;
	const struct ua_ports *pt;
	int port_col[UA_MAX_PORTS], busy_col[4];
	uint32_t *iter_end;	/* retire cycle of each iteration's last instruction */
	uint32_t last_retire;
	/* Uops per port of each instruction of the block, summed over its
	 * retired copies (into r->pressure at the end, with the busy
	 * cycles: integer sums, as exact as the doubles were). */
	uint32_t (*port_uops)[UA_MAX_PORTS];
	/* Instructions retire in program order: the index in the block and
	 * the iteration of the next one, kept without dividing. */
	unsigned idx, it;
};

/* Account a retired instruction of the block (called by retire_stage()
 * in place of a ua_retire_fn: no struct ua_retired to fill). */
static void
block_retired(struct block_ctx *b, const struct ua_dyn *d, uint32_t cycle)
{
	unsigned idx = b->idx, it = b->it, nu = d->ui->n_uops;
	uint32_t *pu = b->port_uops[idx];

	/* its uops, then the stack-sync uop (d->n_uops counts both; 0 for
	 * a Jcc fused into the instruction before it) */
	if (d->n_uops < nu)
		nu = d->n_uops;
	for (unsigned u = 0; u < nu; u++)
		pu[d->uop_port[u]]++;
	if (d->n_uops > nu)
		pu[d->uop_port[UA_MAX_UOPS]]++;
	if (it < b->tl_iters) {
		struct sched_timeline_entry *t = &b->r->timeline[d->tag];
		uint32_t dispatched = d->t_dispatch == NEVER ? d->t_issue : d->t_dispatch;

		t->dispatched = d->t_issue;
		t->ready = d->t_ready == NEVER ? dispatched : d->t_ready;
		t->issued = dispatched;
		t->executed = d->done;
		t->retired = cycle;
		t->dispatch_end = d->t_issue;
	}
	if (++idx == b->n) {
		b->iter_end[it] = cycle;
		idx = 0;
		b->it = it + 1;
	}
	b->idx = idx;
	b->last_retire = cycle;
}

/* The sums of block_retired() into r->pressure, and the cycles each
 * instruction keeps a busy unit (its uops', once per iteration: every
 * copy retired; none for a Jcc fused into the instruction before it). */
static void
block_pressure(const struct block_ctx *b, const struct ua_insn *ui, const uint8_t *fuse)
{
	for (unsigned i = 0; i < b->n; i++) {
		double *pr = &b->r->pressure[(size_t)i * b->r->n_columns];
		uint64_t busy[4] = { 0 };

		for (unsigned p = 0; p < b->pt->n; p++)
			if (b->port_uops[i][p] && b->port_col[p] >= 0)
				pr[b->port_col[p]] += b->port_uops[i][p];
		for (unsigned u = 0; fuse[i] != 2 && u < ui[i].n_uops; u++)
			if (ui[i].uops[u].busy)
				busy[ui[i].uops[u].busy_unit] += (uint64_t)ui[i].uops[u].busy * b->iters;
		for (unsigned k = 0; k < b->pt->n_busy; k++)
			if (busy[k] && b->busy_col[k] >= 0)
				pr[b->busy_col[k]] += (double)busy[k];
	}
}

/* Lower bound of the cycles per iteration from the ports: for every set
 * of ports S, the uops that can only use ports of S need |S| of them. */
static double
port_bound(const struct ua_ports *pt, const struct ua_insn *ui, unsigned n, unsigned *best_set)
{
	uint16_t masks[64];
	unsigned cnt[64], nm = 0;
	double best = 0;

	for (unsigned i = 0; i < n; i++) {
		for (unsigned u = 0; u < ui[i].n_uops; u++) {
			uint16_t m = ui[i].uops[u].ports;
			unsigned k;

			for (k = 0; k < nm && masks[k] != m; k++)
				;
			if (k == nm) {
				if (nm == 64)
					continue;
				masks[nm] = m;
				cnt[nm++] = 0;
			}
			cnt[k]++;
		}
	}
	for (unsigned set = 1; set < (1u << pt->n); set++) {
		unsigned total = 0;

		for (unsigned k = 0; k < nm; k++)
			if ((masks[k] & ~set) == 0)
				total += cnt[k];
		if (total) {
			double v = (double)total / popcount16((uint16_t)set);

			if (v > best) {
				best = v;
				*best_set = set;
			}
		}
	}
	return best;
}

/* The loop-carried dependency bound: latencies only, no resources. */
static double
dep_bound(const struct ua_insn *ui, unsigned n, uint16_t *reg)
{
	enum { K = 24 };
	uint32_t t[N_REGS] = { 0 }, at_half = 0, at_end = 0, half_reg[N_REGS];

	for (unsigned it = 0; it < K; it++) {
		for (unsigned i = 0; i < n; i++) {
			const struct ua_insn *u = &ui[i];
			uint32_t a = 0, d = 0, res;

			if (u->flags & UA_ZERO_IDIOM) {
				for (unsigned k = 0; k < u->n_dst; k++)
					t[u->dst[k]] = 0;
				continue;
			}
			if (u->flags & UA_MOVE_ELIM) {
				t[u->dst[0]] = t[u->move_src];
				continue;
			}
			for (unsigned k = 0; k < u->n_addr; k++)
				a = max32(a, t[u->addr[k]]);
			for (unsigned k = 0; k < u->n_data; k++)
				d = max32(d, t[u->data[k]]);
			if (u->n_load)
				d = max32(d, a + u->load_lat);
			res = u->n_op ? d + u->op_lat : d;
			for (unsigned k = 0; k < u->n_dst; k++)
				t[u->dst[k]] = res;
		}
		if (it == K / 2 - 1)
			memcpy(half_reg, t, sizeof(half_reg));
	}
	*reg = 0;
	for (unsigned r = 0; r < N_REGS; r++) {
		if (t[r] - half_reg[r] > at_end - at_half) {
			at_end = t[r];
			at_half = half_reg[r];
			*reg = (uint16_t)(r == ZYDIS_REGISTER_MAX_VALUE + 1 ? SCHED_REG_FLAGS : r);
		}
	}
	return (double)(at_end - at_half) / (K - K / 2);
}

int
ua_instruction_tables(const struct sched_model *model, const struct sched_uarch *ua,
		      const struct ua_insn *ui, unsigned n, double *pressure,
		      unsigned n_columns)
{
	struct ua_ports pt;
	int port_col[UA_MAX_PORTS], busy_col[4];
	unsigned col = 0;

	if (ua_ports_init(model, ua, &pt) < 0)
		return -1;
	for (unsigned i = 0; i < model->n_resources; i++) {
		const struct sched_resource *res = &model->resources[i];

		if (res->is_group)
			continue;
		for (unsigned q = 0; q < pt.n; q++)
			if (pt.res[q] == i)
				port_col[q] = (int)(col + pt.unit[q]);
		for (unsigned k = 0; k < pt.n_busy; k++)
			if (pt.busy[k] == i)
				busy_col[k] = (int)col;
		col += res->units;
	}
	if (col != n_columns)
		return -1;
	memset(pressure, 0, (size_t)n * n_columns * sizeof(*pressure));
	for (unsigned i = 0; i < n; i++) {
		double *row = &pressure[(size_t)i * n_columns];

		for (unsigned u = 0; u < ui[i].n_uops; u++) {
			const struct ua_uop *up = &ui[i].uops[u];

			for (unsigned q = 0; q < pt.n; q++)
				if (up->ports & (1u << q))
					row[port_col[q]] += 1.0 / popcount16(up->ports);
			if (up->busy && up->busy_unit < pt.n_busy)
				row[busy_col[up->busy_unit]] += up->busy;
		}
	}
	return 0;
}

/* The block unrolled moves the stack when its pushes, pops and explicit
 * RSP updates do not cancel out: each iteration's stack accesses then
 * land further on, and every 4 KiB page the stack moves into costs a
 * DTLB miss.  BHive's push/pop blocks measure it: their extra time grows
 * linearly with the bytes the stack moves per iteration, 9, 8 and 7
 * cycles per page on SKL, HSW and IVB (the order of an STLB hit), added
 * to the block's time.  When the stack moves more than about half a page
 * per iteration the misses overlap one another: the penalty is then at
 * most the block's own cycles (measured: 6 pops with add $6744,%rsp take
 * 6 cycles, not 18).  Returns the cycles to add per iteration: 0 when
 * the stack does not move, is not accessed, or is set to an unknown
 * value (mov, and). */
static double
stack_page_penalty(const struct sched_uarch *ua, const struct ua_insn *ui, unsigned n,
		   double tp)
{
	int64_t stride = 0;
	bool mem = false;
	double extra;

	if (!ua->stack_page_miss)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		const struct ua_insn *u = &ui[i];

		if (u->flags & UA_STACK_OP) {
			stride += u->stack_delta;
			mem = true;
		}
		if ((u->has_load_mem && u->load_mem.base == ZYDIS_REGISTER_RSP) ||
		    (u->has_store_mem && u->store_mem.base == ZYDIS_REGISTER_RSP))
			mem = true;
		if (!(u->flags & UA_WRITES_RSP))
			continue;
		if (u->n_dst && u->dst[0] == ZYDIS_REGISTER_RSP && (u->vt == UA_VT_DELTA ||
		    (u->vt == UA_VT_COPY && u->vt_src == ZYDIS_REGISTER_RSP)))
			stride += u->vt_delta;
		else
			return 0;
	}
	if (!mem || !stride)
		return 0;
	extra = (double)ua->stack_page_miss * (double)(stride < 0 ? -stride : stride) / 4096.0;
	return extra < tp ? extra : tp;
}

int
ua_run_block(const struct sched_model *model, const struct sched_uarch *ua,
	     const struct sched_params *p, enum ua_tp_mode mode,
	     const struct ua_insn *ui, unsigned n, struct sched_result *r)
{
	struct ua_sim *s = NULL;
	int ret = ua_run_block_reuse(&s, model, ua, p, mode, ui, n, r);

	ua_sim_free(s);
	return ret;
}

int
ua_run_block_reuse(struct ua_sim **sim, const struct sched_model *model,
		   const struct sched_uarch *ua, const struct sched_params *p,
		   enum ua_tp_mode mode, const struct ua_insn *ui, unsigned n,
		   struct sched_result *r)
{
	unsigned iters = p->iterations ? p->iterations : 100;
	enum ua_frontend fe = mode == UA_TP_LOOP ? UA_FE_DSB : UA_FE_MITE;
	struct block_ctx b;
	struct ua_sim *s = *sim;
	uint8_t *fuse = NULL;
	uint64_t *addr = NULL;
	uint64_t block_len = 0, pushed = 0, total = (uint64_t)iters * n, last_insns = 0;
	uint64_t push_base = 0;
	unsigned push_i = 0;
	uint32_t last_progress = 0;
	unsigned ncols = 0, slots = 0;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	memset(&b, 0, sizeof(b));
	if (!n)
		return -1;
	if (s && s->model == model && s->ua == ua && s->fe == fe) {
		sim_clear(s, 0);
	} else {
		ua_sim_free(s);
		*sim = s = ua_sim_new(model, ua, fe);
		if (!s)
			return -1;
	}
	if (p->bhive_env && ua_sim_bhive_env(s) < 0)
		return -1;
	for (unsigned i = 0; i < model->n_resources; i++)
		if (!model->resources[i].is_group)
			ncols += model->resources[i].units;
	fuse = calloc(n, 1);
	addr = calloc(n, sizeof(*addr));
	b.iter_end = calloc(iters, sizeof(*b.iter_end));
	b.port_uops = calloc(n, sizeof(*b.port_uops));
	r->pressure = calloc((size_t)n * (ncols ? ncols : 1), sizeof(double));
	r->column_names = calloc(ncols ? ncols : 1, sizeof(*r->column_names));
	b.tl_iters = p->timeline_max_iterations < iters ? p->timeline_max_iterations : iters;
	r->timeline = calloc((size_t)b.tl_iters * n + 1, sizeof(*r->timeline));
	if (!fuse || !addr || !b.iter_end || !b.port_uops || !r->pressure || !r->column_names ||
	    !r->timeline)
		goto out;
	b.n = n;
	b.iters = iters;
	b.r = r;
	b.pt = &s->pt;
	r->n_columns = ncols;
	{
		unsigned col = 0;

		for (unsigned q = 0; q < UA_MAX_PORTS; q++)
			b.port_col[q] = -1;
		for (unsigned k = 0; k < 4; k++)
			b.busy_col[k] = -1;
		for (unsigned i = 0; i < model->n_resources; i++) {
			const struct sched_resource *res = &model->resources[i];

			if (res->is_group)
				continue;
			for (unsigned q = 0; q < s->pt.n; q++)
				if (s->pt.res[q] == i)
					b.port_col[q] = (int)(col + s->pt.unit[q]);
			for (unsigned k = 0; k < s->pt.n_busy; k++)
				if (s->pt.busy[k] == i)
					b.busy_col[k] = (int)col;
			for (unsigned u = 0; u < res->units; u++) {
				char *cn = r->column_names[col + u];
				size_t len = strlen(res->name);

				/* snprintf's result, without its cost per block */
				if (len < 24 && u < 10) {
					memcpy(cn, res->name, len);
					if (res->units > 1) {
						cn[len++] = '.';
						cn[len++] = (char)('0' + u);
					}
					cn[len] = '\0';
				} else if (res->units > 1) {
					snprintf(cn, 32, "%s.%u", res->name, u);
				} else {
					snprintf(cn, 32, "%s", res->name);
				}
			}
			col += res->units;
		}
	}
	ua_macro_fuse(ua, ui, n, fuse);
	s->blk = &b;
	for (unsigned i = 0; i < n; i++) {
		addr[i] = block_len;
		block_len += ui[i].len;
		if (fuse[i] != 2)
			slots += ui[i].fused + ui[i].unlaminated;
	}
	while (s->ret_head < total) {
		while (pushed < total && s->push_end - s->ren_head < UA_LOOKAHEAD) {
			/* push_i, push_base: pushed % n and the address of
			 * iteration pushed / n, kept without dividing */
			unsigned i = push_i;
			uint64_t a = mode == UA_TP_LOOP ? addr[i] : push_base + addr[i];
			bool taken = mode == UA_TP_LOOP && i == n - 1;

			if (ua_sim_push(s, &ui[i], a, (uint32_t)pushed, fuse[i], taken, 0) < 0)
				break;
			pushed++;
			if (++push_i == n) {
				push_i = 0;
				push_base += block_len;
			}
		}
		ua_sim_cycle(s, NULL, NULL);
		{
			const struct ua_stats *u = &s->st;
			struct sched_stats *st = &r->stats;

			st->dispatched[u->cyc_renamed < SCHED_HIST ? u->cyc_renamed : SCHED_HIST - 1]++;
			st->issued[u->cyc_dispatched < SCHED_HIST ? u->cyc_dispatched : SCHED_HIST - 1]++;
			st->retired[u->cyc_retired < SCHED_HIST ? u->cyc_retired : SCHED_HIST - 1]++;
			st->buffers[0].cumulative += u->rs_used;
			if (u->rs_used > st->buffers[0].max_used)
				st->buffers[0].max_used = u->rs_used;
			st->rob_cumulative += u->rob_used;
			if (u->rob_used > st->rob_max)
				st->rob_max = u->rob_used;
			if (u->regs_used > st->prf[0].max_used)
				st->prf[0].max_used = u->regs_used;
		}
		/* Every uop has a port and every wait an end: a model
		 * that stops retiring has a bug. */
		if (s->st.insns != last_insns) {
			last_insns = s->st.insns;
			last_progress = s->cycle;
		} else if (s->cycle - last_progress >= UA_STUCK_CYCLES) {
			ret = UA_RUN_STUCK;
			goto out;
		}
	}
	{
		struct sched_stats *st = &r->stats;

		st->cycles = s->cycle;
		st->stalls[SCHED_STALL_RCU] = s->st.stall_rob;
		st->stalls[SCHED_STALL_SCHEDQ] = s->st.stall_rs;
		st->stalls[SCHED_STALL_LQ] = s->st.stall_lb;
		st->stalls[SCHED_STALL_SQ] = s->st.stall_sb;
		st->frontend_stalls = s->st.stall_frontend;
		st->n_buffers = 1;
		/* the reservation station, under the name of LLVM's buffer
		 * for it (SKLPortAny) so that the view reads as llvm-mca's */
		st->buffers[0].name = "RS";
		for (unsigned i = 0; i < model->n_resources; i++) {
			const char *nm = model->resources[i].name;
			size_t l = strlen(nm);

			if (model->resources[i].buffer > 0 && l > 7 && !strcmp(nm + l - 7, "PortAny"))
				st->buffers[0].name = nm;
		}
		st->buffers[0].size = ua->rs;
		st->rob_size = ua->rob;
		st->n_prf = 1;
		st->prf[0].mappings = s->st.mappings;
	}
	r->iterations = iters;
	r->n_insns = n;
	r->total_cycles = (uint64_t)b.last_retire + 1;
	r->total_insns = total;
	r->total_uops = s->st.fused_uops;
	r->dispatch_width = ua->issue_width;
	r->timeline_iterations = b.tl_iters;
	{
		unsigned set = 0;
		double pb = port_bound(&s->pt, ui, n, &set), ib = (double)slots / ua->issue_width;

		r->block_rthroughput = pb > ib ? pb : ib;
		r->stats.bound_issue = ib;
		r->stats.bound_ports = pb;
		for (unsigned q = 0; q < s->pt.n; q++)
			if ((set & (1u << q)) && b.port_col[q] >= 0)
				r->stats.bound_port_columns |= 1ULL << b.port_col[q];
		r->stats.bound_deps = dep_bound(ui, n, &r->stats.bound_dep_reg);
	}
	block_pressure(&b, ui, fuse);
	r->throughput = sched_steady_throughput(b.iter_end, iters, r->total_cycles);
	if (mode == UA_TP_UNROLLED) {
		double extra = stack_page_penalty(ua, ui, n, r->throughput);

		r->throughput += extra;
		r->total_cycles += (uint64_t)(extra * iters + 0.5);
	}
	ret = 0;
out:
	if (ret < 0)
		sched_result_free(r);
	s->blk = NULL;
	free(fuse);
	free(addr);
	free(b.iter_end);
	free(b.port_uops);
	return ret;
}
