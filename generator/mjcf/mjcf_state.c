/* mjcf_state.c — the initial state: a <key>'s qpos (the key named "home", else the first), or
 * without one MuJoCo's qpos0 (a free joint at its body's pose, hinges and slides at their ref).
 * The model's coordinates are MuJoCo's (mjcf_build.c folds ref into the joint frames) except the
 * quaternions' order: MuJoCo's [w x y z], the model's [x y z w]. */
#include <math.h>
#include <string.h>

#include "mjcf/mjcf_internal.h"

static int nq_of(int kind) { return kind == MBG_MJ_FREE ? 7 : kind == MBG_MJ_BALL ? 4 : 1; }

/* The quaternion [x y z w] at q normalized as the language's `initial` does (build_spring.c):
 * one within 1e-15 of unit length kept as it is, so that an imported model reads back bit for
 * bit; a zero one left (the model's checks report it). */
static void unit_quaternion(double *q) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(n > 0) || !isfinite(n)) return;
  for (int k = 0; k < 4 && fabs(n - 1.0) > 1e-15; k++) q[k] /= n;
}

/* Joint k's coordinates from MuJoCo's qpos entries v. */
static void set_q0(mbg_mjcf *mj, const mbg_mjcf_joint *j, const double *v) {
  if (j->model_joint < 0) return;
  mbg_joint *J = &mj->m->joints[j->model_joint];
  J->has_q0 = 1;
  if (j->kind == MBG_MJ_FREE) {
    double q[7] = {v[0], v[1], v[2], v[4], v[5], v[6], v[3]};
    unit_quaternion(q + 3);
    memcpy(J->q0, q, sizeof q);
  } else if (j->kind == MBG_MJ_BALL) {
    double q[4] = {v[1], v[2], v[3], v[0]};
    unit_quaternion(q);
    memcpy(J->q0, q, sizeof q);
  } else {
    J->q0[0] = v[0];
  }
}

void mbg_mjcf_qpos0(mbg_mjcf *mj) {
  for (int k = 0; k < mj->njoints; k++) {
    const mbg_mjcf_joint *j = &mj->joints[k];
    if (j->kind == MBG_MJ_FREE) {
      const mbg_mjcf_pose *P = &mj->bodies[j->body].world0;
      double v[7] = {P->p[0], P->p[1], P->p[2], P->q[0], P->q[1], P->q[2], P->q[3]};
      int neutral = v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 1;
      if (!neutral) set_q0(mj, j, v);
    } else if (j->kind != MBG_MJ_BALL && j->ref != 0) {
      set_q0(mj, j, &j->ref);
    }
  }
}

/* The <key> to use: named "home", else the first. */
static xmlNodePtr pick_key(xmlNodePtr keyframe) {
  xmlNodePtr first = NULL;
  for (xmlNodePtr k = keyframe->children; k; k = k->next) {
    if (!mbg_urdf_is(k, "key")) continue;
    const char *name = mbg_urdf_attr(k, "name");
    if (name && strcmp(name, "home") == 0) return k;
    if (!first) first = k;
  }
  return first;
}

void mbg_mjcf_keyframe(mbg_mjcf *mj, xmlNodePtr keyframe) {
  xmlNodePtr key = keyframe ? pick_key(keyframe) : NULL;
  if (!key || !mbg_urdf_attr(key, "qpos")) {
    mbg_mjcf_qpos0(mj);
    return;
  }
  int nq = 0;
  for (int k = 0; k < mj->njoints; k++) nq += nq_of(mj->joints[k].kind);
  double qpos[1024];
  if (nq > 1024) {
    mbg_diag_warning(mj->d, mbg_urdf_loc(&mj->x, key, NULL), "the keyframe is not read: the "
                     "model has more than 1024 position coordinates [mjcf-ignored]");
    mbg_mjcf_qpos0(mj);
    return;
  }
  int n = mbg_mjcf_nums(mj, key, -1, "qpos", 1, 1024, qpos);
  if (n <= 0) return; /* reported */
  if (n != nq) {
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, key, "qpos"),
                   "the qpos of this <key> has %d numbers; the model has %d position coordinates",
                   n, nq);
    return;
  }
  for (int k = 0, at = 0; k < mj->njoints; k++) {
    set_q0(mj, &mj->joints[k], qpos + at);
    at += nq_of(mj->joints[k].kind);
  }
  if (mbg_urdf_attr(key, "qvel"))
    mbg_diag_warning(mj->d, mbg_urdf_loc(&mj->x, key, "qvel"), "the qvel of the <key> is not "
                     "read: the initial velocity is zero [mjcf-ignored]");
}
