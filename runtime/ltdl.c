/* ltdl.c — sparse factorization M = Lᵀ D L of the joint-space inertia matrix and forward dynamics
 * by the composite-rigid-body method (Jain & Rodriguez, "Recursive Dynamics for Flexible
 * Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990, §5, eq. 5.1;
 * Featherstone 2005; Featherstone, "Rigid Body Dynamics Algorithms", 2008, §6.5). λ(k) is the
 * expanded parent array of the dofs (ws->lam, set at init): M_ki ≠ 0 only if i is k or an
 * ancestor of k in λ, so iterating k = nv−1..0 along the λ chains has no fill-in. The factors
 * overwrite M: D on the diagonal, L_ki (i < k, unit diagonal implied) below it; the strict upper
 * triangle is left as it was. */
#include "flex_internal.h"

#include <math.h>

static int lam(const mb_workspace *ws, int k) { return (int)ws->lam[k]; }

/* Row k of the nv × nv matrix M: offsets in size_t (nv² exceeds an int from nv = 46341). */
static double *row(double *M, int n, int k) { return M + (size_t)k * (size_t)n; }
static const double *crow(const double *M, int n, int k) { return M + (size_t)k * (size_t)n; }

/* The body whose joint has dof k (k < nv). */
static int body_of_dof(const mb_model *m, int k) {
  int i = m->nb;
  while (i > 1 && (m->iv[i] > k || mb_joint_nv(m->jtype[i]) + mb_body_nm(m, i) == 0)) i--;
  return i;
}

/* M = Lᵀ D L, the pivots against ws->Dref (set to the base references ws->Dbase): every L_ki
 * carries the rounding error of d_k (about ε_mach Dbase_k) into d_i, amplified by L_ki²:
 * Dref_i += L_ki² Dbase_k (the running error bound of the elimination, one level). */
static int ltdl_factor(const mb_model *m, mb_workspace *ws, double *M) {
  int n = m->nv;
  /* for k = n..1, i = λ(k), λ(λ(k)), ...:  a = M_ki / M_kk;  M_ij −= a M_kj (j = i, λ(i), ...);
   * M_ki = a */
  for (int k = n - 1; k >= 0; k--) {
    double *Mk = row(M, n, k), d = Mk[k], r = ws->Dref[k];
    if (!(r > 0.0 && d > MB_PIVOT_EPS * r)) return ws->singular = body_of_dof(m, k), MB_ENUMERIC;
    for (int i = lam(ws, k); i >= 0; i = lam(ws, i)) {
      double a = Mk[i] / d, *Mi = row(M, n, i);
      if (!isfinite(a)) return MB_ENUMERIC;
      ws->Dref[i] += a * a * ws->Dbase[k];
      for (int j = i; j >= 0; j = lam(ws, j)) Mi[j] -= a * Mk[j];
      Mk[i] = a;
    }
  }
  return MB_OK;
}

int mb_ltdl(const mb_model *m, mb_workspace *ws, double *M) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!M) return MB_EINVAL;
  ws->singular = 0;
  /* the base references: M's diagonal before elimination */
  for (int k = 0; k < m->nv; k++) ws->Dref[k] = ws->Dbase[k] = row(M, m->nv, k)[k];
  return ltdl_factor(m, ws, M);
}

int mb_ltdl_solve(const mb_model *m, const mb_workspace *ws, const double *LD, double *x) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!LD || !x) return MB_EINVAL;
  int n = m->nv;
  /* Lᵀ y = b:  for k = n..1: y_i −= L_ki y_k (i = λ(k), ...) */
  for (int k = n - 1; k >= 0; k--)
    for (int i = lam(ws, k); i >= 0; i = lam(ws, i)) x[i] -= crow(LD, n, k)[i] * x[k];
  /* y = D⁻¹ y */
  for (int k = 0; k < n; k++) x[k] /= crow(LD, n, k)[k];
  /* L x = y:  for k = 1..n: x_k −= L_ki x_i (i = λ(k), ...) */
  for (int k = 0; k < n; k++)
    for (int i = lam(ws, k); i >= 0; i = lam(ws, i)) x[k] -= crow(LD, n, k)[i] * x[i];
  return mbs_finite(x, (size_t)n) ? MB_OK : MB_ENUMERIC;
}

int mb_crba_fd(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
               const double *tau, double *qdd) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !tau || !qdd) return MB_EINVAL;
  /* h = C(q, v) v + g(q);  M q̈ = τ − h (mb_nle and mb_crba fail only on non-finite outputs, and
   * then the factorization or the solve does too) */
  mb_nle(m, ws, q, v, qdd);
  for (int k = 0; k < m->nv; k++) qdd[k] = tau[k] - qdd[k];
  mb_crba(m, ws, q, ws->M);
  ws->singular = 0;
  mb_pivot_refs(m, ws);
  for (int k = 0; k < m->nv && mbf_on(m); k++) /* modes: against M's diagonal */
    if (k >= m->iv[body_of_dof(m, k)] + mb_joint_nv(m->jtype[body_of_dof(m, k)]))
      ws->Dref[k] = ws->Dbase[k] = ws->M[(size_t)k * (size_t)m->nv + (size_t)k];
  if (ltdl_factor(m, ws, ws->M)) return MB_ENUMERIC;
  return mb_ltdl_solve(m, ws, ws->M, qdd);
}
