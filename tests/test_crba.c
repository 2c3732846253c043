/* test_crba.c — the joint-space inertia matrix (runtime/crba.c) on seeded random trees with every
 * joint type, with and without a floating base. References: the columns of M from inverse
 * dynamics, M = Mᵀ ≻ 0 by Cholesky, and the kinetic energy summed over the bodies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

typedef struct fixture {
  mbt_tree *t;
  mb_workspace ws;
  double *buf, *q, *v, *M, *col, *ref, *g;
} fixture;

static void setup(fixture *f, uint64_t seed, int nb, int floating) {
  f->t = mbt_randtree(seed, nb, floating);
  const mb_model *m = &f->t->model;
  size_t nv = (size_t)m->nv;
  f->buf = mbt_workspace_new(m, &f->ws);
  f->q = malloc(sizeof(double) * (size_t)m->nq);
  f->v = malloc(sizeof(double) * (nv * nv + 4 * nv + 1));
  f->M = f->v + nv, f->col = f->M + nv * nv, f->ref = f->col + nv, f->g = f->ref + nv;
  mbt_rng g;
  mbt_rng_seed(&g, seed * 7 + 3);
  mbt_rand_q(&g, m, f->q);
  mbt_rand_vec(&g, m->nv, -1, 1, f->v);
  mb_crba(m, &f->ws, f->q, f->M);
}

static void teardown(fixture *f) {
  free(f->v), free(f->q), free(f->buf);
  mbt_tree_free(f->t);
}

/* Column i of M = rnea(q, 0, e_i) − gravity(q), to 1e-10 relative. */
static void test_columns_from_rnea(void **state) {
  (void)state;
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      fixture f;
      setup(&f, seed, mbt_sizes[s], (int)(seed % 2));
      const mb_model *m = &f.t->model;
      int nv = m->nv;
      mb_gravity(m, &f.ws, f.q, f.g);
      for (int i = 0; i < nv; i++) {
        for (int k = 0; k < nv; k++) f.ref[k] = (k == i);
        mb_rnea(m, &f.ws, f.q, NULL, f.ref, NULL, f.col);
        for (int k = 0; k < nv; k++) f.ref[k] = f.col[k] - f.g[k], f.col[k] = f.M[k * nv + i];
        MBT_ASSERT_REL(f.col, f.ref, nv, 1e-10);
      }
      teardown(&f);
    }
}

/* M = Mᵀ exactly, and Cholesky M = L Lᵀ succeeds with positive pivots (M ≻ 0). */
static void test_symmetric_positive_definite(void **state) {
  (void)state;
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      fixture f;
      setup(&f, seed, mbt_sizes[s], (int)(seed % 2));
      int n = f.t->model.nv;
      double *A = malloc(sizeof(double) * (size_t)(n * n));
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) assert_true(f.M[i * n + j] == f.M[j * n + i]);
      for (int k = 0; k < n * n; k++) A[k] = f.M[k];
      for (int j = 0; j < n; j++) {
        double d = A[j * n + j];
        for (int k = 0; k < j; k++) d -= A[j * n + k] * A[j * n + k];
        if (!(d > 0)) fail_msg("seed %d nb %d: pivot %d = %g", (int)seed, mbt_sizes[s], j, d);
        A[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
          double x = A[i * n + j];
          for (int k = 0; k < j; k++) x -= A[i * n + k] * A[j * n + k];
          A[i * n + j] = x / A[j * n + j];
        }
      }
      free(A);
      teardown(&f);
    }
}

/* ½ vᵀ M v = Σ ½ v_iᵀ I_i v_i, the body velocities v_i from RNEA's forward pass and I_i v_i
 * written out here from the 10 numbers: I v = [Ī ω + h × v_O; m v_O − h × ω]. */
static void test_kinetic_energy(void **state) {
  (void)state;
  for (int s = 0; s < MBT_NSIZES; s++)
    for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
      fixture f;
      setup(&f, seed, mbt_sizes[s], (int)(seed % 2));
      const mb_model *m = &f.t->model;
      int n = m->nv;
      double T = 0, Tb = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) T += 0.5 * f.v[i] * f.M[i * n + j] * f.v[j];
      mb_nle(m, &f.ws, f.q, f.v, f.col);
      for (int i = 1; i <= m->nb; i++) {
        const double *I = m->inertia + 10 * i, *w = f.ws.v + 6 * i, *vo = w + 3, *h = I + 1;
        double Ib[9], Iw[3], hv[3], hw[3];
        mbs_sym3_full(I + 4, Ib);
        mbs_mat3_mv(Ib, w, Iw);
        mbs_cross(h, vo, hv), mbs_cross(h, w, hw);
        for (int k = 0; k < 3; k++)
          Tb += 0.5 * (w[k] * (Iw[k] + hv[k]) + vo[k] * (I[0] * vo[k] - hw[k]));
      }
      MBT_ASSERT_NEAR1(T, Tb, 1e-12 * fmax(1.0, fabs(Tb)));
      teardown(&f);
    }
}

/* Branch-induced sparsity: M_ij = 0 when neither of bodies(i), bodies(j) supports the other. */
static void test_sparsity(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
    fixture f;
    setup(&f, seed, 25, 0);
    const mb_model *m = &f.t->model;
    for (int i = 1; i <= m->nb; i++)
      for (int j = 1; j <= m->nb; j++) {
        int related = 0;
        for (int k = i; k > 0 && !related; k = m->parent[k]) related = (k == j);
        for (int k = j; k > 0 && !related; k = m->parent[k]) related = (k == i);
        for (int a = 0; a < mb_joint_nv(m->jtype[i]) && !related; a++)
          for (int b = 0; b < mb_joint_nv(m->jtype[j]); b++)
            assert_true(f.M[(m->iv[i] + a) * m->nv + m->iv[j] + b] == 0.0);
      }
    teardown(&f);
  }
}

/* ½ vᵀ M v along q(t) = q ⊕ (v t + ½ a t²), v(t) = v + a t. */
static double kinetic(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                      double *M) {
  int n = m->nv;
  double T = 0;
  mb_crba(m, ws, q, M);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) T += 0.5 * v[i] * M[i * n + j] * v[j];
  return T;
}

/* Power balance: dT/dt = vᵀ (τ − g(q)) with τ = rnea(q, v, a) (Ṁ − 2C is skew), the derivative
 * of T = ½ vᵀ M v by central differences along the trajectory through (q, v, a). */
static void test_power_balance(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= MBT_NSEEDS; seed++) {
    fixture f;
    setup(&f, seed, 12, (int)(seed % 2));
    const mb_model *m = &f.t->model;
    size_t nv = (size_t)m->nv, nq = (size_t)m->nq;
    double *a = malloc(sizeof(double) * (3 * nv + nq)), *xi = a + nv, *vt = xi + nv, *qt = vt + nv;
    double eps = 1e-4, T[2], power = 0;
    mbt_rng g;
    mbt_rng_seed(&g, seed);
    mbt_rand_vec(&g, m->nv, -1, 1, a);
    for (int s = 0; s < 2; s++) {
      double e = s ? eps : -eps;
      for (size_t k = 0; k < nv; k++)
        xi[k] = f.v[k] * e + 0.5 * a[k] * e * e, vt[k] = f.v[k] + a[k] * e;
      mb_integrate(m, f.q, xi, 1.0, qt);
      T[s] = kinetic(m, &f.ws, qt, vt, f.M);
    }
    mb_rnea(m, &f.ws, f.q, f.v, a, NULL, f.col);
    mb_gravity(m, &f.ws, f.q, f.g);
    for (size_t k = 0; k < nv; k++) power += f.v[k] * (f.col[k] - f.g[k]);
    MBT_ASSERT_NEAR1((T[1] - T[0]) / (2 * eps), power, 1e-7 * fmax(1.0, fabs(power)));
    free(a);
    teardown(&f);
  }
}

/* One body of mass m, COM c, inertia Ic about its COM (products included) on a joint of type t
 * about z from the world; M at q into M. */
static void one_body_M(mb_joint_type t, const double c[3], const double Ic[6], const double *q,
                       double *M, double *nle, const double *v) {
  mbt_tree *tr = mbt_tree_new(1);
  mbt_tree_joint(tr, 1, 0, t, (double[3]){0, 0, 1}, NULL, (double[3]){0.3, -0.2, 0.1});
  mbt_tree_body(tr, 1, 2.0, c, Ic);
  mbt_tree_finish(tr);
  tr->model.gravity[2] = 0.0;
  mb_workspace ws;
  double *buf = mbt_workspace_new(&tr->model, &ws);
  assert_int_equal(mb_crba(&tr->model, &ws, q, M), MB_OK);
  if (nle) assert_int_equal(mb_nle(&tr->model, &ws, q, v, nle), MB_OK);
  free(buf);
  mbt_tree_free(tr);
}

/* Reference: the kinetic energy of one rigid body written by hand. A planar joint about z, v =
 * [v_u v_w ω] in the body frame: the COM moves with (v_u − ω c_y, v_w + ω c_x, 0), so
 * M = [m 0 −m c_y; 0 m m c_x; −m c_y m c_x Izz + m (c_x² + c_y²)] at every q (at θ = 0 and
 * elsewhere: v is the body's own), and at v = [0 0 ω] the bias is the centripetal force on the
 * COM, nle = [−m ω² c_x, −m ω² c_y, 0]. A cylindrical joint about z, v = [ω ḋ]: the COM moves with
 * (−ω c_y, ω c_x, ḋ), so M = diag(Izz + m (c_x² + c_y²), m): the turn and the slide decouple
 * (whatever the COM's offset from the axis). m = 2. */
static void test_planar_cylindrical_analytic(void **state) {
  (void)state;
  const double c[3] = {0.3, -0.2, 0.15}, Ic[6] = {0.05, 0.06, 0.07, 0.01, -0.02, 0.015}, m = 2.0;
  double Izz = Ic[2] + m * (c[0] * c[0] + c[1] * c[1]);
  double want[9] = {m, 0, -m * c[1], 0, m, m * c[0], -m * c[1], m * c[0], Izz};
  const double qs[2][3] = {{0, 0, 0}, {0.4, -0.7, 2.1}};
  for (int k = 0; k < 2; k++) {
    double M[9], nle[3], v[3] = {0, 0, 1.5}, w = 1.5;
    one_body_M(MB_JOINT_PLANAR, c, Ic, qs[k], M, nle, v);
    MBT_ASSERT_NEAR(M, want, 9, 1e-15);
    double bias[3] = {-m * w * w * c[0], -m * w * w * c[1], 0};
    MBT_ASSERT_NEAR(nle, bias, 3, 1e-14);
  }
  double M2[4], qc[2] = {0.8, 0.25}, diag[4] = {Izz, 0, 0, m};
  one_body_M(MB_JOINT_CYLINDRICAL, c, Ic, qc, M2, NULL, NULL);
  MBT_ASSERT_NEAR(M2, diag, 4, 1e-15);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_columns_from_rnea),
      cmocka_unit_test(test_symmetric_positive_definite),
      cmocka_unit_test(test_kinetic_energy),
      cmocka_unit_test(test_sparsity),
      cmocka_unit_test(test_power_balance),
      cmocka_unit_test(test_planar_cylindrical_analytic),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
