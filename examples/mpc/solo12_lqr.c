/* solo12_lqr.c — the Solo12 quadruped standing on its four feet, linearized in discrete time with
 * the generated contact-dynamics derivatives, stabilized by LQR and pushed sideways: the shape of
 * one step of a model-predictive controller (docs/mpc.md walks through it). Generated from
 * examples/urdf/solo12.urdf (--floating-base --contacts FL_FOOT,FR_FOOT,HL_FOOT,HR_FOOT):
 * contact_fd, contact_fd_derivatives, impulse, integrate, integrate_jacobians, difference,
 * gravity, frame_pose, frame_jacobian_world.
 *
 *   1. the equilibrium: legs bent, feet on z = 0, v* = 0, and the joint torques τ* of least norm
 *      that hold it (the base is unactuated);
 *   2. the discrete step x⁺ = F(x, u) of semi-implicit Euler, v⁺ = v + dt q̈(q, v, τ),
 *      q⁺ = q ⊕ v⁺ dt, linearized in tangent coordinates: A (36 x 36), B (36 x 12) by the chain
 *      rule from contact_fd_derivatives and integrate_jacobians, checked against central
 *      differences of F;
 *   3. the contact-consistent coordinates: with the feet held, δv and δq lie in the null space of
 *      the feet's Jacobian Jc, spanned by T = [I₆; −Jj⁻¹ Jb] (the base's six motions, the legs
 *      following); A and B leave that subspace invariant, and the LQR is solved on it (12 states):
 *      on the full 36 the 24 constraint-violating directions are uncontrollable double
 *      integrators (eigenvalue 1) and the Riccati equation has no stabilizing solution;
 *   4. the closed loop τ = τ* − K z, z the base's rows of x ⊖ x*, simulated through contact_fd
 *      for 2 s at 1 kHz after a 0.3 m/s sideways push (each step followed by an inelastic impact
 *      at the feet, solo_impulse, that keeps Jc v = 0: sim_step), and the same push with
 *      τ = τ* held, and the closed loop without that projection.
 *
 *   solo12_lqr [--check] [DAT]
 * DAT: every 5 ms, the closed and the open loop (columns in write_dat). --check: exit 1 unless
 * A and B match the differences, the Riccati iteration converged, the closed loop's spectral
 * radius is below 1 and the push is recovered (the thresholds in main, docs/mpc.md §7). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lqr.h"
#include "solo_dynamics.h"

#define NQ SOLO_NQ
#define NV SOLO_NV
#define NR SOLO_NCROWS /* contact rows: 3 per foot */
#define NU 12          /* actuated joints: v[6..17] */
#define NX (2 * NV)    /* tangent state (δq, δv) */
#define NZ 12          /* contact-consistent state: the base's δq and δv */
#define DT 1e-3
#define STEPS 2000
#define PUSH 0.3 /* m/s, the base's sideways velocity after the push */

static const int foot[4] = {SOLO_FRAME_FL_FOOT, SOLO_FRAME_FR_FOOT, SOLO_FRAME_HL_FOOT,
                            SOLO_FRAME_HR_FOOT};
static const int all_on[4] = {1, 1, 1, 1};

/* The equilibrium and the controller. */
typedef struct plant {
  double q[NQ], u[NU], f[NR]; /* q*, τ* on the joints, the feet's forces there */
  double T[NV * 6];           /* the null space of Jc(q*): [I₆; −Jj⁻¹ Jb] */
  double K[NU * NZ];          /* u = u* − K z */
} plant;

/* Jc (NR x NV): the linear rows of the feet's world-aligned Jacobians. */
static void contact_jacobian(const double *q, double *Jc) {
  double J[6 * NV * SOLO_NF];
  solo_frame_jacobian_world(q, J);
  for (int k = 0; k < 4; k++)
    for (int a = 0; a < 3; a++)
      memcpy(Jc + (3 * k + a) * NV, J + 6 * NV * foot[k] + (3 + a) * NV, NV * sizeof *Jc);
}

/* The feet's world positions (12). */
static void feet(const double *q, double *x) {
  double pose[12 * SOLO_NF];
  solo_frame_pose(q, pose);
  for (int k = 0; k < 4; k++)
    for (int a = 0; a < 3; a++) x[3 * k + a] = pose[12 * foot[k] + 9 + a];
}

static void full_tau(const double *u, double *tau) {
  memset(tau, 0, 6 * sizeof *tau);
  memcpy(tau + 6, u, NU * sizeof *u);
}

/* The discrete step F: v⁺ = v + dt q̈, q⁺ = q ⊕ v⁺ dt (semi-implicit Euler on the manifold).
 * f, if not NULL, gets the contact forces. */
static int step(const double *q, const double *v, const double *u, double *qn, double *vn,
                double *f) {
  double tau[NV], qdd[NV], force[NR];
  full_tau(u, tau);
  if (solo_contact_fd(q, v, tau, all_on, qdd, force)) return -1;
  for (int i = 0; i < NV; i++) vn[i] = v[i] + DT * qdd[i];
  solo_integrate(q, vn, DT, qn);
  if (f) memcpy(f, force, sizeof force);
  return 0;
}

/* The simulated step: F, then (project) the velocity put back on Jc(q⁺) v = 0 by an inelastic
 * impact at the feet (solo_impulse: M (v⁺ − v) = Jcᵀ Λ, Jc v⁺ = 0; Featherstone, "Rigid Body
 * Dynamics Algorithms", 2008, §11.1), the velocity-level constraint of time-stepping schemes
 * (Moreau, "Unilateral contact and dry friction in finite freedom dynamics", 1988). F alone keeps
 * Jc q̈ = −J̇c v, so Jc v stays where its O(dt) truncation error puts it and the feet slide. */
static int sim_step(const double *q, double *v, const double *u, double *qn, double *f,
                    int project) {
  double vn[NV], imp[NR];
  if (step(q, v, u, qn, vn, f)) return -1;
  if (!project) return memcpy(v, vn, sizeof vn), 0;
  return solo_impulse(qn, vn, all_on, v, imp);
}

/* Step 1: the standing posture of examples/controller/solo12_balance.c (hip flexion ±0.8 rad,
 * knee ∓1.6 rad), the base lifted until the lowest foot is at z = 0; then the torques of least
 * norm that hold it at rest. At v = 0 and q̈ = 0 the equations of motion are
 * g(q) = Sᵀ τ + Jcᵀ f: the base's rows g_b = Jbᵀ f and τ = g_j − Jjᵀ f, so
 *   min |g_j − Jjᵀ f|²  subject to  Jbᵀ f = g_b,
 * whose optimality (KKT) system is [Jj Jjᵀ, Jb; Jbᵀ, 0] [f; λ] = [Jj g_j; g_b]. Returns the
 * largest foot height (m) after the lift, or NAN when the solve fails. */
static double equilibrium(plant *P) {
  static const double leg[4][3] = {{0, 0.8, -1.6}, {0, 0.8, -1.6}, {0, -0.8, 1.6}, {0, -0.8, 1.6}};
  double *q = P->q, x[12], g[NV], Jc[NR * NV], S[18 * 18], r[18];
  memset(q, 0, NQ * sizeof *q);
  q[6] = 1; /* the quaternion's w */
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 3; j++) q[7 + 3 * k + j] = leg[k][j];
  feet(q, x);
  q[2] = -fmin(fmin(x[2], x[5]), fmin(x[8], x[11]));
  feet(q, x);
  double high = fmax(fmax(fabs(x[2]), fabs(x[5])), fmax(fabs(x[8]), fabs(x[11])));
  solo_gravity(q, g);
  contact_jacobian(q, Jc);
  memset(S, 0, sizeof S);
  for (int a = 0; a < NR; a++) {
    r[a] = 0;
    for (int k = 6; k < NV; k++) r[a] += Jc[a * NV + k] * g[k]; /* Jj g_j */
    for (int b = 0; b < NR; b++)
      for (int k = 6; k < NV; k++) S[a * 18 + b] += Jc[a * NV + k] * Jc[b * NV + k];
    for (int i = 0; i < 6; i++) S[a * 18 + NR + i] = S[(NR + i) * 18 + a] = Jc[a * NV + i];
  }
  for (int i = 0; i < 6; i++) r[NR + i] = g[i];
  if (lu_solve(18, 1, S, r)) return NAN;
  memcpy(P->f, r, NR * sizeof *r);
  for (int j = 0; j < NU; j++) {
    P->u[j] = g[6 + j];
    for (int a = 0; a < NR; a++) P->u[j] -= Jc[a * NV + 6 + j] * P->f[a];
  }
  return high;
}

/* Step 2: A and B of F at (q, v, u) by the chain rule. With D_q, D_v, D_τ the derivatives of q̈
 * (contact_fd_derivatives, q along the tangent space) and J_q, J_v those of q ⊕ v⁺ dt
 * (integrate_jacobians at v⁺, dt included in J_v), S the joints' columns:
 *   δv⁺ = δv + dt (D_q δq + D_v δv + D_τ S δu),   δq⁺ = J_q δq + J_v δv⁺,
 *   A = [J_q + dt J_v D_q,  J_v (I + dt D_v);  dt D_q,  I + dt D_v],  B = [dt J_v D_τ S; dt D_τ S].
 * A and B are row-major, rows and columns ordered (δq, δv). */
static int linearize(const double *q, const double *v, const double *u, double *A, double *B) {
  static double Dq[NV * NV], Dv[NV * NV], Dt[NV * NV], Fq[NR * NV], Fv[NR * NV], Ft[NR * NV];
  double tau[NV], qdd[NV], f[NR], vn[NV], Jq[NV * NV], Jv[NV * NV];
  full_tau(u, tau);
  if (solo_contact_fd_derivatives(q, v, tau, all_on, qdd, f, Dq, Dv, Dt, Fq, Fv, Ft)) return -1;
  for (int i = 0; i < NV; i++) vn[i] = v[i] + DT * qdd[i];
  solo_integrate_jacobians(q, vn, DT, Jq, Jv);
  double Vq[NV * NV], Vv[NV * NV], Vu[NV * NU]; /* the rows of δv⁺ */
  for (int i = 0; i < NV; i++) {
    for (int j = 0; j < NV; j++) {
      Vq[i * NV + j] = DT * Dq[i * NV + j];
      Vv[i * NV + j] = (i == j) + DT * Dv[i * NV + j];
    }
    for (int j = 0; j < NU; j++) Vu[i * NU + j] = DT * Dt[i * NV + 6 + j];
  }
  double Cq[NV * NV], Cv[NV * NV], Cu[NV * NU]; /* J_v times them: the rows of δq⁺ */
  mat_mul(NV, NV, NV, Jv, Vq, Cq);
  mat_mul(NV, NV, NV, Jv, Vv, Cv);
  mat_mul(NV, NV, NU, Jv, Vu, Cu);
  for (int i = 0; i < NV; i++) {
    for (int j = 0; j < NV; j++) {
      A[i * NX + j] = Jq[i * NV + j] + Cq[i * NV + j];
      A[i * NX + NV + j] = Cv[i * NV + j];
      A[(NV + i) * NX + j] = Vq[i * NV + j];
      A[(NV + i) * NX + NV + j] = Vv[i * NV + j];
    }
    for (int j = 0; j < NU; j++)
      B[i * NU + j] = Cu[i * NU + j], B[(NV + i) * NU + j] = Vu[i * NU + j];
  }
  return 0;
}

/* The tangent difference of two states: d = (q1 ⊖ q0, v1 − v0). */
static void state_diff(const double *q0, const double *v0, const double *q1, const double *v1,
                       double *d) {
  solo_difference(q0, q1, d);
  for (int i = 0; i < NV; i++) d[NV + i] = v1[i] - v0[i];
}

/* The step at the state and input moved by h (dx, du) along the tangent spaces, measured from
 * (q0n, v0n): d = G(q ⊕ h dx_q, v + h dx_v, u + h du) ⊖ (q0n, v0n), G = F, or F and the
 * projection of sim_step (project). */
static int step_moved(const double *q, const double *v, const double *u, const double *dx,
                      const double *du, double h, int project, const double *q0n,
                      const double *v0n, double *d) {
  double qm[NQ], vm[NV], um[NU], e[NV], qn[NQ];
  for (int i = 0; i < NV; i++) e[i] = h * dx[i], vm[i] = v[i] + h * dx[NV + i];
  for (int j = 0; j < NU; j++) um[j] = u[j] + h * du[j];
  solo_integrate(q, e, 1.0, qm);
  if (sim_step(qm, vm, um, qn, NULL, project)) return -1;
  state_diff(q0n, v0n, qn, vm, d);
  return 0;
}

/* Central differences of the step G (F, or F and the projection) along the nd directions of D
 * (each NX + NU numbers: dx, then du), h = 1e-6: J (NX x nd), column k = dG/dε along D's k-th. */
static int central(const double *q, const double *v, const double *u, int nd, const double *D,
                   int project, double *J) {
  const double h = 1e-6;
  double q0n[NQ], v0n[NV], dp[NX], dm[NX];
  memcpy(v0n, v, sizeof v0n);
  if (sim_step(q, v0n, u, q0n, NULL, project)) return -1;
  for (int k = 0; k < nd; k++) {
    const double *dx = D + k * (NX + NU), *du = dx + NX;
    if (step_moved(q, v, u, dx, du, h, project, q0n, v0n, dp) ||
        step_moved(q, v, u, dx, du, -h, project, q0n, v0n, dm))
      return -1;
    for (int i = 0; i < NX; i++) J[i * nd + k] = (dp[i] - dm[i]) / (2 * h);
  }
  return 0;
}

/* The largest difference between A, B and central differences of F along every coordinate
 * (tangent steps h = 1e-6: error h² |F'''| against rounding ε |x| / h, both near 1e-10),
 * relative to the largest entry of A − I and of B (the parts that carry the dynamics; A's
 * identity is exact). */
static int check_linearization(const double *q, const double *v, const double *u,
                               const double *A, const double *B, double *errA, double *errB) {
  static double D[(NX + NU) * (NX + NU)], J[NX * (NX + NU)];
  double ea = 0, eb = 0, sa = 0, sb = 0;
  memset(D, 0, sizeof D);
  for (int k = 0; k < NX + NU; k++) D[k * (NX + NU) + k] = 1;
  if (central(q, v, u, NX + NU, D, 0, J)) return -1;
  for (int i = 0; i < NX; i++)
    for (int k = 0; k < NX + NU; k++) {
      double fd = J[i * (NX + NU) + k];
      if (k < NX) {
        ea = fmax(ea, fabs(fd - A[i * NX + k]));
        sa = fmax(sa, fabs(A[i * NX + k] - (i == k)));
      } else {
        eb = fmax(eb, fabs(fd - B[i * NU + k - NX]));
        sb = fmax(sb, fabs(B[i * NU + k - NX]));
      }
    }
  *errA = ea / sa, *errB = eb / sb;
  return 0;
}

/* Step 3: T = [I₆; −Jj⁻¹ Jb], the velocities that keep the feet still (Jc T = 0): each column a
 * motion of the base, the legs' joints following (Jj, the legs' 12 x 12 block of Jc, is regular
 * while no leg is stretched). */
static int null_space(const double *q, double *T) {
  double Jc[NR * NV], Jj[NR * NU], X[NR * 6];
  contact_jacobian(q, Jc);
  for (int a = 0; a < NR; a++) {
    for (int j = 0; j < NU; j++) Jj[a * NU + j] = Jc[a * NV + 6 + j];
    for (int i = 0; i < 6; i++) X[a * 6 + i] = -Jc[a * NV + i];
  }
  if (lu_solve(NR, 6, Jj, X)) return -1;
  memset(T, 0, NV * 6 * sizeof *T);
  for (int i = 0; i < 6; i++) T[i * 6 + i] = 1;
  memcpy(T + 36, X, sizeof X);
  return 0;
}

/* Tx = blkdiag(T, T) (NX x NZ): the contact-consistent subspace of (δq, δv). */
static void lift(const double *T, double *Tx) {
  memset(Tx, 0, NX * NZ * sizeof *Tx);
  for (int i = 0; i < NV; i++)
    for (int j = 0; j < 6; j++) Tx[i * NZ + j] = Tx[(NV + i) * NZ + 6 + j] = T[i * 6 + j];
}

/* The reduced model on the subspace spanned by Tx: since A and B map it into itself,
 * A Tx = Tx Ar and B = Tx Br, and Ar, Br are the base's rows (0..5 of δq, 0..5 of δv; T's first
 * six rows are I₆). Returns the invariance residual, the larger of max |A Tx − Tx Ar| / max |A Tx|
 * and max |B − Tx Br| / max |B|. */
static double reduce(const double *A, const double *B, const double *T, double *Ar, double *Br) {
  static double Tx[NX * NZ], ATx[NX * NZ], TAr[NX * NZ], TBr[NX * NU];
  lift(T, Tx);
  mat_mul(NX, NX, NZ, A, Tx, ATx);
  for (int r = 0; r < NZ; r++) { /* the base's rows of δq (0..5) and δv (NV..NV+5) */
    int row = r < 6 ? r : NV + r - 6;
    memcpy(Ar + r * NZ, ATx + row * NZ, NZ * sizeof *Ar);
    memcpy(Br + r * NU, B + row * NU, NU * sizeof *Br);
  }
  mat_mul(NX, NZ, NZ, Tx, Ar, TAr);
  mat_mul(NX, NZ, NU, Tx, Br, TBr);
  double ea = 0, eb = 0;
  for (int i = 0; i < NX * NZ; i++) ea = fmax(ea, fabs(ATx[i] - TAr[i]));
  for (int i = 0; i < NX * NU; i++) eb = fmax(eb, fabs(B[i] - TBr[i]));
  return fmax(ea / mat_maxabs(NX, NZ, ATx), eb / mat_maxabs(NX, NU, B));
}

/* The simulated step (F and the projection) has the same linearization on the subspace: the
 * projection's derivative at v = 0 is blkdiag(I, I − M⁻¹ Jcᵀ (Jc M⁻¹ Jcᵀ)⁻¹ Jc), the identity on
 * δv with Jc δv = 0. Checked: central differences of the simulated step along Tx's columns and
 * the inputs against Tx Ar and Tx Br, relative to max |Tx Ar − Tx| and max |B| (h = 1e-6). */
static int check_projected(const plant *P, const double *Ar, const double *Br, double *err) {
  static double D[(NZ + NU) * (NX + NU)], J[NX * (NZ + NU)], Tx[NX * NZ], L[NX * (NZ + NU)];
  double v0[NV] = {0}, TAr[NX * NZ], TBr[NX * NU], e = 0, sa = 0, sb = 0;
  lift(P->T, Tx);
  memset(D, 0, sizeof D);
  for (int k = 0; k < NZ; k++)
    for (int i = 0; i < NX; i++) D[k * (NX + NU) + i] = Tx[i * NZ + k];
  for (int j = 0; j < NU; j++) D[(NZ + j) * (NX + NU) + NX + j] = 1;
  if (central(P->q, v0, P->u, NZ + NU, D, 1, J)) return -1;
  mat_mul(NX, NZ, NZ, Tx, Ar, TAr);
  mat_mul(NX, NZ, NU, Tx, Br, TBr);
  for (int i = 0; i < NX; i++) {
    for (int k = 0; k < NZ; k++) {
      L[i * (NZ + NU) + k] = TAr[i * NZ + k];
      sa = fmax(sa, fabs(TAr[i * NZ + k] - Tx[i * NZ + k]));
    }
    for (int j = 0; j < NU; j++) {
      L[i * (NZ + NU) + NZ + j] = TBr[i * NU + j];
      sb = fmax(sb, fabs(TBr[i * NU + j]));
    }
  }
  for (int i = 0; i < NX; i++)
    for (int k = 0; k < NZ + NU; k++)
      e = fmax(e, fabs(J[i * (NZ + NU) + k] - L[i * (NZ + NU) + k]) / (k < NZ ? sa : sb));
  *err = e;
  return 0;
}

/* Step 3 (continued): the LQR on the reduced model. The cost Σ zᵀ Q z + δuᵀ R δu weighs the
 * base's position (0.2 m), orientation (0.01 rad), linear (2 m/s) and angular velocity
 * (0.2 rad/s) against 1 N m of joint torque: Q and R diagonal, each weight 1 / (its scale)²
 * (Bryson's rule: Bryson and Ho, "Applied Optimal Control", 1975, §5.7). The scales were chosen
 * so that the push below is caught without a foot pulling on the ground (min f_z > 0) and with
 * the least tangential/normal force ratio among the few tried (docs/mpc.md). */
static int design(plant *P, const double *Ar, const double *Br, dare_info *info) {
  static const double scale[NZ] = {0.2, 0.2, 0.2, 0.01, 0.01, 0.01, 2, 2, 2, 0.2, 0.2, 0.2};
  double Q[NZ * NZ] = {0}, R[NU * NU] = {0}, Pr[NZ * NZ];
  for (int i = 0; i < NZ; i++) Q[i * NZ + i] = 1 / (scale[i] * scale[i]);
  for (int i = 0; i < NU; i++) R[i * NU + i] = 1;
  return dare(NZ, NU, Ar, Br, Q, R, 1e-13, 200000, Pr, P->K, info);
}

/* One run's statistics. */
typedef struct run {
  double err_peak, err_end, ang_end, du_peak, fz_min, ratio_max, drift, t_end;
} run;

enum { REC = 5, NREC = STEPS / REC + 1, NCOL = 7 };

/* Step 4: 2 s at 1 kHz from q* with the base pushed to PUSH m/s sideways (the legs' joints moving
 * so that the feet stay still: v = T ξ), under τ = τ* − K z (feedback) or τ = τ* (not). Every
 * REC steps a record: t, base y − y* (m), |p − p*| (m), orientation error (rad), max |τ − τ*|
 * (N m), the smallest normal force (N), the largest tangential/normal ratio. A run that leaves
 * the contact model (a failed solve, or the base 0.2 m away) stops early, its records NAN. */
static void simulate(const plant *P, int feedback, int project, double rec[NREC][NCOL],
                     run *st) {
  static const double xi[6] = {0, PUSH, 0, 0, 0, 0};
  double q[NQ], v[NV], qn[NQ], d[NV], u[NU], f[NR], x0[12], x[12];
  memcpy(q, P->q, sizeof q);
  mat_mul(NV, 6, 1, P->T, xi, v);
  feet(q, x0);
  *st = (run){0, 0, 0, 0, INFINITY, 0, 0, 0};
  for (int n = 0; n <= STEPS; n++) {
    solo_difference(P->q, q, d);
    double z[NZ], err = 0, ang = 0, du = 0;
    for (int i = 0; i < 6; i++) z[i] = d[i], z[6 + i] = v[i];
    for (int i = 0; i < 3; i++) err += pow(q[i] - P->q[i], 2), ang += d[3 + i] * d[3 + i];
    err = sqrt(err), ang = sqrt(ang);
    for (int j = 0; j < NU; j++) {
      u[j] = P->u[j];
      for (int i = 0; feedback && i < NZ; i++) u[j] -= P->K[j * NZ + i] * z[i];
      du = fmax(du, fabs(u[j] - P->u[j]));
    }
    int fail = err > 0.2 || (n < STEPS && sim_step(q, v, u, qn, f, project));
    if (fail) {
      for (int r = n / REC + (n % REC != 0); r < NREC; r++)
        for (int c = 0; c < NCOL; c++) rec[r][c] = c ? NAN : r * REC * DT;
      break;
    }
    st->err_peak = fmax(st->err_peak, err), st->du_peak = fmax(st->du_peak, du);
    st->err_end = err, st->ang_end = ang, st->t_end = n * DT;
    double fz = INFINITY, ratio = 0;
    for (int k = 0; k < 4 && n < STEPS; k++) {
      fz = fmin(fz, f[3 * k + 2]);
      ratio = fmax(ratio, hypot(f[3 * k], f[3 * k + 1]) / f[3 * k + 2]);
    }
    if (n < STEPS) st->fz_min = fmin(st->fz_min, fz), st->ratio_max = fmax(st->ratio_max, ratio);
    if (n % REC == 0) {
      double *r = rec[n / REC];
      r[0] = n * DT, r[1] = q[1] - P->q[1], r[2] = err, r[3] = ang, r[4] = du;
      r[5] = n < STEPS ? fz : rec[n / REC - 1][5], r[6] = n < STEPS ? ratio : rec[n / REC - 1][6];
    }
    if (n < STEPS) memcpy(q, qn, sizeof q);
  }
  feet(q, x);
  for (int k = 0; k < 12; k++) st->drift = fmax(st->drift, fabs(x[k] - x0[k]));
}

static int write_dat(const char *path, double cl[NREC][NCOL], double ol[NREC][NCOL]) {
  FILE *out = fopen(path, "w");
  if (!out) return -1;
  fprintf(out, "# solo12_lqr (examples/mpc/solo12_lqr.c): a %.1f m/s sideways push, closed loop "
               "(LQR) and open loop (tau = tau*)\n# t [s], then for each: base y - y* [m], "
               "|p - p*| [m], orientation error [rad], max |tau - tau*| [N m], min f_z [N], "
               "max |f_t|/f_z\n", PUSH);
  for (int r = 0; r < NREC; r++) {
    fprintf(out, "%.3f", cl[r][0]);
    for (int c = 1; c < NCOL; c++) fprintf(out, " %.6e", cl[r][c]);
    for (int c = 1; c < NCOL; c++) fprintf(out, " %.6e", ol[r][c]);
    fprintf(out, "\n");
  }
  return fclose(out);
}

/* A state away from the equilibrium (turned, moving, other torques), where J_q ≠ I and
 * J_v ≠ dt I: the second point of the linearization's check. */
static void off_state(const plant *P, double *q, double *v, double *u) {
  double w[NV];
  for (int i = 0; i < NV; i++) w[i] = 0.05 * sin(i + 1.0), v[i] = 0.5 * cos(2.0 * i + 1);
  solo_integrate(P->q, w, 1.0, q);
  for (int j = 0; j < NU; j++) u[j] = P->u[j] + 0.2 * sin(3.0 * j);
}

/* The results main prints and checks. */
typedef struct results {
  double high, qdd_eq, f_gap, errA[2], errB[2], invariance, err_proj;
  double rho_full, rho_open, rho_closed;
  dare_info info;
  run cl, ol, raw; /* closed loop, open loop, closed loop without the projection */
} results;

/* Steps 1-3: the equilibrium, the linearization and its checks, the reduction and the LQR. */
static int build(plant *P, results *R) {
  static double A[NX * NX], B[NX * NU], A2[NX * NX], B2[NX * NU];
  double v0[NV] = {0}, tau[NV], qdd[NV], f[NR], Ar[NZ * NZ], Br[NZ * NU], C[NZ * NZ];
  double q1[NQ], v1[NV], u1[NU];
  R->high = equilibrium(P);
  if (isnan(R->high)) return -1;
  full_tau(P->u, tau);
  if (solo_contact_fd(P->q, v0, tau, all_on, qdd, f)) return -1;
  R->qdd_eq = mat_maxabs(NV, 1, qdd), R->f_gap = 0;
  for (int a = 0; a < NR; a++) R->f_gap = fmax(R->f_gap, fabs(f[a] - P->f[a]));
  if (linearize(P->q, v0, P->u, A, B) ||
      check_linearization(P->q, v0, P->u, A, B, &R->errA[0], &R->errB[0]))
    return -1;
  off_state(P, q1, v1, u1);
  if (linearize(q1, v1, u1, A2, B2) ||
      check_linearization(q1, v1, u1, A2, B2, &R->errA[1], &R->errB[1]))
    return -1;
  if (null_space(P->q, P->T)) return -1;
  R->invariance = reduce(A, B, P->T, Ar, Br);
  if (check_projected(P, Ar, Br, &R->err_proj)) return -1;
  R->rho_full = spectral_radius_bound(NX, A, 16);
  R->rho_open = spectral_radius_bound(NZ, Ar, 16);
  if (design(P, Ar, Br, &R->info)) return -1;
  mat_mul(NZ, NU, NZ, Br, P->K, C);
  for (int i = 0; i < NZ * NZ; i++) C[i] = Ar[i] - C[i];
  R->rho_closed = spectral_radius_bound(NZ, C, 16);
  return 0;
}

int main(int argc, char **argv) {
  static double cl[NREC][NCOL], ol[NREC][NCOL], raw[NREC][NCOL];
  static plant P;
  results R;
  int check = 0;
  const char *path = NULL;
  for (int k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--check")) check = 1;
    else path = argv[k];
  }
  if (build(&P, &R)) return fprintf(stderr, "solo12_lqr: a solve failed\n"), 1;
  simulate(&P, 1, 1, cl, &R.cl);
  simulate(&P, 0, 1, ol, &R.ol);
  simulate(&P, 1, 0, raw, &R.raw);
  if (path && write_dat(path, cl, ol))
    return fprintf(stderr, "solo12_lqr: cannot write %s\n", path), 2;
  printf("equilibrium: base z %.4f m, feet heights %.1e m, tau* max %.3f N m, |qdd| %.1e, "
         "forces vs KKT %.1e N, f_z %.3f %.3f %.3f %.3f N\n",
         P.q[2], R.high, mat_maxabs(NU, 1, P.u), R.qdd_eq, R.f_gap, P.f[2], P.f[5], P.f[8],
         P.f[11]);
  printf("linearization vs central differences (relative to max|A - I|, max|B|): "
         "equilibrium %.1e %.1e, moving state %.1e %.1e\n",
         R.errA[0], R.errB[0], R.errA[1], R.errB[1]);
  printf("contact-consistent subspace: invariance residual %.1e, simulated step vs the reduced "
         "model %.1e; spectral radius bound: full A %.6f, reduced A %.6f\n",
         R.invariance, R.err_proj, R.rho_full, R.rho_open);
  printf("DARE: %d iterations, last change %.1e, residual %.1e; closed loop radius %.6f\n",
         R.info.iterations, R.info.change, R.info.residual, R.rho_closed);
  static const char *name[3] = {"closed loop (LQR)", "open loop (tau = tau*)",
                                "closed loop, no projection"};
  for (int s = 0; s < 3; s++) {
    const run *r = s == 0 ? &R.cl : s == 1 ? &R.ol : &R.raw;
    printf("%s: %.2f s, peak |p - p*| %.2e m, at the end %.2e m and %.2e rad, peak |tau - tau*| "
           "%.3f N m, min f_z %.3f N, max |f_t|/f_z %.3f, feet moved %.1e m\n",
           name[s], r->t_end, r->err_peak, r->err_end,
           r->ang_end, r->du_peak, r->fz_min, r->ratio_max, r->drift);
  }
  if (!check) return 0;
  /* the feet on the ground and τ* holding them (rounding: 1e-12 m, 1e-9); A, B against the
   * differences (their own error near 1e-10 of the entries: 1e-6); the subspace invariant
   * (rounding of the products: 1e-9) and the simulated step's differences on it (1e-6); the
   * Riccati residual (1e-10, the recursion stops at a change of 1e-13); the closed loop stable;
   * the push felt (> 1 cm) and recovered at 2 s to 1e-4 (m, rad: 1/150 of the peak), the feet
   * pressing on the ground and moved by less than 0.1 mm */
  int ok = R.high < 1e-12 && R.qdd_eq < 1e-9 && R.f_gap < 1e-9 && R.errA[0] < 1e-6 &&
           R.errB[0] < 1e-6 && R.errA[1] < 1e-6 && R.errB[1] < 1e-6 && R.invariance < 1e-9 &&
           R.err_proj < 1e-6 &&
           R.info.residual < 1e-10 && R.rho_closed < 1 && R.cl.t_end == STEPS * DT &&
           R.cl.err_peak > 1e-2 && R.cl.err_end < 1e-4 && R.cl.ang_end < 1e-4 &&
           R.cl.fz_min > 0 && R.cl.drift < 1e-4;
  printf("solo12_lqr: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
