/* mjcf_build.c — pass 2: the model's bodies and joints from the collected MJCF bodies.
 *
 * A body's frame in the model is its MJCF frame moved to its last joint's `pos` (the model's
 * body frame is its joint frame): points of the body (centre of mass, sites, children, loop
 * anchors) are its MJCF coordinates plus `off` = −pos. A hinge's or slide's `ref` is folded
 * into its joint frame (a turn of −ref about, or a shift of −ref along, the axis), so that the
 * model's coordinate is MuJoCo's qpos itself: ranges, springref, keyframes and the cross-check
 * need no offset. A body with several joints becomes a chain through massless bodies
 * BODY__j1, BODY__j2, ... (the last joint moves BODY itself), as MuJoCo applies them in turn; a
 * body without a joint hangs from its parent by a fixed joint BODY_fixed. A free joint is a
 * floating joint from the world with an identity frame: its q is the body's pose in the world. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/mjcf_internal.h"

static int new_body(mbg_mjcf *mj, const char *cname, const char *suffix, mbg_loc loc) {
  char *name = NULL;
  if (suffix) {
    char buf[160];
    snprintf(buf, sizeof buf, "%.100s%s", cname, suffix);
    name = mbg_mjcf_c_name(mj, NULL, buf, "body", loc);
    if (!name) return -1;
  }
  int b = mbg_model_add_body(mj->m, name ? name : cname, loc);
  if (b < 0) mj->x.oom = 1;
  return b;
}

static int new_joint(mbg_mjcf *mj, const char *name, mbg_loc loc, int parent, int child,
                     const mbg_mjcf_pose *frame) {
  int j = mbg_model_add_joint(mj->m, name, loc);
  if (j < 0) return mj->x.oom = 1, -1;
  mbg_joint *J = &mj->m->joints[j];
  J->parent = parent, J->child = child;
  J->parent_loc = J->child_loc = loc;
  mbg_mjcf_pose_xyz_rpy(frame, J->xyz, J->rpy);
  return j;
}

static void fill_joint(mbg_mjcf *mj, const mbg_mjcf_joint *mjj, mbg_joint *J) {
  static const mbg_joint_type types[] = {MBG_JOINT_FLOATING, MBG_JOINT_SPHERICAL,
                                         MBG_JOINT_PRISMATIC, MBG_JOINT_REVOLUTE};
  J->type = types[mjj->kind];
  if (mjj->kind == MBG_MJ_HINGE && !mjj->limited) J->type = MBG_JOINT_CONTINUOUS;
  if (mbg_joint_type_has_axis(J->type)) memcpy(J->axis, mjj->axis, sizeof J->axis);
  J->armature = mjj->armature, J->damping = mjj->damping, J->friction = mjj->friction;
  J->stiffness = mjj->stiffness, J->spring_ref = mjj->springref;
  if (J->stiffness != 0.0 && (mjj->kind == MBG_MJ_BALL || mjj->kind == MBG_MJ_FREE)) {
    /* mbdc's joint springs are on joints of one coordinate (docs/dsl.md "Joint properties") */
    mbg_diag_warning(mj->d, mbg_urdf_loc(&mj->x, mjj->node, "stiffness"),
                     "the stiffness of %s joint '%s' is not read: mbdc's joint springs act on "
                     "hinge and slide joints only [mjcf-ignored]",
                     mjj->kind == MBG_MJ_BALL ? "ball" : "free", mjj->cname);
    J->stiffness = J->spring_ref = 0.0;
  }
  if (mjj->limited && (mjj->kind == MBG_MJ_HINGE || mjj->kind == MBG_MJ_SLIDE)) {
    J->has_range = 1;
    J->lower = mjj->range[0], J->upper = mjj->range[1];
  }
}

/* The joints of body bi, from its parent's model body; returns the last model body. */
static int build_joints(mbg_mjcf *mj, int bi, mbg_loc loc) {
  const mbg_mjcf_body *b = &mj->bodies[bi], *p = &mj->bodies[b->parent];
  mbg_mjcf_pose A = {{p->off[0], p->off[1], p->off[2]}, {1, 0, 0, 0}}, S;
  mbg_mjcf_pose_mul(&A, &b->local, &A); /* the MJCF frame in the parent's model frame */
  int prev = p->body, n = b->njoints;
  if (n == 0 || mj->joints[b->first_joint].kind == MBG_MJ_FREE) {
    int body = new_body(mj, b->cname, NULL, loc), j;
    if (body < 0) return -1;
    if (n == 0) {
      char name[160];
      snprintf(name, sizeof name, "%.100s_fixed", b->cname);
      char *c = mbg_mjcf_c_name(mj, NULL, name, "joint", loc);
      j = c ? new_joint(mj, c, loc, prev, body, &A) : -1;
      if (j >= 0) mj->m->joints[j].type = MBG_JOINT_FIXED;
      return j < 0 ? -1 : body;
    }
    mbg_mjcf_joint *mjj = &mj->joints[b->first_joint];
    mbg_mjcf_pose_identity(&S);
    j = new_joint(mj, mjj->cname, mbg_urdf_loc(&mj->x, mjj->node, NULL), 0, body, &S);
    if (j < 0) return -1;
    fill_joint(mj, mjj, &mj->m->joints[j]);
    mjj->model_joint = j;
    return body;
  }
  for (int k = 0; k < n; k++) {
    mbg_mjcf_joint *mjj = &mj->joints[b->first_joint + k];
    mbg_mjcf_pose_identity(&S);
    memcpy(S.p, mjj->pos, sizeof S.p);
    if (mjj->kind == MBG_MJ_HINGE) mbg_mjcf_axis_angle(mjj->axis, -mjj->ref, S.q);
    if (mjj->kind == MBG_MJ_SLIDE)
      for (int a = 0; a < 3; a++) S.p[a] -= mjj->ref * mjj->axis[a];
    mbg_mjcf_pose_mul(&A, &S, &A);
    char suffix[24];
    snprintf(suffix, sizeof suffix, "__j%d", k + 1);
    int body = new_body(mj, b->cname, k + 1 < n ? suffix : NULL, loc);
    int j = body < 0 ? -1
                     : new_joint(mj, mjj->cname, mbg_urdf_loc(&mj->x, mjj->node, NULL), prev,
                                 body, &A);
    if (j < 0) return -1;
    fill_joint(mj, mjj, &mj->m->joints[j]);
    mjj->model_joint = j;
    prev = body;
    mbg_mjcf_pose_identity(&A);
    for (int a = 0; a < 3; a++) A.p[a] = -mjj->pos[a];
  }
  return prev;
}

/* An <inertial>: mass, pos, orientation, diaginertia or fullinertia (in the body's axes; with
 * it, no orientation). Into mass, com and I (about the com, MJCF body axes). 1, or 0. */
static int read_inertial(mbg_mjcf *mj, xmlNodePtr in, double *mass, double com[3], double I[6]) {
  int ok = 1;
  double q[4];
  memset(I, 0, 6 * sizeof *I);
  static const char *const need[] = {"mass", "pos"};
  for (int k = 0; k < 2; k++)
    if (!mbg_urdf_attr(in, need[k])) {
      mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, in, NULL), "<inertial> needs the attribute '%s'",
                     need[k]);
      ok = 0;
    }
  if (!ok) return 0;
  ok &= mbg_mjcf_nums(mj, in, -1, "mass", 1, 1, mass) > 0;
  ok &= mbg_mjcf_nums(mj, in, -1, "pos", 3, 3, com) > 0;
  ok &= mbg_mjcf_orient(mj, in, -1, q);
  int diag = mbg_urdf_attr(in, "diaginertia") != NULL;
  int full = mbg_urdf_attr(in, "fullinertia") != NULL;
  if (diag == full) {
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, in, NULL), "<inertial> needs %s 'diaginertia' or "
                   "'fullinertia'", diag ? "only one of" : "");
    return 0;
  }
  if (full && q[0] != 1) {
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, in, "fullinertia"),
                   "'fullinertia' is in the body's axes: the <inertial> takes no orientation "
                   "with it");
    return 0;
  }
  if (!ok || mbg_mjcf_nums(mj, in, -1, diag ? "diaginertia" : "fullinertia", diag ? 3 : 6,
                           diag ? 3 : 6, I) <= 0)
    return 0;
  if (*mass < 0) {
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, in, "mass"), "the mass is negative (%g)", *mass);
    return 0;
  }
  mbg_mjcf_rotate_inertia(q, I);
  return 1;
}

/* The mass properties of body bi into its model body (MuJoCo's inertiafromgeom rule). */
static void mass_properties(mbg_mjcf *mj, int bi) {
  const mbg_mjcf_body *b = &mj->bodies[bi];
  xmlNodePtr in = mbg_urdf_child(b->node, "inertial");
  double mass = 0, com[3] = {0, 0, 0}, I[6] = {0, 0, 0, 0, 0, 0};
  int errors = mj->d->errors;
  if (mj->inertiafromgeom == 1 || (mj->inertiafromgeom == 2 && !in)) {
    if (!mbg_mjcf_geom_mass(mj, b->node, b->childclass, &mass, com, I)) return;
  } else if (in) {
    if (!read_inertial(mj, in, &mass, com, I)) return;
  }
  mbg_body *B = &mj->m->bodies[b->body];
  B->mass = mass;
  for (int k = 0; k < 3; k++) B->com[k] = com[k] + b->off[k];
  memcpy(B->inertia, I, sizeof I);
  char whose[96];
  snprintf(whose, sizeof whose, "body '%.63s'", b->name ? b->name : b->cname);
  mbg_builder checker = {.d = mj->d};
  if (mj->d->errors == errors)
    mbg_check_inertia(&checker, I, mass, mbg_urdf_loc(&mj->x, in ? in : b->node, NULL), whose);
}

/* The sites of body bi, as operational frames of its model body. */
static void sites(mbg_mjcf *mj, int bi) {
  const mbg_mjcf_body *b = &mj->bodies[bi];
  for (xmlNodePtr c = b->node->children; c && !mj->x.oom; c = c->next) {
    if (!mbg_urdf_is(c, "site")) continue;
    int cls = mbg_mjcf_class_of(mj, c, b->childclass);
    mbg_mjcf_pose P, O = {{b->off[0], b->off[1], b->off[2]}, {1, 0, 0, 0}};
    if (!mbg_mjcf_read_pose(mj, c, cls, &P)) continue;
    mbg_mjcf_pose_mul(&O, &P, &P);
    const char *name = mbg_mjcf_name(c);
    char fallback[128];
    snprintf(fallback, sizeof fallback, "%.100s_site", bi ? b->cname : "world");
    mbg_loc loc = mbg_urdf_loc(&mj->x, c, name ? "name" : NULL);
    char *cname = mbg_mjcf_c_name(mj, name, fallback, "site", loc);
    int f = cname ? mbg_model_add_frame(mj->m, cname, loc) : -1;
    if (f < 0) {
      mj->x.oom = 1;
      return;
    }
    mj->m->frames[f].body = b->body;
    mbg_mjcf_pose_xyz_rpy(&P, mj->m->frames[f].xyz, mj->m->frames[f].rpy);
  }
}

void mbg_mjcf_build_tree(mbg_mjcf *mj) {
  sites(mj, 0);
  for (int i = 1; i < mj->nbodies && !mj->x.oom; i++) {
    mbg_mjcf_body *b = &mj->bodies[i];
    mbg_loc loc = mbg_urdf_loc(&mj->x, b->node, b->name ? "name" : NULL);
    int body = build_joints(mj, i, loc);
    if (body < 0) return;
    b = &mj->bodies[i];
    b->body = body;
    memset(b->off, 0, sizeof b->off);
    if (b->njoints > 0 && mj->joints[b->first_joint].kind != MBG_MJ_FREE)
      for (int k = 0; k < 3; k++) b->off[k] = -mj->joints[b->first_joint + b->njoints - 1].pos[k];
    mass_properties(mj, i);
    sites(mj, i);
  }
}
