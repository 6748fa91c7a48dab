/*
 * Error reporting and allocation helpers shared by micad, micactl and the
 * tests (the strace way: a few printf-style reporters, errno saved first).
 */
#ifndef MICAD_UTIL_H
#define MICAD_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define ATTR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define ATTR_NORETURN __attribute__((noreturn))

extern const char *program_name;

/* "PROG: message\n" on stderr. */
void error_msg(const char *fmt, ...) ATTR_PRINTF(1, 2);
/* The text of the last error_msg/perror_msg (and _and_die) of the calling
 * thread, without the program name ("" if none). */
const char *last_error_msg(void);
/* "PROG: message: strerror(errno)\n"; errno is saved on entry. */
void perror_msg(const char *fmt, ...) ATTR_PRINTF(1, 2);
/* "PROG: warning: message\n" */
void warning_msg(const char *fmt, ...) ATTR_PRINTF(1, 2);
void error_msg_and_die(const char *fmt, ...) ATTR_PRINTF(1, 2) ATTR_NORETURN;
void perror_msg_and_die(const char *fmt, ...) ATTR_PRINTF(1, 2) ATTR_NORETURN;

/* Allocation that cannot fail: on failure, say how much and exit. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) ATTR_PRINTF(1, 2);

/* Parse a whole decimal string into an unsigned 64-bit value; -1 on any
 * junk, sign or overflow. */
int parse_u64(const char *s, unsigned long long *out);

/* Write all n bytes to fd (retrying short writes and EINTR): 0, or -1
 * with errno set. */
int write_all(int fd, const void *buf, size_t n);

/* Value of a hexadecimal digit, or -1. */
int hex_digit(int ch);

/*
 * Open an output file (a name the user gave: -o, --record, --dump-events,
 * MICA's files, micactl export -o) for writing without following a
 * symbolic link at path: O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
 * flags (O_TRUNC or O_APPEND), mode 0666 less the umask.  A link planted
 * where an output file goes would otherwise redirect the write to any file
 * the writer may change.  Returns the fd, or -1 after reporting either the
 * refusal of a link or "cannot write WHAT 'PATH': strerror" (what is a
 * noun such as "the trace file").
 */
int output_open(const char *path, int flags, const char *what);
/* The same, truncating, as a stdio stream (fopen's "w"); NULL after
 * reporting. */
FILE *output_fopen(const char *path, const char *what);

/*
 * s made safe to print on a terminal, the way strace and ls -b print
 * names: valid printable UTF-8 is kept as is, a backslash becomes \\, and
 * C0 controls, DEL, C1 controls (U+0080..U+009F) and every byte that is
 * not part of valid UTF-8 become \xNN.  For everything that comes from a
 * traced program (command lines, paths, symbols).  Returns a malloc'd
 * string.
 */
char *term_escape(const char *s);

#endif /* MICAD_UTIL_H */
