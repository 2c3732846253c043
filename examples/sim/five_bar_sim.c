/* five_bar_sim.c — the planar five-bar of Critchley & Anderson, "A Generalized Recursive
 * Coordinate Reduction Method for Multibody System Dynamics" (2003), §6 (examples/five_bar.mbd),
 * released from rest at the paper's initial state (q1 = π/4, q2 = π/2, q3 = −π/2, q4 = 0: the
 * model's `initial` statements) and simulated 5 s under gravity with τ = 0 and no damping, by the
 * generated five_bar_fd_loops (Lagrange multipliers), the runtime's mb_simulate (Dormand &
 * Prince 5(4) with error control, rtol = atol = TOL) and the coordinate projection after every
 * accepted step (examples/sim/loop_sim.h).
 *
 *   five_bar_sim [--no-project] [--tol TOL] [--every N]
 *       CSV on stdout, a row every N accepted steps (default 1; TOL default 1e-10) and at 5 s:
 *       t, q1..q4, max|φ|, max|Kv|, the total energy E (J), the dissipated energy (0 here), bar
 *       2's world angle (deg, of its axis from the x axis: vertical at ±90) and bar2_vertical (1
 *       from the step at which bar 2 was first vertical on). On stderr: a summary (steps,
 *       fd_loops calls), with the first time bar 2 is vertical (interpolated).
 *   five_bar_sim --check
 *       runs with and without projection and checks (exit 0 or 1):
 *       - with projection, max|φ| ≤ 1e-10 and max|Kv| ≤ 1e-10 over the whole run;
 *       - the energy is conserved (no damping, no applied force: the constraint forces do no work
 *         on a scleronomic mechanism): max|E(t) − E(0)| ≤ 1e-9 of the largest kinetic energy of
 *         the run (the energy the motion exchanges; E(0) itself depends on the datum). At the
 *         default TOL = 1e-10 the drift measured is 4.7e-10 J = 1.6e-10 of max KE (2.87 J), in
 *         441 steps (2648 fd_loops calls; fixed-step RK4 needed 20000 calls, dt = 1 ms, for
 *         4.9e-11), and falls about 10-fold per 10-fold tighter TOL (1.7e-8, 1.5e-9, 1.6e-10,
 *         2.4e-11 of max KE at 1e-8 ... 1e-11): the bound has a 6-fold margin;
 *       - without projection, the drift max|φ| is larger than with it (the Baumgarte-free index-1
 *         formulation K q̈ = −K̇v lets φ drift: it only keeps φ̈ = 0);
 *       - bar 2 is first vertical at 0.81 s to the paper's two digits, 0.805 ≤ t ≤ 0.815 (the
 *         paper reports t ≈ 0.81 s, where the independent pair (q1, q4) of its coordinate
 *         partition becomes singular: with q2, q3 dependent the determinant of their constraint
 *         rows is L cos(q1 + q2), examples/five_bar.mbd; the multiplier formulation has no
 *         partition and passes through it). Measured: 0.8103 s (interpolated linearly between
 *         the accepted steps; 0.8101 s at TOL = 1e-8, 178 steps). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "five_bar_dynamics.h"
#include "loop_sim.h"

extern const mb_model five_bar_model;
#define T_END 5.0
#define TOL 1e-10 /* rtol = atol of mb_simulate */
#define PI 3.14159265358979323846

/* Bar 2's axis (body x) in world coordinates is the first column of its R: vertical when its x
 * component R[0] is 0. The first sign change is interpolated linearly between steps. */
typedef struct bar2_watch {
  double t_prev, c_prev, t_vertical;
  int started;
} bar2_watch;

static void bar2_extra(void *ctx, double t, const double *q, const double *pose, double *out) {
  bar2_watch *w = ctx;
  const double *R = pose + 12 * 2; /* body 2 = bar2 */
  (void)q;
  out[0] = atan2(R[3], R[0]) * 180 / PI;
  if (w->started && w->t_vertical < 0 && (w->c_prev > 0) != (R[0] > 0))
    w->t_vertical = w->t_prev + (t - w->t_prev) * w->c_prev / (w->c_prev - R[0]);
  out[1] = w->t_vertical >= 0;
  w->t_prev = t, w->c_prev = R[0], w->started = 1;
}

static loop_sim five_bar(bar2_watch *w) {
  loop_sim S = {"five_bar", &five_bar_model, NULL, FIVE_BAR_NQ, FIVE_BAR_NV, FIVE_BAR_NB,
                FIVE_BAR_NC, FIVE_BAR_NJ, five_bar_q_initial, five_bar_v_initial,
                five_bar_joint_names, five_bar_joint_iq, five_bar_crba, five_bar_fk,
                five_bar_fd_loops, five_bar_loop_residual, five_bar_loop_jacobian,
                five_bar_project_q, five_bar_project_v, NULL, 2, "bar2_angle_deg,bar2_vertical",
                bar2_extra, w};
  memset(w, 0, sizeof *w);
  w->t_vertical = -1;
  return S;
}

static void summary(const char *what, double tol, const ls_stats *st, const bar2_watch *w) {
  fprintf(stderr,
          "five_bar, %g s, DP5(4) tol %g, %s: %ld steps (%ld rejected), %ld fd_loops calls; "
          "max|phi| = %.2e, max|Kv| = %.2e, E(0) = %.10g J, max|E - E(0)| = %.2e J (%.2e of max "
          "KE %.4g J, %.2e of |E(0)|); bar 2 first vertical at t = %.4f s (paper: 0.81 s); "
          "%.1f ms\n",
          T_END, tol, what, st->steps, st->rejected, st->calls, st->max_phi, st->max_kv, st->e0,
          st->max_de, st->max_de / st->max_ke, st->max_ke, st->max_de / fabs(st->e0),
          w->t_vertical, 1e3 * st->cpu_s);
}

int main(int argc, char **argv) {
  ls_args a = {1, 0, 1, TOL};
  if (ls_parse(argc, argv, &a,
               "usage: five_bar_sim [--no-project] [--tol TOL] [--every N] | --check\n") != 0)
    return 2;
  bar2_watch w;
  loop_sim S = five_bar(&w);
  ls_stats p, u;
  if (!a.check) {
    if (ls_run(&S, a.tol, T_END, a.project, stdout, a.every, &p) != 0) return 1;
    summary(a.project ? "projected" : "NOT projected", a.tol, &p, &w);
    return 0;
  }
  if (ls_run(&S, a.tol, T_END, 1, NULL, 1, &p) != 0) return 1;
  summary("projected", a.tol, &p, &w);
  double t_vertical = w.t_vertical;
  S = five_bar(&w);
  if (ls_run(&S, a.tol, T_END, 0, NULL, 1, &u) != 0) return 1;
  summary("NOT projected", a.tol, &u, &w);
  int ok = 1;
#define CHECK(cond, ...) \
  if (!(cond)) ok = 0, fprintf(stderr, "FAIL: " __VA_ARGS__), fprintf(stderr, "\n")
  CHECK(p.max_phi <= 1e-10, "projected max|phi| %.2e > 1e-10", p.max_phi);
  CHECK(p.max_kv <= 1e-10, "projected max|Kv| %.2e > 1e-10", p.max_kv);
  CHECK(p.max_de <= 1e-9 * p.max_ke, "energy drift %.2e > 1e-9 max KE (%.2e)", p.max_de,
        1e-9 * p.max_ke);
  CHECK(u.max_phi > 10 * p.max_phi, "unprojected drift %.2e not > 10x the projected %.2e",
        u.max_phi, p.max_phi);
  CHECK(t_vertical >= 0.805 && t_vertical <= 0.815, "bar 2 first vertical at %.4f s, not 0.81 s",
        t_vertical);
  printf("five_bar_sim --check: %s\n", ok ? "ok" : "FAIL");
  return ok ? 0 : 1;
}
