/*
 * JSON text for the results database's settings column and for micactl's
 * machine-readable outputs: strings escaped per RFC 8259, numbers in the
 * C locale (micad never calls setlocale) and in their shortest exact form.
 */
#ifndef MICAD_STORE_JSON_H
#define MICAD_STORE_JSON_H

#include <stdio.h>

#include "mica/mica_config.h"

/* s as a JSON string, quotes included (NULL: null). */
void json_put_string(FILE *f, const char *s);

/* v as a JSON number: the shortest %g form that reads back as v; NaN and
 * infinities (not JSON) as null. */
void json_put_real(FILE *f, double v);
/* The shortest "%.Ng" (N from 15 to 17 significant digits) that reads back
 * as exactly v. */
void json_fmt_real(char *buf, size_t size, double v);

/* The MICA settings c as JSON members (no braces): "analyses":[...],
 * "interval_size":N, "ilp_size", "block_size", "page_size", "append_pid",
 * "itypes_spec_file". */
void json_put_mica_settings(FILE *f, const struct mica_config *c);

#endif /* MICAD_STORE_JSON_H */
