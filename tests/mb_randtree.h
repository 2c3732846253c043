/* mb_randtree.h — seeded random models and states for the runtime tests (like spatial_v2's
 * autoTree), and a small builder for hand-made models. */
#ifndef MB_RANDTREE_H
#define MB_RANDTREE_H

#include <stdint.h>

#include "mb.h"

#define MBT_PI 3.14159265358979323846

/* splitmix64: a deterministic generator, the same sequence on every platform. */
typedef struct mbt_rng {
  uint64_t s;
} mbt_rng;

void mbt_rng_seed(mbt_rng *g, uint64_t seed);
double mbt_uniform(mbt_rng *g, double lo, double hi);
int mbt_randint(mbt_rng *g, int lo, int hi); /* uniform in [lo, hi] */
void mbt_unit3(mbt_rng *g, double a[3]);     /* uniform on the unit sphere */
void mbt_rand_quat(mbt_rng *g, double q[4]); /* uniform unit quaternion */
void mbt_rand_rot(mbt_rng *g, double E[9]);  /* uniform proper rotation */
void mbt_rand_vec(mbt_rng *g, int n, double lo, double hi, double *x);

/* A model that owns its arrays; tree->model points at them. */
typedef struct mbt_tree {
  mb_model model;
  int *parent, *iq, *iv;
  mb_joint_type *jtype;
  double *XT_E, *XT_r, *axis, *pitch, *inertia;
  double *axis2; /* model.axis2: a universal joint's second axis (mbt_tree_axis2) */
} mbt_tree;

/* nb bodies, each a massless fixed joint to the world at the identity; gravity (0, 0, -9.81). */
mbt_tree *mbt_tree_new(int nb);
void mbt_tree_free(mbt_tree *t);
/* Joint i: parent, type, axis (normalized here; NULL for none), XT = (E or NULL for 1, r). */
void mbt_tree_joint(mbt_tree *t, int i, int parent, mb_joint_type type, const double axis[3],
                    const double E[9], const double r[3]);
/* Joint i's second axis (a universal joint's), normalized after its part along the first axis
 * is removed. */
void mbt_tree_axis2(mbt_tree *t, int i, const double axis2[3]);
/* Body i: mass, COM in the body frame, rotational inertia about the COM
 * [ixx iyy izz ixy ixz iyz]. */
void mbt_tree_body(mbt_tree *t, int i, double mass, const double com[3], const double Ic[6]);
/* Number the coordinates: iq, iv, nq, nv. Call after the last mbt_tree_joint. */
void mbt_tree_finish(mbt_tree *t);

/* The cart-pole of test_aba.c and test_hybrid.c: body 1 a cart of mass mc (COM inertia 0.1 1)
 * on a prismatic joint along x, body 2 a pole of mass mp on a revolute joint about y at the cart,
 * its COM at height l above the hinge at θ = 0, COM inertia diag(J, J, 0.001). */
mbt_tree *mbt_cart_pole(double mc, double mp, double l, double J);

/* A random tree of nb bodies: every joint type (the first bodies cycle through them), arbitrary
 * unit axes, random XT, random physically consistent inertias, branching. With floating_base,
 * body 1 is a floating joint to the world and every other body descends from it. */
mbt_tree *mbt_randtree(uint64_t seed, int nb, int floating_base);
/* The same with universal joints drawn too (the ninth cycled body, then uniform over the nine
 * types): models whose S varies with q (tests/test_universal.c). */
mbt_tree *mbt_randtree_universal(uint64_t seed, int nb, int floating_base);

/* A workspace for m in a fresh buffer (free it with free()); ws is laid out in it. */
double *mbt_workspace_new(const mb_model *m, mb_workspace *ws);

/* The tree sizes the identity tests sweep, each with seeds 1..MBT_NSEEDS (odd seeds with a
 * floating base). */
enum { MBT_NSIZES = 5, MBT_NSEEDS = 8 };
extern const int mbt_sizes[MBT_NSIZES];

/* The body of the statement after it runs once per size and seed, between setup(&f, seed, size,
 * floating) and teardown(&f) (floating: odd seeds), for tests with a fixture f of their own. */
#define MBT_FOR_TREES(setup, teardown, f)                                                      \
  for (int s_ = 0; s_ < MBT_NSIZES; s_++)                                                     \
    for (uint64_t seed_ = 1; seed_ <= MBT_NSEEDS; seed_++)                                    \
      for (int once_ = (setup(&(f), seed_, mbt_sizes[s_], (int)(seed_ % 2)), 1); once_;       \
           once_ = 0, teardown(&(f)))

/* A random configuration (unit quaternions) and a random vector of nv entries in [-1, 1]. */
void mbt_rand_q(mbt_rng *g, const mb_model *m, double *q);

#endif
