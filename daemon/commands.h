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
int cmd_serve(int argc, char **argv);
int cmd_ctl_run(int argc, char **argv);
int cmd_ctl_attach(int argc, char **argv);
int cmd_ctl_stop(int argc, char **argv);
int cmd_ctl_list(int argc, char **argv);
int cmd_ctl_status(int argc, char **argv);
int cmd_ctl_shutdown(int argc, char **argv);
int cmd_ctl_ui(int argc, char **argv);
int cmd_ctl_export(int argc, char **argv);
int cmd_ctl_query(int argc, char **argv);
int cmd_mca(int argc, char **argv);

#endif /* MICAD_COMMANDS_H */
