/* mujoco_model.h — preparing an example URDF for MuJoCo (test_mujoco.c). */
#ifndef MBT_MUJOCO_MODEL_H
#define MBT_MUJOCO_MODEL_H

#include <mujoco/mujoco.h>

/* Write to `out` the copy of URDF `in` that MuJoCo loads (see mujoco_model.c). 0 or -1. */
int mujoco_prepare_urdf(const char *in, const char *out, int floating_base);

/* Set the mass, centre of mass and inertia of every body of m from the <inertial> of the link of
 * the same name in `urdf`, diagonalized here to rounding (cyclic Jacobi): of every link when `all`,
 * else of the links whose inertia breaks the triangle inequality (those MuJoCo's compiler had to
 * balance). *changed counts the bodies set; *dev is the largest relative difference between the
 * URDF's inertia tensor and MuJoCo's (compiled) one among the bodies left as they were. Returns 0,
 * or -1 when a link has no body. */
int mujoco_set_inertias(mjModel *m, const char *urdf, int all, int *changed, double *dev);

/* The generated functions of one example robot (a table written by tests/mujoco.cmake). */
typedef struct mbt_robot {
  const char *stem;  /* examples/urdf/<stem>.urdf */
  int floating_base; /* generated with --floating-base */
  int nq, nv, nj;
  const char *const *joint_names; /* the moving joints, in coordinate order */
  const int *joint_iq, *joint_iv;
  void (*rnea)(const double *q, const double *v, const double *a, double *tau);
  void (*crba)(const double *q, double *M);
  int (*aba)(const double *q, const double *v, const double *tau, double *qdd);
} mbt_robot;

extern const mbt_robot mbt_robots[];
extern const int mbt_nrobots;

#endif
