/*
 * micactl: the command-line client (main() and subcommand dispatch).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util.h"

static const struct micad_command commands[] = {
	{ "run", "run a program under the daemon, tracing every instruction", cmd_ctl_run },
	{ "attach", "trace a running process under the daemon", cmd_ctl_attach },
	{ "stop", "stop tracing a session (the process goes on)", cmd_ctl_stop },
	{ "list", "list sessions", cmd_ctl_list },
	{ "status", "progress of running sessions, or one session", cmd_ctl_status },
	{ "shutdown", "stop the daemon (sessions are detached)", cmd_ctl_shutdown },
	{ "ui", "print the web UI's address with your access token", cmd_ctl_ui },
	{ "export", "write a session's results: MICA's files, CSV or JSON", cmd_ctl_export },
	{ "query", "run a read-only SQL query on the results database", cmd_ctl_query },
	{ "mca", "analyze machine code like llvm-mca", cmd_mca },
	{ NULL, NULL, NULL }
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: micactl [--help] [--version] COMMAND [ARGS...]\n"
		"\n"
		"Control the micad daemon and analyze machine code.\n"
		"\n"
		"Commands:\n");
	for (const struct micad_command *c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f,
		"\n"
		"Run 'micactl COMMAND --help' for the options of a command.\n");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	program_name = "micactl";
	while ((c = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("micactl %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		error_msg("no command given");
		usage(stderr);
		return 2;
	}
	for (const struct micad_command *cmd = commands; cmd->name; cmd++) {
		if (strcmp(cmd->name, argv[optind]) == 0) {
			int first = optind;

			optind = 0;
			return cmd->run(argc - first, argv + first);
		}
	}
	error_msg("unknown command '%s'", argv[optind]);
	usage(stderr);
	return 2;
}
