/*
 * The text trace notation of spec mica.md §1.6, one DE per line:
 *
 *   pc=ADDR sz=LEN r=R,R w=R ops=N mr=EA:SIZE mr2=EA mw=EA:SIZE br=T|N
 *   cat=CAT mn=ICLASS regxfer rep=FIRST:COUNT
 *
 * Fields in any order, omitted fields absent; numbers in decimal or 0x
 * hex.  Registers are abstract ids (1..65535), put in regs_read /
 * regs_written as they are.  br= implies category COND_BR; mr2 has read1's
 * size; rep=1:3 is a first iteration with count 3.  cat and mn default to
 * "INVALID" (XED's name for "none"); sz defaults to 0 (no instruction
 * bytes for memfootprint).  Blank lines and lines starting with '#' are
 * skipped.
 *
 * Pure: parses a buffer into events.  Static fields (everything but the
 * effective addresses, br and rep) are interned into one struct insn_info
 * per distinct instruction, owned by the reader; category and iclass hold
 * indexes into the reader's name tables, which trace_text_names() serves.
 */
#ifndef MICAD_TRACE_TEXT_H
#define MICAD_TRACE_TEXT_H

#include <stddef.h>

#include "event.h"
#include "mica/mica.h"

struct trace_text;

struct trace_text *trace_text_new(void);
void trace_text_free(struct trace_text *t);

/*
 * The next event from buf[*pos..len): returns 1 with *ev filled, 0 at the
 * end, -1 on error with "LINE: problem" in err (prefix the file name).
 * *line counts lines (start at 0).
 */
int trace_text_next(struct trace_text *t, const char *buf, size_t len, size_t *pos,
		    unsigned *line, struct insn_event *ev, char *err, size_t errsz);

/* Parse one line (no newline); 1 = event, 0 = blank or comment, -1 = error
 * with the problem in err. */
int trace_text_parse_line(struct trace_text *t, const char *s, size_t len,
			  struct insn_event *ev, char *err, size_t errsz);

/* Names of the reader's instructions, for mica_run_new(). */
const struct mica_names *trace_text_names(struct trace_text *t);

#endif /* MICAD_TRACE_TEXT_H */
