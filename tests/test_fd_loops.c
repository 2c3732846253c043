/* test_fd_loops.c — closed loops, the dynamics (runtime/fd_loops.c, project.c; mb.h "Closed
 * loops"); the kinematics (loops.c) are in test_loops.c, the shared mechanisms and checks in
 * mb_loopmech.c.
 *
 * References, one per test (stated again at each):
 *   - the equations mb_fd_loops solves, checked with mb_crba and mb_nle: K q̈ = −K̇v and
 *     M q̈ + h − τ = Kᵀλ; mb_project_q / mb_project_v: max |φ| ≤ MB_PROJECT_TOL and K v = 0;
 *   - physics: a loop joint of type X between a body and a floating child is the tree joint X
 *     (Featherstone 2008 §8.1: the same motion), so mb_fd_loops must give mb_aba's q̈ of the tree;
 *     a slider-crank closed by a prismatic loop and the same mechanism with a tree slider closed by
 *     a revolute loop have the same crank acceleration; the constraint (not the row choice)
 *     determines q̈; a conservative mechanism conserves T + V (RK4, 1 s);
 *   - the contract of mb.h: MB_ENUMERIC at singular configurations or redundant rows, q unchanged
 *     by a projection that fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_loopmech.h"
#include "mb_randtree.h"
#include "mb_testutil.h"

/* Worst errors seen by the tests here (relative); the shared checks' are in mb_loopmech.c. */
static double worst_tree, worst_rows, worst_slider, worst_energy;

/* ------------------------------------------------------------------------------------- tests */

/* Dynamics on random floating-base trees with one loop of each type to the world (the floating
 * joint makes every row set independent): projection and the equations of fd (check_assembled). */
static void test_dynamics_every_type(void **state) {
  (void)state;
  for (int t = 0; t < MB_LOOP_TYPE_COUNT; t++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 2000 * (uint64_t)t + seed);
      mbt_tree *tr;
      double q0[MAXQ], q[MAXQ], v[MAXV], qdd[MAXV];
      int a, b;
      lsys *s = tree_with_loop(&g, 300 * (uint64_t)t + seed, 6, (mb_loop_type)t, seed == 2, &tr,
                               q0, &a, &b);
      snprintf(ctx, sizeof ctx, "dynamics type %d seed %d a %d b %d", t, (int)seed, a, b);
      check_assembled(s, &g, q0, 0.02, q, v, qdd);
      check_calculus(s, q, v);
      lsys_free(s);
      mbt_tree_free(tr);
    }
}

/* The two trees of test_loop_equals_tree_joint from one draw: t1 with joint j (its pitch, for a
 * helical one, drawn here) from body 1 to body 2, t2 with a floating joint there; the same XT,
 * axes and bodies, revolute joints 1 and 3. */
typedef struct tjpair {
  mbt_tree *t1, *t2;
  double ax[3][3], E[3][9], r[3][3], pitch;
} tjpair;

static void tj_trees(mbt_rng *g, mb_joint_type j, tjpair *tp) {
  mbt_tree *t1 = tp->t1 = mbt_tree_new(3), *t2 = tp->t2 = mbt_tree_new(3);
  double(*ax)[3] = tp->ax, (*E)[9] = tp->E, (*r)[3] = tp->r;
  double com[3], Ic[6] = {0.05, 0.04, 0.06, 0.01, -0.005, 0.002};
  double pitch = tp->pitch = j == MB_JOINT_HELICAL ? mbt_uniform(g, -0.4, 0.4) : 0.0;
  for (int i = 0; i < 3; i++) {
    mbt_unit3(g, ax[i]), mbt_rand_rot(g, E[i]), mbt_rand_vec(g, 3, -0.7, 0.7, r[i]);
    mbt_rand_vec(g, 3, -0.3, 0.3, com);
    double mass = mbt_uniform(g, 0.5, 2.0);
    mbt_tree_body(t1, i + 1, mass, com, Ic), mbt_tree_body(t2, i + 1, mass, com, Ic);
  }
  mbt_tree_joint(t1, 1, 0, MB_JOINT_REVOLUTE, ax[0], E[0], r[0]);
  mbt_tree_joint(t2, 1, 0, MB_JOINT_REVOLUTE, ax[0], E[0], r[0]);
  mbt_tree_joint(t1, 2, 1, j, j == MB_JOINT_FIXED ? NULL : ax[1], E[1], r[1]);
  if (j == MB_JOINT_UNIVERSAL) mbt_tree_axis2(t1, 2, ax[2]); /* ax[2] made ⟂ ax[1] */
  mbt_tree_joint(t2, 2, 1, MB_JOINT_FLOATING, NULL, E[1], r[1]);
  mbt_tree_joint(t1, 3, 2, MB_JOINT_REVOLUTE, ax[2], E[2], r[2]);
  mbt_tree_joint(t2, 3, 2, MB_JOINT_REVOLUTE, ax[2], E[2], r[2]);
  t1->pitch[2] = pitch;
  mbt_tree_finish(t1), mbt_tree_finish(t2);
}

/* The tree's state (q1, v1, τ1 on m1, joint 2 of type j about ax1 with motion subspace S), mapped
 * onto the floating joint: XJ = (E, r) the same transform. */
static void tj_map_state(const mb_model *m1, mb_joint_type j, const double ax1[3], const double *S,
                         const double *q1, const double *v1, const double *tau1, double *q2,
                         double *v2, double *tau2) {
  int nX = m1->nv - 2;
  double sv[6];
  double Ej[9], rj[3];
  mb_jcalc(m1, 2, q1, Ej, rj); /* E: joint frame → child, r: child origin in joint frame */
  double Rq[9];
  rot_T(Ej, Rq);
  /* the quaternion of Rq (child → parent), Shepperd-free: Rq is a rotation about ax[1] or
   * the spherical joint's own quaternion */
  double quat[4] = {0, 0, 0, 1};
  if (j == MB_JOINT_SPHERICAL) {
    memcpy(quat, q1 + 1, sizeof quat);
  } else if (j == MB_JOINT_UNIVERSAL) { /* rot(a, θ1) rot(a2, θ2): the product of two turns */
    const double *b = m1->axis2 + 6;
    double q_a[4], q_b[4];
    for (int k = 0; k < 4; k++)
      q_a[k] = k < 3 ? ax1[k] * sin(q1[1] / 2) : cos(q1[1] / 2),
      q_b[k] = k < 3 ? b[k] * sin(q1[2] / 2) : cos(q1[2] / 2);
    mbs_quat_mul(q_a, q_b, quat);
  } else if (j != MB_JOINT_PRISMATIC && j != MB_JOINT_FIXED) { /* planar: its angle is q1[3] */
    double th = j == MB_JOINT_PLANAR ? q1[3] : q1[1];
    for (int k = 0; k < 4; k++) quat[k] = k < 3 ? ax1[k] * sin(th / 2) : cos(th / 2);
  }
  q2[0] = q1[0];
  for (int k = 0; k < 3; k++) q2[1 + k] = rj[k];
  memcpy(q2 + 4, quat, sizeof quat);
  q2[8] = q1[m1->nq - 1];
  /* v: S_X q̇_X = [ω; v] → floating [lin; ang] */
  for (int k = 0; k < 6; k++) {
    sv[k] = 0.0;
    for (int c = 0; c < nX; c++) sv[k] += S[6 * c + k] * v1[1 + c];
  }
  v2[0] = v1[0], v2[7] = v1[m1->nv - 1];
  for (int k = 0; k < 3; k++) v2[1 + k] = sv[3 + k], v2[4 + k] = sv[k];
  /* τ: the wrench f = S (SᵀS)⁻¹ τ_X (S has orthonormal columns, or one column) as [force;
   * torque] */
  double f[6] = {0, 0, 0, 0, 0, 0}, ss = 0.0;
  for (int k = 0; k < 6 && nX == 1; k++) ss += S[k] * S[k];
  for (int c = 0; c < nX; c++)
    for (int k = 0; k < 6; k++) f[k] += S[6 * c + k] * tau1[1 + c] / (nX == 1 ? ss : 1.0);
  tau2[0] = tau1[0], tau2[7] = tau1[m1->nv - 1];
  for (int k = 0; k < 3; k++) tau2[1 + k] = f[3 + k], tau2[4 + k] = f[k];
}

/* The loop of type t: a = 1 with the joint frame XT_2, b = 2 with its body frame. */
static mb_loop tj_loop(mb_loop_type t, const tjpair *tp) {
  mb_loop l;
  memset(&l, 0, sizeof l);
  l.type = t, l.a = 1, l.b = 2;
  memcpy(l.Ea, tp->E[1], sizeof l.Ea), memcpy(l.ra, tp->r[1], sizeof l.ra);
  memcpy(l.Eb, I3, sizeof l.Eb);
  memcpy(l.axis, tp->t1->axis + 6, sizeof l.axis);
  memcpy(l.axis2, tp->t1->axis2 + 6, sizeof l.axis2); /* universal: a2, in the child frame */
  l.pitch = tp->pitch;
  if (t == MB_LOOP_SPHERICAL || t == MB_LOOP_S || t == MB_LOOP_FIXED)
    l.axis[0] = 1, l.axis[1] = l.axis[2] = 0;
  return l;
}

/* Reference: a loop joint of type X between body 1 (loop frame = the tree joint frame XT_2) and a
 * floating body 2 (target frame = its body frame) is the tree joint X between them (Featherstone
 * 2008 §8.1), so the loop model's q̈ equals mb_aba's on the tree with joint X: the same q̈ for
 * joints 1 and 3, and the floating joint's v̇ = [lin; ang] equals S_X q̈_X + cJ_X (cJ = Ṡ q̇: a
 * universal joint's). The tree's joint force τ_X is applied through the floating joint as the
 * wrench S (SᵀS)⁻¹ τ_X. */
static void test_loop_equals_tree_joint(void **state) {
  (void)state;
  static const struct {
    mb_joint_type j;
    mb_loop_type l;
  } pairs[] = {{MB_JOINT_REVOLUTE, MB_LOOP_REVOLUTE},   {MB_JOINT_CONTINUOUS, MB_LOOP_CONTINUOUS},
               {MB_JOINT_PRISMATIC, MB_LOOP_PRISMATIC}, {MB_JOINT_HELICAL, MB_LOOP_HELICAL},
               {MB_JOINT_SPHERICAL, MB_LOOP_SPHERICAL}, {MB_JOINT_SPHERICAL, MB_LOOP_S},
               {MB_JOINT_FIXED, MB_LOOP_FIXED},         {MB_JOINT_PLANAR, MB_LOOP_PLANAR},
               {MB_JOINT_CYLINDRICAL, MB_LOOP_CYLINDRICAL},
               {MB_JOINT_UNIVERSAL, MB_LOOP_UNIVERSAL}};
  for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
    for (uint64_t seed = 1; seed <= 4; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 3000 + 10 * p + seed);
      tjpair tp;
      tj_trees(&g, pairs[p].j, &tp);
      mbt_tree *t1 = tp.t1, *t2 = tp.t2;
      const mb_model *m1 = &t1->model, *m2 = &t2->model;
      int nX = m1->nv - 2;
      double q1[8], v1[6], tau1[6], a1[6], q2[10], v2[8], tau2[8], a2[8], S[18], sa[6];
      mbt_rand_q(&g, m1, q1), mbt_rand_vec(&g, m1->nv, -1, 1, v1);
      mbt_rand_vec(&g, m1->nv, -1, 1, tau1);
      if (pairs[p].j == MB_JOINT_HELICAL) q1[1] = mbt_uniform(&g, -2.5, 2.5); /* |θ| < π */
      mb_workspace ws1;
      double *b1 = mbt_workspace_new(m1, &ws1);
      mb_joint_S_at(m1, 2, q1, S);
      tj_map_state(m1, pairs[p].j, tp.ax[1], S, q1, v1, tau1, q2, v2, tau2);
      mb_loop l = tj_loop(pairs[p].l, &tp);
      lsys *s = lsys_new(m2, &l, 1, NULL, 0);
      snprintf(ctx, sizeof ctx, "loop = tree joint: pair %d seed %d", (int)p, (int)seed);
      double phi[MAXC], K[MAXC * MAXV], Kv[MAXC];
      resid(s, q2, phi);
      if (!(maxabs(phi, s->L.nc) <= 1e-13))
        fail_msg("pair %d: φ = %.3e", (int)p, maxabs(phi, s->L.nc));
      jac(s, q2, K);
      double sc = kmul(K, s->L.nc, m2->nv, v2, Kv);
      if (!(maxabs(Kv, s->L.nc) <= 1e-13 * fmax(sc, 1.0)))
        fail_msg("pair %d: K v = %.3e", (int)p, maxabs(Kv, s->L.nc));
      assert_int_equal(mb_aba(m1, &ws1, q1, v1, tau1, NULL, a1), MB_OK);
      check_fd(s, q2, v2, tau2, a2);
      /* compare: joints 1, 3, and S_X q̈_X with the floating v̇ */
      for (int k = 0; k < 6; k++) {
        sa[k] = 0.0;
        for (int c = 0; c < nX; c++) sa[k] += S[6 * c + k] * a1[1 + c];
      }
      mb_joint_cJ(m1, 2, S, v1 + 1, sa);
      double want[8] = {a1[0], sa[3], sa[4], sa[5], sa[0], sa[1], sa[2], a1[m1->nv - 1]};
      double sc2 = fmax(maxabs(want, 8), 1.0);
      double e = mbt_max_diff(a2, want, 8, &(size_t){0}) / sc2;
      worst_tree = fmax(worst_tree, e);
      if (!(e <= 1e-10))
        fail_msg("pair %d seed %d: loop q̈ vs tree q̈: relative %.3e", (int)p, (int)seed, e);
      lsys_free(s);
      free(b1);
      mbt_tree_free(t1), mbt_tree_free(t2);
    }
}

/* Planar four-bar: rows x, y of the revolute loop (the other three are identically zero).
 * Assembled by fourbar_q; projections and fd (check_assembled). Reference for the row choice: q̈
 * depends on the constraint, not on its rows: the same with the loop frame turned by 0.7 rad
 * about z, with a spherical loop's x, y rows, and with the loop written from the world (a = 0,
 * b = 3). The redundant selection (all five rows) still projects q (μ regularizes). */
static void test_fourbar(void **state) {
  (void)state;
  fourbar f = {1.0, 0.4, 1.1, 0.8};
  mbt_tree *t = fourbar_tree(&f);
  const mb_model *m = &t->model;
  int xy[2] = {0, 1};
  mb_loop l0 = fourbar_loop(&f, 0.0), l1 = fourbar_loop(&f, 0.7), l2 = l0, l3 = l0;
  l2.type = MB_LOOP_SPHERICAL;
  l3.a = 0, l3.b = 3, memcpy(l3.ra, l0.rb, sizeof l3.ra), memcpy(l3.rb, l0.ra, sizeof l3.rb);
  lsys *s0 = lsys_new(m, &l0, 1, xy, 2), *s1 = lsys_new(m, &l1, 1, xy, 2);
  lsys *s2 = lsys_new(m, &l2, 1, xy, 2), *s3 = lsys_new(m, &l3, 1, xy, 2);
  lsys *sall = lsys_new(m, &l0, 1, NULL, 0);
  mbt_rng g;
  mbt_rng_seed(&g, 41);
  for (int trial = 0; trial < 12; trial++) {
    double q0[3], q[3], v[3], qdd[3], qdd2[3], tau[3], phi[5];
    assert_int_equal(fourbar_q(&f, mbt_uniform(&g, -MBT_PI, MBT_PI), q0), 0);
    check_assembled(s0, &g, q0, 0.05, q, v, qdd);
    check_calculus(s0, q, v);
    mbt_rand_vec(&g, 3, -1, 1, tau);
    check_fd(s0, q, v, tau, qdd);
    lsys *alt[3] = {s1, s2, s3};
    for (int k = 0; k < 3; k++) {
      check_fd(alt[k], q, v, tau, qdd2);
      double e = mbt_max_diff(qdd2, qdd, 3, &(size_t){0}) / fmax(maxabs(qdd, 3), 1.0);
      worst_rows = fmax(worst_rows, e);
      if (!(e <= 1e-10)) fail_msg("four-bar, row choice %d: q̈ differs by %.3e", k, e);
    }
    /* all five rows: Φ is singular, but the projection is regularized */
    double dq[3];
    mbt_rand_vec(&g, 3, -0.05, 0.05, dq);
    for (int k = 0; k < 3; k++) q[k] += dq[k];
    assert_int_equal(mb_project_q(m, &sall->L, &sall->ws, &sall->lw, q), MB_OK);
    resid(sall, q, phi);
    assert_true(maxabs(phi, 5) <= MB_PROJECT_TOL);
  }
  lsys_free(s0), lsys_free(s1), lsys_free(s2), lsys_free(s3), lsys_free(sall);
  mbt_tree_free(t);
}

/* Slider-crank, crank r = 0.3, rod l = 1, in the xy plane, gravity −9.81 y. A: crank, rod and a
 * piston hinged to the rod (revolute tree joints about z), the piston held on the x axis by a
 * prismatic loop along x to the world (rows tilt1 and slide1; tilt2, twist and slide2 are
 * identically zero). B: crank and rod, a tree slider (prismatic along x from the world), closed
 * by a revolute loop between the rod's tip and the slider (rows x, y). The piston (mass 0.8, COM
 * at its pin) is the slider. Reference: the same mechanism, so the same crank and rod
 * accelerations. */
static void test_slider_crank(void **state) {
  (void)state;
  double z[3] = {0, 0, 1}, x[3] = {1, 0, 0}, rc = 0.3, rl = 1.0, r2[3] = {rc, 0, 0},
         r3[3] = {rl, 0, 0};
  double zero[3] = {0, 0, 0}, Ip[6] = {0.01, 0.01, 0.02, 0, 0, 0};
  mbt_tree *ta = mbt_tree_new(3), *tb = mbt_tree_new(3);
  mbt_tree_joint(ta, 1, 0, MB_JOINT_REVOLUTE, z, NULL, NULL);
  mbt_tree_joint(ta, 2, 1, MB_JOINT_REVOLUTE, z, NULL, r2);
  mbt_tree_joint(ta, 3, 2, MB_JOINT_REVOLUTE, z, NULL, r3);
  mbt_tree_joint(tb, 1, 0, MB_JOINT_REVOLUTE, z, NULL, NULL);
  mbt_tree_joint(tb, 2, 1, MB_JOINT_REVOLUTE, z, NULL, r2);
  mbt_tree_joint(tb, 3, 0, MB_JOINT_PRISMATIC, x, NULL, NULL);
  box_body(ta, 1, 1.0, rc), box_body(ta, 2, 1.5, rl), mbt_tree_body(ta, 3, 0.8, zero, Ip);
  box_body(tb, 1, 1.0, rc), box_body(tb, 2, 1.5, rl), mbt_tree_body(tb, 3, 0.8, zero, Ip);
  ta->model.gravity[1] = tb->model.gravity[1] = -9.81;
  ta->model.gravity[2] = tb->model.gravity[2] = 0.0;
  mbt_tree_finish(ta), mbt_tree_finish(tb);
  mb_loop la, lb;
  memset(&la, 0, sizeof la), memset(&lb, 0, sizeof lb);
  la.type = MB_LOOP_PRISMATIC, la.a = 3, la.b = 0, la.axis[0] = 1;
  memcpy(la.Ea, I3, sizeof la.Ea), memcpy(la.Eb, I3, sizeof la.Eb);
  lb.type = MB_LOOP_REVOLUTE, lb.a = 2, lb.b = 3, lb.axis[2] = 1, lb.ra[0] = rl;
  memcpy(lb.Ea, I3, sizeof lb.Ea), memcpy(lb.Eb, I3, sizeof lb.Eb);
  int rowsa[2] = {0, 3}, rowsb[2] = {0, 1};
  lsys *sa = lsys_new(&ta->model, &la, 1, rowsa, 2), *sb = lsys_new(&tb->model, &lb, 1, rowsb, 2);
  mbt_rng g;
  mbt_rng_seed(&g, 51);
  for (int trial = 0; trial < 12; trial++) {
    double th = mbt_uniform(&g, -MBT_PI, MBT_PI),
           xp = rc * cos(th) + sqrt(rl * rl - pow(rc * sin(th), 2));
    double ph = atan2(-rc * sin(th), xp - rc * cos(th));
    double q0a[3] = {th, ph - th, -ph}, q0b[3] = {th, ph - th, xp};
    double qa[3], va[3], qdda[3], qb[3], vb[3], qddb[3], tau[3], K[2 * 3];
    check_assembled(sa, &g, q0a, 0.05, qa, va, qdda);
    check_calculus(sa, qa, va);
    /* B at A's state: the slider where the piston is, its speed from K_B v_B = 0 (row x) */
    double phi[2];
    resid(sb, q0b, phi);
    assert_true(maxabs(phi, 2) <= 1e-14);
    xp = rc * cos(qa[0]) + rl * cos(qa[0] + qa[1]);
    qb[0] = qa[0], qb[1] = qa[1], qb[2] = xp, vb[0] = va[0], vb[1] = va[1], vb[2] = 0.0;
    jac(sb, qb, K);
    vb[2] = -(K[0] * vb[0] + K[1] * vb[1]) / K[2];
    mbt_rand_vec(&g, 3, -1, 1, tau);
    tau[2] = 0.0; /* A's piston hinge and B's slider are not driven */
    check_fd(sa, qa, va, tau, qdda);
    check_fd(sb, qb, vb, tau, qddb);
    double e = fmax(fabs(qdda[0] - qddb[0]), fabs(qdda[1] - qddb[1])) / fmax(maxabs(qdda, 2), 1.0);
    worst_slider = fmax(worst_slider, e);
    if (!(e <= 1e-10)) fail_msg("slider-crank A vs B: relative %.3e", e);
  }
  lsys_free(sa), lsys_free(sb);
  mbt_tree_free(ta), mbt_tree_free(tb);
}

/* A spatial chain of six scalar joints closed by a spherical loop to the world, and the same
 * with an s loop and an ss loop; assembled at a random q0 by loop_close. check_assembled and
 * check_calculus. */
static void test_spatial_loops(void **state) {
  (void)state;
  static const mb_loop_type types[] = {MB_LOOP_SPHERICAL, MB_LOOP_S, MB_LOOP_SS, MB_LOOP_FIXED};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
    for (uint64_t seed = 1; seed <= 4; seed++) {
      mbt_rng g;
      mbt_rng_seed(&g, 60 + 10 * k + seed);
      mbt_tree *t = chain_new(&g, 7, 0);
      const mb_model *m = &t->model;
      double q0[7], q[7], v[7], qdd[7];
      mbt_rand_q(&g, m, q0);
      mb_loop l = loop_rand(&g, m, q0, types[k], 7, seed % 2 ? 0 : 1);
      lsys *s = lsys_new(m, &l, 1, NULL, 0);
      snprintf(ctx, sizeof ctx, "spatial type %d seed %d", (int)types[k], (int)seed);
      check_assembled(s, &g, q0, 0.05, q, v, qdd);
      check_calculus(s, q, v);
      lsys_free(s);
      mbt_tree_free(t);
    }
}

/* Two coupled loops sharing bodies: a planar six-bar (Stephenson): the four-bar crank 1, coupler
 * 2, rocker 3 closed to the world, and a dyad 4, 5 hinged on the coupler closed to the rocker;
 * rows x, y of each (0, 1, 6, 7). And a spatial chain with two loops of random types between
 * moving bodies. Assembled at q0 by loop_close. */
static void test_coupled_loops(void **state) {
  (void)state;
  double z[3] = {0, 0, 1}, r2[3] = {0.4, 0, 0}, r3[3] = {1.1, 0, 0}, r4[3] = {0.5, 0.3, 0};
  double r5[3] = {0.9, 0, 0};
  mbt_tree *t = mbt_tree_new(5);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, z, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, z, NULL, r2);
  mbt_tree_joint(t, 3, 2, MB_JOINT_REVOLUTE, z, NULL, r3);
  mbt_tree_joint(t, 4, 2, MB_JOINT_REVOLUTE, z, NULL, r4);
  mbt_tree_joint(t, 5, 4, MB_JOINT_REVOLUTE, z, NULL, r5);
  box_body(t, 1, 1.0, 0.4), box_body(t, 2, 1.5, 1.1), box_body(t, 3, 1.2, 0.8);
  box_body(t, 4, 0.9, 0.9), box_body(t, 5, 0.7, 0.7);
  t->model.gravity[1] = -9.81, t->model.gravity[2] = 0.0;
  mbt_tree_finish(t);
  const mb_model *m = &t->model;
  double q0[5] = {0.3, -0.2, 1.9, -0.8, 1.2}, q[5], v[5], qdd[5];
  mb_loop l[2];
  memset(l, 0, sizeof l);
  l[0].type = l[1].type = MB_LOOP_REVOLUTE;
  l[0].a = 3, l[0].b = 0, l[0].ra[0] = 0.8, l[1].a = 5, l[1].b = 3, l[1].ra[0] = 0.7;
  for (int k = 0; k < 2; k++) {
    memcpy(l[k].Ea, I3, sizeof l[k].Ea), l[k].axis[2] = 1;
    loop_close(m, q0, &l[k], I3, (double[3]){0, 0, 0});
  }
  int rows[4] = {0, 1, 6, 7};
  lsys *s = lsys_new(m, l, 2, rows, 4);
  mbt_rng g;
  mbt_rng_seed(&g, 71);
  for (int trial = 0; trial < 5; trial++) {
    check_assembled(s, &g, q0, 0.03, q, v, qdd);
    check_calculus(s, q, v);
  }
  lsys_free(s);
  mbt_tree_free(t);
  /* spatial: a 14-joint chain, loops 10 → 2 and 14 → 6 of random types (chain_two_loops) */
  static const mb_loop_type pair[][2] = {{MB_LOOP_REVOLUTE, MB_LOOP_SPHERICAL},
                                         {MB_LOOP_HELICAL, MB_LOOP_SS},
                                         {MB_LOOP_PRISMATIC, MB_LOOP_D1},
                                         {MB_LOOP_FIXED, MB_LOOP_D2}};
  for (size_t k = 0; k < sizeof pair / sizeof pair[0]; k++) {
    mbt_rng_seed(&g, 80 + k);
    mbt_tree *tc;
    double Q0[14], Q[14], V[14], A[14];
    lsys *sc = chain_two_loops(&g, pair[k][0], pair[k][1], &tc, Q0);
    check_assembled(sc, &g, Q0, 0.02, Q, V, A);
    check_calculus(sc, Q, V);
    lsys_free(sc);
    mbt_tree_free(tc);
  }
}

/* T + V: T = ½ vᵀ M v (mb_crba), V = −Σ gᵀ (m p + R h) (mb_fk), as in test_energy.c. */
static double energy(lsys *s, const double *q, const double *v) {
  const mb_model *m = s->m;
  int n = m->nv;
  double T = 0.0, V = 0.0, Rh[3], M[MAXV * MAXV], pose[12 * MAXB];
  assert_int_equal(mb_crba(m, &s->ws, q, M), MB_OK);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) T += 0.5 * v[i] * M[i * n + j] * v[j];
  assert_int_equal(mb_fk(m, &s->ws, q, pose), MB_OK);
  for (int i = 1; i <= m->nb; i++) {
    const double *I = m->inertia + 10 * i, *R = pose + 12 * i, *p = R + 9;
    mbs_mat3_mv(R, I + 1, Rh);
    for (int k = 0; k < 3; k++) V -= m->gravity[k] * (I[0] * p[k] + Rh[k]);
  }
  return T + V;
}

/* One RK4 step of q̇ = v, v̇ = fd_loops(q, v, 0) (stages on the manifold as in test_energy.c; the
 * joints here are scalar), then mb_project_q and mb_project_v. */
static void rk4_step(lsys *s, double *q, double *v, double h) {
  static const double c[4] = {0, 0.5, 0.5, 1}, b[4] = {1. / 6, 2. / 6, 2. / 6, 1. / 6};
  const mb_model *m = s->m;
  int nv = m->nv;
  double Kq[4 * MAXV], Kv[4 * MAXV], dq[MAXV], vs[MAXV], qs[MAXQ], tau[MAXV] = {0};
  for (int st = 0; st < 4; st++) {
    for (int j = 0; j < nv; j++) {
      dq[j] = st ? c[st] * h * Kq[(st - 1) * nv + j] : 0.0;
      vs[j] = v[j] + (st ? c[st] * h * Kv[(st - 1) * nv + j] : 0.0);
    }
    mb_integrate(m, q, dq, 1.0, qs);
    int rc = mb_fd_loops(m, &s->L, &s->ws, &s->lw, qs, vs, tau, Kv + st * nv, NULL);
    if (rc) fail_msg("mb_fd_loops in RK4: %d", rc);
    memcpy(Kq + st * nv, vs, sizeof *vs * (size_t)nv);
  }
  for (int j = 0; j < nv; j++) {
    dq[j] = 0.0;
    for (int st = 0; st < 4; st++)
      dq[j] += h * b[st] * Kq[st * nv + j], v[j] += h * b[st] * Kv[st * nv + j];
  }
  mb_integrate(m, q, dq, 1.0, q);
  assert_int_equal(mb_project_q(m, &s->L, &s->ws, &s->lw, q), MB_OK);
  assert_int_equal(mb_project_v(m, &s->L, &s->ws, &s->lw, q, v), MB_OK);
}

/* Reference: energy conservation. τ = 0, no damping, gravity on: T + V after 1 s of RK4 (h = 1 ms,
 * projected after every step) equals its initial value to 1e-8 of the energy scale T0 + Σ m |g| ℓ
 * (ℓ = 1 m). A four-bar (crank-rocker, full turns) and a spatial chain of five revolute joints
 * closed by a spherical loop. */
static void run_energy(lsys *s, double *q, double *v) {
  const mb_model *m = s->m;
  double E0 = energy(s, q, v), T0 = E0, V0 = energy(s, q, (double[MAXV]){0}), mg = 0.0, dE = 0.0;
  T0 -= V0;
  for (int i = 1; i <= m->nb; i++) mg += m->inertia[10 * i] * 9.81;
  for (int n = 0; n < 1000; n++) {
    rk4_step(s, q, v, 1e-3);
    if (n % 50 == 49) dE = fmax(dE, fabs(energy(s, q, v) - E0));
  }
  double e = dE / (T0 + mg);
  worst_energy = fmax(worst_energy, e);
  if (!(e <= 1e-8)) fail_msg("energy drift %.3e relative", e);
}

static void test_energy(void **state) {
  (void)state;
  fourbar f = {1.0, 0.4, 1.1, 0.8};
  mbt_tree *t = fourbar_tree(&f);
  mb_loop l = fourbar_loop(&f, 0.0);
  int xy[2] = {0, 1};
  lsys *s = lsys_new(&t->model, &l, 1, xy, 2);
  double q[3], v[3] = {6.0, 0.0, 0.0};
  assert_int_equal(fourbar_q(&f, 0.4, q), 0);
  assert_int_equal(mb_project_v(s->m, &s->L, &s->ws, &s->lw, q, v), MB_OK);
  run_energy(s, q, v);
  lsys_free(s);
  mbt_tree_free(t);
  /* spatial */
  mbt_rng g;
  mbt_rng_seed(&g, 91);
  t = chain_new(&g, 5, 1);
  double Q[5], V[5];
  mbt_rand_q(&g, &t->model, Q);
  l = loop_rand(&g, &t->model, Q, MB_LOOP_SPHERICAL, 5, 0);
  s = lsys_new(&t->model, &l, 1, NULL, 0);
  mbt_rand_vec(&g, 5, -1, 1, V);
  assert_int_equal(mb_project_v(s->m, &s->L, &s->ws, &s->lw, Q, V), MB_OK);
  run_energy(s, Q, V);
  lsys_free(s);
  mbt_tree_free(t);
}

/* The contract (mb.h): MB_ENUMERIC at a singular configuration (a parallelogram four-bar with
 * every pivot on the x axis: K's x row vanishes) and with redundant rows kept (Φ singular), never
 * MB_OK with a non-finite output near it; mb_project_q on a loop that cannot close (the bars
 * reach 2.3 < 3) → MB_ENUMERIC with q unchanged; mb_project_v with redundant rows → MB_ENUMERIC
 * with v unchanged. */
static void test_singular(void **state) {
  (void)state;
  fourbar f = {1.0, 0.5, 1.0, 0.5};
  mbt_tree *t = fourbar_tree(&f);
  const mb_model *m = &t->model;
  mb_loop l = fourbar_loop(&f, 0.0);
  int xy[2] = {0, 1};
  lsys *s = lsys_new(m, &l, 1, xy, 2), *sall = lsys_new(m, &l, 1, NULL, 0);
  double q[3] = {0, 0, MBT_PI}, v[3] = {1, 0, 0}, tau[3] = {0.1, 0.2, 0.3}, qdd[3], lam[5], phi[5];
  resid(s, q, phi);
  assert_true(maxabs(phi, 2) <= 1e-15);
  assert_int_equal(mb_fd_loops(m, &s->L, &s->ws, &s->lw, q, v, tau, qdd, lam), MB_ENUMERIC);
  assert_true(s->lw.singular >= 1);
  /* near it: OK only with finite outputs */
  for (int k = -20; k <= 20; k++) {
    double th = k * 1e-9, qq[3];
    if (fourbar_q(&f, th, qq)) continue;
    int rc = mb_fd_loops(m, &s->L, &s->ws, &s->lw, qq, v, tau, qdd, lam);
    if (rc == MB_OK)
      assert_true(mbs_finite(qdd, 3) && mbs_finite(lam, 2));
    else
      assert_int_equal(rc, MB_ENUMERIC);
  }
  /* redundant rows, at a regular pose */
  fourbar f2 = {1.0, 0.4, 1.1, 0.8};
  mbt_tree *t2 = fourbar_tree(&f2);
  mb_loop l2 = fourbar_loop(&f2, 0.0);
  lsys *s2 = lsys_new(&t2->model, &l2, 1, NULL, 0);
  assert_int_equal(fourbar_q(&f2, 1.0, q), 0);
  assert_int_equal(mb_fd_loops(&t2->model, &s2->L, &s2->ws, &s2->lw, q, v, tau, qdd, lam),
                   MB_ENUMERIC);
  assert_int_equal(s2->lw.singular, 3); /* row z: 1 + 2 */
  double v0[3] = {1, 2, 3}, vc[3] = {1, 2, 3};
  assert_int_equal(mb_project_v(&t2->model, &s2->L, &s2->ws, &s2->lw, q, vc), MB_ENUMERIC);
  assert_memory_equal(vc, v0, sizeof vc);
  /* a loop that cannot close */
  fourbar f3 = {3.0, 0.4, 1.1, 0.8};
  mbt_tree *t3 = fourbar_tree(&f3);
  mb_loop l3 = fourbar_loop(&f3, 0.0);
  lsys *s3 = lsys_new(&t3->model, &l3, 1, xy, 2);
  double q3[3] = {0.2, 0.3, -0.4}, q3c[3] = {0.2, 0.3, -0.4};
  assert_int_equal(mb_project_q(&t3->model, &s3->L, &s3->ws, &s3->lw, q3), MB_ENUMERIC);
  assert_memory_equal(q3, q3c, sizeof q3);
  (void)sall;
  lsys_free(s), lsys_free(sall), lsys_free(s2), lsys_free(s3);
  mbt_tree_free(t), mbt_tree_free(t2), mbt_tree_free(t3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dynamics_every_type),
      cmocka_unit_test(test_loop_equals_tree_joint),
      cmocka_unit_test(test_fourbar),
      cmocka_unit_test(test_slider_crank),
      cmocka_unit_test(test_spatial_loops),
      cmocka_unit_test(test_coupled_loops),
      cmocka_unit_test(test_energy),
      cmocka_unit_test(test_singular),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  print_message("worst: phi(q0) %.2e | Kv %.2e | Kdot v %.2e | proj q %.2e | proj v %.2e | "
                "K qdd + Kdot v %.2e | EOM %.2e | loop vs tree %.2e | row choice %.2e | "
                "slider A vs B %.2e | energy %.2e\n",
                worst_phi0, worst_Kv, worst_Kdv, worst_projq, worst_projv, worst_acc, worst_eom,
                worst_tree, worst_rows, worst_slider, worst_energy);
  return rc;
}
