/* help.h — what `mbdc` says about itself: the usage, each command's help, and the did-you-mean of
 * a mistyped command, option or function name. */
#ifndef MBG_CLI_HELP_H
#define MBG_CLI_HELP_H

#include <stdio.h>

/* The whole usage (mbdc --help). */
extern const char mbg_cli_usage[];

/* The help of command cmd (its fixed text), or NULL if cmd is not a command. */
const char *mbg_cli_command_help(const char *cmd);
/* Print the help of command cmd (mbdc CMD --help, mbdc help CMD): for generate with the list of
 * the functions it generates (functions.h). Returns 0, or -1 if cmd is not a command. */
int mbg_cli_print_help(const char *cmd, FILE *out);

/* The options command cmd takes, NULL-terminated (an empty list for an unknown command). */
const char *const *mbg_cli_command_options(const char *cmd);

/* The commands, NULL-terminated. */
extern const char *const mbg_cli_commands[];

#endif
