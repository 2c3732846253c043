/* mb_randtree.c — seeded random models for the runtime tests. */
#include "mb_randtree.h"

#include <math.h>
#include <stdlib.h>

void mbt_rng_seed(mbt_rng *g, uint64_t seed) { g->s = seed * 0x9E3779B97F4A7C15ull + 1; }

static uint64_t next(mbt_rng *g) {
  uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double mbt_uniform(mbt_rng *g, double lo, double hi) {
  return lo + (hi - lo) * ((double)(next(g) >> 11) * 0x1.0p-53);
}

int mbt_randint(mbt_rng *g, int lo, int hi) {
  return lo + (int)(next(g) % (uint64_t)(hi - lo + 1));
}

void mbt_rand_vec(mbt_rng *g, int n, double lo, double hi, double *x) {
  for (int k = 0; k < n; k++) x[k] = mbt_uniform(g, lo, hi);
}

/* A uniform point in the unit ball of dimension n (n ≤ 4), away from 0, normalized. */
static void unit_n(mbt_rng *g, int n, double *x) {
  double s;
  do {
    s = 0.0;
    for (int k = 0; k < n; k++) x[k] = mbt_uniform(g, -1.0, 1.0), s += x[k] * x[k];
  } while (s > 1.0 || s < 1e-4);
  s = sqrt(s);
  for (int k = 0; k < n; k++) x[k] /= s;
}

void mbt_unit3(mbt_rng *g, double a[3]) { unit_n(g, 3, a); }
void mbt_rand_quat(mbt_rng *g, double q[4]) { unit_n(g, 4, q); }

void mbt_rand_rot(mbt_rng *g, double E[9]) {
  double q[4];
  mbt_rand_quat(g, q);
  mbs_quat_to_rot(q, E);
}

mbt_tree *mbt_tree_new(int nb) {
  mbt_tree *t = calloc(1, sizeof *t);
  size_t n = (size_t)nb + 1;
  t->parent = calloc(n, sizeof(int));
  t->iq = calloc(n, sizeof(int));
  t->iv = calloc(n, sizeof(int));
  t->jtype = calloc(n, sizeof(mb_joint_type));
  t->XT_E = calloc(9 * n, sizeof(double));
  t->XT_r = calloc(3 * n, sizeof(double));
  t->axis = calloc(3 * n, sizeof(double));
  t->pitch = calloc(n, sizeof(double));
  t->inertia = calloc(10 * n, sizeof(double));
  t->axis2 = calloc(3 * n, sizeof(double));
  t->parent[0] = -1;
  for (size_t i = 0; i < n; i++) t->XT_E[9 * i] = t->XT_E[9 * i + 4] = t->XT_E[9 * i + 8] = 1.0;
  mb_model *m = &t->model;
  m->nb = nb;
#define MBT_POINT(type, name, per_body) m->name = t->name;
  MB_MODEL_ARRAYS(MBT_POINT)
#undef MBT_POINT
  m->axis2 = t->axis2;
  m->gravity[2] = -9.81;
  return t;
}

void mbt_tree_free(mbt_tree *t) {
  if (!t) return;
#define MBT_FREE(type, name, per_body) free(t->name);
  MB_MODEL_ARRAYS(MBT_FREE)
#undef MBT_FREE
  free(t->axis2);
  free(t);
}

void mbt_tree_joint(mbt_tree *t, int i, int parent, mb_joint_type type, const double axis[3],
                    const double E[9], const double r[3]) {
  t->parent[i] = parent;
  t->jtype[i] = type;
  if (axis) {
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (int k = 0; k < 3; k++) t->axis[3 * i + k] = axis[k] / n;
  }
  for (int k = 0; k < 9 && E; k++) t->XT_E[9 * i + k] = E[k];
  for (int k = 0; k < 3 && r; k++) t->XT_r[3 * i + k] = r[k];
}

void mbt_tree_axis2(mbt_tree *t, int i, const double axis2[3]) {
  const double *a = t->axis + 3 * i;
  double *b = t->axis2 + 3 * i, d = a[0] * axis2[0] + a[1] * axis2[1] + a[2] * axis2[2], n;
  for (int k = 0; k < 3; k++) b[k] = axis2[k] - d * a[k];
  n = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
  for (int k = 0; k < 3; k++) b[k] /= n;
}

void mbt_tree_body(mbt_tree *t, int i, double mass, const double com[3], const double Ic[6]) {
  double *I = t->inertia + 10 * i, cc = com[0] * com[0] + com[1] * com[1] + com[2] * com[2];
  static const int row[6] = {0, 1, 2, 0, 0, 1}, col[6] = {0, 1, 2, 1, 2, 2};
  /* I = [Ic + m c× c×ᵀ, m c×; m c×ᵀ, m 1], c× c×ᵀ = |c|² 1 − c cᵀ */
  I[0] = mass;
  for (int k = 0; k < 3; k++) I[1 + k] = mass * com[k];
  for (int k = 0; k < 6; k++)
    I[4 + k] = Ic[k] + mass * ((row[k] == col[k] ? cc : 0.0) - com[row[k]] * com[col[k]]);
}

void mbt_tree_finish(mbt_tree *t) {
  int nq = 0, nv = 0;
  for (int i = 1; i <= t->model.nb; i++) {
    t->iq[i] = nq, t->iv[i] = nv;
    nq += mb_joint_nq(t->jtype[i]), nv += mb_joint_nv(t->jtype[i]);
  }
  t->model.nq = nq, t->model.nv = nv;
}

mbt_tree *mbt_cart_pole(double mc, double mp, double l, double J) {
  double x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, zero[3] = {0, 0, 0}, box[6] = {.1, .1, .1, 0, 0, 0};
  double com[3] = {0, 0, l}, Ic[6] = {J, J, 0.001, 0, 0, 0};
  mbt_tree *t = mbt_tree_new(2);
  mbt_tree_joint(t, 1, 0, MB_JOINT_PRISMATIC, x, NULL, NULL);
  mbt_tree_joint(t, 2, 1, MB_JOINT_REVOLUTE, y, NULL, NULL);
  mbt_tree_body(t, 1, mc, zero, box);
  mbt_tree_body(t, 2, mp, com, Ic);
  mbt_tree_finish(t);
  return t;
}

/* Physically consistent random inertia: principal second moments σ_k > 0, principal moments
 * Ic_k = m(σ_i + σ_j) (triangle inequalities hold strictly), rotated by a random rotation. */
static void rand_body(mbt_rng *g, mbt_tree *t, int i) {
  double c[3], s[3], Q[9], Ic[6], mass = mbt_uniform(g, 0.5, 2.0);
  static const int row[6] = {0, 1, 2, 0, 0, 1}, col[6] = {0, 1, 2, 1, 2, 2};
  mbt_rand_vec(g, 3, -0.5, 0.5, c);
  mbt_rand_vec(g, 3, 0.01, 0.2, s);
  double d[3] = {mass * (s[1] + s[2]), mass * (s[0] + s[2]), mass * (s[0] + s[1])};
  mbt_rand_rot(g, Q);
  /* Ic = Q diag(d) Qᵀ */
  for (int k = 0; k < 6; k++) {
    Ic[k] = 0.0;
    for (int j = 0; j < 3; j++) Ic[k] += Q[3 * row[k] + j] * d[j] * Q[3 * col[k] + j];
  }
  mbt_tree_body(t, i, mass, c, Ic);
}

static mbt_tree *randtree(uint64_t seed, int nb, int floating_base, int ntypes) {
  /* the first ntypes in this order (trees of up to six cycled bodies are those before planar and
   * cylindrical joints were drawn), then uniform */
  static const mb_joint_type cycle[9] = {MB_JOINT_REVOLUTE,   MB_JOINT_PRISMATIC, MB_JOINT_HELICAL,
                                         MB_JOINT_SPHERICAL,  MB_JOINT_CONTINUOUS, MB_JOINT_FIXED,
                                         MB_JOINT_PLANAR,     MB_JOINT_CYLINDRICAL,
                                         MB_JOINT_UNIVERSAL};
  mbt_rng g;
  mbt_rng_seed(&g, seed);
  mbt_tree *t = mbt_tree_new(nb);
  for (int i = 1; i <= nb; i++) {
    int lo = floating_base ? 1 : 0, first = floating_base ? 2 : 1;
    double a[3], E[9], r[3];
    mb_joint_type type;
    if (floating_base && i == 1)
      type = MB_JOINT_FLOATING;
    else if (i - first < ntypes)
      type = cycle[i - first];
    else /* a free joint inside the tree now and then, the rest uniform over the others */
      type = (mbt_uniform(&g, 0, 1) < 0.05) ? MB_JOINT_FLOATING
                                            : cycle[mbt_randint(&g, 0, ntypes - 1)];
    /* branching: the previous body with probability 0.6, else any earlier body */
    int p = (i == 1 || (floating_base && i == 2)) ? i - 1 : (mbt_uniform(&g, 0, 1) < 0.6)
                                                               ? i - 1
                                                               : mbt_randint(&g, lo, i - 1);
    mbt_unit3(&g, a);
    mbt_rand_rot(&g, E);
    mbt_rand_vec(&g, 3, -1.0, 1.0, r);
    mbt_tree_joint(t, i, p, type, a, E, r);
    t->pitch[i] = (type == MB_JOINT_HELICAL) ? mbt_uniform(&g, -0.5, 0.5) : 0.0;
    if (type == MB_JOINT_UNIVERSAL) {
      double b[3];
      mbt_unit3(&g, b);
      mbt_tree_axis2(t, i, b);
    }
    rand_body(&g, t, i);
  }
  mbt_tree_finish(t);
  return t;
}

mbt_tree *mbt_randtree(uint64_t seed, int nb, int floating_base) {
  return randtree(seed, nb, floating_base, 8);
}

mbt_tree *mbt_randtree_universal(uint64_t seed, int nb, int floating_base) {
  return randtree(seed, nb, floating_base, 9);
}

void mbt_rand_q(mbt_rng *g, const mb_model *m, double *q) {
  for (int i = 1; i <= m->nb; i++) {
    double *qi = q + m->iq[i];
    switch (m->jtype[i]) {
    case MB_JOINT_SPHERICAL:
      mbt_rand_quat(g, qi);
      break;
    case MB_JOINT_FLOATING:
      mbt_rand_vec(g, 3, -1.0, 1.0, qi);
      mbt_rand_quat(g, qi + 3);
      break;
    case MB_JOINT_PRISMATIC:
      qi[0] = mbt_uniform(g, -1.0, 1.0);
      break;
    case MB_JOINT_PLANAR: /* x, y, θ */
      mbt_rand_vec(g, 2, -1.0, 1.0, qi);
      qi[2] = mbt_uniform(g, -MBT_PI, MBT_PI);
      break;
    case MB_JOINT_CYLINDRICAL: /* θ, d */
      qi[0] = mbt_uniform(g, -MBT_PI, MBT_PI);
      qi[1] = mbt_uniform(g, -1.0, 1.0);
      break;
    case MB_JOINT_UNIVERSAL: /* θ1, θ2 */
      mbt_rand_vec(g, 2, -MBT_PI, MBT_PI, qi);
      break;
    case MB_JOINT_REVOLUTE:
    case MB_JOINT_CONTINUOUS:
    case MB_JOINT_HELICAL:
      qi[0] = mbt_uniform(g, -MBT_PI, MBT_PI);
      break;
    case MB_JOINT_FIXED:
    case MB_JOINT_TYPE_COUNT:
      break;
    }
  }
}

const int mbt_sizes[MBT_NSIZES] = {1, 2, 5, 12, 25};

double *mbt_workspace_new(const mb_model *m, mb_workspace *ws) {
  double *buf = malloc(mb_workspace_size(m));
  if (buf) mb_workspace_init(ws, m, buf);
  return buf;
}
