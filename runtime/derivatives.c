/* derivatives.c — the derivatives of inverse and forward dynamics (Carpentier & Mansard,
 * "Analytical Derivatives of Rigid Body Dynamics Algorithms", RSS 2018), with every quantity in
 * the world frame at the world's origin (docs/derivatives.md has the derivation).
 *
 * In the world frame a tangent step of joint k's coordinate c moves k's subtree rigidly: every
 * world quantity X of a body j ⪰ k changes by S_c ⋆ X (S_c × X for a motion, S_c ×* X for a
 * force, S_c ×* I − I S_c × for an inertia) plus an intrinsic part, and τ_j = S_jᵀ F_j of a
 * joint in that subtree sees only the intrinsic part. With Ψ̇_c = v_λ × S_c and
 * Ψ̈_c = a_λ × S_c + v_λ × Ψ̇_c (λ = λ(k)) the intrinsic changes are δv_j = Ψ̇_c and
 * δa_j = Ψ̈_c + Ψ̇_c × v_j; for the velocity
 * coordinate, ∂v_j = S_c and ∂a_j = A_c + S_c × v_j, A_c = Ψ̇_c + v_k × S_c. A body's force
 * f = I a + v ×* I v then changes by I Ψ̈_c + B Ψ̇_c (resp. I A_c + B S_c), with
 *   B x = I (x × v) + x ×* h + v ×* (I x),  h = I v:  B = C + Cᵀ + H(h),  C = (v ×*) I,
 * H(h) = [−n×  −f×; −f×  0] for h = [n; f]. Summed over a subtree (composites IC, BC, F):
 *   j ⪰ k:  ∂τ_r/∂q_c = S_rᵀ (IC_j Ψ̈_c + BC_j Ψ̇_c),      ∂τ_r/∂v_c = S_rᵀ (IC_j A_c + BC_j S_c)
 *   k ≻ j:  ∂τ_r/∂q_c = S_rᵀ (S_c ×* F_k + IC_k Ψ̈_c + BC_k Ψ̇_c),
 *           ∂τ_r/∂v_c = S_rᵀ (IC_k A_c + BC_k S_c)
 * for r a dof of j and c of k; M_rc = S_rᵀ IC_max(j,k) S_c; 0 when neither is the other's
 * ancestor. A universal joint is the chain of its two revolutes through a massless cross x
 * (v_x = v_λ + S_1 q̇_1, a_x = a_λ + S_1 q̈_1 + v_λ × S_1 q̇_1): its θ2 column hangs from x (Ψ̇_2 =
 * v_x × S_2, ...), its θ1 column moves x (A_1 = Ψ̇_1 + v_x × S_1), and S_1 does not turn with θ2,
 * so ∂τ_1/∂q_2 takes the term S_1ᵀ (S_2 ×* F_i) of a descendant's column (cJ = q̇_1 q̇_2 S_1 × S_2
 * in a_i). */
#include <string.h>

#include "derivatives_internal.h"
#include "flex_internal.h"

/* y = A x, A 6×6 row-major */
static void mat6_mv(const double *A, const double *x, double *y) {
  for (int r = 0; r < 6; r++) {
    double s = 0.0;
    for (int c = 0; c < 6; c++) s += A[6 * r + c] * x[c];
    y[r] = s;
  }
}

static double dot6(const double *a, const double *b) {
  double s = 0.0;
  for (int k = 0; k < 6; k++) s += a[k] * b[k];
  return s;
}

/* B = C + Cᵀ + H(h), C = (v ×*) I, h = I v (I dense 6×6, world frame) */
static void velocity_matrix(const double *I, const double *v, double *B) {
  double C[36], col[6], y[6], h[6];
  for (int c = 0; c < 6; c++) {
    for (int r = 0; r < 6; r++) col[r] = I[6 * r + c];
    mbs_crf(v, col, y);
    for (int r = 0; r < 6; r++) C[6 * r + c] = y[r];
  }
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) B[6 * r + c] = C[6 * r + c] + C[6 * c + r];
  mat6_mv(I, v, h);
  /* H(h): rows 0-2 [−n× −f×], rows 3-5 [−f× 0]; a× = [0 −a3 a2; a3 0 −a1; −a2 a1 0] */
  const double *n = h, *f = h + 3;
  const double *parts[3][2] = {{n, f}, {f, NULL}};
  for (int br = 0; br < 2; br++)
    for (int bc = 0; bc < 2; bc++) {
      const double *x = parts[br][bc];
      if (!x) continue;
      double X[9] = {0, x[2], -x[1], -x[2], 0, x[0], x[1], -x[0], 0}; /* −x× */
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) B[6 * (3 * br + r) + 3 * bc + c] += X[3 * r + c];
    }
}

/* A universal joint's cross from its world columns D1, D2 (24 apart) and rates qd, qdd (NULL:
 * zero): v_x, a_x, and the body's a_i += q̇_1 q̇_2 S_1 × S_2 (a_i was a_λ + S q̈ + v_i × S q̇). */
static void cross_motion(const double *D1, const double *qd, const double *qdd, const double *vp,
                         const double *ap, double vx[6], double ax[6], double ai[6]) {
  double t[6], q1 = qd ? qd[0] : 0.0, q2 = qd ? qd[1] : 0.0, a1 = qdd ? qdd[0] : 0.0;
  mbs_crm(vp, D1, t);
  for (int k = 0; k < 6; k++) vx[k] = vp[k] + D1[k] * q1, ax[k] = ap[k] + D1[k] * a1 + t[k] * q1;
  mbs_crm(D1, D1 + 24, t);
  for (int k = 0; k < 6; k++) ai[k] += q1 * q2 * t[k];
}

void mbd_world_kinematics(const mb_model *m, mb_workspace *ws, const double *v, const double *a,
                          int gravity) {
  double *V = ws->dF, *Ac = ws->dF + 6 * ((size_t)m->nb + 1);
  for (int k = 0; k < 6; k++) V[k] = 0.0, Ac[k] = (k < 3 || !gravity) ? 0.0 : -m->gravity[k - 3];
  for (int i = 1; i <= m->nb; i++) {
    const double *E = ws->X0E + 9 * i, *r = ws->X0r + 3 * i;
    double vJ[6] = {0}, aJ[6] = {0}, t[6];
    int n = mb_joint_nv(m->jtype[i]), p = m->parent[i], iv = m->iv[i];
    double *vi = V + 6 * i, *ai = Ac + 6 * i, *vp = V + 6 * p, *ap = Ac + 6 * p;
    for (int c = 0; c < n; c++) {
      double *S = ws->dS + 24 * (iv + c);
      mbs_Xinv_mv(E, r, ws->S + 6 * (iv + c), S);
      for (int k = 0; k < 6; k++) {
        vJ[k] += S[k] * (v ? v[iv + c] : 0.0);
        aJ[k] += S[k] * (a ? a[iv + c] : 0.0);
      }
    }
    for (int k = 0; k < 6; k++) vi[k] = vp[k] + vJ[k];
    mbs_crm(vi, vJ, t);
    for (int k = 0; k < 6; k++) ai[k] = ap[k] + aJ[k] + t[k];
    int chain = mb_joint_S_varies(m->jtype[i]);
    double vx[6], ax[6]; /* a universal joint's cross */
    if (chain) cross_motion(ws->dS + 24 * iv, v ? v + iv : NULL, a ? a + iv : NULL, vp, ap, vx,
                            ax, ai);
    for (int c = 0; c < n; c++) {
      double *S = ws->dS + 24 * (iv + c), *Pd = S + 6, *Pdd = S + 12, *A = S + 18;
      const double *vl = chain && c == 1 ? vx : vp, *al = chain && c == 1 ? ax : ap;
      mbs_crm(vl, S, Pd);
      mbs_crm(al, S, Pdd);
      mbs_crm(vl, Pd, t);
      for (int k = 0; k < 6; k++) Pdd[k] += t[k];
      mbs_crm(chain && c == 0 ? vx : vi, S, A);
      for (int k = 0; k < 6; k++) A[k] += Pd[k];
    }
  }
}

/* The world kinematics (mbd_world_kinematics), then the world inertias (ws->dI), their matrices
 * B (ws->dB) and the body forces (ws->dF at 12 (nb + 1)). fext (NULL: none): one wrench per body
 * in its frame, at its origin, taken off the body's force in world axes; a wrench fixed on its
 * body moves with it like the rest, so the formulas stay as they are. gravity 0: without it. */
static void world_forward(const mb_model *m, mb_workspace *ws, const double *v, const double *a,
                          const double *fext, int gravity) {
  double *V = ws->dF, *Ac = ws->dF + 6 * ((size_t)m->nb + 1);
  double *F = ws->dF + 12 * ((size_t)m->nb + 1);
  mbd_world_kinematics(m, ws, v, a, gravity);
  for (int i = 1; i <= m->nb; i++) {
    const double *E = ws->X0E + 9 * i, *r = ws->X0r + 3 * i, *vi = V + 6 * i;
    double Iw[10], t[6], h[6];
    mbs_I_to_parent(E, r, m->inertia + 10 * i, Iw);
    mbs_I_mat(Iw, ws->dI + 36 * i);
    velocity_matrix(ws->dI + 36 * i, vi, ws->dB + 36 * i);
    /* f_i = I a_i + v_i ×* I v_i */
    mat6_mv(ws->dI + 36 * i, Ac + 6 * i, F + 6 * i);
    mat6_mv(ws->dI + 36 * i, vi, h);
    mbs_crf(vi, h, t);
    for (int k = 0; k < 6; k++) F[6 * i + k] += t[k];
    if (fext) { /* the body-frame wrench in world axes at the origin: Xᵀ f, X = iX0 */
      mbs_XT_fv(E, r, fext + 6 * i, h);
      for (int k = 0; k < 6; k++) F[6 * i + k] -= h[k];
    }
  }
}

/* The composites IC, BC and F of every subtree (in place). */
static void world_backward(const mb_model *m, mb_workspace *ws) {
  double *F = ws->dF + 12 * ((size_t)m->nb + 1);
  for (int i = m->nb; i >= 1; i--) {
    int p = m->parent[i];
    if (p == 0) continue;
    for (int k = 0; k < 36; k++) ws->dI[36 * p + k] += ws->dI[36 * i + k];
    for (int k = 0; k < 36; k++) ws->dB[36 * p + k] += ws->dB[36 * i + k];
    for (int k = 0; k < 6; k++) F[6 * p + k] += F[6 * i + k];
  }
}

/* The entries of the pair k ⪯ j (k an ancestor of j or j itself): rows of j and columns of k from
 * j's composites, and if k ≠ j the rows of k and columns of j. */
static void pair(const mb_model *m, const mb_workspace *ws, int j, int k, double *dq, double *dv,
                 double *M) {
  const double *IC = ws->dI + 36 * j, *BC = ws->dB + 36 * j;
  const double *F = ws->dF + 12 * ((size_t)m->nb + 1) + 6 * j;
  size_t nv = (size_t)m->nv;
  int nj = mb_joint_nv(m->jtype[j]), nk = mb_joint_nv(m->jtype[k]);
  double x[6], y[6], zq[6], zv[6], zm[6];
  for (int c = 0; c < nk; c++) { /* rows of j, columns of k */
    const double *D = ws->dS + 24 * (m->iv[k] + c);
    mat6_mv(IC, D + 12, zq), mat6_mv(BC, D + 6, x);
    mat6_mv(IC, D + 18, zv), mat6_mv(BC, D, y);
    mat6_mv(IC, D, zm);
    for (int r = 0; r < nj; r++) {
      const double *Sr = ws->dS + 24 * (m->iv[j] + r);
      size_t at = nv * (size_t)(m->iv[j] + r) + (size_t)(m->iv[k] + c);
      dq[at] = dot6(Sr, zq) + dot6(Sr, x);
      dv[at] = dot6(Sr, zv) + dot6(Sr, y);
      if (M) M[at] = dot6(Sr, zm);
    }
  }
  if (k == j) {
    if (mb_joint_S_varies(m->jtype[j])) { /* universal: S_1ᵀ (S_2 ×* F_j) into ∂τ_1/∂q_2 */
      mbs_crf(ws->dS + 24 * (m->iv[j] + 1), F, x);
      dq[nv * (size_t)m->iv[j] + (size_t)m->iv[j] + 1] += dot6(ws->dS + 24 * m->iv[j], x);
    }
    return;
  }
  for (int c = 0; c < nj; c++) { /* rows of k, columns of j */
    const double *D = ws->dS + 24 * (m->iv[j] + c);
    mbs_crf(D, F, zq);
    mat6_mv(IC, D + 12, x), mat6_mv(BC, D + 6, y);
    for (int l = 0; l < 6; l++) zq[l] += x[l] + y[l];
    mat6_mv(IC, D + 18, zv), mat6_mv(BC, D, y);
    for (int l = 0; l < 6; l++) zv[l] += y[l];
    mat6_mv(IC, D, zm);
    for (int r = 0; r < nk; r++) {
      const double *Sr = ws->dS + 24 * (m->iv[k] + r);
      size_t at = nv * (size_t)(m->iv[k] + r) + (size_t)(m->iv[j] + c);
      dq[at] = dot6(Sr, zq);
      dv[at] = dot6(Sr, zv);
      if (M) M[at] = dot6(Sr, zm);
    }
  }
}

void mbd_rnea_derivatives(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                          const double *a, const double *fext, int gravity, double *dq,
                          double *dv, double *M) {
  size_t nv = (size_t)m->nv;
  mb_xup(m, ws, q);
  mb_x0(m, ws);
  world_forward(m, ws, v, a, fext, gravity);
  world_backward(m, ws);
  for (size_t k = 0; k < nv * nv; k++) {
    dq[k] = dv[k] = 0.0;
    if (M) M[k] = 0.0;
  }
  for (int j = 1; j <= m->nb; j++)
    for (int k = j; k > 0; k = m->parent[k]) pair(m, ws, j, k, dq, dv, M);
  if (M) mb_add_armature(m, M);
}

int mb_rnea_derivatives(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                        const double *a, double *dtau_dq, double *dtau_dv, double *M) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !dtau_dq || !dtau_dv) return MB_EINVAL;
  if (mbf_on(m)) return MB_EINVAL;
  mbd_rnea_derivatives(m, ws, q, v, a, NULL, 1, dtau_dq, dtau_dv, M);
  size_t n = (size_t)m->nv * (size_t)m->nv;
  int ok = mbs_finite(dtau_dq, n) && mbs_finite(dtau_dv, n) && (!M || mbs_finite(M, n));
  return ok ? MB_OK : MB_ENUMERIC;
}

void mbd_minus_minv(size_t nv, size_t cols, const double *Minv, double *D, double *x) {
  for (size_t c = 0; c < cols; c++) {
    for (size_t r = 0; r < nv; r++) x[r] = D[cols * r + c];
    for (size_t r = 0; r < nv; r++) {
      double s = 0.0;
      for (size_t l = 0; l < nv; l++) s += Minv[nv * r + l] * x[l];
      D[cols * r + c] = -s;
    }
  }
}

void mbd_fext_columns(const mb_model *m, const mb_workspace *ws, double *dfext) {
  size_t cols = 6 * ((size_t)m->nb + 1);
  memset(dfext, 0, sizeof(double) * cols * (size_t)m->nv);
  for (int j = 1; j <= m->nb; j++)
    for (int k = j; k > 0; k = m->parent[k])
      for (int c = 0; c < mb_joint_nv(m->jtype[k]); c++) {
        int r = m->iv[k] + c;
        double y[6];
        mbs_X_mv(ws->X0E + 9 * j, ws->X0r + 3 * j, ws->dS + 24 * r, y);
        for (int l = 0; l < 6; l++) dfext[cols * (size_t)r + 6 * (size_t)j + (size_t)l] = -y[l];
      }
}

int mb_aba_derivatives(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                       const double *tau, double *dqdd_dq, double *dqdd_dv, double *Minv) {
  return mb_aba_ext_derivatives(m, ws, q, v, tau, NULL, dqdd_dq, dqdd_dv, Minv, NULL);
}

int mb_rnea_ext_derivatives(const mb_model *m, mb_workspace *ws, const double *q,
                            const double *v, const double *a, const double *fext,
                            double *dtau_dq, double *dtau_dv, double *M, double *dtau_dfext) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !dtau_dq || !dtau_dv) return MB_EINVAL;
  if (mbf_on(m)) return MB_EINVAL;
  mbd_rnea_derivatives(m, ws, q, v, a, fext, 1, dtau_dq, dtau_dv, M);
  if (dtau_dfext) mbd_fext_columns(m, ws, dtau_dfext);
  size_t n = (size_t)m->nv * (size_t)m->nv, nf = 6 * ((size_t)m->nb + 1) * (size_t)m->nv;
  int ok = mbs_finite(dtau_dq, n) && mbs_finite(dtau_dv, n) && (!M || mbs_finite(M, n)) &&
           (!dtau_dfext || mbs_finite(dtau_dfext, nf));
  return ok ? MB_OK : MB_ENUMERIC;
}

int mb_aba_ext_derivatives(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                           const double *tau, const double *fext, double *dqdd_dq,
                           double *dqdd_dv, double *Minv, double *dqdd_dfext) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!q || !tau || !dqdd_dq || !dqdd_dv || !Minv) return MB_EINVAL;
  if (mbf_on(m)) return MB_EINVAL;
  double *qdd = ws->dx, *x = ws->dx + m->nv;
  size_t nv = (size_t)m->nv, cols = 6 * ((size_t)m->nb + 1);
  if ((rc = mb_aba(m, ws, q, v, tau, fext, qdd)) != MB_OK) return rc;
  if ((rc = mb_minv(m, ws, q, Minv)) != MB_OK) return rc;
  mbd_rnea_derivatives(m, ws, q, v, qdd, fext, 1, dqdd_dq, dqdd_dv, NULL);
  mbd_minus_minv(nv, nv, Minv, dqdd_dq, x);
  mbd_minus_minv(nv, nv, Minv, dqdd_dv, x);
  if (dqdd_dfext) {
    mbd_fext_columns(m, ws, dqdd_dfext);
    mbd_minus_minv(nv, cols, Minv, dqdd_dfext, x);
  }
  size_t n = nv * nv;
  int ok = mbs_finite(dqdd_dq, n) && mbs_finite(dqdd_dv, n) &&
           (!dqdd_dfext || mbs_finite(dqdd_dfext, cols * nv));
  return ok ? MB_OK : MB_ENUMERIC;
}
