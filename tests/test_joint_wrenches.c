/* test_joint_wrenches.c — the wrench transmitted across every joint (runtime/joint_wrenches.c).
 * References: Sᵢᵀ wᵢ = τᵢ from RNEA, a static pendulum's reaction by hand, and the momentum
 * balance of a floating-base tree (the root wrench plus gravity equals the rate of change of the
 * total spatial momentum, by central differences). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

typedef struct fx {
  mbt_tree *t;
  mb_workspace ws;
  double *buf, *q, *v, *a, *tau, *w;
} fx;

static void setup(fx *f, mbt_rng *g, uint64_t seed, int nb, int floating) {
  f->t = mbt_randtree(seed, nb, floating);
  const mb_model *m = &f->t->model;
  size_t nv = (size_t)m->nv;
  f->buf = mbt_workspace_new(m, &f->ws);
  f->q = malloc(sizeof(double) * ((size_t)m->nq + 3 * nv + 6 * ((size_t)m->nb + 1)));
  f->v = f->q + m->nq, f->a = f->v + nv, f->tau = f->a + nv, f->w = f->tau + nv;
  mbt_rand_q(g, m, f->q), mbt_rand_vec(g, m->nv, -1, 1, f->v), mbt_rand_vec(g, m->nv, -1, 1, f->a);
}

static void teardown(fx *f) {
  free(f->q), free(f->buf);
  mbt_tree_free(f->t);
}

/* Sᵢᵀ wᵢ = τᵢ with τ from mb_rnea; the world's entry is zero. */
static void test_projection_is_tau(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 51);
  for (uint64_t seed = 1; seed <= 10; seed++) {
    fx f;
    setup(&f, &g, seed, 20, (int)(seed % 2));
    const mb_model *m = &f.t->model;
    double zero[6] = {0};
    mb_rnea(m, &f.ws, f.q, f.v, f.a, NULL, f.tau);
    mb_joint_wrenches(m, &f.ws, f.q, f.v, f.a, f.w);
    MBT_ASSERT_NEAR(f.w, zero, 6, 0.0);
    for (int i = 1; i <= m->nb; i++) {
      double S[36], Stw[6];
      int n = mb_joint_nv(m->jtype[i]);
      mb_joint_S(m, i, S);
      for (int j = 0; j < n; j++) {
        Stw[j] = 0;
        for (int k = 0; k < 6; k++) Stw[j] += S[6 * j + k] * f.w[6 * i + k];
      }
      double scale = fmax(1.0, mbt_max_abs(f.tau, (size_t)m->nv));
      MBT_ASSERT_NEAR(Stw, f.tau + m->iv[i], n, 1e-12 * scale);
    }
    teardown(&f);
  }
}

/* A static pendulum (revolute about y at the world origin, COM (L, 0, 0), at rest at angle θ):
 * the joint holds the body against gravity, so in the body frame, with Rᵀ g = g (sin θ, 0, −cos θ),
 *   force = −m Rᵀ g = m g (−sin θ, 0, cos θ),   torque = c × force = (0, −m g L cos θ, 0). */
static void test_static_pendulum(void **state) {
  (void)state;
  double y[3] = {0, 1, 0}, L = 0.8, mass = 1.7, com[3] = {L, 0, 0};
  double Ic[6] = {.01, .02, .03, 0, 0, 0};
  mbt_tree *t = mbt_tree_new(1);
  mbt_tree_joint(t, 1, 0, MB_JOINT_REVOLUTE, y, NULL, NULL);
  mbt_tree_body(t, 1, mass, com, Ic);
  mbt_tree_finish(t);
  mb_workspace ws;
  double *buf = malloc(mb_workspace_size(&t->model)), th = 0.6, zero = 0, w[12];
  mb_workspace_init(&ws, &t->model, buf);
  mb_joint_wrenches(&t->model, &ws, &th, &zero, &zero, w);
  double mg = mass * 9.81;
  double want[6] = {0, -mg * L * cos(th), 0, -mg * sin(th), 0, mg * cos(th)};
  MBT_ASSERT_NEAR(w + 6, want, 6, 1e-14);
  free(buf);
  mbt_tree_free(t);
}

/* Total spatial momentum in world coordinates about the world origin: Σ 0X*_i I_i v_i. */
static void momentum(const mb_model *m, mb_workspace *ws, const double *q, const double *v,
                     double *pose, double hsum[6]) {
  mb_fk(m, ws, q, pose);        /* ws->X0E, ws->X0r */
  mb_nle(m, ws, q, v, ws->tau); /* ws->v */
  memset(hsum, 0, 6 * sizeof(double));
  for (int i = 1; i <= m->nb; i++) {
    double Iv[6], h0[6];
    mbs_I_mv(m->inertia + 10 * i, ws->v + 6 * i, Iv);
    mbs_XT_fv(ws->X0E + 9 * i, ws->X0r + 3 * i, Iv, h0);
    for (int k = 0; k < 6; k++) hsum[k] += h0[k];
  }
}

/* Floating-base trees (joint 1 is the only link to the world):
 *   d/dt Σ 0X*_i I_i v_i = 0X*_1 w_1 + Σ_i [p_ci × m_i g; m_i g],
 * the derivative by central differences along q(t) = q ⊕ (v t + ½ a t²), v(t) = v + a t. */
static void test_momentum_balance(void **state) {
  (void)state;
  mbt_rng g;
  mbt_rng_seed(&g, 52);
  for (uint64_t seed = 1; seed <= 10; seed++) {
    fx f;
    setup(&f, &g, seed, 12, 1);
    const mb_model *m = &f.t->model;
    size_t nv = (size_t)m->nv, nq = (size_t)m->nq, n = (size_t)m->nb + 1;
    double eps = 1e-4, hp[6], hm[6], dh[6], rhs[6];
    double *xi = malloc(sizeof(double) * (2 * nv + 2 * nq + 12 * n)), *vt = xi + nv;
    double *qp = vt + nv, *qm = qp + nq, *pose = qm + nq;
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      double e = sgn * eps;
      for (size_t k = 0; k < nv; k++)
        xi[k] = f.v[k] * e + 0.5 * f.a[k] * e * e, vt[k] = f.v[k] + f.a[k] * e;
      mb_integrate(m, f.q, xi, 1.0, sgn > 0 ? qp : qm);
      momentum(m, &f.ws, sgn > 0 ? qp : qm, vt, pose, sgn > 0 ? hp : hm);
    }
    for (int k = 0; k < 6; k++) dh[k] = (hp[k] - hm[k]) / (2 * eps);
    mb_joint_wrenches(m, &f.ws, f.q, f.v, f.a, f.w);
    mbs_XT_fv(f.ws.XE + 9, f.ws.Xr + 3, f.w + 6, rhs); /* world X* 1 = (1X0)ᵀ, 1X0 = Xup_1 */
    mb_fk(m, &f.ws, f.q, pose);
    for (int i = 1; i <= m->nb; i++) {
      const double *I = m->inertia + 10 * i, *R = pose + 12 * i, *p = R + 9;
      double c[3], pc[3], mg[3], mom[3];
      for (int k = 0; k < 3; k++) c[k] = I[1 + k] / I[0], mg[k] = I[0] * m->gravity[k];
      mbs_mat3_mv(R, c, pc);
      for (int k = 0; k < 3; k++) pc[k] += p[k];
      mbs_cross(pc, mg, mom);
      for (int k = 0; k < 3; k++) rhs[k] += mom[k], rhs[3 + k] += mg[k];
    }
    MBT_ASSERT_REL(rhs, dh, 6, 1e-7);
    free(xi);
    teardown(&f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_projection_is_tau),
      cmocka_unit_test(test_static_pendulum),
      cmocka_unit_test(test_momentum_balance),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
