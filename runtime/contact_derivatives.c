/* contact_derivatives.c — the derivatives of contact-constrained dynamics and of inelastic
 * impacts (mb.h "Contacts"), by differentiating the equations mb_contact_fd and mb_impulse solve
 * (as Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms", RSS 2018,
 * and Pinocchio's constraint-dynamics derivatives do for rigid contacts).
 *
 * Both solve, on the active rows Jc (world-aligned frame Jacobians), a system
 *   M y − Jcᵀ f = r,   Jc y + μ f = s
 * (contact: y = q̈, r = τ − h, s = −J̇c v; impact: y = v⁺, r = M v⁻, s = 0, μ = 0).
 * Differentiating at the solution along x ∈ {q, v, τ} (q along the tangent space):
 *   M ∂y − Jcᵀ ∂f = −∂R,   Jc ∂y + μ ∂f = −∂a,
 * with R(x) = the equation's left side at y, f held (R = rnea(q, v, q̈) − Jcᵀ f − τ for
 * contacts) and a(x) = Jc y + J̇c v at y held (the contact rows' acceleration). With
 * u = −M⁻¹ ∂R (M = Lᵀ D L as mb_contact_fd left it) and Y = M⁻¹ Jcᵀ:
 *   (Φ + μ) ∂f = −Jc u − ∂a,   ∂y = u + Y ∂f,   Φ = Jc Y (its factor as mb_contact_fd left it).
 *
 * ∂R/∂q: the forces f act at the frames' origins in world axes: the inverse-dynamics derivatives
 * with f as body-frame wrenches (mbd_rnea_derivatives, which hold a wrench fixed on its body)
 * plus what holding their directions fixed in the world adds: a step of dof c turns a body-fixed
 * force with ω_c, a world-fixed one not, which adds to ∂R_r/∂q_c (ω_c × λ)·(J_p)_r + (ω_c × n)·
 * (J_ω)_r, i.e. −(J_pᵀ [λ]× J_ω + J_ωᵀ [n]× J_ω) per contact (λ its force, n its moment, J_p and
 * J_ω the rows of the origin's velocity and of the angular velocity). ∂a/∂q, ∂a/∂v: the frames'
 * acceleration derivatives (mb_frame_acceleration_derivatives, world axes, at q̈ = y). */
#include <stdint.h>
#include <string.h>

#include "contact_internal.h"
#include "derivatives_internal.h"

/* The derivative scratch past the contact scratch (mbc_layout): fext [6 (nb + 1)], dA [2 nr × nv]
 * (∂a along the first and second variable, packed rows), Fq, Fv [6 × nv each] one frame's
 * acceleration derivatives, u [nv]. */
typedef struct dscratch {
  mbc_scratch c;
  double *fext, *dA1, *dA2, *Fq, *Fv, *u;
} dscratch;

static double doubles(double nr, double nv, double nb) {
  double n = 2.0 * nr * nv + nr * nr + 2.0 * nr + 6.0 * nv; /* the contact scratch */
  n += 6.0 * (nb + 1.0) + 2.0 * nr * nv + 12.0 * nv + nv;
  return n * (double)sizeof(double) < (double)SIZE_MAX ? n : -1.0;
}

size_t mb_contact_derivatives_scratch_size(const mb_model *m, const mb_contacts *C) {
  if (!m || !C) return 0;
  int nr = mb_contact_rows(C);
  if (nr < 0 || m->nv < 0 || m->nb < 0) return SIZE_MAX;
  double n = doubles(nr, m->nv, m->nb);
  return n < 0.0 ? SIZE_MAX : (size_t)n * sizeof(double);
}

static dscratch dlayout(void *buf, const mb_model *m, size_t nr) {
  size_t nv = (size_t)m->nv;
  dscratch d;
  d.c = mbc_layout(buf, nr, nv);
  d.fext = d.c.Jf + 6 * nv;
  d.dA1 = d.fext + 6 * ((size_t)m->nb + 1);
  d.dA2 = d.dA1 + nr * nv;
  d.Fq = d.dA2 + nr * nv;
  d.Fv = d.Fq + 6 * nv;
  d.u = d.Fv + 6 * nv;
  return d;
}

/* The active contacts' rows of the frames' acceleration derivatives at (q, v, acc) into dA1 (q)
 * and dA2 (v; NULL: not wanted), packed as mb_contact_fd's rows; and their forces (packed in b)
 * as body-frame wrenches into fext (world-axes forces at the frames' origins moved to the bodies'
 * origins and axes). */
static int rows_and_wrenches(const mb_model *m, const mb_frames *F, const mb_contacts *C,
                             mb_workspace *ws, dscratch *d, const int *active, const double *q,
                             const double *v, const double *acc, const double *b) {
  size_t nv = (size_t)m->nv;
  memset(d->fext, 0, sizeof(double) * 6 * ((size_t)m->nb + 1));
  for (int k = 0, na = 0; k < C->n; k++) {
    if (active && !active[k]) continue;
    const mb_contact *c = &C->contact[k];
    const mb_frame *fr = &F->frame[c->frame];
    mb_frames one = {1, fr};
    int rc = mb_frame_acceleration_derivatives(m, &one, ws, q, v, acc, 0, d->Fq,
                                               d->dA2 ? d->Fv : NULL, NULL);
    if (rc) return rc;
    double lam[3], n[3] = {0, 0, 0}, lb[3], nb[3], t[3];
    const double *f = b + na;
    memcpy(lam, f + c->dim - 3, sizeof lam);
    if (c->dim == 6) memcpy(n, f, sizeof n);
    for (int r = 6 - c->dim; r < 6; r++, na++) {
      memcpy(d->dA1 + (size_t)na * nv, d->Fq + (size_t)r * nv, sizeof(double) * nv);
      if (d->dA2) memcpy(d->dA2 + (size_t)na * nv, d->Fv + (size_t)r * nv, sizeof(double) * nv);
    }
    /* body frame: λ_b = E λ, n_b = E n + p × λ_b (E = X0E: world → body; mb_frame_...
     * derivatives left the poses of q in ws) */
    const double *E = ws->X0E + 9 * fr->body;
    mbs_mat3_mv(E, lam, lb);
    mbs_mat3_mv(E, n, nb);
    mbs_cross(fr->p, lb, t);
    double *w = d->fext + 6 * fr->body;
    for (int l = 0; l < 3; l++) w[l] += nb[l] + t[l], w[3 + l] += lb[l];
  }
  return MB_OK;
}

/* D += −(J_pᵀ [λ]× J_ω + J_ωᵀ [n]× J_ω) over the active contacts (D nv × nv): the world-fixed
 * directions of their forces (b, packed). */
static int world_directions(const mb_model *m, const mb_frames *F, const mb_contacts *C,
                            mb_workspace *ws, dscratch *d, const int *active, const double *q,
                            const double *b, double *D) {
  size_t nv = (size_t)m->nv;
  for (int k = 0, na = 0; k < C->n; k++) {
    if (active && !active[k]) continue;
    const mb_contact *c = &C->contact[k];
    mb_frames one = {1, &F->frame[c->frame]};
    int rc = mb_frame_jacobian(m, &one, ws, q, 0, d->c.Jf);
    if (rc) return rc;
    const double *lam = b + na + c->dim - 3, *n = c->dim == 6 ? b + na : NULL;
    const double *Jw = d->c.Jf, *Jp = d->c.Jf + 3 * nv;
    na += c->dim;
    for (size_t col = 0; col < nv; col++) {
      double w[3] = {Jw[col], Jw[nv + col], Jw[2 * nv + col]}, x[3], y[3] = {0, 0, 0};
      mbs_cross(lam, w, x); /* [λ]× ω_c */
      if (n) mbs_cross(n, w, y);
      for (size_t r = 0; r < nv; r++) {
        double s = 0.0;
        for (size_t l = 0; l < 3; l++) s += Jp[l * nv + r] * x[l] + Jw[l * nv + r] * y[l];
        D[r * nv + col] -= s;
      }
    }
  }
  return MB_OK;
}

/* Column c of the derivatives: u = −M⁻¹ ∂R_c (given in u when have_u, else from dR column c of
 * D), (Φ + μ) ∂f = −Jc u − ∂a_c (dA column c, NULL: 0), ∂y = u + Y ∂f into D's column c and ∂f
 * into column c of df (nr × nv, the inactive rows zero; NULL: not wanted). */
static int column(const mb_model *m, const mb_contacts *C, mb_workspace *ws, dscratch *d,
                  int na, const int *active, size_t c, int have_u, const double *dA, double *D,
                  double *df) {
  size_t nv = (size_t)m->nv;
  double *u = d->u, *g = d->c.ref; /* ref is free once Φ is factored */
  int rc;
  if (!have_u) {
    for (size_t k = 0; k < nv; k++) u[k] = -D[k * nv + c];
    if ((rc = mb_ltdl_solve(m, ws, ws->M, u))) return rc;
  }
  for (size_t r = 0; r < (size_t)na; r++) {
    double s = dA ? dA[r * nv + c] : 0.0;
    for (size_t k = 0; k < nv; k++) s += d->c.J[r * nv + k] * u[k];
    g[r] = -s;
  }
  mbs_chol_solve(na, d->c.Phi, g);
  for (size_t r = 0; r < (size_t)na; r++)
    for (size_t k = 0; k < nv; k++) u[k] += g[r] * d->c.Y[r * nv + k];
  for (size_t k = 0; k < nv; k++) D[k * nv + c] = u[k];
  for (int k = 0, o = 0, a = 0; df && k < C->n; o += C->contact[k].dim, k++)
    for (int r = 0; r < C->contact[k].dim; r++)
      df[(size_t)(o + r) * nv + c] = (active && !active[k]) ? 0.0 : g[a++];
  return MB_OK;
}

/* Every column of D (holding ∂R along q or v, dA the rows' ∂a; NULL: 0). */
static int solve_all(const mb_model *m, const mb_contacts *C, mb_workspace *ws, dscratch *d,
                     int na, const int *active, const double *dA, double *D, double *df) {
  for (size_t c = 0; c < (size_t)m->nv; c++) {
    int rc = column(m, C, ws, d, na, active, c, 0, dA, D, df);
    if (rc) return rc;
  }
  return MB_OK;
}

/* Every column of the τ-derivatives: ∂R/∂τ = −1, so u = M⁻¹ e_c, and ∂a/∂τ = 0. */
static int solve_tau(const mb_model *m, const mb_contacts *C, mb_workspace *ws, dscratch *d,
                     int na, const int *active, double *D, double *df) {
  size_t nv = (size_t)m->nv;
  for (size_t c = 0; c < nv; c++) {
    for (size_t k = 0; k < nv; k++) d->u[k] = k == c ? 1.0 : 0.0;
    int rc = mb_ltdl_solve(m, ws, ws->M, d->u);
    if (rc || (rc = column(m, C, ws, d, na, active, c, 1, NULL, D, df))) return rc;
  }
  return MB_OK;
}

static int finite_all(const double *const *x, const size_t *n, int count) {
  for (int k = 0; k < count; k++)
    if (x[k] && !mbs_finite(x[k], n[k])) return 0;
  return 1;
}

int mb_contact_fd_derivatives(const mb_model *m, const mb_frames *F, const mb_contacts *C,
                              mb_workspace *ws, void *scratch, const double *q, const double *v,
                              const double *tau, const int *active, const double *mu,
                              double *qdd, double *force, double *dqdd_dq, double *dqdd_dv,
                              double *dqdd_dtau, double *dforce_dq, double *dforce_dv,
                              double *dforce_dtau) {
  if (!dqdd_dq || !dqdd_dv || !dqdd_dtau) return MB_EINVAL;
  int rc = mb_contact_fd(m, F, C, ws, scratch, q, v, tau, active, mu, qdd, force);
  if (rc) return rc;
  size_t nv = (size_t)m->nv, nr = (size_t)mb_contact_rows(C);
  dscratch d = dlayout(scratch, m, nr);
  int na = 0;
  for (int k = 0; k < C->n; k++) na += (active && !active[k]) ? 0 : C->contact[k].dim;
  if (na == 0) { /* no contact: the derivatives of mb_aba, no force */
    double *z[3] = {dforce_dq, dforce_dv, dforce_dtau};
    for (int k = 0; k < 3; k++)
      if (z[k]) memset(z[k], 0, sizeof(double) * nr * nv);
    return mb_aba_derivatives(m, ws, q, v, tau, dqdd_dq, dqdd_dv, dqdd_dtau);
  }
  double *f = d.c.b; /* the packed forces mb_contact_fd left */
  if ((rc = rows_and_wrenches(m, F, C, ws, &d, active, q, v, qdd, f))) return rc;
  mbd_rnea_derivatives(m, ws, q, v, qdd, d.fext, 1, dqdd_dq, dqdd_dv, NULL);
  if ((rc = world_directions(m, F, C, ws, &d, active, q, f, dqdd_dq))) return rc;
  /* the solves overwrite b (f) no more: g lives in ref */
  if ((rc = solve_all(m, C, ws, &d, na, active, d.dA1, dqdd_dq, dforce_dq)) ||
      (rc = solve_all(m, C, ws, &d, na, active, d.dA2, dqdd_dv, dforce_dv)) ||
      (rc = solve_tau(m, C, ws, &d, na, active, dqdd_dtau, dforce_dtau)))
    return rc;
  const double *all[6] = {dqdd_dq, dqdd_dv, dqdd_dtau, dforce_dq, dforce_dv, dforce_dtau};
  size_t sizes[6] = {nv * nv, nv * nv, nv * nv, nr * nv, nr * nv, nr * nv};
  return finite_all(all, sizes, 6) ? MB_OK : MB_ENUMERIC;
}

int mb_impulse_derivatives(const mb_model *m, const mb_frames *F, const mb_contacts *C,
                           mb_workspace *ws, void *scratch, const double *q,
                           const double *v_minus, const int *active, double *v_plus,
                           double *impulse, double *dvplus_dq, double *dvplus_dv,
                           double *dimpulse_dq, double *dimpulse_dv) {
  if (!dvplus_dq || !dvplus_dv || !v_plus || v_plus == v_minus) return MB_EINVAL;
  int rc = mb_impulse(m, F, C, ws, scratch, q, v_minus, active, v_plus, impulse);
  if (rc) return rc;
  size_t nv = (size_t)m->nv, nr = (size_t)mb_contact_rows(C);
  dscratch d = dlayout(scratch, m, nr);
  int na = 0;
  for (int k = 0; k < C->n; k++) na += (active && !active[k]) ? 0 : C->contact[k].dim;
  memset(dvplus_dq, 0, sizeof(double) * nv * nv);
  memset(dvplus_dv, 0, sizeof(double) * nv * nv);
  for (size_t k = 0; k < nv; k++) dvplus_dv[k * nv + k] = 1.0;
  if (na == 0) {
    if (dimpulse_dq) memset(dimpulse_dq, 0, sizeof(double) * nr * nv);
    if (dimpulse_dv) memset(dimpulse_dv, 0, sizeof(double) * nr * nv);
    return MB_OK;
  }
  /* R = M (v⁺ − v⁻) − Jcᵀ Λ: ∂R/∂q by the inverse-dynamics derivatives at v = 0, a = v⁺ − v⁻,
   * without gravity, Λ as forces; ∂R/∂v⁻ = −M (u = e_c); a = Jc v⁺: ∂a/∂q the frames' acceleration
   * derivatives at v = 0, q̈ = v⁺ */
  double *dv = d.u; /* v⁺ − v⁻ until the solves */
  double *lam = d.c.b;
  d.dA2 = NULL;
  if ((rc = rows_and_wrenches(m, F, C, ws, &d, active, q, NULL, v_plus, lam))) return rc;
  for (size_t k = 0; k < nv; k++) dv[k] = v_plus[k] - v_minus[k];
  mbd_rnea_derivatives(m, ws, q, NULL, dv, d.fext, 0, dvplus_dq, dvplus_dv, NULL);
  memset(dvplus_dv, 0, sizeof(double) * nv * nv); /* ∂R/∂v of the above: v = 0 there */
  if ((rc = world_directions(m, F, C, ws, &d, active, q, lam, dvplus_dq))) return rc;
  if ((rc = solve_all(m, C, ws, &d, na, active, d.dA1, dvplus_dq, dimpulse_dq))) return rc;
  for (size_t c = 0; c < nv; c++) {
    for (size_t k = 0; k < nv; k++) d.u[k] = k == c ? 1.0 : 0.0;
    if ((rc = column(m, C, ws, &d, na, active, c, 1, NULL, dvplus_dv, dimpulse_dv))) return rc;
  }
  const double *all[4] = {dvplus_dq, dvplus_dv, dimpulse_dq, dimpulse_dv};
  size_t sizes[4] = {nv * nv, nv * nv, nr * nv, nr * nv};
  return finite_all(all, sizes, 4) ? MB_OK : MB_ENUMERIC;
}
