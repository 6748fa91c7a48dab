/*
 * Serve a results database with micad's HTTP server, for the HTTP tests,
 * the browser test and the benchmark (micad serve hosts the same server).
 *
 *   http_serve --db FILE [--web DIR] [--listen ADDR:PORT] [--allow-remote]
 *              [--host NAME]... [--uid UID]... [--info FILE]
 *              [--live SESSION]... [--connections N] [--budget-ms N]
 *              [--max-response BYTES] [--plan-log FILE]
 *
 * Writes "port N" and one "url UID URL" / "token UID TOKEN" line per
 * --uid to the info file (or stdout), then serves until SIGTERM/SIGINT.
 * --live SESSION makes the live callback report that session as running
 * with a fixed MGSim snapshot (counter i = 1000 i + 7, counter 9 = 1),
 * 123456 instructions and 2 intervals, so live paths have known values.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/http.h"
#include "util.h"

#define MAX_LIST 16

static int64_t live_ids[MAX_LIST];
static int n_live;

static bool
fake_live(void *arg, int64_t session, struct http_live *out)
{
	(void)arg;
	for (int i = 0; i < n_live; i++) {
		if (live_ids[i] != session)
			continue;
		out->session = session;
		snprintf(out->state, sizeof(out->state), "running");
		out->instructions = 123456;
		out->intervals = 2;
		out->has_mgsim = true;
		for (unsigned c = 0; c < HTTP_MGSIM_COUNTERS; c++)
			out->mgsim[c] = 1000 * c + 7;
		out->mgsim[9] = 1;
		return true;
	}
	return false;
}

static unsigned
num(const char *s, const char *what)
{
	unsigned long long v;

	if (parse_u64(s, &v) < 0 || v > 1000000000)
		error_msg_and_die("bad %s '%s'", what, s);
	return (unsigned)v;
}

int
main(int argc, char **argv)
{
	struct http_config c = { 0 };
	const char *hosts[MAX_LIST + 1] = { NULL };
	unsigned uids[MAX_LIST];
	int n_hosts = 0, n_uids = 0, sig;
	const char *info = NULL;
	char *tmp;
	struct http_server *s;
	char err[512];
	sigset_t set;
	FILE *f;

	program_name = "http_serve";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--allow-remote")) {
			c.allow_remote = true;
			continue;
		}
		if (!v)
			error_msg_and_die("option %s needs a value", a);
		i++;
		if (!strcmp(a, "--db"))
			c.db_path = v;
		else if (!strcmp(a, "--web"))
			c.web_root = v;
		else if (!strcmp(a, "--listen"))
			c.listen = v;
		else if (!strcmp(a, "--info"))
			info = v;
		else if (!strcmp(a, "--budget-ms"))
			c.budget_ms = num(v, "budget");
		else if (!strcmp(a, "--max-response"))
			c.max_response = num(v, "response size");
		else if (!strcmp(a, "--plan-log"))
			c.plan_log = v;
		else if (!strcmp(a, "--connections"))
			c.connection_limit = num(v, "connection limit");
		else if (!strcmp(a, "--host") && n_hosts < MAX_LIST)
			hosts[n_hosts++] = v;
		else if (!strcmp(a, "--uid") && n_uids < MAX_LIST)
			uids[n_uids++] = num(v, "uid");
		else if (!strcmp(a, "--live") && n_live < MAX_LIST)
			live_ids[n_live++] = num(v, "session");
		else
			error_msg_and_die("unknown option %s", a);
	}
	if (!c.db_path)
		error_msg_and_die("--db FILE is required");
	c.host_names = hosts;
	c.live = fake_live;

	/* Block the stop signals before any server thread exists, so they
	 * inherit the mask and sigwait() below gets them. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		error_msg_and_die("pthread_sigmask failed");

	s = http_start(&c, err, sizeof(err));
	if (!s)
		error_msg_and_die("%s", err);
	/* Written aside and renamed: a test waiting for the file never
	 * reads half of it. */
	tmp = info ? xasprintf("%s.tmp", info) : NULL;
	f = tmp ? fopen(tmp, "w") : stdout;
	if (!f)
		perror_msg_and_die("%s", tmp);
	fprintf(f, "port %u\n", http_port(s));
	for (int i = 0; i < n_uids; i++) {
		char *url = http_url(s, uids[i]);

		if (!url)
			error_msg_and_die("no token for uid %u", uids[i]);
		fprintf(f, "url %u %s\n", uids[i], url);
		fprintf(f, "token %u %s\n", uids[i], http_token_for_uid(s, uids[i]));
		free(url);
	}
	if (f != stdout) {
		if (fclose(f) || rename(tmp, info))
			perror_msg_and_die("%s", info);
		free(tmp);
	} else {
		fflush(f);
	}
	if (sigwait(&set, &sig))
		error_msg_and_die("sigwait failed");
	http_stop(s);
	return 0;
}
