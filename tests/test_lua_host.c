/* test_lua_host.c — the embedded Lua: sandbox, template lookup, errors naming file:line,
 * read-only tables, templates kept apart, the limits, the panic handler, import, where recipes and
 * libraries are found and the registry of the recipes libraries make, and the symbolic-scalar
 * binding (generator/lua/lua_host.c, lua_recipes.c, lua_sym.c). References: the contract in
 * docs/templates.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emit/generate.h"
#include "lua/lua_host.h"
#include "lua/lua_recipes.h"
#include "lua/lua_sym.h"
#include "lua/templates_builtin.h"

static char tmpdir[64];

static void write_file(const char *rel, const char *text) {
  char path[256];
  snprintf(path, sizeof path, "%s/algorithms", tmpdir);
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/c", tmpdir);
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/lib", tmpdir);
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Run Lua source as template algorithms/t.lua; returns mbg_lua_run's status. */
static int run(mbg_lua *h, const char *source) {
  write_file("algorithms/t.lua", source);
  return mbg_lua_run(h, "algorithms/t.lua");
}

static void sandbox_has_no_io(void **state) {
  (void)state;
  mbg_lua *h = mbg_lua_new(tmpdir);
  assert_non_null(h);
  const char *names[] = {"io", "os", "debug", "package", "load", "loadfile", "dofile", "require",
                         "collectgarbage", "print", "string.dump", "math.random",
                         "math.randomseed"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    char src[128];
    snprintf(src, sizeof src, "return %s == nil", names[k]);
    assert_int_equal(run(h, src), 0);
    if (!lua_toboolean(mbg_lua_state(h), -1))
      fail_msg("%s is reachable from the sandbox", names[k]);
    lua_pop(mbg_lua_state(h), 1);
  }
  /* what templates need is there */
  assert_int_equal(run(h, "return string.format('%d', math.max(1, 2)) .. table.concat({'a'})"), 0);
  assert_string_equal(lua_tostring(mbg_lua_state(h), -1), "2a");
  mbg_lua_free(h);
}

static void errors_name_template_and_line(void **state) {
  (void)state;
  mbg_lua *h = mbg_lua_new(tmpdir);
  assert_int_equal(run(h, "local x = 1\n\nerror('broken recipe')\n"), -1);
  char want[128];
  snprintf(want, sizeof want, "%s/algorithms/t.lua:3: broken recipe", tmpdir);
  assert_non_null(strstr(mbg_lua_error(h), want));
  assert_non_null(strstr(mbg_lua_error(h), "stack traceback"));
  /* a syntax error is located too */
  assert_int_equal(run(h, "return {\n  x = = 1 }\n"), -1);
  snprintf(want, sizeof want, "%s/algorithms/t.lua:2:", tmpdir);
  assert_non_null(strstr(mbg_lua_error(h), want));
  /* a missing template says where it looked */
  assert_int_equal(mbg_lua_run(h, "algorithms/nope.lua"), -1);
  assert_non_null(strstr(mbg_lua_error(h), "no template 'algorithms/nope.lua'"));
  mbg_lua_free(h);
}

static void builtin_templates_are_found(void **state) {
  (void)state;
  mbg_lua *h = mbg_lua_new(NULL);
  assert_true(mbg_lua_has_template(h, "c/header.lua"));
  assert_true(mbg_lua_has_template(h, "c/check.lua"));
  assert_false(mbg_lua_has_template(h, "c/none.lua"));
  assert_int_equal(mbg_lua_run(h, "c/header.lua"), 0);
  assert_true(lua_isfunction(mbg_lua_state(h), -1));
  mbg_lua_free(h);
}

static void globals_stay_in_their_template(void **state) {
  (void)state;
  mbg_lua *h = mbg_lua_new(tmpdir);
  assert_int_equal(run(h, "leaked = 42; return true"), 0);
  assert_int_equal(run(h, "return leaked == nil"), 0);
  assert_true(lua_toboolean(mbg_lua_state(h), -1));
  mbg_lua_free(h);
}

static void import_runs_once(void **state) {
  (void)state;
  mbg_lua *h = mbg_lua_new(tmpdir);
  write_file("algorithms/lib.lua", "return {}");
  assert_int_equal(run(h, "return import 'lib' == import 'lib'"), 0);
  assert_true(lua_toboolean(mbg_lua_state(h), -1));
  assert_int_equal(run(h, "return import '../etc/passwd'"), -1);
  assert_non_null(strstr(mbg_lua_error(h), "bad module name"));
  mbg_lua_free(h);
}

static void frozen_tables_read_but_refuse_writes(void **state) {
  (void)state;
  mbg_lua *h = mbg_lua_new(tmpdir);
  lua_State *L = mbg_lua_state(h);
  assert_int_equal(run(h, "return {10, 20, 30, inner = {x = 1}}"), 0);
  mbg_lua_freeze(L, -1);
  lua_setglobal(L, "t");
  assert_int_equal(run(h, "local s = 0; for _, v in ipairs(t) do s = s + v end\n"
                          "local n = 0; for _ in pairs(t) do n = n + 1 end\n"
                          "return #t == 3 and s == 60 and n == 4 and t.inner.x == 1"), 0);
  assert_true(lua_toboolean(L, -1));
  lua_pop(L, 1);
  assert_int_equal(run(h, "t.inner.x = 2"), -1);
  assert_non_null(strstr(mbg_lua_error(h), "read-only"));
  assert_int_equal(run(h, "t[4] = 2"), -1);
  assert_non_null(strstr(mbg_lua_error(h), "read-only"));
  mbg_lua_free(h);
}

/* A read-only table cannot be changed by any means the sandbox has: rawset is refused, and the
 * table behind the proxy never reaches Lua (pairs used to hand it out as its state). */
static void read_only_tables_stay_read_only(void **state) {
  (void)state;
  mbg_lua *h = mbg_lua_new(tmpdir);
  lua_State *L = mbg_lua_state(h);
  assert_int_equal(run(h, "return {10, 20, prefix = 'arm', inner = {x = 1}}"), 0);
  mbg_lua_freeze(L, -1);
  lua_setglobal(L, "t");
  const char *attempts[] = {
    "rawset(t, 'prefix', 'evil')",
    "rawset(t.inner, 'x', 2)",
    "rawset(t, 3, 30)",
    "local _, raw = pairs(t); raw.prefix = 'evil'",
    "local _, raw = pairs(t.inner); rawset(raw, 'x', 2)",
    "setmetatable(t, nil).prefix = 'evil'",
    "table.insert(t, 30)",
  };
  for (size_t k = 0; k < sizeof attempts / sizeof attempts[0]; k++) {
    if (run(h, attempts[k]) == 0) fail_msg("'%s' changed a read-only table", attempts[k]);
    if (!strstr(mbg_lua_error(h), "read-only") && !strstr(mbg_lua_error(h), "protected"))
      fail_msg("'%s': %s", attempts[k], mbg_lua_error(h));
  }
  assert_int_equal(run(h, "local n = 0; for k, v in pairs(t) do n = n + 1 end\n"
                          "return t.prefix == 'arm' and t.inner.x == 1 and #t == 2 and n == 4\n"
                          "  and t[3] == nil and getmetatable(t) == 'read-only'"), 0);
  assert_true(lua_toboolean(L, -1));
  /* rawset still works on a template's own tables */
  assert_int_equal(run(h, "local mine = {}; rawset(mine, 'a', 1); return mine.a == 1"), 0);
  assert_true(lua_toboolean(L, -1));
  mbg_lua_free(h);
}

/* What one template changes in its globals or in the libraries stays its own. */
static void templates_cannot_change_each_other(void **state) {
  (void)state;
  mbg_lua *h = mbg_lua_new(tmpdir);
  lua_State *L = mbg_lua_state(h);
  assert_int_equal(run(h, "string.upper = nil; math.pi = 3; table.concat = nil\n"
                          "_G.leak = 1; rawset(_G, 'leak2', 2); import = nil\n"
                          "return getmetatable('')"), 0);
  assert_false(lua_toboolean(L, -1)); /* the strings' metatable (the real string table) hidden */
  lua_pop(L, 1);
  assert_int_equal(run(h, "return string.upper ~= nil and math.pi > 3.14 and table.concat ~= nil\n"
                          "  and leak == nil and leak2 == nil and import ~= nil\n"
                          "  and ('x'):upper() == 'X' and _G == _ENV"), 0);
  assert_true(lua_toboolean(L, -1));
  mbg_lua_free(h);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A runaway template stops at the time limit, naming itself, the limit and the option; a pcall
 * in it cannot swallow the error; the host runs the next template as usual. */
static void time_limit_stops_a_runaway(void **state) {
  (void)state;
  mbg_lua *h = mbg_lua_new(tmpdir);
  mbg_lua_set_limits(h, 0.2, 0);
  const char *loops[] = {"local n = 0\nwhile true do n = n + 1 end",
                         "while true do pcall(function() while true do end end) end",
                         "local t = {}\nrepeat t[#t % 100 + 1] = {} until false"};
  for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
    double t0 = now();
    assert_int_equal(run(h, loops[k]), -1);
    if (now() - t0 > 20) fail_msg("'%s' stopped only after %.1f s", loops[k], now() - t0);
    const char *e = mbg_lua_error(h);
    if (!strstr(e, "algorithms/t.lua:") || !strstr(e, "time limit (0.2 s") ||
        !strstr(e, "--lua-time"))
      fail_msg("'%s': %s", loops[k], e);
  }
  assert_int_equal(run(h, "local s = 0; for i = 1, 1000 do s = s + i end; return s"), 0);
  assert_int_equal(lua_tointeger(mbg_lua_state(h), -1), 500500);
  /* Lua runs finalizers with hooks off: a template cannot have one (it could never be stopped) */
  assert_int_equal(run(h, "kept = setmetatable({}, {__gc = function() while true do end end})"),
                   -1);
  assert_non_null(strstr(mbg_lua_error(h), "templates cannot have finalizers (__gc)"));
  assert_int_equal(run(h, "return getmetatable(setmetatable({}, {__index = {a = 1}})).__index.a"),
                   0);
  assert_int_equal(lua_tointeger(mbg_lua_state(h), -1), 1);
  mbg_lua_free(h);
}

/* A template that allocates without end stops at the memory cap with a message naming it, the
 * limit and the option; what it held is collected and the host goes on. */
static void memory_limit_stops_a_bomb(void **state) {
  (void)state;
  mbg_lua *h = mbg_lua_new(tmpdir);
  mbg_lua_set_limits(h, 0, 32 << 20);
  const char *bombs[] = {"local t = {}\nfor i = 1, 1e12 do t[i] = {i} end",
                         "return string.rep('x', 1 << 30)",
                         "local s = 'x'\nwhile true do s = s .. s end"};
  for (size_t k = 0; k < sizeof bombs / sizeof bombs[0]; k++) {
    assert_int_equal(run(h, bombs[k]), -1);
    const char *e = mbg_lua_error(h);
    if (!strstr(e, "algorithms/t.lua: the Lua memory limit is reached (32 MiB") ||
        !strstr(e, "--lua-memory"))
      fail_msg("'%s': %s", bombs[k], e);
    assert_true(mbg_lua_memory_peak(h) <= 32 << 20);
  }
  assert_int_equal(run(h, "local t = {}; for i = 1, 1000 do t[i] = {i} end; return #t"), 0);
  assert_int_equal(lua_tointeger(mbg_lua_state(h), -1), 1000);
  mbg_lua_free(h);
}

/* An unprotected Lua error (a bug in mbdc) ends the process with status 3 and a message, never
 * with Lua's abort(). */
static void panic_exits_with_an_internal_error(void **state) {
  (void)state;
  char log[128];
  snprintf(log, sizeof log, "%s/panic.log", tmpdir);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    if (!freopen(log, "w", stderr)) _exit(99);
    mbg_lua *h = mbg_lua_new(NULL);
    lua_State *L = mbg_lua_state(h);
    lua_pushliteral(L, "escaped on purpose");
    lua_error(L); /* outside any lua_pcall */
    _exit(98);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (!WIFEXITED(status)) fail_msg("the panic killed the process (signal %d)", WTERMSIG(status));
  assert_int_equal(WEXITSTATUS(status), 3);
  FILE *f = fopen(log, "r");
  char text[512] = "";
  assert_non_null(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  assert_non_null(strstr(text, "mbdc: internal error:"));
  assert_non_null(strstr(text, "escaped on purpose"));
}

/* A user's template that is there but cannot be read is an error, never replaced by the built-in
 * one; an import cycle is reported as one. */
static void unreadable_templates_and_cycles(void **state) {
  (void)state;
  char path[256];
  mbg_lua *h = mbg_lua_new(tmpdir);
  write_file("algorithms/t.lua", "return 1"); /* makes algorithms/ and c/ */
  snprintf(path, sizeof path, "%s/c/header.lua", tmpdir);
  assert_int_equal(symlink("/nonexistent/header.lua", path), 0);
  assert_int_equal(mbg_lua_run(h, "c/header.lua"), -1);
  assert_non_null(strstr(mbg_lua_error(h), "cannot read template"));
  assert_non_null(strstr(mbg_lua_error(h), "c/header.lua"));
  unlink(path);
  write_file("algorithms/cyc_a.lua", "return import 'cyc_b'");
  write_file("algorithms/cyc_b.lua", "return import 'cyc_a'");
  assert_int_equal(run(h, "return import 'cyc_a'"), -1);
  assert_non_null(strstr(mbg_lua_error(h), "import cycle"));
  mbg_lua_free(h);
}

/* ---- the sym binding ------------------------------------------------------------------------ */

typedef struct fixture {
  mbg_lua *h;
  mbg_lsym ctx;
  mbg_sym *s;
} fixture;

static void open_sym(fixture *f) {
  memset(f, 0, sizeof *f);
  f->h = mbg_lua_new(tmpdir);
  f->s = mbg_sym_new();
  mbg_lsym_open(mbg_lua_state(f->h), &f->ctx);
  mbg_lsym_begin(&f->ctx, f->s);
  assert_int_equal(mbg_lsym_array_add(&f->ctx, "q", 2, 0), 0);
  assert_int_equal(mbg_lsym_array_add(&f->ctx, "tau", 2, 1), 0);
}

static void close_sym(fixture *f) {
  mbg_lsym_end(&f->ctx);
  mbg_lua_free(f->h);
  mbg_sym_free(f->s);
}

static void folding_gives_plain_numbers(void **state) {
  (void)state;
  fixture f;
  open_sym(&f);
  /* x·0 = 0 and x − x = 0 come back as Lua numbers; x·1 is x itself; constants fold in Lua */
  assert_int_equal(run(f.h,
                       "local x = sym.input('q', 0)\n"
                       "return math.type(x * 0) == 'float' and x * 0 == 0 and x - x == 0\n"
                       "  and x * 1 == x and sym.is_symbolic(x) and not sym.is_symbolic(2 * 3)\n"
                       "  and sym.sqrt(4) == 2 and select(2, sym.sincos(0)) == 1"),
                   0);
  assert_true(lua_toboolean(mbg_lua_state(f.h), -1));
  close_sym(&f);
}

static void outputs_are_checked(void **state) {
  (void)state;
  fixture f;
  char missing[64];
  open_sym(&f);
  assert_int_equal(run(f.h, "sym.output('tau', 0, sym.input('q', 1) * 2)"), 0);
  assert_int_equal(mbg_lsym_missing(&f.ctx, missing, sizeof missing), 1);
  assert_string_equal(missing, "tau[1]");
  assert_int_equal(run(f.h, "sym.output('tau', 0, 1)"), -1);
  assert_non_null(strstr(mbg_lua_error(f.h), "tau[0] written twice"));
  assert_int_equal(run(f.h, "sym.output('tau', 1, 0)"), 0);
  assert_int_equal(mbg_lsym_missing(&f.ctx, missing, sizeof missing), 0);
  assert_int_equal(mbg_sym_output_count(f.s), 2);
  close_sym(&f);
}

static void misuse_is_reported(void **state) {
  (void)state;
  fixture f;
  open_sym(&f);
  struct {
    const char *src, *msg;
  } cases[] = {
    {"return sym.input('q', 2)", "index 2 out of range for 'q' (size 2, 0-based)"},
    {"return sym.input('v', 0)", "'v' is not a parameter of this function"},
    {"return sym.input('tau', 0)", "'tau' is an output of this function, not an input"},
    {"return sym.input('q', 0) < 1", "cannot be compared"},
    {"return sym.input('q', 0) ^ 2", "not supported"},
    {"return sym.input('q', 0) + {}", "expected a number or a symbolic value, got table"},
    {"sym.pivot(-1)", "the reference r of the pivot is missing"},
    {"sym.pivot(-1, 2)", "pivot of a factorization is the constant -1 against the reference 2"},
    {"sym.pivot(1e-13, 1, 'joint x')", "the pivot of joint x is the constant 1e-13 against"},
    {"sym.pivot(1, 0)", "pivot of a factorization is the constant 1 against the reference 0"},
    {"sym.pivot(sym.input('q', 0), -1)", "the reference of a pivot of a factorization is the "
                                         "constant -1"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    assert_int_equal(run(f.h, cases[k].src), -1);
    if (!strstr(mbg_lua_error(f.h), cases[k].msg))
      fail_msg("'%s': got '%s'", cases[k].src, mbg_lua_error(f.h));
  }
  /* a value kept from another function is refused */
  assert_int_equal(run(f.h, "kept = sym.input('q', 0); return kept"), 0);
  lua_setglobal(mbg_lua_state(f.h), "kept");
  mbg_sym *s2 = mbg_sym_new();
  mbg_lsym_begin(&f.ctx, s2);
  assert_int_equal(run(f.h, "return kept + 1"), -1);
  assert_non_null(strstr(mbg_lua_error(f.h), "another generated function"));
  mbg_sym_free(s2);
  close_sym(&f);
}

/* ---- where recipes and libraries are found (lua_recipes.h) ---------------------------------- */

static void remove_file(const char *rel) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
  unlink(path);
}

/* Run the recipe of function name on a fresh host (imports are cached per host) and return its
 * field `key` as a string ("" if it is not one; "error: ..." when the run fails). */
static const char *recipe_field(const char *name, const char *key) {
  static char got[256];
  mbg_lua *h = mbg_lua_new(tmpdir);
  assert_non_null(h);
  if (mbg_lua_run_recipe(h, name) != 0) {
    snprintf(got, sizeof got, "error: %s", mbg_lua_error(h));
  } else {
    lua_State *L = mbg_lua_state(h);
    lua_getfield(L, -1, key);
    snprintf(got, sizeof got, "%s", lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "");
  }
  mbg_lua_free(h);
  return got;
}

/* A user's algorithms/NAME.lua replaces a registry function (com) and a recipe file (nle); a
 * library comes from lib/NAME.lua, else the old place algorithms/NAME.lua, else the built-in
 * one. */
static void recipes_and_libraries_in_their_order(void **state) {
  (void)state;
  const char *lib = "return {recipe = function(n) return {name = n, from = '%s'} end}";
  char text[128];
  assert_string_equal(recipe_field("com", "name"), "com"); /* built in: the registry */
  assert_string_equal(recipe_field("com", "from"), "");
  write_file("algorithms/com.lua", "return {name = 'com', from = 'mine'}");
  write_file("algorithms/nle.lua", "return {name = 'nle', from = 'mine'}");
  assert_string_equal(recipe_field("com", "from"), "mine");
  assert_string_equal(recipe_field("nle", "from"), "mine");
  remove_file("algorithms/com.lua");
  remove_file("algorithms/nle.lua");
  snprintf(text, sizeof text, lib, "algorithms");
  write_file("algorithms/mass_props.lua", text);
  assert_string_equal(recipe_field("energy", "from"), "algorithms");
  snprintf(text, sizeof text, lib, "lib");
  write_file("lib/mass_props.lua", text);
  assert_string_equal(recipe_field("energy", "from"), "lib");
  assert_string_equal(recipe_field("rcr_0", "name"), "rcr_0"); /* another library: built in */
  mbg_lua *h = mbg_lua_new(tmpdir);
  char where[160];
  mbg_lua_recipe_where(h, "com", where, sizeof where);
  assert_string_equal(where, "lib/mass_props.lua (com)");
  mbg_lua_recipe_where(h, "rnea", where, sizeof where);
  assert_string_equal(where, "algorithms/rnea.lua");
  /* import of a function's name is its recipe, of any other name a library */
  assert_int_equal(run(h, "return import('com').from == 'lib' and import('spatial').dot ~= nil "
                          "and import('mass_props') ~= import('com')"), 0);
  assert_true(lua_toboolean(mbg_lua_state(h), -1));
  assert_int_equal(run(h, "return import 'no_such_module'"), -1);
  assert_non_null(strstr(mbg_lua_error(h), "import: no module 'no_such_module'"));
  /* a function's name in lib/ is no recipe; a library is no function */
  write_file("lib/gravity.lua", "return {name = 'gravity', from = 'lib'}");
  assert_string_equal(recipe_field("gravity", "from"), "");
  assert_false(mbg_lua_has_recipe(h, "spatial"));
  assert_false(mbg_lua_has_recipe(h, "no_such_function"));
  assert_int_equal(mbg_lua_run_recipe(h, "spatial"), -1);
  assert_non_null(strstr(mbg_lua_error(h), "no recipe 'spatial'"));
  mbg_lua_free(h);
  /* a library without the registry's entry */
  write_file("lib/mass_props.lua", "return {}");
  assert_non_null(strstr(recipe_field("ccrba", "name"), "the recipe of ccrba is "
                         "import(\"mass_props\").recipe(\"ccrba\"), but the library has no "
                         "function recipe"));
  remove_file("lib/mass_props.lua");
  remove_file("lib/gravity.lua");
  remove_file("algorithms/mass_props.lua");
}

/* 1 if name is among the built-in functions a user may ask for, or one "rcr" stands for. */
static int listed(const char *name, const char *const *all) {
  for (int k = 0; all[k]; k++)
    if (strcmp(all[k], name) == 0) return 1;
  if (strcmp(name, "trig") == 0 || strcmp(name, "rcr_pivots") == 0) return 1; /* --trig-input */
  return strncmp(name, "rcr_", 4) == 0 && listed("rcr", all);
}

/* The registry, the recipe files and the functions mbdc offers agree: every function has a
 * recipe that makes a table of its name with a build function; every registry line names a
 * built-in library and an entry it has; no name is both a library and a function. */
static void registry_agrees_with_the_functions(void **state) {
  (void)state;
  const char *all[64], *parts[] = {"rcr_pivots", "rcr_0", "rcr_refine_0", "trig", NULL};
  mbg_gen_builtin_functions(all, 64);
  mbg_lsym ctx;
  memset(&ctx, 0, sizeof ctx);
  mbg_lua *h = mbg_lua_new(NULL);
  lua_State *L = mbg_lua_state(h);
  mbg_lsym_open(L, &ctx); /* recipes read sym when they load */
  const char **lists[] = {all, parts};
  for (int l = 0; l < 2; l++)
    for (int k = 0; lists[l][k]; k++) {
      const char *name = lists[l][k];
      if (strcmp(name, "rcr") == 0) continue; /* stands for its parts */
      if (!mbg_lua_has_recipe(h, name)) fail_msg("function %s has no recipe", name);
      if (mbg_lua_run_recipe(h, name) != 0) fail_msg("%s: %s", name, mbg_lua_error(h));
      lua_getfield(L, -1, "name");
      lua_getfield(L, -2, "build");
      if (!lua_isstring(L, -2) || strcmp(lua_tostring(L, -2), name) != 0 || !lua_isfunction(L, -1))
        fail_msg("the recipe of %s has no name %s or no build function", name, name);
      lua_settop(L, 0);
    }
  for (const mbg_lua_recipe *e = mbg_lua_recipes; e->name; e++) {
    if (e != mbg_lua_recipes && strcmp(e[-1].name, e->name) >= 0)
      fail_msg("the registry is not sorted by name at %s", e->name);
    if (!mbg_lua_is_builtin_library(e->library) || mbg_lua_is_builtin_function(e->library))
      fail_msg("%s: lib/%s.lua is not a built-in library", e->name, e->library);
    if (!listed(e->name, all)) fail_msg("%s is in the registry, not among the functions", e->name);
  }
  for (const mbg_builtin_template *t = mbg_builtin_templates; t->name; t++) {
    char stem[128];
    int fn = sscanf(t->name, "algorithms/%127[a-z0-9_].lua", stem) == 1;
    if (fn && (mbg_lua_recipe_find(stem) || mbg_lua_is_builtin_library(stem) ||
               !listed(stem, all)))
      fail_msg("%s: a recipe file also in the registry, a library, or not offered", t->name);
    if (sscanf(t->name, "lib/%127[a-z0-9_].lua", stem) == 1 && mbg_lua_is_builtin_function(stem))
      fail_msg("%s: a library with a function's name", t->name);
  }
  mbg_lua_free(h);
}

static int setup(void **state) {
  (void)state;
  strcpy(tmpdir, "/tmp/mbdc-lua-XXXXXX");
  return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(sandbox_has_no_io),
    cmocka_unit_test(errors_name_template_and_line),
    cmocka_unit_test(builtin_templates_are_found),
    cmocka_unit_test(globals_stay_in_their_template),
    cmocka_unit_test(import_runs_once),
    cmocka_unit_test(frozen_tables_read_but_refuse_writes),
    cmocka_unit_test(read_only_tables_stay_read_only),
    cmocka_unit_test(templates_cannot_change_each_other),
    cmocka_unit_test(time_limit_stops_a_runaway),
    cmocka_unit_test(memory_limit_stops_a_bomb),
    cmocka_unit_test(panic_exits_with_an_internal_error),
    cmocka_unit_test(unreadable_templates_and_cycles),
    cmocka_unit_test(recipes_and_libraries_in_their_order),
    cmocka_unit_test(registry_agrees_with_the_functions),
    cmocka_unit_test(folding_gives_plain_numbers),
    cmocka_unit_test(outputs_are_checked),
    cmocka_unit_test(misuse_is_reported),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
