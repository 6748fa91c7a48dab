/*
 * MICA's files on disk: reading mica.conf and the itypes spec file it
 * names, and writing the output files mica_output.c formats (interval-mode
 * files truncated when the run starts and appended to at each boundary,
 * full-mode files created at the end, as MICA does).
 */
#ifndef MICAD_MICA_FILES_H
#define MICAD_MICA_FILES_H

#include <stddef.h>

#include "mica_config.h"
#include "mica_output.h"

/* The whole file, NUL-terminated; NULL after reporting why. */
char *mica_read_file(const char *path, size_t *len);

/*
 * Load and check mica.conf at path, and the itypes spec file it names (a
 * relative name is taken from the configuration file's directory, which is
 * MICA's working directory).  -1 after reporting the error (file, line,
 * problem).
 */
int mica_config_load(struct mica_config *cfg, const char *path);

/* Truncate the interval-mode files in dir (the start of a run). */
int mica_files_begin(struct mica_output *o, const char *dir);

/* Write out the pending bytes of every file in dir and clear them. */
int mica_files_flush(struct mica_output *o, const char *dir);

#endif /* MICAD_MICA_FILES_H */
