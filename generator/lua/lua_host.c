/* lua_host.c — the sandboxed Lua state that runs recipes and render templates. */
#include "lua/lua_host.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/readfile.h"
#include "lua/lua_alloc.h"
#include "lua/lua_readonly.h"
#include "lua/lua_recipes.h"
#include "lua/templates_builtin.h"

/* While a template runs under a time limit, a CPU timer (ITIMER_VIRTUAL) ticks every TICK_USEC
 * of user time. */
enum { TICK_USEC = 100000 };
/* CPU seconds past the limit after which the process is stopped from the timer's signal (below). */
#define HARD_GRACE 2.0

struct mbg_lua {
  lua_State *L;
  mbg_lua_pool *pool; /* the state's small blocks and its memory cap (lua_alloc.h) */
  char *user_dir;
  char *error;
  const char *running;        /* the template of the last mbg_lua_run; NULL in mbg_lua_cpcall */
  char running_name[128];
  double max_seconds;         /* CPU time per template run; 0: none */
  double start;               /* process CPU time at the last mbg_lua_run */
  int over;                   /* the time limit was reached in this run */
  char stop_msg[384];         /* what the watchdog writes before it stops the process */
  size_t stop_len;
  char **read;                /* the user's files read, by template name */
  int nread, cap_read;
};

static const char IMPORTS_KEY[] = "mbdc.imports"; /* registry: name -> value of import(name) */

/* The host of a state: kept in the state's extra space (no lookup, no allocation). */
static mbg_lua *host_of(lua_State *L) { return *(mbg_lua **)lua_getextraspace(L); }

/* ---- errors --------------------------------------------------------------------------------- */

void mbg_lua_set_error(mbg_lua *h, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  free(h->error);
  h->error = malloc((size_t)(n > 0 ? n : 0) + 1);
  if (!h->error) return;
  va_start(ap, fmt);
  vsnprintf(h->error, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
  va_end(ap);
}

const char *mbg_lua_error(const mbg_lua *h) { return h->error ? h->error : ""; }

/* Message handler: the error text, then the traceback of the failing Lua code — except for a
 * limit reached (time, or the expression graph's memory: lua_sym.c), which is not the template's
 * fault and whose message already says what to do. */
static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  if (strstr(msg, " ran past the time limit (") ||
      strstr(msg, "the memory limit is reached: this function's expression graph"))
    return lua_pushstring(L, msg), 1;
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/* The message of a failed lua_pcall (rc) on the stack top, into h->error. */
static void record_error(mbg_lua *h, int rc) {
  lua_State *L = h->L;
  const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(no message)";
  if ((rc == LUA_ERRMEM || rc == LUA_ERRERR) && mbg_lua_pool_refused(h->pool)) {
    long long mib = (long long)(mbg_lua_pool_limit(h->pool) >> 20);
    int user = h->running && mbg_lua_read_user_file(h, h->running);
    if (h->running)
      mbg_lua_set_error(h, "%s%s%s: the Lua memory limit is reached (%lld MiB in all); raise it "
                        "with --lua-memory MiB (0: no limit)", user ? h->user_dir : "",
                        user ? "/" : "", h->running, mib);
    else
      mbg_lua_set_error(h, "the Lua memory limit is reached (%lld MiB in all) while building the "
                        "tables the templates read; raise it with --lua-memory MiB (0: no limit)",
                        mib);
  } else {
    mbg_lua_set_error(h, "%s", msg);
  }
}

/* ---- the time limit ------------------------------------------------------------------------ */

/* The time limit costs nothing while the template runs: no hook is set (a count hook would slow
 * the interpreter by a fifth, every instruction calling into it). A CPU timer's signal sets a
 * hook for the next instruction — lua_sethook is safe in a signal handler (ldebug.c, and lua.c's
 * interrupt) — and the hook compares the CPU time the template took with the limit, then takes
 * itself away.
 *
 * Two things escape the hook: a message handler of xpcall (or an error object's __tostring)
 * that never returns — Lua runs it for the hook's own error with hooks off — and one long call
 * into the C library (a backtracking string.find). The timer's signal is the watchdog for both:
 * HARD_GRACE CPU seconds past the limit it writes the template's name and the limit to stderr
 * and ends the process with status 1, as kill -9 would (the output set is staged: nothing
 * half-written is left, base/outset.h). */

static lua_State *volatile ticking; /* the state whose template runs under the timer, or NULL */

static double cpu_seconds(void) {
  struct timespec t;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return 0;
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void tick_hook(lua_State *L, lua_Debug *ar) {
  mbg_lua *h = host_of(L);
  if (!h->over) {
    lua_sethook(L, NULL, 0, 0);
    if (cpu_seconds() - h->start < h->max_seconds) return;
    /* from now on at every instruction: a pcall in the template cannot swallow the error, the
     * next instruction after it raises it again */
    h->over = 1;
    lua_sethook(L, tick_hook, LUA_MASKCOUNT, 1);
  }
  lua_getinfo(L, "Sl", ar);
  int user = h->running && mbg_lua_read_user_file(h, h->running);
  lua_pushfstring(L, "%s:%d: %s%s%s ran past the time limit (%f s of CPU time per template run); "
                  "raise it with --lua-time SECONDS (0: no limit)", ar->short_src,
                  ar->currentline, user ? h->user_dir : "", user ? "/" : "",
                  h->running ? h->running : "a template", h->max_seconds);
  lua_error(L);
}

/* Only async-signal-safe calls: clock_gettime, write, _exit. */
static void on_tick(int sig) {
  (void)sig;
  lua_State *L = ticking;
  if (!L) return;
  const mbg_lua *h = host_of(L);
  if (cpu_seconds() - h->start > h->max_seconds + HARD_GRACE) {
    ssize_t n = write(STDERR_FILENO, h->stop_msg, h->stop_len);
    (void)n;
    _exit(1);
  }
  lua_sethook(L, tick_hook, LUA_MASKCOUNT, 1);
}

/* Start the CPU timer for h's state (when h has a time limit); 1 if started. The handler stays
 * installed once installed: it does nothing while no template runs. */
static int start_timer(mbg_lua *h) {
  static int installed;
  if (h->max_seconds <= 0 || ticking) return 0;
  if (!installed) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tick;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGVTALRM, &sa, NULL) != 0) return 0;
    installed = 1;
  }
  int user = h->running && mbg_lua_read_user_file(h, h->running);
  int n = snprintf(h->stop_msg, sizeof h->stop_msg,
                   "mbdc: error: %s%s%s still ran %g s of CPU time past the time limit (%g s "
                   "per template run): an error handler that does not return, or one long call "
                   "into the C library; stopped (raise it with --lua-time SECONDS, 0: no "
                   "limit)\n", user ? h->user_dir : "", user ? "/" : "",
                   h->running ? h->running : "a template", HARD_GRACE, h->max_seconds);
  h->stop_len = n < 0 ? 0 : (size_t)n < sizeof h->stop_msg ? (size_t)n : sizeof h->stop_msg - 1;
  ticking = h->L;
  struct itimerval it = {{0, TICK_USEC}, {0, TICK_USEC}};
  if (setitimer(ITIMER_VIRTUAL, &it, NULL) != 0) return ticking = NULL, 0;
  return 1;
}

static void stop_timer(mbg_lua *h) {
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_VIRTUAL, &off, NULL);
  ticking = NULL;
  if (!h->over) lua_sethook(h->L, NULL, 0, 0); /* a tick after the template's last instruction */
}

void mbg_lua_set_limits(mbg_lua *h, double seconds, long long bytes) {
  h->max_seconds = seconds > 0 ? seconds : 0;
  mbg_lua_pool_set_limit(h->pool, bytes > 0 ? (size_t)bytes : 0);
}

size_t mbg_lua_memory_peak(const mbg_lua *h) { return mbg_lua_pool_peak(h->pool); }

/* ---- protected calls ------------------------------------------------------------------------ */

int mbg_lua_call(mbg_lua *h, int nargs, int nresults) {
  lua_State *L = h->L;
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, traceback);
  lua_insert(L, base);
  mbg_lua_pool_clear_refused(h->pool);
  int timed = start_timer(h);
  int rc = lua_pcall(L, nargs, nresults, base);
  if (timed) stop_timer(h);
  lua_remove(L, base);
  if (rc == LUA_OK) return 0;
  record_error(h, rc);
  lua_pop(L, 1);
  return -1;
}

int mbg_lua_cpcall(mbg_lua *h, lua_CFunction f, void *ud, int nresults) {
  h->running = NULL;
  lua_pushcfunction(h->L, f);
  lua_pushlightuserdata(h->L, ud);
  return mbg_lua_call(h, 1, nresults);
}

/* ---- template lookup ------------------------------------------------------------------------ */

static const mbg_builtin_template *builtin(const char *name) {
  for (const mbg_builtin_template *t = mbg_builtin_templates; t->name; t++)
    if (strcmp(t->name, name) == 0) return t;
  return NULL;
}

/* The user's template file DIR/name: 1 with its text (malloc'ed) in *text, 0 when there is
 * none (the built-in one is used), -1 when it is there but cannot be read (why says so).
 * *path (malloc'ed, or NULL) is the file's path. */
static int read_user(const mbg_lua *h, const char *name, char **text, size_t *size, char **path,
                     const char **why) {
  struct stat st;
  *text = *path = NULL;
  *why = "out of memory";
  if (!h->user_dir) return 0;
  size_t n = strlen(h->user_dir) + strlen(name) + 2;
  if (!(*path = malloc(n))) return -1;
  snprintf(*path, n, "%s/%s", h->user_dir, name);
  if (lstat(*path, &st) != 0) {
    *why = strerror(errno);
    return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
  }
  if (stat(*path, &st) != 0) return *why = strerror(errno), -1; /* a link to nothing */
  if (!S_ISREG(st.st_mode)) return *why = "not a regular file", -1;
  if (!(*text = mbg_read_file(*path, size, NULL))) return *why = strerror(errno), -1;
  return 1;
}

int mbg_lua_has_template(const mbg_lua *h, const char *name) {
  size_t size;
  char *path, *text;
  const char *why;
  int found = read_user(h, name, &text, &size, &path, &why) != 0 || builtin(name) != NULL;
  free(text);
  free(path);
  return found;
}

int mbg_lua_read_user_file(const mbg_lua *h, const char *name) {
  for (int k = 0; k < h->nread; k++)
    if (strcmp(h->read[k], name) == 0) return 1;
  return 0;
}

/* Note that the user's file `name` was read. Returns 0, or -1 (out of memory). */
static int note_read(mbg_lua *h, const char *name) {
  if (mbg_lua_read_user_file(h, name)) return 0;
  if (h->nread == h->cap_read) {
    int cap = h->cap_read ? 2 * h->cap_read : 16;
    char **grown = realloc(h->read, (size_t)cap * sizeof *grown);
    if (!grown) return -1;
    h->read = grown, h->cap_read = cap;
  }
  return (h->read[h->nread] = strdup(name)) ? (h->nread++, 0) : -1;
}

/* Replace the table on the stack top by a shallow copy of it. */
static void copy_top(lua_State *L) {
  int t = lua_gettop(L);
  lua_createtable(L, 0, 32);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, t + 1);
  }
  lua_replace(L, t);
}

/* Push a template's environment: a fresh table with the sandbox's globals, every library table
 * (a table without a metatable: string, table, math, sym) copied, so that what a template sets or
 * changes stays its own; read-only tables are shared as they are; _G is the environment. */
static void push_env(lua_State *L) {
  lua_createtable(L, 0, 64);
  lua_pushglobaltable(L);
  lua_pushnil(L);
  while (lua_next(L, -2)) { /* env G k v */
    if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), "_G") == 0) {
      lua_pop(L, 1);
      continue;
    }
    if (lua_type(L, -1) == LUA_TTABLE) {
      if (lua_getmetatable(L, -1)) lua_pop(L, 1);
      else copy_top(L);
    }
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -5);
  }
  lua_pop(L, 1);
  lua_pushvalue(L, -1);
  lua_setfield(L, -2, "_G");
}

/* Push template `name` compiled from its text (the user's file, else the built-in one). Returns
 * 0, or -1 with the message pushed. */
static int load_source(lua_State *L, mbg_lua *h, const char *name) {
  size_t size = 0;
  char *path, *text;
  const char *why;
  int rc, user = read_user(h, name, &text, &size, &path, &why);
  if (user < 0) {
    lua_pushfstring(L, "cannot read template %s: %s", path ? path : name, why);
    rc = LUA_ERRFILE;
  } else if (user > 0 && note_read(h, name) != 0) {
    lua_pushliteral(L, "out of memory");
    rc = LUA_ERRMEM;
  } else if (text) {
    lua_pushfstring(L, "@%s", path);
    rc = luaL_loadbufferx(L, text, size, lua_tostring(L, -1), "t");
    lua_remove(L, -2);
  } else if (builtin(name)) {
    const mbg_builtin_template *t = builtin(name);
    lua_pushfstring(L, "@%s", name);
    rc = luaL_loadbufferx(L, t->text, t->size, lua_tostring(L, -1), "t");
    lua_remove(L, -2);
  } else {
    if (h->user_dir)
      lua_pushfstring(L, "no template '%s' (not in %s, not built in)", name, h->user_dir);
    else
      lua_pushfstring(L, "no template '%s'", name);
    rc = LUA_ERRFILE;
  }
  free(text);
  free(path);
  return rc == LUA_OK ? 0 : -1;
}

/* Push the chunk of template `name` in an environment of its own (push_env). Returns 0, or -1
 * with the message pushed. Raises only memory errors: call it protected. */
static int load_template(lua_State *L, mbg_lua *h, const char *name) {
  if (load_source(L, h, name) != 0) return -1;
  push_env(L);
  lua_setupvalue(L, -2, 1);
  return 0;
}

/* run_template(name as light userdata): true and the template's first value, or false and the
 * message of a template that does not load (no traceback: it never ran). */
static int run_template(lua_State *L) {
  const char *name = lua_touserdata(L, 1);
  if (load_template(L, host_of(L), name) != 0) {
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
  }
  lua_call(L, 0, 1);
  lua_pushboolean(L, 1);
  lua_insert(L, -2);
  return 2;
}

/* A template run begins: its name for the messages, its CPU time from 0. */
static void begin_run(mbg_lua *h, const char *name) {
  snprintf(h->running_name, sizeof h->running_name, "%s", name);
  h->running = h->running_name;
  h->start = cpu_seconds();
  h->over = 0;
}

int mbg_lua_run_cfunction(mbg_lua *h, const char *name, lua_CFunction f, void *ud) {
  begin_run(h, name);
  lua_pushcfunction(h->L, f);
  lua_pushlightuserdata(h->L, ud);
  return mbg_lua_call(h, 1, 1);
}

int mbg_lua_run(mbg_lua *h, const char *name) {
  lua_State *L = h->L;
  begin_run(h, name);
  lua_pushcfunction(L, run_template);
  lua_pushlightuserdata(L, (void *)name);
  if (mbg_lua_call(h, 1, 2) != 0) return -1;
  if (!lua_toboolean(L, -2)) {
    mbg_lua_set_error(h, "%s", lua_tostring(L, -1));
    lua_pop(L, 2);
    return -1;
  }
  lua_remove(L, -2);
  return 0;
}

/* Push the value of module name (base: name without "c/"): its file run (lua_recipes.h finds
 * it), or the recipe its registry line makes. Returns 0, or -1 with the message pushed. */
static int push_module(lua_State *L, const char *name, const char *base) {
  mbg_lua *h = host_of(L);
  char key[256];
  const mbg_lua_recipe *e = NULL;
  mbg_lua_found found = MBG_LUA_FILE;
  if (base != name) snprintf(key, sizeof key, "%s.lua", name);
  else found = mbg_lua_find(h, name, 0, key, sizeof key, &e);
  if (found == MBG_LUA_REGISTRY) return mbg_lua_push_registry(L, e), 0;
  if (found == MBG_LUA_NOWHERE && h->user_dir)
    lua_pushfstring(L, "import: no module '%s' (not %s/lib/%s.lua nor %s/algorithms/%s.lua, not "
                    "built in)", name, h->user_dir, name, h->user_dir, name);
  else if (found == MBG_LUA_NOWHERE)
    lua_pushfstring(L, "import: no module '%s' (not built in)", name);
  if (found == MBG_LUA_NOWHERE || load_template(L, h, key) != 0) return -1;
  lua_call(L, 0, 1);
  return 0;
}

/* import(name): the recipe or library NAME (lua_recipes.h), or c/NAME.lua for "c/NAME", run once
 * per host; its value cached (nil as true). A module imported again while it loads is an import
 * cycle. */
static int l_import(lua_State *L) {
  static const char loading = 0; /* the cache's mark of a module being loaded */
  const char *name = luaL_checkstring(L, 1), *base = name;
  if (strncmp(name, "c/", 2) == 0) base = name + 2;
  for (const char *p = base; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
      return luaL_error(L, "import: bad module name '%s' (NAME or c/NAME: lower case letters, "
                        "digits, _)", name);
  if (!*base) return luaL_error(L, "import: bad module name '%s' (NAME or c/NAME)", name);
  lua_settop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, IMPORTS_KEY); /* 2 */
  int t = lua_getfield(L, 2, name);
  if (t == LUA_TLIGHTUSERDATA && lua_touserdata(L, -1) == &loading)
    return luaL_error(L, "import: '%s' is imported again while it loads (an import cycle), or "
                      "its first load failed", name);
  if (t != LUA_TNIL) return 1;
  lua_pop(L, 1);
  lua_pushlightuserdata(L, (void *)&loading);
  lua_setfield(L, 2, name);
  if (push_module(L, name, base) != 0) return lua_error(L);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
  }
  lua_pushvalue(L, -1);
  lua_setfield(L, 2, name); /* imports[name] = value */
  return 1;
}

/* template_text(name): the text of c/NAME.c, C written into the generated files as it is (the
 * user's file under --templates, else the built-in one). */
static int l_template_text(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  size_t len = strlen(name);
  int ok = len > 4 && strncmp(name, "c/", 2) == 0 && strcmp(name + len - 2, ".c") == 0;
  for (size_t k = 2; ok && k < len - 2; k++)
    ok = (name[k] >= 'a' && name[k] <= 'z') || (name[k] >= '0' && name[k] <= '9') || name[k] == '_';
  if (!ok) return luaL_error(L, "template_text: bad name '%s' (c/NAME.c: lower case letters, "
                             "digits, _)", name);
  mbg_lua *h = host_of(L);
  size_t size = 0;
  char *path, *text;
  const char *why;
  int user = read_user(h, name, &text, &size, &path, &why);
  if (user < 0) {
    lua_pushfstring(L, "cannot read template %s: %s", path ? path : name, why);
    free(path);
    return lua_error(L);
  }
  if (user > 0) {
    int noted = note_read(h, name);
    lua_pushlstring(L, text, size);
    free(text), free(path);
    if (noted != 0) return luaL_error(L, "out of memory");
    return 1;
  }
  free(path);
  const mbg_builtin_template *t = builtin(name);
  if (!t) return luaL_error(L, "no template '%s'", name);
  lua_pushlstring(L, t->text, t->size);
  return 1;
}

void mbg_lua_set_string(lua_State *L, const char *key, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, -2, key);
}

void mbg_lua_set_int(lua_State *L, const char *key, long v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, key);
}

/* ---- the sandbox ---------------------------------------------------------------------------- */

static void remove_field(lua_State *L, const char *table, const char *field) {
  if (table) lua_getglobal(L, table);
  else lua_pushglobaltable(L);
  lua_pushnil(L);
  lua_setfield(L, -2, field);
  lua_pop(L, 1);
}

static int open_sandbox(lua_State *L) {
  /* recipes make millions of short-lived symbolic values: the generational collector reclaims
   * them young instead of re-marking the whole live graph every cycle */
  lua_gc(L, LUA_GCGEN, 0, 0);
  luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
  luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
  luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
  luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
  lua_pop(L, 4);
  static const char *const base_removed[] = {"load", "loadfile", "dofile", "require",
                                             "collectgarbage", "print", NULL};
  for (int k = 0; base_removed[k]; k++) remove_field(L, NULL, base_removed[k]);
  remove_field(L, "string", "dump");
  remove_field(L, "math", "random");
  remove_field(L, "math", "randomseed");
  mbg_lua_open_guards(L);
  /* the strings' metatable leads to the one real string table: hidden */
  lua_pushliteral(L, "");
  if (lua_getmetatable(L, -1)) {
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, IMPORTS_KEY);
  lua_pushcfunction(L, l_import);
  lua_setglobal(L, "import");
  lua_pushcfunction(L, l_template_text);
  lua_setglobal(L, "template_text");
  return 0;
}

/* The last line of defence, never reached: every call into Lua that can raise runs protected. */
static int panic(lua_State *L) {
  const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(no message)";
  fprintf(stderr, "mbdc: internal error: a Lua error escaped every protected call: %s\n"
                  "mbdc: note: this is a bug in mbdc; please report it with the command line "
                  "and the templates used\n", msg);
  fflush(NULL);
  _Exit(MBG_LUA_EXIT_INTERNAL); /* rather than Lua's abort(); the state is beyond use */
}

mbg_lua *mbg_lua_new(const char *user_dir) {
  mbg_lua *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  if (user_dir && !(h->user_dir = strdup(user_dir))) return mbg_lua_free(h), NULL;
  if (!(h->pool = mbg_lua_pool_new())) return mbg_lua_free(h), NULL;
  h->L = lua_newstate(mbg_lua_pool_alloc, h->pool);
  if (!h->L) return mbg_lua_free(h), NULL;
  lua_atpanic(h->L, panic);
  *(mbg_lua **)lua_getextraspace(h->L) = h;
  mbg_lua_set_limits(h, MBG_LUA_DEFAULT_SECONDS, (long long)MBG_LUA_DEFAULT_MEMORY_MIB << 20);
  if (mbg_lua_cpcall(h, open_sandbox, NULL, 0) != 0) return mbg_lua_free(h), NULL;
  return h;
}

void mbg_lua_free(mbg_lua *h) {
  if (!h) return;
  if (h->L) lua_close(h->L);
  mbg_lua_pool_free(h->pool);
  for (int k = 0; k < h->nread; k++) free(h->read[k]);
  free(h->read);
  free(h->user_dir);
  free(h->error);
  free(h);
}

lua_State *mbg_lua_state(mbg_lua *h) { return h->L; }

const char *mbg_lua_user_dir(const mbg_lua *h) { return h->user_dir; }
