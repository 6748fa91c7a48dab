/*
 * micactl mca: llvm-mca's static analysis of machine code with micad's
 * pipeline model.  Input: assembly (assembled with the system 'as', split
 * into LLVM-MCA-BEGIN/END regions) or hex bytes (--hex, one block per
 * line); output: llvm-mca's views in llvm-mca's layout, or --json.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "decoder.h"
#include "sched_map.h"
#include "sched_pipeline.h"
#include "util.h"

struct mca_opts {
	const char *mcpu;
	unsigned iterations, dispatch, tl_max_iter, tl_max_cycles;
	bool hex, json, timeline, resource_pressure, instruction_info, intel;
	bool noalias;
};

struct region {
	char *name;
	uint8_t *bytes;
	size_t n;
};

static char *
read_all(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	size_t got;

	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0) {
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Run a program, stderr captured into *err; returns its exit status. */
static int
run(char *const argv[], char **err)
{
	char path[] = "/tmp/micactl-mca-errXXXXXX";
	int fd = mkstemp(path), status = -1;
	pid_t pid;

	*err = NULL;
	if (fd < 0)
		return -1;
	unlink(path);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 2);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid) {
		FILE *f = fdopen(fd, "r");
		size_t len;

		if (f) {
			rewind(f);
			*err = read_all(f, &len);
			fclose(f);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Assemble text with the system assembler; the .text bytes into r. */
static int
assemble(const char *text, bool intel, struct region *r)
{
	char dir[] = "/tmp/micactl-mcaXXXXXX";
	char *src, *obj, *bin, *err = NULL;
	FILE *f;
	int ret = -1;

	if (!mkdtemp(dir)) {
		perror_msg("mkdtemp");
		return -1;
	}
	src = xasprintf("%s/in.s", dir);
	obj = xasprintf("%s/in.o", dir);
	bin = xasprintf("%s/in.bin", dir);
	f = fopen(src, "w");
	if (!f) {
		perror_msg("%s", src);
		goto out;
	}
	fprintf(f, "%s%s\n", intel ? ".intel_syntax noprefix\n" : "", text);
	fclose(f);
	{
		char *as_argv[] = { "as", "--64", "-o", obj, src, NULL };
		char *oc_argv[] = { "objcopy", "-O", "binary", "-j", ".text", obj, bin, NULL };

		if (run(as_argv, &err) != 0) {
			error_msg("the assembler rejected the input:\n%s", err ? err : "");
			goto out;
		}
		free(err);
		if (run(oc_argv, &err) != 0) {
			error_msg("objcopy failed:\n%s", err ? err : "");
			goto out;
		}
	}
	f = fopen(bin, "rb");
	if (!f) {
		perror_msg("%s", bin);
		goto out;
	}
	r->bytes = (uint8_t *)read_all(f, &r->n);
	fclose(f);
	ret = 0;
out:
	free(err);
	unlink(src);
	unlink(obj);
	unlink(bin);
	rmdir(dir);
	free(src);
	free(obj);
	free(bin);
	return ret;
}

static struct region *
add_region(struct region **rs, size_t *n, const char *name)
{
	*rs = xreallocarray(*rs, *n + 1, sizeof(**rs));
	memset(&(*rs)[*n], 0, sizeof(**rs));
	(*rs)[*n].name = xstrdup(name ? name : "");
	return &(*rs)[(*n)++];
}

static int
parse_hex(char *text, struct region **rs, size_t *nr)
{
	unsigned lineno = 0;

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		struct region *r;
		size_t len;

		lineno++;
		len = strcspn(line, ",# \t\r");
		if (!len)
			continue;
		if (len % 2) {
			error_msg("line %u: odd number of hex digits", lineno);
			return -1;
		}
		r = add_region(rs, nr, NULL);
		r->bytes = xmalloc(len / 2 + 1);
		for (size_t i = 0; i < len; i += 2) {
			int hi = hex_digit(line[i]), lo = hex_digit(line[i + 1]);

			if (hi < 0 || lo < 0) {
				error_msg("line %u: '%c%c' is not hex", lineno, line[i], line[i + 1]);
				return -1;
			}
			r->bytes[r->n++] = (uint8_t)(hi << 4 | lo);
		}
	}
	return 0;
}

/* Split assembly into LLVM-MCA-BEGIN/END regions (the whole text when
 * there are none) and assemble each. */
static int
parse_asm(char *text, bool intel, struct region **rs, size_t *nr)
{
	bool any = strstr(text, "LLVM-MCA-BEGIN") != NULL;
	char *cur = xstrdup(""), *name = NULL;
	bool in = !any;
	int ret = 0;

	for (char *line = text, *next; line && *line; line = next) {
		char *m;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if ((m = strstr(line, "LLVM-MCA-BEGIN"))) {
			m += strlen("LLVM-MCA-BEGIN");
			m += strspn(m, " \t");
			free(name);
			name = xstrdup(m);
			in = true;
			continue;
		}
		if (strstr(line, "LLVM-MCA-END")) {
			if (in) {
				struct region *r = add_region(rs, nr, name);

				if (assemble(cur, intel, r) < 0)
					ret = -1;
			}
			cur[0] = '\0';
			in = false;
			continue;
		}
		if (in) {
			char *n2 = xasprintf("%s%s\n", cur, line);

			free(cur);
			cur = n2;
		}
	}
	if (ret == 0 && in) {
		struct region *r = add_region(rs, nr, name);

		if (assemble(cur, intel, r) < 0)
			ret = -1;
	}
	free(cur);
	free(name);
	return ret;
}

struct block {
	unsigned n;
	struct sched_insn *si;
	char (*text)[96];
};

static void
block_free(struct block *b)
{
	free(b->si);
	free(b->text);
	memset(b, 0, sizeof(*b));
}

static int
build_block(const struct sched_model *model, const struct region *r, bool intel, struct block *b)
{
	memset(b, 0, sizeof(*b));
	for (size_t off = 0; off < r->n;) {
		struct insn_info ii;
		struct sched_mapping m;
		char buf[96];

		if (insn_decode(r->bytes + off, r->n - off, off, &ii) < 0) {
			char hex[64] = "";

			for (size_t i = 0; i < 8 && off + i < r->n; i++)
				snprintf(hex + 3 * i, sizeof(hex) - 3 * i, "%02x ", r->bytes[off + i]);
			error_msg("bytes at offset %zu do not decode: %s", off, hex);
			block_free(b);
			return -1;
		}
		if (sched_map(r->bytes + off, r->n - off, &m) < 0) {
			insn_format(&ii, !intel, buf, sizeof(buf));
			error_msg("no LLVM opcode for '%s' at offset %zu (looked for %s)", buf, off, m.tried);
			block_free(b);
			return -1;
		}
		b->si = xreallocarray(b->si, b->n + 2, sizeof(*b->si));
		b->text = xreallocarray(b->text, b->n + 2, sizeof(*b->text));
		if (m.lock) {
			sched_insn_lock_prefix(model, &b->si[b->n]);
			snprintf(b->text[b->n++], sizeof(b->text[0]), "lock");
		}
		if (sched_insn_init(model, &ii, &m, &b->si[b->n]) < 0)
			warning_msg("%s has no data for %s", model->name, sched_opcode_names[m.opcode]);
		insn_format(&ii, !intel, buf, sizeof(buf));
		{
			/* llvm-mca separates mnemonic and operands with a tab. */
			char *sp = strchr(buf, ' ');

			if (sp)
				*sp = '\t';
		}
		snprintf(b->text[b->n++], sizeof(b->text[0]), "%s", buf);
		off += ii.len;
	}
	return 0;
}

static void
print_value(FILE *o, double v)
{
	if (v == 0.0) {
		fputs(" -     ", o);
		return;
	}
	fprintf(o, "%.2f", v);
	fputs(v < 10.0 ? "   " : v < 100.0 ? "  " : " ", o);
}

/* "[3]" for a one-unit resource, "[3.1]" for unit 1 of a two-unit one:
 * llvm-mca's resource labels. */
static void
resource_label(const struct sched_resource *d, unsigned base, unsigned u, char *h, size_t size)
{
	if (d->units > 1)
		snprintf(h, size, "[%u.%u]", base, u);
	else
		snprintf(h, size, "[%u]", base);
}

static void
print_col_header(FILE *o, const struct sched_result *res, const struct sched_model *model)
{
	unsigned base = 0;

	for (unsigned i = 0; i < model->n_resources; i++) {
		const struct sched_resource *d = &model->resources[i];

		if (d->is_group)
			continue;
		for (unsigned u = 0; u < d->units; u++) {
			char h[16];

			resource_label(d, base, u, h, sizeof(h));
			fprintf(o, "%-7s", h);
		}
		base++;
	}
	(void)res;
}

static void
print_views(FILE *o, const struct mca_opts *opt, const struct sched_model *model,
	    const struct block *b, const struct sched_result *res)
{
	double cyc = (double)res->total_cycles;

	fprintf(o, "Iterations:        %u\n", res->iterations);
	fprintf(o, "Instructions:      %llu\n", (unsigned long long)res->total_insns);
	fprintf(o, "Total Cycles:      %llu\n", (unsigned long long)res->total_cycles);
	fprintf(o, "Total uOps:        %llu\n\n", (unsigned long long)res->total_uops);
	fprintf(o, "Dispatch Width:    %u\n", res->dispatch_width);
	fprintf(o, "uOps Per Cycle:    %.2f\n", res->total_uops / cyc);
	fprintf(o, "IPC:               %.2f\n", res->total_insns / cyc);
	fprintf(o, "Block RThroughput: %.1f\n", res->block_rthroughput);

	if (opt->instruction_info) {
		fprintf(o, "\n\nInstruction Info:\n[1]: #uOps\n[2]: Latency\n[3]: RThroughput\n"
			"[4]: MayLoad\n[5]: MayStore\n[6]: HasSideEffects (U)\n\n"
			"[1]    [2]    [3]    [4]    [5]    [6]    Instructions:\n");
		for (unsigned i = 0; i < b->n; i++) {
			const struct sched_insn *s = &b->si[i];

			fprintf(o, " %-6u %-5u %.2f%s", s->uops, s->latency, s->rthroughput,
				s->rthroughput < 10 ? "   " : s->rthroughput < 100 ? "  " : " ");
			fprintf(o, "%s%s%s%s\n", s->may_load ? " *     " : "       ",
				s->may_store ? " *     " : "       ",
				s->has_side_effects ? " U     " : "       ", b->text[i]);
		}
	}
	if (opt->resource_pressure) {
		unsigned base = 0, col = 0;

		fprintf(o, "\n\nResources:\n");
		for (unsigned i = 0; i < model->n_resources; i++) {
			const struct sched_resource *d = &model->resources[i];

			if (d->is_group)
				continue;
			for (unsigned u = 0; u < d->units; u++) {
				char h[16];

				resource_label(d, base, u, h, sizeof(h));
				fprintf(o, "%-6s- %s\n", h, d->name);
				col++;
			}
			base++;
		}
		fprintf(o, "\n\nResource pressure per iteration:\n");
		print_col_header(o, res, model);
		fputc('\n', o);
		for (unsigned c = 0; c < res->n_columns; c++) {
			double sum = 0;

			for (unsigned i = 0; i < b->n; i++)
				sum += res->pressure[i * res->n_columns + c];
			print_value(o, sum / res->iterations);
		}
		fprintf(o, "\n\nResource pressure by instruction:\n");
		print_col_header(o, res, model);
		fprintf(o, "Instructions:\n");
		for (unsigned i = 0; i < b->n; i++) {
			for (unsigned c = 0; c < res->n_columns; c++)
				print_value(o, res->pressure[i * res->n_columns + c] / res->iterations);
			fprintf(o, "%s\n", b->text[i]);
		}
		(void)col;
	}
	if (opt->timeline && res->timeline_iterations) {
		unsigned last = 0, rows = res->timeline_iterations * b->n;

		for (unsigned k = 0; k < rows; k++)
			if (res->timeline[k].retired > last)
				last = res->timeline[k].retired;
		if (last >= opt->tl_max_cycles)
			last = opt->tl_max_cycles - 1;
		fprintf(o, "\n\nTimeline view:\n");
		if (last >= 10) {
			fprintf(o, "%10s", "");
			for (unsigned c = 0; c <= last; c++)
				fputc(((c / 10) & 1) ? '0' + (int)(c % 10) : ' ', o);
			fputc('\n', o);
		}
		fprintf(o, "%-10s", "Index");
		for (unsigned c = 0; c <= last; c++)
			fputc(((c / 10) & 1) ? ' ' : '0' + (int)(c % 10), o);
		fputs("\n\n", o);
		for (unsigned k = 0; k < rows; k++) {
			const struct sched_timeline_entry *t = &res->timeline[k];
			char idx[32];

			if (t->retired > last)
				break;
			snprintf(idx, sizeof(idx), "[%u,%u]", k / b->n, k % b->n);
			fprintf(o, "%-10s", idx);
			for (unsigned c = 0; c <= last; c++) {
				int ch = c % 5 == 0 ? '.' : ' ';

				if (c == t->dispatched)
					ch = 'D';
				else if (c > t->dispatched && c < t->issued)
					ch = '=';
				else if (c >= t->issued && c < t->executed && c > t->dispatched)
					ch = 'e';
				else if (c == t->executed && c > t->dispatched)
					ch = 'E';
				else if (c > t->executed && c < t->retired)
					ch = '-';
				else if (c == t->retired)
					ch = 'R';
				fputc(ch, o);
			}
			fprintf(o, "   %s\n", b->text[k % b->n]);
		}
	}
}

static void
print_json(FILE *o, const struct sched_result *res, bool first)
{
	fprintf(o, "%s{\"instructions\": %u, \"iterations\": %u, \"total_cycles\": %llu, "
		"\"total_uops\": %llu, \"cycles_per_iteration\": %.4f, \"ipc\": %.4f, "
		"\"block_rthroughput\": %.4f}", first ? "" : ",\n ", res->n_insns, res->iterations,
		(unsigned long long)res->total_cycles, (unsigned long long)res->total_uops,
		(double)res->total_cycles / res->iterations,
		(double)res->total_insns / (double)res->total_cycles, res->block_rthroughput);
}

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: micactl mca [OPTIONS] FILE|-\n"
		"Analyze machine code like llvm-mca: assembly (AT&T, or Intel with\n"
		"-x86-asm-syntax=intel) or, with --hex, hex bytes one block per line.\n"
		"  -mcpu=CPU                btver2 skylake haswell ivybridge sandybridge\n"
		"                           znver3 znver4 alderlake (default znver4)\n"
		"  -iterations=N            default 100\n"
		"  -dispatch=N              dispatch width (default: the model's)\n"
		"  -noalias=BOOL            loads may pass stores (default true)\n"
		"  -timeline, -timeline-max-iterations=N, -timeline-max-cycles=N\n"
		"  -resource-pressure[=BOOL], -instruction-info[=BOOL], -all-views\n"
		"  --hex, --json, --model=llvm (the only model so far)\n");
}

static bool
parse_bool(const char *v)
{
	return !v || strcmp(v, "true") == 0 || strcmp(v, "1") == 0;
}

int
cmd_mca(int argc, char **argv)
{
	enum { O_MCPU = 256, O_ITER, O_DISP, O_TL, O_TLI, O_TLC, O_RP, O_II, O_ALL, O_HEX,
	       O_JSON, O_MODEL, O_NOALIAS, O_SYNTAX, O_TRIPLE };
	static const struct option longopts[] = {
		{ "mcpu", required_argument, NULL, O_MCPU },
		{ "mtriple", required_argument, NULL, O_TRIPLE },
		{ "iterations", required_argument, NULL, O_ITER },
		{ "dispatch", required_argument, NULL, O_DISP },
		{ "timeline", no_argument, NULL, O_TL },
		{ "timeline-max-iterations", required_argument, NULL, O_TLI },
		{ "timeline-max-cycles", required_argument, NULL, O_TLC },
		{ "resource-pressure", optional_argument, NULL, O_RP },
		{ "instruction-info", optional_argument, NULL, O_II },
		{ "all-views", no_argument, NULL, O_ALL },
		{ "hex", no_argument, NULL, O_HEX },
		{ "json", no_argument, NULL, O_JSON },
		{ "model", required_argument, NULL, O_MODEL },
		{ "noalias", optional_argument, NULL, O_NOALIAS },
		{ "x86-asm-syntax", required_argument, NULL, O_SYNTAX },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct mca_opts opt = {
		.mcpu = "znver4", .iterations = 100, .tl_max_iter = 10, .tl_max_cycles = 80,
		.resource_pressure = true, .instruction_info = true, .noalias = true,
	};
	const struct sched_model *model;
	struct region *rs = NULL;
	size_t nr = 0, len;
	char *text;
	FILE *in;
	int c, ret = 1;

	while ((c = getopt_long_only(argc, argv, "h", longopts, NULL)) != -1) {
		unsigned long long v = 0;

		if ((c == O_ITER || c == O_DISP || c == O_TLI || c == O_TLC) &&
		    parse_u64(optarg, &v) < 0) {
			error_msg("mca: invalid number '%s'", optarg);
			return 1;
		}
		switch (c) {
		case O_MCPU: opt.mcpu = optarg; break;
		case O_TRIPLE: break;
		case O_ITER: opt.iterations = v ? (unsigned)v : 100; break;
		case O_DISP: opt.dispatch = (unsigned)v; break;
		case O_TL: opt.timeline = true; break;
		case O_TLI: opt.tl_max_iter = (unsigned)v; break;
		case O_TLC: opt.tl_max_cycles = v ? (unsigned)v : 80; break;
		case O_RP: opt.resource_pressure = parse_bool(optarg); break;
		case O_II: opt.instruction_info = parse_bool(optarg); break;
		case O_ALL: opt.timeline = opt.resource_pressure = opt.instruction_info = true; break;
		case O_HEX: opt.hex = true; break;
		case O_JSON: opt.json = true; break;
		case O_NOALIAS: opt.noalias = parse_bool(optarg); break;
		case O_SYNTAX: opt.intel = strcmp(optarg, "intel") == 0; break;
		case O_MODEL:
			if (strcmp(optarg, "llvm") != 0) {
				error_msg("mca: unknown model '%s' (only 'llvm' so far)", optarg);
				return 1;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind + 1 != argc) {
		error_msg("mca: expected one input file (or - for standard input)");
		usage(stderr);
		return 1;
	}
	model = sched_model_find(opt.mcpu);
	if (!model) {
		error_msg("mca: unknown CPU '%s'", opt.mcpu);
		return 1;
	}
	in = strcmp(argv[optind], "-") == 0 ? stdin : fopen(argv[optind], "r");
	if (!in) {
		perror_msg("mca: %s", argv[optind]);
		return 1;
	}
	text = read_all(in, &len);
	if (in != stdin)
		fclose(in);
	if ((opt.hex ? parse_hex(text, &rs, &nr) : parse_asm(text, opt.intel, &rs, &nr)) < 0)
		goto out;
	if (nr == 0 || (nr == 1 && rs[0].n == 0)) {
		error_msg("mca: no instructions in the input");
		goto out;
	}
	if (opt.json)
		fputs("[", stdout);
	for (size_t i = 0; i < nr; i++) {
		struct block b;
		struct sched_result res;
		struct sched_params p = {
			.iterations = opt.iterations, .dispatch_width = opt.dispatch,
			.noalias = opt.noalias,
			.timeline_max_iterations = opt.timeline ? opt.tl_max_iter : 0,
		};

		if (rs[i].n == 0) {
			error_msg("mca: region %zu is empty", i);
			goto out;
		}
		if (build_block(model, &rs[i], opt.intel, &b) < 0)
			goto out;
		if (sched_run(model, &p, b.si, b.n, &res) < 0) {
			error_msg("mca: out of memory");
			block_free(&b);
			goto out;
		}
		if (opt.json) {
			print_json(stdout, &res, i == 0);
		} else {
			if (nr > 1 || rs[i].name[0])
				printf("%s\n[%zu] Code Region%s%s\n\n", i ? "\n" : "", i,
				       rs[i].name[0] ? " - " : "", rs[i].name);
			print_views(stdout, &opt, model, &b, &res);
		}
		sched_result_free(&res);
		block_free(&b);
	}
	if (opt.json)
		fputs("]\n", stdout);
	ret = 0;
out:
	for (size_t i = 0; i < nr; i++) {
		free(rs[i].name);
		free(rs[i].bytes);
	}
	free(rs);
	free(text);
	return ret;
}
