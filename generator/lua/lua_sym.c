/* lua_sym.c — symbolic scalars in Lua: the binding of sym.h for the recipes. */
#include "lua/lua_sym.h"

#include <lauxlib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A symbolic value is a light userdata whose "pointer" encodes the node: TAG in bits 48-63,
 * the low 16 bits of the function's generation in bits 32-47, the node id in bits 0-31. Light
 * userdata are plain values (no allocation, no garbage collection: a recipe makes millions of
 * them), equal exactly when node and generation are, and share one metatable, installed by
 * mbg_lsym_open. Real pointers (the contexts the C side keeps as upvalues, never visible to
 * recipes) never carry the tag. */
_Static_assert(sizeof(void *) >= 8 && sizeof(uintptr_t) >= 8,
               "symbolic values need a 64-bit host (they are encoded in a pointer)");
#define SYM_TAG ((uintptr_t)0x6d62u << 48)
#define SYM_TAG_MASK ((uintptr_t)0xffffu << 48)

static mbg_lsym *ctx_of(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

static unsigned gen16(const mbg_lsym *c) { return c->generation & 0xffffu; }

/* 1 and *word when the value at idx is a symbolic value (of any generation). */
static int sym_word(lua_State *L, int idx, uintptr_t *word) {
  if (lua_type(L, idx) != LUA_TLIGHTUSERDATA) return 0;
  uintptr_t w = (uintptr_t)lua_touserdata(L, idx);
  if ((w & SYM_TAG_MASK) != SYM_TAG) return 0;
  *word = w;
  return 1;
}

/* ---- conversions ---------------------------------------------------------------------------- */

/* The error of a failed engine call: the memory limit when that is why, else what. */
static int sym_error(lua_State *L, const mbg_lsym *c, const char *what) {
  if (mbg_sym_over_limit(c->s))
    return luaL_error(L, "the memory limit is reached: this function's expression graph would "
                         "pass %d MiB; raise it with --lua-memory MiB (0: no limit)",
                      (int)(mbg_sym_max_bytes(c->s) >> 20));
  return luaL_error(L, "symbolic engine: %s", what);
}

/* The node of argument idx: a number becomes a constant, a symbolic value its id. */
static mbg_sx to_sx(lua_State *L, mbg_lsym *c, int idx) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    mbg_sx e = mbg_sym_const(c->s, lua_tonumber(L, idx));
    if (e < 0) sym_error(L, c, "out of memory");
    return e;
  }
  uintptr_t w = 0;
  if (!sym_word(L, idx, &w))
    luaL_error(L, "expected a number or a symbolic value, got %s", luaL_typename(L, idx));
  if (((w >> 32) & 0xffffu) != gen16(c))
    luaL_error(L, "symbolic value from another generated function (kept across recipes?)");
  return (mbg_sx)(w & 0xffffffffu);
}

/* Push e: a constant as a Lua number, anything else as a symbolic value. */
static int push_sx(lua_State *L, mbg_lsym *c, mbg_sx e) {
  double k;
  if (e < 0) return sym_error(L, c, "out of memory or invalid operation");
  if (mbg_sym_is_const(c->s, e, &k)) {
    lua_pushnumber(L, k);
    return 1;
  }
  lua_pushlightuserdata(L, (void *)(SYM_TAG | (uintptr_t)gen16(c) << 32 | (uint32_t)e));
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

static int l_compare(lua_State *L) {
  return luaL_error(L, "symbolic values cannot be compared (their value is known only at run "
                       "time); test structural zeros with x == 0");
}

static int l_unsupported(lua_State *L) {
  return luaL_error(L, "operation not supported on symbolic values (use + - * / and sym.*)");
}

static int l_tostring(lua_State *L) {
  uintptr_t w = 0;
  if (!sym_word(L, 1, &w)) return luaL_error(L, "not a symbolic value");
  lua_pushfstring(L, "sym#%d", (int)(w & 0xffffffffu));
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
    int size = a->map ? a->full : a->size;
    if (i < 0 || i >= size)
      luaL_error(L, "index %d out of range for '%s' (size %d, 0-based)", (int)i, name, size);
    return a;
  }
  luaL_error(L, "'%s' is not a parameter of this function", name);
  return NULL;
}

static int l_input(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  mbg_lsym_array *a = find_array(L, c, 0);
  int index = a->scalar ? MBG_SYM_SCALAR : (int)lua_tointeger(L, 2);
  if (a->map) return push_sx(L, c, mbg_lsym_mapped_input(c, a, index));
  return push_sx(L, c, mbg_sym_input(c->s, a->name, index));
}

/* sym.param(k): element k of the run-time inertial parameters (the array flagged params, the
 * function's `pi`; emit/gen_params.h); an error in a function without them. */
static int l_param(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  lua_Integer i = luaL_checkinteger(L, 1);
  for (int k = 0; k < c->narrays; k++) {
    mbg_lsym_array *a = &c->arrays[k];
    if (!a->params) continue;
    if (i < 0 || i >= a->size)
      return luaL_error(L, "sym.param: index %d out of range (%d parameters)", (int)i, a->size);
    return push_sx(L, c, mbg_sym_input(c->s, a->name, (int)i));
  }
  return luaL_error(L, "sym.param: this function does not take the run-time inertial parameters "
                       "(it has a parameter of its own named 'pi')");
}

static int l_output(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  mbg_lsym_array *a = find_array(L, c, 1);
  int i = (int)lua_tointeger(L, 2);
  mbg_sx e = to_sx(L, c, 3);
  if (a->written[i]) return luaL_error(L, "%s[%d] written twice", a->name, i);
  a->written[i] = 1;
  if (a->map ? mbg_lsym_mapped_output(c, a, i, e) != 0 : mbg_sym_output(c->s, a->name, i, e) != 0)
    return luaL_error(L, "symbolic engine: out of memory");
  return 0;
}

/* sym.pivot(d, r [, what]): the pivot d of a factorization with its reference r (the pivot rule,
 * docs/generator.md: accepted iff r > 0 and d > ε r). Both numbers: decided here; a failure under
 * double's ε means the model is singular in every configuration, which the model checks should
 * have reported: it is recorded (the caller reports it as an internal error, without a traceback)
 * and raised. Numbers that pass double's ε but not the generated scalar's (float) are left to the
 * run-time check, which then always fails. Otherwise both become outputs pivot[k], pivot_ref[k]. */
static int l_pivot(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  double d, r, eps = c->pivot_eps > 0 ? c->pivot_eps : MBG_PIVOT_EPS_DOUBLE;
  if (lua_isnoneornil(L, 2))
    return luaL_error(L, "sym.pivot(d, r): the reference r of the pivot is missing (see the pivot "
                         "rule in docs/generator.md)");
  mbg_sx e = to_sx(L, c, 1), er = to_sx(L, c, 2);
  int dk = mbg_sym_is_const(c->s, e, &d), rk = mbg_sym_is_const(c->s, er, &r);
  /* a reference that is a number ≤ 0 fails whatever d is (d ≤ r in exact arithmetic) */
  if ((dk && rk && !(r > 0 && d > MBG_PIVOT_EPS_DOUBLE * r)) || (rk && !(r > 0))) {
    const char *what = luaL_optstring(L, 3, "a factorization");
    luaL_where(L, 1);
    if (dk)
      snprintf(c->singular_msg, sizeof c->singular_msg,
               "%sthe pivot of %s is the constant %.17g against the reference %.17g",
               lua_tostring(L, -1), what, d, r);
    else
      snprintf(c->singular_msg, sizeof c->singular_msg,
               "%sthe reference of a pivot of %s is the constant %.17g", lua_tostring(L, -1), what,
               r);
    c->singular = 1;
    return luaL_error(L, "%s (the model is singular in every configuration)", c->singular_msg);
  }
  if (dk && rk && d > eps * r) return 0; /* passes in every state: no run-time check */
  if (mbg_sym_output(c->s, "pivot", c->npivots, e) != 0 ||
      mbg_sym_output(c->s, "pivot_ref", c->npivots, er) != 0)
    return luaL_error(L, "symbolic engine: out of memory");
  c->npivots++;
  return 0;
}

/* A ratio checked at run time (always): d and its reference r as outputs arr[k], ref[k]. */
static int run_time_ratio(lua_State *L, const char *arr, const char *ref, int *count) {
  mbg_lsym *c = ctx_of(L);
  mbg_sx e = to_sx(L, c, 1), er = to_sx(L, c, 2);
  if (mbg_sym_output(c->s, arr, *count, e) != 0 || mbg_sym_output(c->s, ref, *count, er) != 0)
    return luaL_error(L, "symbolic engine: out of memory");
  (*count)++;
  return 0;
}

/* sym.switch_pivot(d, r): a pivot d of a selection of dependent coordinates (recursive coordinate
 * reduction) with its reference r: the function's status gets bit 1 where d < P_RCR_SWITCH r
 * (the selection is regular but ill-conditioned: its caller may prefer another). Outputs
 * pivot_switch[k], pivot_switch_ref[k]. */
static int l_switch_pivot(lua_State *L) {
  return run_time_ratio(L, "pivot_switch", "pivot_switch_ref", &ctx_of(L)->nswitch);
}

/* sym.refine_pivot(d, r): a pivot d of a reduced mass matrix (recursive coordinate reduction) with
 * its diagonal entry r: the status gets bit 2 where d < P_RCR_REFINE r (its answer is
 * ill-conditioned: its caller refines it once). Outputs pivot_refine[k], pivot_refine_ref[k]. */
static int l_refine_pivot(lua_State *L) {
  return run_time_ratio(L, "pivot_refine", "pivot_refine_ref", &ctx_of(L)->nrefine);
}

/* sym.refine_head_pivot(d, r): a pivot d of a head joint (recursive coordinate reduction) with its
 * reference r, the head's mass before the heads' eliminations: bit 2 where d < P_RCR_REFINE_HEAD
 * r. Outputs pivot_head[k], pivot_head_ref[k]. */
static int l_refine_head_pivot(lua_State *L) {
  return run_time_ratio(L, "pivot_head", "pivot_head_ref", &ctx_of(L)->nhead);
}

/* sym.refine_always(): the function's answer is always to be refined once (recursive coordinate
 * reduction with a loop hung from another's tail): its status always has bit 2. */
static int l_refine_always(lua_State *L) {
  ctx_of(L)->refine_always = 1;
  return 0;
}

/* sym.trig_input(): true when the function reads the joint angles' sines and cosines from its
 * input sc (the _sc twin of --trig-input) instead of computing them. */
static int l_trig_input(lua_State *L) {
  lua_pushboolean(L, ctx_of(L)->trig_input);
  return 1;
}

/* sym.frame(): where the recipe expresses its spatial quantities (--frame): "body" (body-fixed
 * bases at the joint point), or world-aligned bases at the "joint" point, the centre of mass
 * ("com") or the world's origin ("world"); joints.lua's J.tree builds the working tree for it. */
static int l_frame(lua_State *L) {
  const char *f = ctx_of(L)->frame;
  lua_pushstring(L, f ? f : "body");
  return 1;
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

static int l_atan2(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  return push_sx(L, c, mbg_sym_atan2(c->s, to_sx(L, c, 1), to_sx(L, c, 2)));
}

static int l_fmax(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  return push_sx(L, c, mbg_sym_fmax(c->s, to_sx(L, c, 1), to_sx(L, c, 2)));
}

static int l_sincos(lua_State *L) {
  mbg_lsym *c = ctx_of(L);
  mbg_sx s, co;
  mbg_sym_sincos(c->s, to_sx(L, c, 1), &s, &co);
  push_sx(L, c, s);
  push_sx(L, c, co);
  return 2;
}

static int l_is_symbolic(lua_State *L) {
  uintptr_t w = 0;
  lua_pushboolean(L, sym_word(L, 1, &w));
  return 1;
}

void mbg_lsym_open(lua_State *L, mbg_lsym *ctx) {
  static const luaL_Reg meta[] = {
    {"__add", l_add},       {"__sub", l_sub},         {"__mul", l_mul},
    {"__div", l_div},       {"__unm", l_unm},
    {"__lt", l_compare},    {"__le", l_compare},      {"__idiv", l_unsupported},
    {"__mod", l_unsupported}, {"__pow", l_unsupported}, {"__concat", l_unsupported},
    {"__tostring", l_tostring}, {NULL, NULL}};
  static const luaL_Reg lib[] = {
    {"input", l_input}, {"param", l_param}, {"output", l_output}, {"pivot", l_pivot},
    {"switch_pivot", l_switch_pivot},
    {"refine_pivot", l_refine_pivot},
    {"refine_head_pivot", l_refine_head_pivot}, {"refine_always", l_refine_always},
    {"trig_input", l_trig_input}, {"frame", l_frame},
    {"name", l_name},
    {"sqrt", l_sqrt},   {"sin", l_sin},       {"cos", l_cos},     {"atan2", l_atan2},     {"sincos", l_sincos},
    {"fmax", l_fmax},
    {"is_symbolic", l_is_symbolic}, {NULL, NULL}};
  lua_pushlightuserdata(L, (void *)SYM_TAG); /* any light userdata: they share the metatable */
  lua_newtable(L);
  lua_pushlightuserdata(L, ctx);
  luaL_setfuncs(L, meta, 1);
  lua_pushliteral(L, "symbolic value");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
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
  ctx->nswitch = 0;
  ctx->nrefine = 0;
  ctx->nhead = 0;
  ctx->refine_always = 0;
  ctx->trig_input = 0;
  ctx->frame = NULL;
  ctx->cpl = NULL;
  ctx->singular = 0;
  ctx->singular_msg[0] = '\0';
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
    for (int i = 0; i < (a->map ? a->full : a->size); i++)
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
    free(ctx->arrays[k].pending);
    ctx->arrays[k].written = NULL;
    ctx->arrays[k].pending = NULL;
  }
  ctx->narrays = 0;
}
