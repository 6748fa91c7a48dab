/*
 * MICA's output files (spec mica.md §4.1), formatted in memory: one
 * consumer of the intervals mica_run delivers.  Names follow §2
 * ("<base>_pin.out", "<base>_<pid>_pin.out" with append_pid, ilp_one as
 * "ilp-win<W>", itypes_other_group_categories.txt never with a pid).
 * Bytes accumulate per file until the caller takes them; interval-mode
 * files are meant to be truncated when the run starts and appended to,
 * full-mode files written at the end (mica_files.c does that).
 */
#ifndef MICAD_MICA_OUTPUT_H
#define MICAD_MICA_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mica/mica.h"

struct mica_output_file {
	char *name;
	char *data;		/* pending bytes */
	size_t len, cap;
	bool truncate_at_start;	/* interval mode: MICA truncates at start-up */
	bool opened;		/* the writer has created the file */
};

struct mica_output {
	size_t n_files;
	struct mica_output_file *files;
	int file_of[MICA_N_ANALYSES];	/* index in files, -1 if not run */
	int other_categories;		/* index of itypes_other_group_categories.txt */
	bool failed;
};

/* Files for cfg's analyses; pid is used with append_pid.  NULL if out of
 * memory. */
struct mica_output *mica_output_new(const struct mica_config *cfg, long pid);
void mica_output_free(struct mica_output *o);

/* Append the lines of one interval to the pending bytes; -1 if out of
 * memory.  Its signature fits mica_interval_fn. */
int mica_output_add(void *o, const struct mica_interval *iv);

/* MICA's 11 reg numbers (§3.4): totOps nVals totUses nReads c1 c2 c4 c8
 * c16 c32 c64, from the raw histograms. */
#define MICA_REG_NUMBERS	(4 + MICA_REG_CUM)
void mica_reg_numbers(const struct mica_reg_result *r, uint64_t v[MICA_REG_NUMBERS]);

/*
 * A line "# text" in every analysis' file (not the categories list):
 * sample mode says so at the top of its files, whose counts are sums over
 * bursts (MICA's own files never have a comment).  Call before the first
 * interval; text has no newline.  -1 if out of memory.
 */
int mica_output_comment(struct mica_output *o, const char *text);

/* Forget the pending bytes of every file (after writing them). */
void mica_output_clear(struct mica_output *o);

#endif /* MICAD_MICA_OUTPUT_H */
