/*
 * The MICA driver (mica_run.h).
 *
 * Per DE, as MICA (spec mica.md §1.5): H, then E, then the analyses, then
 * in interval mode the boundary test "interval H == S".  ILP is fed
 * through a 200-entry buffer drained when full, when interval H == S, and
 * at the end; while it drains, ilp tests the boundary before each entry and
 * ilp_one after each, against its own copy of the interval counters (the
 * save/restore of `all`, §3.8, which also gives the standalone numbers).
 * So ILP's lines are shifted by the buffer (Q1) but always fall at the same
 * DE as the other analyses' boundary, and one struct mica_interval carries
 * them all.  In full mode the buffer is unobservable and skipped.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ilp.h"
#include "mica_run.h"

static const uint32_t ilp_windows[MICA_ILP_WINDOWS] = { 32, 64, 128, 256 };

/* The analyses driven through mica_analyzer_ops, in MICA's order. */
static const struct mica_analyzer_ops *const analyzer_ops[] = {
	&mica_itypes_ops, &mica_ppm_ops, &mica_reg_ops,
	&mica_stride_ops, &mica_memfootprint_ops, &mica_memstackdist_ops,
};
#define N_OPS	(sizeof(analyzer_ops) / sizeof(analyzer_ops[0]))

struct mica_run {
	const struct mica_config *cfg;
	struct mica_ctx ctx;
	uint32_t tid;
	mica_interval_fn fn;
	void *arg;
	bool full;
	int64_t s;
	uint64_t total_e, total_h, int_e, int_h;
	uint64_t index;
	const struct mica_analyzer_ops *ops[N_OPS];
	void *state[N_OPS];
	unsigned n_ops;
	struct ilp *ilp, *ilp_one;
	struct ilp_entry buf[MICA_ILP_BUFFER];
	unsigned n_buf;
	struct mica_interval iv;	/* the interval being closed */
	bool ilp_fired, ilp_one_fired;
	bool failed;
};

struct mica_run *
mica_run_new(const struct mica_config *cfg, const struct mica_names *names, uint32_t tid,
	     mica_interval_fn fn, void *arg, char *err, size_t errsz)
{
	struct mica_run *run = calloc(1, sizeof(*run));

	if (!run) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	run->cfg = cfg;
	run->ctx.cfg = cfg;
	run->ctx.names = names;
	run->tid = tid;
	run->fn = fn;
	run->arg = arg;
	run->full = mica_config_full(cfg);
	run->s = cfg->interval_size;
	for (unsigned i = 0; i < N_OPS; i++) {
		if (!(cfg->analyses & MICA_BIT(analyzer_ops[i]->id)))
			continue;
		run->ops[run->n_ops] = analyzer_ops[i];
		run->state[run->n_ops] = analyzer_ops[i]->create(cfg, err, errsz);
		if (!run->state[run->n_ops])
			goto fail;
		run->n_ops++;
	}
	if ((cfg->analyses & MICA_BIT(MICA_ILP)) &&
	    !(run->ilp = ilp_new(ilp_windows, MICA_ILP_WINDOWS, cfg->block_size))) {
		snprintf(err, errsz, "ilp: out of memory");
		goto fail;
	}
	if ((cfg->analyses & MICA_BIT(MICA_ILP_ONE)) &&
	    !(run->ilp_one = ilp_new(&cfg->ilp_size, 1, cfg->block_size))) {
		snprintf(err, errsz, "ilp_one: out of memory");
		goto fail;
	}
	return run;
fail:
	mica_run_free(run);
	return NULL;
}

void
mica_run_free(struct mica_run *run)
{
	if (!run)
		return;
	for (unsigned i = 0; i < run->n_ops; i++)
		run->ops[i]->destroy(run->state[i]);
	ilp_free(run->ilp);
	ilp_free(run->ilp_one);
	free(run);
}

uint64_t
mica_run_total_ins(const struct mica_run *run)
{
	return run->total_e;
}

uint64_t
mica_run_total_ins_aligned(const struct mica_run *run)
{
	return run->total_h;
}

static inline bool
at_boundary(const struct mica_run *run, uint64_t h)
{
	return (int64_t)h == run->s;
}

/* Drain the ILP buffer, with ILP's own boundary tests (§3.1). */
static int
ilp_flush(struct mica_run *run)
{
	if (run->ilp) {
		uint64_t h = run->int_h;

		for (unsigned i = 0; i < run->n_buf; i++) {
			if (at_boundary(run, h)) {
				ilp_close(run->ilp, &run->iv.ilp);
				run->ilp_fired = true;
				h = 0;
			}
			if (ilp_step(run->ilp, &run->buf[i]) < 0)
				return -1;
		}
	}
	if (run->ilp_one) {
		uint64_t h = run->int_h;

		for (unsigned i = 0; i < run->n_buf; i++) {
			if (ilp_step(run->ilp_one, &run->buf[i]) < 0)
				return -1;
			if (at_boundary(run, h)) {
				ilp_close(run->ilp_one, &run->iv.ilp_one);
				run->ilp_one_fired = true;
				h = 0;
			}
		}
	}
	run->n_buf = 0;
	return 0;
}

/* Close the interval: collect every analysis' counts and deliver them. */
static int
deliver(struct mica_run *run, bool final)
{
	struct mica_interval *iv = &run->iv;

	iv->tid = run->tid;
	iv->index = run->index++;
	iv->full = run->full;
	iv->final = final;
	iv->interval_size = run->s;
	iv->ins = run->full ? run->total_e : run->int_e;
	iv->ins_aligned = run->full ? run->total_h : run->int_h;
	iv->total_ins = run->total_e;
	iv->total_ins_aligned = run->total_h;
	iv->analyses = run->cfg->analyses;
	if (run->ilp && !run->ilp_fired)
		ilp_close(run->ilp, &iv->ilp);
	if (run->ilp_one && !run->ilp_one_fired)
		ilp_close(run->ilp_one, &iv->ilp_one);
	for (unsigned i = 0; i < run->n_ops; i++)
		run->ops[i]->close(run->state[i], iv);
	run->ilp_fired = run->ilp_one_fired = false;
	run->int_e = run->int_h = 0;
	if (run->fn && run->fn(run->arg, iv) != 0)
		return -1;
	memset(iv, 0, sizeof(*iv));
	return 0;
}

int
mica_run_event(struct mica_run *run, const struct insn_event *ev)
{
	bool aligned = !(ev->flags & EV_REP) ||
		((ev->flags & EV_REP_FIRST) && ev->rep_count > 0);

	if (run->failed)
		return -1;
	run->total_h += aligned;
	run->total_e++;
	if (!run->full) {
		run->int_h += aligned;
		run->int_e++;
	}
	run->ctx.total_ins = run->total_e;
	for (unsigned i = 0; i < run->n_ops; i++)
		if (run->ops[i]->event(run->state[i], ev, &run->ctx) < 0)
			goto fail;
	if (run->ilp || run->ilp_one) {
		struct ilp_entry e;

		ilp_entry_from_event(&e, ev);
		if (run->full) {
			if ((run->ilp && ilp_step(run->ilp, &e) < 0) ||
			    (run->ilp_one && ilp_step(run->ilp_one, &e) < 0))
				goto fail;
		} else {
			run->buf[run->n_buf++] = e;
			if ((run->n_buf == MICA_ILP_BUFFER || at_boundary(run, run->int_h)) &&
			    ilp_flush(run) < 0)
				goto fail;
		}
	}
	if (!run->full && at_boundary(run, run->int_h) && deliver(run, false) < 0)
		goto fail;
	return 0;
fail:
	run->failed = true;
	return -1;
}

int
mica_run_finish(struct mica_run *run)
{
	if (run->failed)
		return -1;
	if (run->n_buf && ilp_flush(run) < 0)
		goto fail;
	if (deliver(run, true) < 0)
		goto fail;
	return 0;
fail:
	run->failed = true;
	return -1;
}
