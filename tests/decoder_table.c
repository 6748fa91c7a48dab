/*
 * Decoder table test: each row is an encoding, a register snapshot and the
 * exact event the decoder must produce from them.  The expected values
 * were worked out by hand from the Intel SDM (effective addresses, stack
 * and string semantics) and MICA's register filter (mica.md §1.3).
 *
 * Row fields (strings, space separated lists; an omitted field is not
 * checked, "" means "must be empty"):
 *   hex    instruction bytes
 *   regs   snapshot: "rax=1 rsp=0x7ff0 eflags=0x246 fs_base=..."; the
 *          vector state: "ymm2.d=1,2,3,4" (dword elements), "zmm2.q=...",
 *          "k1=0xff"
 *   cat    XED category          iclass  XED iclass
 *   rr/rw  registers read / written as written (MICA ids), as a set (the
 *          order is the decoder's business; MICA treats the lists as sets)
 *   rrf/rwf the same folded to full registers
 *   fr/fw  RFLAGS bits read / written (tested; modified, set, cleared or
 *          left undefined): "cf pf af zf sf tf if df of ..." as a set
 *   seg    FS/GS segment registers read (kept apart from the MICA lists)
 *   rip    "r", "w", "rw" or "": RIP read / written (kept apart)
 *   len    instruction length (for invalid rows: the bytes kept)
 *   rc     EV_REP: count register (low 32 bits) reported in the event
 *   mem    accesses in order: "R:0x1000:8 W:0x2000:4" (+P prefetch,
 *          +E gather/scatter element, +Z phantom, e.g. "R:0x10:1+P")
 *   br     "T" taken / "N" not taken / "-" no branch; next: next_pc or "?"
 *   ops    reg_operand_count, as a decimal string
 *   flags  required insn flags among: rep repcond memr memw movregs
 *          indirect lock addr32 syscall xbegin invalid
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <Zydis/Zydis.h>

#include "decoder.h"
#include "iclass.h"
#include "tap.h"

struct row {
	const char *name, *hex, *regs;
	const char *cat, *iclass, *rr, *rw, *rrf, *rwf, *mem, *br, *next;
	const char *ops;
	const char *flags;
	const char *fr, *fw, *seg, *rip, *len, *rc;
};

#include "decoder_rows.h"

static int
parse_hex(const char *s, uint8_t *out)
{
	int n = 0;

	while (*s) {
		unsigned v;

		if (*s == ' ') {
			s++;
			continue;
		}
		if (sscanf(s, "%2x", &v) != 1)
			return -1;
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

static bool
set_gpr(struct user_regs_struct *r, const char *name, unsigned long long v)
{
	static const struct {
		const char *n;
		size_t off;
	} map[] = {
#define F(x) { #x, offsetof(struct user_regs_struct, x) }
		F(rax), F(rbx), F(rcx), F(rdx), F(rsi), F(rdi), F(rbp), F(rsp),
		F(r8), F(r9), F(r10), F(r11), F(r12), F(r13), F(r14), F(r15),
		F(rip), F(eflags), F(fs_base), F(gs_base),
#undef F
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strcmp(map[i].n, name) == 0) {
			memcpy((char *)r + map[i].off, &v, sizeof(v));
			return true;
		}
	}
	return false;
}

/* "ymm2.d=1,2,3" / "zmm1.q=..." / "k1=0x3" */
static bool
set_vec(struct vec_state *vs, const char *name, const char *val)
{
	unsigned n;
	char kind;

	if (name[0] == 'k' && sscanf(name + 1, "%u", &n) == 1 && n < 8) {
		vs->k[n] = strtoull(val, NULL, 0);
		return true;
	}
	if (sscanf(name + 1, "mm%u.%c", &n, &kind) == 2 && n < 32) {
		unsigned size = kind == 'q' ? 8 : 4, i = 0;
		char *end;

		for (const char *p = val; *p && i * size < 64; i++) {
			long long x = strtoll(p, &end, 0);

			memcpy(vs->zmm[n] + i * size, &x, size);
			p = *end == ',' ? end + 1 : end;
		}
		return true;
	}
	return false;
}

static bool
parse_regs(const char *s, struct user_regs_struct *r, struct vec_state *vs)
{
	char buf[512], *save = NULL;

	memset(r, 0, sizeof(*r));
	memset(vs, 0, sizeof(*vs));
	if (!s)
		return true;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			return false;
		*eq = '\0';
		if (!set_gpr(r, tok, strtoull(eq + 1, NULL, 0)) && !set_vec(vs, tok, eq + 1))
			return false;
	}
	return true;
}

static void
fmt_regs(const reg_id *list, unsigned n, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", reg_name(list[i]));
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sort the space separated words of s in place (a canonical set form). */
static void
sort_words(const char *s, char *out, size_t size)
{
	char buf[512], *save = NULL, *w[64];
	size_t n = 0, len = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *tok = strtok_r(buf, " ", &save); tok && n < 64; tok = strtok_r(NULL, " ", &save))
		w[n++] = tok;
	qsort(w, n, sizeof(w[0]), cmp_str);
	out[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? " " : "", w[i]);
}

static const char *const cpu_flag_names[32] = {
	[0] = "cf", [2] = "pf", [4] = "af", [6] = "zf", [7] = "sf", [8] = "tf", [9] = "if",
	[10] = "df", [11] = "of", [12] = "iopl", [14] = "nt", [16] = "rf", [17] = "vm",
	[18] = "ac", [19] = "vif", [20] = "vip", [21] = "id",
};

static void
fmt_cpu_flags(uint32_t f, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	f &= ~(1u << 13);	/* IOPL is two bits; name it once */
	for (unsigned i = 0; i < 32 && len < size; i++)
		if (f >> i & 1)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "",
						cpu_flag_names[i] ? cpu_flag_names[i] : "?");
}

static void
is_set(const char *got, const char *want, const char *name, const char *what)
{
	char g[512], w[512];

	sort_words(got, g, sizeof(g));
	sort_words(want, w, sizeof(w));
	is_str(g, w, "%s: %s", name, what);
}

static void
fmt_mem(const struct insn_event *ev, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < ev->n_mem && len < size; i++) {
		const struct mem_access *m = &ev->mem[i];

		len += (size_t)snprintf(buf + len, size - len, "%s%c:0x%llx:%u%s%s%s",
					i ? " " : "", m->dir == MEM_READ ? 'R' : 'W',
					(unsigned long long)m->addr, m->size,
					m->flags & MEMF_PREFETCH ? "+P" : "",
					m->flags & MEMF_ELEMENT ? "+E" : "",
					m->flags & MEMF_PHANTOM ? "+Z" : "");
	}
}

static const struct {
	const char *name;
	uint32_t bit;
} flag_names[] = {
	{ "rep", INSN_REP }, { "repcond", INSN_REP_COND }, { "memr", INSN_HAS_MEM_READ },
	{ "memw", INSN_HAS_MEM_WRITE }, { "movregs", INSN_MOV_ALL_REGS },
	{ "indirect", INSN_INDIRECT }, { "lock", INSN_LOCK }, { "addr32", INSN_ADDR32 },
	{ "syscall", INSN_SYSCALL }, { "xbegin", INSN_XBEGIN_XEND }, { "invalid", INSN_INVALID },
};

/* All flags in the row must be set, and the listed-able flags not in the
 * row must be clear: the row states the whole set. */
static bool
check_flags(const char *want, uint32_t got, char *why, size_t size)
{
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
		const char *p = strstr(want, flag_names[i].name);
		size_t l = strlen(flag_names[i].name);
		bool listed = false;

		while (p) {
			if ((p == want || p[-1] == ' ') && (p[l] == '\0' || p[l] == ' ')) {
				listed = true;
				break;
			}
			p = strstr(p + 1, flag_names[i].name);
		}
		if (listed != !!(got & flag_names[i].bit)) {
			snprintf(why, size, "flag %s should be %s", flag_names[i].name,
				 listed ? "set" : "clear");
			return false;
		}
	}
	return true;
}

static void
run_row(const struct row *r)
{
	uint8_t bytes[32];
	int n = parse_hex(r->hex, bytes);
	struct user_regs_struct regs;
	struct vec_state vs;
	struct insn_info ii;
	struct insn_event ev;
	char got[512], why[128];
	uint64_t pc;

	if (n <= 0 || !parse_regs(r->regs, &regs, &vs)) {
		ok(0, "%s: bad test row", r->name);
		return;
	}
	pc = regs.rip ? regs.rip : 0x401000;
	regs.rip = pc;
	insn_decode(bytes, (size_t)n, pc, &ii);
	insn_eval(&ii, &regs, insn_needs_vector_state(&ii) ? &vs : NULL, 1, &ev);

	if (r->cat)
		is_str(insn_category_name(&ii), r->cat, "%s: category", r->name);
	if (r->iclass)
		is_str(insn_iclass_name(&ii), r->iclass, "%s: iclass", r->name);
	if (r->rr) {
		fmt_regs(ii.regs_read, ii.n_regs_read, got, sizeof(got));
		is_set(got, r->rr, r->name, "registers read");
	}
	if (r->rw) {
		fmt_regs(ii.regs_written, ii.n_regs_written, got, sizeof(got));
		is_set(got, r->rw, r->name, "registers written");
	}
	if (r->rrf) {
		fmt_regs(ii.regs_read_full, ii.n_regs_read_full, got, sizeof(got));
		is_set(got, r->rrf, r->name, "registers read (full)");
	}
	if (r->rwf) {
		fmt_regs(ii.regs_written_full, ii.n_regs_written_full, got, sizeof(got));
		is_set(got, r->rwf, r->name, "registers written (full)");
	}
	if (r->fr) {
		fmt_cpu_flags(ii.flags_read, got, sizeof(got));
		is_set(got, r->fr, r->name, "flags read");
	}
	if (r->fw) {
		fmt_cpu_flags(ii.flags_written, got, sizeof(got));
		is_set(got, r->fw, r->name, "flags written");
	}
	if (r->seg) {
		fmt_regs(ii.seg_read, ii.n_seg_read, got, sizeof(got));
		is_set(got, r->seg, r->name, "segment registers read");
	}
	if (r->rip) {
		snprintf(got, sizeof(got), "%s%s", ii.reads_rip ? "r" : "", ii.writes_rip ? "w" : "");
		is_str(got, r->rip, "%s: rip read/written", r->name);
	}
	if (r->len)
		is_u64(ii.len, strtoull(r->len, NULL, 0), "%s: length", r->name);
	if (r->rc) {
		ok(ev.flags & EV_REP, "%s: event is a REP iteration", r->name);
		is_u64(ev.rep_count, strtoull(r->rc, NULL, 0), "%s: rep count", r->name);
	}
	if (r->mem) {
		fmt_mem(&ev, got, sizeof(got));
		is_str(got, r->mem, "%s: memory accesses", r->name);
	}
	if (r->br) {
		const char *b = ii.branch == BR_NONE ? "-" : (ev.flags & EV_TAKEN) ? "T" : "N";

		is_str(b, r->br, "%s: branch", r->name);
	}
	if (r->next) {
		if (strcmp(r->next, "?") == 0)
			ok(ev.flags & EV_NEXT_UNKNOWN, "%s: next pc left to the tracer", r->name);
		else
			is_u64(ev.next_pc, strtoull(r->next, NULL, 0), "%s: next pc", r->name);
	}
	if (r->ops)
		is_u64(ii.reg_operand_count, strtoull(r->ops, NULL, 10),
		       "%s: register operand count", r->name);
	if (r->flags) {
		bool good = check_flags(r->flags, ii.flags, why, sizeof(why));

		ok(good, "%s: flags {%s}", r->name, r->flags);
		if (!good)
			diag("  %s", why);
		if (ii.flags & INSN_INVALID) {
			char buf[64];

			ok(ev.flags == EV_INVALID && ev.n_mem == 0 && ev.pc == pc &&
			   memcmp(ii.bytes, bytes, ii.len) == 0,
			   "%s: invalid event keeps pc and bytes, no accesses", r->name);
			is_str(insn_mnemonic_name(&ii), "(bad)", "%s: mnemonic", r->name);
			ok(insn_format(&ii, false, buf, sizeof(buf)) < 0 && strcmp(buf, "(bad)") == 0,
			   "%s: formats as (bad)", r->name);
		}
	}
	{
		/* Every row must also format without overflowing a small buffer. */
		char small[8];

		memset(small, 'x', sizeof(small));
		insn_format(&ii, true, small, sizeof(small));
		ok(memchr(small, '\0', sizeof(small)) != NULL, "%s: formats into 8 bytes", r->name);
	}
}

int
main(void)
{
	size_t nrows = sizeof(rows) / sizeof(rows[0]);

	for (size_t i = 0; i < nrows; i++)
		run_row(&rows[i]);
	diag("%zu encodings", nrows);
	ok(nrows >= 150, "the table covers at least 150 encodings (%zu)", nrows);
	return done_testing();
}
