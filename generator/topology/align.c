/* align.c — joint-frame alignment (align.h): the rotation R_i of every joint frame, then the tree
 * transforms and inertias re-expressed in the rotated frames.
 *
 * Rotations are applied through `rot`, which recognizes signed permutations (every row one
 * entry ±1, the others exactly 0) and applies them by reordering and negating, so the identity
 * and the π rotations change no bit of what they move and never add 0·x terms. */
#include "topology/align.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A rotation matrix and, when it is a signed permutation, (R x)_i = sgn_i x_idx_i. */
typedef struct rot {
  const double *R;
  int perm;
  int idx[3];
  double sgn[3];
} rot;

static void set_identity(double R[9]) {
  for (int j = 0; j < 9; j++) R[j] = j % 4 == 0 ? 1.0 : 0.0;
}

int mbg_align_axis(const double a[3], double R[9]) { return mbs_axis_rotation(a, R); }

/* Recognize a signed permutation: each row a single ±1, distinct columns, every other entry 0. */
static void rot_init(rot *q, const double R[9]) {
  int used = 0;
  q->R = R;
  q->perm = 1;
  for (int i = 0; i < 3 && q->perm; i++) {
    int nz = 0;
    q->idx[i] = 0;
    q->sgn[i] = 0.0;
    for (int j = 0; j < 3; j++) {
      double x = R[3 * i + j];
      if (x == 0.0) continue;
      nz++;
      q->idx[i] = j;
      q->sgn[i] = x;
    }
    if (nz != 1 || fabs(q->sgn[i]) != 1.0 || (used & (1 << q->idx[i]))) q->perm = 0;
    else used |= 1 << q->idx[i];
  }
}

/* out = R x: sgn_i x_idx_i for a signed permutation (exact), else the plain row sums. */
static void rot_apply(const rot *q, const double x[3], double out[3]) {
  for (int i = 0; i < 3; i++) {
    if (q->perm) out[i] = q->sgn[i] * x[q->idx[i]];
    else out[i] = q->R[3 * i] * x[0] + q->R[3 * i + 1] * x[1] + q->R[3 * i + 2] * x[2];
  }
}

/* out = A M Bᵀ: rows of T = M Bᵀ are B (rows of M), columns of out are A (columns of T). */
static void rot_sandwich(const rot *A, const double M[9], const rot *B, double out[9]) {
  double T[9];
  for (int r = 0; r < 3; r++) rot_apply(B, M + 3 * r, T + 3 * r);
  for (int c = 0; c < 3; c++) {
    double col[3] = {T[c], T[3 + c], T[6 + c]}, res[3];
    rot_apply(A, col, res);
    for (int r = 0; r < 3; r++) out[3 * r + c] = res[r];
  }
}

/* XT' : E' = R_i E R_λᵀ, r' = R_λ r. */
static void align_xform(const rot *Ri, const rot *Rl, const mbg_xform *X, mbg_xform *out) {
  rot_sandwich(Ri, X->E, Rl, out->E);
  rot_apply(Rl, X->r, out->r);
}

/* I' : m' = m, h' = R h, Ī' = R Ī Rᵀ (packed from the upper triangle). */
static void align_inertia(const rot *Ri, const mbg_inertia *I, mbg_inertia *out) {
  const double *s = I->I;
  double F[9] = {s[0], s[3], s[4], s[3], s[1], s[5], s[4], s[5], s[2]}, G[9];
  out->m = I->m;
  rot_apply(Ri, I->h, out->h);
  rot_sandwich(Ri, F, Ri, G);
  double packed[6] = {G[0], G[4], G[8], G[1], G[2], G[5]};
  memcpy(out->I, packed, sizeof packed);
}

/* A universal joint's R: its axis to e_k as any axis, then the turn about e_k that takes its
 * second axis (R a2 ⟂ e_k, unit) to e_{k+1}: rows k+1, k+2 become c r_{k+1} + s r_{k+2} and
 * c r_{k+2} − s r_{k+1}, (c, s) = R a2's components k+1, k+2 (exact ±1, 0 for a coordinate
 * axis, so R stays a signed permutation when both axes are coordinate axes). */
static int align_universal(const double a[3], const double a2[3], double R[9]) {
  int k = mbg_align_axis(a, R), k1 = (k + 1) % 3, k2 = (k + 2) % 3;
  double b[3], T[9];
  for (int l = 0; l < 3; l++) b[l] = R[3 * l] * a2[0] + R[3 * l + 1] * a2[1] + R[3 * l + 2] * a2[2];
  double n = hypot(b[k1], b[k2]), c = b[k1] / n, s = b[k2] / n;
  if (fabs(b[k1]) == 1.0 || fabs(b[k2]) == 1.0) c = b[k1], s = b[k2];
  memcpy(T, R, sizeof T);
  for (int l = 0; l < 3; l++) {
    R[3 * k1 + l] = c * T[3 * k1 + l] + s * T[3 * k2 + l];
    R[3 * k2 + l] = c * T[3 * k2 + l] - s * T[3 * k1 + l];
  }
  return k;
}

/* Body i: R_i and axis from its joint, then XT and I through R_i and R_λ (already done). */
static void align_body(const mbg_topology *t, mbg_aligned *out, int i) {
  const mbg_tree_body *b = &t->body[i];
  mbg_aligned_body *ab = &out->body[i];
  if (b->type == MBG_JOINT_UNIVERSAL) ab->axis = align_universal(b->axis, b->axis2, ab->R);
  else if (mbg_joint_type_has_axis(b->type)) ab->axis = mbg_align_axis(b->axis, ab->R);
  else ab->axis = -1, set_identity(ab->R);
  ab->rotated = 0;
  for (int j = 0; j < 9; j++)
    if (ab->R[j] != (j % 4 == 0 ? 1.0 : 0.0)) ab->rotated = 1;
  rot Ri, Rl;
  rot_init(&Ri, ab->R);
  rot_init(&Rl, out->body[b->parent].R);
  align_xform(&Ri, &Rl, &b->XT, &ab->XT);
  align_inertia(&Ri, &b->I, &ab->I);
}

int mbg_align(const mbg_topology *t, mbg_aligned *out) {
  out->nb = 0;
  out->body = calloc((size_t)t->nb + 1, sizeof *out->body);
  if (!out->body) return -1;
  out->nb = t->nb;
  mbg_aligned_body *w = &out->body[0];
  w->XT = t->body[0].XT;
  w->I = t->body[0].I;
  w->axis = -1;
  set_identity(w->R);
  for (int i = 1; i <= t->nb; i++) align_body(t, out, i);
  return 0;
}

void mbg_aligned_free(mbg_aligned *a) {
  free(a->body);
  a->body = NULL;
  a->nb = 0;
}
