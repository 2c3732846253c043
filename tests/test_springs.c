/* test_springs.c — the `spring` and `initial` statements through the front end: the values and
 * defaults they give the model, the soft keywords, the topology (springs on bodies merged by fixed
 * joints re-expressed on the moving body, a spring within one rigid body left out, the initial
 * state in the tree's coordinate order), the runtime's springs, and the .mbd writer's round trip.
 * The located errors are golden tests (tests/golden/140-142); the dynamics are test_passive.c's
 * and the generated code's harness (examples/spring_pendulum.mbd). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/mbd_write.h"
#include "load/load.h"
#include "topology/rtmodel.h"

#define assert_near(got, want, tol) assert_near_at((got), (want), (tol), #got, __FILE__, __LINE__)
static void assert_near_at(double got, double want, double tol, const char *what,
                           const char *file, int line) {
  if (!(fabs(got - want) <= tol)) {
    print_error("%s = %.17g, want %.17g (tolerance %g)\n", what, got, want, tol);
    _fail(file, line);
  }
}

static mbg_model *parse(const char *src) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  assert_non_null(out);
  int errors = -1, warnings = -1;
  mbg_model *m = mbg_model_from_text("test.mbd", src, strlen(src), out, &errors, &warnings);
  fclose(out);
  if (errors != 0 || !m) print_error("%d errors for:\n%s\n---- output ----\n%s", errors, src, buf);
  free(buf);
  assert_int_equal(errors, 0);
  assert_non_null(m);
  return m;
}

/* A pendulum on a cart; a tool fixed to the pendulum; springs on all three. The joints are
 * declared in an order unlike the tree's (the hinge first), so coordinate order differs. */
static const char PENDULUM[] =
    "body cart { mass 2; inertia 0.1 0.1 0.1; }\n"
    "body arm { mass 0.5; com 0 0 -0.4; inertia 0.03 0.03 1e-4; }\n"
    "body tool { mass 0.2; inertia 1e-4 1e-4 1e-4; }\n"
    "body ball { mass 1; inertia 0.1 0.1 0.1; }\n"
    "joint hinge revolute cart -> arm { origin xyz 0 0.1 0; axis 0 -1 0; }\n"
    "joint rail prismatic world -> cart { axis 1 0 0; }\n"
    "joint mount fixed arm -> tool { origin xyz 0.05 0 -0.8 rpy 0 0.3 0; }\n"
    "joint swivel spherical tool -> ball { origin xyz 0 0 -0.1; }\n"
    "spring s1 world -> cart { origin xyz -1 0 0; stiffness 40; damping 1.5; length 1; }\n"
    "spring s2 world -> tool { origin xyz 0.5 0.1 -0.3; target xyz 0.04 0 0; stiffness 25; }\n"
    "spring s3 arm -> tool { target xyz 0.01 0 0; stiffness 5; }\n"
    "spring s4 cart -> tool { damping 0.8; }\n"
    "initial hinge 20 deg velocity 0.5;\n"
    "initial swivel 0 0 2 2 velocity 1 2 3;\n";

static void test_values_and_defaults(void **state) {
  (void)state;
  mbg_model *m = parse(PENDULUM);
  assert_int_equal(m->nsprings, 4);
  const mbg_spring *s = m->springs;
  assert_string_equal(s[0].name, "s1");
  assert_int_equal(s[0].body_a, 0);
  assert_int_equal(s[0].body_b, mbg_model_find_body(m, "cart"));
  assert_near(s[0].ra[0], -1, 0);
  assert_near(s[0].rb[0], 0, 0);
  assert_near(s[0].stiffness, 40, 0), assert_near(s[0].damping, 1.5, 0);
  assert_near(s[0].length, 1, 0);
  /* defaults: points at the origins, c = 0, L0 = 0 */
  assert_near(s[1].damping, 0, 0), assert_near(s[1].length, 0, 0);
  assert_near(s[3].stiffness, 0, 0), assert_near(s[3].damping, 0.8, 0);
  assert_near(s[3].ra[0] + s[3].ra[1] + s[3].ra[2] + s[3].rb[0] + s[3].rb[1] + s[3].rb[2], 0, 0);
  /* initial: degrees, a normalized quaternion, the velocities; no initial for the others */
  const mbg_joint *hinge = &m->joints[mbg_model_find_joint(m, "hinge")];
  const mbg_joint *swivel = &m->joints[mbg_model_find_joint(m, "swivel")];
  const mbg_joint *rail = &m->joints[mbg_model_find_joint(m, "rail")];
  assert_true(hinge->has_q0 && hinge->has_v0 && swivel->has_q0 && swivel->has_v0);
  assert_false(rail->has_q0 || rail->has_v0);
  assert_near(hinge->q0[0], 20 * 3.14159265358979323846 / 180, 1e-16);
  assert_near(hinge->v0[0], 0.5, 0);
  assert_near(swivel->q0[2], sqrt(0.5), 2e-16), assert_near(swivel->q0[3], sqrt(0.5), 2e-16);
  assert_near(swivel->v0[2], 3, 0);
  mbg_model_free(m);
}

/* spring, initial and velocity may name things (not constants), like the flexible words. */
static void test_soft_keywords(void **state) {
  (void)state;
  mbg_model *m = parse("body spring { mass 1; inertia 1 1 1; }\n"
                       "joint velocity revolute world -> spring;\n"
                       "spring initial world -> spring { origin xyz 0 0 1; stiffness 1; }\n"
                       "initial velocity 1 velocity 2;\n");
  assert_string_equal(m->springs[0].name, "initial");
  assert_near(m->joints[0].q0[0], 1, 0), assert_near(m->joints[0].v0[0], 2, 0);
  mbg_model_free(m);
  m = parse("body b { mass 1; inertia 1 1 1; }\njoint j revolute world -> b;\n"
            "initial j velocity 3;\n");
  assert_false(m->joints[0].has_q0);
  assert_true(m->joints[0].has_v0);
  mbg_model_free(m);
}

/* R_y(θ) p, the rotation about y of the model's conventions (child → parent). */
static void rot_y(double th, const double p[3], double out[3]) {
  out[0] = cos(th) * p[0] + sin(th) * p[2];
  out[1] = p[1];
  out[2] = -sin(th) * p[0] + cos(th) * p[2];
}

static void test_topology_and_runtime(void **state) {
  (void)state;
  mbg_model *m = parse(PENDULUM);
  mbg_topology *t = mbg_topology_build(m);
  assert_non_null(t);
  /* tree: cart 1 (rail), arm 2 (hinge), ball 3 (swivel); tool merged into arm, so s3 (arm to
   * tool) is within one rigid body and left out */
  assert_int_equal(t->nb, 3);
  assert_int_equal(t->nsprings, 3);
  assert_int_equal(t->spring[2].model_spring, 3);
  assert_int_equal(t->spring[1].a, 0), assert_int_equal(t->spring[1].b, 2);
  /* s2's target on the tool: (0.05, 0, −0.8) + R_y(0.3) (0.04, 0, 0) in the arm's frame */
  double p[3] = {0.04, 0, 0}, want[3];
  rot_y(0.3, p, want);
  want[0] += 0.05, want[2] -= 0.8;
  for (int k = 0; k < 3; k++) assert_near(t->spring[1].rb[k], want[k], 1e-15);
  /* the initial state in coordinate order: rail, hinge, swivel (a quaternion), zero elsewhere */
  double q0[6] = {0, 20 * 3.14159265358979323846 / 180, 0, 0, sqrt(0.5), sqrt(0.5)};
  double v0[5] = {0, 0.5, 1, 2, 3};
  assert_int_equal(t->nq, 6), assert_int_equal(t->nv, 5);
  for (int k = 0; k < 6; k++) assert_near(t->q_initial[k], q0[k], 2e-16);
  for (int k = 0; k < 5; k++) assert_near(t->v_initial[k], v0[k], 0);
  /* the runtime's springs: the world pose of s2's target agrees with the model by hand */
  mbg_rtmodel rt;
  mbg_rtsprings rs;
  assert_int_equal(mbg_rtmodel_build(m, t, &rt), 0);
  assert_int_equal(mbg_rtsprings_build(m, t, &rs), 0);
  char msg[100];
  assert_int_equal(mb_springs_check(&rt.model, &rs.springs, msg, sizeof msg), 0);
  assert_near(rs.spring[0].stiffness, 40, 0), assert_near(rs.spring[0].length, 1, 0);
  mb_workspace ws;
  void *buf = malloc(mb_workspace_size(&rt.model));
  mb_workspace_init(&ws, &rt.model, buf);
  double q[6] = {0.3, 0.7, 0, 0, 0, 1}, pose[48];
  assert_int_equal(mb_fk(&rt.model, &ws, q, pose), MB_OK);
  const double *P = pose + 12 * 2, *rb = rs.spring[1].rb;
  double w[3], hand[3];
  for (int k = 0; k < 3; k++)
    w[k] = P[9 + k] + P[3 * k] * rb[0] + P[3 * k + 1] * rb[1] + P[3 * k + 2] * rb[2];
  rot_y(-0.7, want, hand); /* the hinge turns about −y */
  hand[0] += 0.3, hand[1] += 0.1;
  for (int k = 0; k < 3; k++) assert_near(w[k], hand[k], 1e-15);
  free(buf);
  mbg_rtsprings_free(&rs);
  mbg_rtmodel_free(&rt);
  mbg_topology_free(t);
  mbg_model_free(m);
}

/* Both ends on one rigid body after merging: no force, left out of the topology. */
static void test_spring_within_one_body(void **state) {
  (void)state;
  mbg_model *m = parse("body a { mass 1; inertia 1 1 1; }\nbody b { }\n"
                       "joint j revolute world -> a;\njoint f fixed a -> b { origin xyz 1 0 0; }\n"
                       "spring s a -> b { stiffness 3; }\n"
                       "spring g world -> b { stiffness 2; }\n");
  mbg_topology *t = mbg_topology_build(m);
  assert_int_equal(t->nsprings, 1);
  assert_int_equal(t->spring[0].model_spring, 1);
  assert_near(t->spring[0].rb[0], 1, 0);
  mbg_topology_free(t);
  mbg_model_free(m);
}

/* Written and read back: the same springs and initial state, to the bit. */
static void test_writer_round_trip(void **state) {
  (void)state;
  mbg_model *m = parse(PENDULUM);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(mbg_mbd_write(f, m, "pendulum.mbd"), 0);
  fclose(f);
  mbg_model *r = parse(text);
  assert_int_equal(r->nsprings, m->nsprings);
  for (int k = 0; k < m->nsprings; k++) {
    const mbg_spring *a = &m->springs[k], *b = &r->springs[k];
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->body_a, b->body_a), assert_int_equal(a->body_b, b->body_b);
    assert_memory_equal(a->ra, b->ra, sizeof a->ra);
    assert_memory_equal(a->rb, b->rb, sizeof a->rb);
    assert_true(a->stiffness == b->stiffness && a->damping == b->damping &&
                a->length == b->length);
  }
  for (int j = 0; j < m->njoints; j++) {
    const mbg_joint *a = &m->joints[j], *b = &r->joints[j];
    assert_int_equal(a->has_q0, b->has_q0), assert_int_equal(a->has_v0, b->has_v0);
    assert_memory_equal(a->q0, b->q0, sizeof a->q0);
    assert_memory_equal(a->v0, b->v0, sizeof a->v0);
  }
  free(text);
  mbg_model_free(r);
  mbg_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_values_and_defaults),
    cmocka_unit_test(test_soft_keywords),
    cmocka_unit_test(test_topology_and_runtime),
    cmocka_unit_test(test_spring_within_one_body),
    cmocka_unit_test(test_writer_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
