/* lua_host.h — the embedded Lua that runs recipes and render templates.
 *
 * One sandboxed state: the base library without load, loadfile, dofile, require,
 * collectgarbage and print, with a rawset that refuses read-only tables; string (without
 * string.dump), table, math (without random and randomseed, so output never depends on a seed);
 * no io, os, debug, package, coroutine. Every template file is loaded as text and runs in an
 * environment of its own: a fresh global table with its own copies of the library tables, so the
 * globals a template sets and its changes to string, table, math or sym stay its own; the data
 * tables it is handed are read-only (mbg_lua_freeze). Templates are looked up by their
 * path under templates/ ("algorithms/rnea.lua"): first in the user's --templates DIR, then
 * among the built-in ones. A global `import(name)` loads the recipe or library NAME, found as
 * lua_recipes.h says (or c/NAME.lua for "c/NAME"), once per host and returns its value (shared
 * by every template that imports it).
 *
 * Every call into Lua that can raise an error runs under lua_pcall (mbg_lua_run, mbg_lua_call,
 * mbg_lua_cpcall), with a traceback; the panic handler, never reached, reports an internal error
 * and exits with status 3. Limits: the CPU time of one template run and the memory of the whole
 * state (lua_alloc.h); a template past either stops with an error naming it, the limit and the
 * option that raises it. The time limit uses a CPU timer (ITIMER_VIRTUAL, SIGVTALRM) while a
 * template runs. */
#ifndef MBG_LUA_HOST_H
#define MBG_LUA_HOST_H

#include <lua.h>
#include <stddef.h>

typedef struct mbg_lua mbg_lua;

/* The default limits: generous. The largest generation measured (a 1000-body tree, docs/
 * generator.md) takes 14 s of CPU in its longest recipe (minv) and 257 MiB of Lua memory. */
#define MBG_LUA_DEFAULT_SECONDS 300     /* CPU seconds per template run */
#define MBG_LUA_DEFAULT_MEMORY_MIB 4096 /* MiB of Lua memory in all */

/* The exit status of an internal error (an unprotected Lua error: a bug in mbdc). */
enum { MBG_LUA_EXIT_INTERNAL = 3 };

/* A sandboxed state with the default limits; user_dir (may be NULL) is searched before the
 * built-in templates. Returns NULL when out of memory. */
mbg_lua *mbg_lua_new(const char *user_dir);
void mbg_lua_free(mbg_lua *h);
lua_State *mbg_lua_state(mbg_lua *h);
/* The user's directory (--templates DIR), or NULL. */
const char *mbg_lua_user_dir(const mbg_lua *h);

/* The limits: CPU seconds per template run, bytes of Lua memory; 0 for no limit. */
void mbg_lua_set_limits(mbg_lua *h, double seconds, long long bytes);

/* Load and run template `name`, leaving its first return value on the stack; its CPU time starts
 * at 0. Returns 0, or -1 with the message (file:line: message, then the traceback) in
 * mbg_lua_error. */
int mbg_lua_run(mbg_lua *h, const char *name);
/* As mbg_lua_run, the template `name` being f(ud) (ud its only argument, a light userdata) and
 * its first return value left on the stack. */
int mbg_lua_run_cfunction(mbg_lua *h, const char *name, lua_CFunction f, void *ud);
/* lua_pcall with the traceback handler, part of the template last run (its CPU time goes on):
 * the function and nargs arguments are on the stack. Returns 0 (nresults pushed), or -1 with the
 * message in mbg_lua_error (nothing pushed). */
int mbg_lua_call(mbg_lua *h, int nargs, int nresults);
/* f(ud) under lua_pcall, outside any template (the C side building the tables it hands over):
 * ud is f's only argument, as a light userdata. Returns as mbg_lua_call. */
int mbg_lua_cpcall(mbg_lua *h, lua_CFunction f, void *ud, int nresults);
/* The last error message ("" if none); valid until the next call on h. */
const char *mbg_lua_error(const mbg_lua *h);
/* Record an error message of the caller's (e.g. a bad field in a recipe's table). */
void mbg_lua_set_error(mbg_lua *h, const char *fmt, ...);

/* The functions below raise Lua errors (memory): call them from a function run by
 * mbg_lua_cpcall or mbg_lua_call. */

/* Replace the table at index idx by a read-only proxy (recursively for nested tables): reads,
 * #, ipairs and pairs work; writes, rawset included, raise "attempt to modify a read-only
 * table", and no template can reach the table behind the proxy. */
void mbg_lua_freeze(lua_State *L, int idx);

/* t[key] = v for the table on the stack top (building the tables handed to Lua). */
void mbg_lua_set_string(lua_State *L, const char *key, const char *v);
void mbg_lua_set_int(lua_State *L, const char *key, long v);

/* 1 if `name` is a template among the built-in ones or in the user's directory. */
int mbg_lua_has_template(const mbg_lua *h, const char *name);
/* 1 if template `name` ("algorithms/rnea.lua") was read from the user's directory. */
int mbg_lua_read_user_file(const mbg_lua *h, const char *name);

/* The most memory the state held at once (lua_alloc.h's accounting), in bytes. */
size_t mbg_lua_memory_peak(const mbg_lua *h);

#endif
