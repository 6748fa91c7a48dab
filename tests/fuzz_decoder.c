/*
 * Fuzz target for the decoder: random bytes and random registers in,
 * invariants checked on what comes out.
 *
 * Input layout: byte 0 selects how many instruction bytes follow (0..15,
 * n = b0 % 16); then n instruction bytes; then the register snapshot
 * (struct user_regs_struct) and the vector state (struct vec_state), each
 * filled from whatever input is left and zero beyond it.
 *
 * Built two ways:
 *  - with clang -fsanitize=fuzzer,address,undefined: libFuzzer drives
 *    LLVMFuzzerTestOneInput (tests/fuzz_decoder, run by fuzz_decoder.sh);
 *  - with -DFUZZ_STANDALONE under any compiler: main() feeds it a fixed
 *    pseudo-random stream seeded from known encodings and prints TAP
 *    (tests/fuzz_decoder_smoke, part of make check).
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_decoder: invariant failed: %s (%s:%d)\n", \
			#cond, __FILE__, __LINE__); \
		abort(); \
	} \
} while (0)

static void
check_regs(const reg_id *list, unsigned n)
{
	CHECK(n <= INSN_MAX_REGS);
	for (unsigned i = 0; i < n; i++) {
		CHECK(list[i] != 0);
		CHECK(reg_name(list[i]) != NULL);
		for (unsigned j = 0; j < i; j++)
			CHECK(list[i] != list[j]);	/* lists hold no duplicates */
	}
}

static void
check_format(const struct insn_info *ii, bool att, size_t size)
{
	char buf[256 + 16];

	memset(buf, 0x5a, sizeof(buf));
	insn_format(ii, att, buf, size);
	CHECK(memchr(buf, '\0', size) != NULL);	/* terminated inside the buffer */
	for (size_t i = size; i < sizeof(buf); i++)
		CHECK(buf[i] == 0x5a);	/* nothing written past it */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t code[INSN_MAX_BYTES] = { 0 };
	struct user_regs_struct regs;
	static struct vec_state vec;
	struct insn_info ii;
	struct insn_event ev;
	size_t n, off, take;
	int rc;

	if (size == 0)
		return 0;
	n = data[0] % 16;
	off = 1;
	if (n > size - off)
		n = size - off;
	memcpy(code, data + off, n);
	off += n;
	memset(&regs, 0, sizeof(regs));
	take = size - off < sizeof(regs) ? size - off : sizeof(regs);
	memcpy(&regs, data + off, take);
	off += take;
	memset(&vec, 0, sizeof(vec));
	take = size - off < sizeof(vec) ? size - off : sizeof(vec);
	memcpy(&vec, data + off, take);

	rc = insn_decode(code, n, regs.rip, &ii);
	CHECK(rc == 0 || rc == -1);
	CHECK(ii.pc == regs.rip);
	if (rc < 0) {
		CHECK(ii.flags & INSN_INVALID);
		CHECK(ii.len == n);
		CHECK(ii.n_mem == 0 && ii.n_regs_read == 0 && ii.n_regs_written == 0);
	} else {
		CHECK(!(ii.flags & INSN_INVALID));
		CHECK(ii.len >= 1 && ii.len <= INSN_MAX_BYTES && ii.len <= n);
		CHECK(memcmp(ii.bytes, code, ii.len) == 0);
	}
	CHECK(ii.n_mem <= INSN_MAX_MEMOPS);
	check_regs(ii.regs_read, ii.n_regs_read);
	check_regs(ii.regs_written, ii.n_regs_written);
	check_regs(ii.regs_read_full, ii.n_regs_read_full);
	check_regs(ii.regs_written_full, ii.n_regs_written_full);
	CHECK(ii.n_regs_read_full <= ii.n_regs_read);
	CHECK(ii.n_regs_written_full <= ii.n_regs_written);
	CHECK(ii.n_seg_read <= 2);
	CHECK(ii.branch <= BR_OTHER);
	for (unsigned i = 0; i < ii.n_mem; i++) {
		const struct mem_template *t = &ii.mem[i];

		CHECK(t->dir != 0 && (t->dir & ~(MEM_READ | MEM_WRITE)) == 0);
		CHECK(t->size > 0);
		CHECK(!t->vsib || t->elem_count <= EV_MAX_MEM);
	}
	CHECK(insn_category_name(&ii) != NULL);
	CHECK(insn_iclass_name(&ii) != NULL);
	CHECK(insn_mnemonic_name(&ii) != NULL);

	insn_eval(&ii, &regs, insn_needs_vector_state(&ii) ? &vec : NULL, 7, &ev);
	CHECK(ev.info == &ii && ev.pc == ii.pc && ev.tid == 7);
	CHECK(ev.n_mem <= EV_MAX_MEM);
	CHECK(insn_event_size(&ev) <= sizeof(ev));
	if (ii.flags & INSN_INVALID)
		CHECK(ev.flags == EV_INVALID && ev.n_mem == 0);
	if (!(ii.flags & INSN_REP))
		CHECK(!(ev.flags & EV_REP));
	for (unsigned i = 0; i < ev.n_mem; i++) {
		CHECK(ev.mem[i].dir == MEM_READ || ev.mem[i].dir == MEM_WRITE);
		CHECK(ev.mem[i].size > 0);
	}
	{
		struct mica_mem_view v = insn_event_mica_mem(&ev);

		CHECK(!v.read1 || v.read1->dir == MEM_READ);
		CHECK(!v.write || v.write->dir == MEM_WRITE);
	}
	/* The same decode with the vector state must agree on the static part. */
	if (!insn_needs_vector_state(&ii)) {
		struct insn_event ev2;

		insn_eval(&ii, &regs, &vec, 7, &ev2);
		CHECK(ev2.n_mem == ev.n_mem && ev2.next_pc == ev.next_pc && ev2.flags == ev.flags);
	}

	check_format(&ii, true, 1);
	check_format(&ii, false, 7);
	check_format(&ii, true, 24);
	check_format(&ii, false, 256);
	return 0;
}

#ifdef FUZZ_STANDALONE
/* A deterministic run for compilers without libFuzzer. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static const char *const seeds[] = {
	"50", "c3", "f3 a4", "f3 a6", "66 6d", "c8 20 00 02", "f0 0f b1 0f",
	"64 67 8b 00", "67 8b 05 10 00 00 00", "c4 e2 75 90 04 97", "62 f2 7d 49 90 04 97",
	"62 f2 7d 49 a0 1c 97", "62 f2 fd 4b 90 64 2e ff", "0f 18 08", "0f 1f 44 00 00", "d7",
	"ff 24 c8", "e2 10", "67 e3 10", "48 a1 88 77 66 55 44 33 22 11", "dd 00", "0f ae 00",
};

int
main(int argc, char **argv)
{
	static uint8_t buf[1 + 15 + sizeof(struct user_regs_struct) + sizeof(struct vec_state)];
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	const size_t nseeds = sizeof(seeds) / sizeof(seeds[0]);

	for (unsigned long it = 0; it < iters; it++) {
		size_t size = 1 + rng() % sizeof(buf);
		const char *seed = seeds[it % nseeds];
		size_t n = 0;

		for (size_t i = 0; i < size; i++)
			buf[i] = (uint8_t)rng();
		/* Half the inputs start from a known encoding, mutated. */
		if (it & 1) {
			while (*seed && n < 15) {
				buf[1 + n++] = (uint8_t)strtoul(seed, NULL, 16);
				seed += seed[2] ? 3 : 2;
			}
			if (rng() % 2)
				buf[1 + rng() % (n ? n : 1)] ^= (uint8_t)(1u << rng() % 8);
			buf[0] = (uint8_t)(rng() % 2 ? n : 15);
			if (size < 1 + n)
				size = 1 + n;
			/* Small register values make plausible addresses. */
			if (rng() % 2)
				for (size_t i = 1 + n; i + 8 <= size; i += 8)
					buf[i + 1] = buf[i + 2] = buf[i + 3] = buf[i + 4] = 0;
		}
		LLVMFuzzerTestOneInput(buf, size);
	}
	printf("ok 1 - decoder invariants hold over %lu pseudo-random inputs\n1..1\n", iters);
	return 0;
}
#endif
