/* mbg_randmodel.c — seeded random generator models (mbg_randmodel.h). */
#include "mbg_randmodel.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "mbg_testmodel.h"

static double urand(mbt_rng *g, double lo, double hi) { return mbt_uniform(g, lo, hi); }
static int irand(mbt_rng *g, int n) { return mbt_randint(g, 0, n - 1); }

/* A random unit axis: a signed coordinate axis half of the time, else generic. */
static void random_axis(mbt_rng *g, double a[3]) {
  if (irand(g, 2)) {
    a[0] = a[1] = a[2] = 0.0;
    a[irand(g, 3)] = irand(g, 2) ? 1.0 : -1.0;
    return;
  }
  double n = 0;
  for (int k = 0; k < 3; k++) a[k] = urand(g, -1, 1), n += a[k] * a[k];
  for (int k = 0; k < 3; k++) a[k] /= sqrt(n);
}

/* The parent of body k for a shape (mbg_randmodel.h). */
static int random_parent(mbt_rng *g, int k, int shape) {
  switch (shape) {
  case MBGT_SHAPE_CHAIN: return k - 1;
  case MBGT_SHAPE_BUSHY: return irand(g, k < 3 ? k : 3);
  case MBGT_SHAPE_DEEP: return k < 2 ? 0 : k - 1 - irand(g, 2);
  default: return irand(g, k);
  }
}

/* n bodies of the given shape, the first ntypes joint types below. */
static mbg_model *random_model(mbt_rng *g, int n, int shape, int floating_root, int ntypes) {
  static const mbg_joint_type types[] = {MBG_JOINT_REVOLUTE, MBG_JOINT_CONTINUOUS,
                                         MBG_JOINT_PRISMATIC, MBG_JOINT_HELICAL,
                                         MBG_JOINT_SPHERICAL, MBG_JOINT_FIXED,
                                         MBG_JOINT_PLANAR,   MBG_JOINT_CYLINDRICAL};
  mbg_model *m = mbg_model_new("random", "");
  assert_non_null(m);
  for (int k = 1; k <= n; k++) {
    char name[16];
    snprintf(name, sizeof name, "b%d", k);
    int b = mbgt_body(m, name, 1);
    mbg_body *B = &m->bodies[b];
    B->mass = urand(g, 0.2, 3);
    for (int c = 0; c < 3; c++)
      B->com[c] = urand(g, -0.3, 0.3), B->inertia[c] = urand(g, 0.05, 0.5);
    for (int c = 3; c < 6; c++) B->inertia[c] = urand(g, -0.01, 0.01);
    snprintf(name, sizeof name, "j%d", k);
    int parent = random_parent(g, k, shape);
    mbg_joint_type t = (k == 1 && floating_root) ? MBG_JOINT_FLOATING : types[irand(g, ntypes)];
    if (k == n && t == MBG_JOINT_FIXED) t = MBG_JOINT_REVOLUTE; /* at least one moving joint */
    int j = mbgt_joint(m, name, t, parent, b);
    mbg_joint *J = &m->joints[j];
    for (int c = 0; c < 3; c++) J->xyz[c] = urand(g, -0.5, 0.5), J->rpy[c] = urand(g, -3, 3);
    random_axis(g, J->axis);
    J->pitch = urand(g, -0.1, 0.1);
    J->node = -1;
  }
  return m;
}

/* The joint types before planar and cylindrical ones existed: the models every seed drew then
 * (tests tuned on them keep them). */
mbg_model *mbgt_random_model(mbt_rng *g, int n, int shape, int floating_root) {
  return random_model(g, n, shape, floating_root, 6);
}

mbg_model *mbgt_random_model_all(mbt_rng *g, int n, int shape, int floating_root) {
  return random_model(g, n, shape, floating_root, 8);
}
