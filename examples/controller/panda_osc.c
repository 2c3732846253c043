/* panda_osc.c — operational-space control of the Franka Panda's tool centre point with the
 * functions mbdc generates from examples/urdf/panda.urdf (generated/urdf/panda), after Khatib,
 * "A unified approach for motion and force control of robot manipulators: the operational space
 * formulation", IEEE J. Robotics and Automation 3(1), 1987.
 *
 * From q0 = (0, -0.785, 0, -2.356, 0, 1.571, 0.785; fingers 0.02 m) at rest, the TCP frame
 * (PANDA_FRAME_panda_hand_tcp) tracks a horizontal circle, radius r = 0.1 m, period T = 2 s,
 * centred at its initial position p0, at its initial orientation R0, for 4 s. The TCP starts at
 * the centre: the radius is eased in over the first 0.5 s (a quintic, see circle()), so the
 * torques stay within the Panda's limits (a step onto the circle asks 135 N m of joint 2, whose
 * limit is 87). Every 1 ms (1 kHz, the torque held over the period), with Kp = 400 1/s² and
 * Kd = 40 1/s (ω_n = 20 rad/s, critically damped):
 *   p_d(t) = p0 + ρ(t) (cos wt, sin wt, 0),  w = 2 pi / T,  R_d = R0 (ω_d = 0, ω̇_d = 0);
 *   e  = [e_o; p_d − p],  e_o = log(R_d Rᵀ) (the rotation vector of R_d Rᵀ, world axes);
 *   ė  = [−ω; ṗ_d − ṗ],   [ω; ṗ] = J v  (J: 6 x 9, world axes, rows [ω; v],
 *        panda_frame_jacobian_world; ė_o = −ω is the derivative of e_o to first order in e_o);
 *   Λ  = (J M⁻¹ Jᵀ)⁻¹  (M⁻¹: panda_minv; J M⁻¹ Jᵀ by a 6 x 6 Cholesky factorization),
 *   F  = Λ (ẍ_d + Kd ė + Kp e − J̇ v),  ẍ_d = [0; p̈_d]  (J̇ v: panda_frame_acceleration_bias),
 *   τ  = Jᵀ F + (I − Jᵀ J̄ᵀ) τ0 + h,  J̄ = M⁻¹ Jᵀ Λ (dynamically consistent inverse),
 *        h = C v + g (panda_nle), τ0 = diag(M) (Kpn (q0 − q) − Kdn v) a posture PD (M: panda_crba)
 *        that keeps the elbow and holds the fingers (the TCP Jacobian has no finger columns).
 * In closed loop M q̈ + h = τ gives ẍ = J q̈ + J̇ v = ẍ_d + Kd ė + Kp e: J M⁻¹ (I − Jᵀ J̄ᵀ) = 0.
 * The plant is panda_aba, integrated by classical RK4 with one step per control period (the
 * Panda's joints are revolute and prismatic: q̇ = v, no manifold).
 *
 *   panda_osc [--check] [CSV]
 * CSV: every 10 ms, t, TCP x y z, desired x y z (m), |position error| (m), |orientation error|
 * (rad), the arm's torques tau1..tau7 (N m). --check: exit 1 unless, for t >= 0.5 s, the position
 * and orientation errors stay below ERR_P_MAX and ERR_O_MAX, the energy balance
 * E(t) − E(0) = ∫ τ·v dt (E = T + V, panda_energy; the integral by the trapezoid rule over each
 * period) holds to ENERGY_TOL at every step (and to HELD_TOL with the exact work of the held
 * torque), and the fingers stay within FINGER_MAX of 0.02 m. One summary line either way.
 * Build and run (from the source directory; the generated code alone, no runtime):
 *   gcc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -Igenerated/urdf/panda \
 *       examples/controller/panda_osc.c generated/urdf/panda/panda_dynamics.c -lm -o panda_osc
 *   ./panda_osc --check /tmp/panda.csv
 *   gnuplot -e "csv='/tmp/panda.csv'" docs/controller_panda.gp   # docs/controller_panda.png */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "panda_dynamics.h"

#define NQ PANDA_NQ
#define NV PANDA_NV
#define NF PANDA_NF
#define NARM 7 /* the arm's joints; 7, 8 are the fingers */
#define TCP PANDA_FRAME_panda_hand_tcp
#define DT 1e-3
#define STEPS 4000
#define LOG_EVERY 10
#define T_SETTLE 0.5
#define T_RAMP 0.5 /* the radius eased in from 0 */
#define PI 3.14159265358979323846
#define RADIUS 0.1
#define PERIOD 2.0
#define KP 400.0 /* task stiffness, 1/s² (ω_n = 20 rad/s) */
#define KD 40.0  /* task damping, 1/s (2 ω_n: critically damped) */
/* The --check bounds, measured (gcc 12 -O2, x86-64) and set with margin. For t >= 0.5 s:
 * max |p_d − p| = 1.84e-5 m, max |e_o| = 4.84e-5 rad — the zero-order hold's error: the torque
 * is right at each sample and stale by up to 1 ms after it; both halve with DT (5e-4 s:
 * 9.1e-6 m, 2.3e-5 rad). Over the 4 s: max |E − E(0) − W| = 7.93e-6 J, the trapezoid rule's
 * own O(DT²) error (a quarter of it at DT/2); with the exact work of the held torque,
 * Wh = Σ τ_k·(q_k+1 − q_k), 2.0e-12 J: RK4's error at rounding level (E ~ 50 J). Fingers:
 * within 0.99 mm of 0.02 m (at t = 0.46 s, the end of the ramp). */
#define ERR_P_MAX 5e-5
#define ERR_O_MAX 1e-4
#define ENERGY_TOL 2e-5
#define HELD_TOL 1e-10
#define FINGER_MAX 2e-3

static const double q_start[NQ] = {0, -0.785, 0, -2.356, 0, 1.571, 0.785, 0.02, 0.02};
/* The posture PD, 1/s² and 1/s, critically damped: the arm at ω_n = 10 rad/s, the fingers
 * (15 g each, shaken by the hand's ~1 m/s²) at ω_n = 50 rad/s. */
static const double kpn[NV] = {100, 100, 100, 100, 100, 100, 100, 2500, 2500};
static const double kdn[NV] = {20, 20, 20, 20, 20, 20, 20, 100, 100};

/* What the controller keeps: the circle's centre and the orientation to hold, the posture. */
typedef struct {
  double p0[3], R0[9], q0[NQ];
} task;

/* What one control step reports: TCP and desired positions, error norms. */
typedef struct {
  double p[3], pd[3], ep, eo;
} sample;

/* y = A x, A n x m row-major; y = Aᵀ x with trans. */
static void matvec(int n, int m, const double *A, const double *x, double *y, int trans) {
  for (int i = 0; i < (trans ? m : n); i++) y[i] = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      if (trans)
        y[j] += A[i * m + j] * x[i];
      else
        y[i] += A[i * m + j] * x[j];
    }
}

/* A = L Lᵀ, A 6 x 6 symmetric positive definite (row-major); L lower triangular. Returns -1
 * if a pivot is not positive (J has lost rank: a singular posture). */
static int chol6(const double *A, double L[36]) {
  memset(L, 0, 36 * sizeof *L);
  for (int j = 0; j < 6; j++) {
    double d = A[j * 6 + j];
    for (int k = 0; k < j; k++) d -= L[j * 6 + k] * L[j * 6 + k];
    if (!(d > 1e-12 * A[j * 6 + j])) return -1;
    L[j * 6 + j] = sqrt(d);
    for (int i = j + 1; i < 6; i++) {
      double s = A[i * 6 + j];
      for (int k = 0; k < j; k++) s -= L[i * 6 + k] * L[j * 6 + k];
      L[i * 6 + j] = s / L[j * 6 + j];
    }
  }
  return 0;
}

/* x = (L Lᵀ)⁻¹ b: forward substitution L y = b, then back substitution Lᵀ x = y. */
static void chol6_solve(const double L[36], const double b[6], double x[6]) {
  double y[6];
  for (int i = 0; i < 6; i++) {
    double s = b[i];
    for (int k = 0; k < i; k++) s -= L[i * 6 + k] * y[k];
    y[i] = s / L[i * 6 + i];
  }
  for (int i = 5; i >= 0; i--) {
    double s = y[i];
    for (int k = i + 1; k < 6; k++) s -= L[k * 6 + i] * x[k];
    x[i] = s / L[i * 6 + i];
  }
}

/* The rotation vector θ u of a rotation matrix E (row-major): sin θ u = vee(E − Eᵀ)/2,
 * cos θ = (tr E − 1)/2, θ = atan2(|sin θ u|, cos θ) — accurate at small θ, valid for θ < π
 * (at θ = π the axis is not determined by the skew part; the errors here are far smaller). */
static void rotation_vector(const double E[9], double w[3]) {
  double s[3] = {(E[7] - E[5]) / 2, (E[2] - E[6]) / 2, (E[3] - E[1]) / 2};
  double sn = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  double th = atan2(sn, (E[0] + E[4] + E[8] - 1) / 2);
  double f = sn > 1e-300 ? th / sn : 1; /* θ / sin θ → 1 */
  for (int k = 0; k < 3; k++) w[k] = f * s[k];
}

/* The circle, its radius eased in over the first T_RAMP seconds (the TCP starts at its
 * centre): p_d = p0 + ρ(t) u(t), u = (cos wt, sin wt, 0), ρ = r σ(t / T_RAMP) with the quintic
 * σ(s) = 10 s³ − 15 s⁴ + 6 s⁵ (σ, σ', σ'' zero at 0; 1, 0, 0 at 1), so that
 *   ṗ_d = ρ̇ u + ρ w u⊥,  p̈_d = (ρ̈ − ρ w²) u + 2 ρ̇ w u⊥,  u⊥ = (−sin wt, cos wt, 0). */
static void circle(const double p0[3], double t, double pd[3], double vd[3], double ad[3]) {
  double w = 2 * PI / PERIOD, c = cos(w * t), s = sin(w * t), u = t < T_RAMP ? t / T_RAMP : 1;
  double rho = RADIUS * u * u * u * (10 - 15 * u + 6 * u * u);
  double drho = t < T_RAMP ? RADIUS * 30 * u * u * (1 - u) * (1 - u) / T_RAMP : 0;
  double ddrho = t < T_RAMP ? RADIUS * 60 * u * (1 - u) * (1 - 2 * u) / (T_RAMP * T_RAMP) : 0;
  pd[0] = p0[0] + rho * c, pd[1] = p0[1] + rho * s, pd[2] = p0[2];
  vd[0] = drho * c - rho * w * s, vd[1] = drho * s + rho * w * c, vd[2] = 0;
  ad[0] = (ddrho - rho * w * w) * c - 2 * drho * w * s;
  ad[1] = (ddrho - rho * w * w) * s + 2 * drho * w * c, ad[2] = 0;
}

/* The commanded task acceleration a_x = ẍ_d + Kd ė + Kp e − J̇ v (6: [angular; linear]) from
 * the TCP pose, its Jacobian J (6 x NV) and J̇ v; fills the sample's positions and errors. */
static void task_acceleration(const task *tk, double t, const double *pose, const double *J,
                              const double *jdv, const double *v, double ax[6], sample *s) {
  const double *R = pose, *p = pose + 9;
  double xd[6], vd[3], ad[3], E[9], e[6], edot[6];
  circle(tk->p0, t, s->pd, vd, ad);
  matvec(6, NV, J, v, xd, 0); /* [ω; ṗ] = J v */
  for (int i = 0; i < 3; i++) /* E = R_d Rᵀ: the rotation from the TCP's axes to the desired */
    for (int j = 0; j < 3; j++)
      E[i * 3 + j] = tk->R0[i * 3] * R[j * 3] + tk->R0[i * 3 + 1] * R[j * 3 + 1] +
                     tk->R0[i * 3 + 2] * R[j * 3 + 2];
  rotation_vector(E, e);
  for (int k = 0; k < 3; k++) {
    e[3 + k] = s->pd[k] - p[k];
    edot[k] = -xd[k]; /* ω_d − ω, ω_d = 0 */
    edot[3 + k] = vd[k] - xd[3 + k];
    s->p[k] = p[k];
  }
  for (int k = 0; k < 6; k++) ax[k] = (k < 3 ? 0 : ad[k - 3]) + KD * edot[k] + KP * e[k] - jdv[k];
  s->eo = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
  s->ep = sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5]);
}

/* The operational-space torques τ = Jᵀ Λ a_x + (I − Jᵀ Λ J M⁻¹) τ0 + h at (t, q, v).
 * Λ is never formed: Λ y = (J M⁻¹ Jᵀ)⁻¹ y is a Cholesky solve. Returns -1 if singular. */
static int osc_torque(const task *tk, double t, const double *q, const double *v, double *tau,
                      sample *s) {
  double pose[12 * NF], Jall[6 * NV * NF], bias[6 * NF], Minv[NV * NV], M[NV * NV], h[NV];
  double MiJt[NV * 6], A[36], L[36], ax[6], F[6], a0[NV], tau0[NV], y[NV], z[6], w[6];
  panda_frame_pose(q, pose);
  panda_frame_jacobian_world(q, Jall);
  panda_frame_acceleration_bias(q, v, bias);
  if (panda_minv(q, Minv) != 0) return -1;
  panda_crba(q, M);
  panda_nle(q, v, h);
  const double *J = Jall + 6 * NV * TCP;
  task_acceleration(tk, t, pose + 12 * TCP, J, bias + 6 * TCP, v, ax, s);
  /* A = J M⁻¹ Jᵀ = Λ⁻¹ (6 x 6), MiJt = M⁻¹ Jᵀ (NV x 6) */
  for (int i = 0; i < NV; i++)
    for (int k = 0; k < 6; k++) {
      MiJt[i * 6 + k] = 0;
      for (int j = 0; j < NV; j++) MiJt[i * 6 + k] += Minv[i * NV + j] * J[k * NV + j];
    }
  for (int k = 0; k < 6; k++)
    for (int l = 0; l < 6; l++) {
      A[k * 6 + l] = 0;
      for (int j = 0; j < NV; j++) A[k * 6 + l] += J[k * NV + j] * MiJt[j * 6 + l];
    }
  if (chol6(A, L) != 0) return -1;
  chol6_solve(L, ax, F); /* F = Λ a_x */
  /* the posture: τ0_i = M_ii a0_i, a0 = Kpn (q0 − q) − Kdn v; its part J̄ᵀ τ0 = Λ J M⁻¹ τ0
   * removed. Not the full M a0: its finger rows carry M_fa a0_arm, the push of the arm's
   * posture acceleration, which the projection takes out of the arm's motion but not out of
   * the fingers' torques: they would slide by 5.5 mm (0.11 m with the arm's gains). */
  for (int i = 0; i < NV; i++)
    a0[i] = kpn[i] * (tk->q0[i] - q[i]) - kdn[i] * v[i], tau0[i] = M[i * NV + i] * a0[i];
  matvec(NV, 6, MiJt, tau0, w, 1); /* J M⁻¹ τ0 = (M⁻¹ Jᵀ)ᵀ τ0 (M⁻¹ symmetric) */
  chol6_solve(L, w, z);            /* z = J̄ᵀ τ0 */
  for (int k = 0; k < 6; k++) F[k] -= z[k];
  matvec(6, NV, J, F, y, 1); /* Jᵀ (F − J̄ᵀ τ0) */
  for (int i = 0; i < NV; i++) tau[i] = y[i] + tau0[i] + h[i];
  return 0;
}

/* One RK4 step of the plant q̇ = v, v̇ = aba(q, v, τ) with τ held over the step. */
static int rk4_step(double *q, double *v, const double *tau) {
  static const double c[4] = {0, 0.5, 0.5, 1}, wt[4] = {1, 2, 2, 1};
  double qs[NQ], vs[4][NV], a[4][NV];
  for (int s = 0; s < 4; s++) {
    for (int i = 0; i < NV; i++) {
      qs[i] = q[i] + (s ? c[s] * DT * vs[s - 1][i] : 0);
      vs[s][i] = v[i] + (s ? c[s] * DT * a[s - 1][i] : 0);
    }
    if (panda_aba(qs, vs[s], tau, a[s]) != 0) return -1;
  }
  for (int i = 0; i < NV; i++) {
    double dq = 0, dv = 0;
    for (int s = 0; s < 4; s++) dq += wt[s] * vs[s][i] / 6, dv += wt[s] * a[s][i] / 6;
    q[i] += DT * dq, v[i] += DT * dv;
  }
  return 0;
}

/* The measured values of one run. */
typedef struct {
  double ep_max, eo_max, energy_res, held_res, dE, W, tau_max, v_max, finger_max, cpu;
} result;

static void write_row(FILE *csv, double t, const sample *s, const double *tau) {
  fprintf(csv, "%.3f,%.9f,%.9f,%.9f,%.9f,%.9f,%.9f,%.6e,%.6e", t, s->p[0], s->p[1], s->p[2],
          s->pd[0], s->pd[1], s->pd[2], s->ep, s->eo);
  for (int i = 0; i < NARM; i++) fprintf(csv, ",%.6f", tau[i]);
  fprintf(csv, "\n");
}

/* The closed loop for STEPS periods from q_start at rest. The energy balance: W accumulates
 * ∫ τ·v dt over each period by the trapezoid rule, DT τ_k·(v_k + v_k+1)/2 (τ_k held); Wh the
 * same integral without quadrature error, τ_k·(q_k+1 − q_k) (exact for a held τ), so that
 * E − E(0) − Wh is RK4's error alone. */
static int simulate(FILE *csv, result *r) {
  task tk;
  double q[NQ], v[NV] = {0}, tau[NV], pose[12 * NF], e[2], E0, W = 0, Wh = 0;
  sample s;
  memcpy(q, q_start, sizeof q), memcpy(tk.q0, q_start, sizeof tk.q0);
  panda_frame_pose(q, pose);
  memcpy(tk.R0, pose + 12 * TCP, sizeof tk.R0), memcpy(tk.p0, pose + 12 * TCP + 9, sizeof tk.p0);
  panda_energy(q, v, e);
  E0 = e[0] + e[1];
  memset(r, 0, sizeof *r);
  clock_t c0 = clock();
  for (int n = 0;; n++) {
    double t = n * DT, v_old[NV], q_old[NQ], P0 = 0, P1 = 0;
    if (osc_torque(&tk, t, q, v, tau, &s) != 0)
      return fprintf(stderr, "singular at t = %g\n", t), -1;
    if (t >= T_SETTLE - 1e-9) r->ep_max = fmax(r->ep_max, s.ep), r->eo_max = fmax(r->eo_max, s.eo);
    for (int i = 0; i < NARM; i++) r->tau_max = fmax(r->tau_max, fabs(tau[i]));
    if (csv && n % LOG_EVERY == 0) write_row(csv, t, &s, tau);
    if (n == STEPS) break;
    memcpy(v_old, v, sizeof v_old), memcpy(q_old, q, sizeof q_old);
    if (rk4_step(q, v, tau) != 0) return fprintf(stderr, "aba failed at t = %g\n", t), -1;
    for (int i = 0; i < NV; i++)
      P0 += tau[i] * v_old[i], P1 += tau[i] * v[i], Wh += tau[i] * (q[i] - q_old[i]);
    W += DT * (P0 + P1) / 2;
    panda_energy(q, v, e);
    r->energy_res = fmax(r->energy_res, fabs(e[0] + e[1] - E0 - W));
    r->held_res = fmax(r->held_res, fabs(e[0] + e[1] - E0 - Wh));
    for (int i = 0; i < NARM; i++) r->v_max = fmax(r->v_max, fabs(v[i]));
    for (int i = NARM; i < NQ; i++) r->finger_max = fmax(r->finger_max, fabs(q[i] - q_start[i]));
  }
  r->cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
  r->dE = e[0] + e[1] - E0, r->W = W;
  return 0;
}

int main(int argc, char **argv) {
  int check = 0;
  const char *path = NULL;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--check") == 0)
      check = 1;
    else if (!path && argv[k][0] != '-')
      path = argv[k];
    else
      return fprintf(stderr, "usage: %s [--check] [CSV]\n", argv[0]), 2;
  }
  FILE *csv = path ? fopen(path, "w") : NULL;
  if (path && !csv) return perror(path), 2;
  if (csv) fprintf(csv, "t,x,y,z,xd,yd,zd,err_pos,err_ori,tau1,tau2,tau3,tau4,tau5,tau6,tau7\n");
  result r;
  int failed = simulate(csv, &r) != 0;
  if (csv && fclose(csv) != 0) return perror(path), 2;
  if (failed) return 1;
  int ok = r.ep_max < ERR_P_MAX && r.eo_max < ERR_O_MAX && r.energy_res < ENERGY_TOL &&
           r.held_res < HELD_TOL && r.finger_max < FINGER_MAX;
  printf("panda_osc: 4 s at 1 kHz, RK4: for t >= %.1f s max |e_p| = %.3e m (bound %.0e), "
         "max |e_o| = %.3e rad (bound %.0e); E(4) - E(0) = %.6f J, W = %.6f J, "
         "max |E - E(0) - W| = %.2e J (bound %.0e; W = sum tau.dq: %.2e J, bound %.0e); "
         "fingers within %.2e m (bound %.0e); max |tau| = %.1f N m, max |v| = %.2f rad/s; "
         "%.1f ms CPU%s\n",
         T_SETTLE, r.ep_max, ERR_P_MAX, r.eo_max, ERR_O_MAX, r.dE, r.W, r.energy_res, ENERGY_TOL,
         r.held_res, HELD_TOL, r.finger_max, FINGER_MAX, r.tau_max, r.v_max, 1e3 * r.cpu,
         check ? (ok ? ": ok" : ": FAIL") : "");
  return check && !ok ? 1 : 0;
}
