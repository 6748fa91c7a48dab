/*
 * The valgrind engine: every instruction of a program micad launches,
 * seen by micad's valgrind tool (vgtool/micadvg.c) instead of ptrace, and
 * turned into the same ring records the step-mode tracer produces
 * (tracer.h: TREC_THREAD, TREC_EVENT, and TREC_INSN / TREC_EXE, which it
 * always publishes), so the analyses and their results are those of step
 * mode at instrumentation speed.
 *
 * The engine starts valgrind with the tool on the program, listens on a
 * Unix socket in a private directory for the tool of each process
 * (launched, forked when following forks, exec'd), answers the tool's
 * questions about new instructions (their decoding and what each record
 * must carry: vgtool/vg_proto.h), and decodes each record into an event
 * with the decoder step mode uses (decoder.h insn_eval).  It is reached
 * through the tracer's calls (tracer_options.engine = ENGINE_VALGRIND);
 * valgrind cannot attach to a running process.
 */
#ifndef MICAD_VG_ENGINE_H
#define MICAD_VG_ENGINE_H

#include <stdbool.h>
#include <sys/types.h>

#include "trace/ring.h"
#include "trace/tracer.h"

struct vg_engine;

/* 0 if the engine can run here; else -1 after saying why (not built,
 * the tool not installed, valgrind missing) and what to install. */
int vg_engine_available(void);

struct vg_engine *vg_engine_new(const struct tracer_options *opt, struct ring *ring);
void vg_engine_free(struct vg_engine *e);

/* Start argv[0] (searched in the launch environment's PATH) under
 * valgrind, and return once its tool records: 0, or -1 after reporting why
 * it could not start (the caller exits 127). */
int vg_engine_launch(struct vg_engine *e, char *const argv[]);

/* Turn records into events until every recorded process has ended, or
 * until vg_engine_request_detach() (async-signal-safe): then micad stops
 * reading, and the programs run on under valgrind without recording.
 * Closes the ring.  0, or -1 on an internal error. */
int vg_engine_loop(struct vg_engine *e);
void vg_engine_request_detach(void);

pid_t vg_engine_main_pid(const struct vg_engine *e);
/* A pidfd of the launched process (tracer_signal_main()), or -1. */
int vg_engine_main_pidfd(const struct vg_engine *e);
bool vg_engine_main_status(const struct vg_engine *e, int *status);
/* steps: events; decode_misses: instructions decoded; stops: records the
 * tool sent that could not be turned into events (a bug if nonzero). */
void vg_engine_get_stats(const struct vg_engine *e, struct tracer_stats *st);

#endif /* MICAD_VG_ENGINE_H */
