/* quarter_car_sim.c — the chassis-fixed double-wishbone quarter car of examples/quarter_car.mbd
 * (after Kang & Yoon, "On the improvement of a fully recursive formulation for the dynamic
 * analysis of multibody systems" (KSME), §3; the geometry and data are ours) released at rest at
 * its design position (its initial state: the spring is unloaded there) and simulated 2 s under
 * gravity: the corner settles on its coil-over. τ = the spring-damper's generalized forces
 * (quarter_car_passive_forces), q̈ from the generated quarter_car_fd_loops (three cut
 * spherical joints, 8 independent rows), the runtime's mb_simulate (Dormand & Prince 5(4) with
 * error control, rtol = atol = TOL; the two spherical tree joints' quaternions on SO(3) by its
 * Munthe-Kaas stages) and the coordinate projection after every accepted step
 * (examples/sim/loop_sim.h).
 *
 *   quarter_car_sim [--no-project] [--tol TOL] [--every N]
 *       CSV on stdout, a row every N accepted steps (default 1; TOL default 1e-10) and at 2 s: t,
 *       the 12 coordinates (quaternions qx qy qz qw), max|φ|, max|Kv|, the total energy E (J,
 *       gravity + kinetic + spring), the energy the damper dissipated D (J), then the wheel
 *       centre's height (m), the angles about x of the lower arm, the upper arm and the knuckle
 *       (deg: the arms swing about x, the knuckle's is the camber change) and the
 *       spring-damper's length (m). Summary on stderr (steps, fd_loops calls).
 *   quarter_car_sim --check
 *       runs with and without projection and checks (exit 0 or 1):
 *       - with projection, max|φ| ≤ 1e-10 and max|Kv| ≤ 1e-10 over the whole run;
 *       - the energy only decreases: the damper's power −c ℓ̇² ≤ 0 is the only non-conservative
 *         one (the loop constraints are scleronomic and do no work), so E(t_{n+1}) ≤ E(t_n) up to
 *         1e-12 |E(0)| between accepted steps (rounding: a few hundred ulps of E; measured at
 *         TOL = 1e-10: 7.1e-14 J, 6.1e-16 |E(0)|, at rest at the end of the run);
 *       - the energy balance E(t) + D(t) = E(0), D = ∫ c ℓ̇² dt a quadrature state of
 *         mb_simulate, to 1e-6 of D (measured at TOL = 1e-10: 6.0e-10 J = 2.5e-10 of D =
 *         2.34 J, in 150 steps, 920 fd_loops calls; fixed-step RK4 at dt = 1 ms: 8000 calls for
 *         5.3e-8 of D);
 *       - the corner settles: the kinetic energy at 2 s is below 1e-6 of its maximum, and the
 *         wheel centre sits lower than at the design position (the spring is unloaded there);
 *       - without projection, the drift max|φ| is larger than with it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "quarter_car_dynamics.h"
#include "loop_sim.h"

extern const mb_model quarter_car_model;
extern const mb_springs quarter_car_springs;
#define T_END 2.0
#define TOL 1e-10 /* rtol = atol of mb_simulate */
#define PI 3.14159265358979323846

/* Bodies (quarter_car_body_names): 1 lca, 2 knuckle, 3 wheel, 4 uca, 5 tie_rod. */
static void extra(void *ctx, double t, const double *q, const double *pose, double *out) {
  const double *lca = pose + 12, *knuckle = pose + 24, *wheel = pose + 36, *uca = pose + 48;
  const mb_spring *s = &quarter_car_springs.spring[0];
  double d[3];
  (void)ctx, (void)t, (void)q;
  out[0] = wheel[11];                              /* the wheel centre's z */
  out[1] = atan2(lca[7], lca[8]) * 180 / PI;       /* rotation about x: R = Rx for a pure swing */
  out[2] = atan2(uca[7], uca[8]) * 180 / PI;
  out[3] = atan2(knuckle[7], knuckle[8]) * 180 / PI;
  for (int r = 0; r < 3; r++) /* SL on the lower arm (body b = 1) minus SC on the chassis */
    d[r] = lca[9 + r] + lca[3 * r] * s->rb[0] + lca[3 * r + 1] * s->rb[1] +
           lca[3 * r + 2] * s->rb[2] - s->ra[r];
  out[4] = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static const loop_sim quarter_car = {
    "quarter_car", &quarter_car_model, &quarter_car_springs, QUARTER_CAR_NQ, QUARTER_CAR_NV,
    QUARTER_CAR_NB, QUARTER_CAR_NC, QUARTER_CAR_NJ, quarter_car_q_initial, quarter_car_v_initial,
    quarter_car_joint_names, quarter_car_joint_iq, quarter_car_crba, quarter_car_fk,
    quarter_car_fd_loops, quarter_car_loop_residual, quarter_car_loop_jacobian,
    quarter_car_project_q, quarter_car_project_v, quarter_car_passive_forces, 5,
    "wheel_z,lca_angle_deg,uca_angle_deg,knuckle_angle_deg,spring_length", extra, NULL};

static void summary(const char *what, double tol, const ls_stats *st) {
  fprintf(stderr,
          "quarter_car, %g s, DP5(4) tol %g, %s: %ld steps (%ld rejected), %ld fd_loops calls; "
          "max|phi| = %.2e, max|Kv| = %.2e, E(0) = %.10g J, E(end) = %.10g J, dissipated D = "
          "%.6g J, max KE %.4g J, KE(end) %.2e J, largest rise of E in a step %.2e J, "
          "max|E + D - E(0)| = %.2e J (%.2e of D); wheel centre z %.6f -> %.6f m, spring %.6f -> "
          "%.6f m; %.1f ms\n",
          T_END, tol, what, st->steps, st->rejected, st->calls, st->max_phi, st->max_kv, st->e0,
          st->e_end, st->dissipated, st->max_ke, st->ke_end, st->max_rise, st->max_balance,
          st->max_balance / st->dissipated, st->extra0[0], st->extra_end[0], st->extra0[4],
          st->extra_end[4], 1e3 * st->cpu_s);
}

int main(int argc, char **argv) {
  ls_args a = {1, 0, 1, TOL};
  if (ls_parse(argc, argv, &a,
               "usage: quarter_car_sim [--no-project] [--tol TOL] [--every N] | --check\n") != 0)
    return 2;
  ls_stats p, u;
  if (!a.check) {
    if (ls_run(&quarter_car, a.tol, T_END, a.project, stdout, a.every, &p) != 0) return 1;
    summary(a.project ? "projected" : "NOT projected", a.tol, &p);
    return 0;
  }
  if (ls_run(&quarter_car, a.tol, T_END, 1, NULL, 1, &p) != 0) return 1;
  summary("projected", a.tol, &p);
  if (ls_run(&quarter_car, a.tol, T_END, 0, NULL, 1, &u) != 0) return 1;
  summary("NOT projected", a.tol, &u);
  int ok = 1;
#define CHECK(cond, ...) \
  if (!(cond)) ok = 0, fprintf(stderr, "FAIL: " __VA_ARGS__), fprintf(stderr, "\n")
  CHECK(p.max_phi <= 1e-10, "projected max|phi| %.2e > 1e-10", p.max_phi);
  CHECK(p.max_kv <= 1e-10, "projected max|Kv| %.2e > 1e-10", p.max_kv);
  CHECK(p.dissipated > 0, "nothing dissipated");
  CHECK(p.max_rise <= 1e-12 * fabs(p.e0), "the energy rose by %.2e J in a step (> %.2e)",
        p.max_rise, 1e-12 * fabs(p.e0));
  CHECK(p.max_balance <= 1e-6 * p.dissipated, "energy balance off by %.2e J (> %.2e)",
        p.max_balance, 1e-6 * p.dissipated);
  CHECK(p.ke_end <= 1e-6 * p.max_ke, "not settled: KE(end) %.2e J", p.ke_end);
  CHECK(p.extra_end[0] < p.extra0[0], "the wheel centre did not go down (%.6f m -> %.6f m)",
        p.extra0[0], p.extra_end[0]);
  CHECK(u.max_phi > 10 * p.max_phi, "unprojected drift %.2e not > 10x the projected %.2e",
        u.max_phi, p.max_phi);
  printf("quarter_car_sim --check: %s\n", ok ? "ok" : "FAIL");
  return ok ? 0 : 1;
}
