/* assemble.c — assembly and initial velocity with locked coordinates (mb.h "Analyses"; SD/FAST's
 * sdassemble and sdinitvel; docs/analysis.md "Assembly and initial velocity with locked
 * coordinates"). The loops are closed by moving only the unlocked velocity coordinates ("free"
 * columns F of K), each step the least-norm one over them:
 *
 *   mb_assemble: Levenberg–Marquardt on ½|φ(q)|², steps Δv_F = −K_Fᵀ (K_F K_Fᵀ + μ 1)⁻¹ φ (the
 *     minimum-norm Newton step as μ → 0), applied with mb_integrate; μ = λ · max diag K_F K_Fᵀ,
 *     λ from 1e-10 (mb_project_q's damping), updated by Nielsen's rule (Nielsen, "Damping
 *     parameter in Marquardt's method", 1999): after a step that reduces |φ|², λ ×=
 *     max(1/3, 1 − (2ρ − 1)³) (ρ the actual over the predicted decrease; not below 1e-10), after
 *     one that does not, λ ×= ν, ν doubling. At a consistent system the steps are Newton's
 *     (quadratic convergence); at an unclosable one the residual is large and the Gauss–Newton
 *     model poor (the rows turn with the bodies), ρ is small and λ grows: the iterates settle at
 *     the least-squares configuration (K_Fᵀ φ = 0, φ ≠ 0), where no step reduces |φ|² any more —
 *     the located error. (With Marquardt's ÷10 / ×10 instead, the unclosable five-bar of
 *     test_assemble.c crawled: 100 evaluations left it at |φ| = 0.624 against the least 0.6;
 *     with Nielsen's it reaches 0.6 and stops after 49.)
 *   mb_initvel: v_F ← v_F + Δ with K_F Δ = −K v of least norm, by the damped normal equations
 *     with iterative refinement (iterated Tikhonov: the error shrinks by μ/(σ² + μ) per pass).
 *
 * Workspace use. mb_assemble: lw->q0 the accepted configuration, ws->IA the trial one
 * (36 (nb + 1) ≥ nq doubles; mb_loop_all_ does not touch it), lw->Y and lw->kb the accepted K
 * and φ, lw->Phi the factored system, lw->lam its right-hand side, lw->dq the step. mb_initvel:
 * lw->dq the iterate, lw->q0 its step (7 (nb + 1) ≥ nv), lw->Phi, lw->lam. */
#include "loops_internal.h"

#include <math.h>
#include <string.h>

#define LM_MIN 1e-10     /* the smallest damping λ (relative to max diag K_F K_Fᵀ) */
#define LM_MAX 1e10      /* beyond it no step reduces |φ|: the iterate is stationary */
#define STATIONARY 1e-8  /* |K_Fᵀ φ| ≤ this · |K_F| |φ|: a least-squares point, not a solution */

/* 0 if every flag is 0 or 1 (lock may be NULL: none locked). */
static int lock_bad(const int *lock, int nv) {
  for (int k = 0; lock && k < nv; k++)
    if (lock[k] != 0 && lock[k] != 1) return 1;
  return 0;
}

static int is_free(const int *lock, int k) { return !lock || !lock[k]; }

/* A = K_F K_Fᵀ + λ d 1 over the free columns of K (nc × nv), d = max diag K_F K_Fᵀ, lower
 * triangle; returns d. */
static double gram_free(const double *K, int nv, int nc, const int *lock, double lm, double *A) {
  double dmax = 0.0;
  for (int r = 0; r < nc; r++)
    for (int c = 0; c <= r; c++) {
      const double *a = K + (size_t)r * (size_t)nv, *b = K + (size_t)c * (size_t)nv;
      double s = 0.0;
      for (int k = 0; k < nv; k++)
        if (is_free(lock, k)) s += a[k] * b[k];
      A[(size_t)r * (size_t)nc + (size_t)c] = s;
      if (r == c && s > dmax) dmax = s;
    }
  for (int r = 0; r < nc; r++) A[(size_t)r * (size_t)nc + (size_t)r] += lm * dmax;
  return dmax;
}

/* dv = −K_Fᵀ y (0 in the locked columns). */
static void step_free(const double *K, int nv, int nc, const int *lock, const double *y,
                      double *dv) {
  for (int k = 0; k < nv; k++) {
    double s = 0.0;
    for (int r = 0; is_free(lock, k) && r < nc; r++)
      s += K[(size_t)r * (size_t)nv + (size_t)k] * y[r];
    dv[k] = -s;
  }
}

/* The row with the largest |x_r| (a NaN first): the located error, 1 + r. Rows within WORST_TIE
 * (relative) of the largest are a tie, which the first of them wins: the runtime and the generated
 * P_assemble and P_initvel, whose last iterates differ (a failing iteration stops where it stalls,
 * which rounding moves), then name the same row of a symmetric mechanism (the RSSR linkage's x
 * and z rows: equal to the last digit at mb_assemble's stop, 4e-6 apart at P_initvel's). */
#define WORST_TIE 1e-3
static int worst_row(const double *x, int nc) {
  double e = 0.0;
  for (int r = 0; r < nc; r++) {
    if (isnan(x[r])) return 1 + r;
    if (fabs(x[r]) > e) e = fabs(x[r]);
  }
  for (int r = 0; r < nc; r++) /* the first within WORST_TIE of the largest: a tie (a symmetric */
    if (fabs(x[r]) >= (1.0 - WORST_TIE) * e) return 1 + r; /* mechanism) whatever the rounding */
  return 1;
}

/* A joint whose coordinates are its velocity coordinates (nq = nv, not planar). */
static int scalar_joint(mb_joint_type t) {
  return mb_joint_nq(t) == mb_joint_nv(t) && t != MB_JOINT_PLANAR;
}

/* The locked coordinates of xt back to their values in x, bit for bit: a scalar coordinate that
 * is locked, every coordinate of a joint whose velocity coordinates are all locked. */
static void restore_locked(const mb_model *m, const int *lock, const double *x, double *xt) {
  if (!lock) return;
  for (int i = 1; i <= m->nb; i++) {
    int nq = mb_joint_nq(m->jtype[i]), nv = mb_joint_nv(m->jtype[i]), all = nv > 0;
    for (int c = 0; c < nv; c++) all = all && lock[m->iv[i] + c];
    for (int c = 0; c < nq; c++)
      if (all || (scalar_joint(m->jtype[i]) && lock[m->iv[i] + c]))
        xt[m->iq[i] + c] = x[m->iq[i] + c];
  }
}

/* max |φ_r| (NaN: +Inf) and |φ|². */
static double phi_norms(const double *phi, int nc, double *sq) {
  double e = 0.0, s = 0.0;
  for (int r = 0; r < nc; r++) {
    if (!(fabs(phi[r]) <= e)) e = isnan(phi[r]) ? INFINITY : fabs(phi[r]);
    s += phi[r] * phi[r];
  }
  *sq = s;
  return e;
}

/* |K_Fᵀ φ| ≤ STATIONARY |K_F| |φ| (Frobenius and 2-norms): no descent direction is left. */
static int stationary(const double *K, int nv, int nc, const int *lock, const double *phi,
                      double phi2) {
  double g2 = 0.0, k2 = 0.0;
  for (int k = 0; k < nv; k++) {
    double g = 0.0;
    for (int r = 0; is_free(lock, k) && r < nc; r++) {
      double x = K[(size_t)r * (size_t)nv + (size_t)k];
      g += x * phi[r], k2 += x * x;
    }
    g2 += g * g;
  }
  return g2 <= STATIONARY * STATIONARY * k2 * phi2;
}

/* One trial from the accepted x (K, φ in lw->Y, lw->kb) with damping lm into ws->IA; leaves its
 * φ and K in lw, and in *model the residual the linear model predicts, |φ + K_F Δ|² = μ² |y|²
 * (K_F Δ = −A y = −(φ − μ y)). A status of mb.h. */
static int trial(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 const int *lock, double lm, double *model) {
  int nv = m->nv, nc = L->nc;
  double mu = lm * gram_free(lw->Y, nv, nc, lock, lm, lw->Phi), y2 = 0.0;
  memcpy(lw->lam, lw->kb, sizeof *lw->lam * (size_t)nc);
  if (mbs_chol(nc, lw->Phi)) return MB_ENUMERIC; /* λ d > 0 on the diagonal: not reached */
  mbs_chol_solve(nc, lw->Phi, lw->lam);
  for (int r = 0; r < nc; r++) y2 += lw->lam[r] * lw->lam[r];
  *model = mu * mu * y2;
  step_free(lw->Y, nv, nc, lock, lw->lam, lw->dq);
  if (mb_integrate(m, lw->q0, lw->dq, 1.0, ws->IA)) return MB_ENUMERIC;
  restore_locked(m, lock, lw->q0, ws->IA);
  return mb_loop_all_(m, L, ws, lw, ws->IA, NULL);
}

/* Accept the trial in ws->IA, lw->K, lw->phi as the iterate. */
static void accept(const mb_model *m, const mb_loops *L, mb_loop_workspace *lw,
                   const double *xt) {
  memcpy(lw->q0, xt, sizeof *xt * (size_t)m->nq);
  memcpy(lw->Y, lw->K, sizeof *lw->Y * (size_t)L->nc * (size_t)m->nv);
  memcpy(lw->kb, lw->phi, sizeof *lw->kb * (size_t)L->nc);
}

int mb_assemble(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                const int *lock, double *q) {
  int rc = mb_loop_all_(m, L, ws, lw, q, NULL);
  if (rc) return rc;
  int nv = m->nv, nc = L->nc;
  if (lock_bad(lock, nv)) return MB_EINVAL;
  lw->singular = 0;
  accept(m, L, lw, q);
  /* Nielsen's update of the damping: by the ratio ρ of the actual to the predicted decrease of
   * |φ|² after a step that decreases it, ×ν (ν doubling) after one that does not */
  double f, lm = LM_MIN, nu = 2.0;
  double err = phi_norms(lw->kb, nc, &f);
  for (int evals = 0;;) {
    if (err == INFINITY) return lw->singular = worst_row(lw->kb, nc), MB_ENUMERIC;
    if (err <= MB_PROJECT_TOL) break;
    if (evals == MB_ASSEMBLE_MAXIT || lm > LM_MAX || stationary(lw->Y, nv, nc, lock, lw->kb, f))
      return lw->singular = worst_row(lw->kb, nc), MB_ENUMERIC;
    evals++;
    double model = 0.0, ft = INFINITY, et = INFINITY;
    if ((rc = trial(m, L, ws, lw, lock, lm, &model)) && rc != MB_ENUMERIC) return rc;
    if (rc == 0) et = phi_norms(lw->phi, nc, &ft);
    if (!(ft < f)) { /* not finite, or no decrease: shorter steps */
      lm *= nu, nu *= 2.0;
      continue;
    }
    double rho = (f - ft) / (f - model), t = 2.0 * rho - 1.0;
    accept(m, L, lw, ws->IA);
    f = ft, err = et, nu = 2.0;
    lm = fmax(lm * fmax(1.0 / 3.0, 1.0 - t * t * t), LM_MIN);
  }
  memcpy(q, lw->q0, sizeof *q * (size_t)m->nq);
  return MB_OK;
}

/* c = K v into lw->lam; the worst ratio |c_r| / s_r over the rows, s_r = Σ_k |K_rk| · max_k |v_k|
 * (a bound of c_r's terms at v's size: a row whose own terms are rounding noise is not measured
 * against them), +Inf for a NaN; 0 if every c_r = 0. */
static double kv_residual(const mb_loop_workspace *lw, int nv, int nc, const double *v) {
  double worst = 0.0, vmax = 0.0;
  for (int k = 0; k < nv; k++) vmax = fmax(vmax, fabs(v[k]));
  for (int r = 0; r < nc; r++) {
    const double *Kr = lw->K + (size_t)r * (size_t)nv;
    double c = 0.0, s = 0.0;
    for (int k = 0; k < nv; k++) c += Kr[k] * v[k], s += fabs(Kr[k]);
    lw->lam[r] = c;
    if (isnan(c)) return INFINITY;
    if (c != 0.0) worst = fmax(worst, fabs(c) / (s * vmax));
  }
  return worst;
}

int mb_initvel(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
               const int *lock, const double *q, double *v) {
  int rc = mb_loop_all_(m, L, ws, lw, q, NULL);
  if (rc) return rc;
  int nv = m->nv, nc = L->nc;
  if (!v || lock_bad(lock, nv)) return MB_EINVAL;
  lw->singular = 0;
  double *x = lw->dq, *dx = lw->q0; /* the iterate; its step (7 (nb + 1) ≥ nv doubles) */
  memcpy(x, v, sizeof *v * (size_t)nv);
  gram_free(lw->K, nv, nc, lock, LM_MIN, lw->Phi);
  int factored = mbs_chol(nc, lw->Phi) == 0; /* fails only when every free column is zero */
  double last = INFINITY;
  for (int it = 0;; it++) {
    double worst = kv_residual(lw, nv, nc, x);
    if (worst == INFINITY) return lw->singular = worst_row(lw->lam, nc), MB_ENUMERIC;
    /* refined until the residual no longer halves: rounding, or the least-squares point of an
     * inconsistent system (what the tolerance tells apart) */
    if (worst == 0.0 || !(worst < 0.5 * last) || !factored || it == MB_PROJECT_MAXIT) {
      if (worst <= MB_INITVEL_TOL) break;
      return lw->singular = worst_row(lw->lam, nc), MB_ENUMERIC;
    }
    last = worst;
    mbs_chol_solve(nc, lw->Phi, lw->lam);
    step_free(lw->K, nv, nc, lock, lw->lam, dx);
    for (int k = 0; k < nv; k++) x[k] += dx[k];
  }
  if (!mbs_finite(x, (size_t)nv)) return MB_ENUMERIC;
  memcpy(v, x, sizeof *v * (size_t)nv);
  return MB_OK;
}
