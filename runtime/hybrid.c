/* hybrid.c — hybrid dynamics (Featherstone, "Rigid Body Dynamics Algorithms", 2008, §9.2): the
 * articulated-body algorithm with some accelerations prescribed. A prescribed dof's known q̈
 * enters its body's velocity-product term, c'' = c + S_P q̈_P (so a'' = iXλ a_λ + c'' is the body's
 * acceleration before its free dofs move); the free columns S_F of the joint are reduced as the ABA
 * reduces a whole joint (U_F = IA S_F, D = S_Fᵀ U_F + armature, Ia = IA − U_F D⁻¹ U_Fᵀ); a joint
 * whose dofs are all prescribed passes IA on whole, as a weld. The last pass gives the free q̈ and
 * every body's acceleration; a prescribed dof's force is τ = Sᵀ (IA a + pA) + armature q̈, the
 * articulated-body equation of its subtree. */
#include "aba_internal.h"
#include "flex_internal.h"

#include <math.h>

/* Joint i's free columns into F (their indices 0..n-1), their count returned. */
static int free_columns(const mb_model *m, int i, const int *mask, int F[6]) {
  int nf = 0;
  for (int c = 0, o = m->iv[i]; c < mb_joint_nv(m->jtype[i]); c++)
    if (!mask[o + c]) F[nf++] = c;
  return nf;
}

/* Body i's step of the backward pass: c'' = c + S_P q̈_P (into ws->c), U = IA S (every column, in
 * ws->U), D of the free columns (nf × nf, factored into ws->D at 6 iv), u_F = τ_F − S_Fᵀ pA (in
 * ws->u at the free dofs) and Ia = IA − U_F D⁻¹ U_Fᵀ. Returns 0, or -1 (ws->singular = i). */
static int hybrid_joint(const mb_model *m, mb_workspace *ws, int i, const int *mask,
                        const double *in, double Ia[36]) {
  int F[6], n = mb_joint_nv(m->jtype[i]), o = m->iv[i], nf = free_columns(m, i, mask, F);
  const double *IA = ws->IA + 36 * i, *S = ws->S + 6 * o, *pA = ws->pA + 6 * i;
  double *U = ws->U + 6 * o, *D = ws->D + 6 * o, *c = ws->c + 6 * i, UF[36], ref[6], W[36];
  for (int l = 0; l < n; l++) {
    for (int k = 0; k < 6 && mask[o + l]; k++) c[k] += S[6 * l + k] * in[o + l];
    for (int k = 0; k < 6; k++) {
      double s = 0.0;
      for (int j = 0; j < 6; j++) s += IA[6 * k + j] * S[6 * l + j];
      U[6 * l + k] = s;
    }
  }
  for (int a = 0; a < nf; a++) {
    const double *Sa = S + 6 * F[a];
    for (int k = 0; k < 6; k++) UF[6 * a + k] = U[6 * F[a] + k];
    for (int b = 0; b <= a; b++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += Sa[k] * UF[6 * b + k];
      D[nf * a + b] = s + (a == b ? mb_armature(m, o + F[a]) : 0.0);
    }
    double s = in[o + F[a]];
    for (int k = 0; k < 6; k++) s -= Sa[k] * pA[k];
    ws->u[o + F[a]] = s, ref[a] = ws->Dref[o + F[a]];
  }
  if (mbs_chol_ref(nf, D, ref)) return ws->singular = i, -1;
  for (int k = 0; k < 6; k++) { /* W = D⁻¹ U_Fᵀ (column k at nf k);  Ia = IA − U_F W */
    for (int a = 0; a < nf; a++) W[nf * k + a] = UF[6 * a + k];
    mbs_chol_solve(nf, D, W + nf * k);
  }
  for (int l = 0; l < 6; l++)
    for (int k = 0; k < 6; k++) {
      double s = IA[6 * l + k];
      for (int a = 0; a < nf; a++) s -= UF[6 * a + l] * W[nf * k + a];
      Ia[6 * l + k] = s;
    }
  for (int a = 0; a < nf; a++) ref[a] = ws->Dbase[o + F[a]];
  mb_aba_amplify(m, ws, i, nf, UF, D, ref);
  return 0;
}

/* Backward pass: IA_λ += λX*_i Ia iXλ;  pA_λ += λX*_i (pA + Ia c'' + U_F D⁻¹ u_F). */
static int hybrid_articulated(const mb_model *m, mb_workspace *ws, const int *mask,
                              const double *in) {
  double Ia[36], pa[6], Du[6], t[6];
  int F[6];
  mb_pivot_refs(m, ws);
  for (int i = m->nb; i >= 1; i--) {
    int o = m->iv[i], p = m->parent[i], nf = free_columns(m, i, mask, F);
    const double *U = ws->U + 6 * o, *pA = ws->pA + 6 * i, *c = ws->c + 6 * i;
    if (hybrid_joint(m, ws, i, mask, in, Ia)) return -1;
    if (p == 0) continue;
    for (int a = 0; a < nf; a++) Du[a] = ws->u[o + F[a]];
    mbs_chol_solve(nf, ws->D + 6 * o, Du);
    for (int r = 0; r < 6; r++) {
      double s = pA[r];
      for (int k = 0; k < 6; k++) s += Ia[6 * r + k] * c[k];
      for (int a = 0; a < nf; a++) s += U[6 * F[a] + r] * Du[a];
      pa[r] = s;
    }
    mbs_mat6_to_parent(ws->XE + 9 * i, ws->Xr + 3 * i, Ia, Ia);
    mbs_XT_fv(ws->XE + 9 * i, ws->Xr + 3 * i, pa, t);
    for (int k = 0; k < 36; k++) ws->IA[36 * p + k] += Ia[k];
    for (int k = 0; k < 6; k++) ws->pA[6 * p + k] += t[k];
  }
  return 0;
}

/* Forward pass: a'' = iXλ a_λ + c'';  q̈_F = D⁻¹ (u_F − U_Fᵀ a'');  a_i = a'' + S_F q̈_F;
 * τ_P = S_Pᵀ (IA_i a_i + pA_i) + armature q̈_P;  a_0 = −gravity. */
static void hybrid_accelerations(const mb_model *m, mb_workspace *ws, const int *mask,
                                 const double *in, double *qdd, double *tau) {
  for (int k = 0; k < 6; k++) ws->a[k] = (k < 3) ? 0.0 : -m->gravity[k - 3];
  for (int i = 1; i <= m->nb; i++) {
    int F[6], n = mb_joint_nv(m->jtype[i]), o = m->iv[i], p = m->parent[i];
    int nf = free_columns(m, i, mask, F);
    const double *S = ws->S + 6 * o, *U = ws->U + 6 * o, *c = ws->c + 6 * i;
    const double *IA = ws->IA + 36 * i, *pA = ws->pA + 6 * i;
    double *ai = ws->a + 6 * i, x[6], f[6];
    mbs_X_mv(ws->XE + 9 * i, ws->Xr + 3 * i, ws->a + 6 * p, ai);
    for (int k = 0; k < 6; k++) ai[k] += c[k];
    for (int a = 0; a < nf; a++) {
      double s = ws->u[o + F[a]];
      for (int k = 0; k < 6; k++) s -= U[6 * F[a] + k] * ai[k];
      x[a] = s;
    }
    mbs_chol_solve(nf, ws->D + 6 * o, x);
    for (int a = 0; a < nf; a++) {
      qdd[o + F[a]] = x[a], tau[o + F[a]] = in[o + F[a]];
      for (int k = 0; k < 6; k++) ai[k] += S[6 * F[a] + k] * x[a];
    }
    if (nf == n) continue;
    for (int r = 0; r < 6; r++) {
      double s = pA[r];
      for (int k = 0; k < 6; k++) s += IA[6 * r + k] * ai[k];
      f[r] = s;
    }
    for (int l = 0; l < n; l++) {
      if (!mask[o + l]) continue;
      double s = mb_armature(m, o + l) * in[o + l];
      for (int k = 0; k < 6; k++) s += S[6 * l + k] * f[k];
      qdd[o + l] = in[o + l], tau[o + l] = s;
    }
  }
}

int mb_hybrid(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
              const int *mask, const double *in, const double *fext, double *qdd,
              double *tau) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !mask || !in || !qdd || !tau || mbf_on(m)) return MB_EINVAL;
  for (int k = 0; k < m->nv; k++)
    if (mask[k] != 0 && mask[k] != 1) return MB_EINVAL;
  ws->singular = 0;
  mb_xup(m, ws, q);
  mb_aba_velocities(m, ws, v, fext);
  if (hybrid_articulated(m, ws, mask, in)) return MB_ENUMERIC;
  hybrid_accelerations(m, ws, mask, in, qdd, tau);
  return mbs_finite(qdd, (size_t)m->nv) && mbs_finite(tau, (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}
