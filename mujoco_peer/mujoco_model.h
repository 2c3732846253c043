/* mujoco_model.h — MuJoCo 2.2.2 (Debian's libmujoco-dev) as the independent reference for mbdc's
 * robots, shared by the cross-check (tests/test_mujoco.c) and the benchmarks (bench/): the copy of
 * a URDF MuJoCo reads as the same rigid-body system, the inertias set exactly, and the map between
 * mbdc's coordinates and MuJoCo's (docs/urdf.md, "The mapping"). */
#ifndef MBDC_MUJOCO_MODEL_H
#define MBDC_MUJOCO_MODEL_H

#include <stddef.h>

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

/* ---------------------------------------------------------------------------------------------
 * Coordinates. Joints are matched by name. Every joint but a floating one maps one to one
 * (MuJoCo's hinge and slide); a floating joint is MuJoCo's free joint, which has qpos
 * [x y z, qw qx qy qz] (the body's pose in the world) and qvel [linear velocity of the body origin
 * in world coordinates; angular velocity in body coordinates], where mbdc has q [x y z, qx qy qz
 * qw] and v [linear; angular], both in body coordinates. With R the base's orientation (body to
 * world) and T = diag(R, 1, ..., 1) (MuJoCo dof x mbdc dof, orthogonal): qvel = T v,  qacc = T a +
 * Ṫ v (Ṫ v = [R (ω × v_lin); 0]),  qfrc = T tau (both directions: forces map as Tᵀ, and T⁻ᵀ = T),
 * M = Tᵀ M_mj T, M⁻¹ = Tᵀ M_mj⁻¹ T. R is the caller's: mujoco_map_base_R when the floating joint
 * hangs from the world with an identity origin (URDF --floating-base, `root_joint`), else the base
 * body's world rotation. */
typedef struct mujoco_map {
  int nq, nv, nj;
  int free_joint;   /* our index of the floating joint, or -1 */
  int *iq, *iv;     /* [nj]: our first coordinate and dof of each joint */
  int *qadr, *vadr; /* [nj]: MuJoCo's first qpos and dof of the same joint */
  int *dof_joint;   /* [nv]: our joint of each of our dofs */
} mujoco_map;

/* Match the nj moving joints of an mbdc robot (names, first coordinate iq and dof iv, in
 * coordinate order, as <p>_joint_names, <p>_joint_iq, <p>_joint_iv) with m's. Returns 0, or -1
 * with the reason in msg (nq or nv differ, a joint is missing, or its type differs). */
int mujoco_map_joints(const mjModel *m, int nq, int nv, int nj, const char *const *names,
                      const int *iq, const int *iv, mujoco_map *map, char *msg, size_t msgsize);
void mujoco_map_free(mujoco_map *map);

/* R (row-major, body to world) of the floating joint's quaternion in q (identity without one). */
void mujoco_map_base_R(const mujoco_map *map, const double *q, double R[9]);
/* qpos of q; base (R then p, 12 numbers) is the floating base's world pose, or NULL when it is the
 * joint's own (identity origin from the world). */
void mujoco_map_qpos(const mujoco_map *map, const double *q, const double *base, double *qpos);
/* qvel = T v; also qfrc = T tau. */
void mujoco_map_vel(const mujoco_map *map, const double R[9], const double *v, double *qvel);
/* qacc = T a + Ṫ v. */
void mujoco_map_acc(const mujoco_map *map, const double R[9], const double *v, const double *a,
                    double *qacc);
/* Back to ours: tau = Tᵀ qfrc (also v = Tᵀ qvel). */
void mujoco_unmap_force(const mujoco_map *map, const double R[9], const double *qfrc, double *tau);
/* a = Tᵀ (qacc − Ṫ v). */
void mujoco_unmap_acc(const mujoco_map *map, const double R[9], const double *v, const double *qacc,
                      double *a);
/* Tᵀ X T of an nv x nv row-major matrix X (M or M⁻¹); out may not alias X. */
void mujoco_unmap_matrix(const mujoco_map *map, const double R[9], const double *X, double *out);

#endif
