/* flex_aba.c — forward dynamics of a model with flexible bodies by the articulated-body algorithm
 * (Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody Systems Using Spatial Operators",
 * JPL Publication 90-26, 1990, §7, eqs. 7.2-7.3 — the flexible and hinge dofs of a body processed
 * together — in the ruthlessly linearized model of §8), and M⁻¹ from the mass matrix.
 *
 * Body i's articulated modal inertia is [P, PC; PCᵀ, PE] (P in ws->IA), its bias [pA; pe]. Its
 * dofs (joint, then modes) act through 𝓗ᵀ = [S 0; 0 1]: U = [P S, PC] (6 × d, d = nv_i + nm_i),
 * D = [Sᵀ P S, Sᵀ PC; PCᵀ S, PE] (d × d, factored directly by Cholesky: no inverse of a singular
 * block as in the printed eq. 7.10), u = [τ_θ − Sᵀ pA; τ_η − pe]. With every dof of i free, only
 * the motion of i's frame is passed on: Ia = P − U D⁻¹ Uᵀ, pa = pA + Ia c + U D⁻¹ u, and the parent
 * p, whose attachment moves with v_p + Ψ_i η̇_p, receives A = λX*_i Ia iXλ and F = λX*_i pa as
 *   P_p += A,  PC_p += A Ψ_i,  PE_p += Ψ_iᵀ A Ψ_i,  pA_p += F,  pe_p += Ψ_iᵀ F.
 * Forward: a' = iXλ (a_p + Ψ_i η̈_p) + c;  [θ̈; η̈] = D⁻¹ (u − Uᵀ a');  a_i = a' + S θ̈. */
#include "flex_internal.h"

#include <math.h>

/* Body i's D factor: in ws->FD for a flexible body, else in ws->D as the rigid ABA keeps it. */
static double *Dfac(const mb_model *m, mb_workspace *ws, int i) {
  return mb_body_nm(m, i) > 0 ? ws->FD + mbf_fd(ws, i) : ws->D + 6 * m->iv[i];
}

/* Velocities, c, and the bodies' own inertias and bias forces. */
static void init(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                 const double *fext) {
  const mb_flex *F = m->flex;
  double vJ[6], h[6], vp[6];
  for (int k = 0; k < 6; k++) ws->v[k] = 0.0;
  for (int i = 1; i <= m->nb; i++) {
    int n = mbf_nj(m, i), o = m->iv[i], p = m->parent[i], nm = mb_body_nm(m, i);
    int e = mbf_e(ws, i), e2 = mbf_e2(ws, i), ie = mbf_ie(m, i);
    double *vi = ws->v + 6 * i, *pA = ws->pA + 6 * i;
    for (int k = 0; k < 6; k++) vp[k] = ws->v[6 * p + k], vJ[k] = 0.0;
    if (p > 0 && v) mbf_psi_mv(m, ws, i, v + mbf_ie(m, p), vp);
    for (int c = 0; c < n && v; c++)
      for (int k = 0; k < 6; k++) vJ[k] += ws->S[6 * (o + c) + k] * v[o + c];
    mbs_X_mv(ws->XE + 9 * i, ws->Xr + 3 * i, vp, vi);
    for (int k = 0; k < 6; k++) vi[k] += vJ[k];
    mbs_crm(vi, vJ, ws->c + 6 * i);
    mb_joint_cJ(m, i, ws->S + 6 * o, v ? v + o : NULL, ws->c + 6 * i);
    mbs_I_mat(m->inertia + 10 * i, ws->IA + 36 * i);
    mbs_I_mv(m->inertia + 10 * i, vi, h);
    for (int c = 0; c < nm && v; c++)
      for (int k = 0; k < 6; k++) h[k] += F->Mc[6 * (e + c) + k] * v[ie + c];
    mbs_crf(vi, h, pA);
    for (int k = 0; k < 6 && fext; k++) pA[k] -= fext[6 * i + k];
    const double *eta = q + m->iq[i] + mb_joint_nq(m->jtype[i]);
    for (int r = 0; r < nm; r++) { /* pe = K η + D η̇ + vᵀ Q_r v */
      double s = v ? mbf_q_form(m, ws, i, r, vi) : 0.0;
      for (int c = 0; c < nm; c++)
        s += F->K[e2 + nm * r + c] * eta[c] + (v ? F->D[e2 + nm * r + c] * v[ie + c] : 0.0);
      ws->pe[e + r] = s;
    }
    for (int k = 0; k < 6 * nm; k++) ws->PC[6 * e + k] = F->Mc[6 * e + k];
    for (int k = 0; k < nm * nm; k++) ws->PE[e2 + k] = F->Me[e2 + k];
  }
}

/* U, D (factored) and Ia of body i. Returns 0, or -1 if a pivot fails. */
static int joint(const mb_model *m, mb_workspace *ws, int i, double *Ia) {
  int n = mbf_nj(m, i), nm = mb_body_nm(m, i), d = n + nm, o = m->iv[i];
  const double *P = ws->IA + 36 * i, *PC = ws->PC + 6 * mbf_e(ws, i), *PE = ws->PE + mbf_e2(ws, i);
  double *U = ws->U + 6 * o, *D = Dfac(m, ws, i), W[6 * (6 + MB_MAX_MODES)];
  for (int c = 0; c < n; c++) /* U = [P S, PC] */
    for (int k = 0; k < 6; k++) {
      double s = 0.0;
      for (int l = 0; l < 6; l++) s += P[6 * k + l] * ws->S[6 * (o + c) + l];
      U[6 * c + k] = s;
    }
  for (int k = 0; k < 6 * nm; k++) U[6 * n + k] = PC[k];
  for (int r = 0; r < d; r++) /* D = 𝓗 [U; PCᵀ S, PE]: lower triangle */
    for (int c = 0; c <= r; c++) {
      double s = 0.0;
      if (r < n)
        for (int k = 0; k < 6; k++) s += ws->S[6 * (o + r) + k] * U[6 * c + k];
      else if (c < n)
        for (int k = 0; k < 6; k++) s += PC[6 * (r - n) + k] * ws->S[6 * (o + c) + k];
      else
        s = PE[nm * (r - n) + (c - n)];
      D[d * r + c] = s + (r == c && r < n ? mb_armature(m, o + r) : 0.0); /* the rotor's inertia */
    }
  for (int r = n; r < d; r++) ws->Dref[o + r] = D[d * r + r];
  if (mbs_chol_ref(d, D, ws->Dref + o)) return ws->singular = i, -1;
  for (int k = 0; k < 6; k++) { /* W = D⁻¹ Uᵀ;  Ia = P − U W */
    for (int c = 0; c < d; c++) W[d * k + c] = U[6 * c + k];
    mbs_chol_solve(d, D, W + d * k);
  }
  for (int l = 0; l < 6; l++)
    for (int k = 0; k < 6; k++) {
      double s = P[6 * l + k];
      for (int c = 0; c < d; c++) s -= U[6 * c + l] * W[d * k + c];
      Ia[6 * l + k] = s;
    }
  return 0;
}

/* Pass Ia and pa of body i to its parent p (see the top). */
static void to_parent(const mb_model *m, mb_workspace *ws, int i, double *Ia, const double pa[6]) {
  int p = m->parent[i];
  double F[6];
  mbs_mat6_to_parent(ws->XE + 9 * i, ws->Xr + 3 * i, Ia, Ia);
  mbs_XT_fv(ws->XE + 9 * i, ws->Xr + 3 * i, pa, F);
  for (int k = 0; k < 36; k++) ws->IA[36 * p + k] += Ia[k];
  for (int k = 0; k < 6; k++) ws->pA[6 * p + k] += F[k];
  mbf_add_section(m, ws, i, Ia);
  mbf_psiT_fv(m, ws, i, F, ws->pe + mbf_e(ws, p));
}

static int backward(const mb_model *m, mb_workspace *ws, const double *tau) {
  double Ia[36], pa[6], Du[6 + MB_MAX_MODES];
  mb_pivot_refs(m, ws);
  for (int i = m->nb; i >= 1; i--) {
    int n = mbf_nj(m, i), nm = mb_body_nm(m, i), d = n + nm, o = m->iv[i];
    const double *U = ws->U + 6 * o, *pA = ws->pA + 6 * i, *c = ws->c + 6 * i;
    if (joint(m, ws, i, Ia)) return -1;
    for (int r = 0; r < d; r++) { /* u = [τ_θ − Sᵀ pA; τ_η − pe] */
      double s = tau[o + r];
      if (r < n)
        for (int k = 0; k < 6; k++) s -= ws->S[6 * (o + r) + k] * pA[k];
      else
        s -= ws->pe[mbf_e(ws, i) + r - n];
      ws->u[o + r] = Du[r] = s;
    }
    if (m->parent[i] == 0) continue;
    mbs_chol_solve(d, Dfac(m, ws, i), Du);
    for (int r = 0; r < 6; r++) { /* pa = pA + Ia c + U D⁻¹ u */
      double s = pA[r];
      for (int k = 0; k < 6; k++) s += Ia[6 * r + k] * c[k];
      for (int k = 0; k < d; k++) s += U[6 * k + r] * Du[k];
      pa[r] = s;
    }
    to_parent(m, ws, i, Ia, pa);
  }
  return 0;
}

static void forward(const mb_model *m, mb_workspace *ws, double *qdd) {
  double ap[6];
  for (int k = 0; k < 6; k++) ws->a[k] = (k < 3) ? 0.0 : -m->gravity[k - 3];
  for (int i = 1; i <= m->nb; i++) {
    int n = mbf_nj(m, i), d = n + mb_body_nm(m, i), o = m->iv[i], p = m->parent[i];
    const double *U = ws->U + 6 * o, *c = ws->c + 6 * i;
    double *ai = ws->a + 6 * i;
    for (int k = 0; k < 6; k++) ap[k] = ws->a[6 * p + k];
    if (p > 0) mbf_psi_mv(m, ws, i, qdd + mbf_ie(m, p), ap);
    mbs_X_mv(ws->XE + 9 * i, ws->Xr + 3 * i, ap, ai);
    for (int k = 0; k < 6; k++) ai[k] += c[k];
    for (int r = 0; r < d; r++) {
      double s = ws->u[o + r];
      for (int k = 0; k < 6; k++) s -= U[6 * r + k] * ai[k];
      qdd[o + r] = s;
    }
    mbs_chol_solve(d, Dfac(m, ws, i), qdd + o);
    for (int r = 0; r < n; r++)
      for (int k = 0; k < 6; k++) ai[k] += ws->S[6 * (o + r) + k] * qdd[o + r];
  }
}

int mbf_aba(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
            const double *tau, const double *fext, double *qdd) {
  ws->singular = 0;
  mb_xup(m, ws, q);
  init(m, ws, q, v, fext);
  if (backward(m, ws, tau)) return MB_ENUMERIC;
  forward(m, ws, qdd);
  return mbs_finite(qdd, (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}

/* M⁻¹ of a model with flexible bodies: M by composite bodies, factored M = Lᵀ D L along the
 * expanded parent array (no fill-in), and solved for the columns of the identity. */
int mbf_minv(const mb_model *m, mb_workspace *ws, const double *q, double *Minv) {
  int nv = m->nv, rc = mbf_crba(m, ws, q, ws->M);
  if (rc) return rc;
  mb_add_armature(m, ws->M); /* the rotor inertias (mb_crba's) */
  if ((rc = mb_ltdl(m, ws, ws->M))) return rc;
  for (int c = 0; c < nv; c++) {
    double *col = ws->tau;
    for (int k = 0; k < nv; k++) col[k] = (k == c);
    if ((rc = mb_ltdl_solve(m, ws, ws->M, col))) return rc;
    for (int k = 0; k < nv; k++) Minv[(size_t)k * (size_t)nv + (size_t)c] = col[k];
  }
  for (size_t r = 0; r < (size_t)nv; r++) /* symmetric to rounding: make it exactly so */
    for (size_t c = r + 1; c < (size_t)nv; c++) {
      double *x = Minv + r * (size_t)nv + c, *y = Minv + c * (size_t)nv + r;
      *x = *y = 0.5 * (*x + *y);
    }
  return mbs_finite(Minv, (size_t)nv * (size_t)nv) ? MB_OK : MB_ENUMERIC;
}
