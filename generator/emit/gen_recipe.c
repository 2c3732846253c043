/* gen_recipe.c — run one recipe (lua/lua_recipes.h finds it) over the symbolic engine and
 * keep what the render templates need: the parameters, the emitted statements, the counts. */
#include <lauxlib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "emit/gen_recipe.h"
#include "emit/gen_estimate.h"
#include "emit/gen_base.h"
#include "emit/gen_coupled.h"

#include "emit/gen_fuse.h"
#include "emit/gen_params.h"
#include "emit/gen_roles.h"

#include "lua/lua_recipes.h"
#include "model/build.h"

/* The size of a parameter of role `role` for this model, its direction and passing
 * (gen_roles.h); -1 for an unknown role. */
static int role_size(const mbg_gen *g, const char *role, int *is_output, int *pass) {
  /* generate.c's sizes_fit has refused models where nv² or 12 (nb + 1) exceeds an int */
  /* the independent coordinates (all of them without coupled joints: gen_coupled.h) */
  int nq = g->topo->nq_ind, nv = g->topo->nv_ind, nb1 = g->topo->nb + 1, nc = g->loops.nc;
  int nnodes = g->rt.model.flex ? g->rt.model.flex->nnodes : 0, nf = g->topo->nframes;
  const mbg_role *r = mbg_role_find(role);
  if (!r) return -1;
  *is_output = r->is_output;
  *pass = r->pass;
  switch (r->size) {
  case MBG_RS_NQ: return nq;
  case MBG_RS_NV: return nv;
  case MBG_RS_NVNV: return nv * nv;
  case MBG_RS_NVWRENCH: return 6 * nb1 * nv;
  case MBG_RS_WRENCHES: return 6 * nb1;
  case MBG_RS_POSES: return 12 * nb1;
  case MBG_RS_NC: return nc;
  case MBG_RS_NCNV: return nc * nv;
  case MBG_RS_NODES: return 12 * nnodes;
  case MBG_RS_RCR: return g->rcr.nsel * nc;
  case MBG_RS_FRAMES: return 12 * nf;
  case MBG_RS_FJAC: return 6 * nv * nf;
  case MBG_RS_FVEC: return 6 * nf;
  case MBG_RS_3: return 3;
  case MBG_RS_3NV: return 3 * nv;
  case MBG_RS_2: return 2;
  case MBG_RS_6: return 6;
  case MBG_RS_6NV: return 6 * nv;
  case MBG_RS_CONTACTS: return g->ncontacts;
  case MBG_RS_CROWS: return g->ncrows;
  case MBG_RS_CROWSNV: return g->ncrows * nv;
  case MBG_RS_SCALAR: return 1;
  case MBG_RS_SC: return 2 * g->ntrig;
  case MBG_RS_NVREG: /* -2: more numbers than an int indexes */
    return (long long)nv * 10 * (nb1 - 1) > INT_MAX ? -2 : nv * 10 * (nb1 - 1);
  case MBG_RS_REG: return 10 * (nb1 - 1);
  case MBG_RS_PARAMS: return g->params ? g->params->npi : 0;
  default: return mbg_gen_base_role_size(g, (int)r->size); /* NBASE, NJ1 */
  }
  return -1;
}

static char *dup_field(lua_State *L, int t, const char *key) {
  lua_getfield(L, t, key);
  const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  char *d = s ? strdup(s) : NULL;
  lua_pop(L, 1);
  return d;
}

/* A parameter name: a C identifier that fits mbg_lsym_array and starts neither with "pivot" (the
 * pivot arrays: pivot, pivot_ref, pivot_switch, pivot_switch_ref, pivot_refine, pivot_refine_ref,
 * pivot_head, pivot_head_ref) nor with "mbdc_" (the generated code's own locals: mbdc_zero, the
 * sincos batch's mbdc_sincos_*, the parts' scratch array mbdc_lv). */
static int valid_param_name(const char *s) {
  const char *why;
  return mbg_valid_c_name(s, &why) && strlen(s) < sizeof((mbg_lsym_array *)0)->name &&
         strncmp(s, "pivot", 5) != 0 && strncmp(s, "mbdc_", 5) != 0;
}

/* The recipe's params list into f->params. Returns 0, or -1 with the reason in msg. */
static int read_params(mbg_gen *g, lua_State *L, int t, mbg_gen_function *f, char *msg, size_t n) {
  if (lua_getfield(L, t, "params") != LUA_TTABLE)
    return snprintf(msg, n, "'params' must be a list of {name = ..., role = ...}"), -1;
  lua_Integer len = luaL_len(L, -1);
  if (len < 0 || len > MBG_LSYM_MAX_ARRAYS)
    return snprintf(msg, n, "'params' must list at most %d params", MBG_LSYM_MAX_ARRAYS), -1;
  int np = (int)len;
  for (int k = 0; k < np; k++) {
    mbg_gen_param *p = &f->params[k];
    if (lua_geti(L, -1, k + 1) != LUA_TTABLE)
      return snprintf(msg, n, "params[%d] must be a table {name = ..., role = ...}", k + 1), -1;
    lua_getfield(L, -1, "name");
    lua_getfield(L, -2, "role");
    const char *name = lua_tostring(L, -2), *role = lua_tostring(L, -1);
    if (!name || !role || !valid_param_name(name))
      return snprintf(msg, n, "params[%d] needs a C identifier 'name' (not starting with "
                      "'pivot' or 'mbdc_') and a 'role'",
                      k + 1), -1;
    for (int j = 0; j < k; j++)
      if (strcmp(f->params[j].name, name) == 0)
        return snprintf(msg, n, "params[%d]: '%s' given twice", k + 1, name), -1;
    strcpy(p->name, name);
    snprintf(p->role, sizeof p->role, "%s", role);
    lua_getfield(L, -3, "part"); /* --fuse: the recipe an output comes from (fuse.lua) */
    const char *part = lua_tostring(L, -1);
    if (part && !valid_param_name(part))
      return snprintf(msg, n, "params[%d]: 'part' must be a recipe's name", k + 1), -1;
    snprintf(p->part, sizeof p->part, "%s", part ? part : "");
    lua_pop(L, 1);
    if ((strcmp(role, "sc") == 0 || strcmp(role, "out_sc") == 0) &&
        (!g->opts->trig_input || g->ntrig == 0))
      return snprintf(msg, n, "params[%d]: role '%s' needs --trig-input and a revolute, "
                      "continuous or helical joint", k + 1, role), -1;
    if ((p->size = role_size(g, role, &p->is_output, &p->pass)) == -2)
      return snprintf(msg, n, "params[%d]: the model is too large for an array of role '%s' "
                      "(more numbers than an int indexes)", k + 1, role), -1;
    if (p->size < 0)
      return snprintf(msg, n, "params[%d]: unknown role '%s' (the roles are listed in "
                      "docs/templates.md)", k + 1, role), -1;
    lua_pop(L, 3);
  }
  lua_pop(L, 1);
  f->nparams = np;
  return 0;
}

/* The epilogues a recipe may name (C loops source.lua writes after the graph), each with the
 * parameters it reads and writes (name, role). */
#define MBG_EPILOGUE_PARAMS 8
static const struct {
  const char *name;
  const char *params[MBG_EPILOGUE_PARAMS][2];
} epilogues[] = {
    {"minus_minv_product",
     {{"dqdd_dq", "out_nvnv"}, {"dqdd_dv", "out_nvnv"}, {"Minv", "out_nvnv"}}},
    {"contact_derivatives",
     {{"dqdd_dq", "out_nvnv"}, {"dqdd_dv", "out_nvnv"}, {"dqdd_dtau", "out_nvnv"},
      {"dforce_dq", "out_cforcenv"}, {"dforce_dv", "out_cforcenv"},
      {"dforce_dtau", "out_cforcenv"}, {"contacts", "contacts"}}},
    {"contact_reg_derivatives",
     {{"dqdd_dq", "out_nvnv"}, {"dqdd_dv", "out_nvnv"}, {"dqdd_dtau", "out_nvnv"},
      {"dforce_dq", "out_cforcenv"}, {"dforce_dv", "out_cforcenv"},
      {"dforce_dtau", "out_cforcenv"}, {"contacts", "contacts"}, {"mu", "contact_mu"}}},
    {"impulse_derivatives",
     {{"dvplus_dq", "out_nvnv"}, {"dvplus_dv", "out_nvnv"}, {"dimpulse_dq", "out_cforcenv"},
      {"dimpulse_dv", "out_cforcenv"}, {"contacts", "contacts"}}},
    {"loop_derivatives",
     {{"dqdd_dq", "out_nvnv"}, {"dqdd_dv", "out_nvnv"}, {"dqdd_dtau", "out_nvnv"},
      {"dlambda_dq", "out_ncnv"}, {"dlambda_dv", "out_ncnv"}, {"dlambda_dtau", "out_ncnv"}}},
};
#define MBG_NEPILOGUES (sizeof epilogues / sizeof epilogues[0])

/* The epilogue called name's row, or -1. */
static int epilogue_find(const char *name) {
  for (size_t e = 0; name && e < MBG_NEPILOGUES; e++)
    if (strcmp(epilogues[e].name, name) == 0) return (int)e;
  return -1;
}

/* 1 if f has every parameter epilogue e reads and writes, with its role. */
static int epilogue_params(const mbg_gen_function *f, int e) {
  for (int j = 0; j < MBG_EPILOGUE_PARAMS && epilogues[e].params[j][0]; j++) {
    int found = 0;
    for (int k = 0; k < f->nparams; k++)
      found |= strcmp(f->params[k].name, epilogues[e].params[j][0]) == 0 &&
               strcmp(f->params[k].role, epilogues[e].params[j][1]) == 0;
    if (!found) return 0;
  }
  return 1;
}

/* The _sc twin's extra input sc (--trig-input, gen_trig.c), after q. Returns 0, or -1 with msg. */
static int add_sc(mbg_gen *g, mbg_gen_function *f, char *msg, size_t n) {
  int at = 0;
  for (int k = 0; k < f->nparams; k++) {
    if (strcmp(f->params[k].name, "sc") == 0)
      return snprintf(msg, n, "--trig-input: a parameter is named 'sc' already"), -1;
    if (strcmp(f->params[k].role, "q") == 0) at = k + 1;
  }
  if (f->nparams >= MBG_LSYM_MAX_ARRAYS)
    return snprintf(msg, n, "--trig-input: no room for the parameter sc"), -1;
  memmove(&f->params[at + 1], &f->params[at], (size_t)(f->nparams - at) * sizeof *f->params);
  mbg_gen_param *p = &f->params[at];
  memset(p, 0, sizeof *p);
  strcpy(p->name, "sc");
  strcpy(p->role, "sc");
  p->size = role_size(g, "sc", &p->is_output, &p->pass);
  f->nparams++;
  return 0;
}

/* --parameters: the run-time inertial parameters pi as the first parameter (gen_params.h), unless
 * the recipe has one named pi of its own (p_base_params' standard parameters: a function that
 * then reads the run-time ones fails in sym.param). Dropped again by drop_unused_pi when the
 * function turns out not to read them. Returns 0, or -1 with msg. */
static int add_pi(mbg_gen *g, mbg_gen_function *f, char *msg, size_t n) {
  for (int k = 0; k < f->nparams; k++)
    if (strcmp(f->params[k].name, "pi") == 0) return 0;
  if (f->nparams >= MBG_LSYM_MAX_ARRAYS)
    return snprintf(msg, n, "--parameters: no room for the parameter pi"), -1;
  memmove(&f->params[1], &f->params[0], (size_t)f->nparams * sizeof *f->params);
  mbg_gen_param *p = &f->params[0];
  memset(p, 0, sizeof *p);
  strcpy(p->name, "pi");
  strcpy(p->role, "params");
  p->size = role_size(g, "params", &p->is_output, &p->pass);
  f->nparams++;
  return 0;
}

/* After the final build: a function whose result does not read pi keeps its signature. */
static void drop_unused_pi(mbg_gen_function *f) {
  if (f->nparams == 0 || strcmp(f->params[0].role, "params") != 0 || f->params[0].used) return;
  memmove(&f->params[0], &f->params[1], (size_t)(f->nparams - 1) * sizeof *f->params);
  f->nparams--;
}

/* Read the recipe's table (at index t) into f. Returns 0, or -1 with msg. */
static int read_recipe(mbg_gen *g, lua_State *L, int t, const char *name, mbg_gen_function *f,
                       char *msg, size_t n) {
  if (!lua_istable(L, t)) return snprintf(msg, n, "the recipe must return a table"), -1;
  f->name = dup_field(L, t, "name");
  f->summary = dup_field(L, t, "summary");
  char *returns = dup_field(L, t, "returns");
  int ok_returns = returns && (strcmp(returns, "void") == 0 || strcmp(returns, "int") == 0);
  f->returns_int = returns && strcmp(returns, "int") == 0;
  free(returns);
  if (!f->name || strcmp(f->name, name) != 0)
    return snprintf(msg, n, "'name' must be \"%s\" (the file's name)", name), -1;
  if (!f->summary) return snprintf(msg, n, "'summary' must be a string"), -1;
  if (!ok_returns) return snprintf(msg, n, "'returns' must be \"void\" or \"int\""), -1;
  if (read_params(g, L, t, f, msg, n) != 0) return -1;
  if (g->trig_twin && add_sc(g, f, msg, n) != 0) return -1;
  if (g->params && add_pi(g, f, msg, n) != 0) return -1;
  int ft = lua_getfield(L, t, "frames");
  f->frames = lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (ft != LUA_TNIL && ft != LUA_TBOOLEAN)
    return snprintf(msg, n, "'frames' must be a boolean"), -1;
  int ex = lua_getfield(L, t, "epilogue");
  int e = epilogue_find(ex == LUA_TSTRING ? lua_tostring(L, -1) : NULL);
  if (e >= 0) snprintf(f->epilogue, sizeof f->epilogue, "%s", epilogues[e].name);
  lua_pop(L, 1);
  if (ex != LUA_TNIL && e < 0)
    return snprintf(msg, n, "'epilogue' must be \"minus_minv_product\", "
                            "\"contact_derivatives\", \"contact_reg_derivatives\", "
                            "\"impulse_derivatives\" or \"loop_derivatives\""), -1;
  if (e >= 0 && !epilogue_params(f, e)) {
    int len = snprintf(msg, n, "the epilogue %s needs the parameters", epilogues[e].name);
    for (int j = 0; j < MBG_EPILOGUE_PARAMS && epilogues[e].params[j][0] && len > 0 &&
                    (size_t)len < n; j++)
      len += snprintf(msg + len, n - (size_t)len, " %s (%s)", epilogues[e].params[j][0],
                      epilogues[e].params[j][1]);
    return -1;
  }
  int fx = lua_getfield(L, t, "frame");
  const char *fs = fx == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  int bad = fx != LUA_TNIL && (!fs || mbg_ref_parse(fs, 0, &f->fixed_frame) != 0 ||
                               f->fixed_frame == MBG_REF_AUTO || f->frames);
  lua_pop(L, 1);
  if (bad)
    return snprintf(msg, n, "'frame' must be \"body\", \"joint\", \"com\" or \"world\", in a "
                            "recipe without 'frames'"), -1;
  if (lua_getfield(L, t, "build") != LUA_TFUNCTION)
    return snprintf(msg, n, "'build' must be a function(model)"), -1;
  return 0; /* build is on the stack */
}

typedef struct recipe_read {
  mbg_gen *g;
  const char *name;
  mbg_gen_function *f;
  char msg[256]; /* what is wrong with the table, or "" */
} recipe_read;

/* read(recipe, r as light userdata): the recipe's table into r->f; returns its build function,
 * or nil with r->msg. Runs protected: reading the table may run the recipe's own metamethods,
 * and what they raise is an error of the recipe like any other. */
static int l_read_recipe(lua_State *L) {
  recipe_read *r = lua_touserdata(L, 2);
  lua_settop(L, 2);
  if (read_recipe(r->g, L, 1, r->name, r->f, r->msg, sizeof r->msg) != 0) lua_pushnil(L);
  return 1;
}

int mbg_gen_minv_nv(const mbg_gen_function *f) {
  for (int k = 0; k < f->nparams; k++)
    if (strcmp(f->params[k].name, "dqdd_dq") == 0) {
      int nv = 0;
      while ((nv + 1) * (nv + 1) <= f->params[k].size) nv++;
      return nv;
    }
  return 0;
}

int mbg_gen_minv_runs(const mbg_sym *s, int nv, int *runs, int *start) {
  int nn = nv * nv, n = mbg_sym_output_count(s), at = 0;
  unsigned char *nz = calloc((size_t)(2 * nn > 0 ? 2 * nn : 1), 1);
  if (!nz) return -1;
  for (int k = 0; k < n; k++) {
    const char *array;
    int index;
    double v;
    mbg_sx e = mbg_sym_output_at(s, k, &array, &index);
    int m = strcmp(array, "dqdd_dq") == 0 ? 0 : strcmp(array, "dqdd_dv") == 0 ? 1 : -1;
    if (m >= 0 && index >= 0 && index < nn)
      nz[m * nn + index] = !(mbg_sym_is_const(s, e, &v) && v == 0);
  }
  for (int k = 0; k < 2 * nv; k++) { /* column k % nv of dqdd_dq (k < nv) or dqdd_dv */
    const unsigned char *col = nz + (k < nv ? 0 : nn) + k % nv;
    if (start) start[k] = at;
    for (int l = 0; l < nv; l++) {
      if (!col[nv * l]) continue;
      int e = l;
      while (e + 1 < nv && col[nv * (e + 1)]) e++;
      if (runs) runs[at] = nv * l, runs[at + 1] = nv * (e + 1);
      at += 2, l = e;
    }
  }
  if (start) start[2 * nv] = at;
  free(nz);
  return at / 2;
}

/* The epilogue's share of f's counts (s: its graph). minus_minv_product (source.lua) overwrites
 * two nv × nv outputs X with −M⁻¹ X, column by column, over the rows of X's nonzero entries
 * (mbg_gen_minv_runs): nv multiplications and additions per nonzero entry, nv values more on the
 * stack, and about 300 + 40 nv bytes of code and 4 bytes of table per run. */
static void epilogue_counts(const mbg_gen *g, const mbg_sym *s, mbg_gen_function *f) {
  int loops = strcmp(f->epilogue, "loop_derivatives") == 0;
  long nv = g->topo->nv, nr = loops ? g->loops.nc : g->ncrows;
  int impulse = strcmp(f->epilogue, "impulse_derivatives") == 0;
  if (impulse || loops || strncmp(f->epilogue, "contact_", 8) == 0) {
    /* templates/c/epilogue_contact.lua: M = Lᵀ L, Y = M⁻¹ Jcᵀ, Φ = Jc Y = W Wᵀ, then for each
     * of q, v, τ (impulse: q, v⁻) the two triangular solves with L over nv columns, Jc u, the
     * two with W, Y ∂f: at most (with every contact active and L dense) */
    long x = impulse ? 2 : 3;
    long n = nv * nv * nv / 6 + nr * nv * nv + nr * nr * nv / 2 + nr * nr * nr / 6 +
             x * (nv * nv * nv + 2 * nr * nv * nv + nr * nr * nv);
    f->counts.mul += n;
    f->counts.add += n;
    f->counts.div += nv + nr;
    f->live += nv * nv + 3 * nr * nv + nr * nr;
    f->code_bytes += 1500;
    return;
  }
  nv = mbg_gen_minv_nv(f); /* the outputs' (a coupled joint's coordinates are not there) */
  int nruns = mbg_gen_minv_runs(s, (int)nv, NULL, NULL);
  int *runs = malloc(sizeof *runs * (size_t)(2 * nruns + 1));
  long nnz = 0;
  if (runs && mbg_gen_minv_runs(s, (int)nv, runs, NULL) == nruns)
    for (int k = 0; k < nruns; k++) nnz += (runs[2 * k + 1] - runs[2 * k]) / nv;
  else /* no memory: the most */
    nnz = 2 * nv * nv;
  free(runs);
  f->counts.mul += nv * nnz;
  f->counts.add += nv * nnz;
  f->live += nv;
  f->code_bytes += 300 + 40 * nv + 4L * (nruns > 0 ? nruns : 0);
}

/* After the recipe ran: mark the inputs the live graph reads, emit, count. */
static int finish(mbg_gen *g, mbg_sym *s, mbg_gen_function *f, FILE *err) {
  int32_t n = mbg_sym_size(s);
  unsigned char *live = malloc((size_t)(n > 0 ? n : 1));
  if (!live) return fprintf(err, "mbdc: error: out of memory\n"), 1;
  mbg_sym_live(s, live);
  for (mbg_sx e = 0; e < n; e++) {
    const char *array = live[e] ? mbg_sym_input_of(s, e, NULL) : NULL;
    for (int k = 0; array && k < f->nparams; k++)
      if (strcmp(f->params[k].name, array) == 0) f->params[k].used = 1;
  }
  free(live);
  f->npivots = g->lsym.npivots;
  f->nswitch = g->lsym.nswitch;
  f->nrefine = g->lsym.nrefine;
  f->nhead = g->lsym.nhead;
  f->refine_always = g->lsym.refine_always;
  /* the statements are emitted when the files are written (gen_render.c): only what could make
   * that fail other than memory and I/O is checked here, before any file is touched */
  mbg_sym_emit_opts eo = {.indent = "  ", .scalar = g->opts->scalar, .no_final_newline = 1};
  int rc = g->stats_only ? 0 : mbg_sym_emit_check(s, &eo);
  if (rc == 0 && mbg_sym_count(s, &f->counts) != 0) rc = MBG_SYM_ENOMEM;
  if (rc == 0 && mbg_sym_peak_live(s, &f->live) != 0) rc = MBG_SYM_ENOMEM;
  if (rc == 0 && (f->code_bytes = mbg_sym_code_bytes(s)) < 0) rc = MBG_SYM_ENOMEM;
  if (rc == 0 && f->epilogue[0]) epilogue_counts(g, s, f);
  if (rc != 0) {
    fprintf(err, "mbdc: error: %s: %s\n", f->name, mbg_sym_strerror(rc));
    return 1;
  }
  return 0;
}

/* One run of the recipe's build function (at the top of L's stack, left there) with the working
 * quantities in frame fr, into a new graph. final: f's parameters, pivots, counts and graph as
 * the function is written (finish); else only f->variant[fr]'s counts. Returns 0, an exit
 * status, or MBG_GEN_SINGULAR. */
static int run_build(mbg_gen *g, const char *name, const char *path, mbg_gen_function *f,
                     mbg_ref fr, int final, FILE *err) {
  lua_State *L = mbg_lua_state(g->lua);
  char msg[256];
  mbg_sym *s = mbg_sym_new();
  if (!s) return fprintf(err, "mbdc: error: out of memory\n"), 1;
  mbg_sym_set_max_bytes(s, g->sym_max_bytes);
  mbg_lsym_begin(&g->lsym, s);
  g->lsym.trig_input = g->trig_twin;
  g->lsym.frame = mbg_ref_name(fr);
  g->lsym.pivot_eps =
      g->opts->scalar == MBG_SYM_FLOAT ? MBG_PIVOT_EPS_FLOAT : MBG_PIVOT_EPS_DOUBLE;
  int rc = 0;
  mbg_coupled_kind ck = g->topo->ncoupled ? mbg_gen_coupled_kind(g, name) : MBG_COUPLED_NONE;
  if (g->topo->ncoupled) g->lsym.cpl = &g->cpl;
  for (int k = 0; k < f->nparams && rc == 0; k++) {
    int full;
    mbg_lsym_map map = mbg_gen_coupled_map(g, ck, f->params[k].role, f->params[k].size, &full);
    rc = mbg_lsym_array_add(&g->lsym, f->params[k].name, f->params[k].size, f->params[k].is_output);
    if (rc == 0 && map) rc = mbg_lsym_array_map(&g->lsym, map, full);
    if (rc == 0 && f->params[k].pass == MBG_PASS_VALUE)
      g->lsym.arrays[g->lsym.narrays - 1].scalar = 1;
    if (rc == 0 && strcmp(f->params[k].role, "params") == 0)
      g->lsym.arrays[g->lsym.narrays - 1].params = 1;
  }
  int top = lua_gettop(L);
  lua_pushvalue(L, top); /* the build function, kept for the next run */
  lua_rawgeti(L, LUA_REGISTRYINDEX, g->model_ref);
  if (rc != 0) {
    fprintf(err, "mbdc: error: out of memory\n");
    rc = 1;
  } else if (mbg_lua_call(g->lua, 1, 0) != 0) {
    if (g->lsym.singular) {
      /* a model the checks accepted (topology/regular.h) that a recipe finds singular in every
       * configuration: the checks missed a case, or the recipe is wrong. cfa's caller decides. */
      if (strcmp(name, "cfa") != 0)
        fprintf(err, "mbdc: internal error: %s: %s, although the model checks found the mass "
                     "matrix regular; please report this with the model\n", name,
                g->lsym.singular_msg);
      rc = MBG_GEN_SINGULAR;
    } else {
      fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua));
      rc = 1;
    }
  } else if (mbg_lsym_missing(&g->lsym, msg, sizeof msg)) {
    fprintf(err, "mbdc: error: %s: the recipe never writes %s (every output element must be "
                 "written)\n", path, msg);
    rc = 1;
  } else if (mbg_lsym_flush(&g->lsym) != 0) {
    rc = (fprintf(err, "mbdc: error: out of memory\n"), 1);
  } else if (final) {
    rc = finish(g, s, f, err);
  } else if (mbg_sym_count(s, &f->variant[fr].counts) != 0) {
    rc = (fprintf(err, "mbdc: error: out of memory\n"), 1);
  }
  if (rc == 0 && final) f->variant[fr].counts = f->counts;
  f->variant[fr].tried = rc == 0;
  lua_settop(L, top);
  mbg_lsym_end(&g->lsym);
  g->lsym.s = NULL;
  if (final && mbg_gen_keeps_graph(g) && rc == 0) f->sym = s;
  else mbg_sym_free(s);
  return rc;
}

/* The variants f is built in: every one for auto (and all), the one asked for, or body alone
 * for a recipe without the choice and for a model with flexible bodies (generate.c refuses an
 * explicit --frame other than body and auto for those). Returns how many, into list. */
static int variants(const mbg_gen *g, const mbg_gen_function *f, mbg_ref *list) {
  mbg_ref want = g->opts->frame;
  int flexible = g->rt.model.flex != NULL, n = 0;
  if (!f->frames || flexible || want == MBG_REF_BODY) {
    list[0] = MBG_REF_BODY;
    return 1;
  }
  if (want != MBG_REF_AUTO && want != MBG_REF_ALL) {
    list[0] = want;
    return 1;
  }
  for (int k = MBG_REF_BODY; k < MBG_NREFS; k++)
    if (!(g->params && k == MBG_REF_COM)) list[n++] = (mbg_ref)k; /* com: divides by the mass */
  return n;
}

/* 1 (and the error printed) if the graph of built-in function `name` would exceed the memory
 * limit by its estimate (gen_estimate.h): refused before the recipe runs. Not with --templates
 * (a user's recipe or library changes what is built). */
static int refused(const mbg_gen *g, const char *name, int fused, FILE *err) {
  mbg_gen_size sz;
  if (fused >= 0 || g->sym_max_bytes == 0 || mbg_lua_user_dir(g->lua)) return 0;
  if (mbg_gen_estimate(g->topo, name, &sz) != 0 || sz.bytes <= (double)g->sym_max_bytes) return 0;
  fprintf(err,
          "mbdc: error: %s: its expression graph would take about %.1f GiB (about %.2g nodes; "
          "it grows with %s, %.3g here), more than the %zu MiB --lua-memory allows; raise "
          "--lua-memory (0: no limit) or leave %s out of --functions\n",
          name, sz.bytes / 1073741824.0, sz.nodes, sz.measure, sz.units, g->sym_max_bytes >> 20,
          name);
  return 1;
}

int mbg_gen_recipe(mbg_gen *g, const char *name, mbg_gen_function *f, FILE *err) {
  lua_State *L = mbg_lua_state(g->lua);
  char path[160];
  memset(f, 0, sizeof *f);
  int fused = mbg_gen_fuse_find(g, name);
  if (fused >= 0) snprintf(path, sizeof path, "--fuse %s", name);
  else mbg_lua_recipe_where(g->lua, name, path, sizeof path);
  if (refused(g, name, fused, err)) return 1;
  if ((fused >= 0 ? mbg_gen_fuse_push(g, fused) : mbg_lua_run_recipe(g->lua, name)) != 0)
    return fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 1;
  recipe_read r = {g, name, f, ""};
  lua_pushcfunction(L, l_read_recipe);
  lua_insert(L, -2);
  lua_pushlightuserdata(L, &r);
  if (mbg_lua_call(g->lua, 2, 1) != 0 || r.msg[0]) {
    lua_settop(L, 0);
    if (r.msg[0]) return fprintf(err, "mbdc: error: %s: %s\n", path, r.msg), 1;
    return fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 1;
  }
  /* auto: each variant counted, the one of fewest operations built again as the function (ties
   * go to the earlier: body first) */
  mbg_ref list[MBG_NREFS];
  int n = variants(g, f, list), rc = 0;
  mbg_ref best = list[0];
  for (int k = 0; n > 1 && k < n && rc == 0; k++) {
    rc = run_build(g, name, path, f, list[k], 0, err);
    if (rc == 0 && mbg_sym_ops(&f->variant[list[k]].counts) <
                       mbg_sym_ops(&f->variant[best].counts))
      best = list[k];
  }
  f->frame = f->fixed_frame ? f->fixed_frame : best;
  if (rc == 0) rc = run_build(g, name, path, f, best, 1, err);
  if (rc == 0) drop_unused_pi(f);
  lua_settop(L, 0);
  return rc;
}

void mbg_gen_function_free(mbg_gen_function *f) {
  free(f->name);
  free(f->summary);
  mbg_sym_free(f->sym);
  memset(f, 0, sizeof *f);
}
