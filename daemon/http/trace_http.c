/*
 * 'micad run --http' and 'micad attach --http': the HTTP server of
 * micad serve (http.h) beside one foreground session, showing the
 * database and that session live (instruction count, MGSim counters).
 */
#include "config.h"
#include "http/trace_http.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/http.h"
#include "session/trace_mgsim.h"
#include "util.h"

struct trace_http {
	struct http_server *srv;
	struct mgsim_live *mgsim;
	_Atomic uint64_t steps;
	_Atomic uint64_t intervals;
	_Atomic int64_t session;
	_Atomic int running;
	void (*chained)(void *arg, int64_t session);	/* the caller's on_session */
	void *chained_arg;
};

static bool
live_cb(void *arg, int64_t session, struct http_live *out)
{
	struct trace_http *th = arg;
	struct mgsim_live_data d;

	if (!atomic_load(&th->running) || session != atomic_load(&th->session))
		return false;
	memset(out, 0, sizeof(*out));
	out->session = session;
	snprintf(out->state, sizeof(out->state), "running");
	out->instructions = atomic_load(&th->steps);
	out->intervals = atomic_load(&th->intervals);
	if (th->mgsim && mgsim_live_read(th->mgsim, &d, 1000) == 0 &&
	    d.state != MGSIM_LIVE_NONE) {
		out->has_mgsim = true;
		for (int i = 0; i < HTTP_MGSIM_COUNTERS && i < MGSIM_NUM_COUNTERS; i++)
			out->mgsim[i] = d.v[i];
	}
	return true;
}

static void
on_session(void *arg, int64_t session)
{
	struct trace_http *th = arg;

	atomic_store(&th->session, session);
	if (th->chained)
		th->chained(th->chained_arg, session);
}

struct trace_http *
trace_http_start(struct trace_session_opts *o, const char *listen)
{
	struct trace_http *th;
	struct http_config hc = { 0 };
	char err[512], *url;

	if (!o->db) {
		error_msg("--http shows the results database: it cannot go with --no-db");
		return NULL;
	}
	th = xcalloc(1, sizeof(*th));
	hc.listen = listen && *listen ? listen : NULL;
	hc.db_path = o->db;
	hc.web_root = http_default_web_root();
	hc.live = live_cb;
	hc.live_arg = th;
	th->srv = http_start(&hc, err, sizeof(err));
	if (!th->srv) {
		error_msg("--http%s%s: %s", hc.listen ? " " : "", hc.listen ? hc.listen : "", err);
		free(th);
		return NULL;
	}
	th->mgsim = mgsim_live_map();
	atomic_store(&th->running, 1);
	th->chained = o->on_session;
	th->chained_arg = o->arg;
	o->on_session = on_session;
	o->arg = th;
	o->mgsim_live = th->mgsim;
	o->t.live_steps = &th->steps;
	o->live_intervals = &th->intervals;
	url = http_url(th->srv, getuid());
	fprintf(stderr, "micad: web UI and API: %s\n", url);
	free(url);
	return th;
}

void
trace_http_stop(struct trace_http *th)
{
	if (!th)
		return;
	atomic_store(&th->running, 0);
	http_stop(th->srv);
	mgsim_live_unmap(th->mgsim);
	free(th);
}
