/* test_contact_id.c — contact inverse dynamics (runtime/contact_id.c): Solo12 on a floating base
 * with its feet as point contacts (or one foot welded), arm7 and the Panda welded at their tool
 * centre points. Random states from fixed seeds.
 *
 * References, each stated with its check:
 *   1. the equations of motion M q̈ + h = τ + Jcᵀ f with M from mb_crba, h from mb_nle and Jc from
 *      mb_frame_jacobian, relative to the sizes of the terms, and τ_u exactly 0;
 *   2. the round trip through mb_contact_fd: for q̈ = mb_contact_fd(q, v, τ₀) (rigid, τ₀_u = 0),
 *      mb_contact_fd(q, v, τ) gives back q̈ and the f returned (the rigid problem has one
 *      solution when Jc has full row rank, and (q̈, f) solves it with τ); f = f₀ and τ = τ₀ when
 *      the base rows determine f (one point foot: 3 rows; one welded foot: 6 rows);
 *   3. optimality against a dense solve: the KKT system [Q Gᵀ; G 0] [f; λ] = [g; b_u]
 *      (Q = H W Hᵀ + R, g = H W b_a, H = Jc's actuated columns, G its unactuated ones, b = mb_rnea)
 *      by Gaussian elimination with partial pivoting (mbt_gauss; not the runtime's null-space
 *      QR), and the gradient condition Q f − g ∈ range(Gᵀ) checked by the normal equations
 *      G Gᵀ λ = G (Q f − g); without weights the least-norm forces f = Gᵀ (G Gᵀ)⁻¹ b_u; a fixed
 *      base: the normal equations (Jc W Jcᵀ + R) f = Jc W b;
 *   4. least norm: two identical contacts share their force equally (the problem is symmetric in
 *      them and the least-norm minimizer is unique); a fully actuated arm with zero weights: f = 0
 *      and τ = mb_rnea exactly;
 *   5. an unbalanced base: no active contact and a base acceleration that is not free flight's,
 *      or one point foot and a random q̈: MB_ENUMERIC, ws.singular the floating body, τ_u the base
 *      rows of b − Jcᵀ f; free flight (q̈ = mb_aba with τ₀_u = 0): MB_OK and τ = τ₀;
 *   6. the contract: NULL arguments, invalid flags, weights and reg, a flexible model, a foreign
 *      workspace, a misaligned scratch: the codes, and nothing written. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mb_testutil.h"
#include "mbt_contactsys.h"

#define MAXV MBT_CSYS_MAXV
#define MAXR MBT_CSYS_MAXR

/* mb_contact_id on s's model, frames, workspace and scratch. */
static int id(mbt_csys *s, const mb_contacts *C, const double *q, const double *v,
              const double *qdd, const int *active, const int *unact, const double *W,
              const double *R, double *tau, double *f) {
  return mb_contact_id(&s->r.rt.model, &s->rf.frames, C, &s->ws, s->idscr, q, v, qdd, active, unact,
                       W, R, tau, f);
}

static const char *const feet[] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};

/* References 1 and 2 on Solo12 with one contact set over ten random states: the worst motion
 * residual, round-trip q̈ and f differences, and (if determined) f − f₀ and τ − τ₀. */
static void round_trip(const int *dims, int nc, uint64_t seed, int determined) {
  mbt_csys s;
  mbt_csys_open(&s, "examples/urdf/solo12.urdf", 1);
  const mb_model *M = &s.r.rt.model;
  const mb_frames *F = &s.rf.frames;
  mb_contact c[4];
  for (int k = 0; k < nc; k++) c[k].frame = mbt_csys_frame(&s, feet[k]), c[k].dim = dims[k];
  mb_contacts C = {nc, c};
  int nv = M->nv, nr = mb_contact_rows(&C);
  double q[MAXV], v[MAXV], tau0[MAXV], qdd[MAXV], f0[MAXR], tau[MAXV], f[MAXR], qdd1[MAXV];
  double f1[MAXR], em = 0, eq = 0, ef = 0, ef0 = 0, et0 = 0;
  for (int n = 0; n < 10; n++) {
    mbt_csys_state(M, &seed, 6, q, v, tau0);
    assert_int_equal(mb_contact_fd(M, F, &C, &s.ws, s.fdscr, q, v, tau0, NULL, NULL, qdd, f0),
                     MB_OK);
    assert_int_equal(id(&s, &C, q, v, qdd, NULL, NULL, NULL, NULL, tau, f), MB_OK);
    for (int k = 0; k < 6; k++) assert_true(tau[k] == 0.0); /* exactly */
    mbt_csys_motion(&s, &C, NULL, q, v, qdd, tau, f, &em);
    assert_int_equal(mb_contact_fd(M, F, &C, &s.ws, s.fdscr, q, v, tau, NULL, NULL, qdd1, f1),
                     MB_OK);
    eq = fmax(eq, mbt_csys_rel_diff(qdd1, qdd, nv)), ef = fmax(ef, mbt_csys_rel_diff(f1, f, nr));
    ef0 = fmax(ef0, mbt_csys_rel_diff(f, f0, nr));
    et0 = fmax(et0, mbt_csys_rel_diff(tau, tau0, nv));
  }
  printf("solo12 %d contacts, %2d rows: motion %.1e; fd(tau) vs qdd %.1e, vs f %.1e; f vs f0 %.1e, "
         "tau vs tau0 %.1e%s\n",
         nc, nr, em, eq, ef, ef0, et0, determined ? "" : " (f not determined by the base)");
  assert_true(em <= 1e-12);                /* backward error: a few ε */
  assert_true(eq <= 1e-11 && ef <= 1e-11); /* forward errors: ε times the KKT condition */
  if (determined) assert_true(ef0 <= 1e-11 && et0 <= 1e-11);
  mbt_csys_close(&s);
}

static void test_round_trip(void **state) {
  (void)state;
  const int four[] = {3, 3, 3, 3}, one[] = {3}, weld[] = {6}, two[] = {3, 3};
  round_trip(four, 4, 17, 0);
  round_trip(two, 2, 19, 0);
  round_trip(one, 1, 23, 1);
  round_trip(weld, 1, 29, 1);
}

/* Reference 3's dense solve: the KKT system of min ½ fᵀ Q f − gᵀ f subject to G f = b_u (the
 * first nu coordinates unactuated), into fk. Q, g, G from J, b, W and R (per row). */
static void kkt(int nv, int nu, int na, const double *J, const double *b, const double *W,
                const double *R, double *fk) {
  int n = na + nu;
  double *A = calloc((size_t)(n * n), sizeof *A), y[MAXR + MAXV];
  assert_non_null(A);
  for (int r = 0; r < na; r++) {
    for (int c = 0; c < na; c++) {
      double qrc = r == c ? R[r] : 0.0;
      for (int a = nu; a < nv; a++) qrc += W[a] * J[r * nv + a] * J[c * nv + a];
      A[r * n + c] = qrc;
    }
    y[r] = 0.0;
    for (int a = nu; a < nv; a++) y[r] += W[a] * J[r * nv + a] * b[a];
    for (int u = 0; u < nu; u++) A[r * n + na + u] = A[(na + u) * n + r] = J[r * nv + u];
  }
  for (int u = 0; u < nu; u++) y[na + u] = b[u];
  assert_true(mbt_gauss(n, A, y) > 0.0);
  memcpy(fk, y, sizeof(double) * (size_t)na);
  free(A);
}

/* Reference 3's gradient condition: Q f − g − Gᵀ λ with λ from G Gᵀ λ = G (Q f − g), relative to
 * the sizes Σ |Q f| + |g| of each row. */
static double gradient(int nv, int nu, int na, const double *J, const double *b, const double *W,
                       const double *R, const double *f) {
  double d[MAXR], sz[MAXR], GG[36], lam[6], e = 0.0, sc = 1e-300;
  for (int r = 0; r < na; r++) {
    d[r] = R[r] * f[r], sz[r] = fabs(R[r] * f[r]);
    for (int a = nu; a < nv; a++) {
      double Hf = 0.0;
      for (int c = 0; c < na; c++) Hf += J[c * nv + a] * f[c];
      d[r] += W[a] * J[r * nv + a] * (Hf - b[a]);
      sz[r] += fabs(W[a] * J[r * nv + a] * Hf) + fabs(W[a] * J[r * nv + a] * b[a]);
    }
    sc = fmax(sc, sz[r]);
  }
  for (int u = 0; u < nu; u++) {
    lam[u] = 0.0; /* G (Q f − g), then λ */
    for (int r = 0; r < na; r++) lam[u] += J[r * nv + u] * d[r];
    for (int w = 0; w < nu; w++) {
      GG[u * nu + w] = 0.0;
      for (int r = 0; r < na; r++) GG[u * nu + w] += J[r * nv + u] * J[r * nv + w];
    }
  }
  if (nu > 0) assert_true(mbt_gauss(nu, GG, lam) > 0.0);
  for (int r = 0; r < na; r++) {
    double x = d[r];
    for (int u = 0; u < nu; u++) x -= J[r * nv + u] * lam[u];
    e = fmax(e, fabs(x));
  }
  return e / sc;
}

/* Reference 3 on one model and contact set (nu: 6 floating, 0 fixed) with the weights given or
 * random (W in [0.5, 2], R in [1e-4, 1e-2] when reg), ten states. */
static void check_optimal(const char *rel, int floating, const char *const *names, const int *dims,
                          int nc, int nu, int weights, int reg, uint64_t seed) {
  mbt_csys s;
  mbt_csys_open(&s, rel, floating);
  const mb_model *M = &s.r.rt.model;
  const mb_frames *F = &s.rf.frames;
  mb_contact c[4];
  for (int k = 0; k < nc; k++) c[k].frame = mbt_csys_frame(&s, names[k]), c[k].dim = dims[k];
  mb_contacts C = {nc, c};
  int nv = M->nv, entry[MAXR];
  double q[MAXV], v[MAXV], qdd[MAXV], tau[MAXV], f[MAXR], b[MAXV], W[MAXV], Rk[4], R[MAXR];
  double J[MAXR * MAXV], fk[MAXR], fr[MAXR], ef = 0, eg = 0, em = 0;
  for (int n = 0; n < 10; n++) {
    mbt_csys_state(M, &seed, 0, q, v, qdd);
    for (int k = 0; k < nv; k++) W[k] = weights ? mbt_csys_urand(&seed, 0.5, 2.0) : 0.0;
    for (int k = 0; k < nc; k++) Rk[k] = reg ? mbt_csys_urand(&seed, 1e-4, 1e-2) : 0.0;
    int na = mbt_csys_rows(&s, &C, NULL, q, NULL, J, NULL, entry);
    for (int r = 0; r < na; r++) R[r] = Rk[entry[r] / (dims[0] == 6 ? 6 : 3)];
    assert_int_equal(mb_rnea(M, &s.ws, q, v, qdd, NULL, b), MB_OK);
    if (nu > 0) { /* the base rows of q̈ made consistent: q̈ of the contact FD at random τ */
      assert_int_equal(mb_contact_fd(M, F, &C, &s.ws, s.fdscr, q, v, qdd, NULL, NULL, b, f), MB_OK);
      memcpy(qdd, b, sizeof qdd);
      assert_int_equal(mb_rnea(M, &s.ws, q, v, qdd, NULL, b), MB_OK);
    }
    assert_int_equal(id(&s, &C, q, v, qdd, NULL, NULL, W, reg ? Rk : NULL, tau, f), MB_OK);
    mbt_csys_motion(&s, &C, NULL, q, v, qdd, tau, f, &em);
    for (int r = 0; r < na; r++) fr[r] = f[entry[r]];
    kkt(nv, nu, na, J, b, W, R, fk);
    ef = fmax(ef, mbt_csys_rel_diff(fr, fk, na));
    eg = fmax(eg, gradient(nv, nu, na, J, b, W, R, fr));
  }
  printf("%-26s %d rows, weights %d, reg %d: motion %.1e; f vs KKT %.1e; gradient %.1e\n", rel,
         mb_contact_rows(&C), weights, reg, em, ef, eg);
  assert_true(em <= 1e-12 && eg <= 1e-10); /* backward errors */
  assert_true(ef <= 1e-10);                /* forward error: ε times the KKT condition */
  mbt_csys_close(&s);
}

static void test_optimal(void **state) {
  (void)state;
  const int dim3[] = {3, 3, 3, 3}, dim6[] = {6};
  const char *arm7[] = {"tcp"}, *panda[] = {"panda_hand_tcp"};
  check_optimal("examples/urdf/solo12.urdf", 1, feet, dim3, 4, 6, 1, 0, 31);
  check_optimal("examples/urdf/solo12.urdf", 1, feet, dim3, 4, 6, 1, 1, 37);
  check_optimal("examples/urdf/solo12.urdf", 1, feet, dim3, 4, 6, 0, 1, 41);
  check_optimal("examples/arm7.mbd", 0, arm7, dim6, 1, 0, 1, 0, 43);
  check_optimal("examples/urdf/panda.urdf", 0, panda, dim6, 1, 0, 1, 1, 47);
}

/* Reference 4 and 3 (without weights): Solo12's least-norm forces against Gᵀ (G Gᵀ)⁻¹ b_u; one
 * foot twice shares its force; the arms without weights: f = 0 and τ = mb_rnea, exactly. */
static void test_least_norm(void **state) {
  (void)state;
  mbt_csys s;
  mbt_csys_open(&s, "examples/urdf/solo12.urdf", 1);
  const mb_model *M = &s.r.rt.model;
  const mb_frames *F = &s.rf.frames;
  mb_contact c[4], d[3];
  for (int k = 0; k < 4; k++) c[k].frame = mbt_csys_frame(&s, feet[k]), c[k].dim = 3;
  d[0] = d[1] = c[0], d[2] = c[3];
  mb_contacts C = {4, c}, D = {3, d};
  int nv = M->nv, entry[MAXR];
  double q[MAXV], v[MAXV], qdd[MAXV], tau[MAXV], f[MAXR], b[MAXV], W0[MAXV] = {0};
  double J[MAXR * MAXV], GG[36], fk[MAXR], e_ln = 0, e_sym = 0, em = 0;
  uint64_t seed = 53;
  for (int n = 0; n < 10; n++) {
    mbt_csys_state(M, &seed, 0, q, v, qdd);
    assert_int_equal(mb_rnea(M, &s.ws, q, v, qdd, NULL, b), MB_OK);
    assert_int_equal(id(&s, &C, q, v, qdd, NULL, NULL, W0, NULL, tau, f), MB_OK);
    mbt_csys_motion(&s, &C, NULL, q, v, qdd, tau, f, &em);
    int na = mbt_csys_rows(&s, &C, NULL, q, NULL, J, NULL, entry);
    for (int u = 0; u < 6; u++)
      for (int w = 0; w < 6; w++) {
        GG[u * 6 + w] = 0.0;
        for (int r = 0; r < na; r++) GG[u * 6 + w] += J[r * nv + u] * J[r * nv + w];
      }
    assert_true(mbt_gauss(6, GG, b) > 0.0); /* b[0..5] = b_u, overwritten by λ */
    for (int r = 0; r < na; r++) {
      fk[r] = 0.0;
      for (int u = 0; u < 6; u++) fk[r] += J[r * nv + u] * b[u];
    }
    e_ln = fmax(e_ln, mbt_csys_rel_diff(f, fk, na));
    /* FL_FOOT twice and HR_FOOT, weights 1, at the q̈ of FL_FOOT and HR_FOOT (two points leave
     * the moment about their line to the base: a random q̈ would not balance): the two copies
     * carry equal forces */
    mb_contacts E = {2, d + 1};
    for (int k = 0; k < nv; k++) b[k] = k < 6 ? 0.0 : mbt_csys_urand(&seed, -5, 5);
    assert_int_equal(mb_contact_fd(M, F, &E, &s.ws, s.fdscr, q, v, b, NULL, NULL, qdd, f), MB_OK);
    assert_int_equal(id(&s, &D, q, v, qdd, NULL, NULL, NULL, NULL, tau, f), MB_OK);
    mbt_csys_motion(&s, &D, NULL, q, v, qdd, tau, f, &em);
    e_sym = fmax(e_sym, mbt_csys_rel_diff(f, f + 3, 3));
  }
  printf("solo12 least-norm forces vs G^T (G G^T)^-1 b_u %.1e; FL_FOOT twice, copies %.1e; "
         "motion %.1e\n",
         e_ln, e_sym, em);
  assert_true(e_ln <= 1e-12 && e_sym <= 1e-12 && em <= 1e-12);
  mbt_csys_close(&s);
  const char *arms[2][2] = {{"examples/arm7.mbd", "tcp"},
                            {"examples/urdf/panda.urdf", "panda_hand_tcp"}};
  for (int a = 0; a < 2; a++) {
    mbt_csys_open(&s, arms[a][0], 0);
    M = &s.r.rt.model;
    mb_contact w[1] = {{mbt_csys_frame(&s, arms[a][1]), 6}};
    mb_contacts Cw = {1, w};
    for (int n = 0; n < 5; n++) {
      mbt_csys_state(M, &seed, 0, q, v, qdd);
      assert_int_equal(mb_rnea(M, &s.ws, q, v, qdd, NULL, b), MB_OK);
      assert_int_equal(id(&s, &Cw, q, v, qdd, NULL, NULL, W0, NULL, tau, f), MB_OK);
      for (int k = 0; k < 6; k++) assert_true(f[k] == 0.0);
      for (int k = 0; k < M->nv; k++) assert_true(tau[k] == b[k]);
    }
    mbt_csys_close(&s);
  }
}

/* Reference 5: an unbalanced base; free flight; a passive joint of arm7 (given flags). */
static void test_unbalanced(void **state) {
  (void)state;
  mbt_csys s;
  mbt_csys_open(&s, "examples/urdf/solo12.urdf", 1);
  const mb_model *M = &s.r.rt.model;
  mb_contact c[4];
  for (int k = 0; k < 4; k++) c[k].frame = mbt_csys_frame(&s, feet[k]), c[k].dim = 3;
  mb_contacts C = {4, c};
  const int none[4] = {0, 0, 0, 0}, one[4] = {1, 0, 0, 0};
  int nv = M->nv, flags[MAXV] = {1, 1, 1, 1, 1, 1};
  double q[MAXV], v[MAXV], qdd[MAXV], tau[MAXV], tau0[MAXV], f[MAXR], b[MAXV], e_ff = 0, em = 0;
  uint64_t seed = 59;
  for (int n = 0; n < 10; n++) {
    mbt_csys_state(M, &seed, 0, q, v, qdd);
    assert_int_equal(mb_rnea(M, &s.ws, q, v, qdd, NULL, b), MB_OK);
    s.ws.singular = -1;
    assert_int_equal(id(&s, &C, q, v, qdd, none, NULL, NULL, NULL, tau, f), MB_ENUMERIC);
    assert_int_equal(s.ws.singular, 1);                       /* the floating base's body */
    for (int k = 0; k < nv; k++) assert_true(tau[k] == b[k]); /* f = 0: τ = b, τ_u = b_u */
    for (int k = 0; k < 12; k++) assert_true(f[k] == 0.0);
    /* one foot cannot hold a random base acceleration: τ_u = (b − Jcᵀ f)_u */
    s.ws.singular = -1;
    assert_int_equal(id(&s, &C, q, v, qdd, one, flags, NULL, NULL, tau, f), MB_ENUMERIC);
    assert_int_equal(s.ws.singular, 1);
    mbt_csys_motion(&s, &C, one, q, v, qdd, tau, f, &em); /* the whole of τ, with τ_u, balances */
    /* free flight: q̈ = mb_aba(τ₀), τ₀_u = 0 */
    mbt_csys_state(M, &seed, 6, q, v, tau0);
    assert_int_equal(mb_aba(M, &s.ws, q, v, tau0, NULL, qdd), MB_OK);
    assert_int_equal(id(&s, &C, q, v, qdd, none, NULL, NULL, NULL, tau, f), MB_OK);
    e_ff = fmax(e_ff, mbt_csys_rel_diff(tau, tau0, nv));
  }
  mbt_csys_close(&s);
  /* arm7, its third coordinate passive: held by the tool's weld, not without it */
  mbt_csys_open(&s, "examples/arm7.mbd", 0);
  M = &s.r.rt.model;
  nv = M->nv;
  int passive[MAXV] = {0}, body = 0;
  passive[2] = 1;
  for (int i = 1; i <= M->nb; i++)
    if (M->iv[i] == 2 && mb_joint_nv(M->jtype[i]) > 0) body = i;
  mb_contact w[1] = {{mbt_csys_frame(&s, "tcp"), 6}};
  mb_contacts Cw = {1, w};
  const int off[1] = {0};
  for (int n = 0; n < 10; n++) {
    mbt_csys_state(M, &seed, 0, q, v, qdd);
    assert_int_equal(id(&s, &Cw, q, v, qdd, NULL, passive, NULL, NULL, tau, f), MB_OK);
    assert_true(tau[2] == 0.0);
    mbt_csys_motion(&s, &Cw, NULL, q, v, qdd, tau, f, &em);
    assert_int_equal(id(&s, &Cw, q, v, qdd, off, passive, NULL, NULL, tau, f), MB_ENUMERIC);
    assert_int_equal(s.ws.singular, body);
  }
  printf("free flight: tau vs tau0 %.1e; motion (unbalanced base included, arm7 passive) %.1e\n",
         e_ff, em);
  assert_true(e_ff <= 1e-12 && em <= 1e-12);
  mbt_csys_close(&s);
}

/* Masks: two of Solo12's feet active give exactly zero forces on the others and the same answer
 * as the set of those two (the same rows in the same order: the same operations). */
static void test_masks(void **state) {
  (void)state;
  mbt_csys s;
  mbt_csys_open(&s, "examples/urdf/solo12.urdf", 1);
  const mb_model *M = &s.r.rt.model;
  const mb_frames *F = &s.rf.frames;
  mb_contact c[4], sub[2];
  for (int k = 0; k < 4; k++) c[k].frame = mbt_csys_frame(&s, feet[k]), c[k].dim = 3;
  sub[0] = c[0], sub[1] = c[3];
  mb_contacts C = {4, c}, S = {2, sub};
  const int two[4] = {1, 0, 0, 1}, base[MAXV] = {1, 1, 1, 1, 1, 1};
  const double reg[4] = {1e-3, 5.0, 7.0, 2e-3}, regsub[2] = {1e-3, 2e-3};
  double q[MAXV], v[MAXV], tau0[MAXV], qdd[MAXV], tau[MAXV], tw[MAXV], f[12], fs[6], W[MAXV];
  uint64_t seed = 61;
  for (int n = 0; n < 10; n++) {
    mbt_csys_state(M, &seed, 6, q, v, tau0);
    for (int k = 0; k < M->nv; k++) W[k] = mbt_csys_urand(&seed, 0.5, 2.0);
    assert_int_equal(mb_contact_fd(M, F, &S, &s.ws, s.fdscr, q, v, tau0, NULL, NULL, qdd, fs),
                     MB_OK);
    for (int k = 0; k < 12; k++) f[k] = NAN;
    assert_int_equal(id(&s, &C, q, v, qdd, two, NULL, W, reg, tau, f), MB_OK);
    assert_int_equal(id(&s, &S, q, v, qdd, NULL, base, W, regsub, tw, fs), MB_OK);
    for (int k = 3; k < 9; k++) assert_true(f[k] == 0.0);
    for (int k = 0; k < 3; k++) assert_true(f[k] == fs[k] && f[9 + k] == fs[3 + k]);
    for (int k = 0; k < M->nv; k++) assert_true(tau[k] == tw[k]);
  }
  mbt_csys_close(&s);
}

/* One call on (C, active, unactuated, weight, reg) at rest: the status expected; the outputs
 * untouched unless MB_OK. */
static void expect(mbt_csys *s, const mb_frames *F, const mb_contacts *C, const int *active,
                   const int *unact, const double *W, const double *R, int want) {
  const mb_model *M = &s->r.rt.model;
  double q[MAXV], v[MAXV] = {0}, qdd[MAXV] = {0}, tau[MAXV], f[MAXR];
  assert_int_equal(mb_neutral(M, q), MB_OK);
  for (int k = 0; k < MAXV; k++) tau[k] = 12345.0;
  for (int k = 0; k < MAXR; k++) f[k] = 12345.0;
  assert_int_equal(mb_contact_id(M, F, C, &s->ws, s->idscr, q, v, qdd, active, unact, W, R, tau, f),
                   want);
  if (want == MB_EINVAL || want == MB_EWORKSPACE)
    assert_true(mbt_csys_untouched(tau, MAXV) && mbt_csys_untouched(f, MAXR));
}

/* Reference 6: NULL arguments, the sizes, flags, weights, reg, contacts, a misaligned scratch, a
 * foreign workspace, a flexible model, a NaN state. */
static void test_contract(void **state) {
  (void)state;
  mbt_csys s;
  mbt_csys_open(&s, "examples/urdf/solo12.urdf", 1);
  const mb_model *M = &s.r.rt.model;
  const mb_frames *F = &s.rf.frames;
  mb_contact c[2] = {{mbt_csys_frame(&s, "FL_FOOT"), 3}, {mbt_csys_frame(&s, "HR_FOOT"), 6}};
  mb_contacts C = {2, c};
  double q[MAXV], v[MAXV] = {0}, a[MAXV] = {0}, tau[MAXV], f[MAXR];
  void *scr = s.idscr;
  mb_workspace *ws = &s.ws;
  size_t nv = (size_t)M->nv, nr = 9, ni = (3 * nv + nr) * sizeof(int);
  size_t nd = 2 * nr * nv + 6 * nv + (nv + nr) * nr + nr * nr + 2 * (nv + nr) + 7 * nr + nv +
              (ni + sizeof(double) - 1) / sizeof(double);
  assert_true(mb_contact_id_scratch_size(M, &C) == nd * sizeof(double));
  assert_int_equal(mb_contact_id_scratch_size(NULL, &C), 0);
  assert_int_equal(mb_contact_id_scratch_size(M, NULL), 0);
  mb_contact bad[1] = {{0, 4}};
  mb_contacts B = {1, bad};
  assert_true(mb_contact_id_scratch_size(M, &B) == SIZE_MAX);
  assert_int_equal(mb_neutral(M, q), MB_OK);
#define ID(m, F, C, ws, scr, q, v, a, tau, f)                                                      \
  mb_contact_id(m, F, C, ws, scr, q, v, a, NULL, NULL, NULL, NULL, tau, f)
  /* NULL arguments (force may be NULL, and active, unactuated, weight, reg) */
  assert_int_equal(ID(NULL, F, &C, ws, scr, q, v, a, tau, f), MB_EINVAL);
  assert_int_equal(ID(M, NULL, &C, ws, scr, q, v, a, tau, f), MB_EINVAL);
  assert_int_equal(ID(M, F, NULL, ws, scr, q, v, a, tau, f), MB_EINVAL);
  assert_int_equal(ID(M, F, &C, NULL, scr, q, v, a, tau, f), MB_EINVAL);
  assert_int_equal(ID(M, F, &C, ws, NULL, q, v, a, tau, f), MB_EINVAL);
  assert_int_equal(ID(M, F, &C, ws, scr, NULL, v, a, tau, f), MB_EINVAL);
  assert_int_equal(ID(M, F, &C, ws, scr, q, NULL, a, tau, f), MB_EINVAL);
  assert_int_equal(ID(M, F, &C, ws, scr, q, v, NULL, tau, f), MB_EINVAL);
  assert_int_equal(ID(M, F, &C, ws, scr, q, v, a, NULL, f), MB_EINVAL);
  assert_int_equal(ID(M, F, &C, ws, scr, q, v, a, tau, NULL), MB_OK);
  /* a misaligned scratch; a workspace of no model */
  assert_int_equal(ID(M, F, &C, ws, (char *)scr + 1, q, v, a, tau, f), MB_EINVAL);
  mb_workspace blank = {0};
  assert_int_equal(ID(M, F, &C, &blank, scr, q, v, a, tau, f), MB_EWORKSPACE);
  /* flags, weights, reg, contacts */
  const int act2[2] = {1, 2}, actn[2] = {-1, 1};
  int un[MAXV] = {0}, un2[MAXV] = {0};
  un2[7] = 2;
  double Wn[MAXV], Wnan[MAXV], Rn[2] = {0.0, -1e-9}, Rinf[2] = {INFINITY, 0.0};
  for (size_t k = 0; k < MAXV; k++) Wn[k] = Wnan[k] = 1.0;
  Wn[3] = -1e-9, Wnan[10] = NAN;
  expect(&s, F, &C, act2, NULL, NULL, NULL, MB_EINVAL);
  expect(&s, F, &C, actn, NULL, NULL, NULL, MB_EINVAL);
  expect(&s, F, &C, NULL, un2, NULL, NULL, MB_EINVAL);
  expect(&s, F, &C, NULL, NULL, Wn, NULL, MB_EINVAL);
  expect(&s, F, &C, NULL, NULL, Wnan, NULL, MB_EINVAL);
  expect(&s, F, &C, NULL, NULL, NULL, Rn, MB_EINVAL);
  expect(&s, F, &C, NULL, NULL, NULL, Rinf, MB_EINVAL);
  expect(&s, F, &B, NULL, NULL, NULL, NULL, MB_EINVAL);
  mb_contacts N = {-1, c}, Z = {1, NULL};
  expect(&s, F, &N, NULL, NULL, NULL, NULL, MB_EINVAL);
  expect(&s, F, &Z, NULL, NULL, NULL, NULL, MB_EINVAL);
  /* no contacts on a robot without unactuated coordinates: τ = mb_rnea */
  mb_contacts E = {0, NULL};
  expect(&s, F, &E, NULL, un, NULL, NULL, MB_OK);
  /* a NaN state */
  v[2] = NAN;
  assert_int_equal(ID(M, F, &C, ws, scr, q, v, a, tau, f), MB_ENUMERIC);
#undef ID
  mbt_csys_close(&s);
  /* a flexible model: refused (the frame kinematics are rigid) */
  mbt_csys_open(&s, "examples/flexible_arm.mbd", 0);
  mb_contact cf[1] = {{mbt_csys_body_frame(&s), 3}};
  mb_contacts CF = {1, cf};
  expect(&s, &s.rf.frames, &CF, NULL, NULL, NULL, NULL, MB_EINVAL);
  mbt_csys_close(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip), cmocka_unit_test(test_optimal),
      cmocka_unit_test(test_least_norm), cmocka_unit_test(test_unbalanced),
      cmocka_unit_test(test_masks),      cmocka_unit_test(test_contract),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
