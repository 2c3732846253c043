/* minv.c — the inverse of the joint-space inertia matrix by the operator factorization of Jain &
 * Rodriguez, "Recursive Dynamics for Flexible Multibody Systems Using Spatial Operators", JPL
 * Publication 90-26, 1990 (Lemma 6.3, M⁻¹ = [I − ℋΨK]* D⁻¹ [I − ℋΨK]) in the two-sweep form of
 * Carpentier 2018 ("Analytical inverse of the joint space inertia matrix"): the ABA run on every
 * column of the identity at once, with v = 0 and no gravity. F_i (6 × nv) is the articulated bias
 * force of body i for each column; its nonzero columns are the dofs of i's subtree, all ≥ iv_i, so
 * body i only touches the columns j ≥ iv_i. Row i of M⁻¹ is computed for those columns, the rest by
 * symmetry. */
#include "flex_internal.h"

/* Offsets into the nv × nv matrix and into F (6 nv per body) are size_t: they exceed an int from
 * nv = 46341, or nv (nb + 1) ≈ 3.6e8. */
static double *at(double *Minv, int nv, int r, int c) {
  return Minv + (size_t)r * (size_t)nv + (size_t)c;
}
static double *Fbody(const mb_model *m, const mb_workspace *ws, int i) {
  return ws->F + 6 * (size_t)m->nv * (size_t)i;
}

/* Backward sweep: U, D, IA_λ += λX*_i Ia iXλ;  M⁻¹_ij = D⁻¹ (δ_ij − Sᵀ F_i[:, j]);
 * F_λ[:, j] += λX*_i (F_i[:, j] + U M⁻¹_ij). */
static int minv_backward(const mb_model *m, mb_workspace *ws, double *Minv) {
  int nv = m->nv;
  double Ia[36], w[6], t[6], x[6];
  mb_pivot_refs(m, ws);
  for (int i = m->nb; i >= 1; i--) {
    int n = mb_joint_nv(m->jtype[i]), o = m->iv[i], p = m->parent[i];
    const double *S = ws->S + 6 * o, *U = ws->U + 6 * o, *E = ws->XE + 9 * i, *r = ws->Xr + 3 * i;
    double *F = Fbody(m, ws, i), *Fp = Fbody(m, ws, p);
    if (mb_aba_joint(m, ws, i, Ia)) return -1;
    for (int j = o; j < nv; j++) {
      for (int c = 0; c < n; c++) {
        w[c] = (o + c == j);
        for (int k = 0; k < 6; k++) w[c] -= S[6 * c + k] * F[6 * j + k];
      }
      mbs_chol_solve(n, ws->D + 6 * o, w);
      for (int c = 0; c < n; c++) at(Minv, nv, o + c, j)[0] = w[c];
      if (p == 0) continue;
      for (int k = 0; k < 6; k++) {
        x[k] = F[6 * j + k];
        for (int c = 0; c < n; c++) x[k] += U[6 * c + k] * w[c];
      }
      mbs_XT_fv(E, r, x, t);
      for (int k = 0; k < 6; k++) Fp[6 * j + k] += t[k];
    }
    if (p == 0) continue;
    mbs_mat6_to_parent(E, r, Ia, Ia);
    for (int k = 0; k < 36; k++) ws->IA[36 * p + k] += Ia[k];
  }
  return 0;
}

/* Forward sweep, the accelerations A_i (6 × nv) in place of F_i: a' = iXλ A_λ[:, j];
 * M⁻¹_ij −= D⁻¹ Uᵀ a';  A_i[:, j] = a' + S M⁻¹_ij;  A_0 = 0. */
static void minv_forward(const mb_model *m, mb_workspace *ws, double *Minv) {
  int nv = m->nv;
  double a[6], w[6];
  for (int i = 1; i <= m->nb; i++) {
    int n = mb_joint_nv(m->jtype[i]), o = m->iv[i], p = m->parent[i];
    const double *S = ws->S + 6 * o, *U = ws->U + 6 * o;
    double *A = Fbody(m, ws, i);
    for (int j = o; j < nv; j++) {
      if (p == 0)
        for (int k = 0; k < 6; k++) a[k] = 0.0;
      else
        mbs_X_mv(ws->XE + 9 * i, ws->Xr + 3 * i, Fbody(m, ws, p) + 6 * j, a);
      for (int c = 0; c < n; c++) {
        w[c] = 0.0;
        for (int k = 0; k < 6; k++) w[c] += U[6 * c + k] * a[k];
      }
      mbs_chol_solve(n, ws->D + 6 * o, w);
      for (int c = 0; c < n; c++) at(Minv, nv, o + c, j)[0] -= w[c];
      for (int c = 0; c < n; c++)
        for (int k = 0; k < 6; k++) a[k] += S[6 * c + k] * at(Minv, nv, o + c, j)[0];
      for (int k = 0; k < 6; k++) A[6 * j + k] = a[k];
    }
  }
}

int mb_minv(const mb_model *m, mb_workspace *ws, const double *q, double *Minv) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !Minv) return MB_EINVAL;
  if (mbf_on(m)) return mbf_minv(m, ws, q, Minv);
  int nv = m->nv;
  ws->singular = 0;
  mb_xup(m, ws, q);
  for (int i = 1; i <= m->nb; i++) mbs_I_mat(m->inertia + 10 * i, ws->IA + 36 * i);
  for (size_t k = 0; k < 6 * (size_t)nv * ((size_t)m->nb + 1); k++) ws->F[k] = 0.0;
  if (minv_backward(m, ws, Minv)) return MB_ENUMERIC;
  minv_forward(m, ws, Minv);
  /* M⁻¹_ji = M⁻¹_ij for j < i */
  for (int r = 0; r < nv; r++)
    for (int c = r + 1; c < nv; c++) at(Minv, nv, c, r)[0] = at(Minv, nv, r, c)[0];
  return mbs_finite(Minv, (size_t)nv * (size_t)nv) ? MB_OK : MB_ENUMERIC;
}
