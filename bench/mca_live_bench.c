/*
 * How fast the live scheduling model takes a traced instruction stream:
 * a mix of basic blocks (loads, stores, ALU, a multiply, branches) fed
 * through sched_live_feed() on each CPU with a uop model.  Prints the
 * instructions per second and the simulated IPC.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "decoder.h"
#include "sched/sched_live.h"
#include "util.h"

static const char *const blocks[] = {
	/* mov (%rdi),%rax; add %rax,%rbx; mov %rbx,8(%rsi); add $16,%rdi; cmp %rdi,%rdx; jne */
	"488b074801c348895e084883c7104839fa75ec",
	/* imul %rbx,%rcx; lea 1(%rcx,%rax,2),%rdx; xor %eax,%eax; dec %r8; jne */
	"480fafcb488d54410131c049ffc875f0",
	/* vmulps %xmm0,%xmm1,%xmm2; vaddps (%rdi),%xmm2,%xmm3; vmovaps %xmm3,(%rsi); jmp */
	"c5f059d0c5e85807c5f82936ebf1",
};

int
main(void)
{
	static const char *const cpus[] = { "skylake", "haswell", "ivybridge", "alderlake" };
	struct insn_info code[3][16];
	unsigned ncode[3] = { 0 };
	uint8_t bytes[3][64];

	for (unsigned b = 0; b < 3; b++) {
		size_t n = 0, off = 0;

		for (const char *p = blocks[b]; p[0] && p[1]; p += 2)
			bytes[b][n++] = (uint8_t)(hex_digit(p[0]) << 4 | hex_digit(p[1]));
		while (off < n && insn_decode(bytes[b] + off, n - off, 0x400000 + 0x100 * b + off,
					      &code[b][ncode[b]]) == 0)
			off += code[b][ncode[b]++].len;
	}
	printf("%-10s %14s %10s %8s\n", "cpu", "instructions", "M insn/s", "IPC");
	for (unsigned c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++) {
		struct sched_live *l = sched_live_new(cpus[c]);
		struct sched_live_interval iv;
		struct timespec t0, t1;
		uint64_t fed = 0;
		double s;

		if (!l) {
			error_msg("no live model for %s", cpus[c]);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (unsigned rep = 0; rep < 200000; rep++) {
			unsigned b = rep % 7 < 4 ? 0 : rep % 7 < 6 ? 1 : 2;

			for (unsigned i = 0; i < ncode[b]; i++) {
				struct insn_event ev;

				memset(&ev, 0, sizeof(ev));
				ev.info = &code[b][i];
				ev.pc = code[b][i].pc;
				if (i + 1 == ncode[b])
					ev.flags = EV_TAKEN;
				for (unsigned k = 0; k < code[b][i].n_mem; k++) {
					ev.mem[k].addr = 0x10000 + 64 * (rep % 512) + 8 * k;
					ev.mem[k].size = code[b][i].mem[k].size;
					ev.mem[k].dir = code[b][i].mem[k].dir & MEM_WRITE ? MEM_WRITE
											 : MEM_READ;
					ev.n_mem++;
				}
				sched_live_feed(l, &ev);
				fed++;
			}
		}
		sched_live_flush(l);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		sched_live_interval(l, &iv);
		s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		printf("%-10s %14llu %10.2f %8.2f\n", cpus[c], (unsigned long long)fed,
		       fed / s / 1e6, iv.ipc);
		sched_live_free(l);
	}
	return 0;
}
