/* gen_params.c — the run-time inertial parameters of a generation (gen_params.h). */
#include "emit/gen_params.h"

#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/numfmt.h"
#include "lua/lua_host.h"
#include "model/names.h"
#include "model/xform.h"

/* Pinocchio's order (Inertia::toDynamicParameters) → the model's [m, h, ixx iyy izz ixy ixz iyz]. */
static const int PIN_TO_MODEL[10] = {0, 1, 2, 3, 4, 7, 5, 8, 9, 6};
static const char *const PARAM_NAMES[10] = {"m",   "mcx", "mcy", "mcz", "Ixx",
                                            "Ixy", "Iyy", "Ixz", "Iyz", "Izz"};

/* What was named: model bodies in order, `all`, `gravity`. */
typedef struct named {
  int n, all, gravity;
  int *body;
} named;

/* "MODEL:LINE:COL: error: " for the statement, "mbdc: error: --parameters: " for the option. */
static void error_head(const mbg_gen *g, FILE *err) {
  if (g->opts->parameters) {
    fprintf(err, "mbdc: error: --parameters: ");
  } else {
    fprintf(err, "%s:%d:%d: error: ", g->opts->model_path, g->model->parameters_loc.line,
            g->model->parameters_loc.col);
  }
}

/* The option's comma-separated list into *n. Returns 0, 2 after an error (a usage error, as the
 * other options'), -1 out of memory. */
static int parse_option(const mbg_gen *g, const char *list, named *n, FILE *err) {
  const mbg_model *m = g->model;
  n->body = calloc(strlen(list) / 2 + 2, sizeof *n->body);
  if (!n->body) return -1;
  for (const char *s = list, *end = list + strlen(list); s <= end;) {
    size_t len = strcspn(s, ",");
    char word[256];
    snprintf(word, sizeof word, "%.*s", (int)(len < 255 ? len : 255), s);
    s += len + 1; /* past the comma, or past the end after the last item */
    if (!word[0]) return fprintf(err, "mbdc: error: --parameters: an empty item in '%s'\n", list), 2;
    if (strcmp(word, "all") == 0 || strcmp(word, "gravity") == 0) {
      int *flag = word[0] == 'a' ? &n->all : &n->gravity;
      if (*flag) return fprintf(err, "mbdc: error: --parameters: '%s' is listed twice\n", word), 2;
      *flag = 1;
      continue;
    }
    int b = word[0] ? mbg_model_find_body(m, word) : -1;
    if (b <= 0) {
      const char **names = calloc((size_t)m->nbodies + 1, sizeof *names);
      if (!names) return -1;
      for (int k = 1; k < m->nbodies; k++) names[k - 1] = m->bodies[k].name;
      fprintf(err, "mbdc: error: --parameters: '%s' is not a body, 'all' or 'gravity'", word);
      mbg_suggest_words(err, word, names, "the bodies");
      fputc('\n', err);
      free(names);
      return 2;
    }
    for (int k = 0; k < n->n; k++)
      if (n->body[k] == b)
        return fprintf(err, "mbdc: error: --parameters: body '%s' is listed twice\n", word), 2;
    n->body[n->n++] = b;
  }
  return 0;
}

/* The block of tree body t (whole) or of model body b fixed to it. */
static void add_block(const mbg_gen *g, mbg_gen_params *p, int b, int t, int whole) {
  mbg_param_block *k = &p->block[p->nblocks++];
  memset(k, 0, sizeof *k);
  k->model_body = b, k->tree_body = t, k->whole = whole;
  p->nblk[t]++;
  mbg_xform Yi; /* working → original */
  mbg_xform_inverse(&g->dh.body[t].Yo, &Yi);
  if (whole) k->X = Yi;
  else mbg_xform_compose(&g->topo->merged[b].X, &Yi, &k->X);
}

/* Check each named body and make the blocks (g->params allocated, empty). Returns 0, or after an
 * error 2 for the option (a usage error), 1 for the statement (an error of the model). */
static int make_blocks(const mbg_gen *g, const named *n, mbg_gen_params *p, FILE *err) {
  const mbg_topology *t = g->topo;
  if (n->all)
    for (int i = 1; i <= t->nb; i++) add_block(g, p, t->body[i].model_body, i, 1);
  for (int k = 0; k < n->n; k++) {
    int b = n->body[k], into = t->merged[b].into;
    const char *name = g->model->bodies[b].name;
    if (into <= 0) {
      error_head(g, err);
      fprintf(err, "body '%s' is fixed to the world: no function depends on its inertial "
                   "parameters\n", name);
      return g->opts->parameters ? 2 : 1;
    }
    if (t->body[into].nm > 0) {
      error_head(g, err);
      fprintf(err, "body '%s' %s the flexible body '%s': run-time parameters are for rigid "
                   "bodies\n", name, t->body[into].model_body == b ? "is" : "is fixed to",
              g->model->bodies[t->body[into].model_body].name);
      return g->opts->parameters ? 2 : 1;
    }
    int whole = t->body[into].model_body == b;
    if (whole && n->all) continue; /* `all` made it already */
    add_block(g, p, b, into, whole);
  }
  return 0;
}

/* 1 if model body b is in a block of its own. */
static int own_block(const mbg_gen_params *p, int b) {
  for (int k = 0; k < p->nblocks; k++)
    if (p->block[k].model_body == b && !p->block[k].whole) return 1;
  return 0;
}

/* The blocks' model values, the harness's maps A and the tree bodies' constant rests, summed in
 * model order as the topology merges them. */
static void block_values(const mbg_gen *g, mbg_gen_params *p) {
  const mbg_topology *t = g->topo;
  for (int b = 1; b < g->model->nbodies; b++) {
    int into = t->merged[b].into;
    if (into <= 0 || !p->nblk[into]) continue;
    mbg_inertia own, moved;
    mbg_inertia_from_body(&g->model->bodies[b], &own);
    int whole = -1, self = own_block(p, b);
    for (int k = 0; k < p->nblocks; k++)
      if (p->block[k].tree_body == into && p->block[k].whole) whole = k;
    double *acc = p->rest + 10 * into;
    if (self) {
      for (int k = 0; k < p->nblocks; k++) {
        if (p->block[k].model_body != b) continue;
        double x[10] = {own.m, own.h[0], own.h[1], own.h[2]};
        memcpy(x + 4, own.I, sizeof own.I);
        for (int l = 0; l < 10; l++) p->block[k].pi[l] = x[PIN_TO_MODEL[l]];
      }
      continue;
    }
    mbg_inertia_to_parent(&t->merged[b].X, &own, &moved);
    double x[10] = {moved.m, moved.h[0], moved.h[1], moved.h[2]};
    memcpy(x + 4, moved.I, sizeof moved.I);
    if (whole >= 0) {
      double y[10];
      for (int l = 0; l < 10; l++) y[l] = x[PIN_TO_MODEL[l]];
      for (int l = 0; l < 10; l++) p->block[whole].pi[l] += y[l];
    } else {
      for (int l = 0; l < 10; l++) acc[l] += x[l];
    }
  }
  /* A: each unit parameter of the block in its tree body's original frame */
  for (int k = 0; k < p->nblocks; k++) {
    mbg_param_block *bk = &p->block[k];
    const mbg_xform *X = &t->merged[bk->model_body].X;
    for (int c = 0; c < 10; c++) {
      double e[10] = {0};
      e[PIN_TO_MODEL[c]] = 1.0;
      mbg_inertia u = {e[0], {e[1], e[2], e[3]}, {e[4], e[5], e[6], e[7], e[8], e[9]}}, w = u;
      if (!bk->whole) mbg_inertia_to_parent(X, &u, &w);
      double y[10] = {w.m, w.h[0], w.h[1], w.h[2]};
      memcpy(y + 4, w.I, sizeof w.I);
      for (int r = 0; r < 10; r++) bk->A[10 * r + c] = y[r];
    }
  }
}

int mbg_gen_params_build(mbg_gen *g, FILE *err) {
  named n = {0, 0, 0, NULL};
  const mbg_model *m = g->model;
  int rc = 0;
  if (g->opts->parameters) {
    rc = parse_option(g, g->opts->parameters, &n, err);
  } else if (m->has_parameters) {
    n.all = m->param_all, n.gravity = m->param_gravity, n.n = m->nparam_bodies;
    n.body = malloc(((size_t)n.n + 1) * sizeof *n.body);
    if (!n.body) return -1;
    if (n.n) memcpy(n.body, m->param_bodies, (size_t)n.n * sizeof *n.body);
  }
  if (rc || (!n.all && !n.gravity && n.n == 0)) return free(n.body), rc;
  int nb = g->topo->nb, cap = n.n + (n.all ? nb : 0);
  mbg_gen_params *p = calloc(1, sizeof *p);
  if (p) {
    p->block = calloc((size_t)cap + 1, sizeof *p->block);
    p->nblk = calloc((size_t)nb + 1, sizeof *p->nblk);
    p->rest = calloc(10 * ((size_t)nb + 1), sizeof *p->rest);
  }
  if (!p || !p->block || !p->nblk || !p->rest) return mbg_gen_params_free(p), free(n.body), -1;
  rc = make_blocks(g, &n, p, err);
  if (rc == 0 && n.all && g->rt.model.flex) {
    error_head(g, err);
    fprintf(err, "'all' with flexible bodies: run-time parameters are for rigid bodies\n");
    rc = g->opts->parameters ? 2 : 1;
  }
  free(n.body);
  if (rc) return mbg_gen_params_free(p), rc;
  block_values(g, p);
  p->npi = 10 * p->nblocks;
  p->gravity_at = n.gravity ? p->npi : -1;
  if (n.gravity) p->npi += 3;
  g->params = p;
  return 0;
}

void mbg_gen_params_free(mbg_gen_params *p) {
  if (!p) return;
  free(p->block);
  free(p->nblk);
  free(p->rest);
  free(p);
}

static void push_doubles(lua_State *L, const double *x, int n) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    lua_pushnumber(L, x[k]);
    lua_rawseti(L, -2, k + 1);
  }
}

static void push_xform(lua_State *L, const mbg_xform *X) {
  lua_createtable(L, 0, 2);
  push_doubles(L, X->E, 9);
  lua_setfield(L, -2, "E");
  push_doubles(L, X->r, 3);
  lua_setfield(L, -2, "r");
}

void mbg_gen_params_push_body(const mbg_gen *g, lua_State *L, int i) {
  const mbg_gen_params *p = g->params;
  if (!p || !p->nblk[i]) return;
  /* the rest in the working frame: through Yo as the aligned inertia is (dh_frames.c), entries
   * below 1e-15 of the largest snapped to zero */
  const double *r = p->rest + 10 * i;
  mbg_inertia rest = {r[0], {r[1], r[2], r[3]}, {r[4], r[5], r[6], r[7], r[8], r[9]}}, w;
  mbg_xform Yi;
  mbg_xform_inverse(&g->dh.body[i].Yo, &Yi);
  mbg_inertia_to_parent(&Yi, &rest, &w);
  double I[10] = {w.m, w.h[0], w.h[1], w.h[2]}, big = 0.0;
  memcpy(I + 4, w.I, sizeof w.I);
  for (int k = 0; k < 10; k++) big = fmax(big, fabs(I[k]));
  for (int k = 0; k < 10; k++)
    if (fabs(I[k]) <= 1e-15 * big) I[k] = 0.0;
  push_doubles(L, I, 10);
  lua_setfield(L, -2, "inertia");
  lua_createtable(L, p->nblk[i], 0);
  int n = 0;
  for (int k = 0; k < p->nblocks; k++) {
    if (p->block[k].tree_body != i) continue;
    lua_createtable(L, 0, 2);
    mbg_lua_set_int(L, "at", 10 * k);
    push_xform(L, &p->block[k].X);
    lua_setfield(L, -2, "X");
    lua_rawseti(L, -2, ++n);
  }
  lua_setfield(L, -2, "params");
}

/* Numbers as exact C literals (the render templates write them as they are). */
static void push_literals(lua_State *L, const double *x, int n) {
  char buf[40];
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    mbg_fmt_double(x[k], buf);
    lua_pushstring(L, buf);
    lua_rawseti(L, -2, k + 1);
  }
}

void mbg_gen_params_push_render(const mbg_gen *g, lua_State *L) {
  const mbg_gen_params *p = g->params;
  if (!p) return;
  lua_createtable(L, 0, 6);
  mbg_lua_set_int(L, "npi", p->npi);
  lua_createtable(L, p->npi, 0);
  lua_createtable(L, p->npi, 0);
  int n = 0;
  for (int k = 0; k < p->nblocks; k++)
    for (int l = 0; l < 10; l++) {
      char buf[40];
      lua_pushfstring(L, "%s.%s", g->model->bodies[p->block[k].model_body].name, PARAM_NAMES[l]);
      lua_rawseti(L, -3, n + 1);
      mbg_fmt_double(p->block[k].pi[l], buf);
      lua_pushstring(L, buf);
      lua_rawseti(L, -2, ++n);
    }
  for (int l = 0; p->gravity_at >= 0 && l < 3; l++) {
    char buf[40];
    lua_pushfstring(L, "gravity.%c", "xyz"[l]);
    lua_rawseti(L, -3, n + 1);
    mbg_fmt_double(g->model->gravity[l], buf);
    lua_pushstring(L, buf);
    lua_rawseti(L, -2, ++n);
  }
  lua_setfield(L, -3, "values");
  lua_setfield(L, -2, "names");
  if (p->gravity_at >= 0) mbg_lua_set_int(L, "gravity_at", p->gravity_at);
  lua_createtable(L, p->nblocks, 0);
  for (int k = 0; k < p->nblocks; k++) {
    lua_createtable(L, 0, 3);
    mbg_lua_set_int(L, "body", p->block[k].tree_body);
    mbg_lua_set_int(L, "at", 10 * k);
    push_literals(L, p->block[k].A, 100);
    lua_setfield(L, -2, "A");
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "blocks");
  lua_createtable(L, 0, 0);
  for (int i = 1; i <= g->topo->nb; i++) {
    if (!p->nblk[i]) continue;
    push_literals(L, p->rest + 10 * i, 10);
    lua_rawseti(L, -2, i);
  }
  lua_setfield(L, -2, "rest");
  lua_setfield(L, -2, "params");
}
