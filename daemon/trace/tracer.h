/*
 * The step-mode tracer: every instruction of every thread of a traced
 * process, one struct insn_event per dynamic execution (event.h), pushed
 * into an SPSC ring (ring.h) for the analysis thread.
 *
 * ptrace is used the strace way: PTRACE_SEIZE with TRACECLONE, TRACEEXEC,
 * TRACESYSGOOD (and TRACEFORK/TRACEVFORK to follow forks, EXITKILL for
 * processes micad launched), one waitpid(-1, __WALL) loop, and one
 * PTRACE_GETREGS per step; a step is int3 leapfrog (enum tracer_step_mode)
 * where it can be, else PTRACE_SINGLESTEP.  Instruction bytes are read
 * only when the decode cache misses.  Signals are delivered
 * unchanged, group-stops go through PTRACE_LISTEN, and a detach (SIGINT or
 * SIGTERM to micad) leaves every thread running as if nothing happened.
 *
 * Besides events the ring carries thread records (struct trace_thread_rec)
 * so the consumer knows when a thread starts, execs and ends.
 */
#ifndef MICAD_TRACER_H
#define MICAD_TRACER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "event.h"
#include "trace/ring.h"
#include "trace/sample_options.h"

/* Ring record types. */
enum trace_rec_type {
	TREC_EVENT = 1,		/* struct insn_event, insn_event_size() bytes */
	TREC_THREAD = 2,	/* struct trace_thread_rec */
	/* Only with tracer_options.publish (a consumer in another process,
	 * which cannot follow the events' info pointers): */
	TREC_INSN = 3,		/* struct trace_insn_rec */
	TREC_EXE = 4,		/* struct trace_exe_rec */
	/* Sample mode (issue 18): the producer samples (perf_event), resolves
	 * each stack to strings itself (it may read the target's files; the
	 * consumer, the daemon's writer, must not), and steps bursts. */
	TREC_STRING = 5,	/* struct trace_string_rec */
	TREC_SAMPLE = 6,	/* struct trace_sample_rec */
	TREC_BURST = 7,		/* struct trace_burst_rec */
	TREC_NOTE = 8,		/* struct trace_note_rec */
	TREC_LOST = 9,		/* struct trace_lost_rec */
	/* The valgrind engine (vg_engine.h): events one after another, each
	 * insn_event_size() bytes rounded up to 8: one ring record for many
	 * TREC_EVENT records at its rates. */
	TREC_EVENTS = 16,
};

/*
 * An instruction the tracer decoded, before the first event that points
 * at it: the consumer decodes the bytes again and gives events whose
 * info is key its own record.  A key names the latest record sent with
 * it (the tracer's memory may be reused after an exec).
 */
struct trace_insn_rec {
	uint64_t key;		/* the tracer's struct insn_info address */
	uint64_t pc;
	uint8_t len;
	uint8_t bytes[INSN_MAX_BYTES];
};

/* A string of the profile (a module's path, a demangled symbol), before
 * the first sample that names it; id > 0, never reused in a session. */
struct trace_string_rec {
	uint32_t id;
	char text[];		/* NUL-terminated */
};

/* One frame of a sample's stack: module and symbol are string ids (0: not
 * known), offset from the symbol's start (from the module's load base
 * when there is no symbol), and the virtual address itself. */
struct trace_frame {
	uint32_t module, symbol;
	uint64_t offset;
	uint64_t address;
};

enum trace_sample_flags {
	TSAMPLE_TRUNCATED = 1,	/* the unwinder stopped early: more frames were there */
	TSAMPLE_HAS_ADDR = 2,	/* addr is the data address (PEBS, IBS) */
	TSAMPLE_HAS_LATENCY = 4,
	TSAMPLE_HAS_DATA_SRC = 8,	/* data_src is a union perf_mem_data_src */
};

/* A profile sample with its stack, innermost frame first. */
struct trace_sample_rec {
	uint64_t time_ns;	/* CLOCK_MONOTONIC of the sample */
	int32_t pid, tid;
	uint64_t weight;	/* the event's period: ns of cpu-clock, or events */
	uint64_t addr;
	uint64_t data_src;
	uint32_t latency;	/* cycles */
	uint16_t flags;		/* enum trace_sample_flags */
	uint16_t n_frames;
	struct trace_frame frames[];
};

/*
 * Burst markers of sample mode: a thread's events between BURST_WARMUP and
 * BURST_MEASURE warm the analyzers' state and are not counted; those
 * between BURST_MEASURE and BURST_END are the burst's measured unit.  A
 * burst cut short (the thread exited, a signal stop that cannot wait)
 * ends with BURST_ABORT instead, and its unit is not used.
 */
enum trace_burst_kind { BURST_WARMUP = 1, BURST_MEASURE = 2, BURST_END = 3, BURST_ABORT = 4 };

struct trace_burst_rec {
	uint32_t kind;		/* enum trace_burst_kind */
	int32_t pid, tid;
	uint32_t reserved;
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
};

/* What sampling is in effect and why, said once before the first sample
 * (the session record's engine, sample_event, sample_note, weighting). */
struct trace_note_rec {
	uint32_t weighting;	/* 1: instructions, 2: time */
	char event[64];		/* NUL-terminated: 'cpu-clock', 'INST_RETIRED:ANY_P', ... */
	char note[];		/* NUL-terminated */
};

/*
 * Samples the kernel dropped (PERF_RECORD_LOST: the thread's sample buffer
 * was full; PERF_RECORD_LOST_SAMPLES: the PMU lost them), for the profile's
 * profile_interval.lost of that thread and of the interval of time_ns: the
 * kernel's time of the record (sample_id_all), which comes after the lost
 * samples, or else that of the thread's last sample before it.  lost > 0.
 * Throttling (PERF_RECORD_THROTTLE) has no count and sends none: the rate
 * chart shows it as fewer samples.
 */
struct trace_lost_rec {
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
	int32_t pid, tid;
	uint64_t lost;
};

/* A process's executable, read by the tracer when the process starts and
 * when it execs (before that thread record): the path, NUL-terminated,
 * follows pid in the record. */
struct trace_exe_rec {
	int32_t pid;
	char path[];
};

enum trace_thread_kind {
	TT_START = 1,		/* first record of a thread (before its events) */
	TT_EXEC = 2,		/* the process of this thread exec'd a new image */
	TT_EXIT = 3,		/* last record of a thread */
	TT_DETACH = 4,		/* micad stopped tracing it; it keeps running */
};

struct trace_thread_rec {
	uint32_t kind;		/* enum trace_thread_kind */
	int32_t pid;		/* thread group (process) id */
	int32_t tid;
	int32_t parent;		/* TT_START: the tid that created it, 0 if none */
	int32_t status;		/* TT_EXIT: wait status (WIFEXITED / WIFSIGNALED) */
	uint32_t reserved;
};

/*
 * How a thread is moved one instruction on (struct tracer_options.step).
 *  - STEP_TF: PTRACE_SINGLESTEP (the trap flag; a #DB debug exception per
 *    instruction, which KVM intercepts: slow in VMs).
 *  - STEP_LEAPFROG: an int3 on the instruction's successor, PTRACE_CONT,
 *    and at the breakpoint the byte restored and RIP rewound.  The
 *    successor is computed from the decoded instruction and the registers
 *    (the branch outcome from the flags, a ret's or jmp [m]'s target read
 *    from memory).  Single-step (TF) is kept for what leapfrog cannot do
 *    exactly: syscalls, REP string instructions, interrupts, far
 *    transfers, an instruction whose successor is itself or whose memory
 *    accesses touch the breakpoint byte, signal injection, and processes
 *    with more than one thread (another thread could run into the int3).
 *    The events are the same either way.
 */
enum tracer_step_mode {
	STEP_TF = 0,
	STEP_LEAPFROG = 1,
};

/*
 * How the instructions are seen (struct tracer_options.engine): by ptrace
 * (step mode, above), or by the valgrind engine (vg_engine.h: micad's
 * valgrind tool runs the program; launch only), behind the same calls.
 */
enum trace_engine {
	ENGINE_PTRACE = 0,
	ENGINE_VALGRIND = 1,
};

struct tracer_stats;

/* A TREC_THREAD record into ring (every producer's: the tracer, the
 * valgrind engine). */
void trace_push_thread_rec(struct ring *ring, enum trace_thread_kind kind, pid_t pid, pid_t tid,
			   pid_t parent, int status);

/*
 * How to start a launched program when it is not micad's own child
 * environment (the daemon's 'run' starts it as the client asked): the
 * credentials, working directory, environment and standard fds to give it.
 */
struct tracer_launch_env {
	bool set_ids;		/* setgroups/setgid/setuid before exec */
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	int ngroups;
	int cwd_fd;		/* fchdir() to it; -1: stay */
	/* The client's resource limits (RLIMIT_*), set before exec when
	 * have_rlimits: the program gets what it would have got had the
	 * client started it itself. */
	bool have_rlimits;
	struct rlimit rlimits[RLIM_NLIMITS];
	int umask;		/* the program's umask; -1: keep */
	int stdio[3];		/* dup2() onto 0, 1, 2; -1: keep */
	char **envp;		/* NULL: micad's own environment */
};

/*
 * For a launcher of its own (the valgrind engine, vg_engine.h): in the
 * child, before its exec, undo what micad changed for itself and apply
 * launch (NULL: micad's own environment); LAUNCH_OK, or the stage that
 * failed with errno set.  In the parent, tracer_launch_failed() says why
 * ({stage, errno}) the child could not become prog.
 */
enum launch_stage { LAUNCH_OK, LAUNCH_EXEC, LAUNCH_STDIO, LAUNCH_CWD, LAUNCH_IDS, LAUNCH_LIMITS };
int tracer_launch_prepare(const struct tracer_launch_env *launch);
void tracer_launch_failed(const int fail[2], const char *prog);

struct tracer_options {
	bool follow_forks;
	int step;		/* enum tracer_step_mode */
	bool pin;		/* tracer and traced threads on one CPU */
	bool quiet;		/* no progress line */
	int pin_cpu;		/* CPU to pin to; -1: the one micad runs on */
	const struct tracer_launch_env *launch;	/* NULL: micad's own */
	/* Progress: when set, called about once a second while tracing and
	 * once at the end (final), instead of the progress line. */
	void (*progress)(void *arg, const struct tracer_stats *st, bool final);
	void *progress_arg;
	/* When set, the instruction count is stored there at every step
	 * (relaxed), for a live view in another process. */
	_Atomic uint64_t *live_steps;
	/* Called once the program is launched or attached (NULL: not). */
	void (*started)(void *arg, pid_t pid);
	void *started_arg;
	/* Push TREC_INSN and TREC_EXE records for a consumer in another
	 * process (ring_new_shared()). */
	bool publish;
	int engine;		/* enum trace_engine */
	/* attach: a pidfd of the process the client named, taken when it
	 * asked (-1: none).  Once seized, the pid must still be that process
	 * (not a new one that reused its number), or nothing is traced. */
	int target_pidfd;
	/*
	 * Sample mode (sample.enabled): the threads run freely under
	 * PTRACE_SEIZE, a perf event samples each one (sampler.h: TREC_NOTE,
	 * TREC_STRING, TREC_SAMPLE, TREC_LOST records), and at samples the budget
	 * chooses, a thread is interrupted and stepped for a burst (W
	 * warm-up and U measured instructions between TREC_BURST markers,
	 * the same TREC_EVENTs as step mode), then let go.  The event's note
	 * is micad's first line on stderr.  Bursts in an attached process
	 * step with the trap flag (never a planted int3).
	 */
	struct sample_options sample;
};

struct tracer;

struct tracer *tracer_new(const struct tracer_options *opt, struct ring *ring);
void tracer_free(struct tracer *t);

/* The CPU the tracer and its tracees are pinned to, or -1. */
int tracer_cpu(const struct tracer *t);

/*
 * Sample mode: choose the event now and say which, and why, as micad's
 * first line on stderr (and the first ring record), before anything else
 * of the session speaks.  0, or -1 after reporting why the event cannot be
 * used.  tracer_launch() and tracer_attach() call it when it was not.
 */
int tracer_prepare(struct tracer *t);

/*
 * Start argv[0] (searched in PATH) with argv, traced from its first
 * instruction after execve.  Returns 0, or -1 after reporting why the
 * program could not be started (the caller exits 127).
 */
int tracer_launch(struct tracer *t, char *const argv[]);

/*
 * Seize every thread of pid.  Returns 0, or -errno after reporting the
 * cause (for EPERM: already traced by another pid, owned by another user,
 * yama ptrace_scope, or no CAP_SYS_PTRACE).
 */
int tracer_attach(struct tracer *t, pid_t pid);

/*
 * Trace until every traced thread is gone, or until tracer_request_detach()
 * (async-signal-safe) is called, in which case every thread is detached and
 * keeps running.  Closes the ring.  Returns 0, or -1 on an internal error
 * (threads are detached or killed, never left stopped).
 */
int tracer_loop(struct tracer *t);
void tracer_request_detach(void);

/*
 * Send sig to the launched or attached process through its pidfd (so
 * never to a process that reused its number), async-signal-safe; 0 or
 * -errno.  Before the process is started: -ESRCH.
 */
int tracer_signal_main(int sig);

/* After the loop: the wait status of the launched or attached process's
 * leader, and whether it ended while traced (else it was detached). */
/* The pid of the launched or attached process. */
pid_t tracer_main_pid(const struct tracer *t);

bool tracer_main_status(const struct tracer *t, int *status);

struct tracer_stats {
	uint64_t steps;		/* events pushed */
	uint64_t stops;		/* waitpid stops handled */
	uint64_t decode_misses;
	uint64_t signals;	/* signals delivered to the tracees */
	uint64_t leap_steps;	/* resumes by int3 + PTRACE_CONT (the rest: TF) */
	double seconds;		/* wall time of the loop */
	/* Spans a thread ran untraced: the program's own SIGTRAP handler
	 * (stepping in it would reset the handler). */
	uint64_t untraced_spans;
	/* Sample mode. */
	uint64_t samples;	/* TREC_SAMPLE records */
	uint64_t samples_lost;	/* dropped by the kernel (buffer full) */
	uint64_t bursts;	/* ended with BURST_END */
	uint64_t bursts_aborted;	/* ended with BURST_ABORT */
	double stopped_seconds;	/* wall time threads were held for bursts */
	/* The valgrind engine: CPU time (user + system) of valgrind with
	 * micad's tool and the program, once it has been reaped; else 0. */
	double tool_cpu_seconds;
};
void tracer_get_stats(const struct tracer *t, struct tracer_stats *st);

#endif /* MICAD_TRACER_H */
