/* fd_loops.c — forward dynamics of a tree closed by loop joints, with Lagrange multipliers:
 * M q̈ + h = τ + Kᵀλ, K q̈ = −K̇v (Kang & Yoon eqs. 37-43; docs/loops.md). The runtime's reference
 * solves it through the mass matrix, M = Lᵀ D L without fill (mb_ltdl): q̈₀ = M⁻¹ (τ − h), Y = M⁻¹
 * Kᵀ, Φ = K Y, Φ λ = −K̇v − K q̈₀, q̈ = q̈₀ + Y λ. The generated p_fd_loops carries K through the
 * articulated-body sweeps instead: two algorithms, so the harness compares independent answers.
 * The same solve with Baumgarte's stabilization (the acceleration constraint K q̈ = −K̇v − 2α K v
 * − β² φ), and the residual of the equations as a DAE for implicit integrators (docs/analysis.md,
 * "Stabilization and the DAE residual"). */
#include "loops_internal.h"

#include <string.h>

int mb_loop_spd_solve_(mb_loop_workspace *lw, int n, const double *ref, double *x) {
  int j = ref ? mbs_chol_ref(n, lw->Phi, ref) : mbs_chol(n, lw->Phi);
  if (j) return lw->singular = -j, -1;
  mbs_chol_solve(n, lw->Phi, x);
  return 0;
}

int mb_loop_phi_refs_(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                      mb_loop_workspace *lw) {
  int nv = m->nv, nc = L->nc, rc;
  for (int r = 0; r < nc; r++) {
    double *a = lw->dq, *b = lw->q0, s = 0.0;
    mb_loop_kabs_row_(m, L, ws, lw, r, a);
    memcpy(b, a, sizeof *b * (size_t)nv);
    if ((rc = mb_ltdl_solve(m, ws, ws->M, b))) return rc;
    for (int k = 0; k < nv; k++) s += a[k] * b[k];
    lw->phi[r] = s;
  }
  return MB_OK;
}

/* M q̈ + h = τ + Kᵀλ with K q̈ = −K̇v − 2α K v − β² φ (α = β = 0: K q̈ = −K̇v, and the very same
 * operations as without the terms). */
static int fd_solve(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                    const double *q, const double *v, const double *tau, double alpha,
                    double beta, double *qdd, double *lambda) {
  int rc = mb_loop_all_(m, L, ws, lw, q, v);
  if (rc) return rc; /* before m and L are read: either may be NULL */
  int nv = m->nv, nc = L->nc;
  if (!v || !tau || !qdd) return MB_EINVAL;
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL; /* flexible bodies: not supported (mb.h) */
  lw->singular = 0, ws->singular = 0;
  /* q̈₀ = M⁻¹ (τ − h) */
  if ((rc = mb_nle(m, ws, q, v, qdd))) return rc;
  for (int k = 0; k < nv; k++) qdd[k] = tau[k] - qdd[k];
  if ((rc = mb_crba(m, ws, q, ws->M)) || (rc = mb_ltdl(m, ws, ws->M))) return rc;
  if ((rc = mb_ltdl_solve(m, ws, ws->M, qdd))) return rc;
  /* Y_r = M⁻¹ K_rᵀ;  Φ = K Yᵀ (lower triangle);  λ from Φ λ = −K̇v − K q̈₀ */
  for (int r = 0; r < nc; r++) {
    double *Y = lw->Y + (size_t)r * (size_t)nv, s = -lw->kb[r];
    const double *Kr = lw->K + (size_t)r * (size_t)nv;
    memcpy(Y, Kr, sizeof *Y * (size_t)nv);
    if ((rc = mb_ltdl_solve(m, ws, ws->M, Y))) return rc;
    for (int c = 0; c <= r; c++) {
      const double *Kc = lw->K + (size_t)c * (size_t)nv;
      double p = 0.0;
      for (int k = 0; k < nv; k++) p += Kc[k] * Y[k];
      lw->Phi[(size_t)r * (size_t)nc + (size_t)c] = p;
    }
    for (int k = 0; k < nv; k++) s -= Kr[k] * qdd[k];
    if (alpha != 0.0 || beta != 0.0) { /* Baumgarte: − 2α φ̇ − β² φ, φ̇ = K v */
      double kv = 0.0;
      for (int k = 0; k < nv; k++) kv += Kr[k] * v[k];
      s -= 2.0 * alpha * kv + beta * beta * lw->phi[r];
    }
    lw->lam[r] = s;
  }
  /* Pivot references |K_r| M⁻¹ |K_r|ᵀ: against Φ_rr alone, a redundant row whose K row is
   * rounding noise would pass (noise² against noise²) and give λ_r ~ 1/ε. */
  if ((rc = mb_loop_phi_refs_(m, L, ws, lw))) return rc;
  if (mb_loop_spd_solve_(lw, nc, lw->phi, lw->lam)) return MB_ENUMERIC;
  for (int r = 0; r < nc; r++) {
    const double *Y = lw->Y + (size_t)r * (size_t)nv;
    for (int k = 0; k < nv; k++) qdd[k] += lw->lam[r] * Y[k];
  }
  if (lambda) memcpy(lambda, lw->lam, sizeof *lambda * (size_t)nc);
  if (!mbs_finite(qdd, (size_t)nv) || !mbs_finite(lw->lam, (size_t)nc)) return MB_ENUMERIC;
  return MB_OK;
}

int mb_fd_loops(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                const double *q, const double *v, const double *tau, double *qdd,
                double *lambda) {
  return fd_solve(m, L, ws, lw, q, v, tau, 0.0, 0.0, qdd, lambda);
}

int mb_fd_loops_baumgarte(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                          mb_loop_workspace *lw, const double *q, const double *v,
                          const double *tau, double alpha, double beta, double *qdd,
                          double *lambda) {
  if (!(alpha >= 0.0 && alpha <= 1e300 && beta >= 0.0 && beta <= 1e300)) return MB_EINVAL;
  return fd_solve(m, L, ws, lw, q, v, tau, alpha, beta, qdd, lambda);
}

int mb_loops_residual_dae(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                          mb_loop_workspace *lw, const double *q, const double *v,
                          const double *qdd, const double *lambda, const double *tau,
                          double *res) {
  int rc = mb_loop_all_(m, L, ws, lw, q, NULL);
  if (rc) return rc;
  int nv = m->nv, nc = L->nc;
  if (!v || !qdd || !lambda || !tau || !res) return MB_EINVAL;
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL;
  /* M q̈ + h (the RNEA at a = q̈) − τ − Kᵀλ;  φ;  K v */
  if ((rc = mb_rnea(m, ws, q, v, qdd, NULL, res))) return rc;
  for (int k = 0; k < nv; k++) res[k] -= tau[k];
  for (int r = 0; r < nc; r++) {
    const double *Kr = lw->K + (size_t)r * (size_t)nv;
    double kv = 0.0;
    for (int k = 0; k < nv; k++) res[k] -= Kr[k] * lambda[r], kv += Kr[k] * v[k];
    res[nv + r] = lw->phi[r];
    res[nv + nc + r] = kv;
  }
  return mbs_finite(res, (size_t)nv + 2 * (size_t)nc) ? MB_OK : MB_ENUMERIC;
}
