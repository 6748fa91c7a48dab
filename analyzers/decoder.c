/*
 * The decoder: Zydis 4 decodes the bytes once per address into a
 * struct insn_info; insn_eval() turns that plus a register snapshot into an
 * event (effective addresses, branch outcome, REP state).
 *
 * Zydis describes implicit memory operands (stack, string, XLAT) as
 * hidden operands whose formula is not always the effective address: a
 * push's store is listed as [rsp], not [rsp-8].  Those are corrected here
 * so that every template is a plain seg + base + index*scale + disp.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "decoder.h"
#include "insn_zydis.h"
#include "iclass.h"

#define N_REGS (ZYDIS_REGISTER_MAX_VALUE + 1)

/* What the decoder needs to know about each register, built once. */
struct reg_desc {
	int16_t off;		/* offset in user_regs_struct, -1 if not there */
	uint8_t bytes;		/* width in bytes (GPRs) */
	uint8_t high8;		/* AH, BH, CH, DH */
	uint8_t mica;		/* kept by MICA's register filter (mica.md §1.3) */
	uint8_t vec;		/* XMM/YMM/ZMM: 1 + register number */
	reg_id full;		/* largest enclosing register */
};

static struct reg_desc regs_desc[N_REGS];
static ZydisDecoder zdecoder;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

#define UOFF(field) ((int16_t)offsetof(struct user_regs_struct, field))

static int16_t
gpr64_offset(ZydisRegister r)
{
	switch (r) {
	case ZYDIS_REGISTER_RAX: return UOFF(rax);
	case ZYDIS_REGISTER_RCX: return UOFF(rcx);
	case ZYDIS_REGISTER_RDX: return UOFF(rdx);
	case ZYDIS_REGISTER_RBX: return UOFF(rbx);
	case ZYDIS_REGISTER_RSP: return UOFF(rsp);
	case ZYDIS_REGISTER_RBP: return UOFF(rbp);
	case ZYDIS_REGISTER_RSI: return UOFF(rsi);
	case ZYDIS_REGISTER_RDI: return UOFF(rdi);
	case ZYDIS_REGISTER_R8: return UOFF(r8);
	case ZYDIS_REGISTER_R9: return UOFF(r9);
	case ZYDIS_REGISTER_R10: return UOFF(r10);
	case ZYDIS_REGISTER_R11: return UOFF(r11);
	case ZYDIS_REGISTER_R12: return UOFF(r12);
	case ZYDIS_REGISTER_R13: return UOFF(r13);
	case ZYDIS_REGISTER_R14: return UOFF(r14);
	case ZYDIS_REGISTER_R15: return UOFF(r15);
	case ZYDIS_REGISTER_RIP: return UOFF(rip);
	default: return -1;
	}
}

static void
init_tables(void)
{
	ZydisDecoderInit(&zdecoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (unsigned i = 1; i < N_REGS; i++) {
		ZydisRegister r = (ZydisRegister)i;
		ZydisRegisterClass cls = ZydisRegisterGetClass(r);
		ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
		struct reg_desc *d = &regs_desc[i];

		d->off = -1;
		d->full = (reg_id)(full != ZYDIS_REGISTER_NONE ? full : r);
		switch (cls) {
		case ZYDIS_REGCLASS_GPR8:
		case ZYDIS_REGCLASS_GPR16:
		case ZYDIS_REGCLASS_GPR32:
		case ZYDIS_REGCLASS_GPR64:
			d->mica = 1;
			d->off = gpr64_offset(full);
			d->bytes = (uint8_t)(ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, r) / 8);
			d->high8 = r == ZYDIS_REGISTER_AH || r == ZYDIS_REGISTER_BH ||
				   r == ZYDIS_REGISTER_CH || r == ZYDIS_REGISTER_DH;
			break;
		case ZYDIS_REGCLASS_XMM:
		case ZYDIS_REGCLASS_YMM:
		case ZYDIS_REGCLASS_ZMM:
			d->mica = 1;
			d->vec = (uint8_t)(1 + ZydisRegisterGetId(r));
			break;
		case ZYDIS_REGCLASS_MMX:
		case ZYDIS_REGCLASS_X87:
		case ZYDIS_REGCLASS_MASK:
			d->mica = 1;
			break;
		case ZYDIS_REGCLASS_IP:
			d->off = gpr64_offset(full);
			d->bytes = (uint8_t)(ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, r) / 8);
			break;
		default:
			/* x87 control/status/tag and MXCSR are in Pin 3's
			 * floating-point class; flags, segments, control and
			 * debug registers are not kept. */
			d->mica = r == ZYDIS_REGISTER_X87CONTROL || r == ZYDIS_REGISTER_X87STATUS ||
				  r == ZYDIS_REGISTER_X87TAG || r == ZYDIS_REGISTER_MXCSR;
			break;
		}
	}
}

static inline void
ensure_init(void)
{
	pthread_once(&init_once, init_tables);
}

bool
reg_value(const struct user_regs_struct *regs, reg_id reg, uint64_t *value)
{
	const struct reg_desc *d;
	uint64_t v;

	ensure_init();
	if (reg == ZYDIS_REGISTER_FS) {
		*value = regs->fs_base;
		return true;
	}
	if (reg == ZYDIS_REGISTER_GS) {
		*value = regs->gs_base;
		return true;
	}
	if (reg == 0 || reg >= N_REGS || regs_desc[reg].off < 0)
		return false;
	d = &regs_desc[reg];
	memcpy(&v, (const char *)regs + d->off, sizeof(v));
	if (d->high8)
		v >>= 8;
	if (d->bytes < 8)
		v &= (1ULL << (8 * d->bytes)) - 1;
	*value = v;
	return true;
}

const char *
reg_name(reg_id reg)
{
	const char *s = ZydisRegisterGetString((ZydisRegister)reg);

	return s ? s : "?";
}

static void
add_reg(reg_id *list, uint8_t *n, uint32_t *flags, reg_id r)
{
	for (unsigned i = 0; i < *n; i++)
		if (list[i] == r)
			return;
	if (*n >= INSN_MAX_REGS) {
		*flags |= INSN_REGS_TRUNCATED;
		return;
	}
	list[(*n)++] = r;
}

/* Classify one register read or write into the MICA lists or the side
 * fields (RIP, segments); flags come from Zydis's cpu_flags instead. */
static void
note_reg(struct insn_info *ii, ZydisRegister r, bool read, bool write)
{
	ZydisRegisterClass cls;

	if (r == ZYDIS_REGISTER_NONE)
		return;
	if (regs_desc[r].mica) {
		if (read)
			add_reg(ii->regs_read, &ii->n_regs_read, &ii->flags, (reg_id)r);
		if (write)
			add_reg(ii->regs_written, &ii->n_regs_written, &ii->flags, (reg_id)r);
		return;
	}
	cls = ZydisRegisterGetClass(r);
	if (cls == ZYDIS_REGCLASS_IP) {
		ii->reads_rip |= read;
		ii->writes_rip |= write;
	} else if (cls == ZYDIS_REGCLASS_SEGMENT && read && ii->n_seg_read < 2) {
		if (ii->n_seg_read == 0 || ii->seg_read[0] != r)
			ii->seg_read[ii->n_seg_read++] = (reg_id)r;
	}
}

static void
fold_full(const reg_id *src, uint8_t n, reg_id *dst, uint8_t *nd, uint32_t *flags)
{
	*nd = 0;
	for (unsigned i = 0; i < n; i++)
		add_reg(dst, nd, flags, regs_desc[src[i]].full);
}

static uint8_t
cond_of(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_JO: return COND_O;
	case ZYDIS_MNEMONIC_JNO: return COND_NO;
	case ZYDIS_MNEMONIC_JB: return COND_B;
	case ZYDIS_MNEMONIC_JNB: return COND_NB;
	case ZYDIS_MNEMONIC_JZ: return COND_Z;
	case ZYDIS_MNEMONIC_JNZ: return COND_NZ;
	case ZYDIS_MNEMONIC_JBE: return COND_BE;
	case ZYDIS_MNEMONIC_JNBE: return COND_NBE;
	case ZYDIS_MNEMONIC_JS: return COND_S;
	case ZYDIS_MNEMONIC_JNS: return COND_NS;
	case ZYDIS_MNEMONIC_JP: return COND_P;
	case ZYDIS_MNEMONIC_JNP: return COND_NP;
	case ZYDIS_MNEMONIC_JL: return COND_L;
	case ZYDIS_MNEMONIC_JNL: return COND_NL;
	case ZYDIS_MNEMONIC_JLE: return COND_LE;
	case ZYDIS_MNEMONIC_JNLE: return COND_NLE;
	case ZYDIS_MNEMONIC_JCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_JRCXZ: return COND_CXZ;
	case ZYDIS_MNEMONIC_LOOP: return COND_LOOP;
	case ZYDIS_MNEMONIC_LOOPE: return COND_LOOPE;
	case ZYDIS_MNEMONIC_LOOPNE: return COND_LOOPNE;
	default: return COND_XBEGIN;	/* XBEGIN, XEND: never modelled as taken */
	}
}

bool
insn_cond_holds(uint8_t cond, uint64_t rflags, uint64_t count)
{
	bool cf = rflags & (1u << 0), pf = rflags & (1u << 2), zf = rflags & (1u << 6);
	bool sf = rflags & (1u << 7), of = rflags & (1u << 11);

	switch (cond) {
	case COND_O: return of;
	case COND_NO: return !of;
	case COND_B: return cf;
	case COND_NB: return !cf;
	case COND_Z: return zf;
	case COND_NZ: return !zf;
	case COND_BE: return cf || zf;
	case COND_NBE: return !cf && !zf;
	case COND_S: return sf;
	case COND_NS: return !sf;
	case COND_P: return pf;
	case COND_NP: return !pf;
	case COND_L: return sf != of;
	case COND_NL: return sf == of;
	case COND_LE: return zf || sf != of;
	case COND_NLE: return !zf && sf == of;
	case COND_CXZ: return count == 0;
	case COND_LOOP: return count - 1 != 0;
	case COND_LOOPE: return count - 1 != 0 && zf;
	case COND_LOOPNE: return count - 1 != 0 && !zf;
	default: return false;
	}
}

static bool
is_push_like(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_PUSHF:
	case ZYDIS_MNEMONIC_PUSHFD:
	case ZYDIS_MNEMONIC_PUSHFQ:
	case ZYDIS_MNEMONIC_CALL:
		return true;
	default:
		return false;
	}
}

/* The index element size (bytes) of a gather/scatter, from its mnemonic:
 * vpgather[d|q]d, vgather[d|q]ps, vgatherpf0[d|q]ps, vpscatter[d|q]q ... */
static uint8_t
vsib_index_size(ZydisMnemonic m)
{
	const char *s = ZydisMnemonicGetString(m);
	const char *p;

	if (!s)
		return 4;
	p = strstr(s, "gather");
	if (p)
		p += 6;
	else if ((p = strstr(s, "scatter")))
		p += 7;
	else
		return 4;
	if (p[0] == 'p' && p[1] == 'f')
		p += 3;
	return *p == 'q' ? 8 : 4;
}

static void
add_template(struct insn_info *ii, const struct mem_template *t)
{
	if (ii->n_mem >= INSN_MAX_MEMOPS) {
		ii->flags |= INSN_REGS_TRUNCATED;
		return;
	}
	ii->mem[ii->n_mem++] = *t;
}

/* ENTER imm16, L: push rbp; L-1 frame pointers copied from [rbp-8i]; then
 * the new frame pointer itself when L > 0. */
static void
enter_templates(struct insn_info *ii, unsigned level)
{
	struct mem_template t = {
		.base = ZYDIS_REGISTER_RSP, .size = 8, .dir = MEM_WRITE,
		.flags = MEMF_IMPLICIT, .disp = -8,
	};

	level &= 31;
	add_template(ii, &t);
	for (unsigned i = 1; i < level; i++) {
		struct mem_template r = {
			.base = ZYDIS_REGISTER_RBP, .size = 8, .dir = MEM_READ,
			.flags = MEMF_IMPLICIT, .disp = -8 * (int64_t)i,
		};

		add_template(ii, &r);
		t.disp = -8 - 8 * (int64_t)i;
		add_template(ii, &t);
	}
	if (level > 0) {
		t.disp = -8 - 8 * (int64_t)level;
		add_template(ii, &t);
	}
}

static bool
is_compare_string(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_CMPSB:
	case ZYDIS_MNEMONIC_CMPSW:
	case ZYDIS_MNEMONIC_CMPSD:
	case ZYDIS_MNEMONIC_CMPSQ:
	case ZYDIS_MNEMONIC_SCASB:
	case ZYDIS_MNEMONIC_SCASW:
	case ZYDIS_MNEMONIC_SCASD:
	case ZYDIS_MNEMONIC_SCASQ:
		return true;
	default:
		return false;
	}
}

static bool
is_far_transfer(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_RET:
		return in->opcode == 0xca || in->opcode == 0xcb;
	case ZYDIS_MNEMONIC_CALL:
	case ZYDIS_MNEMONIC_JMP:
		return ops[0].type == ZYDIS_OPERAND_TYPE_POINTER ||
		       (ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY &&
			(ops[0].size == 48 || ops[0].size == 80 || ops[0].size == 32 + 16));
	default:
		return false;
	}
}

static void
memory_operand(struct insn_info *ii, const ZydisDecodedInstruction *in,
	       const ZydisDecodedOperand *op, const ZydisDecodedOperand *ops)
{
	const ZydisDecodedOperandMem *m = &op->mem;
	struct mem_template t = { 0 };
	bool read = op->actions & (ZYDIS_OPERAND_ACTION_READ | ZYDIS_OPERAND_ACTION_CONDREAD);
	bool write = op->actions & (ZYDIS_OPERAND_ACTION_WRITE | ZYDIS_OPERAND_ACTION_CONDWRITE);

	/* Address registers are read whether or not memory is accessed. */
	note_reg(ii, m->base, true, false);
	if (m->type != ZYDIS_MEMOP_TYPE_VSIB)
		note_reg(ii, m->index, true, false);
	else
		add_reg(ii->regs_read, &ii->n_regs_read, &ii->flags, (reg_id)m->index);
	if (m->segment == ZYDIS_REGISTER_FS || m->segment == ZYDIS_REGISTER_GS)
		note_reg(ii, m->segment, true, false);

	/* LEA computes an address; NOPs and BNDLDX-style MIB operands touch
	 * nothing. */
	if (m->type == ZYDIS_MEMOP_TYPE_AGEN || m->type == ZYDIS_MEMOP_TYPE_MIB ||
	    in->meta.category == ZYDIS_CATEGORY_NOP || in->meta.category == ZYDIS_CATEGORY_WIDENOP)
		return;
	if (!read && !write)
		return;

	t.base = (reg_id)m->base;
	t.index = (reg_id)m->index;
	t.scale = m->index != ZYDIS_REGISTER_NONE ? m->scale : 0;
	t.disp = m->disp.has_displacement ? m->disp.value : 0;
	t.seg = (m->segment == ZYDIS_REGISTER_FS || m->segment == ZYDIS_REGISTER_GS)
		? (reg_id)m->segment : 0;
	t.size = (uint16_t)((op->size + 7) / 8);
	t.dir = (uint8_t)((read ? MEM_READ : 0) | (write ? MEM_WRITE : 0));
	if (op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN)
		t.flags |= MEMF_IMPLICIT;
	if (in->meta.category == ZYDIS_CATEGORY_PREFETCH) {
		t.flags |= MEMF_PREFETCH;
		t.size = 1;
		t.dir = MEM_READ;
	}

	if (m->type == ZYDIS_MEMOP_TYPE_VSIB) {
		t.vsib = 1;
		t.flags |= MEMF_ELEMENT;
		t.index_elem_size = vsib_index_size(in->mnemonic);
		/* Element count: the data register's; the mask: a k register
		 * (EVEX) or the vector operand that is both read and written
		 * (VEX). */
		for (unsigned i = 0; i < in->operand_count; i++) {
			const ZydisDecodedOperand *o = &ops[i];
			ZydisRegisterClass cls;

			if (o->type != ZYDIS_OPERAND_TYPE_REGISTER)
				continue;
			cls = ZydisRegisterGetClass(o->reg.value);
			if (cls == ZYDIS_REGCLASS_MASK) {
				t.mask = (reg_id)o->reg.value;
			} else if (cls == ZYDIS_REGCLASS_XMM || cls == ZYDIS_REGCLASS_YMM ||
				   cls == ZYDIS_REGCLASS_ZMM) {
				bool is_mask = in->encoding == ZYDIS_INSTRUCTION_ENCODING_VEX &&
					       (o->actions & ZYDIS_OPERAND_ACTION_WRITE) &&
					       (o->actions & ZYDIS_OPERAND_ACTION_READ) &&
					       i > 0;

				if (is_mask)
					t.mask = (reg_id)o->reg.value;
				else if (!t.elem_count || o->element_count < t.elem_count)
					t.elem_count = (uint8_t)o->element_count;
			}
		}
		if (t.elem_count > EV_MAX_MEM)
			t.elem_count = EV_MAX_MEM;
	}

	/* Zydis lists the stack slot of a push-like instruction as [rsp]; the
	 * store goes below it. */
	if ((t.flags & MEMF_IMPLICIT) && t.base == ZYDIS_REGISTER_RSP && write && !read &&
	    is_push_like(in->mnemonic))
		t.disp = -(int64_t)t.size;
	/* pop [rsp+d]: the destination address uses RSP after the pop. */
	if (in->mnemonic == ZYDIS_MNEMONIC_POP && !(t.flags & MEMF_IMPLICIT) &&
	    t.base == ZYDIS_REGISTER_RSP)
		t.disp += in->operand_width / 8;
	/* XLAT reads [rbx + al]. */
	if (in->mnemonic == ZYDIS_MNEMONIC_XLAT) {
		t.index = ZYDIS_REGISTER_AL;
		t.scale = 1;
		note_reg(ii, ZYDIS_REGISTER_AL, true, false);
	}
	add_template(ii, &t);
}

/*
 * Implicit register effects that Zydis 4.0 leaves out:
 *  - string instructions advance the pointer register of every string
 *    operand (SDM CMPS/SCAS/INS/OUTS: RSI/RDI are incremented or
 *    decremented; Zydis lists them as read only);
 *  - SSE/AVX instructions that can raise SIMD floating-point exceptions
 *    (exception types 2 and 3) read MXCSR (rounding control, masks), as XED
 *    lists it (mica.md §1.3); like XED, the sticky status bits are not
 *    modelled as a write, which would chain every FP operation;
 *  - FNSTCW/FNSTENV read and FLDCW/FLDENV write the x87 control word,
 *    FNSTSW stores (reads) the status word.
 */
static void
implicit_reg(struct insn_info *ii, const ZydisDecodedInstruction *in,
	     const ZydisDecodedOperand *ops, ZydisRegister r, bool read, bool write)
{
	bool listed = false;

	for (unsigned i = 0; i < in->operand_count; i++)
		listed |= ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[i].reg.value == r;
	/* XED lists these as suppressed operands: Pin counts them in
	 * regOperandCount (mica.md §1.2). */
	if (!listed)
		ii->reg_operand_count++;
	note_reg(ii, r, read, write);
}

static void
implicit_regs(struct insn_info *ii, const ZydisDecodedInstruction *in,
	      const ZydisDecodedOperand *ops)
{
	if (in->meta.category == ZYDIS_CATEGORY_STRINGOP ||
	    in->meta.category == ZYDIS_CATEGORY_IOSTRINGOP) {
		for (unsigned i = 0; i < in->operand_count; i++)
			if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
				implicit_reg(ii, in, ops, ops[i].mem.base, true, true);
	}
	switch (in->meta.exception_class) {
	case ZYDIS_EXCEPTION_CLASS_SSE2:
	case ZYDIS_EXCEPTION_CLASS_SSE3:
	case ZYDIS_EXCEPTION_CLASS_AVX2:
	case ZYDIS_EXCEPTION_CLASS_AVX3:
	case ZYDIS_EXCEPTION_CLASS_E2:
	case ZYDIS_EXCEPTION_CLASS_E3:
		implicit_reg(ii, in, ops, ZYDIS_REGISTER_MXCSR, true, false);
		break;
	default:
		break;
	}
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_FNSTCW:
	case ZYDIS_MNEMONIC_FNSTENV:
		implicit_reg(ii, in, ops, ZYDIS_REGISTER_X87CONTROL, true, false);
		break;
	case ZYDIS_MNEMONIC_FLDCW:
	case ZYDIS_MNEMONIC_FLDENV:
		implicit_reg(ii, in, ops, ZYDIS_REGISTER_X87CONTROL, false, true);
		break;
	case ZYDIS_MNEMONIC_FNSTSW:
		implicit_reg(ii, in, ops, ZYDIS_REGISTER_X87STATUS, true, false);
		break;
	default:
		break;
	}
}

int
insn_zydis_decode(const uint8_t *bytes, size_t n, struct insn_zydis *z)
{
	ensure_init();
	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&zdecoder, bytes, n, &z->in, z->ops)) ? 0 : -1;
}

int
insn_decode(const uint8_t *bytes, size_t n, uint64_t pc, struct insn_info *out)
{
	struct insn_zydis z;

	return insn_decode_zydis(bytes, n, pc, out, &z);
}

int
insn_decode_zydis(const uint8_t *bytes, size_t n, uint64_t pc, struct insn_info *out,
		  struct insn_zydis *z)
{
	const ZydisDecodedInstruction *const in = &z->in;
	const ZydisDecodedOperand *const ops = z->ops;
	enum iclass_prefix rep = ICLASS_NO_REP;
	bool rep_prefix;

	ensure_init();
	memset(out, 0, sizeof(*out));
	out->pc = pc;
	out->len = (uint8_t)(n < INSN_MAX_BYTES ? n : INSN_MAX_BYTES);
	memcpy(out->bytes, bytes, out->len);

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&zdecoder, bytes, n, &z->in, z->ops))) {
		out->flags = INSN_INVALID;
		return -1;
	}
	out->len = in->length;
	memset(out->bytes + in->length, 0, INSN_MAX_BYTES - in->length);
	out->mnemonic = (uint16_t)in->mnemonic;
	out->category = (uint8_t)in->meta.category;
	out->isa_ext = (uint8_t)in->meta.isa_ext;
	if (in->attributes & ZYDIS_ATTRIB_HAS_LOCK)
		out->flags |= INSN_LOCK;
	if (in->address_width == 32)
		out->flags |= INSN_ADDR32;

	rep_prefix = in->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
				      ZYDIS_ATTRIB_HAS_REPNE);
	/* INS/OUTS (IOSTRINGOP) repeat like the other string instructions:
	 * Pin/XED's REP_INSB, REP_OUTSD are real REPs. */
	if (rep_prefix && (in->meta.category == ZYDIS_CATEGORY_STRINGOP ||
			   in->meta.category == ZYDIS_CATEGORY_IOSTRINGOP))
		out->flags |= INSN_REP;

	for (unsigned i = 0; i < in->operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		bool read = op->actions & (ZYDIS_OPERAND_ACTION_READ | ZYDIS_OPERAND_ACTION_CONDREAD);
		bool write = op->actions & (ZYDIS_OPERAND_ACTION_WRITE | ZYDIS_OPERAND_ACTION_CONDWRITE);

		switch (op->type) {
		case ZYDIS_OPERAND_TYPE_REGISTER:
			out->reg_operand_count++;
			/* An EVEX writemask field of 0 means "no masking":
			 * k0 is not read (SDM 2.7.3).  Zydis still lists it. */
			if (op->encoding == ZYDIS_OPERAND_ENCODING_MASK &&
			    op->reg.value == ZYDIS_REGISTER_K0)
				break;
			/* LEAVE sets RSP from RBP; the old RSP is not read. */
			if (in->mnemonic == ZYDIS_MNEMONIC_LEAVE && op->reg.value == ZYDIS_REGISTER_RSP)
				read = false;
			note_reg(out, op->reg.value, read, write);
			break;
		case ZYDIS_OPERAND_TYPE_MEMORY:
			if (in->mnemonic == ZYDIS_MNEMONIC_ENTER &&
			    op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN) {
				enter_templates(out, (unsigned)ops[1].imm.value.u);
				if ((ops[1].imm.value.u & 31) > 1)
					note_reg(out, ZYDIS_REGISTER_RBP, true, false);
				break;
			}
			memory_operand(out, in, op, ops);
			break;
		default:
			break;
		}
	}
	implicit_regs(out, in, ops);
	if (in->cpu_flags) {
		out->flags_read = in->cpu_flags->tested;
		out->flags_written = in->cpu_flags->modified | in->cpu_flags->set_0 |
				     in->cpu_flags->set_1 | in->cpu_flags->undefined;
	}

	for (unsigned i = 0; i < out->n_mem; i++) {
		if (out->mem[i].dir & MEM_READ)
			out->flags |= INSN_HAS_MEM_READ;
		if (out->mem[i].dir & MEM_WRITE)
			out->flags |= INSN_HAS_MEM_WRITE;
	}
	if (in->mnemonic == ZYDIS_MNEMONIC_MOV) {
		bool all_regs = true;

		for (unsigned i = 0; i < in->operand_count_visible; i++)
			all_regs &= ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER;
		if (all_regs)
			out->flags |= INSN_MOV_ALL_REGS;
	}

	/* Control flow. */
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		out->branch = BR_COND;
		out->cond = cond_of(in->mnemonic);
		if (in->mnemonic == ZYDIS_MNEMONIC_XBEGIN || in->mnemonic == ZYDIS_MNEMONIC_XEND)
			out->flags |= INSN_XBEGIN_XEND;
		break;
	case ZYDIS_CATEGORY_UNCOND_BR:
		out->branch = BR_JUMP;
		break;
	case ZYDIS_CATEGORY_CALL:
		out->branch = BR_CALL;
		break;
	case ZYDIS_CATEGORY_RET:
		out->branch = BR_RET;
		break;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT:
		out->branch = BR_OTHER;
		break;
	default:
		break;
	}
	if (in->meta.category == ZYDIS_CATEGORY_SYSCALL ||
	    (in->mnemonic == ZYDIS_MNEMONIC_INT && ops[0].imm.value.u == 0x80))
		out->flags |= INSN_SYSCALL;
	if (out->branch == BR_JUMP || out->branch == BR_CALL || out->branch == BR_COND) {
		const ZydisDecodedOperand *op = &ops[0];

		if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op->imm.is_relative) {
			ZyanU64 target;

			if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, op, pc, &target)))
				out->direct_target = target;
		} else if (op->type == ZYDIS_OPERAND_TYPE_REGISTER) {
			out->flags |= INSN_INDIRECT;
			out->target_reg = (reg_id)op->reg.value;
		} else if (op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
			out->flags |= INSN_INDIRECT;
		} else if (op->type == ZYDIS_OPERAND_TYPE_POINTER) {
			out->branch = BR_OTHER;	/* far direct: a new code segment */
		}
	}

	if (out->flags & INSN_REP) {
		rep = ICLASS_REP;
		/* Only CMPS/SCAS test ZF; F2 on MOVS/STOS/LODS/INS/OUTS
		 * repeats exactly like F3 (XED: REP_MOVSB). */
		if (is_compare_string(in->mnemonic)) {
			rep = (in->attributes & ZYDIS_ATTRIB_HAS_REPNE) ? ICLASS_REPNE : ICLASS_REPE;
			out->flags |= INSN_REP_COND;
		}
	}
	out->iclass = iclass_of(out->mnemonic, rep, is_far_transfer(in, ops),
				in->meta.category != ZYDIS_CATEGORY_STRINGOP);
	if (out->flags & INSN_LOCK)
		out->iclass = iclass_locked(out->iclass);

	fold_full(out->regs_read, out->n_regs_read, out->regs_read_full,
		  &out->n_regs_read_full, &out->flags);
	fold_full(out->regs_written, out->n_regs_written, out->regs_written_full,
		  &out->n_regs_written_full, &out->flags);
	return 0;
}

bool
insn_needs_vector_state(const struct insn_info *ii)
{
	for (unsigned i = 0; i < ii->n_mem; i++)
		if (ii->mem[i].vsib)
			return true;
	return false;
}

static uint64_t
template_base(const struct insn_info *ii, const struct mem_template *t,
	      const struct user_regs_struct *regs)
{
	uint64_t ea = (uint64_t)t->disp, v;

	if (t->base == ZYDIS_REGISTER_RIP || t->base == ZYDIS_REGISTER_EIP)
		ea += ii->pc + ii->len;
	else if (t->base && reg_value(regs, t->base, &v))
		ea += v;
	return ea;
}

static uint64_t
finish_address(const struct insn_info *ii, const struct mem_template *t,
	       const struct user_regs_struct *regs, uint64_t ea)
{
	uint64_t segbase = 0;

	/* 0x67 truncates explicit addresses (their base is then a 32-bit
	 * register, EIP or none), not stack accesses: in 64-bit mode the
	 * stack pointer is always RSP (SDM vol. 1 §3.3.7, vol. 3 §6.2). */
	if ((ii->flags & INSN_ADDR32) && !(t->base && regs_desc[t->base].bytes == 8))
		ea = (uint32_t)ea;
	if (t->seg)
		reg_value(regs, t->seg, &segbase);
	return ea + segbase;
}

static int64_t
vec_element(const struct vec_state *vec, unsigned vreg, unsigned size, unsigned i)
{
	const uint8_t *p = vec->zmm[vreg] + i * size;

	if (size == 8) {
		int64_t v;

		memcpy(&v, p, 8);
		return v;
	} else {
		int32_t v;

		memcpy(&v, p, 4);
		return v;
	}
}

static bool
element_enabled(const struct mem_template *t, const struct vec_state *vec, unsigned i)
{
	unsigned vreg;

	if (!t->mask)
		return true;
	if (ZydisRegisterGetClass((ZydisRegister)t->mask) == ZYDIS_REGCLASS_MASK) {
		if (t->mask == ZYDIS_REGISTER_K0)
			return true;
		return vec->k[ZydisRegisterGetId((ZydisRegister)t->mask)] >> i & 1;
	}
	vreg = (unsigned)regs_desc[t->mask].vec - 1;
	return vec->zmm[vreg][i * t->size + t->size - 1] & 0x80;
}

static void
push_access(struct insn_event *ev, uint64_t addr, uint16_t size, uint8_t dir, uint8_t flags)
{
	struct mem_access *m;

	if (ev->n_mem >= EV_MAX_MEM)
		return;
	m = &ev->mem[ev->n_mem++];
	m->addr = addr;
	m->size = size;
	m->dir = dir;
	m->flags = flags;
	m->reserved = 0;
}

static void
eval_template(const struct insn_info *ii, const struct mem_template *t,
	      const struct user_regs_struct *regs, const struct vec_state *vec,
	      uint8_t dir, uint8_t extra, struct insn_event *ev)
{
	uint64_t base = template_base(ii, t, regs), v;

	if (!(t->dir & dir))
		return;
	if (t->vsib) {
		unsigned vreg = regs_desc[t->index].vec;

		if (!vec || !vreg)
			return;
		for (unsigned i = 0; i < t->elem_count; i++) {
			uint64_t ea;

			if (!element_enabled(t, vec, i))
				continue;
			ea = base + (uint64_t)vec_element(vec, vreg - 1, t->index_elem_size, i) * t->scale;
			push_access(ev, finish_address(ii, t, regs, ea), t->size, dir, t->flags | extra);
		}
		return;
	}
	if (t->index && reg_value(regs, t->index, &v))
		base += v * t->scale;
	push_access(ev, finish_address(ii, t, regs, base), t->size, dir, t->flags | extra);
}

void
insn_eval(const struct insn_info *ii, const struct user_regs_struct *regs,
	  const struct vec_state *vec, uint32_t tid, struct insn_event *ev)
{
	uint8_t extra = 0;
	uint64_t count = 0, v;

	ev->info = ii;
	ev->pc = ii->pc;
	ev->next_pc = ii->pc + ii->len;
	ev->tid = tid;
	ev->rep_count = 0;
	ev->flags = 0;
	ev->n_mem = 0;
	memset(ev->reserved, 0, sizeof(ev->reserved));
	if (ii->flags & INSN_INVALID) {
		ev->flags = EV_INVALID;
		return;
	}

	if ((ii->flags & INSN_REP) || ii->cond == COND_CXZ || ii->cond == COND_LOOP ||
	    ii->cond == COND_LOOPE || ii->cond == COND_LOOPNE) {
		count = regs->rcx;
		if (ii->flags & INSN_ADDR32)
			count = (uint32_t)count;
	}
	if (ii->flags & INSN_REP) {
		ev->flags |= EV_REP;
		ev->rep_count = (uint32_t)count;
		if (count == 0) {
			extra = MEMF_PHANTOM;
		} else if (count > 1) {
			/* Plain REP runs again; REPE/REPNE stop on the
			 * comparison, which only execution tells. */
			if (ii->flags & INSN_REP_COND)
				ev->flags |= EV_NEXT_UNKNOWN;
			else
				ev->next_pc = ii->pc;
		}
	}

	for (unsigned i = 0; i < ii->n_mem; i++)
		eval_template(ii, &ii->mem[i], regs, vec, MEM_READ, extra, ev);
	for (unsigned i = 0; i < ii->n_mem; i++)
		eval_template(ii, &ii->mem[i], regs, vec, MEM_WRITE, extra, ev);

	switch (ii->branch) {
	case BR_COND:
		if (insn_cond_holds(ii->cond, regs->eflags, count)) {
			ev->flags |= EV_TAKEN;
			ev->next_pc = ii->direct_target;
		}
		break;
	case BR_JUMP:
	case BR_CALL:
		ev->flags |= EV_TAKEN;
		if (!(ii->flags & INSN_INDIRECT))
			ev->next_pc = ii->direct_target;
		else if (ii->target_reg && reg_value(regs, ii->target_reg, &v))
			ev->next_pc = v;
		else
			ev->flags |= EV_NEXT_UNKNOWN;
		break;
	case BR_RET:
		ev->flags |= EV_TAKEN | EV_NEXT_UNKNOWN;
		break;
	case BR_OTHER:
		ev->flags |= EV_TAKEN | EV_NEXT_UNKNOWN;
		break;
	default:
		break;
	}
}

const char *
insn_category_name(const struct insn_info *ii)
{
	const char *s;

	if (ii->flags & INSN_INVALID)
		return "INVALID";
	s = ZydisCategoryGetString((ZydisInstructionCategory)ii->category);
	return s ? s : "INVALID";
}

const char *
insn_category_by_index(unsigned i)
{
	if (i > ZYDIS_CATEGORY_MAX_VALUE)
		return NULL;
	return ZydisCategoryGetString((ZydisInstructionCategory)i);
}

const char *
insn_iclass_name(const struct insn_info *ii)
{
	if (ii->flags & INSN_INVALID)
		return "INVALID";
	return iclass_name(ii->iclass);
}

const char *
insn_mnemonic_name(const struct insn_info *ii)
{
	const char *s;

	if (ii->flags & INSN_INVALID)
		return "(bad)";
	s = ZydisMnemonicGetString((ZydisMnemonic)ii->mnemonic);
	return s ? s : "(bad)";
}

int
insn_format(const struct insn_info *ii, bool att, char *buf, size_t size)
{
	struct insn_zydis z;

	if (size == 0)
		return -EINVAL;
	if ((ii->flags & INSN_INVALID) || insn_zydis_decode(ii->bytes, ii->len, &z) < 0) {
		snprintf(buf, size, "(bad)");
		return -EINVAL;
	}
	return insn_format_zydis(ii, &z, att, buf, size);
}

int
insn_format_zydis(const struct insn_info *ii, const struct insn_zydis *z, bool att,
		  char *buf, size_t size)
{
	ZydisFormatter fmt;

	if (size == 0)
		return -EINVAL;
	if ((ii->flags & INSN_INVALID) ||
	    !ZYAN_SUCCESS(ZydisFormatterInit(&fmt, att ? ZYDIS_FORMATTER_STYLE_ATT
						      : ZYDIS_FORMATTER_STYLE_INTEL)) ||
	    !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&fmt, &z->in, z->ops,
							  z->in.operand_count_visible, buf, size,
							  ii->pc, NULL))) {
		snprintf(buf, size, "(bad)");
		return -EINVAL;
	}
	return 0;
}
