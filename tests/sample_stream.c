/*
 * Sample mode's consumer side end to end: a fabricated record stream, as
 * the sampling producer would push it from another process, through a
 * ring into the daemon's analysis thread (trace_analysis, remote and
 * sample mode) and its consumers (MICA, the scheduling model, MGSim, the
 * profile), into a results database whose rows and views are checked
 * against values computed by hand below.
 *
 * The instructions are the real ones of tests/asm/loop (its loop body:
 * add $3,%rax; dec %ecx; jnz) and tests/asm/memops (mov a(%rip),%rax and
 * pop %rbx, placed 1 MiB higher as if a second mapping, so that a = 0x502000),
 * read from the built programs and decoded by the daemon from the bytes of
 * TREC_INSN records.  With MICA's built-in groups (analysis_type all) the
 * load and the ALU ops are "arithmetic" (DATAXFER, BINARY), the load also
 * "mem_read", jnz "control".
 *
 * Thread 100, interval 0 (the first second):
 *   burst A: warm-up add dec jnz; unit mov-a, add dec jnz, add dec jnz
 *	(E 7: mem_read 1, control 2, arithmetic 5; a is read for the first time:
 *	cold; the load's stride slot is new: a first-seen read)
 *   burst B: warm-up add dec jnz; unit mov-a, mov-a, add dec jnz
 *	(E 5: mem_read 2, control 1, arithmetic 4; the first read of a was last
 *	read in burst A: censored; the second is at distance 0: bucket 0)
 *   burst C: warm-up add dec jnz; unit add dec; ABORT (not counted)
 *   => E 12 = 7 + 5, mem_read 3, control 3, arithmetic 9; 2 bursts, 1
 *   aborted, warm-up E 6; refs 3, cold 1, censored 1, bucket 0: 1; horizon
 *   0 (no read in a warm-up before its unit): no reuse bucket estimable.
 *   mix_mem_read: units (x, y) = (7, 1), (5, 2): R = 3/12 = 0.25, residuals
 *   -0.75, 0.75, SE = sqrt(1.125 / 2) / 6 = 0.125, CI 0.25 -/+ t(1) SE =
 *   0.25 -/+ 12.7062 x 0.125, clamped to [0, 1] (a proportion).
 *   mix_control: (7, 2), (5, 1): R = 0.25, residuals 0.25, -0.25,
 *   SE = sqrt(0.125 / 2) / 6 = 0.0416667, CI 0.25 -/+ 0.529425 = [0,
 *   0.779425].
 * Thread 100, interval 1:
 *   burst D: warm-up mov-a, pop (stack block S), add dec jnz; unit mov-a,
 *	add dec jnz (E 4: mem_read 1, control 1, arithmetic 3; a was read in
 *	the warm-up with S between: distance 1, bucket 0, not censored)
 *   burst E: warm-up mov-a, pop; unit add dec jnz-not-taken (E 3)
 *   => E 7, warm-up E 7; horizon 2 (a and S seen before each unit): bucket
 *   0 ([0, 2)) estimable, bucket 1 ([2, 4)) not; no first-seen read.
 * The session: mix_mem_read pools (7,1), (5,2), (4,1), (3,0): R = 4/19,
 *   residuals -9/19, 18/19, 3/19, -12/19, SE = sqrt(558/361 / 12) / 4.75.
 *
 * The profile (frames innermost first; f has two call sites, offsets 0x10
 * and 0x24, one frame each):
 *   interval 0, thread 100: hot<f<f<main x3 (weights 1, 2, 3 ms),
 *	hot<main, f<main x2, main; and one more main that arrives late,
 *	after interval 1 began
 *   interval 1: hot<main (thread 100), [unknown in libc]<main (thread 101,
 *	which has no thread record: samples need none)
 *   => 10 samples; hot: self 5, total 5; f: self 2, total 5 (a sample
 *   counts once however often f recurses on its stack: 3 + 2, not 3 x 2 + 2);
 *   main: self 2, total 10; libc's unknown code: 1, 1.
 * Samples the kernel lost (TREC_LOST): thread 100, 5 in interval 0 and 2
 *   in interval 1, then 4 more of interval 0 arriving late (after interval
 *   1 began: added to the row written); thread 101, 3 in interval 0, where
 *   it has no sample (a row with 0 samples and 3 lost).  =>
 *   profile_interval.lost 100/0: 9, 100/1: 2, 101/0: 3, 101/1: 0.
 *
 * Thread 102 starts in interval 1 and exits in its first burst's unit:
 * the burst counts as aborted (a row of its interval, with nothing in it).
 *
 * And eight impossible records, each dropped and counted: a sample whose
 * frames overrun it, one naming an unknown string, a string redefining an
 * id, an event outside a burst, a BURST_END outside a unit, a burst of a
 * thread never started, a note with weighting 3, a count of 0 lost.
 */
#include "config.h"

#include <elf.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "decoder.h"
#include "mgsim/mgsim.h"
#include "session/trace_analysis.h"
#include "session/trace_mgsim.h"
#include "session/trace_mica.h"
#include "session/trace_profile.h"
#include "session/trace_sched.h"
#include "store/store_mgsim.h"
#include "store/store_sched.h"
#include "store/store_writer.h"
#include "tap.h"
#include "trace/ring.h"
#include "trace/tracer.h"

#define TID	100
#define TID2	101
#define TID3	102	/* ends in a burst */
#define A_ADDR	0x502000ull	/* memops' a, one MiB up */
#define S_ADDR	0x7ffffff000ull	/* the stack block pop reads */

struct insn {
	uint64_t pc;
	uint8_t len, bytes[INSN_MAX_BYTES];
	uint64_t key;
};

static struct ring *ring;
static uint64_t base;		/* CLOCK_MONOTONIC ns of the first record */

/* n instructions from the entry point of the static program at path,
 * moved by shift; -1 if it cannot be read. */
static int
load_program(const char *path, uint64_t shift, struct insn *out, unsigned n)
{
	uint8_t text[256];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY);
	long off = -1;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto fail;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != sizeof(ph))
			goto fail;
		if (ph.p_type == PT_LOAD && eh.e_entry >= ph.p_vaddr &&
		    eh.e_entry < ph.p_vaddr + ph.p_filesz)
			off = (long)(ph.p_offset + eh.e_entry - ph.p_vaddr);
	}
	if (off < 0 || pread(fd, text, sizeof(text), off) <= 0)
		goto fail;
	close(fd);
	for (unsigned i = 0, at = 0; i < n; i++) {
		struct insn_info ii;

		if (insn_decode(text + at, sizeof(text) - at, eh.e_entry + at + shift, &ii) < 0)
			return -1;
		out[i].pc = eh.e_entry + at + shift;
		out[i].len = ii.len;
		memcpy(out[i].bytes, text + at, ii.len);
		at += ii.len;
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

static void
push(uint32_t type, const void *data, size_t len)
{
	void *p = ring_reserve(ring, type, len);

	memcpy(p, data, len);
	ring_commit(ring);
}

static void
push_insn(const struct insn *x)
{
	struct trace_insn_rec r;

	memset(&r, 0, sizeof(r));
	r.key = x->key;
	r.pc = x->pc;
	r.len = x->len;
	memcpy(r.bytes, x->bytes, x->len);
	push(TREC_INSN, &r, sizeof(r));
}

static void
push_string(uint32_t id, const char *text)
{
	size_t n = strlen(text) + 1;
	struct trace_string_rec *r = calloc(1, sizeof(*r) + n);

	r->id = id;
	memcpy(r->text, text, n);
	push(TREC_STRING, r, sizeof(*r) + n);
	free(r);
}

static int32_t ev_tid = TID;	/* the thread of push_event and push_burst */

static void
push_thread(uint32_t kind, int32_t tid)
{
	struct trace_thread_rec r = { kind, tid, tid, 0, 0, 0 };

	push(TREC_THREAD, &r, sizeof(r));
}

/* ms after the first record */
static uint64_t
at(double ms)
{
	return base + (uint64_t)(ms * 1e6);
}

static void
push_burst(uint32_t kind, double ms)
{
	struct trace_burst_rec r = { kind, ev_tid, ev_tid, 0, at(ms) };

	push(TREC_BURST, &r, sizeof(r));
}

/* An event of thread ev_tid; a read at addr when addr is not 0. */
static void
push_event(const struct insn *x, bool taken, uint64_t addr, uint16_t size)
{
	struct insn_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.info = (const struct insn_info *)(uintptr_t)x->key;
	ev.pc = x->pc;
	ev.next_pc = x->pc + x->len;
	ev.tid = (uint32_t)ev_tid;
	ev.flags = taken ? EV_TAKEN : 0;
	if (addr) {
		ev.n_mem = 1;
		ev.mem[0].addr = addr;
		ev.mem[0].size = size;
		ev.mem[0].dir = MEM_READ;
	}
	push(TREC_EVENT, &ev, insn_event_size(&ev));
}

/* frames: (module, symbol, offset) triples, innermost first */
static void
push_sample(int32_t tid, double ms, uint64_t weight, unsigned n, const uint32_t (*fr)[3])
{
	size_t len = sizeof(struct trace_sample_rec) + n * sizeof(struct trace_frame);
	struct trace_sample_rec *r = calloc(1, len);

	r->time_ns = at(ms);
	r->pid = tid == TID2 ? TID : tid;
	r->tid = tid;
	r->weight = weight;
	r->n_frames = (uint16_t)n;
	for (unsigned i = 0; i < n; i++) {
		r->frames[i].module = fr[i][0];
		r->frames[i].symbol = fr[i][1];
		r->frames[i].offset = fr[i][2];
		r->frames[i].address = 0x400000 + fr[i][2];
	}
	push(TREC_SAMPLE, r, len);
	free(r);
}

static void
push_lost(int32_t tid, double ms, uint64_t n)
{
	struct trace_lost_rec r = { at(ms), tid == TID2 ? TID : tid, tid, n };

	push(TREC_LOST, &r, sizeof(r));
}

static void
push_note(uint32_t weighting, const char *event, const char *note)
{
	size_t n = strlen(note) + 1;
	struct trace_note_rec *r = calloc(1, sizeof(*r) + n);

	r->weighting = weighting;
	snprintf(r->event, sizeof(r->event), "%s", event);
	memcpy(r->note, note, n);
	push(TREC_NOTE, r, sizeof(*r) + n);
	free(r);
}

static const char *
exe_of(void *arg, int32_t pid)
{
	return trace_analysis_exe(arg, pid);
}

/* The rows of a query, columns joined with '|', rows with ' '. */
static char *
q(sqlite3 *db, const char *sql)
{
	static char out[4096];
	sqlite3_stmt *s;
	size_t n = 0;

	out[0] = '\0';
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		snprintf(out, sizeof(out), "error: %s", sqlite3_errmsg(db));
		return out;
	}
	while (sqlite3_step(s) == SQLITE_ROW && n < sizeof(out) - 256) {
		for (int c = 0; c < sqlite3_column_count(s); c++) {
			const unsigned char *t = sqlite3_column_text(s, c);

			n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s", c ? "|" : n ? " " : "",
					      t ? (const char *)t : "NULL");
		}
	}
	sqlite3_finalize(s);
	return out;
}

/* The stream of the comment at the top. */
static void
produce(const struct insn *lp, const struct insn *mem)
{
	const struct insn *add = &lp[1], *dec = &lp[2], *jnz = &lp[3];
	const struct insn *mova = &mem[0], *pop = &mem[4];
	enum { PROG = 1, MAIN, F, HOT, LIBC };
	static const uint32_t s_hot_f_f[4][3] = { { PROG, HOT, 4 }, { PROG, F, 0x24 },
						  { PROG, F, 0x10 }, { PROG, MAIN, 8 } };
	static const uint32_t s_hot[2][3] = { { PROG, HOT, 4 }, { PROG, MAIN, 0x30 } };
	static const uint32_t s_f[2][3] = { { PROG, F, 2 }, { PROG, MAIN, 8 } };
	static const uint32_t s_main[1][3] = { { PROG, MAIN, 0x40 } };
	static const uint32_t s_libc[2][3] = { { LIBC, 0, 0x1234 }, { PROG, MAIN, 0x50 } };
	static const uint32_t bad_id[1][3] = { { PROG, 99, 0 } };

	push_note(2, "cpu-clock", "no hardware PMU here; sampling cpu-clock at 999 Hz, bursts by "
		  "ptrace");
	push_string(PROG, "/tmp/prog");
	push_string(MAIN, "main");
	push_string(F, "f");
	push_string(HOT, "hot");
	push_string(LIBC, "/lib/libc.so.6");
	for (unsigned i = 0; i < 4; i++)
		push_insn(&lp[i]);
	push_insn(mova);
	push_insn(pop);
	push_thread(TT_START, TID);

	/* interval 0 */
	push_sample(TID, 0, 1000000, 4, s_hot_f_f);
	push_sample(TID, 10, 2000000, 4, s_hot_f_f);
	push_sample(TID, 20, 3000000, 4, s_hot_f_f);
	push_burst(BURST_WARMUP, 100);			/* A */
	push_event(add, false, 0, 0);
	push_event(dec, false, 0, 0);
	push_event(jnz, true, 0, 0);
	push_burst(BURST_MEASURE, 101);
	push_event(mova, false, A_ADDR, 8);
	for (int k = 0; k < 2; k++) {
		push_event(add, false, 0, 0);
		push_event(dec, false, 0, 0);
		push_event(jnz, true, 0, 0);
	}
	push_burst(BURST_END, 102);
	push_event(add, false, 0, 0);			/* rejected: outside a burst */
	push_burst(BURST_END, 103);			/* rejected: no unit */
	push_sample(TID, 200, 1000000, 2, s_hot);
	push_sample(TID, 210, 1000000, 2, s_f);
	push_sample(TID, 220, 1000000, 2, s_f);
	push_sample(TID, 230, 1000000, 1, s_main);
	push_lost(TID, 250, 5);
	push_lost(TID2, 260, 3);
	push_burst(BURST_WARMUP, 300);			/* B */
	push_event(add, false, 0, 0);
	push_event(dec, false, 0, 0);
	push_event(jnz, true, 0, 0);
	push_burst(BURST_MEASURE, 301);
	push_event(mova, false, A_ADDR, 8);
	push_event(mova, false, A_ADDR, 8);
	push_event(add, false, 0, 0);
	push_event(dec, false, 0, 0);
	push_event(jnz, true, 0, 0);
	push_burst(BURST_END, 302);
	push_burst(BURST_WARMUP, 400);			/* C */
	push_event(add, false, 0, 0);
	push_event(dec, false, 0, 0);
	push_event(jnz, true, 0, 0);
	push_burst(BURST_MEASURE, 401);
	push_event(add, false, 0, 0);
	push_event(dec, false, 0, 0);
	push_burst(BURST_ABORT, 402);

	/* impossible records */
	{
		struct trace_sample_rec *r = calloc(1, sizeof(*r) + 2 * sizeof(struct trace_frame));

		r->time_ns = at(500);
		r->tid = TID;
		r->n_frames = 3;	/* but room for 2 */
		push(TREC_SAMPLE, r, sizeof(*r) + 2 * sizeof(struct trace_frame));
		free(r);
	}
	push_sample(TID, 510, 1, 1, bad_id);
	ev_tid = 4242;					/* rejected: no such thread */
	push_burst(BURST_WARMUP, 520);
	ev_tid = TID;
	push_string(MAIN, "other");
	push_note(3, "cpu-clock", "what weighting?");
	push_lost(TID, 530, 0);

	/* interval 1 */
	push_burst(BURST_WARMUP, 1200);			/* D */
	push_event(mova, false, A_ADDR, 8);
	push_event(pop, false, S_ADDR, 8);
	push_event(add, false, 0, 0);
	push_event(dec, false, 0, 0);
	push_event(jnz, true, 0, 0);
	push_burst(BURST_MEASURE, 1201);
	push_event(mova, false, A_ADDR, 8);
	push_event(add, false, 0, 0);
	push_event(dec, false, 0, 0);
	push_event(jnz, true, 0, 0);
	push_burst(BURST_END, 1202);
	push_sample(TID, 900, 1000000, 1, s_main);	/* late: interval 0 */
	push_sample(TID, 1250, 1000000, 2, s_hot);
	push_sample(TID2, 1260, 1000000, 2, s_libc);
	push_lost(TID, 1270, 2);
	push_lost(TID, 950, 4);				/* late: interval 0 */
	push_burst(BURST_WARMUP, 1300);			/* E */
	push_event(mova, false, A_ADDR, 8);
	push_event(pop, false, S_ADDR, 8);
	push_burst(BURST_MEASURE, 1301);
	push_event(add, false, 0, 0);
	push_event(dec, false, 0, 0);
	push_event(jnz, false, 0, 0);
	push_burst(BURST_END, 1302);
	push_thread(TT_EXIT, TID);
	/* Thread 102 ends in its burst's unit: the burst is aborted. */
	ev_tid = TID3;
	push_thread(TT_START, TID3);
	push_burst(BURST_WARMUP, 1400);
	push_event(add, false, 0, 0);
	push_event(dec, false, 0, 0);
	push_burst(BURST_MEASURE, 1401);
	push_event(add, false, 0, 0);
	push_thread(TT_EXIT, TID3);
	ring_close(ring);
}

/* The views' subqueries and CTEs (schema.sql), which may be scanned. */
static bool
own_part(const char *name)
{
	static const char *const ok_names[] = { "a", "t", "h", "v", "d", "sub", "up", "CONSTANT" };

	if (name[0] == '(')
		return true;	/* (subquery-N) */
	for (size_t i = 0; i < sizeof(ok_names) / sizeof(ok_names[0]); i++)
		if (strcmp(name, ok_names[i]) == 0)
			return true;
	return false;
}

static void
plan_uses_indexes(sqlite3 *db, const char *query)
{
	char sql[256], bad[256] = "";
	sqlite3_stmt *s;
	bool searched = false;

	snprintf(sql, sizeof(sql), "EXPLAIN QUERY PLAN SELECT * FROM %s", query);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		ok(0, "EXPLAIN %s: %s", query, sqlite3_errmsg(db));
		return;
	}
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(s, 3);
		char verb[16], name[64];

		if (sscanf(d, "%15s %63s", verb, name) != 2)
			continue;
		searched |= strcmp(verb, "SEARCH") == 0;
		if ((strcmp(verb, "SCAN") == 0 || strstr(d, "AUTOMATIC")) && !own_part(name))
			snprintf(bad, sizeof(bad), "%s", d);
	}
	sqlite3_finalize(s);
	if (!ok(searched && !bad[0], "EXPLAIN %s: every table through an index", query))
		diag("  %s", bad);
}

static int
near(double got, double want, double tol)
{
	return fabs(got - want) <= tol;
}

/* With a path, the database is written there and kept (for
 * tests/sample_export.sh). */
int
main(int argc, char **argv)
{
	const char *top = getenv("top_builddir");
	char path[4096], dir[] = "/tmp/sample_stream.XXXXXX", err[512], dbf[4096], aux[4200];
	struct insn lp[4], mem[5];
	struct store_session ss = { .mode = "attach", .command = "fabricated", .uid = 0,
				    .config = "", .settings = "{}", .engine = "sample" };
	struct trace_analysis *ta;
	struct trace_mica *mica;
	struct trace_mgsim_opts mo;
	struct trace_sched_opts so;
	struct store_mgsim_sink msink = { NULL, 0, 0 };
	struct store_sched_sink ssink = { NULL, 0, 0 };
	struct trace_mgsim *mg;
	struct trace_sched *sched;
	struct trace_profile *profile;
	struct trace_consumer c;
	struct store_writer *w;
	struct timespec now;
	int64_t session;
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/tests/asm/loop", top ? top : ".");
	if (load_program(path, 0, lp, 4) < 0) {
		printf("1..0 # SKIP cannot read %s\n", path);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/tests/asm/memops", top ? top : ".");
	if (load_program(path, 0x100000, mem, 5) < 0) {
		printf("1..0 # SKIP cannot read %s\n", path);
		return 0;
	}
	for (unsigned i = 0; i < 4; i++)
		lp[i].key = 0x1000 + i;
	for (unsigned i = 0; i < 5; i++)
		mem[i].key = 0x2000 + i;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* the past: a session that ran a while ago */
	base = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec - 60000000000ull;

	snprintf(dbf, sizeof(dbf), "%s/results.db", dir);
	if (argc > 1)
		snprintf(dbf, sizeof(dbf), "%s", argv[1]);
	w = store_writer_open(dbf, err, sizeof(err));
	if (!w) {
		printf("Bail out! %s\n", err);
		return 99;
	}
	ta = trace_analysis_new();
	trace_analysis_set_remote(ta);
	trace_analysis_set_sample(ta, TRACE_SAMPLE_INTERVAL_NS);
	mica = trace_mica_new(NULL, 0, NULL);
	ss.mica = trace_mica_config(mica);
	session = store_writer_session_begin(w, &ss, err, sizeof(err));
	if (session < 0) {
		printf("Bail out! %s\n", err);
		return 99;
	}
	trace_mica_set_store(mica, w, session);
	trace_mica_set_sampled(mica, ta);
	trace_mica_set_exe_source(mica, exe_of, ta);

	memset(&mo, 0, sizeof(mo));
	mgsim_config_default(&mo.cfg);
	mo.interval_size = -1;
	mo.sampled = true;
	msink.w = w;
	msink.session = session;
	mo.on_snapshot = store_mgsim_on_snapshot;
	mo.arg = &msink;
	mg = trace_mgsim_new(&mo, err, sizeof(err));
	memset(&so, 0, sizeof(so));
	so.mcpu = "skylake";
	so.sampled = true;
	ssink.w = w;
	ssink.session = session;
	so.on_snapshot = store_sched_on_snapshot;
	so.arg = &ssink;
	so.mgsim = trace_mgsim_model(mg);
	sched = trace_sched_new(&so, err, sizeof(err));
	if (!mg || !sched) {
		printf("Bail out! %s\n", err);
		return 99;
	}
	profile = trace_profile_new(ta, w, session);
	c = trace_mica_consumer(mica);
	trace_analysis_add(ta, &c);
	c = trace_sched_consumer(sched);
	trace_analysis_add(ta, &c);
	c = trace_mgsim_consumer(mg);
	trace_analysis_add(ta, &c);
	c = trace_profile_consumer(profile);
	trace_analysis_add(ta, &c);

	/* The records go through a ring to the analysis thread, as from the
	 * producer's process (a ring this small makes the producer wait). */
	ring = ring_new(64 << 10);
	if (trace_analysis_start(ta, ring, -1) < 0)
		return 99;
	produce(lp, mem);
	trace_analysis_join(ta);
	is_u64(trace_analysis_rejected(ta), 8, "eight impossible records dropped");
	ok(!trace_mica_failed(mica) && !trace_profile_failed(profile) && !msink.failed &&
	   !ssink.failed, "no consumer failed");
	ok(trace_profile_samples(profile) == 10 && trace_profile_dropped(profile) == 0,
	   "profile: 10 samples counted, none dropped");
	is_u64(trace_profile_lost(profile), 14, "profile: 5 + 3 + 2 + 4 samples the kernel lost");
	ok(store_writer_session_end(w, session, 0, "exited", err, sizeof(err)) == 0, "session end");
	ok(store_writer_close(w) == 0, "every job written");
	trace_profile_free(profile);
	trace_mgsim_free(mg);
	trace_sched_free(sched);
	trace_analysis_free(ta);
	trace_mica_free(mica);
	ring_free(ring);

	if (sqlite3_open_v2(dbf, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		printf("Bail out! cannot open %s\n", dbf);
		return 99;
	}
	store_math_functions(db);
	is_str(q(db, "SELECT engine, sample_event, weighting, sample_note FROM session"),
	       "sample|cpu-clock|time|no hardware PMU here; sampling cpu-clock at 999 Hz, bursts "
	       "by ptrace", "session: engine, event, weighting and note (the bad note rejected)");

	/* MICA: the units summed per interval */
	is_str(q(db, "SELECT tid, idx, ins, final, total_ins FROM interval ORDER BY tid, idx"),
	       "100|0|12|0|12 100|1|7|1|19 102|1|0|1|0",
	       "interval rows: E of the measured units only (warm-ups and burst C out)");
	is_str(q(db, "SELECT tid, idx, bursts, aborted, warmup_ins FROM sample_interval"
		 " ORDER BY tid, idx"), "100|0|2|1|6 100|1|2|0|7 102|1|0|1|0",
	       "sample_interval: bursts, aborted (thread 102's, cut by its end), warm-up E");
	is_str(q(db, "SELECT interval, grp_name, count FROM instruction_mix WHERE count > 0"
		 " ORDER BY interval, grp"),
	       "0|mem_read|3 0|control|3 0|arithmetic|9 1|mem_read|1 1|control|2 1|arithmetic|5",
	       "itypes counts of the units (pop only in warm-ups: no stack group)");
	is_str(q(db, "SELECT i.idx, refs, cold, censored, horizon, b.count FROM memstackdist m"
		 " JOIN interval i ON i.id = m.interval_id JOIN memstackdist_bucket b"
		 " ON b.interval_id = m.interval_id AND b.bucket = 0 WHERE i.tid = 100"
		 " ORDER BY i.idx"),
	       "0|3|0|2|0|1 1|1|0|0|2|1",
	       "reuse: a's read after a burst boundary and the first read of b censored (never "
	       "cold, in no bucket), horizons");
	is_str(q(db, "SELECT i.idx, first_reads, first_writes FROM stride_total s JOIN interval i"
		 " ON i.id = s.interval_id WHERE i.tid = 100 ORDER BY i.idx"), "0|1|0 1|0|0",
	       "stride: the load's first access counted apart");

	/* the estimates */
	is_str(q(db, "SELECT printf('%.6f|%.6f|%.6f|%d', value, ci_low, ci_high, n_bursts) FROM metric"
		 " WHERE metric = 'mix_mem_read' AND interval = 0"), "0.250000|0.000000|1.000000|2",
	       "metric mix_mem_read, interval 0: 3/12, CI 0.25 -/+ 12.7062 x 0.125 clamped to [0, 1]");
	is_str(q(db, "SELECT printf('%.6f|%.6f|%.6f', value, ci_low, ci_high) FROM metric"
		 " WHERE metric = 'mix_control' AND interval = 0"), "0.250000|0.000000|0.779425",
	       "metric mix_control, interval 0: CI 0.25 -/+ 12.7062 x 0.0416667, clamped at 0");
	is_str(q(db, "SELECT metric, printf('%.6f', value),"
		 " CASE WHEN ci_low IS NULL THEN 'no CI' ELSE 'CI' END FROM metric"
		 " WHERE metric IN ('reuse_censored', 'reuse_cold', 'reuse_bucket_0')"
		 " AND interval = 0 ORDER BY metric"),
	       "reuse_bucket_0|0.333333|no CI reuse_censored|0.666667|CI reuse_cold|0.000000|no CI",
	       "metric: censored 2/3 with a CI; cold 0, a lower bound, and bucket 0 (horizon 0) "
	       "without");
	is_str(q(db, "SELECT metric, estimable, n_bursts, U, W, level FROM metric_estimate"
		 " WHERE interval = 1 AND metric IN ('reuse_bucket_0', 'reuse_bucket_1') ORDER BY metric"),
	       "reuse_bucket_0|1|2|3.5|3.5|0.95 reuse_bucket_1|0|2|3.5|3.5|0.95",
	       "metric_estimate, interval 1: bucket 0 below the horizon 2 estimable, bucket 1 not; "
	       "U = 7/2, W = 7/2");
	is_str(q(db, "SELECT printf('%.6f|%.6f|%.6f|%.6f', se, half_width, rel_half_width, cv)"
		 " FROM metric_estimate WHERE metric = 'mix_mem_read' AND interval = 0"),
	       "0.125000|1.588275|6.353100|0.707107",
	       "metric_estimate: SE 0.125, half-width t(1) SE = 1.588275, relative 6.3531, V = sqrt(2) "
	       "0.125 / 0.25");
	{
		double r = 4.0 / 19, se = sqrt(558.0 / 361 / 12) / 4.75;
		char want[128];

		/* t(3) = 3.1824; the low end clamped at 0 */
		snprintf(want, sizeof(want), "4|%.6f|%.6f|%.6f", r, fmax(r - 3.1824 * se, 0),
			 r + 3.1824 * se);
		is_str(q(db, "SELECT printf('%d|%.6f|%.6f|%.6f', n_bursts, value, ci_low, ci_high)"
			 " FROM session_metric WHERE metric = 'mix_mem_read'"), want,
		       "session_metric mix_mem_read: four units pooled, R = 4/19, SE = "
		       "sqrt(558/361 / 12) / 4.75, CI R -/+ 3.1824 SE");
	}
	/* Every ratio metric of view metric has its sums, under the same
	 * name, and the view's value (from the summed counts) is exactly
	 * sum y / sum x. */
	is_str(q(db, "SELECT count(*) FROM metric_sums s WHERE NOT EXISTS (SELECT 1 FROM metric m"
		 " WHERE m.session_id = s.session_id AND m.tid = s.tid AND m.interval = s.idx"
		 " AND m.metric = s.metric)"), "0", "metric_sums: every name is one of view metric's");
	is_str(q(db, "SELECT count(*), count(DISTINCT m.metric) FROM metric m WHERE m.tid = 100"
		 " AND m.metric NOT LIKE '%footprint%' AND NOT EXISTS (SELECT 1 FROM metric_sums s WHERE s.session_id ="
		 " m.session_id AND s.tid = m.tid AND s.idx = m.interval AND s.metric = m.metric)"),
	       "0|0", "view metric: every ratio has its sums (the footprints have none)");
	is_str(q(db, "SELECT count(*), sum(abs(coalesce(m.value, -1) - coalesce(CAST(s.sum_y AS REAL)"
		 " / NULLIF(s.sum_x, 0), -1)) > 1e-12) FROM metric m JOIN metric_sums s"
		 " ON s.session_id = m.session_id AND s.tid = m.tid AND s.idx = m.interval"
		 " AND s.metric = m.metric"), "240|0",
	       "view metric's value is sum_y / sum_x for all 120 ratios of both intervals");
	is_str(q(db, "SELECT count(*) FROM metric WHERE interval = 0 AND metric LIKE 'ilp_%'"
		 " AND value IS NULL AND ci_low IS NULL AND n_bursts = 2"), "4",
	       "ILP: units of 7 and 5 instructions fill no window: no cycle, no value, no CI");
	is_str(q(db, "SELECT count(*) FROM metric WHERE metric = 'data_footprint_bytes'"
		 " AND ci_low IS NULL AND n_bursts = 2"), "2",
	       "footprints: no CI (a lower bound, not a ratio), n_bursts still there");

	/* the scheduling model and MGSim: rows of the same intervals, the
	 * measured units' instructions only */
	is_str(q(db, "SELECT tid, idx FROM sched_interval ORDER BY tid, idx"), "100|0 100|1 102|1",
	       "sched_interval rows of the same intervals");
	is_str(q(db, "SELECT tid, interval, n_exec_insns FROM mgsim_delta ORDER BY tid, interval"),
	       "100|0|12 100|1|7 102|1|0",
	       "MGSim: executed instructions of the units (warm-ups, aborted bursts left out)");

	/* the profile */
	is_str(q(db, "SELECT count(*), sum(depth = 0), max(depth) FROM profile_stack"), "10|4|3",
	       "profile_stack: 10 nodes, 4 roots (main at 4 call sites), hot at depth 3");
	is_str(q(db, "SELECT count(*), count(symbol) FROM profile_frame"), "9|8",
	       "profile_frame: one per (module, symbol, offset); libc's has no symbol");
	is_str(q(db, "SELECT tid, idx, samples, lost FROM profile_interval ORDER BY tid, idx"),
	       "100|0|8|9 100|1|1|2 101|0|0|3 101|1|1|0",
	       "profile_interval: the late sample and the late 4 lost added to interval 0; thread "
	       "101's 3 lost in an interval without a sample");
	is_str(q(db, "SELECT count, weight FROM profile_sample s JOIN hot_stacks h"
		 " ON h.stack_id = s.stack_id WHERE h.stack = 'main;f;f;hot'"), "3|6000000",
	       "profile_sample: 3 samples of main;f;f;hot weighing 1 + 2 + 3 ms");
	is_str(q(db, "SELECT stack, samples, printf('%.2f', share) FROM hot_stacks"
		 " ORDER BY samples DESC, stack"),
	       "main;f;f;hot|3|0.30 main|2|0.20 main;f|2|0.20 main;hot|2|0.20 "
	       "main;[unknown] /lib/libc.so.6|1|0.10",
	       "hot_stacks: stacks outermost first, samples and shares");
	is_str(q(db, "SELECT coalesce(symbol, module), self_samples, total_samples,"
		 " printf('%.2f|%.2f', self_share, total_share) FROM hot_functions"
		 " ORDER BY total_samples DESC, symbol"),
	       "main|2|10|0.20|1.00 f|2|5|0.20|0.50 hot|5|5|0.50|0.50 /lib/libc.so.6|1|1|0.10|0.10",
	       "hot_functions: f recursive counts each sample once in total (5, not 8)");
	ok(near(atof(q(db, "SELECT total_share FROM hot_functions WHERE symbol = 'f'")), 0.5, 1e-12),
	   "hot_functions: f's total share exactly 5/10");
	/* A session's rows are reached through indexes, never by reading a
	 * whole table (the views must stay usable on a large database): the
	 * only scans are of the views' own subqueries and CTEs. */
	static const char *const plans[] = {
		"hot_functions WHERE session_id = 1", "hot_stacks WHERE session_id = 1",
		"metric WHERE session_id = 1 AND tid = 100 AND interval = 0",
		"metric_estimate WHERE session_id = 1", "session_metric WHERE session_id = 1",
	};
	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++)
		plan_uses_indexes(db, plans[i]);
	ok(strstr(q(db, "EXPLAIN QUERY PLAN SELECT * FROM hot_functions WHERE session_id = 1"),
		  "(session_id=? AND stack_id=?)") != NULL,
	   "hot_functions: a stack's samples by the (session_id, stack_id) index");
	sqlite3_close(db);
	if (argc > 1) {
		rmdir(dir);
		return done_testing();
	}
	unlink(dbf);
	snprintf(aux, sizeof(aux), "%s-wal", dbf);
	unlink(aux);
	snprintf(aux, sizeof(aux), "%s-shm", dbf);
	unlink(aux);
	rmdir(dir);
	return done_testing();
}
