/*
 * The compact binary trace format written by 'micad run/attach --record'
 * and read by 'micad replay'.
 *
 * Layout (all integers LEB128 varints, signed ones zigzag-encoded):
 *   header   "MICADTRC" (8 bytes), version (u32 LE, = 3), flags (u32 LE, = 0)
 *   records, each starting with a tag byte:
 *     'I' insn:   pc, len (1 byte), the raw bytes.  Static instructions are
 *                 numbered 0, 1, 2... in the order they appear; each one is
 *                 written once, before its first event.  A reader re-decodes
 *                 the bytes with insn_decode() (decoder.h).
 *     'T' thread: kind (enum trace_thread_kind), pid, tid, parent, status.
 *     'E' event:  static id, flags (see below), then
 *                 [tid, signed delta from the previous event's tid]
 *                 [rep_count]            if EV_REP
 *                 [next_pc - (pc + len), signed] unless the instruction fell
 *                                        through
 *                 with EV_SYSCALL: the call's number and its 6 arguments
 *                 (struct ev_syscall), and nothing more (n_mem is 0);
 *                 else n_mem, then per access: address (signed delta from
 *                 the previous access in the file), size, dir | flags << 2.
 *     The flags varint holds the event's flags (enum event_flags) in bits
 *     0..13, bit 14 = "next_pc follows", bit 15 = "tid follows".
 *   trailer  'Z', the number of records before it (varint), then the
 *            64-bit FNV-1a hash of every byte of the file up to and
 *            including the 'Z' (8 bytes LE); nothing follows.
 *
 * Version 3 added the trailer: a recording that stopped early (micad
 * killed, the disk full) is told from a complete one ("truncated at record
 * N"), and a changed byte from the original (checksum mismatch).  Version
 * 2 added the system calls (EV_SYSCALL).  Versions 1 and 2 are still read
 * (without a trailer, their end is the file's); version 1 events have no
 * system calls (so MGSim's counter 12, which needs them, is 0 for them, as
 * it was when they were recorded).
 *
 * Reading yields, in the recorded order, the thread records and the
 * events exactly as the tracer produced them (same struct insn_event
 * contents, with info pointing at the re-decoded instruction), so replay
 * gives the same results as the live run.
 *
 * For 'micad replay' (the MICA side): open with tracefile_open(), loop on
 * tracefile_next() and feed items to trace_analysis_feed_thread() /
 * _feed_event() (trace_analysis.h), or straight to the per-thread drivers.
 */
#ifndef MICAD_TRACEFILE_H
#define MICAD_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "event.h"
#include "session/trace_analysis.h"
#include "trace/tracer.h"

#define TRACEFILE_MAGIC "MICADTRC"
#define TRACEFILE_VERSION 3

struct tracefile_writer;

/* Create path; NULL after reporting why not. */
struct tracefile_writer *tracefile_create(const char *path);
/* A consumer (trace_analysis.h) writing every record it sees. */
struct trace_consumer tracefile_consumer(struct tracefile_writer *w);
/* Flush and close; -1 after reporting a write error. */
int tracefile_close(struct tracefile_writer *w);

struct tracefile_reader;

enum tracefile_item_kind {
	TF_END = 0,
	TF_EVENT = 1,
	TF_THREAD = 2,
};

struct tracefile_item {
	enum tracefile_item_kind kind;
	struct insn_event ev;		/* TF_EVENT; ev.info valid until the reader is closed */
	struct trace_thread_rec thread;	/* TF_THREAD */
};

/* Does the file start with the binary trace magic? */
bool tracefile_is_binary(const char *path);

/* Open; NULL with the reason in err. */
struct tracefile_reader *tracefile_open(const char *path, char *err, size_t errsz);
/* The same from an open stream (closed with the reader, or here on
 * failure); path names it in messages. */
struct tracefile_reader *tracefile_open_stream(FILE *f, const char *path, char *err,
					       size_t errsz);
/* The next item: 1, 0 at the end, -1 with the reason in err (corrupt or
 * truncated file, read error: "truncated at record N ..."; records are
 * numbered from 0, instruction records included). */
int tracefile_next(struct tracefile_reader *r, struct tracefile_item *it, char *err, size_t errsz);
void tracefile_close_reader(struct tracefile_reader *r);

#endif /* MICAD_TRACEFILE_H */
