/* project.c — projection of q onto φ(q) = 0 (Newton, minimum-norm steps) and of v onto K v = 0
 * (mb.h "Closed loops"; docs/loops.md). */
#include "loops_internal.h"

#include <math.h>
#include <string.h>

/* Φ = K Kᵀ (+ μ 1 with μ = damp · its largest diagonal entry), lower triangle. */
static void gram(const mb_loop_workspace *lw, int nv, int nc, double damp) {
  double dmax = 0.0;
  for (int r = 0; r < nc; r++)
    for (int c = 0; c <= r; c++) {
      const double *a = lw->K + (size_t)r * (size_t)nv, *b = lw->K + (size_t)c * (size_t)nv;
      double s = 0.0;
      for (int k = 0; k < nv; k++) s += a[k] * b[k];
      lw->Phi[(size_t)r * (size_t)nc + (size_t)c] = s;
      if (r == c && s > dmax) dmax = s;
    }
  for (int r = 0; r < nc; r++) lw->Phi[(size_t)r * (size_t)nc + (size_t)r] += damp * dmax;
}

/* dq = Kᵀ x */
static void kt_mul(const mb_loop_workspace *lw, int nv, int nc, const double *x, double *dq) {
  for (int k = 0; k < nv; k++) dq[k] = 0.0;
  for (int r = 0; r < nc; r++)
    for (int k = 0; k < nv; k++) dq[k] += lw->K[(size_t)r * (size_t)nv + (size_t)k] * x[r];
}

int mb_project_q(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 double *q) {
  int rc = mb_loop_all_(m, L, ws, lw, q, NULL);
  if (rc) return rc;
  int nv = m->nv, nc = L->nc;
  double *x = lw->q0;
  memcpy(x, q, sizeof *q * (size_t)m->nq);
  for (int it = 0;; it++) {
    double err = 0.0;
    for (int r = 0; r < nc; r++) /* not fmax: it would drop a NaN */
      if (!(fabs(lw->phi[r]) <= err)) err = fabs(lw->phi[r]);
    if (!(err <= 1e300)) return MB_ENUMERIC; /* NaN or Inf */
    if (err <= MB_PROJECT_TOL) break;
    if (it == MB_PROJECT_MAXIT) return MB_ENUMERIC;
    gram(lw, nv, nc, 1e-10);
    memcpy(lw->lam, lw->phi, sizeof *lw->lam * (size_t)nc);
    if (mb_loop_spd_solve_(lw, nc, NULL, lw->lam)) return MB_ENUMERIC;
    kt_mul(lw, nv, nc, lw->lam, lw->dq);
    if (mb_integrate(m, x, lw->dq, -1.0, x)) return MB_ENUMERIC;
    if ((rc = mb_loop_all_(m, L, ws, lw, x, NULL))) return rc;
  }
  memcpy(q, x, sizeof *q * (size_t)m->nq);
  return MB_OK;
}

int mb_project_v(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 const double *q, double *v) {
  int rc = mb_loop_all_(m, L, ws, lw, q, NULL);
  if (rc) return rc;
  if (!v) return MB_EINVAL;
  int nv = m->nv, nc = L->nc;
  gram(lw, nv, nc, 0.0);
  /* pivot references |K_r|² (mb_loop_kabs_row_; into lw->phi): a redundant row whose K row is
   * rounding noise must fail, not pass against its own noise² diagonal */
  for (int r = 0; r < nc; r++) {
    double s = 0.0;
    mb_loop_kabs_row_(m, L, ws, lw, r, lw->dq);
    for (int k = 0; k < nv; k++) s += lw->dq[k] * lw->dq[k];
    lw->phi[r] = s;
  }
  for (int r = 0; r < nc; r++) {
    double s = 0.0;
    for (int k = 0; k < nv; k++) s += lw->K[(size_t)r * (size_t)nv + (size_t)k] * v[k];
    lw->lam[r] = s;
  }
  if (mb_loop_spd_solve_(lw, nc, lw->phi, lw->lam)) return MB_ENUMERIC;
  kt_mul(lw, nv, nc, lw->lam, lw->dq);
  for (int k = 0; k < nv; k++) lw->dq[k] = v[k] - lw->dq[k];
  if (!mbs_finite(lw->dq, (size_t)nv)) return MB_ENUMERIC;
  memcpy(v, lw->dq, sizeof *v * (size_t)nv);
  return MB_OK;
}
