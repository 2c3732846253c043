/* lua_sym.c — symbolic scalars in Lua: the binding of sym.h for the recipes. */
#include "lua_sym.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SYM_MT[] = "mbdc.sym";

typedef struct lsym_value {
  mbg_sx id;
  unsigned generation;
} lsym_value;

static mbg_lsym *ctx_of(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

/* ---- conversions ---------------------------------------------------------------------------- */

/* The node of argument idx: a number becomes a constant, a symbolic value its id. */
static mbg_sx to_sx(lua_State *L, mbg_lsym *c, int idx) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    mbg_sx e = mbg_sym_const(c->s, lua_tonumber(L, idx));
    if (e < 0) luaL_error(L, "symbolic engine: out of memory");
    return e;
  }
  lsym_value *v = luaL_testudata(L, idx, SYM_MT);
  if (!v)
    luaL_error(L, "expected a number or a symbolic value, got %s", luaL_typename(L, idx));
  else if (v->generation != c->generation)
    luaL_error(L, "symbolic value from another generated function (kept across recipes?)");
  return v->id;
}

/* Push e: a constant as a Lua number, anything else as a symbolic value. */
static int push_sx(lua_State *L, mbg_lsym *c, mbg_sx e) {
  double k;
  if (e < 0) return luaL_error(L, "symbolic engine: out of memory or invalid operation");
  if (mbg_sym_is_const(c->s, e, &k)) {
    lua_pushnumber(L, k);
    return 1;
  }
  lsym_value *v = lua_newuserdatauv(L, sizeof *v, 0);
  v->id = e;
  v->generation = c->generation;
  luaL_setmetatable(L, SYM_MT);
  return 1;
}

/* ---- metamethods ---------------------------------------------------------------------------- */

#define BINARY(fname, op)                                                                       \
  static int fname(lua_State *L) {                                                              \
    mbg_lsym *c = ctx_of(L);                                                                    \
    mbg_sx a = to_sx(L, c, 1), b = to_sx(L, c, 2);                                              \
    return push_sx(L, c, op(c->s, a, b));                                                       \
  }
BINARY(l_add, mbg_sym_add)
BINARY(l_sub, mbg_sym_sub)
BINARY(l_mul, mbg_sym_mul)
BINARY(l_div, mbg_sym_div)
#undef BINARY

static int l_unm(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  return push_sx(L, c, mbg_sym_neg(c->s, to_sx(L, c, 1)));
}

static int l_eq(lua_State *L) {
  lsym_value *a = luaL_checkudata(L, 1, SYM_MT), *b = luaL_checkudata(L, 2, SYM_MT);
  lua_pushboolean(L, a->id == b->id && a->generation == b->generation);
  return 1;
}

static int l_compare(lua_State *L) {
  return luaL_error(L, "symbolic values cannot be compared (their value is known only at run "
                       "time); test structural zeros with x == 0");
}

static int l_unsupported(lua_State *L) {
  return luaL_error(L, "operation not supported on symbolic values (use + - * / and sym.*)");
}

static int l_tostring(lua_State *L) {
  lsym_value *v = luaL_checkudata(L, 1, SYM_MT);
  lua_pushfstring(L, "sym#%d", (int)v->id);
  return 1;
}

/* ---- the sym library ------------------------------------------------------------------------ */

static mbg_lsym_array *find_array(lua_State *L, mbg_lsym *c, int want_output) {
  const char *name = luaL_checkstring(L, 1);
  for (int k = 0; k < c->narrays; k++) {
    mbg_lsym_array *a = &c->arrays[k];
    if (strcmp(a->name, name) != 0) continue;
    if (a->is_output != want_output)
      luaL_error(L, "'%s' is an %s of this function, not an %s", name,
                 a->is_output ? "output" : "input", want_output ? "output" : "input");
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 0 || i >= a->size)
      luaL_error(L, "index %d out of range for '%s' (size %d, 0-based)", (int)i, name, a->size);
    return a;
  }
  luaL_error(L, "'%s' is not a parameter of this function", name);
  return NULL;
}

static int l_input(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  mbg_lsym_array *a = find_array(L, c, 0);
  return push_sx(L, c, mbg_sym_input(c->s, a->name, (int)lua_tointeger(L, 2)));
}

static int l_output(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  mbg_lsym_array *a = find_array(L, c, 1);
  int i = (int)lua_tointeger(L, 2);
  mbg_sx e = to_sx(L, c, 3);
  if (a->written[i]) return luaL_error(L, "%s[%d] written twice", a->name, i);
  a->written[i] = 1;
  if (mbg_sym_output(c->s, a->name, i, e) != 0)
    return luaL_error(L, "symbolic engine: out of memory");
  return 0;
}

static int l_pivot(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  double k;
  mbg_sx e = to_sx(L, c, 1);
  if (mbg_sym_is_const(c->s, e, &k)) {
    if (!(k > 0))
      return luaL_error(L, "pivot is the constant %f: the model is singular (a massless body?)", k);
    return 0; /* a positive constant needs no run-time check */
  }
  if (mbg_sym_output(c->s, "pivot", c->npivots++, e) != 0)
    return luaL_error(L, "symbolic engine: out of memory");
  return 0;
}

static int l_name(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  const char *name = luaL_checkstring(L, 2);
  if (lua_type(L, 1) != LUA_TNUMBER && mbg_sym_name(c->s, to_sx(L, c, 1), name) != 0)
    return luaL_error(L, "symbolic engine: out of memory");
  lua_settop(L, 1);
  return 1;
}

#define UNARY(fname, op)                                                                        \
  static int fname(lua_State *L) {                                                              \
    mbg_lsym *c = ctx_of(L);                                                                    \
    return push_sx(L, c, op(c->s, to_sx(L, c, 1)));                                             \
  }
UNARY(l_sqrt, mbg_sym_sqrt)
UNARY(l_sin, mbg_sym_sin)
UNARY(l_cos, mbg_sym_cos)
#undef UNARY

static int l_sincos(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  mbg_sx s, co;
  mbg_sym_sincos(c->s, to_sx(L, c, 1), &s, &co);
  push_sx(L, c, s);
  push_sx(L, c, co);
  return 2;
}

static int l_is_symbolic(lua_State *L) {
  lua_pushboolean(L, luaL_testudata(L, 1, SYM_MT) != NULL);
  return 1;
}

void mbg_lsym_open(lua_State *L, mbg_lsym *ctx) {
  static const luaL_Reg meta[] = {
    {"__add", l_add},       {"__sub", l_sub},         {"__mul", l_mul},
    {"__div", l_div},       {"__unm", l_unm},         {"__eq", l_eq},
    {"__lt", l_compare},    {"__le", l_compare},      {"__idiv", l_unsupported},
    {"__mod", l_unsupported}, {"__pow", l_unsupported}, {"__concat", l_unsupported},
    {"__tostring", l_tostring}, {NULL, NULL}};
  static const luaL_Reg lib[] = {
    {"input", l_input}, {"output", l_output}, {"pivot", l_pivot}, {"name", l_name},
    {"sqrt", l_sqrt},   {"sin", l_sin},       {"cos", l_cos},     {"sincos", l_sincos},
    {"is_symbolic", l_is_symbolic}, {NULL, NULL}};
  luaL_newmetatable(L, SYM_MT);
  lua_pushlightuserdata(L, ctx);
  luaL_setfuncs(L, meta, 1);
  lua_pushliteral(L, "symbolic value");
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
  lua_newtable(L);
  lua_pushlightuserdata(L, ctx);
  luaL_setfuncs(L, lib, 1);
  lua_setglobal(L, "sym");
}

void mbg_lsym_begin(mbg_lsym *ctx, mbg_sym *s) {
  mbg_lsym_end(ctx);
  ctx->s = s;
  ctx->generation++;
  ctx->narrays = 0;
  ctx->npivots = 0;
}

int mbg_lsym_array_add(mbg_lsym *ctx, const char *name, int size, int is_output) {
  if (ctx->narrays >= MBG_LSYM_MAX_ARRAYS || strlen(name) >= sizeof ctx->arrays[0].name)
    return -1;
  mbg_lsym_array *a = &ctx->arrays[ctx->narrays];
  memset(a, 0, sizeof *a);
  strcpy(a->name, name);
  a->size = size;
  a->is_output = is_output;
  if (is_output && !(a->written = calloc((size_t)(size > 0 ? size : 1), 1))) return -1;
  ctx->narrays++;
  return 0;
}

int mbg_lsym_missing(const mbg_lsym *ctx, char *buf, size_t bufsize) {
  for (int k = 0; k < ctx->narrays; k++) {
    const mbg_lsym_array *a = &ctx->arrays[k];
    if (!a->is_output) continue;
    for (int i = 0; i < a->size; i++)
      if (!a->written[i]) {
        snprintf(buf, bufsize, "%s[%d]", a->name, i);
        return 1;
      }
  }
  return 0;
}

void mbg_lsym_end(mbg_lsym *ctx) {
  for (int k = 0; k < ctx->narrays; k++) {
    free(ctx->arrays[k].written);
    ctx->arrays[k].written = NULL;
  }
  ctx->narrays = 0;
}
