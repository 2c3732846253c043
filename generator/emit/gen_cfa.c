/* gen_cfa.c — the cfa function (templates/algorithms/cfa.lua) in its elimination orders.
 *
 * The recipe reads the order from model.cfa; this stage pushes the model table once per order
 * (--cfa-order, or both), runs the recipe, measures each graph (operation counts, dependency depth
 * of the whole function and of the solve after A is assembled: cfa.lua names the q-dependent
 * entries of A, A_R_*, and its right-hand side, A_b_*) and keeps the cheaper by total operation
 * count (ties: tips). */
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit/gen_cfa.h"

#include "emit/gen_model.h"
#include "emit/gen_recipe.h"

int mbg_gen_cfa_defined(const mbg_gen *g, char *why, size_t n) {
  for (int i = 1; i <= g->topo->nb; i++) {
    const mbg_inertia *I = &g->topo->body[i].I;
    double m = I->m, c[3], a[3][3], scale = 0;
    int ok = m > 0;
    for (int k = 0; k < 3 && ok; k++) c[k] = I->h[k] / m;
    /* Ic = Ī − m (|c|² 1 − c cᵀ) and its Cholesky pivots, relative to the scale of the terms it
     * is the difference of (Ī's entries and m |c|²): a point mass off the origin leaves an Ic of
     * rounding noise, which is no inverse inertia however it compares with itself */
    static const int sym[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};
    double cc = ok ? c[0] * c[0] + c[1] * c[1] + c[2] * c[2] : 0.0;
    for (int k = 0; k < 6 && ok; k++) scale = fmax(scale, fabs(I->I[k]));
    scale += m * cc;
    for (int r = 0; r < 3 && ok; r++)
      for (int k = 0; k < 3; k++) a[r][k] = I->I[sym[r][k]] - m * ((r == k) * cc - c[r] * c[k]);
    for (int j = 0; j < 3 && ok; j++) {
      for (int r = j; r < 3; r++)
        for (int k = 0; k < j; k++) a[r][j] -= a[r][k] * a[j][k];
      ok = a[j][j] > 1e-12 * scale;
      for (int r = j + 1; r < 3 && ok; r++) a[r][j] /= sqrt(a[j][j]);
      if (ok) a[j][j] = sqrt(a[j][j]);
    }
    if (!ok) {
      snprintf(why, n, "body '%s' has no inverse inertia (the constraint force algorithm needs "
               "m > 0 and a positive definite rotational inertia about the centre of mass for "
               "every body)", g->model->bodies[g->topo->body[i].model_body].name);
      return 0;
    }
  }
  return 1;
}

/* The order's own figures and its cost estimate (the recipe gets the same order through
 * model.cfa). Returns 0, or -1 (memory). */
static int order_figures(const mbg_gen *g, mbg_cfa_kind kind, mbg_gen_cfa_row *row) {
  const mbg_topology *t = g->topo;
  int nb = t->nb, *parent = malloc((size_t)(nb + 1) * sizeof *parent);
  int *nt = malloc((size_t)(nb + 1) * sizeof *nt), rc = -1;
  mbg_cfa_order o;
  memset(row, 0, sizeof *row);
  row->kind = kind;
  if (parent && nt) {
    for (int i = 0; i <= nb; i++) parent[i] = t->body[i].parent, nt[i] = 6 - t->body[i].nv;
    rc = mbg_cfa_order_build(nb, parent, nt, kind, &o);
  }
  if (rc == 0) {
    row->rounds = o.rounds, row->longest = o.longest, row->nnode = o.nnode;
    row->fill = o.nfill, row->height = o.height, row->nhub = o.nhub;
    row->estimate = mbg_cfa_order_flops(&o);
    mbg_cfa_order_free(&o);
  }
  free(parent), free(nt);
  return rc;
}

/* Run the recipe in the row's order into f (graph kept) and measure it into row. */
static int run_order(mbg_gen *g, mbg_gen_function *f, mbg_gen_cfa_row *row, FILE *err) {
  g->cfa_kind = row->kind;
  if (mbg_gen_push_model(g) != 0)
    return fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 2;
  int rc = mbg_gen_recipe(g, "cfa", f, err);
  if (rc != 0) return rc;
  row->generated = 1;
  row->counts = f->counts;
  if (mbg_sym_depth(f->sym, NULL, &row->depth) != 0 ||
      mbg_sym_depth(f->sym, "A_", &row->solve_depth) != 0)
    return fprintf(err, "mbdc: error: out of memory\n"), 2;
  return 0;
}

/* An order whose block elimination is estimated at more than this many times the cheapest
 * order's is not generated (a bushy tree's odd-even node block is dense: O(n³)). */
#define CFA_ESTIMATE_SLACK 2.0

int mbg_gen_cfa(mbg_gen *g, mbg_gen_function *f, FILE *err) {
  mbg_gen_cfa_row rows[2];
  mbg_cfa_kind kinds[2] = {MBG_CFA_TIPS, MBG_CFA_ODD_EVEN};
  int n = 2, keep = g->keep_sym, rc = 0, best = -1;
  char why[256];
  if (!mbg_gen_cfa_defined(g, why, sizeof why))
    return fprintf(err, "%s: error: cannot generate cfa: %s\n", g->opts->model_path, why), 1;
  if (g->opts->cfa_order != MBG_CFA_AUTO) kinds[0] = g->opts->cfa_order, n = 1;
  double least = 0;
  for (int k = 0; k < n; k++) {
    if (order_figures(g, kinds[k], &rows[k]) != 0)
      return fprintf(err, "mbdc: error: out of memory\n"), 2;
    if (k == 0 || rows[k].estimate < least) least = rows[k].estimate;
  }
  g->keep_sym = 1;
  for (int k = 0; k < n && rc == 0; k++) {
    if (n > 1 && rows[k].estimate > CFA_ESTIMATE_SLACK * least) continue;
    mbg_gen_function tmp;
    rc = run_order(g, best < 0 ? f : &tmp, &rows[k], err);
    if (rc != 0) {
      if (best >= 0) mbg_gen_function_free(&tmp);
    } else if (best < 0) {
      best = k;
    } else if (mbg_sym_ops(&tmp.counts) < mbg_sym_ops(&f->counts)) {
      mbg_gen_function_free(f);
      *f = tmp, best = k;
    } else {
      mbg_gen_function_free(&tmp);
    }
  }
  g->keep_sym = keep;
  if (!mbg_gen_keeps_graph(g) && f->sym) mbg_sym_free(f->sym), f->sym = NULL;
  /* the generated order first, then the other(s) */
  g->ncfa_rows = 0;
  if (best >= 0) g->cfa_rows[g->ncfa_rows++] = rows[best];
  for (int k = 0; k < n; k++)
    if (k != best) g->cfa_rows[g->ncfa_rows++] = rows[k];
  g->cfa_kind = MBG_CFA_AUTO;
  if ((rc == 0 || rc == MBG_GEN_SINGULAR) && mbg_gen_push_model(g) != 0)
    rc = (fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 2);
  return rc;
}

/* One order's row of `mbdc stats`, as text (the label in a column of width w) or as a JSON
 * member. */
static void print_row(const mbg_gen_cfa_row *r, int json, int w, FILE *out) {
  const mbg_sym_counts *c = &r->counts;
  const char *name = mbg_cfa_kind_name(r->kind);
  if (json) {
    fprintf(out, ", \"%s\": {\"generated\": %s", name, r->generated ? "true" : "false");
    if (r->generated)
      fprintf(out, ", \"mul\": %ld, \"add\": %ld, \"div\": %ld, \"sqrt\": %ld, \"trig\": %ld, "
                   "\"depth\": %ld, \"solve_depth\": %ld", c->mul, c->add, c->div, c->sqrt,
              c->trig, r->depth, r->solve_depth);
    fprintf(out, ", \"estimate\": %.0f, \"rounds\": %d, \"longest_chain\": %d, "
                 "\"node_block\": %d, \"hubs\": %d, \"fill\": %d, \"etree_height\": %d}",
            r->estimate, r->rounds, r->longest, r->nnode, r->nhub, r->fill, r->height);
    return;
  }
  char label[32];
  snprintf(label, sizeof label, "cfa[%s]", name);
  if (r->generated)
    fprintf(out, "%-*s %8ld %8ld %6ld %6ld %6ld  depth %ld, solve depth %ld, fill %d", w, label,
            c->mul, c->add, c->div, c->sqrt, c->trig, r->depth, r->solve_depth, r->fill);
  else
    fprintf(out, "%-*s not generated: its block elimination is estimated at %.3g mul, over %g "
                 "times the cheapest order's; fill %d", w, label, r->estimate, CFA_ESTIMATE_SLACK,
            r->fill);
  if (r->kind == MBG_CFA_ODD_EVEN)
    fprintf(out, ", K = %d round%s (longest chain %d), node block %d", r->rounds,
            r->rounds == 1 ? "" : "s", r->longest, r->nnode);
  else if (r->nhub > 0)
    fprintf(out, ", hubs %d", r->nhub);
  fprintf(out, "\n");
}

void mbg_gen_cfa_print(const mbg_gen *g, int json, int width, FILE *out) {
  if (g->ncfa_rows == 0) return;
  if (json) fprintf(out, ", \"cfa\": {\"order\": \"%s\"", mbg_cfa_kind_name(g->cfa_rows[0].kind));
  else fprintf(out, "\ncfa orders (the first is generated; depth: longest dependency chain)\n");
  for (int k = 0; k < g->ncfa_rows; k++) print_row(&g->cfa_rows[k], json, width, out);
  if (json) fprintf(out, "}");
}
