/* bench_peer.h — the peers the generated code is timed against, besides the runtime: MuJoCo, fed
 * the same robot from URDF (bench_mujoco.c), and the URDF text written from a model for it
 * (bench_urdf.c).
 *
 * MuJoCo's conventions differ from mbdc's (runtime/mb.h) only at a free joint: MuJoCo's qpos is
 * [x y z qw qx qy qz] (body pose in the world), its qvel is [linear velocity of the body origin in
 * world coordinates; angular velocity in body coordinates], its generalized force
 * [world force; body torque]. mbdc's floating joint uses body coordinates for both halves. The
 * conversions (mujoco_peer/mujoco_model.h, shared with tests/test_mujoco.c) are exact up to
 * rounding and are never timed. */
#ifndef BENCH_PEER_H
#define BENCH_PEER_H

#include <stddef.h>
#include <stdio.h>

#include "mb.h"

/* The names the generated code gives the model's joints and bodies, used to name URDF links and
 * joints and to match MuJoCo's, and where each joint's coordinates are (<p>_joint_names,
 * <p>_joint_iq, <p>_joint_iv, <p>_body_names). */
typedef struct bench_names {
  int nj;                   /* moving (non-fixed) joints */
  const char *const *joint; /* [nj], in coordinate order */
  const int *iq, *iv;       /* [nj]: first coordinate and dof */
  const char *const *body;  /* [nb + 1], body number order, the world first */
} bench_names;

/* Write the model as URDF: a link "world", one link per body (inertial about the COM), one joint
 * per body (continuous, prismatic, floating, fixed). Returns 0, or -1 with the reason in msg if the
 * model has a joint URDF cannot express (helical, spherical). */
int bench_urdf_from_model(const mb_model *m, const bench_names *names, FILE *out, char *msg,
                          size_t msgsize);

/* ---------------------------------------------------------------------------------------------
 * MuJoCo (NULL functions when built without it). */
typedef struct bench_mj bench_mj;

/* Load the robot into MuJoCo: from the URDF file urdf (with a floating joint `root_joint` to its
 * root link when floating_base, as mbdc's --floating-base), or, if urdf is NULL, from the URDF
 * written from the model; prepared as test_mujoco prepares it (mujoco_prepare_urdf), every body's
 * inertia set from the URDF to rounding (mujoco_set_inertias), armature, damping and stiffness
 * zeroed, the model's gravity; joints mapped by name. keep_urdf, if not NULL, receives the URDF
 * MuJoCo read. nstates slots hold converted states. Returns NULL with the reason in msg. */
bench_mj *bench_mj_open(const mb_model *m, const bench_names *names, const char *urdf,
                        int floating_base, const char *keep_urdf, int nstates, char *msg,
                        size_t msgsize);
void bench_mj_close(bench_mj *b);
const char *bench_mj_version(void);

/* Convert state slot s from mbdc's coordinates (q, v, a, tau as runtime/mb.h) to MuJoCo's. base
 * is the floating base body's world pose (rotation row-major, then position: mb_fk's), or NULL
 * when the robot has no floating joint. */
void bench_mj_set_state(bench_mj *b, int s, const double *base, const double *q, const double *v,
                        const double *a, const double *tau);

/* The timed calls, on slot s; the MuJoCo functions each is made of are listed in bench_mujoco.c.
 * Outputs are in MuJoCo's coordinates: tau[nv], M[nv·nv], qdd[nv], Minv[nv·nv]. */
void bench_mj_rnea(bench_mj *b, int s, double *tau);
void bench_mj_crba(bench_mj *b, int s, double *M);
void bench_mj_fd(bench_mj *b, int s, double *qdd);
void bench_mj_minv(bench_mj *b, int s, double *Minv);

/* Back to mbdc's coordinates for the agreement check (out may not alias in). */
void bench_mj_force_to_mb(const bench_mj *b, int s, const double *in, double *out);
void bench_mj_acc_to_mb(const bench_mj *b, int s, const double *in, double *out);
void bench_mj_matrix_to_mb(const bench_mj *b, int s, const double *in, double *out);

#endif /* BENCH_PEER_H */
