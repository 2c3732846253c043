/* solo12_balance.c — whole-body balance of the Solo12 quadruped standing on its four feet, with
 * the functions mbdc generates from examples/urdf/solo12.urdf (--floating-base --contacts
 * FL_FOOT,FR_FOOT,HL_FOOT,HR_FOOT; docs/controllers.md walks through it).
 *
 * The robot lands: it falls onto its feet at 0.3 m/s and solo_impulse gives the velocity just
 * after the inelastic impact (the feet stop; the energy lost is printed). Then, for 4 s at 1 kHz,
 * a contact-consistent inverse-dynamics controller sways the base along a circle (2 cm, 2 s)
 * while bobbing it up and down (1.5 cm, 1 s) at constant orientation:
 *   1. the base's desired acceleration from a PD law on its pose (world axes), in v-coordinates:
 *      v̇_lin = Rᵀ a_w − ω × v_lin, v̇_ang = Rᵀ α_w (the floating joint's v is in the body frame);
 *   2. the legs' accelerations that keep the feet still: Jc q̈ = −J̇c v with Jc = [Jb Jj]
 *      (world-aligned foot Jacobians, solo_frame_jacobian_world; J̇c v from
 *      solo_frame_acceleration_bias): each leg's 3 x 3 block of Jj solved for its joints;
 *   3. the contact forces f that balance the base rows of M q̈_d + h = Sᵀ τ + Jcᵀ f, the six
 *      equations Jbᵀ f = (M q̈_d + h)_base, with f the nearest to the equal share f0 = m g / 4 up
 *      (the least-squares correction f = f0 + Jb (Jbᵀ Jb)⁻¹ (b − Jbᵀ f0));
 *   4. the joint torques τ = (M q̈_d + h − Jcᵀ f)_joints (solo_crba, solo_nle).
 * The plant is solo_contact_fd (the feet held by the contact constraint), integrated by RK4 on the
 * configuration manifold (mb_integrate: the base's quaternion stays unit).
 *
 *   solo12_balance [--check] [CSV]
 * CSV: every 10 ms, t, base x y z, desired x y z, position error (m), the four feet's normal
 * forces (N), the largest tangential/normal force ratio, and E − E(0) − W (J). --check: exit 1
 * unless the base tracks (error after 0.5 s below 1 mm), the plant's q̈ and forces are the
 * controller's (contact_fd solves the same equations: 1e-9), the feet stay put (1e-9 m), every
 * foot pushes (f_z > 0), and the energy balance E(t) − E(0) = ∫ τ·v dt holds (1e-6 J: the fixed
 * feet do no work). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mb.h"
#include "solo_dynamics.h"

extern const mb_model solo_model;
#define NQ SOLO_NQ
#define NV SOLO_NV
#define NF SOLO_NF
#define NR SOLO_NCROWS
#define DT 1e-3
#define STEPS 4000
#define PI 3.14159265358979323846

static const int foot[4] = {SOLO_FRAME_FL_FOOT, SOLO_FRAME_FR_FOOT, SOLO_FRAME_HL_FOOT,
                            SOLO_FRAME_HR_FOOT};
static const int all_on[4] = {1, 1, 1, 1};

/* R (row-major, body → world) of the quaternion (x y z w). */
static void quat_to_rot(const double *e, double R[9]) {
  double x = e[0], y = e[1], z = e[2], w = e[3];
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* Solve the n x n system A x = b (row-major, destroyed) by Gaussian elimination with partial
 * pivoting; b becomes x. Returns -1 if singular. */
static int solve(int n, double *A, double *b) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(A[r * n + c]) > fabs(A[p * n + c])) p = r;
    if (A[p * n + c] == 0) return -1;
    for (int k = 0; k < n; k++) {
      double t = A[c * n + k];
      A[c * n + k] = A[p * n + k], A[p * n + k] = t;
    }
    double t = b[c];
    b[c] = b[p], b[p] = t;
    for (int r = c + 1; r < n; r++) {
      double l = A[r * n + c] / A[c * n + c];
      for (int k = c; k < n; k++) A[r * n + k] -= l * A[c * n + k];
      b[r] -= l * b[c];
    }
  }
  for (int r = n - 1; r >= 0; r--) {
    for (int k = r + 1; k < n; k++) b[r] -= A[r * n + k] * b[k];
    b[r] /= A[r * n + r];
  }
  return 0;
}

/* Jc (NR x NV, row-major): the linear rows of the feet's world-aligned Jacobians. */
static void contact_jacobian(const double *q, double *Jc) {
  double J[6 * NV * NF]; /* every frame's: 18 KB of stack */
  solo_frame_jacobian_world(q, J);
  for (int k = 0; k < 4; k++)
    for (int a = 0; a < 3; a++)
      memcpy(Jc + (3 * k + a) * NV, J + 6 * NV * foot[k] + (3 + a) * NV, NV * sizeof *Jc);
}

/* The base's desired pose at t: position and its first two derivatives (world). */
static void reference(double t, const double p0[3], double p[3], double dp[3], double ddp[3]) {
  double w1 = 2 * PI / 2.0, w2 = 2 * PI / 1.0, r = 0.02, h = 0.015;
  p[0] = p0[0] + r * sin(w1 * t), dp[0] = r * w1 * cos(w1 * t), ddp[0] = -r * w1 * w1 * sin(w1 * t);
  p[1] = p0[1] + r * (1 - cos(w1 * t)), dp[1] = r * w1 * sin(w1 * t);
  ddp[1] = r * w1 * w1 * cos(w1 * t);
  p[2] = p0[2] + h * sin(w2 * t), dp[2] = h * w2 * cos(w2 * t), ddp[2] = -h * w2 * w2 * sin(w2 * t);
}

/* The controller's state: the base's initial position and orientation (held). */
typedef struct ctrl {
  double p0[3], R0[9];
  double kp, kd; /* per unit mass and inertia: critically damped at 20 rad/s */
} ctrl;

/* Step 1: the base's desired v̇ (6: linear, angular, body frame) at (q, v, t). */
static void base_acceleration(const ctrl *c, double t, const double *q, const double *v,
                              double ab[6]) {
  double R[9], pd[3], dpd[3], ddpd[3], a[3], alpha[3], pdot[3], w[3], eR[3];
  quat_to_rot(q + 3, R);
  reference(t, c->p0, pd, dpd, ddpd);
  for (int i = 0; i < 3; i++) {
    pdot[i] = w[i] = 0;
    for (int k = 0; k < 3; k++) pdot[i] += R[3 * i + k] * v[k], w[i] += R[3 * i + k] * v[3 + k];
  }
  /* orientation error: the small rotation vector of R0 Rᵀ, vee of its skew part */
  double E[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      E[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) E[3 * i + j] += c->R0[3 * i + k] * R[3 * j + k];
    }
  eR[0] = 0.5 * (E[7] - E[5]), eR[1] = 0.5 * (E[2] - E[6]), eR[2] = 0.5 * (E[3] - E[1]);
  for (int i = 0; i < 3; i++) {
    a[i] = ddpd[i] + c->kp * (pd[i] - q[i]) + c->kd * (dpd[i] - pdot[i]);
    alpha[i] = c->kp * eR[i] - c->kd * w[i];
  }
  /* v̇_lin = Rᵀ a − ω_b × v_lin;  v̇_ang = Rᵀ α */
  const double *vl = v, *wb = v + 3;
  double cr[3] = {wb[1] * vl[2] - wb[2] * vl[1], wb[2] * vl[0] - wb[0] * vl[2],
                  wb[0] * vl[1] - wb[1] * vl[0]};
  for (int i = 0; i < 3; i++) {
    ab[i] = -cr[i], ab[3 + i] = 0;
    for (int k = 0; k < 3; k++) ab[i] += R[3 * k + i] * a[k], ab[3 + i] += R[3 * k + i] * alpha[k];
  }
}

/* Steps 1-4: τ (NV, zero on the base), the desired q̈ and the planned forces f. */
static int control(const ctrl *c, double t, const double *q, const double *v, double *tau,
                   double *qdd, double *f) {
  double Jc[NR * NV], acc[6 * NF], M[NV * NV], b[NV];
  contact_jacobian(q, Jc);
  solo_frame_acceleration_bias(q, v, acc);
  base_acceleration(c, t, q, v, qdd);
  /* step 2: per leg k, Jj_k q̈_k = −J̇v_k − Jb_k q̈_b (its three joints follow the base's six) */
  for (int k = 0; k < 4; k++) {
    double A[9], y[3];
    int col = 6 + 3 * k;
    for (int a = 0; a < 3; a++) {
      const double *row = Jc + (3 * k + a) * NV;
      y[a] = -acc[6 * foot[k] + 3 + a];
      for (int j = 0; j < 6; j++) y[a] -= row[j] * qdd[j];
      for (int j = 0; j < 3; j++) A[3 * a + j] = row[col + j];
    }
    if (solve(3, A, y)) return -1; /* a stretched leg: singular */
    for (int j = 0; j < 3; j++) qdd[col + j] = y[j];
  }
  /* b = M q̈_d + h */
  solo_crba(q, M);
  solo_nle(q, v, b);
  for (int i = 0; i < NV; i++)
    for (int j = 0; j < NV; j++) b[i] += M[i * NV + j] * qdd[j];
  /* step 3: Jbᵀ f = b_base, f = f0 + Jb y with (Jbᵀ Jb) y = b_base − Jbᵀ f0 */
  double G[36], y[6];
  for (int r = 0; r < NR; r++) f[r] = r % 3 == 2 ? SOLO_MASS * 9.81 / 4 : 0;
  for (int i = 0; i < 6; i++) {
    y[i] = b[i];
    for (int r = 0; r < NR; r++) y[i] -= Jc[r * NV + i] * f[r];
    for (int j = 0; j < 6; j++) {
      G[6 * i + j] = 0;
      for (int r = 0; r < NR; r++) G[6 * i + j] += Jc[r * NV + i] * Jc[r * NV + j];
    }
  }
  if (solve(6, G, y)) return -1;
  for (int r = 0; r < NR; r++)
    for (int j = 0; j < 6; j++) f[r] += Jc[r * NV + j] * y[j];
  /* step 4: τ_joints = (b − Jcᵀ f)_joints */
  for (int i = 0; i < NV; i++) {
    tau[i] = i < 6 ? 0 : b[i];
    for (int r = 0; r < NR && i >= 6; r++) tau[i] -= Jc[r * NV + i] * f[r];
  }
  return 0;
}

/* The standing posture: legs bent (hip flexion ±0.8 rad, knee ∓1.6 rad), the base lifted until
 * the lowest foot touches z = 0; the base's initial position and orientation kept in c. */
static void stand(double *q, ctrl *c) {
  double pose[12 * NF];
  static const double leg[4][3] = {{0, 0.8, -1.6}, {0, 0.8, -1.6}, {0, -0.8, 1.6}, {0, -0.8, 1.6}};
  memset(q, 0, NQ * sizeof *q);
  q[6] = 1; /* the quaternion's w */
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 3; j++) q[7 + 3 * k + j] = leg[k][j];
  solo_frame_pose(q, pose);
  double low = 0;
  for (int k = 0; k < 4; k++) low = fmin(low, pose[12 * foot[k] + 11]);
  q[2] = -low;
  for (int i = 0; i < 3; i++) c->p0[i] = q[i];
  quat_to_rot(q + 3, c->R0);
  c->kp = 400, c->kd = 40;
}

static double energy(const double *q, const double *v) {
  double e[2];
  solo_energy(q, v, e);
  return e[0] + e[1];
}

/* The landing: the base falls at 0.3 m/s onto the feet; v becomes the velocity after the
 * inelastic impact. Returns the largest |Jc v⁺| (m/s) and sets the energy lost. */
static double land(const double *q, double *v, double *lost) {
  double vminus[NV] = {0}, Jc[NR * NV], impulse[NR], worst = 0;
  vminus[2] = -0.3; /* the base's body frame is the world's at the start */
  if (solo_impulse(q, vminus, all_on, v, impulse)) return INFINITY;
  *lost = energy(q, vminus) - energy(q, v);
  contact_jacobian(q, Jc);
  for (int r = 0; r < NR; r++) {
    double s = 0;
    for (int j = 0; j < NV; j++) s += Jc[r * NV + j] * v[j];
    worst = fmax(worst, fabs(s));
  }
  return worst;
}

typedef struct stats {
  double err_after, qdd_gap, f_gap, fz_min, ratio_max, drift, ebal;
} stats;

/* One RK4 step of the plant under τ (held over the step); the work of τ by the same quadrature.
 * Returns the plant's first-stage q̈ and forces in qdd0 and f0. */
static int rk4(double *q, double *v, const double *tau, double *work, double *qdd0, double *f0) {
  double k[4][NV], vs[4][NV], qs[NQ], force[NR];
  static const double cs[4] = {0, 0.5, 0.5, 1}, w[4] = {1, 2, 2, 1};
  memcpy(vs[0], v, sizeof vs[0]);
  for (int s = 0; s < 4; s++) {
    if (s > 0) {
      for (int i = 0; i < NV; i++) vs[s][i] = v[i] + cs[s] * DT * k[s - 1][i];
      mb_integrate(&solo_model, q, vs[s - 1], cs[s] * DT, qs);
    } else {
      memcpy(qs, q, sizeof qs);
    }
    if (solo_contact_fd(qs, vs[s], tau, all_on, k[s], force)) return -1;
    if (s == 0) memcpy(qdd0, k[0], sizeof k[0]), memcpy(f0, force, sizeof force);
  }
  double vbar[NV], abar[NV];
  for (int i = 0; i < NV; i++) {
    vbar[i] = abar[i] = 0;
    for (int s = 0; s < 4; s++) vbar[i] += w[s] * vs[s][i] / 6, abar[i] += w[s] * k[s][i] / 6;
    *work += tau[i] * vbar[i] * DT;
  }
  mb_integrate(&solo_model, q, vbar, DT, q);
  for (int i = 0; i < NV; i++) v[i] += DT * abar[i];
  return 0;
}

/* The feet's world positions (12). */
static void feet(const double *q, double *x) {
  double pose[12 * NF];
  solo_frame_pose(q, pose);
  for (int k = 0; k < 4; k++)
    for (int a = 0; a < 3; a++) x[3 * k + a] = pose[12 * foot[k] + 9 + a];
}

/* The forces' statistics: the smallest normal force, the largest tangential/normal ratio. */
static void force_stats(const double *f, stats *st) {
  for (int k = 0; k < 4; k++) {
    double fz = f[3 * k + 2], ft = hypot(f[3 * k], f[3 * k + 1]);
    st->fz_min = fmin(st->fz_min, fz);
    if (fz > 0) st->ratio_max = fmax(st->ratio_max, ft / fz);
  }
}

static int simulate(double *q, double *v, const ctrl *c, FILE *csv, stats *st) {
  double x0[12], x[12], tau[NV], qdd[NV], f[NR], qdd0[NV], f0[NR], work = 0, E0 = energy(q, v);
  feet(q, x0);
  for (int n = 0; n <= STEPS; n++) {
    double t = n * DT, pd[3], dpd[3], ddpd[3];
    reference(t, c->p0, pd, dpd, ddpd);
    double err = sqrt(pow(q[0] - pd[0], 2) + pow(q[1] - pd[1], 2) + pow(q[2] - pd[2], 2));
    if (t >= 0.5) st->err_after = fmax(st->err_after, err);
    double ebal = energy(q, v) - E0 - work;
    st->ebal = fmax(st->ebal, fabs(ebal));
    if (n == STEPS) break;
    if (control(c, t, q, v, tau, qdd, f)) return -1;
    if (rk4(q, v, tau, &work, qdd0, f0)) return -1;
    for (int i = 0; i < NV; i++) st->qdd_gap = fmax(st->qdd_gap, fabs(qdd0[i] - qdd[i]));
    for (int r = 0; r < NR; r++) st->f_gap = fmax(st->f_gap, fabs(f0[r] - f[r]));
    force_stats(f0, st);
    if (csv && n % 10 == 0) {
      double r0 = 0;
      for (int k = 0; k < 4; k++)
        r0 = fmax(r0, hypot(f0[3 * k], f0[3 * k + 1]) / f0[3 * k + 2]);
      fprintf(csv, "%.3f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.3e,%.4f,%.4f,%.4f,%.4f,%.4f,%.3e\n", t,
              q[0], q[1], q[2], pd[0], pd[1], pd[2], err, f0[2], f0[5], f0[8], f0[11], r0, ebal);
    }
  }
  feet(q, x);
  for (int k = 0; k < 12; k++) st->drift = fmax(st->drift, fabs(x[k] - x0[k]));
  return 0;
}

int main(int argc, char **argv) {
  int check = 0;
  const char *path = NULL;
  for (int k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--check")) check = 1;
    else path = argv[k];
  }
  double q[NQ], v[NV], lost = 0;
  ctrl c;
  stand(q, &c);
  double landed = land(q, v, &lost);
  FILE *csv = path ? fopen(path, "w") : NULL;
  if (path && !csv) return fprintf(stderr, "solo12_balance: cannot write %s\n", path), 2;
  if (csv) fprintf(csv, "t,x,y,z,xd,yd,zd,err,fz_FL,fz_FR,fz_HL,fz_HR,ft_over_fz,energy_balance\n");
  stats st = {0, 0, 0, INFINITY, 0, 0, 0};
  int rc = simulate(q, v, &c, csv, &st);
  if (csv) fclose(csv);
  if (rc) return fprintf(stderr, "solo12_balance: a solve failed\n"), 1;
  printf("solo12_balance: landing at 0.3 m/s: %.4f J lost, |Jc v+| %.1e m/s; 4 s at 1 kHz: base "
         "error after 0.5 s %.2e m, plant vs plan: qdd %.1e, force %.1e N; feet moved %.1e m; "
         "min f_z %.3f N, max |f_t|/f_z %.3f; |E - E0 - W| %.1e J\n",
         lost, landed, st.err_after, st.qdd_gap, st.f_gap, st.drift, st.fz_min, st.ratio_max,
         st.ebal);
  if (!check) return 0;
  int ok = landed < 1e-12 && lost > 0 && st.err_after < 1e-3 && st.qdd_gap < 1e-9 &&
           st.f_gap < 1e-9 && st.drift < 1e-9 && st.fz_min > 0 && st.ebal < 1e-6;
  printf("solo12_balance: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
