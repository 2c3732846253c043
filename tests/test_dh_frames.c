/* test_dh_frames.c — the working frames (generator/dh_frames.c). References:
 *   exactness: a working frame is the original body frame moved by Yo_i, so for every joint and
 *     every q the placed transforms reproduce the original kinematics,
 *       Yo_i · XJ_orig(q) XT_orig,i = XJ_work(q + θ0) XT_work,i · Yo_λ          (Yo_0 = 1),
 *     XJ_orig the rotation about / shift along the original unit axis a (Rodrigues), XJ_work the
 *     same about / along e_k; and the working inertia is the original one moved into the working
 *     frame (parallel-axis theorem about the working origin, then rotated by Yo_i's E); Yo_i a
 *     proper rotation; checked to 1e-14 on seeded random trees of every joint type and axis kind,
 *     and on every example;
 *   sparsity: on trees with generic axes and placements, the principal child of every 1-dof body
 *     (its 1-dof child of largest subtree, the first on ties) gets the DH transform: a rotation
 *     about one coordinate axis e_j (entries of row and column j exactly 0 and 1) and a shift
 *     along e_j and the parent's axis only (at most 7 nonzeros, the 1 included); likewise for
 *     parallel and for intersecting consecutive axes; a planar tag (k, c, s) is the rotation E
 *     exactly;
 *   untouched: a chain already in modified DH position (axes z, XT = RotX(α) with r = a e_x) and
 *     arm7.mbd keep their frames: XT, inertia bitwise as aligned, Yo = (R, 0), θ0 = 0. */
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
#include "topology/dh_frames.h"

#include "mb_randtree.h"
#include "mb_testutil.h"
#include "mbg_testmodel.h"

static mbt_rng rng;
static double urand(double lo, double hi) { return mbt_uniform(&rng, lo, hi); }
static int irand(int n) { return mbt_randint(&rng, 0, n - 1); }
static double worst_kin, worst_inertia;

/* ---------------------------------------------------------------- transforms (E, r) */

typedef struct xf {
  double E[9], r[3];
} xf;

/* A B = (E_A E_B, r_B + E_Bᵀ r_A): B acts first on motion vectors. */
static xf compose(const xf *A, const xf *B) {
  xf C;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      C.E[3 * i + j] = 0.0;
      for (int l = 0; l < 3; l++) C.E[3 * i + j] += A->E[3 * i + l] * B->E[3 * l + j];
    }
  for (int i = 0; i < 3; i++) {
    C.r[i] = B->r[i];
    for (int l = 0; l < 3; l++) C.r[i] += B->E[3 * l + i] * A->r[l];
  }
  return C;
}

static xf from_mbg(const mbg_xform *X) {
  xf Y;
  memcpy(Y.E, X->E, sizeof Y.E);
  memcpy(Y.r, X->r, sizeof Y.r);
  return Y;
}

/* The joint transform for angle q about / shift d along the unit axis a: E = Rot(a, q)ᵀ. */
static xf screw_about(const double a[3], double q, double d) {
  double c = cos(q), s = sin(q), R[9];
  double K[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0};
  xf X;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      R[3 * i + j] = (i == j) * c + s * K[3 * i + j] + (1 - c) * a[i] * a[j];
  for (int i = 0; i < 9; i++) X.E[i] = R[3 * (i % 3) + i / 3];
  for (int i = 0; i < 3; i++) X.r[i] = d * a[i];
  return X;
}

static double max_diff(const xf *A, const xf *B, double rscale) {
  double d = 0.0;
  for (int k = 0; k < 9; k++) d = fmax(d, fabs(A->E[k] - B->E[k]));
  for (int k = 0; k < 3; k++) d = fmax(d, fabs(A->r[k] - B->r[k]) / rscale);
  return d;
}

/* ---------------------------------------------------------------- exactness */

static int one_dof(mbg_joint_type t) {
  return t == MBG_JOINT_REVOLUTE || t == MBG_JOINT_CONTINUOUS || t == MBG_JOINT_PRISMATIC ||
         t == MBG_JOINT_HELICAL;
}

/* XJ of body i at q in the original frames (o) and in the working frames (w). Ball joints get
 * a random rotation and shift, the same in both (their working frame is the original one). */
static void joint_pair(const mbg_tree_body *b, const mbg_aligned_body *a, const mbg_dh_body *w,
                       double q, xf *o, xf *x) {
  if (!one_dof(b->type)) {
    mbt_rand_rot(&rng, o->E);
    mbt_rand_vec(&rng, 3, -1, 1, o->r);
    *x = *o;
    return;
  }
  int slide = b->type == MBG_JOINT_PRISMATIC, helical = b->type == MBG_JOINT_HELICAL;
  double e[3] = {0, 0, 0}, d = slide ? q : helical ? b->pitch * q : 0.0, angle = slide ? 0.0 : q;
  e[a->axis] = 1.0;
  *o = screw_about(b->axis, angle, d);
  *x = screw_about(e, angle + w->theta, d);
}

/* Ī_w, h_w of the original inertia I (at the original origin) moved to the working frame Yo. */
static void moved_inertia(const mbg_inertia *I, const xf *Yo, double out[10]) {
  double m = I->m, c[3], cw[3], F[9], G[9];
  const double *s = I->I;
  double Io[9] = {s[0], s[3], s[4], s[3], s[1], s[5], s[4], s[5], s[2]};
  for (int k = 0; k < 3; k++) c[k] = m > 0 ? I->h[k] / m : 0.0, cw[k] = c[k] - Yo->r[k];
  double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
  double ww = cw[0] * cw[0] + cw[1] * cw[1] + cw[2] * cw[2];
  for (int i = 0; i < 3; i++) /* about the COM, then about the working origin */
    for (int j = 0; j < 3; j++)
      F[3 * i + j] =
          Io[3 * i + j] - m * ((i == j) * cc - c[i] * c[j]) + m * ((i == j) * ww - cw[i] * cw[j]);
  for (int i = 0; i < 3; i++) /* G = E F Eᵀ, h = m E cw */
    for (int j = 0; j < 3; j++) {
      G[3 * i + j] = 0.0;
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++)
          G[3 * i + j] += Yo->E[3 * i + k] * F[3 * k + l] * Yo->E[3 * j + l];
    }
  out[0] = m;
  for (int i = 0; i < 3; i++)
    out[1 + i] = m * (Yo->E[3 * i] * cw[0] + Yo->E[3 * i + 1] * cw[1] + Yo->E[3 * i + 2] * cw[2]);
  double packed[6] = {G[0], G[4], G[8], G[1], G[2], G[5]};
  memcpy(out + 4, packed, sizeof packed);
}

static void check_inertia(const mbg_tree_body *b, const mbg_dh_body *w) {
  xf Yo = from_mbg(&w->Yo);
  double want[10], got[10] = {w->I.m, w->I.h[0], w->I.h[1], w->I.h[2]};
  memcpy(got + 4, w->I.I, sizeof w->I.I);
  moved_inertia(&b->I, &Yo, want);
  size_t at;
  double scale = mbt_max_abs(want, 10), d = mbt_max_diff(got, want, 10, &at);
  if (scale > 0) d /= scale; /* a massless body: absolute */
  worst_inertia = fmax(worst_inertia, d);
  if (!(d <= 1e-14)) fail_msg("inertia: relative difference %.3g at %zu", d, at);
}

/* Yo_i proper; Yo_i XJ_o XT_o = XJ_w XT_w Yo_λ at random q; the inertia. */
static void check_exact(const mbg_topology *t, const mbg_aligned *al, const mbg_dh *dh) {
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *b = &t->body[i];
    const mbg_dh_body *w = &dh->body[i];
    xf Yi = from_mbg(&w->Yo), Yl = from_mbg(&dh->body[b->parent].Yo), YYt;
    YYt = compose(&Yi, &(xf){{Yi.E[0], Yi.E[3], Yi.E[6], Yi.E[1], Yi.E[4], Yi.E[7], Yi.E[2],
                              Yi.E[5], Yi.E[8]},
                             {0, 0, 0}});
    for (int k = 0; k < 9; k++) assert_near(YYt.E[k], k % 4 == 0, 1e-15);
    xf one = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
    if (!one_dof(b->type)) assert_true(max_diff(&Yi, &one, 1) == 0);
    xf To = from_mbg(&b->XT), Tw = from_mbg(&w->XT);
    double scale = 1 + mbt_max_abs(b->XT.r, 3) + mbt_max_abs(w->XT.r, 3);
    for (int n = 0; n < 4; n++) {
      xf Jo, Jw;
      joint_pair(b, &al->body[i], w, urand(-3.2, 3.2), &Jo, &Jw);
      xf Xo = compose(&Jo, &To), Xw = compose(&Jw, &Tw);
      xf L = compose(&Yi, &Xo), R = compose(&Xw, &Yl);
      double d = max_diff(&L, &R, scale);
      worst_kin = fmax(worst_kin, d);
      if (!(d <= 1e-14)) fail_msg("body %d: kinematics differ by %.3g", i, d);
    }
    check_inertia(b, w);
  }
}

typedef struct placed {
  mbg_topology *t;
  mbg_aligned al;
  mbg_dh dh;
} placed;

static void place(mbg_model *m, placed *P) {
  P->t = mbg_topology_build(m);
  assert_non_null(P->t);
  assert_int_equal(mbg_align(P->t, &P->al), 0);
  assert_int_equal(mbg_dh_place(P->t, &P->al, &P->dh), 0);
  assert_int_equal(P->dh.nb, P->t->nb);
}

static void unplace(placed *P) {
  mbg_dh_free(&P->dh);
  mbg_aligned_free(&P->al);
  mbg_topology_free(P->t);
}

/* ---------------------------------------------------------------- random models */

static void normalize(double a[3]) {
  double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (int k = 0; k < 3; k++) a[k] /= n;
}

/* kind 0 +e_k, 1 −e_k, 2 generic. */
static void random_axis(int kind, double a[3]) {
  int k = irand(3);
  a[0] = a[1] = a[2] = 0.0;
  a[k] = kind == 1 ? -1.0 : 1.0;
  if (kind == 2) {
    do
      for (int j = 0; j < 3; j++) a[j] = urand(-1, 1);
    while (a[0] * a[0] + a[1] * a[1] + a[2] * a[2] < 0.01);
    normalize(a);
  }
}

/* n bodies with parents among the earlier ones. all_revolute: generic axes and placements;
 * otherwise every joint type (fixed merged away), axes of every kind, rpy quarter turns or generic,
 * origins generic or on one axis. */
static mbg_model *random_model(int n, int all_revolute) {
  static const mbg_joint_type types[] = {
      MBG_JOINT_REVOLUTE,  MBG_JOINT_CONTINUOUS, MBG_JOINT_PRISMATIC, MBG_JOINT_HELICAL,
      MBG_JOINT_SPHERICAL, MBG_JOINT_FLOATING,   MBG_JOINT_REVOLUTE,  MBG_JOINT_FIXED};
  mbg_model *m = mbg_model_new("random", "");
  assert_non_null(m);
  for (int b = 1; b <= n; b++) {
    char name[16];
    snprintf(name, sizeof name, "b%d", b);
    int k = mbgt_body(m, name, urand(0.5, 3)); /* the call may move m->bodies */
    mbg_body *B = &m->bodies[k];
    for (int l = 0; l < 3; l++) B->com[l] = urand(-0.4, 0.4), B->inertia[l] = urand(0.4, 0.7);
    for (int l = 3; l < 6; l++) B->inertia[l] = urand(-0.02, 0.02);
  }
  for (int b = 1; b <= n; b++) {
    char name[16];
    snprintf(name, sizeof name, "j%d", b);
    mbg_joint_type type = all_revolute ? MBG_JOINT_REVOLUTE : types[irand(b > 1 ? 8 : 7)];
    int j = mbgt_joint(m, name, type, irand(b), b); /* the call may move m->joints */
    mbg_joint *J = &m->joints[j];
    int on_axis = !all_revolute && irand(3) == 0, quarter = !all_revolute && irand(2);
    for (int k = 0; k < 3; k++) {
      J->xyz[k] = on_axis && k < 2 ? 0.0 : urand(-1, 1);
      J->rpy[k] = quarter ? (irand(4) - 1) * PI / 2 : urand(-PI, PI);
    }
    random_axis(all_revolute ? 2 : irand(3), J->axis);
    J->pitch = type == MBG_JOINT_HELICAL ? urand(-0.2, 0.2) : 0.0;
  }
  return m;
}

static void random_trees_exact(void **state) {
  (void)state;
  worst_kin = worst_inertia = 0.0;
  for (int seed = 1; seed <= 400; seed++) {
    mbt_rng_seed(&rng, (uint64_t)seed);
    mbg_model *m = random_model(1 + irand(20), seed % 2);
    placed P;
    place(m, &P);
    check_exact(P.t, &P.al, &P.dh);
    unplace(&P);
    mbg_model_free(m);
  }
  print_message("worst kinematics difference %.3g, inertia %.3g (relative)\n", worst_kin,
                worst_inertia);
}

/* ---------------------------------------------------------------- sparsity */

static int principal_child(const mbg_topology *t, int i) {
  int best = 0;
  for (int c = t->body[i].first_child; c; c = t->body[c].next_sibling)
    if (one_dof(t->body[c].type) &&
        (!best || t->body[c].subtree_end - c > t->body[best].subtree_end - best))
      best = c;
  return one_dof(t->body[i].type) ? best : 0;
}

/* XT of c (parent axis p) is a rotation about some e_j and a shift along e_j and e_p: α, a, d. */
static void assert_dh_form(const mbg_dh_body *w, int p) {
  const double *E = w->XT.E, *r = w->XT.r;
  int j = -1, nz = 0;
  for (int l = 0; l < 3 && j < 0; l++) {
    int ok = E[4 * l] == 1.0;
    for (int x = 0; x < 3; x++) ok &= x == l || (E[3 * l + x] == 0.0 && E[3 * x + l] == 0.0);
    if (ok) j = l;
  }
  assert_true(j >= 0);
  for (int l = 0; l < 3; l++) assert_true(l == j || l == p || r[l] == 0.0);
  for (int k = 0; k < 9; k++) nz += E[k] != 0.0;
  for (int k = 0; k < 3; k++) nz += r[k] != 0.0;
  assert_true(nz <= 7);
}

/* A planar tag is exactly the rotation E: row and column k of the identity, the 2×2 block
 * [c s; −s c] over the next axes, c and s nonzero. */
static void assert_tag(const mbg_dh_body *w) {
  if (w->planar < 0) return;
  int k = w->planar, k1 = (k + 1) % 3, k2 = (k + 2) % 3;
  double E[9] = {0};
  E[4 * k] = 1.0;
  E[3 * k1 + k1] = w->c, E[3 * k1 + k2] = w->s, E[3 * k2 + k1] = -w->s, E[3 * k2 + k2] = w->c;
  assert_true(w->c != 0.0 && w->s != 0.0);
  for (int x = 0; x < 9; x++) assert_true(w->XT.E[x] == E[x]);
}

static void check_sparse(const placed *P) {
  for (int i = 1; i <= P->t->nb; i++) {
    int c = principal_child(P->t, i);
    assert_tag(&P->dh.body[i]);
    if (c) assert_dh_form(&P->dh.body[c], P->al.body[i].axis);
  }
}

static void generic_trees_sparse(void **state) {
  (void)state;
  for (int seed = 1; seed <= 300; seed++) {
    mbt_rng_seed(&rng, (uint64_t)(1000 + seed));
    mbg_model *m = random_model(2 + irand(30), 1);
    placed P;
    place(m, &P);
    check_sparse(&P);
    check_exact(P.t, &P.al, &P.dh);
    unplace(&P);
    mbg_model_free(m);
  }
}

/* A chain of n revolute joints about z: parallel (rpy (0, 0, γ), generic xyz) or intersecting
 * (xyz = 0, generic rpy) consecutive axes. */
static void special_chain(int parallel) {
  mbg_model *m = random_model(8, 1);
  for (int j = 0; j < m->njoints; j++) {
    mbg_joint *J = &m->joints[j];
    J->parent = j, J->child = j + 1;
    J->axis[0] = J->axis[1] = 0.0, J->axis[2] = 1.0;
    if (parallel)
      J->rpy[0] = J->rpy[1] = 0.0;
    else
      J->xyz[0] = J->xyz[1] = J->xyz[2] = 0.0;
  }
  placed P;
  place(m, &P);
  check_sparse(&P);
  check_exact(P.t, &P.al, &P.dh);
  unplace(&P);
  mbg_model_free(m);
}

static void parallel_and_intersecting_axes(void **state) {
  (void)state;
  for (int seed = 1; seed <= 20; seed++) {
    mbt_rng_seed(&rng, (uint64_t)(5000 + seed));
    special_chain(seed % 2);
  }
}

/* ---------------------------------------------------------------- untouched */

static void assert_untouched(const placed *P) {
  for (int i = 1; i <= P->t->nb; i++) {
    const mbg_dh_body *w = &P->dh.body[i];
    const mbg_aligned_body *a = &P->al.body[i];
    assert_false(w->placed);
    assert_true(w->theta == 0.0 && w->cos_theta == 1.0 && w->sin_theta == 0.0);
    assert_memory_equal(&w->XT, &a->XT, sizeof w->XT);
    assert_memory_equal(&w->I, &a->I, sizeof w->I);
    assert_memory_equal(w->Yo.E, a->R, sizeof a->R);
    for (int k = 0; k < 3; k++) assert_true(w->Yo.r[k] == 0.0);
  }
}

/* Modified DH chains with d = 0: joint i about z, XT = RotX(α) with r = a e_x. */
static void dh_chain_untouched(void **state) {
  (void)state;
  for (int seed = 1; seed <= 50; seed++) {
    mbt_rng_seed(&rng, (uint64_t)(9000 + seed));
    mbg_model *m = random_model(2 + irand(10), 1);
    for (int j = 0; j < m->njoints; j++) {
      mbg_joint *J = &m->joints[j];
      J->parent = j, J->child = j + 1;
      J->axis[0] = J->axis[1] = 0.0, J->axis[2] = 1.0;
      J->rpy[1] = J->rpy[2] = 0.0;
      if (irand(2)) J->rpy[0] = (irand(3) - 1) * PI / 2;
      J->xyz[1] = J->xyz[2] = 0.0;
    }
    placed P;
    place(m, &P);
    assert_untouched(&P);
    check_exact(P.t, &P.al, &P.dh);
    unplace(&P);
    mbg_model_free(m);
  }
}

/* ---------------------------------------------------------------- examples */

static void examples_exact(void **state) {
  (void)state;
  char dir[4096], path[4600];
  snprintf(dir, sizeof dir, "%s/examples", getenv("MBDC_SOURCE_DIR"));
  DIR *d = opendir(dir);
  assert_non_null(d);
  int count = 0, errors, warnings;
  struct dirent *e;
  mbt_rng_seed(&rng, 42);
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".mbd") != 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    mbg_model *m = mbg_load_mbd(path, stderr, &errors, &warnings);
    assert_non_null(m);
    placed P;
    place(m, &P);
    check_exact(P.t, &P.al, &P.dh);
    if (strcmp(e->d_name, "arm7.mbd") == 0) assert_untouched(&P);
    unplace(&P);
    mbg_model_free(m);
    count++;
  }
  closedir(d);
  assert_true(count >= 6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(random_trees_exact),
      cmocka_unit_test(generic_trees_sparse),
      cmocka_unit_test(parallel_and_intersecting_axes),
      cmocka_unit_test(dh_chain_untouched),
      cmocka_unit_test(examples_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
