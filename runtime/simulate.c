/* simulate.c — integration of q̈ = f(t, q, v) with error control (mb.h "Integration with error
 * control"; docs/analysis.md): the Runge-Kutta pair RK5(4)7M of Dormand & Prince, "A family of
 * embedded Runge-Kutta formulae", J. Comp. Appl. Math. 6(1), 1980 (first same as last: the last
 * stage is the next step's first), with the step control and the starting step of Hairer, Nørsett
 * & Wanner, "Solving Ordinary Differential Equations I", 1993, §II.4.
 *
 * The positions live on the joint manifolds, M ⊕ Θ = M Exp(Θ) (mb_integrate). Written as
 * q(t) = q0 ⊕ Θ(t), the motion is an ODE in the vector space of Θ: from Exp(Θ + δ) =
 * Exp(Θ) Exp(Jr(Θ) δ), q⁻¹ q̇ = Jr(Θ) Θ̇ = v, so
 *
 *   Θ̇ = Jr(Θ)⁻¹ v,   v̇ = f(t, q0 ⊕ Θ, v),   Θ(0) = 0,
 *
 * and the pair is applied to (Θ, v): the Runge-Kutta-Munthe-Kaas method (Munthe-Kaas,
 * "High order Runge-Kutta methods on manifolds", Applied Numerical Mathematics 29, 1999), which
 * keeps the order of the pair on any Lie group. Jr(Θ) is mb_integrate_jacobians' Jv (dt = 1): the
 * identity on scalar and modal coordinates, a 3 × 3 or 6 × 6 block for a spherical, floating or
 * planar joint, solved here by elimination with partial pivoting. Freezing the tangent instead
 * (Θ̇ = v) gives an error of order h² in the rotations of non-commuting stages. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mb.h"

#define NS 7 /* stages */

/* Dormand & Prince (1980), RK5(4)7M: c, the lower triangle of a (row i, columns j < i), the
 * order-5 weights b (= the last row of a) and e = b − b̂ (b̂ the order-4 weights). */
static const double DP_C[NS] = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0};
static const double DP_A[NS][NS - 1] = {
    {0},
    {1.0 / 5.0},
    {3.0 / 40.0, 9.0 / 40.0},
    {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0},
    {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0},
    {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0},
    {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0}};
static const double DP_E[NS] = {71.0 / 57600.0,      0.0,          -71.0 / 16695.0, 71.0 / 1920.0,
                                -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0};

#define FAC_SAFE 0.9 /* HNW's fac */
#define FAC_MIN 0.2
#define FAC_MAX 5.0
#define STRETCH 1.01 /* a step within 1 % of tend lands on it */

/* The alignment of double (C99: no _Alignof): the offset of d. */
struct align_probe {
  char c;
  double d;
};

/* One run: the arguments and the arrays laid out in the scratch. */
typedef struct sim {
  const mb_model *m;
  const mb_sim_system *sys;
  int nq, nv, nw;
  double *qn, *qs;      /* nq: the step's end, a stage's position */
  double *kv[NS];       /* nv each: the stages' q̈ */
  double *kt[NS];       /* nv each: the stages' Θ̇ = Jr(Θ)⁻¹ V */
  double *th, *vs, *vn; /* nv: a stage's Θ and V, the step's end velocity */
  double *mag0, *mag1;  /* nv: the position magnitudes at the step's start and end */
  double *kw[NS];       /* MB_SIM_MAX_QUAD each: the stages' ẇ */
  double *wn;           /* MB_SIM_MAX_QUAD: the step's end w */
  double *J;            /* nv²: Jr(Θ), or NULL when every coordinate is a vector space */
  long naccel;
} sim;

static int has_lie(const mb_model *m) {
  for (int i = 1; i <= m->nb; i++) {
    mb_joint_type t = m->jtype[i];
    if (t == MB_JOINT_SPHERICAL || t == MB_JOINT_FLOATING || t == MB_JOINT_PLANAR) return 1;
  }
  return 0;
}

static double sim_doubles(const mb_model *m) {
  double nq = m->nq, nv = m->nv;
  return 2.0 * nq + (2.0 * NS + 5.0) * nv + (NS + 1.0) * MB_SIM_MAX_QUAD +
         (has_lie(m) ? nv * nv : 0.0);
}

size_t mb_simulate_scratch_size(const mb_model *m) {
  if (!m || m->nq < 0 || m->nv < 0) return 0;
  double n = sim_doubles(m);
  return n * (double)sizeof(double) < (double)SIZE_MAX ? (size_t)n * sizeof(double) : SIZE_MAX;
}

static void sim_layout(sim *s, double *p) {
  s->qn = p, p += s->nq;
  s->qs = p, p += s->nq;
  for (int i = 0; i < NS; i++) s->kv[i] = p, p += s->nv;
  for (int i = 0; i < NS; i++) s->kt[i] = p, p += s->nv;
  s->th = p, p += s->nv;
  s->vs = p, p += s->nv;
  s->vn = p, p += s->nv;
  s->mag0 = p, p += s->nv;
  s->mag1 = p, p += s->nv;
  for (int i = 0; i < NS; i++) s->kw[i] = p, p += MB_SIM_MAX_QUAD;
  s->wn = p, p += MB_SIM_MAX_QUAD;
  s->J = has_lie(s->m) ? p : NULL;
}

/* A callback's failure as a status < 0. */
static int failure(int rc) { return rc < 0 ? rc : MB_ENUMERIC; }

/* q̈ (and ẇ) at (t, q, v). */
static int eval(sim *s, double t, const double *q, const double *v, double *qdd, double *dw) {
  const mb_sim_system *y = s->sys;
  s->naccel++;
  int rc = y->accel(y->ctx, t, q, v, qdd);
  if (rc) return failure(rc);
  if (s->nw > 0 && (rc = y->quad(y->ctx, t, q, v, dw))) return failure(rc);
  if (!mbs_finite(qdd, (size_t)s->nv) || !mbs_finite(dw, (size_t)s->nw)) return MB_ENUMERIC;
  return MB_OK;
}

/* x ← A⁻¹ x for the n × n block of the nv × nv row-major J at (o, o), by elimination with
 * partial pivoting (on a copy). MB_ENUMERIC if a pivot is below 1e-12 of the block's largest
 * entry (Jr is singular only at rotation angles of 2π). */
static int block_solve(const double *J, int nv, int o, int n, double *x) {
  double A[36], amax = 0.0;
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      A[r * n + c] = J[(size_t)(o + r) * (size_t)nv + (size_t)(o + c)];
      amax = fmax(amax, fabs(A[r * n + c]));
    }
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int r = k + 1; r < n; r++)
      if (fabs(A[r * n + k]) > fabs(A[p * n + k])) p = r;
    if (!(fabs(A[p * n + k]) > 1e-12 * amax)) return MB_ENUMERIC;
    if (p != k) {
      for (int c = 0; c < n; c++) {
        double t = A[k * n + c];
        A[k * n + c] = A[p * n + c], A[p * n + c] = t;
      }
      double t = x[k];
      x[k] = x[p], x[p] = t;
    }
    for (int r = k + 1; r < n; r++) {
      double f = A[r * n + k] / A[k * n + k];
      for (int c = k; c < n; c++) A[r * n + c] -= f * A[k * n + c];
      x[r] -= f * x[k];
    }
  }
  for (int k = n - 1; k >= 0; k--) {
    for (int c = k + 1; c < n; c++) x[k] -= A[k * n + c] * x[c];
    x[k] /= A[k * n + k];
  }
  return MB_OK;
}

/* kt = Jr(th)⁻¹ V at q0 (th = 0 or no Lie-group joint: kt = V). */
static int tangent_rate(sim *s, const double *q0, const double *th, const double *V, double *kt) {
  const mb_model *m = s->m;
  memcpy(kt, V, sizeof *kt * (size_t)s->nv);
  if (!s->J) return MB_OK;
  int rc = mb_integrate_jacobians(m, q0, th, 1.0, NULL, s->J);
  if (rc) return rc;
  for (int i = 1; i <= m->nb; i++) {
    mb_joint_type t = m->jtype[i];
    int n = t == MB_JOINT_FLOATING ? 6 : (t == MB_JOINT_SPHERICAL || t == MB_JOINT_PLANAR) ? 3 : 0;
    if (n && (rc = block_solve(s->J, s->nv, m->iv[i], n, kt + m->iv[i]))) return rc;
  }
  return MB_OK;
}

/* The magnitude of every position direction at q (mb.h: the error's scale). */
static void pos_mag(const mb_model *m, const double *q, double *mag) {
  for (int i = 1; i <= m->nb; i++) {
    const double *qi = q + m->iq[i];
    double *g = mag + m->iv[i];
    mb_joint_type t = m->jtype[i];
    int nq = mb_joint_nq(t), nv = mb_joint_nv(t);
    if (t == MB_JOINT_SPHERICAL) {
      g[0] = g[1] = g[2] = 1.0;
    } else if (t == MB_JOINT_FLOATING) {
      g[0] = g[1] = g[2] = sqrt(qi[0] * qi[0] + qi[1] * qi[1] + qi[2] * qi[2]);
      g[3] = g[4] = g[5] = 1.0;
    } else if (t == MB_JOINT_PLANAR) {
      g[0] = g[1] = hypot(qi[0], qi[1]);
      g[2] = fabs(qi[2]);
    } else {
      for (int k = 0; k < nq; k++) g[k] = fabs(qi[k]);
    }
    for (int k = 0; k < mb_body_nm(m, i); k++) g[nv + k] = fabs(qi[nq + k]);
  }
}

/* The RMS norm of (dth, dv) scaled by atol + rtol·max(a, b) (a, b: mag0, mag1 and |v0|, |v1|). */
static double rms_scaled(const sim *s, const mb_sim_options *o, const double *dth, const double *dv,
                         const double *v0, const double *v1) {
  double sum = 0.0;
  for (int k = 0; k < s->nv; k++) {
    double sp = o->atol + o->rtol * fmax(s->mag0[k], s->mag1[k]);
    double sv = o->atol + o->rtol * fmax(fabs(v0[k]), fabs(v1[k]));
    sum += (dth[k] / sp) * (dth[k] / sp) + (dv[k] / sv) * (dv[k] / sv);
  }
  return s->nv > 0 ? sqrt(sum / (2.0 * s->nv)) : 0.0;
}

/* Stages 2..7 of a step of h from (t, q, v; kv[0], kt[0], kw[0] at its start), the end state in
 * qn, vn (and wn from w) and the error estimate in *err. MB_OK or a failure status. */
static int dp_step(sim *s, const mb_sim_options *o, double t, double h, const double *q,
                   const double *v, const double *w, double *err) {
  int nv = s->nv, rc;
  for (int i = 1; i < NS; i++) {
    double *V = i == NS - 1 ? s->vn : s->vs;
    for (int k = 0; k < nv; k++) {
      double a = 0.0, b = 0.0;
      for (int j = 0; j < i; j++) a += DP_A[i][j] * s->kt[j][k], b += DP_A[i][j] * s->kv[j][k];
      s->th[k] = h * a, V[k] = v[k] + h * b;
    }
    double *qi = i == NS - 1 ? s->qn : s->qs;
    if ((rc = mb_integrate(s->m, q, s->th, 1.0, qi))) return rc;
    if ((rc = eval(s, t + DP_C[i] * h, qi, V, s->kv[i], s->kw[i]))) return rc;
    if ((rc = tangent_rate(s, q, s->th, V, s->kt[i]))) return rc;
  }
  for (int k = 0; k < s->nw; k++) {
    double a = 0.0;
    for (int j = 0; j < NS - 1; j++) a += DP_A[NS - 1][j] * s->kw[j][k];
    s->wn[k] = w[k] + h * a;
  }
  /* the error vectors, in th (positions) and vs (velocities) */
  for (int k = 0; k < nv; k++) {
    double a = 0.0, b = 0.0;
    for (int j = 0; j < NS; j++) a += DP_E[j] * s->kt[j][k], b += DP_E[j] * s->kv[j][k];
    s->th[k] = h * a, s->vs[k] = h * b;
  }
  pos_mag(s->m, s->qn, s->mag1);
  *err = rms_scaled(s, o, s->th, s->vs, v, s->vn);
  return isfinite(*err) ? MB_OK : MB_ENUMERIC;
}

/* Hairer, Nørsett & Wanner's starting step (§II.4, "Starting Step Size"), for order 5: from the
 * norms of y0, f0 and of the change of f over an explicit Euler step (one accel call; should it
 * fail, its first guess is kept). Uses kv[1], kw[1], qs, vs, mag1. */
static double start_step(sim *s, const mb_sim_options *o, double t, const double *q,
                         const double *v, double hmax) {
  int nv = s->nv;
  memcpy(s->mag1, s->mag0, sizeof *s->mag1 * (size_t)nv);
  double d0 = rms_scaled(s, o, s->mag0, v, v, v);
  double d1 = rms_scaled(s, o, v, s->kv[0], v, v);
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  h0 = fmin(h0, hmax);
  for (int k = 0; k < nv; k++) s->vs[k] = v[k] + h0 * s->kv[0][k];
  if (mb_integrate(s->m, q, v, h0, s->qs) || eval(s, t + h0, s->qs, s->vs, s->kv[1], s->kw[1]))
    return h0;
  for (int k = 0; k < nv; k++) s->th[k] = s->vs[k] - v[k], s->kt[1][k] = s->kv[1][k] - s->kv[0][k];
  double d2 = rms_scaled(s, o, s->th, s->kt[1], v, v) / h0, dm = fmax(d1, d2);
  double h1 = dm <= 1e-15 ? fmax(1e-6, h0 * 1e-3) : pow(0.01 / dm, 0.2);
  return fmin(100.0 * h0, h1);
}

/* The first stage at (t, q, v): q̈ and ẇ by a call (fresh), Θ̇ = v. */
static int first_stage(sim *s, double t, const double *q, const double *v) {
  memcpy(s->kt[0], v, sizeof *v * (size_t)s->nv);
  pos_mag(s->m, q, s->mag0);
  return eval(s, t, q, v, s->kv[0], s->kw[0]);
}

/* The arguments' checks (mb.h: MB_EINVAL). */
static int check(const mb_model *m, const mb_sim_system *y, const mb_sim_options *o, double t0,
                 double tend, const double *q, const double *v, const double *w,
                 const void *scratch) {
  if (!m || !y || !y->accel || !o || !q || !v || !scratch) return MB_EINVAL;
  if ((uintptr_t)scratch % offsetof(struct align_probe, d)) return MB_EINVAL;
  if (y->nw < 0 || y->nw > MB_SIM_MAX_QUAD || (y->nw > 0 && (!y->quad || !w))) return MB_EINVAL;
  const double x[] = {o->rtol, o->atol, o->h0, o->hmin, o->hmax};
  for (int k = 0; k < 5; k++)
    if (!(isfinite(x[k]) && x[k] >= 0.0)) return MB_EINVAL;
  if (!(o->rtol > 0.0 || o->atol > 0.0) || (o->hmax > 0.0 && o->hmin > o->hmax)) return MB_EINVAL;
  if (!isfinite(t0) || !isfinite(tend) || tend < t0 || o->max_steps < 0) return MB_EINVAL;
  return MB_OK;
}

/* After an accepted step ending at t: the state into q, v, w, then the projection and the event.
 * MB_OK, MB_SIM_STOP or a status < 0. */
static int accept(sim *s, double t, double *q, double *v, double *w) {
  const mb_sim_system *y = s->sys;
  memcpy(q, s->qn, sizeof *q * (size_t)s->nq);
  memcpy(v, s->vn, sizeof *v * (size_t)s->nv);
  memcpy(w, s->wn, sizeof *w * (size_t)s->nw);
  int rc;
  if (y->project && (rc = y->project(y->ctx, t, q, v))) return failure(rc);
  /* FSAL: the last stage is the next step's first */
  memcpy(s->kv[0], s->kv[NS - 1], sizeof *v * (size_t)s->nv);
  memcpy(s->kw[0], s->kw[NS - 1], sizeof *w * (size_t)s->nw);
  memcpy(s->kt[0], v, sizeof *v * (size_t)s->nv);
  pos_mag(s->m, q, s->mag0);
  if (!y->event) return MB_OK;
  rc = y->event(y->ctx, t, q, v);
  if (rc == MB_SIM_RESET) return first_stage(s, t, q, v);
  if (rc == MB_OK || rc == MB_SIM_STOP || rc < 0) return rc;
  return MB_EINVAL;
}

/* The step size control of HNW §II.4 after a step of h with error err. */
static double next_h(double h, double err, int after_reject) {
  double fmx = after_reject ? 1.0 : FAC_MAX;
  double fac = err > 0.0 ? FAC_SAFE * pow(err, -0.2) : fmx;
  return h * fmin(fmx, fmax(FAC_MIN, fac));
}

int mb_simulate(const mb_model *m, const mb_sim_system *sys, const mb_sim_options *opt, double t0,
                double tend, double *q, double *v, double *w, void *scratch, mb_sim_stats *stats) {
  static const mb_sim_options defaults = {1e-6, 1e-9, 0.0, 0.0, 0.0, 0};
  mb_sim_options o = opt ? *opt : defaults;
  double wdummy[1];
  int rc = check(m, sys, &o, t0, tend, q, v, w, scratch);
  if (rc) return rc;
  if (!w) w = wdummy;
  sim s;
  memset(&s, 0, sizeof s);
  s.m = m, s.sys = sys, s.nq = m->nq, s.nv = m->nv, s.nw = sys->nw;
  sim_layout(&s, scratch);
  mb_sim_stats st = {0, 0, 0, 0, t0, 0.0, 0.0};
  double t = t0, hmax = o.hmax > 0.0 ? o.hmax : tend - t0, h = 0.0;
  int after_reject = 0;
  if (t < tend && !(rc = first_stage(&s, t, q, v))) {
    int fixed = o.hmin >= hmax; /* fixed steps: no starting step to choose */
    h = o.h0 > 0.0 || fixed ? fmax(o.h0, hmax * fixed) : start_step(&s, &o, t, q, v, hmax);
    h = fmax(o.hmin, fmin(h, hmax));
  }
  while (!rc && t < tend) {
    if (o.max_steps > 0 && st.accepted >= o.max_steps) {
      rc = MB_SIM_MAXSTEPS;
      break;
    }
    double hh = h, err = 0.0, hfloor = 16.0 * DBL_EPSILON * fmax(fabs(t), fabs(tend));
    int last = t + STRETCH * hh >= tend;
    if (last) hh = tend - t;
    rc = dp_step(&s, &o, t, hh, q, v, w, &err);
    if (rc) { /* a failed stage: half the step, unless that is too short */
      st.rejected++, after_reject = 1;
      if (0.5 * hh < fmax(o.hmin, hfloor)) break;
      h = 0.5 * hh, rc = MB_OK;
      continue;
    }
    if (err <= 1.0 || hh <= o.hmin) {
      st.accepted++, st.forced += err > 1.0;
      t = last ? tend : t + hh;
      st.h = hh;
      h = fmax(o.hmin, fmin(next_h(hh, err, after_reject), hmax));
      after_reject = 0;
      rc = accept(&s, t, q, v, w);
    } else {
      st.rejected++, after_reject = 1;
      h = fmax(o.hmin, next_h(hh, err, 1));
      if (h < hfloor) rc = MB_ENUMERIC;
    }
  }
  st.t = t, st.h_next = h, st.naccel = s.naccel;
  if (stats) *stats = st;
  return rc;
}
