/*
 * The MICA consumer of a live trace (trace_mica.h).
 */
#include "config.h"
#include "trace_mica.h"

#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "mica_config.h"
#include "mica_files.h"
#include "mica_output.h"
#include "mica_run.h"
#include "util.h"

struct trace_mica {
	struct mica_config cfg;
	const char *out_dir;
	int32_t first_pid;
	bool failed;
};

struct tm_thread {
	struct trace_mica *m;
	struct mica_run *run;
	struct mica_output *out;
};

static const char *
tm_category(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return insn_category_name(ii);
}

static const char *
tm_iclass(void *ctx, const struct insn_info *ii)
{
	(void)ctx;
	return insn_iclass_name(ii);
}

static const struct mica_names tm_names = { tm_category, tm_iclass, NULL };

struct trace_mica *
trace_mica_new(const char *config, long long interval, const char *out_dir)
{
	struct trace_mica *m = xcalloc(1, sizeof(*m));
	char err[256];

	if (mica_config_load(&m->cfg, config) < 0) {
		free(m);
		return NULL;
	}
	if (interval > 0) {
		m->cfg.interval_size = interval;
		if (mica_config_check(&m->cfg, "--interval", 0, err, sizeof(err)) < 0) {
			error_msg("%s", err);
			mica_config_free(&m->cfg);
			free(m);
			return NULL;
		}
	}
	m->out_dir = out_dir;
	return m;
}

static int
tm_interval(void *arg, const struct mica_interval *iv)
{
	struct tm_thread *t = arg;

	(void)iv;
	if (mica_output_add(t->out, iv) < 0) {
		error_msg("out of memory formatting the MICA output");
		return -1;
	}
	if (t->m->out_dir) {
		if (mica_files_flush(t->out, t->m->out_dir) < 0)
			return -1;
	} else {
		mica_output_clear(t->out);
	}
	return 0;
}

static void *
tm_thread_start(void *arg, const struct trace_thread_rec *r)
{
	struct trace_mica *m = arg;
	struct tm_thread *t = xcalloc(1, sizeof(*t));
	struct mica_config c = m->cfg;
	char err[256];

	if (!m->first_pid)
		m->first_pid = r->pid;
	t->m = m;
	if (r->tid != r->pid || r->pid != m->first_pid)
		c.append_pid = true;
	t->out = mica_output_new(&c, r->tid == r->pid ? r->pid : r->tid);
	if (!t->out)
		error_msg_and_die("out of memory");
	t->run = mica_run_new(&m->cfg, &tm_names, (uint32_t)r->tid, tm_interval, t, err, sizeof(err));
	if (!t->run)
		error_msg_and_die("%s", err);
	if (m->out_dir && mica_files_begin(t->out, m->out_dir) < 0)
		m->failed = true;
	return t;
}

static void
tm_event(void *arg, void *tstate, const struct insn_event *ev)
{
	struct trace_mica *m = arg;
	struct tm_thread *t = tstate;

	if (t->run && mica_run_event(t->run, ev) < 0) {
		m->failed = true;
		mica_run_free(t->run);
		t->run = NULL;
	}
}

static void
tm_thread_rec(void *arg, void *tstate, const struct trace_thread_rec *r)
{
	struct trace_mica *m = arg;
	struct tm_thread *t = tstate;

	if (r->kind != TT_EXIT && r->kind != TT_DETACH)
		return;
	if (t->run && mica_run_finish(t->run) < 0)
		m->failed = true;
	mica_run_free(t->run);
	mica_output_free(t->out);
	free(t);
}

struct trace_consumer
trace_mica_consumer(struct trace_mica *m)
{
	struct trace_consumer c = { tm_thread_start, tm_event, tm_thread_rec, NULL, m };

	return c;
}

int
trace_mica_free(struct trace_mica *m)
{
	int ret;

	if (!m)
		return 0;
	ret = m->failed ? -1 : 0;
	mica_config_free(&m->cfg);
	free(m);
	return ret;
}
