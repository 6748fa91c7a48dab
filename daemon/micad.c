/*
 * micad: main() and subcommand dispatch.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "serve.h"
#include "util.h"

static const struct micad_command commands[] = {
	{ "run", "launch a program and trace every instruction", cmd_run },
	{ "attach", "trace a running process until it exits or Ctrl-C", cmd_attach },
	{ "replay", "analyze a recorded trace without tracing again", cmd_replay },
	{ "serve", "run the daemon that micactl talks to", cmd_serve },
	{ "worker", NULL, cmd_worker },	/* micad serve's, one per session */
	{ NULL, NULL, NULL }
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: micad [--help] [--version] COMMAND [ARGS...]\n"
		"\n"
		"Characterize native x86-64 programs the way MICA does (instruction mix,\n"
		"ILP, branch predictability, register traffic, strides, footprint, reuse\n"
		"distance), tracing every instruction.\n"
		"\n"
		"Commands:\n");
	for (const struct micad_command *c = commands; c->name; c++)
		if (c->summary)
			fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f,
		"\n"
		"Run 'micad COMMAND --help' for the options of a command.\n");
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

	program_name = "micad";
	/* Options before the command only; the command parses the rest. */
	while ((c = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("micad %s\n", PACKAGE_VERSION);
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

			optind = 0;	/* reset getopt for the subcommand */
			return cmd->run(argc - first, argv + first);
		}
	}
	error_msg("unknown command '%s'", argv[optind]);
	usage(stderr);
	return 2;
}
