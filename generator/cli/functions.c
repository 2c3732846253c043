/* functions.c — the built-in functions on the command line (functions.h). */
#include "cli/functions.h"

#include <string.h>

#include "emit/gen_functions.h"
#include "emit/gen_signature.h"
#include "lua/lua_host.h"

/* The column of the descriptions: the widest function name of at most 24 characters (a longer
 * name pushes its own description right, so that the other lines stay within 100 columns). */
static int name_width(void) {
  int w = 0;
  for (const mbg_fn *f = mbg_fns; f->name; f++)
    if ((int)strlen(f->name) > w && strlen(f->name) <= 24) w = (int)strlen(f->name);
  return w;
}

void mbg_cli_function_list(FILE *out) {
  int w = name_width();
  fprintf(out, "functions (--functions LIST; mbdc functions: their C signatures):\n");
  for (int g = 0; g < MBG_FN_NGROUPS; g++) {
    fprintf(out, "  %s:\n", mbg_fn_group_title((mbg_fn_group)g));
    for (const mbg_fn *f = mbg_fns; f->name; f++)
      if ((int)f->group == g) fprintf(out, "    %-*s  %s\n", w, f->name, f->brief);
  }
}

/* s as a JSON string's contents (the table's text has no control characters). */
static void json_text(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', out);
    fputc(*s, out);
  }
}

static void print_json(FILE *out, const mbg_fn *f, const char *signature, int first) {
  fprintf(out, "%s\n  {\"name\": \"%s\", \"group\": \"%s\", \"functions_option\": %s, "
               "\"description\": \"", first ? "" : ",", f->name, mbg_fn_group_key(f->group),
          f->asked ? "true" : "false");
  json_text(out, f->brief);
  fprintf(out, "\", \"signature\": \"");
  json_text(out, signature);
  fprintf(out, "\"}");
}

int mbg_cli_functions(FILE *out, int json, int is_float, FILE *err) {
  const char *scalar = is_float ? "float" : "double";
  mbg_signature_host *host = mbg_signature_host_new();
  if (!host) return fprintf(err, "mbdc: error: out of memory\n"), MBG_LUA_EXIT_INTERNAL;
  int w = name_width(), first = 1, rc = 0;
  if (json) fprintf(out, "{\"scalar\": \"%s\", \"functions\": [", scalar);
  else
    fprintf(out, "The functions mbdc generates, as P_dynamics.h declares them (P: the prefix; in "
                 "capitals in the\nsize macros; scalar %s%s).\nmbdc generate --functions LIST "
                 "chooses them; the header says more of each.\n",
            scalar, is_float ? "" : ", or float with --scalar float");
  for (int g = 0; g < MBG_FN_NGROUPS && rc == 0; g++) {
    if (!json) fprintf(out, "\n%s:\n", mbg_fn_group_title((mbg_fn_group)g));
    for (const mbg_fn *f = mbg_fns; f->name && rc == 0; f++) {
      if ((int)f->group != g) continue;
      char signature[2048];
      if (mbg_signature(host, f, scalar, signature, sizeof signature) != 0) {
        fprintf(err, "mbdc: internal error: the signature of %s: %s\n", f->name, signature);
        rc = MBG_LUA_EXIT_INTERNAL;
      } else if (json) {
        print_json(out, f, signature, first);
        first = 0;
      } else {
        fprintf(out, "  %-*s  %s\n    %s\n", w, f->name, f->brief, signature);
      }
    }
  }
  if (json && rc == 0) fprintf(out, "\n]}\n");
  mbg_signature_host_free(host);
  return rc;
}
