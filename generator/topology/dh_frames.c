/* dh_frames.c — Denavit-Hartenberg working frames (dh_frames.h).
 *
 * The arithmetic is written in the order the recipes' spatial algebra (templates/algorithms/
 * spatial.lua) evaluates the same products, so the placed numbers are those the recipes used to
 * compute for themselves, bit for bit. Vectors and matrices are 0-based here, row-major. */
#include "topology/dh_frames.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A screw about a body's axis e_k: turn (c, s), slide t. */
typedef struct screw {
  double c, s, t;
} screw;

static const screw IDENTITY = {1.0, 0.0, 0.0};

/* Per-body state of the placement. */
typedef struct dh_work {
  mbg_xform XT0; /* aligned XT, rotation entries snapped */
  double I0[10]; /* aligned inertia, negligible entries zeroed */
  screw Y, D;    /* own placement (for the principal child), placement from the parent */
  int turned;    /* Y was set by a placement */
  int has_xt;    /* XT set by the parent's placement */
  double foot;   /* the parent's Y.t at that placement */
} dh_work;

/* ---------------------------------------------------------------- small algebra */

static void next_axes(int k, int *k1, int *k2) { *k1 = (k + 1) % 3, *k2 = (k + 2) % 3; }

/* x itself, or exactly 0, 1 or −1 when within tol of it. */
static double snap(double x, double tol) {
  if (fabs(x) < tol) return 0.0;
  if (fabs(x - 1.0) < tol) return 1.0;
  if (fabs(x + 1.0) < tol) return -1.0;
  return x;
}

static double dot3(const double a[3], const double b[3]) {
  return ((0.0 + a[0] * b[0]) + a[1] * b[1]) + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* E x */
static void rot(const double E[9], const double x[3], double out[3]) {
  for (int i = 0; i < 3; i++) out[i] = E[3 * i] * x[0] + E[3 * i + 1] * x[1] + E[3 * i + 2] * x[2];
}

/* Eᵀ x */
static void rotT(const double E[9], const double x[3], double out[3]) {
  for (int i = 0; i < 3; i++) out[i] = E[i] * x[0] + E[3 + i] * x[1] + E[6 + i] * x[2];
}

/* The rotation about e_k: x'_k1 = c x_k1 + s x_k2, x'_k2 = −s x_k1 + c x_k2. */
static void planar(int k, double c, double s, double E[9]) {
  int k1, k2;
  next_axes(k, &k1, &k2);
  for (int x = 0; x < 9; x++) E[x] = 0.0;
  E[4 * k] = 1.0;
  E[3 * k1 + k1] = c, E[3 * k1 + k2] = s;
  E[3 * k2 + k1] = -s, E[3 * k2 + k2] = c;
}

/* The screw Y about e_k as a transform. */
static void screw_xform(int k, screw Y, mbg_xform *X) {
  planar(k, Y.c, Y.s, X->E);
  X->r[0] = X->r[1] = X->r[2] = 0.0;
  X->r[k] = Y.t;
}

/* A B = (E_A E_B, r_B + E_Bᵀ r_A) */
static void compose(const mbg_xform *A, const mbg_xform *B, mbg_xform *out) {
  double t[3], E[9];
  rotT(B->E, A->r, t);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      E[3 * i + j] =
          A->E[3 * i] * B->E[j] + A->E[3 * i + 1] * B->E[3 + j] + A->E[3 * i + 2] * B->E[6 + j];
  for (int i = 0; i < 3; i++) out->r[i] = B->r[i] + t[i];
  memcpy(out->E, E, sizeof E);
}

/* X⁻¹ = (Eᵀ, −E r) */
static void inverse(const mbg_xform *X, mbg_xform *out) {
  double t[3], E[9];
  rot(X->E, X->r, t);
  for (int i = 0; i < 9; i++) E[i] = X->E[3 * (i % 3) + i / 3];
  memcpy(out->E, E, sizeof E);
  for (int i = 0; i < 3; i++) out->r[i] = -t[i];
}

/* Y⁻¹ of the screw Y about e_k. */
static void screw_inverse(int k, screw Y, mbg_xform *out) {
  mbg_xform X;
  screw_xform(k, Y, &X);
  inverse(&X, out);
}

static int is_identity(screw Y) { return Y.c == 1.0 && Y.s == 0.0 && Y.t == 0.0; }

/* Tag XT as a rotation about the coordinate axis l when it is one (exactly, but for 1e-15 in the
 * 2×2 block: then rebuilt exact) and the angle is not a multiple of 90°. */
static void tag_planar(mbg_dh_body *b) {
  double *E = b->XT.E;
  b->planar = -1, b->c = 1.0, b->s = 0.0;
  for (int l = 0; l < 3; l++) {
    int l1, l2;
    next_axes(l, &l1, &l2);
    if (E[4 * l] != 1.0 || E[3 * l + l1] != 0.0 || E[3 * l + l2] != 0.0 || E[3 * l1 + l] != 0.0 ||
        E[3 * l2 + l] != 0.0)
      continue;
    double c = E[3 * l1 + l1], s = E[3 * l1 + l2];
    int exact = fabs(E[3 * l2 + l2] - c) < 1e-15 && fabs(E[3 * l2 + l1] + s) < 1e-15;
    if (c != 0.0 && s != 0.0 && exact) planar(l, c, s, E), b->planar = l, b->c = c, b->s = s;
    return;
  }
}

static int nonzeros(const mbg_xform *X) {
  int n = 0;
  for (int k = 0; k < 9; k++) n += X->E[k] != 0.0;
  for (int k = 0; k < 3; k++) n += X->r[k] != 0.0;
  return n;
}

/* ---------------------------------------------------------------- inertia */

static const int SYM[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};

/* Eᵀ S E of a symmetric S (xx yy zz xy xz yz): M = S E, then the upper triangle of Eᵀ M. */
static void sym_congruence(const double E[9], const double S[6], double R[6]) {
  double M[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      M[3 * i + j] = S[SYM[i][0]] * E[j] + S[SYM[i][1]] * E[3 + j] + S[SYM[i][2]] * E[6 + j];
  for (int i = 0; i < 3; i++)
    for (int j = i; j < 3; j++)
      R[SYM[i][j]] = E[i] * M[j] + E[3 + i] * M[3 + j] + E[6 + i] * M[6 + j];
}

/* λX*_i I iXλ of a 10-number inertia I (m, h, Ī) given in frame i, X = iXλ:
 * y = Eᵀ h, R = Eᵀ Ī E;  h' = y + m r,  Ī'_ii = R_ii + Σ_{l≠i} (m r_l² + 2 r_l y_l),
 * Ī'_ij = R_ij − m r_i r_j − (r_i y_j + y_i r_j). */
static void inertia_to_parent(const mbg_xform *X, const double I[10], double out[10]) {
  double m = I[0], y[3], R[6];
  const double *r = X->r;
  rotT(X->E, I + 1, y);
  sym_congruence(X->E, I + 4, R);
  out[0] = m;
  for (int i = 0; i < 3; i++) out[1 + i] = y[i] + m * r[i];
  for (int i = 0; i < 3; i++) {
    double d = R[i];
    for (int l = 0; l < 3; l++)
      if (l != i) d = d + m * (r[l] * r[l]) + (2.0 * r[l]) * y[l];
    out[4 + i] = d;
  }
  for (int i = 0; i < 2; i++)
    for (int j = i + 1; j < 3; j++)
      out[4 + SYM[i][j]] = R[SYM[i][j]] - m * (r[i] * r[j]) - (r[i] * y[j] + y[i] * r[j]);
}

/* ---------------------------------------------------------------- the placement of one pair */

/* (c, s) of the rotation about e_k taking the unit vector x (⊥ e_k) to e_j, j a next axis of k. */
static void towards(int k, int j, const double x[3], double *c, double *s) {
  int k1, k2;
  next_axes(k, &k1, &k2);
  if (j == k1)
    *c = x[k1], *s = x[k2];
  else
    *c = x[k2], *s = -x[k1];
}

/* The unit common normal n of the axes e_p (body, at its origin) and u (child, through r), from
 * the body's axis to the child's; tp, tc the feet on the two axes (parallel axes: the normal
 * through the child's origin, tc = 0). */
static void common_normal(int p, const double u[3], const double r[3], double n[3], double *tp,
                          double *tc) {
  double ep[3] = {0.0, 0.0, 0.0};
  ep[p] = 1.0;
  cross3(ep, u, n);
  double nn = sqrt(dot3(n, n));
  if (nn > 1e-6) {
    double bb = u[p], d1 = r[p], d2 = dot3(r, u);
    *tp = (d1 - bb * d2) / (1.0 - bb * bb), *tc = (bb * d1 - d2) / (1.0 - bb * bb);
  } else {
    memcpy(n, r, 3 * sizeof *n);
    n[p] = 0.0;
    nn = sqrt(dot3(n, n));
    if (nn < 1e-12) n[0] = n[1] = n[2] = 0.0, n[(p + 1) % 3] = 1.0, nn = 1.0;
    *tp = r[p], *tc = 0.0;
  }
  double inv = 1.0 / nn;
  for (int l = 0; l < 3; l++) n[l] = n[l] * inv;
}

/* Body b (axis p) placed for its principal child c (axis kc, aligned XT0): the screws Y of b and
 * D of c such that D XT0 Y⁻¹ is a screw about e_j (j = the first next axis of p that is not kc),
 * written into c->XT. Returns 0 when that transform is not sparse to rounding. */
static int place_pair(int p, int kc, const mbg_xform *XT0, screw *Y, screw *D, mbg_dh_body *c) {
  const double *E = XT0->E, *r = XT0->r;
  int p1, p2, j1, j2;
  next_axes(p, &p1, &p2);
  double u[3] = {E[3 * kc], E[3 * kc + 1], E[3 * kc + 2]}, n[3], tp, tc, En[3];
  common_normal(p, u, r, n, &tp, &tc);
  int j = kc != p1 ? p1 : p2;
  double scale = 1.0 + fabs(tp) + fabs(tc) + sqrt(dot3(r, r));
  Y->t = snap(tp, 1e-15 * scale), D->t = snap(tc, 1e-15 * scale);
  towards(p, j, n, &Y->c, &Y->s);
  rot(E, n, En);
  towards(kc, j, En, &D->c, &D->s);
  Y->c = snap(Y->c, 1e-15), Y->s = snap(Y->s, 1e-15);
  D->c = snap(D->c, 1e-15), D->s = snap(D->s, 1e-15);
  mbg_xform Yi, Xd, X;
  screw_inverse(p, *Y, &Yi);
  compose(XT0, &Yi, &X);
  screw_xform(kc, *D, &Xd);
  compose(&Xd, &X, &X);
  for (int l = 0; l < 3; l++)
    if (l != j && (fabs(X.E[3 * j + l]) > 1e-14 || fabs(X.E[3 * l + j]) > 1e-14 ||
                   fabs(X.r[l]) > 1e-14 * scale))
      return 0;
  next_axes(j, &j1, &j2);
  planar(j, snap(X.E[3 * j1 + j1], 1e-15), snap(X.E[3 * j1 + j2], 1e-15), c->XT.E);
  c->XT.r[0] = c->XT.r[1] = c->XT.r[2] = 0.0;
  c->XT.r[j] = snap(X.r[j], 1e-15 * scale);
  tag_planar(c);
  return 1;
}

/* ---------------------------------------------------------------- the tree */

/* A joint of one dof about or along its axis: its frame can be turned about and slid along it. */
static int one_dof(mbg_joint_type t) {
  return mbg_joint_type_has_axis(t) && mbg_joint_type_nv(t) == 1;
}

/* XT0 and I0 of body i: the aligned ones, snapped. */
static void init_body(const mbg_aligned_body *a, dh_work *w) {
  w->XT0 = a->XT;
  for (int k = 0; k < 9; k++) w->XT0.E[k] = snap(w->XT0.E[k], 1e-15);
  double *I = w->I0, big = 0.0;
  I[0] = a->I.m;
  memcpy(I + 1, a->I.h, sizeof a->I.h);
  memcpy(I + 4, a->I.I, sizeof a->I.I);
  for (int k = 0; k < 10; k++) big = fmax(big, fabs(I[k]));
  for (int k = 1; k < 10; k++)
    if (fabs(I[k]) < 1e-15 * big) I[k] = 0.0;
  w->Y = w->D = IDENTITY;
  w->turned = w->has_xt = 0;
  w->foot = 0.0;
}

/* The principal child of a 1-dof body i: its 1-dof child of largest subtree (the first on ties),
 * or 0. */
static int principal_child(const mbg_topology *t, int i) {
  int best = 0, size = 0;
  if (!one_dof(t->body[i].type)) return 0;
  for (int c = t->body[i].first_child; c; c = t->body[c].next_sibling) {
    int sc = t->body[c].subtree_end - c;
    if (one_dof(t->body[c].type) && (!best || sc > size)) best = c, size = sc;
  }
  return best;
}

/* DH pairs: every 1-dof body with its principal child, unless the child's XT0 is already that
 * sparse (at most 6 nonzeros). */
static void place_pairs(const mbg_topology *t, const mbg_aligned *a, dh_work *w, mbg_dh *out) {
  for (int i = 1; i <= t->nb; i++) {
    int c = principal_child(t, i);
    if (!c || nonzeros(&w[c].XT0) <= 6) continue;
    screw Y, D;
    if (!place_pair(a->body[i].axis, a->body[c].axis, &w[c].XT0, &Y, &D, &out->body[c])) continue;
    w[i].Y = Y, w[i].turned = 1;
    w[c].D = D, w[c].has_xt = 1, w[c].foot = Y.t;
  }
}

/* The working frame: turned as Y (as D without a principal child), at the origin of D (the foot
 * of the parent's normal), so only the turn Y D⁻¹ is left to fold into the joint; a principal
 * child's XT takes the shift between the two feet on this axis. */
static void settle_frames(const mbg_topology *t, const mbg_aligned *a, dh_work *w, mbg_dh *out) {
  for (int i = 1; i <= t->nb; i++) {
    screw turn = w[i].turned ? w[i].Y : w[i].D;
    w[i].Y = (screw){turn.c, turn.s, w[i].D.t};
  }
  for (int i = 1; i <= t->nb; i++) {
    int p = t->body[i].parent;
    if (w[i].has_xt && w[i].foot != w[p].Y.t)
      out->body[i].XT.r[a->body[p].axis] = w[i].foot - w[p].Y.t;
  }
}

/* XT = XT0 Y_λ⁻¹ off the DH pairs; θ0 = ∠(Y D⁻¹); I and Yo through Y. */
static void finish_body(const mbg_topology *t, const mbg_aligned *a, dh_work *w, int i,
                        mbg_dh_body *b) {
  int p = t->body[i].parent, k = a->body[i].axis;
  if (!w[i].has_xt) {
    b->XT = w[i].XT0;
    if (p > 0 && !is_identity(w[p].Y)) {
      mbg_xform Yi;
      screw_inverse(a->body[p].axis, w[p].Y, &Yi);
      compose(&w[i].XT0, &Yi, &b->XT);
      for (int x = 0; x < 9; x++) b->XT.E[x] = snap(b->XT.E[x], 1e-15);
    }
    tag_planar(b);
  }
  screw Y = w[i].Y, D = w[i].D;
  b->cos_theta = snap(Y.c * D.c + Y.s * D.s, 1e-15);
  b->sin_theta = snap(Y.s * D.c - Y.c * D.s, 1e-15);
  b->theta = atan2(b->sin_theta, b->cos_theta);
  if (b->theta == 0.0) b->cos_theta = 1.0;
  b->placed = !is_identity(Y);
  mbg_xform Yx = {{1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0}, {0.0, 0.0, 0.0}}, R;
  double I[10];
  memcpy(I, w[i].I0, sizeof I);
  if (b->placed) {
    mbg_xform Yinv;
    screw_xform(k, Y, &Yx);
    inverse(&Yx, &Yinv);
    inertia_to_parent(&Yinv, w[i].I0, I);
  }
  b->I.m = I[0];
  memcpy(b->I.h, I + 1, sizeof b->I.h);
  memcpy(b->I.I, I + 4, sizeof b->I.I);
  memcpy(R.E, a->body[i].R, sizeof R.E);
  R.r[0] = R.r[1] = R.r[2] = 0.0;
  compose(&Yx, &R, &b->Yo);
}

static void set_world(mbg_dh_body *b, const mbg_aligned_body *a) {
  memset(b, 0, sizeof *b);
  b->XT = a->XT;
  b->I = a->I;
  b->planar = -1, b->c = 1.0, b->cos_theta = 1.0;
  for (int k = 0; k < 9; k++) b->Yo.E[k] = k % 4 == 0 ? 1.0 : 0.0;
}

int mbg_dh_place(const mbg_topology *t, const mbg_aligned *a, mbg_dh *out) {
  out->nb = 0;
  out->body = calloc((size_t)t->nb + 1, sizeof *out->body);
  dh_work *w = calloc((size_t)t->nb + 1, sizeof *w);
  if (!out->body || !w) return free(w), mbg_dh_free(out), -1;
  out->nb = t->nb;
  set_world(&out->body[0], &a->body[0]);
  w[0].Y = w[0].D = IDENTITY;
  for (int i = 1; i <= t->nb; i++) init_body(&a->body[i], &w[i]);
  place_pairs(t, a, w, out);
  settle_frames(t, a, w, out);
  for (int i = 1; i <= t->nb; i++) finish_body(t, a, w, i, &out->body[i]);
  free(w);
  return 0;
}

void mbg_dh_free(mbg_dh *d) {
  free(d->body);
  d->body = NULL;
  d->nb = 0;
}
