/* passive.c — passive forces: linear point-to-point spring-dampers (mb.h "Springs").
 *
 * Each spring's force is applied as a wrench on its two bodies (body coordinates, at the body
 * origin), and the wrenches are carried to the joints by the RNEA's backward pass,
 * τ_i = S_iᵀ f_i, f_λ += λX*_i f_i: τ = Σ Jᵀ F for forces F applied at body points. */
#include <math.h>
#include <stdio.h>

#include "mb.h"

static int fail(char *msg, size_t msgsize, const char *why, int k) {
  if (msg && msgsize > 0 && k >= 0) snprintf(msg, msgsize, "spring %d: %s", k, why);
  else if (msg && msgsize > 0) snprintf(msg, msgsize, "%s", why);
  return -1;
}

static int finite3(const double x[3]) {
  return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]);
}

static int nonnegative(double x) { return x >= 0.0 && isfinite(x); }

int mb_springs_check(const mb_model *m, const mb_springs *S, char *msg, size_t msgsize) {
  if (!m || !S) return fail(msg, msgsize, "NULL model or springs", -1);
  if (S->n < 0 || (S->n > 0 && !S->spring)) return fail(msg, msgsize, "bad count or NULL array", -1);
  for (int k = 0; k < S->n; k++) {
    const mb_spring *s = &S->spring[k];
    if (s->a < 0 || s->a > m->nb || s->b < 0 || s->b > m->nb || s->a == s->b)
      return fail(msg, msgsize, "bodies out of range or equal", k);
    if (!finite3(s->ra) || !finite3(s->rb)) return fail(msg, msgsize, "point not finite", k);
    if (!nonnegative(s->stiffness) || !nonnegative(s->damping) || !nonnegative(s->length))
      return fail(msg, msgsize, "stiffness, damping or length negative or not finite", k);
  }
  const double *arr[3] = {S->damping, S->friction, S->stiffness};
  for (int a = 0; a < 3; a++)
    for (int k = 0; arr[a] && k < m->nv; k++)
      if (!nonnegative(arr[a][k]))
        return fail(msg, msgsize, "a joint's damping, friction or stiffness is negative or not "
                                  "finite", -1);
  for (int k = 0; S->q_ref && k < m->nv; k++)
    if (!isfinite(S->q_ref[k])) return fail(msg, msgsize, "a joint's q_ref is not finite", -1);
  return 0;
}

/* ws->v = body spatial velocities [ω; v_o] in body coordinates (v NULL: zero). */
static void velocities(const mb_model *m, mb_workspace *ws, const double *v) {
  for (int k = 0; k < 6; k++) ws->v[k] = 0.0;
  for (int i = 1; i <= m->nb; i++) {
    const double *S = ws->S + 6 * m->iv[i];
    double *vi = ws->v + 6 * i;
    mbs_X_mv(ws->XE + 9 * i, ws->Xr + 3 * i, ws->v + 6 * m->parent[i], vi);
    for (int j = 0; j < mb_joint_nv(m->jtype[i]) && v; j++)
      for (int k = 0; k < 6; k++) vi[k] += S[6 * j + k] * v[m->iv[i] + j];
  }
}

/* World position p (and velocity pd, if v_body is not NULL) of the point r of body i. */
static void point(const mb_workspace *ws, int i, const double r[3], const double *v_body,
                  double p[3], double pd[3]) {
  const double *E = ws->X0E + 9 * i;
  double t[3];
  mbs_mat3_tmv(E, r, t);
  for (int k = 0; k < 3; k++) p[k] = ws->X0r[3 * i + k] + t[k];
  if (!pd) return;
  double w[3] = {v_body[0], v_body[1], v_body[2]}, vp[3];
  mbs_cross(w, r, vp);
  for (int k = 0; k < 3; k++) vp[k] += v_body[3 + k];
  mbs_mat3_tmv(E, vp, pd);
}

/* The force on a (world coordinates), by the zero-length rule of mb.h. */
static void spring_force(const mb_spring *s, const double d[3], const double dd[3], double F[3]) {
  double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + MB_SPRING_EPS * MB_SPRING_EPS);
  double u[3] = {d[0] / l, d[1] / l, d[2] / l};
  double rate = u[0] * dd[0] + u[1] * dd[1] + u[2] * dd[2];
  for (int k = 0; k < 3; k++)
    F[k] = s->stiffness * d[k] - s->stiffness * s->length * u[k] + s->damping * rate * u[k];
}

/* f_i += the wrench of the world force F applied at the point r of body i (body coordinates). */
static void apply(mb_workspace *ws, int i, const double r[3], const double F[3], double sign) {
  if (i == 0) return;
  double Fb[3], n[3];
  mbs_mat3_mv(ws->X0E + 9 * i, F, Fb);
  for (int k = 0; k < 3; k++) Fb[k] *= sign;
  mbs_cross(r, Fb, n);
  double *f = ws->f + 6 * i;
  for (int k = 0; k < 3; k++) f[k] += n[k], f[3 + k] += Fb[k];
}

/* τ += the joints' damping, friction and stiffness (mb.h mb_springs). */
static void joint_terms(const mb_model *m, const mb_springs *S, const double *q, const double *v,
                        double *tau) {
  for (int i = 1; i <= m->nb; i++)
    for (int c = 0, o = m->iv[i]; c < mb_joint_nv(m->jtype[i]); c++) {
      double vk = v ? v[o + c] : 0.0, t = 0.0;
      if (S->damping) t -= S->damping[o + c] * vk;
      if (S->friction) t -= S->friction[o + c] * mb_coulomb_sign(vk);
      if (S->stiffness && mb_joint_nv(m->jtype[i]) == 1 && mb_joint_nq(m->jtype[i]) == 1)
        t -= S->stiffness[o + c] * (q[m->iq[i]] - (S->q_ref ? S->q_ref[o + c] : 0.0));
      tau[o + c] += t;
    }
}

int mb_passive_forces(const mb_model *m, const mb_springs *S, mb_workspace *ws, const double *q,
                      const double *v, double *tau) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!S || !q || !tau || (S->n > 0 && !S->spring)) return MB_EINVAL;
  if (S->n == 0) { /* the joints' terms alone (any model) */
    for (int k = 0; k < m->nv; k++) tau[k] = 0.0;
    joint_terms(m, S, q, v, tau);
    return mbs_finite(tau, (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
  }
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL; /* flexible bodies: not supported (mb.h) */
  mb_xup(m, ws, q);
  mb_x0(m, ws);
  velocities(m, ws, v);
  for (size_t k = 0; k < 6 * ((size_t)m->nb + 1); k++) ws->f[k] = 0.0;
  for (int k = 0; k < S->n; k++) {
    const mb_spring *s = &S->spring[k];
    double pa[3], pb[3], va[3], vb[3], d[3], dd[3], F[3];
    point(ws, s->a, s->ra, ws->v + 6 * s->a, pa, va);
    point(ws, s->b, s->rb, ws->v + 6 * s->b, pb, vb);
    for (int c = 0; c < 3; c++) d[c] = pb[c] - pa[c], dd[c] = vb[c] - va[c];
    spring_force(s, d, dd, F);
    apply(ws, s->a, s->ra, F, 1.0);
    apply(ws, s->b, s->rb, F, -1.0);
  }
  /* the backward pass: τ_i = S_iᵀ f_i;  f_λ += λX*_i f_i */
  for (int i = m->nb; i >= 1; i--) {
    const double *Si = ws->S + 6 * m->iv[i], *fi = ws->f + 6 * i;
    for (int j = 0; j < mb_joint_nv(m->jtype[i]); j++) {
      double t = 0.0;
      for (int c = 0; c < 6; c++) t += Si[6 * j + c] * fi[c];
      tau[m->iv[i] + j] = t;
    }
    double t[6];
    int p = m->parent[i];
    if (p == 0) continue;
    mbs_XT_fv(ws->XE + 9 * i, ws->Xr + 3 * i, fi, t);
    for (int c = 0; c < 6; c++) ws->f[6 * p + c] += t[c];
  }
  joint_terms(m, S, q, v, tau);
  return mbs_finite(tau, (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}

double mb_spring_energy(const mb_model *m, const mb_springs *S, mb_workspace *ws,
                        const double *q) {
  if (!S || !q || (S->n > 0 && !S->spring) || mb_workspace_check(m, ws) != MB_OK) return NAN;
  mb_xup(m, ws, q);
  mb_x0(m, ws);
  double V = 0.0;
  for (int k = 0; k < S->n; k++) {
    const mb_spring *s = &S->spring[k];
    double pa[3], pb[3];
    point(ws, s->a, s->ra, NULL, pa, NULL);
    point(ws, s->b, s->rb, NULL, pb, NULL);
    double d0 = pb[0] - pa[0], d1 = pb[1] - pa[1], d2 = pb[2] - pa[2];
    double e = sqrt(d0 * d0 + d1 * d1 + d2 * d2) - s->length;
    V += 0.5 * s->stiffness * e * e;
  }
  return V;
}

double mb_coulomb_sign_dv(double v) {
  return fabs(v) < MB_COULOMB_BAND ? 1.0 / MB_COULOMB_BAND : 0.0;
}

int mb_passive_tau(const mb_model *m, const mb_springs *S, mb_workspace *ws, const double *q,
                   const double *v, const double *tau, double *out) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!tau || !out) return MB_EINVAL;
  if ((rc = mb_passive_forces(m, S, ws, q, v, ws->dx)) != MB_OK) return rc;
  for (int k = 0; k < m->nv; k++) out[k] = tau[k] + ws->dx[k];
  return mbs_finite(out, (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}

/* d τ_passive / dq and dv of velocity coordinate k: the joints' terms (mb_springs), diagonal. */
static void joint_slopes(const mb_model *m, const mb_springs *S, const double *v, int i, int c,
                         double *kq, double *kv) {
  int o = m->iv[i] + c;
  double vk = v ? v[o] : 0.0;
  *kq = S->stiffness && mb_joint_nv(m->jtype[i]) == 1 && mb_joint_nq(m->jtype[i]) == 1
            ? -S->stiffness[o] : 0.0;
  *kv = (S->damping ? -S->damping[o] : 0.0) -
        (S->friction ? S->friction[o] * mb_coulomb_sign_dv(vk) : 0.0);
}

int mb_aba_derivatives_passive(const mb_model *m, const mb_springs *S, mb_workspace *ws,
                               const double *q, const double *v, const double *tau,
                               double *dqdd_dq, double *dqdd_dv, double *Minv) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!S || !q || !tau || !dqdd_dq || !dqdd_dv || !Minv || S->n != 0) return MB_EINVAL;
  /* τ + τ_passive in Minv's first row: mb_aba_derivatives reads it (its ABA) before M⁻¹ */
  if ((rc = mb_passive_tau(m, S, ws, q, v, tau, Minv)) != MB_OK) return rc;
  if ((rc = mb_aba_derivatives(m, ws, q, v, Minv, dqdd_dq, dqdd_dv, Minv)) != MB_OK) return rc;
  /* q̈ = FD(q, v, τ + τ_passive(q, v)): + M⁻¹ ∂τ_passive/∂q and ∂/∂v (diagonal), by column */
  size_t nv = (size_t)m->nv;
  for (int i = 1; i <= m->nb; i++)
    for (int c = 0; c < mb_joint_nv(m->jtype[i]); c++) {
      size_t col = (size_t)m->iv[i] + (size_t)c;
      double kq, kv;
      joint_slopes(m, S, v, i, c, &kq, &kv);
      for (size_t r = 0; r < nv && (kq != 0.0 || kv != 0.0); r++) {
        dqdd_dq[nv * r + col] += Minv[nv * r + col] * kq;
        dqdd_dv[nv * r + col] += Minv[nv * r + col] * kv;
      }
    }
  size_t n = nv * nv;
  return mbs_finite(dqdd_dq, n) && mbs_finite(dqdd_dv, n) ? MB_OK : MB_ENUMERIC;
}

int mb_coupled_fd_derivatives_passive(const mb_model *m, const mb_coupling *c,
                                      const mb_springs *S, mb_workspace *ws, double *scratch,
                                      const double *q, const double *v, const double *tau,
                                      double *tau_out, double *dqdd_dq, double *dqdd_dv,
                                      double *Minv) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!c || !S || !scratch || !q || !v || !tau || !tau_out || !dqdd_dq || !dqdd_dv || !Minv ||
      S->n != 0)
    return MB_EINVAL;
  /* τ + Gᵀ τ_passive(q_full, v_full), the passive forces of the full tree (in the scratch's
   * derivative part, mb.h mb_coupled_scratch_size, which mb_coupled_fd_derivatives fills later) */
  size_t ni = (size_t)c->nv, n = (size_t)m->nv;
  double *qf = scratch, *vf = scratch + m->nq;
  double *tp = scratch + (size_t)m->nq + 2 * n + n * n + ni * ni + ni + n;
  mb_coupled_expand(m, c, q, v, qf, vf);
  if ((rc = mb_passive_forces(m, S, ws, qf, vf, tp)) != MB_OK) return rc;
  mb_coupled_fold_columns(m, c, 1, tp, tau_out);
  for (size_t k = 0; k < ni; k++) tau_out[k] += tau[k];
  rc = mb_coupled_fd_derivatives(m, c, ws, scratch, q, v, tau_out, dqdd_dq, dqdd_dv, Minv);
  if (rc != MB_OK) return rc;
  /* + M_r⁻¹ Gᵀ (∂τ_passive/∂x) G: the joints' slopes are diagonal in the full coordinates, so
   * Gᵀ diag(k) G is diagonal in the independent ones, Σ m² k over the coordinates that follow */
  for (int i = 1; i <= m->nb; i++)
    for (int cc = 0; cc < mb_joint_nv(m->jtype[i]); cc++) {
      size_t full = (size_t)m->iv[i] + (size_t)cc, col = (size_t)c->v_of[full];
      double kq, kv, w = c->v_mult[full] * c->v_mult[full];
      joint_slopes(m, S, vf, i, cc, &kq, &kv);
      for (size_t r = 0; r < ni && (kq != 0.0 || kv != 0.0); r++) {
        dqdd_dq[ni * r + col] += Minv[ni * r + col] * kq * w;
        dqdd_dv[ni * r + col] += Minv[ni * r + col] * kv * w;
      }
    }
  return mbs_finite(dqdd_dq, ni * ni) && mbs_finite(dqdd_dv, ni * ni) ? MB_OK : MB_ENUMERIC;
}
