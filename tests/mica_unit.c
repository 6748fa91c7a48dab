/*
 * Unit tests of the MICA analyses' plumbing: mica.conf and itypes spec
 * file errors (file, line, problem), the text trace reader's errors, the
 * E/H counters and REP rules at boundaries (mica.md §1.5), and `all` and
 * custom lists giving the standalone analyses' bytes.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mica/mica_config.h"
#include "mica/mica_output.h"
#include "mica/mica_run.h"
#include "mica/trace_text.h"
#include "tap.h"

static int
parse_n(const char *text, size_t len, struct mica_config *c, char *err, size_t errsz)
{
	mica_config_init(c);
	err[0] = '\0';
	return mica_config_parse(c, "mica.conf", text, len, err, errsz);
}

static int
parse(const char *text, struct mica_config *c, char *err, size_t errsz)
{
	return parse_n(text, strlen(text), c, err, errsz);
}

static void
config_ok(const char *text, const char *what)
{
	struct mica_config c;
	char err[512];

	ok(parse(text, &c, err, sizeof(err)) == 0, "config accepted: %s", what);
	if (err[0])
		diag("  %s", err);
	mica_config_free(&c);
}

static void
config_err(const char *text, const char *want)
{
	struct mica_config c;
	char err[512];
	int r = parse(text, &c, err, sizeof(err));

	ok(r < 0 && strstr(err, want) != NULL, "config rejected with \"%s\"", want);
	if (r >= 0 || !strstr(err, want))
		diag("  got: %s", r < 0 ? err : "(accepted)");
	mica_config_free(&c);
}

static void
test_config(void)
{
	struct mica_config c;
	char err[512];

	ok(parse("analysis_type: all\ninterval_size: full\n", &c, err, sizeof(err)) == 0 &&
	   c.all && c.analyses == MICA_ALL_SET && c.interval_size == MICA_FULL &&
	   c.block_size == 6 && c.page_size == 12 && !c.append_pid,
	   "all, full, defaults block 6 page 12 append_pid no");
	mica_config_free(&c);
	ok(parse("analysis_type: ppm", &c, err, sizeof(err)) == 0 && c.interval_size == 0,
	   "interval_size absent means 0 (MICA's default); no trailing newline needed");
	mica_config_free(&c);
	ok(parse("analysis_type: ilp,ppm,memstackdist,ppm\ninterval_size: 400\nappend_pid: yes\n",
		 &c, err, sizeof(err)) == 0 &&
	   c.analyses == (MICA_BIT(MICA_ILP) | MICA_BIT(MICA_PPM) | MICA_BIT(MICA_MEMSTACKDIST)) &&
	   !c.all && c.append_pid && c.interval_size == 400,
	   "custom list (an analysis named twice runs once)");
	mica_config_free(&c);
	ok(parse("analysis_type: ppm\ninterval_size: -1\n", &c, err, sizeof(err)) == 0 &&
	   c.interval_size == MICA_FULL, "interval_size -1 is MICA's own 'full'");
	mica_config_free(&c);
	ok(parse("# a comment\n\n  # another\nanalysis_type:ilp_one\nilp_size:   48\n"
		 "interval_size: full\r\n", &c, err, sizeof(err)) == 0 &&
	   c.analyses == MICA_BIT(MICA_ILP_ONE) && c.ilp_size == 48,
	   "comments, blank lines, no space after the colon, CRLF");
	mica_config_free(&c);
	config_err("analysis_type: ilp\ninterval_size: -400\n",
		   "mica.conf:2: interval_size must be 'full' or a number of instructions "
		   "(0 or more), not '-400'");
	/* Negative sizes never close an interval: refused for every analysis,
	 * not only those with ILP's multiple-of-200 check. */
	for (int a = 0; a < MICA_N_ANALYSES; a++) {
		char text[128];

		snprintf(text, sizeof(text), "analysis_type: %s\nilp_size: 8\n"
			 "interval_size: -9223372036854775808\n", mica_analysis_name(a));
		config_err(text, "mica.conf:3: interval_size must be 'full' or a number of "
			   "instructions (0 or more), not '-9223372036854775808'");
	}
	config_err("analysis_type: ppm\ninterval_size: -2\n", "not '-2'");
	config_err("analysis_type: ilp,ppm\ninterval_size: 400\n\nanalysis_type: ppm\n",
		   "mica.conf:4: analysis_type given twice (first at line 1): keep one");
	config_err("analysis_type: ppm\ninterval_size: full\ninterval_size: 1000\n",
		   "mica.conf:3: interval_size given twice (first at line 2)");
	config_err("analysis_type: ppm\nappend_pid: no\nappend_pid: no\n",
		   "mica.conf:3: append_pid given twice");
	{
		static const char nul[] = "analysis_type: ppm\ninterval_size: 1000\0 0\n";
		struct mica_config c2;
		char e2[512];

		ok(parse_n(nul, sizeof(nul) - 1, &c2, e2, sizeof(e2)) < 0 &&
		   strstr(e2, "mica.conf:2: a NUL byte"), "a NUL byte is refused, with its line");
		diag("  %s", e2);
		mica_config_free(&c2);
	}
	config_ok("analysis_type: reg\ninterval_size: 7\n", "any S without ILP");

	config_err("", "mica.conf: invalid config entry: the file is empty");
	config_err("interval_size: full\n", "mica.conf: no analysis_type");
	config_err("analysis_type: all\nfoo: 1\n",
		   "mica.conf:2: unknown config parameter 'foo' (known: analysis_type, interval_size, "
		   "ilp_size, block_size, page_size, itypes_spec_file, append_pid)");
	config_err("analysis_type : all\n", "mica.conf:1: unknown config parameter 'analysis_type '");
	config_err("interval_size: full\nanalysis_type: ipl\n",
		   "mica.conf:2: unknown analysis type 'ipl' (valid: all, ilp, ilp_one");
	config_err("analysis_type: ilp,all\n", "mica.conf:1: unknown analysis type 'all'");
	config_err("analysis_type: ilp,\n", "ends with a comma");
	config_err("analysis_type: custom\n", "mica.conf:1: analysis_type 'custom' needs the list");
	config_err("analysis_type: ppm\n\ninterval_size: 10k\n",
		   "mica.conf:3: interval_size must be 'full' or a number of instructions (0 or more), not '10k'");
	config_err("analysis_type: ppm\nappend_pid: true\n",
		   "mica.conf:2: append_pid can be either yes or no, not 'true'");
	config_err("analysis_type: ppm\nblock_size: 64\n", "mica.conf:2: block_size must be");
	config_err("analysis_type: ppm\npage_size: x\n", "mica.conf:2: page_size must be");
	config_err("analysis_type: ilp_one\ninterval_size: full\n",
		   "mica.conf:1: \"ilp_one\" needs a window size");
	config_err("analysis_type: ilp_one\nilp_size: -1\n", "mica.conf:2: ilp_size must be");
	config_err("analysis_type: all\ninterval_size: 1100\n",
		   "interval_size 1100 is not a multiple of the ILP buffer size (200)");
	config_err("analysis_type: ppm,ilp_one\nilp_size: 8\ninterval_size: 100\n",
		   "not a multiple of the ILP buffer size");
	config_err("analysis_type: ppm\ninterval_size:\n", "mica.conf:2:");
	config_err("analysis_type: ppm\nnonsense\n", "mica.conf:2: invalid config entry 'nonsense'");
}

static void
spec_err_n(const char *text, size_t len, const char *want)
{
	char err[4096] = "";
	struct itypes_spec *s = itypes_spec_parse("my.spec", text, len, err, sizeof(err));

	ok(!s && strstr(err, want), "spec rejected with \"%s\"", want);
	if (s || !strstr(err, want))
		diag("  got: %s", s ? "(accepted)" : err);
	itypes_spec_free(s);
}

static void
spec_err(const char *text, const char *want)
{
	spec_err_n(text, strlen(text), want);
}

static void
test_spec(void)
{
	char err[4096];
	const char *text = "0, 0, SPECIAL, mem_read\n\n# fp\n1, 0, CATEGORY, X87_ALU\n"
		"1,1,OPCODE,  FADD\n2, 0, CATEGORY, NOP\n2, 1, OPCODE, REP_MOVSB\n"
		"2, 2, SPECIAL, reg_transfer";
	struct itypes_spec *s = itypes_spec_parse("my.spec", text, strlen(text), err, sizeof(err));

	ok(s && s->n_groups == 3 && s->n_idents == 6, "spec: 3 groups, 6 identifiers "
	   "(blank and # lines skipped)");
	if (!s)
		diag("  %s", err);
	if (s) {
		is_str(s->idents[1].name, "X87_ALU", "spec: identifier");
		ok(s->idents[2].kind == ITYPES_OPCODE && s->idents[2].group == 1 &&
		   s->idents[2].subgroup == 1, "spec: OPCODE in group 1 subgroup 1");
		is_str(s->idents[2].name, "FADD", "spec: blanks after the comma skipped");
	}
	itypes_spec_free(s);
	{
		static const char def[] =
			"0, 0, SPECIAL, mem_read\n1, 0, SPECIAL, mem_write\n2, 0, CATEGORY, COND_BR\n"
			"2, 1, CATEGORY, UNCOND_BR\n2, 2, OPCODE, LEAVE\n2, 3, OPCODE, RET_NEAR\n"
			"2, 4, OPCODE, CALL_NEAR\n3, 0, CATEGORY, LOGICAL\n3, 1, CATEGORY, DATAXFER\n"
			"3, 2, CATEGORY, BINARY\n3, 3, CATEGORY, FLAGOP\n3, 4, CATEGORY, BITBYTE\n"
			"4, 0, CATEGORY, X87_ALU\n4, 1, CATEGORY, FCMOV\n4, 2, CATEGORY, LOGICAL_FP\n"
			"5, 0, CATEGORY, WIDENOP\n5, 1, CATEGORY, NOP\n6, 0, SPECIAL, reg_transfer\n";

		s = itypes_spec_parse("itypes_default.spec", def, sizeof(def) - 1, err, sizeof(err));
		ok(s && s->n_groups == 7, "MICA's shipped itypes_default.spec is accepted");
		itypes_spec_free(s);
	}
	/* Identifiers that MICA accepts but that can never match. */
	spec_err("0, 0, CATEGORY, NOP\n1, 0, CATEGORY, COND_BRANCH\n",
		 "my.spec:2: unknown CATEGORY 'COND_BRANCH' (valid, XED's categories: ");
	spec_err("0, 0, CATEGORY, NOP\n1, 0, CATEGORY, COND_BRANCH\n",
		 "COND_BR, ");
	spec_err("0, 0, OPCODE, ret\n",
		 "my.spec:1: unknown OPCODE 'ret': did you mean RET_NEAR? (valid: XED iclass names");
	spec_err("0, 0, OPCODE, FROBNICATE\n",
		 "my.spec:1: unknown OPCODE 'FROBNICATE' (valid: XED iclass names, upper case");
	spec_err("0, 0, SPECIAL, mem_reads\n",
		 "my.spec:1: unknown SPECIAL identifier 'mem_reads' (valid: mem_read, mem_write, "
		 "reg_transfer)");
	spec_err("0, 0, CATEGORY, NOP \n", "my.spec:1: identifier 'NOP' ends with a blank");
	spec_err("0, 0, CATEGORY, NOP\r\n1, 0, CATEGORY, SSE\r\n",
		 "my.spec:1: identifier 'NOP' ends with a carriage return: MICA reads the rest of "
		 "the line as the name, which then never matches; remove it (a CRLF file");
	spec_err_n("0, 0, CATEGORY, NOP\n1, 0, CATEGORY, S\0SE\n", 38,
		   "my.spec:2: a NUL byte");
	s = itypes_spec_builtin();
	ok(s && s->n_groups == 12 && s->n_idents == 31, "built-in groups: 12 groups, 31 identifiers");
	itypes_spec_free(s);

	spec_err("0, 0, CATEGORY, NOP\n1, 0, FOO, BAR\n",
		 "my.spec:2: unknown identifier type 'FOO' (valid: CATEGORY, OPCODE, SPECIAL)");
	spec_err("1, 0, CATEGORY, NOP\n", "my.spec:1: group 1 out of order: the first group must be 0");
	spec_err("0, 0, CATEGORY, NOP\n2, 0, CATEGORY, NOP\n",
		 "my.spec:2: group 2 out of order: groups must be numbered 0, 1, 2... in ascending "
		 "order (expected 0 or 1)");
	spec_err("0, 0, CATEGORY, NOP\n0, 2, CATEGORY, SSE\n", "my.spec:2: subgroup 2 out of order");
	spec_err("0, 1, CATEGORY, NOP\n", "my.spec:1: subgroup 1 out of order");
	spec_err("0, 0, CATEGORY NOP\n", "my.spec:1: expected '<group>, <subgroup>, <TYPE>, "
		 "<identifier>': no identifier");
	spec_err("0; 0, CATEGORY, NOP\n", "my.spec:1: expected '<group>, <subgroup>");
	spec_err("\n# nothing\n", "my.spec: no groups");
}

static void
trace_err(const char *text, const char *want)
{
	struct trace_text *t = trace_text_new();
	struct insn_event ev;
	char err[512] = "";
	size_t pos = 0;
	unsigned line = 0;
	int r;

	while ((r = trace_text_next(t, text, strlen(text), &pos, &line, &ev, err, sizeof(err))) > 0)
		;
	ok(r < 0 && strstr(err, want), "trace rejected with \"%s\"", want);
	if (r >= 0 || !strstr(err, want))
		diag("  got: %s", r < 0 ? err : "(accepted)");
	trace_text_free(t);
}

static void
test_trace_text(void)
{
	struct trace_text *t = trace_text_new();
	struct insn_event ev, ev2;
	const struct mica_names *nm = trace_text_names(t);
	char err[256];
	const char *l1 = "pc=0x1012 sz=2 cat=STRINGOP mn=REP_MOVSB mr=0x9000:1 mr2=0x9100 "
		"mw=0xa000:1 rep=1:3 r=5,6 w=7 ops=3";
	const char *l2 = "pc=0x1012 sz=2 cat=STRINGOP mn=REP_MOVSB mr=0x9001:1 mr2=0x9101 "
		"mw=0xa001:1 rep=0:2 r=5,6 w=7 ops=3";

	ok(trace_text_parse_line(t, l1, strlen(l1), &ev, err, sizeof(err)) == 1, "parse a REP line");
	ok(ev.pc == 0x1012 && ev.info->len == 2 && ev.n_mem == 3 && ev.mem[1].size == 1 &&
	   ev.mem[1].addr == 0x9100 && ev.mem[2].dir == MEM_WRITE &&
	   ev.flags == (EV_REP | EV_REP_FIRST) && ev.rep_count == 3 &&
	   ev.info->n_regs_read == 2 && ev.info->regs_read[1] == 6 &&
	   ev.info->regs_written[0] == 7 && ev.info->reg_operand_count == 3 &&
	   (ev.info->flags & (INSN_HAS_MEM_READ | INSN_HAS_MEM_WRITE | INSN_REP)) ==
	   (INSN_HAS_MEM_READ | INSN_HAS_MEM_WRITE | INSN_REP),
	   "fields: mr2 sized as mr, rep=1:3 first with count 3, registers, ops");
	is_str(nm->category(nm->ctx, ev.info), "STRINGOP", "category name");
	is_str(nm->iclass(nm->ctx, ev.info), "REP_MOVSB", "iclass name");
	ok(trace_text_parse_line(t, l2, strlen(l2), &ev2, err, sizeof(err)) == 1 &&
	   ev2.info == ev.info && ev2.flags == EV_REP && ev2.rep_count == 2,
	   "the same static instruction is interned once");
	ok(trace_text_parse_line(t, "pc=0x10 br=T", 12, &ev, err, sizeof(err)) == 1 &&
	   ev.info->branch == BR_COND && (ev.flags & EV_TAKEN), "br=T: a taken COND_BR");
	is_str(nm->category(nm->ctx, ev.info), "COND_BR", "br= implies COND_BR");
	ok(trace_text_parse_line(t, "  # note", 8, &ev, err, sizeof(err)) == 0, "comment line");
	trace_text_free(t);

	trace_err("pc=0x1\npc=0x2 foo=3\n", "2: unknown field 'foo'");
	trace_err("pc=0x1\n\npc=zz\n", "3: bad number in 'pc=zz'");
	trace_err("sz=2\n", "1: no pc= field");
	trace_err("pc=1 mr=0x100\n", "1: 'mr=0x100': a memory access is EA:SIZE");
	trace_err("pc=1 mr2=0x100\n", "1: mr2= without mr=");
	trace_err("pc=1 br=X\n", "1: br= is T (taken) or N (not taken)");
	trace_err("pc=1 r=0\n", "1: r=: register ids are numbers from 1 to 65535");
	trace_err("pc=1 rep=2:1\n", "1: rep= is FIRST:COUNT");
	trace_err("pc=1 pc=2\n", "1: field 'pc' given twice");
	trace_err("pc=1 br=T cat=BINARY\n", "1: br= implies cat=COND_BR");
}

/* ---- the driver ---- */

struct collect {
	uint64_t ins[16], aligned[16];
	unsigned n;
};

static int
collect_cb(void *arg, const struct mica_interval *iv)
{
	struct collect *c = arg;

	if (c->n < 16) {
		c->ins[c->n] = iv->ins;
		c->aligned[c->n] = iv->ins_aligned;
	}
	c->n++;
	return 0;
}

static void
run_text(const char *conf, const char *trace, struct collect *col)
{
	struct mica_config cfg;
	char err[512];
	struct trace_text *t = trace_text_new();
	struct mica_run *run;
	struct insn_event ev;
	size_t pos = 0;
	unsigned line = 0;

	memset(col, 0, sizeof(*col));
	mica_config_init(&cfg);
	if (mica_config_parse(&cfg, "test", conf, strlen(conf), err, sizeof(err)) < 0) {
		diag("%s", err);
		return;
	}
	run = mica_run_new(&cfg, trace_text_names(t), 0, collect_cb, col, err, sizeof(err));
	size_t len = strlen(trace);

	while (trace_text_next(t, trace, len, &pos, &line, &ev, err, sizeof(err)) > 0)
		mica_run_event(run, &ev);
	mica_run_finish(run);
	mica_run_free(run);
	trace_text_free(t);
	mica_config_free(&cfg);
}

static void
test_counters(void)
{
	struct collect c;
	const char *rep = "pc=1\n"
		"pc=2 mr=0x10:1 rep=1:3\npc=2 mr=0x11:1 rep=0:2\npc=2 mr=0x12:1 rep=0:1\n"
		"pc=3\n";

	run_text("analysis_type: reg\ninterval_size: 2\n", rep, &c);
	ok(c.n == 2 && c.ins[0] == 2 && c.aligned[0] == 2 && c.ins[1] == 3 && c.aligned[1] == 1,
	   "a REP's first iteration closes the interval; its other iterations go to the next");
	run_text("analysis_type: reg\ninterval_size: full\n", rep, &c);
	ok(c.n == 1 && c.ins[0] == 5 && c.aligned[0] == 3, "full mode: E = 5, H = 3");
	run_text("analysis_type: reg\n", "pc=2 mw=0x10:1 rep=1:0\npc=3\npc=4\n", &c);
	ok(c.n == 2 && c.ins[0] == 1 && c.aligned[0] == 0 && c.ins[1] == 2,
	   "interval_size absent (0): a leading zero-count REP closes an interval (Q12)");
	run_text("analysis_type: reg\ninterval_size: 2\n", "pc=1\npc=2\npc=3\npc=4\n", &c);
	ok(c.n == 3 && c.ins[2] == 0, "a run ending on a boundary has an empty last interval");
}

/* `all` and custom lists write the standalone analyses' bytes. */
static char *
output_of(const char *conf, const char *trace, const char *file)
{
	struct mica_config cfg;
	char err[512], *res = NULL;
	struct trace_text *t = trace_text_new();
	struct mica_output *out;
	struct mica_run *run;
	struct insn_event ev;
	size_t pos = 0;
	unsigned line = 0;

	mica_config_init(&cfg);
	if (mica_config_parse(&cfg, "test", conf, strlen(conf), err, sizeof(err)) < 0) {
		diag("%s", err);
		trace_text_free(t);
		return NULL;
	}
	out = mica_output_new(&cfg, 1);
	run = mica_run_new(&cfg, trace_text_names(t), 0, mica_output_add, out, err, sizeof(err));
	size_t len = strlen(trace);

	while (trace_text_next(t, trace, len, &pos, &line, &ev, err, sizeof(err)) > 0)
		mica_run_event(run, &ev);
	mica_run_finish(run);
	for (size_t i = 0; i < out->n_files; i++)
		if (strcmp(out->files[i].name, file) == 0)
			res = strndup(out->files[i].data ? out->files[i].data : "", out->files[i].len);
	mica_run_free(run);
	mica_output_free(out);
	trace_text_free(t);
	mica_config_free(&cfg);
	return res;
}

static char *
gen_trace(unsigned n)
{
	static const char *const cats[] = { "DATAXFER", "BINARY", "LOGICAL", "SSE", "PUSH", "POP" };
	size_t cap = (size_t)n * 96 + 1, len = 0;
	char *s = malloc(cap);
	uint64_t x = 12345;

	for (unsigned i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		unsigned r = (unsigned)(x >> 33), pc = 0x1000 + (r % 300) * 4;

		if (r % 7 == 0)
			len += (size_t)snprintf(s + len, cap - len, "pc=0x%x sz=2 br=%c\n", pc,
						(r >> 8) % 3 ? 'T' : 'N');
		else if (r % 11 == 0)
			len += (size_t)snprintf(s + len, cap - len,
						"pc=0x%x sz=2 cat=STRINGOP mn=REP_MOVSB mr=0x%x:1 "
						"mw=0x%x:1 rep=%u:%u r=3,4 w=3,4\n", pc,
						0x9000 + i, 0xa000 + i, i % 3 == 0, (r >> 4) % 3);
		else
			len += (size_t)snprintf(s + len, cap - len,
						"pc=0x%x sz=4 cat=%s mn=X r=%u w=%u ops=%u mr=0x%x:8 mw=0x%x:4\n",
						pc, cats[r % 6], 1 + (r >> 5) % 8, 1 + (r >> 9) % 8,
						(r >> 12) % 4, (r >> 3) % 65536 * 8,
						0x100000 + (r >> 14) % 4096 * 4);
	}
	return s;
}

static void
test_all_and_custom(void)
{
	static const struct {
		const char *type, *file;
	} std[] = {
		{ "ilp", "ilp_phases_int_pin.out" },
		{ "itypes", "itypes_phases_int_pin.out" },
		{ "ppm", "ppm_phases_int_pin.out" },
		{ "reg", "reg_phases_int_pin.out" },
		{ "stride", "stride_phases_int_pin.out" },
		{ "memfootprint", "memfootprint_phases_int_pin.out" },
		{ "memstackdist", "memstackdist_phases_int_pin.out" },
	};
	char *trace = gen_trace(20000);

	for (size_t i = 0; i < sizeof(std) / sizeof(std[0]); i++) {
		char conf[128];

		snprintf(conf, sizeof(conf), "analysis_type: %s\ninterval_size: 1000\n", std[i].type);
		char *alone = output_of(conf, trace, std[i].file);
		char *all = output_of("analysis_type: all\ninterval_size: 1000\n", trace, std[i].file);
		char *custom = output_of("analysis_type: memstackdist,ilp,itypes,ppm,reg,stride,"
					 "memfootprint\ninterval_size: 1000\n", trace, std[i].file);

		ok(alone && all && strcmp(alone, all) == 0 && strlen(alone) > 100,
		   "all gives standalone %s's bytes (%zu)", std[i].type, alone ? strlen(alone) : 0);
		ok(alone && custom && strcmp(alone, custom) == 0,
		   "a custom list gives standalone %s's bytes", std[i].type);
		free(alone);
		free(all);
		free(custom);
	}
	char *a = output_of("analysis_type: ilp_one\nilp_size: 64\ninterval_size: 1000\n", trace,
			    "ilp-win64_phases_int_pin.out");
	char *b = output_of("analysis_type: ilp_one,ilp\nilp_size: 64\ninterval_size: 1000\n", trace,
			    "ilp-win64_phases_int_pin.out");
	char *c = output_of("analysis_type: ilp\ninterval_size: 1000\n", trace, "ilp_phases_int_pin.out");
	char *d = output_of("analysis_type: ilp_one,ilp\nilp_size: 64\ninterval_size: 1000\n", trace,
			    "ilp_phases_int_pin.out");

	ok(a && b && strcmp(a, b) == 0, "ilp_one beside ilp: ilp_one's standalone bytes");
	ok(c && d && strcmp(c, d) == 0, "ilp beside ilp_one: ilp's standalone bytes");
	free(a);
	free(b);
	free(c);
	free(d);
	a = output_of("analysis_type: itypes\ninterval_size: full\n", "pc=1 cat=DATAXFER mn=MOV regxfer\n",
		      "itypes_full_int_pin.out");
	b = output_of("analysis_type: all\ninterval_size: full\n", "pc=1 cat=DATAXFER mn=MOV regxfer\n",
		      "itypes_full_int_pin.out");
	is_str(a, "1 1 0 0 0 1 0 0 0 0 0 0 0 1\n ", "itypes: reg_transfer matches standalone");
	is_str(b, "1 1 0 0 0 1 0 0 0 0 0 0 0 0\n ", "all: reg_transfer never matches (Q5)");
	free(a);
	free(b);
	/* Ranges are inclusive: an access or an instruction that ends on the
	 * last byte of a block or a page touches that block and page only. */
	a = output_of("analysis_type: memfootprint\ninterval_size: full\n",
		      "pc=0x40003c sz=4 mr=0x1038:8\npc=0x400000 sz=4 mr=0x1ff8:8\n",
		      "memfootprint_full_int_pin.out");
	is_str(a, "2 1 1 1\n ", "memfootprint: accesses ending on a block's last byte, one block each");
	free(a);
	/* The same with 8-byte blocks (pages and blocks then kept apart). */
	a = output_of("analysis_type: memfootprint\ninterval_size: full\nblock_size: 3\n",
		      "pc=0x400038 sz=8 mr=0x1038:8\npc=0x400ff8 sz=8 mr=0x1ff8:8\n",
		      "memfootprint_full_int_pin.out");
	is_str(a, "2 1 2 1\n ", "memfootprint, 8-byte blocks: accesses ending on a block's or a page's "
	       "last byte, one block and page each");
	free(a);
	a = output_of("analysis_type: ppm\nappend_pid: yes\ninterval_size: full\n", "pc=1 br=T\n",
		      "ppm_full_int_1_pin.out");
	ok(a != NULL, "append_pid: ppm_full_int_<pid>_pin.out");
	free(a);
	free(trace);
}

/* stride's bins at each threshold D and D + 1 (mica.md §3.5): one read
 * operand and one write operand, 1-byte accesses (so the stride is the
 * distance between the addresses), the writes going down. */
static void
test_stride_bins(void)
{
	static const uint64_t d[] = { 0, 8, 9, 64, 65, 512, 513, 4096, 4097, 32768, 32769,
				      262144, 262145 };
	char trace[4096], *got;
	size_t len = 0;
	uint64_t r = 0x100000, w = 0x900000;

	/* the first accesses: 0x100000 and 0x900000 from 0, beyond 262144 */
	len += (size_t)snprintf(trace + len, sizeof(trace) - len, "pc=0xa mr=0x%" PRIx64 ":1\n"
				"pc=0xb mw=0x%" PRIx64 ":1\n", r, w);
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		r += d[i];
		w -= d[i];
		len += (size_t)snprintf(trace + len, sizeof(trace) - len, "pc=0xa mr=0x%" PRIx64 ":1\n"
					"pc=0xb mw=0x%" PRIx64 ":1\n", r, w);
	}
	got = output_of("analysis_type: stride\ninterval_size: full\n", trace,
			"stride_full_int_pin.out");
	/* per direction: 14 accesses; <= 0: 1, <= 8: 2, <= 64: 4, ... <= 262144: 12 */
	is_str(got, "14 1 2 4 6 8 10 12 1 2 4 6 8 10 12 14 1 2 4 6 8 10 12 1 2 4 6 8 10 12\n",
	       "stride: strides D and D + 1 at every threshold D, both directions");
	free(got);
}

int
main(void)
{
	test_config();
	test_spec();
	test_trace_text();
	test_counters();
	test_all_and_custom();
	test_stride_bins();
	return done_testing();
}
