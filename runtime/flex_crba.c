/* flex_crba.c — the mass matrix of a model with flexible bodies by composite bodies (Jain &
 * Rodriguez, "Recursive Dynamics for Flexible Multibody Systems Using Spatial Operators", JPL
 * Publication 90-26, 1990, §5, Lemma 5.1, eq. 5.5, ruthlessly linearized model of §8). The
 * composite modal inertia of body i is [IC_i, C_i; C_iᵀ, E_i]: IC_i the rigid composite inertia of
 * i's subtree (its dofs locked), C_i and E_i its coupling with and inertia of i's modes. A child c
 * locked to i moves with i's attachment, v_i + Ψ_c η̇_i, so with A = λX*_c IC_c cXλ:
 *   IC_i = I_i + Σ_c A,   C_i = Mc_i + Σ_c A Ψ_c,   E_i = Me_i + Σ_c Ψ_cᵀ A Ψ_c.
 * Column of dof j of body i: the force F = IC_i S_j (joint dof) or C_i e_k (mode k), the modal
 * force E_i e_k; rows: M(θ_l, j) = S_lᵀ F at every body l on the way to the root, F carried by
 * λX*, and M(η_λ, j) = Ψ_lᵀ λX*_l F at each flexible parent. */
#include "flex_internal.h"

/* Composite inertias: IC in ws->IA (6×6), C in ws->PC, E in ws->PE. */
static void composite(const mb_model *m, mb_workspace *ws) {
  const mb_flex *F = m->flex;
  double A[36];
  for (int i = 1; i <= m->nb; i++) {
    int nm = mb_body_nm(m, i), e = mbf_e(ws, i), e2 = mbf_e2(ws, i);
    mbs_I_mat(m->inertia + 10 * i, ws->IA + 36 * i);
    for (int k = 0; k < 6 * nm; k++) ws->PC[6 * e + k] = F->Mc[6 * e + k];
    for (int k = 0; k < nm * nm; k++) ws->PE[e2 + k] = F->Me[e2 + k];
  }
  for (int i = m->nb; i >= 1; i--) {
    int p = m->parent[i];
    if (p == 0) continue;
    mbs_mat6_to_parent(ws->XE + 9 * i, ws->Xr + 3 * i, ws->IA + 36 * i, A);
    for (int k = 0; k < 36; k++) ws->IA[36 * p + k] += A[k];
    mbf_add_section(m, ws, i, A);
  }
}

static void set(const mb_model *m, double *M, int r, int c, double x) {
  size_t nv = (size_t)m->nv;
  M[(size_t)r * nv + (size_t)c] = M[(size_t)c * nv + (size_t)r] = x;
}

/* Column `col` with force F (6) at body i: the rows of body i's joint and of every ancestor. */
static void column_up(const mb_model *m, mb_workspace *ws, int i, double F[6], int col,
                      double *M) {
  double t[6], g[MB_MAX_MODES];
  for (int j = i;;) {
    const double *S = ws->S + 6 * m->iv[j];
    for (int l = 0; l < mbf_nj(m, j); l++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += S[6 * l + k] * F[k];
      set(m, M, m->iv[j] + l, col, s);
    }
    int p = m->parent[j], np = mb_body_nm(m, p);
    if (p == 0) return;
    mbs_XT_fv(ws->XE + 9 * j, ws->Xr + 3 * j, F, t);
    for (int k = 0; k < 6; k++) F[k] = t[k];
    for (int k = 0; k < np; k++) g[k] = 0.0;
    mbf_psiT_fv(m, ws, j, F, g);
    for (int k = 0; k < np; k++) set(m, M, mbf_ie(m, p) + k, col, g[k]);
    j = p;
  }
}

int mbf_crba(const mb_model *m, mb_workspace *ws, const double *q, double *M) {
  double F[6];
  for (size_t k = 0; k < (size_t)m->nv * (size_t)m->nv; k++) M[k] = 0.0;
  mb_xup(m, ws, q);
  composite(m, ws);
  for (int i = 1; i <= m->nb; i++) {
    int n = mbf_nj(m, i), nm = mb_body_nm(m, i), o = m->iv[i], ie = mbf_ie(m, i);
    const double *C = ws->PC + 6 * mbf_e(ws, i), *E = ws->PE + mbf_e2(ws, i);
    for (int c = 0; c < n; c++) { /* F = IC S_c; the modal rows of i: Cᵀ S_c */
      const double *s = ws->S + 6 * (o + c);
      for (int r = 0; r < 6; r++) {
        F[r] = 0.0;
        for (int k = 0; k < 6; k++) F[r] += ws->IA[36 * i + 6 * r + k] * s[k];
      }
      for (int r = 0; r < nm; r++) {
        double x = 0.0;
        for (int k = 0; k < 6; k++) x += C[6 * r + k] * s[k];
        set(m, M, ie + r, o + c, x);
      }
      column_up(m, ws, i, F, o + c, M);
    }
    for (int c = 0; c < nm; c++) { /* F = C e_c; the modal rows of i: E e_c */
      for (int r = 0; r < nm; r++) set(m, M, ie + r, ie + c, E[nm * r + c]);
      for (int k = 0; k < 6; k++) F[k] = C[6 * c + k];
      column_up(m, ws, i, F, ie + c, M);
    }
  }
  return mbs_finite(M, (size_t)m->nv * (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}
