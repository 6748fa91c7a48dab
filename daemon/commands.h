/*
 * micad's subcommands.  Each lives in its own file and is listed in the
 * table in micad.c.
 */
#ifndef MICAD_COMMANDS_H
#define MICAD_COMMANDS_H

struct micad_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);	/* argv[0] is the subcommand */
};

int cmd_run(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_mca(int argc, char **argv);

#endif /* MICAD_COMMANDS_H */
