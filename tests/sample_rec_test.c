/*
 * The sample-mode ring records as the consumer checks them
 * (trace_sample_rec_ok(): a producer in another process is not trusted)
 * and as --dump-events prints them (sample_dump.h), on constructed
 * records.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "session/sample_dump.h"
#include "tap.h"
#include "trace/tracer.h"

static uint64_t buf[512];

static void
test_checks(void)
{
	struct trace_string_rec *str = (void *)buf;
	struct trace_sample_rec *smp = (void *)buf;
	struct trace_burst_rec *b = (void *)buf;
	struct trace_note_rec *note = (void *)buf;
	struct trace_lost_rec *lost = (void *)buf;
	size_t len;

	memset(buf, 0, sizeof(buf));
	str->id = 3;
	memcpy(str->text, "hot", 4);
	len = sizeof(*str) + 4;
	ok(trace_sample_rec_ok(TREC_STRING, buf, len), "string: whole");
	ok(!trace_sample_rec_ok(TREC_STRING, buf, len - 1), "string: without its NUL, refused");
	str->id = 0;
	ok(!trace_sample_rec_ok(TREC_STRING, buf, len), "string: id 0, refused");

	memset(buf, 0, sizeof(buf));
	smp->n_frames = 2;
	len = sizeof(*smp) + 2 * sizeof(struct trace_frame);
	ok(trace_sample_rec_ok(TREC_SAMPLE, buf, len), "sample: two frames in its length");
	ok(!trace_sample_rec_ok(TREC_SAMPLE, buf, len - 1), "sample: a frame cut short, refused");
	smp->n_frames = 65535;
	ok(!trace_sample_rec_ok(TREC_SAMPLE, buf, len), "sample: more frames than bytes, refused");
	ok(!trace_sample_rec_ok(TREC_SAMPLE, buf, sizeof(*smp) - 1), "sample: no header, refused");

	memset(buf, 0, sizeof(buf));
	b->kind = BURST_ABORT;
	ok(trace_sample_rec_ok(TREC_BURST, buf, sizeof(*b)), "burst: abort is a kind");
	b->kind = BURST_ABORT + 1;
	ok(!trace_sample_rec_ok(TREC_BURST, buf, sizeof(*b)), "burst: an unknown kind, refused");
	b->kind = 0;
	ok(!trace_sample_rec_ok(TREC_BURST, buf, sizeof(*b)), "burst: kind 0, refused");

	memset(buf, 0, sizeof(buf));
	note->weighting = 2;
	memcpy(note->event, "cpu-clock", 10);
	memcpy(note->note, "why", 4);
	len = sizeof(*note) + 4;
	ok(trace_sample_rec_ok(TREC_NOTE, buf, len), "note: whole");
	memset(note->event, 'x', sizeof(note->event));
	ok(!trace_sample_rec_ok(TREC_NOTE, buf, len), "note: an event name without its NUL, refused");
	ok(!trace_sample_rec_ok(TREC_EVENT, buf, len), "an instruction event is not a sample record");

	memset(buf, 0, sizeof(buf));
	lost->tid = 8;
	lost->lost = 3;
	ok(trace_sample_rec_ok(TREC_LOST, buf, sizeof(*lost)), "lost: whole");
	ok(!trace_sample_rec_ok(TREC_LOST, buf, sizeof(*lost) - 1), "lost: cut short, refused");
	lost->lost = 0;
	ok(!trace_sample_rec_ok(TREC_LOST, buf, sizeof(*lost)), "lost: a count of 0, refused");
}

static void
test_dump(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	struct sample_dump *d = sample_dump_new(f);
	struct trace_consumer c = sample_dump_consumer(d);
	struct trace_string_rec *str = (void *)buf;
	struct trace_sample_rec *smp = (void *)buf;
	struct trace_burst_rec *b = (void *)buf;
	struct trace_note_rec *note = (void *)buf;
	struct trace_lost_rec *lost = (void *)buf;
	static const char *const names[] = { "", "/bin/prog", "hot", "main" };

	for (uint32_t id = 1; id <= 3; id++) {
		memset(buf, 0, sizeof(buf));
		str->id = id;
		strcpy(str->text, names[id]);
		c.sample_rec(c.arg, TREC_STRING, buf, sizeof(*str) + strlen(names[id]) + 1);
	}
	memset(buf, 0, sizeof(buf));
	note->weighting = 2;
	strcpy(note->event, "cpu-clock");
	strcpy(note->note, "no hardware PMU here");
	c.sample_rec(c.arg, TREC_NOTE, buf, sizeof(*note) + 21);
	memset(buf, 0, sizeof(buf));
	smp->time_ns = 1000;
	smp->pid = 7;
	smp->tid = 8;
	smp->weight = 1001001;
	smp->flags = TSAMPLE_HAS_ADDR;
	smp->addr = 0xbeef;
	smp->n_frames = 3;
	smp->frames[0] = (struct trace_frame){ 1, 2, 0x14, 0x401014 };
	smp->frames[1] = (struct trace_frame){ 1, 3, 0x9, 0x401109 };
	smp->frames[2] = (struct trace_frame){ 0, 0, 0x7f00, 0x7f00 };
	c.sample_rec(c.arg, TREC_SAMPLE, buf, sizeof(*smp) + 3 * sizeof(struct trace_frame));
	memset(buf, 0, sizeof(buf));
	b->kind = BURST_MEASURE;
	b->pid = 7;
	b->tid = 8;
	b->time_ns = 2000;
	c.sample_rec(c.arg, TREC_BURST, buf, sizeof(*b));
	memset(buf, 0, sizeof(buf));
	*lost = (struct trace_lost_rec){ 3000, 7, 8, 42 };
	c.sample_rec(c.arg, TREC_LOST, buf, sizeof(*lost));
	fclose(f);
	is_str(text,
	       "note 2 cpu-clock no hardware PMU here\n"
	       "sample 1000 7 8 1001001 2 beef 0 0 3\t0x401014 /bin/prog hot+0x14"
	       "\t0x401109 /bin/prog main+0x9\t0x7f00 [unknown] [unknown]+0x7f00\n"
	       "burst measure 7 8 2000\n"
	       "lost 3000 7 8 42\n",
	       "dump: note, sample (strings resolved, unknown ones named so), burst, lost");
	sample_dump_free(d);
	free(text);
}

int
main(void)
{
	test_checks();
	test_dump();
	return done_testing();
}
