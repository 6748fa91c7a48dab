/*
 * Fuzz target for the configuration parsers (tests/fuzz_run.sh runs it):
 * byte 0 picks the parser (even: mica.conf, mica_config_parse; odd: an
 * itypes spec file, itypes_spec_parse), the rest is the file.  What is
 * accepted must hold together (a checked configuration; groups numbered
 * from 0 without gaps, identifiers that can match); what is refused must
 * say where.  Seeds: tests/fuzz/config/.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mica/mica_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_config: invariant failed: %s (%s:%d)\n", #cond, \
			__FILE__, __LINE__); \
		abort(); \
	} \
} while (0)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[4096] = "";
	const char *text;

	if (size < 1)
		return 0;
	text = (const char *)data + 1;
	size--;
	if (!(data[0] & 1)) {
		struct mica_config c;

		mica_config_init(&c);
		if (mica_config_parse(&c, "f.conf", text, size, err, sizeof(err)) == 0) {
			CHECK(c.analyses != 0 && (c.analyses & ~(MICA_BIT(MICA_N_ANALYSES) - 1)) == 0);
			CHECK(c.interval_size >= MICA_FULL);
			CHECK(c.block_size < 64 && c.page_size < 64);
			CHECK(mica_config_check(&c, "f.conf", 0, err, sizeof(err)) == 0);
		} else {
			CHECK(strncmp(err, "f.conf", 6) == 0);
		}
		mica_config_free(&c);
	} else {
		struct itypes_spec *s = itypes_spec_parse("f.spec", text, size, err, sizeof(err));

		if (s) {
			CHECK(s->n_groups > 0 && s->n_idents >= s->n_groups);
			for (size_t i = 0; i < s->n_idents; i++) {
				const struct itypes_ident *id = &s->idents[i];
				size_t n = strlen(id->name);

				CHECK(id->group < s->n_groups && n > 0);
				CHECK(id->name[n - 1] != ' ' && id->name[n - 1] != '\r');
				CHECK(i == 0 || id->group >= s->idents[i - 1].group);
			}
			itypes_spec_free(s);
		} else {
			CHECK(strncmp(err, "f.spec", 6) == 0);
		}
	}
	return 0;
}
