/*
 * Print the LLVM opcode name micad maps each instruction to, one line per
 * instruction, for hex-encoded blocks read one per line from standard
 * input (BHive's form).  tests/sched_map_bhive.sh compares the output with
 * llvm-mc's disassembly of the same bytes.  Unmapped instructions print
 * "UNMAPPED <bytes> <name tried>"; a LOCK prefix prints LOCK_PREFIX first,
 * as LLVM decodes it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "util.h"
#include "sched/sched_map.h"
#include "sched/tables/sched_tables.h"

int
main(void)
{
	char line[8192];
	uint8_t buf[4096];
	unsigned long n_insn = 0, n_unmapped = 0;

	while (fgets(line, sizeof(line), stdin)) {
		size_t n = 0;

		for (char *p = line; p[0] && p[1] && hex_digit(p[0]) >= 0 &&
		     hex_digit(p[1]) >= 0 && n < sizeof(buf); p += 2)
			buf[n++] = (uint8_t)(hex_digit(p[0]) << 4 | hex_digit(p[1]));
		for (size_t off = 0; off < n;) {
			struct insn_info ii;
			struct sched_mapping m;

			if (insn_decode(buf + off, n - off, off, &ii) < 0) {
				printf("UNDECODABLE at %zu\n", off);
				n_unmapped++;
				break;
			}
			n_insn++;
			if (sched_map(buf + off, n - off, &m) < 0) {
				printf("UNMAPPED ");
				for (unsigned i = 0; i < ii.len; i++)
					printf("%02x", ii.bytes[i]);
				printf(" %s\n", m.tried);
				n_unmapped++;
			} else {
				if (m.lock)
					printf("LOCK_PREFIX\n");
				printf("%s\n", sched_opcode_name(m.opcode));
			}
			off += ii.len;
		}
	}
	fprintf(stderr, "%lu instructions, %lu unmapped\n", n_insn, n_unmapped);
	return n_unmapped ? 1 : 0;
}
