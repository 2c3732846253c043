/* loop_assembly.c — the loops must be assembled at a regular point of their constraints
 * (loop_check.h; docs/loops.md, "Singular assemblies").
 *
 * From the assembled configuration, NTANGENT steps of size STEP (the largest coordinate change)
 * along the motions the kept rows allow there (a random velocity projected onto their null
 * space), each projected back onto all the rows of its part: at a regular point the rows define a
 * smooth set of the dimension the kept rows give, the step leaves it by O(STEP²) and the
 * correction back is that small. Where a loop closes only at a singular configuration (a chain
 * that reaches its target only stretched out, a point held at the lowest point of the sphere it
 * moves on), a row's gradient vanishes there: the row is dropped, or kept with a gradient of
 * rounding size, the set is smaller than the rows say, and the correction is as large as the step
 * (or the kept rows' Gram matrix fails the pivot rule). Most steps so: an error at the loop whose
 * row the step breaks most. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topology/loop_check.h"
#include "topology/rtwork.h"

enum { NTANGENT = 4 };
#define STEP 1e-4
#define SINGULAR_RATIO 0.1

/* One step for part k from its assembled coordinates qa (c->qp holds them and the step's end):
 * 1 singular, 0 regular, -1 no verdict (a step that cannot be taken), -2 out of memory. *row:
 * the whole model's index (into rl.row) of the row the step breaks most. */
static int step(lc_ctx *c, int k, lc_work *w, const double *qa, int *buf, int *row) {
  const mbg_loop_part *p = &c->part[k];
  const mb_model *m = w->m;
  double *q = c->qp, *q2 = c->qp + m->nq, *v = c->v, vmax = 0.0, dmax = 0.0;
  mb_loop_workspace lw;
  mb_loops kept = lc_rows(c, k, 1, buf);
  if (kept.nc > 0) {
    mbg_lean_loop_layout(&lw, m, &kept, w->lbuf);
    if (mb_project_v(m, &kept, &w->ws, &lw, qa, v)) {
      /* the kept rows' Gram matrix fails the pivot rule there: a gradient of rounding size */
      int r = lw.singular > 0 ? lw.singular - 1 : 0, n = 0;
      for (int j = 0; j < p->nrows; j++)
        if (c->keep[p->row_of[j]] && n++ == r) *row = p->row_of[j];
      return mbs_finite(v, (size_t)m->nv) ? 1 : -1;
    }
  }
  for (int j = 0; j < m->nv; j++) vmax = fmax(vmax, fabs(v[j]));
  if (!(vmax > 0.0)) return -1;
  for (int j = 0; j < m->nv; j++) v[j] *= STEP / vmax;
  if (mb_integrate(m, qa, v, 1.0, q)) return -1;
  mb_loops all = lc_rows(c, k, -1, buf);
  mbg_lean_loop_layout(&lw, m, &all, w->lbuf);
  if (mb_loop_residual(m, &all, &w->ws, &lw, q, c->phi)) return -1;
  int worst = 0;
  for (int r = 1; r < all.nc; r++)
    if (fabs(c->phi[r]) > fabs(c->phi[worst])) worst = r;
  *row = p->row_of[worst];
  memcpy(q2, q, sizeof *q * (size_t)m->nq);
  int rc = mb_project_q(m, &all, &w->ws, &lw, q2);
  if (rc) return 1; /* Newton fails from a point a small step away: as singular as it gets */
  for (int j = 0; j < m->nq; j++) dmax = fmax(dmax, fabs(q2[j] - q[j]));
  return dmax > SINGULAR_RATIO * STEP;
}

/* Part k: the number of singular steps and of steps with a verdict, the row of the first. */
static int part_steps(lc_ctx *c, int k, uint64_t *seed, int *buf, int *tried, int *row) {
  const mbg_loop_part *p = &c->part[k];
  const mb_model *rm = &c->rm.model;
  double *qa = malloc(sizeof *qa * (size_t)(p->model.nq > 0 ? p->model.nq : 1));
  int singular = 0;
  lc_work w;
  *tried = 0, *row = -1;
  if (!qa || lc_open(&w, p)) return free(qa), -2;
  for (int n = 0; n < NTANGENT; n++) {
    int r = -1;
    mbg_loop_part_get(p, rm, c->qs, qa);
    for (int j = 0; j < p->model.nv; j++) c->v[j] = lc_uniform(seed, -1.0, 1.0);
    int rc = step(c, k, &w, qa, buf, &r);
    if (rc < 0) continue;
    ++*tried;
    if (rc) singular++, *row = *row < 0 ? r : *row;
  }
  lc_close(&w);
  free(qa);
  return singular;
}

int lc_check_regular_assembly(lc_ctx *c, const mbg_model *m, const mbg_topology *t, mbg_diag *d) {
  int *buf = malloc(sizeof *buf * (size_t)(c->rl.nrows + 1)), errors = 0;
  uint64_t seed = 0x6d62646373746570ull; /* "mbdcstep" */
  if (!buf) return -1;
  for (int k = 0; k < c->nparts; k++) {
    int tried, row, singular = part_steps(c, k, &seed, buf, &tried, &row);
    if (singular == -2) return free(buf), -1;
    if (tried == 0 || 2 * singular <= tried || row < 0) continue;
    int l = c->rl.row[row] / MB_LOOP_MAX_ROWS;
    const mbg_loop *ml = &m->loops[t->loop[l].model_loop];
    mbg_diag_error(d, ml->loc,
                   "loop '%s' closes only at a singular configuration: where the loops are "
                   "assembled its row '%s' has no gradient (or one of rounding size), yet it "
                   "does not vanish nearby: in %d of %d steps of %g along the motions the rows "
                   "allow there, it is broken and needs a correction back as large as the step; "
                   "the mechanism is locked or rigid there, and the mobility its rows give is "
                   "wrong",
                   ml->name,
                   mb_loop_row_name(c->rl.loop[l].type, c->rl.row[row] % MB_LOOP_MAX_ROWS),
                   singular, tried, STEP);
    mbg_diag_note(d, ml->loc, "a chain that reaches the loop's target only stretched out, or a "
                              "point held where its path has an extreme: check the loop's "
                              "'origin' and 'target' and the bodies between them");
    errors++;
  }
  free(buf);
  return errors;
}
