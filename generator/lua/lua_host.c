/* lua_host.c — the sandboxed Lua state that runs recipes and render templates. */
#include "lua/lua_host.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/readfile.h"
#include "lua/lua_alloc.h"
#include "lua/templates_builtin.h"

struct mbg_lua {
  lua_State *L;
  mbg_lua_pool *pool; /* the state's small blocks (lua_alloc.h) */
  char *user_dir;
  char *error;
};

static const char IMPORTS_KEY[] = "mbdc.imports"; /* registry: name -> value of import(name) */
static const char HOST_KEY[] = "mbdc.host";       /* registry: light userdata of the host */

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

/* Message handler: the error text, then the traceback of the failing Lua code. */
static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  luaL_traceback(L, L, msg, 1);
  return 1;
}

int mbg_lua_call(mbg_lua *h, int nargs, int nresults) {
  lua_State *L = h->L;
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, traceback);
  lua_insert(L, base);
  int rc = lua_pcall(L, nargs, nresults, base);
  lua_remove(L, base);
  if (rc == LUA_OK) return 0;
  mbg_lua_set_error(h, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(no message)");
  lua_pop(L, 1);
  return -1;
}

/* ---- template lookup ------------------------------------------------------------------------ */

static const mbg_builtin_template *builtin(const char *name) {
  for (const mbg_builtin_template *t = mbg_builtin_templates; t->name; t++)
    if (strcmp(t->name, name) == 0) return t;
  return NULL;
}

/* The text of a user's template file DIR/name (malloc'ed), or NULL if there is none. */
static char *read_user(const mbg_lua *h, const char *name, size_t *size, char **path) {
  *path = NULL;
  if (!h->user_dir) return NULL;
  size_t n = strlen(h->user_dir) + strlen(name) + 2;
  *path = malloc(n);
  if (!*path) return NULL;
  snprintf(*path, n, "%s/%s", h->user_dir, name);
  return mbg_read_file(*path, size, NULL);
}

int mbg_lua_has_template(const mbg_lua *h, const char *name) {
  size_t size;
  char *path, *text = read_user(h, name, &size, &path);
  int found = text != NULL || builtin(name) != NULL;
  free(text);
  free(path);
  return found;
}

/* Push the chunk of template `name`, its environment a fresh table reading through to the
 * sandbox's globals. Returns 0, or -1 with the message pushed. */
static int load_template(lua_State *L, mbg_lua *h, const char *name) {
  size_t size = 0;
  char *path, *text = read_user(h, name, &size, &path);
  int rc;
  if (text) {
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
  if (rc != LUA_OK) return -1;
  /* _ENV = setmetatable({}, {__index = _G}) */
  lua_newtable(L);
  lua_newtable(L);
  lua_pushglobaltable(L);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_setupvalue(L, -2, 1);
  return 0;
}

int mbg_lua_run(mbg_lua *h, const char *name) {
  if (load_template(h->L, h, name) != 0) {
    mbg_lua_set_error(h, "%s", lua_tostring(h->L, -1));
    lua_pop(h->L, 1);
    return -1;
  }
  return mbg_lua_call(h, 0, 1);
}

/* import(name): algorithms/NAME.lua (or DIR/NAME.lua for "c/name") run once per host; its value
 * cached. */
static int l_import(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  int slashes = 0;
  for (const char *p = name; *p; p++) {
    slashes += *p == '/';
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '/'))
      return luaL_error(L, "import: bad module name '%s' (lower case letters, digits, _)", name);
  }
  if (!*name || slashes > 1 || name[0] == '/' || name[strlen(name) - 1] == '/')
    return luaL_error(L, "import: bad module name '%s' (NAME or c/NAME)", name);
  lua_getfield(L, LUA_REGISTRYINDEX, IMPORTS_KEY);
  if (lua_getfield(L, -1, name) != LUA_TNIL) return 1;
  lua_pop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, HOST_KEY);
  mbg_lua *h = lua_touserdata(L, -1);
  lua_pop(L, 1);
  lua_pushfstring(L, slashes ? "%s.lua" : "algorithms/%s.lua", name);
  if (load_template(L, h, lua_tostring(L, -1)) != 0) return lua_error(L);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
  }
  lua_pushvalue(L, -1);
  lua_setfield(L, -4, name); /* imports[name] = value */
  return 1;
}

/* ---- read-only tables ----------------------------------------------------------------------- */

static int ro_newindex(lua_State *L) {
  return luaL_error(L, "attempt to modify a read-only table");
}

static int ro_len(lua_State *L) {
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "__index");
  lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
  return 1;
}

static int ro_pairs(lua_State *L) {
  lua_getglobal(L, "next");
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "__index");
  lua_remove(L, -2);
  lua_pushnil(L);
  return 3;
}

void mbg_lua_freeze(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  luaL_checkstack(L, 8, "freezing a table");
  /* freeze the nested tables first (assigning to existing fields is allowed during lua_next) */
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -1) == LUA_TTABLE) {
      mbg_lua_freeze(L, -1);
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, idx);
    } else {
      lua_pop(L, 1);
    }
  }
  /* proxy = setmetatable({}, {__index = t, __newindex = error, __len, __pairs, __metatable}) */
  lua_newtable(L);
  lua_createtable(L, 0, 5);
  lua_pushvalue(L, idx);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ro_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, ro_len);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, ro_pairs);
  lua_setfield(L, -2, "__pairs");
  lua_pushliteral(L, "read-only");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_replace(L, idx);
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
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, IMPORTS_KEY);
  lua_pushcfunction(L, l_import);
  lua_setglobal(L, "import");
  return 0;
}

static int panic(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  fprintf(stderr, "mbdc: error: unprotected Lua error: %s\n", msg ? msg : "(not a string)");
  return 0; /* Lua aborts */
}

mbg_lua *mbg_lua_new(const char *user_dir) {
  mbg_lua *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  if (user_dir && !(h->user_dir = strdup(user_dir))) return mbg_lua_free(h), NULL;
  if (!(h->pool = mbg_lua_pool_new())) return mbg_lua_free(h), NULL;
  h->L = lua_newstate(mbg_lua_pool_alloc, h->pool);
  if (!h->L) return mbg_lua_free(h), NULL;
  lua_atpanic(h->L, panic); /* unreachable in practice: everything runs under lua_pcall */
  /* recipes make millions of short-lived symbolic values: the generational collector reclaims
   * them young instead of re-marking the whole live graph every cycle */
  lua_gc(h->L, LUA_GCGEN, 0, 0);
  lua_pushlightuserdata(h->L, h);
  lua_setfield(h->L, LUA_REGISTRYINDEX, HOST_KEY);
  lua_pushcfunction(h->L, open_sandbox);
  if (mbg_lua_call(h, 0, 0) != 0) return mbg_lua_free(h), NULL;
  return h;
}

void mbg_lua_free(mbg_lua *h) {
  if (!h) return;
  if (h->L) lua_close(h->L);
  mbg_lua_pool_free(h->pool);
  free(h->user_dir);
  free(h->error);
  free(h);
}

lua_State *mbg_lua_state(mbg_lua *h) { return h->L; }
