/*
 * mica_progress.txt (spec mica.md §2): MICA, built with -DVERBOSE as by
 * default, overwrites it with "<E> instructions analyzed\n" each time its
 * count of DEs reaches a multiple of 10,000,000.  Checks the writer, then
 * `micad replay --mica-out` of binary traces (an `inc eax; jmp` loop):
 * 10^7 + 3 DEs leave "10000000 instructions analyzed\n", 10^7 - 1 none.
 *
 * Usage: mica_progress (with top_builddir in the environment, as make
 * check sets it).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decoder.h"
#include "mica_files.h"
#include "store/tracefile.h"
#include "tap.h"

static char dir[] = "/tmp/mica_progress.XXXXXX";

/* The file's contents, or "" if there is none. */
static const char *
progress_of(const char *d)
{
	static char buf[256];
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/mica_progress.txt", d);
	buf[0] = '\0';
	if (!(f = fopen(path, "r")))
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A binary trace of n DEs of one thread: inc eax; jmp back. */
static int
write_trace(const char *path, unsigned long n)
{
	static const uint8_t inc[] = { 0xff, 0xc0 }, jmp[] = { 0xeb, 0xfc };
	struct trace_thread_rec start = { TT_START, 100, 100, 1, 0, 0 };
	struct trace_thread_rec end = { TT_EXIT, 100, 100, 0, 0, 0 };
	struct insn_info ii[2];
	struct insn_event ev[2];
	struct tracefile_writer *w;
	struct trace_consumer c;

	if (insn_decode(inc, sizeof(inc), 0x401000, &ii[0]) < 0 ||
	    insn_decode(jmp, sizeof(jmp), 0x401002, &ii[1]) < 0)
		return -1;
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < 2; i++) {
		ev[i].info = &ii[i];
		ev[i].pc = ii[i].pc;
		ev[i].tid = 100;
	}
	ev[0].next_pc = 0x401002;
	ev[1].next_pc = 0x401000;
	ev[1].flags = EV_TAKEN;
	if (!(w = tracefile_create(path)))
		return -1;
	c = tracefile_consumer(w);
	c.thread_start(c.arg, &start);
	for (unsigned long i = 0; i < n; i++)
		c.event(c.arg, NULL, &ev[i % 2]);
	c.thread_rec(c.arg, NULL, &end);
	return tracefile_close(w);
}

/* micad replay of trace with --mica-out out; its exit status. */
static int
replay(const char *conf, const char *trace, const char *out)
{
	const char *top = getenv("top_builddir");
	char micad[1024];
	int status;
	pid_t pid;

	snprintf(micad, sizeof(micad), "%s/micad", top ? top : ".");
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl(micad, micad, "replay", "-q", "--no-db", "-c", conf, "--mica-out", out, trace,
		      (char *)NULL);
		perror(micad);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int
main(void)
{
	char conf[1100], trace[1100], out[1100];
	FILE *f;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}

	/* The writer, on its own. */
	mica_progress(dir, 3);
	is_str(progress_of(dir), "", "no file before 10^7 DEs");
	mica_progress(dir, MICA_PROGRESS_EVERY);
	is_str(progress_of(dir), "10000000 instructions analyzed\n", "written at 10^7 DEs");
	mica_progress(dir, MICA_PROGRESS_EVERY + 1);
	is_str(progress_of(dir), "10000000 instructions analyzed\n", "left alone in between");
	mica_progress(dir, 2 * MICA_PROGRESS_EVERY);
	is_str(progress_of(dir), "20000000 instructions analyzed\n", "overwritten at 2 x 10^7");

	/* micad replay: the count is the DEs analyzed. */
	snprintf(conf, sizeof(conf), "%s/mica.conf", dir);
	snprintf(trace, sizeof(trace), "%s/loop.trace", dir);
	if (!(f = fopen(conf, "w")) || fputs("analysis_type: itypes\ninterval_size: full\n", f) < 0 ||
	    fclose(f) != 0) {
		perror(conf);
		return 99;
	}
	ok(write_trace(trace, MICA_PROGRESS_EVERY + 3) == 0, "a trace of 10^7 + 3 DEs");
	snprintf(out, sizeof(out), "%s/long", dir);
	ok(mkdir(out, 0755) == 0 && replay(conf, trace, out) == 0, "micad replay --mica-out of it");
	is_str(progress_of(out), "10000000 instructions analyzed\n",
	       "mica_progress.txt: 10000000 instructions analyzed");

	ok(write_trace(trace, MICA_PROGRESS_EVERY - 1) == 0, "a trace of 10^7 - 1 DEs");
	snprintf(out, sizeof(out), "%s/short", dir);
	ok(mkdir(out, 0755) == 0 && replay(conf, trace, out) == 0, "micad replay --mica-out of it");
	is_str(progress_of(out), "", "no mica_progress.txt");

	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
