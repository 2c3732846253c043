/* flexible_arm_sim.c — the two-link horizontal arm of examples/flexible_arm.mbd (rigid 0.5 m upper
 * arm, flexible 1 m aluminium forearm with 3 assumed modes: Jain & Rodriguez, "Recursive Dynamics
 * for Flexible Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990) and the
 * same arm with a rigid forearm (examples/flexible_arm_rigid.mbd, the beam with `modes 0`),
 * swung by the same joint torques for 5 s from rest with the generated forward dynamics
 * (flexible_arm_aba, flexible_arm_rigid_aba) and the runtime's mb_simulate (runtime/simulate.c;
 * docs/analysis.md "Integration with error control": Dormand & Prince's 5(4) pair, the step
 * chosen for rtol = atol = TOL).
 *
 * The torque profile: the open-loop torques that slew the RIGID arm rest to rest, the shoulder
 * through 90° in T_s = 1 s with the elbow held straight, along a bang-bang reference whose
 * switches are smoothed: the shoulder's reference acceleration is α g(t), g rising from 0 to 1 by
 * a half cosine over T_r = 20 ms, 1 until T_s/2 − T_r, back to 0 at T_s/2 by a half cosine, then
 * the same negated over [T_s/2, T_s] (g is C¹), α = 2π/(T_s (T_s − 2 T_r)) = 6.545 rad/s² so that
 * the slew is π/2; the torques are the rigid arm's inverse dynamics along it,
 *   τ(t) = flexible_arm_rigid_rnea(θ_r, θ̇_r, θ̈_r) = M_rigid(0) (α g(t), 0)  for 0 ≤ t ≤ T_s,
 *   τ = 0 after,
 * (the elbow straight and still: no velocity terms; shoulder ±16.14 N m, elbow ±8.25 N m). Both
 * arms get this τ on their joints (none on the modes); the joints turn about the vertical, so
 * gravity does no work. The rigid arm follows the reference exactly and stops at (90°, 0). The
 * flexible arm lags, and after T_s, with no torque, it vibrates (the beam preset has no damping)
 * and drifts: its angular momentum is zero (∫τ_shoulder dt = 0), but it leaves the slew with an
 * elbow rate that nothing stops. The smoothed bang-bang rather than a smooth cycloidal slew:
 * a cycloid over 1 s leaves 0.09 mm of residual vibration, too little to see next to the 10 mm
 * of the slew; the 20 ms ramps excite the first mode (period 29 ms with the joints free) and
 * hardly the stiffer two.
 *
 * The integration. The profile is piecewise, its joints (at 0.02, 0.48, 0.5, 0.52, 0.98 and
 * 1 s) only C¹: the run is integrated in 250 segments of 20 ms, mb_simulate from each end to the
 * next (starting with the step the last one proposed), so that every joint is a segment's end,
 * no step straddles one and the stages of a segment evaluate the piece containing its midpoint
 * (it costs the flexible arm 0.4 % of its calls: 213707 at TOL = 1e-9, 212962 with the free
 * 4 s in one call); the segment ends are where the runs at TOL and TOL/10 are compared. The
 * work W and the shoulder's impulse J (below) are quadrature states of mb_simulate, integrated
 * by the stages of the motion.
 *
 * The step: with the joints free (no torque) the stiffest frequency is not mode 3's clamped
 * 725 rad/s, (7.8548)² √(EI/(ρA L⁴)), but 2063 rad/s (the eigenvalues of K x = ω² M̃ x below;
 * the joints add 2 zero frequencies and raise the 3 modal ones to 213.7, 626 and 2063 rad/s at
 * q = 0). That mode is hardly excited, but the error control has to resolve it to atol, and the
 * pair's stability interval on the imaginary axis is short: its stability function has
 * |R(iy)| ≤ 1 only for |y| ≤ 0.997 (RK4's up to 2.83). At TOL = 1e-9 the flexible arm takes
 * 31884 steps (3692 rejected), 0.157 ms on average (ω_max h = 0.32), 0.454 ms at most (0.94):
 * 213707 aba calls, where the fixed-step RK4 used before (dt = 5e-5 s, ω_max dt = 0.10) made
 * 400000 for less accurate angles (TOL/10 changes them by 2.2e-9 rad; halving RK4's dt changed
 * them by 8.4e-9), in 0.57 of the processor time. The rigid arm takes 286 steps (2015 calls;
 * 20 ms at most: the segments).
 *
 *   flexible_arm_sim [--rigid] [--tol TOL] [--every N]
 *       CSV on stdout, a row every N accepted steps (default 1; TOL default 1e-9) and at 5 s: t,
 *       shoulder, elbow (rad), tip (the forearm tip's deflection Σ η_k, m: each mode is
 *       normalized to a unit tip deflection), eta1..eta3 (m; 0 for the rigid arm), tau_shoulder,
 *       tau_elbow (N m), the kinetic energy T = ½ vᵀ M v (M = crba), the elastic energy
 *       U = ½ ηᵀ K η, the work of the torques and of the modal load W = ∫ (τᵀ v − η̇ᵀ b⁰) dt (b⁰
 *       the velocity-product load of the undeformed forearm on its modes) and the balance
 *       T + U − W (J; 0 for the exact solution, which starts at rest). On stderr: a summary (steps,
 *       aba calls), with the residual vibration's frequency against the linearized arm's.
 *   flexible_arm_sim --check [--tol TOL]
 *       both arms at TOL and TOL/10; exit 0 if (tolerances in check(); measured at TOL = 1e-9):
 *       - every run finite, the energy balance max |T + U − W| ≤ 1e-9 of the run's largest T
 *         (measured 7.8e-11 flexible, 5.0e-11 rigid; 8.7e-12 and 1.1e-11 at TOL/10) and the
 *         angular momentum about the shoulder axis equal to the shoulder's impulse ∫τ dt to 1e-9
 *         (measured 1.0e-13);
 *       - TOL/10 changes the joint angles by ≤ 1e-6 rad (measured 2.2e-9 flexible, 1.3e-8 rigid:
 *         its steps are long) and the tip deflection by ≤ 1e-6 m (1.3e-9; the residual vibration
 *         is 0.37 mm), at the segment ends;
 *       - the rigid arm (at TOL/10) at (90°, 0) at T_s and at rest after, to 1e-9 (measured
 *         2.2e-10 rad, 4.5e-10 rad/s);
 *       - the residual vibration, measured from the upward zero crossings of the tip deflection
 *         16 periods at a time (interpolated linearly between the accepted steps), at the first
 *         joints-free frequency of the arm linearized at the mean joint angles of those periods,
 *         to 5e-3 (measured 1.5e-3: 213.19 against 213.41 rad/s at an elbow of 3.2°, 203.17
 *         against 202.9 at 21.5°);
 *       - the model: K as below, the rigid arm's rnea equal to the flexible arm's joint rows at
 *         η = 0, and the joints-free frequencies at an elbow of 90° (where the upper arm can only
 *         move the elbow along the forearm: a pinned-free beam) equal to the Euler–Bernoulli
 *         pinned-free ones (β L = 3.9266, 7.0686: 181.30, 587.53 rad/s) to 1e-3 and 1e-2.
 *
 * K: the modal stiffness is read from the generated gravity(q) = rnea(q, 0, 0), whose modal rows
 * are K η + (the modal load of gravity). Here gravity does nothing: the joints turn about the
 * vertical and the beam bends in the horizontal plane, so the gravity loads are along axes no
 * coordinate moves along. The program checks that claim: gravity(q) = 0 at η = 0 and several
 * joint angles, and its joint rows stay 0 with η ≠ 0; then K e_k = gravity(θ, e_k) on the modal
 * rows, checked against the closed form K_kk = EI (β_k L)⁴/(4 L³). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flexible_arm_dynamics.h"
#include "flexible_arm_rigid_dynamics.h"
#include "mb.h"

#define NV FLEXIBLE_ARM_NV /* the larger model: 2 joints + 3 modes */
#define NM (FLEXIBLE_ARM_NV - 2)
#define PI 3.14159265358979323846
#define T_END 5.0
#define T_SLEW 1.0
#define T_RAMP 0.02      /* the torque ramps */
#define NSEG 250         /* segments of T_END / NSEG = 20 ms: each joint of the profile ends one */
#define SLEW_SEG 50      /* the segment ending at T_SLEW */
#define NSAMP (NSEG + 1) /* the segment ends: states compared between TOL and TOL/10 */
#define TOL 1e-9         /* rtol = atol of mb_simulate */
#define EVERY 1          /* a CSV row every EVERY accepted steps */
#define NCROSS 1024
#define WINDOW 16 /* periods per frequency measurement */

/* An arm: its generated functions. nv is 5 (flexible) or 2 (rigid: no modes). */
typedef struct arm {
  const char *name;
  const mb_model *model; /* the runtime's: mb_simulate's joint types and scratch size */
  int nv;
  int (*aba)(const double *q, const double *v, const double *tau, double *qdd);
  void (*crba)(const double *q, double *M);
  void (*gravity)(const double *q, double *g);
  double (*load_power)(const double *q, const double *v); /* NULL: none */
} arm;

/* The power η̇ᵀ b⁰ of the velocity-product load of the undeformed forearm on its modes (Jain &
 * Rodriguez's b_m⁰, docs/flexible.md): the one force of the model that is neither applied nor
 * conservative, so the energy balance counts its work with the torques'. The generated code folds
 * it into nle; the runtime's model (flexible_arm_model.c) gives it as nle with the load minus nle
 * without (the model's velocity-product forms removed). */
extern const mb_model flexible_arm_model, flexible_arm_rigid_model;
static double flexible_load_power(const double *q, const double *v) {
  static void *buf1, *buf0;
  static mb_workspace ws1, ws0;
  static mb_flex noQ;
  static mb_model bare;
  double h1[FLEXIBLE_ARM_NV], h0[FLEXIBLE_ARM_NV], p = 0;
  if (!buf1) {
    noQ = *flexible_arm_model.flex, noQ.Q = NULL;
    bare = flexible_arm_model, bare.flex = &noQ;
    buf1 = malloc(mb_workspace_size(&flexible_arm_model));
    buf0 = malloc(mb_workspace_size(&bare));
    if (!buf1 || !buf0 || mb_workspace_init(&ws1, &flexible_arm_model, buf1) != MB_OK ||
        mb_workspace_init(&ws0, &bare, buf0) != MB_OK)
      abort();
  }
  if (mb_nle(&flexible_arm_model, &ws1, q, v, h1) != MB_OK ||
      mb_nle(&bare, &ws0, q, v, h0) != MB_OK)
    abort();
  for (int i = 0; i < FLEXIBLE_ARM_NV; i++) p += v[i] * (h1[i] - h0[i]);
  return p;
}

static const arm flexible = {.name = "flexible",
                             .model = &flexible_arm_model,
                             .nv = FLEXIBLE_ARM_NV,
                             .aba = flexible_arm_aba,
                             .crba = flexible_arm_crba,
                             .gravity = flexible_arm_gravity,
                             .load_power = flexible_load_power};
static const arm rigid = {.name = "rigid",
                          .model = &flexible_arm_rigid_model,
                          .nv = FLEXIBLE_ARM_RIGID_NV,
                          .aba = flexible_arm_rigid_aba,
                          .crba = flexible_arm_rigid_crba,
                          .gravity = flexible_arm_rigid_gravity,
                          .load_power = NULL};

/* The shape g of the shoulder's reference acceleration α g(t) at time t (the file header), on
 * the piece of the profile containing time tm: the stages of a segment (simulate) evaluate the
 * piece containing its midpoint, and every joint between pieces falls on a segment's end. */
static double accel_shape(double t, double tm) {
  const double h = T_SLEW / 2;
  if (tm < 0 || tm > T_SLEW) return 0;
  double sign = tm < h ? 1 : -1, s = tm < h ? t : t - h, sm = tm < h ? tm : tm - h;
  if (sm < T_RAMP) return sign * (1 - cos(PI * s / T_RAMP)) / 2;
  if (sm > h - T_RAMP) return sign * (1 - cos(PI * (h - s) / T_RAMP)) / 2;
  return sign;
}

/* The joint torques at time t (tm: as for accel_shape): the rigid arm's inverse dynamics along
 * the reference, rnea(q_r, v_r, a_r) = rnea(0, 0, a_r) (the elbow straight and still: no velocity
 * terms; nothing depends on the shoulder angle). */
static void torques(double t, double tm, double tau[2]) {
  const double alpha = 2 * PI / (T_SLEW * (T_SLEW - 2 * T_RAMP)); /* θ_r(T_s) = π/2 */
  double q[2] = {0, 0}, v[2] = {0, 0}, a[2] = {alpha * accel_shape(t, tm), 0};
  flexible_arm_rigid_rnea(q, v, a, tau);
}

/* The modal stiffness K (NM x NM, row-major) from the modal rows of gravity(q) with only η
 * nonzero; *gmax is the largest |entry| of gravity that must vanish (joint rows, and the modal
 * rows at η = 0), over a few joint angles. */
static void modal_stiffness(double K[NM * NM], double *gmax) {
  static const double th[3][2] = {{0, 0}, {0.7, -1.9}, {-2.4, 2.9}};
  double q[NV], g[NV];
  *gmax = 0;
  for (int c = 0; c < 3; c++)
    for (int k = -1; k < NM; k++) {
      memset(q, 0, sizeof q);
      q[0] = th[c][0], q[1] = th[c][1];
      if (k >= 0) q[2 + k] = 1;
      flexible_arm_gravity(q, g);
      for (int i = 0; i < NV; i++) {
        if ((i < 2 || k < 0) && fabs(g[i]) > *gmax) *gmax = fabs(g[i]);
        if (c == 0 && i >= 2 && k >= 0) K[(i - 2) * NM + k] = g[i];
      }
    }
}

static double elastic_energy(const double K[NM * NM], const double *eta) {
  double u = 0;
  for (int i = 0; i < NM; i++)
    for (int j = 0; j < NM; j++) u += 0.5 * eta[i] * K[i * NM + j] * eta[j];
  return u;
}

/* ---- the linearized arm: K x = ω² M x with the joints free ---------------------------------- */

/* Eigenvalues of the symmetric n x n A (row-major, destroyed) by cyclic Jacobi, ascending. */
static void jacobi_eig(int n, double *A, double *w) {
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = 0;
    for (int p = 0; p < n; p++)
      for (int r = p + 1; r < n; r++) off += A[p * n + r] * A[p * n + r];
    if (off < 1e-300) break;
    for (int p = 0; p < n; p++)
      for (int r = p + 1; r < n; r++) {
        double apr = A[p * n + r];
        if (apr == 0) continue;
        double th = (A[r * n + r] - A[p * n + p]) / (2 * apr);
        double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; k++) { /* columns p, r */
          double akp = A[k * n + p], akr = A[k * n + r];
          A[k * n + p] = c * akp - s * akr, A[k * n + r] = s * akp + c * akr;
        }
        for (int k = 0; k < n; k++) { /* rows p, r */
          double apk = A[p * n + k], ark = A[r * n + k];
          A[p * n + k] = c * apk - s * ark, A[r * n + k] = s * apk + c * ark;
        }
      }
  }
  for (int i = 0; i < n; i++) w[i] = A[i * n + i];
  for (int i = 1; i < n; i++) /* insertion sort */
    for (int j = i; j > 0 && w[j] < w[j - 1]; j--) {
      double x = w[j];
      w[j] = w[j - 1], w[j - 1] = x;
    }
}

/* The natural frequencies ω (rad/s, ascending, NM of them) of the flexible arm linearized at the
 * joint angles th with η = 0. free: the joints free (no torque: the joint rows of M q̈ = 0 give
 * θ̈ = −M_jj⁻¹ M_jη η̈, and the modal rows the reduced mass M̃ = M_ηη − M_ηj M_jj⁻¹ M_jη; the
 * two zero frequencies of the free joints are left out); else the joints locked (M̃ = M_ηη).
 * Then K x = ω² M̃ x by the Cholesky factor M̃ = L Lᵀ: the eigenvalues of L⁻¹ K L⁻ᵀ. */
static void frequencies(const double th[2], const double K[NM * NM], int free, double *omega) {
  double q[NV] = {0}, M[NV * NV], Mt[NM * NM], L[NM * NM] = {0}, B[NM * NM], C[NM * NM];
  q[0] = th[0], q[1] = th[1];
  flexible_arm_crba(q, M);
  double a = M[0], b = M[1], d = M[NV + 1], det = a * d - b * b; /* M_jj⁻¹ = [d −b; −b a]/det */
  for (int i = 0; i < NM; i++)
    for (int j = 0; j < NM; j++) {
      const double *mi = M + (2 + i) * NV, *mj = M + (2 + j) * NV;
      double s = (mi[0] * (d * mj[0] - b * mj[1]) + mi[1] * (a * mj[1] - b * mj[0])) / det;
      Mt[i * NM + j] = mi[2 + j] - (free ? s : 0);
    }
  for (int j = 0; j < NM; j++) /* Cholesky, lower */
    for (int i = j; i < NM; i++) {
      double s = Mt[i * NM + j];
      for (int k = 0; k < j; k++) s -= L[i * NM + k] * L[j * NM + k];
      L[i * NM + j] = i == j ? sqrt(s) : s / L[j * NM + j];
    }
  for (int c = 0; c < NM; c++) /* B = L⁻¹ K (forward substitution, column by column) */
    for (int i = 0; i < NM; i++) {
      double s = K[i * NM + c];
      for (int k = 0; k < i; k++) s -= L[i * NM + k] * B[k * NM + c];
      B[i * NM + c] = s / L[i * NM + i];
    }
  for (int r = 0; r < NM; r++) /* C = B L⁻ᵀ: solve L Cᵀ = Bᵀ row r of B at a time */
    for (int i = 0; i < NM; i++) {
      double s = B[r * NM + i];
      for (int k = 0; k < i; k++) s -= L[i * NM + k] * C[r * NM + k];
      C[r * NM + i] = s / L[i * NM + i];
    }
  jacobi_eig(NM, C, omega);
  for (int i = 0; i < NM; i++) omega[i] = sqrt(omega[i]);
}

/* ---- the simulation ------------------------------------------------------------------------- */

/* What a run measured. */
typedef struct run {
  int ok;                        /* ran to the end, every value finite */
  long steps, rejected, calls;   /* mb_simulate's accepted and rejected steps, aba calls */
  double h_min, h_max, cpu_s;    /* the shortest and longest accepted step; processor time */
  double max_ke, max_balance;    /* max T, max |T + U − W| */
  double max_p, max_dp;          /* max |p|, max |p − J|: p the angular momentum, J the impulse */
  double max_tip, max_tip_free;  /* max |tip deflection|, over the run and after the slew */
  double q_slew[NV], v_slew[NV]; /* the state at t = T_s */
  double q_end[NV], v_end[NV];
  double w_end, ke_end;
  int ncross;              /* upward zero crossings of the tip deflection after the slew */
  double cross[NCROSS][3]; /* the first NCROSS: t, shoulder, elbow (interpolated) */
  double *samp;            /* NSAMP x 3: shoulder, elbow, tip at the segment ends (NULL: none) */
} run;

static double tip(const arm *A, const double *q) {
  double s = 0;
  for (int i = 2; i < A->nv; i++) s += q[i];
  return s;
}

/* Record time t's state (q, v, the work w and the impulse imp) in the run's statistics and, if
 * csv, as a row. The angular momentum about the shoulder's (vertical) axis is p = (M v)_shoulder,
 * the generalized momentum of a rotation of the whole arm: ṗ = τ_shoulder, p = J. */
static void record(const arm *A, const double K[NM * NM], double t, const double *q,
                   const double *v, double w, double imp, FILE *csv, run *R) {
  double M[NV * NV], ke = 0, tau[2], eta[NM] = {0}, p = 0;
  int n = A->nv;
  A->crba(q, M);
  for (int i = 0; i < n; i++) {
    p += M[i] * v[i];
    for (int j = 0; j < n; j++) ke += 0.5 * v[i] * M[i * n + j] * v[j];
  }
  if (fabs(p) > R->max_p) R->max_p = fabs(p);
  if (fabs(p - imp) > R->max_dp) R->max_dp = fabs(p - imp);
  for (int i = 2; i < n; i++) eta[i - 2] = q[i];
  double u = elastic_energy(K, eta), bal = ke + u - w, y = tip(A, q);
  for (int i = 0; i < n; i++)
    if (!isfinite(q[i]) || !isfinite(v[i])) R->ok = 0;
  if (!isfinite(bal)) R->ok = 0;
  if (ke > R->max_ke) R->max_ke = ke;
  if (fabs(bal) > R->max_balance) R->max_balance = fabs(bal);
  if (fabs(y) > R->max_tip) R->max_tip = fabs(y);
  if (t > T_SLEW && fabs(y) > R->max_tip_free) R->max_tip_free = fabs(y);
  R->w_end = w, R->ke_end = ke;
  if (!csv) return;
  torques(t, t, tau);
  fprintf(csv, "%.9f,%.12g,%.12g,%.9e,%.9e,%.9e,%.9e,%.9g,%.9g,%.12g,%.12g,%.12g,%.6e\n", t, q[0],
          q[1], y, eta[0], eta[1], eta[2], tau[0], tau[1], ke, u, w, bal);
}

/* Record an upward zero crossing of the tip deflection y after the slew, between the states
 * (t0, y0, q0) and (t1, y1, q1), interpolated linearly. */
static void crossing(run *R, double t0, double y0, const double *q0, double t1, double y1,
                     const double *q1) {
  if (t0 < T_SLEW || !(y0 < 0 && y1 >= 0)) return;
  double f = y0 / (y0 - y1);
  if (R->ncross < NCROSS) {
    double *c = R->cross[R->ncross];
    c[0] = t0 + f * (t1 - t0), c[1] = q0[0] + f * (q1[0] - q0[0]);
    c[2] = q0[1] + f * (q1[1] - q0[1]);
  }
  R->ncross++;
}

/* One run: mb_simulate's callbacks' context. */
typedef struct sim {
  const arm *A;
  const double *K;
  run *R;
  FILE *csv;
  int every;
  double tm;   /* the midpoint of the segment being integrated: its profile piece */
  double w[2]; /* the quadrature states: the work W and the shoulder's impulse J */
  long n;      /* states recorded, t = 0 the first */
  double t_prev, y_prev, q_prev[2];
} sim;

/* q̈ = aba(q, v, τ(t)): the torques on the joints, none on the modes. */
static int sim_accel(void *c, double t, const double *q, const double *v, double *qdd) {
  const sim *x = c;
  double tau[NV] = {0};
  torques(t, x->tm, tau);
  return x->A->aba(q, v, tau, qdd) != 0 ? MB_ENUMERIC : MB_OK;
}

/* Ẇ = τᵀ v − η̇ᵀ b⁰ (the torques' power and the modal load's, A->load_power), J̇ = τ_shoulder. */
static int sim_quad(void *c, double t, const double *q, const double *v, double *dw) {
  const sim *x = c;
  double tau[2];
  torques(t, x->tm, tau);
  dw[0] = tau[0] * v[0] + tau[1] * v[1];
  if (x->A->load_power) dw[0] -= x->A->load_power(q, v);
  dw[1] = tau[0];
  return MB_OK;
}

/* mb_simulate's event callback, an observer: records every accepted state (and t = 0), a CSV row
 * every `every` of them and at T_END; stops the run (MB_ENUMERIC) at a value not finite. */
static int sim_observe(void *c, double t, double *q, double *v) {
  sim *x = c;
  run *R = x->R;
  double y = tip(x->A, q);
  FILE *csv = x->csv && (x->n % x->every == 0 || t >= T_END) ? x->csv : NULL;
  record(x->A, x->K, t, q, v, x->w[0], x->w[1], csv, R);
  if (x->n > 0) {
    double h = t - x->t_prev;
    if (x->n == 1 || h < R->h_min) R->h_min = h;
    if (h > R->h_max) R->h_max = h;
    crossing(R, x->t_prev, x->y_prev, x->q_prev, t, y, q);
  }
  x->t_prev = t, x->y_prev = y, x->q_prev[0] = q[0], x->q_prev[1] = q[1];
  x->n++;
  return R->ok ? MB_OK : MB_ENUMERIC;
}

/* Simulate T_END seconds by mb_simulate at rtol = atol = tol, segment by segment (NSEG of them,
 * every joint of the torque profile on a segment's end; each segment starts with the step the
 * last proposed); a CSV row every `every` accepted steps (and the last) to csv if not NULL; the
 * samples at the segment ends into R->samp if not NULL. 0, or −1 if a solve failed or a value is
 * not finite. */
static int simulate(const arm *A, const double K[NM * NM], double tol, FILE *csv, int every,
                    run *R) {
  double q[NV] = {0}, v[NV] = {0}, h0 = 0, *samp = R->samp;
  memset(R, 0, sizeof *R);
  R->ok = 1, R->samp = samp;
  sim x = {A, K, R, csv, every, 0.0, {0, 0}, 0, 0.0, 0.0, {0, 0}};
  void *scratch = malloc(mb_simulate_scratch_size(A->model));
  if (!scratch) return fprintf(stderr, "out of memory\n"), -1;
  if (csv)
    fprintf(csv, "t,shoulder,elbow,tip,eta1,eta2,eta3,tau_shoulder,tau_elbow,kinetic,elastic,"
                 "work,balance\n");
  sim_observe(&x, 0.0, q, v);
  if (samp) samp[0] = samp[1] = samp[2] = 0;
  const mb_sim_system sys = {sim_accel, NULL, sim_observe, sim_quad, 2, &x};
  clock_t c0 = clock();
  for (int k = 0; k < NSEG; k++) {
    double t0 = T_END * k / NSEG, t1 = T_END * (k + 1) / NSEG;
    const mb_sim_options opt = {tol, tol, h0, 0.0, 0.0, 0};
    mb_sim_stats st;
    x.tm = (t0 + t1) / 2;
    int rc = mb_simulate(A->model, &sys, &opt, t0, t1, q, v, x.w, scratch, &st);
    R->steps += st.accepted, R->rejected += st.rejected, R->calls += st.naccel;
    if (rc != MB_OK) {
      R->ok = 0, free(scratch);
      return fprintf(stderr, "%s: mb_simulate failed at t = %g (status %d)\n", A->name, st.t, rc),
             -1;
    }
    h0 = st.h_next;
    if (samp) {
      double *s = samp + 3 * (k + 1);
      s[0] = q[0], s[1] = q[1], s[2] = tip(A, q);
    }
    if (k + 1 == SLEW_SEG) memcpy(R->q_slew, q, sizeof q), memcpy(R->v_slew, v, sizeof v);
  }
  R->cpu_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
  free(scratch);
  memcpy(R->q_end, q, sizeof q), memcpy(R->v_end, v, sizeof v);
  return 0;
}

/* The residual vibration, WINDOW periods at a time: the measured ω = 2π WINDOW / (t_{k+WINDOW} −
 * t_k) between upward crossings of the tip deflection, against the first joints-free frequency of
 * the arm linearized at the mean joint angles of those crossings. Returns the number of windows
 * (0: too few crossings); w[0..1] the first window's ω measured and linearized, w[2..3] the
 * last's, w[4] the largest relative difference, w[5..6] the elbow angles of the first and last. */
static int vibration(const run *R, const double K[NM * NM], double w[7]) {
  int n = (R->ncross < NCROSS ? R->ncross : NCROSS) - WINDOW, nw = 0;
  memset(w, 0, 7 * sizeof *w);
  for (int k = 0; k < n; k += WINDOW, nw++) {
    double th[2] = {0, 0}, om[NM];
    for (int i = 0; i <= WINDOW; i++)
      th[0] += R->cross[k + i][1] / (WINDOW + 1), th[1] += R->cross[k + i][2] / (WINDOW + 1);
    frequencies(th, K, 1, om);
    double wm = 2 * PI * WINDOW / (R->cross[k + WINDOW][0] - R->cross[k][0]);
    double d = fabs(wm - om[0]) / om[0];
    if (d > w[4]) w[4] = d;
    if (k == 0) w[0] = wm, w[1] = om[0], w[5] = th[1];
    w[2] = wm, w[3] = om[0], w[6] = th[1];
  }
  return nw;
}

static void summary(const arm *A, const double K[NM * NM], double tol, const run *R) {
  double w[7], wmax[NM], zero[2] = {0, 0};
  fprintf(stderr,
          "%s arm, %g s, DP5(4) tol %g: %ld steps (%ld rejected) of %.3g to %.3g ms, %ld aba "
          "calls, %.0f ms; at t = T_s = %g s shoulder %.4f deg, elbow %.4f deg; at %g s shoulder "
          "%.4f deg, elbow %.4f deg; max KE %.6g J, max |T + U - W| = %.2e J (%.2e of max KE); "
          "angular momentum - impulse %.2e of max %.4g N m s; max |tip| %.4g mm (%.4g mm after "
          "the slew)\n",
          A->name, T_END, tol, R->steps, R->rejected, R->h_min * 1e3, R->h_max * 1e3, R->calls,
          R->cpu_s * 1e3, T_SLEW, R->q_slew[0] * 180 / PI, R->q_slew[1] * 180 / PI, T_END,
          R->q_end[0] * 180 / PI, R->q_end[1] * 180 / PI, R->max_ke, R->max_balance,
          R->max_balance / R->max_ke, R->max_dp / R->max_p, R->max_p, R->max_tip * 1e3,
          R->max_tip_free * 1e3);
  if (A->nv == 2) return;
  frequencies(zero, K, 1, wmax);
  fprintf(stderr,
          "  highest frequency (q = 0, joints free) %.5g rad/s: omega_max h = %.3f for the mean "
          "step, %.3f for the longest\n",
          wmax[NM - 1], wmax[NM - 1] * T_END / (double)R->steps, wmax[NM - 1] * R->h_max);
  int nw = vibration(R, K, w);
  if (nw)
    fprintf(stderr,
            "  residual vibration of the tip, %d windows of %d periods after the slew: first "
            "%.5g rad/s (elbow %.2f deg; linearized, joints free: %.5g), last %.5g rad/s (elbow "
            "%.2f deg; linearized %.5g); largest relative difference %.2e\n",
            nw, WINDOW, w[0], w[5] * 180 / PI, w[1], w[2], w[6] * 180 / PI, w[3], w[4]);
}

/* ---- the checks ----------------------------------------------------------------------------- */

/* The largest difference of the samples of a (tolerance tol) and b (tol/10), at the segment
 * ends: joint angles (rad) in dq[0], tip deflections (m) in dq[1]. */
static void convergence(const run *a, const run *b, double dq[2]) {
  dq[0] = dq[1] = 0;
  for (int k = 0; k < 3 * NSAMP; k++) {
    double d = fabs(a->samp[k] - b->samp[k]);
    if (d > dq[k % 3 == 2]) dq[k % 3 == 2] = d;
  }
}

/* The rigid arm's inverse dynamics against the flexible arm's joint rows at η = η̇ = η̈ = 0 (the
 * beam with modes 0 is its undeformed body): the largest relative difference. */
static double rigid_vs_flexible(void) {
  double worst = 0;
  for (int c = 0; c < 20; c++) {
    double q[NV] = {0}, v[NV] = {0}, a[NV] = {0}, tf[NV], tr[2];
    for (int j = 0; j < 2; j++)
      q[j] = sin(1.3 * c + j), v[j] = 2 * cos(0.7 * c - j), a[j] = 5 * sin(2.1 * c + 3 * j);
    flexible_arm_rnea(q, v, a, tf);
    flexible_arm_rigid_rnea(q, v, a, tr);
    for (int j = 0; j < 2; j++) {
      double d = fabs(tf[j] - tr[j]) / (1 + fabs(tr[j]));
      if (d > worst) worst = d;
    }
  }
  return worst;
}

static int g_ok = 1;
#define CHECK(cond, ...)                                                                           \
  if (!(cond)) g_ok = 0, fprintf(stderr, "FAIL: " __VA_ARGS__), fprintf(stderr, "\n")

/* The model: the modal stiffness read from gravity against the closed form EI (β_k L)⁴/(4 L³),
 * and the joints-free frequencies at an elbow of 90° against the pinned-free beam's. */
static void check_stiffness(const double K[NM * NM], double gmax) {
  static const double bl[3] = {1.8751040687119611, 4.6940911329741745, 7.8547574382376126};
  /* examples/flexible_arm.mbd: E = 70 GPa, ρ = 2700 kg/m³, a 100 mm x 8 mm strip 1 m long */
  const double EI = 70e9 * 0.100 * 0.008 * 0.008 * 0.008 / 12, rhoA = 2700 * 0.100 * 0.008;
  const double L = 1.0;
  double worst = 0;
  for (int i = 0; i < NM; i++)
    for (int j = 0; j < NM; j++) {
      double ref = i == j ? EI * pow(bl[i], 4) / (4 * L * L * L) : 0;
      double d = fabs(K[i * NM + j] - ref) / K[(NM - 1) * NM + NM - 1];
      if (d > worst) worst = d;
    }
  fprintf(stderr,
          "modal stiffness from gravity(q): diag %.6f %.6f %.6f N/m; against EI "
          "(beta_k L)^4/(4 L^3): %.2e (relative to K_33); |gravity| where it must vanish: %.2e\n",
          K[0], K[NM + 1], K[2 * NM + 2], worst, gmax);
  CHECK(gmax <= 1e-12, "gravity does something here: %.2e", gmax);
  CHECK(worst <= 1e-9, "K differs from the closed form by %.2e", worst);
  /* the elbow at 90°: the forearm pinned-free, tan βL = tanh βL */
  static const double pin[2] = {3.9266023120479200, 7.0685827970164285};
  double th[2] = {0, PI / 2}, om[NM], ref[2], d[2];
  frequencies(th, K, 1, om);
  for (int k = 0; k < 2; k++)
    ref[k] = pin[k] * pin[k] * sqrt(EI / (rhoA * L * L * L * L)),
    d[k] = fabs(om[k] - ref[k]) / ref[k];
  fprintf(stderr,
          "joints free, elbow 90 deg: %.5g %.5g rad/s; Euler-Bernoulli pinned-free beam "
          "%.5g %.5g rad/s (%.1e, %.1e)\n",
          om[0], om[1], ref[0], ref[1], d[0], d[1]);
  CHECK(d[0] <= 1e-3 && d[1] <= 1e-2, "not the pinned-free beam at an elbow of 90 deg");
}

/* Both arms at tol and tol/10; the criteria are stated in docs/flexible.md, "Simulation". */
static int check(double tol, const double K[NM * NM], double gmax) {
  static const double tol_balance = 1e-9, tol_q = 1e-6, tol_tip = 1e-6, tol_omega = 5e-3;
  const arm *arms[2] = {&flexible, &rigid};
  run R[2][2];
  check_stiffness(K, gmax);
  double rv = rigid_vs_flexible();
  fprintf(stderr, "rigid rnea against the flexible arm's joint rows at eta = 0: %.2e\n", rv);
  CHECK(rv <= 1e-13, "the rigid arm is not the flexible arm at eta = 0: %.2e", rv);
  for (int a = 0; a < 2; a++)
    for (int h = 0; h < 2; h++) {
      double t = h ? tol / 10 : tol;
      R[a][h].samp = malloc(3 * NSAMP * sizeof(double));
      if (!R[a][h].samp) return fprintf(stderr, "out of memory\n"), 1;
      if (simulate(arms[a], K, t, NULL, 1, &R[a][h]) != 0) g_ok = 0;
      summary(arms[a], K, t, &R[a][h]);
      double rel = R[a][h].max_balance / R[a][h].max_ke;
      CHECK(rel <= tol_balance, "%s, tol %g: energy balance %.2e of max KE > %.0e", arms[a]->name,
            t, rel, tol_balance);
      CHECK(R[a][h].max_dp <= tol_balance * R[a][h].max_p, "%s, tol %g: momentum balance %.2e",
            arms[a]->name, t, R[a][h].max_dp / R[a][h].max_p);
    }
  for (int a = 0; a < 2; a++) {
    double dq[2];
    convergence(&R[a][0], &R[a][1], dq);
    double tipscale = R[a][1].max_tip > 0 ? R[a][1].max_tip : 1;
    fprintf(stderr,
            "%s arm, tol %g against tol/10, at the %d segment ends: max |d angle| = %.2e rad, "
            "max |d tip| = %.2e m (%.2e of max |tip|)\n",
            arms[a]->name, tol, NSEG, dq[0], dq[1], dq[1] / tipscale);
    CHECK(dq[0] <= tol_q, "%s: tol/10 changes the angles by %.2e rad > %.0e", arms[a]->name, dq[0],
          tol_q);
    CHECK(dq[1] <= tol_tip, "%s: tol/10 changes the tip by %.2e m > %.0e", arms[a]->name, dq[1],
          tol_tip);
  }
  const run *F = &R[0][1], *G = &R[1][1];
  double dr = fmax(fabs(G->q_slew[0] - PI / 2), fabs(G->q_slew[1]));
  double vr = fmax(fabs(G->v_end[0]), fabs(G->v_end[1]));
  fprintf(stderr,
          "rigid arm at T_s off the reference (90 deg, 0) by %.2e rad; |v| at the end "
          "%.2e rad/s\n",
          dr, vr);
  CHECK(dr <= 1e-9 && vr <= 1e-9, "the rigid arm does not end at rest at the reference");
  double wf[NM], wl[NM], w[7];
  frequencies(F->q_slew, K, 1, wf), frequencies(F->q_slew, K, 0, wl);
  fprintf(stderr,
          "flexible arm linearized at the end of the slew (shoulder %.3f deg, elbow "
          "%.3f deg): joints free %.5g %.5g %.5g rad/s, joints locked %.5g %.5g %.5g rad/s\n",
          F->q_slew[0] * 180 / PI, F->q_slew[1] * 180 / PI, wf[0], wf[1], wf[2], wl[0], wl[1],
          wl[2]);
  int nw = vibration(F, K, w);
  CHECK(nw >= 4 && w[4] <= tol_omega,
        "the residual vibration (%d windows) is not at the "
        "linearized frequency: %.2e > %.0e",
        nw, w[4], tol_omega);
  for (int a = 0; a < 2; a++)
    for (int h = 0; h < 2; h++) free(R[a][h].samp);
  printf("flexible_arm_sim --check: %s\n", g_ok ? "ok" : "FAIL");
  return g_ok ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *usage =
      "usage: flexible_arm_sim [--rigid] [--tol TOL] [--every N] | --check [--tol TOL]\n";
  int use_rigid = 0, every = EVERY, do_check = 0;
  double tol = TOL, K[NM * NM], gmax;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rigid"))
      use_rigid = 1;
    else if (!strcmp(argv[i], "--check"))
      do_check = 1;
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc)
      tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--every") && i + 1 < argc)
      every = atoi(argv[++i]);
    else
      return fprintf(stderr, "%s", usage), 2;
  }
  if (!(tol > 0) || every < 1) return fprintf(stderr, "%s", usage), 2;
  modal_stiffness(K, &gmax);
  if (do_check) return check(tol, K, gmax);
  run R = {0};
  const arm *A = use_rigid ? &rigid : &flexible;
  if (simulate(A, K, tol, stdout, every, &R) != 0) return 1;
  summary(A, K, tol, &R);
  return 0;
}
