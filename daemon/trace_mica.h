/*
 * The MICA consumer of a live trace: one mica_run (mica_run.h) per traced
 * thread, its intervals written as MICA's files into a directory
 * (mica_files.h).  A process's main thread gets MICA's file names (with
 * its pid when append_pid is set, or for a followed child process); any
 * other thread's files carry its tid where append_pid puts the pid.
 */
#ifndef MICAD_TRACE_MICA_H
#define MICAD_TRACE_MICA_H

#include "trace_analysis.h"

struct trace_mica;

/* Load config (a mica.conf), override its interval size when interval > 0,
 * write into out_dir (NULL: compute but write nothing).  NULL after
 * reporting the error. */
struct trace_mica *trace_mica_new(const char *config, long long interval, const char *out_dir);
struct trace_consumer trace_mica_consumer(struct trace_mica *m);
/* -1 if any analysis or file write failed (already reported). */
int trace_mica_free(struct trace_mica *m);

#endif /* MICAD_TRACE_MICA_H */
