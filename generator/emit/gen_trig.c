/* gen_trig.c — gen_trig.h: --trig-input. A controller calling several functions at one q computes
 * the joint angles' sines and cosines once with p_trig(q, sc) and passes sc to each p_f_sc(q, sc,
 * ...): the same graph as p_f with the sines and cosines as inputs (joints.lua reads them from sc
 * when sym.trig_input() is true), so the same results. */
#include "emit/gen_trig.h"

#include <stdlib.h>
#include <string.h>

#include "emit/gen_cfa.h"
#include "emit/gen_names.h"
#include "emit/gen_recipe.h"

char **mbg_gen_trig_list(mbg_gen *g, char **names, int *n, FILE *err) {
  if (!g->opts->trig_input) return names;
  if (g->ntrig == 0) {
    if (!g->opts->quiet)
      fprintf(err, "%s: note: --trig-input: the model has no revolute, continuous or helical "
                   "joint: no p_trig and no _sc functions\n", g->opts->model_path);
    return names;
  }
  for (int k = 0; k < *n; k++)
    if (strcmp(names[k], "trig") == 0) return names;
  char *trig = strdup("trig"), **grown = trig ? realloc(names, (size_t)(*n + 2) * sizeof *names)
                                             : NULL;
  if (!grown) {
    free(trig);
    for (int k = 0; k < *n; k++) free(names[k]);
    free(names);
    return NULL;
  }
  grown[(*n)++] = trig;
  grown[*n] = NULL;
  return grown;
}

/* Functions that get a twin: every one reading a sine or cosine, but p_trig itself. */
static int wants_twin(const mbg_gen_function *f) {
  return f->counts.sincos > 0 && strcmp(f->name, "trig") != 0;
}

int mbg_gen_trig_twins(mbg_gen *g, FILE *err) {
  if (!g->opts->trig_input || g->ntrig == 0) return 0;
  int n = g->nfunctions, extra = 0;
  for (int k = 0; k < n; k++) extra += wants_twin(&g->functions[k]);
  if (extra == 0) return 0;
  mbg_gen_function *grown = realloc(g->functions, (size_t)(n + extra) * sizeof *grown);
  if (!grown) return fprintf(err, "mbdc: error: out of memory\n"), 2;
  g->functions = grown;
  for (int k = 0; k < n; k++) {
    if (!wants_twin(&g->functions[k])) continue;
    mbg_gen_function *t = &g->functions[g->nfunctions];
    const char *name = g->functions[k].name;
    char twin[96], why[160];
    snprintf(twin, sizeof twin, "%s_sc", name);
    if (!mbg_gen_function_name_ok(g->prefix, twin, why, sizeof why))
      return fprintf(err, "mbdc: error: --trig-input: function '%s' %s\n", twin, why), 2;
    g->trig_twin = 1;
    int rc = strcmp(name, "cfa") == 0 ? mbg_gen_cfa(g, t, err) : mbg_gen_recipe(g, name, t, err);
    g->trig_twin = 0;
    if (rc != 0) return rc;
    int reads_sc = 0; /* sines and cosines of other angles only (a quaternion's): no twin */
    for (int j = 0; j < t->nparams; j++)
      reads_sc |= strcmp(t->params[j].name, "sc") == 0 && t->params[j].used;
    if (!reads_sc) {
      mbg_gen_function_free(t);
      continue;
    }
    g->nfunctions++;
    char *renamed = strdup(twin);
    if (!renamed) return fprintf(err, "mbdc: error: out of memory\n"), 2;
    free(t->name);
    t->name = renamed;
    t->twin_of = k + 1;
  }
  return 0;
}
