/*
 * The text dump of sample mode's records (sample_dump.h).
 */
#include "config.h"
#include "session/sample_dump.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace/tracer.h"
#include "util.h"

struct sample_dump {
	FILE *f;
	char **str;			/* by id */
	uint32_t n_str;
};

struct sample_dump *
sample_dump_new(FILE *f)
{
	struct sample_dump *d = xcalloc(1, sizeof(*d));

	d->f = f;
	return d;
}

void
sample_dump_free(struct sample_dump *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->n_str; i++)
		free(d->str[i]);
	free(d->str);
	free(d);
}

static const char *
text(const struct sample_dump *d, uint32_t id)
{
	return id && id < d->n_str && d->str[id] ? d->str[id] : "[unknown]";
}

static void
dump_rec(void *arg, uint32_t type, const void *data, size_t len)
{
	struct sample_dump *d = arg;
	static const char *const kinds[] = { "?", "warmup", "measure", "end", "abort" };

	(void)len;
	switch (type) {
	case TREC_STRING: {
		const struct trace_string_rec *r = data;

		if (r->id >= d->n_str) {
			uint32_t n = r->id + 1 > 2 * d->n_str ? r->id + 1 : 2 * d->n_str;

			d->str = xreallocarray(d->str, n, sizeof(*d->str));
			memset(d->str + d->n_str, 0, (n - d->n_str) * sizeof(*d->str));
			d->n_str = n;
		}
		free(d->str[r->id]);
		d->str[r->id] = xstrdup(r->text);
		break;
	}
	case TREC_SAMPLE: {
		const struct trace_sample_rec *r = data;

		fprintf(d->f, "sample %" PRIu64 " %d %d %" PRIu64 " %u %" PRIx64 " %" PRIx64 " %u %u",
			r->time_ns, r->pid, r->tid, r->weight, r->flags, r->addr, r->data_src,
			r->latency, r->n_frames);
		for (unsigned i = 0; i < r->n_frames; i++) {
			const struct trace_frame *fr = &r->frames[i];

			fprintf(d->f, "\t0x%" PRIx64 " %s %s+0x%" PRIx64, fr->address,
				text(d, fr->module), text(d, fr->symbol), fr->offset);
		}
		fputc('\n', d->f);
		break;
	}
	case TREC_BURST: {
		const struct trace_burst_rec *r = data;

		fprintf(d->f, "burst %s %d %d %" PRIu64 "\n", kinds[r->kind], r->pid, r->tid,
			r->time_ns);
		break;
	}
	case TREC_NOTE: {
		const struct trace_note_rec *r = data;

		fprintf(d->f, "note %u %s %s\n", r->weighting, r->event, r->note);
		break;
	}
	case TREC_LOST: {
		const struct trace_lost_rec *r = data;

		fprintf(d->f, "lost %" PRIu64 " %d %d %" PRIu64 "\n", r->time_ns, r->pid, r->tid,
			r->lost);
		break;
	}
	}
}

struct trace_consumer
sample_dump_consumer(struct sample_dump *d)
{
	struct trace_consumer c = { .sample_rec = dump_rec, .arg = d };

	return c;
}
