/* mujoco_robots.h — the generated functions of the example robots, for test_mujoco.c (a table
 * written by tests/mujoco.cmake). */
#ifndef MBT_MUJOCO_ROBOTS_H
#define MBT_MUJOCO_ROBOTS_H

typedef struct mbt_robot {
  const char *stem;  /* examples/urdf/<stem>.urdf */
  int floating_base; /* generated with --floating-base */
  int nq, nv, nj, nb;
  const char *const *joint_names; /* the moving joints, in coordinate order */
  const int *joint_iq, *joint_iv;
  void (*rnea)(const double *q, const double *v, const double *a, double *tau);
  void (*crba)(const double *q, double *M);
  int (*aba)(const double *q, const double *v, const double *tau, double *qdd);
  int nf; /* the operational frames */
  const char *const *frame_names, *const *body_names;
  void (*frame_pose)(const double *q, double *pose);
  void (*frame_jacobian_world)(const double *q, double *J);
  void (*com)(const double *q, double *c);
} mbt_robot;

extern const mbt_robot mbt_robots[];
extern const int mbt_nrobots;

#endif
