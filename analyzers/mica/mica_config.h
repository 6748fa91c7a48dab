/*
 * The MICA configuration: mica.conf (spec mica.md §2) and itypes spec
 * files (§3.2), parsed from memory buffers.  Pure: the caller reads the
 * files and reports the errors, which name the file, the line and the
 * problem.
 */
#ifndef MICAD_MICA_CONFIG_H
#define MICAD_MICA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The analyses, in the order `all` writes its files (§3.8). */
enum mica_analysis {
	MICA_ILP,
	MICA_ILP_ONE,
	MICA_ITYPES,
	MICA_PPM,
	MICA_REG,
	MICA_STRIDE,
	MICA_MEMFOOTPRINT,
	MICA_MEMSTACKDIST,
	MICA_N_ANALYSES
};

#define MICA_BIT(a)		(1u << (a))
#define MICA_ALL_SET		(MICA_BIT(MICA_ILP) | MICA_BIT(MICA_ITYPES) | \
				 MICA_BIT(MICA_PPM) | MICA_BIT(MICA_REG) | \
				 MICA_BIT(MICA_STRIDE) | MICA_BIT(MICA_MEMFOOTPRINT) | \
				 MICA_BIT(MICA_MEMSTACKDIST))

#define MICA_FULL		(-1)	/* interval_size: full */
#define MICA_ILP_BUFFER		200	/* ILP's DE buffer (§3.1) */
#define MICA_MAX_ILP_SIZE	(1 << 20)

/* One identifier of an itypes group (§3.2). */
enum itypes_kind {
	ITYPES_CATEGORY,
	ITYPES_OPCODE,
	ITYPES_SPECIAL,
};

struct itypes_ident {
	unsigned group, subgroup;
	enum itypes_kind kind;
	char *name;
};

/* Groups 0..n_groups-1, identifiers in file order. */
struct itypes_spec {
	unsigned n_groups;
	size_t n_idents;
	struct itypes_ident *idents;
};

struct mica_config {
	unsigned analyses;	/* MICA_BIT() set */
	bool all;		/* analysis_type: all (reg_transfer never matches) */
	int64_t interval_size;	/* MICA_FULL, or S (absent: 0, as MICA) */
	uint32_t ilp_size;	/* ilp_one's window */
	unsigned block_size;	/* log2 bytes */
	unsigned page_size;	/* log2 bytes */
	bool append_pid;
	char *itypes_spec_file;	/* as written in the file, or NULL */
	struct itypes_spec *itypes_spec;	/* NULL: the built-in groups */
};

static inline bool
mica_config_full(const struct mica_config *c)
{
	return c->interval_size == MICA_FULL;
}

/* Defaults of §2 (analyses unset). */
void mica_config_init(struct mica_config *c);

/*
 * Parse mica.conf text.  fname is only used in messages.  On error
 * returns -1 with "FILE:LINE: problem" in err (at most errsz bytes).  A
 * parsed configuration is complete and checked (analysis set, ilp_size for
 * ilp_one, multiple of 200 for ILP in interval mode); the itypes spec file
 * is not read: the caller loads it with itypes_spec_parse() and stores it
 * in c->itypes_spec.
 */
int mica_config_parse(struct mica_config *c, const char *fname,
		      const char *text, size_t len, char *err, size_t errsz);

/* The checks made after parsing (ilp_size for ilp_one, interval_size a
 * multiple of 200 for ILP), again after a command-line override. */
int mica_config_check(const struct mica_config *c, const char *fname, unsigned line,
		      char *err, size_t errsz);

void mica_config_free(struct mica_config *c);

/* The name `analysis_type` takes for analysis a ("ilp", "memstackdist"). */
const char *mica_analysis_name(enum mica_analysis a);

/*
 * Parse an itypes spec file (§3.2).  Blank lines and lines whose first
 * non-blank character is '#' are skipped (MICA re-parses a blank line as
 * a copy of the previous one, with an uninitialised slot: undefined
 * behaviour, bug B3's neighbour).  An identifier that could never match
 * is refused: a CATEGORY that is not one of the decoder's XED categories,
 * an OPCODE that is not exactly one of its XED iclasses, a SPECIAL other
 * than mem_read, mem_write and reg_transfer, a name ending with a blank or
 * '\r' (MICA keeps them in the name).  Returns NULL with "FILE:LINE:
 * problem" in err on error (the valid values included: give err 2 KiB).
 */
struct itypes_spec *itypes_spec_parse(const char *fname, const char *text, size_t len,
				      char *err, size_t errsz);
/* The built-in 12 groups (identical to MICA's itypes_default_available). */
struct itypes_spec *itypes_spec_builtin(void);
void itypes_spec_free(struct itypes_spec *s);

#endif /* MICAD_MICA_CONFIG_H */
