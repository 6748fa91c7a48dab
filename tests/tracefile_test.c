/*
 * The binary trace format: events and thread records written through the
 * recorder consumer read back identical, field by field; a damaged file is
 * reported, not misread.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder.h"
#include "tap.h"
#include "tracefile.h"

static const uint8_t code[][15] = {
	{ 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 },	/* mov 0x10(%rip),%rax */
	{ 0xf3, 0xa4 },					/* rep movsb */
	{ 0xc3 },					/* ret */
};
static const size_t code_len[] = { 7, 2, 1 };

int
main(void)
{
	char path[] = "/tmp/tracefile_test.XXXXXX";
	int fd = mkstemp(path);
	struct insn_info ii[3];
	struct insn_event ev[6];
	struct trace_thread_rec thr = { TT_START, 100, 101, 100, 0, 0 };
	struct trace_thread_rec end = { TT_EXIT, 100, 101, 0, 9, 0 };
	struct tracefile_writer *w;
	struct tracefile_reader *r;
	struct tracefile_item it;
	struct trace_consumer c;
	char err[256];
	int n_ev = 0, n_thr = 0, same = 1;

	close(fd);
	for (int i = 0; i < 3; i++)
		insn_decode(code[i], code_len[i], 0x401000 + 16 * i, &ii[i]);
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < 6; i++) {
		const struct insn_info *p = &ii[i % 3];

		ev[i].info = p;
		ev[i].pc = p->pc;
		ev[i].next_pc = i == 2 ? 0x7fff12345678ULL : p->pc + p->len;
		ev[i].tid = i < 3 ? 101 : 202;
		if (i % 3 == 1) {
			ev[i].flags = EV_REP | (i == 1 ? EV_REP_FIRST : 0);
			ev[i].rep_count = 5 - i;
			ev[i].n_mem = 2;
			ev[i].mem[0] = (struct mem_access){ 0x7ffd00001000ULL + i, 1, MEM_READ, MEMF_IMPLICIT, 0 };
			ev[i].mem[1] = (struct mem_access){ 0x404000ULL + i, 1, MEM_WRITE, MEMF_IMPLICIT, 0 };
		} else if (i % 3 == 2) {
			ev[i].flags = EV_TAKEN;
			ev[i].n_mem = 1;
			ev[i].mem[0] = (struct mem_access){ 0x7ffd00000ff8ULL, 8, MEM_READ, MEMF_IMPLICIT, 0 };
		} else {
			ev[i].n_mem = 1;
			ev[i].mem[0] = (struct mem_access){ 0x401017ULL, 8, MEM_READ, 0, 0 };
		}
	}
	w = tracefile_create(path);
	ok(w != NULL, "create a trace file");
	c = tracefile_consumer(w);
	c.thread_start(c.arg, &thr);
	for (int i = 0; i < 6; i++)
		c.event(c.arg, NULL, &ev[i]);
	c.thread_rec(c.arg, NULL, &end);
	ok(tracefile_close(w) == 0, "close it");

	ok(tracefile_is_binary(path), "it is recognized as a binary trace");
	r = tracefile_open(path, err, sizeof(err));
	ok(r != NULL, "open it for reading");
	while (r && tracefile_next(r, &it, err, sizeof(err)) > 0) {
		if (it.kind == TF_THREAD) {
			const struct trace_thread_rec *want = n_thr++ ? &end : &thr;

			same &= memcmp(&it.thread, want, sizeof(*want)) == 0;
			continue;
		}
		const struct insn_event *a = &it.ev, *b = &ev[n_ev++];

		same &= a->pc == b->pc && a->next_pc == b->next_pc && a->tid == b->tid &&
			a->flags == b->flags && a->rep_count == b->rep_count && a->n_mem == b->n_mem &&
			a->info->len == b->info->len && memcmp(a->info->bytes, b->info->bytes, b->info->len) == 0 &&
			a->info->flags == b->info->flags &&
			memcmp(a->mem, b->mem, b->n_mem * sizeof(b->mem[0])) == 0;
	}
	is_u64(n_ev, 6, "six events read back");
	is_u64(n_thr, 2, "two thread records read back");
	ok(same, "everything reads back identical");
	tracefile_close_reader(r);

	/* Truncate in the middle: an error, not garbage. */
	{
		FILE *f = fopen(path, "r+b");
		long size;
		int n = 0, rc;

		fseek(f, 0, SEEK_END);
		size = ftell(f);
		fclose(f);
		if (truncate(path, size - 3) != 0)
			perror("truncate");
		r = tracefile_open(path, err, sizeof(err));
		while ((rc = tracefile_next(r, &it, err, sizeof(err))) > 0)
			n++;
		ok(rc < 0, "a truncated trace is reported: %s", err);
		tracefile_close_reader(r);
	}
	{
		FILE *f = fopen(path, "wb");

		fputs("pc=0x1000 sz=1\n", f);
		fclose(f);
		ok(!tracefile_is_binary(path), "a text trace is not taken for a binary one");
		r = tracefile_open(path, err, sizeof(err));
		ok(r == NULL && strstr(err, "not a micad trace"), "opening it says why: %s", err);
	}
	unlink(path);
	return done_testing();
}
