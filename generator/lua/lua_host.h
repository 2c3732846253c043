/* lua_host.h — the embedded Lua that runs recipes and render templates (STYLE.md §5).
 *
 * One sandboxed state: the base library without load, loadfile, dofile, require,
 * collectgarbage and print; string (without string.dump), table, math (without random and
 * randomseed, so output never depends on a seed); no io, os, debug, package. Every template
 * file is loaded as text into its own environment (globals it sets stay its own) and runs under
 * lua_pcall with a traceback. Templates are looked up by their path under templates/
 * ("algorithms/rnea.lua"): first in the user's --templates DIR, then among the built-in ones.
 * A global `import(name)` loads algorithms/NAME.lua once per host and returns its value. */
#ifndef MBG_LUA_HOST_H
#define MBG_LUA_HOST_H

#include <lua.h>

typedef struct mbg_lua mbg_lua;

/* A sandboxed state; user_dir (may be NULL) is searched before the built-in templates.
 * Returns NULL when out of memory. */
mbg_lua *mbg_lua_new(const char *user_dir);
void mbg_lua_free(mbg_lua *h);
lua_State *mbg_lua_state(mbg_lua *h);

/* Load and run template `name`, leaving its first return value on the stack. Returns 0, or -1
 * with the message (file:line: message, then the traceback) in mbg_lua_error. */
int mbg_lua_run(mbg_lua *h, const char *name);
/* lua_pcall with the traceback handler: the function and nargs arguments are on the stack.
 * Returns 0 (nresults pushed), or -1 with the message in mbg_lua_error (nothing pushed). */
int mbg_lua_call(mbg_lua *h, int nargs, int nresults);
/* The last error message ("" if none); valid until the next call on h. */
const char *mbg_lua_error(const mbg_lua *h);
/* Record an error message of the caller's (e.g. a bad field in a recipe's table). */
void mbg_lua_set_error(mbg_lua *h, const char *fmt, ...);

/* Replace the table at index idx by a read-only proxy (recursively for nested tables): reads,
 * #, ipairs and pairs work; writes raise "attempt to modify a read-only table". */
void mbg_lua_freeze(lua_State *L, int idx);

/* t[key] = v for the table on the stack top (building the tables handed to Lua). */
void mbg_lua_set_string(lua_State *L, const char *key, const char *v);
void mbg_lua_set_int(lua_State *L, const char *key, long v);

/* 1 if `name` is a template among the built-in ones or in the user's directory. */
int mbg_lua_has_template(const mbg_lua *h, const char *name);

#endif
