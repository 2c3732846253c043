/* test_topology.c — the numbered tree (generator/topology.c): hand-drawn trees with exact
 * numbering, offsets, expanded parents, chains and nodes; fixed-joint merging; loops; the
 * transform and inertia helpers. The invariants on random trees are in test_topology_random.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topology/topology.h"

#include "mbg_testmodel.h"

static const mbg_loc noloc = {0, 0, 0};


static void set_origin(mbg_model *m, int j, double x, double y, double z, double yaw) {
  m->joints[j].xyz[0] = x, m->joints[j].xyz[1] = y, m->joints[j].xyz[2] = z;
  m->joints[j].rpy[2] = yaw;
}

static void assert_ints(const int *got, const int *want, int n) {
  for (int k = 0; k < n; k++) {
    if (got[k] != want[k]) print_error("element %d: got %d, want %d\n", k, got[k], want[k]);
    assert_int_equal(got[k], want[k]);
  }
}

/* Per-body field of the tree (index 0 = the world) gathered into an array. */
#define GATHER(t, field, out)                                                                  \
  do {                                                                                         \
    for (int i_ = 0; i_ <= (t)->nb; i_++) (out)[i_] = (t)->body[i_].field;                   \
  } while (0)

/* world -revolute-> a -prismatic-> b -helical-> c */
static void test_chain(void **state) {
  (void)state;
  mbg_model *m = mbg_model_new("chain", "");
  int c = mbgt_body(m, "c", 1), a = mbgt_body(m, "a", 1), b = mbgt_body(m, "b", 1);
  mbgt_joint(m, "jc", MBG_JOINT_HELICAL, b, c);
  mbgt_joint(m, "ja", MBG_JOINT_REVOLUTE, 0, a);
  mbgt_joint(m, "jb", MBG_JOINT_PRISMATIC, a, b);
  mbg_topology *t = mbg_topology_build(m);
  assert_non_null(t);
  assert_int_equal(t->nb, 3);
  assert_int_equal(t->nq, 3);
  assert_int_equal(t->nv, 3);
  int got[4];
  GATHER(t, model_body, got);
  assert_ints(got, (int[]){0, a, b, c}, 4);
  GATHER(t, parent, got);
  assert_ints(got + 1, (int[]){0, 1, 2}, 3);
  GATHER(t, depth, got);
  assert_ints(got, (int[]){0, 1, 2, 3}, 4);
  GATHER(t, subtree_end, got);
  assert_ints(got, (int[]){4, 4, 4, 4}, 4);
  GATHER(t, iq, got);
  assert_ints(got + 1, (int[]){0, 1, 2}, 3);
  assert_ints(t->dof_parent, (int[]){-1, 0, 1}, 3);
  assert_ints(t->dof_body, (int[]){1, 2, 3}, 3);
  assert_int_equal(t->nchains, 1);
  assert_int_equal(t->nnodes, 0);
  assert_int_equal(t->world_is_node, 0);
  assert_ints(t->chain_start, (int[]){0, 3}, 2);
  assert_ints(t->chain_body, (int[]){1, 2, 3}, 3);
  assert_int_equal(t->body[3].type, MBG_JOINT_HELICAL);
  assert_true(mbg_topology_supports(t, 1, 3) && !mbg_topology_supports(t, 3, 1));
  assert_true(mbg_topology_supports(t, 0, 2) && mbg_topology_supports(t, 2, 2));
  mbg_topology_free(t);
  mbg_model_free(m);
}

/* A Y: world -> base -> {right, left}; right's joint is declared first, so it is numbered first. */
static void test_y(void **state) {
  (void)state;
  mbg_model *m = mbg_model_new("y", "");
  int base = mbgt_body(m, "base", 1), left = mbgt_body(m, "left", 1);
  int right = mbgt_body(m, "right", 1);
  mbgt_joint(m, "jb", MBG_JOINT_REVOLUTE, 0, base);
  mbgt_joint(m, "jr", MBG_JOINT_REVOLUTE, base, right);
  mbgt_joint(m, "jl", MBG_JOINT_REVOLUTE, base, left);
  mbg_topology *t = mbg_topology_build(m);
  assert_non_null(t);
  int got[4];
  GATHER(t, model_body, got);
  assert_ints(got, (int[]){0, base, right, left}, 4);
  GATHER(t, subtree_end, got);
  assert_ints(got, (int[]){4, 4, 3, 4}, 4);
  assert_int_equal(t->body[1].first_child, 2);
  assert_int_equal(t->body[2].next_sibling, 3);
  assert_int_equal(t->body[3].next_sibling, 0);
  assert_int_equal(t->body[1].nchildren, 2);
  assert_ints(t->dof_parent, (int[]){-1, 0, 0}, 3);
  assert_int_equal(t->nnodes, 1);
  assert_int_equal(t->node[0], 1);
  assert_true(t->body[1].is_node && t->body[1].chain == -1);
  assert_int_equal(t->nchains, 2);
  assert_ints(t->chain_start, (int[]){0, 1, 2}, 3);
  assert_ints(t->chain_body, (int[]){2, 3}, 2);
  assert_int_equal(t->world_is_node, 0);
  assert_false(mbg_topology_supports(t, 2, 3));
  mbg_topology_free(t);
  mbg_model_free(m);
}

/* world -spherical-> a -revolute-> b, and a second child of the world: the world is a node. */
static void test_spherical(void **state) {
  (void)state;
  mbg_model *m = mbg_model_new("sph", "");
  int a = mbgt_body(m, "a", 1), b = mbgt_body(m, "b", 1), c = mbgt_body(m, "c", 1);
  mbgt_joint(m, "ja", MBG_JOINT_SPHERICAL, 0, a);
  mbgt_joint(m, "jb", MBG_JOINT_REVOLUTE, a, b);
  mbgt_joint(m, "jc", MBG_JOINT_CONTINUOUS, 0, c);
  mbg_topology *t = mbg_topology_build(m);
  assert_non_null(t);
  assert_int_equal(t->nq, 6);
  assert_int_equal(t->nv, 5);
  int got[4];
  GATHER(t, iq, got);
  assert_ints(got + 1, (int[]){0, 4, 5}, 3);
  GATHER(t, iv, got);
  assert_ints(got + 1, (int[]){0, 3, 4}, 3);
  assert_ints(t->dof_parent, (int[]){-1, 0, 1, 2, -1}, 5);
  assert_ints(t->dof_body, (int[]){1, 1, 1, 2, 3}, 5);
  assert_int_equal(t->world_is_node, 1);
  assert_int_equal(t->nnodes, 0);
  assert_int_equal(t->nchains, 2);
  assert_ints(t->chain_body, (int[]){1, 2, 3}, 3);
  assert_ints(t->chain_start, (int[]){0, 2, 3}, 3);
  mbg_topology_free(t);
  mbg_model_free(m);
}

typedef struct branched {
  mbg_model *m;
  int torso, sensor, hip, thigh_l, thigh_r, shin_l, shin_r, neck, head, pedestal, arm;
} branched;

/* A floating torso with a sensor and a hip plate fixed to it (the legs hang from the plate), a
 * neck with a fixed head, and an arm on a pedestal fixed to the world. */
static branched make_branched(void) {
  branched r;
  mbg_model *m = r.m = mbg_model_new("branched", "");
  r.torso = mbgt_body(m, "torso", 10), r.sensor = mbgt_body(m, "sensor", 0.5);
  r.hip = mbgt_body(m, "hip", 2);
  r.thigh_l = mbgt_body(m, "thigh_l", 3), r.thigh_r = mbgt_body(m, "thigh_r", 3);
  r.shin_l = mbgt_body(m, "shin_l", 1.5), r.shin_r = mbgt_body(m, "shin_r", 1.5);
  r.neck = mbgt_body(m, "neck", 1), r.head = mbgt_body(m, "head", 4);
  r.pedestal = mbgt_body(m, "pedestal", 50), r.arm = mbgt_body(m, "arm", 2);
  m->bodies[r.sensor].com[0] = 0.1;
  mbgt_joint(m, "base", MBG_JOINT_FLOATING, 0, r.torso);
  mbgt_joint(m, "sensor_mount", MBG_JOINT_FIXED, r.torso, r.sensor);
  int jh = mbgt_joint(m, "hip_mount", MBG_JOINT_FIXED, r.torso, r.hip);
  set_origin(m, jh, 0, 0, -0.2, PI / 2);
  int jl = mbgt_joint(m, "hip_l", MBG_JOINT_REVOLUTE, r.hip, r.thigh_l);
  set_origin(m, jl, 0, 0.1, 0, 0);
  mbgt_joint(m, "hip_r", MBG_JOINT_REVOLUTE, r.hip, r.thigh_r);
  mbgt_joint(m, "neck_j", MBG_JOINT_REVOLUTE, r.torso, r.neck);
  mbgt_joint(m, "head_mount", MBG_JOINT_FIXED, r.neck, r.head);
  mbgt_joint(m, "knee_l", MBG_JOINT_REVOLUTE, r.thigh_l, r.shin_l);
  mbgt_joint(m, "knee_r", MBG_JOINT_REVOLUTE, r.thigh_r, r.shin_r);
  mbgt_joint(m, "pedestal_mount", MBG_JOINT_FIXED, 0, r.pedestal);
  mbgt_joint(m, "shoulder", MBG_JOINT_REVOLUTE, r.pedestal, r.arm);
  return r;
}

static void test_branched(void **state) {
  (void)state;
  branched r = make_branched();
  mbg_topology *t = mbg_topology_build(r.m);
  assert_non_null(t);
  /* torso's children by joint order: thigh_l, thigh_r (via the hip), neck; then the arm. */
  int got[8];
  GATHER(t, model_body, got);
  assert_ints(got, (int[]){0, r.torso, r.thigh_l, r.shin_l, r.thigh_r, r.shin_r, r.neck, r.arm},
              8);
  GATHER(t, parent, got);
  assert_ints(got + 1, (int[]){0, 1, 2, 1, 4, 1, 0}, 7);
  GATHER(t, subtree_end, got);
  assert_ints(got, (int[]){8, 7, 4, 4, 6, 6, 7, 8}, 8);
  assert_int_equal(t->nq, 13);
  assert_int_equal(t->nv, 12);
  assert_ints(t->dof_parent, (int[]){-1, 0, 1, 2, 3, 4, 5, 6, 5, 8, 5, -1}, 12);
  assert_int_equal(t->world_is_node, 1);
  assert_int_equal(t->nnodes, 1);
  assert_int_equal(t->node[0], 1);
  assert_int_equal(t->nchains, 4);
  assert_ints(t->chain_start, (int[]){0, 2, 4, 5, 6}, 5);
  assert_ints(t->chain_body, (int[]){2, 3, 4, 5, 6, 7}, 6);
  /* hip plate at (0 0 -0.2) turned 90° about z: the left hip (0 0.1 0 on the plate) is at
   * (-0.1 0 -0.2) in the torso, with the plate's rotation. */
  assert_near(t->body[2].XT.r[0], -0.1, 1e-15);
  assert_near(t->body[2].XT.r[1], 0.0, 1e-15);
  assert_near(t->body[2].XT.r[2], -0.2, 1e-15);
  assert_near(t->body[2].XT.E[1], 1.0, 1e-15); /* E = Rz(90°)ᵀ */
  /* merged inertias: torso 10 + sensor 0.5 (COM at x 0.1) + hip 2 (at z -0.2); neck + head. */
  assert_near(t->body[1].I.m, 12.5, 1e-12);
  assert_near(t->body[1].I.h[0], 0.05, 1e-12);
  assert_near(t->body[1].I.h[2], -0.4, 1e-12);
  assert_near(t->body[6].I.m, 5.0, 1e-12);
  assert_near(t->body[7].I.m, 2.0, 1e-12); /* the pedestal went into the world */
  assert_near(t->body[0].I.m, 0.0, 0.0);
  assert_int_equal(t->nmerged, r.m->nbodies);
  assert_int_equal(t->merged[r.sensor].into, 1);
  assert_int_equal(t->merged[r.hip].into, 1);
  assert_int_equal(t->merged[r.head].into, 6);
  assert_int_equal(t->merged[r.pedestal].into, 0);
  assert_int_equal(t->merged[r.arm].into, 7);
  assert_int_equal(t->merged[0].into, 0);
  assert_near(t->merged[r.hip].X.r[2], -0.2, 1e-15);
  mbg_topology_free(t);
  mbg_model_free(r.m);
}

static void test_loops(void **state) {
  (void)state;
  branched r = make_branched();
  int l = mbg_model_add_loop(r.m, "feet", noloc);
  r.m->loops[l].type = MBG_JOINT_S;
  r.m->loops[l].body_a = r.shin_l, r.m->loops[l].body_b = r.shin_r;
  l = mbg_model_add_loop(r.m, "helmet", noloc);
  r.m->loops[l].type = MBG_JOINT_REVOLUTE;
  r.m->loops[l].body_a = r.head, r.m->loops[l].body_b = r.sensor;
  r.m->loops[l].xyz[2] = 0.3;
  r.m->loops[l].target_xyz[0] = 0.7;
  l = mbg_model_add_loop(r.m, "grab", noloc);
  r.m->loops[l].type = MBG_JOINT_S;
  r.m->loops[l].body_a = r.arm, r.m->loops[l].body_b = r.shin_r;
  mbg_topology *t = mbg_topology_build(r.m);
  assert_non_null(t);
  assert_int_equal(t->nloops, 3);
  const mbg_tree_loop *L = &t->loop[0];
  assert_int_equal(L->a, 3);
  assert_int_equal(L->b, 5);
  assert_int_equal(L->ancestor, 1);
  assert_int_equal(L->npath, 4);
  assert_ints(L->path, (int[]){3, 2, 4, 5}, 4);
  L = &t->loop[1];
  assert_int_equal(L->model_loop, 1);
  assert_int_equal(L->a, 6);
  assert_int_equal(L->b, 1);
  assert_int_equal(L->ancestor, 1);
  assert_int_equal(L->npath, 1);
  assert_int_equal(L->path[0], 6);
  assert_near(L->Xa.r[2], 0.3, 1e-15);
  assert_near(L->Xb.r[0], 0.7, 1e-15);
  L = &t->loop[2];
  assert_int_equal(L->ancestor, 0);
  assert_ints(L->path, (int[]){7, 1, 4, 5}, 4);
  mbg_topology_free(t);
  mbg_model_free(r.m);
}

/* Inertia helpers against hand values. */
static void test_inertia(void **state) {
  (void)state;
  mbg_body b = {0};
  b.mass = 2.0;
  b.com[0] = 1.0;
  b.inertia[0] = 0.1, b.inertia[1] = 0.2, b.inertia[2] = 0.3, b.inertia[3] = 0.01;
  mbg_inertia I, P;
  mbg_inertia_from_body(&b, &I);
  double want[6] = {0.1, 0.2 + 2.0, 0.3 + 2.0, 0.01, 0.0, 0.0};
  for (int k = 0; k < 6; k++) assert_near(I.I[k], want[k], 1e-15);
  assert_near(I.h[0], 2.0, 0.0);
  /* child frame turned 90° about z and moved to (0 0 1) in the parent: COM at (0 1 1). */
  mbg_xform X;
  mbg_xform_from_xyz_rpy((double[]){0, 0, 1}, (double[]){0, 0, PI / 2}, &X);
  mbg_inertia_to_parent(&X, &I, &P);
  assert_near(P.h[0], 0.0, 1e-15);
  assert_near(P.h[1], 2.0, 1e-15);
  assert_near(P.h[2], 2.0, 1e-15);
  /* about the parent origin: Ic rotated (xx 0.2, yy 0.1, xy -0.01) + 2 (|c|² 1 − c cᵀ) */
  double wantP[6] = {0.2 + 4.0, 0.1 + 2.0, 0.3 + 2.0, -0.01, 0.0, -2.0};
  for (int k = 0; k < 6; k++) assert_near(P.I[k], wantP[k], 1e-14);
}

/* X maps parent coordinates to child coordinates: p_child = E (p_parent − r). */
static void apply(const mbg_xform *X, const double p[3], double out[3]) {
  for (int i = 0; i < 3; i++) {
    out[i] = 0.0;
    for (int k = 0; k < 3; k++) out[i] += X->E[3 * i + k] * (p[k] - X->r[k]);
  }
}

static void test_xform(void **state) {
  (void)state;
  mbg_xform A, B, X, I;
  /* roll 90°: the joint frame's y axis is the parent's z axis. */
  mbg_xform_from_xyz_rpy((double[]){0, 0, 0}, (double[]){PI / 2, 0, 0}, &A);
  double z[3] = {0, 0, 1}, out[3];
  apply(&A, z, out);
  assert_near(out[1], 1.0, 1e-15);
  mbg_xform_from_xyz_rpy((double[]){1, 2, 3}, (double[]){0.3, -0.7, 1.1}, &A);
  mbg_xform_from_xyz_rpy((double[]){-0.5, 0.25, 2}, (double[]){-1.2, 0.4, 2.9}, &B);
  mbg_xform_compose(&B, &A, &X);
  double p[3] = {0.3, -1.7, 4.2}, mid[3], want[3];
  apply(&A, p, mid);
  apply(&B, mid, want);
  apply(&X, p, out);
  for (int k = 0; k < 3; k++) assert_near(out[k], want[k], 1e-14);
  mbg_xform_identity(&I);
  mbg_xform_compose(&I, &A, &X);
  for (int k = 0; k < 9; k++) assert_near(X.E[k], A.E[k], 0.0);
  /* rpy order: R = Rz(yaw) Ry(pitch) Rx(roll); pitch 90° then yaw 90°: joint x axis → parent
   * (0 0 -1) rotated by yaw stays (0 0 -1); joint y axis → Rz(90°) y = (-1 0 0). */
  mbg_xform_from_xyz_rpy((double[]){0, 0, 0}, (double[]){0, PI / 2, PI / 2}, &A);
  assert_near(A.E[2], -1.0, 1e-15); /* row 0 of E = column 0 of R = (0 0 -1) */
  assert_near(A.E[3], -1.0, 1e-15); /* row 1 of E = column 1 of R = (-1 0 0) */
}

/* A body without a parent joint and a cycle of fixed joints are skipped, never a crash. */
static void test_defensive(void **state) {
  (void)state;
  mbg_model *m = mbg_model_new("bad", "");
  int a = mbgt_body(m, "a", 1), lost = mbgt_body(m, "lost", 1);
  int c1 = mbgt_body(m, "c1", 1), c2 = mbgt_body(m, "c2", 1);
  mbgt_joint(m, "ja", MBG_JOINT_REVOLUTE, 0, a);
  mbgt_joint(m, "x1", MBG_JOINT_FIXED, c2, c1);
  mbgt_joint(m, "x2", MBG_JOINT_FIXED, c1, c2);
  int l = mbg_model_add_loop(m, "ll", noloc);
  m->loops[l].body_a = a, m->loops[l].body_b = lost;
  mbg_topology *t = mbg_topology_build(m);
  assert_non_null(t);
  assert_int_equal(t->nb, 1);
  assert_int_equal(t->merged[lost].into, -1);
  assert_int_equal(t->merged[c1].into, -1);
  assert_int_equal(t->nloops, 0);
  mbg_topology_free(t);
  mbg_model_free(m);
  m = mbg_model_new("empty", "");
  t = mbg_topology_build(m);
  assert_non_null(t);
  assert_int_equal(t->nb, 0);
  assert_int_equal(t->nchains, 0);
  mbg_topology_free(t);
  mbg_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_chain),     cmocka_unit_test(test_y),
    cmocka_unit_test(test_spherical), cmocka_unit_test(test_branched),
    cmocka_unit_test(test_loops),     cmocka_unit_test(test_inertia),
    cmocka_unit_test(test_xform),     cmocka_unit_test(test_defensive),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
