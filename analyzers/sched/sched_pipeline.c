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

#include "sched/sched_pipeline.h"
#include "insn_zydis.h"

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

const struct sched_model *
sched_model_find14(const char *cpu)
{
	for (const struct sched_cpu14 *c = sched_cpus14; c->cpu; c++) {
		if (strcmp(c->cpu, cpu) != 0)
			continue;
		for (const struct sched_model *m = sched_models14; m->name; m++)
			if (strcmp(m->name, c->model) == 0)
				return m;
	}
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

		if ((b && insn_full_reg(b) == full) ||
		    (x && insn_full_reg(x) == full))
			return true;
	}
	return false;
}

static void
add_operand_cls(struct sched_operand *ops, unsigned *n, uint16_t reg, uint8_t adv,
		uint8_t partial, uint8_t cls)
{
	for (unsigned i = 0; i < *n; i++) {
		if (ops[i].reg == reg) {
			if (adv < ops[i].read_advance)
				ops[i].read_advance = adv;
			if (!partial)
				ops[i].partial = 0;
			if (cls != SCHED_W_GPR_PARTIAL &&
			    (ops[i].cls == SCHED_W_GPR_PARTIAL || cls > ops[i].cls))
				ops[i].cls = cls;
			return;
		}
	}
	if (*n < SCHED_MAX_OPERANDS)
		ops[(*n)++] = (struct sched_operand){ reg, adv, partial, cls, 0 };
}

static void
add_operand(struct sched_operand *ops, unsigned *n, uint16_t reg, uint8_t adv, uint8_t partial)
{
	add_operand_cls(ops, n, reg, adv, partial, SCHED_W_OTHER);
}

static uint8_t
write_class(ZydisRegisterClass rc)
{
	switch (rc) {
	case ZYDIS_REGCLASS_GPR8:
	case ZYDIS_REGCLASS_GPR16:
		return SCHED_W_GPR_PARTIAL;
	case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64:
		return SCHED_W_GPR;
	case ZYDIS_REGCLASS_MMX:
	case ZYDIS_REGCLASS_XMM:
		return SCHED_W_VEC;
	case ZYDIS_REGCLASS_YMM:
	case ZYDIS_REGCLASS_ZMM:
		return SCHED_W_VEC256;
	default:
		return SCHED_W_OTHER;
	}
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
	si->reg_latency = d->reg_latency;
	si->rthroughput = d->rthroughput_x100 / 100.0;
	si->may_load = (d->flags & SCHED_MAY_LOAD) != 0;
	si->may_store = (d->flags & SCHED_MAY_STORE) != 0;
	si->n_uses = d->n_uses < SCHED_MAX_USES ? d->n_uses : SCHED_MAX_USES;
	memcpy(si->uses, &model->uses[d->first_use], si->n_uses * sizeof(si->uses[0]));
}

static int
resource_index(const struct sched_model *model, const char *name)
{
	for (unsigned i = 0; i < model->n_resources; i++)
		if (strcmp(model->resources[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Set the uses of si to the named resources (as LLVM expands them). */
static void
set_uses(const struct sched_model *model, struct sched_insn *si, const char *const *names,
	 unsigned n)
{
	si->n_uses = 0;
	for (unsigned i = 0; i < n; i++) {
		int r = resource_index(model, names[i]);

		if (r >= 0)
			si->uses[si->n_uses++] = (struct sched_res_use){ (uint8_t)r, 1 };
	}
}

/* Intel's models (skylake, haswell, sandybridge for ivybridge too,
 * alderlake, ...) as against AMD's (btver2, bdver2, znver1-4). */
static bool
intel_model(const struct sched_model *model)
{
	return strcmp(model->name, "btver2") != 0 && strcmp(model->name, "bdver2") != 0 &&
	       strncmp(model->name, "znver", 5) != 0;
}

/*
 * LLVM's LEA variants (Jaguar, Zen): a "slow" LEA has three operands
 * (base, index, non-zero displacement) or a scaled index.  The dump only
 * has the general case; the variants' data are from LLVM's .td files and
 * agree with llvm-mca-14.
 */
static void
lea_variant(const struct sched_model *model, const struct insn_info *ii, struct sched_insn *si)
{
	struct insn_zydis z;
	const ZydisDecodedOperand *mem = NULL;
	bool slow, zen = strncmp(model->name, "znver", 5) == 0;

	/* Only Jaguar's, Piledriver's and Zen 3/4's LEA have these variants. */
	if (strncmp(sched_opcode_name(si->opcode), "LEA", 3) != 0 ||
	    (strcmp(model->name, "btver2") != 0 && strcmp(model->name, "znver3") != 0 &&
	     strcmp(model->name, "znver4") != 0 && strcmp(model->name, "bdver2") != 0))
		return;
	if (insn_zydis_decode(ii->bytes, ii->len, &z) < 0)
		return;
	for (unsigned i = 0; i < z.in.operand_count_visible; i++)
		if (z.ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
			mem = &z.ops[i];
	if (!mem)
		return;
	slow = (mem->mem.index != ZYDIS_REGISTER_NONE && mem->mem.scale > 1) ||
	       (mem->mem.base != ZYDIS_REGISTER_NONE && mem->mem.index != ZYDIS_REGISTER_NONE &&
		mem->mem.disp.value != 0);
	if (!strcmp(model->name, "bdver2")) {
		/* the same units, one cycle more */
		if (slow)
			si->latency = 2;
		return;
	}
	if (!zen) {
		static const char *const jslow[] = { "JALU1", "JALU01", "JSAGU", "JLSAGU" };

		if (slow) {
			set_uses(model, si, jslow, 4);
			si->latency = 2;
			si->uops = 1;
			si->rthroughput = 1.0;
		}
		return;
	}
	{
		const char *pre = strcmp(model->name, "znver3") == 0 ? "Zn3" : "Zn4";
		char a[32], b[32];
		const char *names[2] = { a, b };

		snprintf(a, sizeof(a), "%s%s", pre, slow ? "ALU0123" : "AGU012");
		snprintf(b, sizeof(b), "%sInt", pre);
		set_uses(model, si, names, 2);
		si->latency = slow ? 2 : 1;
		si->uops = slow ? 2 : 1;
		si->rthroughput = slow ? 0.25 : 1.0 / 3;
	}
}

/* (V)(U)COMISS/SD: Sandy Bridge's InstRW for their memory forms lists no
 * ReadAfterLd either. */
static bool
snb_comis(const struct insn_info *ii)
{
	switch (ii->mnemonic) {
	case ZYDIS_MNEMONIC_COMISS: case ZYDIS_MNEMONIC_COMISD:
	case ZYDIS_MNEMONIC_UCOMISS: case ZYDIS_MNEMONIC_UCOMISD:
	case ZYDIS_MNEMONIC_VCOMISS: case ZYDIS_MNEMONIC_VCOMISD:
	case ZYDIS_MNEMONIC_VUCOMISS: case ZYDIS_MNEMONIC_VUCOMISD:
		return true;
	default:
		return false;
	}
}

static bool
scalar_load(const struct insn_info *ii)
{
	for (unsigned i = 0; i < ii->n_mem; i++)
		if ((ii->mem[i].dir & MEM_READ) && !ii->mem[i].vsib && ii->mem[i].size <= 8)
			return true;
	return false;
}

/* Add cycles on resource `name` to si's uses, and to every group
 * containing it, as TableGen expands a WriteProcRes list. */
static void
add_use_cycles(const struct sched_model *model, struct sched_insn *si, const char *name,
	       unsigned cycles)
{
	int r = resource_index(model, name);
	uint64_t mask;

	if (r < 0)
		return;
	mask = model->resources[r].is_group ? model->resources[r].members : 1ULL << r;
	for (unsigned g = 0; g < model->n_resources; g++) {
		const struct sched_resource *gr = &model->resources[g];
		unsigned k;

		if ((int)g != r && !(gr->is_group && (mask & ~gr->members) == 0))
			continue;
		for (k = 0; k < si->n_uses && si->uses[k].resource != g; k++)
			;
		if (k == si->n_uses) {
			if (si->n_uses == SCHED_MAX_USES)
				continue;
			si->uses[si->n_uses++] = (struct sched_res_use){ (uint8_t)g, 0 };
		}
		si->uses[k].cycles = (uint16_t)(si->uses[k].cycles + cycles);
	}
}

/*
 * LLVM's CMOVcc/SETcc variants on Skylake, Haswell and Sandy Bridge: the
 * A and BE conditions read CF and ZF, which live in two flag groups, and
 * cost one more uop and one more cycle of latency than the others (the
 * dump has the general case only; the extra uop's port group is what
 * llvm-mca-14's instruction info and resource pressure show: SKLPort06,
 * SKXPort06, ICXPort06, HWPort0156, BWPort0156, SBPort05).  The reciprocal throughput is recomputed the way
 * LLVM does: the largest cycles / units over the uses.  For llvm-mca's
 * pipeline only: the corrected model has its own rule (sched_uarch.c).
 */
void
sched_insn_cond_variant(const struct sched_model *model, const struct insn_info *ii,
			struct sched_insn *si)
{
	static const char *const group[] = {
		"SKLPort06", "SKXPort06", "ICXPort06", "HWPort0156", "BWPort0156", "SBPort05",
	};
	double rt = 0;
	ZydisMnemonic mn = (ZydisMnemonic)ii->mnemonic;

	/* Piledriver's memory forms: CMOVcc of BE, A, L, GE, LE and G takes
	 * two uops (two more cycles of its integer pipes), SETcc of L, GE,
	 * LE and G two uops on the integer pipes only (no address or store
	 * unit): what llvm-mca-14 reports for them. */
	if (strcmp(model->name, "bdver2") == 0 && si->may_load + si->may_store) {
		bool cmov2 = mn == ZYDIS_MNEMONIC_CMOVBE || mn == ZYDIS_MNEMONIC_CMOVNBE ||
			     mn == ZYDIS_MNEMONIC_CMOVL || mn == ZYDIS_MNEMONIC_CMOVNL ||
			     mn == ZYDIS_MNEMONIC_CMOVLE || mn == ZYDIS_MNEMONIC_CMOVNLE;
		bool set2 = mn == ZYDIS_MNEMONIC_SETL || mn == ZYDIS_MNEMONIC_SETNL ||
			    mn == ZYDIS_MNEMONIC_SETLE || mn == ZYDIS_MNEMONIC_SETNLE;
		static const char *const ex[] = { "PdEX01" };

		if (cmov2 && si->may_load) {
			add_use_cycles(model, si, "PdEX01", 2);
			si->uops = 2;
		} else if (set2 && si->may_store) {
			set_uses(model, si, ex, 1);
			add_use_cycles(model, si, "PdEX01", 1);
			si->uops = 2;
			si->rthroughput = 1.0;
		}
		return;
	}
	if (mn != ZYDIS_MNEMONIC_CMOVBE && mn != ZYDIS_MNEMONIC_CMOVNBE &&
	    mn != ZYDIS_MNEMONIC_SETBE && mn != ZYDIS_MNEMONIC_SETNBE)
		return;
	for (size_t i = 0; i < sizeof(group) / sizeof(group[0]); i++) {
		if (resource_index(model, group[i]) < 0)
			continue;
		add_use_cycles(model, si, group[i], 1);
		si->uops++;
		si->latency++;
		for (unsigned k = 0; k < si->n_uses; k++) {
			const struct sched_resource *res = &model->resources[si->uses[k].resource];
			double t = (double)si->uses[k].cycles / (res->units ? res->units : 1);

			if (t > rt)
				rt = t;
		}
		if (rt > 0)
			si->rthroughput = rt;
		return;
	}
}

/* The x87 instructions that do not read the control word FPCW in LLVM
 * (the rest round by it: llvm-mca-14 makes them wait for an FLDCW). */
static bool
no_fpcw_read(uint16_t mn)
{
	switch (mn) {
	case ZYDIS_MNEMONIC_FABS: case ZYDIS_MNEMONIC_FCHS: case ZYDIS_MNEMONIC_FNOP:
	case ZYDIS_MNEMONIC_FXAM: case ZYDIS_MNEMONIC_FINCSTP: case ZYDIS_MNEMONIC_FDECSTP:
	case ZYDIS_MNEMONIC_FNCLEX: case ZYDIS_MNEMONIC_FWAIT: case ZYDIS_MNEMONIC_FLDCW:
	case ZYDIS_MNEMONIC_FNINIT: case ZYDIS_MNEMONIC_FFREE: case ZYDIS_MNEMONIC_FFREEP:
	case ZYDIS_MNEMONIC_FCMOVB: case ZYDIS_MNEMONIC_FCMOVBE: case ZYDIS_MNEMONIC_FCMOVE:
	case ZYDIS_MNEMONIC_FCMOVNB: case ZYDIS_MNEMONIC_FCMOVNBE: case ZYDIS_MNEMONIC_FCMOVNE:
	case ZYDIS_MNEMONIC_FCMOVNU: case ZYDIS_MNEMONIC_FCMOVU:
		return true;
	default:
		return false;
	}
}

/* Registers LLVM's opcode defines that the decoder does not list:
 * VZEROUPPER and VZEROALL define YMM0-15 (each a register mapping). */
void
sched_insn_llvm_defs(const struct insn_info *ii, struct sched_insn *si)
{
	const char *name = si->opcode ? sched_opcode_name(si->opcode) : "";

	/* x87 instructions (and WAIT) define the status word FPSW; FLDCW
	 * and FNINIT the control word too; FNSTSW reads FPSW. */
	if (ii->isa_ext == ZYDIS_ISA_EXT_X87 || ii->mnemonic == ZYDIS_MNEMONIC_FWAIT) {
		add_operand_cls(si->writes, &si->n_writes, ZYDIS_REGISTER_X87STATUS, 0, 0,
				SCHED_W_OTHER);
		if (ii->mnemonic == ZYDIS_MNEMONIC_FLDCW || ii->mnemonic == ZYDIS_MNEMONIC_FNINIT)
			add_operand_cls(si->writes, &si->n_writes, ZYDIS_REGISTER_X87CONTROL, 0, 0,
					SCHED_W_OTHER);
		if (ii->mnemonic == ZYDIS_MNEMONIC_FNSTSW)
			add_operand(si->reads, &si->n_reads, ZYDIS_REGISTER_X87STATUS, 0, 0);
		else if (!no_fpcw_read(ii->mnemonic))
			add_operand(si->reads, &si->n_reads, ZYDIS_REGISTER_X87CONTROL, 0, 0);
		for (unsigned k = 0; k < si->n_writes; k++)
			if (!si->writes[k].orig)
				si->writes[k].orig = si->writes[k].reg;
	}
	if (strcmp(name, "VZEROUPPER") != 0 && strcmp(name, "VZEROALL") != 0)
		return;
	for (unsigned i = 0; i < 16; i++) {
		uint16_t full = (uint16_t)(ZYDIS_REGISTER_ZMM0 + i);

		add_operand_cls(si->writes, &si->n_writes, full, 0, 0, SCHED_W_VEC256);
		for (unsigned k = 0; k < si->n_writes; k++)
			if (si->writes[k].reg == full)
				si->writes[k].orig = (uint16_t)(ZYDIS_REGISTER_YMM0 + i);
	}
}

/* llvm-mca's instruction info adds to an instruction's latency the
 * largest delay of its forwarding paths (a negative ReadAdvance): LLVM
 * 14's Zen 3 (1 cycle) and Piledriver (10) delay a GPR read into the FP
 * unit (ReadInt2Fpu: the CVTSI2SS/SD and PINSR families). */
unsigned
sched_forwarding_delay(const struct sched_model *model, uint32_t opcode)
{
	const char *name = opcode ? sched_opcode_name(opcode) : "";
	unsigned delay = strcmp(model->name, "znver3") == 0 ? 1 :
			 strcmp(model->name, "bdver2") == 0 ? 10 : 0;

	if (name[0] == 'V')
		name++;
	if (strncmp(name, "MMX_", 4) == 0)
		name += 4;
	if (!delay || (strncmp(name, "CVTSI2S", 7) != 0 && strncmp(name, "CVTSI642S", 9) != 0 &&
		       strncmp(name, "PINSR", 5) != 0))
		return 0;
	/* register forms only: the memory forms read no GPR into the FPU */
	return strstr(name, "rr") ? delay : 0;
}

/* LLVM's hasUnmodeledSideEffects (the instruction info's "U"), for the
 * instructions that have it: divides (they trap), x87, serializing and
 * fence instructions, MXCSR, returns, traps, system calls. */
static bool
llvm_side_effects(const struct insn_info *ii, const char *name)
{
	static const char *const exact[] = {
		"CPUID", "RDTSC", "RDTSCP", "LFENCE", "MFENCE", "SFENCE", "VZEROUPPER",
		"VZEROALL", "XGETBV", "PAUSE", "STD", "CLD", "LDMXCSR", "VLDMXCSR", "STMXCSR",
		"VSTMXCSR", "CLFLUSH", "CLFLUSHOPT", "RET64", "RET32", "RETI64", "UD2", "INT3",
		"INT", "SYSCALL", "SYSENTER", "HLT", "RDPMC", "LOCK_PREFIX", "RDRAND16r",
		"RDRAND32r", "RDRAND64r", "RDSEED16r", "RDSEED32r", "RDSEED64r",
		"MONITOR32rrr", "MONITOR64rrr", "MONITORX32rrr", "MONITORX64rrr", "MWAITrr",
		"MWAITXrrr", "WBINVD", "INVD", "RDMSR", "WRMSR", "XSETBV", "CLWB", "CLZERO32r",
		"CLZERO64r", "SERIALIZE", "WAIT", "RDPID32", "RDPID64", "TRAP", "XSAVE",
		"XSAVE64", "XRSTOR", "XRSTOR64", "FXSAVE", "FXSAVE64", "FXRSTOR", "FXRSTOR64",
		"MMX_EMMS", "FEMMS", "STI", "CLI", "XSAVEOPT", "XSAVEOPT64", "XSAVEC",
		"XSAVEC64", "XSAVES", "XSAVES64", "XRSTORS", "XRSTORS64",
	};
	const char *p = name;

	if (ii->isa_ext == ZYDIS_ISA_EXT_X87)
		return strcmp(name, "FNSTSW16r") != 0;	/* (LLVM's one x87 without) */
	if (*p == 'I')
		p++;
	if (strncmp(p, "DIV", 3) == 0 && (strcmp(p + 3, "8r") == 0 || strcmp(p + 3, "8m") == 0 ||
					  strcmp(p + 3, "16r") == 0 || strcmp(p + 3, "16m") == 0 ||
					  strcmp(p + 3, "32r") == 0 || strcmp(p + 3, "32m") == 0 ||
					  strcmp(p + 3, "64r") == 0 || strcmp(p + 3, "64m") == 0))
		return true;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (exact[i][0] == name[0] && strcmp(name, exact[i]) == 0)
			return true;
	return false;
}

/*
 * The reversed encoding of a register-register form (`33 c0`, LLVM's
 * XOR32rr_REV) is scheduled as the ordinary one (`31 c0`, XOR32rr): that
 * is what llvm-mca does with the same bytes, since it reads assembly and
 * the disassembly of either encoding assembles to the ordinary one (and
 * LLVM recognises zero idioms and optimizable moves on that opcode only).
 * The instruction is still mapped and named as the bytes say.
 */
static uint32_t
rev_to_plain(const struct sched_model *model, uint32_t opcode)
{
	const char *name = sched_opcode_name(opcode);
	size_t len = strlen(name);
	char plain[64];
	uint32_t p;

	if (!opcode || len < 5 || len >= sizeof(plain) || strcmp(name + len - 4, "_REV") != 0)
		return opcode;
	memcpy(plain, name, len - 4);
	plain[len - 4] = '\0';
	p = sched_opcode_find(plain);
	return p && model->by_opcode[p] ? p : opcode;
}

static bool
name_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(name, *list) == 0)
			return true;
	return false;
}

/*
 * LLVM 14's own idiom lists (each model's IsZeroIdiomFunction and
 * IsDepBreakingFunction) where they part from "the variant opcodes
 * take the idiom": -1 no opinion, 0 no idiom, 'B' no input dependence
 * but the ordinary cost, 'Z' a zero idiom (no unit, no latency), 'C'
 * the zero idiom's cost but its inputs awaited (the variant takes the
 * idiom, the idiom function does not list it), 'X' an idiom that maps
 * no register but costs what the instruction costs, 'D' no input
 * dependence and no cost but a register mapped (Zen 3's cmp r,r).  Found
 * by running llvm-mca-14 on each form after a long-latency producer.
 */
static int
llvm14_idiom(const char *model, const char *op, const struct sched_mapping *m)
{
	static const char *const cmp[] = { "CMP32rr", "CMP64rr", NULL };
	static const char *const pcmpeq[] = {
		"PCMPEQBrr", "PCMPEQWrr", "PCMPEQDrr", "PCMPEQQrr", "VPCMPEQBrr",
		"VPCMPEQWrr", "VPCMPEQDrr", "VPCMPEQQrr", "MMX_PCMPEQBrr", "MMX_PCMPEQWrr",
		"MMX_PCMPEQDrr", NULL,
	};
	static const char *const pcmpeq_y[] = {
		"VPCMPEQBYrr", "VPCMPEQWYrr", "VPCMPEQDYrr", "VPCMPEQQYrr", NULL,
	};
	static const char *const logic_y[] = {
		"VXORPSYrr", "VXORPDYrr", "VANDNPSYrr", "VANDNPDYrr", NULL,
	};
	static const char *const sat[] = {
		"PSUBSBrr", "PSUBSWrr", "PSUBUSBrr", "PSUBUSWrr", "VPSUBSBrr",
		"VPSUBSWrr", "VPSUBUSBrr", "VPSUBUSWrr", NULL,
	};
	static const char *const sat_mmx[] = {
		"MMX_PSUBSBrr", "MMX_PSUBSWrr", "MMX_PSUBUSBrr", "MMX_PSUBUSWrr", NULL,
	};
	static const char *const sat_y[] = {
		"VPSUBSBYrr", "VPSUBSWYrr", "VPSUBUSBYrr", "VPSUBUSWYrr", NULL,
	};
	static const char *const slm[] = { "XOR32rr", "PXORrr", "XORPSrr", "XORPDrr", NULL };
	bool idiom = m->zero_idiom || m->dep_breaking;
	bool mmx = strncmp(op, "MMX_", 4) == 0;

	if (!m->same_sources)
		return -1;
	if (strcmp(op, "SBB32rr") == 0 || strcmp(op, "SBB64rr") == 0)
		return strncmp(model, "znver", 5) == 0 || strcmp(model, "btver2") == 0 ||
		       strcmp(model, "bdver2") == 0 ? 'B' : -1;
	if (strcmp(op, "CMP8rr") == 0 || strcmp(op, "CMP16rr") == 0)
		return strcmp(model, "znver3") == 0 ? 'D' : -1;
	if (name_in(op, cmp)) {
		if (strcmp(model, "znver3") == 0)
			return 'D';
		if (strncmp(model, "znver", 5) == 0 || strcmp(model, "btver2") == 0 ||
		    strcmp(model, "bdver2") == 0)
			return 'B';
		return -1;
	}
	if (!idiom)
		return -1;
	if (strcmp(model, "btver2") == 0)
		return name_in(op, pcmpeq) ? 'B' : name_in(op, logic_y) ? 'X' : -1;
	if (strcmp(model, "bdver2") == 0)
		return name_in(op, pcmpeq) && !strstr(op, "EQQ") ? 'B' :
		       name_in(op, logic_y) || name_in(op, sat) || name_in(op, sat_mmx) ||
		       strcmp(op, "VPCMPGTQrr") == 0 ? 'X' : -1;
	if (strcmp(model, "haswell") == 0)
		return mmx ? 0 : strcmp(op, "VPCMPGTQYrr") == 0 ? 'C' : -1;
	if (strcmp(model, "sandybridge") == 0)
		return mmx ? 0 : strcmp(op, "VXORPSYrr") == 0 || strcmp(op, "VXORPDYrr") == 0 ? 'C' : -1;
	if (strcmp(model, "broadwell") == 0 || strcmp(model, "skylake") == 0 ||
	    strcmp(model, "skylake-avx512") == 0 || strcmp(model, "icelake-client") == 0)
		return mmx ? 0 : -1;
	if (strcmp(model, "silvermont") == 0)
		return name_in(op, slm) ? -1 : 0;
	if (strcmp(model, "znver1") == 0 || strcmp(model, "znver2") == 0) {
		if (name_in(op, pcmpeq) || name_in(op, pcmpeq_y))
			return 'B';
		if (name_in(op, sat) || name_in(op, sat_y) || strstr(op, "8rr") || strstr(op, "16rr"))
			return 0;
		return -1;
	}
	if (strcmp(model, "znver3") == 0) {
		if (name_in(op, pcmpeq) || name_in(op, pcmpeq_y))
			return 'B';
		if (mmx)
			return 0;
		/* the SSE forms: in the idiom list, not the zero-cost variant */
		if (op[0] != 'V' && strstr(op, "rr") && !strstr(op, "32rr") &&
		    !strstr(op, "64rr") && !strstr(op, "8rr") && !strstr(op, "16rr"))
			return 'X';
		if (name_in(op, sat) || name_in(op, sat_y))
			return 'X';
		return -1;
	}
	return -1;
}

int
sched_insn_init(const struct sched_model *model, const struct insn_info *ii,
		const struct sched_mapping *m, struct sched_insn *si)
{
	bool vex = vex_or_evex(ii);
	const struct sched_desc *d;
	uint32_t opcode = rev_to_plain(model, m->opcode);
	int idiom;

	memset(si, 0, sizeof(*si));
	si->opcode = opcode;
	/* Not INSN_LOCK: LLVM's locked forms (LOCK_ADD32mi8, XCHG32rm) and
	 * an instruction after a LOCK_PREFIX have no unmodeled side effects;
	 * the prefix itself has (llvm_side_effects). */
	si->has_side_effects = (ii->flags & INSN_SYSCALL) != 0 ||
			       (opcode && llvm_side_effects(ii, sched_opcode_name(opcode)));
	if (!opcode || !model->by_opcode[opcode]) {
		si->uops = 1;
		return -1;
	}
	d = &model->descs[model->by_opcode[opcode]];
	insn_from_desc(model, opcode, si);
	/* The idiom rules apply where the model says the cost varies. */
	if (d->flags & SCHED_VARIANT) {
		si->zero_idiom = m->zero_idiom;
		si->dep_breaking = m->dep_breaking;
		lea_variant(model, ii, si);
	}
	idiom = llvm14_idiom(model->name, sched_opcode_name(opcode), m);
	if (idiom >= 0) {
		si->zero_idiom = idiom == 'Z';
		si->dep_breaking = idiom != 0 && idiom != 'C';
	}
	if (idiom == 'C' || idiom == 'D') {
		/* the zero idiom's cost; for 'C' its inputs still awaited */
		si->latency = 0;
		si->n_uses = 0;
		si->rthroughput = (double)si->uops / model->issue_width;
	}
	if (si->zero_idiom) {
		/* No unit: LLVM's reciprocal throughput is then uops / width. */
		si->latency = 0;
		si->n_uses = 0;
		si->rthroughput = (double)si->uops / model->issue_width;
	} else if (idiom < 0 && m->zero_idiom && (strcmp(model->name, "znver1") == 0 ||
				     strcmp(model->name, "znver2") == 0 ||
				     strcmp(model->name, "silvermont") == 0)) {
		/* LLVM 14's Zen 1/2 and Silvermont know the idiom (no
		 * input dependence, no register mapped) but give it the
		 * ordinary cost */
		si->zero_idiom = si->dep_breaking = true;
	}
	if (idiom == 'X') {
		si->zero_idiom = true;
		/* Jaguar's 256-bit idiom is its own write: two uops of one
		 * cycle each on JFPU01 and JFPX (the general case takes two) */
		if (strcmp(model->name, "btver2") == 0 && si->uops == 2) {
			for (unsigned k = 0; k < si->n_uses; k++)
				if (si->uses[k].cycles > 1)
					si->uses[k].cycles = 1;
			si->rthroughput = 0.5;
		}
	}
	/* LLVM's INT3/INT/INTO name no registers (Zydis's have RSP, RIP
	 * and the flags): nothing waits for them */
	if (ii->category == ZYDIS_CATEGORY_INTERRUPT)
		return 0;
	/* A dependency-breaking idiom reads none of its explicit sources
	 * (LLVM: independent from their definitions), but still its
	 * implicit ones (SBB's EFLAGS). */
	{
		/* LLVM's XCHG/XADD/CMPXCHG memory forms have no ReadAfterLd:
		 * their register sources are read when the uops start, not
		 * after the load (a chain through them costs the full
		 * latency). */
		bool atomic_rmw = ii->mnemonic == ZYDIS_MNEMONIC_XCHG ||
				  ii->mnemonic == ZYDIS_MNEMONIC_XADD ||
				  ii->mnemonic == ZYDIS_MNEMONIC_CMPXCHG ||
				  ii->mnemonic == ZYDIS_MNEMONIC_CMPXCHG8B ||
				  ii->mnemonic == ZYDIS_MNEMONIC_CMPXCHG16B;
		/* The Intel big cores' and Piledriver's CMOVcc memory forms
		 * neither (their InstRW lists no ReadAfterLd; Jaguar, Zen,
		 * Silvermont and Atom keep it), nor
		 * Sandy Bridge's COMISS family. */
		/* (LLVM 14's Jaguar and Zen 1 and 2 keep it for XCHG,
		 * Jaguar for XADD too) */
		bool zen12_xchg = (ii->mnemonic == ZYDIS_MNEMONIC_XCHG &&
				   (strcmp(model->name, "znver1") == 0 ||
				    strcmp(model->name, "znver2") == 0 ||
				    strcmp(model->name, "btver2") == 0)) ||
				  (ii->mnemonic == ZYDIS_MNEMONIC_XADD &&
				   strcmp(model->name, "btver2") == 0);
		bool no_advance = (atomic_rmw && !zen12_xchg) ||
				  (ii->category == ZYDIS_CATEGORY_CMOV &&
				   ((intel_model(model) && strcmp(model->name, "silvermont") != 0 &&
				     strcmp(model->name, "atom") != 0) ||
				    strcmp(model->name, "bdver2") == 0)) ||
				  (snb_comis(ii) && strcmp(model->name, "sandybridge") == 0);

		for (unsigned i = 0; !si->dep_breaking && i < ii->n_regs_read; i++) {
			reg_id r = ii->regs_read[i];
			reg_id full = insn_full_reg(r);
			uint8_t adv = 0;

			if (!full)
				continue;
			if (si->may_load && !no_advance && !is_address_reg(ii, full)) {
				adv = read_advance_for(model, r);
				/* Scalar SS/SD forms (a load of 8 bytes or
				 * less into an XMM operation) use LLVM's
				 * ReadAfterVecLd, not ReadAfterVecXLd. */
				if (ZydisRegisterGetClass(r) == ZYDIS_REGCLASS_XMM &&
				    scalar_load(ii))
					adv = model->read_advance[1];
			}
			add_operand(si->reads, &si->n_reads, full, adv, 0);
			/* the widest register read of it, as read */
			for (unsigned k = 0; k < si->n_reads; k++)
				if (si->reads[k].reg == full &&
				    (!si->reads[k].orig ||
				     ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, r) >
				     ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64,
							   (ZydisRegister)si->reads[k].orig)))
					si->reads[k].orig = r;
		}
		/* CMOVcc keeps its destination when the condition fails:
		 * LLVM ties it to a source (MICA's decoder lists it as
		 * written only, as XED does). */
		if (ii->category == ZYDIS_CATEGORY_CMOV)
			for (unsigned i = 0; i < ii->n_regs_written; i++) {
				reg_id full = insn_full_reg(ii->regs_written[i]);

				if (full) {
					add_operand(si->reads, &si->n_reads, full,
						    si->may_load && !no_advance ?
						    read_advance_for(model, ii->regs_written[i]) : 0, 0);
					for (unsigned k = 0; k < si->n_reads; k++)
						if (si->reads[k].reg == full && !si->reads[k].orig)
							si->reads[k].orig = ii->regs_written[i];
				}
			}
		/* LLVM's legacy-SSE scalar _Int forms (SQRTSSm_Int,
		 * CVTSS2SDrr_Int) tie their destination to a source: they read
		 * the XMM register they merge into (the decoder lists it as
		 * written only). */
		if (!vex && si->opcode) {
			const char *nm = sched_opcode_name(si->opcode);
			size_t ln = strlen(nm);

			if (ln > 4 && strcmp(nm + ln - 4, "_Int") == 0)
				for (unsigned i = 0; i < ii->n_regs_written; i++) {
					reg_id r = ii->regs_written[i];
					reg_id full = insn_full_reg(r);

					if (ZydisRegisterGetClass(r) != ZYDIS_REGCLASS_XMM || !full)
						continue;
					add_operand(si->reads, &si->n_reads, full,
						    si->may_load && !no_advance ? model->read_advance[1] : 0,
						    0);
					for (unsigned k = 0; k < si->n_reads; k++)
						if (si->reads[k].reg == full && !si->reads[k].orig)
							si->reads[k].orig = r;
				}
		}
		/* CMOVcc's EFLAGS read has no ReadAfterLd on any model
		 * (only its tied register source has one, on AMD's). */
		if (ii->flags_read)
			add_operand(si->reads, &si->n_reads, SCHED_REG_FLAGS,
				    si->may_load && !no_advance &&
				    ii->category != ZYDIS_CATEGORY_CMOV ? model->read_advance[0] : 0, 0);
	}
	for (unsigned i = 0; i < ii->n_regs_written; i++) {
		reg_id r = ii->regs_written[i];
		reg_id full = insn_full_reg(r);
		ZydisRegisterClass rc = ZydisRegisterGetClass(r);

		/* LLVM's calls and RET64 read RSP but do not define it */
		if ((ii->category == ZYDIS_CATEGORY_RET || ii->category == ZYDIS_CATEGORY_CALL) &&
		    full == ZYDIS_REGISTER_RSP)
			continue;
		uint8_t partial = rc == ZYDIS_REGCLASS_GPR8 || rc == ZYDIS_REGCLASS_GPR16 ||
				  (rc == ZYDIS_REGCLASS_XMM && !vex);

		if (full) {
			add_operand_cls(si->writes, &si->n_writes, full, 0, partial, write_class(rc));
			for (unsigned k = 0; k < si->n_writes; k++)
				if (si->writes[k].reg == full && !si->writes[k].orig)
					si->writes[k].orig = r;
		}
	}
	if (ii->flags_written)
		add_operand_cls(si->writes, &si->n_writes, SCHED_REG_FLAGS, 0, 0, SCHED_W_GPR);
	for (unsigned k = 0; k < si->n_writes; k++)
		if (!si->writes[k].orig)
			si->writes[k].orig = si->writes[k].reg;
	return 0;
}

static void
drop_operand(struct sched_operand *ops, unsigned *n, uint16_t reg)
{
	for (unsigned i = 0; i < *n; i++) {
		if (ops[i].reg == reg) {
			memmove(&ops[i], &ops[i + 1], (*n - i - 1) * sizeof(*ops));
			(*n)--;
			return;
		}
	}
}

void
sched_insn_correct(const struct sched_model *model, const struct insn_info *ii,
		   const struct sched_mapping *m, struct sched_insn *si)
{
	static const char *const moves[] = {
		"MOV64rr", "MOV32rr", "MOVAPSrr", "MOVAPDrr", "MOVUPSrr", "MOVUPDrr",
		"MOVDQArr", "MOVDQUrr", "VMOVAPSrr", "VMOVAPDrr", "VMOVUPSrr", "VMOVUPDrr",
		"VMOVDQArr", "VMOVDQUrr", "VMOVAPSYrr", "VMOVAPDYrr", "VMOVUPSYrr",
		"VMOVUPDYrr", "VMOVDQAYrr", "VMOVDQUYrr",
	};
	const char *name = m->opcode ? sched_opcode_name(m->opcode) : "";
	bool stack = false;

	(void)model;
	for (unsigned i = 0; i < ii->n_mem; i++)
		if ((ii->mem[i].flags & MEMF_IMPLICIT) &&
		    insn_full_reg(ii->mem[i].base) ==
		    ZYDIS_REGISTER_RSP)
			stack = true;
	if (stack) {
		drop_operand(si->reads, &si->n_reads, ZYDIS_REGISTER_RSP);
		drop_operand(si->writes, &si->n_writes, ZYDIS_REGISTER_RSP);
	}
	if (m->zero_idiom) {
		si->zero_idiom = si->dep_breaking = true;
		si->latency = 0;
		si->n_uses = 0;
		si->n_reads = 0;
	} else if (m->dep_breaking) {
		si->dep_breaking = true;
		si->n_reads = 0;
	}
	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
		if (moves[i][0] == name[0] && strcmp(name, moves[i]) == 0) {
			si->latency = 0;
			si->n_uses = 0;
		}
	}
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
	/* Without -mpopcnt __builtin_popcountll() is a libgcc call: the
	 * usual bit-parallel sum instead. */
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
	return (unsigned)((x * 0x0101010101010101ULL) >> 56);
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
		/* and the buffers of the groups containing it (llvm-mca's
		 * buffers consumed through super resources: a load's
		 * PdAGLU01 takes a PdEX scheduler entry) */
		for (unsigned g = 0; g < model->n_resources; g++) {
			uint64_t gm = rm->model_mask[g], m = rm->model_mask[r];

			if (model->resources[g].buffer > 0 && gm != m && (gm & m) == m)
				d->used_buffers |= 1ULL << state_index(gm);
		}
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
		if (l->cur_store && lsu_add_succ(l, l->cur_store, (unsigned)id, !l->noalias) < 0)
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
	uint16_t reg;		/* folded register read (or written) */
	bool write;		/* a partial write's false dependency, not a read */
};

struct dyn {
	uint8_t state;
	uint8_t eliminated;	/* a move eliminated at register renaming */
	uint64_t crit_mask;	/* resources it last found busy (bottleneck analysis) */
	uint32_t res_pc, reg_pc;	/* pressure cycles it was blamed for */
	uint8_t prf_alloc[SCHED_MAX_PRF];	/* physical registers held, per file */
	int32_t mem_group;	/* 0 = not a memory operation */
	uint32_t dispatched, issued, executed, retired, ready, dispatch_end;
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
	 * part of the dump): Jaguar retires 2 per cycle, Piledriver 4, Zen
	 * 1-4 8. */
	if (strcmp(model->name, "btver2") == 0)
		return 2;
	if (strcmp(model->name, "bdver2") == 0)
		return 4;
	if (strncmp(model->name, "znver", 5) == 0)
		return 8;
	return 0;
}

/* The reorder buffer: LLVM's RetireControlUnit where it differs from the
 * MicroOpBufferSize (LLVM 14's Zen 2: 192 of 224). */
static unsigned
rob_size(const struct sched_model *model)
{
	if (strcmp(model->name, "znver2") == 0)
		return 192;
	return model->micro_op_buffer_size;
}

/* Whether a partial write of register w (AX, XMM2) covers all of the
 * register r a later instruction reads (AL, XMM2; not EAX or YMM2):
 * llvm-mca then finds only that write for the read, not the full write
 * before it. */
static bool
partial_covers(uint16_t w, uint16_t r)
{
	static const ZydisRegister high[] = {
		ZYDIS_REGISTER_AH, ZYDIS_REGISTER_BH, ZYDIS_REGISTER_CH, ZYDIS_REGISTER_DH,
	};
	bool wh = false, rh = false;

	if (!w || !r)
		return false;
	if (w == r)
		return true;
	for (unsigned i = 0; i < 4; i++) {
		wh |= w == high[i];
		rh |= r == high[i];
	}
	if (wh || rh)
		return !wh && rh && ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, (ZydisRegister)w) == 16;
	return ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, (ZydisRegister)w) >
	       ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, (ZydisRegister)r);
}

/* The orig register of insn's write of full register reg. */
static uint16_t
write_orig(const struct sched_insn *si, uint16_t reg)
{
	for (unsigned i = 0; i < si->n_writes; i++)
		if (si->writes[i].reg == reg)
			return si->writes[i].orig;
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

/*
 * Register files of LLVM's models (RegisterFile<> in the .td files; not
 * part of the dump, values as llvm-mca-14 reports them): size, the
 * registers they rename, cost of a YMM, move elimination.  File #0, the
 * default one, renames everything at cost 1 and is unbounded unless
 * -register-file-size says otherwise.
 */
struct prf_def {
	const char *model, *name;
	unsigned size;
	uint8_t gpr, vec;		/* renames GPR and flags / MMX, XMM, YMM */
	uint8_t ymm_cost;
	uint8_t zero_only;		/* moves eliminated only from known zeros */
	uint8_t max_moves;		/* eliminated moves per cycle */
};

static const struct prf_def prf_defs[] = {
	{ "btver2", "JFpuPRF", 72, 0, 1, 2, 1, 2 },
	{ "btver2", "JIntegerPRF", 64, 1, 0, 1, 1, 2 },
	{ "znver3", "Zn3FpPRF", 160, 0, 1, 1, 0, 6 },
	{ "znver3", "Zn3IntegerPRF", 192, 1, 0, 1, 0, 6 },
	{ "znver4", "Zn4FpPRF", 192, 0, 1, 1, 0, 6 },
	{ "znver4", "Zn4IntegerPRF", 224, 1, 0, 1, 0, 6 },
	{ "bdver2", "PdFpuPRF", 160, 0, 1, 2, 0, 0 },
	{ "bdver2", "PdIntegerPRF", 96, 1, 0, 1, 0, 0 },
	{ "znver1", "ZnFpuPRF", 160, 0, 1, 2, 0, 0 },
	{ "znver1", "ZnIntegerPRF", 168, 1, 0, 1, 0, 0 },
	{ "znver2", "Zn2FpuPRF", 160, 0, 1, 2, 0, 0 },
	{ "znver2", "Zn2IntegerPRF", 168, 1, 0, 1, 0, 0 },
};

/* Zen 3's register swap XCHG32rr/XCHG64rr (and the accumulator forms):
 * eliminated at renaming as two moves. */
static bool
swap_move(const struct sched_model *model, const struct sched_insn *si)
{
	const char *name = si->opcode ? sched_opcode_name(si->opcode) : "";

	if (strcmp(model->name, "znver3") != 0 || si->n_writes != 2)
		return false;
	return strcmp(name, "XCHG32rr") == 0 || strcmp(name, "XCHG64rr") == 0 ||
	       strcmp(name, "XCHG32ar") == 0 || strcmp(name, "XCHG64ar") == 0;
}

/* LLVM's IsOptimizableRegisterMove lists: Jaguar's, and Zen's (which
 * adds the _REV encodings and the 256-bit forms). */
static bool
optimizable_move(const struct sched_model *model, uint32_t opcode)
{
	static const char *const base[] = {
		"MOV32rr", "MOV64rr", "MMX_MOVQ64rr", "MOVAPSrr", "MOVUPSrr", "MOVAPDrr",
		"MOVUPDrr", "MOVDQArr", "MOVDQUrr", "VMOVAPSrr", "VMOVUPSrr", "VMOVAPDrr",
		"VMOVUPDrr", "VMOVDQArr", "VMOVDQUrr",
	};
	static const char *const zen[] = {
		"MOV32rr_REV", "MOV64rr_REV", "MMX_MOVQ64rr_REV", "MOVAPSrr_REV",
		"MOVUPSrr_REV", "MOVAPDrr_REV", "MOVUPDrr_REV", "MOVDQArr_REV",
		"MOVDQUrr_REV", "VMOVAPSrr_REV", "VMOVUPSrr_REV", "VMOVAPDrr_REV",
		"VMOVUPDrr_REV", "VMOVDQArr_REV", "VMOVDQUrr_REV", "VMOVAPSYrr",
		"VMOVUPSYrr", "VMOVAPDYrr", "VMOVUPDYrr", "VMOVDQAYrr", "VMOVDQUYrr",
		"VMOVAPSYrr_REV", "VMOVUPSYrr_REV", "VMOVAPDYrr_REV", "VMOVUPDYrr_REV",
		"VMOVDQAYrr_REV", "VMOVDQUYrr_REV",
	};
	const char *name;
	bool is_zen = strcmp(model->name, "znver3") == 0 || strcmp(model->name, "znver4") == 0;

	/* (LLVM 14's Piledriver and Zen 1/2 eliminate no moves) */
	if (!opcode || (strcmp(model->name, "btver2") != 0 && !is_zen))
		return false;
	name = sched_opcode_name(opcode);
	/* (Zen 3's list has no MMX move) */
	if (is_zen && strncmp(name, "MMX_", 4) == 0)
		return false;
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		if (strcmp(name, base[i]) == 0)
			return true;
	for (size_t i = 0; is_zen && i < sizeof(zen) / sizeof(zen[0]); i++)
		if (strcmp(name, zen[i]) == 0)
			return true;
	return false;
}

/* The file (index into the model's files + 1, 0 = only the default one)
 * renaming a write, and its cost there. */
static unsigned
prf_of(const struct prf_def *const *files, unsigned n_files, uint8_t cls, unsigned *cost)
{
	*cost = 1;
	for (unsigned f = 0; f < n_files; f++) {
		if ((cls == SCHED_W_GPR || cls == SCHED_W_GPR_PARTIAL) && files[f]->gpr)
			return f + 1;
		if (cls == SCHED_W_VEC && files[f]->vec)
			return f + 1;
		if (cls == SCHED_W_VEC256 && files[f]->vec) {
			*cost = files[f]->ymm_cost;
			return f + 1;
		}
	}
	return 0;
}

/* Resource units an instruction waits for (llvm-mca's checkAvailability). */
static uint64_t
rm_busy_mask(const struct rm *rm, const struct insn_desc *d)
{
	uint64_t busy = 0;

	for (unsigned i = 0; i < d->n_res; i++) {
		const struct res_use *u = &d->res[i];

		if (!rs_ready(&rm->rs[state_index(u->mask)], u->reserved ? 0 : u->num_units))
			busy |= u->mask;
	}
	busy &= rm->proc_res_unit_mask;
	if (busy)
		return busy;
	return d->used_groups & rm->reserved_groups;
}

/* ------------------------------------------------------------------ */
/* Bottleneck analysis: llvm-mca's dependency graph                    */

/*
 * Nodes are instructions of three consecutive iterations (index, index +
 * n, index + 2n); an edge says the later instruction waited for the
 * earlier one (register, memory) or for a unit it used (resource), with
 * a cost and how many iterations it happened in.  The critical sequence
 * is the most expensive path, as llvm-mca's BottleneckAnalysis finds it.
 */
struct dg_edge {
	unsigned to, freq;
	uint8_t type;
	uint16_t id;
	uint64_t cost;
};

struct dg_node {
	struct dg_edge *out;
	unsigned n_out, cap_out, n_pred, n_visited, depth, crit_from;
	uint64_t cost;
	struct dg_edge crit;
};

struct dgraph {
	struct dg_node *nodes;
	unsigned n_nodes, n_insns;
	bool failed;
};

static void
dg_add(struct dgraph *g, unsigned from, unsigned to, uint8_t type, uint16_t id, uint64_t cost)
{
	struct dg_node *f = &g->nodes[from];

	for (unsigned i = 0; i < f->n_out; i++) {
		struct dg_edge *e = &f->out[i];

		if (e->to == to && e->type == type && e->id == id) {
			e->cost += cost;
			e->freq++;
			return;
		}
	}
	if (f->n_out == f->cap_out) {
		unsigned cap = f->cap_out ? f->cap_out * 2 : 4;
		struct dg_edge *ne = realloc(f->out, cap * sizeof(*ne));

		if (!ne) {
			g->failed = true;
			return;
		}
		f->out = ne;
		f->cap_out = cap;
	}
	f->out[f->n_out++] = (struct dg_edge){ to, 1, type, id, cost };
	g->nodes[to].n_pred++;
}

/* A dependency between block indices: a loop-carried one links each
 * iteration to the next. */
static void
dg_dep(struct dgraph *g, unsigned from, unsigned to, uint8_t type, uint16_t id, uint64_t cost)
{
	unsigned n = g->n_insns;

	if (from >= to) {
		dg_add(g, from, to + n, type, id, cost);
		dg_add(g, from + n, to + 2 * n, type, id, cost);
		return;
	}
	dg_add(g, from + n, to + n, type, id, cost);
}

static void
dg_finalize(struct dgraph *g, unsigned iterations)
{
	unsigned *set = calloc(g->n_nodes + 1, sizeof(*set));
	unsigned *next = calloc(g->n_nodes + 1, sizeof(*next));
	unsigned n_set = 0, n_next;

	if (!set || !next) {
		g->failed = true;
		free(set);
		free(next);
		return;
	}
	/* Drop edges seen in at most 10% of the iterations. */
	for (unsigned k = 0; k < g->n_nodes; k++) {
		struct dg_node *nd = &g->nodes[k];
		unsigned size = nd->n_out, e = size, pruned = 0;

		for (unsigned i = 0; i < e; i++) {
			struct dg_edge t;

			if (nd->out[i].freq == iterations ||
			    (double)nd->out[i].freq / iterations > 0.10)
				continue;
			g->nodes[nd->out[i].to].n_pred--;
			t = nd->out[i];
			nd->out[i] = nd->out[e - 1];
			nd->out[e - 1] = t;
			e--;
			pruned++;
		}
		nd->n_out = size - pruned;
	}
	for (unsigned k = 0; k < g->n_nodes; k++)
		if (!g->nodes[k].n_pred && g->nodes[k].n_out)
			set[n_set++] = k;
	while (n_set) {
		n_next = 0;
		for (unsigned i = 0; i < n_set; i++) {
			const struct dg_node *nd = &g->nodes[set[i]];

			for (unsigned j = 0; j < nd->n_out; j++) {
				const struct dg_edge *e = &nd->out[j];
				struct dg_node *to = &g->nodes[e->to];
				uint64_t cost = nd->cost + e->cost;

				if (cost > to->cost) {
					to->crit = *e;
					to->crit_from = set[i];
					to->cost = cost;
					to->depth = nd->depth + 1;
				}
				if (++to->n_visited == to->n_pred && n_next < g->n_nodes)
					next[n_next++] = e->to;
			}
		}
		memcpy(set, next, n_next * sizeof(*set));
		n_set = n_next;
	}
	free(set);
	free(next);
}

static void
dg_free(struct dgraph *g)
{
	for (unsigned k = 0; g->nodes && k < g->n_nodes; k++)
		free(g->nodes[k].out);
	free(g->nodes);
}

/* The critical sequence: from the most expensive node back along the
 * critical predecessors. */
static int
dg_sequence(const struct dgraph *g, unsigned iterations, struct sched_result *r)
{
	unsigned best = 0, k;

	for (k = 1; k < g->n_nodes; k++)
		if (g->nodes[k].cost > g->nodes[best].cost)
			best = k;
	r->n_crit = g->nodes[best].depth;
	if (!r->n_crit)
		return 0;
	r->crit = calloc(r->n_crit, sizeof(*r->crit));
	if (!r->crit) {
		r->n_crit = 0;
		return -1;
	}
	k = best;
	for (unsigned i = r->n_crit; i-- > 0;) {
		const struct dg_node *nd = &g->nodes[k];

		r->crit[i] = (struct sched_crit_edge){ nd->crit_from % g->n_insns,
						       nd->crit.to % g->n_insns, nd->crit.type,
						       nd->crit.id,
						       nd->crit.freq * 100 / iterations };
		k = nd->crit_from;
	}
	return 0;
}

struct unit_user {
	uint64_t iid;
	unsigned cycles;
};

/* llvm-mca's BottleneckAnalysis at the issue of instruction id: an edge
 * from the last user of each unit it found busy, and from the producer
 * of the register read it waited for the longest. */
static void
bottleneck_issue(struct dgraph *g, const struct rm *rm, const struct dyn *dyn,
		 const struct insn_desc *descs, const struct sched_insn *insns, unsigned n,
		 uint64_t id, const int *res_col, const struct unit_user *users)
{
	const struct dyn *d = &dyn[id];
	const struct sched_insn *si = &insns[id % n];
	unsigned to = (unsigned)(id % n);
	uint64_t extra = 2ULL * d->res_pc;
	uint64_t crd_prod = 0;
	unsigned crd_cycles = 0;
	uint16_t crd_reg = 0;

	for (unsigned j = 0; d->crit_mask && j < SCHED_MAX_RESOURCES && j < 64; j++) {
		unsigned units;

		if (res_col[j] < 0 || !(d->crit_mask & rm->model_mask[j]))
			continue;
		units = rm->rs[state_index(rm->model_mask[j])].num_units;
		for (unsigned u = 0; u < units; u++) {
			const struct unit_user *us = &users[res_col[j] + (int)u];
			const struct dyn *ud = &dyn[us->iid];

			if (us->cycles && (ud->state == D_DISPATCHED || ud->state == D_ISSUED))
				dg_dep(g, (unsigned)(us->iid % n), to, 3, (uint16_t)j, us->cycles + extra);
		}
	}
	/* A partial write's false dependency first (llvm-mca's critical
	 * dependency of a definition: the earlier write's cycles left),
	 * then any read's overrides it. */
	for (unsigned k = 0; k < d->n_deps; k++) {
		const struct dep *dp = &d->deps[k];
		const struct dyn *p = &dyn[dp->prod];
		unsigned lat = descs[dp->prod % n].latency;
		unsigned elapsed = p->issued <= d->dispatched ? d->dispatched - p->issued : 0;

		if (!dp->write || p->state < D_ISSUED || lat <= elapsed)
			continue;
		crd_prod = dp->prod;
		crd_cycles = lat - elapsed;
		crd_reg = dp->reg;
		for (unsigned w = 0; w < insns[dp->prod % n].n_writes; w++)
			if (insns[dp->prod % n].writes[w].reg == dp->reg)
				crd_reg = insns[dp->prod % n].writes[w].orig;
	}
	/* Per read, the write that made it wait the latest: llvm-mca learns
	 * each write's cycles left when it issues (or at the read's
	 * dispatch), counts the kept one down, and takes a new one that
	 * ends later (a partial write after the full one it merges into);
	 * then the last read that waited at all. */
	for (unsigned i = 0; i < si->n_reads; i++) {
		unsigned best = 0;
		uint64_t best_prod = 0, best_end = 0, best_at = 0;

		for (unsigned k = 0; k < d->n_deps; k++) {
			const struct dep *dp = &d->deps[k];
			const struct dyn *p = &dyn[dp->prod];
			unsigned lat = descs[dp->prod % n].latency;
			unsigned elapsed = p->issued <= d->dispatched ? d->dispatched - p->issued : 0;
			unsigned left = lat > elapsed + dp->advance ? lat - elapsed - dp->advance : 0;
			uint64_t at = p->issued > d->dispatched ? p->issued : d->dispatched;

			if (dp->write || dp->reg != si->reads[i].reg || p->state < D_ISSUED || !left)
				continue;
			if (!best || at + left > best_end || (at + left == best_end && at < best_at)) {
				best = left;
				best_prod = dp->prod;
				best_end = at + left;
				best_at = at;
			}
		}
		if (best) {
			const struct sched_insn *ps = &insns[best_prod % n];

			crd_prod = best_prod;
			crd_cycles = best;
			crd_reg = si->reads[i].reg;
			for (unsigned w = 0; w < ps->n_writes; w++)
				if (ps->writes[w].reg == si->reads[i].reg)
					crd_reg = ps->writes[w].orig;
		}
	}
	if (crd_cycles)
		dg_dep(g, (unsigned)(crd_prod % n), to, 1, crd_reg, crd_cycles + 2ULL * d->reg_pc);
}

static void
hist_add(uint64_t *h, unsigned v)
{
	h[v < SCHED_HIST ? v : SCHED_HIST - 1]++;
}

/*
 * llvm-mca-14's in-order pipeline, for the models without a reorder
 * buffer (MicroOpBufferSize 0: Atom).  Instructions issue in program
 * order, up to the dispatch width of uops a cycle, in the cycle they
 * dispatch: one whose register sources are not ready, or whose units are
 * busy, stalls the ones after it (a register-unavailable or a dispatch-
 * group stall for each such cycle, the one it is found in included).
 * An instruction retires when it has executed; nothing is renamed but
 * the default register file counts its mappings.
 */
static int
run_in_order(const struct sched_model *model, const struct sched_params *p,
	     const struct sched_insn *insns, unsigned n, struct insn_desc *descs, struct dyn *dyn,
	     struct reg_map *regs, uint64_t *issued, uint32_t *iter_end, struct rm *rm,
	     struct sched_result *r, uint32_t *cycle_out)
{
	struct sched_stats *st = &r->stats;
	unsigned iters = p->iterations ? p->iterations : 100;
	unsigned width = p->dispatch_width ? p->dispatch_width : model->issue_width;
	uint64_t total = (uint64_t)iters * n, next = 0, done = 0, stalled = UINT64_MAX;
	unsigned n_issued = 0, stall_left = 0, used = 0;
	enum { STALL_GROUP, STALL_REG, STALL_DELAY } stall_kind = STALL_GROUP;
	uint64_t last_wb = 0;	/* write-back cycle of the last issued instruction */
	unsigned carry = 0;	/* uops of a wide instruction still to go */
	bool carry_done;
	uint32_t cycle;

	for (cycle = 0; done < total; cycle++) {
		unsigned bw = width, c_issued = 0;

		/* Write-back: an instruction retires as it executes. */
		rm_cycle_event(rm);
		for (unsigned i = 0; i < n_issued;) {
			struct dyn *d = &dyn[issued[i]];

			if (d->cycles_left)
				d->cycles_left--;
			if (d->cycles_left) {
				i++;
				continue;
			}
			d->state = D_RETIRED;
			d->executed = d->retired = cycle;
			used -= d->prf_alloc[0];
			if (issued[i] % n == n - 1)
				iter_end[issued[i] / n] = cycle;
			done++;
			memmove(&issued[i], &issued[i + 1], (n_issued - i - 1) * sizeof(*issued));
			n_issued--;
		}
		/* An instruction of more uops than the width takes the next
		 * cycles' bandwidth too: nothing else is looked at (or counted
		 * as stalled) until its last uops go. */
		carry_done = false;
		if (carry) {
			unsigned c_use = carry < width ? carry : width;

			carry -= c_use;
			bw = width - c_use;
			if (carry) {
				hist_add(st->dispatched, 0);
				hist_add(st->issued, 0);
				continue;
			}
			/* (the next instruction is looked at in the cycle the
			 * last uops go, bandwidth or not) */
			carry_done = true;
		}
		for (;;) {
			uint64_t id = stalled != UINT64_MAX ? stalled : next;
			struct dyn *d;
			const struct insn_desc *ds;
			const struct sched_insn *si;
			unsigned hazard = 0;

			if (stalled != UINT64_MAX && stall_left)
				break;
			if (stalled == UINT64_MAX) {
				if (next >= total)
					break;
				ds = &descs[next % n];
				if (ds->uops > bw && !(ds->uops > width && bw == width) &&
				    !carry_done)
					break;
				/* its sources: the last writers in program order */
				d = &dyn[next];
				si = &insns[next % n];
				d->n_deps = 0;
				for (unsigned i = 0; i < si->n_reads; i++) {
					const struct reg_map *m = &regs[reg_slot(si->reads[i].reg)];
					int64_t w[2] = { m->full, m->partial };

					if (w[1] >= 0 &&
					    partial_covers(write_orig(&insns[w[1] % n], si->reads[i].reg),
							   si->reads[i].orig))
						w[0] = -1;
					for (int k = 0; k < 2; k++) {
						const struct sched_insn *ps;
						unsigned adv = si->reads[i].read_advance;

						if (w[k] < 0)
							continue;
						ps = &insns[w[k] % n];
						if (ps->reg_latency && si->reads[i].reg != SCHED_REG_FLAGS &&
						    ps->reg_latency < ps->latency)
							adv += ps->latency - ps->reg_latency;
						d->deps[d->n_deps++] = (struct dep){ (uint32_t)w[k], (uint8_t)adv,
										     si->reads[i].reg };
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
				next++;
			} else {
				stalled = UINT64_MAX;
			}
			d = &dyn[id];
			ds = &descs[id % n];
			for (unsigned k = 0; k < d->n_deps; k++) {
				const struct dyn *pd = &dyn[d->deps[k].prod];
				unsigned left = pd->state == D_ISSUED ? pd->cycles_left : 0;

				if (left > d->deps[k].advance && left - d->deps[k].advance > hazard)
					hazard = left - d->deps[k].advance;
			}
			if (!hazard && carry_done && ds->uops > bw &&
			    !(ds->uops > width && bw == width)) {
				/* no bandwidth left: it issues next cycle */
				stalled = id;
				stall_left = 0;
				break;
			}
			if (hazard || !rm_can_issue(rm, ds)) {
				stalled = id;
				stall_kind = hazard ? STALL_REG : STALL_GROUP;
				stall_left = hazard ? hazard : 1;
				break;
			}
			/* Results are written back in program order: an
			 * instruction that would write back before the last one
			 * issued waits the difference (no stall is counted). */
			if (last_wb > (uint64_t)cycle + ds->latency) {
				stalled = id;
				stall_kind = STALL_DELAY;
				stall_left = (unsigned)(last_wb - cycle - ds->latency);
				break;
			}
			last_wb = (uint64_t)cycle + ds->latency;
			for (unsigned i = 0; i < ds->n_res; i++) {
				const struct res_use *u = &ds->res[i];

				if (!u->reserved) {
					uint64_t rsrc, sub;
					const struct res_state *rs;
					int col;

					rm_select_pipe(rm, u->mask, &rsrc, &sub);
					rm_use(rm, rsrc, sub);
					if (rm_add_busy(rm, rsrc, sub, u->cycles) < 0)
						return -1;
					rs = &rm->rs[state_index(rsrc)];
					col = rs->column + (rs->num_units > 1 ? (int)state_index(sub) : 0);
					if (col >= 0)
						r->pressure[(id % n) * r->n_columns + (unsigned)col] += u->cycles;
				} else {
					rm->rs[state_index(u->mask)].reserved = true;
					rm->reserved_groups |= u->mask;
					if (rm_add_busy(rm, u->mask, u->mask, u->cycles) < 0)
						return -1;
				}
			}
			d->dispatched = d->ready = d->issued = cycle;
			d->cycles_left = ds->latency;
			d->prf_alloc[0] = 0;
			for (unsigned i = 0; i < insns[id % n].n_writes && !insns[id % n].zero_idiom; i++)
				d->prf_alloc[0]++;
			if (!insns[id % n].zero_idiom)
				d->prf_alloc[0] = (uint8_t)(d->prf_alloc[0] + insns[id % n].extra_defs_full +
							    insns[id % n].extra_defs_partial);
			st->prf[0].mappings += d->prf_alloc[0];
			used += d->prf_alloc[0];
			if (used > st->prf[0].max_used)
				st->prf[0].max_used = used;
			c_issued += ds->uops;
			if (ds->uops > bw)
				carry = ds->uops - bw;
			bw = ds->uops > bw ? 0 : bw - ds->uops;
			if (ds->latency) {
				d->state = D_ISSUED;
				issued[n_issued++] = id;
			} else {
				d->state = D_RETIRED;
				d->executed = d->retired = cycle;
				used -= d->prf_alloc[0];
				if (id % n == n - 1)
					iter_end[id / n] = cycle;
				done++;
			}
		}
		if (stalled != UINT64_MAX && stall_left) {
			if (stall_kind != STALL_DELAY) {
				st->stalls[stall_kind == STALL_REG ? SCHED_STALL_RAT : SCHED_STALL_GROUP]++;
				st->bn_cycles++;
			}
			if (stall_kind == STALL_REG) {
				st->bn_register++;
				st->bn_data++;
			} else if (stall_kind == STALL_GROUP) {
				st->bn_resource++;
			}
			stall_left--;
		}
		hist_add(st->dispatched, c_issued);
		hist_add(st->issued, c_issued);
	}
	st->cycles = cycle;
	*cycle_out = cycle;
	return 0;
}

int
sched_run(const struct sched_model *model, const struct sched_params *p,
	  const struct sched_insn *insns, unsigned n, struct sched_result *r)
{
	unsigned iters = p->iterations ? p->iterations : 100;
	unsigned width = p->dispatch_width ? p->dispatch_width : model->issue_width;
	unsigned rob = p->micro_op_buffer_size ? p->micro_op_buffer_size : rob_size(model);
	unsigned max_retire = retire_per_cycle(model);
	unsigned lqueue = p->lqueue, squeue = p->squeue;
	unsigned tl_iters = p->timeline_max_iterations;
	uint64_t total = (uint64_t)iters * n, next = 0, retired = 0, head = 0;
	struct insn_desc *descs = NULL;
	struct dyn *dyn = NULL;
	struct reg_map *regs = NULL;
	uint64_t *pending = NULL;	/* dispatched, not issued, in dispatch order */
	uint64_t *issued = NULL;	/* issued, not executed */
	uint32_t *iter_end = NULL;	/* retire cycle of each iteration's last instruction */
	unsigned n_pending = 0, n_issued = 0;
	unsigned rob_avail = rob, carry = 0;
	uint64_t carry_id = 0;
	struct rm rm;
	struct lsu lsu = { .noalias = p->noalias };
	unsigned ncols;
	double usage[SCHED_MAX_RESOURCES] = { 0 };
	uint32_t cycle;
	int ret = -1;
	/* statistics */
	struct sched_stats *st = &r->stats;
	const struct prf_def *files[SCHED_MAX_PRF - 1];
	unsigned n_files = 0, prf_used[SCHED_MAX_PRF] = { 0 }, moves_now[SCHED_MAX_PRF] = { 0 };
	bool swap = false;
	unsigned lq_used = 0, sq_used = 0, rob_stat = 0;
	/* loads and stores from dispatch to execution: the queue usage
	 * llvm-mca shows for a model's load and store queues (Zen 3's
	 * Zn3Load/Zn3Store) */
	unsigned lq_flight = 0, sq_flight = 0;
	int lq_res = -1, sq_res = -1;
	uint8_t *zero_reg = NULL;
	bool token_stall = false;
	int buf_res[SCHED_MAX_BUFFERS];
	struct dgraph dg = { NULL, 0, n, false };
	struct unit_user *users = NULL;	/* last user of each unit */
	int res_col[SCHED_MAX_RESOURCES];

	memset(r, 0, sizeof(*r));
	if (!n)
		return -1;
	for (size_t i = 0; i < sizeof(prf_defs) / sizeof(prf_defs[0]); i++)
		if (strcmp(prf_defs[i].model, model->name) == 0 && n_files < SCHED_MAX_PRF - 1)
			files[n_files++] = &prf_defs[i];
	st->n_prf = n_files + 1;
	st->prf[0].size = p->register_file_size;
	for (unsigned f = 0; f < n_files; f++) {
		st->prf[f + 1].name = files[f]->name;
		st->prf[f + 1].size = files[f]->size;
	}
	st->rob_size = rob;
	for (unsigned i = 0; i < model->n_resources; i++) {
		if (model->resources[i].buffer > 0 && (!strcmp(model->resources[i].name, "Zn3Load") ||
							!strcmp(model->resources[i].name, "PdLoad")))
			lq_res = (int)i;
		if (model->resources[i].buffer > 0 && (!strcmp(model->resources[i].name, "Zn3Store") ||
							!strcmp(model->resources[i].name, "PdStore")))
			sq_res = (int)i;
		/* LLVM's load and store queues: their buffers are the LSU's
		 * default sizes (-lqueue/-squeue override them) */
		if ((int)i == lq_res && !lqueue)
			lqueue = (unsigned)model->resources[i].buffer;
		if ((int)i == sq_res && !squeue)
			squeue = (unsigned)model->resources[i].buffer;
		if (model->resources[i].buffer <= 0 || st->n_buffers == SCHED_MAX_BUFFERS)
			continue;
		buf_res[st->n_buffers] = (int)i;
		st->buffers[st->n_buffers].name = model->resources[i].name;
		st->buffers[st->n_buffers++].size = (unsigned)model->resources[i].buffer;
	}
	rm_init(&rm, model, &ncols);
	descs = calloc(n, sizeof(*descs));
	dyn = calloc(total, sizeof(*dyn));
	regs = malloc(N_REG_SLOTS * sizeof(*regs));
	pending = malloc(total * sizeof(*pending));
	issued = malloc(total * sizeof(*issued));
	iter_end = calloc(iters, sizeof(*iter_end));
	zero_reg = calloc(N_REG_SLOTS, 1);
	dg.n_nodes = 3 * n;
	dg.nodes = calloc(dg.n_nodes, sizeof(*dg.nodes));
	users = calloc(ncols ? ncols : 1, sizeof(*users));
	r->pressure = calloc((size_t)n * (ncols ? ncols : 1), sizeof(double));
	r->column_names = calloc(ncols ? ncols : 1, sizeof(*r->column_names));
	if (tl_iters > iters)
		tl_iters = iters;
	r->timeline = calloc((size_t)tl_iters * n + 1, sizeof(*r->timeline));
	if (!descs || !dyn || !regs || !pending || !issued || !iter_end || !zero_reg || !dg.nodes ||
	    !users || !r->pressure ||
	    !r->column_names || !r->timeline)
		goto out;
	for (unsigned i = 0; i < N_REG_SLOTS; i++)
		regs[i].full = regs[i].partial = -1;
	for (unsigned i = 0; i < n; i++)
		desc_init(&rm, model, &insns[i], &descs[i]);
	for (unsigned i = 0; i < model->n_resources; i++)
		res_col[i] = model->resources[i].is_group ? -1
				: rm.rs[state_index(rm.model_mask[i])].column;
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

	if (model->micro_op_buffer_size == 0) {
		r->n_columns = ncols;
		if (run_in_order(model, p, insns, n, descs, dyn, regs, issued, iter_end, &rm,
				 r, &cycle) < 0)
			goto out;
		r->in_order = true;
		goto simulated;
	}
	for (cycle = 0; retired < total; cycle++) {
		unsigned avail, n_ret = 0;
		unsigned c_disp = 0, c_issued = 0, e_disp = 0, e_issued = 0;
		uint64_t busy_units = 0;

		/* Retire stage. */
		while (head < total && dyn[head].state == D_EXECUTED &&
		       (!max_retire || n_ret < max_retire)) {
			struct dyn *d = &dyn[head];
			unsigned uops = descs[head % n].uops;

			d->state = D_RETIRED;
			d->retired = cycle;
			if (head % n == n - 1)
				iter_end[head / n] = cycle;
			rob_avail += uops ? (uops < rob ? uops : rob) : 1;
			rob_stat -= uops < rob_stat ? uops : rob_stat;
			for (unsigned f = 0; f < SCHED_MAX_PRF; f++)
				prf_used[f] -= d->prf_alloc[f];
			/* llvm-mca frees load/store queue entries at retirement. */
			if (insns[(head) % n].may_load && lq_used && !d->eliminated)
				lq_used--;
			if (insns[(head) % n].may_store && sq_used && !d->eliminated)
				sq_used--;
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
			if (d->mem_group) {
				lsu_executed(&lsu, (unsigned)d->mem_group);
				lq_flight -= insns[issued[i] % n].may_load;
				sq_flight -= insns[issued[i] % n].may_store;
			}
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
				if (!rm_can_issue(&rm, &descs[k % n])) {
					uint64_t busy = p->no_bottleneck ? 0
						: rm_busy_mask(&rm, &descs[k % n]);

					busy_units |= busy;
					if (busy)
						c->crit_mask = busy;
					continue;
				}
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
			bottleneck_issue(&dg, &rm, dyn, descs, insns, n, id, res_col, users);
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

						if (col >= 0) {
							r->pressure[(id % n) * ncols + (unsigned)col] += u->cycles;
							users[col].iid = id;
							users[col].cycles = u->cycles;
						}
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
			c_issued += ds->uops;
			e_issued += ds->uops;
			if (id == total - 1)
				dg_finalize(&dg, iters);
			if (d->mem_group)
				lsu_issued(&lsu, (unsigned)d->mem_group);
			if (ds->latency) {
				d->state = D_ISSUED;
				issued[n_issued++] = id;
			} else {
				d->state = D_EXECUTED;
				d->executed = cycle;
				if (d->mem_group) {
					lsu_executed(&lsu, (unsigned)d->mem_group);
					lq_flight -= insns[id % n].may_load;
					sq_flight -= insns[id % n].may_store;
				}
			}
		}

		/* Dispatch stage. */
		if (carry) {
			avail = carry >= width ? 0 : width - carry;
			carry -= width - avail;
			c_disp += width - avail;
			rob_stat += width - avail;
			dyn[carry_id].dispatch_end = cycle;
		} else {
			avail = width;
		}
		while (next < total && avail) {
			const struct sched_insn *si = &insns[next % n];
			const struct insn_desc *ds = &descs[next % n];
			struct dyn *d = &dyn[next];
			unsigned uops = ds->uops;
			unsigned need = uops < width ? uops : width;
			unsigned entries = uops ? (uops < rob ? uops : rob) : 1;
			unsigned regs_needed[SCHED_MAX_PRF] = { 0 };
			bool ok = true, rat = false;

			if (need > avail)
				break;
			/* llvm-mca checks the reorder buffer, the register
			 * files and the scheduler, and counts each stall. */
			if (entries > rob_avail) {
				st->stalls[SCHED_STALL_RCU]++;
				ok = false;
			}
			for (unsigned i = 0; i < si->n_writes; i++) {
				unsigned cost, f = prf_of(files, n_files, si->writes[i].cls, &cost);

				regs_needed[0] += cost;
				regs_needed[f] += f ? cost : 0;
			}
			for (unsigned f = 0; f <= n_files; f++) {
				unsigned size = f ? files[f - 1]->size : p->register_file_size;
				unsigned need_f = regs_needed[f] < size ? regs_needed[f] : size;

				if (size && need_f && prf_used[f] + need_f > size)
					rat = true;
			}
			if (rat) {
				st->stalls[SCHED_STALL_RAT]++;
				ok = false;
			}
			if (!rm_buffers_available(&rm, ds->used_buffers)) {
				st->stalls[SCHED_STALL_SCHEDQ]++;
				token_stall = true;
				ok = false;
			} else if (si->may_load && lqueue && lq_used >= lqueue) {
				st->stalls[SCHED_STALL_LQ]++;
				token_stall = true;
				ok = false;
			} else if (si->may_store && squeue && sq_used >= squeue) {
				st->stalls[SCHED_STALL_SQ]++;
				token_stall = true;
				ok = false;
			} else {
				token_stall = false;
			}
			if (!ok)
				break;
			if (uops > width) {
				avail = 0;
				carry = uops - width;
				carry_id = next;
			} else {
				avail -= uops;
			}
			rob_avail -= entries;
			c_disp += need;
			rob_stat += need;
			/* Move elimination at register renaming (Jaguar, Zen);
			 * Zen 3 eliminates a 32/64-bit register swap too (two
			 * moves). */
			swap = false;
			if (swap_move(model, si) ) {
				unsigned cost, f = prf_of(files, n_files, SCHED_W_GPR, &cost);

				if (f) {
					st->prf[f].move_candidates += 2;
					if (moves_now[f] + 2 <= files[f - 1]->max_moves) {
						moves_now[f] += 2;
						d->eliminated = 1;
						swap = true;
					}
				}
			} else if (optimizable_move(model, si->opcode) && si->n_writes && si->n_reads) {
				unsigned cost, f = prf_of(files, n_files, si->writes[0].cls, &cost);
				unsigned src = reg_slot(si->reads[0].reg);

				if (f) {
					st->prf[f].move_candidates++;
					/* (an SSE move's XMM write, partial
					 * for YMM readers, is eliminated) */
					if ((!si->writes[0].partial ||
					     si->writes[0].cls == SCHED_W_VEC) &&
					    (!files[f - 1]->zero_only || zero_reg[src]) &&
					    moves_now[f] < files[f - 1]->max_moves) {
						moves_now[f]++;
						d->eliminated = 1;
						if (zero_reg[src])
							st->prf[f].zero_moves++;
					}
				}
			}
			if (d->eliminated) {
				unsigned dst = reg_slot(si->writes[0].reg), src = reg_slot(si->reads[0].reg);

				if (swap) {
					struct reg_map t;
					bool tz;

					src = reg_slot(si->writes[1].reg);
					t = regs[dst];
					regs[dst] = regs[src];
					regs[src] = t;
					tz = zero_reg[dst];
					zero_reg[dst] = zero_reg[src];
					zero_reg[src] = tz;
				} else {
					regs[dst] = regs[src];
					zero_reg[dst] = zero_reg[src];
				}
				d->state = D_EXECUTED;
				d->dispatched = d->ready = d->issued = d->executed = cycle;
				c_issued += uops;
				if (next == total - 1)
					dg_finalize(&dg, iters);
				next++;
				continue;
			}
			/* Physical registers: none for zero idioms, none for
			 * partial writes a register file renames whole. */
			if (!si->zero_idiom && (si->extra_defs_full || si->extra_defs_partial)) {
				unsigned cost, f = prf_of(files, n_files, SCHED_W_GPR, &cost);
				unsigned x = si->extra_defs_full + (f ? 0 : si->extra_defs_partial);

				d->prf_alloc[0] = (uint8_t)(d->prf_alloc[0] + x);
				prf_used[0] += x;
				st->prf[0].mappings += x;
				if (f) {
					d->prf_alloc[f] = (uint8_t)(d->prf_alloc[f] + si->extra_defs_full);
					prf_used[f] += si->extra_defs_full;
					st->prf[f].mappings += si->extra_defs_full;
				}
			}
			for (unsigned i = 0; i < si->n_writes && !si->zero_idiom; i++) {
				unsigned cost, f = prf_of(files, n_files, si->writes[i].cls, &cost);

				if (f && si->writes[i].cls == SCHED_W_GPR_PARTIAL)
					continue;
				d->prf_alloc[0] = (uint8_t)(d->prf_alloc[0] + cost);
				prf_used[0] += cost;
				st->prf[0].mappings += cost;
				if (f) {
					d->prf_alloc[f] = (uint8_t)(d->prf_alloc[f] + cost);
					prf_used[f] += cost;
					st->prf[f].mappings += cost;
				}
			}
			for (unsigned f = 0; f <= n_files; f++)
				if (prf_used[f] > st->prf[f].max_used)
					st->prf[f].max_used = prf_used[f];
			for (unsigned i = 0; i < si->n_writes; i++)
				zero_reg[reg_slot(si->writes[i].reg)] = si->zero_idiom;
			if (si->may_load)
				lq_used++;
			if (si->may_store)
				sq_used++;
			if (si->may_load || si->may_store) {
				lq_flight += si->may_load;
				sq_flight += si->may_store;
			}
			e_disp += uops;
			for (unsigned i = 0; i < si->n_reads; i++) {
				struct reg_map *m = &regs[reg_slot(si->reads[i].reg)];
				int64_t w[2] = { m->full, m->partial };

				if (w[1] >= 0 &&
				    partial_covers(write_orig(&insns[w[1] % n], si->reads[i].reg),
						   si->reads[i].orig))
					w[0] = -1;
				for (int k = 0; k < 2; k++) {
					struct dyn *pd;

					if (w[k] < 0)
						continue;
					pd = &dyn[w[k]];
					if (pd->state >= D_EXECUTED)
						continue;
					if (pd->state < D_ISSUED)
						pd->num_users += si->reads[i].uses ? si->reads[i].uses : 1;
					/* a register result earlier than the
					 * instruction's latency: as a read
					 * advance of the difference */
					{
						const struct sched_insn *ps = &insns[w[k] % n];
						unsigned adv = si->reads[i].read_advance;

						if (ps->reg_latency && si->reads[i].reg != SCHED_REG_FLAGS &&
						    ps->reg_latency < ps->latency)
							adv += ps->latency - ps->reg_latency;
						d->deps[d->n_deps++] = (struct dep){ (uint32_t)w[k],
										     (uint8_t)adv,
										     si->reads[i].reg };
					}
				}
			}
			/* An 8/16-bit write that a register file renames as the
			 * whole register (the AMD models) has LLVM's false
			 * dependency: it completes after the register's last
			 * write, i.e. starts once that write has fewer cycles
			 * left than its own latency. */
			for (unsigned i = 0; i < si->n_writes; i++) {
				const struct reg_map *m = &regs[reg_slot(si->writes[i].reg)];
				int64_t last = m->partial >= 0 ? m->partial : m->full;
				unsigned cost;
				struct dyn *pd;

				if (si->writes[i].cls != SCHED_W_GPR_PARTIAL || last < 0 ||
				    !prf_of(files, n_files, SCHED_W_GPR_PARTIAL, &cost) ||
				    d->n_deps == sizeof(d->deps) / sizeof(d->deps[0]))
					continue;
				pd = &dyn[last];
				if (pd->state >= D_EXECUTED)
					continue;
				d->deps[d->n_deps++] = (struct dep){
					(uint32_t)last, (uint8_t)(si->latency ? si->latency - 1 : 0),
					si->writes[i].reg, true };
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
			/* Ready already: llvm-mca's "ready" event is at dispatch. */
			if (dyn_regs_ready(d, dyn, descs, n, cycle) &&
			    (!d->mem_group || lsu_ready(&lsu, (unsigned)d->mem_group)))
				d->ready = cycle;
			if (ds->zero_latency && dyn_regs_ready(d, dyn, descs, n, cycle) &&
			    (!d->mem_group || lsu_ready(&lsu, (unsigned)d->mem_group))) {
				bottleneck_issue(&dg, &rm, dyn, descs, insns, n, next, res_col, users);
				d->ready = d->issued = d->executed = cycle;
				d->state = D_EXECUTED;
				c_issued += uops;
				e_issued += uops;
				if (next == total - 1)
					dg_finalize(&dg, iters);
				rm_buffers_adjust(&rm, ds->used_buffers, +1);
				if (d->mem_group) {
					lsu_issued(&lsu, (unsigned)d->mem_group);
					lsu_executed(&lsu, (unsigned)d->mem_group);
					lq_flight -= si->may_load;
					sq_flight -= si->may_store;
				}
			} else {
				pending[n_pending++] = next;
			}
			next++;
		}

		/* End of cycle: the statistics views sample the state. */
		hist_add(st->dispatched, c_disp);
		hist_add(st->issued, c_issued);
		hist_add(st->retired, n_ret);
		for (unsigned b = 0; b < st->n_buffers; b++) {
			const struct res_state *rs = &rm.rs[state_index(rm.model_mask[buf_res[b]])];
			unsigned used = (unsigned)(rs->buffer - rs->available_slots);

			if (buf_res[b] == lq_res)
				used = lq_flight;
			else if (buf_res[b] == sq_res)
				used = sq_flight;
			st->buffers[b].cumulative += used;
			if (used > st->buffers[b].max_used)
				st->buffers[b].max_used = used;
		}
		st->rob_cumulative += rob_stat;
		if (rob_stat > st->rob_max)
			st->rob_max = rob_stat;
		for (unsigned f = 1; f <= n_files; f++) {
			if (moves_now[f] > st->prf[f].max_moves_per_cycle)
				st->prf[f].max_moves_per_cycle = moves_now[f];
			st->prf[f].moves_eliminated += moves_now[f];
			moves_now[f] = 0;
		}
		/* Bottleneck analysis: when the backend pressure grew (the
		 * dispatch stalled on the scheduler, or fewer uops issued than
		 * entered it), blame busy units and pending dependencies. */
		if (!p->no_bottleneck && (token_stall || e_disp > e_issued)) {
			bool res = busy_units != 0, reg = false, mem = false;

			/* A unit bit names the unit; a group's own bit (a
			 * reserved group) names all its units. */
			for (unsigned j = 0; j < model->n_resources; j++) {
				uint64_t mm = rm.model_mask[j];

				if (!model->resources[j].is_group) {
					if (busy_units & mm)
						st->bn_per_resource[j]++;
				} else if (busy_units & pow2_floor(mm)) {
					for (unsigned u = 0; u < model->n_resources; u++)
						if (!model->resources[u].is_group && (mm & rm.model_mask[u]))
							st->bn_per_resource[u]++;
				}
			}
			for (unsigned i = 0; res && i < n_pending; i++) {
				struct dyn *c = &dyn[pending[i]];

				if (c->ready != UINT32_MAX && (c->crit_mask & busy_units))
					c->res_pc++;
			}
			for (unsigned i = 0; i < n_pending; i++) {
				struct dyn *c = &dyn[pending[i]];
				bool all_issued = true;

				if (c->dispatched == cycle || rm_busy_mask(&rm, &descs[pending[i] % n]))
					continue;
				for (unsigned k = 0; k < c->n_deps; k++)
					if (dyn[c->deps[k].prod].state < D_ISSUED)
						all_issued = false;
				if (!all_issued)
					continue;
				if (!dyn_regs_ready(c, dyn, descs, n, cycle)) {
					reg = true;
					c->reg_pc++;
				}
				else if (!p->noalias && c->mem_group &&
					 !lsu_ready(&lsu, (unsigned)c->mem_group))
					mem = true;
			}
			if (res || reg || mem) {
				st->bn_cycles++;
				st->bn_resource += res;
				st->bn_register += reg;
				st->bn_memory += mem;
				st->bn_data += reg || mem;
			}
		}
	}
	st->cycles = cycle;
	if (dg.failed || dg_sequence(&dg, iters, r) < 0)
		goto out;
simulated:

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
	r->throughput = sched_steady_throughput(iter_end, iters, cycle);
	r->timeline_iterations = tl_iters;
	for (uint64_t k = 0; k < (uint64_t)tl_iters * n; k++) {
		struct sched_timeline_entry *t = &r->timeline[k];

		t->dispatched = dyn[k].dispatched;
		t->dispatch_end = dyn[k].dispatch_end > dyn[k].dispatched ? dyn[k].dispatch_end
									 : dyn[k].dispatched;
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
	free(iter_end);
	free(zero_reg);
	free(users);
	dg_free(&dg);
	free(rm.busy);
	lsu_free(&lsu);
	return ret;
}

int
sched_instruction_tables(const struct sched_model *model, const struct sched_insn *insns,
			 unsigned n, double *pressure, unsigned n_columns)
{
	struct rm rm;
	unsigned ncols;
	int unit_col[64];

	rm_init(&rm, model, &ncols);
	if (ncols != n_columns)
		return -1;
	for (unsigned i = 0; i < model->n_resources; i++)
		unit_col[i] = model->resources[i].is_group ? -1
				: rm.rs[state_index(rm.model_mask[i])].column;
	memset(pressure, 0, (size_t)n * ncols * sizeof(*pressure));
	for (unsigned k = 0; k < n; k++) {
		struct insn_desc d;
		double *row = &pressure[(size_t)k * ncols];

		desc_init(&rm, model, &insns[k], &d);
		/* Uniform: a unit's cycles spread over its units, a group's
		 * over every unit of every resource it contains. */
		for (unsigned u = 0; u < d.n_res; u++) {
			uint64_t mask = d.res[u].mask;
			unsigned cycles = d.res[u].cycles;

			if (!cycles)
				continue;
			if (popcount(mask) == 1) {
				for (unsigned j = 0; j < model->n_resources; j++) {
					if (rm.model_mask[j] != mask || unit_col[j] < 0)
						continue;
					for (unsigned x = 0; x < model->resources[j].units; x++)
						row[unit_col[j] + (int)x] +=
							(double)cycles / model->resources[j].units;
				}
				continue;
			}
			{
				unsigned total = 0;

				for (unsigned j = 0; j < model->n_resources; j++)
					if (unit_col[j] >= 0 && (mask & rm.model_mask[j]) &&
					    rm.model_mask[j] != mask)
						total += model->resources[j].units;
				for (unsigned j = 0; j < model->n_resources && total; j++) {
					if (unit_col[j] < 0 || !(mask & rm.model_mask[j]))
						continue;
					for (unsigned x = 0; x < model->resources[j].units; x++)
						row[unit_col[j] + (int)x] += (double)cycles / total;
				}
			}
		}
	}
	return 0;
}

double
sched_steady_throughput(const uint32_t *iter_end, unsigned iterations, uint64_t total_cycles)
{
	unsigned h = iterations / 2;

	if (iterations < 4)
		return (double)total_cycles / (iterations ? iterations : 1);
	return (double)(iter_end[iterations - 1] - iter_end[h - 1]) / (iterations - h);
}

void
sched_result_free(struct sched_result *r)
{
	free(r->pressure);
	free(r->column_names);
	free(r->timeline);
	free(r->crit);
	memset(r, 0, sizeof(*r));
}
