/*
 * The binary trace file (tracefile.h): writer and reader.
 */
#include "config.h"
#include "tracefile.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "util.h"

#define FL_NEXT_PC	(1u << 14)
#define FL_TID		(1u << 15)
#define FL_EVENT_MASK	0x3fffu

/* ---- writer ---- */

struct id_slot {
	const struct insn_info *key;
	uint64_t id;
};

struct tracefile_writer {
	FILE *f;
	char *path;
	char *buf;
	struct id_slot *map;
	size_t map_size, map_used;
	uint64_t next_id;
	uint32_t last_tid;
	uint64_t last_addr;
	bool failed;
};

static void
put_u(struct tracefile_writer *w, uint64_t v)
{
	uint8_t b[10];
	int n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	fwrite(b, 1, (size_t)n, w->f);
}

static void
put_s(struct tracefile_writer *w, int64_t v)
{
	put_u(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

struct tracefile_writer *
tracefile_create(const char *path)
{
	struct tracefile_writer *w;
	FILE *f = output_fopen(path, "the trace file");
	uint8_t hdr[16];

	if (!f)
		return NULL;
	w = xcalloc(1, sizeof(*w));
	w->f = f;
	w->path = xstrdup(path);
	w->buf = xmalloc(1 << 20);
	setvbuf(f, w->buf, _IOFBF, 1 << 20);
	w->map_size = 4096;
	w->map = xcalloc(w->map_size, sizeof(*w->map));
	memcpy(hdr, TRACEFILE_MAGIC, 8);
	hdr[8] = TRACEFILE_VERSION;
	hdr[9] = hdr[10] = hdr[11] = 0;
	memset(hdr + 12, 0, 4);
	fwrite(hdr, 1, sizeof(hdr), f);
	return w;
}

static size_t
ptr_hash(const void *p, size_t mask)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & mask;
}

/* The id of ii, writing its 'I' record the first time. */
static uint64_t
insn_id(struct tracefile_writer *w, const struct insn_info *ii)
{
	size_t mask = w->map_size - 1, i = ptr_hash(ii, mask);

	for (; w->map[i].key; i = (i + 1) & mask)
		if (w->map[i].key == ii)
			return w->map[i].id;
	if (2 * (w->map_used + 1) > w->map_size) {
		struct id_slot *old = w->map;
		size_t on = w->map_size;

		w->map_size *= 2;
		w->map = xcalloc(w->map_size, sizeof(*w->map));
		mask = w->map_size - 1;
		for (size_t j = 0; j < on; j++) {
			if (!old[j].key)
				continue;
			size_t k = ptr_hash(old[j].key, mask);

			while (w->map[k].key)
				k = (k + 1) & mask;
			w->map[k] = old[j];
		}
		free(old);
		for (i = ptr_hash(ii, mask); w->map[i].key; i = (i + 1) & mask)
			;
	}
	w->map[i].key = ii;
	w->map[i].id = w->next_id;
	w->map_used++;
	fputc('I', w->f);
	put_u(w, ii->pc);
	fputc(ii->len, w->f);
	fwrite(ii->bytes, 1, ii->len, w->f);
	return w->next_id++;
}

static void
tf_event(void *arg, void *tstate, const struct insn_event *ev)
{
	struct tracefile_writer *w = arg;
	uint64_t id = insn_id(w, ev->info);
	uint64_t fall = ev->pc + ev->info->len;
	unsigned fl = ev->flags & FL_EVENT_MASK;

	(void)tstate;
	if (ev->next_pc != fall)
		fl |= FL_NEXT_PC;
	if (ev->tid != w->last_tid)
		fl |= FL_TID;
	fputc('E', w->f);
	put_u(w, id);
	put_u(w, fl);
	if (fl & FL_TID) {
		put_s(w, (int64_t)ev->tid - (int64_t)w->last_tid);
		w->last_tid = ev->tid;
	}
	if (ev->flags & EV_REP)
		put_u(w, ev->rep_count);
	if (fl & FL_NEXT_PC)
		put_s(w, (int64_t)(ev->next_pc - fall));
	if (ev->flags & EV_SYSCALL) {
		put_u(w, ev->sys.nr);
		for (unsigned i = 0; i < 6; i++)
			put_u(w, ev->sys.arg[i]);
		return;		/* n_mem is 0 */
	}
	put_u(w, ev->n_mem);
	for (unsigned i = 0; i < ev->n_mem; i++) {
		const struct mem_access *m = &ev->mem[i];

		put_s(w, (int64_t)(m->addr - w->last_addr));
		w->last_addr = m->addr;
		put_u(w, m->size);
		put_u(w, (unsigned)m->dir | (unsigned)m->flags << 2);
	}
}

static void
tf_thread_rec(void *arg, void *tstate, const struct trace_thread_rec *r)
{
	struct tracefile_writer *w = arg;

	(void)tstate;
	fputc('T', w->f);
	put_u(w, r->kind);
	put_s(w, r->pid);
	put_s(w, r->tid);
	put_s(w, r->parent);
	put_s(w, r->status);
}

static void *
tf_thread_start(void *arg, const struct trace_thread_rec *r)
{
	tf_thread_rec(arg, NULL, r);
	return NULL;
}

struct trace_consumer
tracefile_consumer(struct tracefile_writer *w)
{
	struct trace_consumer c = { tf_thread_start, tf_event, tf_thread_rec, NULL, w };

	return c;
}

int
tracefile_close(struct tracefile_writer *w)
{
	int ret = 0;

	if (!w)
		return 0;
	if (ferror(w->f) | (fclose(w->f) != 0)) {
		perror_msg("cannot write the trace file '%s'", w->path);
		ret = -1;
	}
	free(w->buf);
	free(w->map);
	free(w->path);
	free(w);
	return ret;
}

/* ---- reader ---- */

struct tracefile_reader {
	FILE *f;
	unsigned version;
	struct insn_info **insns;
	size_t n_insns, cap_insns;
	uint32_t last_tid;
	uint64_t last_addr;
};

bool
tracefile_is_binary(const char *path)
{
	char m[8];
	FILE *f = fopen(path, "rb");
	bool yes;

	if (!f)
		return false;
	yes = fread(m, 1, 8, f) == 8 && memcmp(m, TRACEFILE_MAGIC, 8) == 0;
	fclose(f);
	return yes;
}

struct tracefile_reader *
tracefile_open(const char *path, char *err, size_t errsz)
{
	uint8_t hdr[16];
	FILE *f = fopen(path, "rb");
	struct tracefile_reader *r;

	if (!f) {
		snprintf(err, errsz, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr) || memcmp(hdr, TRACEFILE_MAGIC, 8) != 0) {
		snprintf(err, errsz, "'%s' is not a micad trace file (no %s header)", path, TRACEFILE_MAGIC);
		fclose(f);
		return NULL;
	}
	if (hdr[8] < 1 || hdr[8] > TRACEFILE_VERSION || hdr[9] || hdr[10] || hdr[11]) {
		snprintf(err, errsz, "'%s' is a micad trace of version %u; this micad reads "
			 "versions 1 to %d (record it again with this micad)",
			 path, hdr[8] | hdr[9] << 8 | hdr[10] << 16 | (unsigned)hdr[11] << 24,
			 TRACEFILE_VERSION);
		fclose(f);
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->f = f;
	r->version = hdr[8];
	return r;
}

static int
get_u(struct tracefile_reader *r, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		int c = getc(r->f);

		if (c == EOF)
			return -1;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

static int
get_s(struct tracefile_reader *r, int64_t *v)
{
	uint64_t u;

	if (get_u(r, &u) < 0)
		return -1;
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return 0;
}

#define BAD(...) do { snprintf(err, errsz, __VA_ARGS__); return -1; } while (0)

int
tracefile_next(struct tracefile_reader *r, struct tracefile_item *it, char *err, size_t errsz)
{
	for (;;) {
		int tag = getc(r->f);
		uint64_t u, fl;
		int64_t s;

		if (tag == EOF) {
			if (ferror(r->f))
				BAD("read error: %s", strerror(errno));
			it->kind = TF_END;
			return 0;
		}
		if (tag == 'I') {
			uint8_t bytes[INSN_MAX_BYTES];
			struct insn_info *ii;
			int len;

			if (get_u(r, &u) < 0 || (len = getc(r->f)) == EOF || len > INSN_MAX_BYTES ||
			    fread(bytes, 1, (size_t)len, r->f) != (size_t)len)
				BAD("truncated instruction record %zu", r->n_insns);
			if (r->n_insns == r->cap_insns) {
				r->cap_insns = r->cap_insns ? 2 * r->cap_insns : 1024;
				r->insns = xreallocarray(r->insns, r->cap_insns, sizeof(*r->insns));
			}
			ii = xmalloc(sizeof(*ii));
			insn_decode(bytes, (size_t)len, u, ii);
			r->insns[r->n_insns++] = ii;
			continue;
		}
		if (tag == 'T') {
			int64_t pid, tid, parent, status;

			if (get_u(r, &u) < 0 || get_s(r, &pid) < 0 || get_s(r, &tid) < 0 ||
			    get_s(r, &parent) < 0 || get_s(r, &status) < 0)
				BAD("truncated thread record");
			memset(&it->thread, 0, sizeof(it->thread));
			it->thread.kind = (uint32_t)u;
			it->thread.pid = (int32_t)pid;
			it->thread.tid = (int32_t)tid;
			it->thread.parent = (int32_t)parent;
			it->thread.status = (int32_t)status;
			it->kind = TF_THREAD;
			return 1;
		}
		if (tag != 'E')
			BAD("corrupt trace: unknown record tag 0x%02x", tag);

		struct insn_event *ev = &it->ev;
		const struct insn_info *ii;

		memset(ev, 0, offsetof(struct insn_event, mem));
		if (get_u(r, &u) < 0 || get_u(r, &fl) < 0)
			BAD("truncated event record");
		if (u >= r->n_insns)
			BAD("corrupt trace: event of undefined instruction %llu", (unsigned long long)u);
		ii = r->insns[u];
		ev->info = ii;
		ev->pc = ii->pc;
		ev->flags = (uint16_t)(fl & FL_EVENT_MASK);
		if (fl & FL_TID) {
			if (get_s(r, &s) < 0)
				BAD("truncated event record");
			r->last_tid = (uint32_t)((int64_t)r->last_tid + s);
		}
		ev->tid = r->last_tid;
		if (ev->flags & EV_REP) {
			if (get_u(r, &u) < 0)
				BAD("truncated event record");
			ev->rep_count = (uint32_t)u;
		}
		ev->next_pc = ii->pc + ii->len;
		if (fl & FL_NEXT_PC) {
			if (get_s(r, &s) < 0)
				BAD("truncated event record");
			ev->next_pc += (uint64_t)s;
		}
		if (ev->flags & EV_SYSCALL) {
			if (r->version < 2)
				BAD("corrupt trace: a system call event in a version 1 file");
			if (get_u(r, &ev->sys.nr) < 0)
				BAD("truncated system call event");
			for (unsigned i = 0; i < 6; i++)
				if (get_u(r, &ev->sys.arg[i]) < 0)
					BAD("truncated system call event");
			it->kind = TF_EVENT;
			return 1;
		}
		if (get_u(r, &u) < 0 || u > EV_MAX_MEM)
			BAD("corrupt event record (memory access count)");
		ev->n_mem = (uint8_t)u;
		for (unsigned i = 0; i < ev->n_mem; i++) {
			struct mem_access *m = &ev->mem[i];
			uint64_t size, df;

			if (get_s(r, &s) < 0 || get_u(r, &size) < 0 || get_u(r, &df) < 0)
				BAD("truncated memory access");
			r->last_addr += (uint64_t)s;
			memset(m, 0, sizeof(*m));
			m->addr = r->last_addr;
			m->size = (uint16_t)size;
			m->dir = df & 3;
			m->flags = (uint8_t)(df >> 2);
		}
		it->kind = TF_EVENT;
		return 1;
	}
}

void
tracefile_close_reader(struct tracefile_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_insns; i++)
		free(r->insns[i]);
	free(r->insns);
	fclose(r->f);
	free(r);
}
