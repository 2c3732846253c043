/* test_static.c — static equilibrium (runtime/static.c; mb.h "Static equilibrium"). References,
 * stated again at each test:
 *   - closed form: a pendulum (point mass m at distance l, angle θ from hanging) with a torsional
 *     spring k whose rest angle is the top, θ_ref = π: with φ = θ − π the equilibria solve
 *     k φ = m g l sin φ (φ = 0, the top, and for k < m g l a pair ±φ0), φ0 found here by
 *     bisection; V'' = k + m g l cos θ gives their stability (the top a maximum for k < m g l);
 *   - independent evaluations: r = mb_gravity − mb_passive_forces − τ at the answer, the stiffness
 *     against central differences of that r along the tangent space (mb_integrate), its inertia
 *     against the eigenvalues of the symmetrized differences (cyclic Jacobi);
 *   - a closed loop (examples/quarter_car.mbd, its strut spring, wheel spin locked): φ(q*) = 0,
 *     r − Kᵀλ = 0 from mb_loop_jacobian, and mb_fd_loops at (q*, v = 0, τ_passive(q*)) gives
 *     q̈ = 0 and the same λ;
 *   - Newton's quadratic convergence on the residual trace (order estimate), the contract's
 *     statuses. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"
#include "mbt_loopmodel.h"

enum { NV = 16, NQ = 24 };

static const double X[3] = {1, 0, 0}, Y[3] = {0, 1, 0}, ZERO[3] = {0, 0, 0};
static const double G = 9.81;

/* A workspace and the solver's scratch for m (and L). */
typedef struct fix {
  mb_workspace ws;
  double *wbuf;
  void *scratch;
} fix;

static void fix_open(fix *f, const mb_model *m, const mb_loops *L) {
  memset(f, 0, sizeof *f);
  assert_non_null(f->wbuf = mbt_workspace_new(m, &f->ws));
  assert_non_null(f->scratch = malloc(mb_static_scratch_size(m, L)));
}

static void fix_close(fix *f) {
  free(f->wbuf);
  free(f->scratch);
}

/* r = g − τ_passive(q, 0) − τ (τ NULL: 0), by mb_gravity and mb_passive_forces; returns the
 * scale of mb_static's convergence test, max(1, |g|∞ + |τ_passive|∞ + |τ|∞) (over every
 * coordinate: at least the solver's, which takes the unlocked ones). */
static double resid(const mb_model *m, const mb_springs *S, mb_workspace *ws, const double *q,
                    const double *tau, double *r) {
  double tp[NV] = {0}, sg, sp, st = tau ? mbt_max_abs(tau, (size_t)m->nv) : 0.0;
  assert_int_equal(mb_gravity(m, ws, q, r), MB_OK);
  if (S) assert_int_equal(mb_passive_forces(m, S, ws, q, NULL, tp), MB_OK);
  sg = mbt_max_abs(r, (size_t)m->nv), sp = mbt_max_abs(tp, (size_t)m->nv);
  for (int k = 0; k < m->nv; k++) r[k] -= tp[k] + (tau ? tau[k] : 0.0);
  return fmax(1.0, sg + sp + st);
}

/* Central differences of resid along the tangent space, step h: Hd[nv × nv]. */
static void resid_fd(const mb_model *m, const mb_springs *S, mb_workspace *ws, const double *q,
                     double h, double *Hd) {
  int nv = m->nv;
  for (int k = 0; k < nv; k++) {
    double e[NV] = {0}, qp[NQ], qm[NQ], rp[NV], rm[NV];
    e[k] = 1.0;
    assert_int_equal(mb_integrate(m, q, e, h, qp), MB_OK);
    assert_int_equal(mb_integrate(m, q, e, -h, qm), MB_OK);
    resid(m, S, ws, qp, NULL, rp);
    resid(m, S, ws, qm, NULL, rm);
    for (int i = 0; i < nv; i++) Hd[nv * i + k] = (rp[i] - rm[i]) / (2.0 * h);
  }
}

/* Signs of the eigenvalues of the symmetric n × n A (destroyed) by cyclic Jacobi rotations;
 * |λ| ≤ z counts as zero. in = {positive, negative, zero}. */
static void jacobi_inertia(int n, double *A, double z, int in[3]) {
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = 0.0;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) off += A[n * p + q] * A[n * p + q];
    if (off < 1e-30) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        double apq = A[n * p + q];
        if (apq == 0.0) continue;
        double th = 0.5 * (A[n * q + q] - A[n * p + p]) / apq;
        double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
        double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < n; k++) { /* columns p, q */
          double akp = A[n * k + p], akq = A[n * k + q];
          A[n * k + p] = c * akp - s * akq, A[n * k + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) { /* rows p, q */
          double apk = A[n * p + k], aqk = A[n * q + k];
          A[n * p + k] = c * apk - s * aqk, A[n * q + k] = s * apk + c * aqk;
        }
      }
  }
  in[0] = in[1] = in[2] = 0;
  for (int k = 0; k < n; k++) in[fabs(A[n * k + k]) <= z ? 2 : A[n * k + k] > 0 ? 0 : 1]++;
}

/* ------------------------------------------------------------------------------ the pendulum */

/* Mass m at (0, 0, −l) on a revolute joint about y (θ = 0 hanging); gravity −9.81 z. */
static mbt_tree *pendulum(double m, double l) {
  mbt_tree *t = mbt_tree_new(1);
  const double c[3] = {0, 0, -l}, Ic[6] = {0};
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, Y, NULL, ZERO);
  mbt_tree_body(t, 1, m, c, Ic);
  mbt_tree_finish(t);
  return t;
}

/* The root φ0 ∈ (0, π) of k φ = a sin φ (k < a) by bisection. */
static double bisect(double k, double a) {
  double lo = 1e-6, hi = MBT_PI; /* a sin φ − k φ: > 0 at lo, < 0 at π */
  for (int it = 0; it < 200; it++) {
    double mid = 0.5 * (lo + hi);
    if (a * sin(mid) - k * mid > 0.0)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* Reference: the closed form above. k < m g l: from θ = 0.8 the stable equilibrium θ* = π − φ0
 * (V'' = k + m g l cos θ* > 0), from π + 0.1 the top (V'' = k − m g l < 0: a maximum), and from
 * π − 0.1 the top again (Newton finds roots, whatever their stability); k > m g l: the top is the
 * one equilibrium and stable. */
static void test_pendulum(void **state) {
  (void)state;
  const double m = 2.0, l = 0.5, a = m * G * l;
  mbt_tree *t = pendulum(m, l);
  fix f;
  fix_open(&f, &t->model, NULL);
  double k = 4.0, qref = MBT_PI;
  mb_springs S = {0, NULL, NULL, NULL, &k, &qref};
  mb_static_result res;
  double phi0 = bisect(k, a), q = 0.8;
  assert_true(fabs(k * phi0 - a * sin(phi0)) < 1e-12);
  assert_int_equal(
      mb_static(&t->model, &S, NULL, &f.ws, NULL, f.scratch, NULL, NULL, NULL, &q, NULL, &res),
      MB_OK);
  MBT_ASSERT_NEAR1(q, MBT_PI - phi0, 1e-12);
  assert_true(k + a * cos(q) > 0.0);
  assert_int_equal(res.npos, 1), assert_int_equal(res.nneg, 0), assert_int_equal(res.nzero, 0);
  assert_true(res.stable && !res.saddle && !res.maximum);
  assert_true(res.residual <= 1e-10 * a);
  const double starts[2] = {MBT_PI + 0.1, MBT_PI - 0.1};
  for (int s = 0; s < 2; s++) {
    q = starts[s];
    assert_int_equal(
        mb_static(&t->model, &S, NULL, &f.ws, NULL, f.scratch, NULL, NULL, NULL, &q, NULL, &res),
        MB_OK);
    MBT_ASSERT_NEAR1(q, MBT_PI, 1e-12);
    assert_int_equal(res.npos, 0), assert_int_equal(res.nneg, 1), assert_int_equal(res.nzero, 0);
    assert_true(res.maximum && !res.stable && !res.saddle);
  }
  k = 12.0, q = 2.0; /* k > m g l */
  assert_int_equal(
      mb_static(&t->model, &S, NULL, &f.ws, NULL, f.scratch, NULL, NULL, NULL, &q, NULL, &res),
      MB_OK);
  MBT_ASSERT_NEAR1(q, MBT_PI, 1e-12);
  assert_true(res.stable && res.npos == 1);
  fix_close(&f);
  mbt_tree_free(t);
}

/* The pendulum's r = g − τ_passive = a sin θ + k (θ − π) and H = a cos θ + k in closed form
 * (V = −a cos θ + ½ k (θ − π)²), for mb_static_options.forces: the caller's forces (a generated
 * p_gravity, p_passive_forces and p_gravity_derivatives in a controller). */
typedef struct closed_form {
  double a, k;
  int calls;
} closed_form;

static int pendulum_forces(void *ctx, const double *q, double *r, double *H) {
  closed_form *c = ctx;
  c->calls++;
  r[0] = c->a * sin(q[0]) + c->k * (q[0] - MBT_PI);
  if (H) H[0] = c->a * cos(q[0]) + c->k;
  return 0;
}

/* Reference: the bisection root again, now with r and H from the callback alone (no springs
 * given to mb_static: the callback is what it reads); a failing callback stops the solve with
 * its status. */
static void test_forces_callback(void **state) {
  (void)state;
  const double m = 2.0, l = 0.5, a = m * G * l;
  mbt_tree *t = pendulum(m, l);
  fix f;
  fix_open(&f, &t->model, NULL);
  closed_form cf = {a, 4.0, 0};
  mb_static_options o = MB_STATIC_DEFAULTS;
  o.forces = pendulum_forces, o.ctx = &cf;
  mb_static_result res;
  double q = 0.8;
  assert_int_equal(
      mb_static(&t->model, NULL, NULL, &f.ws, NULL, f.scratch, &o, NULL, NULL, &q, NULL, &res),
      MB_OK);
  MBT_ASSERT_NEAR1(q, MBT_PI - bisect(cf.k, a), 1e-12);
  assert_true(res.stable && cf.calls > 0);
  o.forces = NULL; /* the runtime's own r and H: the same root (the spring as the model's) */
  double k = cf.k, qref = MBT_PI, q2 = 0.8;
  mb_springs S = {0, NULL, NULL, NULL, &k, &qref};
  assert_int_equal(
      mb_static(&t->model, &S, NULL, &f.ws, NULL, f.scratch, &o, NULL, NULL, &q2, NULL, &res),
      MB_OK);
  MBT_ASSERT_NEAR1(q2, q, 1e-12);
  fix_close(&f);
  mbt_tree_free(t);
}

/* ------------------------------------------------------------------------ arms with springs */

/* Two links hanging from the world: joint 1 about y at the origin, joint 2 about x at the end of
 * link 1 (length 0.6); the tip of link 2 (length 0.5) pulled by a point spring to a world point;
 * joint 2's own stiffness k2 toward 0.5. */
static mbt_tree *arm2(void) {
  mbt_tree *t = mbt_tree_new(2);
  const double r2[3] = {0, 0, -0.6}, c1[3] = {0.02, 0, -0.3}, c2[3] = {0, 0.03, -0.25};
  const double I1[6] = {0.03, 0.03, 0.002, 0, 0, 0}, I2[6] = {0.02, 0.02, 0.001, 0, 0, 0};
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, Y, NULL, ZERO);
  mbt_tree_body(t, 1, 1.5, c1, I1);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, X, NULL, r2);
  mbt_tree_body(t, 2, 1.0, c2, I2);
  mbt_tree_finish(t);
  return t;
}

static const mb_spring ARM_SPRING = {0, 2, {0.7, 0.2, -0.3}, {0, 0, -0.5}, 40.0, 0.0, 0.15};
static double arm_k[2] = {0.0, 3.0}, arm_ref[2] = {0.0, 0.5};

/* The stiffness at q against central differences of r (h = 1e-4: truncation h²/6 |r'''| ≈ 2e-9
 * of the scale, far inside 1e-7), and the reported inertia against Jacobi's eigenvalues of the
 * symmetrized differences. */
static void check_hessian(const mb_model *m, const mb_springs *S, fix *f, const double *q,
                          const mb_static_result *res) {
  int nv = m->nv, in[3];
  double H[NV * NV], Hd[NV * NV];
  assert_int_equal(mb_static_stiffness(m, S, &f->ws, f->scratch, 1e-5, q, H), MB_OK);
  resid_fd(m, S, &f->ws, q, 1e-4, Hd);
  MBT_ASSERT_REL(H, Hd, nv * nv, 1e-7);
  for (int i = 0; i < nv; i++) /* at an equilibrium H is symmetric (up to the differences) */
    for (int j = 0; j < nv; j++) Hd[nv * i + j] = 0.5 * (H[nv * i + j] + H[nv * j + i]);
  MBT_ASSERT_REL(H, Hd, nv * nv, 1e-8);
  jacobi_inertia(nv, Hd, 1e-8 * mbt_max_abs(H, (size_t)(nv * nv)), in);
  assert_int_equal(res->npos, in[0]), assert_int_equal(res->nneg, in[1]);
  assert_int_equal(res->nzero, in[2]);
}

/* Reference: r(q*) = 0 by mb_gravity and mb_passive_forces, relative to the terms' size; the
 * Hessian against differences (check_hessian); with applied torques τ too. */
static void test_arm_springs(void **state) {
  (void)state;
  mbt_tree *t = arm2();
  const mb_model *m = &t->model;
  fix f;
  fix_open(&f, m, NULL);
  mb_springs S = {1, &ARM_SPRING, NULL, NULL, arm_k, arm_ref};
  assert_int_equal(mb_springs_check(m, &S, NULL, 0), 0);
  const double taus[2][2] = {{0, 0}, {0.4, -0.3}};
  for (int c = 0; c < 2; c++) {
    double q[2] = {0.5, 0.5}, r[2];
    mb_static_result res;
    assert_int_equal(
        mb_static(m, &S, NULL, &f.ws, NULL, f.scratch, NULL, taus[c], NULL, q, NULL, &res), MB_OK);
    double s = resid(m, &S, &f.ws, q, taus[c], r);
    MBT_ASSERT_NEAR(r, ZERO, 2, 1e-10 * s);
    assert_true(fabs(q[0] - 0.5) > 0.05); /* the springs moved it: not the start */
    check_hessian(m, &S, &f, q, &res);
    assert_true(res.stable);
    print_message("arm, tau %d: q* = %.12f %.12f in %d iterations, |r| %.2e\n", c, q[0], q[1],
                  res.iterations, res.residual);
  }
  fix_close(&f);
  mbt_tree_free(t);
}

/* A body on a spherical joint at the origin (COM c off the pivot, mass 1.5) held by two point
 * springs: the quaternion's tangent space. V = m g z_COM + mb_spring_energy. */
static const double SPH_C[3] = {0.1, 0.05, -0.4};
static const mb_spring SPH_SPRINGS[2] = {{0, 1, {0.5, 0, 0}, {0, 0, -0.4}, 30.0, 0.0, 0.2},
                                         {0, 1, {0, 0.4, -0.3}, {0.1, 0, -0.2}, 20.0, 0.0, 0.1}};

static double sph_energy(const mb_model *m, const mb_springs *S, mb_workspace *ws,
                         const double *q) {
  double R[9];
  mbs_quat_to_rot(q, R); /* child → world */
  double z = R[6] * SPH_C[0] + R[7] * SPH_C[1] + R[8] * SPH_C[2];
  return 1.5 * G * z + mb_spring_energy(m, S, ws, q);
}

/* Reference: r(q*) = 0 by mb_gravity and mb_passive_forces; |q*| = 1; the Hessian along the
 * tangent space against differences through mb_integrate and its inertia against Jacobi's
 * (check_hessian); and the energy itself: V(q* ⊕ w) − V(q*) for 400 random |w_k| ≤ 0.02 is never
 * negative at the stable answer (from near the energy's global minimum, found by sampling), and
 * negative for some w at the saddle Newton reaches from near the identity. */
static void test_spherical_springs(void **state) {
  (void)state;
  mbt_tree *t = mbt_tree_new(1);
  const double Ic[6] = {0.05, 0.04, 0.02, 0.001, 0, 0};
  mbt_tree_joint(t, 1, 0, MB_JOINT_SPHERICAL, NULL, NULL, ZERO);
  mbt_tree_body(t, 1, 1.5, SPH_C, Ic);
  mbt_tree_finish(t);
  const mb_model *m = &t->model;
  mb_springs S = {2, SPH_SPRINGS, NULL, NULL, NULL, NULL};
  fix f;
  fix_open(&f, m, NULL);
  const double starts[2][4] = {{0.28, 0.15, -0.91, -0.27}, {0.1, -0.05, 0.02, 1.0}};
  for (int c = 0; c < 2; c++) {
    double q[4], r[3], lower = 0.0;
    mb_static_result res;
    memcpy(q, starts[c], sizeof q);
    assert_int_equal(
        mb_static(m, &S, NULL, &f.ws, NULL, f.scratch, NULL, NULL, NULL, q, NULL, &res), MB_OK);
    double s = resid(m, &S, &f.ws, q, NULL, r);
    MBT_ASSERT_NEAR(r, ZERO, 3, 1e-10 * s);
    MBT_ASSERT_NEAR1(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-14);
    check_hessian(m, &S, &f, q, &res);
    mbt_rng rng;
    mbt_rng_seed(&rng, 7);
    double V0 = sph_energy(m, &S, &f.ws, q);
    for (int k = 0; k < 400; k++) {
      double w[3], qw[4];
      mbt_rand_vec(&rng, 3, -0.02, 0.02, w);
      assert_int_equal(mb_integrate(m, q, w, 1.0, qw), MB_OK);
      lower = fmin(lower, sph_energy(m, &S, &f.ws, qw) - V0);
    }
    print_message("spherical, start %d: inertia +%d -%d 0%d, lowest V(q* + w) - V(q*) %.3e\n", c,
                  res.npos, res.nneg, res.nzero, lower);
    if (c == 0)
      assert_true(res.stable && lower == 0.0);
    else
      assert_true(res.saddle && res.npos == 2 && res.nneg == 1 && lower < -1e-5);
  }
  fix_close(&f);
  mbt_tree_free(t);
}

/* ------------------------------------------------------------------------------------- locks */

/* Reference: with joint 2 of a three-link arm locked, it keeps its value exactly and r vanishes
 * on the other two (mb_gravity, mb_passive_forces) while the lock holds a torque; the inertia is
 * Jacobi's of the differences' free block. */
static void test_locks(void **state) {
  (void)state;
  mbt_tree *t = mbt_tree_new(3);
  const double r2[3] = {0, 0, -0.6}, c1[3] = {0.02, 0, -0.3}, c2[3] = {0, 0.03, -0.25};
  const double I1[6] = {0.03, 0.03, 0.002, 0, 0, 0};
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, Y, NULL, ZERO);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, X, NULL, r2);
  mbt_tree_joint(t, 3, 2, MB_JOINT_REVOLUTE, Y, NULL, r2);
  for (int i = 1; i <= 3; i++) mbt_tree_body(t, i, 1.0 + 0.2 * i, i == 2 ? c2 : c1, I1);
  mbt_tree_finish(t);
  const mb_model *m = &t->model;
  double k[3] = {2.0, 3.0, 1.5}, ref[3] = {0.4, -0.2, 0.9};
  mb_springs S = {1, &ARM_SPRING, NULL, NULL, k, ref};
  fix f;
  fix_open(&f, m, NULL);
  int lock[3] = {0, 1, 0};
  double q[3] = {0.1, 0.7, -0.1}, r[3], Hd[9], B[4];
  mb_static_result res;
  assert_int_equal(mb_static(m, &S, NULL, &f.ws, NULL, f.scratch, NULL, NULL, lock, q, NULL, &res),
                   MB_OK);
  assert_true(q[1] == 0.7);
  double s = resid(m, &S, &f.ws, q, NULL, r);
  MBT_ASSERT_NEAR1(r[0], 0.0, 1e-10 * s);
  MBT_ASSERT_NEAR1(r[2], 0.0, 1e-10 * s);
  assert_true(fabs(r[1]) > 1e-2); /* the lock's reaction */
  resid_fd(m, &S, &f.ws, q, 1e-4, Hd);
  const int fr[2] = {0, 2};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      B[2 * i + j] = 0.5 * (Hd[3 * fr[i] + fr[j]] + Hd[3 * fr[j] + fr[i]]);
  int in[3];
  jacobi_inertia(2, B, 1e-8 * mbt_max_abs(Hd, 9), in);
  assert_int_equal(res.npos, in[0]), assert_int_equal(res.nneg, in[1]);
  assert_int_equal(res.nzero, in[2]);
  fix_close(&f);
  mbt_tree_free(t);
}

/* A pendulum (revolute about y) on a floating base turned by β about y. Reference: with the
 * base's six dofs locked it hangs at θ* = −β (its world angle β + θ is 0), the base untouched;
 * unlocked, nothing balances the base's weight (mb.h): MB_ENUMERIC with res.singular naming a
 * base coordinate, q unchanged. */
static void test_floating_base(void **state) {
  (void)state;
  mbt_tree *t = mbt_tree_new(2);
  const double cb[3] = {0, 0, 0.1}, Ib[6] = {0.1, 0.1, 0.1, 0, 0, 0};
  const double cp[3] = {0, 0, -0.5}, Ip[6] = {0.01, 0.01, 0.001, 0, 0, 0};
  mbt_tree_joint(t, 1, 0, MB_JOINT_FLOATING, NULL, NULL, ZERO);
  mbt_tree_body(t, 1, 5.0, cb, Ib);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, Y, NULL, ZERO);
  mbt_tree_body(t, 2, 1.0, cp, Ip);
  mbt_tree_finish(t);
  const mb_model *m = &t->model;
  fix f;
  fix_open(&f, m, NULL);
  const double beta = 0.3;
  const double q0[8] = {0.1, -0.2, 1.0, 0, sin(beta / 2), 0, cos(beta / 2), 0.4};
  double q[8];
  int lock[7] = {1, 1, 1, 1, 1, 1, 0};
  mb_static_result res;
  memcpy(q, q0, sizeof q);
  assert_int_equal(
      mb_static(m, NULL, NULL, &f.ws, NULL, f.scratch, NULL, NULL, lock, q, NULL, &res), MB_OK);
  MBT_ASSERT_NEAR(q, q0, 7, 0.0);
  MBT_ASSERT_NEAR1(q[7], -beta, 1e-12);
  assert_true(res.stable && res.npos == 1);
  memcpy(q, q0, sizeof q);
  assert_int_equal(
      mb_static(m, NULL, NULL, &f.ws, NULL, f.scratch, NULL, NULL, NULL, q, NULL, &res),
      MB_ENUMERIC);
  assert_true(res.singular >= 1 && res.singular <= 6);
  print_message("free floating base: singular coordinate %d\n", res.singular - 1);
  MBT_ASSERT_NEAR(q, q0, 8, 0.0);
  fix_close(&f);
  mbt_tree_free(t);
}

/* ------------------------------------------------------------------------------------- loops */

/* Newton's order at the iterates of trace[0..n] (n Newton steps) above the noise floor (10⁻¹²
 * of the scale s): the smallest log(e_{k+1}/s) / log(e_k/s) over the steps with e_k ≤ 10⁻² s,
 * which is 2 for quadratic convergence (as e → 0 from below 1) and 1 for linear; 2 if none. */
static double newton_order(const double *trace, int n, double s) {
  double order = 2.0;
  for (int k = 0; k < n; k++) {
    double a = trace[k] / s, b = trace[k + 1] / s;
    if (a <= 1e-2 && b > 1e-12) order = fmin(order, log(b) / log(a));
  }
  return order;
}

static void print_trace(const char *what, const double *trace, int n) {
  print_message("%s: |F| per iteration:", what);
  for (int k = 0; k <= n; k++) print_message(" %.2e", trace[k]);
  print_message("\n");
}

/* examples/quarter_car.mbd: three spherical loops (8 independent rows), the strut's spring
 * unloaded at the design position q0, so the corner settles under gravity; the wheel's spin
 * (a symmetric wheel: no stiffness) locked. Reference: φ(q*) = 0; r − Kᵀλ = 0 with mb_gravity,
 * mb_passive_forces, mb_loop_jacobian; mb_fd_loops at (q*, v = 0, τ = τ_passive(q*)) gives
 * q̈ = 0 and the same λ; one stable mode (the travel); quadratic convergence. */
static void test_quarter_car(void **state) {
  (void)state;
  const char *src = getenv("MBDC_SOURCE_DIR");
  char path[4096];
  if (!src) fail_msg("MBDC_SOURCE_DIR is not set (run the test with ctest)");
  snprintf(path, sizeof path, "%s/examples/quarter_car.mbd", src);
  mbt_loopmodel lm;
  assert_int_equal(mbt_loopmodel_load(path, &lm), 0);
  const mb_model *m = lm.model;
  const mb_loops *L = lm.loops;
  const int nv = m->nv, nc = L->nc, wheel = mbt_loopmodel_body(&lm, "wheel");
  assert_true(nv <= NV && m->nq <= NQ && nc == 8 && wheel > 0 && lm.springs->n == 1);
  fix f;
  fix_open(&f, m, L);
  mb_loop_workspace lw = {0};
  void *lbuf = malloc(mb_loop_workspace_size(m, L));
  assert_int_equal(mb_loop_workspace_init(&lw, m, L, lbuf), MB_OK);
  int lock[NV] = {0};
  lock[m->iv[wheel]] = 1;
  double q[NQ], lam[NV], trace[51], phi[NV], K[NV * NV], r[NV], dq[NV];
  mb_static_options opt = MB_STATIC_DEFAULTS;
  opt.trace = trace;
  mb_static_result res;
  memcpy(q, lm.q0, sizeof *q * (size_t)m->nq);
  assert_int_equal(
      mb_static(m, lm.springs, L, &f.ws, &lw, f.scratch, &opt, NULL, lock, q, lam, &res), MB_OK);
  print_trace("quarter car", trace, res.iterations);
  assert_int_equal(mb_difference(m, lm.q0, q, dq), MB_OK);
  assert_true(mbt_max_abs(dq, (size_t)nv) > 1e-3); /* it sagged */
  assert_true(dq[m->iv[wheel]] == 0.0);            /* the locked spin did not move */
  assert_int_equal(mb_loop_residual(m, L, &f.ws, &lw, q, phi), MB_OK);
  double zero[NV] = {0};
  MBT_ASSERT_NEAR(phi, zero, nc, 1e-10);
  assert_int_equal(mb_loop_jacobian(m, L, &f.ws, &lw, q, K), MB_OK);
  double scale = resid(m, lm.springs, &f.ws, q, NULL, r), ktl[NV] = {0};
  for (int c = 0; c < nc; c++)
    for (int k = 0; k < nv; k++) ktl[k] += K[nv * c + k] * lam[c];
  for (int k = 0; k < nv; k++) r[k] -= ktl[k];
  scale += mbt_max_abs(ktl, (size_t)nv); /* the solver's scale, |Kᵀλ|∞ included */
  MBT_ASSERT_NEAR(r, zero, nv, 1e-10 * scale);
  /* the dynamics at rest there: with ρ = r − Kᵀλ (above), mb_fd_loops' q̈ = −M^-½ P M^-½ ρ (P a
   * projector), so |q̈|∞ ≤ |M⁻¹|_F √nv (|ρ|∞ + its own rounding, 1e-12 of the scale); λ the same */
  double tp[NV], qdd[NV], lfd[NV], v0[NV] = {0}, Minv[NV * NV];
  assert_int_equal(mb_passive_forces(m, lm.springs, &f.ws, q, NULL, tp), MB_OK);
  assert_int_equal(mb_fd_loops(m, L, &f.ws, &lw, q, v0, tp, qdd, lfd), MB_OK);
  assert_int_equal(mb_minv(m, &f.ws, q, Minv), MB_OK);
  double fro = 0.0;
  for (int k = 0; k < nv * nv; k++) fro += Minv[k] * Minv[k];
  double bound = sqrt(fro * nv) * (mbt_max_abs(r, (size_t)nv) + 1e-12 * scale);
  print_message("quarter car: |qdd| at q* = %.2e (bound %.2e), |lambda| = %.3e, sag |dq| = "
                "%.4f\n",
                mbt_max_abs(qdd, (size_t)nv), bound, mbt_max_abs(lam, (size_t)nc),
                mbt_max_abs(dq, (size_t)nv));
  MBT_ASSERT_NEAR(qdd, zero, nv, bound);
  MBT_ASSERT_REL(lfd, lam, nc, 1e-9);
  assert_int_equal(res.npos, 1), assert_int_equal(res.nneg, 0), assert_int_equal(res.nzero, 0);
  assert_true(res.stable);
  assert_true(newton_order(trace, res.iterations, scale) >= 1.8);
  memcpy(q, lm.q0, sizeof *q * (size_t)m->nq);
  /* the spin unlocked: the wheel's COM on its axis, the potential does not depend on it, its
   * column of the Newton matrix is zero (mb.h): MB_ENUMERIC naming it */
  assert_int_equal(
      mb_static(m, lm.springs, L, &f.ws, &lw, f.scratch, NULL, NULL, NULL, q, lam, &res),
      MB_ENUMERIC);
  assert_int_equal(res.singular, 1 + m->iv[wheel]);
  free(lbuf);
  fix_close(&f);
  mbt_loopmodel_free(&lm);
}

/* ------------------------------------------------------------------ convergence, statuses */

/* Reference: Newton's order (newton_order) from a far start on the two-link arm with springs;
 * with max_iter cut short the solver stops with MB_ENUMERIC after exactly that many steps, the
 * trace the same as the full run's (the iteration is deterministic), q unchanged. */
static void test_convergence(void **state) {
  (void)state;
  mbt_tree *t = arm2();
  const mb_model *m = &t->model;
  fix f;
  fix_open(&f, m, NULL);
  mb_springs S = {1, &ARM_SPRING, NULL, NULL, arm_k, arm_ref};
  double trace[51], trace2[51], q[2] = {1.2, 1.0}, g[2];
  mb_static_options opt = MB_STATIC_DEFAULTS;
  opt.trace = trace;
  mb_static_result res;
  assert_int_equal(mb_static(m, &S, NULL, &f.ws, NULL, f.scratch, &opt, NULL, NULL, q, NULL, &res),
                   MB_OK);
  print_trace("arm", trace, res.iterations);
  assert_int_equal(mb_gravity(m, &f.ws, q, g), MB_OK);
  assert_true(res.iterations >= 3 && res.iterations <= 15);
  assert_true(newton_order(trace, res.iterations, mbt_max_abs(g, 2)) >= 1.8);
  const double q0[2] = {1.2, 1.0};
  double q2[2] = {1.2, 1.0};
  opt.trace = trace2, opt.max_iter = res.iterations - 1;
  assert_int_equal(mb_static(m, &S, NULL, &f.ws, NULL, f.scratch, &opt, NULL, NULL, q2, NULL, &res),
                   MB_ENUMERIC);
  assert_int_equal(res.iterations, opt.max_iter);
  MBT_ASSERT_NEAR(trace2, trace, opt.max_iter + 1, 0.0);
  MBT_ASSERT_NEAR(q2, q0, 2, 0.0);
  /* from (0.3, −0.2) the line search runs into a valley of ½|r|² whose floor is not a root
   * (|r| ≈ 0.055 there, H singular): it stops with MB_ENUMERIC, q unchanged */
  double q3[2] = {0.3, -0.2};
  opt.max_iter = 50;
  assert_int_equal(mb_static(m, &S, NULL, &f.ws, NULL, f.scratch, &opt, NULL, NULL, q3, NULL, &res),
                   MB_ENUMERIC);
  assert_true(res.residual > 1e-2 && q3[0] == 0.3 && q3[1] == -0.2);
  fix_close(&f);
  mbt_tree_free(t);
}

/* Reference: the contract of mb.h: MB_EINVAL for NULL arguments, a loop system without its
 * workspace and every option out of range; MB_EWORKSPACE for a workspace never laid out; q
 * untouched by all of them. */
static void test_arguments(void **state) {
  (void)state;
  mbt_tree *t = pendulum(1.0, 0.5);
  const mb_model *m = &t->model;
  fix f;
  fix_open(&f, m, NULL);
  double q = 0.3, H;
  mb_static_result res;
  mb_loop l = {0};
  int row = 0;
  mb_loops L = {1, &l, 1, &row};
  assert_int_equal(
      mb_static(NULL, NULL, NULL, &f.ws, NULL, f.scratch, NULL, NULL, NULL, &q, NULL, &res),
      MB_EINVAL);
  assert_int_equal(mb_static(m, NULL, NULL, &f.ws, NULL, NULL, NULL, NULL, NULL, &q, NULL, &res),
                   MB_EINVAL);
  assert_int_equal(
      mb_static(m, NULL, NULL, &f.ws, NULL, f.scratch, NULL, NULL, NULL, NULL, NULL, &res),
      MB_EINVAL);
  assert_int_equal(mb_static(m, NULL, &L, &f.ws, NULL, f.scratch, NULL, NULL, NULL, &q, NULL, &res),
                   MB_EINVAL);
  mb_static_options bad[5] = {MB_STATIC_DEFAULTS, MB_STATIC_DEFAULTS, MB_STATIC_DEFAULTS,
                              MB_STATIC_DEFAULTS, MB_STATIC_DEFAULTS};
  bad[0].tol = 0.0, bad[1].max_iter = -1, bad[2].fd_step = 0.0, bad[3].zero_tol = -1.0;
  bad[4].tol = NAN;
  for (int k = 0; k < 5; k++)
    assert_int_equal(
        mb_static(m, NULL, NULL, &f.ws, NULL, f.scratch, &bad[k], NULL, NULL, &q, NULL, &res),
        MB_EINVAL);
  mb_workspace blank = {0};
  assert_int_equal(
      mb_static(m, NULL, NULL, &blank, NULL, f.scratch, NULL, NULL, NULL, &q, NULL, &res),
      MB_EWORKSPACE);
  assert_true(q == 0.3);
  mb_springs S = {1, &ARM_SPRING, NULL, NULL, NULL, NULL};
  assert_int_equal(mb_static_stiffness(m, NULL, &f.ws, NULL, 1e-5, &q, &H), MB_EINVAL);
  assert_int_equal(mb_static_stiffness(m, NULL, &f.ws, f.scratch, 1e-5, &q, NULL), MB_EINVAL);
  assert_int_equal(mb_static_stiffness(m, &S, &f.ws, f.scratch, 0.0, &q, &H), MB_EINVAL);
  S.n = 0;
  assert_int_equal(mb_static_stiffness(m, &S, &f.ws, f.scratch, 0.0, &q, &H), MB_OK);
  assert_int_equal(mb_static_stiffness(m, &S, &blank, f.scratch, 1e-5, &q, &H), MB_EWORKSPACE);
  /* the pendulum's stiffness is m g l cos q (mass 1, l = 0.5) */
  assert_int_equal(mb_static_stiffness(m, NULL, &f.ws, f.scratch, 1e-5, &q, &H), MB_OK);
  MBT_ASSERT_NEAR1(H, G * 0.5 * cos(0.3), 1e-14);
  assert_int_equal(mb_static_scratch_size(NULL, NULL), 0);
  fix_close(&f);
  mbt_tree_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pendulum),
      cmocka_unit_test(test_forces_callback),          cmocka_unit_test(test_arm_springs),
      cmocka_unit_test(test_spherical_springs), cmocka_unit_test(test_locks),
      cmocka_unit_test(test_floating_base),     cmocka_unit_test(test_quarter_car),
      cmocka_unit_test(test_convergence),       cmocka_unit_test(test_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
