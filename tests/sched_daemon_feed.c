/*
 * The reference for tests/sched_daemon.sh: feed a recorded trace (micad
 * run --record) event by event to a fresh sched_live per thread, with
 * MICA's interval rule (a boundary when the thread's H reaches S, the
 * remainder at its end; S 0: full mode), and print one line per interval:
 *   TID IDX FINAL CYCLES INSNS UOPS_PORT0 UOPS_PORT1 ...
 * independently of daemon/session/trace_sched.c, which the daemon uses.
 * Usage: sched_daemon_feed TRACE MCPU S
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_live.h"
#include "store/tracefile.h"
#include "util.h"

#define MAXT 64

struct thr {
	int32_t tid;
	struct sched_live *l;
	uint64_t h;
	long long idx;
};

static void
emit(struct thr *t, int final)
{
	struct sched_live_interval iv;

	sched_live_interval(t->l, &iv);
	printf("%d %lld %d %llu %llu", t->tid, t->idx, final, (unsigned long long)iv.cycles,
	       (unsigned long long)iv.insns);
	for (unsigned p = 0; p < iv.n_ports; p++)
		printf(" %llu", (unsigned long long)iv.port_uops[p]);
	putchar('\n');
	t->idx++;
	t->h = 0;
}

int
main(int argc, char **argv)
{
	struct thr th[MAXT];
	unsigned n = 0;
	unsigned long long s;
	struct tracefile_reader *r;
	struct tracefile_item it;
	char err[512];
	int rc;

	if (argc != 4 || parse_u64(argv[3], &s) < 0)
		error_msg_and_die("usage: sched_daemon_feed TRACE MCPU S (S 0: full mode)");
	r = tracefile_open(argv[1], err, sizeof(err));
	if (!r)
		error_msg_and_die("%s", err);
	while ((rc = tracefile_next(r, &it, err, sizeof(err))) > 0) {
		struct thr *t = NULL;
		int32_t tid = it.kind == TF_EVENT ? (int32_t)it.ev.tid : it.thread.tid;

		for (unsigned i = 0; i < n; i++)
			if (th[i].tid == tid && th[i].l)
				t = &th[i];
		if (it.kind == TF_THREAD && it.thread.kind == TT_START) {
			if (n == MAXT)
				error_msg_and_die("more than %d threads", MAXT);
			t = &th[n++];
			memset(t, 0, sizeof(*t));
			t->tid = tid;
			t->l = sched_live_new(argv[2]);
			if (!t->l)
				error_msg_and_die("no live model for '%s'", argv[2]);
			continue;
		}
		if (!t)
			error_msg_and_die("a record of unknown thread %d", tid);
		if (it.kind == TF_EVENT) {
			const struct insn_event *ev = &it.ev;

			sched_live_feed(t->l, ev);
			if (!(ev->flags & EV_REP) ||
			    ((ev->flags & EV_REP_FIRST) && ev->rep_count > 0))
				t->h++;
			if (s && t->h == s)
				emit(t, 0);
		} else if (it.thread.kind == TT_EXIT || it.thread.kind == TT_DETACH) {
			sched_live_flush(t->l);
			emit(t, 1);
			sched_live_free(t->l);
			t->l = NULL;
		}
	}
	if (rc < 0)
		error_msg_and_die("%s", err);
	tracefile_close_reader(r);
	for (unsigned i = 0; i < n; i++)
		sched_live_free(th[i].l);
	return 0;
}
