/* gen_base.c — the base inertial parameters in a generation (gen_base.h). */
#include "emit/gen_base.h"

#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/numfmt.h"
#include "emit/gen_params.h"
#include "emit/gen_roles.h"
#include "lua/lua_host.h"

struct mbg_gen_base {
  int tried, ok;
  mbg_base_params b;
  char why[200];
};

static const char *const needs[] = {"base_regressor", "base_params", NULL};

const mbg_base_params *mbg_gen_base_get(mbg_gen *g) {
  if (!g->base && !(g->base = calloc(1, sizeof *g->base))) return NULL;
  struct mbg_gen_base *s = g->base;
  if (s->tried) return s->ok ? &s->b : NULL;
  s->tried = 1;
  const mb_model *m = &g->rt.model;
  long nreg = (long)MB_NPARAM * m->nb;
  if (mb_flex_count(m, 0) > 0) {
    snprintf(s->why, sizeof s->why, "the base parameters are not computed for models with "
             "flexible bodies");
    return NULL;
  }
  if (nreg > MBG_BASE_MAX_PARAMS) {
    snprintf(s->why, sizeof s->why, "the base parameters are computed for at most %d standard "
             "parameters (%d moving bodies); this model has %ld (%d bodies)", MBG_BASE_MAX_PARAMS,
             MBG_BASE_MAX_PARAMS / MB_NPARAM, nreg, m->nb);
    return NULL;
  }
  /* with gravity a run-time parameter (gen_params.h) the set must hold for every direction: it
   * is computed for a generic one (a relation among Y's columns that holds for gravities in an
   * open set holds for all, Y being linear in gravity), which identifies at least as much as any
   * particular direction — an arm whose first axis is vertical gains its first link's moments */
  mb_model generic = *m;
  if (g->params && g->params->gravity_at >= 0) {
    static const double dir[3] = {0.2113248654051871, -0.3570970546255428, -0.9098451232349447};
    double n = sqrt(m->gravity[0] * m->gravity[0] + m->gravity[1] * m->gravity[1] +
                    m->gravity[2] * m->gravity[2]);
    for (int k = 0; k < 3; k++) generic.gravity[k] = (n > 0 ? n : 9.81) * dir[k];
    m = &generic;
  }
  int rc = mbg_base_params_compute(m, &s->b);
  if (rc != 0) {
    snprintf(s->why, sizeof s->why, rc < 0 ? "out of memory" : "the base parameters cannot be "
             "computed for this model");
    return NULL;
  }
  s->ok = 1;
  return &s->b;
}

const char *mbg_gen_base_why(const mbg_gen *g) { return g->base ? g->base->why : ""; }

int mbg_gen_base_needed(const char *name) {
  for (int k = 0; needs[k]; k++)
    if (strcmp(name, needs[k]) == 0) return 1;
  return 0;
}

int mbg_gen_base_check(mbg_gen *g, const char *name, const char *via, FILE *err) {
  if (strcmp(name, "joint_regressor") == 0 && mbg_gen_base_nj1(g) == 0) /* Yj[0]: not C */
    return fprintf(err, "%s: error: %s %s: the model has no joint of one velocity coordinate "
                        "(revolute, continuous, prismatic, helical): Yj would be empty\n",
                   g->opts->model_path, via, name), 1;
  if (!mbg_gen_base_needed(name) || mbg_gen_base_get(g)) return 0;
  fprintf(err, "%s: error: %s %s: %s\n", g->opts->model_path, via, name,
          g->base ? g->base->why : "out of memory");
  return 1;
}

int mbg_gen_base_nj1(const mbg_gen *g) { return mb_joint_count1(&g->rt.model); }

int mbg_gen_base_role_size(const mbg_gen *cg, int size) {
  /* the set is a cache computed on first use: filling it changes nothing else of g */
  mbg_gen *g = (mbg_gen *)(uintptr_t)cg;
  long long nv = g->topo->nv;
  if (size == MBG_RS_NVJ1) {
    long long n = nv * 4 * mbg_gen_base_nj1(g);
    return n > INT_MAX ? -2 : (int)n;
  }
  if (size != MBG_RS_NVBASE && size != MBG_RS_BASE) return -1;
  const mbg_base_params *b = mbg_gen_base_get(g);
  if (!b) return -1;
  return size == MBG_RS_BASE ? b->nbase : (int)(nv * b->nbase); /* nbase <= 600, nv² fits */
}

/* {nbase = n, nreg = n, col = {...}, K = {{c, coef}, ...} per base parameter}: col[k] the
 * standard parameter (0-based) base parameter k is named after, K[k] its nonzero coefficients,
 * c 0-based, in column order. */
static void push_table(lua_State *L, const mbg_base_params *b, int text) {
  lua_createtable(L, 0, 4);
  mbg_lua_set_int(L, "nbase", b->nbase);
  mbg_lua_set_int(L, "nreg", b->nreg);
  lua_createtable(L, b->nbase, 0);
  for (int k = 0; k < b->nbase; k++) lua_pushinteger(L, b->col[k]), lua_rawseti(L, -2, k + 1);
  lua_setfield(L, -2, "col");
  lua_createtable(L, b->nbase, 0);
  for (int k = 0; k < b->nbase; k++) {
    const double *row = b->K + (size_t)k * (size_t)b->nreg;
    lua_newtable(L);
    for (int c = 0, n = 0; c < b->nreg; c++) {
      if (row[c] == 0.0) continue;
      lua_createtable(L, 2, 0);
      lua_pushinteger(L, c), lua_rawseti(L, -2, 1);
      if (text) { /* the render templates print it: the shortest text that reads back exactly */
        char buf[32];
        mbg_fmt_double(row[c], buf);
        lua_pushstring(L, buf);
      } else {
        lua_pushnumber(L, row[c]);
      }
      lua_rawseti(L, -2, 2);
      lua_rawseti(L, -2, ++n);
    }
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "K");
}

/* model.base_params(): the table of push_table with numbers; raises when not computable. */
static int l_base_params(lua_State *L) {
  mbg_gen *g = lua_touserdata(L, lua_upvalueindex(1));
  const mbg_base_params *b = mbg_gen_base_get(g);
  if (!b) return luaL_error(L, "model.base_params(): %s", mbg_gen_base_why(g));
  push_table(L, b, 0);
  return 1;
}

void mbg_gen_base_push_model(mbg_gen *g, lua_State *L) {
  lua_pushlightuserdata(L, g);
  lua_pushcclosure(L, l_base_params, 1);
  lua_setfield(L, -2, "base_params");
}

void mbg_gen_base_push_render(mbg_gen *g, lua_State *L) {
  mbg_lua_set_int(L, "nj1", mbg_gen_base_nj1(g));
  if (!g->base || !g->base->ok) return;
  push_table(L, &g->base->b, 1);
  lua_setfield(L, -2, "base");
}

void mbg_gen_base_print(const mbg_gen *g, int json, FILE *out) {
  if (!g->base || !g->base->ok) return;
  const mbg_base_params *b = &g->base->b;
  if (json) fprintf(out, ", \"nreg\": %d, \"nbase\": %d", b->nreg, b->nbase);
  else fprintf(out, "inertial parameters: NREG %d standard, NBASE %d base (docs/identification.md)"
               "\n", b->nreg, b->nbase);
}

void mbg_gen_base_free(mbg_gen *g) {
  if (!g->base) return;
  mbg_base_params_free(&g->base->b);
  free(g->base);
  g->base = NULL;
}
