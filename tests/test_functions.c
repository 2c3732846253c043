/* test_functions.c — the table of the built-in functions (emit/gen_functions.h) against the
 * recipes mbdc really has, and what the command line shows of it: every built-in recipe (a
 * registry line of lua/lua_recipes.c or a built-in algorithms/NAME.lua) has its line (but the
 * parts rcr stands for), every line a one-line description and a signature, and `mbdc generate
 * --help` and `mbdc functions` list every one. (That the signatures are those of the generated
 * headers: tests/header_test.sh.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/functions.h"
#include "cli/help.h"
#include "emit/gen_functions.h"
#include "emit/gen_signature.h"
#include "emit/generate.h"
#include "lua/lua_recipes.h"
#include "lua/templates_builtin.h"

/* What a function writes to a stream, as a string (malloc'ed). */
typedef struct captured {
  char *text;
  size_t len;
  FILE *f;
} captured;

static FILE *capture(captured *c) {
  memset(c, 0, sizeof *c);
  c->f = open_memstream(&c->text, &c->len);
  assert_non_null(c->f);
  return c->f;
}

static char *captured_text(captured *c) {
  assert_int_equal(fclose(c->f), 0);
  return c->text;
}

/* rcr stands for these: rcr_pivots, rcr_N and rcr_refine_N (generate.c's expand_rcr). */
static int part_of_rcr(const char *name) {
  int k;
  char end;
  return strcmp(name, "rcr_pivots") == 0 || sscanf(name, "rcr_%d%c", &k, &end) == 1 ||
         sscanf(name, "rcr_refine_%d%c", &k, &end) == 1;
}

static void every_line_is_sound(void **state) {
  (void)state;
  int n = 0;
  for (const mbg_fn *f = mbg_fns; f->name; f++, n++) {
    if (!f->brief || !f->brief[0] || strchr(f->brief, '\n'))
      fail_msg("%s: no one-line description", f->name);
    if ((unsigned)f->group >= MBG_FN_NGROUPS) fail_msg("%s: no group", f->name);
    if (mbg_fn_find(f->name) != f) fail_msg("%s: listed twice", f->name);
    /* a recipe's function has no prototype of its own; a template's has no recipe */
    if ((f->prototype != NULL) == mbg_lua_is_builtin_function(f->name))
      fail_msg("%s: %s", f->name, f->prototype ? "a prototype, and a recipe" : "no recipe");
    if (!f->asked && !f->prototype) fail_msg("%s: not asked for, and not a template's", f->name);
  }
  assert_true(n >= 40);
  /* generate.c's names are the table's */
  const char *all[64];
  int k = 0, nb = mbg_gen_builtin_functions(all, 64);
  for (const mbg_fn *f = mbg_fns; f->name; f++)
    if (f->asked) assert_string_equal(all[k++], f->name);
  assert_int_equal(k, nb);
}

static void every_recipe_is_listed(void **state) {
  (void)state;
  for (const mbg_lua_recipe *e = mbg_lua_recipes; e->name; e++)
    if (!mbg_fn_find(e->name) && !part_of_rcr(e->name))
      fail_msg("the registry's %s is not in emit/gen_functions.c", e->name);
  for (const mbg_builtin_template *t = mbg_builtin_templates; t->name; t++) {
    char stem[128];
    if (sscanf(t->name, "algorithms/%127[a-z0-9_].lua", stem) == 1 && !mbg_fn_find(stem) &&
        !part_of_rcr(stem))
      fail_msg("%s is not in emit/gen_functions.c", t->name);
  }
}

/* Every line of text at most 100 columns. */
static void short_lines(const char *what, const char *text) {
  for (const char *p = text; *p;) {
    size_t len = strcspn(p, "\n");
    if (len > 100) fail_msg("%s: a line of %zu columns: %.*s", what, len, (int)len, p);
    p += len + (p[len] == '\n');
  }
}

static void generate_help_lists_every_function(void **state) {
  (void)state;
  captured c;
  assert_int_equal(mbg_cli_print_help("generate", capture(&c)), 0);
  char *help = captured_text(&c);
  short_lines("mbdc generate --help", help);
  assert_non_null(strstr(help, "usage: mbdc generate"));
  assert_non_null(strstr(help, "\nExit status: "));
  for (const mbg_fn *f = mbg_fns; f->name; f++) {
    char line[256];
    snprintf(line, sizeof line, "\n    %s ", f->name);
    const char *at = strstr(help, line);
    if (!at) fail_msg("mbdc generate --help does not list %s", f->name);
    const char *end = strchr(at + 1, '\n');
    snprintf(line, sizeof line, " %s", f->brief);
    if (!end || (size_t)(end - at) < strlen(line) ||
        strncmp(end - strlen(line), line, strlen(line)) != 0)
      fail_msg("mbdc generate --help: %s without its description", f->name);
  }
  free(help);
  assert_non_null(strstr(mbg_cli_usage, "\n  functions "));
}

static void functions_command_lists_every_signature(void **state) {
  (void)state;
  const char *scalars[] = {"double", "float"};
  mbg_signature_host *h = mbg_signature_host_new();
  assert_non_null(h);
  for (int json = 0; json < 2; json++)
    for (int s = 0; s < 2; s++) {
      captured c;
      assert_int_equal(mbg_cli_functions(capture(&c), json, s, stderr), 0);
      char *text = captured_text(&c);
      for (const mbg_fn *f = mbg_fns; f->name; f++) {
        char sig[2048], want[2200];
        if (mbg_signature(h, f, scalars[s], sig, sizeof sig) != 0) fail_msg("%s: %s", f->name, sig);
        if (strncmp(sig, "void P_", 7) != 0 && strncmp(sig, "int P_", 6) != 0)
          fail_msg("%s: %s", f->name, sig);
        if (strstr(sig, s ? "double" : "float")) fail_msg("%s, %s: %s", f->name, scalars[s], sig);
        snprintf(want, sizeof want, json ? "\"signature\": \"%s\"" : "\n    %s\n", sig);
        if (!strstr(text, want))
          fail_msg("mbdc functions%s does not give %s", json ? " --json" : "", sig);
        snprintf(want, sizeof want, json ? "\"name\": \"%s\"" : "\n  %s ", f->name);
        if (!strstr(text, want)) fail_msg("mbdc functions does not name %s", f->name);
      }
      free(text);
    }
  mbg_signature_host_free(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_line_is_sound),
      cmocka_unit_test(every_recipe_is_listed),
      cmocka_unit_test(generate_help_lists_every_function),
      cmocka_unit_test(functions_command_lists_every_signature),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
