/*
 * Decoded instruction -> LLVM opcode name, as LLVM's disassembler would
 * name it (llvm-mc -show-inst), so that the scheduling data of LLVM's
 * models apply.
 *
 * LLVM names are the mnemonic, an operand width for general-purpose forms
 * (ADD64rm), a vector-length tag (VMULPSYrr, VADDPSZ256rr) and a form
 * made of operand kinds (r register, m memory, i immediate with its
 * encoded size, 1 / CL for shift counts) plus suffixes (_REV for the
 * reversed encoding, _Int for scalar SSE forms on whole XMM registers).
 * Rather than one table row per form, candidates are built from the
 * Zydis operands in order of likelihood and the first name that exists in
 * the tables wins; the irregular families (branches, MOVD/MOVQ, LEA,
 * NOP, x87, conversions to/from GPRs) get their own rules.  The mapping
 * is checked against llvm-mc on every BHive instruction
 * (tests/sched_map_bhive.sh).
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "sched/sched_map.h"
#include "insn_zydis.h"
#include "sched/tables/sched_tables.h"

uint32_t
sched_opcode_find(const char *name)
{
	size_t lo = 1, hi = SCHED_N_OPCODES + 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, sched_opcode_name(mid));

		if (c == 0)
			return (uint32_t)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

/* One visible operand, reduced to what LLVM names encode. */
struct map_op {
	char kind;		/* 'r' register, 'm' memory, 'i' immediate, 'p' pointer */
	bool implicit;		/* part of the opcode (AL/EAX short forms, CL, 1) */
	bool vvvv;		/* encoded in VEX/EVEX.vvvv */
	bool modrm_reg;		/* encoded in ModRM.reg */
	ZydisRegisterClass rclass;
	ZydisRegister reg;
	unsigned size;		/* bits */
	unsigned imm_size;	/* encoded immediate size, bits */
	uint64_t imm;
};

struct map_ctx {
	const ZydisDecodedInstruction *in;
	const ZydisDecodedOperand *full;	/* every operand, hidden ones too */
	struct map_op op[ZYDIS_MAX_OPERAND_COUNT];
	unsigned n;
	char mn[32];		/* upper-case mnemonic */
	struct sched_mapping *out;
};

static bool __attribute__((format(printf, 2, 3)))
try_name(struct map_ctx *c, const char *fmt, ...)
{
	va_list ap;
	uint32_t id;

	va_start(ap, fmt);
	vsnprintf(c->out->tried, sizeof(c->out->tried), fmt, ap);
	va_end(ap);
	id = sched_opcode_find(c->out->tried);
	if (id)
		c->out->opcode = id;
	return id != 0;
}

static bool
is_vector_class(ZydisRegisterClass rc)
{
	return rc == ZYDIS_REGCLASS_XMM || rc == ZYDIS_REGCLASS_YMM ||
	       rc == ZYDIS_REGCLASS_ZMM || rc == ZYDIS_REGCLASS_MMX ||
	       rc == ZYDIS_REGCLASS_MASK;
}

static void
collect_operands(struct map_ctx *c, const ZydisDecodedOperand *ops)
{
	unsigned nimm = 0;

	c->n = 0;
	for (unsigned i = 0; i < c->in->operand_count_visible; i++) {
		const ZydisDecodedOperand *o = &ops[i];
		struct map_op *m = &c->op[c->n++];

		memset(m, 0, sizeof(*m));
		m->implicit = o->visibility == ZYDIS_OPERAND_VISIBILITY_IMPLICIT;
		m->vvvv = o->encoding == ZYDIS_OPERAND_ENCODING_NDSNDD;
		m->modrm_reg = o->encoding == ZYDIS_OPERAND_ENCODING_MODRM_REG;
		m->size = o->size;
		switch (o->type) {
		case ZYDIS_OPERAND_TYPE_REGISTER:
			m->kind = 'r';
			m->reg = o->reg.value;
			m->rclass = ZydisRegisterGetClass(o->reg.value);
			break;
		case ZYDIS_OPERAND_TYPE_MEMORY:
			m->kind = 'm';
			break;
		case ZYDIS_OPERAND_TYPE_IMMEDIATE:
			m->kind = 'i';
			m->imm = o->imm.value.u;
			if (nimm < 2)
				m->imm_size = c->in->raw.imm[nimm++].size;
			break;
		default:
			m->kind = 'p';
			break;
		}
	}
}

static bool
has_vector_operand(const struct map_ctx *c)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->op[i].kind == 'r' && is_vector_class(c->op[i].rclass))
			return true;
	return false;
}

static bool
has_kind(const struct map_ctx *c, char kind)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->op[i].kind == kind)
			return true;
	return false;
}

/* Memory operand size in bits, 0 if none. */
static unsigned
mem_size(const struct map_ctx *c)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->op[i].kind == 'm')
			return c->op[i].size;
	return 0;
}

/* Conditional jumps, calls, returns, set/cmov, NOPs, LEA, push/pop,
 * extensions: families whose LLVM names do not follow the general rule. */
static int
map_special(struct map_ctx *c)
{
	const ZydisDecodedInstruction *in = c->in;
	unsigned w = in->operand_width;
	bool mem = has_kind(c, 'm');

	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		if (in->mnemonic == ZYDIS_MNEMONIC_JRCXZ)
			return try_name(c, "JRCXZ");
		if (in->mnemonic == ZYDIS_MNEMONIC_JECXZ)
			return try_name(c, "JECXZ");
		if (in->mnemonic == ZYDIS_MNEMONIC_LOOP)
			return try_name(c, "LOOP");
		if (in->mnemonic == ZYDIS_MNEMONIC_LOOPE)
			return try_name(c, "LOOPE");
		if (in->mnemonic == ZYDIS_MNEMONIC_LOOPNE)
			return try_name(c, "LOOPNE");
		return try_name(c, "JCC_%d", in->raw.imm[0].size == 8 ? 1 : 4);
	case ZYDIS_CATEGORY_UNCOND_BR:
		if (c->op[0].kind == 'i')
			return try_name(c, "JMP_%d", in->raw.imm[0].size == 8 ? 1 : 4);
		return try_name(c, "JMP64%c", c->op[0].kind);
	case ZYDIS_CATEGORY_CALL:
		if (c->op[0].kind == 'i')
			return try_name(c, "CALL64pcrel32");
		return try_name(c, "CALL64%c", c->op[0].kind);
	case ZYDIS_CATEGORY_RET:
		if (in->mnemonic == ZYDIS_MNEMONIC_RET)
			return c->n ? try_name(c, "RETI64") : try_name(c, "RET64");
		break;
	case ZYDIS_CATEGORY_SETCC:
		return try_name(c, "SETCC%c", mem ? 'm' : 'r');
	case ZYDIS_CATEGORY_CMOV:
		return try_name(c, "CMOV%ur%c", w, mem ? 'm' : 'r');
	case ZYDIS_CATEGORY_STRINGOP: {
		/* MOVSB .. OUTSL by the size of the (hidden) memory
		 * operand; a REP prefix is a flag of the same opcode */
		const char *zm = ZydisMnemonicGetString(in->mnemonic);
		size_t fl = zm ? strlen(zm) - 1 : 0;

		for (unsigned i = 0; i < in->operand_count; i++)
			if (c->full[i].type == ZYDIS_OPERAND_TYPE_MEMORY) {
				unsigned sz = c->full[i].size;
				char fam[8];

				snprintf(fam, sizeof(fam), "%.*s", (int)(fl < 7 ? fl : 7), zm);
				for (char *f = fam; *f; f++)
					*f = (char)toupper((unsigned char)*f);
				return try_name(c, "%s%c", fam, sz == 8 ? 'B' : sz == 16 ? 'W' :
						sz == 32 ? 'L' : 'Q');
			}
		break;
	}
	default:
		break;
	}
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_FWAIT:
		return try_name(c, "WAIT");
	case ZYDIS_MNEMONIC_NOP:
		if (in->opcode == 0x90)
			return try_name(c, "NOOP");
		return try_name(c, "NOOP%s%s", w == 16 ? "W" : w == 64 ? "Q" : "L",
				mem ? "" : "r");
	case ZYDIS_MNEMONIC_LEA:
		if (w == 32 && in->address_width == 64)
			return try_name(c, "LEA64_32r");
		return try_name(c, "LEA%ur", w);
	case ZYDIS_MNEMONIC_MOVZX:
	case ZYDIS_MNEMONIC_MOVSX:
		return try_name(c, "%s%ur%c%u", c->mn, w, c->op[1].kind,
				c->op[1].size);
	case ZYDIS_MNEMONIC_MOVSXD:
		return try_name(c, "MOVSX%ur%c32", w, c->op[1].kind);
	case ZYDIS_MNEMONIC_PUSH:
		if (c->op[0].kind == 'i')
			return try_name(c, "PUSH%ui%u", w == 16 ? 16 : 64,
					in->raw.imm[0].size == 8 ? 8 : w == 16 ? 16 : 32);
		return try_name(c, "PUSH%u%s", w, mem ? "rmm" : "r");
	case ZYDIS_MNEMONIC_POP:
		return try_name(c, "POP%u%s", w, mem ? "rmm" : "r");
	case ZYDIS_MNEMONIC_XCHG:
		if (c->op[0].implicit || c->op[1].implicit)
			return try_name(c, "XCHG%uar", w);
		return try_name(c, "XCHG%ur%c", w, mem ? 'm' : 'r');
	case ZYDIS_MNEMONIC_UD2:
		return try_name(c, "TRAP");
	case ZYDIS_MNEMONIC_CRC32:
		return try_name(c, "CRC32r%u%c%u", c->op[0].size, c->op[1].kind,
				c->op[1].size);
	case ZYDIS_MNEMONIC_XADD:
	case ZYDIS_MNEMONIC_CMPXCHG:
		/* LLVM names the memory forms "rm" although memory is first. */
		return try_name(c, "%s%ur%c", c->mn, w, mem ? 'm' : 'r');
	case ZYDIS_MNEMONIC_MOVD:
	case ZYDIS_MNEMONIC_VMOVD:
	case ZYDIS_MNEMONIC_MOVQ:
	case ZYDIS_MNEMONIC_VMOVQ: {
		const char *v = c->mn[0] == 'V' ? "V" : "";
		bool to_vec = c->op[0].kind == 'r' && c->op[0].rclass == ZYDIS_REGCLASS_XMM;
		bool from_vec = c->op[1].kind == 'r' && c->op[1].rclass == ZYDIS_REGCLASS_XMM;
		bool q = in->mnemonic == ZYDIS_MNEMONIC_MOVQ || in->mnemonic == ZYDIS_MNEMONIC_VMOVQ;

		if (c->op[0].rclass == ZYDIS_REGCLASS_MMX || c->op[1].rclass == ZYDIS_REGCLASS_MMX) {
			bool to_mmx = c->op[0].rclass == ZYDIS_REGCLASS_MMX;
			const struct map_op *o = to_mmx ? &c->op[1] : &c->op[0];

			if (o->rclass == ZYDIS_REGCLASS_MMX || (o->kind == 'm' && q))
				return try_name(c, "MMX_MOVQ64%c%c", c->op[0].kind, c->op[1].kind);
			if (o->rclass == ZYDIS_REGCLASS_GPR64)
				return try_name(c, to_mmx ? "MMX_MOVD64to64rr" : "MMX_MOVD64from64rr");
			return try_name(c, to_mmx ? "MMX_MOVD64r%c" : "MMX_MOVD64%cr", o->kind);
		}
		if (!q) {
			if (to_vec)
				return try_name(c, "%sMOVDI2PDIr%c", v, c->op[1].kind);
			return try_name(c, "%sMOVPDI2DI%cr", v, c->op[0].kind);
		}
		if (to_vec && from_vec) {
			if (in->opcode == 0xD6)
				return try_name(c, "%sMOVPQI2QIrr", v);
			return try_name(c, "%sMOVZPQILo2PQIrr", v);
		}
		if (to_vec) {
			if (c->op[1].kind == 'r')
				return try_name(c, "%sMOV64toPQIrr", v);
			if (in->opcode == 0x6E)
				return try_name(c, "%sMOV64toPQIrm", v);
			return try_name(c, "%sMOVQI2PQIrm", v);
		}
		if (c->op[0].kind == 'r')
			return try_name(c, "%sMOVPQIto64rr", v);
		if (in->opcode == 0x7E)
			return try_name(c, "%sMOVPQIto64mr", v);
		return try_name(c, "%sMOVPQI2QImr", v);
	}
	default:
		break;
	}
	return -1;	/* not special */
}

/* x87: LLVM's names (LD_F64m, ADD_F32m, ST_FP80m, XCH_F ...). */
static bool
map_x87(struct map_ctx *c)
{
	static const struct {
		ZydisMnemonic mn;
		const char *m, *r;	/* memory form prefix, register form */
	} tab[] = {
		{ ZYDIS_MNEMONIC_FLD, "LD_F", "LD_Frr" },
		{ ZYDIS_MNEMONIC_FST, "ST_F", "ST_Frr" },
		{ ZYDIS_MNEMONIC_FSTP, "ST_FP", "ST_FPrr" },
		{ ZYDIS_MNEMONIC_FILD, "ILD_F", NULL },
		{ ZYDIS_MNEMONIC_FISTP, "IST_FP", NULL },
		{ ZYDIS_MNEMONIC_FIST, "IST_F", NULL },
		{ ZYDIS_MNEMONIC_FISTTP, "ISTT_FP", NULL },
		{ ZYDIS_MNEMONIC_FADD, "ADD_F", "ADD_FST0r" },
		{ ZYDIS_MNEMONIC_FSUB, "SUB_F", "SUB_FST0r" },
		{ ZYDIS_MNEMONIC_FSUBR, "SUBR_F", "SUBR_FST0r" },
		{ ZYDIS_MNEMONIC_FMUL, "MUL_F", "MUL_FST0r" },
		{ ZYDIS_MNEMONIC_FDIV, "DIV_F", "DIV_FST0r" },
		{ ZYDIS_MNEMONIC_FDIVR, "DIVR_F", "DIVR_FST0r" },
		{ ZYDIS_MNEMONIC_FADDP, NULL, "ADD_FPrST0" },
		{ ZYDIS_MNEMONIC_FSUBP, NULL, "SUB_FPrST0" },
		{ ZYDIS_MNEMONIC_FSUBRP, NULL, "SUBR_FPrST0" },
		{ ZYDIS_MNEMONIC_FMULP, NULL, "MUL_FPrST0" },
		{ ZYDIS_MNEMONIC_FDIVP, NULL, "DIV_FPrST0" },
		{ ZYDIS_MNEMONIC_FDIVRP, NULL, "DIVR_FPrST0" },
		{ ZYDIS_MNEMONIC_FXCH, NULL, "XCH_F" },
		{ ZYDIS_MNEMONIC_FLDZ, NULL, "LD_F0" },
		{ ZYDIS_MNEMONIC_FLD1, NULL, "LD_F1" },
		{ ZYDIS_MNEMONIC_FCHS, NULL, "CHS_F" },
		{ ZYDIS_MNEMONIC_FABS, NULL, "ABS_F" },
		{ ZYDIS_MNEMONIC_FUCOMI, NULL, "UCOM_FIr" },
		{ ZYDIS_MNEMONIC_FUCOMIP, NULL, "UCOM_FIPr" },
		{ ZYDIS_MNEMONIC_FCOMI, NULL, "COM_FIr" },
		{ ZYDIS_MNEMONIC_FCOMIP, NULL, "COM_FIPr" },
		{ ZYDIS_MNEMONIC_FNSTCW, "FNSTCW16m", NULL },
		{ ZYDIS_MNEMONIC_FLDCW, "FLDCW16m", NULL },
	};
	unsigned msz = mem_size(c);

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (tab[i].mn != c->in->mnemonic)
			continue;
		if (msz && tab[i].m) {
			if (strchr(tab[i].m, 'm'))
				return try_name(c, "%s", tab[i].m);
			return try_name(c, "%s%um", tab[i].m, msz);
		}
		if (!msz && tab[i].r)
			return try_name(c, "%s", tab[i].r);
	}
	return false;
}

/* Immediate suffixes to try for an operation of width w, best first. */
static int
imm_suffixes(const struct map_op *o, unsigned w, const char *out[3])
{
	int n = 0;

	if (o->imm_size == 8 && w > 8)
		out[n++] = "i8";
	if (w == 64 && o->imm_size == 32)
		out[n++] = "i32";
	out[n++] = "i";
	return n;
}

/* General-purpose forms: MN + width + operand kinds. */
static bool
map_gpr(struct map_ctx *c)
{
	const ZydisDecodedInstruction *in = c->in;
	unsigned w = in->operand_width;
	char base[64], form[16];
	size_t fl = 0;
	const struct map_op *imm = NULL;
	bool acc = false, vvvv_any = false;

	snprintf(base, sizeof(base), "%s%u", c->mn, w);
	for (unsigned i = 0; i < c->n; i++) {
		const struct map_op *o = &c->op[i];

		if (o->kind == 'r' && o->implicit) {
			if (o->reg == ZYDIS_REGISTER_CL) {
				form[fl++] = 'C';
				form[fl++] = 'L';
			} else {
				acc = true;
			}
			continue;
		}
		if (o->kind == 'i' && o->implicit) {
			form[fl++] = '1';
			continue;
		}
		if (o->kind == 'i') {
			imm = o;
			continue;
		}
		vvvv_any |= o->vvvv;
		form[fl++] = o->kind;
	}
	form[fl] = '\0';
	if (acc && imm)
		return try_name(c, "%si%u", base, w > 32 ? 32 : w);
	if (imm) {
		const char *suf[3];
		int ns = imm_suffixes(imm, w, suf);

		if ((in->opcode == 0xC6 || in->opcode == 0xC7) && strcmp(form, "r") == 0 &&
		    try_name(c, "%sri_alt", base))
			return true;
		for (int i = 0; i < ns; i++)
			if (try_name(c, "%s%s%s", base, form, suf[i]))
				return true;
		return false;
	}
	if (strcmp(form, "rr") == 0 && c->op[0].modrm_reg &&
	    try_name(c, "%srr_REV", base))
		return true;
	if (vvvv_any) {
		char f2[16];
		size_t k = 0;

		for (unsigned i = 0; i < c->n; i++)
			if (!c->op[i].vvvv && !c->op[i].implicit)
				f2[k++] = c->op[i].kind == 'i' ? 'i' : c->op[i].kind;
		f2[k] = '\0';
		if (try_name(c, "%s%s", base, f2))
			return true;
	}
	if (try_name(c, "%s%s", base, form))
		return true;
	/* Width-less names: CDQE, PAUSE, XGETBV, BSWAP32r ... */
	if (try_name(c, "%s%s", c->mn, form))
		return true;
	return try_name(c, "%s", c->mn);
}

/* Scalar compares that LLVM's disassembler gives the plain (non-_Int)
 * name although an _Int twin exists. */
static bool
no_int_form(const char *mn)
{
	return strstr(mn, "UCOMIS") || strstr(mn, "COMIS");
}

/* SSE/AVX forms: MN + vector-length tag + operand kinds (+ _Int). */
static bool
map_vector(struct map_ctx *c)
{
	const ZydisDecodedInstruction *in = c->in;
	char mn[40], forms[4][16];
	const char *tag = "", *mask = "";
	int nf = 0;
	size_t k;
	bool mmx = false;

	snprintf(mn, sizeof(mn), "%s", c->mn);
	for (unsigned i = 0; i < c->n; i++)
		mmx |= c->op[i].kind == 'r' && c->op[i].rclass == ZYDIS_REGCLASS_MMX;
	if (mmx)
		snprintf(mn, sizeof(mn), "MMX_%s", c->mn);
	/* cvtsi2sd xmm, r64 is CVTSI642SD; cvttsd2si r64, xmm is CVTTSD2SI64. */
	if (strstr(mn, "SI2S")) {
		const struct map_op *src = &c->op[c->n - 1];

		if (src->size == 64) {
			char *p = strstr(mn, "SI2S");
			char tail[32];

			snprintf(tail, sizeof(tail), "%s", p + 2);
			snprintf(p, sizeof(mn) - (size_t)(p - mn), "SI64%s", tail);
		}
	} else if (strstr(mn, "2SI") && c->op[0].kind == 'r' &&
		   c->op[0].rclass == ZYDIS_REGCLASS_GPR64) {
		strncat(mn, "64", sizeof(mn) - strlen(mn) - 1);
	}
	if (in->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX)
		tag = in->avx.vector_length == 512 ? "Z" :
		      in->avx.vector_length == 256 ? "Z256" : "Z128";
	else if (in->encoding == ZYDIS_INSTRUCTION_ENCODING_VEX && in->avx.vector_length == 256)
		tag = "Y";

	/* An EVEX write mask is named by a suffix (VADDPSZrrk, ...rrkz). */
	if (in->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX && c->n >= 2 &&
	    c->op[1].kind == 'r' && c->op[1].rclass == ZYDIS_REGCLASS_MASK) {
		if (c->op[1].reg != ZYDIS_REGISTER_K0)
			mask = in->avx.mask.mode == ZYDIS_MASK_MODE_ZEROING ? "kz" : "k";
		memmove(&c->op[1], &c->op[2], (c->n - 2) * sizeof(c->op[0]));
		c->n--;
	}
	/* Form candidates: without the vvvv operand (AVX's extra source),
	 * every operand, the last source only (+ immediate). */
	k = 0;
	for (unsigned i = 0; i < c->n; i++)
		if (!c->op[i].vvvv)
			forms[nf][k++] = c->op[i].kind;
	forms[nf++][k] = '\0';
	k = 0;
	for (unsigned i = 0; i < c->n; i++)
		forms[nf][k++] = c->op[i].kind;
	forms[nf++][k] = '\0';
	k = 0;
	for (int i = (int)c->n - 1; i >= 0; i--) {
		if (c->op[i].kind != 'i') {
			forms[nf][k++] = c->op[i].kind;
			break;
		}
	}
	if (c->n && c->op[c->n - 1].kind == 'i')
		forms[nf][k++] = 'i';
	forms[nf++][k] = '\0';
	k = 0;
	for (unsigned i = 0; i < c->n; i++)
		if (!c->op[i].vvvv && c->op[i].kind != 'i')
			forms[nf][k++] = c->op[i].kind;
	forms[nf++][k] = '\0';

	/* The vector-length tag, then (scalar EVEX forms, VADDSSZrr) Z alone,
	 * then none. */
	for (int t = 0; t < 3; t++) {
		const char *tg = t == 2 ? "" : t == 1 ? "Z" : tag;

		if (t == 1 && strcmp(tag, "Z128") != 0)
			continue;
		if (t == 2 && !*tag)
			break;
		for (int f = 0; f < nf; f++) {
			if (strcmp(forms[f], "rr") == 0 && c->n >= 2 && !c->op[0].modrm_reg &&
			    !c->op[0].vvvv && try_name(c, "%s%s%s_REV", mn, tg, forms[f]))
				return true;
			if (!no_int_form(mn) && try_name(c, "%s%s%s%s_Int", mn, tg, forms[f], mask))
				return true;
			if (*mask && !no_int_form(mn) &&
			    try_name(c, "%s%s%s_Int%s", mn, tg, forms[f], mask))
				return true;
			if (try_name(c, "%s%s%s%s", mn, tg, forms[f], mask))
				return true;
		}
	}
	return try_name(c, "%s%s", mn, tag);
}

/* Same register in both source operands of an idiom-capable operation. */
static bool
same_sources(const struct map_ctx *c)
{
	if (c->n == 2)
		return c->op[0].kind == 'r' && c->op[1].kind == 'r' &&
		       c->op[0].reg == c->op[1].reg;
	if (c->n == 3)
		return c->op[1].kind == 'r' && c->op[2].kind == 'r' &&
		       c->op[1].reg == c->op[2].reg;
	return false;
}

static void
classify_idiom(struct map_ctx *c)
{
	static const char *const zero[] = {
		"XOR", "SUB", "PXOR", "XORPS", "XORPD", "PSUBB", "PSUBW", "PSUBD",
		"PSUBQ", "PCMPGTB", "PCMPGTW", "PCMPGTD", "PCMPGTQ", "PANDN",
		"ANDNPS", "ANDNPD", "PSUBSB", "PSUBSW", "PSUBUSB", "PSUBUSW",
	};
	static const char *const dep[] = {
		"PCMPEQB", "PCMPEQW", "PCMPEQD", "PCMPEQQ", "SBB",
	};
	const char *mn = c->mn;

	if (!same_sources(c))
		return;
	c->out->same_sources = 1;
	if (mn[0] == 'V' && strcmp(mn, "VZEROALL") != 0)
		mn++;
	for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		if (strcmp(mn, zero[i]) == 0)
			c->out->zero_idiom = c->out->dep_breaking = 1;
	for (size_t i = 0; i < sizeof(dep) / sizeof(dep[0]); i++)
		if (strcmp(mn, dep[i]) == 0)
			c->out->dep_breaking = 1;
}

int
sched_map(const uint8_t *bytes, size_t n, struct sched_mapping *out)
{
	struct insn_zydis z;

	if (insn_zydis_decode(bytes, n, &z) < 0) {
		memset(out, 0, sizeof(*out));
		snprintf(out->tried, sizeof(out->tried), "(undecodable)");
		return -1;
	}
	return sched_map_zydis(&z, out);
}

/*
 * The last resort for a form the rules above do not name: the opcode
 * whose LLVM 14 AT&T mnemonic is the instruction's (with or without its
 * size suffix) and whose name ends in the operands' kinds (OUT8rr for
 * `out %al, %dx`), preferring names with the operand width.
 */
static bool
map_by_mnemonic(struct map_ctx *c)
{
	const char *zm = ZydisMnemonicGetString(c->in->mnemonic);
	unsigned w = c->in->operand_width;
	char want[2][24], form[16], wstr[8];
	size_t fl = 0;
	uint32_t best = 0;
	int best_score = -1;

	if (!zm)
		return false;
	snprintf(want[0], sizeof(want[0]), "%s", zm);
	snprintf(want[1], sizeof(want[1]), "%s%c", zm, w == 8 ? 'b' : w == 16 ? 'w' :
		 w == 64 ? 'q' : 'l');
	for (unsigned i = 0; i < c->n && fl + 1 < sizeof(form); i++)
		if (!c->op[i].implicit)
			form[fl++] = c->op[i].kind == 'p' ? 'i' : c->op[i].kind;
	form[fl] = '\0';
	/* the width in the name is the first register's when there is one */
	for (unsigned i = 0; i < c->n; i++)
		if (c->op[i].kind == 'r' && c->op[i].size) {
			w = c->op[i].size;
			break;
		}
	snprintf(wstr, sizeof(wstr), "%u", w);
	for (uint32_t id = 1; id <= SCHED_N_OPCODES; id++) {
		const char *m = sched_mnemonic(id, 0), *name;
		size_t ml = strcspn(m, " ");
		int score = 0;
		bool match = false;

		for (unsigned k = 0; k < 2 && !match; k++)
			match = strlen(want[k]) == ml && strncmp(m, want[k], ml) == 0;
		if (!match)
			continue;
		name = sched_opcode_name(id);
		if (strstr(name, "_REV") || strstr(name, "_alt") || strstr(name, "_NF") ||
		    strstr(name, "_ND") || strstr(name, "_EVEX"))
			continue;
		if (fl) {
			size_t nl = strlen(name);
			const char *tail = name + nl;

			/* the kinds at the end of the name, an immediate's
			 * size after them (a name without them, RDPID64,
			 * is the last choice) */
			while (tail > name && isdigit((unsigned char)tail[-1]))
				tail--;
			if ((size_t)(tail - name) >= fl && strncmp(tail - fl, form, fl) == 0)
				score += 4;
		}
		if (strstr(name, wstr))
			score += 2;
		if (score > best_score) {
			best_score = score;
			best = id;
		}
	}
	if (!best)
		return false;
	c->out->opcode = best;
	return true;
}

int
sched_map_zydis(const struct insn_zydis *z, struct sched_mapping *out)
{
	const ZydisDecodedInstruction *const inp = &z->in;
	const ZydisDecodedOperand *const ops = z->ops;
	struct map_ctx c;
	const char *s;
	int r;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.in = inp;
	c.full = ops;
	c.out = out;
	s = ZydisMnemonicGetString(inp->mnemonic);
	for (size_t i = 0; s && s[i] && i + 1 < sizeof(c.mn); i++)
		c.mn[i] = (char)toupper((unsigned char)s[i]);
	collect_operands(&c, ops);
	out->lock = (inp->attributes & ZYDIS_ATTRIB_HAS_LOCK) != 0;
	classify_idiom(&c);

	r = map_special(&c);
	if (r >= 0)
		return r || map_by_mnemonic(&c) ? 0 : -1;
	if (inp->meta.isa_set == ZYDIS_ISA_SET_X87)
		return map_x87(&c) || map_by_mnemonic(&c) ? 0 : -1;
	if (has_vector_operand(&c) || inp->meta.isa_set == ZYDIS_ISA_SET_SSE ||
	    inp->meta.isa_set == ZYDIS_ISA_SET_SSE2 || inp->meta.isa_set == ZYDIS_ISA_SET_SSE3 ||
	    inp->meta.isa_set == ZYDIS_ISA_SET_SSSE3 || inp->meta.isa_set == ZYDIS_ISA_SET_SSE4 ||
	    inp->meta.isa_set == ZYDIS_ISA_SET_AVX || inp->meta.isa_set == ZYDIS_ISA_SET_AVX2) {
		if (map_vector(&c))
			return 0;
		/* (P)BLENDV with XMM0 implicit: PBLENDVBrr0, BLENDVPSrm0 */
		if (c.n == 2 && (inp->mnemonic == ZYDIS_MNEMONIC_PBLENDVB ||
				 inp->mnemonic == ZYDIS_MNEMONIC_BLENDVPS ||
				 inp->mnemonic == ZYDIS_MNEMONIC_BLENDVPD) &&
		    try_name(&c, "%sr%c0", c.mn, c.op[1].kind))
			return 0;
		return map_by_mnemonic(&c) ? 0 : -1;
	}
	return map_gpr(&c) || map_by_mnemonic(&c) ? 0 : -1;
}
