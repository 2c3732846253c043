/* gen_prescribed.c — --prescribed LIST: the joints whose every dof the generated hybrid_fixed
 * prescribes (docs/analysis.md "Hybrid dynamics and prescribed motion"): hybrid dynamics with the
 * mask fixed when the code is generated, so that the free and the prescribed dofs' work is folded
 * out. Each item is the name of a moving tree joint, at most once. */
#include <stdlib.h>
#include <string.h>

#include "emit/gen_prescribed.h"

#include "model/names.h"

/* The tree body whose joint is called name[0..len), or 0 (the name of a merged fixed joint or of a
 * loop joint: *kind says which, 1 fixed, 2 loop, 0 unknown). */
static int find_joint(const mbg_gen *g, const char *name, size_t len, int *kind) {
  const mbg_model *m = g->model;
  for (int i = 1; i <= g->topo->nb; i++) {
    int j = g->topo->body[i].model_joint;
    if (j >= 0 && strlen(m->joints[j].name) == len && strncmp(m->joints[j].name, name, len) == 0)
      return i;
  }
  *kind = 0;
  for (int j = 0; j < m->njoints; j++)
    if (strlen(m->joints[j].name) == len && strncmp(m->joints[j].name, name, len) == 0) *kind = 1;
  for (int j = 0; j < m->nloops; j++)
    if (strlen(m->loops[j].name) == len && strncmp(m->loops[j].name, name, len) == 0) *kind = 2;
  return 0;
}

/* The did-you-mean of an unknown joint name: the tree's moving joints. */
static void suggest_joint(const mbg_gen *g, const char *name, FILE *err) {
  const char **all = calloc((size_t)g->topo->nb + 1, sizeof *all);
  int n = 0;
  for (int i = 1; all && i <= g->topo->nb; i++)
    if (g->topo->body[i].model_joint >= 0 && g->topo->body[i].nv > 0)
      all[n++] = g->model->joints[g->topo->body[i].model_joint].name;
  if (all) mbg_suggest_words(err, name, all, "the moving joints");
  free(all);
}

/* One item p[0..len) into g->prescribed. Returns 0, or 2 after the error. */
static int parse_item(mbg_gen *g, const char *p, size_t len, FILE *err) {
  char name[80];
  int kind = 0, i = find_joint(g, p, len, &kind);
  snprintf(name, sizeof name, "%.*s", (int)(len < 79 ? len : 79), p);
  if (i == 0 || g->topo->body[i].nv == 0) {
    fprintf(err, "mbdc: error: --prescribed: %s '%s'", i ? "fixed joint" : kind == 2 ?
            "loop joint" : kind == 1 ? "fixed joint" : "no joint", name);
    if (i || kind == 1) fputs(": it has no dof to prescribe", err);
    else if (kind == 2) fputs(": a loop joint has no coordinates (prescribe a tree joint)", err);
    else suggest_joint(g, name, err);
    fputc('\n', err);
    return 2;
  }
  const mbg_tree_body *b = &g->topo->body[i];
  for (int k = 0; k < b->nv; k++) {
    if (g->prescribed[b->iv + k])
      return fprintf(err, "mbdc: error: --prescribed: twice the joint '%s'\n", name), 2;
    g->prescribed[b->iv + k] = 1;
  }
  return 0;
}

int mbg_gen_select_prescribed(mbg_gen *g, FILE *err) {
  const char *spec = g->opts->prescribed;
  if (!spec) return 0;
  if (!(g->prescribed = calloc((size_t)g->topo->nv + 1, 1)))
    return fprintf(err, "mbdc: error: out of memory\n"), 2;
  for (const char *p = spec;;) {
    const char *c = strchr(p, ',');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    if (len == 0) return fprintf(err, "mbdc: error: --prescribed: an empty joint name\n"), 2;
    if (parse_item(g, p, len, err)) return 2;
    if (!c) break;
    p = c + 1;
  }
  return 0;
}

void mbg_gen_push_prescribed(const mbg_gen *g, lua_State *L) {
  if (!g->prescribed) return;
  lua_createtable(L, g->topo->nv, 0);
  for (int k = 0; k < g->topo->nv; k++) {
    lua_pushinteger(L, g->prescribed[k]);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "prescribed");
}
