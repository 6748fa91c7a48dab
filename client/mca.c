/*
 * micactl mca: llvm-mca's static analysis of machine code with micad's
 * scheduling models.  Input: assembly (assembled with the system 'as',
 * split into LLVM-MCA-BEGIN/END regions, the source text kept for
 * display) or hex bytes (--hex, one block per line); output: llvm-mca's
 * views in llvm-mca's layout and order, or --json.  The models: the
 * corrected one (sched_uarch.h; default) or llvm-mca's pipeline
 * (--model=llvm).
 */
#include "config.h"

#include <cpuid.h>
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "decoder.h"
#include "insn_zydis.h"
#include "sched/sched_map.h"
#include "sched/sched_pipeline.h"
#include "sched/sched_print.h"
#include "sched/sched_uarch.h"
#include "session/trace_sched.h"
#include "util.h"

struct mca_opts {
	const char *mcpu, *output, *triple;
	unsigned iterations, dispatch, tl_max_iter, tl_max_cycles;
	unsigned reg_file_size, lqueue, squeue;
	bool hex, json, intel_in, intel_out;
	bool json_compact;		/* --json=compact: micad's one line per region */
	bool show_encoding;		/* -show-encoding: the instruction info's bytes */
	bool summary;			/* llvm-mca's summary view (on unless -all-views=false) */
	bool timeline, resource_pressure, instruction_info, instruction_tables;
	bool dispatch_stats, scheduler_stats, retire_stats, register_file_stats, bottleneck;
	bool noalias;
	bool llvm;			/* --model=llvm: llvm-mca's pipeline, no corrections */
	bool loop;			/* --throughput=loop */
	bool bhive;			/* --bhive: BHive's register and memory values */
};

/* One source line of an assembled region: where its bytes start. */
struct src_line {
	size_t offset;
	unsigned lineno;		/* in the input */
	char *text;			/* as written, mnemonic and operands tab-separated */
	bool directive;			/* bytes from a directive (.p2align): not analyzed */
};

struct region {
	char *name;
	uint8_t *bytes;
	size_t n;
	struct src_line *lines;		/* assembly input only, by offset */
	size_t n_lines;
	bool marked;			/* by LLVM-MCA-BEGIN/END (a header in the report) */
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
	if (fd < 0) {
		perror_msg("mkstemp %s", path);
		return -1;
	}
	unlink(path);
	pid = fork();
	if (pid == 0) {
		if (dup2(fd, 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		perror_msg("fork");
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

/* Source text for display: no comment, no surrounding blanks, a tab
 * between mnemonic and operands as llvm-mca prints them. */
static char *
clean_source(const char *s)
{
	char *t = xstrdup(s + strspn(s, " \t"));
	char *c = strchr(t, '#'), *e;

	if (c)
		*c = '\0';
	e = t + strlen(t);
	while (e > t && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	c = t + strcspn(t, " \t");
	if (*c) {
		size_t skip = strspn(c, " \t");

		*c = '\t';
		memmove(c + 1, c + skip, strlen(c + skip) + 1);
	}
	return t;
}

/* "name:" (or "name: insn"): a label, not `movq %fs:0x28, %rax`. */
static bool
is_label(const char *t)
{
	size_t n = strcspn(t, ": \t%$(\"");

	return n > 0 && t[n] == ':';
}

/* The assembler's listing: "  LINE OFFS HEXBYTES\tSOURCE". */
static void
parse_listing(const char *text, struct region *r)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xmalloc(len + 1);
		unsigned lineno, off;
		int used = 0;

		memcpy(line, p, len);
		line[len] = '\0';
		if (sscanf(line, "%u %4x %*[0-9A-Fa-f]%n", &lineno, &off, &used) == 2 && used > 0) {
			char *src = strchr(line + used, '\t');

			if (src) {
				char *t = clean_source(src + 1);

				r->lines = xreallocarray(r->lines, r->n_lines + 1, sizeof(*r->lines));
				r->lines[r->n_lines].offset = off;
				r->lines[r->n_lines].lineno = lineno;
				r->lines[r->n_lines].directive = t[0] == '.' || is_label(t);
				r->lines[r->n_lines++].text = t;
			}
		}
		free(line);
		p += len + (nl ? 1 : 0);
	}
}

/* The bytes of the .text section of an ELF64 relocatable object (what
 * 'objcopy -O binary -j .text' would give), without another process. */
static int
elf_text(const char *path, struct region *r)
{
	FILE *f = fopen(path, "rb");
	size_t len;
	char *img;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh, *strs;
	int ret = -1;

	if (!f) {
		perror_msg("mca: cannot read the assembler's output %s", path);
		return -1;
	}
	img = read_all(f, &len);
	fclose(f);
	eh = (const Elf64_Ehdr *)img;
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff > len ||
	    eh->e_shnum > (len - eh->e_shoff) / sizeof(Elf64_Shdr) || eh->e_shstrndx >= eh->e_shnum) {
		error_msg("mca: %s is not an ELF64 object", path);
		goto out;
	}
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= strs->sh_size || strs->sh_offset + sh[i].sh_name >= len ||
		    strcmp(img + strs->sh_offset + sh[i].sh_name, ".text") != 0)
			continue;
		if (sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset)
			break;
		r->bytes = xmalloc(sh[i].sh_size + 1);
		memcpy(r->bytes, img + sh[i].sh_offset, sh[i].sh_size);
		r->n = sh[i].sh_size;
		ret = 0;
		goto out;
	}
	error_msg("mca: %s has no valid .text section", path);
out:
	free(img);
	return ret;
}

/* Assemble text with the system assembler: the .text bytes into r, the
 * source line of each instruction from the listing. */
/* LLVM's assembler forms GNU as does not take, rewritten in place of
 * the same line: hexadecimal with an h suffix (0ffh, 10h: 0x0ff, 0x10)
 * and a displacement with empty parentheses (lea -16(), %ecx: -16).
 * Comments and strings are left alone. */
static char *
llvm_forms(const char *text)
{
	size_t n = strlen(text);
	char *out = xmalloc(2 * n + 1), *o = out;
	bool str = false, comment = false;

	for (size_t i = 0; i < n; i++) {
		char c = text[i];
		bool tok_start = i == 0 || !(isalnum((unsigned char)text[i - 1]) ||
					     text[i - 1] == '_' || text[i - 1] == '%' ||
					     text[i - 1] == '.');

		if (c == '\n') {
			str = comment = false;
		} else if (!comment && c == '"') {
			str = !str;
		} else if (!str && (c == '#' || c == ';')) {
			comment = true;
		}
		if (!str && !comment && tok_start && isdigit((unsigned char)c)) {
			size_t j = i;

			while (j < n && isxdigit((unsigned char)text[j]))
				j++;
			if (j < n && (text[j] == 'h' || text[j] == 'H') &&
			    !(j + 1 < n && (isalnum((unsigned char)text[j + 1]) || text[j + 1] == '_'))) {
				*o++ = '0';
				*o++ = 'x';
				memcpy(o, text + i, j - i);
				o += j - i;
				i = j;
				continue;
			}
		}
		if (!str && !comment && c == '(' && i + 1 < n && text[i + 1] == ')' && i > 0 &&
		    (isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_')) {
			i++;
			continue;
		}
		*o++ = c;
	}
	*o = '\0';
	return out;
}

static int
assemble(const char *text, bool intel, const char *name, unsigned first_line, struct region *r,
	 char **as_err)
{
	char dir[] = "/tmp/micactl-mcaXXXXXX";
	char *src, *obj, *lst, *lopt, *err = NULL;
	FILE *f;
	int ret = -1;

	if (!mkdtemp(dir)) {
		perror_msg("mkdtemp %s", dir);
		return -1;
	}
	src = xasprintf("%s/in.s", dir);
	obj = xasprintf("%s/in.o", dir);
	lst = xasprintf("%s/in.lst", dir);
	lopt = xasprintf("-aln=%s", lst);
	f = fopen(src, "w");
	if (!f) {
		perror_msg("%s", src);
		goto out;
	}
	/* A line marker (as cpp writes them, and as honours) makes the
	 * assembler's messages name the user's file and line, not ours. */
	fprintf(f, "%s# %u \"", intel ? ".intel_syntax noprefix\n" : "", first_line);
	for (const char *c = name; *c; c++)
		fputc(*c == '"' || *c == '\\' || (unsigned char)*c < ' ' ? '_' : *c, f);
	{
		char *t = llvm_forms(text);

		fprintf(f, "\"\n%s\n", t);
		free(t);
	}
	if (fclose(f) != 0) {
		perror_msg("writing %s", src);
		goto out;
	}
	{
		char *as_argv[] = { "as", "--64", lopt, "-o", obj, src, NULL };

		if (run(as_argv, &err) != 0) {
			for (size_t n = err ? strlen(err) : 0; n && (err[n - 1] == '\n' || err[n - 1] == ' '); n--)
				err[n - 1] = '\0';
			if (as_err) {
				*as_err = err;
				err = NULL;
			} else {
				error_msg("mca: the assembler rejected the input:\n%s", err ? err : "");
			}
			goto out;
		}
	}
	if (elf_text(obj, r) < 0)
		goto out;
	f = fopen(lst, "r");
	if (f) {
		size_t len;
		char *l = read_all(f, &len);

		parse_listing(l, r);
		/* the listing counts the lines of the file given to as,
		 * whose first one or two lines are ours */
		for (size_t i = 0; i < r->n_lines; i++)
			r->lines[i].lineno = r->lines[i].lineno - (intel ? 2 : 1) + first_line - 1;
		free(l);
		fclose(f);
	}
	ret = 0;
out:
	free(err);
	unlink(src);
	unlink(obj);
	unlink(lst);
	rmdir(dir);
	free(src);
	free(obj);
	free(lst);
	free(lopt);
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

/* One block per line: hex digits, bytes optionally apart ("48 01 d8", as
 * objdump prints them); a comma (BHive's CSV) or '#' ends the bytes. */
static int
parse_hex(char *text, struct region **rs, size_t *nr)
{
	unsigned lineno = 0;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct region *r = NULL;
		int hi = -1;
		size_t i;

		lineno++;
		for (i = 0; line[i] && line[i] != ',' && line[i] != '#'; i++) {
			int d = hex_digit(line[i]);

			if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
				if (hi >= 0)
					break;
				continue;
			}
			if (d < 0) {
				error_msg("mca: line %u, column %zu: '%c' is not a hex digit "
					  "(--hex reads machine code as hex bytes, e.g. 4801d8 "
					  "or 48 01 d8)", lineno, i + 1, line[i]);
				return -1;
			}
			if (!r) {
				r = add_region(rs, nr, NULL);
				r->bytes = xmalloc(strlen(line) / 2 + 1);
			}
			if (hi < 0) {
				hi = d;
				continue;
			}
			r->bytes[r->n++] = (uint8_t)(hi << 4 | d);
			hi = -1;
		}
		if (hi >= 0) {
			error_msg("mca: line %u, column %zu: odd number of hex digits "
				  "(a byte is two digits)", lineno, i);
			return -1;
		}
	}
	return 0;
}

/* Blank line lineno of text (its characters made blanks, so that the
 * others keep their places), after llvm-mca's message for it: the
 * assembler's "no such instruction" is LLVM's "invalid instruction
 * mnemonic", anything else an invalid operand.  false if there is no
 * such line or it is blank already. */
static bool
blank_line(char *text, unsigned lineno, const char *file, const char *why)
{
	char *l = text, *e;
	size_t ml, col;

	for (unsigned k = 1; k < lineno && l; k++) {
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	if (!l)
		return false;
	e = l + strcspn(l, "\n");
	col = strspn(l, " \t");
	if (l + col >= e)
		return false;
	ml = strcspn(l + col, " \t\n");
	if (!strncmp(why, "no such instruction", 19))
		fprintf(stderr, "%s:%u:%zu: error: invalid instruction mnemonic '%.*s'\n", file, lineno,
			col + 1, (int)ml, l + col);
	else
		fprintf(stderr, "%s:%u:%zu: error: invalid operand for instruction\n", file, lineno,
			col + 1);
	fprintf(stderr, "%.*s\n%.*s^", (int)(e - l), l, (int)col, l);
	for (size_t k = 1; k < ml && !strncmp(why, "no such instruction", 19); k++)
		fputc('~', stderr);
	fputc('\n', stderr);
	for (char *c = l; c < e; c++)
		if (*c != '\t')
			*c = ' ';
	return true;
}

/* A code region as llvm-mca-14 delimits them: the lines after its
 * LLVM-MCA-BEGIN (or from the start: the default region) up to its
 * LLVM-MCA-END (or the end). */
struct mark_region {
	char *name;
	unsigned start, end;		/* marker lines; 0: none */
};

/* An llvm-mca diagnostic at a marker: "FILE:LINE:COL: KIND: MSG", the
 * line, a caret under the column. */
static void
marker_msg(const char *file, unsigned lineno, const char *line, unsigned col, const char *kind,
	   const char *msg)
{
	fprintf(stderr, "%s:%u:%u: %s: %s\n%s\n", file, lineno, col, kind, msg, line);
	for (unsigned i = 0; i + 1 < col; i++)
		fputc(line[i] == '\t' ? '\t' : ' ', stderr);
	fputs("^\n", stderr);
}

/*
 * LLVM-MCA-BEGIN [name] / LLVM-MCA-END [name] comments, with llvm-mca-14's
 * rules: the first BEGIN replaces the default region (the whole input);
 * regions may nest and overlap when their names differ; an END without a
 * name closes the only open region (or the default one); any other END
 * that matches no open region is an error, as is a second open region of
 * the same name.  Returns the number of regions, or -1 after llvm-mca's
 * messages.
 */
static int
find_regions(const char *text, const char *file, struct mark_region **out)
{
	struct mark_region *rg = xcalloc(1, sizeof(*rg));
	size_t n = 1, *active = NULL, n_active = 0;
	unsigned lineno = 0;
	bool errors = false;

	rg[0].name = xstrdup("");
	for (const char *line = text; *line; ) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *l = xmalloc(len + 1), *c, *name;
		bool begin;
		unsigned col;

		memcpy(l, line, len);
		l[len] = '\0';
		line += len + (nl ? 1 : 0);
		lineno++;
		c = strchr(l, '#');
		if (!c) {
			free(l);
			continue;
		}
		col = (unsigned)(c - l) + 2;
		c += 1 + strspn(c + 1, " \t");
		if (strncmp(c, "LLVM-MCA-BEGIN", 14) == 0)
			begin = true;
		else if (strncmp(c, "LLVM-MCA-END", 12) == 0)
			begin = false;
		else {
			free(l);
			continue;
		}
		name = clean_source(c + (begin ? 14 : 12));
		for (char *t = name; *t; t++)
			if (*t == '\t')
				*t = ' ';	/* (clean_source's tab) */
		if (begin) {
			size_t k;

			if (!n_active && n == 1 && !rg[0].start && !rg[0].end) {
				free(rg[0].name);
				rg[0].name = name;
				rg[0].start = lineno;
				active = xreallocarray(active, n_active + 1, sizeof(*active));
				active[n_active++] = 0;
				free(l);
				continue;
			}
			for (k = 0; k < n_active && strcmp(rg[active[k]].name, name) != 0; k++)
				;
			if (k < n_active) {
				char msg[256];

				errors = true;
				if (!*name) {
					marker_msg(file, lineno, l, col, "error",
						   "found multiple overlapping anonymous regions");
				} else {
					snprintf(msg, sizeof(msg), "region %s was previously defined here",
						 name);
					marker_msg(file, lineno, l, col, "error",
						   "overlapping regions cannot have the same name");
					fprintf(stderr, "%s:%u: note: %s\n", file, rg[active[k]].start, msg);
				}
				free(name);
				free(l);
				continue;
			}
			rg = xreallocarray(rg, n + 1, sizeof(*rg));
			memset(&rg[n], 0, sizeof(rg[n]));
			rg[n].name = name;
			rg[n].start = lineno;
			active = xreallocarray(active, n_active + 1, sizeof(*active));
			active[n_active++] = n++;
		} else {
			size_t k = n_active;

			if (!*name && n_active == 1) {
				k = 0;
			} else if (!*name && !n_active && n == 1 && !rg[0].start && !rg[0].end) {
				rg[0].end = lineno;
			} else {
				for (k = 0; k < n_active && strcmp(rg[active[k]].name, name) != 0; k++)
					;
			}
			if (k < n_active) {
				rg[active[k]].end = lineno;
				active[k] = active[--n_active];
			} else if (rg[0].end != lineno) {
				char msg[256];

				errors = true;
				marker_msg(file, lineno, l, col, "error",
					   "found an invalid region end directive");
				if (*name)
					snprintf(msg, sizeof(msg), "unable to find an active region named %s",
						 name);
				else
					snprintf(msg, sizeof(msg), "unable to find an active anonymous region");
				marker_msg(file, lineno, l, col, "note", msg);
			}
			free(name);
		}
		free(l);
	}
	free(active);
	if (errors) {
		for (size_t i = 0; i < n; i++)
			free(rg[i].name);
		free(rg);
		return -1;
	}
	*out = rg;
	return (int)n;
}

/* The instructions of the assembled input a (every line, lines[] by
 * offset) between a region's markers, as a region of their own. */
static void
slice_region(const struct region *a, const struct mark_region *m, struct region *r)
{
	r->bytes = xmalloc(a->n + 1);
	for (size_t i = 0; i < a->n_lines; i++) {
		const struct src_line *l = &a->lines[i];
		size_t end = a->n;

		if (l->lineno <= m->start || (m->end && l->lineno >= m->end))
			continue;
		for (size_t k = 0; k < a->n_lines; k++)
			if (a->lines[k].offset > l->offset && a->lines[k].offset < end)
				end = a->lines[k].offset;
		if (end <= l->offset)
			continue;
		r->lines = xreallocarray(r->lines, r->n_lines + 1, sizeof(*r->lines));
		r->lines[r->n_lines] = *l;
		r->lines[r->n_lines].offset = r->n;
		r->lines[r->n_lines++].text = xstrdup(l->text);
		memcpy(r->bytes + r->n, a->bytes + l->offset, end - l->offset);
		r->n += end - l->offset;
	}
}

/*
 * Assemble text as llvm-mca-14 parses its input: a line the assembler
 * rejects is reported in LLVM's words (file:line:col, the line, a caret)
 * and left out, and the rest is analyzed.  The assembler names the
 * lines it rejects ("FILE:LINE: Error: ..."); they are blanked and the
 * text assembled again.
 */
static int
assemble_recovering(const char *text, bool intel, const char *file, struct region *r)
{
	char *work = xstrdup(text);
	int ret = -1;

	for (int round = 0; round < 8; round++) {
		char *err = NULL;
		bool any = false;

		if (assemble(work, intel, file, 1, r, &err) == 0) {
			ret = 0;
			break;
		}
		for (char *e = err, *nl; e && *e; e = nl ? nl + 1 : e + strlen(e)) {
			const char *tag = ": Error: ";
			char *t, *colon;
			unsigned lineno = 0;

			nl = strchr(e, '\n');
			if (nl)
				*nl = '\0';
			t = strstr(e, tag);
			if (!t)
				continue;
			*t = '\0';
			colon = strrchr(e, ':');
			if (!colon || sscanf(colon + 1, "%u", &lineno) != 1 || lineno == 0)
				continue;
			any |= blank_line(work, lineno, file, t + strlen(tag));
		}
		if (!any) {
			/* nothing to leave out: the assembler's own words */
			error_msg("mca: the assembler rejected the input:\n%s", err ? err : "");
			free(err);
			break;
		}
		free(err);
	}
	free(work);
	return ret;
}

/* Assemble the input, then cut it into its code regions: the regions
 * without instructions are left out, as llvm-mca-14 leaves them out. */
static int
parse_asm(char *text, bool intel, const char *file, struct region **rs, size_t *nr)
{
	struct mark_region *m = NULL;
	struct region all;
	int n = find_regions(text, file, &m);

	if (n < 0)
		return -1;
	memset(&all, 0, sizeof(all));
	if (assemble_recovering(text, intel, file, &all) < 0) {
		for (int i = 0; i < n; i++)
			free(m[i].name);
		free(m);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		struct region *r = add_region(rs, nr, m[i].name);

		r->marked = n > 1 || m[i].start || m[i].end;
		slice_region(&all, &m[i], r);
		if (r->n == 0) {
			free(r->name);
			free(r->bytes);
			for (size_t k = 0; k < r->n_lines; k++)
				free(r->lines[k].text);
			free(r->lines);
			(*nr)--;
		}
		free(m[i].name);
	}
	free(m);
	free(all.bytes);
	for (size_t k = 0; k < all.n_lines; k++)
		free(all.lines[k].text);
	free(all.lines);
	return 0;
}

struct block {
	unsigned n, cap;		/* instructions, room for (cap) */
	struct sched_insn *si;
	struct ua_insn *ui;		/* the corrected model's view, when it has one */
	char (*text)[128];
	uint8_t (*enc)[16];		/* the instruction's bytes: enc[i][0] the length */
	/* build_block()'s messages, kept (defer) for when the report is
	 * written: 'E' or 'W', the text, a newline; each one */
	bool defer;
	char *msgs;
	size_t msgs_len;
	char where[32];			/* "region N: " in front of them (of several) */
};

static void
block_free(struct block *b)
{
	free(b->si);
	free(b->ui);
	free(b->text);
	free(b->enc);
	free(b->msgs);
	memset(b, 0, sizeof(*b));
}

/* A message of build_block(): printed now or, for a block built ahead of
 * its turn (--jobs), kept until its report is written, so that messages
 * and reports come in input order as from one thread. */
static void __attribute__((format(printf, 3, 4)))
block_msg(struct block *b, bool warning, const char *fmt, ...)
{
	char text[1024];
	size_t n;
	va_list ap;

	n = (size_t)snprintf(text, sizeof(text), "mca: %s", b->where);
	va_start(ap, fmt);
	vsnprintf(text + n, sizeof(text) - n, fmt, ap);
	va_end(ap);
	if (!b->defer) {
		if (warning)
			warning_msg("%s", text);
		else
			error_msg("%s", text);
		return;
	}
	n = strlen(text);
	for (char *c = strchr(text, '\n'); c; c = strchr(c, '\n'))
		*c = ' ';	/* one line each: block_print_msgs() splits on them */
	b->msgs = xreallocarray(b->msgs, b->msgs_len + n + 3, 1);
	b->msgs[b->msgs_len++] = warning ? 'W' : 'E';
	memcpy(b->msgs + b->msgs_len, text, n);
	b->msgs_len += n;
	b->msgs[b->msgs_len++] = '\n';
	b->msgs[b->msgs_len] = '\0';
}

/* A message in llvm-mca's own words (no "micactl: mca:" in front), now
 * or kept like block_msg()'s; '\v' stands for a line break. */
static void
block_msg_raw(struct block *b, const char *text)
{
	size_t n = strlen(text);

	if (!b->defer) {
		for (const char *c = text; *c; c++)
			fputc(*c == '\v' ? '\n' : *c, stderr);
		fputc('\n', stderr);
		return;
	}
	b->msgs = xreallocarray(b->msgs, b->msgs_len + n + 3, 1);
	b->msgs[b->msgs_len++] = 'R';
	memcpy(b->msgs + b->msgs_len, text, n);
	b->msgs_len += n;
	b->msgs[b->msgs_len++] = '\n';
	b->msgs[b->msgs_len] = '\0';
}

/* Print the messages block_msg() kept. */
static void
block_print_msgs(struct block *b)
{
	for (char *m = b->msgs, *e; m && *m; m = e + 1) {
		e = strchr(m, '\n');
		*e = '\0';
		if (*m == 'R') {
			for (const char *c = m + 1; *c; c++)
				fputc(*c == '\v' ? '\n' : *c, stderr);
			fputc('\n', stderr);
		} else if (*m == 'W')
			warning_msg("%s", m + 1);
		else
			error_msg("%s", m + 1);
	}
	free(b->msgs);
	b->msgs = NULL;
	b->msgs_len = 0;
}

/* The model to run: llvm-mca's pipeline (with or without the corrections
 * that fit it) or the uop-level simulation of sched_uarch.h. */
struct model_choice {
	const struct sched_model *model;
	const struct sched_uarch *ua;	/* NULL: LLVM's pipeline */
	struct ua_ports pt;
	bool correct;			/* sched_insn_correct() on LLVM's pipeline */
};

static const struct src_line *
line_at(const struct region *r, size_t off)
{
	const struct src_line *best = NULL;

	for (size_t i = 0; i < r->n_lines; i++)
		if (r->lines[i].offset <= off && (!best || r->lines[i].offset >= best->offset))
			best = &r->lines[i];
	return best;
}

/* snprintf(dst, size, "%s", src) without printf's cost per instruction */
static void
copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The register definitions LLVM's opcode has that the instruction's
 * folded writes merge (llvm-mca maps each one): two written operands of
 * one register (cmpxchg %ecx, %eax; xadd %eax, %eax; xchg %al, %ah), the
 * AL and AH of an 8-bit multiply or divide, the accumulator of CWD, CDQ
 * and CQO. */
static void
llvm_extra_defs(const struct insn_zydis *z, struct sched_insn *si)
{
	unsigned full = 0, part = 0;
	ZydisRegister seen[ZYDIS_MAX_OPERAND_COUNT];
	unsigned n_seen = 0;

	for (unsigned i = 0; i < z->in.operand_count; i++) {
		const ZydisDecodedOperand *op = &z->ops[i];
		ZydisRegisterClass rc;
		ZydisRegister f;
		bool dup = false;

		if (op->type != ZYDIS_OPERAND_TYPE_REGISTER || !(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		rc = ZydisRegisterGetClass(op->reg.value);
		if (rc != ZYDIS_REGCLASS_GPR8 && rc != ZYDIS_REGCLASS_GPR16 &&
		    rc != ZYDIS_REGCLASS_GPR32 && rc != ZYDIS_REGCLASS_GPR64)
			continue;
		f = insn_full_reg(op->reg.value);
		for (unsigned k = 0; k < n_seen; k++)
			dup |= seen[k] == f;
		if (dup) {
			if (rc == ZYDIS_REGCLASS_GPR32 || rc == ZYDIS_REGCLASS_GPR64)
				full++;
			else
				part++;
		} else if (n_seen < ZYDIS_MAX_OPERAND_COUNT) {
			seen[n_seen++] = f;
		}
		/* an 8-bit multiply's or divide's AX: LLVM's AL and AH */
		if (op->reg.value == ZYDIS_REGISTER_AX && op->visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT &&
		    (z->in.mnemonic == ZYDIS_MNEMONIC_MUL || z->in.mnemonic == ZYDIS_MNEMONIC_IMUL ||
		     z->in.mnemonic == ZYDIS_MNEMONIC_DIV || z->in.mnemonic == ZYDIS_MNEMONIC_IDIV) &&
		    z->in.operand_width == 8)
			part++;
	}
	if (z->in.mnemonic == ZYDIS_MNEMONIC_CWD)
		part++;
	if (z->in.mnemonic == ZYDIS_MNEMONIC_CDQ || z->in.mnemonic == ZYDIS_MNEMONIC_CQO)
		full++;
	si->extra_defs_full = (uint8_t)full;
	si->extra_defs_partial = (uint8_t)part;
}

/* How many operands of the instruction read each register it reads: LLVM
 * counts a user of a write per operand (`vpaddd %xmm0, %xmm0, %xmm3` is
 * two users of %xmm0), which ranks the instructions ready to issue. */
static void
count_uses(const struct insn_zydis *z, struct sched_insn *si)
{
	for (unsigned k = 0; k < si->n_reads; k++) {
		unsigned n = 0;

		for (unsigned i = 0; i < z->in.operand_count_visible; i++) {
			const ZydisDecodedOperand *op = &z->ops[i];

			if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) &&
			    insn_full_reg(op->reg.value) ==
			    si->reads[k].reg)
				n++;
			if (op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
				n += insn_full_reg(op->mem.base) == si->reads[k].reg;
				n += insn_full_reg(op->mem.index) == si->reads[k].reg;
			}
		}
		si->reads[k].uses = (uint8_t)(n > 1 ? n : 1);
	}
}

/* The instruction's text as LLVM 14's printer writes it (sched_print.h):
 * false when it has no mnemonic for the opcode.  split: a LOCK prefix
 * shown as an instruction of its own, not part of this one. */
static bool
sched_print_text(const struct insn_zydis *z, const struct insn_info *ii, bool split,
		 const struct sched_mapping *m, const char *src, const struct mca_opts *opt,
		 char *buf, size_t size)
{
	struct insn_zydis rest;
	const char *s = src;

	if (split) {
		if (insn_zydis_decode(ii->bytes + 1, ii->len - 1, &rest) < 0)
			return false;
		z = &rest;
	}
	/* The source's "lock" is the printer's, not an operand. */
	if (s && !strncmp(s, "lock", 4) && (s[4] == '\t' || s[4] == ' '))
		s += 5;
	return sched_print_llvm(z, m->opcode, s, opt->intel_in, opt->intel_out, buf, size) == 0;
}

static int
build_block(const struct model_choice *mc, const struct region *r, const struct mca_opts *opt,
	    struct block *b)
{
	const struct sched_model *model = mc->model;
	bool use_source = r->n_lines != 0;
	struct block keep = *b;

	memset(b, 0, sizeof(*b));
	b->defer = keep.defer;
	memcpy(b->where, keep.where, sizeof(b->where));
	for (size_t off = 0; off < r->n;) {
		struct insn_info ii;
		struct insn_zydis z;	/* decoded once for all of them */
		struct sched_mapping m;
		const struct src_line *sl = line_at(r, off), *tl;
		char buf[128];
		bool split, unsupported = false;

		if (insn_decode_zydis(r->bytes + off, r->n - off, off, &ii, &z) < 0) {
			char hex[64] = "";

			for (size_t i = 0; i < 8 && off + i < r->n; i++)
				snprintf(hex + 3 * i, sizeof(hex) - 3 * i, "%02x ", r->bytes[off + i]);
			block_msg(b, false, "bytes at offset %zu do not decode: %s", off, hex);
			return -1;
		}
		if (sl && sl->directive) {
			off += ii.len;	/* alignment padding: llvm-mca never sees it */
			continue;
		}
		if (sched_map_zydis(&z, &m) < 0) {
			insn_format_zydis(&ii, &z, !opt->intel_out, buf, sizeof(buf));
			block_msg(b, false, "no LLVM opcode for '%s' at offset %zu (looked for %s)",
				  buf, off, m.tried);
			return -1;
		}
		if (b->n + 2 > b->cap) {
			b->cap = b->cap ? 2 * b->cap : 16;
			b->si = xreallocarray(b->si, b->cap, sizeof(*b->si));
			b->ui = xreallocarray(b->ui, b->cap, sizeof(*b->ui));
			b->text = xreallocarray(b->text, b->cap, sizeof(*b->text));
			b->enc = xreallocarray(b->enc, b->cap, sizeof(*b->enc));
		}
		/* A LOCK prefix on a line of its own (or in hex input, which
		 * llvm-mc disassembles that way) is LLVM's LOCK_PREFIX
		 * instruction; `lock add ...` on one line is one instruction,
		 * LLVM's LOCK_ opcode where it has one. */
		split = m.lock && (!r->n_lines || line_at(r, off + 1) != sl);
		if (m.lock && !split) {
			char nm[64];
			uint32_t id;

			snprintf(nm, sizeof(nm), "LOCK_%s", sched_opcode_name(m.opcode));
			id = sched_opcode_find(nm);
			if (!id && !strcmp(model->name, "btver2")) {
				/* LCMPXCHG32, LXADD64, LCMPXCHG8B: Jaguar's
				 * model has their locked costs apart */
				const char *on = sched_opcode_name(m.opcode);
				size_t l = strlen(on);

				snprintf(nm, sizeof(nm), "L%.*s", (int)(l > 2 && !strcmp(on + l - 2, "rm")
									 ? l - 2 : l), on);
				id = sched_opcode_find(nm);
			}
			if (id)
				m.opcode = id;
		}
		if (split) {
			sched_insn_lock_prefix(model, &b->si[b->n]);
			/* For the uop model the prefix is a byte of the
			 * instruction: a one-byte slot-less placeholder. */
			memset(&b->ui[b->n], 0, sizeof(b->ui[0]));
			b->ui[b->n].len = 1;
			b->ui[b->n].fused = 1;
			b->ui[b->n].flags = UA_NOP;
			ii.len--;
			b->enc[b->n][0] = 1;
			b->enc[b->n][1] = 0xf0;
			snprintf(b->text[b->n++], sizeof(b->text[0]), "lock");
		}
		if (sched_insn_init(model, &ii, &m, &b->si[b->n]) < 0 && opt->llvm) {
			unsupported = true;	/* llvm-mca's error, with its text below */
		} else if (!b->si[b->n].opcode || !model->by_opcode[b->si[b->n].opcode]) {
			insn_format_zydis(&ii, &z, !opt->intel_out, buf, sizeof(buf));
			block_msg(b, true, "-mcpu=%s has no data for '%s' (%s); it is taken as "
				  "one uop on no unit", opt->mcpu, sl ? sl->text : buf,
				  sched_opcode_name(m.opcode));
		}
		if (opt->llvm) {
			unsigned fd = sched_forwarding_delay(model, b->si[b->n].opcode);

			count_uses(&z, &b->si[b->n]);
			llvm_extra_defs(&z, &b->si[b->n]);
			sched_insn_llvm_defs(&ii, &b->si[b->n]);
			if (fd)
				b->si[b->n].info_latency = b->si[b->n].latency + fd;
		}
		if (opt->llvm && (ii.category == ZYDIS_CATEGORY_CALL ||
				  ii.category == ZYDIS_CATEGORY_RET)) {
			bool call = ii.category == ZYDIS_CATEGORY_CALL;
			static bool said[2];

			/* llvm-mca-14 simulates a call as 100 cycles long, and
			 * says so once (as for returns) */
			if (call) {
				b->si[b->n].info_latency = b->si[b->n].latency;
				b->si[b->n].latency = 100;
			}
			if (!said[call]) {
				said[call] = true;
				block_msg_raw(b, call ? "warning: found a call in the input assembly "
					      "sequence.\vnote: call instructions are not correctly "
					      "modeled. Assume a latency of 100cy." :
					      "warning: found a return instruction in the input "
					      "assembly sequence.\vnote: program counter updates are "
					      "ignored.");
			}
		}
		if (mc->ua) {
			/* A split prefix is its own instruction: the model
			 * takes the rest, decoded without it. */
			struct insn_zydis rest;
			const struct insn_zydis *zp = &z;

			if (split)
				zp = insn_zydis_decode(ii.bytes + 1, ii.len, &rest) == 0 ? &rest : NULL;
			ua_insn_build_zydis(model, mc->ua, &mc->pt, &ii, zp, &m, &b->si[b->n],
					    &b->ui[b->n]);
		}
		else if (mc->correct)
			sched_insn_correct(model, &ii, &m, &b->si[b->n]);
		else
			sched_insn_cond_variant(model, &ii, &b->si[b->n]);
		if (split)
			ii.len++;
		tl = split && r->n_lines ? line_at(r, off + 1) : sl;
		if (!sched_print_text(&z, &ii, split, &m, use_source && tl ? tl->text : NULL, opt, buf,
				      sizeof(buf))) {
			char *sp;

			insn_format_zydis(&ii, &z, !opt->intel_out, buf, sizeof(buf));
			/* The prefix is shown as its own instruction. */
			if (split && !strncmp(buf, "lock ", 5))
				memmove(buf, buf + 5, strlen(buf + 5) + 1);
			sp = strchr(buf, ' ');
			if (sp)
				*sp = '\t';	/* llvm-mca: a tab after the mnemonic */
		}
		copy_str(b->text[b->n], sizeof(b->text[0]), buf);
		{
			/* (after a split LOCK prefix: the bytes after it) */
			unsigned l = split ? ii.len - 1 : ii.len, o = split ? 1 : 0;

			b->enc[b->n][0] = (uint8_t)(l < 15 ? l : 15);
			memcpy(&b->enc[b->n][1], ii.bytes + o, b->enc[b->n][0]);
		}
		if (unsupported) {
			char msg[256];

			snprintf(msg, sizeof(msg), "error: found an unsupported instruction in the "
				 "input assembly sequence.\vnote: instruction: \t%.128s", buf);
			block_msg_raw(b, msg);
			return -1;
		}
		b->n++;
		off += ii.len;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Views, in llvm-mca's layout                                         */

static double
round1(double v)
{
	return floor(v * 10 + 0.5) / 10;
}

static double
round2(double v)
{
	return floor(v * 100 + 0.5) / 100;
}

/* formatted_raw_ostream::PadToColumn: to the column, and at least one
 * space. */
static void
pad_to(FILE *o, int *col, int to)
{
	do {
		fputc(' ', o);
		(*col)++;
	} while (*col < to);
}

/* One resource-pressure cell, padded to the column's end as llvm-mca
 * pads it (a wide value such as 1320.00 pushes the rest right). */
static void
print_value(FILE *o, int *col, double v, int end)
{
	*col += v == 0.0 ? fprintf(o, " - ") : fprintf(o, "%.2f", v);
	pad_to(o, col, end);
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
print_col_header(FILE *o, const struct sched_model *model)
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
}

static void
print_summary(FILE *o, const struct mca_opts *opt, const struct sched_result *res)
{
	double cyc = res->total_cycles ? (double)res->total_cycles : 1.0;

	fprintf(o, "Iterations:        %u\n", res->iterations);
	fprintf(o, "Instructions:      %llu\n", (unsigned long long)res->total_insns);
	fprintf(o, "Total Cycles:      %llu\n", (unsigned long long)res->total_cycles);
	fprintf(o, "Total uOps:        %llu\n\n", (unsigned long long)res->total_uops);
	fprintf(o, "Dispatch Width:    %u\n", res->dispatch_width);
	fprintf(o, "uOps Per Cycle:    %.2f\n", round2(res->total_uops / cyc));
	fprintf(o, "IPC:               %.2f\n", round2(res->total_insns / cyc));
	fprintf(o, "Block RThroughput: %.1f\n", round1(res->block_rthroughput));
	if (!opt->llvm)
		fprintf(o, "Throughput:        %.2f cycles per iteration (steady state, %s)\n",
			res->throughput, opt->loop ? "loop" : "unrolled");
}

static void
print_instruction_info(FILE *o, const struct mca_opts *opt, const struct model_choice *mc,
		       const struct block *b)
{
	fprintf(o, "\n\nInstruction Info:\n[1]: #uOps\n[2]: Latency\n[3]: RThroughput\n"
		"[4]: MayLoad\n[5]: MayStore\n[6]: HasSideEffects (U)\n%s\n"
		"[1]    [2]    [3]    [4]    [5]    [6]    %sInstructions:\n",
		opt->show_encoding ? "[7]: Encoding Size\n" : "",
		opt->show_encoding ? "[7]    Encodings:                    " : "");
	for (unsigned i = 0; i < b->n; i++) {
		const struct sched_insn *s = &b->si[i];
		unsigned uops = mc->ua ? b->ui[i].fused : s->uops;
		unsigned lat = s->info_latency ? s->info_latency : s->latency;

		fprintf(o, " %u    %s%s", uops, uops < 10 ? " " : "", uops < 100 ? " " : "");
		fprintf(o, "%u   %s%s", lat, lat < 10 ? " " : "", lat < 100 ? " " : "");
		if (s->rthroughput > 0)
			fprintf(o, "%.2f %s%s", s->rthroughput, s->rthroughput < 10.0 ? " " : "",
				s->rthroughput < 100.0 ? " " : "");
		else
			fputs(" -     ", o);
		fputs(s->may_load ? " *     " : "       ", o);
		fputs(s->may_store ? " *     " : "       ", o);
		fputs(s->has_side_effects ? " U     " : "       ", o);
		if (opt->show_encoding) {
			int col = fprintf(o, " %u", b->enc[i][0]);

			pad_to(o, &col, 7);
			col = 0;
			for (unsigned k = 1; k <= b->enc[i][0]; k++)
				col += fprintf(o, "%02x ", b->enc[i][k]);
			pad_to(o, &col, 30);
		}
		fprintf(o, "%s\n", b->text[i]);
	}
}

static void
print_pressure(FILE *o, const struct sched_model *model, const struct block *b,
	       const double *pressure, unsigned n_columns, unsigned iterations)
{
	unsigned base = 0;
	int col;

	fprintf(o, "\n\nResources:\n");
	for (unsigned i = 0; i < model->n_resources; i++) {
		const struct sched_resource *d = &model->resources[i];

		if (d->is_group)
			continue;
		for (unsigned u = 0; u < d->units; u++) {
			char h[16];

			resource_label(d, base, u, h, sizeof(h));
			/* at least one blank after a long label: "[16.0] - PdLoad" */
			col = fprintf(o, "%s", h);
			pad_to(o, &col, 6);
			fprintf(o, "- %s\n", d->name);
		}
		base++;
	}
	fprintf(o, "\n\nResource pressure per iteration:\n");
	print_col_header(o, model);
	fputc('\n', o);
	col = 0;
	for (unsigned c = 0; c < n_columns; c++) {
		double sum = 0;

		for (unsigned i = 0; i < b->n; i++)
			sum += pressure[i * n_columns + c];
		print_value(o, &col, round2(sum / iterations), 7 * (int)(c + 1));
	}
	fprintf(o, "\n\nResource pressure by instruction:\n");
	print_col_header(o, model);
	fprintf(o, "Instructions:\n");
	for (unsigned i = 0; i < b->n; i++) {
		col = 0;
		for (unsigned c = 0; c < n_columns; c++)
			print_value(o, &col, round2(pressure[i * n_columns + c] / iterations),
				    7 * (int)(c + 1));
		fprintf(o, "%s\n", b->text[i]);
	}
}

static void
print_dispatch_stats(FILE *o, const struct sched_stats *st, bool corrected)
{
	static const char *const labels[SCHED_N_STALLS] = {
		"RAT     - Register unavailable:                      ",
		"RCU     - Retire tokens unavailable:                 ",
		"SCHEDQ  - Scheduler full:                            ",
		"LQ      - Load queue full:                           ",
		"SQ      - Store queue full:                          ",
		"GROUP   - Static restrictions on the dispatch group: ",
		"USH     - Uncategorised Structural Hazard:           ",
	};
	double cyc = st->cycles ? (double)st->cycles : 1.0;

	fprintf(o, "\n\nDynamic Dispatch Stall Cycles:\n");
	for (unsigned k = 0; k < SCHED_N_STALLS; k++) {
		fprintf(o, "%s%llu", labels[k], (unsigned long long)st->stalls[k]);
		if (st->stalls[k])
			fprintf(o, "  (%.1f%%)", round1(st->stalls[k] * 100.0 / cyc));
		fputc('\n', o);
	}
	if (corrected) {
		fprintf(o, "FE      - Front end delivered nothing:             %llu",
			(unsigned long long)st->frontend_stalls);
		if (st->frontend_stalls)
			fprintf(o, "  (%.1f%%)", round1(st->frontend_stalls * 100.0 / cyc));
		fputc('\n', o);
	}
	fprintf(o, "\n\nDispatch Logic - number of cycles where we saw N micro opcodes dispatched:\n"
		"[# dispatched], [# cycles]\n");
	for (unsigned k = 0; k < SCHED_HIST; k++)
		if (st->dispatched[k])
			fprintf(o, " %u,              %llu  (%.1f%%)\n", k,
				(unsigned long long)st->dispatched[k],
				round1(st->dispatched[k] * 100.0 / cyc));
}

static void
print_scheduler_stats(FILE *o, const struct sched_stats *st)
{
	double cyc = st->cycles ? (double)st->cycles : 1.0;
	bool any = false;

	fprintf(o, "\n\nSchedulers - number of cycles where we saw N micro opcodes issued:\n"
		"[# issued], [# cycles]\n");
	for (unsigned k = 0; k < SCHED_HIST; k++)
		if (st->issued[k])
			fprintf(o, " %u,          %llu  (%.1f%%)\n", k,
				(unsigned long long)st->issued[k], st->issued[k] * 100.0 / cyc);
	fprintf(o, "\nScheduler's queue usage:\n");
	for (unsigned b = 0; b < st->n_buffers; b++)
		any |= st->buffers[b].max_used != 0;
	if (!any) {
		fprintf(o, "No scheduler resources used.\n");
		return;
	}
	fprintf(o, "[1] Resource name.\n[2] Average number of used buffer entries.\n"
		"[3] Maximum number of used buffer entries.\n[4] Total number of buffer entries.\n\n"
		" [1]            [2]        [3]        [4]\n");
	for (unsigned b = 0; b < st->n_buffers; b++) {
		const struct sched_buffer_stat *bs = &st->buffers[b];
		int col = fprintf(o, "%s", bs->name);

		pad_to(o, &col, 17);
		col += fprintf(o, "%u", (unsigned)round1((double)bs->cumulative / cyc));
		pad_to(o, &col, 28);
		col += fprintf(o, "%u", bs->max_used);
		pad_to(o, &col, 39);
		fprintf(o, "%u\n", bs->size);
	}
}

static void
print_retire_stats(FILE *o, const struct sched_stats *st)
{
	double cyc = st->cycles ? (double)st->cycles : 1.0;
	unsigned avg = (unsigned)(st->rob_cumulative / cyc);
	double size = st->rob_size ? st->rob_size : 1;

	fprintf(o, "\n\nRetire Control Unit - number of cycles where we saw N instructions retired:\n"
		"[# retired], [# cycles]\n");
	for (unsigned k = 0; k < SCHED_HIST; k++)
		if (st->retired[k])
			fprintf(o, " %u,%s%llu  (%.1f%%)\n", k, k < 10 ? "           " : "          ",
				(unsigned long long)st->retired[k], st->retired[k] * 100.0 / cyc);
	fprintf(o, "\nTotal ROB Entries:                %u\n", st->rob_size);
	fprintf(o, "Max Used ROB Entries:             %u  ( %.1f%% )\n", st->rob_max,
		round1(st->rob_max * 100.0 / size));
	fprintf(o, "Average Used ROB Entries per cy:  %u  ( %.1f%% )\n", avg,
		round1(avg * 100.0 / size));
}

static void
print_register_file_stats(FILE *o, const struct sched_stats *st)
{
	fprintf(o, "\n\nRegister File statistics:\n");
	fprintf(o, "Total number of mappings created:    %llu\n",
		(unsigned long long)st->prf[0].mappings);
	fprintf(o, "Max number of mappings used:         %u\n", st->prf[0].max_used);
	for (unsigned f = 1; f < st->n_prf; f++) {
		const struct sched_prf_stat *p = &st->prf[f];

		fprintf(o, "\n*  Register File #%u -- %s:\n", f, p->name);
		fprintf(o, "   Number of physical registers:     %u\n", p->size);
		fprintf(o, "   Total number of mappings created: %llu\n",
			(unsigned long long)p->mappings);
		fprintf(o, "   Max number of mappings used:      %u\n", p->max_used);
		if (p->move_candidates) {
			double c = (double)p->move_candidates;

			fprintf(o, "   Number of optimizable moves:      %llu\n",
				(unsigned long long)p->move_candidates);
			fprintf(o, "   Number of moves eliminated:       %llu  (%.1f%%)\n",
				(unsigned long long)p->moves_eliminated,
				round1(p->moves_eliminated * 100.0 / c));
			fprintf(o, "   Number of zero moves:             %llu  (%.1f%%)\n",
				(unsigned long long)p->zero_moves, round1(p->zero_moves * 100.0 / c));
			fprintf(o, "   Max moves eliminated per cycle:   %u\n", p->max_moves_per_cycle);
		}
	}
}

/* Column after printing s from column col, tabs to the next multiple of
 * 8 (as formatted_raw_ostream counts them). */
/* The column after s as LLVM's formatted_raw_ostream counts it: a tab
 * moves to the next multiple of 8, but one already on a multiple of 8
 * counts as nothing (llvm-mca pads the critical sequence by that count;
 * `lock\t\txaddl` shows it). */
static int
advance_col(int col, const char *s)
{
	for (; *s; s++)
		col = *s == '\t' ? col + ((8 - (col & 7)) & 7) : col + 1;
	return col;
}

static void
crit_line(FILE *o, const char *lead, unsigned idx, const struct block *b, int *col)
{
	*col = fprintf(o, "\n%s%u.", lead, idx) - 1;
	pad_to(o, col, 14);
	fputs(b->text[idx], o);
	*col = advance_col(*col, b->text[idx]);
}

/* llvm-mca's "Critical sequence based on the simulation". */
static void
print_critical_sequence(FILE *o, const struct mca_opts *opt, const struct sched_model *model,
			const struct block *b, const struct sched_result *res)
{
	const struct sched_crit_edge *first = &res->crit[0];
	unsigned n = b->n, cur = 0;
	int col;

	fprintf(o, "\nCritical sequence based on the simulation:\n\n");
	col = 0;
	pad_to(o, &col, 14);
	col += fprintf(o, "Instruction");
	pad_to(o, &col, 58);
	fprintf(o, "Dependency Information");
	if (first->from >= first->to) {
		crit_line(o, " +----< ", first->from, b, &col);
		fprintf(o, "\n |\n |    < loop carried > \n |");
	} else {
		for (; cur < first->from; cur++)
			crit_line(o, "        ", cur, b, &col);
		crit_line(o, " +----< ", cur, b, &col);
		cur++;
	}
	for (unsigned e = 0; e < res->n_crit; e++) {
		const struct sched_crit_edge *ce = &res->crit[e];
		unsigned last = cur > ce->to ? n : ce->to;

		for (; cur < last; cur++)
			crit_line(o, " |      ", cur, b, &col);
		if (cur == ce->to) {
			crit_line(o, " +----> ", ce->to, b, &col);
		} else {
			fprintf(o, "\n |\n |    < loop carried > \n |");
			crit_line(o, " +----> ", ce->to, b, &col);
		}
		pad_to(o, &col, 58);
		if (ce->type == 1) {
			const char *rn = ce->id == SCHED_REG_FLAGS ? "flags" : reg_name(ce->id);

			fprintf(o, "## REGISTER dependency:  %s%s", opt->intel_out ? "" : "%",
				rn ? rn : "?");
		} else if (ce->type == 2) {
			fprintf(o, "## MEMORY dependency.");
		} else {
			fprintf(o, "## RESOURCE interference:  %s [ probability: %u%% ]",
				model->resources[ce->id].name, ce->probability);
		}
		cur++;
	}
	for (; cur < n; cur++)
		crit_line(o, "        ", cur, b, &col);
	fputc('\n', o);
}

/* The corrected model's bottleneck analysis: the simulated throughput
 * against each lower bound, and the resources or register that set it. */
static void
print_bottleneck_corrected(FILE *o, const struct mca_opts *opt, const struct sched_result *res)
{
	const struct sched_stats *st = &res->stats;
	double tp = res->throughput, fe = st->cycles ? st->frontend_stalls * 100.0 / st->cycles : 0;
	double bounds[3] = { st->bound_issue, st->bound_ports, st->bound_deps };
	const char *names[3] = { "issue (fused uops)", "execution ports", "dependency chain" };
	unsigned worst = 0;
	bool first = true;

	for (unsigned k = 1; k < 3; k++)
		if (bounds[k] > bounds[worst])
			worst = k;
	fprintf(o, "\n\nThroughput bottlenecks (corrected model, cycles per iteration):\n");
	fprintf(o, "  Simulated (steady state)  %.2f\n", tp);
	fprintf(o, "  Issue, fused uops         %.2f\n", st->bound_issue);
	fprintf(o, "  Execution ports           %.2f  (", st->bound_ports);
	for (unsigned c = 0; c < res->n_columns && c < 64; c++) {
		if (!(st->bound_port_columns & (1ULL << c)))
			continue;
		fprintf(o, "%s%s", first ? "" : ", ", res->column_names[c]);
		first = false;
	}
	fprintf(o, ")\n  Dependency chain          %.2f", st->bound_deps);
	if (st->bound_deps > 0) {
		const char *rn = st->bound_dep_reg == SCHED_REG_FLAGS ? "flags"
									: reg_name(st->bound_dep_reg);

		fprintf(o, "  (through %s%s)", opt->intel_out ? "" : "%", rn ? rn : "?");
	}
	fprintf(o, "\n  Front end starved         %.1f%% of the cycles\n", fe);
	if (tp > bounds[worst] * 1.05)
		fprintf(o, "The simulation is %.0f%% above the largest bound (%s): the front end, "
			"port conflicts or memory dependencies cost the rest.\n",
			bounds[worst] > 0 ? (tp / bounds[worst] - 1) * 100 : 0.0, names[worst]);
	else
		fprintf(o, "Bound by the %s.\n", names[worst]);
}

static void
print_bottleneck(FILE *o, const struct mca_opts *opt, const struct sched_model *model,
		 const struct block *b, const struct sched_result *res)
{
	const struct sched_stats *st = &res->stats;
	double cyc = st->cycles ? (double)st->cycles : 1.0;
	uint64_t stalls = 0;

	/* llvm-mca reports nothing unless dispatch ever stalled. */
	for (unsigned k = 0; k < SCHED_N_STALLS; k++)
		stalls += st->stalls[k];
	if (!st->bn_cycles || !stalls) {
		fprintf(o, "\n\nNo resource or data dependency bottlenecks discovered.\n");
		return;
	}
	fprintf(o, "\n\nCycles with backend pressure increase [ %.2f%% ]\n",
		round2(st->bn_cycles * 100.0 / cyc));
	fprintf(o, "Throughput Bottlenecks: \n  Resource Pressure       [ %.2f%% ]\n",
		round2(st->bn_resource * 100.0 / cyc));
	for (unsigned j = 0; j < model->n_resources; j++)
		if (st->bn_per_resource[j])
			fprintf(o, "  - %s  [ %.2f%% ]\n", model->resources[j].name,
				round2(st->bn_per_resource[j] * 100.0 / cyc));
	fprintf(o, "  Data Dependencies:      [ %.2f%% ]\n", round2(st->bn_data * 100.0 / cyc));
	fprintf(o, "  - Register Dependencies [ %.2f%% ]\n",
		round2(st->bn_register * 100.0 / cyc));
	fprintf(o, "  - Memory Dependencies   [ %.2f%% ]\n", round2(st->bn_memory * 100.0 / cyc));
	if (res->n_crit)
		print_critical_sequence(o, opt, model, b, res);
}

/* Cycles of the timeline shown: the last event recorded before the cycle
 * limit (llvm-mca's LastCycle). */
static unsigned
timeline_last(const struct sched_result *res, unsigned max_cycles)
{
	unsigned last = 0, rows = res->timeline_iterations * res->n_insns;

	for (unsigned k = 0; k < rows; k++) {
		const struct sched_timeline_entry *t = &res->timeline[k];
		/* A dispatch spread over several cycles is an event in each. */
		uint32_t de = t->dispatched < max_cycles && t->dispatch_end >= max_cycles
				? max_cycles - 1 : t->dispatch_end;
		uint32_t ev[] = { t->dispatched, t->ready, t->issued, t->executed, t->retired, de };

		for (unsigned e = 0; e < 6; e++)
			if (ev[e] < max_cycles && ev[e] > last)
				last = ev[e];
	}
	return last;
}

static void
print_timeline(FILE *o, const struct mca_opts *opt, const struct block *b,
	       const struct sched_result *res)
{
	unsigned last = timeline_last(res, opt->tl_max_cycles);
	unsigned rows = res->timeline_iterations * b->n;
	int col;

	fprintf(o, "\n\nTimeline view:\n");
	if (last >= 10) {
		col = 0;
		pad_to(o, &col, 10);
		for (unsigned c = 0; c <= last; c++)
			fputc(((c / 10) & 1) ? '0' + (int)(c % 10) : ' ', o);
		fputc('\n', o);
	}
	col = fprintf(o, "Index");
	pad_to(o, &col, 10);
	for (unsigned c = 0; c <= last; c++)
		fputc(((c / 10) & 1) ? ' ' : '0' + (int)(c % 10), o);
	fputc('\n', o);
	for (unsigned k = 0; k < rows; k++) {
		const struct sched_timeline_entry *t = &res->timeline[k];
		bool retired_shown = t->retired < opt->tl_max_cycles;

		if (!retired_shown && t->executed != 0) {
			fprintf(o, "Truncated display due to cycle limit\n");
			break;
		}
		if (k == 0)
			fputc('\n', o);
		col = fprintf(o, "[%u,%u]", k / b->n, k % b->n);
		pad_to(o, &col, 10);
		for (unsigned c = 0; c < t->dispatched; c++)
			fputc(c % 5 == 0 ? '.' : ' ', o);
		fputc('D', o);
		if (t->dispatched != t->executed) {
			for (unsigned c = t->dispatched + 1; c < t->issued; c++)
				fputc('=', o);
			if (t->issued == t->executed) {
				fputc('E', o);
			} else {
				if (t->dispatched != t->issued)
					fputc('e', o);
				for (unsigned c = t->issued + 1; c < t->executed; c++)
					fputc('e', o);
				fputc('E', o);
			}
		}
		for (unsigned c = t->executed + 1; c < t->retired; c++)
			fputc('-', o);
		if (t->executed < t->retired)
			fputc('R', o);
		for (unsigned c = t->retired + 1; c <= last; c++)
			fputc(c % 5 == 0 || c == last ? '.' : ' ', o);
		fprintf(o, "   %s\n", b->text[k % b->n]);
	}

	fprintf(o, "\n\nAverage Wait times (based on the timeline view):\n[0]: Executions\n"
		"[1]: Average time spent waiting in a scheduler's queue\n"
		"[2]: Average time spent waiting in a scheduler's queue while ready\n"
		"[3]: Average time elapsed from WB until retire stage\n\n"
		"      [0]    [1]    [2]    [3]\n");
	{
		unsigned execs = res->timeline_iterations;
		double tot[3] = { 0, 0, 0 };

		for (unsigned i = 0; i <= b->n; i++) {
			double sum[3] = { 0, 0, 0 };
			unsigned cnt = i < b->n ? execs : execs * b->n;

			if (i == b->n && b->n == 1)
				break;
			if (i < b->n) {
				for (unsigned it = 0; it < execs; it++) {
					const struct sched_timeline_entry *t = &res->timeline[it * b->n + i];

					sum[0] += (double)t->issued - t->dispatched;
					sum[1] += (double)t->issued - t->ready;
					/* (an in-order pipeline retires as it
					 * executes: no time there) */
					sum[2] += t->retired > t->executed
						  ? ((double)t->retired - 1) - t->executed : 0;
				}
				for (unsigned k = 0; k < 3; k++)
					tot[k] += sum[k];
				col = fprintf(o, "%u.", i);
			} else {
				memcpy(sum, tot, sizeof(sum));
				col = 0;
			}
			pad_to(o, &col, 7);
			col += fprintf(o, "%u", execs);
			pad_to(o, &col, 13);
			col += fprintf(o, "%.1f", round1(cnt ? sum[0] / cnt : 0));
			pad_to(o, &col, 20);
			col += fprintf(o, "%.1f", round1(cnt ? sum[1] / cnt : 0));
			pad_to(o, &col, 27);
			col += fprintf(o, "%.1f", round1(cnt ? sum[2] / cnt : 0));
			pad_to(o, &col, 34);
			fprintf(o, "   %s\n", i < b->n ? b->text[i] : "<total>");
		}
	}
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */

/* The JSON output goes through a buffer of its own, written once per
 * block: stdio's cost per call (a few dozen small writes per block, more
 * with the views) was 3% of a batched run's instructions. */
struct jout {
	FILE *f;
	size_t len;
	char buf[16384];
};

static void
jo_flush(struct jout *o)
{
	/* A write error shows in ferror() / fclose() of o->f. */
	if (o->len)
		(void)fwrite(o->buf, 1, o->len, o->f);
	o->len = 0;
}

static void
jo_write(struct jout *o, const char *s, size_t n)
{
	if (n > sizeof(o->buf) - o->len) {
		jo_flush(o);
		if (n > sizeof(o->buf)) {
			(void)fwrite(s, 1, n, o->f);
			return;
		}
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void
jo_puts(struct jout *o, const char *s)
{
	jo_write(o, s, strlen(s));
}

static void
jo_putc(struct jout *o, char c)
{
	if (o->len == sizeof(o->buf))
		jo_flush(o);
	o->buf[o->len++] = c;
}

/* printf's "%llu" */
static void
jo_u64(struct jout *o, uint64_t v)
{
	char buf[24], *e = buf + sizeof(buf), *q = e;

	do {
		*--q = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jo_write(o, q, (size_t)(e - q));
}

static void __attribute__((format(printf, 2, 3)))
jo_printf(struct jout *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(o->buf) - o->len) {
		o->len += (size_t)n;
		return;
	}
	/* It did not fit: flush, then print again (into the buffer, or
	 * straight to the file when larger than the buffer). */
	jo_flush(o);
	va_start(ap, fmt);
	if ((size_t)n < sizeof(o->buf)) {
		n = vsnprintf(o->buf, sizeof(o->buf), fmt, ap);
		o->len = n > 0 ? (size_t)n : 0;
	} else {
		(void)vfprintf(o->f, fmt, ap);
	}
	va_end(ap);
}

static void
json_str(struct jout *o, const char *s)
{
	jo_putc(o, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t run = 0;

		/* A run of characters that need no escape, in one write. */
		while ((unsigned char)s[run] >= 0x20 && s[run] != '"' && s[run] != '\\')
			run++;
		if (run) {
			jo_write(o, s, run);
			s += run - 1;
			continue;
		}
		if (c == '"' || c == '\\')
			jo_printf(o, "\\%c", c);
		else if (c == '\t')
			jo_puts(o, "\\t");
		else if (c < 0x20)
			jo_printf(o, "\\u%04x", c);
		else
			jo_putc(o, c);
	}
	jo_putc(o, '"');
}

/*
 * jo_printf(o, "%.4f", v) (decimals 4) or "%.2f" (decimals 2), without
 * printf's cost for the common case.  y = v * 10^decimals is rounded
 * once (error at most half an ulp, below 2^-12 for |y| < 2^40); when y is
 * within 1/4 of an integer k, the exact v * 10^decimals is within
 * 1/4 + 2^-12 < 1/2 of k, so printf, which rounds the exact binary value,
 * prints k / 10^decimals: the digits of k.  Anything else (near a
 * rounding tie, negative, huge, not finite) goes to printf.
 */
static void
json_fixed(struct jout *o, double v, unsigned decimals)
{
	double scale = decimals == 4 ? 10000.0 : 100.0;
	double y = v * scale, k;
	char buf[32], *e = buf + sizeof(buf), *q = e;
	uint64_t n;

	if (!(v >= 0.0) || signbit(v) || !(y < 1099511627776.0)) {
		jo_printf(o, decimals == 4 ? "%.4f" : "%.2f", v);
		return;
	}
	k = floor(y + 0.5);
	if (fabs(y - k) > 0.25) {
		jo_printf(o, decimals == 4 ? "%.4f" : "%.2f", v);
		return;
	}
	n = (uint64_t)k;
	for (unsigned d = 0; d < decimals; d++) {
		*--q = (char)('0' + n % 10);
		n /= 10;
	}
	*--q = '.';
	do {
		*--q = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	jo_write(o, q, (size_t)(e - q));
}

static void
json_hist(struct jout *o, const char *name, const uint64_t *h)
{
	bool first = true;

	jo_printf(o, ", \"%s\": {", name);
	for (unsigned k = 0; k < SCHED_HIST; k++) {
		if (!h[k])
			continue;
		jo_puts(o, first ? "\"" : ", \"");
		jo_u64(o, k);
		jo_puts(o, "\": ");
		jo_u64(o, h[k]);
		first = false;
	}
	jo_putc(o, '}');
}

static void
print_json(struct jout *o, const struct mca_opts *opt, const struct model_choice *mc,
	   const struct region *rg, const struct block *b, const struct sched_result *res,
	   const double *tables, bool first)
{
	const struct sched_model *model = mc->model;
	const struct sched_stats *st = &res->stats;
	double cyc = res->total_cycles ? (double)res->total_cycles : 1.0;

	jo_puts(o, first ? "{\"region\": " : ",\n {\"region\": ");
	json_str(o, rg->name);
	/* (printf's "%s" and "%u" by hand: a call per field costs less) */
	jo_puts(o, ", \"cpu\": \"");
	jo_puts(o, model->name);
	jo_puts(o, opt->llvm ? "\", \"model\": \"llvm\"" : "\", \"model\": \"corrected\"");
	jo_puts(o, opt->loop ? ", \"throughput_mode\": \"loop\"" :
			       ", \"throughput_mode\": \"unrolled\"");
	jo_puts(o, ", \"instructions\": ");
	jo_u64(o, res->n_insns);
	jo_puts(o, ", \"iterations\": ");
	jo_u64(o, res->iterations);
	jo_puts(o, ", \"total_cycles\": ");
	jo_u64(o, res->total_cycles);
	jo_puts(o, ", \"total_uops\": ");
	jo_u64(o, res->total_uops);
	jo_puts(o, ", \"dispatch_width\": ");
	jo_u64(o, res->dispatch_width);
	jo_puts(o, ", \"cycles_per_iteration\": ");
	json_fixed(o, (double)res->total_cycles / res->iterations, 4);
	jo_puts(o, ", \"uops_per_cycle\": ");
	json_fixed(o, res->total_uops / cyc, 4);
	jo_puts(o, ", \"ipc\": ");
	json_fixed(o, (double)res->total_insns / cyc, 4);
	jo_puts(o, ", \"block_rthroughput\": ");
	json_fixed(o, res->block_rthroughput, 4);
	jo_puts(o, ", \"throughput\": ");
	json_fixed(o, res->throughput, 4);
	if (opt->instruction_info) {
		jo_puts(o, ", \"instruction_info\": [");
		for (unsigned i = 0; i < b->n; i++) {
			const struct sched_insn *s = &b->si[i];

			jo_puts(o, i ? ", {\"uops\": " : "{\"uops\": ");
			jo_u64(o, mc->ua ? b->ui[i].fused : s->uops);
			jo_puts(o, ", \"latency\": ");
			jo_u64(o, s->latency);
			jo_puts(o, ", \"rthroughput\": ");
			json_fixed(o, s->rthroughput, 2);
			jo_puts(o, s->may_load ? ", \"may_load\": true" : ", \"may_load\": false");
			jo_puts(o, s->may_store ? ", \"may_store\": true" : ", \"may_store\": false");
			jo_puts(o, s->has_side_effects ? ", \"has_side_effects\": true, \"text\": "
						  : ", \"has_side_effects\": false, \"text\": ");
			json_str(o, b->text[i]);
			jo_putc(o, '}');
		}
		jo_putc(o, ']');
	}
	if (opt->resource_pressure || opt->instruction_tables) {
		const double *pr = opt->instruction_tables ? tables : res->pressure;
		unsigned it = opt->instruction_tables ? 1 : res->iterations;

		jo_puts(o, opt->instruction_tables ? ", \"instruction_tables\": {\"resources\": ["
						   : ", \"resource_pressure\": {\"resources\": [");
		for (unsigned c = 0; c < res->n_columns; c++) {
			jo_puts(o, c ? ", " : "");
			json_str(o, res->column_names[c]);
		}
		jo_puts(o, "], \"per_iteration\": [");
		for (unsigned c = 0; c < res->n_columns; c++) {
			double sum = 0;

			for (unsigned i = 0; i < b->n; i++)
				sum += pr[i * res->n_columns + c];
			if (c)
				jo_puts(o, ", ");
			json_fixed(o, sum / it, 4);
		}
		jo_puts(o, "], \"by_instruction\": [");
		for (unsigned i = 0; i < b->n; i++) {
			jo_puts(o, i ? ", [" : "[");
			for (unsigned c = 0; c < res->n_columns; c++) {
				if (c)
					jo_puts(o, ", ");
				json_fixed(o, pr[i * res->n_columns + c] / it, 4);
			}
			jo_putc(o, ']');
		}
		jo_puts(o, "]}");
	}
	if (opt->timeline) {
		jo_puts(o, ", \"timeline\": [");
		for (unsigned k = 0; k < res->timeline_iterations * b->n; k++) {
			const struct sched_timeline_entry *t = &res->timeline[k];

			jo_printf(o, "%s{\"iteration\": %u, \"index\": %u, \"dispatched\": %u, "
				"\"ready\": %u, \"issued\": %u, \"executed\": %u, \"retired\": %u}",
				k ? ", " : "", k / b->n, k % b->n, t->dispatched, t->ready, t->issued,
				t->executed, t->retired);
		}
		jo_putc(o, ']');
	}
	if (opt->dispatch_stats) {
		static const char *const names[SCHED_N_STALLS] = {
			"RAT", "RCU", "SCHEDQ", "LQ", "SQ", "GROUP", "USH",
		};

		jo_printf(o, ", \"dispatch_stats\": {\"cycles\": %llu, \"stalls\": {",
			(unsigned long long)st->cycles);
		for (unsigned k = 0; k < SCHED_N_STALLS; k++)
			jo_printf(o, "%s\"%s\": %llu", k ? ", " : "", names[k],
				(unsigned long long)st->stalls[k]);
		if (!opt->llvm)
			jo_printf(o, ", \"FE\": %llu", (unsigned long long)st->frontend_stalls);
		jo_putc(o, '}');
		json_hist(o, "dispatched", st->dispatched);
		jo_putc(o, '}');
	}
	if (opt->scheduler_stats) {
		jo_printf(o, ", \"scheduler_stats\": {\"cycles\": %llu", (unsigned long long)st->cycles);
		json_hist(o, "issued", st->issued);
		jo_puts(o, ", \"queues\": [");
		for (unsigned k = 0; k < st->n_buffers; k++) {
			jo_printf(o, "%s{\"name\": ", k ? ", " : "");
			json_str(o, st->buffers[k].name);
			jo_printf(o, ", \"average\": %.4f, \"max\": %u, \"size\": %u}",
				st->cycles ? (double)st->buffers[k].cumulative / st->cycles : 0.0,
				st->buffers[k].max_used, st->buffers[k].size);
		}
		jo_puts(o, "]}");
	}
	if (opt->retire_stats) {
		jo_printf(o, ", \"retire_stats\": {\"cycles\": %llu", (unsigned long long)st->cycles);
		json_hist(o, "retired", st->retired);
		jo_printf(o, ", \"rob_size\": %u, \"rob_max\": %u, \"rob_average\": %.4f}",
			st->rob_size, st->rob_max,
			st->cycles ? (double)st->rob_cumulative / st->cycles : 0.0);
	}
	if (opt->register_file_stats) {
		jo_puts(o, ", \"register_file_stats\": [");
		for (unsigned f = 0; f < st->n_prf; f++) {
			const struct sched_prf_stat *p = &st->prf[f];

			jo_printf(o, "%s{\"name\": ", f ? ", " : "");
			json_str(o, p->name ? p->name : "default");
			jo_printf(o, ", \"physical_registers\": %u, \"mappings\": %llu, \"max_used\": %u, "
				"\"optimizable_moves\": %llu, \"moves_eliminated\": %llu, "
				"\"zero_moves\": %llu, \"max_moves_per_cycle\": %u}", p->size,
				(unsigned long long)p->mappings, p->max_used,
				(unsigned long long)p->move_candidates,
				(unsigned long long)p->moves_eliminated,
				(unsigned long long)p->zero_moves, p->max_moves_per_cycle);
		}
		jo_putc(o, ']');
	}
	if (opt->bottleneck) {
		bool first_r = true;

		jo_printf(o, ", \"bottleneck_analysis\": {\"cycles\": %llu, \"pressure_cycles\": %llu, "
			"\"resource_cycles\": %llu, \"data_cycles\": %llu, \"register_cycles\": %llu, "
			"\"memory_cycles\": %llu, \"resources\": {", (unsigned long long)st->cycles,
			(unsigned long long)st->bn_cycles, (unsigned long long)st->bn_resource,
			(unsigned long long)st->bn_data, (unsigned long long)st->bn_register,
			(unsigned long long)st->bn_memory);
		for (unsigned j = 0; j < model->n_resources; j++) {
			if (!st->bn_per_resource[j])
				continue;
			jo_puts(o, first_r ? "" : ", ");
			json_str(o, model->resources[j].name);
			jo_printf(o, ": %llu", (unsigned long long)st->bn_per_resource[j]);
			first_r = false;
		}
		jo_printf(o, "}, \"bound_issue\": %.4f, \"bound_ports\": %.4f, \"bound_deps\": %.4f}",
			st->bound_issue, st->bound_ports, st->bound_deps);
	}
	jo_putc(o, '}');
}

/* The reciprocal throughput as LLVM computes it, cycles over units (the
 * tables keep it to two decimals: 0.33 is 1/3): the simplest fraction
 * with a denominator up to 12 that two decimals round to v. */
static double
exact_ratio(double v)
{
	for (int d = 1; d <= 12; d++) {
		double k = floor(v * d + 0.5);

		if (fabs(v * d - k) <= 0.005 * d + 1e-9)
			return k / d;
	}
	return v;
}

/* llvm::json's numbers: an integral double as an integer, any other
 * with 17 significant digits. */
static void
jl_num(struct jout *o, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		jo_printf(o, "%lld", (long long)v);
	else
		jo_printf(o, "%.17g", v);
}

/* llvm::json's string escapes: \" \\ \n \t and \u00XX for the other
 * control characters. */
static void
jl_str(struct jout *o, const char *s, size_t n)
{
	jo_putc(o, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			jo_printf(o, "\\%c", c);
		else if (c == '\n')
			jo_puts(o, "\\n");
		else if (c == '\t')
			jo_puts(o, "\\t");
		else if (c < 0x20)
			jo_printf(o, "\\u%04x", c);
		else
			jo_putc(o, (char)c);
	}
	jo_putc(o, '"');
}

/*
 * One region in llvm-mca-14's JSON (--json): its views as objects, keys in
 * llvm::json's sorted order, two blanks per level.  The corrected model
 * adds "Micad" (the model, the steady-state throughput, the bottleneck
 * bounds); --model=llvm writes exactly llvm-mca-14's.
 */
static void
print_json_llvm(struct jout *o, const struct mca_opts *opt, const struct model_choice *mc,
		const struct region *rg, const struct block *b, const struct sched_result *res,
		const double *tables, bool first)
{
	const struct sched_stats *st = &res->stats;
	double cyc = res->total_cycles ? (double)res->total_cycles : 1.0;
	const char *sep;

	jo_puts(o, first ? "    {\n" : ",\n    {\n");
	if (opt->dispatch_stats && !opt->instruction_tables) {
		static const char *const names[SCHED_N_STALLS] = {
			"RAT", "RCU", "SCHEDQ", "LQ", "SQ", "GROUP", "USH",
		};
		static const unsigned order[SCHED_N_STALLS] = { 5, 3, 0, 1, 2, 4, 6 };

		jo_puts(o, "      \"DispatchStatistics\": {\n");
		for (unsigned k = 0; k < SCHED_N_STALLS; k++)
			jo_printf(o, "        \"%s\": %llu%s\n", names[order[k]],
				  (unsigned long long)st->stalls[order[k]],
				  k + 1 < SCHED_N_STALLS ? "," : "");
		jo_puts(o, "      },\n");
	}
	if (opt->instruction_info) {
		jo_puts(o, "      \"InstructionInfoView\": {\n        \"InstructionList\": [\n");
		for (unsigned i = 0; i < b->n; i++) {
			const struct sched_insn *s = &b->si[i];

			jo_printf(o, "          {\n            \"Instruction\": %u,\n"
				  "            \"Latency\": %u,\n            \"NumMicroOpcodes\": %u,\n"
				  "            \"RThroughput\": ", i,
				  s->info_latency ? s->info_latency : s->latency,
				  mc->ua ? b->ui[i].fused : s->uops);
			jl_num(o, exact_ratio(s->rthroughput));
			jo_printf(o, ",\n            \"hasUnmodeledSideEffects\": %s,\n"
				  "            \"mayLoad\": %s,\n            \"mayStore\": %s\n          }%s\n",
				  s->has_side_effects ? "true" : "false", s->may_load ? "true" : "false",
				  s->may_store ? "true" : "false", i + 1 < b->n ? "," : "");
		}
		jo_puts(o, "        ]\n      },\n");
	}
	jo_puts(o, "      \"Instructions\": [\n");
	for (unsigned i = 0; i < b->n; i++) {
		jo_puts(o, "        ");
		jl_str(o, b->text[i], strlen(b->text[i]));
		jo_puts(o, i + 1 < b->n ? ",\n" : "\n");
	}
	jo_puts(o, "      ],\n");
	if (!opt->llvm) {
		jo_puts(o, "      \"Micad\": {\n        \"BottleneckBounds\": {\n"
			"          \"DependencyChain\": ");
		jl_num(o, st->bound_deps);
		jo_puts(o, ",\n          \"ExecutionPorts\": ");
		jl_num(o, st->bound_ports);
		jo_puts(o, ",\n          \"Issue\": ");
		jl_num(o, st->bound_issue);
		jo_printf(o, "\n        },\n        \"FrontEndStallCycles\": %llu,\n"
			  "        \"Model\": \"%s\",\n        \"Throughput\": ",
			  (unsigned long long)st->frontend_stalls, mc->ua ? "corrected" :
			  "llvm-mca pipeline with corrections");
		jl_num(o, res->throughput);
		jo_printf(o, ",\n        \"ThroughputMode\": \"%s\"\n      },\n",
			  opt->loop ? "loop" : "unrolled");
	}
	jo_puts(o, "      \"Name\": ");
	jl_str(o, rg->name, strlen(rg->name));
	if (opt->resource_pressure || opt->instruction_tables) {
		const double *pr = opt->instruction_tables ? tables : res->pressure;
		double it = opt->instruction_tables ? 1.0 : res->iterations;
		bool any = false;

		jo_puts(o, ",\n      \"ResourcePressureView\": {\n        \"ResourcePressureInfo\": [");
		for (unsigned i = 0; i < b->n; i++)
			for (unsigned c = 0; c < res->n_columns; c++) {
				double u = pr[i * res->n_columns + c];

				if (u == 0)
					continue;
				jo_printf(o, "%s\n          {\n            \"InstructionIndex\": %u,\n"
					  "            \"ResourceIndex\": %u,\n"
					  "            \"ResourceUsage\": ", any ? "," : "", i, c);
				jl_num(o, u / it);
				jo_puts(o, "\n          }");
				any = true;
			}
		/* llvm-mca adds a row for the whole block */
		for (unsigned c = 0; c < res->n_columns; c++) {
			double u = 0;

			for (unsigned i = 0; i < b->n; i++)
				u += pr[i * res->n_columns + c];
			if (u == 0)
				continue;
			jo_printf(o, "%s\n          {\n            \"InstructionIndex\": %u,\n"
				  "            \"ResourceIndex\": %u,\n"
				  "            \"ResourceUsage\": ", any ? "," : "", b->n, c);
			jl_num(o, u / it);
			jo_puts(o, "\n          }");
			any = true;
		}
		jo_puts(o, any ? "\n        ]\n      }" : "]\n      }");
	}
	if (!opt->instruction_tables) {
		jo_printf(o, ",\n      \"SummaryView\": {\n        \"BlockRThroughput\": ");
		jl_num(o, res->block_rthroughput);
		jo_printf(o, ",\n        \"DispatchWidth\": %u,\n        \"IPC\": ", res->dispatch_width);
		jl_num(o, (double)res->total_insns / cyc);
		jo_printf(o, ",\n        \"Instructions\": %llu,\n        \"Iterations\": %u,\n"
			  "        \"TotalCycles\": %llu,\n        \"TotaluOps\": %llu,\n"
			  "        \"uOpsPerCycle\": ", (unsigned long long)res->total_insns,
			  res->iterations, (unsigned long long)res->total_cycles,
			  (unsigned long long)res->total_uops);
		jl_num(o, (double)res->total_uops / cyc);
		jo_puts(o, "\n      }");
	}
	if (opt->timeline && !opt->instruction_tables) {
		unsigned rows = res->timeline_iterations * b->n;

		jo_puts(o, ",\n      \"TimelineView\": {\n        \"TimelineInfo\": [");
		sep = "\n";
		for (unsigned k = 0; k < rows; k++) {
			const struct sched_timeline_entry *t = &res->timeline[k];

			jo_printf(o, "%s          {\n            \"CycleDispatched\": %u,\n"
				  "            \"CycleExecuted\": %u,\n            \"CycleIssued\": %u,\n"
				  "            \"CycleReady\": %u,\n            \"CycleRetired\": %u\n"
				  "          }", sep, t->dispatched, t->executed, t->issued, t->ready,
				  t->retired);
			sep = ",\n";
		}
		jo_puts(o, rows ? "\n        ]\n      }" : "]\n      }");
	}
	jo_puts(o, "\n    }");
}

/* After the regions: llvm-mca-14's SimulationParameters and TargetInfo. */
static void
print_json_llvm_tail(FILE *out, const struct mca_opts *opt, const struct sched_model *model)
{
	fprintf(out, "\n  ],\n  \"SimulationParameters\": {\n    \"-march\": \"x86_64\",\n"
		"    \"-mcpu\": \"%s\",\n    \"-mtriple\": \"%s\"\n  },\n"
		"  \"TargetInfo\": {\n    \"CPUName\": \"%s\",\n    \"Resources\": [",
		opt->mcpu, opt->triple ? opt->triple : "x86_64-pc-linux-gnu", opt->mcpu);
	for (unsigned i = 0, k = 0; i < model->n_resources; i++) {
		const struct sched_resource *d = &model->resources[i];

		if (d->is_group)
			continue;
		for (unsigned u = 0; u < d->units; u++, k++) {
			fprintf(out, "%s\n      \"%s", k ? "," : "", d->name);
			/* (llvm-mca-14 appends the unit number as a byte) */
			if (d->units > 1)
				fprintf(out, ".\\u%04x", u);
			fputc('"', out);
		}
	}
	fputs("\n    ]\n  }\n}\n", out);
}

/* ------------------------------------------------------------------ */
/* Options                                                             */


static int
parse_bool(const char *opt, const char *v, bool *out)
{
	if (!v || strcmp(v, "true") == 0 || strcmp(v, "1") == 0 || strcmp(v, "TRUE") == 0 ||
	    strcmp(v, "True") == 0) {
		*out = true;
		return 0;
	}
	if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0 || strcmp(v, "FALSE") == 0 ||
	    strcmp(v, "False") == 0) {
		*out = false;
		return 0;
	}
	error_msg("mca: -%s: '%s' is not a boolean (true, false, 1 or 0)", opt, v);
	return -1;
}

/* An option with two values: *second says whether it is the second. */
static int
pick(const char *opt, const char *v, const char *first, const char *second, bool *is_second)
{
	if (strcmp(v, first) != 0 && strcmp(v, second) != 0) {
		error_msg("mca: %s=%s: %s or %s", opt, v, first, second);
		return -1;
	}
	*is_second = strcmp(v, second) == 0;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Running the regions                                                 */

/* What the analysis of every region shares (read only). */
struct mca_run {
	const struct mca_opts *opt;
	const struct model_choice *mc;
	const struct region *rs;
	size_t nr;
};

/* Simulate region i, whose block b is built, and print its report to out
 * (JSON through jo, whose file is out).  *sim is the engine one thread
 * keeps from region to region.  Returns 0, UA_RUN_STUCK or -1 (out of
 * memory): region_failed() says so, where one thread would stop. */
static int
analyze_region(const struct mca_run *mr, size_t i, const struct block *b, struct ua_sim **sim,
	       FILE *out, struct jout *jo)
{
	const struct mca_opts *opt = mr->opt;
	const struct model_choice *mc = mr->mc;
	const struct sched_model *model = mc->model;
	const struct region *r = &mr->rs[i];
	struct sched_result res;
	struct sched_params p = {
		.iterations = opt->iterations, .dispatch_width = opt->dispatch,
		.noalias = opt->noalias, .bhive_env = opt->bhive,
		.register_file_size = opt->reg_file_size,
		.lqueue = opt->lqueue, .squeue = opt->squeue,
		/* (-timeline-max-iterations=0 is llvm-mca-14's default, 10) */
		.timeline_max_iterations = !opt->timeline ? 0 : opt->tl_max_iter ? opt->tl_max_iter : 10,
		.no_bottleneck = !opt->bottleneck,
	};
	double *tables = NULL;
	int run;

	run = mc->ua ? ua_run_block_reuse(sim, model, mc->ua, &p,
					  opt->loop ? UA_TP_LOOP : UA_TP_UNROLLED, b->ui, b->n, &res)
		     : sched_run(model, &p, b->si, b->n, &res);
	if (run < 0)
		return run;
	if (opt->instruction_tables) {
		tables = calloc((size_t)b->n * (res.n_columns ? res.n_columns : 1), sizeof(*tables));
		if (!tables) {
			sched_result_free(&res);
			return -1;
		}
		if (mc->ua)
			ua_instruction_tables(model, mc->ua, b->ui, b->n, tables, res.n_columns);
		else
			sched_instruction_tables(model, b->si, b->n, tables, res.n_columns);
	}
	if (opt->json && opt->json_compact) {
		print_json(jo, opt, mc, r, b, &res, tables, i == 0);
		jo_flush(jo);
	} else if (opt->json) {
		print_json_llvm(jo, opt, mc, r, b, &res, tables, i == 0);
		jo_flush(jo);
	} else {
		if (mr->nr > 1 || r->marked)
			fprintf(out, "\n[%zu] Code Region%s%s\n\n", i, r->name[0] ? " - " : "", r->name);
		if (opt->instruction_tables) {
			/* llvm-mca: the static tables replace the simulation. */
			print_instruction_info(out, opt, mc, b);
			print_pressure(out, model, b, tables, res.n_columns, 1);
		} else {
			if (opt->summary)
				print_summary(out, opt, &res);
			if (opt->bottleneck && mc->ua)
				print_bottleneck_corrected(out, opt, &res);
			else if (opt->bottleneck)
				print_bottleneck(out, opt, model, b, &res);
			if (opt->instruction_info)
				print_instruction_info(out, opt, mc, b);
			if (opt->dispatch_stats)
				print_dispatch_stats(out, &res.stats, mc->ua != NULL);
			if (opt->scheduler_stats)
				print_scheduler_stats(out, &res.stats);
			if (opt->retire_stats && !res.in_order)
				print_retire_stats(out, &res.stats);
			if (opt->register_file_stats)
				print_register_file_stats(out, &res.stats);
			if (opt->resource_pressure)
				print_pressure(out, model, b, res.pressure, res.n_columns,
					       res.iterations);
			if (opt->timeline && res.timeline_iterations)
				print_timeline(out, opt, b, &res);
		}
	}
	free(tables);
	sched_result_free(&res);
	return 0;
}

static void
region_failed(size_t i, int run)
{
	if (run == UA_RUN_STUCK)
		error_msg("mca: region %zu: the scheduling model made no progress for %u cycles "
			  "(no instruction retired): a bug of the model; please report it with "
			  "this input and the options used", i, UA_STUCK_CYCLES);
	else
		error_msg("mca: out of memory simulating region %zu", i);
}

/* Build region i's block; -1 after saying why (now, or with b->defer
 * set, when block_print_msgs() prints its messages). */
static int
region_block(const struct mca_run *mr, size_t i, struct block *b)
{
	const struct region *r = &mr->rs[i];

	if (r->n == 0) {
		block_msg(b, false, "region %zu%s%s has no instructions", i, r->name[0] ? " - " : "",
			  r->name);
		return -1;
	}
	if (mr->nr > 1)
		snprintf(b->where, sizeof(b->where), "region %zu: ", i);
	if (build_block(mr->mc, r, mr->opt, b) < 0)
		return -1;
	if (b->n == 0) {
		b->where[0] = '\0';
		block_msg(b, false, "region %zu has no instructions", i);
		return -1;
	}
	return 0;
}

/* The regions one after the other. */
static int
run_serial(const struct mca_run *mr, FILE *out, struct jout *jo)
{
	struct ua_sim *sim = NULL;	/* the engine, kept from block to block */
	int ret = 0;

	for (size_t i = 0; i < mr->nr && ret == 0; i++) {
		struct block b = { 0 };
		int run;

		if (region_block(mr, i, &b) < 0) {
			ret = -1;
		} else if ((run = analyze_region(mr, i, &b, &sim, out, jo)) < 0) {
			region_failed(i, run);
			ret = -1;
		}
		block_free(&b);
	}
	ua_sim_free(sim);
	return ret;
}

/*
 * --jobs: the regions simulated by worker threads, each with its own
 * engine, into memory; this thread decodes the blocks (in input order, so
 * the decoder's tables are built by one thread) a window ahead and writes
 * the reports in input order as they are done.  The output, messages
 * included, is byte for byte that of one thread: an error stops the run
 * where one thread would have stopped.
 */
#define MCA_WINDOW 64		/* blocks built ahead of the one written */
#define MCA_MAX_JOBS 64

/* --jobs=0: one thread per CPU this process may run on. */
static unsigned
default_jobs(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	else
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > MCA_MAX_JOBS ? MCA_MAX_JOBS : (unsigned)n;
}

struct mca_slot {
	struct block b;
	char *text;		/* the report */
	size_t len;
	int run;		/* analyze_region()'s result */
	bool done;
};

struct mca_pool {
	const struct mca_run *mr;
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct mca_slot slot[MCA_WINDOW];	/* region i in slot[i % MCA_WINDOW] */
	size_t built, claimed;
	bool quit;
};

static void *
mca_worker(void *arg)
{
	struct mca_pool *p = arg;
	struct ua_sim *sim = NULL;
	struct jout *jo = malloc(sizeof(*jo));

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct mca_slot *s;
		size_t i;
		FILE *m;
		int run = -1;

		while (!p->quit && p->claimed == p->built)
			pthread_cond_wait(&p->work, &p->lock);
		if (p->quit)
			break;
		i = p->claimed++;
		s = &p->slot[i % MCA_WINDOW];
		pthread_mutex_unlock(&p->lock);

		/* A memory stream fails only for want of memory: the slot
		 * then says so (run -1), as a failed simulation would. */
		m = jo ? open_memstream(&s->text, &s->len) : NULL;
		if (m) {
			__fsetlocking(m, FSETLOCKING_BYCALLER);
			jo->f = m;
			jo->len = 0;
			run = analyze_region(p->mr, i, &s->b, &sim, m, jo);
			if (fclose(m) != 0 && run == 0)
				run = -1;
		}

		pthread_mutex_lock(&p->lock);
		s->run = run;
		s->done = true;
		pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	ua_sim_free(sim);
	free(jo);
	return NULL;
}

/* Returns 0, -1 after an error message, or 1 when no thread could be
 * started (nothing was written: the caller runs the regions itself). */
static int
run_parallel(const struct mca_run *mr, unsigned jobs, FILE *out)
{
	struct mca_pool *p = xcalloc(1, sizeof(*p));
	pthread_t *tid = xcalloc(jobs, sizeof(*tid));
	unsigned started = 0;
	size_t written = 0;
	bool build_failed = false;
	int ret = 0, err;

	p->mr = mr;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	for (; started < jobs; started++) {
		err = pthread_create(&tid[started], NULL, mca_worker, p);
		if (err) {
			/* Fewer threads still give the same output. */
			if (started == 0) {
				errno = err;
				perror_msg("mca: cannot start a thread for --jobs; running the "
					   "regions in one thread");
				ret = 1;
			}
			break;
		}
	}
	while (ret == 0 && written < mr->nr) {
		struct mca_slot *s;

		/* Build ahead while the window has room: a block that fails
		 * to build stays in the slot after the last one built. */
		while (!build_failed && p->built < mr->nr && p->built - written < MCA_WINDOW) {
			s = &p->slot[p->built % MCA_WINDOW];
			memset(s, 0, sizeof(*s));
			s->b.defer = true;
			if (region_block(mr, p->built, &s->b) < 0) {
				build_failed = true;
				break;
			}
			pthread_mutex_lock(&p->lock);
			p->built++;
			pthread_cond_signal(&p->work);
			pthread_mutex_unlock(&p->lock);
		}
		/* Every region before the failed one is written: its
		 * messages now. */
		if (written == p->built) {
			ret = -1;
			break;
		}
		s = &p->slot[written % MCA_WINDOW];
		pthread_mutex_lock(&p->lock);
		while (!s->done)
			pthread_cond_wait(&p->done, &p->lock);
		pthread_mutex_unlock(&p->lock);
		block_print_msgs(&s->b);
		if (s->run < 0) {
			region_failed(written, s->run);
			ret = -1;
		} else if (s->len) {
			(void)fwrite(s->text, 1, s->len, out);	/* errors: ferror(), fclose() */
		}
		free(s->text);
		block_free(&s->b);
		written++;
	}
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	/* What was built or simulated after an error, and the block that
	 * failed to build (its messages, when its turn came). */
	for (size_t i = written; i < p->built; i++) {
		free(p->slot[i % MCA_WINDOW].text);
		block_free(&p->slot[i % MCA_WINDOW].b);
	}
	if (build_failed) {
		struct block *b = &p->slot[p->built % MCA_WINDOW].b;

		if (written == p->built)
			block_print_msgs(b);
		block_free(b);
	}
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	free(tid);
	free(p);
	return ret;
}

/* llvm-mca-14's x86 CPU names (its -mcpu=help), models or not. */
static const char *const llvm14_cpu_names[] = {
	"alderlake", "amdfam10", "athlon", "athlon-4", "athlon-fx", "athlon-mp",
	"athlon-tbird", "athlon-xp", "athlon64", "athlon64-sse3", "atom", "barcelona",
	"bdver1", "bdver2", "bdver3", "bdver4", "bonnell", "broadwell", "btver1", "btver2",
	"c3", "c3-2", "cannonlake", "cascadelake", "cooperlake", "core-avx-i", "core-avx2",
	"core2", "corei7", "corei7-avx", "generic", "geode", "goldmont", "goldmont-plus",
	"haswell", "i386", "i486", "i586", "i686", "icelake-client", "icelake-server",
	"ivybridge", "k6", "k6-2", "k6-3", "k8", "k8-sse3", "knl", "knm", "lakemont",
	"nehalem", "nocona", "opteron", "opteron-sse3", "penryn", "pentium", "pentium-m",
	"pentium-mmx", "pentium2", "pentium3", "pentium3m", "pentium4", "pentium4m",
	"pentiumpro", "prescott", "rocketlake", "sandybridge", "sapphirerapids",
	"silvermont", "skx", "skylake", "skylake-avx512", "slm", "tigerlake", "tremont",
	"westmere", "winchip-c6", "winchip2", "x86-64", "x86-64-v2", "x86-64-v3",
	"x86-64-v4", "yonah", "znver1", "znver2", "znver3",
};

/* LLVM 14's x86 subtarget features (-mattr; llvm-mca-14 -mcpu=help). */
static const char *const llvm14_features[] = {
	"16bit-mode", "32bit-mode", "3dnow", "3dnowa", "64bit", "64bit-mode", "adx", "aes",
	"amx-bf16", "amx-int8", "amx-tile", "avx", "avx2", "avx512bf16", "avx512bitalg",
	"avx512bw", "avx512cd", "avx512dq", "avx512er", "avx512f", "avx512fp16", "avx512ifma",
	"avx512pf", "avx512vbmi", "avx512vbmi2", "avx512vl", "avx512vnni", "avx512vp2intersect",
	"avx512vpopcntdq", "avxvnni", "bmi", "bmi2", "branchfusion", "cldemote", "clflushopt",
	"clwb", "clzero", "cmov", "crc32", "cx16", "cx8", "enqcmd", "ermsb", "f16c",
	"false-deps-lzcnt-tzcnt", "false-deps-popcnt", "fast-11bytenop", "fast-15bytenop",
	"fast-7bytenop", "fast-bextr", "fast-gather", "fast-hops", "fast-lzcnt", "fast-movbe",
	"fast-scalar-fsqrt", "fast-scalar-shift-masks", "fast-shld-rotate",
	"fast-variable-crosslane-shuffle", "fast-variable-perlane-shuffle", "fast-vector-fsqrt",
	"fast-vector-shift-masks", "fma", "fma4", "fsgsbase", "fsrm", "fxsr", "gfni", "hreset",
	"idivl-to-divb", "idivq-to-divl", "invpcid", "kl", "lea-sp", "lea-uses-ag", "lvi-cfi",
	"lvi-load-hardening", "lwp", "lzcnt", "macrofusion", "mmx", "movbe", "movdir64b",
	"movdiri", "mwaitx", "nopl", "pad-short-functions", "pclmul", "pconfig", "pku",
	"popcnt", "prefer-128-bit", "prefer-256-bit", "prefer-mask-registers", "prefetchwt1",
	"prfchw", "ptwrite", "rdpid", "rdrnd", "rdseed", "retpoline",
	"retpoline-external-thunk", "retpoline-indirect-branches", "retpoline-indirect-calls",
	"rtm", "sahf", "serialize", "seses", "sgx", "sha", "shstk", "slow-3ops-lea",
	"slow-incdec", "slow-lea", "slow-pmaddwd", "slow-pmulld", "slow-shld",
	"slow-two-mem-ops", "slow-unaligned-mem-16", "slow-unaligned-mem-32", "soft-float",
	"sse", "sse-unaligned-mem", "sse2", "sse3", "sse4.1", "sse4.2", "sse4a", "ssse3",
	"tagged-globals", "tbm", "tsxldtrk", "uintr", "use-aa", "use-glm-div-sqrt-costs",
	"use-slm-arith-costs", "vaes", "vpclmulqdq", "vzeroupper", "waitpkg", "wbnoinvd",
	"widekl", "x87", "xop", "xsave", "xsavec", "xsaveopt", "xsaves",
};

/* -mattr=+f,-g: llvm-mca-14 checks the names (its parser takes every
 * instruction whatever the features: they change nothing it reports). */
static void
mca_check_features(const char *list)
{
	char *copy = xstrdup(list), *save = NULL;

	for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		const char *name = f + (*f == '+' || *f == '-');
		bool known = false;

		for (size_t i = 0; i < sizeof(llvm14_features) / sizeof(llvm14_features[0]); i++)
			known |= strcmp(name, llvm14_features[i]) == 0;
		if (!known)
			fprintf(stderr, "'%s' is not a recognized feature for this target "
				"(ignoring feature)\n", f);
	}
	free(copy);
}

/* llvm-mca-14's words for a CPU it does not know, or knows without a
 * scheduling model (bdver4, k8); it then exits 1. */
static void
mca_unknown_cpu(const char *cpu, const char *triple)
{
	for (size_t i = 0; i < sizeof(llvm14_cpu_names) / sizeof(llvm14_cpu_names[0]); i++) {
		if (strcmp(cpu, llvm14_cpu_names[i]) == 0) {
			fprintf(stderr, "error: unable to find instruction-level scheduling "
				"information for target triple '%s' and cpu '%s'.\n",
				triple ? triple : "x86_64-pc-linux-gnu", cpu);
			return;
		}
	}
	/* (twice: llvm-mca-14 makes two subtarget objects) */
	for (int k = 0; k < 2; k++)
		fprintf(stderr, "'%s' is not a recognized processor for this target "
			"(ignoring processor)\n", cpu);
}

/* The host CPU as LLVM 14 names it (sys::getHostCPUName), among the names
 * with a model: llvm-mca-14's default -mcpu.  LLVM 14 has no Zen 4: it
 * calls family 19h znver3. */
static const char *
mca_host_cpu14(void)
{
	const char *c = trace_sched_host_cpu();
	unsigned eax, ebx, ecx, edx;

	if (strcmp(c, "znver4") == 0)
		return "znver3";
	if (strcmp(c, "znver3") == 0 && __get_cpuid(1, &eax, &ebx, &ecx, &edx) &&
	    ((eax >> 8) & 0xf) + ((eax >> 20) & 0xff) == 0x17) {
		unsigned model = ((eax >> 4) & 0xf) | ((eax >> 16) & 0xf) << 4;

		return (model >= 0x30 && model <= 0x3f) || model == 0x71 || model == 0x60 ||
		       model == 0x68 || model == 0x90 ? "znver2" : "znver1";
	}
	return c;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: micactl mca [OPTIONS] [FILE|-]\n"
		"Analyze machine code like llvm-mca: AT&T assembly (Intel with\n"
		"-x86-asm-syntax=intel), regions marked # LLVM-MCA-BEGIN [name] /\n"
		"# LLVM-MCA-END, or with --hex hex bytes, one block per line.\n"
		"llvm-mca's options (single or double dash, -opt=VALUE):\n"
		"  -mcpu=CPU                  every CPU llvm-mca-14 models (-mcpu=help lists\n"
		"                             them; default: the host's, %s)\n"
		"  -march=x86-64, -mtriple=x86_64-...  (only x86-64 is supported)\n"
		"  -iterations=N              default 100 (0 = 100)\n"
		"  -dispatch=N                dispatch width (0 = the model's)\n"
		"  -register-file-size=N      default register file size (0 = unlimited)\n"
		"  -noalias[=BOOL]            loads and stores do not alias (default true)\n"
		"  -lqueue=N, -squeue=N       load/store queue sizes (0 = unlimited)\n"
		"  -timeline[=BOOL], -timeline-max-iterations=N (10), -timeline-max-cycles=N (80)\n"
		"  -resource-pressure[=BOOL]  (default on), -instruction-info[=BOOL] (default on)\n"
		"  -dispatch-stats, -scheduler-stats, -retire-stats, -register-file-stats\n"
		"  -all-stats, -all-views, -bottleneck-analysis, -instruction-tables\n"
		"  -output-asm-variant=0|1    AT&T or Intel in the report\n"
		"  -show-encoding[=BOOL]      the instructions' bytes in the instruction info\n"
		"  -mattr=[+|-]F,...         subtarget features (checked, as llvm-mca-14 does)\n"
		"  -o FILE                    write the report to FILE (- = standard output)\n"
		"micad's:\n"
		"  --model=corrected|llvm     the corrected model (default) or llvm-mca's\n"
		"  --throughput=unrolled|loop the block unrolled (default, as BHive\n"
		"                             measured) or run as a loop\n"
		"  --bhive                    BHive's environment: its harness's register\n"
		"                             and memory values, one physical page\n"
		"  --hex, --json[=llvm|compact] (llvm-mca's JSON, or one object per region)\n"
		"  --jobs=N                   regions analyzed by N threads at once (default 0:\n"
		"                             one per CPU; the output is the same for any N)\n",
		trace_sched_host_cpu());
}

int
cmd_mca(int argc, char **argv)
{
	enum {
		O_MCPU = 256, O_MARCH, O_TRIPLE, O_VARIANT, O_ITER, O_DISP, O_RFSIZE, O_NOALIAS,
		O_LQ, O_SQ, O_TL, O_TLI, O_TLC, O_RP, O_RFS, O_DS, O_SS, O_RS, O_II, O_ALLS,
		O_ALLV, O_IT, O_BN, O_OUT, O_HEX, O_JSON, O_MODEL, O_TPMODE, O_BHIVE, O_SYNTAX,
		O_JOBS, O_HELP, O_ENC, O_MATTR,
	};
	static const struct option longopts[] = {
		{ "mcpu", required_argument, NULL, O_MCPU },
		{ "march", required_argument, NULL, O_MARCH },
		{ "mtriple", required_argument, NULL, O_TRIPLE },
		{ "output-asm-variant", required_argument, NULL, O_VARIANT },
		{ "iterations", required_argument, NULL, O_ITER },
		{ "dispatch", required_argument, NULL, O_DISP },
		{ "register-file-size", required_argument, NULL, O_RFSIZE },
		{ "noalias", optional_argument, NULL, O_NOALIAS },
		{ "lqueue", required_argument, NULL, O_LQ },
		{ "squeue", required_argument, NULL, O_SQ },
		{ "timeline", optional_argument, NULL, O_TL },
		{ "timeline-max-iterations", required_argument, NULL, O_TLI },
		{ "timeline-max-cycles", required_argument, NULL, O_TLC },
		{ "resource-pressure", optional_argument, NULL, O_RP },
		{ "register-file-stats", optional_argument, NULL, O_RFS },
		{ "dispatch-stats", optional_argument, NULL, O_DS },
		{ "scheduler-stats", optional_argument, NULL, O_SS },
		{ "retire-stats", optional_argument, NULL, O_RS },
		{ "instruction-info", optional_argument, NULL, O_II },
		{ "all-stats", optional_argument, NULL, O_ALLS },
		{ "all-views", optional_argument, NULL, O_ALLV },
		{ "instruction-tables", optional_argument, NULL, O_IT },
		{ "bottleneck-analysis", optional_argument, NULL, O_BN },
		{ "o", required_argument, NULL, O_OUT },
		{ "hex", no_argument, NULL, O_HEX },
		{ "json", optional_argument, NULL, O_JSON },
		{ "model", required_argument, NULL, O_MODEL },
		{ "throughput", required_argument, NULL, O_TPMODE },
		{ "bhive", no_argument, NULL, O_BHIVE },
		{ "x86-asm-syntax", required_argument, NULL, O_SYNTAX },
		{ "jobs", required_argument, NULL, O_JOBS },
		{ "show-encoding", optional_argument, NULL, O_ENC },
		{ "mattr", required_argument, NULL, O_MATTR },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct mca_opts opt = {
		.iterations = 100, .tl_max_iter = 10, .tl_max_cycles = 80, .summary = true,
		.resource_pressure = true, .instruction_info = true, .noalias = true,
		.output = "-",
	};
	int variant = -1;
	/* where each view option was given (argv index), for llvm-mca's rule
	 * that -all-views and -all-stats override the view options given
	 * before them and not those after */
	enum { V_TIMELINE, V_RESOURCE_PRESSURE, V_REGISTER_FILE_STATS, V_DISPATCH_STATS,
	       V_SCHEDULER_STATS, V_RETIRE_STATS, V_INSTRUCTION_INFO, V_BOTTLENECK, V_N };
	int pos[V_N] = { 0 }, pos_allv = 0, pos_alls = 0;
	bool all_views = false, all_stats = false, bn_by_all_views = false;
	const char *mattr = NULL;
	const struct sched_model *model;
	struct model_choice mc;
	struct region *rs = NULL;
	size_t nr = 0, len;
	char *text = NULL;
	FILE *in, *out = stdout;
	struct jout *jo = NULL;
	unsigned jobs = 0;
	int c, ret = 1;

	opterr = 0;
	optind = 0;	/* glibc: 0 starts a fresh scan (micactl parsed its own options) */
	while ((c = getopt_long_only(argc, argv, "", longopts, NULL)) != -1) {
		unsigned long long v = 0;
		bool b = false;

		if ((c == O_ITER || c == O_DISP || c == O_TLI || c == O_TLC || c == O_RFSIZE ||
		     c == O_LQ || c == O_SQ || c == O_VARIANT || c == O_JOBS) &&
		    (parse_u64(optarg, &v) < 0 || v > 100000000ULL)) {
			error_msg("mca: invalid number '%s' for %s", optarg, argv[optind - 1]);
			return 1;
		}
		if ((c == O_NOALIAS || c == O_TL || c == O_RP || c == O_RFS || c == O_DS ||
		     c == O_SS || c == O_RS || c == O_II || c == O_ALLS || c == O_ALLV ||
		     c == O_IT || c == O_BN || c == O_ENC) &&
		    parse_bool(argv[optind - 1] + strspn(argv[optind - 1], "-"), optarg, &b) < 0)
			return 1;
		switch (c) {
		case O_MCPU: opt.mcpu = optarg; break;
		case O_MARCH:
			if (strcmp(optarg, "x86-64") != 0 && strcmp(optarg, "x86_64") != 0) {
				error_msg("mca: -march=%s: only x86-64 is supported", optarg);
				return 1;
			}
			break;
		case O_TRIPLE:
			if (strncmp(optarg, "x86_64", 6) != 0) {
				error_msg("mca: -mtriple=%s: only x86_64 targets are supported", optarg);
				return 1;
			}
			opt.triple = optarg;
			break;
		case O_VARIANT:
			if (v > 1) {
				error_msg("mca: -output-asm-variant=%llu: 0 (AT&T) or 1 (Intel)", v);
				return 1;
			}
			variant = (int)v;
			break;
		case O_ITER: opt.iterations = v ? (unsigned)v : 100; break;
		case O_DISP: opt.dispatch = (unsigned)v; break;
		case O_RFSIZE: opt.reg_file_size = (unsigned)v; break;
		case O_LQ: opt.lqueue = (unsigned)v; break;
		case O_SQ: opt.squeue = (unsigned)v; break;
		case O_NOALIAS: opt.noalias = b; break;
		case O_TL: opt.timeline = b; pos[V_TIMELINE] = optind; break;
		case O_TLI: opt.tl_max_iter = (unsigned)v; break;
		case O_TLC: opt.tl_max_cycles = v ? (unsigned)v : UINT_MAX; break;
		case O_RP: opt.resource_pressure = b; pos[V_RESOURCE_PRESSURE] = optind; break;
		case O_RFS: opt.register_file_stats = b; pos[V_REGISTER_FILE_STATS] = optind; break;
		case O_DS: opt.dispatch_stats = b; pos[V_DISPATCH_STATS] = optind; break;
		case O_SS: opt.scheduler_stats = b; pos[V_SCHEDULER_STATS] = optind; break;
		case O_RS: opt.retire_stats = b; pos[V_RETIRE_STATS] = optind; break;
		case O_II: opt.instruction_info = b; pos[V_INSTRUCTION_INFO] = optind; break;
		case O_ALLS: all_stats = b; pos_alls = optind; break;
		case O_ALLV: all_views = b; pos_allv = optind; break;
		case O_IT: opt.instruction_tables = b; break;
		case O_BN: opt.bottleneck = b; pos[V_BOTTLENECK] = optind; break;
		case O_ENC: opt.show_encoding = b; break;
		case O_MATTR: mattr = optarg; break;
		case O_OUT: opt.output = optarg; break;
		case O_HEX: opt.hex = true; break;
		case O_JSON:
			if (optarg && strcmp(optarg, "compact") != 0 && strcmp(optarg, "llvm") != 0) {
				error_msg("mca: --json=%s: llvm (llvm-mca's schema, the default) or "
					  "compact", optarg);
				return 1;
			}
			opt.json = true;
			opt.json_compact = optarg && strcmp(optarg, "compact") == 0;
			break;
		case O_BHIVE: opt.bhive = true; break;
		case O_SYNTAX:
			if (strcmp(optarg, "intel") != 0 && strcmp(optarg, "att") != 0) {
				error_msg("mca: -x86-asm-syntax=%s: att or intel", optarg);
				return 1;
			}
			opt.intel_in = strcmp(optarg, "intel") == 0;
			break;
		case O_MODEL:
			if (pick("--model", optarg, "corrected", "llvm", &opt.llvm) < 0)
				return 1;
			break;
		case O_TPMODE:
			if (pick("--throughput", optarg, "unrolled", "loop", &opt.loop) < 0)
				return 1;
			break;
		case O_JOBS:
			if (v > MCA_MAX_JOBS) {
				error_msg("mca: --jobs=%llu: at most %u threads (0 = one per CPU)",
					  v, MCA_MAX_JOBS);
				return 1;
			}
			jobs = (unsigned)v;
			break;
		case O_HELP: usage(stdout); return 0;
		default:
			/* llvm-mca's words (an option's missing value too) */
			fprintf(stderr, "micactl mca: Unknown command line argument '%s'.  Try: "
				"'micactl mca --help'\n", argv[optind - 1]);
			return 1;
		}
	}
	opt.intel_out = variant < 0 ? opt.intel_in : variant == 1;
	if (pos_allv || pos_alls) {
		bool *views[V_N] = {
			&opt.timeline, &opt.resource_pressure, &opt.register_file_stats,
			&opt.dispatch_stats, &opt.scheduler_stats, &opt.retire_stats,
			&opt.instruction_info, &opt.bottleneck,
		};
		bool stats_value = pos_allv < pos_alls ? all_stats : all_views;
		int stats_pos = pos_allv < pos_alls ? pos_alls : pos_allv;

		for (int k = 0; k < V_N; k++) {
			bool stat = k == V_REGISTER_FILE_STATS || k == V_DISPATCH_STATS ||
				    k == V_SCHEDULER_STATS || k == V_RETIRE_STATS;

			if (stat && (!pos[k] || pos[k] < stats_pos))
				*views[k] = stats_value;
			else if (!stat && pos_allv && (!pos[k] || pos[k] < pos_allv))
				*views[k] = all_views;
		}
		if (pos_allv)
			opt.summary = all_views;
		bn_by_all_views = pos_allv && (!pos[V_BOTTLENECK] || pos[V_BOTTLENECK] < pos_allv);
	}
	if (optind + 1 < argc) {
		/* llvm-mca's words: one input file at most */
		fprintf(stderr, "micactl mca: Too many positional arguments specified!\n"
			"Can specify at most 1 positional arguments: See: micactl mca --help\n");
		return 1;
	}
	if (opt.mcpu && strcmp(opt.mcpu, "help") == 0) {
		/* As llvm-mca -mcpu=help: the names it accepts, on stdout. */
		printf("CPUs for -mcpu (default: the host's: %s for the corrected model, %s for "
		       "--model=llvm; 'native' is the same):\n", trace_sched_host_cpu(),
		       mca_host_cpu14());
		for (const struct sched_cpu14 *cp = sched_cpus14; cp->cpu; cp++)
			printf("  %-15s LLVM 14's %s model%s\n", cp->cpu, cp->model,
			       sched_uarch_find(cp->cpu) ? "; corrected model (the default)" :
			       sched_model_find(cp->cpu) ? "; llvm-mca's pipeline with corrections" :
			       "");
		printf("  %-15s corrected model (the default); no LLVM 14 model\n", "znver4");
		return 0;
	}
	if (!opt.mcpu || strcmp(opt.mcpu, "native") == 0)
		opt.mcpu = opt.llvm ? mca_host_cpu14() : trace_sched_host_cpu();
	memset(&mc, 0, sizeof(mc));
	/* --model=llvm: LLVM 14's model of the name, as llvm-mca-14 picks
	 * it; the corrected model: LLVM 19's tables where we have them
	 * (the uop-level model's base), else LLVM 14's. */
	model = opt.llvm ? NULL : sched_model_find(opt.mcpu);
	if (!model)
		model = sched_model_find14(opt.mcpu);
	if (!model) {
		mca_unknown_cpu(opt.mcpu, opt.triple);
		return 1;
	}
	mc.model = model;
	if (mattr)
		mca_check_features(mattr);
	if (model->micro_op_buffer_size == 0) {
		/* llvm-mca's in-order pipeline: -all-views leaves the
		 * bottleneck analysis out, asking for it gets a warning */
		if (bn_by_all_views)
			opt.bottleneck = false;
		else if (opt.bottleneck)
			fprintf(stderr, "warning: bottleneck analysis is not supported for in-order "
				"CPU '%s'.\n", opt.mcpu);
	}
	if (!opt.llvm) {
		mc.ua = sched_uarch_find(opt.mcpu);
		if (mc.ua && (strcmp(sched_model_find(mc.ua->model)->name, model->name) != 0 ||
			      ua_ports_init(model, mc.ua, &mc.pt) < 0))
			mc.ua = NULL;
		mc.correct = mc.ua == NULL;
	}
	in = optind == argc || strcmp(argv[optind], "-") == 0 ? stdin : fopen(argv[optind], "r");
	if (!in) {
		perror_msg("mca: cannot open %s", argv[optind]);
		return 1;
	}
	text = read_all(in, &len);
	if (in != stdin)
		fclose(in);
	if ((opt.hex ? parse_hex(text, &rs, &nr) :
	     parse_asm(text, opt.intel_in, in == stdin ? "<stdin>" : argv[optind], &rs, &nr)) < 0)
		goto out;
	if (nr == 0 || (nr == 1 && rs[0].n == 0)) {
		/* llvm-mca-14's words */
		fprintf(stderr, "error: no assembly instructions found.\n");
		goto out;
	}
	if (strcmp(opt.output, "-") != 0) {
		out = output_fopen(opt.output, "the mca report");
		if (!out) {
			out = stdout;
			goto out;
		}
	}
	/* Thousands of blocks (--hex): keep freed memory for the next block
	 * rather than giving it back to the kernel and faulting it in again.
	 * A speed setting only: when it fails (sanitizer allocators do not
	 * support it) the defaults stay, with the same results, so the
	 * return value is deliberately not reported. */
	if (nr > 1) {
		(void)mallopt(M_TRIM_THRESHOLD, 64 << 20);
		(void)mallopt(M_MMAP_THRESHOLD, 16 << 20);
	}
	/* One thread writes it: no stdio locking per call. */
	__fsetlocking(out, FSETLOCKING_BYCALLER);
	if (opt.json) {
		jo = xmalloc(sizeof(*jo));
		jo->f = out;
		jo->len = 0;
		fputs(opt.json_compact ? "[" : "{\n  \"CodeRegions\": [\n", out);
	}
	{
		struct mca_run mr = { &opt, &mc, rs, nr };
		int r = 1;

		if (jobs == 0)
			jobs = default_jobs();
		if (jobs > nr)
			jobs = (unsigned)nr;
		if (jobs > 1)
			r = run_parallel(&mr, jobs, out);
		if (r > 0)
			r = run_serial(&mr, out, jo);
		if (r < 0)
			goto out;
	}
	if (opt.json && opt.json_compact)
		fputs("]\n", out);
	else if (opt.json)
		print_json_llvm_tail(out, &opt, model);
	ret = 0;
out:
	if (out != stdout && fclose(out) != 0 && ret == 0) {
		perror_msg("mca: writing %s", opt.output);
		ret = 1;
	}
	for (size_t i = 0; i < nr; i++) {
		free(rs[i].name);
		free(rs[i].bytes);
		for (size_t k = 0; k < rs[i].n_lines; k++)
			free(rs[i].lines[k].text);
		free(rs[i].lines);
	}
	free(rs);
	free(text);
	free(jo);
	return ret;
}
