/* mjcf_tree.c — pass 1 over <worldbody>: every body (its frame, childclass, frame at qpos0) and
 * every joint (mjcf_joint.c) in MuJoCo's order, depth first as written; the elements of a body
 * that are read, ignored (camera, light: nothing to do with dynamics) or refused; then the
 * model names: joints first, so that a joint keeps its name where its body has the same one (a
 * MuJoCo model keeps bodies and joints apart, mbdc's model does not), then bodies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/mjcf_internal.h"

static int add_body(mbg_mjcf *mj) {
  if (mj->nbodies == mj->cbodies) {
    int cap = mj->cbodies ? 2 * mj->cbodies : 16;
    mbg_mjcf_body *b = realloc(mj->bodies, (size_t)cap * sizeof *b);
    if (!b) return mj->x.oom = 1, -1;
    mj->bodies = b, mj->cbodies = cap;
  }
  memset(&mj->bodies[mj->nbodies], 0, sizeof *mj->bodies);
  return mj->nbodies++;
}

static int add_joint(mbg_mjcf *mj) {
  if (mj->njoints == mj->cjoints) {
    int cap = mj->cjoints ? 2 * mj->cjoints : 16;
    mbg_mjcf_joint *j = realloc(mj->joints, (size_t)cap * sizeof *j);
    if (!j) return mj->x.oom = 1, -1;
    mj->joints = j, mj->cjoints = cap;
  }
  memset(&mj->joints[mj->njoints], 0, sizeof *mj->joints);
  return mj->njoints++;
}

/* Elements of a body that mbdc does not read: nothing to do with the rigid-body dynamics. */
static const char *const visual_children[] = {"camera", "light", NULL};
/* Elements that would change the model, which mbdc does not support. */
static const char *const refused_children[] = {"composite", "flexcomp", "plugin", "replicate",
                                               "frame", "include", "attach", NULL};

static int in_list(xmlNodePtr c, const char *const *list) {
  for (int k = 0; list[k]; k++)
    if (mbg_urdf_is(c, list[k])) return 1;
  return 0;
}

/* A child element other than a body or a joint: read later, ignored, or reported. */
static void other_child(mbg_mjcf *mj, xmlNodePtr c, int world, int *inertials) {
  if (mbg_urdf_is(c, "geom") || mbg_urdf_is(c, "site") || in_list(c, visual_children)) return;
  mbg_loc loc = mbg_urdf_loc(&mj->x, c, NULL);
  if (mbg_urdf_is(c, "inertial")) {
    if (world)
      mbg_diag_error(mj->d, loc, "<worldbody> has no <inertial>: the world does not move");
    else if (++*inertials > 1)
      mbg_diag_error(mj->d, loc, "a second <inertial> in one body");
  } else if (in_list(c, refused_children)) {
    mbg_diag_error(mj->d, loc, "<%s> is not supported by mbdc's MJCF reader (docs/mjcf.md)",
                   (const char *)c->name);
  } else if (c->ns) {
    mbg_diag_warning(mj->d, loc, "the namespaced element <%s> is not read [mjcf-ignored]",
                     (const char *)c->name);
  } else {
    mbg_diag_warning(mj->d, loc, "<%s> is not an element of a body that mbdc knows; it is not "
                     "read [mjcf-ignored]", (const char *)c->name);
  }
}

/* A free joint: the only joint of a body of <worldbody> (MuJoCo's rule). */
static void check_free(mbg_mjcf *mj, int bi) {
  const mbg_mjcf_body *b = &mj->bodies[bi];
  for (int k = b->first_joint; k < b->first_joint + b->njoints; k++) {
    if (mj->joints[k].kind != MBG_MJ_FREE) continue;
    mbg_loc loc = mbg_urdf_loc(&mj->x, mj->joints[k].node, NULL);
    if (b->parent != 0)
      mbg_diag_error(mj->d, loc, "a free joint may only be on a body of <worldbody>");
    else if (b->njoints > 1)
      mbg_diag_error(mj->d, loc, "a free joint must be the only joint of its body");
  }
}

static void collect_body(mbg_mjcf *mj, xmlNodePtr node, int parent);

/* The children of body bi: its joints, then (depth first) its bodies. */
static void collect_children(mbg_mjcf *mj, int bi, int world) {
  xmlNodePtr node = mj->bodies[bi].node;
  int cls = mj->bodies[bi].childclass, inertials = 0;
  mj->bodies[bi].first_joint = mj->njoints;
  for (xmlNodePtr c = node->children; c && !mj->x.oom; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || mbg_urdf_is(c, "body")) continue;
    if (mbg_urdf_is(c, "joint") || mbg_urdf_is(c, "freejoint")) {
      if (world) {
        mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, c, NULL),
                       "<worldbody> has no joints: the world does not move");
        continue;
      }
      int k = add_joint(mj);
      if (k < 0) return;
      mbg_mjcf_read_joint(mj, c, cls, &mj->joints[k]);
      mj->joints[k].body = bi;
    } else {
      other_child(mj, c, world, &inertials);
    }
  }
  mj->bodies[bi].njoints = mj->njoints - mj->bodies[bi].first_joint;
  check_free(mj, bi);
  for (xmlNodePtr c = node->children; c && !mj->x.oom; c = c->next)
    if (mbg_urdf_is(c, "body")) collect_body(mj, c, bi);
}

/* A body (libxml2's depth limit, 256, bounds the recursion). */
static void collect_body(mbg_mjcf *mj, xmlNodePtr node, int parent) {
  int bi = add_body(mj);
  if (bi < 0) return;
  mbg_mjcf_body *b = &mj->bodies[bi];
  b->node = node;
  b->name = mbg_mjcf_name(node);
  b->parent = parent;
  b->childclass = mbg_urdf_attr(node, "childclass") ? -1 : mj->bodies[parent].childclass;
  if (b->childclass < 0) { /* mbg_mjcf_class_of reads `class`: childclass is looked up here */
    const char *c = mbg_urdf_attr(node, "childclass");
    int e = mbg_names_find(&mj->class_names, c);
    b->childclass = e >= 0 ? mj->class_names.entry[e].index : mj->bodies[parent].childclass;
    if (e < 0)
      mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, node, "childclass"),
                     "<body> names an unknown default class '%.63s'", c);
  }
  if (mbg_urdf_attr(node, "class"))
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, node, "class"),
                   "a <body> takes no 'class' (its elements do; 'childclass' sets theirs)");
  mbg_mjcf_read_pose(mj, node, -1, &b->local);
  mbg_mjcf_pose_mul(&mj->bodies[parent].world0, &b->local, &b->world0);
  collect_children(mj, bi, 0);
}

/* Model names: joints (in MuJoCo's order), then bodies. An unnamed joint is BODY_joint, an
 * unnamed body body_N (N its MuJoCo number). */
static void name_all(mbg_mjcf *mj) {
  char fallback[128];
  for (int k = 0; k < mj->njoints && !mj->x.oom; k++) {
    mbg_mjcf_joint *j = &mj->joints[k];
    const mbg_mjcf_body *b = &mj->bodies[j->body];
    if (b->name)
      snprintf(fallback, sizeof fallback, "%.100s_joint", b->name);
    else
      snprintf(fallback, sizeof fallback, "body_%d_joint", j->body);
    const char *name = mbg_mjcf_name(j->node);
    j->cname = mbg_mjcf_c_name(mj, name, fallback, "joint",
                               mbg_urdf_loc(&mj->x, j->node, name ? "name" : NULL));
  }
  for (int i = 1; i < mj->nbodies && !mj->x.oom; i++) {
    mbg_mjcf_body *b = &mj->bodies[i];
    snprintf(fallback, sizeof fallback, "body_%d", i);
    b->cname = mbg_mjcf_c_name(mj, b->name, fallback, "body",
                               mbg_urdf_loc(&mj->x, b->node, b->name ? "name" : NULL));
  }
}

int mbg_mjcf_collect(mbg_mjcf *mj, xmlNodePtr worldbody) {
  int errors = mj->d->errors;
  int w = add_body(mj);
  if (w < 0) return 0;
  mj->bodies[w].node = worldbody;
  mj->bodies[w].parent = -1;
  mj->bodies[w].childclass = 0;
  mbg_mjcf_pose_identity(&mj->bodies[w].local);
  mbg_mjcf_pose_identity(&mj->bodies[w].world0);
  if (mbg_urdf_attr(worldbody, "childclass")) {
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, worldbody, "childclass"),
                   "<worldbody> takes no 'childclass'");
  }
  collect_children(mj, w, 1);
  if (mj->d->errors == errors && !mj->x.oom) name_all(mj);
  return mj->d->errors == errors && !mj->x.oom;
}
