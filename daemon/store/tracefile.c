/*
 * The binary trace file (tracefile.h): writer and reader.
 */
#include "config.h"
#include "store/tracefile.h"

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

/* The trailer's checksum: 64-bit FNV-1a of every byte before it. */
#define FNV_OFFSET	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

static uint64_t
fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return h;
}

/* ---- writer ---- */

#define WBUF (1u << 20)

struct id_slot {
	const struct insn_info *key;
	uint64_t id;
};

struct tracefile_writer {
	FILE *f;
	char *path;
	uint8_t *buf;		/* WBUF bytes not yet written (nor hashed) */
	size_t len;
	uint64_t hash, records;
	struct id_slot *map;
	size_t map_size, map_used;
	uint64_t next_id;
	uint32_t last_tid;
	uint64_t last_addr;
};

static void
flush_buf(struct tracefile_writer *w)
{
	w->hash = fnv1a(w->hash, w->buf, w->len);
	fwrite(w->buf, 1, w->len, w->f);
	w->len = 0;
}

static void
put_bytes(struct tracefile_writer *w, const void *p, size_t n)
{
	if (w->len + n > WBUF)
		flush_buf(w);
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void
put_byte(struct tracefile_writer *w, uint8_t b)
{
	if (w->len == WBUF)
		flush_buf(w);
	w->buf[w->len++] = b;
}

/* A record's tag: each one counts, for the trailer. */
static void
put_tag(struct tracefile_writer *w, char tag)
{
	put_byte(w, (uint8_t)tag);
	w->records++;
}

static size_t
encode_u(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

static void
put_u(struct tracefile_writer *w, uint64_t v)
{
	uint8_t b[10];

	put_bytes(w, b, encode_u(b, v));
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
	w->buf = xmalloc(WBUF);
	w->hash = FNV_OFFSET;
	setvbuf(f, NULL, _IONBF, 0);	/* writes go out in WBUF chunks already */
	w->map_size = 4096;
	w->map = xcalloc(w->map_size, sizeof(*w->map));
	memcpy(hdr, TRACEFILE_MAGIC, 8);
	hdr[8] = TRACEFILE_VERSION;
	hdr[9] = hdr[10] = hdr[11] = 0;
	memset(hdr + 12, 0, 4);
	put_bytes(w, hdr, sizeof(hdr));
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
	put_tag(w, 'I');
	put_u(w, ii->pc);
	put_byte(w, ii->len);
	put_bytes(w, ii->bytes, ii->len);
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
	put_tag(w, 'E');
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
	put_tag(w, 'T');
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
	uint8_t end[10 + 8];
	size_t n;
	int ret = 0;

	if (!w)
		return 0;
	/* The trailer: its tag ends the checksummed bytes. */
	put_byte(w, 'Z');
	flush_buf(w);
	n = encode_u(end, w->records);
	for (int i = 0; i < 8; i++)
		end[n++] = (uint8_t)(w->hash >> 8 * i);
	fwrite(end, 1, n, w->f);
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

#define RBUF (1u << 16)

struct tracefile_reader {
	FILE *f;
	unsigned version;
	uint8_t buf[RBUF];
	size_t pos, len;	/* buf[pos..len) not read yet */
	uint64_t hash;		/* of the bytes before buf */
	uint64_t records;	/* records read whole */
	bool ended;		/* the trailer was read */
	struct insn_info **insns;
	size_t n_insns, cap_insns;
	uint32_t last_tid;
	uint64_t last_addr;
};

/* The next byte, or EOF (at the end or on a read error: see ferror). */
static int
get_byte(struct tracefile_reader *r)
{
	if (r->pos == r->len) {
		r->hash = fnv1a(r->hash, r->buf, r->len);
		r->pos = 0;
		r->len = fread(r->buf, 1, RBUF, r->f);
		if (r->len == 0)
			return EOF;
	}
	return r->buf[r->pos++];
}

static int
get_bytes(struct tracefile_reader *r, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int c = get_byte(r);

		if (c == EOF)
			return -1;
		p[i] = (uint8_t)c;
	}
	return 0;
}

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
	FILE *f = fopen(path, "rb");

	if (!f) {
		snprintf(err, errsz, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	return tracefile_open_stream(f, path, err, errsz);
}

struct tracefile_reader *
tracefile_open_stream(FILE *f, const char *path, char *err, size_t errsz)
{
	uint8_t hdr[16];
	struct tracefile_reader *r;

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
	r->hash = fnv1a(FNV_OFFSET, hdr, sizeof(hdr));
	return r;
}

static int
get_u(struct tracefile_reader *r, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		int c = get_byte(r);

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

/* A record cut short: the end of the file, or a read error. */
#define CUT(what) do { \
	if (ferror(r->f)) \
		BAD("read error at record %llu: %s", (unsigned long long)r->records, \
		    strerror(errno)); \
	BAD("truncated at record %llu (%s cut short)", (unsigned long long)r->records, what); \
} while (0)

/* The trailer (version 3): the record count and the checksum of every byte
 * up to its tag, then nothing more. */
static int
read_trailer(struct tracefile_reader *r, char *err, size_t errsz)
{
	uint64_t want = fnv1a(r->hash, r->buf, r->pos), count;
	uint8_t sum[8];
	uint64_t got = 0;

	if (get_u(r, &count) < 0 || get_bytes(r, sum, sizeof(sum)) < 0)
		CUT("the end marker");
	for (int i = 0; i < 8; i++)
		got |= (uint64_t)sum[i] << 8 * i;
	if (count != r->records)
		BAD("corrupt trace: the end marker counts %llu records, the file has %llu",
		    (unsigned long long)count, (unsigned long long)r->records);
	if (got != want)
		BAD("corrupt trace: checksum mismatch (the file was changed after it was recorded)");
	if (get_byte(r) != EOF)
		BAD("corrupt trace: data after the end marker");
	if (ferror(r->f))
		BAD("read error: %s", strerror(errno));
	r->ended = true;
	return 0;
}

int
tracefile_next(struct tracefile_reader *r, struct tracefile_item *it, char *err, size_t errsz)
{
	if (r->ended) {
		it->kind = TF_END;
		return 0;
	}
	for (;;) {
		int tag = get_byte(r);
		uint64_t u, fl;
		int64_t s;

		if (tag == EOF) {
			if (ferror(r->f))
				BAD("read error at record %llu: %s", (unsigned long long)r->records,
				    strerror(errno));
			/* Versions 1 and 2 had no trailer: their end is the
			 * file's. */
			if (r->version >= 3)
				BAD("truncated at record %llu: the end marker is missing (the "
				    "recording stopped early: micad killed, or the disk full?)",
				    (unsigned long long)r->records);
			it->kind = TF_END;
			return 0;
		}
		if (tag == 'Z' && r->version >= 3) {
			if (read_trailer(r, err, errsz) < 0)
				return -1;
			it->kind = TF_END;
			return 0;
		}
		if (tag == 'I') {
			uint8_t bytes[INSN_MAX_BYTES];
			struct insn_info *ii;
			int len;

			if (get_u(r, &u) < 0 || (len = get_byte(r)) == EOF)
				CUT("an instruction record");
			if (len > INSN_MAX_BYTES)
				BAD("corrupt trace: instruction record %zu of %d bytes (at most %d), "
				    "record %llu", r->n_insns, len, INSN_MAX_BYTES,
				    (unsigned long long)r->records);
			if (get_bytes(r, bytes, (size_t)len) < 0)
				CUT("an instruction record");
			if (r->n_insns == r->cap_insns) {
				r->cap_insns = r->cap_insns ? 2 * r->cap_insns : 1024;
				r->insns = xreallocarray(r->insns, r->cap_insns, sizeof(*r->insns));
			}
			ii = xmalloc(sizeof(*ii));
			insn_decode(bytes, (size_t)len, u, ii);
			r->insns[r->n_insns++] = ii;
			r->records++;
			continue;
		}
		if (tag == 'T') {
			int64_t pid, tid, parent, status;

			if (get_u(r, &u) < 0 || get_s(r, &pid) < 0 || get_s(r, &tid) < 0 ||
			    get_s(r, &parent) < 0 || get_s(r, &status) < 0)
				CUT("a thread record");
			memset(&it->thread, 0, sizeof(it->thread));
			it->thread.kind = (uint32_t)u;
			it->thread.pid = (int32_t)pid;
			it->thread.tid = (int32_t)tid;
			it->thread.parent = (int32_t)parent;
			it->thread.status = (int32_t)status;
			it->kind = TF_THREAD;
			r->records++;
			return 1;
		}
		if (tag != 'E')
			BAD("corrupt trace: unknown record tag 0x%02x at record %llu", tag,
			    (unsigned long long)r->records);

		struct insn_event *ev = &it->ev;
		const struct insn_info *ii;

		memset(ev, 0, offsetof(struct insn_event, mem));
		if (get_u(r, &u) < 0 || get_u(r, &fl) < 0)
			CUT("an event record");
		if (u >= r->n_insns)
			BAD("corrupt trace: event of undefined instruction %llu at record %llu",
			    (unsigned long long)u, (unsigned long long)r->records);
		ii = r->insns[u];
		ev->info = ii;
		ev->pc = ii->pc;
		ev->flags = (uint16_t)(fl & FL_EVENT_MASK);
		if (fl & FL_TID) {
			if (get_s(r, &s) < 0)
				CUT("an event record");
			r->last_tid = (uint32_t)((int64_t)r->last_tid + s);
		}
		ev->tid = r->last_tid;
		if (ev->flags & EV_REP) {
			if (get_u(r, &u) < 0)
				CUT("an event record");
			ev->rep_count = (uint32_t)u;
		}
		ev->next_pc = ii->pc + ii->len;
		if (fl & FL_NEXT_PC) {
			if (get_s(r, &s) < 0)
				CUT("an event record");
			ev->next_pc += (uint64_t)s;
		}
		if (ev->flags & EV_SYSCALL) {
			if (r->version < 2)
				BAD("corrupt trace: a system call event in a version 1 file");
			if (get_u(r, &ev->sys.nr) < 0)
				CUT("a system call event");
			for (unsigned i = 0; i < 6; i++)
				if (get_u(r, &ev->sys.arg[i]) < 0)
					CUT("a system call event");
			it->kind = TF_EVENT;
			r->records++;
			return 1;
		}
		if (get_u(r, &u) < 0)
			CUT("an event record");
		if (u > EV_MAX_MEM)
			BAD("corrupt trace: %llu memory accesses in an event (at most %d), record %llu",
			    (unsigned long long)u, EV_MAX_MEM, (unsigned long long)r->records);
		ev->n_mem = (uint8_t)u;
		for (unsigned i = 0; i < ev->n_mem; i++) {
			struct mem_access *m = &ev->mem[i];
			uint64_t size, df;

			if (get_s(r, &s) < 0 || get_u(r, &size) < 0 || get_u(r, &df) < 0)
				CUT("a memory access");
			r->last_addr += (uint64_t)s;
			memset(m, 0, sizeof(*m));
			m->addr = r->last_addr;
			m->size = (uint16_t)size;
			m->dir = df & 3;
			m->flags = (uint8_t)(df >> 2);
		}
		it->kind = TF_EVENT;
		r->records++;
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
