/*
 * MICA's files on disk: reading mica.conf and the itypes spec file it
 * names, and writing the output files mica_output.c formats (interval-mode
 * files truncated when the run starts and appended to at each boundary,
 * full-mode files created at the end, as MICA does), and mica_progress.txt.
 * (MICA's mica.log, which holds its configuration messages until parsing
 * ends, is not written: see the README's MICA section.)
 */
#ifndef MICAD_MICA_FILES_H
#define MICAD_MICA_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "mica/mica_config.h"
#include "mica/mica_output.h"

/* The whole file, NUL-terminated; NULL after reporting why. */
char *mica_read_file(const char *path, size_t *len);

/*
 * A configuration's text and that of the itypes spec file it names, as
 * read from disk by whoever may read them (micactl, for the daemon: the
 * daemon never opens a path a client names).  malloc'd strings.
 */
#define MICA_FILE_MAX (16 << 20)

struct mica_config_text {
	char *name;		/* the configuration file's name, for messages */
	char *text;
	char *spec_name;	/* the spec file's path; NULL: none needed */
	char *spec_text;
};

/* Read the file at path and the spec file it names (when it runs itypes)
 * into out: regular files of at most MICA_FILE_MAX bytes each.  -1 after reporting the error (file, line, problem). */
int mica_config_read(const char *path, struct mica_config_text *out);
void mica_config_text_free(struct mica_config_text *t);

/* Load and check a configuration from its text (no file is opened).
 * -1 after reporting the error. */
int mica_config_load_text(struct mica_config *cfg, const struct mica_config_text *src);

/*
 * Load and check mica.conf at path, and the itypes spec file it names (a
 * relative name is taken from the configuration file's directory, which is
 * MICA's working directory).  -1 after reporting the error (file, line,
 * problem).
 */
int mica_config_load(struct mica_config *cfg, const char *path);

/* --mica-out must name a directory micad can write, checked before
 * anything runs (not after the whole trace): 0, or -1 after saying why. */
int mica_out_dir_check(const char *dir);

/* Truncate the interval-mode files in dir (the start of a run). */
int mica_files_begin(struct mica_output *o, const char *dir);

/* Write out the pending bytes of every file in dir and clear them. */
int mica_files_flush(struct mica_output *o, const char *dir);

/*
 * MICA's progress file (mica.md §2; MICA is built with -DVERBOSE by
 * default): each time the count of DEs analyzed (all threads together, as
 * MICA's one counter) reaches a multiple of 10^7, dir/mica_progress.txt is
 * overwritten with "<count> instructions analyzed\n".  Call after each DE
 * with the new count.  A failure is reported (once per call) and otherwise
 * ignored: the file is only a progress report.
 */
#define MICA_PROGRESS_EVERY	10000000

void mica_progress_write(const char *dir, uint64_t count);

static inline void
mica_progress(const char *dir, uint64_t count)
{
	if (count % MICA_PROGRESS_EVERY == 0)
		mica_progress_write(dir, count);
}

#endif /* MICAD_MICA_FILES_H */
