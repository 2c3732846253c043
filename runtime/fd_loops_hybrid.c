/* fd_loops_hybrid.c — constrained forward dynamics with prescribed coordinates (SD/FAST's
 * prescribed joints in closed-loop systems): M q̈ + h = τ + Kᵀλ, K q̈ = −K̇v, q̈_P and τ_F
 * given.
 * Through the mass matrix as fd_loops.c, on the free coordinates: M̃ = M with the prescribed rows
 * and columns zero but their diagonal (no fill: the tree's sparsity only loses entries), K̃ = K
 * without the prescribed columns, r = τ − h − M_{·P} q̈_P (zero on P);
 *   q̈₀ = M̃⁻¹ r,  Y = M̃⁻¹ K̃ᵀ,  Φ = K̃ Y,  Φ λ = −K̇v − K_P q̈_P − K̃ q̈₀,  q̈_F = q̈₀ + Y λ;
 * then τ_P = (M q̈ + h − Kᵀλ)_P by the RNEA at the whole q̈. The generated p_fd_loops_hybrid sweeps
 * the rows through hybrid articulated inertias instead: two algorithms for the harness. */
#include "loops_internal.h"

#include <string.h>

/* M̃ in ws->M, factored (the prescribed rows and columns of M zero but their diagonal entries),
 * and M̃⁻¹ r into qdd (r = τ − h − M_{·P} q̈_P on F, zero on P). */
static int free_system(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                       const int *mask, const double *in, double *qdd) {
  int nv = m->nv, rc;
  double *M = ws->M;
  if ((rc = mb_nle(m, ws, q, v, qdd)) || (rc = mb_crba(m, ws, q, M))) return rc;
  for (int k = 0; k < nv; k++) {
    if (mask[k]) continue;
    double s = in[k] - qdd[k];
    for (int j = 0; j < nv; j++)
      if (mask[j]) s -= M[(size_t)k * (size_t)nv + (size_t)j] * in[j];
    qdd[k] = s;
  }
  for (int k = 0; k < nv; k++) {
    if (!mask[k]) continue;
    double d = M[(size_t)k * (size_t)nv + (size_t)k];
    qdd[k] = 0.0;
    for (int j = 0; j < nv; j++)
      M[(size_t)k * (size_t)nv + (size_t)j] = M[(size_t)j * (size_t)nv + (size_t)k] = 0.0;
    M[(size_t)k * (size_t)nv + (size_t)k] = d;
  }
  if ((rc = mb_ltdl(m, ws, M)) || (rc = mb_ltdl_solve(m, ws, M, qdd))) return rc;
  return MB_OK;
}

/* Y_r = M̃⁻¹ K̃_rᵀ, Φ (lower triangle), the right-hand side −K̇v − K q̈₀' (q̈₀' = q̈₀ with q̈_P)
 * into lw->lam, and the pivot references |K_r| M̃⁻¹ |K_r|ᵀ into lw->phi (mb_loop_phi_refs_): the
 * whole row's, so that a row the prescribed coordinates alone carry (its free part rounding
 * noise) is singular, not 1/ε. */
static int constraint_system(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                             mb_loop_workspace *lw, const int *mask, const double *in,
                             const double *qdd) {
  int nv = m->nv, nc = L->nc, rc;
  for (int r = 0; r < nc; r++) {
    double *Y = lw->Y + (size_t)r * (size_t)nv, s = -lw->kb[r];
    const double *Kr = lw->K + (size_t)r * (size_t)nv;
    for (int k = 0; k < nv; k++) {
      Y[k] = mask[k] ? 0.0 : Kr[k];
      s -= Kr[k] * (mask[k] ? in[k] : qdd[k]);
    }
    if ((rc = mb_ltdl_solve(m, ws, ws->M, Y))) return rc;
    for (int c = 0; c <= r; c++) {
      const double *Kc = lw->K + (size_t)c * (size_t)nv;
      double p = 0.0;
      for (int k = 0; k < nv; k++) p += mask[k] ? 0.0 : Kc[k] * Y[k];
      lw->Phi[(size_t)r * (size_t)nc + (size_t)c] = p;
    }
    lw->lam[r] = s;
  }
  return mb_loop_phi_refs_(m, L, ws, lw);
}

int mb_fd_loops_hybrid(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                       mb_loop_workspace *lw, const double *q, const double *v, const int *mask,
                       const double *in, double *qdd, double *tau, double *lambda) {
  int rc = mb_loop_all_(m, L, ws, lw, q, v);
  if (rc) return rc; /* before m and L are read: either may be NULL */
  int nv = m->nv, nc = L->nc;
  if (!v || !mask || !in || !qdd || !tau) return MB_EINVAL;
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL;
  for (int k = 0; k < nv; k++)
    if (mask[k] != 0 && mask[k] != 1) return MB_EINVAL;
  lw->singular = 0, ws->singular = 0;
  if ((rc = free_system(m, ws, q, v, mask, in, qdd))) return rc;
  if ((rc = constraint_system(m, L, ws, lw, mask, in, qdd))) return rc;
  if (mb_loop_spd_solve_(lw, nc, lw->phi, lw->lam)) return MB_ENUMERIC;
  for (int r = 0; r < nc; r++) {
    const double *Y = lw->Y + (size_t)r * (size_t)nv;
    for (int k = 0; k < nv; k++) qdd[k] += lw->lam[r] * Y[k];
  }
  for (int k = 0; k < nv; k++)
    if (mask[k]) qdd[k] = in[k];
  /* τ = M q̈ + h − Kᵀλ on the prescribed coordinates; the given forces on the others */
  if ((rc = mb_rnea(m, ws, q, v, qdd, NULL, tau))) return rc;
  for (int k = 0; k < nv; k++) {
    if (!mask[k]) {
      tau[k] = in[k];
      continue;
    }
    for (int r = 0; r < nc; r++) tau[k] -= lw->K[(size_t)r * (size_t)nv + (size_t)k] * lw->lam[r];
  }
  if (lambda) memcpy(lambda, lw->lam, sizeof *lambda * (size_t)nc);
  if (!mbs_finite(qdd, (size_t)nv) || !mbs_finite(tau, (size_t)nv) ||
      !mbs_finite(lw->lam, (size_t)nc))
    return MB_ENUMERIC;
  return MB_OK;
}
