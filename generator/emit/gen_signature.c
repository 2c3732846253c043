/* gen_signature.c — the signatures of the built-in functions (gen_signature.h). */
#include "emit/gen_signature.h"

#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "emit/gen_roles.h"
#include "lua/lua_recipes.h"
#include "lua/lua_sym.h"

struct mbg_signature_host {
  mbg_lua *lua;
  mbg_lsym lsym; /* the sym global the recipes read when they load (no graph is built) */
};

static int open_sym(lua_State *L) {
  mbg_lsym_open(L, lua_touserdata(L, 1));
  return 0;
}

mbg_signature_host *mbg_signature_host_new(void) {
  mbg_signature_host *s = calloc(1, sizeof *s);
  if (s && (s->lua = mbg_lua_new(NULL)) != NULL &&
      mbg_lua_cpcall(s->lua, open_sym, &s->lsym, 0) == 0)
    return s;
  mbg_signature_host_free(s);
  return NULL;
}

void mbg_signature_host_free(mbg_signature_host *s) {
  if (!s) return;
  mbg_lsym_end(&s->lsym);
  mbg_lua_free(s->lua);
  free(s);
}

/* The signature being written into buf[n]; failed: the reason is there instead. */
typedef struct sig {
  const char *name, *scalar;
  char *buf;
  size_t n, len;
  int failed;
} sig;

static void add(sig *g, const char *fmt, ...) MBG_PRINTF(2, 3);
static void add(sig *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(g->buf + g->len, g->len < g->n ? g->n - g->len : 0, fmt, ap);
  va_end(ap);
  g->len += k > 0 ? (size_t)k : 0;
}

static void fail(sig *g, const char *why, const char *what) {
  snprintf(g->buf, g->n, "%s: %s%s", g->name, why, what ? what : "");
  g->failed = 1;
}

/* read(recipe, g as light userdata): "returns P_name(decl, ...);" from the recipe's table.
 * Runs protected: a recipe's table is Lua's. */
static int l_read(lua_State *L) {
  sig *g = lua_touserdata(L, 2);
  lua_settop(L, 2);
  if (!lua_istable(L, 1)) return fail(g, "the recipe returns no table", NULL), 0;
  lua_getfield(L, 1, "returns");
  const char *returns = lua_tostring(L, -1);
  if (!returns || (strcmp(returns, "void") != 0 && strcmp(returns, "int") != 0))
    return fail(g, "'returns' is not \"void\" or \"int\"", NULL), 0;
  add(g, "%s P_%s(", returns, g->name);
  if (lua_getfield(L, 1, "params") != LUA_TTABLE) return fail(g, "no 'params'", NULL), 0;
  lua_Integer np = luaL_len(L, -1);
  for (lua_Integer k = 1; k <= np; k++) {
    lua_geti(L, 4, k);
    if (!lua_istable(L, -1)) return fail(g, "a parameter is not a table", NULL), 0;
    lua_getfield(L, -1, "name");
    lua_getfield(L, -2, "role");
    const char *name = lua_tostring(L, -2), *role = lua_tostring(L, -1);
    const mbg_role *r = role ? mbg_role_find(role) : NULL;
    if (!name || !r) return fail(g, "a parameter without a name or a known role: ", role), 0;
    char decl[512];
    if (mbg_role_decl(r, name, g->scalar, "P", decl, sizeof decl) >= (int)sizeof decl)
      return fail(g, "a declaration too long: ", name), 0;
    add(g, "%s%s", k > 1 ? ", " : "", decl);
    lua_pop(L, 3);
  }
  add(g, ");");
  if (g->len >= g->n) fail(g, "the signature is too long", NULL);
  return 0;
}

/* A template's prototype with scalar for every "double" in it. */
static int from_prototype(const char *proto, const char *scalar, char *buf, size_t n) {
  size_t len = 0, sl = strlen(scalar);
  for (const char *p = proto; *p;) {
    int word = strncmp(p, "double", 6) == 0;
    const char *piece = word ? scalar : p;
    size_t k = word ? sl : 1;
    if (len + k < n) memcpy(buf + len, piece, k);
    len += k;
    p += word ? 6 : 1;
  }
  if (len >= n) return snprintf(buf, n, "the prototype is too long"), -1;
  buf[len] = '\0';
  return 0;
}

int mbg_signature(mbg_signature_host *s, const mbg_fn *f, const char *scalar, char *buf,
                  size_t n) {
  if (f->prototype) return from_prototype(f->prototype, scalar, buf, n);
  lua_State *L = mbg_lua_state(s->lua);
  if (mbg_lua_run_recipe(s->lua, f->name) != 0)
    return snprintf(buf, n, "%s", mbg_lua_error(s->lua)), -1;
  sig g = {f->name, scalar, buf, n, 0, 0};
  lua_pushcfunction(L, l_read);
  lua_insert(L, -2);
  lua_pushlightuserdata(L, &g);
  int rc = mbg_lua_call(s->lua, 2, 0);
  lua_settop(L, 0);
  if (rc != 0) return snprintf(buf, n, "%s", mbg_lua_error(s->lua)), -1;
  return g.failed ? -1 : 0;
}
