/* test_align.c — joint-frame alignment (generator/align.c). References:
 *   unit cases: R a = +e_k, R Rᵀ = 1, det R = +1 (definition of a proper rotation taking a to
 *     e_k); +e_k gives the identity and −e_k the π rotation about e_{k+1} with exact entries; for
 *     a_k > 0 the rotation is the minimal one (Rodrigues: it fixes a × e_k and turns by the angle
 *     between a and e_k, so trace R = 1 + 2 a_k); k is the largest |a_k|, ties to the lower index;
 *   the formulas E' = R_i E R_λᵀ, r' = R_λ r, h' = R_i h, Ī' = R_i Ī R_iᵀ evaluated here, and the
 *     invariants of Σ = ∫ρ x xᵀ unchanged (a similarity: the aligned inertia is still physical);
 *   exactness: when R_i and R_λ are signed permutations, (P M Qᵀ)_rc = p_r q_c M_{π(r) σ(c)}
 *     entry by entry, bit for bit, and R_i = R_λ = 1 leaves XT and the inertia bitwise unchanged;
 *   dynamics invariance: a rotation of the joint frames is a change of body coordinates only, so
 *     the runtime (runtime/mb.h) on the aligned model gives the same M (mb_crba), τ (mb_rnea, with
 *     external wrenches rotated into the aligned frames, blockdiag(R_i, R_i) f), q̈ (mb_aba), the
 *     same world poses with R_world←orig = R_world←aligned R_i (mb_fk) and joint wrenches
 *     w_orig = blockdiag(R_iᵀ, R_iᵀ) w_aligned (mb_joint_wrenches), on random states of every
 *     example model (as written, with every axis negated, with generic axes) and of seeded random
 *     trees with every joint type and +e_k, −e_k, generic, nearly ±e_k and tied axes. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/load.h"
#include "topology/align.h"
#include "topology/rtmodel.h"

#include "mb_randtree.h"
#include "mb_testutil.h"
#include "mbg_testmodel.h"

/* ---------------------------------------------------------------- seeded random numbers */

static mbt_rng rng; /* tests/mb_randtree.c's generator */
static double urand(double lo, double hi) { return mbt_uniform(&rng, lo, hi); }
static int irand(int n) { return mbt_randint(&rng, 0, n - 1); }

static void normalize(double a[3]) {
  double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (int k = 0; k < 3; k++) a[k] /= n;
}

/* A random unit axis of kind 0 +e_k, 1 −e_k, 2 generic, 3 nearly −e_k, 4 nearly +e_k, 5 tied. */
static void random_axis(int kind, double a[3]) {
  int k = irand(3);
  a[0] = a[1] = a[2] = 0.0;
  a[k] = kind == 1 || kind == 3 ? -1.0 : 1.0;
  if (kind == 2)
    for (int j = 0; j < 3; j++) a[j] = urand(-1, 1);
  if (kind == 3 || kind == 4)
    for (int j = 0; j < 3; j++) a[j] += urand(-1e-9, 1e-9);
  if (kind == 5) a[(k + 1) % 3] = irand(2) ? a[k] : -a[k];
  if (kind >= 2) normalize(a);
}

/* ---------------------------------------------------------------- small matrix helpers */

static void matmul(const double A[9], const double B[9], double C[9]) {
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      C[3 * i + k] = A[3 * i] * B[k] + A[3 * i + 1] * B[3 + k] + A[3 * i + 2] * B[6 + k];
}

static void matvec(const double A[9], const double x[3], double y[3]) {
  for (int i = 0; i < 3; i++) y[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
}

static void mattvec(const double A[9], const double x[3], double y[3]) {
  for (int i = 0; i < 3; i++) y[i] = A[i] * x[0] + A[3 + i] * x[1] + A[6 + i] * x[2];
}

static double det3(const double R[9]) {
  return R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
         R[2] * (R[3] * R[7] - R[4] * R[6]);
}

/* max |R Rᵀ − 1| and |det R − 1|. */
static double orthonormality_error(const double R[9]) {
  double err = fabs(det3(R) - 1.0);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double d = R[3 * i] * R[3 * j] + R[3 * i + 1] * R[3 * j + 1] + R[3 * i + 2] * R[3 * j + 2];
      err = fmax(err, fabs(d - (i == j)));
    }
  return err;
}

/* ---------------------------------------------------------------- unit cases of mbg_align_axis */

static void axis_plus_z_is_identity(void **state) {
  (void)state;
  double R[9], a[3] = {0, 0, 1}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  assert_int_equal(mbg_align_axis(a, R), 2);
  assert_memory_equal(R, I, sizeof R);
}

/* −e_k: the π rotation about e_{k+1}, diagonal with +1 at k+1 and −1 elsewhere (−y: about z,
 * diag(−1, −1, 1)), every entry exact. */
static void axis_minus_y_is_signed_permutation(void **state) {
  (void)state;
  for (int k = 0; k < 3; k++) {
    double R[9], a[3] = {0, 0, 0}, Ra[3];
    a[k] = -1;
    assert_int_equal(mbg_align_axis(a, R), k);
    for (int j = 0; j < 9; j++) {
      int diag = j % 4 == 0, row = j / 3;
      double want = !diag ? 0.0 : row == (k + 1) % 3 ? 1.0 : -1.0;
      assert_true(R[j] == want);
    }
    assert_true(det3(R) == 1.0 && orthonormality_error(R) == 0.0);
    matvec(R, a, Ra);
    for (int j = 0; j < 3; j++) assert_true(Ra[j] == (j == k ? 1.0 : 0.0));
  }
}

/* Generic axes: proper rotation, R a = e_k, k = argmax |a_k| (lower index on ties), minimal for
 * a_k > 0 (R fixes a × e_k, trace = 1 + 2 a_k), near P for a near −e_k. */
static void check_generic_axis(const double a[3], double *worst) {
  double R[9], Ra[3], v[3], Rv[3];
  int k = mbg_align_axis(a, R), want = 0;
  for (int j = 1; j < 3; j++)
    if (fabs(a[j]) > fabs(a[want])) want = j;
  assert_int_equal(k, want);
  double err = orthonormality_error(R);
  matvec(R, a, Ra);
  for (int j = 0; j < 3; j++) err = fmax(err, fabs(Ra[j] - (j == k)));
  *worst = fmax(*worst, err);
  assert_true(err <= 1e-15);
  if (a[k] > 0) {
    double e[3] = {0, 0, 0};
    e[k] = 1;
    v[0] = a[1] * e[2] - a[2] * e[1], v[1] = a[2] * e[0] - a[0] * e[2];
    v[2] = a[0] * e[1] - a[1] * e[0];
    matvec(R, v, Rv);
    for (int j = 0; j < 3; j++) assert_near(Rv[j], v[j], 1e-15);
    assert_near(R[0] + R[4] + R[8], 1 + 2 * a[k], 1e-15);
  } else if (a[k] < -1 + 1e-12) { /* nearly −e_k: R within ~|a + e_k| of the exact π rotation */
    double P[9], a0[3] = {0, 0, 0};
    a0[k] = -1;
    mbg_align_axis(a0, P);
    for (int j = 0; j < 9; j++) assert_near(R[j], P[j], 4e-9);
  }
}

static void axis_generic_is_proper_rotation(void **state) {
  (void)state;
  double worst = 0;
  const double s = sqrt(0.5), t = sqrt(1.0 / 3);
  const double fixed[][3] = {{s, s, 0}, {0, -s, s}, {-s, 0, -s}, {t, -t, t}, {-t, -t, -t},
                             {0.6, 0.8, 0}, {-0.6, 0, -0.8}, {1e-300, 0, 1}};
  for (size_t n = 0; n < sizeof fixed / sizeof fixed[0]; n++) {
    double a[3] = {fixed[n][0], fixed[n][1], fixed[n][2]};
    normalize(a);
    check_generic_axis(a, &worst);
  }
  assert_int_equal(mbg_align_axis((double[3]){s, s, 0}, (double[9]){0}), 0);
  assert_int_equal(mbg_align_axis((double[3]){0, -s, s}, (double[9]){0}), 1);
  mbt_rng_seed(&rng, 7);
  for (int n = 0; n < 100000; n++) {
    double a[3];
    random_axis(2 + irand(4), a);
    check_generic_axis(a, &worst);
  }
  print_message("worst |R a - e_k|, |R R^T - 1|, |det R - 1| over the generic axes: %.3g\n", worst);
}

/* ---------------------------------------------------------------- original and aligned models */

typedef struct pair {
  mbg_topology *t;
  mbg_aligned al;
  mbg_rtmodel ro, ra; /* original and aligned runtime models */
  mb_workspace wo, wa;
  void *bo, *ba;
} pair;

/* x ← blockdiag(R, R) x for a spatial vector (R row-major). */
static void rotate6(const double R[9], double x[6]) {
  double y[6];
  for (int h = 0; h < 6; h += 3)
    for (int k = 0; k < 3; k++)
      y[h + k] = R[3 * k] * x[h] + R[3 * k + 1] * x[h + 1] + R[3 * k + 2] * x[h + 2];
  memcpy(x, y, sizeof y);
}

/* The aligned runtime model: the original one with XT, axis = e_k (a universal joint's axis2
 * e_{k+1}) and inertia from `al`. */
static void set_aligned_arrays(pair *P) {
  for (int i = 1; i <= P->t->nb; i++) {
    const mbg_aligned_body *b = &P->al.body[i];
    memcpy(P->ra.XT_E + 9 * i, b->XT.E, sizeof b->XT.E);
    memcpy(P->ra.XT_r + 3 * i, b->XT.r, sizeof b->XT.r);
    if (b->axis >= 0) {
      for (int k = 0; k < 3; k++) P->ra.axis[3 * i + k] = k == b->axis ? 1.0 : 0.0;
    }
    if (P->t->body[i].type == MBG_JOINT_UNIVERSAL) /* its second axis: e_{k+1} (align.h) */
      for (int k = 0; k < 3; k++) P->ra.axis2[3 * i + k] = k == (b->axis + 1) % 3 ? 1.0 : 0.0;
    P->ra.inertia[10 * i] = b->I.m;
    memcpy(P->ra.inertia + 10 * i + 1, b->I.h, sizeof b->I.h);
    memcpy(P->ra.inertia + 10 * i + 4, b->I.I, sizeof b->I.I);
  }
  /* flexible bodies: the modal coupling (force columns in the body's frame) rotates with R_i,
   * an attachment shape (motion columns in the parent's frame) with R_λ */
  for (int i = 1, e = 0, ps = 0; P->ra.model.flex && i <= P->t->nb; i++) {
    int nm = P->t->body[i].nm, p = P->t->body[i].parent, np = P->t->body[p].nm;
    for (int c = 0; c < nm; c++) {
      rotate6(P->al.body[i].R, P->ra.Mc + 6 * (e + c));
      /* the velocity-product form Q' = R6 Q R6ᵀ: rotate its columns, then its rows */
      double *Q = P->ra.Q + 36 * (e + c), col[6];
      for (int k = 0; k < 6; k++) {
        for (int r = 0; r < 6; r++) col[r] = Q[6 * r + k];
        rotate6(P->al.body[i].R, col);
        for (int r = 0; r < 6; r++) Q[6 * r + k] = col[r];
      }
      for (int r = 0; r < 6; r++) rotate6(P->al.body[i].R, Q + 6 * r);
    }
    for (int c = 0; c < np; c++) rotate6(P->al.body[p].R, P->ra.Psi + ps + 6 * c);
    e += nm, ps += 6 * np;
  }
}

/* Σ = tr(Ic)/2·1 − Ic = ∫ρ x xᵀ about the COM (Ic = Ī + h× h× / m), full 3×3. */
static void second_moment(const mbg_inertia *I, double S[9]) {
  const double *s = I->I, *h = I->h;
  double Ic[9] = {s[0], s[3], s[4], s[3], s[1], s[5], s[4], s[5], s[2]};
  double hh = h[0] * h[0] + h[1] * h[1] + h[2] * h[2];
  for (int i = 0; i < 3 && I->m > 0; i++)
    for (int j = 0; j < 3; j++) Ic[3 * i + j] += (h[i] * h[j] - (i == j) * hh) / I->m;
  double tr = Ic[0] + Ic[4] + Ic[8];
  for (int k = 0; k < 9; k++) S[k] = (k % 4 == 0 ? 0.5 * tr : 0.0) - Ic[k];
}

/* Similarity invariants of a symmetric 3×3: trace, Σ of the principal 2×2 minors, det. */
static void invariants(const double S[9], double inv[3]) {
  inv[0] = S[0] + S[4] + S[8];
  inv[1] = S[0] * S[4] - S[1] * S[1] + S[4] * S[8] - S[5] * S[5] + S[0] * S[8] - S[2] * S[2];
  inv[2] = det3(S);
}

/* The aligned runtime model passes mb_model_check, degenerate bodies (rods, plates) included:
 * the check allows rounding of the order eps·tr², eps·tr³ in Σ's minors (runtime/model.c). */
static void check_aligned_model(const pair *P) {
  char msg[256];
  if (mb_model_check(&P->ra.model, msg, sizeof msg)) fail_msg("aligned: %s", msg);
}

static void pair_open(const mbg_model *m, mbg_topology *t, pair *P) {
  char msg[256];
  P->t = t;
  assert_int_equal(mbg_align(t, &P->al), 0);
  assert_int_equal(P->al.nb, t->nb);
  assert_int_equal(mbg_rtmodel_build(m, t, &P->ro), 0);
  assert_int_equal(mbg_rtmodel_build(m, t, &P->ra), 0);
  set_aligned_arrays(P);
  if (mb_model_check(&P->ro.model, msg, sizeof msg)) fail_msg("original: %s", msg);
  check_aligned_model(P);
  P->bo = malloc(mb_workspace_size(&P->ro.model));
  P->ba = malloc(mb_workspace_size(&P->ra.model));
  assert_true(P->bo && P->ba);
  mb_workspace_init(&P->wo, &P->ro.model, P->bo);
  mb_workspace_init(&P->wa, &P->ra.model, P->ba);
}

static void pair_close(pair *P) {
  free(P->bo);
  free(P->ba);
  mbg_rtmodel_free(&P->ro);
  mbg_rtmodel_free(&P->ra);
  mbg_aligned_free(&P->al);
}

/* ---------------------------------------------------------------- exactness */

/* A signed permutation's (idx, sgn), or 0. */
static int as_perm(const double R[9], int idx[3], double sgn[3]) {
  for (int i = 0; i < 3; i++) {
    int nz = 0;
    for (int j = 0; j < 3; j++)
      if (R[3 * i + j] != 0.0) nz++, idx[i] = j, sgn[i] = R[3 * i + j];
    if (nz != 1 || fabs(sgn[i]) != 1.0) return 0;
  }
  return 1;
}

/* (P M Qᵀ)_rc = p_r q_c M_{π(r) σ(c)} bit for bit; M full 3×3. */
static void assert_permuted(const double *got, const double M[9], const int *pi, const double *p,
                            const int *si, const double *q) {
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) assert_true(got[3 * r + c] == p[r] * q[c] * M[3 * pi[r] + si[c]]);
}

/* (P x)_r = p_r x_π(r) bit for bit. */
static void assert_permuted_vec(const double *got, const double x[3], const int *pi,
                                const double *p) {
  for (int r = 0; r < 3; r++) assert_true(got[r] == p[r] * x[pi[r]]);
}

static void full_sym(const double s[6], double F[9]) {
  double f[9] = {s[0], s[3], s[4], s[3], s[1], s[5], s[4], s[5], s[2]};
  memcpy(F, f, sizeof f);
}

/* The formulas, evaluated here by plain products: E' = R_i E R_λᵀ, r' = R_λ r, m' = m, h' = R_i h,
 * Ī' = R_i Ī R_iᵀ; and Σ' = R_i Σ R_iᵀ has Σ's invariants (same eigenvalues: still physical). */
static void check_formulas(const mbg_tree_body *b, const mbg_aligned_body *ab, const double Rl[9]) {
  double Rlt[9], Rit[9], T[9], E[9], r[3], h[3], F[9], G[9], S[9], S2[9], inv[3], inv2[3];
  for (int i = 0; i < 9; i++) Rlt[i] = Rl[3 * (i % 3) + i / 3], Rit[i] = ab->R[3 * (i % 3) + i / 3];
  matmul(b->XT.E, Rlt, T);
  matmul(ab->R, T, E);
  matvec(Rl, b->XT.r, r);
  matvec(ab->R, b->I.h, h);
  full_sym(b->I.I, F);
  matmul(F, Rit, T);
  matmul(ab->R, T, G);
  double sr = 1 + mbt_max_abs(r, 3), sh = 1e-300 + mbt_max_abs(h, 3), sI = mbt_max_abs(G, 9);
  for (int k = 0; k < 9; k++) assert_near(ab->XT.E[k], E[k], 4e-15);
  for (int k = 0; k < 3; k++) assert_near(ab->XT.r[k], r[k], 4e-15 * sr);
  for (int k = 0; k < 3; k++) assert_near(ab->I.h[k], h[k], 4e-15 * sh);
  full_sym(ab->I.I, F);
  for (int k = 0; k < 9; k++) assert_near(F[k], G[k], 4e-15 * sI);
  assert_true(ab->I.m == b->I.m);
  second_moment(&b->I, S);
  second_moment(&ab->I, S2);
  invariants(S, inv);
  invariants(S2, inv2);
  for (int k = 0; k < 3; k++) assert_near(inv2[k], inv[k], 1e-13 * pow(fabs(inv[0]), k + 1));
}

/* Identity: bitwise unchanged. Signed permutations: exact permuted entries. Always: R proper,
 * R a = e_k, rotated flag, axis only for 1-dof joints, the formulas. */
static void check_exactness(const pair *P) {
  for (int i = 1; i <= P->t->nb; i++) {
    const mbg_tree_body *b = &P->t->body[i];
    const mbg_aligned_body *ab = &P->al.body[i], *ap = &P->al.body[b->parent];
    int one_dof = b->type != MBG_JOINT_SPHERICAL && b->type != MBG_JOINT_FLOATING &&
                  b->type != MBG_JOINT_FIXED; /* fixed: a flexible body held by a fixed joint */
    assert_int_equal(ab->axis >= 0, one_dof);
    double Ra[3], I9[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(ab->rotated, memcmp(ab->R, I9, sizeof I9) != 0);
    assert_true(orthonormality_error(ab->R) <= 1e-15);
    if (one_dof) {
      matvec(ab->R, b->axis, Ra);
      for (int k = 0; k < 3; k++) assert_near(Ra[k], k == ab->axis, 1e-15);
    }
    check_formulas(b, ab, ap->R);
    if (!ab->rotated && !ap->rotated) {
      assert_memory_equal(&ab->XT, &b->XT, sizeof b->XT);
      assert_memory_equal(&ab->I, &b->I, sizeof b->I);
    }
    int pi[3], si[3];
    double p[3], q[3], F[9], G[9];
    if (!as_perm(ab->R, pi, p) || !as_perm(ap->R, si, q)) continue;
    assert_permuted(ab->XT.E, b->XT.E, pi, p, si, q);
    assert_permuted_vec(ab->XT.r, b->XT.r, si, q);
    assert_permuted_vec(ab->I.h, b->I.h, pi, p);
    full_sym(b->I.I, F);
    full_sym(ab->I.I, G);
    assert_permuted(G, F, pi, p, pi, p);
  }
}

/* ---------------------------------------------------------------- dynamics invariance */

enum { Q_M, Q_TAU, Q_QDD, Q_POSE, Q_WRENCH, Q_COUNT };
static const char *const qname[Q_COUNT] = {"M", "rnea tau", "aba qdd", "fk pose", "wrenches"};
static double worst_rel[Q_COUNT];

/* max |got − want| ≤ 1e-12 · max(max |want|, 1e-300), the worst ratio kept for the summary. */
static void check_rel(const double *got, const double *want, size_t n, int what) {
  size_t w;
  double d = mbt_max_diff(got, want, n, &w), s = fmax(mbt_max_abs(want, n), 1e-300);
  worst_rel[what] = fmax(worst_rel[what], d / s);
  if (!(d <= 1e-12 * s))
    fail_msg("%s: |got - want| = %.3e, scale %.3e, at %zu: %.17g vs %.17g", qname[what], d, s, w,
             got[w], want[w]);
}

static void random_quat(double *x) {
  double n;
  do {
    for (int k = 0; k < 4; k++) x[k] = urand(-1, 1);
    n = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
  } while (n < 0.1);
  for (int k = 0; k < 4; k++) x[k] /= n;
}

/* Angles and displacements uniform, quaternions unit, floating positions in a unit box. */
static void random_q(const mb_model *m, double *q) {
  for (int i = 1; i <= m->nb; i++) {
    double *x = q + m->iq[i];
    if (m->jtype[i] == MB_JOINT_SPHERICAL) random_quat(x);
    else if (m->jtype[i] == MB_JOINT_FLOATING) {
      for (int k = 0; k < 3; k++) x[k] = urand(-1, 1);
      random_quat(x + 3);
    } else x[0] = urand(-3.2, 3.2);
  }
}

/* out_i = blockdiag(R_i, R_i) in_i, or with R_iᵀ when `transpose`. */
static void rotate_wrenches(const mbg_aligned *al, const double *in, double *out, int transpose) {
  for (int i = 0; i <= al->nb; i++)
    for (int h = 0; h < 2; h++) {
      const double *x = in + 6 * i + 3 * h;
      double *y = out + 6 * i + 3 * h;
      if (transpose) mattvec(al->body[i].R, x, y);
      else matvec(al->body[i].R, x, y);
    }
}

typedef struct work {
  double *q, *v, *a, *tau, *fo, *fa, *x1, *x2, *M1, *M2, *p1, *p2, *w1, *w2;
} work;

static double *dalloc(size_t n) {
  double *p = calloc(n ? n : 1, sizeof *p);
  assert_non_null(p);
  return p;
}

static void work_alloc(const mb_model *m, work *W) {
  size_t nq = (size_t)m->nq, nv = (size_t)m->nv, n1 = (size_t)m->nb + 1;
  W->q = dalloc(nq), W->v = dalloc(nv), W->a = dalloc(nv), W->tau = dalloc(nv);
  W->fo = dalloc(6 * n1), W->fa = dalloc(6 * n1), W->x1 = dalloc(nv), W->x2 = dalloc(nv);
  W->M1 = dalloc(nv * nv), W->M2 = dalloc(nv * nv), W->p1 = dalloc(12 * n1);
  W->p2 = dalloc(12 * n1), W->w1 = dalloc(6 * n1), W->w2 = dalloc(6 * n1);
}

static void work_free(work *W) {
  double *all[] = {W->q, W->v, W->a, W->tau, W->fo, W->fa, W->x1, W->x2, W->M1, W->M2,
                   W->p1, W->p2, W->w1, W->w2};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) free(all[k]);
}

/* fk: R_world←orig = R_world←aligned R_i, the same origins (aligned poses mapped into W->p1). */
static void check_fk(pair *P, work *W) {
  const mb_model *mo = &P->ro.model, *ma = &P->ra.model;
  size_t n1 = (size_t)mo->nb + 1;
  mb_fk(mo, &P->wo, W->q, W->p1);
  mb_fk(ma, &P->wa, W->q, W->p2);
  for (size_t i = 0; i < n1; i++) {
    double R[9];
    matmul(W->p2 + 12 * i, P->al.body[i].R, R);
    memcpy(W->p2 + 12 * i, R, sizeof R);
  }
  check_rel(W->p2, W->p1, 12 * n1, Q_POSE);
}

/* One random state through M, τ (with fext), q̈ (with fext), poses and joint wrenches. */
static void check_state(pair *P, work *W) {
  const mb_model *mo = &P->ro.model, *ma = &P->ra.model;
  size_t nv = (size_t)mo->nv, n1 = (size_t)mo->nb + 1;
  random_q(mo, W->q);
  for (size_t k = 0; k < nv; k++)
    W->v[k] = urand(-1, 1), W->a[k] = urand(-1, 1), W->tau[k] = urand(-1, 1);
  for (size_t k = 6; k < 6 * n1; k++) W->fo[k] = urand(-1, 1);
  rotate_wrenches(&P->al, W->fo, W->fa, 0);
  mb_crba(mo, &P->wo, W->q, W->M1);
  mb_crba(ma, &P->wa, W->q, W->M2);
  check_rel(W->M2, W->M1, nv * nv, Q_M);
  mb_rnea(mo, &P->wo, W->q, W->v, W->a, W->fo, W->x1);
  mb_rnea(ma, &P->wa, W->q, W->v, W->a, W->fa, W->x2);
  check_rel(W->x2, W->x1, nv, Q_TAU);
  assert_int_equal(mb_aba(mo, &P->wo, W->q, W->v, W->tau, W->fo, W->x1), 0);
  assert_int_equal(mb_aba(ma, &P->wa, W->q, W->v, W->tau, W->fa, W->x2), 0);
  check_rel(W->x2, W->x1, nv, Q_QDD);
  check_fk(P, W);
  mb_joint_wrenches(mo, &P->wo, W->q, W->v, W->a, W->w1);
  mb_joint_wrenches(ma, &P->wa, W->q, W->v, W->a, W->fa);
  rotate_wrenches(&P->al, W->fa, W->w2, 1);
  check_rel(W->w2, W->w1, 6 * n1, Q_WRENCH);
}

/* Exactness and invariance on `nstates` random states; t is consumed. */
static void check_model(const mbg_model *m, mbg_topology *t, int nstates) {
  pair P;
  work W;
  pair_open(m, t, &P);
  check_exactness(&P);
  work_alloc(&P.ro.model, &W);
  for (int s = 0; s < nstates; s++) check_state(&P, &W);
  work_free(&W);
  pair_close(&P);
  mbg_topology_free(t);
}

static void print_worst(void) {
  for (int k = 0; k < Q_COUNT; k++)
    print_message("worst relative difference, %s: %.3g\n", qname[k], worst_rel[k]);
}

/* ---------------------------------------------------------------- random models */

static void random_body(mbg_body *b) {
  for (int k = 0; k < 3; k++) b->com[k] = urand(-0.4, 0.4), b->inertia[k] = urand(0.4, 0.7);
  for (int k = 3; k < 6; k++) b->inertia[k] = urand(-0.02, 0.02);
}

/* n bodies, parent of body b drawn among 0..b-1; joints of every type (fixed merged away, never
 * for body 1 so the tree moves), axes of the kinds in `kinds` (bit per random_axis kind). */
static mbg_model *random_model(int n, unsigned kinds) {
  static const mbg_joint_type moving[] = {MBG_JOINT_REVOLUTE,  MBG_JOINT_CONTINUOUS,
                                          MBG_JOINT_PRISMATIC, MBG_JOINT_HELICAL,
                                          MBG_JOINT_SPHERICAL, MBG_JOINT_FLOATING};
  mbg_model *m = mbg_model_new("random", "");
  assert_non_null(m);
  for (int k = 0; k < 3; k++) m->gravity[k] = urand(-10, 10);
  for (int b = 1; b <= n; b++) {
    char name[16];
    snprintf(name, sizeof name, "b%d", b);
    int k = mbgt_body(m, name, urand(0.5, 3));
    assert_int_equal(k, b);
    random_body(&m->bodies[k]);
  }
  for (int b = 1; b <= n; b++) {
    char name[16];
    snprintf(name, sizeof name, "j%d", b);
    mbg_joint_type type = b > 1 && irand(8) == 0 ? MBG_JOINT_FIXED : moving[irand(6)];
    int j = mbgt_joint(m, name, type, irand(b), b); /* the call may move m->joints */
    mbg_joint *J = &m->joints[j];
    for (int k = 0; k < 3; k++) J->xyz[k] = urand(-1, 1), J->rpy[k] = urand(-PI, PI);
    int kind;
    do kind = irand(6);
    while (!(kinds & (1u << kind)));
    random_axis(kind, J->axis);
    J->pitch = type == MBG_JOINT_HELICAL ? urand(-0.2, 0.2) : 0.0;
  }
  return m;
}

static void random_models_invariant(void **state) {
  (void)state;
  memset(worst_rel, 0, sizeof worst_rel);
  for (int seed = 1; seed <= 300; seed++) {
    mbt_rng_seed(&rng, (uint64_t)seed);
    mbg_model *m = random_model(1 + irand(16), 0x3f);
    mbg_topology *t = mbg_topology_build(m);
    assert_non_null(t);
    check_model(m, t, 4);
    mbg_model_free(m);
  }
  print_worst();
}

/* Internal consistency: every axis exactly +e_k → nothing rotated, XT and inertia bitwise equal. */
static void positive_axes_untouched(void **state) {
  (void)state;
  for (int seed = 1; seed <= 100; seed++) {
    mbt_rng_seed(&rng, (uint64_t)seed);
    mbg_model *m = random_model(1 + irand(16), 1u);
    mbg_topology *t = mbg_topology_build(m);
    assert_non_null(t);
    mbg_aligned al;
    assert_int_equal(mbg_align(t, &al), 0);
    for (int i = 0; i <= t->nb; i++) {
      const mbg_aligned_body *b = &al.body[i];
      double I9[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
      assert_false(b->rotated);
      assert_memory_equal(b->R, I9, sizeof I9);
      assert_memory_equal(&b->XT, &t->body[i].XT, sizeof b->XT);
      assert_memory_equal(&b->I, &t->body[i].I, sizeof b->I);
      if (i > 0 && b->axis >= 0) assert_true(t->body[i].axis[b->axis] == 1.0);
    }
    mbg_aligned_free(&al);
    mbg_topology_free(t);
    mbg_model_free(m);
  }
}

/* ---------------------------------------------------------------- example models */

static int all_axes_positive(const mbg_topology *t) {
  for (int i = 1; i <= t->nb; i++) {
    const double *a = t->body[i].axis;
    mbg_joint_type ty = t->body[i].type;
    if (ty == MBG_JOINT_SPHERICAL || ty == MBG_JOINT_FLOATING) continue;
    int ok = 0;
    for (int k = 0; k < 3; k++) ok |= a[k] == 1.0 && a[(k + 1) % 3] == 0.0 && a[(k + 2) % 3] == 0.0;
    if (!ok) return 0;
  }
  return 1;
}

/* Variant 0 as written, 1 every 1-dof axis negated, 2 every 1-dof axis a generic unit vector. */
static void check_example(const char *path, int variant) {
  int errors, warnings;
  mbg_model *m = mbg_load_mbd(path, stderr, &errors, &warnings);
  assert_non_null(m);
  mbg_topology *t = mbg_topology_build(m);
  assert_non_null(t);
  for (int i = 1; i <= t->nb && variant > 0; i++) {
    double *a = t->body[i].axis;
    if (variant == 1)
      for (int k = 0; k < 3; k++) a[k] = -a[k];
    else random_axis(2, a);
    if (t->body[i].type == MBG_JOINT_UNIVERSAL) { /* axis2 kept ⟂ the new axis */
      double *b = t->body[i].axis2, d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
      for (int k = 0; k < 3; k++) b[k] -= d * a[k];
      double n = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
      for (int k = 0; k < 3; k++) b[k] /= n;
    }
  }
  if (variant == 0 && all_axes_positive(t)) {
    mbg_aligned al;
    assert_int_equal(mbg_align(t, &al), 0);
    for (int i = 0; i <= t->nb; i++) assert_false(al.body[i].rotated);
    mbg_aligned_free(&al);
  }
  check_model(m, t, 10);
  mbg_model_free(m);
}

static void examples_invariant(void **state) {
  (void)state;
  char dir[4096], path[4600];
  snprintf(dir, sizeof dir, "%s/examples", getenv("MBDC_SOURCE_DIR"));
  DIR *d = opendir(dir);
  assert_non_null(d);
  int count = 0;
  struct dirent *e;
  memset(worst_rel, 0, sizeof worst_rel);
  mbt_rng_seed(&rng, 42);
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".mbd") != 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    for (int variant = 0; variant < 3; variant++) check_example(path, variant);
    count++;
  }
  closedir(d);
  assert_true(count >= 6);
  print_worst();
}

/* A spherical and a floating joint keep their frames; the world entry is the identity. */
static void ball_joints_not_rotated(void **state) {
  (void)state;
  mbt_rng_seed(&rng, 3);
  mbg_model *m = random_model(1, 0x3f);
  m->joints[0].type = MBG_JOINT_SPHERICAL;
  int b = mbgt_body(m, "b2", 1.0);
  int j = mbgt_joint(m, "j2", MBG_JOINT_FLOATING, 1, b);
  mbg_joint *J = &m->joints[j];
  J->xyz[0] = 0.3;
  mbg_topology *t = mbg_topology_build(m);
  assert_non_null(t);
  mbg_aligned al;
  assert_int_equal(mbg_align(t, &al), 0);
  for (int i = 0; i <= 2; i++) {
    assert_int_equal(al.body[i].axis, -1);
    assert_false(al.body[i].rotated);
    assert_memory_equal(&al.body[i].XT, &t->body[i].XT, sizeof al.body[i].XT);
  }
  mbg_aligned_free(&al);
  check_model(m, t, 5);
  mbg_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(axis_plus_z_is_identity),
    cmocka_unit_test(axis_minus_y_is_signed_permutation),
    cmocka_unit_test(axis_generic_is_proper_rotation),
    cmocka_unit_test(positive_axes_untouched),
    cmocka_unit_test(ball_joints_not_rotated),
    cmocka_unit_test(examples_invariant),
    cmocka_unit_test(random_models_invariant),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
