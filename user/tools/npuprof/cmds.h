/*
 * cmds.h - the subcommands of the npuprof tool. Each returns the process
 * exit status: 0 on success, 1 on failure, 2 on a usage error.
 */
#ifndef NPUPROF_TOOL_CMDS_H
#define NPUPROF_TOOL_CMDS_H

struct npuprof_cmd {
	const char *name;
	const char *help;
	int (*run)(int argc, char **argv);
};

struct npuprof_export_opts;
struct npuprof_export_result;

/* Export dir as `npuprof export` does (cmd_export.c): SIGINT/SIGTERM cancel
 * it cleanly, failures and incomplete input are explained on stderr, the
 * summary goes to stdout unless quiet. Returns the exit status (0 or 1). */
int export_run(const char *tool, const char *dir, struct npuprof_export_opts *o,
	       struct npuprof_export_result *res, int quiet);

int cmd_report(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_flight(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_watch(int argc, char **argv);

#endif /* NPUPROF_TOOL_CMDS_H */
