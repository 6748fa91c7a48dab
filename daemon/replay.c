/*
 * micad replay: run the MICA analyses over a recorded trace, without
 * tracing again.  Reads the text notation of mica.md §1.6 (trace_text.h)
 * or micad's binary trace format (tracefile.h), and writes MICA's output
 * files with --mica-out.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "decoder.h"
#include "mica_files.h"
#include "mica_output.h"
#include "mica_run.h"
#include "trace_text.h"
#include "tracefile.h"
#include "util.h"

struct replay_thread {
	uint32_t tid;
	struct mica_run *run;
	struct mica_output *out;
	uint64_t intervals;
	uint64_t e, h;
};

struct replay {
	struct mica_config cfg;
	const struct mica_names *names;
	const char *out_dir;
	long pid;
	struct replay_thread *threads;
	size_t n_threads;
	bool failed;
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: micad replay [OPTIONS] TRACE\n"
		"\n"
		"Run the MICA analyses of a configuration over a recorded trace: micad's\n"
		"binary trace (micad run --record) or the text notation of the MICA\n"
		"reference (one instruction per line: pc=0x400000 sz=3 r=1 w=2 mr=0x1000:8 ...).\n"
		"\n"
		"Options:\n"
		"  -c, --config FILE   mica.conf to use (default: ./mica.conf)\n"
		"      --mica-out DIR  write MICA's output files into DIR\n"
		"      --interval N    override interval_size (a number, or 'full')\n"
		"      --pid N         the pid in file names with append_pid (default: micad's)\n"
		"  -q, --quiet         no summary on stdout\n"
		"  -h, --help          this help\n");
}

static const char *
decoded_category(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return insn_category_name(ii);
}

static const char *
decoded_iclass(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return insn_iclass_name(ii);
}

static const struct mica_names decoded_names = { decoded_category, decoded_iclass, NULL };

static int
on_interval(void *arg, const struct mica_interval *iv)
{
	struct replay *rp = arg;
	struct replay_thread *t = NULL;

	for (size_t i = 0; i < rp->n_threads; i++)
		if (rp->threads[i].tid == iv->tid)
			t = &rp->threads[i];
	if (!t)
		return -1;
	t->intervals++;
	if (mica_output_add(t->out, iv) < 0) {
		error_msg("out of memory formatting the MICA output");
		return -1;
	}
	if (rp->out_dir && mica_files_flush(t->out, rp->out_dir) < 0)
		return -1;
	if (!rp->out_dir)
		mica_output_clear(t->out);
	return 0;
}

/* The run of thread tid, created at its first event.  MICA is single-
 * threaded: the first thread's files get MICA's names, later threads' files
 * carry their tid where append_pid puts the pid. */
static struct replay_thread *
thread_get(struct replay *rp, uint32_t tid)
{
	char err[256];
	struct replay_thread *t;

	for (size_t i = 0; i < rp->n_threads; i++)
		if (rp->threads[i].tid == tid)
			return &rp->threads[i];
	rp->threads = xreallocarray(rp->threads, rp->n_threads + 1, sizeof(*rp->threads));
	t = &rp->threads[rp->n_threads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	if (rp->pid < 0)
		rp->pid = (long)getpid();
	if (rp->n_threads == 0) {
		t->out = mica_output_new(&rp->cfg, rp->pid);
	} else {
		struct mica_config c = rp->cfg;

		c.append_pid = true;
		t->out = mica_output_new(&c, (long)tid);
	}
	if (!t->out)
		error_msg_and_die("out of memory");
	t->run = mica_run_new(&rp->cfg, rp->names, tid, on_interval, rp, err, sizeof(err));
	if (!t->run)
		error_msg_and_die("%s", err);
	rp->n_threads++;
	if (rp->out_dir && mica_files_begin(t->out, rp->out_dir) < 0)
		rp->failed = true;
	return t;
}

static int
feed(struct replay *rp, const struct insn_event *ev)
{
	struct replay_thread *t = thread_get(rp, ev->tid);

	if (rp->failed || mica_run_event(t->run, ev) < 0) {
		rp->failed = true;
		return -1;
	}
	return 0;
}

/* Keep the totals, free the runs (before their instructions go). */
static void
release_runs(struct replay *rp)
{
	for (size_t i = 0; i < rp->n_threads; i++) {
		struct replay_thread *t = &rp->threads[i];

		t->e = mica_run_total_ins(t->run);
		t->h = mica_run_total_ins_aligned(t->run);
		mica_run_free(t->run);
		t->run = NULL;
	}
}

static int
replay_text(struct replay *rp, const char *path)
{
	char err[512];
	size_t len, pos = 0;
	unsigned line = 0;
	char *buf = mica_read_file(path, &len);
	struct trace_text *tt;
	struct insn_event ev;
	int r;

	if (!buf)
		return -1;
	if (!(tt = trace_text_new()))
		error_msg_and_die("out of memory");
	rp->names = trace_text_names(tt);
	while ((r = trace_text_next(tt, buf, len, &pos, &line, &ev, err, sizeof(err))) > 0)
		if (feed(rp, &ev) < 0)
			break;
	if (r < 0)
		error_msg("%s:%s", path, err);
	if (r == 0 && !rp->failed) {
		if (rp->n_threads == 0)
			thread_get(rp, 0);
		for (size_t i = 0; i < rp->n_threads; i++)
			if (mica_run_finish(rp->threads[i].run) < 0)
				rp->failed = true;
	}
	release_runs(rp);
	trace_text_free(tt);
	free(buf);
	return r < 0 || rp->failed ? -1 : 0;
}

static int
replay_binary(struct replay *rp, const char *path)
{
	char err[512];
	struct tracefile_reader *tr = tracefile_open(path, err, sizeof(err));
	struct tracefile_item it;
	int r;

	if (!tr) {
		error_msg("%s: %s", path, err);
		return -1;
	}
	rp->names = &decoded_names;
	while ((r = tracefile_next(tr, &it, err, sizeof(err))) > 0) {
		if (it.kind == TF_THREAD) {
			if (it.thread.kind == TT_START && rp->n_threads == 0 && rp->pid < 0)
				rp->pid = it.thread.pid;
			continue;
		}
		if (it.kind == TF_EVENT && feed(rp, &it.ev) < 0)
			break;
	}
	if (r < 0)
		error_msg("%s: %s", path, err);
	if (r == 0 && !rp->failed)
		for (size_t i = 0; i < rp->n_threads; i++)
			if (mica_run_finish(rp->threads[i].run) < 0)
				rp->failed = true;
	release_runs(rp);
	tracefile_close_reader(tr);
	return r < 0 || rp->failed ? -1 : 0;
}

int
cmd_replay(int argc, char **argv)
{
	enum { OPT_MICA_OUT = 256, OPT_INTERVAL, OPT_PID };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "mica-out", required_argument, NULL, OPT_MICA_OUT },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct replay rp = { .pid = -1 };
	const char *config = NULL, *interval = NULL;
	bool quiet = false;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "c:qh", longopts, NULL)) != -1) {
		unsigned long long v;

		switch (c) {
		case 'c':
			config = optarg;
			break;
		case OPT_MICA_OUT:
			rp.out_dir = optarg;
			break;
		case OPT_INTERVAL:
			interval = optarg;
			break;
		case OPT_PID:
			if (parse_u64(optarg, &v) < 0 || v > INT32_MAX) {
				error_msg("--pid: '%s' is not a process id", optarg);
				return 2;
			}
			rp.pid = (long)v;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		error_msg(optind == argc ? "replay: no trace file given" : "replay: one trace file only");
		usage(stderr);
		return 2;
	}
	if (!config) {
		if (access("mica.conf", F_OK) != 0) {
			error_msg("replay: no mica.conf in the current directory: pass one with -c FILE");
			return 1;
		}
		config = "mica.conf";
	}
	if (mica_config_load(&rp.cfg, config) < 0)
		return 1;
	if (interval) {
		unsigned long long v;
		char err[256];

		if (strcmp(interval, "full") == 0) {
			rp.cfg.interval_size = MICA_FULL;
		} else if (parse_u64(interval, &v) == 0 && v > 0 && v <= INT64_MAX) {
			rp.cfg.interval_size = (int64_t)v;
		} else {
			error_msg("--interval: '%s' is neither 'full' nor a positive number", interval);
			goto out;
		}
		if (mica_config_check(&rp.cfg, "--interval", 0, err, sizeof(err)) < 0) {
			error_msg("%s", err);
			goto out;
		}
	}
	if (tracefile_is_binary(argv[optind])) {
		/* append_pid names: the traced process's pid, from the trace */
		if (replay_binary(&rp, argv[optind]) < 0)
			goto out;
	} else {
		if (replay_text(&rp, argv[optind]) < 0)
			goto out;
	}
	if (!quiet) {
		for (size_t i = 0; i < rp.n_threads; i++)
			printf("tid %" PRIu32 ": %" PRIu64 " instructions (E), %" PRIu64
			       " aligned (H), %" PRIu64 " interval%s\n", rp.threads[i].tid,
			       rp.threads[i].e, rp.threads[i].h, rp.threads[i].intervals,
			       rp.threads[i].intervals == 1 ? "" : "s");
	}
	ret = 0;
out:
	for (size_t i = 0; i < rp.n_threads; i++) {
		mica_run_free(rp.threads[i].run);
		mica_output_free(rp.threads[i].out);
	}
	free(rp.threads);
	mica_config_free(&rp.cfg);
	return ret;
}
