/* test_contact.c — contact-constrained dynamics and inelastic impacts (runtime/contact.c): Solo12
 * on a floating base with its four feet as point contacts, arm7 and the Panda welded at their tool
 * centre points (6-D contacts). Random states from fixed seeds.
 *
 * References, each stated with its check:
 *   1. the equations themselves: Jc q̈ + J̇c v = −μ f on the active rows (μ = 0: the constraint)
 *      and M q̈ + h − τ = Jcᵀ f with M from mb_crba, h from mb_nle, Jc and J̇c v from
 *      mb_frame_jacobian and mb_frame_acceleration_bias (checked against differences in
 *      test_frames), relative to the sizes of the terms (for the constraint, also those of Φ f
 *      with Φ = Jc M⁻¹ Jcᵀ formed here by mbt_gauss: the solve's backward error is ε |Φ + μ| |f|);
 *   2. an independent dense solve: the KKT system [[M, Jcᵀ], [Jc, 0]] [q̈; −f] = [τ − h; −J̇c v]
 *      by Gaussian elimination with partial pivoting (mbt_gauss, not the runtime's LᵀDL and
 *      Cholesky of the Schur complement);
 *   3. masks: all inactive is mb_aba; a subset gives exactly zero forces on the inactive contacts
 *      and the same answer as the call on the sub-contact-set of the active ones;
 *   4. redundant contacts: singular (MB_ENUMERIC) when rigid, solvable with μ > 0, where
 *      Jc q̈ + J̇c v = −μ f holds;
 *   5. impacts: Jc v⁺ = 0 and M (v⁺ − v⁻) = Jcᵀ Λ (the definition), and the kinetic energy lost is
 *      ½ Δvᵀ M Δv ≥ 0 (Carnot's theorem for a perfectly inelastic impact, as
 *      v⁺ᵀ M Δv = (Jc v⁺)ᵀ Λ = 0);
 *   6. the contract: NULL arguments, invalid flags, μ and contacts, a flexible model, a foreign
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

/* Σ_c |Φ_rc f_c| of every active row r (into t), Φ = Jc M⁻¹ Jcᵀ with M⁻¹ Jc_cᵀ from mbt_gauss:
 * the sizes of the terms that the solve for f balances, Φ f = −J̇c v − Jc q̈₀ − μ f. */
static void phi_terms(int nv, int na, const double *Mm, const double *J, const double *f,
                      const int *entry, double *t) {
  double A[MAXV * MAXV], Y[MAXR * MAXV];
  for (int c = 0; c < na; c++) {
    memcpy(A, Mm, sizeof(double) * (size_t)(nv * nv));
    memcpy(Y + c * nv, J + c * nv, sizeof(double) * (size_t)nv);
    assert_true(mbt_gauss(nv, A, Y + c * nv) > 0.0);
  }
  for (int r = 0; r < na; r++) {
    t[r] = 0.0;
    for (int c = 0; c < na; c++) {
      double p = 0.0;
      for (int k = 0; k < nv; k++) p += J[r * nv + k] * Y[c * nv + k];
      t[r] += fabs(p * f[entry[c]]);
    }
  }
}

/* Reference 1: the worst relative residuals of the constraint, Jc q̈ + J̇c v + μ f (against
 * Σ |J q̈| + |J̇c v| + |μ f| + Σ |Φ f|, row by row: the terms of J q̈ = J q̈₀ + Φ f and of the
 * solve for f, whose backward error is ε |Φ + μ| |f|, large against J q̈ where redundant contacts
 * are regularized by a small μ), and of the equations of motion, M q̈ + h − τ − Jcᵀ f
 * (against Σ |M q̈| + |h| + |τ| + Σ |Jᵀ f|: mbt_csys_motion). */
static void residuals(mbt_csys *s, const mb_contacts *C, const int *active, const double *mu,
                      const double *q, const double *v, const double *tau, const double *qdd,
                      const double *f, double *ec, double *em) {
  const mb_model *M = &s->r.rt.model;
  int nv = M->nv, entry[MAXR], kof[MAXR];
  double J[MAXR * MAXV], b[MAXR], Mm[MAXV * MAXV], cs = 1e-300;
  int na = mbt_csys_rows(s, C, active, q, v, J, b, entry);
  for (int k = 0, o = 0; k < C->n; o += C->contact[k].dim, k++)
    for (int r = 0; r < C->contact[k].dim; r++) kof[o + r] = k;
  assert_int_equal(mb_crba(M, &s->ws, q, Mm), MB_OK);
  double rc[MAXR], t[MAXR];
  phi_terms(nv, na, Mm, J, f, entry, t);
  for (int r = 0; r < na; r++) {
    double x = b[r], a = fabs(b[r]) + t[r], mf = mu ? mu[kof[entry[r]]] * f[entry[r]] : 0.0;
    for (int k = 0; k < nv; k++) x += J[r * nv + k] * qdd[k], a += fabs(J[r * nv + k] * qdd[k]);
    rc[r] = x + mf, cs = fmax(cs, a + fabs(mf));
  }
  for (int r = 0; r < na; r++) *ec = fmax(*ec, fabs(rc[r]) / cs);
  mbt_csys_motion(s, C, active, q, v, qdd, tau, f, em);
}

/* Reference 2: q̈ and f of the dense KKT system; the relative differences into *eq, *ef. */
static void kkt(mbt_csys *s, const mb_contacts *C, const double *q, const double *v,
                const double *tau, const double *qdd, const double *f, double *eq, double *ef) {
  const mb_model *M = &s->r.rt.model;
  int nv = M->nv, entry[MAXR];
  double J[MAXR * MAXV], b[MAXR], Mm[MAXV * MAXV], h[MAXV];
  int na = mbt_csys_rows(s, C, NULL, q, v, J, b, entry), n = nv + na;
  double *A = calloc((size_t)(n * n), sizeof *A), y[MAXV + MAXR];
  assert_non_null(A);
  assert_int_equal(mb_crba(M, &s->ws, q, Mm), MB_OK);
  assert_int_equal(mb_nle(M, &s->ws, q, v, h), MB_OK);
  for (int r = 0; r < nv; r++) {
    for (int c = 0; c < nv; c++) A[r * n + c] = Mm[r * nv + c];
    for (int c = 0; c < na; c++) A[r * n + nv + c] = A[(nv + c) * n + r] = J[c * nv + r];
    y[r] = tau[r] - h[r];
  }
  for (int c = 0; c < na; c++) y[nv + c] = -b[c];
  assert_true(mbt_gauss(n, A, y) > 0.0); /* y = [q̈; −f] */
  double dq = 0, sq = 1e-300, df = 0, sf = 1e-300;
  for (int k = 0; k < nv; k++) dq = fmax(dq, fabs(qdd[k] - y[k])), sq = fmax(sq, fabs(y[k]));
  for (int r = 0; r < na; r++)
    df = fmax(df, fabs(f[entry[r]] + y[nv + r])), sf = fmax(sf, fabs(y[nv + r]));
  *eq = fmax(*eq, dq / sq), *ef = fmax(*ef, df / sf);
  free(A);
}

/* References 1 and 2 on one model and contact set over ten random states. */
static void check_fd(const char *rel, int floating, const char *const *names, const int *dims,
                     int nc, uint64_t seed) {
  mbt_csys s;
  mbt_csys_open(&s, rel, floating);
  const mb_model *M = &s.r.rt.model;
  mb_contact c[8];
  for (int k = 0; k < nc; k++) c[k].frame = mbt_csys_frame(&s, names[k]), c[k].dim = dims[k];
  mb_contacts C = {nc, c};
  int nr = mb_contact_rows(&C);
  double q[MAXV], v[MAXV], tau[MAXV], qdd[MAXV], f[MAXR];
  double ec = 0, em = 0, eq = 0, ef = 0;
  for (int n = 0; n < 10; n++) {
    mbt_csys_state(M, &seed, 0, q, v, tau);
    assert_int_equal(
        mb_contact_fd(M, &s.rf.frames, &C, &s.ws, s.fdscr, q, v, tau, NULL, NULL, qdd, f), MB_OK);
    residuals(&s, &C, NULL, NULL, q, v, tau, qdd, f, &ec, &em);
    kkt(&s, &C, q, v, tau, qdd, f, &eq, &ef);
  }
  printf("%-28s nv %2d, %d rows: constraint %.1e, motion %.1e; vs KKT: qdd %.1e, f %.1e\n", rel,
         M->nv, nr, ec, em, eq, ef);
  assert_true(ec <= 1e-12 && em <= 1e-12); /* backward errors: a few ε */
  assert_true(eq <= 1e-10 && ef <= 1e-10); /* forward errors: ε times the KKT system's condition */
  mbt_csys_close(&s);
}

static const char *const feet[] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
static const int dim3[] = {3, 3, 3, 3}, dim6[] = {6};

static void test_equations(void **state) {
  (void)state;
  const char *arm7[] = {"tcp"}, *panda[] = {"panda_hand_tcp"};
  check_fd("examples/urdf/solo12.urdf", 1, feet, dim3, 4, 17);
  check_fd("examples/arm7.mbd", 0, arm7, dim6, 1, 23);
  check_fd("examples/urdf/panda.urdf", 0, panda, dim6, 1, 29);
}

/* Reference 3: masks on Solo12's feet. */
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
  const int none[4] = {0, 0, 0, 0}, two[4] = {1, 0, 0, 1};
  const double mu[4] = {1e-3, 5.0, 7.0, 2e-3}, musub[2] = {1e-3, 2e-3};
  double q[MAXV], v[MAXV], tau[MAXV], qdd[MAXV], want[MAXV], f[12], fs[6];
  double e_aba = 0, e_sub = 0, e_submu = 0, ec = 0, em = 0;
  uint64_t seed = 31;
  for (int n = 0; n < 10; n++) {
    mbt_csys_state(M, &seed, 0, q, v, tau);
    for (int k = 0; k < 12; k++) f[k] = NAN;
    assert_int_equal(mb_contact_fd(M, F, &C, &s.ws, s.fdscr, q, v, tau, none, NULL, qdd, f), MB_OK);
    assert_int_equal(mb_aba(M, &s.ws, q, v, tau, NULL, want), MB_OK);
    e_aba = fmax(e_aba, mbt_csys_rel_diff(qdd, want, M->nv));
    for (int k = 0; k < 12; k++) assert_true(f[k] == 0.0);
    for (int pass = 0; pass < 2; pass++) { /* rigid, then regularized */
      const double *m4 = pass ? mu : NULL, *m2 = pass ? musub : NULL;
      for (int k = 0; k < 12; k++) f[k] = NAN;
      assert_int_equal(mb_contact_fd(M, F, &C, &s.ws, s.fdscr, q, v, tau, two, m4, qdd, f), MB_OK);
      assert_int_equal(mb_contact_fd(M, F, &S, &s.ws, s.fdscr, q, v, tau, NULL, m2, want, fs),
                       MB_OK);
      for (int k = 3; k < 9; k++) assert_true(f[k] == 0.0); /* exactly */
      double *e = pass ? &e_submu : &e_sub, fa[6];
      for (int k = 0; k < 3; k++) fa[k] = f[k], fa[3 + k] = f[9 + k];
      *e = fmax(*e, fmax(mbt_csys_rel_diff(qdd, want, M->nv), mbt_csys_rel_diff(fa, fs, 6)));
      residuals(&s, &C, two, m4, q, v, tau, qdd, f, &ec, &em);
    }
  }
  printf("solo12 masks: none vs aba %.1e; two feet vs the two-contact set %.1e (mu > 0: %.1e); "
         "residuals %.1e, %.1e\n",
         e_aba, e_sub, e_submu, ec, em);
  assert_true(e_aba <= 1e-12 && e_sub <= 1e-14 && e_submu <= 1e-14);
  assert_true(ec <= 1e-12 && em <= 1e-12);
  mbt_csys_close(&s);
}

/* Reference 4 on one model: the set is singular when rigid, and with μ = 1e-6 the compliant
 * constraint and the equations of motion hold. Returns the worst residuals. */
static void check_redundant(const char *rel, int floating, const char *const *names,
                            const int *dims, int nc, double *ec, double *em) {
  mbt_csys s;
  mbt_csys_open(&s, rel, floating);
  const mb_model *M = &s.r.rt.model;
  mb_contact c[4];
  for (int k = 0; k < nc; k++) c[k].frame = mbt_csys_frame(&s, names[k]), c[k].dim = dims[k];
  mb_contacts C = {nc, c};
  const double mu[4] = {1e-6, 1e-6, 1e-6, 1e-6};
  double q[MAXV], v[MAXV], tau[MAXV], qdd[MAXV], f[MAXR];
  uint64_t seed = 37;
  for (int n = 0; n < 10; n++) {
    mbt_csys_state(M, &seed, 0, q, v, tau);
    assert_int_equal(
        mb_contact_fd(M, &s.rf.frames, &C, &s.ws, s.fdscr, q, v, tau, NULL, NULL, qdd, f),
        MB_ENUMERIC);
    assert_int_equal(mb_impulse(M, &s.rf.frames, &C, &s.ws, s.fdscr, q, v, NULL, qdd, f),
                     MB_ENUMERIC);
    assert_int_equal(
        mb_contact_fd(M, &s.rf.frames, &C, &s.ws, s.fdscr, q, v, tau, NULL, mu, qdd, f), MB_OK);
    residuals(&s, &C, NULL, mu, q, v, tau, qdd, f, ec, em);
  }
  mbt_csys_close(&s);
}

/* Identical rows (one frame twice) and dependent ones that are not identical (two welds on one
 * rigid body: 12 rows of rank 6; a foot's point contact and a weld of its lower leg). */
static void test_redundant(void **state) {
  (void)state;
  double e[4][2] = {{0}};
  const int two3[] = {3, 3}, six3[] = {6, 3}, six6[] = {6, 6}, three6[] = {3, 6};
  const char *fl[] = {"FL_FOOT", "FL_FOOT"}, *leg[] = {"FL_FOOT", "FL_LOWER_LEG"};
  const char *tcp[] = {"tcp", "tcp"}, *tool[] = {"tcp", "tool"};
  check_redundant("examples/urdf/solo12.urdf", 1, fl, two3, 2, &e[0][0], &e[0][1]);
  check_redundant("examples/arm7.mbd", 0, tcp, six3, 2, &e[1][0], &e[1][1]);
  check_redundant("examples/arm7.mbd", 0, tool, six6, 2, &e[2][0], &e[2][1]);
  check_redundant("examples/urdf/solo12.urdf", 1, leg, three6, 2, &e[3][0], &e[3][1]);
  printf("redundant, mu = 1e-6 (Jc qdd + Jdot v + mu f; motion): solo12 FL_FOOT twice %.1e, %.1e; "
         "arm7 tcp 6 + 3 %.1e, %.1e; arm7 tcp 6 + tool 6 %.1e, %.1e; solo12 FL_FOOT 3 + "
         "FL_LOWER_LEG 6 %.1e, %.1e\n",
         e[0][0], e[0][1], e[1][0], e[1][1], e[2][0], e[2][1], e[3][0], e[3][1]);
  for (int k = 0; k < 4; k++) assert_true(e[k][0] <= 1e-12 && e[k][1] <= 1e-12);
}

/* Reference 5 on one model: the worst relative Jc v⁺, M Δv − Jcᵀ Λ, energy balance; the largest
 * relative energy gain (must be ≤ 0 but for rounding). */
static void check_impulse(const char *rel, int floating, const char *const *names, const int *dims,
                          int nc, double *err) {
  mbt_csys s;
  mbt_csys_open(&s, rel, floating);
  const mb_model *M = &s.r.rt.model;
  int nv = M->nv, entry[MAXR];
  mb_contact c[4];
  for (int k = 0; k < nc; k++) c[k].frame = mbt_csys_frame(&s, names[k]), c[k].dim = dims[k];
  mb_contacts C = {nc, c};
  double q[MAXV], v[MAXV], tau[MAXV], vp[MAXV], va[MAXV], L[MAXR], J[MAXR * MAXV], Mm[MAXV * MAXV];
  uint64_t seed = 41;
  for (int n = 0; n < 10; n++) {
    mbt_csys_state(M, &seed, 0, q, v, tau);
    assert_int_equal(mb_impulse(M, &s.rf.frames, &C, &s.ws, s.fdscr, q, v, NULL, vp, L), MB_OK);
    memcpy(va, v, sizeof va); /* v_plus aliasing v_minus: the same answer */
    assert_int_equal(mb_impulse(M, &s.rf.frames, &C, &s.ws, s.fdscr, q, va, NULL, va, NULL), MB_OK);
    assert_true(mbt_csys_rel_diff(va, vp, nv) == 0.0);
    int na = mbt_csys_rows(&s, &C, NULL, q, NULL, J, NULL, entry);
    assert_int_equal(mb_crba(M, &s.ws, q, Mm), MB_OK);
    double Tm = 0, Tp = 0, Td = 0, cs = 1e-300, ms = 1e-300, ec = 0, em = 0;
    for (int r = 0; r < na; r++) {
      double x = 0, a = 0;
      for (int k = 0; k < nv; k++) x += J[r * nv + k] * vp[k], a += fabs(J[r * nv + k] * v[k]);
      ec = fmax(ec, fabs(x)), cs = fmax(cs, a);
    }
    for (int k = 0; k < nv; k++) {
      double x = 0, a = 0;
      for (int j = 0; j < nv; j++) {
        double dv = vp[j] - v[j];
        x += Mm[k * nv + j] * dv, a += fabs(Mm[k * nv + j] * dv);
        Tm += 0.5 * v[k] * Mm[k * nv + j] * v[j], Tp += 0.5 * vp[k] * Mm[k * nv + j] * vp[j];
        Td += 0.5 * (vp[k] - v[k]) * Mm[k * nv + j] * dv;
      }
      for (int r = 0; r < na; r++)
        x -= J[r * nv + k] * L[entry[r]], a += fabs(J[r * nv + k] * L[entry[r]]);
      em = fmax(em, fabs(x)), ms = fmax(ms, a);
    }
    err[0] = fmax(err[0], ec / cs), err[1] = fmax(err[1], em / ms);
    err[2] = fmax(err[2], fabs((Tm - Tp) - Td) / Tm), err[3] = fmax(err[3], (Tp - Tm) / Tm);
  }
  printf("%-28s impulse: Jc v+ %.1e, M dv - Jc^T L %.1e, energy lost vs 1/2 dv^T M dv %.1e, "
         "largest relative gain %.1e\n",
         rel, err[0], err[1], err[2], err[3]);
  mbt_csys_close(&s);
}

static void test_impulse(void **state) {
  (void)state;
  const char *arm7[] = {"tcp"};
  double e1[4] = {0, 0, 0, -INFINITY}, e2[4] = {0, 0, 0, -INFINITY};
  check_impulse("examples/urdf/solo12.urdf", 1, feet, dim3, 4, e1);
  check_impulse("examples/arm7.mbd", 0, arm7, dim6, 1, e2);
  for (int k = 0; k < 3; k++) assert_true(e1[k] <= 1e-10 && e2[k] <= 1e-10);
  assert_true(e1[3] <= 1e-14 && e2[3] <= 1e-14);
}

static void fill(double *x, int n) {
  for (int k = 0; k < n; k++) x[k] = 12345.0;
}

/* One call of both entry points on (C, active, mu): the status expected of both, outputs untouched
 * unless MB_OK. */
static void expect(mbt_csys *s, const mb_frames *F, const mb_contacts *C, const int *active,
                   const double *mu, int want) {
  const mb_model *M = &s->r.rt.model;
  double q[MAXV], v[MAXV] = {0}, tau[MAXV] = {0}, out[MAXV], f[MAXR];
  assert_int_equal(mb_neutral(M, q), MB_OK);
  fill(out, MAXV), fill(f, MAXR);
  assert_int_equal(mb_contact_fd(M, F, C, &s->ws, s->fdscr, q, v, tau, active, mu, out, f), want);
  if (want != MB_OK) assert_true(mbt_csys_untouched(out, MAXV) && mbt_csys_untouched(f, MAXR));
  fill(out, MAXV), fill(f, MAXR);
  assert_int_equal(mb_impulse(M, F, C, &s->ws, s->fdscr, q, v, active, out, f), mu ? MB_OK : want);
  if (want != MB_OK && !mu)
    assert_true(mbt_csys_untouched(out, MAXV) && mbt_csys_untouched(f, MAXR));
}

/* Reference 6: NULL arguments, the sizes, a misaligned scratch, a foreign workspace. */
static void test_contract(void **state) {
  (void)state;
  mbt_csys s;
  mbt_csys_open(&s, "examples/urdf/solo12.urdf", 1);
  const mb_model *M = &s.r.rt.model;
  const mb_frames *F = &s.rf.frames;
  mb_contact c[2] = {{mbt_csys_frame(&s, "FL_FOOT"), 3}, {mbt_csys_frame(&s, "HR_FOOT"), 3}};
  mb_contacts C = {2, c};
  double q[MAXV], v[MAXV] = {0}, tau[MAXV] = {0}, qdd[MAXV], f[MAXR];
  char msg[128];
  assert_int_equal(mb_neutral(M, q), MB_OK);
  assert_int_equal(mb_contacts_check(M, F, &C, msg, sizeof msg), 0);
  assert_int_equal(mb_contact_rows(NULL), 0);
  assert_int_equal(mb_contact_rows(&C), 6);
  assert_int_equal(mb_contact_scratch_size(NULL, &C), 0);
  assert_int_equal(mb_contact_scratch_size(M, NULL), 0);
  size_t nv = (size_t)M->nv;
  assert_true(mb_contact_scratch_size(M, &C) == sizeof(double) * (2 * 6 * nv + 36 + 12 + 6 * nv));
  /* NULL arguments: MB_EINVAL (force and impulse may be NULL) */
  void *scr = s.fdscr;
  mb_workspace *ws = &s.ws;
  assert_int_equal(mb_contact_fd(NULL, F, &C, ws, scr, q, v, tau, NULL, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, NULL, &C, ws, scr, q, v, tau, NULL, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, F, NULL, ws, scr, q, v, tau, NULL, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, F, &C, NULL, scr, q, v, tau, NULL, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, F, &C, ws, NULL, q, v, tau, NULL, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, F, &C, ws, scr, NULL, v, tau, NULL, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, F, &C, ws, scr, q, NULL, tau, NULL, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, F, &C, ws, scr, q, v, NULL, NULL, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, F, &C, ws, scr, q, v, tau, NULL, NULL, NULL, f), MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, F, &C, ws, scr, q, v, tau, NULL, NULL, qdd, NULL), MB_OK);
  assert_int_equal(mb_impulse(NULL, F, &C, ws, scr, q, v, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_impulse(M, NULL, &C, ws, scr, q, v, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_impulse(M, F, NULL, ws, scr, q, v, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_impulse(M, F, &C, NULL, scr, q, v, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_impulse(M, F, &C, ws, NULL, q, v, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_impulse(M, F, &C, ws, scr, NULL, v, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_impulse(M, F, &C, ws, scr, q, NULL, NULL, qdd, f), MB_EINVAL);
  assert_int_equal(mb_impulse(M, F, &C, ws, scr, q, v, NULL, NULL, f), MB_EINVAL);
  assert_int_equal(mb_impulse(M, F, &C, ws, scr, q, v, NULL, qdd, NULL), MB_OK);
  /* misaligned scratch; a workspace of no model */
  assert_int_equal(mb_contact_fd(M, F, &C, ws, (char *)scr + 1, q, v, tau, NULL, NULL, qdd, f),
                   MB_EINVAL);
  mb_workspace blank = {0};
  assert_int_equal(mb_contact_fd(M, F, &C, &blank, scr, q, v, tau, NULL, NULL, qdd, f),
                   MB_EWORKSPACE);
  mbt_csys_close(&s);
}

/* Reference 6: invalid flags, μ and contacts; no contacts; a NaN state. */
static void test_invalid(void **state) {
  (void)state;
  mbt_csys s;
  mbt_csys_open(&s, "examples/urdf/solo12.urdf", 1);
  const mb_model *M = &s.r.rt.model;
  const mb_frames *F = &s.rf.frames;
  mb_contact c[2] = {{mbt_csys_frame(&s, "FL_FOOT"), 3}, {mbt_csys_frame(&s, "HR_FOOT"), 3}};
  mb_contacts C = {2, c};
  double q[MAXV], v[MAXV] = {0}, tau[MAXV] = {0}, qdd[MAXV], f[MAXR];
  void *scr = s.fdscr;
  mb_workspace *ws = &s.ws;
  char msg[128];
  assert_int_equal(mb_neutral(M, q), MB_OK);
  /* flags and μ */
  const int two[2] = {1, 2}, neg[2] = {1, -1};
  const double mneg[2] = {0.0, -1e-9}, mnan[2] = {NAN, 0.0}, minf[2] = {0.0, INFINITY};
  expect(&s, F, &C, two, NULL, MB_EINVAL);
  expect(&s, F, &C, neg, NULL, MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, F, &C, ws, scr, q, v, tau, NULL, mneg, qdd, f), MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, F, &C, ws, scr, q, v, tau, NULL, mnan, qdd, f), MB_EINVAL);
  assert_int_equal(mb_contact_fd(M, F, &C, ws, scr, q, v, tau, NULL, minf, qdd, f), MB_EINVAL);
  /* contacts: dim 4, a frame out of range, a negative count, a NULL array, a frame on the world */
  mb_contact bad = c[1];
  mb_contacts B = {2, (mb_contact[]){c[0], bad}};
  ((mb_contact *)B.contact)[1].dim = 4;
  assert_int_equal(mb_contacts_check(M, F, &B, msg, sizeof msg), -1);
  printf("dim 4: %s\n", msg);
  assert_int_equal(mb_contact_rows(&B), -1);
  assert_true(mb_contact_scratch_size(M, &B) == SIZE_MAX);
  expect(&s, F, &B, NULL, NULL, MB_EINVAL);
  ((mb_contact *)B.contact)[1] = bad, ((mb_contact *)B.contact)[1].frame = F->n;
  assert_int_equal(mb_contacts_check(M, F, &B, msg, sizeof msg), -1);
  expect(&s, F, &B, NULL, NULL, MB_EINVAL);
  ((mb_contact *)B.contact)[1].frame = -1;
  expect(&s, F, &B, NULL, NULL, MB_EINVAL);
  mb_contacts N = {-1, c}, Z = {1, NULL};
  expect(&s, F, &N, NULL, NULL, MB_EINVAL);
  expect(&s, F, &Z, NULL, NULL, MB_EINVAL);
  assert_int_equal(mb_contact_rows(&N), -1);
  mb_frame w[2] = {s.rf.frame[c[0].frame], s.rf.frame[c[0].frame]};
  w[1].body = 0; /* a frame fixed in the world */
  mb_frames W = {2, w};
  mb_contact cw[1] = {{1, 3}};
  mb_contacts CW = {1, cw};
  assert_int_equal(mb_contacts_check(M, &W, &CW, msg, sizeof msg), -1);
  printf("world frame: %s\n", msg);
  expect(&s, &W, &CW, NULL, NULL, MB_EINVAL);
  /* no contacts at all: q̈ = mb_aba, v⁺ = v⁻ */
  mb_contacts E = {0, NULL};
  assert_int_equal(mb_contact_rows(&E), 0);
  expect(&s, F, &E, NULL, NULL, MB_OK);
  /* a NaN state: MB_ENUMERIC */
  v[2] = NAN;
  assert_int_equal(mb_contact_fd(M, F, &C, ws, scr, q, v, tau, NULL, NULL, qdd, f), MB_ENUMERIC);
  assert_int_equal(mb_impulse(M, F, &C, ws, scr, q, v, NULL, qdd, f), MB_ENUMERIC);
  mbt_csys_close(&s);
}

/* A model with flexible bodies: refused (the frame kinematics are rigid). */
static void test_flexible(void **state) {
  (void)state;
  mbt_csys s;
  mbt_csys_open(&s, "examples/flexible_arm.mbd", 0);
  mb_contact c[1] = {{mbt_csys_body_frame(&s), 3}};
  mb_contacts C = {1, c};
  assert_int_equal(mb_contacts_check(&s.r.rt.model, &s.rf.frames, &C, NULL, 0), 0);
  expect(&s, &s.rf.frames, &C, NULL, NULL, MB_EINVAL);
  mbt_csys_close(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_equations), cmocka_unit_test(test_masks),
      cmocka_unit_test(test_redundant), cmocka_unit_test(test_impulse),
      cmocka_unit_test(test_contract),  cmocka_unit_test(test_invalid),
      cmocka_unit_test(test_flexible),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
