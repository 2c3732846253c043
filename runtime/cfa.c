/* cfa.c — forward dynamics with the joint wrenches by the Constraint Force Algorithm
 * (Liu, Hu & Zhang, "Constraint force algorithm for tree-like multibody system dynamics",
 * Chinese Journal of Theoretical and Applied Mechanics 48(1), 2016, eqs. 22-29), the plain dense
 * reference of the sparse generated forms (docs/cfa.md).
 *
 * Every joint transmits w_j = f_j(bias) + F_j with F_j = S_j x_j + T_j F_S,j: f_j(bias) the RNEA
 * joint wrench at q̈ = 0, x_j = (S_jᵀ S_j)⁻¹ F_T,j with F_T = τ − b the known part, T_j (ws->T) an
 * orthonormal basis of the complement of S_j, F_S the constraint forces. (S_jᵀ S_j)⁻¹ is the
 * consistent scaling of a helical joint's column of norm √(1 + h²); it is 1 for the other joints.
 * With velocities and gravity in b, the rest is linear in F through three sweeps:
 *   y = P F:    y_j = F_j − Σ_{children c} jX*_c F_c      (net force on body j)
 *   α = I⁻¹ y   (I_j⁻¹ constant in the body frame: bodies need m > 0 and Ic ≻ 0)
 *   z = Pᵀ α:   z_j = α_j − jXλ α_λ, α_0 = 0               (relative acceleration across joint j)
 * and q̈_j = (S_jᵀ S_j)⁻¹ S_jᵀ z_j subject to T_jᵀ z_j = 0, i.e. A F_S = −Tᵀ Pᵀ I⁻¹ P S x with
 * A = Tᵀ Pᵀ I⁻¹ P T (nc × nc, nc = Σ (6 − nv_j)), assembled here column by column and solved by a
 * dense Cholesky factorization. */
#include "mb.h"

size_t mb_cfa_nc(const mb_model *m) {
  size_t nc = 0;
  for (int i = 1; i <= m->nb; i++) nc += (size_t)(6 - mb_joint_nv(m->jtype[i]));
  return nc;
}

/* ws->Ii = [c, Ic⁻¹] for every body: c = h / m, Ic = Ī − m (|c|² 1 − c cᵀ). */
static int cfa_body_inverses(const mb_model *m, mb_workspace *ws) {
  for (int i = 1; i <= m->nb; i++) {
    const double *I = m->inertia + 10 * i;
    double *c = ws->Ii + 12 * i, *Ici = c + 3, Ic[9], e[3], mass = I[0];
    if (!(mass > 0.0)) return ws->singular = i, -1;
    for (int k = 0; k < 3; k++) c[k] = I[1 + k] / mass;
    mbs_sym3_full(I + 4, Ic);
    double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 3; k++) Ic[3 * r + k] -= mass * ((r == k) * cc - c[r] * c[k]);
    if (mbs_chol(3, Ic)) return ws->singular = i, -1;
    for (int k = 0; k < 3; k++) {
      for (int r = 0; r < 3; r++) e[r] = (r == k);
      mbs_chol_solve(3, Ic, e);
      for (int r = 0; r < 3; r++) Ici[3 * r + k] = e[r];
    }
  }
  return 0;
}

/* α = I⁻¹ y:  ω = Ic⁻¹ (n − c × f),  v = f / m + c × ω  (in place). */
static void cfa_Iinv(const mb_model *m, const mb_workspace *ws, int i, double y[6]) {
  const double *c = ws->Ii + 12 * i, *Ici = c + 3;
  double cf[3], w[3], cw[3];
  mbs_cross(c, y + 3, cf);
  for (int k = 0; k < 3; k++) cf[k] = y[k] - cf[k];
  mbs_mat3_mv(Ici, cf, w);
  mbs_cross(c, w, cw);
  for (int k = 0; k < 3; k++) y[3 + k] = y[3 + k] / m->inertia[10 * i] + cw[k], y[k] = w[k];
}

/* The three sweeps: ws->Fc → y = P F → α = I⁻¹ y (in ws->y) → z = Pᵀ α (in ws->z). */
static void cfa_sweeps(const mb_model *m, mb_workspace *ws) {
  double t[6];
  for (int k = 6; k < 6 * (m->nb + 1); k++) ws->y[k] = ws->Fc[k];
  /* y_λ −= λX*_c F_c */
  for (int c = m->nb; c >= 1; c--) {
    int p = m->parent[c];
    if (p == 0) continue;
    mbs_XT_fv(ws->XE + 9 * c, ws->Xr + 3 * c, ws->Fc + 6 * c, t);
    for (int k = 0; k < 6; k++) ws->y[6 * p + k] -= t[k];
  }
  /* α = I⁻¹ y;  z_j = α_j − jXλ α_λ */
  for (int j = 1; j <= m->nb; j++) cfa_Iinv(m, ws, j, ws->y + 6 * j);
  for (int j = 1; j <= m->nb; j++) {
    int p = m->parent[j];
    for (int k = 0; k < 6; k++) t[k] = 0.0;
    if (p != 0) mbs_X_mv(ws->XE + 9 * j, ws->Xr + 3 * j, ws->y + 6 * p, t);
    for (int k = 0; k < 6; k++) ws->z[6 * j + k] = ws->y[6 * j + k] - t[k];
  }
}

/* x = (Sᵀ S)⁻¹ x for the n columns of S. */
static void cfa_gram_solve(const double *S, int n, double *x) {
  double G[36];
  for (int r = 0; r < n; r++)
    for (int c = 0; c <= r; c++) {
      G[n * r + c] = 0.0;
      for (int k = 0; k < 6; k++) G[n * r + c] += S[6 * r + k] * S[6 * c + k];
    }
  mbs_chol(n, G); /* S has full column rank for every joint type */
  mbs_chol_solve(n, G, x);
}

/* out[(off_i + l) · stride] = s · T_i[:, l]ᵀ z_i for every body i (stride nc: in size_t, as nc²
 * exceeds an int from nc = 46341). */
static void cfa_Tt_z(const mb_model *m, const mb_workspace *ws, double s, double *out,
                     size_t stride) {
  for (int i = 1, off = 0; i <= m->nb; i++) {
    int nt = 6 - mb_joint_nv(m->jtype[i]);
    for (int l = 0; l < nt; l++, off++) {
      double d = 0.0;
      for (int k = 0; k < 6; k++) d += ws->T[36 * i + 6 * l + k] * ws->z[6 * i + k];
      out[(size_t)off * stride] = s * d;
    }
  }
}

/* F_j = S_j x_j + T_j F_S,j (x in ws->u, F_S in ws->xS, either may be NULL for zero). */
static void cfa_wrench(const mb_model *m, mb_workspace *ws, const double *x, const double *FS) {
  for (int i = 1, off = 0; i <= m->nb; i++) {
    int n = mb_joint_nv(m->jtype[i]), o = m->iv[i];
    double *F = ws->Fc + 6 * i;
    for (int k = 0; k < 6; k++) F[k] = 0.0;
    for (int c = 0; c < n && x; c++)
      for (int k = 0; k < 6; k++) F[k] += ws->S[6 * (o + c) + k] * x[o + c];
    for (int l = 0; l < 6 - n; l++, off++)
      for (int k = 0; k < 6 && FS; k++) F[k] += ws->T[36 * i + 6 * l + k] * FS[off];
  }
}

/* The body of the constraint row j of A (the rows follow the bodies, 6 − nv_i each). */
static int body_of_row(const mb_model *m, int j) {
  int i = 1;
  for (int off = 0; i < m->nb && off + 6 - mb_joint_nv(m->jtype[i]) <= j; i++)
    off += 6 - mb_joint_nv(m->jtype[i]);
  return i;
}

int mb_cfa(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
           const double *tau, double *qdd, double *wrench) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !tau || !qdd) return MB_EINVAL;
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL; /* flexible bodies: not supported (mb.h) */
  if (mb_has_armature(m)) return MB_EINVAL;       /* rotor inertias: not supported (mb.h) */
  if (mb_has_varying_S(m)) return MB_EINVAL;      /* universal joints: not supported (mb.h) */
  int nc = (int)mb_cfa_nc(m);
  ws->singular = 0;
  /* b = rnea(q, v, 0), keeping f(bias) in ws->f;  x = (Sᵀ S)⁻¹ (τ − b) */
  mb_rnea(m, ws, q, v, NULL, NULL, ws->tau);
  if (cfa_body_inverses(m, ws)) return MB_ENUMERIC;
  for (int k = 0; k < m->nv; k++) ws->u[k] = tau[k] - ws->tau[k];
  for (int i = 1; i <= m->nb; i++)
    cfa_gram_solve(ws->S + 6 * m->iv[i], mb_joint_nv(m->jtype[i]), ws->u + m->iv[i]);
  /* A = Tᵀ Pᵀ I⁻¹ P T, column by column: F = T e_col */
  for (int i = 1, col = 0; i <= m->nb; i++)
    for (int l = 0; l < 6 - mb_joint_nv(m->jtype[i]); l++, col++) {
      for (int k = 0; k < nc; k++) ws->xS[k] = (k == col);
      cfa_wrench(m, ws, NULL, ws->xS);
      cfa_sweeps(m, ws);
      cfa_Tt_z(m, ws, 1.0, ws->A + col, (size_t)nc);
    }
  /* A F_S = −Tᵀ Pᵀ I⁻¹ P S x */
  cfa_wrench(m, ws, ws->u, NULL);
  cfa_sweeps(m, ws);
  cfa_Tt_z(m, ws, -1.0, ws->xS, 1);
  if ((rc = mbs_chol(nc, ws->A)) != 0) return ws->singular = body_of_row(m, -1 - rc), MB_ENUMERIC;
  mbs_chol_solve(nc, ws->A, ws->xS);
  /* F = S x + T F_S;  q̈_j = (Sᵀ S)⁻¹ S_jᵀ z_j;  w_j = f_j(bias) + F_j */
  cfa_wrench(m, ws, ws->u, ws->xS);
  cfa_sweeps(m, ws);
  for (int i = 1; i <= m->nb; i++) {
    int n = mb_joint_nv(m->jtype[i]), o = m->iv[i];
    for (int c = 0; c < n; c++) {
      qdd[o + c] = 0.0;
      for (int k = 0; k < 6; k++) qdd[o + c] += ws->S[6 * (o + c) + k] * ws->z[6 * i + k];
    }
    cfa_gram_solve(ws->S + 6 * o, n, qdd + o);
  }
  for (int k = 0; k < 6 * (m->nb + 1) && wrench; k++)
    wrench[k] = (k < 6) ? 0.0 : ws->f[k] + ws->Fc[k];
  if (!mbs_finite(qdd, (size_t)m->nv)) return MB_ENUMERIC;
  return !wrench || mbs_finite(wrench, 6 * ((size_t)m->nb + 1)) ? MB_OK : MB_ENUMERIC;
}
