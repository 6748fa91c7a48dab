/*
 * LLVM 14's X86 instruction text (sched_print.h).  The mnemonic of each
 * opcode is the one LLVM 14's printers write (a generated table, from
 * LLVM's data); the operands are Zydis's, printed in LLVM's order and
 * forms, with the values the assembly source gives where LLVM keeps what
 * was written rather than what was encoded.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "insn_zydis.h"
#include "sched/sched_print.h"
#include "sched/tables/sched_tables.h"

/* ------------------------------------------------------------------ */
/* The source's operands                                               */

#define SRC_MAX_OPS 8

struct src_op {
	char kind;		/* 'i' immediate, 'r' register, 'm' memory, 'x' bare expression */
	char text[96];		/* the immediate's or memory operand's expression */
};

struct src_ops {
	unsigned n;
	struct src_op op[SRC_MAX_OPS];
};

static const char *
skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Copy s[0..n) without blanks (LLVM prints expressions without them). */
static void
copy_expr(char *dst, size_t size, const char *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 1 < size; i++)
		if (s[i] != ' ' && s[i] != '\t')
			dst[k++] = s[i];
	dst[k] = '\0';
}

static bool
is_prefix_word(const char *w, size_t n)
{
	static const char *const p[] = {
		"lock", "rep", "repe", "repz", "repne", "repnz", "data16", "data32",
		"addr32", "rex", "rex64", "notrack", "xacquire", "xrelease",
	};

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (strlen(p[i]) == n && strncmp(w, p[i], n) == 0)
			return true;
	return false;
}

/* The operands of a source line, split at the commas outside brackets. */
static void
parse_src(const char *src, bool intel, struct src_ops *so)
{
	const char *p = skip_space(src);

	so->n = 0;
	/* The mnemonic, after any prefixes written on the same line. */
	for (;;) {
		size_t n = strcspn(p, " \t");

		if (!is_prefix_word(p, n) || !p[n]) {
			p = skip_space(p + n);
			break;
		}
		p = skip_space(p + n);
	}
	while (*p && so->n < SRC_MAX_OPS) {
		const char *s = p, *e;
		int depth = 0;
		struct src_op *o = &so->op[so->n++];

		for (e = s; *e && (depth > 0 || *e != ','); e++) {
			if (*e == '(' || *e == '[' || *e == '{')
				depth++;
			else if ((*e == ')' || *e == ']' || *e == '}') && depth > 0)
				depth--;
		}
		p = *e ? skip_space(e + 1) : e;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (*s == '*')
			s = skip_space(s + 1);
		if (!intel) {
			const char *paren = memchr(s, '(', (size_t)(e - s));

			if (*s == '$') {
				o->kind = 'i';
				copy_expr(o->text, sizeof(o->text), s + 1, (size_t)(e - s - 1));
			} else if (*s == '%' && !paren && !memchr(s, ':', (size_t)(e - s))) {
				o->kind = 'r';
				o->text[0] = '\0';
			} else {
				/* disp(base,index,scale), %seg:disp(...) or a
				 * bare expression (a branch target) */
				const char *d = s, *de = paren ? paren : e;
				const char *colon = memchr(s, ':', (size_t)(de - s));

				if (*d == '%' && colon)
					d = colon + 1;
				o->kind = paren || d != s ? 'm' : 'x';
				copy_expr(o->text, sizeof(o->text), d, (size_t)(de - d));
			}
		} else {
			const char *br = memchr(s, '[', (size_t)(e - s));

			if (br) {
				const char *be = memchr(br, ']', (size_t)(e - br));

				o->kind = 'm';
				copy_expr(o->text, sizeof(o->text), br + 1,
					  be ? (size_t)(be - br - 1) : (size_t)(e - br - 1));
			} else if (isdigit((unsigned char)*s) || *s == '-' || *s == '(' || *s == '~' ||
				   *s == '+') {
				o->kind = 'i';
				copy_expr(o->text, sizeof(o->text), s, (size_t)(e - s));
			} else {
				/* a register, or a symbol (branch target) */
				o->kind = 'r';
				copy_expr(o->text, sizeof(o->text), s, (size_t)(e - s));
			}
		}
	}
}

/* Constant expressions as LLVM's assembler folds them: numbers in C's
 * bases, Intel's 0ffh, unary - ~ +, * / % << >> + - & | ^, parentheses. */
struct expr {
	const char *p;
	bool bad;
};

static int64_t expr_or(struct expr *x);

static int64_t
expr_atom(struct expr *x)
{
	const char *p = x->p;
	int64_t v = 0;

	if (*p == '(') {
		x->p++;
		v = expr_or(x);
		if (*x->p == ')')
			x->p++;
		else
			x->bad = true;
		return v;
	}
	if (*p == '-' || *p == '~' || *p == '+' || *p == '!') {
		x->p++;
		v = expr_atom(x);
		return *p == '-' ? (int64_t)(0 - (uint64_t)v) : *p == '~' ? ~v : *p == '!' ? !v : v;
	}
	if (isdigit((unsigned char)*p)) {
		const char *e = p;
		char *end;

		while (isxdigit((unsigned char)*e) || *e == 'x' || *e == 'X')
			e++;
		if ((*e == 'h' || *e == 'H') && !isalnum((unsigned char)e[1])) {
			/* Intel: 0ffh */
			v = (int64_t)strtoull(p, &end, 16);
			x->p = e + 1;
			return v;
		}
		if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B') && (p[2] == '0' || p[2] == '1')) {
			v = (int64_t)strtoull(p + 2, &end, 2);
		} else {
			v = (int64_t)strtoull(p, &end, 0);
		}
		if (isalnum((unsigned char)*end) || *end == '_')
			x->bad = true;
		x->p = end;
		return v;
	}
	x->bad = true;
	return 0;
}

static int64_t
expr_mul(struct expr *x)
{
	int64_t v = expr_atom(x);

	while (!x->bad && (*x->p == '*' || *x->p == '/' || *x->p == '%' ||
			   (x->p[0] == '<' && x->p[1] == '<') || (x->p[0] == '>' && x->p[1] == '>'))) {
		char op = *x->p;
		int64_t r;

		x->p += op == '<' || op == '>' ? 2 : 1;
		r = expr_atom(x);
		if (op == '*')
			v = (int64_t)((uint64_t)v * (uint64_t)r);
		else if (op == '/' || op == '%') {
			if (r == 0) {
				x->bad = true;
				return 0;
			}
			v = op == '/' ? v / r : v % r;
		} else if (op == '<')
			v = (int64_t)((uint64_t)v << (r & 63));
		else
			v >>= (r & 63);
	}
	return v;
}

static int64_t
expr_add(struct expr *x)
{
	int64_t v = expr_mul(x);

	while (!x->bad && (*x->p == '+' || *x->p == '-')) {
		char op = *x->p++;
		int64_t r = expr_mul(x);

		v = (int64_t)(op == '+' ? (uint64_t)v + (uint64_t)r : (uint64_t)v - (uint64_t)r);
	}
	return v;
}

static int64_t
expr_or(struct expr *x)
{
	int64_t v = expr_add(x);

	while (!x->bad && (*x->p == '&' || *x->p == '|' || *x->p == '^')) {
		char op = *x->p++;
		int64_t r = expr_add(x);

		v = op == '&' ? v & r : op == '|' ? v | r : v ^ r;
	}
	return v;
}

/* 0 and the value, or -1 for an expression with symbols. */
static int
eval_expr(const char *s, int64_t *v)
{
	struct expr x = { s, false };

	if (!*s)
		return -1;
	*v = expr_or(&x);
	return x.bad || *x.p ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

struct out {
	char *buf;
	size_t size, len;
};

static void __attribute__((format(printf, 2, 3)))
put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len >= o->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len = o->len + (size_t)n < o->size ? o->len + (size_t)n : o->size - 1;
}

/* LLVM's register names: Zydis's but for the x87 stack (%st, %st(1)). */
static void
put_reg(struct out *o, ZydisRegister r, bool intel)
{
	const char *name = ZydisRegisterGetString(r);

	if (!name)
		name = "?";
	if (r >= ZYDIS_REGISTER_ST0 && r <= ZYDIS_REGISTER_ST7) {
		if (r == ZYDIS_REGISTER_ST0)
			put(o, "%sst", intel ? "" : "%");
		else
			put(o, "%sst(%d)", intel ? "" : "%", (int)(r - ZYDIS_REGISTER_ST0));
		return;
	}
	put(o, "%s%s", intel ? "" : "%", name);
}

static const char *
intel_size(unsigned bits)
{
	switch (bits) {
	case 8: return "byte ptr ";
	case 16: return "word ptr ";
	case 32: return "dword ptr ";
	case 64: return "qword ptr ";
	case 80: return "xword ptr ";
	case 128: return "xmmword ptr ";
	case 256: return "ymmword ptr ";
	case 512: return "zmmword ptr ";
	default: return "";
	}
}

/* The segment of an override prefix, as LLVM keeps it (%fs:40, and
 * %cs: on a nopw that the hardware ignores), or NONE. */
static ZydisRegister
segment_prefix(const struct insn_zydis *z)
{
	ZydisRegister seg = ZYDIS_REGISTER_NONE;

	for (unsigned i = 0; i < z->in.raw.prefix_count; i++)
		switch (z->in.raw.prefixes[i].value) {
		case 0x2e: seg = ZYDIS_REGISTER_CS; break;
		case 0x36: seg = ZYDIS_REGISTER_SS; break;
		case 0x3e: seg = ZYDIS_REGISTER_DS; break;
		case 0x26: seg = ZYDIS_REGISTER_ES; break;
		case 0x64: seg = ZYDIS_REGISTER_FS; break;
		case 0x65: seg = ZYDIS_REGISTER_GS; break;
		default: break;
		}
	return seg;
}

static const char *
broadcast_text(const struct insn_zydis *z)
{
	switch (z->in.avx.broadcast.mode) {
	case ZYDIS_BROADCAST_MODE_1_TO_2: return "{1to2}";
	case ZYDIS_BROADCAST_MODE_1_TO_4: return "{1to4}";
	case ZYDIS_BROADCAST_MODE_1_TO_8: return "{1to8}";
	case ZYDIS_BROADCAST_MODE_1_TO_16: return "{1to16}";
	case ZYDIS_BROADCAST_MODE_1_TO_32: return "{1to32}";
	case ZYDIS_BROADCAST_MODE_1_TO_64: return "{1to64}";
	default: return "";
	}
}

/* A memory operand; sym: the source's symbolic displacement, or NULL. */
static void
put_mem(struct out *o, const struct insn_zydis *z, const ZydisDecodedOperand *op, bool intel,
	const char *sym, bool force_seg, bool sized)
{
	const ZydisDecodedOperandMem *m = &op->mem;
	bool base = m->base != ZYDIS_REGISTER_NONE, index = m->index != ZYDIS_REGISTER_NONE;
	ZydisRegister segr = force_seg ? m->segment : segment_prefix(z);
	bool seg = segr != ZYDIS_REGISTER_NONE;
	int64_t disp = m->disp.value;

	if (intel) {
		bool any = false;

		if (sized && m->type != ZYDIS_MEMOP_TYPE_AGEN)
			put(o, "%s", intel_size(z->in.avx.broadcast.mode != ZYDIS_BROADCAST_MODE_INVALID
						? op->element_size : op->size));
		if (seg) {
			put_reg(o, segr, true);
			put(o, ":");
		}
		put(o, "[");
		if (base) {
			put_reg(o, m->base, true);
			any = true;
		}
		if (index) {
			put(o, "%s", any ? " + " : "");
			if (m->scale > 1)
				put(o, "%u*", m->scale);
			put_reg(o, m->index, true);
			any = true;
		}
		if (sym)
			put(o, "%s%s", any ? " + " : "", sym);
		else if (disp || !any)
			put(o, "%s%lld", !any ? "" : disp < 0 ? " - " : " + ",
			    (long long)(any && disp < 0 ? -disp : disp));
		put(o, "]%s", broadcast_text(z));
		return;
	}
	if (seg) {
		put_reg(o, segr, false);
		put(o, ":");
	}
	if (sym)
		put(o, "%s", sym);
	else if (disp || (!base && !index))
		put(o, "%lld", (long long)disp);
	if (base || index) {
		put(o, "(");
		if (base)
			put_reg(o, m->base, false);
		if (index) {
			put(o, ",");
			put_reg(o, m->index, false);
			if (m->scale > 1)
				put(o, ",%u", m->scale);
		}
		put(o, ")");
	}
	put(o, "%s", broadcast_text(z));
}

/* ------------------------------------------------------------------ */
/* Mnemonics LLVM completes from operands                              */

static const char *const cond_names[16] = {
	"o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g",
};

static const char *const cmp_pred[32] = {
	"eq", "lt", "le", "unord", "neq", "nlt", "nle", "ord",
	"eq_uq", "nge", "ngt", "false", "neq_oq", "ge", "gt", "true",
	"eq_os", "lt_oq", "le_oq", "unord_s", "neq_us", "nlt_uq", "nle_uq", "ord_s",
	"eq_us", "nge_uq", "ngt_uq", "false_os", "neq_os", "ge_oq", "gt_oq", "true_us",
};

static const char *const vpcmp_pred[8] = {
	"eq", "lt", "le", "false", "neq", "nlt", "nle", "true",
};

static const char *const vpcom_pred[8] = {
	"lt", "le", "gt", "ge", "eq", "neq", "false", "true",
};

static int
last_imm(const struct insn_zydis *z)
{
	for (int i = (int)z->in.operand_count_visible - 1; i >= 0; i--)
		if (z->ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			return i;
	return -1;
}

/* CMPPS and kin with a predicate LLVM prints in the mnemonic: the new
 * mnemonic in word and the immediate's operand index, or -1. */
static int
predicate_mnemonic(const struct insn_zydis *z, const char *name, char *word, size_t size)
{
	size_t n = strlen(word);
	int k = last_imm(z);
	uint64_t imm;
	bool vex = word[0] == 'v';
	const char *w = word + vex;

	if (k < 0)
		return -1;
	imm = z->ops[k].imm.value.u;
	if (strncmp(w, "cmp", 3) == 0 && n - vex == 5 && strstr(name, "CMP") &&
	    (w[3] == 'p' || w[3] == 's') && strchr("sdh", w[4])) {
		char sfx[3] = { w[3], w[4], '\0' };

		if (imm >= (vex ? 32u : 8u))
			return -1;
		return snprintf(word, size, "%scmp%s%s", vex ? "v" : "", cmp_pred[imm], sfx) <
		       (int)size ? k : -1;
	}
	if (strncmp(word, "vpcmp", 5) == 0 && strncmp(name, "VPCMP", 5) == 0 &&
	    strncmp(name, "VPCMPEQ", 7) != 0 && strncmp(name, "VPCMPGT", 7) != 0 &&
	    strncmp(name, "VPCMPEST", 8) != 0 && strncmp(name, "VPCMPIST", 8) != 0 && imm < 8) {
		char sfx[48];

		snprintf(sfx, sizeof(sfx), "%s", word + 5);
		return snprintf(word, size, "vpcmp%s%s", vpcmp_pred[imm], sfx) < (int)size ? k : -1;
	}
	if (strncmp(word, "vpcom", 5) == 0 && imm < 8) {
		char sfx[48];

		snprintf(sfx, sizeof(sfx), "%s", word + 5);
		return snprintf(word, size, "vpcom%s%s", vpcom_pred[imm], sfx) < (int)size ? k : -1;
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* String instructions                                                 */

static ZydisRegister
accumulator(unsigned bits)
{
	return bits == 8 ? ZYDIS_REGISTER_AL : bits == 16 ? ZYDIS_REGISTER_AX :
	       bits == 32 ? ZYDIS_REGISTER_EAX : ZYDIS_REGISTER_RAX;
}

/* movs, cmps, stos, lods, scas, ins, outs: LLVM prints their implicit
 * operands ((%rsi), %es:(%rdi), the accumulator, %dx). */
static bool
put_string_op(struct out *o, const struct insn_zydis *z, const char *word, bool intel)
{
	static const char *const fam[] = { "movs", "cmps", "stos", "lods", "scas", "ins", "outs" };
	unsigned bits = 0, f;
	char rsi[48], rdi[48], acc[8], dx[8];
	const char *sz;
	struct out t;

	if (z->in.meta.category != ZYDIS_CATEGORY_STRINGOP)
		return false;
	for (f = 0; f < sizeof(fam) / sizeof(fam[0]); f++)
		if (strncmp(word, fam[f], strlen(fam[f])) == 0)
			break;
	if (f == sizeof(fam) / sizeof(fam[0]))
		return false;
	for (unsigned i = 0; i < z->in.operand_count; i++)
		if (z->ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
			bits = z->ops[i].size;
	if (!bits)
		return false;
	sz = intel ? intel_size(bits) : "";
	{
		const char *r = z->in.address_width == 32 ? "esi" : "rsi";
		const char *d = z->in.address_width == 32 ? "edi" : "rdi";

		if (intel) {
			snprintf(rsi, sizeof(rsi), "%s[%s]", sz, r);
			snprintf(rdi, sizeof(rdi), "%ses:[%s]", sz, d);
		} else {
			snprintf(rsi, sizeof(rsi), "(%%%s)", r);
			snprintf(rdi, sizeof(rdi), "%%es:(%%%s)", d);
		}
	}
	t.buf = acc;
	t.size = sizeof(acc);
	t.len = 0;
	put_reg(&t, accumulator(bits), intel);
	snprintf(dx, sizeof(dx), "%sdx", intel ? "" : "%");
	if (z->in.attributes & ZYDIS_ATTRIB_HAS_REPNE)
		put(o, "repne\t\t");
	else if (z->in.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE))
		put(o, "rep\t\t");
	put(o, "%s\t", word);
	switch (f) {
	case 0: put(o, intel ? "%2$s, %1$s" : "%1$s, %2$s", rsi, rdi); break;
	case 1: put(o, intel ? "%1$s, %2$s" : "%2$s, %1$s", rsi, rdi); break;
	case 2: put(o, intel ? "%2$s, %1$s" : "%1$s, %2$s", acc, rdi); break;
	case 3: put(o, intel ? "%2$s, %1$s" : "%1$s, %2$s", rsi, acc); break;
	case 4: put(o, intel ? "%2$s, %1$s" : "%1$s, %2$s", rdi, acc); break;
	case 5: put(o, intel ? "%2$s, %1$s" : "%1$s, %2$s", dx, rdi); break;
	default: put(o, intel ? "%2$s, %1$s" : "%1$s, %2$s", rsi, dx); break;
	}
	return true;
}

/* ------------------------------------------------------------------ */

/* Does the literal operand text of a mnemonic ("%cl,", "eax,", "st,")
 * name the register? */
static bool
literal_names(const char *lit, ZydisRegister r)
{
	char name[16];
	struct out t = { name, sizeof(name), 0 };
	size_t n;

	if (!*lit)
		return false;
	put_reg(&t, r, true);
	n = strlen(name);
	for (const char *p = strstr(lit, name); p; p = strstr(p + 1, name))
		if ((p == lit || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n]) &&
		    p[n] != '(')
			return true;
	return false;
}

int
sched_print_llvm(const struct insn_zydis *z, uint32_t opcode, const char *src, bool src_intel,
		 bool intel, char *buf, size_t size)
{
	const char *mn = opcode ? sched_mnemonic(opcode, intel) : "";
	const char *name = opcode ? sched_opcode_name(opcode) : "";
	char word[48], lit[48];
	struct out o = { buf, size, 0 };
	struct src_ops so = { 0 };
	int order[ZYDIS_MAX_OPERAND_COUNT], n = 0, drop = -1;
	unsigned nimm = 0, nmem = 0, ns_imm = 0, ns_mem = 0;
	const struct src_op *simm[SRC_MAX_OPS], *smem[SRC_MAX_OPS];
	bool any = false, masked = z->in.avx.mask.reg != ZYDIS_REGISTER_NONE &&
				   z->in.avx.mask.reg != ZYDIS_REGISTER_K0;
	size_t wl;

	if (!size)
		return -1;
	buf[0] = '\0';
	if (!*mn)
		return -1;
	wl = strcspn(mn, " ");
	snprintf(word, sizeof(word), "%.*s", (int)wl, mn);
	snprintf(lit, sizeof(lit), "%s", mn[wl] ? mn + wl + 1 : "");
	if (strchr(word, ';'))
		return -1;	/* "rep;movsb ...": the REP_ pseudo forms */

	/* Condition codes: cmov, set, j take the condition from the opcode. */
	if ((strcmp(word, "cmov") == 0 || strcmp(word, "set") == 0 || strcmp(word, "j") == 0) &&
	    !*lit) {
		const char *cc = cond_names[z->in.opcode & 0xf];

		if (strcmp(word, "cmov") == 0 && !intel)
			snprintf(word, sizeof(word), "cmov%s%c", cc,
				 z->in.operand_width == 16 ? 'w' :
				 z->in.operand_width == 64 ? 'q' : 'l');
		else {
			char pre[48];

			snprintf(pre, sizeof(pre), "%s", word);
			snprintf(word, sizeof(word), "%s%s", pre, cc);
		}
	}
	drop = predicate_mnemonic(z, name, word, sizeof(word));

	/* llvm-mca's printer: "lock", a tab, and the instruction's own
	 * leading tab */
	if (z->in.attributes & ZYDIS_ATTRIB_HAS_LOCK)
		put(&o, "lock\t\t");
	if (put_string_op(&o, z, word, intel))
		return 0;

	if (src)
		parse_src(src, src_intel, &so);
	for (unsigned i = 0; i < so.n; i++) {
		if (so.op[i].kind == 'i')
			simm[ns_imm++] = &so.op[i];
		else if (so.op[i].kind == 'm' || so.op[i].kind == 'x')
			smem[ns_mem++] = &so.op[i];
	}

	/* The operands LLVM prints, in Intel order. */
	for (unsigned i = 0; i < z->in.operand_count_visible; i++) {
		const ZydisDecodedOperand *op = &z->ops[i];

		if ((int)i == drop)
			continue;
		if (op->visibility == ZYDIS_OPERAND_VISIBILITY_IMPLICIT &&
		    op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			continue;	/* shift by one */
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (op->reg.value == z->in.avx.mask.reg && masked && i > 0))
			continue;	/* the {%k} decoration */
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && op->reg.value == ZYDIS_REGISTER_K0 &&
		    z->in.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX && i > 0 &&
		    z->in.avx.mask.reg == ZYDIS_REGISTER_K0)
			continue;	/* no write mask: LLVM prints none */
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && literal_names(lit, op->reg.value))
			continue;
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    op->visibility == ZYDIS_OPERAND_VISIBILITY_IMPLICIT && n > 0 &&
		    z->ops[order[n - 1]].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    z->ops[order[n - 1]].reg.value == op->reg.value)
			continue;	/* x87's st(0) twice */
		if ((z->in.mnemonic == ZYDIS_MNEMONIC_NOP || z->in.mnemonic == ZYDIS_MNEMONIC_CLZERO) &&
		    op->type == ZYDIS_OPERAND_TYPE_REGISTER)
			continue;	/* nopw (%rax,%rax): the ModRM register is no
					 * operand; clzero's %rax neither */
		if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			nimm++;
		if (op->type == ZYDIS_OPERAND_TYPE_MEMORY)
			nmem++;
		order[n++] = (int)i;
	}
	/* xchg's short form: LLVM's operands are the accumulator and the
	 * other register, in that order. */
	if (strncmp(name, "XCHG", 4) == 0 && strstr(name, "ar") && n == 2)
		if (z->ops[order[0]].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    z->ops[order[1]].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (z->ops[order[1]].reg.value == ZYDIS_REGISTER_EAX ||
		     z->ops[order[1]].reg.value == ZYDIS_REGISTER_AX ||
		     z->ops[order[1]].reg.value == ZYDIS_REGISTER_RAX)) {
			int t = order[0];

			order[0] = order[1];
			order[1] = t;
		}

	put(&o, "%s", word);
	if (n || *lit)
		put(&o, "\t%s%s", lit, *lit && lit[strlen(lit) - 1] == ',' && n ? " " : "");
	if (!intel && z->in.avx.rounding.mode != ZYDIS_ROUNDING_MODE_INVALID) {
		static const char *const rc[] = { "", "{rn-sae}, ", "{rd-sae}, ", "{ru-sae}, ",
						  "{rz-sae}, " };

		if ((unsigned)z->in.avx.rounding.mode < sizeof(rc) / sizeof(rc[0]))
			put(&o, "%s", rc[z->in.avx.rounding.mode]);
	}
	for (int k = 0; k < n; k++) {
		/* AT&T: the reverse of Intel's order */
		int idx = intel ? order[k] : order[n - 1 - k];
		const ZydisDecodedOperand *op = &z->ops[idx];
		/* the source's operand of the same kind, counted in the
		 * order written: AT&T's, or Intel's reversed */
		unsigned pos;

		if (any)
			put(&o, ", ");
		any = true;
		switch (op->type) {
		case ZYDIS_OPERAND_TYPE_REGISTER:
			put_reg(&o, op->reg.value, intel);
			if (intel && k == 0 && masked) {
				put(&o, " {");
				put_reg(&o, z->in.avx.mask.reg, true);
				put(&o, "}%s", z->in.avx.mask.mode == ZYDIS_MASK_MODE_ZEROING ? " {z}" : "");
			}
			break;
		case ZYDIS_OPERAND_TYPE_MEMORY: {
			const char *sym = NULL;
			int64_t v;

			pos = 0;
			for (int j = 0; j < n; j++) {
				int jj = src_intel ? order[j] : order[n - 1 - j];

				if (jj == idx)
					break;
				if (z->ops[jj].type == ZYDIS_OPERAND_TYPE_MEMORY)
					pos++;
			}
			if (ns_mem == nmem && pos < ns_mem && smem[pos]->text[0] &&
			    eval_expr(smem[pos]->text, &v) < 0 && !src_intel)
				sym = smem[pos]->text;
			put_mem(&o, z, op, intel, sym, false, true);
			if (intel && k == 0 && masked) {
				put(&o, " {");
				put_reg(&o, z->in.avx.mask.reg, true);
				put(&o, "}");
			}
			break;
		}
		case ZYDIS_OPERAND_TYPE_IMMEDIATE: {
			int64_t v;
			const struct src_op *s = NULL;

			pos = 0;
			for (int j = 0; j < n; j++) {
				int jj = src_intel ? order[j] : order[n - 1 - j];

				if (jj == idx)
					break;
				if (z->ops[jj].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
					pos++;
			}
			if (op->imm.is_relative) {
				/* a branch target: the source's expression */
				if (ns_mem >= 1 && smem[ns_mem - 1]->text[0])
					put(&o, "%s", smem[ns_mem - 1]->text);
				else if (so.n && so.op[so.n - 1].kind == 'r' && src_intel)
					put(&o, "%s", so.op[so.n - 1].text);
				else
					put(&o, "%lld", (long long)op->imm.value.s);
				break;
			}
			if (ns_imm == nimm && pos < ns_imm)
				s = simm[pos];
			if (!intel)
				put(&o, "$");
			if (s && eval_expr(s->text, &v) == 0)
				put(&o, "%lld", (long long)v);
			else if (s && s->text[0])
				put(&o, "%s", s->text);
			else if (op->imm.is_signed)
				put(&o, "%lld", (long long)op->imm.value.s);
			else
				put(&o, "%llu", (unsigned long long)op->imm.value.u);
			break;
		}
		default:
			put(&o, "?");
			break;
		}
	}
	/* Intel's order puts an implicit XMM0 (blendv) last, where AT&T's
	 * mnemonic text has it first. */
	if (intel && !*lit && strstr(sched_mnemonic(opcode, 0), "%xmm0,")) {
		bool seen = false;

		for (int k = 0; k < n; k++)
			seen |= z->ops[order[k]].type == ZYDIS_OPERAND_TYPE_REGISTER &&
				z->ops[order[k]].reg.value == ZYDIS_REGISTER_XMM0 &&
				z->ops[order[k]].visibility == ZYDIS_OPERAND_VISIBILITY_IMPLICIT;
		if (!seen)
			put(&o, "%sxmm0", any ? ", " : "");
	}
	if (intel && z->in.avx.rounding.mode != ZYDIS_ROUNDING_MODE_INVALID) {
		static const char *const rc[] = { "", ", {rn-sae}", ", {rd-sae}", ", {ru-sae}",
						  ", {rz-sae}" };

		if ((unsigned)z->in.avx.rounding.mode < sizeof(rc) / sizeof(rc[0]))
			put(&o, "%s", rc[z->in.avx.rounding.mode]);
	}
	if (!intel && masked) {
		put(&o, " {");
		put_reg(&o, z->in.avx.mask.reg, false);
		put(&o, "}%s", z->in.avx.mask.mode == ZYDIS_MASK_MODE_ZEROING ? " {z}" : "");
	}
	return 0;
}
