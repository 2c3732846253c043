/* mjcf_equality.c — <equality> and <keyframe>.
 *
 * connect (body1, body2, anchor): the point `anchor` of body1 and the point of body2 that
 * coincides with it at qpos0 (MuJoCo computes it so) stay together: a spherical loop joint.
 * weld (body1, body2, relpose): the bodies keep their relative pose (relpose, body2 in body1's
 * frame, when its quaternion is not zero; else the one at qpos0): a fixed loop joint. A missing
 * body2 is the world. An inactive equality (active="false") is left out with a warning; joint
 * and tendon couplings are warnings (their joints stay independent), any other an error.
 *
 * A <key>'s qpos (the one named "home", else the first) is the initial state; without one the
 * initial state is qpos0 (mbg_mjcf_qpos0). MuJoCo's quaternions are w first, the model's w last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/mjcf_internal.h"

/* The MJCF body named by attribute `attr` (absent: the world when may_be_world), or -1. */
static int body_ref(mbg_mjcf *mj, xmlNodePtr e, const char *attr, int may_be_world) {
  const char *name = mbg_urdf_attr(e, attr);
  if (!name) {
    if (may_be_world) return 0;
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, e, NULL), "<%s> needs the attribute '%s'",
                   (const char *)e->name, attr);
    return -1;
  }
  if (strcmp(name, "world") == 0) return 0;
  for (int i = 1; i < mj->nbodies; i++)
    if (mj->bodies[i].name && strcmp(mj->bodies[i].name, name) == 0) return i;
  mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, e, attr), "<%s> names an unknown body '%.63s'",
                 (const char *)e->name, name);
  return -1;
}

/* A loop of `type` between MJCF bodies a and b: the frame Fa on a and Fb on b (MJCF frames). */
static void add_loop(mbg_mjcf *mj, xmlNodePtr e, int k, mbg_joint_type type, int a, int b,
                     const mbg_mjcf_pose *Fa, const mbg_mjcf_pose *Fb) {
  const char *name = mbg_mjcf_name(e);
  char fallback[64];
  snprintf(fallback, sizeof fallback, "%s_%d", (const char *)e->name, k);
  mbg_loc loc = mbg_urdf_loc(&mj->x, e, name ? "name" : NULL);
  char *cname = mbg_mjcf_c_name(mj, name, fallback, "loop", loc);
  int l = cname ? mbg_model_add_loop(mj->m, cname, loc) : -1;
  if (l < 0) {
    mj->x.oom = 1;
    return;
  }
  mbg_loop *L = &mj->m->loops[l];
  L->type = type;
  L->body_a = mj->bodies[a].body, L->body_b = mj->bodies[b].body;
  mbg_mjcf_pose Oa = {{0, 0, 0}, {1, 0, 0, 0}}, Ob = Oa, P;
  memcpy(Oa.p, mj->bodies[a].off, sizeof Oa.p);
  memcpy(Ob.p, mj->bodies[b].off, sizeof Ob.p);
  mbg_mjcf_pose_mul(&Oa, Fa, &P);
  mbg_mjcf_pose_xyz_rpy(&P, L->xyz, L->rpy);
  mbg_mjcf_pose_mul(&Ob, Fb, &P);
  mbg_mjcf_pose_xyz_rpy(&P, L->target_xyz, L->target_rpy);
}

/* connect and weld. */
static void body_equality(mbg_mjcf *mj, xmlNodePtr e, int k, int weld) {
  int a = body_ref(mj, e, "body1", 0), b = body_ref(mj, e, "body2", 1);
  if (a < 0 || b < 0) return;
  if (a == b) {
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, e, "body2"), "<%s> connects a body to itself",
                   (const char *)e->name);
    return;
  }
  mbg_mjcf_pose Fa, Fb, inv_b;
  mbg_mjcf_pose_identity(&Fa);
  mbg_mjcf_pose_inv(&mj->bodies[b].world0, &inv_b);
  if (!weld) { /* the anchor on a; on b, the point that coincides with it at qpos0 */
    if (mbg_mjcf_nums(mj, e, -1, "anchor", 3, 3, Fa.p) < 0) {
      mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, e, NULL), "<connect> needs the attribute "
                     "'anchor'%s", mbg_urdf_attr(e, "site1") ? " (site1 and site2 are MuJoCo "
                     "2.3's; mbdc reads MuJoCo 2.2's connect)" : "");
      return;
    }
    mbg_mjcf_pose W;
    mbg_mjcf_pose_mul(&mj->bodies[a].world0, &Fa, &W);
    mbg_mjcf_pose_mul(&inv_b, &W, &Fb);
    add_loop(mj, e, k, MBG_JOINT_SPHERICAL, a, b, &Fa, &Fb);
    return;
  }
  double rel[7] = {0, 0, 0, 0, 0, 0, 0};
  int n = mbg_mjcf_nums(mj, e, -1, "relpose", 7, 7, rel);
  if (n == 0) return;
  if (n > 0 && (rel[3] != 0 || rel[4] != 0 || rel[5] != 0 || rel[6] != 0)) {
    mbg_mjcf_pose R = {{rel[0], rel[1], rel[2]}, {rel[3], rel[4], rel[5], rel[6]}}, Rn;
    mbg_mjcf_pose_identity(&Rn);
    mbg_mjcf_pose_mul(&Rn, &R, &R); /* normalizes the quaternion */
    mbg_mjcf_pose_inv(&R, &Fb);     /* body1's frame in body2's */
  } else {
    mbg_mjcf_pose_mul(&inv_b, &mj->bodies[a].world0, &Fb);
  }
  add_loop(mj, e, k, MBG_JOINT_FIXED, a, b, &Fa, &Fb);
}

void mbg_mjcf_equality(mbg_mjcf *mj, xmlNodePtr equality) {
  static const char *const actives[] = {"false", "true", NULL};
  int k = 0;
  for (xmlNodePtr e = equality->children; e && !mj->x.oom; e = e->next) {
    if (e->type != XML_ELEMENT_NODE) continue;
    k++;
    mbg_loc loc = mbg_urdf_loc(&mj->x, e, NULL);
    int active = mbg_mjcf_word(mj, e, mbg_mjcf_class_of(mj, e, 0), "active", actives, 1);
    if (active < 0) continue;
    if (active == 0) {
      mbg_diag_warning(mj->d, mbg_urdf_loc(&mj->x, e, "active"), "this inactive <%s> is left "
                       "out [mjcf-ignored]", (const char *)e->name);
    } else if (mbg_urdf_is(e, "connect") || mbg_urdf_is(e, "weld")) {
      body_equality(mj, e, k, mbg_urdf_is(e, "weld"));
    } else if (mbg_urdf_is(e, "joint") || mbg_urdf_is(e, "tendon")) {
      mbg_diag_warning(mj->d, loc, "the <%s> equality is not read: its joints are independent "
                       "coordinates in mbdc's model; set them from each other in your controller "
                       "[mjcf-ignored]", (const char *)e->name);
    } else {
      mbg_diag_error(mj->d, loc, "the <%s> equality is not supported by mbdc (connect and weld "
                     "are)", (const char *)e->name);
    }
  }
}
