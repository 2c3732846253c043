/* test_energy.c — energy balance over a short simulation: integrating
 * q̇ = v, v̇ = aba(q, v, τ) with a constant τ from random states, the change of kinetic
 * plus potential energy, T = ½ vᵀ M v (mb_crba) and V = −Σ gᵀ (m p + R h) (mb_fk), equals the work
 * W = ∫ vᵀ τ dt (integrated alongside). Reference: that identity; the discrepancy is the
 * integrator's global error C hᵖ alone, which the test shows by halving h.
 *
 * Integrator: classical RK4 with the stages on the joint manifolds, Q_s = q ⊕ (c_s h K_s−1)
 * (mb_integrate), and q_{n+1} = q ⊕ h Σ b_s K_s. For scalar joints this is RK4 (p = 4). For
 * spherical, floating and planar joints the stage velocities live in different tangent spaces and are
 * combined without the dexp⁻¹ correction, which leaves a local error O(h³), so p = 2 there.
 * Tolerances, from the observed errors with margin: scalar joints, h = 2 ms over 0.2 s:
 * |ΔE − W| ≈ 2e-11 (C h⁴), checked ≤ 1e-9; every joint type, h = 1 ms over 0.2 s: ≈ 3e-6 (C h²),
 * checked ≤ 2e-5. Halving h must shrink the discrepancy by ≥ 8 (p ≥ 3) resp. ≥ 3 (p ≥ 1.6): a
 * wrong dynamics would leave a discrepancy that does not vanish with h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

typedef struct sim {
  const mb_model *m;
  mb_workspace ws;
  double *buf, *q, *qs, *v, *tau, *vs, *K, *Kq, *dq, *M, *pose;
} sim;

static void sim_new(sim *s, const mb_model *m) {
  size_t nq = (size_t)m->nq, nv = (size_t)m->nv;
  s->m = m;
  s->buf = malloc(mb_workspace_size(m));
  mb_workspace_init(&s->ws, m, s->buf);
  s->q = malloc(sizeof(double) * (2 * nq + 12 * nv + nv * nv + 12 * ((size_t)m->nb + 1)));
  s->qs = s->q + nq, s->v = s->qs + nq, s->tau = s->v + nv, s->vs = s->tau + nv;
  s->K = s->vs + nv, s->Kq = s->K + 4 * nv, s->dq = s->Kq + 4 * nv, s->M = s->dq + nv;
  s->pose = s->M + nv * nv;
}

static void sim_free(sim *s) { free(s->q), free(s->buf); }

/* T + V at (q, v). */
static double energy(sim *s, const double *q, const double *v) {
  const mb_model *m = s->m;
  int n = m->nv;
  double T = 0.0, V = 0.0, Rh[3];
  mb_crba(m, &s->ws, q, s->M);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) T += 0.5 * v[i] * s->M[i * n + j] * v[j];
  mb_fk(m, &s->ws, q, s->pose);
  for (int i = 1; i <= m->nb; i++) {
    const double *I = m->inertia + 10 * i, *R = s->pose + 12 * i, *p = R + 9;
    mbs_mat3_mv(R, I + 1, Rh);
    for (int k = 0; k < 3; k++) V -= m->gravity[k] * (I[0] * p[k] + Rh[k]);
  }
  return T + V;
}

/* ΔE − W after steps of h from the random state of seed. */
static double discrepancy(sim *s, uint64_t seed, double h, int steps) {
  static const double c[4] = {0, 0.5, 0.5, 1}, b[4] = {1. / 6, 2. / 6, 2. / 6, 1. / 6};
  const mb_model *m = s->m;
  int nv = m->nv;
  mbt_rng g;
  mbt_rng_seed(&g, seed);
  mbt_rand_q(&g, m, s->q), mbt_rand_vec(&g, nv, -1, 1, s->v), mbt_rand_vec(&g, nv, -1, 1, s->tau);
  double W = 0.0, E0 = energy(s, s->q, s->v);
  for (int n = 0; n < steps; n++) {
    /* stages: Q = q ⊕ c h Kq_{s−1},  Vs = v + c h K_{s−1};  Kq_s = Vs,  K_s = aba(Q, Vs, τ) */
    for (int st = 0; st < 4; st++) {
      for (int j = 0; j < nv; j++) {
        s->dq[j] = st ? c[st] * h * s->Kq[(st - 1) * nv + j] : 0.0;
        s->vs[j] = s->v[j] + (st ? c[st] * h * s->K[(st - 1) * nv + j] : 0.0);
      }
      mb_integrate(m, s->q, s->dq, 1.0, s->qs);
      assert_int_equal(mb_aba(m, &s->ws, s->qs, s->vs, s->tau, NULL, s->K + st * nv), 0);
      for (int j = 0; j < nv; j++)
        s->Kq[st * nv + j] = s->vs[j], W += h * b[st] * s->vs[j] * s->tau[j];
    }
    /* q ⊕= h Σ b Kq;  v += h Σ b K */
    for (int j = 0; j < nv; j++) {
      s->dq[j] = 0.0;
      for (int st = 0; st < 4; st++)
        s->dq[j] += h * b[st] * s->Kq[st * nv + j], s->v[j] += h * b[st] * s->K[st * nv + j];
    }
    mb_integrate(m, s->q, s->dq, 1.0, s->q);
  }
  return energy(s, s->q, s->v) - E0 - W;
}

static void check_balance(int scalar_only, double h, double tol, double shrink) {
  for (uint64_t seed = 1; seed <= 6; seed++) {
    mbt_tree *t = mbt_randtree(seed, 8, scalar_only ? 0 : (int)(seed % 2));
    if (scalar_only) { /* spherical, floating and planar joints (q̇ ≠ v) become revolute about
                        * their random axis */
      for (int i = 1; i <= t->model.nb; i++)
        if (t->jtype[i] == MB_JOINT_SPHERICAL || t->jtype[i] == MB_JOINT_FLOATING ||
            t->jtype[i] == MB_JOINT_PLANAR)
          t->jtype[i] = MB_JOINT_REVOLUTE;
      mbt_tree_finish(t);
    }
    sim s;
    sim_new(&s, &t->model);
    int steps = (int)(0.2 / h + 0.5);
    double e1 = fabs(discrepancy(&s, seed, h, steps));
    double e2 = fabs(discrepancy(&s, seed, h / 2, 2 * steps));
    if (!(e1 <= tol)) fail_msg("seed %d: |dE - W| = %.3e > %.3e", (int)seed, e1, tol);
    if (!(e2 * shrink <= e1))
      fail_msg("seed %d: halving h: %.3e -> %.3e, not by %g", (int)seed, e1, e2, shrink);
    sim_free(&s);
    mbt_tree_free(t);
  }
}

static void test_energy_scalar_joints(void **state) {
  (void)state;
  check_balance(1, 2e-3, 1e-9, 8.0);
}

static void test_energy_every_joint(void **state) {
  (void)state;
  check_balance(0, 1e-3, 2e-5, 3.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_energy_scalar_joints),
      cmocka_unit_test(test_energy_every_joint),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
