/* coupled_contact.c — contact-constrained dynamics and impacts in the independent coordinates of
 * a model with coupled joints (mb.h mb_coupled_contact_fd, mb_coupled_impulse): mb_contact_fd's
 * and mb_impulse's equations with M, h and the contact rows of the full tree projected by the
 * coupling, M_r = Gᵀ M G, h_r = Gᵀ h, J_r = Jc G:
 *   M_r q̈ + h_r = τ + J_rᵀ f,   J_r q̈ + J̇c v = −μ f   (q̈₀ = M_r⁻¹ (τ − h_r), Y = M_r⁻¹ J_rᵀ,
 *   (J_r Y + diag μ) f = −J̇c v − J_r q̈₀, q̈ = q̈₀ + Y f);  impacts: (J_r Y) Λ = −J_r v⁻,
 *   v⁺ = v⁻ + Y Λ. Dense over the independent coordinates (M_r by Cholesky, coupling.c). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "coupling_internal.h"

/* The part after mb_coupled_scratch_size's: J, Y (nr × ni), Phi (nr²), b, ref (nr), Jf (6 nv),
 * Jr (6 ni). */
typedef struct cscratch {
  double *base, *J, *Y, *Phi, *b, *ref, *Jf, *Jr;
} cscratch;

size_t mb_coupled_contact_scratch_size(const mb_model *m, const mb_coupling *c,
                                       const mb_contacts *C) {
  if (!m || !c || !C) return 0;
  int nr = mb_contact_rows(C);
  if (nr < 0) return SIZE_MAX;
  size_t r = (size_t)nr, ni = (size_t)c->nv, n = (size_t)m->nv;
  return mb_coupled_scratch_size(m, c) + 2 * r * ni + r * r + 2 * r + 6 * n + 6 * ni;
}

static cscratch layout(const mb_model *m, const mb_coupling *c, double *buf, size_t nr) {
  size_t ni = (size_t)c->nv;
  cscratch s;
  s.base = buf;
  s.J = buf + mb_coupled_scratch_size(m, c);
  s.Y = s.J + nr * ni;
  s.Phi = s.Y + nr * ni;
  s.b = s.Phi + nr * nr;
  s.ref = s.b + nr;
  s.Jf = s.ref + nr;
  s.Jr = s.Jf + 6 * (size_t)m->nv;
  return s;
}

static int check(const mb_model *m, const mb_coupling *c, const mb_frames *F,
                 const mb_contacts *C, mb_workspace *ws, const double *scratch, const double *q,
                 const double *v, const double *in, const int *active, const double *mu,
                 const double *out) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!c || !F || !C || !scratch || !q || !v || !in || !out) return MB_EINVAL;
  if (mb_coupling_check(m, c, NULL, 0) || mb_contacts_check(m, F, C, NULL, 0)) return MB_EINVAL;
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL;
  for (int k = 0; k < C->n; k++) {
    if (active && active[k] != 0 && active[k] != 1) return MB_EINVAL;
    if (mu && !(isfinite(mu[k]) && mu[k] >= 0.0)) return MB_EINVAL;
  }
  return MB_OK;
}

/* The active contacts' rows at q_full (and, with v_full, b = −J̇c v), folded by G into J; ref the
 * regularization. Returns na ≥ 0 or a status < 0. */
static int rows(const mb_model *m, const mb_coupling *c, const mb_frames *F, const mb_contacts *C,
                mb_workspace *ws, cscratch *s, const double *qf, const double *vf,
                const int *active, const double *mu) {
  size_t ni = (size_t)c->nv;
  int na = 0, rc;
  for (int k = 0; k < C->n; k++) {
    if (active && !active[k]) continue;
    const mb_contact *ct = &C->contact[k];
    mb_frames one = {1, &F->frame[ct->frame]};
    double acc[6];
    if ((rc = mb_frame_jacobian(m, &one, ws, qf, 0, s->Jf))) return rc;
    if (vf && (rc = mb_frame_acceleration_bias(m, &one, ws, qf, vf, acc))) return rc;
    mb_coupled_fold_columns(m, c, 6, s->Jf, s->Jr);
    for (int r = 6 - ct->dim; r < 6; r++, na++) {
      memcpy(s->J + (size_t)na * ni, s->Jr + (size_t)r * ni, sizeof(double) * ni);
      if (vf) s->b[na] = -acc[r];
      s->ref[na] = mu ? mu[k] : 0.0;
    }
  }
  return na;
}

/* Y_r = M_r⁻¹ J_rᵀ, Φ = J Y + diag(ref) factored (the pivot rule against diag(Φ + μ)). */
static int delassus(const mb_coupling *c, const double *Mr, cscratch *s, int na) {
  size_t ni = (size_t)c->nv, n = (size_t)na;
  for (size_t r = 0; r < n; r++) {
    double *Y = s->Y + r * ni;
    memcpy(Y, s->J + r * ni, sizeof(double) * ni);
    mbs_chol_solve(c->nv, Mr, Y);
    for (size_t k = 0; k <= r; k++) {
      double p = 0.0;
      for (size_t j = 0; j < ni; j++) p += s->J[k * ni + j] * Y[j];
      s->Phi[r * n + k] = p;
    }
    s->Phi[r * n + r] += s->ref[r];
    s->ref[r] = s->Phi[r * n + r];
  }
  return mbs_chol_ref(na, s->Phi, s->ref) ? MB_ENUMERIC : MB_OK;
}

/* x += Y f; the multipliers scattered into out (zero for the inactive contacts; may be NULL). */
static void apply(const mb_coupling *c, const mb_contacts *C, const cscratch *s, int na,
                  const int *active, double *x, double *out) {
  size_t ni = (size_t)c->nv;
  for (size_t r = 0; r < (size_t)na; r++)
    for (size_t k = 0; k < ni; k++) x[k] += s->b[r] * s->Y[r * ni + k];
  for (int k = 0, o = 0, a = 0; out && k < C->n; o += C->contact[k].dim, k++)
    for (int r = 0; r < C->contact[k].dim; r++)
      out[o + r] = (active && !active[k]) ? 0.0 : s->b[a++];
}

int mb_coupled_contact_fd(const mb_model *m, const mb_coupling *c, const mb_frames *F,
                          const mb_contacts *C, mb_workspace *ws, double *scratch,
                          const double *q, const double *v, const double *tau, const int *active,
                          const double *mu, double *qdd, double *force) {
  int rc = check(m, c, F, C, ws, scratch, q, v, tau, active, mu, qdd);
  if (rc) return rc;
  int nr = mb_contact_rows(C);
  size_t ni = (size_t)c->nv, n = (size_t)m->nv;
  cscratch s = layout(m, c, scratch, (size_t)nr);
  /* q̈₀ = M_r⁻¹ (τ − h_r): mb_coupled_fd leaves q_full, v_full and M_r's factor in the
   * scratch's first part (coupling.c's layout), which rows() does not touch */
  if ((rc = mb_coupled_fd(m, c, ws, s.base, q, v, tau, NULL, qdd))) return rc;
  double *qf = s.base, *vf = qf + m->nq, *Mr = qf + m->nq + 2 * n + n * n;
  int na = rows(m, c, F, C, ws, &s, qf, vf, active, mu);
  if (na < 0) return na;
  if (na == 0) {
    if (force) memset(force, 0, sizeof(double) * (size_t)nr);
    return MB_OK;
  }
  for (size_t r = 0; r < (size_t)na; r++)
    for (size_t k = 0; k < ni; k++) s.b[r] -= s.J[r * ni + k] * qdd[k];
  if ((rc = delassus(c, Mr, &s, na))) return rc;
  mbs_chol_solve(na, s.Phi, s.b);
  apply(c, C, &s, na, active, qdd, force);
  return mbs_finite(qdd, ni) && mbs_finite(s.b, (size_t)na) ? MB_OK : MB_ENUMERIC;
}

int mb_coupled_impulse(const mb_model *m, const mb_coupling *c, const mb_frames *F,
                       const mb_contacts *C, mb_workspace *ws, double *scratch, const double *q,
                       const double *v_minus, const int *active, double *v_plus,
                       double *impulse) {
  int rc = check(m, c, F, C, ws, scratch, q, v_minus, v_minus, active, NULL, v_plus);
  if (rc) return rc;
  int nr = mb_contact_rows(C);
  size_t ni = (size_t)c->nv;
  cscratch s = layout(m, c, scratch, (size_t)nr);
  double *Mr;
  if ((rc = mb_coupled_factor_(m, c, ws, s.base, q, &Mr))) return rc;
  int na = rows(m, c, F, C, ws, &s, s.base, NULL, active, NULL);
  if (na < 0) return na;
  for (size_t r = 0; r < (size_t)na; r++) { /* Φ Λ = −J_r v⁻ (v_plus may alias v_minus) */
    double x = 0.0;
    for (size_t k = 0; k < ni; k++) x += s.J[r * ni + k] * v_minus[k];
    s.b[r] = -x;
  }
  if (na > 0) {
    if ((rc = delassus(c, Mr, &s, na))) return rc;
    mbs_chol_solve(na, s.Phi, s.b);
  }
  memmove(v_plus, v_minus, sizeof(double) * ni);
  apply(c, C, &s, na, active, v_plus, impulse);
  return mbs_finite(v_plus, ni) && mbs_finite(s.b, (size_t)na) ? MB_OK : MB_ENUMERIC;
}
