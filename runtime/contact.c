/* contact.c — contact-constrained forward dynamics and inelastic impacts (mb.h "Contacts";
 * Featherstone, "Rigid Body Dynamics Algorithms", 2008, ch. 8: the constrained equations of
 * motion solved through Φ = K H⁻¹ Kᵀ, and ch. 11: contact and impact). The contacts are bilateral
 * (equality) constraints on operational frames: a point contact holds the frame's origin, a
 * welded contact the whole frame. With Jc the active contacts' rows of the world-aligned frame
 * Jacobians and J̇c v their bias (mb_frame_jacobian, mb_frame_acceleration_bias):
 *
 *   contact:  M q̈ + h = τ + Jcᵀ f,   Jc q̈ + J̇c v = −μ f   (μ = 0: rigid; μ > 0: compliant)
 *   impact:   M (v⁺ − v⁻) = Jcᵀ Λ,   Jc v⁺ = 0
 *
 * solved as fd_loops.c solves its loops, through the mass matrix M = Lᵀ D L without fill
 * (mb_ltdl): q̈₀ = M⁻¹ (τ − h), Y = M⁻¹ Jcᵀ, Φ = Jc Y, (Φ + diag μ) f = −J̇c v − Jc q̈₀,
 * q̈ = q̈₀ + Y f; and Φ Λ = −Jc v⁻, v⁺ = v⁻ + Y Λ. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "contact_internal.h"

static int fail(char *msg, size_t msgsize, const char *why, int k) {
  if (msg && msgsize > 0) snprintf(msg, msgsize, "contact %d: %s", k, why);
  return -1;
}

int mb_contacts_check(const mb_model *m, const mb_frames *F, const mb_contacts *C, char *msg,
                      size_t msgsize) {
  if (!m || !F || !C) return fail(msg, msgsize, "NULL model, frames or contacts", -1);
  if (F->n < 0 || (F->n > 0 && !F->frame))
    return fail(msg, msgsize, "bad frame count or array", -1);
  if (C->n < 0 || (C->n > 0 && !C->contact))
    return fail(msg, msgsize, "bad count or NULL array", -1);
  if (C->n > INT_MAX / 6) return fail(msg, msgsize, "too many contacts", -1);
  for (int k = 0; k < C->n; k++) {
    const mb_contact *c = &C->contact[k];
    if (c->frame < 0 || c->frame >= F->n) return fail(msg, msgsize, "frame out of range", k);
    if (c->dim != 3 && c->dim != 6) return fail(msg, msgsize, "dim is neither 3 nor 6", k);
    int b = F->frame[c->frame].body;
    if (b == 0) return fail(msg, msgsize, "frame on the world (body 0)", k);
    if (b < 0 || b > m->nb) return fail(msg, msgsize, "frame's body out of range", k);
  }
  return 0;
}

int mb_contact_rows(const mb_contacts *C) {
  if (!C) return 0;
  if (C->n < 0 || (C->n > 0 && !C->contact) || C->n > INT_MAX / 6) return -1;
  int n = 0;
  for (int k = 0; k < C->n; k++) {
    int d = C->contact[k].dim;
    if (d != 3 && d != 6) return -1;
    n += d;
  }
  return n;
}

/* Doubles of scratch for nr rows and nv dofs, counted in floating point: −1 if size_t cannot
 * hold the bytes. */
static double scratch_doubles(double nr, double nv) {
  double n = 2.0 * nr * nv + nr * nr + 2.0 * nr + 6.0 * nv;
  return n * (double)sizeof(double) < (double)SIZE_MAX ? n : -1.0;
}

size_t mb_contact_scratch_size(const mb_model *m, const mb_contacts *C) {
  if (!m || !C) return 0;
  int nr = mb_contact_rows(C);
  if (nr < 0 || m->nv < 0) return SIZE_MAX;
  double n = scratch_doubles(nr, m->nv);
  return n < 0.0 ? SIZE_MAX : (size_t)n * sizeof(double);
}

/* The alignment of double (C99: no _Alignof): the offset of d. */
struct align_probe {
  char c;
  double d;
};

/* The checks shared by both entry points (nothing is written before they pass): the workspace,
 * the pointers, the contacts, the flags and the regularization, a rigid model, aligned scratch. */
static int check(const mb_model *m, const mb_frames *F, const mb_contacts *C, mb_workspace *ws,
                 const void *scratch_buf, const double *q, const double *v, const double *in,
                 const int *active, const double *mu, const double *out) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!F || !C || !scratch_buf || !q || !v || !in || !out) return MB_EINVAL;
  if ((uintptr_t)scratch_buf % offsetof(struct align_probe, d)) return MB_EINVAL;
  if (mb_contacts_check(m, F, C, NULL, 0)) return MB_EINVAL;
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL; /* the frame kinematics cover rigid models */
  for (int k = 0; k < C->n; k++) {
    if (active && active[k] != 0 && active[k] != 1) return MB_EINVAL;
    if (mu && !(isfinite(mu[k]) && mu[k] >= 0.0)) return MB_EINVAL;
  }
  return MB_OK;
}

/* The active contacts' rows, packed: J (na × nv) and, if v is not NULL, b = −J̇c v and the
 * regularization of every row into ref (μ_k, or 0). Returns na ≥ 0, or a status < 0. */
static int contact_rows(const mb_model *m, const mb_frames *F, const mb_contacts *C,
                        mb_workspace *ws, mbc_scratch *s, const double *q, const double *v,
                        const int *active, const double *mu) {
  size_t nv = (size_t)m->nv;
  int na = 0, rc;
  for (int k = 0; k < C->n; k++) {
    if (active && !active[k]) continue;
    const mb_contact *c = &C->contact[k];
    mb_frames one = {1, &F->frame[c->frame]};
    int first = 6 - c->dim; /* dim 3: rows 3..5 (the origin's velocity); dim 6: all of [ω; v] */
    double acc[6];
    if ((rc = mb_frame_jacobian(m, &one, ws, q, 0, s->Jf))) return rc;
    if (v && (rc = mb_frame_acceleration_bias(m, &one, ws, q, v, acc))) return rc;
    for (int r = first; r < 6; r++, na++) {
      memcpy(s->J + (size_t)na * nv, s->Jf + (size_t)r * nv, sizeof(double) * nv);
      if (v) s->b[na] = -acc[r];
      s->ref[na] = mu ? mu[k] : 0.0;
    }
  }
  return na;
}

/* M = crba(q) into ws->M, factored M = Lᵀ D L (mb_ltdl). */
static int factor_mass(const mb_model *m, mb_workspace *ws, const double *q) {
  int rc = mb_crba(m, ws, q, ws->M);
  return rc ? rc : mb_ltdl(m, ws, ws->M);
}

/* Y_r = M⁻¹ Jc_rᵀ, the lower triangle of Φ = Jc Y plus diag(ref) (the regularization on entry),
 * and the Cholesky factor of Φ + diag μ under the pivot rule with the references diag(Φ + μ):
 * MB_ENUMERIC (ws->singular = 0: no joint's pivot) if the contacts are redundant. */
static int delassus(const mb_model *m, mb_workspace *ws, mbc_scratch *s, int na) {
  size_t nv = (size_t)m->nv, n = (size_t)na;
  int rc;
  for (size_t r = 0; r < n; r++) {
    double *Y = s->Y + r * nv;
    memcpy(Y, s->J + r * nv, sizeof(double) * nv);
    if ((rc = mb_ltdl_solve(m, ws, ws->M, Y))) return rc;
    for (size_t c = 0; c <= r; c++) {
      const double *Jc = s->J + c * nv;
      double p = 0.0;
      for (size_t k = 0; k < nv; k++) p += Jc[k] * Y[k];
      s->Phi[r * n + c] = p;
    }
    s->Phi[r * n + r] += s->ref[r];
    s->ref[r] = s->Phi[r * n + r];
  }
  if (mbs_chol_ref(na, s->Phi, s->ref)) return ws->singular = 0, MB_ENUMERIC;
  return MB_OK;
}

/* x += Y f over the na packed rows (x [nv]); the multipliers scattered into out (Σ dim entries,
 * zero for the inactive contacts; out may be NULL). */
static void apply(const mb_model *m, const mb_contacts *C, const mbc_scratch *s, int na,
                  const int *active, double *x, double *out) {
  size_t nv = (size_t)m->nv;
  for (size_t r = 0; r < (size_t)na; r++)
    for (size_t k = 0; k < nv; k++) x[k] += s->b[r] * s->Y[r * nv + k];
  for (int k = 0, o = 0, a = 0; out && k < C->n; o += C->contact[k].dim, k++)
    for (int r = 0; r < C->contact[k].dim; r++)
      out[o + r] = (active && !active[k]) ? 0.0 : s->b[a++];
}

int mb_contact_fd(const mb_model *m, const mb_frames *F, const mb_contacts *C, mb_workspace *ws,
                  void *scratch_buf, const double *q, const double *v, const double *tau,
                  const int *active, const double *mu, double *qdd, double *force) {
  int rc = check(m, F, C, ws, scratch_buf, q, v, tau, active, mu, qdd);
  if (rc) return rc;
  int nv = m->nv, nr = mb_contact_rows(C);
  mbc_scratch s = mbc_layout(scratch_buf, (size_t)nr, (size_t)nv);
  ws->singular = 0;
  int na = contact_rows(m, F, C, ws, &s, q, v, active, mu);
  if (na < 0) return na;
  if (na == 0) { /* nothing constrains: the unconstrained accelerations */
    if (force) memset(force, 0, sizeof(double) * (size_t)nr);
    return mb_aba(m, ws, q, v, tau, NULL, qdd);
  }
  /* q̈₀ = M⁻¹ (τ − h) */
  if ((rc = mb_nle(m, ws, q, v, qdd))) return rc;
  for (int k = 0; k < nv; k++) qdd[k] = tau[k] - qdd[k];
  if ((rc = factor_mass(m, ws, q)) || (rc = mb_ltdl_solve(m, ws, ws->M, qdd))) return rc;
  /* (Φ + diag μ) f = −J̇c v − Jc q̈₀;  q̈ = q̈₀ + Y f */
  for (size_t r = 0; r < (size_t)na; r++)
    for (size_t k = 0; k < (size_t)nv; k++) s.b[r] -= s.J[r * (size_t)nv + k] * qdd[k];
  if ((rc = delassus(m, ws, &s, na))) return rc;
  mbs_chol_solve(na, s.Phi, s.b);
  apply(m, C, &s, na, active, qdd, force);
  if (!mbs_finite(qdd, (size_t)nv) || !mbs_finite(s.b, (size_t)na)) return MB_ENUMERIC;
  return MB_OK;
}

int mb_impulse(const mb_model *m, const mb_frames *F, const mb_contacts *C, mb_workspace *ws,
               void *scratch_buf, const double *q, const double *v_minus, const int *active,
               double *v_plus, double *impulse) {
  int rc = check(m, F, C, ws, scratch_buf, q, v_minus, v_minus, active, NULL, v_plus);
  if (rc) return rc;
  int nv = m->nv, nr = mb_contact_rows(C);
  mbc_scratch s = mbc_layout(scratch_buf, (size_t)nr, (size_t)nv);
  ws->singular = 0;
  int na = contact_rows(m, F, C, ws, &s, q, NULL, active, NULL);
  if (na < 0) return na;
  /* Φ Λ = −Jc v⁻ (before v⁺ is written: v_plus may alias v_minus) */
  for (size_t r = 0; r < (size_t)na; r++) {
    double x = 0.0;
    for (size_t k = 0; k < (size_t)nv; k++) x += s.J[r * (size_t)nv + k] * v_minus[k];
    s.b[r] = -x;
  }
  if (na > 0) {
    if ((rc = factor_mass(m, ws, q)) || (rc = delassus(m, ws, &s, na))) return rc;
    mbs_chol_solve(na, s.Phi, s.b);
  }
  /* v⁺ = v⁻ + M⁻¹ Jcᵀ Λ = v⁻ + Y Λ */
  memmove(v_plus, v_minus, sizeof(double) * (size_t)nv);
  apply(m, C, &s, na, active, v_plus, impulse);
  if (!mbs_finite(v_plus, (size_t)nv) || !mbs_finite(s.b, (size_t)na)) return MB_ENUMERIC;
  return MB_OK;
}
