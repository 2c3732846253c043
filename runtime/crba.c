/* crba.c — the joint-space inertia matrix by the composite-rigid-body algorithm
 * (Featherstone, "Rigid Body Dynamics Algorithms", 2008, ch. 6; Jain & Rodriguez, "Recursive
 * Dynamics for Flexible Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990,
 * §5, Lemma 5.1, eq. 5.5). */
#include "flex_internal.h"

/* Composite inertias: IC_i = I_i;  for i = N..1: IC_λ += λX*_i IC_i iXλ. */
static void crba_composite(const mb_model *m, mb_workspace *ws) {
  double t[10];
  for (int k = 0; k < 10 * (m->nb + 1); k++) ws->IC[k] = m->inertia[k];
  for (int i = m->nb; i >= 1; i--) {
    int p = m->parent[i];
    if (p == 0) continue;
    mbs_I_to_parent(ws->XE + 9 * i, ws->Xr + 3 * i, ws->IC + 10 * i, t);
    for (int k = 0; k < 10; k++) ws->IC[10 * p + k] += t[k];
  }
}

/* M[row block of j, col block of i] = S_jᵀ F and its transpose; F holds n columns. */
static void crba_block(const mb_model *m, const mb_workspace *ws, int j, const double *F, int n,
                       int col, double *M) {
  const double *S = ws->S + 6 * m->iv[j];
  size_t nv = (size_t)m->nv; /* offsets into M in size_t: nv² exceeds an int from nv = 46341 */
  int nj = mb_joint_nv(m->jtype[j]);
  for (int r = 0; r < nj; r++)
    for (int c = 0; c < n; c++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += S[6 * r + k] * F[6 * c + k];
      size_t row = (size_t)(m->iv[j] + r), cl = (size_t)(col + c);
      M[row * nv + cl] = M[cl * nv + row] = s;
    }
}

int mb_crba(const mb_model *m, mb_workspace *ws, const double *q, double *M) {
  double F[36], t[6];
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !M) return MB_EINVAL;
  if (mbf_on(m)) {
    if ((rc = mbf_crba(m, ws, q, M)) != MB_OK) return rc;
    mb_add_armature(m, M);
    return rc;
  }
  for (size_t k = 0; k < (size_t)m->nv * (size_t)m->nv; k++) M[k] = 0.0;
  mb_xup(m, ws, q);
  crba_composite(m, ws);
  for (int i = 1; i <= m->nb; i++) {
    int n = mb_joint_nv(m->jtype[i]), j = i;
    /* F = IC_i S_i;  M_ii = S_iᵀ F */
    for (int c = 0; c < n; c++) mbs_I_mv(ws->IC + 10 * i, ws->S + 6 * (m->iv[i] + c), F + 6 * c);
    crba_block(m, ws, i, F, n, m->iv[i], M);
    /* while λ(j) ≠ 0:  F = λX*_j F;  j = λ(j);  M_ji = M_ijᵀ = S_jᵀ F */
    while (n > 0 && m->parent[j] != 0) {
      for (int c = 0; c < n; c++) {
        mbs_XT_fv(ws->XE + 9 * j, ws->Xr + 3 * j, F + 6 * c, t);
        for (int k = 0; k < 6; k++) F[6 * c + k] = t[k];
      }
      j = m->parent[j];
      crba_block(m, ws, j, F, n, m->iv[i], M);
    }
  }
  mb_add_armature(m, M); /* the rotor inertias on the diagonal (mb.h mb_model.armature) */
  return mbs_finite(M, (size_t)m->nv * (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}
