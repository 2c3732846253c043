/* test_flex.c — the runtime's flexible-body dynamics (assumed modes, the ruthlessly linearized
 * model of Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody Systems Using Spatial
 * Operators", JPL Publication 90-26, 1990) through the real pipeline: .mbd → model → topology →
 * rtmodel → runtime. This file: the identities between the algorithms at random states, zero
 * modes against the rigid body, and the model check's rejections; test_flex_beam.c: beam theory
 * (clamped and pinned-free frequencies, static sag, the nodal route against the beam preset);
 * test_flex_energy.c: the energy balance of a simulation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flex_internal.h"
#include "mbt_flex.h"

enum { MAXV = 64 };

/* rnea(q, 0, e_i) − rnea(q, 0, 0) is column i of M (the definition of M: τ = M q̈ + h(q, v) is
 * linear in q̈); it differs from mb_crba only by the rounding of the subtraction, ε times
 * |rnea(q, 0, 0)|, and of the sums, ε times |M|: 1e-12 of their sum. */
static void check_columns(mbt_fm *F, const double *q, const double *M, const char *what) {
  int n = F->nv;
  double r0[MAXV], r[MAXV], e[MAXV] = {0}, err = 0;
  assert_int_equal(mb_rnea(F->model, &F->ws, q, NULL, NULL, NULL, r0), MB_OK);
  for (int i = 0; i < n; i++) {
    e[i] = 1;
    assert_int_equal(mb_rnea(F->model, &F->ws, q, NULL, e, NULL, r), MB_OK);
    e[i] = 0;
    for (int k = 0; k < n; k++) err = fmax(err, fabs(r[k] - r0[k] - M[n * k + i]));
  }
  double scale = mbt_maxabs(M, (size_t)n * (size_t)n) + mbt_maxabs(r0, (size_t)n);
  if (!(err <= 1e-12 * scale)) fail_msg("%s: M columns by RNEA off by %.3e (scale %.3e)", what,
                                        err, scale);
}

/* rnea(q, 0, 0) − rnea(q with η = 0, 0, 0) is [0; K_i η_i] on every body (RNEA's modal row
 * g_i = Mc_iᵀ a_i + K_i η_i, and the geometry of the ruthlessly linearized model does not depend
 * on η): the K blocks of the rtmodel; rounding of the subtraction, 1e-12 of |rnea|. */
static void check_stiffness_rows(mbt_fm *F, const double *q, const char *what) {
  const mb_model *m = F->model;
  double q0[MAXV], r[MAXV], r0[MAXV], want[MAXV] = {0};
  memcpy(q0, q, (size_t)F->nq * sizeof *q);
  for (int i = 1, e2 = 0; i <= m->nb; i++) {
    int nm = mb_body_nm(m, i), iq = mbt_mode_iq(m, i), iv = mbt_mode_iv(m, i);
    for (int r2 = 0; r2 < nm; r2++) {
      q0[iq + r2] = 0;
      for (int c = 0; c < nm; c++) want[iv + r2] += F->rt.K[e2 + nm * r2 + c] * q[iq + c];
    }
    e2 += nm * nm;
  }
  assert_int_equal(mb_rnea(m, &F->ws, q, NULL, NULL, NULL, r), MB_OK);
  assert_int_equal(mb_rnea(m, &F->ws, q0, NULL, NULL, NULL, r0), MB_OK);
  for (int k = 0; k < F->nv; k++) r[k] -= r0[k];
  double err = mbt_maxdiff(r, want, (size_t)F->nv), scale = mbt_maxabs(r0, (size_t)F->nv);
  scale = fmax(scale, mbt_maxabs(want, (size_t)F->nv));
  if (!(err <= 1e-12 * scale)) fail_msg("%s: modal rows minus K eta off by %.3e", what, err);
}

/* M symmetric positive definite: Cholesky succeeds, and the smallest eigenvalue is positive. */
static double check_spd(const double *M, int n, const char *what) {
  double A[MAXV * MAXV], w[MAXV], asym = 0;
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) asym = fmax(asym, fabs(M[n * r + c] - M[n * c + r]));
  /* both triangles of M come from one composite-body product each: symmetric to rounding */
  if (!(asym <= 1e-14 * mbt_maxabs(M, (size_t)n * (size_t)n))) fail_msg("%s: M asym", what);
  memcpy(A, M, (size_t)n * (size_t)n * sizeof *A);
  assert_int_equal(mbt_chol(n, A), 0);
  memcpy(A, M, (size_t)n * (size_t)n * sizeof *A);
  assert_true(mbt_sym_eig(n, A, w) >= 0);
  assert_true(w[0] > 0);
  return w[n - 1] / w[0];
}

/* q̈ by mb_aba, mb_crba_fd and mb_minv·(τ − h) agree to 1e-10 of |q̈| (three algorithms of one
 * M and h: they differ by rounding amplified by cond(M)); rnea(q, v, q̈) gives back τ to 1e-10
 * of max(|τ|, |h|). */
static void check_fd(mbt_fm *F, const double *q, const double *v, const double *tau,
                     const char *what) {
  int n = F->nv;
  double a1[MAXV], a2[MAXV], a3[MAXV] = {0}, h[MAXV], Mi[MAXV * MAXV], t[MAXV];
  assert_int_equal(mb_aba(F->model, &F->ws, q, v, tau, NULL, a1), MB_OK);
  assert_int_equal(mb_crba_fd(F->model, &F->ws, q, v, tau, a2), MB_OK);
  assert_int_equal(mb_nle(F->model, &F->ws, q, v, h), MB_OK);
  assert_int_equal(mb_minv(F->model, &F->ws, q, Mi), MB_OK);
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) a3[r] += Mi[n * r + c] * (tau[c] - h[c]);
  double s = mbt_maxabs(a1, (size_t)n);
  double e12 = mbt_maxdiff(a1, a2, (size_t)n), e13 = mbt_maxdiff(a1, a3, (size_t)n);
  if (!(e12 <= 1e-10 * s && e13 <= 1e-10 * s))
    fail_msg("%s: aba vs crba_fd %.3e, vs minv %.3e (|qdd| %.3e)", what, e12, e13, s);
  assert_int_equal(mb_rnea(F->model, &F->ws, q, v, a1, NULL, t), MB_OK);
  double et = mbt_maxdiff(t, tau, (size_t)n);
  double st = fmax(mbt_maxabs(tau, (size_t)n), mbt_maxabs(h, (size_t)n));
  if (!(et <= 1e-10 * st)) fail_msg("%s: rnea(aba) - tau = %.3e (scale %.3e)", what, et, st);
}

static void identities(const char *relpath, unsigned long long seed) {
  mbt_fm F;
  mbt_fm_file(relpath, &F);
  assert_true(F.nv <= MAXV && F.nq <= MAXV);
  assert_true(mb_flex_count(F.model, 0) > 0);
  double q[MAXV], v[MAXV], tau[MAXV], M[MAXV * MAXV], cond = 0;
  for (int trial = 0; trial < 20; trial++) {
    mbt_random_q(F.model, &seed, 0.05, q);
    mbt_random_v(F.nv, &seed, v);
    mbt_random_v(F.nv, &seed, tau);
    assert_int_equal(mb_crba(F.model, &F.ws, q, M), MB_OK);
    cond = fmax(cond, check_spd(M, F.nv, relpath));
    check_columns(&F, q, M, relpath);
    check_stiffness_rows(&F, q, relpath);
    check_fd(&F, q, v, tau, relpath);
  }
  print_message("  %-34s nv %2d: 20 random states, cond(M) <= %.2e\n", relpath, F.nv, cond);
  /* the derivatives are not computed for flexible bodies: refused (docs/derivatives.md) */
  double D[MAXV * MAXV], Dv[MAXV * MAXV];
  assert_int_equal(mb_rnea_derivatives(F.model, &F.ws, q, v, tau, D, Dv, M), MB_EINVAL);
  assert_int_equal(mb_aba_derivatives(F.model, &F.ws, q, v, tau, D, Dv, M), MB_EINVAL);
  mb_frame f1 = {1, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}; /* nor the frame derivatives */
  mb_frames F1 = {1, &f1};
  assert_int_equal(mb_frame_velocity_derivatives(F.model, &F1, &F.ws, q, v, 0, D, Dv), MB_EINVAL);
  assert_int_equal(mb_frame_acceleration_derivatives(F.model, &F1, &F.ws, q, v, tau, 0, D, Dv, M),
                   MB_EINVAL);
  mbt_fm_free(&F);
}

void test_flex_identities(void **state) {
  (void)state;
  identities("examples/flexible_arm.mbd", 11);
  identities("examples/flexible_arm_nodal.mbd", 12);
  identities("tests/models/flex/chain3.mbd", 13);
}

/* ----------------------------------------------------------------------------- zero modes */

/* A hub on a floating joint, the beam (length 1.2, rhoA 2.7) on a revolute joint, a tip body on
 * a spherical joint at the beam's end; with `extra`, a flexible arm (2 modes) and a payload on
 * it, so the model takes the flexible route. */
static char *zero_modes_model(int rigid, int extra) {
  mbt_text t = {0};
  double L = 1.2, rhoA = 2.7, m = rhoA * L, I = m * L * L / 12; /* model/build_flex.c's order */
  mbt_text_printf(&t, "body hub { mass 3; com 0.05 0.01 0; inertia 0.02 0.03 0.04; }\n");
  if (rigid)
    mbt_text_printf(&t, "body beam { mass %.17g; com %.17g 0 0; inertia 0 %.17g %.17g; }\n", m,
                    L / 2, I, I);
  else
    mbt_text_printf(&t, "body beam flexible { beam length 1.2 EI 350 rhoA 2.7 modes 0; }\n");
  mbt_text_printf(&t, "body tip { mass 0.4; com 0.02 0 0.01; inertia 0.001 0.002 0.0015; }\n"
                      "joint j0 floating world -> hub;\n"
                      "joint j1 revolute hub -> beam { origin xyz 0.1 0 0 rpy 0.2 0 0; }\n"
                      "joint j2 spherical beam -> tip { origin xyz 1.2 0 0; }\n");
  if (extra)
    mbt_text_printf(&t, "body arm flexible { beam length 0.9 EI 200 rhoA 1.8 modes 2; }\n"
                        "body pay { mass 0.3; inertia 0.001 0.001 0.001; }\n"
                        "joint j3 revolute hub -> arm { origin xyz 0 0.1 0; axis 0 1 0; }\n"
                        "joint j4 revolute arm -> pay { origin xyz 0.9 0 0; }\n");
  mbt_text_printf(&t, "gravity 0.3 -1 -9.81;\n");
  return mbt_text_take(&t);
}

/* Every output of the two models at one random state, bit for bit. */
static void same_bits(mbt_fm *A, mbt_fm *B, unsigned long long seed) {
  int n = A->nv;
  size_t nn = (size_t)n * (size_t)n * sizeof(double);
  double q[MAXV], v[MAXV], a[MAXV], x[2][MAXV * MAXV];
  mbt_random_q(A->model, &seed, 0.05, q);
  mbt_random_v(n, &seed, v);
  mbt_random_v(n, &seed, a);
  assert_int_equal(mb_crba(A->model, &A->ws, q, x[0]), MB_OK);
  assert_int_equal(mb_crba(B->model, &B->ws, q, x[1]), MB_OK);
  assert_memory_equal(x[0], x[1], nn);
  assert_int_equal(mb_minv(A->model, &A->ws, q, x[0]), MB_OK);
  assert_int_equal(mb_minv(B->model, &B->ws, q, x[1]), MB_OK);
  assert_memory_equal(x[0], x[1], nn);
  assert_int_equal(mb_rnea(A->model, &A->ws, q, v, a, NULL, x[0]), MB_OK);
  assert_int_equal(mb_rnea(B->model, &B->ws, q, v, a, NULL, x[1]), MB_OK);
  assert_memory_equal(x[0], x[1], (size_t)n * sizeof(double));
  assert_int_equal(mb_aba(A->model, &A->ws, q, v, a, NULL, x[0]), MB_OK);
  assert_int_equal(mb_aba(B->model, &B->ws, q, v, a, NULL, x[1]), MB_OK);
  assert_memory_equal(x[0], x[1], (size_t)n * sizeof(double));
  assert_int_equal(mb_crba_fd(A->model, &A->ws, q, v, a, x[0]), MB_OK);
  assert_int_equal(mb_crba_fd(B->model, &B->ws, q, v, a, x[1]), MB_OK);
  assert_memory_equal(x[0], x[1], (size_t)n * sizeof(double));
}

/* The flexible algorithms (flex_*.c) on a rigid model, given an mb_flex with no modes, against
 * the rigid ones: the same equations summed in another order (CRBA with 6×6 composite
 * inertias, the ABA with D factored by Cholesky), so equal to rounding: 1e-13 of the largest
 * entry. Returns 1 if every output was also bit for bit the same. */
static int flex_route_is_rigid(mbt_fm *F, unsigned long long seed) {
  int n = F->nv, nb = F->model->nb, bits = 1;
  int *nm = calloc((size_t)nb + 1, sizeof *nm);
  double dummy[1] = {0}, q[MAXV], v[MAXV], a[MAXV], x[2][MAXV * MAXV];
  assert_non_null(nm);
  mb_flex none = {nm, dummy, dummy, dummy, dummy, dummy, 0, NULL, NULL, NULL, NULL};
  mb_model m = *F->model;
  m.flex = &none;
  mb_workspace ws = {0};
  void *buf = malloc(mb_workspace_size(&m));
  assert_int_equal(mb_workspace_init(&ws, &m, buf), MB_OK);
  mbt_random_q(&m, &seed, 0, q);
  mbt_random_v(n, &seed, v);
  mbt_random_v(n, &seed, a);
  for (int k = 0; k < 3; k++) {
    size_t len = k == 0 ? (size_t)n * (size_t)n : (size_t)n;
    int rc = k == 0 ? mbf_crba(&m, &ws, q, x[0]) : k == 1 ? mbf_rnea(&m, &ws, q, v, a, NULL, x[0])
                                                          : mbf_aba(&m, &ws, q, v, a, NULL, x[0]);
    assert_int_equal(rc, MB_OK);
    rc = k == 0 ? mb_crba(F->model, &F->ws, q, x[1])
         : k == 1 ? mb_rnea(F->model, &F->ws, q, v, a, NULL, x[1])
                  : mb_aba(F->model, &F->ws, q, v, a, NULL, x[1]);
    assert_int_equal(rc, MB_OK);
    double err = mbt_maxdiff(x[0], x[1], len), s = mbt_maxabs(x[1], len);
    if (!(err <= 1e-13 * s)) fail_msg("flexible route %d vs rigid: %.3e of %.3e", k, err, s);
    bits &= memcmp(x[0], x[1], len * sizeof(double)) == 0;
  }
  free(buf);
  free(nm);
  return bits;
}

void test_flex_zero_modes(void **state) {
  (void)state;
  for (int extra = 0; extra < 2; extra++) {
    char *rigid = zero_modes_model(1, extra), *flex = zero_modes_model(0, extra);
    mbt_fm A, B;
    mbt_fm_text("rigid.mbd", rigid, &A);
    mbt_fm_text("modes0.mbd", flex, &B);
    assert_int_equal(A.nv, B.nv);
    assert_int_equal(mb_flex_count(B.model, 0), extra ? 2 : 0);
    assert_true(extra ? B.model->flex != NULL : B.model->flex == NULL);
    assert_int_equal(mb_body_nm(B.model, 2), 0);
    /* the rigid properties of the beam: m = ρA L, com L/2 on x, Iyy = Izz = m L²/12, Ixx = 0 */
    size_t nb1 = (size_t)A.model->nb + 1;
    assert_memory_equal(A.rt.inertia, B.rt.inertia, 10 * nb1 * sizeof(double));
    for (unsigned long long s = 1; s <= 5; s++) same_bits(&A, &B, 100 * s + (unsigned)extra);
    if (!extra) {
      int bits = flex_route_is_rigid(&A, 77);
      print_message("  flexible algorithms on the rigid model: %s\n",
                    bits ? "bit for bit the rigid ones" : "equal to 1e-13, not bit for bit");
    }
    mbt_fm_free(&A);
    mbt_fm_free(&B);
    free(rigid);
    free(flex);
  }
}

/* ----------------------------------------------------------------------------- errors */

/* A copy of a model's modal data that a case may corrupt. */
typedef struct flexcopy {
  mb_model m;
  mb_flex f;
  int nm[16];
  double Mc[6 * MAXV], Me[MAXV * MAXV], K[MAXV * MAXV], D[MAXV * MAXV];
} flexcopy;

static void copy_flex(const mb_model *src, flexcopy *c) {
  size_t ne = mb_flex_count(src, 0), ne2 = mb_flex_count(src, 1);
  assert_true(src->nb < 16 && ne <= MAXV && ne2 <= MAXV * MAXV);
  c->m = *src;
  memcpy(c->nm, src->flex->nm, ((size_t)src->nb + 1) * sizeof *c->nm);
  memcpy(c->Mc, src->flex->Mc, 6 * ne * sizeof *c->Mc);
  memcpy(c->Me, src->flex->Me, ne2 * sizeof *c->Me);
  memcpy(c->K, src->flex->K, ne2 * sizeof *c->K);
  memcpy(c->D, src->flex->D, ne2 * sizeof *c->D);
  c->f = (mb_flex){c->nm, c->Mc, c->Me, c->K, c->D, src->flex->Psi, src->flex->nnodes,
                   src->flex->node_body, src->flex->node_r, src->flex->node_shape, src->flex->Q};
  c->m.flex = &c->f;
}

static void expect_rejected(const mb_model *m, const char *needle) {
  char msg[256] = "";
  assert_int_equal(mb_model_check(m, msg, sizeof msg), -1);
  if (!strstr(msg, needle)) fail_msg("rejected with \"%s\", expected \"%s\"", msg, needle);
  print_message("  rejected: %s\n", msg);
}

/* The smallest eigenvalue of body b's modal mass matrix [I, Mc; Mcᵀ, Me] (the only flexible body,
 * so its blocks start at 0). */
static double modal_mass_min_eig(const flexcopy *c, int b) {
  int n = c->nm[b], N = 6 + n;
  double I[36], B[(6 + MAXV) * (6 + MAXV)], w[6 + MAXV];
  mbs_I_mat(c->m.inertia + 10 * b, I);
  for (int r = 0; r < N; r++)
    for (int k = 0; k < N; k++)
      B[N * r + k] = r < 6 && k < 6 ? I[6 * r + k] : r < 6 ? c->Mc[6 * (k - 6) + r]
                     : k < 6 ? c->Mc[6 * (r - 6) + k] : c->Me[n * (r - 6) + (k - 6)];
  assert_true(mbt_sym_eig(N, B, w) >= 0);
  return w[0];
}

/* mb_model_check on modal data built by hand from an rtmodel and corrupted: a non-symmetric
 * modal mass, a modal mass matrix that is not positive semidefinite though Me alone is, a
 * negative mode count, an indefinite stiffness, a non-finite coupling. */
void test_flex_errors(void **state) {
  (void)state;
  mbt_fm F;
  mbt_fm_file("examples/flexible_arm_nodal.mbd", &F);
  int b = 0;
  for (int i = 1; i <= F.model->nb; i++)
    if (mb_body_nm(F.model, i) > 0) b = i;
  assert_int_equal(mb_body_nm(F.model, b), 2);
  flexcopy c;
  copy_flex(F.model, &c);
  char msg[256];
  if (mb_model_check(&c.m, msg, sizeof msg)) fail_msg("the unchanged copy: %s", msg);
  assert_true(modal_mass_min_eig(&c, b) > 0);
  c.Me[1] *= 1.001; /* Me_12 ≠ Me_21 */
  expect_rejected(&c.m, "modal mass is not finite and symmetric");
  copy_flex(F.model, &c);
  for (int k = 0; k < 12; k++) c.Mc[k] *= 2; /* the modes' rigid part outweighs their mass */
  assert_true(modal_mass_min_eig(&c, b) < 0);
  double e[2 * 2] = {c.Me[0], c.Me[1], c.Me[2], c.Me[3]}, w[2];
  assert_true(mbt_sym_eig(2, e, w) >= 0 && w[0] > 0); /* Me alone is still positive definite */
  expect_rejected(&c.m, "modal mass matrix [I, Mc; Mc', Me] is not positive semidefinite");
  copy_flex(F.model, &c);
  c.nm[b] = -1;
  expect_rejected(&c.m, "-1 modes, not in [0, 64]");
  copy_flex(F.model, &c);
  c.K[0] = -c.K[0];
  expect_rejected(&c.m, "modal stiffness is not positive semidefinite");
  copy_flex(F.model, &c);
  c.Mc[3] = NAN;
  expect_rejected(&c.m, "non-finite modal coupling");
  mbt_fm_free(&F);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_flex_identities),   cmocka_unit_test(test_flex_zero_modes),
      cmocka_unit_test(test_flex_errors),       cmocka_unit_test(test_flex_clamped),
      cmocka_unit_test(test_flex_pinned_free),  cmocka_unit_test(test_flex_sag),
      cmocka_unit_test(test_flex_nodal_vs_beam), cmocka_unit_test(test_flex_energy),
      cmocka_unit_test(test_flex_damped),       cmocka_unit_test(test_flex_work),
      cmocka_unit_test(test_flex_power),        cmocka_unit_test(test_flex_point_load),
      cmocka_unit_test(test_flex_node_poses),   cmocka_unit_test(test_flex_fixed_joint),
      cmocka_unit_test(test_flex_fixed_payload), cmocka_unit_test(test_flex_centrifugal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
