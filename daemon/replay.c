/*
 * micad replay: run the MICA analyses over a recorded trace, without
 * tracing again.  Reads the text notation of mica.md §1.6 (trace_text.h)
 * or micad's binary trace format (tracefile.h), and writes MICA's output
 * files with --mica-out and a session into the results database.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "decoder.h"
#include "mica/mica_output.h"
#include "mica/mica_run.h"
#include "mica/trace_text.h"
#include "mica_files.h"
#include "store/store_json.h"
#include "store/store_writer.h"
#include "store/tracefile.h"
#include "util.h"

struct replay_thread {
	uint32_t tid;
	struct mica_run *run;
	struct mica_output *out;
	uint64_t intervals;
	uint64_t e, h;
	double interval_start;	/* wall clock, Unix seconds */
};

/* A thread's process, from a binary trace's thread records. */
struct replay_tid {
	int32_t tid, pid;
};

struct replay {
	struct mica_config cfg;
	const struct mica_names *names;
	const char *out_dir;
	uint64_t des;		/* DEs analyzed, for mica_progress() */
	long pid;
	struct replay_thread *threads;
	size_t n_threads;
	bool failed;
	struct store_writer *db;	/* NULL: --no-db */
	int64_t session;
	bool files_failed;	/* the MICA files stopped; the database goes on */
	char why[512];		/* the failure's reason, for the session row */
	struct replay_tid *tids;
	size_t n_tids;
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
		"      --pid N         the pid in file names with append_pid (default: the\n"
		"                      traced process's for a binary trace, else micad's)\n"
		"      --db FILE       the results database (default: $XDG_DATA_HOME/micad/\n"
		"                      results.db or ~/.local/share/micad/results.db)\n"
		"      --no-db         do not write the results database\n"
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

static int32_t
pid_of_tid(const struct replay *rp, int32_t tid)
{
	for (size_t i = 0; i < rp->n_tids; i++)
		if (rp->tids[i].tid == tid)
			return rp->tids[i].pid;
	return 0;
}

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
	/* A failing consumer does not take the other down: the files stop
	 * (said once), the database goes on. */
	if (rp->out_dir && !rp->files_failed) {
		if (mica_files_flush(t->out, rp->out_dir) < 0) {
			rp->files_failed = true;
			error_msg("MICA files in %s: not written from interval %llu of thread %u "
				  "on%s", rp->out_dir, (unsigned long long)iv->index,
				  (unsigned)iv->tid, rp->db ? " (the database keeps every interval)"
				  : "");
		}
	} else {
		mica_output_clear(t->out);
	}
	if (rp->db) {
		double now = store_wall_clock();

		if (store_writer_interval(rp->db, rp->session, iv, &rp->cfg, t->interval_start,
					  now) < 0) {
			error_msg("the results database writer has stopped");
			return -1;
		}
		t->interval_start = now;
	}
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
	t->interval_start = store_wall_clock();
	if (rp->db) {
		int32_t pid = pid_of_tid(rp, (int32_t)tid);
		struct store_thread row = {
			.session = rp->session, .tid = tid, .pid = pid ? pid : rp->pid,
			.files_pid = rp->n_threads == 0 ? rp->pid : (long)tid,
			.files_pid_always = rp->n_threads > 0, .started_at = t->interval_start,
		};

		if (store_writer_thread(rp->db, &row) < 0)
			rp->failed = true;
	}
	rp->n_threads++;
	if (rp->out_dir && !rp->files_failed && mica_files_begin(t->out, rp->out_dir) < 0) {
		rp->files_failed = true;
		error_msg("MICA files in %s: not written%s", rp->out_dir,
			  rp->db ? " (the database keeps every interval)" : "");
	}
	return t;
}

static int
feed(struct replay *rp, const struct insn_event *ev)
{
	struct replay_thread *t = thread_get(rp, ev->tid);

	if (!t->run && !rp->failed) {
		error_msg("events of thread %u after its end (a reused thread id): not supported",
			  (unsigned)ev->tid);
		rp->failed = true;
	}
	if (rp->failed || mica_run_event(t->run, ev) < 0) {
		rp->failed = true;
		return -1;
	}
	if (rp->out_dir && !rp->files_failed)
		mica_progress(rp->out_dir, ++rp->des);
	return 0;
}

/* Keep the totals, free the run (before its instructions go). */
static void
release_run(struct replay_thread *t)
{
	if (!t->run)
		return;
	t->e = mica_run_total_ins(t->run);
	t->h = mica_run_total_ins_aligned(t->run);
	mica_run_free(t->run);
	t->run = NULL;
}

static void
release_runs(struct replay *rp)
{
	for (size_t i = 0; i < rp->n_threads; i++)
		release_run(&rp->threads[i]);
}

/* A thread's end in a binary trace: its last interval now, as the live
 * run delivered it (the order of intervals across threads decides how
 * MICA's shared itypes_other_group_categories.txt reads). */
static void
finish_thread(struct replay *rp, int32_t tid)
{
	for (size_t i = 0; i < rp->n_threads; i++) {
		struct replay_thread *t = &rp->threads[i];

		if (t->tid != (uint32_t)tid || !t->run)
			continue;
		if (!rp->failed && mica_run_finish(t->run) < 0)
			rp->failed = true;
		release_run(t);
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
	if (r == 0 && rp->n_threads == 0) {
		/* Nothing to analyze is a mistake (a wrong file, a failed
		 * export), not a trace of zero instructions. */
		error_msg("%s: an empty trace: no instruction line in its %u line%s (one line "
			  "per instruction: pc=0x400000 sz=3 ...)", path, line, line == 1 ? "" : "s");
		r = -1;
	}
	if (r == 0 && !rp->failed) {
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
			const struct trace_thread_rec *tr_ = &it.thread;

			if (tr_->kind == TT_START && rp->n_threads == 0 && rp->pid < 0)
				rp->pid = tr_->pid;
			if (tr_->kind == TT_START) {
				rp->tids = xreallocarray(rp->tids, rp->n_tids + 1, sizeof(*rp->tids));
				rp->tids[rp->n_tids++] = (struct replay_tid){ tr_->tid, tr_->pid };
				if (rp->db && tr_->tid == tr_->pid &&
				    store_writer_process(rp->db, rp->session, tr_->pid,
							 pid_of_tid(rp, tr_->parent), NULL) < 0)
					rp->failed = true;
			}
			if (tr_->kind == TT_EXIT || tr_->kind == TT_DETACH)
				finish_thread(rp, tr_->tid);
			if (rp->db && (tr_->kind == TT_EXIT || tr_->kind == TT_DETACH) &&
			    store_writer_thread_end(rp->db, rp->session, tr_->tid,
						    tr_->kind == TT_EXIT ? tr_->status : -1,
						    tr_->kind == TT_DETACH ? "detached"
						    : WIFSIGNALED(tr_->status) ? "killed" : "exited",
						    store_wall_clock()) < 0)
				rp->failed = true;
			continue;
		}
		if (it.kind == TF_EVENT && feed(rp, &it.ev) < 0)
			break;
	}
	if (r < 0)
		error_msg("%s: %s", path, err);
	if (r == 0 && !rp->failed)
		for (size_t i = 0; i < rp->n_threads; i++)
			if (rp->threads[i].run && mica_run_finish(rp->threads[i].run) < 0)
				rp->failed = true;
	release_runs(rp);
	tracefile_close_reader(tr);
	return r < 0 || rp->failed ? -1 : 0;
}

/* The replay's session row.  -1 after reporting why. */
static int
replay_session_begin(struct replay *rp, const char *db, const char *config, const char *interval,
		     const char *trace)
{
	struct store_session s = { .mode = "replay", .command = trace, .uid = getuid(),
				   .mica = &rp->cfg };
	char err[512], *text, *settings = NULL;
	size_t len;
	FILE *f;

	if (!(text = mica_read_file(config, &len)))
		return -1;
	if (!(f = open_memstream(&settings, &len)))
		perror_msg_and_die("open_memstream");
	fputs("{\"config_file\":", f);
	json_put_string(f, config);
	fputs(",", f);
	json_put_mica_settings(f, &rp->cfg);
	fputs(",\"interval_override\":", f);
	json_put_string(f, interval);
	fputs(",\"trace\":", f);
	json_put_string(f, trace);
	fputs("}", f);
	if (fclose(f) != 0)
		perror_msg_and_die("open_memstream");
	s.config = text;
	s.settings = settings;
	rp->db = store_writer_open(db, err, sizeof(err));
	if (!rp->db) {
		error_msg("%s (choose another file with --db FILE, or none with --no-db)", err);
	} else if ((rp->session = store_writer_session_begin(rp->db, &s, err, sizeof(err))) < 0) {
		error_msg("cannot record the session: %s", err);
		store_writer_close(rp->db);
		rp->db = NULL;
	}
	free(text);
	free(settings);
	return rp->db ? 0 : -1;
}

static int
session_pid_fn(struct store *st, void *arg, char *err, size_t errsz)
{
	return store_session_pid(st, ((const int64_t *)arg)[0], ((const int64_t *)arg)[1], NULL, err,
				 errsz);
}

/* The end of the replay's session: 'replayed', or 'error' when the replay
 * failed; then the writer is drained and closed.  -1 if the database could
 * not record everything (already reported). */
static int
replay_session_end(struct replay *rp, const char *db, bool quiet)
{
	char err[512], first[512], *lost = NULL;
	unsigned long n;
	int ret = 0;

	if (rp->pid > 0 && rp->n_tids) {
		int64_t *j = xmalloc(2 * sizeof(*j));

		j[0] = rp->session;
		j[1] = rp->pid;
		if (store_writer_submit(rp->db, session_pid_fn, j, free) < 0)
			ret = -1;
	}
	store_writer_flush(rp->db);
	n = store_writer_lost(rp->db, first, sizeof(first));
	if (n)
		lost = xasprintf("%s%lu result%s not written to the database (%s)",
				 rp->files_failed ? "the MICA files were not all written; " : "", n,
				 n == 1 ? "" : "s", first);
	else if (rp->files_failed)
		lost = xstrdup("the MICA files were not all written");
	if (store_writer_session_finish(rp->db, rp->session, -1,
					rp->failed ? "error" : "replayed",
					rp->failed && rp->why[0] ? rp->why : NULL, lost, err,
					sizeof(err)) < 0) {
		error_msg("cannot record the end of session %lld: %s", (long long)rp->session, err);
		ret = -1;
	}
	if (store_writer_close(rp->db) < 0 || lost) {
		error_msg("session %lld in %s is incomplete: %s", (long long)rp->session, db,
			  lost ? lost : "results were lost");
		ret = -1;
	}
	rp->db = NULL;
	if (!quiet)
		fprintf(stderr, "micad: session %lld in %s\n", (long long)rp->session, db);
	free(lost);
	return ret;
}

int
cmd_replay(int argc, char **argv)
{
	enum { OPT_MICA_OUT = 256, OPT_INTERVAL, OPT_PID, OPT_DB, OPT_NO_DB };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "mica-out", required_argument, NULL, OPT_MICA_OUT },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "db", required_argument, NULL, OPT_DB },
		{ "no-db", no_argument, NULL, OPT_NO_DB },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct replay rp = { .pid = -1 };
	const char *config = NULL, *interval = NULL, *db = NULL;
	char *db_path = NULL, dberr[512];
	bool quiet = false, no_db = false;
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
		case OPT_DB:
			db = optarg;
			no_db = false;
			break;
		case OPT_NO_DB:
			db = NULL;
			no_db = true;
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
	if (access(argv[optind], R_OK) != 0) {
		perror_msg("%s", argv[optind]);
		goto out;
	}
	if (rp.out_dir && mica_out_dir_check(rp.out_dir) < 0)
		goto out;
	if (!db && !no_db) {
		if (!(db_path = store_default_path(dberr, sizeof(dberr)))) {
			error_msg("the results database: %s, or --no-db", dberr);
			goto out;
		}
		db = db_path;
	}
	if (db && replay_session_begin(&rp, db, config, interval, argv[optind]) < 0)
		goto out;
	if (tracefile_is_binary(argv[optind])) {
		/* append_pid names: the traced process's pid, from the trace */
		if (replay_binary(&rp, argv[optind]) < 0)
			rp.failed = true;
	} else {
		if (replay_text(&rp, argv[optind]) < 0)
			rp.failed = true;
	}
	if (rp.failed)
		snprintf(rp.why, sizeof(rp.why), "%s", last_error_msg());
	if (rp.db && replay_session_end(&rp, db, quiet) < 0)
		rp.failed = true;
	if (rp.files_failed)
		rp.failed = true;
	if (rp.failed)
		goto out;
	if (!quiet) {
		for (size_t i = 0; i < rp.n_threads; i++)
			printf("tid %" PRIu32 ": %" PRIu64 " instructions (E), %" PRIu64
			       " aligned (H), %" PRIu64 " interval%s\n", rp.threads[i].tid,
			       rp.threads[i].e, rp.threads[i].h, rp.threads[i].intervals,
			       rp.threads[i].intervals == 1 ? "" : "s");
	}
	ret = 0;
out:
	if (rp.db) {
		/* An early failure: the session is closed as an error. */
		replay_session_end(&rp, db, true);
	}
	for (size_t i = 0; i < rp.n_threads; i++) {
		mica_run_free(rp.threads[i].run);
		mica_output_free(rp.threads[i].out);
	}
	free(rp.threads);
	free(rp.tids);
	free(db_path);
	mica_config_free(&rp.cfg);
	return ret;
}
