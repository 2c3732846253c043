/* functions.h — the built-in functions as the command line shows them (emit/gen_functions.h):
 * the list in `mbdc generate --help`, and `mbdc functions`, the same with each one's C signature
 * (emit/gen_signature.h). */
#ifndef MBG_CLI_FUNCTIONS_H
#define MBG_CLI_FUNCTIONS_H

#include <stdio.h>

/* The functions by group, one line each (name, what it computes), for `mbdc generate --help`. */
void mbg_cli_function_list(FILE *out);

/* `mbdc functions`: the same with the signatures, as text or as JSON; is_float: with float for
 * double. Returns the exit status (0, or 3 after an internal error on err). */
int mbg_cli_functions(FILE *out, int json, int is_float, FILE *err);

#endif
