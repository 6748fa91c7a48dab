/*
 * The binary trace format: events and thread records written through the
 * recorder consumer read back identical, field by field (a `syscall`
 * event's number and arguments too, version 2); a version 1 file (no
 * system calls) is still read, and so is a version 2 file (no trailer);
 * a version 3 file ends with a trailer, so that every truncation (at a
 * record boundary too: "truncated at record N") and every single-byte
 * change is reported, not misread; so is an unknown version.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder.h"
#include "store/tracefile.h"
#include "tap.h"

static const uint8_t code[][15] = {
	{ 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 },	/* mov 0x10(%rip),%rax */
	{ 0xf3, 0xa4 },					/* rep movsb */
	{ 0xc3 },					/* ret */
	{ 0x0f, 0x05 },					/* syscall */
};
static const size_t code_len[] = { 7, 2, 1, 2 };

/* Write bytes to path. */
static void
write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(99);
	}
}

/* The whole file at path (malloc'd), its size in *n. */
static uint8_t *
read_whole(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = malloc(1 << 16);

	if (!f || !p) {
		perror(path);
		exit(99);
	}
	*n = fread(p, 1, 1 << 16, f);
	fclose(f);
	return p;
}

/* The number of events in path, or -1 with the reason in err. */
static int
count_events(const char *path, struct tracefile_item *it, char *err, size_t errsz)
{
	struct tracefile_reader *r = tracefile_open(path, err, errsz);
	int n = 0, rc;

	if (!r)
		return -1;
	while ((rc = tracefile_next(r, it, err, errsz)) > 0)
		n += it->kind == TF_EVENT;
	tracefile_close_reader(r);
	return rc < 0 ? -1 : n;
}

int
main(void)
{
	char path[] = "/tmp/tracefile_test.XXXXXX";
	int fd = mkstemp(path);
	struct insn_info ii[4];
	struct insn_event ev[7];
	struct trace_thread_rec thr = { TT_START, 100, 101, 100, 0, 0 };
	struct trace_thread_rec end = { TT_EXIT, 100, 101, 0, 9, 0 };
	struct tracefile_writer *w;
	struct tracefile_reader *r;
	struct tracefile_item it;
	struct trace_consumer c;
	char err[256];
	int n_ev = 0, n_thr = 0, same = 1;

	close(fd);
	for (int i = 0; i < 4; i++)
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
	/* A futex wait (FUTEX_WAIT_PRIVATE) by thread 101; extreme values
	 * in the other arguments. */
	ev[6].info = &ii[3];
	ev[6].pc = ii[3].pc;
	ev[6].next_pc = ii[3].pc + 2;
	ev[6].tid = 101;
	ev[6].flags = EV_SYSCALL;
	ev[6].sys = (struct ev_syscall){ 202, { 0x404010, 128, 0, 0, UINT64_MAX, 1ULL << 63 } };
	is_u64(insn_event_size(&ev[6]), offsetof(struct insn_event, mem) + 7 * 8,
	       "a syscall event's size covers its number and 6 arguments");
	w = tracefile_create(path);
	ok(w != NULL, "create a trace file");
	c = tracefile_consumer(w);
	c.thread_start(c.arg, &thr);
	for (int i = 0; i < 7; i++)
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
		if (b->flags & EV_SYSCALL) {
			ok(a->sys.nr == 202 && a->sys.arg[0] == 0x404010 && a->sys.arg[1] == 128 &&
			   a->sys.arg[4] == UINT64_MAX && a->sys.arg[5] == 1ULL << 63,
			   "the syscall's number and arguments read back");
			same &= memcmp(&a->sys, &b->sys, sizeof(b->sys)) == 0;
		}
	}
	is_u64(n_ev, 7, "seven events read back");
	is_u64(n_thr, 2, "two thread records read back");
	ok(same, "everything reads back identical");
	tracefile_close_reader(r);
	{
		FILE *f = fopen(path, "rb");
		uint8_t hdr[16];

		ok(f && fread(hdr, 1, 16, f) == 16 && hdr[8] == 3 && hdr[9] == 0,
		   "the file says version 3");
		if (f)
			fclose(f);
	}

	/* Every truncation and every byte changed: an error, not garbage. */
	{
		size_t size, cut_ok = 0, flip_ok = 0, flips = 0, boundary = 0;
		uint8_t *whole = read_whole(path, &size);
		char first[256] = "", at_boundary[256] = "", flipped[256] = "";
		struct tracefile_item one;

		for (size_t n = 16; n < size; n++) {
			write_file(path, whole, n);
			if (count_events(path, &one, err, sizeof(err)) < 0 &&
			    strstr(err, "truncated at record")) {
				cut_ok++;
				if (!first[0])
					snprintf(first, sizeof(first), "%s", err);
				if (strstr(err, "the end marker is missing")) {
					boundary++;
					snprintf(at_boundary, sizeof(at_boundary), "%s", err);
				}
			} else {
				diag("a %zu-byte prefix of %zu: %s", n, size, err);
			}
		}
		is_u64(cut_ok, size - 16, "each of the %zu truncations after the header is "
		       "reported as one (first: %s)", size - 16, first);
		ok(boundary == 14 && strstr(at_boundary, "truncated at record 13: the end marker "
					   "is missing"),
		   "%zu truncations at a record boundary say so (last: %s)", boundary,
		   at_boundary);
		for (size_t i = 16; i < size; i++) {
			static const uint8_t xors[] = { 0x01, 0x80, 0xff, 0x20 };

			for (size_t k = 0; k < sizeof(xors); k++) {
				uint8_t save = whole[i];

				whole[i] ^= xors[k];
				write_file(path, whole, size);
				flips++;
				if (count_events(path, &one, err, sizeof(err)) < 0) {
					flip_ok++;
					if (i == size / 2)
						snprintf(flipped, sizeof(flipped), "%s", err);
				} else {
					diag("byte %zu ^ %#x read as a whole trace", i, xors[k]);
				}
				whole[i] = save;
			}
		}
		is_u64(flip_ok, flips, "each of the %zu single-byte changes is reported (one: %s)",
		       flips, flipped);
		{
			uint8_t *more = malloc(size + 1);

			memcpy(more, whole, size);
			more[size] = 0;
			write_file(path, more, size + 1);
			ok(count_events(path, &one, err, sizeof(err)) < 0 &&
			   strstr(err, "data after the end marker"), "a byte after the end: %s", err);
			free(more);
		}
		write_file(path, whole, size);
		is_u64(count_events(path, &one, err, sizeof(err)), 7, "the untouched file reads");
		free(whole);
	}
	{
		FILE *f = fopen(path, "wb");

		fputs("pc=0x1000 sz=1\n", f);
		fclose(f);
		ok(!tracefile_is_binary(path), "a text trace is not taken for a binary one");
		r = tracefile_open(path, err, sizeof(err));
		ok(r == NULL && strstr(err, "not a micad trace"), "opening it says why: %s", err);
	}
	{
		/* Version 1 (before system calls): header, the 'I' record of
		 * the ret at 0x1000 (pc varint 80 20), one event of it (id 0;
		 * flags EV_TAKEN | next_pc follows | tid follows = 0xc001 ->
		 * 81 80 03; tid +7 -> zigzag 0e; next_pc 0x2000 = fall-through
		 * + 0xfff -> zigzag 0x1ffe -> fe 3f; n_mem 0). */
		static const uint8_t v1[] = {
			'M', 'I', 'C', 'A', 'D', 'T', 'R', 'C', 1, 0, 0, 0, 0, 0, 0, 0,
			'I', 0x80, 0x20, 1, 0xc3,
			'E', 0, 0x81, 0x80, 0x03, 0x0e, 0xfe, 0x3f, 0,
		};
		uint8_t bad[sizeof(v1)];
		struct tracefile_item one;
		int n;

		write_file(path, v1, sizeof(v1));
		n = count_events(path, &one, err, sizeof(err));
		ok(n == 1 && one.ev.pc == 0x1000 && one.ev.next_pc == 0x2000 && one.ev.tid == 7 &&
		   one.ev.flags == EV_TAKEN && one.ev.n_mem == 0,
		   "a version 1 trace is still read (%d event: pc %#llx -> %#llx, tid %u)", n,
		   (unsigned long long)one.ev.pc, (unsigned long long)one.ev.next_pc, one.ev.tid);
		memcpy(bad, v1, sizeof(v1));
		bad[23] |= EV_SYSCALL;
		write_file(path, bad, sizeof(bad));
		n = count_events(path, &one, err, sizeof(err));
		ok(n < 0 && strstr(err, "version 1"),
		   "a system call event in a version 1 file is corrupt: %s", err);
		memcpy(bad, v1, sizeof(v1));
		bad[8] = 2;
		write_file(path, bad, sizeof(bad));
		n = count_events(path, &one, err, sizeof(err));
		ok(n == 1 && one.ev.pc == 0x1000, "a version 2 trace (no trailer) is still read");
		bad[8] = 3;
		write_file(path, bad, sizeof(bad));
		n = count_events(path, &one, err, sizeof(err));
		ok(n < 0 && strstr(err, "truncated at record 2: the end marker is missing"),
		   "the same records as version 3, without the trailer: %s", err);
		bad[8] = 4;
		write_file(path, bad, sizeof(bad));
		r = tracefile_open(path, err, sizeof(err));
		ok(r == NULL && strstr(err, "version 4") && strstr(err, "versions 1 to 3"),
		   "a newer version is refused, saying which: %s", err);
		bad[8] = 0;
		write_file(path, bad, sizeof(bad));
		r = tracefile_open(path, err, sizeof(err));
		ok(r == NULL && strstr(err, "version 0"), "version 0 is refused: %s", err);
	}
	unlink(path);
	return done_testing();
}
