/* test_rtmodel.c — every example through the whole front end into the runtime's model, and the
 * runtime's dynamics of two examples against the closed forms written in their headers:
 *   double_pendulum.mbd: M11 = mL²(5/3 + cos q2), M12 = mL²(1/3 + cos(q2)/2), M22 = mL²/3,
 *                        g1 = m g L (3/2 sin q1 + 1/2 sin(q1+q2)), g2 = m g L sin(q1+q2)/2;
 *   cart_pole.mbd:       M = [mc+mp, mp l cos θ; ., mp l² + I], h at zero velocity = [0, −mp g l sin θ].
 * The gravity torques' sign depends on the axis direction, so g is compared in absolute value
 * against the formula and in sign against a finite difference of the potential energy. Inertias
 * with noise (exported robots) are accepted by the front end and then by the runtime's check. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/load.h"
#include "topology/rtmodel.h"

typedef struct loaded {
  mbg_model *m;
  mbg_topology *t;
  mbg_rtmodel rt;
  mb_workspace ws;
  void *buf;
} loaded;

static void load(const char *name, loaded *L) {
  char path[4096];
  snprintf(path, sizeof path, "%s/examples/%s", getenv("MBDC_SOURCE_DIR"), name);
  int errors, warnings;
  L->m = mbg_load_mbd(path, stderr, &errors, &warnings);
  assert_non_null(L->m);
  L->t = mbg_topology_build(L->m);
  assert_non_null(L->t);
  assert_int_equal(mbg_rtmodel_build(L->m, L->t, &L->rt), 0);
  char msg[256];
  int rc = mb_model_check(&L->rt.model, msg, sizeof msg);
  if (rc) fail_msg("%s: %s", name, msg);
  L->buf = malloc(mb_workspace_size(&L->rt.model));
  assert_non_null(L->buf);
  mb_workspace_init(&L->ws, &L->rt.model, L->buf);
}

static void unload(loaded *L) {
  free(L->buf);
  mbg_rtmodel_free(&L->rt);
  mbg_topology_free(L->t);
  mbg_model_free(L->m);
}

static void assert_close(double got, double want, const char *what) {
  if (fabs(got - want) > 1e-12 * (1 + fabs(want)))
    fail_msg("%s = %.17g, expected %.17g", what, got, want);
}

static void every_example_builds(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/examples", getenv("MBDC_SOURCE_DIR"));
  DIR *d = opendir(dir);
  assert_non_null(d);
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".mbd") != 0) continue;
    loaded L;
    load(e->d_name, &L);
    assert_int_equal(L.rt.model.nv, L.t->nv);
    unload(&L);
    count++;
  }
  closedir(d);
  assert_true(count >= 6);
}

/* Potential energy V(q) = −Σ m_i gravity · c_i (c_i the world centre of mass, from mb_fk). */
static double potential(loaded *L, const double *q) {
  const mb_model *r = &L->rt.model;
  double pose[12 * 8], V = 0;
  assert_true(r->nb < 8);
  mb_fk(r, &L->ws, q, pose);
  for (int i = 1; i <= r->nb; i++) {
    const double *R = pose + 12 * i, *p = R + 9, *I = r->inertia + 10 * i;
    for (int k = 0; k < 3; k++) {
      double c = p[k] * I[0] + R[3 * k] * I[1] + R[3 * k + 1] * I[2] + R[3 * k + 2] * I[3];
      V -= r->gravity[k] * c;
    }
  }
  return V;
}

/* g(q) = ∂V/∂q by central differences (step 1e-5: truncation error ~1e-10 relative here). */
static void gravity_matches_potential(loaded *L, const double *q, const double *grav) {
  int nv = L->rt.model.nv;
  for (int i = 0; i < nv; i++) {
    double qp[8], qm[8];
    memcpy(qp, q, sizeof(double) * (size_t)nv);
    memcpy(qm, q, sizeof(double) * (size_t)nv);
    qp[i] += 1e-5;
    qm[i] -= 1e-5;
    double fd = (potential(L, qp) - potential(L, qm)) / 2e-5;
    if (fabs(fd - grav[i]) > 1e-8 * (1 + fabs(grav[i])))
      fail_msg("g[%d] = %.17g, dV/dq = %.17g", i, grav[i], fd);
  }
}

static void double_pendulum_closed_form(void **state) {
  (void)state;
  loaded L;
  load("double_pendulum.mbd", &L);
  const double m = 1.0, l = 1.0, g = 9.81;
  const double qs[3][2] = {{0.3, -1.1}, {2.0, 0.7}, {-0.4, 3.0}};
  for (int k = 0; k < 3; k++) {
    const double *q = qs[k];
    double M[4], grav[2];
    mb_crba(&L.rt.model, &L.ws, q, M);
    assert_close(M[0], m * l * l * (5.0 / 3 + cos(q[1])), "M11");
    assert_close(M[1], m * l * l * (1.0 / 3 + cos(q[1]) / 2), "M12");
    assert_close(M[2], M[1], "M21");
    assert_close(M[3], m * l * l / 3, "M22");
    mb_gravity(&L.rt.model, &L.ws, q, grav);
    assert_close(fabs(grav[0]), fabs(m * g * l * (1.5 * sin(q[0]) + 0.5 * sin(q[0] + q[1]))), "|g1|");
    assert_close(fabs(grav[1]), fabs(m * g * l * 0.5 * sin(q[0] + q[1])), "|g2|");
    gravity_matches_potential(&L, q, grav);
  }
  unload(&L);
}

static void cart_pole_closed_form(void **state) {
  (void)state;
  loaded L;
  load("cart_pole.mbd", &L);
  const double mc = 1.0, mp = 0.1, l = 0.5, I = mp * 1.0 / 12, g = 9.8;
  const double q[2] = {0.4, 0.9};
  double M[4], h[2], v0[2] = {0, 0};
  mb_crba(&L.rt.model, &L.ws, q, M);
  assert_close(M[0], mc + mp, "M11");
  assert_close(fabs(M[1]), mp * l * cos(q[1]), "|M12|");
  assert_close(M[3], mp * l * l + I, "M22");
  mb_nle(&L.rt.model, &L.ws, q, v0, h);
  assert_close(h[0], 0.0, "h1");
  assert_close(fabs(h[1]), mp * g * l * sin(q[1]), "|h2|");
  gravity_matches_potential(&L, q, h);
  unload(&L);
}

/* Inertias with noise, as exported robots have them (iCub of example-robot-data: a 1.34 kg head
 * whose only inertia is ixz = 2.4e-35, an ankle with ixz = 1.4e-20, massless frames), through
 * fixed-joint merging into the runtime's model, which must accept what the front end accepts. */
static void noisy_inertias_reach_the_runtime(void **state) {
  (void)state;
  static const char urdf[] =
      "<robot name=\"noisy\">\n"
      " <link name=\"chest\"><inertial><mass value=\"4.81\"/>"
      "<origin xyz=\"0.00222898 0.075 -1.18362e-17\"/>"
      "<inertia ixx=\"0.07472\" ixy=\"-3.6e-06\" ixz=\"-4.705e-05\" iyy=\"0.08145\" "
      "iyz=\"0.004567\" izz=\"0.01306\"/></inertial></link>\n"
      " <link name=\"head\"><inertial><mass value=\"1.33687\"/>"
      "<origin xyz=\"0.0185 -0.1108 6.78454e-18\"/>"
      "<inertia ixx=\"0\" ixy=\"0\" ixz=\"2.40741e-35\" iyy=\"0\" iyz=\"0\" izz=\"0\"/>"
      "</inertial></link>\n"
      " <link name=\"ankle\"><inertial><mass value=\"0.2675\"/><origin xyz=\"0.008 0 0.0553\"/>"
      "<inertia ixx=\"0\" ixy=\"0\" ixz=\"1.35525e-20\" iyy=\"0\" iyz=\"0\" izz=\"0\"/>"
      "</inertial></link>\n"
      " <link name=\"lump\"><inertial><mass value=\"1\"/>"
      "<inertia ixx=\"1e-35\" ixy=\"2e-35\" ixz=\"0\" iyy=\"1e-35\" iyz=\"0\" izz=\"1e-35\"/>"
      "</inertial></link>\n"
      " <link name=\"frame\"><inertial><mass value=\"0\"/>"
      "<inertia ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"/></inertial></link>\n"
      " <joint name=\"neck\" type=\"revolute\"><parent link=\"chest\"/><child link=\"head\"/>"
      "<origin xyz=\"0 0.2 0\"/><axis xyz=\"0 0 1\"/></joint>\n"
      " <joint name=\"hip\" type=\"revolute\"><parent link=\"chest\"/><child link=\"ankle\"/>"
      "<origin xyz=\"0 -0.4 0\" rpy=\"0.3 0 0\"/><axis xyz=\"1 0 0\"/></joint>\n"
      " <joint name=\"glue\" type=\"fixed\"><parent link=\"head\"/><child link=\"lump\"/>"
      "<origin xyz=\"0.05 0 0.1\" rpy=\"0 1 0\"/></joint>\n"
      " <joint name=\"mark\" type=\"fixed\"><parent link=\"ankle\"/><child link=\"frame\"/>"
      "</joint>\n"
      "</robot>\n";
  for (int floating = 0; floating <= 1; floating++) {
    int errors, warnings;
    mbg_load_opts o = {.floating_base = floating};
    mbg_model *m =
        mbg_model_from_source("noisy.urdf", urdf, strlen(urdf), &o, stderr, &errors, &warnings);
    assert_non_null(m);
    mbg_topology *t = mbg_topology_build(m);
    assert_non_null(t);
    mbg_rtmodel rt;
    assert_int_equal(mbg_rtmodel_build(m, t, &rt), 0);
    char msg[256];
    if (mb_model_check(&rt.model, msg, sizeof msg)) fail_msg("floating %d: %s", floating, msg);
    mbg_rtmodel_free(&rt);
    mbg_topology_free(t);
    mbg_model_free(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_example_builds),
    cmocka_unit_test(double_pendulum_closed_form),
    cmocka_unit_test(cart_pole_closed_form),
    cmocka_unit_test(noisy_inertias_reach_the_runtime),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
