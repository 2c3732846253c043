/* test_com.c — centre of mass, its Jacobian and the energy (runtime/com.c), on arm7, the Panda
 * and Solo12 with a floating base.
 *
 * References, each independent of com.c's formulas:
 *   - the Jacobian: central differences of mb_com at q ⊕ ±h e_k (mb_integrate);
 *   - the potential energy: its central differences along e_k are the gravity torques, mb_gravity
 *     (the RNEA with v = q̈ = 0);
 *   - the kinetic energy: ½ vᵀ M v with M from mb_crba;
 *   - the mass: on a floating base, the translational block of M (mb_crba) is m times the
 *     identity; arm7's is the sum of its model's masses;
 *   - centroidal momentum (runtime/centroidal.c): h_G = A_G v (an identity), its linear part
 *     m Jc v (mb_com_jacobian), Ȧ_G v against central differences of A_G v along v, and on a
 *     floating base A_G against the base rows of M (mb_crba): M's rows for the base's [linear;
 *     angular] velocity are the system's momentum at the base in its axes, carried to G. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbt_robot.h"

#define MAXV 64

typedef struct sys {
  mbt_robot r; /* r.rt.model: the runtime model */
  mb_workspace ws;
  void *wbuf;
} sys;

/* rel (mbt_robot_open) with a workspace. */
static void sys_open(sys *s, const char *rel, int floating) {
  mbt_robot_open(&s->r, rel, floating);
  assert_true(s->r.rt.model.nq <= MAXV);
  assert_non_null(s->wbuf = malloc(mb_workspace_size(&s->r.rt.model)));
  mb_workspace_init(&s->ws, &s->r.rt.model, s->wbuf);
}

static void sys_close(sys *s) {
  free(s->wbuf);
  mbt_robot_close(&s->r);
}

static double urand(uint64_t *seed, double lo, double hi) {
  *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * ((double)(*seed >> 11) / 9007199254740992.0);
}

/* q = neutral ⊕ a random velocity (quaternions stay unit), v random in ±1. */
static void random_state(const mb_model *M, uint64_t *seed, double *q, double *v) {
  double d[MAXV];
  assert_int_equal(mb_neutral(M, q), MB_OK);
  for (int k = 0; k < M->nv; k++) d[k] = urand(seed, -2, 2), v[k] = urand(seed, -1, 1);
  assert_int_equal(mb_integrate(M, q, d, 1.0, q), MB_OK);
}

static void check_model(const char *rel, int floating) {
  sys s;
  sys_open(&s, rel, floating);
  const mb_model *M = &s.r.rt.model;
  int nv = M->nv;
  double q[MAXV], v[MAXV], qp[MAXV], qm[MAXV], e[MAXV], c[3], cp[3], cm[3], Jc[3 * MAXV];
  double g[MAXV], E[2], Ep[2], Em[2], *Mm = malloc(sizeof(double) * (size_t)(nv * nv));
  double h = 1e-6, ej = 0.0, eg = 0.0, et = 0.0, em = 0.0, gscale = 1e-300, jscale = 1e-300;
  assert_non_null(Mm);
  uint64_t seed = 3;
  for (int n = 0; n < 10; n++) {
    random_state(M, &seed, q, v);
    assert_int_equal(mb_com(M, &s.ws, q, c), MB_OK);
    assert_int_equal(mb_com_jacobian(M, &s.ws, q, Jc), MB_OK);
    assert_int_equal(mb_energy(M, &s.ws, q, v, E), MB_OK);
    assert_int_equal(mb_gravity(M, &s.ws, q, g), MB_OK);
    for (int k = 0; k < 3 * nv; k++) jscale = fmax(jscale, fabs(Jc[k]));
    for (int k = 0; k < nv; k++) gscale = fmax(gscale, fabs(g[k]));
    for (int k = 0; k < nv; k++) {
      for (int j = 0; j < nv; j++) e[j] = j == k;
      assert_int_equal(mb_integrate(M, q, e, h, qp), MB_OK);
      assert_int_equal(mb_integrate(M, q, e, -h, qm), MB_OK);
      assert_int_equal(mb_com(M, &s.ws, qp, cp), MB_OK);
      assert_int_equal(mb_com(M, &s.ws, qm, cm), MB_OK);
      for (int a = 0; a < 3; a++) ej = fmax(ej, fabs(Jc[nv * a + k] - (cp[a] - cm[a]) / (2 * h)));
      assert_int_equal(mb_energy(M, &s.ws, qp, v, Ep), MB_OK);
      assert_int_equal(mb_energy(M, &s.ws, qm, v, Em), MB_OK);
      eg = fmax(eg, fabs(g[k] - (Ep[1] - Em[1]) / (2 * h)));
    }
    assert_int_equal(mb_crba(M, &s.ws, q, Mm), MB_OK);
    double T = 0.0;
    for (int a = 0; a < nv; a++)
      for (int b = 0; b < nv; b++) T += 0.5 * v[a] * Mm[nv * a + b] * v[b];
    et = fmax(et, fabs(E[0] - T) / fmax(fabs(T), 1e-300));
    if (floating) /* the floating joint's linear velocity comes first: M's block is m 1 */
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) em = fmax(em, fabs(Mm[nv * a + b] - (a == b) * mb_mass(M)));
  }
  ej /= jscale, eg /= gscale;
  printf("%-28s nv %2d, mass %.4f: Jc vs differences %.1e, dV/dq vs gravity %.1e, T vs ½vᵀMv "
         "%.1e, mass vs M %.1e\n", rel, nv, mb_mass(M), ej, eg, et, em);
  assert_true(ej <= 1e-8 && eg <= 1e-8); /* differences, h = 1e-6 */
  assert_true(et <= 1e-13 && em <= 1e-12);
  free(Mm);
  sys_close(&s);
}

/* Centroidal momentum on one model: the worst relative errors of the identity, the linear part,
 * Ȧv by differences and (floating) A_G against M's base rows. */
static void check_centroidal(const char *rel, int floating) {
  sys s;
  sys_open(&s, rel, floating);
  const mb_model *M = &s.r.rt.model;
  int nv = M->nv;
  double q[MAXV], v[MAXV], qp[MAXV], qm[MAXV], h[6], b[6], Jc[3 * MAXV], pose[12 * MAXV], c[3];
  double *A = malloc(sizeof(double) * 6 * (size_t)nv), *Ap = malloc(sizeof(double) * 6 * (size_t)nv);
  double *Am = malloc(sizeof(double) * 6 * (size_t)nv), *Mm = malloc(sizeof(double) * (size_t)(nv * nv));
  double e_id = 0, e_lin = 0, e_bias = 0, e_M = 0, dh = 1e-6;
  assert_true(A && Ap && Am && Mm);
  uint64_t seed = 5;
  for (int n = 0; n < 10; n++) {
    random_state(M, &seed, q, v);
    assert_int_equal(mb_centroidal_momentum(M, &s.ws, q, v, h), MB_OK);
    assert_int_equal(mb_ccrba(M, &s.ws, q, A), MB_OK);
    assert_int_equal(mb_centroidal_bias(M, &s.ws, q, v, b), MB_OK);
    assert_int_equal(mb_com_jacobian(M, &s.ws, q, Jc), MB_OK);
    double hs = 1e-300, bs = 1e-300;
    for (int r = 0; r < 6; r++) hs = fmax(hs, fabs(h[r])), bs = fmax(bs, fabs(b[r]));
    for (int r = 0; r < 6; r++) {
      double x = 0.0;
      for (int k = 0; k < nv; k++) x += A[nv * r + k] * v[k];
      e_id = fmax(e_id, fabs(h[r] - x) / hs);
    }
    for (int a = 0; a < 3; a++) {
      double x = 0.0;
      for (int k = 0; k < nv; k++) x += Jc[nv * a + k] * v[k];
      e_lin = fmax(e_lin, fabs(h[3 + a] - mb_mass(M) * x) / hs);
    }
    assert_int_equal(mb_integrate(M, q, v, dh, qp), MB_OK);
    assert_int_equal(mb_integrate(M, q, v, -dh, qm), MB_OK);
    assert_int_equal(mb_ccrba(M, &s.ws, qp, Ap), MB_OK);
    assert_int_equal(mb_ccrba(M, &s.ws, qm, Am), MB_OK);
    for (int r = 0; r < 6; r++) {
      double x = 0.0;
      for (int k = 0; k < nv; k++) x += (Ap[nv * r + k] - Am[nv * r + k]) / (2 * dh) * v[k];
      e_bias = fmax(e_bias, fabs(b[r] - x) / bs);
    }
    if (floating) { /* A_G = [R M_w + (p − c) × R M_v; R M_v], M_v, M_w the base's rows */
      assert_int_equal(mb_crba(M, &s.ws, q, Mm), MB_OK);
      assert_int_equal(mb_fk(M, &s.ws, q, pose), MB_OK);
      assert_int_equal(mb_com(M, &s.ws, q, c), MB_OK);
      const double *R = pose + 12, *p = pose + 21;
      double as = 1e-300;
      for (int x = 0; x < 6 * nv; x++) as = fmax(as, fabs(A[x]));
      for (int k = 0; k < nv; k++) {
        double lin[3], ang[3], d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
        for (int a = 0; a < 3; a++) {
          lin[a] = ang[a] = 0.0;
          for (int j = 0; j < 3; j++)
            lin[a] += R[3 * a + j] * Mm[nv * j + k], ang[a] += R[3 * a + j] * Mm[nv * (3 + j) + k];
        }
        double t[3] = {d[1] * lin[2] - d[2] * lin[1], d[2] * lin[0] - d[0] * lin[2],
                       d[0] * lin[1] - d[1] * lin[0]};
        for (int a = 0; a < 3; a++) {
          e_M = fmax(e_M, fabs(A[nv * a + k] - (ang[a] + t[a])) / as);
          e_M = fmax(e_M, fabs(A[nv * (3 + a) + k] - lin[a]) / as);
        }
      }
    }
  }
  printf("%-28s centroidal: h = A v %.1e, linear = m Jc v %.1e, Adot v vs differences %.1e, A vs "
         "M's base rows %.1e\n", rel, e_id, e_lin, e_bias, e_M);
  assert_true(e_id <= 1e-14 && e_lin <= 1e-14 && e_M <= 1e-14);
  assert_true(e_bias <= 1e-8);
  free(A), free(Ap), free(Am), free(Mm);
  sys_close(&s);
}

static void test_centroidal(void **state) {
  (void)state;
  check_centroidal("examples/arm7.mbd", 0);
  check_centroidal("examples/urdf/panda.urdf", 0);
  check_centroidal("examples/urdf/solo12.urdf", 1);
}

static void test_models(void **state) {
  (void)state;
  sys s; /* arm7's mass: m1 ... m7 and m_tool of examples/arm7.mbd */
  sys_open(&s, "examples/arm7.mbd", 0);
  double mass = 4.0 + 4.0 + 3.0 + 2.7 + 1.7 + 1.8 + 0.3 + 0.6;
  assert_true(fabs(mb_mass(&s.r.rt.model) - mass) <= 1e-14);
  sys_close(&s);
  check_model("examples/arm7.mbd", 0);
  check_model("examples/urdf/panda.urdf", 0);
  check_model("examples/urdf/solo12.urdf", 1);
}

/* Arguments: NULL and a flexible model are refused. */
static void test_refused(void **state) {
  (void)state;
  sys s;
  sys_open(&s, "examples/flexible_arm.mbd", 0);
  double q[MAXV] = {0}, v[MAXV] = {0}, c[3], e[2];
  assert_int_equal(mb_com(&s.r.rt.model, &s.ws, q, c), MB_EINVAL);
  assert_int_equal(mb_energy(&s.r.rt.model, &s.ws, q, v, e), MB_EINVAL);
  sys_close(&s);
  sys_open(&s, "examples/arm7.mbd", 0);
  assert_int_equal(mb_com(&s.r.rt.model, &s.ws, NULL, c), MB_EINVAL);
  assert_int_equal(mb_energy(&s.r.rt.model, &s.ws, q, NULL, e), MB_EINVAL);
  sys_close(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_models),
      cmocka_unit_test(test_centroidal),
      cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
