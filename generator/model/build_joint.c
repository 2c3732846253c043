/* build_joint.c — tree joints, loop joints and `independent`: types, bodies, frames, axes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/build_internal.h"

/* "fixed, revolute, ... or floating", and for a loop ", or d1, d2, s, ss" after it: the types
 * the model language knows, in the table's order (mb.h MB_JOINT_TYPES, MB_LOOP_BASIC_TYPES). */
static void type_list(int is_loop, char *out, size_t n) {
  int ntree = (int)MB_JOINT_TYPE_COUNT, end = is_loop ? (int)MBG_JOINT_TYPE_COUNT : ntree;
  size_t len = 0;
  out[0] = '\0';
  for (int k = 0; k < end && len < n; k++) {
    const char *sep = k == 0 ? "" : k == ntree - 1 ? " or " : k == ntree ? ", or " : ", ";
    int w = snprintf(out + len, n - len, "%s%s", sep, mbg_joint_type_name((mbg_joint_type)k));
    len += w > 0 ? (size_t)w : 0;
  }
}

static int parse_type(mbg_builder *b, const mbd_stmt *s, int is_loop, mbg_joint_type *t) {
  for (int k = 0; k < MBG_JOINT_TYPE_COUNT; k++) {
    if (strcmp(s->type, mbg_joint_type_name((mbg_joint_type)k)) != 0) continue;
    if (!is_loop && !mbg_joint_type_is_tree((mbg_joint_type)k)) {
      mbg_diag_error(b->d, s->type_loc,
                     "'%s' is a basic constraint: it can close a loop ('loop'), not join the tree",
                     s->type);
      return 0;
    }
    *t = (mbg_joint_type)k;
    return 1;
  }
  const char *best = NULL;
  for (int k = 0; k < MBG_JOINT_TYPE_COUNT; k++) {
    const char *name = mbg_joint_type_name((mbg_joint_type)k);
    if (strlen(name) > 2 && mbg_edit_distance(s->type, name, 2) <= 2) best = name;
  }
  char expected[256];
  type_list(is_loop, expected, sizeof expected);
  if (best)
    mbg_diag_error(b->d, s->type_loc, "unknown joint type '%s'; did you mean '%s'?", s->type, best);
  else
    mbg_diag_error(b->d, s->type_loc, "unknown joint type '%s'; expected %s", s->type, expected);
  return 0;
}


/* A referenced body: its model index, or -1 after reporting. */
static int body_ref(mbg_builder *b, const char *name, mbg_loc loc) {
  int e = mbg_resolve(b, name, loc, MBG_NAME_BODY);
  return e < 0 ? -1 : b->names.entry[e].index;
}

/* An axis: non-zero, normalized (warned if far from unit length). */
static void read_axis(mbg_builder *b, const mbd_item *it, const char *what, double axis[3]) {
  double a[3];
  if (!mbg_eval_list(b, it->args, it->loc, what, 3, 0, MBG_NOT_ANGLE, a)) return;
  double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (!(n > 1e-12) || !isfinite(n)) {
    mbg_diag_error(b->d, it->loc, "%s must be a non-zero vector", what);
    return;
  }
  if (fabs(n - 1.0) > 1e-3)
    mbg_diag_warning(b->d, it->loc, "%s has length %g; it is normalized", what, n);
  mbg_axis_normalize(a);
  for (int k = 0; k < 3; k++) axis[k] = a[k];
}

static void read_frame(mbg_builder *b, const mbd_item *it, double xyz[3], double rpy[3]) {
  if (it->args) mbg_eval_list(b, it->args, it->xyz_loc, "'xyz'", 3, 0, MBG_NOT_ANGLE, xyz);
  if (it->rpy) mbg_eval_list(b, it->rpy, it->rpy_loc, "'rpy'", 3, 0, MBG_ANGLE, rpy);
}

/* The items of a joint or loop statement, each at most once. */
typedef struct joint_items {
  const mbd_item *origin, *target, *axis, *axis2, *pitch, *distance, *node;
} joint_items;

static void collect(mbg_builder *b, const mbd_stmt *s, int is_loop, joint_items *ji) {
  memset(ji, 0, sizeof *ji);
  for (const mbd_item *it = s->items; it; it = it->next) {
    const mbd_item **slot = NULL;
    switch (it->kind) {
    case MBD_I_ORIGIN: slot = &ji->origin; break;
    case MBD_I_AXIS: slot = &ji->axis; break;
    case MBD_I_PITCH: slot = &ji->pitch; break;
    case MBD_I_TARGET: slot = is_loop ? &ji->target : NULL; break;
    case MBD_I_AXIS2: slot = &ji->axis2; break; /* check_type_items: universal and d1 */
    case MBD_I_DISTANCE: slot = is_loop ? &ji->distance : NULL; break;
    case MBD_I_NODE: slot = is_loop ? NULL : &ji->node; break;
    default: break;
    }
    if (!slot && !is_loop && mbg_joint_prop_item(it)) continue; /* build_jprops.c's */
    if (!slot) {
      mbg_diag_error(b->d, it->loc, "'%s' is not a property of a %s; expected %s", mbg_item_word(it),
                     is_loop ? "loop" : "joint",
                     is_loop ? "origin, target, axis, axis2, pitch or distance"
                             : "origin, axis, axis2, pitch, node, armature, damping, friction, "
                               "stiffness, spring_ref, limit, velocity_limit, effort_limit or "
                               "mimic");
      continue;
    }
    char what[32];
    snprintf(what, sizeof what, "'%s'", mbg_item_word(it));
    mbg_once(b, slot, it, what);
  }
}

/* Items that only some types take. */
static void check_type_items(mbg_builder *b, mbg_joint_type t, const joint_items *ji,
                             const char *kind) {
  if (ji->axis && !mbg_joint_type_has_axis(t))
    mbg_diag_error(b->d, ji->axis->loc, "a %s %s has no axis", mbg_joint_type_name(t), kind);
  if (ji->pitch && !mbg_joint_type_has_pitch(t))
    mbg_diag_error(b->d, ji->pitch->loc, "'pitch' applies only to a helical %s", kind);
  if (ji->distance && !mbg_joint_type_has_distance(t))
    mbg_diag_error(b->d, ji->distance->loc, "'distance' applies only to an 'ss' loop");
  if (ji->axis2 && !mbg_joint_type_has_axis2(t))
    mbg_diag_error(b->d, ji->axis2->loc, "'axis2' applies only to a universal %s or a 'd1' loop",
                   kind);
}

/* A universal joint's two axes: both given, perpendicular (to 1e-9 of their unit lengths). */
static void check_universal(mbg_builder *b, const mbd_stmt *s, const joint_items *ji,
                            const double a[3], const double a2[3]) {
  if (!ji->axis || !ji->axis2) {
    mbg_diag_error(b->d, s->type_loc, "a universal %s needs both axes: 'axis' (about which the "
                   "child turns first, fixed in the parent) and 'axis2' (fixed in the child)",
                   s->kind == MBD_S_LOOP ? "loop" : "joint");
    return;
  }
  double d = a[0] * a2[0] + a[1] * a2[1] + a[2] * a2[2];
  if (!(fabs(d) <= 1e-9))
    mbg_diag_error(b->d, ji->axis2->loc, "'axis2' must be perpendicular to 'axis' (their angle is "
                   "%.9g degrees)", acos(fmax(-1.0, fmin(1.0, d))) * 180.0 / 3.141592653589793);
}

void mbg_build_joint(mbg_builder *b, const mbd_stmt *s, int index) {
  mbg_joint *j = &b->m->joints[index];
  joint_items ji;
  collect(b, s, 0, &ji);
  int typed = parse_type(b, s, 0, &j->type);
  j->parent = body_ref(b, s->parent, s->parent_loc);
  j->child = body_ref(b, s->child, s->child_loc);
  if (j->parent < 0 || j->child < 0) b->tree_incomplete = 1;
  j->parent_loc = s->parent_loc;
  j->child_loc = s->child_loc;
  if (j->child == 0) mbg_diag_error(b->d, s->child_loc, "the world cannot be the child of a joint");
  if (j->parent > 0 && j->parent == j->child)
    mbg_diag_error(b->d, s->child_loc, "joint '%s' connects body '%s' to itself", s->name, s->child);
  if (typed) check_type_items(b, j->type, &ji, "joint");
  if (typed) mbg_build_joint_props(b, s, j);
  if (typed && mbg_joint_type_has_pitch(j->type) && !ji.pitch)
    mbg_diag_error(b->d, s->type_loc, "a %s joint needs a 'pitch'", s->type);
  if (ji.origin) read_frame(b, ji.origin, j->xyz, j->rpy);
  if (ji.axis) read_axis(b, ji.axis, "'axis'", j->axis);
  if (ji.axis2) read_axis(b, ji.axis2, "'axis2'", j->axis2);
  if (typed && j->type == MBG_JOINT_UNIVERSAL) check_universal(b, s, &ji, j->axis, j->axis2);
  if (ji.pitch) mbg_eval_list(b, ji.pitch->args, ji.pitch->loc, "'pitch'", 1, 0, MBG_NOT_ANGLE, &j->pitch);
  if (ji.node) {
    const mbg_flex *f = j->parent > 0 ? b->m->bodies[j->parent].flex : NULL;
    if (!f || f->is_beam) {
      mbg_diag_error(b->d, ji.node->loc, "'node' needs a parent flexible body with nodal data");
    } else {
      for (int k = 0; k < f->nnodes; k++)
        if (strcmp(f->nodes[k].name, ji.node->name) == 0) j->node = k;
      if (j->node < 0)
        mbg_diag_error(b->d, ji.node->loc, "body '%s' has no node '%s'", s->parent, ji.node->name);
    }
  } else if (j->parent > 0 && b->m->bodies[j->parent].flex && !b->m->bodies[j->parent].flex->is_beam) {
    mbg_diag_error(b->d, s->parent_loc,
                   "joint '%s' leaves flexible body '%s': say which node it is attached to with "
                   "'node NAME;'", s->name, s->parent);
  }
}

void mbg_build_loop(mbg_builder *b, const mbd_stmt *s, int index) {
  mbg_loop *l = &b->m->loops[index];
  joint_items ji;
  collect(b, s, 1, &ji);
  int typed = parse_type(b, s, 1, &l->type);
  l->body_a = body_ref(b, s->parent, s->parent_loc);
  l->body_b = body_ref(b, s->child, s->child_loc);
  if (l->body_a >= 0 && l->body_a == l->body_b)
    mbg_diag_error(b->d, s->child_loc, "loop '%s' connects body '%s' to itself", s->name, s->child);
  if (typed) {
    check_type_items(b, l->type, &ji, "loop");
    if (mbg_joint_type_loop(l->type) == MB_LOOP_TYPE_COUNT)
      mbg_diag_error(b->d, s->type_loc, mbg_joint_type_nv(l->type) == 6
                                            ? "a %s loop joint constrains nothing"
                                            : "a %s joint cannot close a loop", s->type);
    if (mbg_joint_type_has_distance(l->type) && !ji.distance)
      mbg_diag_error(b->d, s->type_loc, "an '%s' loop needs a 'distance'", s->type);
    if (mbg_joint_type_has_pitch(l->type) && !ji.pitch)
      mbg_diag_error(b->d, s->type_loc, "a %s loop needs a 'pitch'", s->type);
  }
  if (ji.origin) read_frame(b, ji.origin, l->xyz, l->rpy);
  if (ji.target) read_frame(b, ji.target, l->target_xyz, l->target_rpy);
  if (ji.axis) read_axis(b, ji.axis, "'axis'", l->axis);
  if (ji.axis2) read_axis(b, ji.axis2, "'axis2'", l->axis_b);
  if (typed && l->type == MBG_JOINT_UNIVERSAL && (!ji.axis || !ji.axis2)) /* ⟂ where it closes */
    mbg_diag_error(b->d, s->type_loc, "a universal loop needs both axes: 'axis' (on %s) and "
                   "'axis2' (on %s, in the target frame)", s->parent, s->child);
  if (ji.pitch) mbg_eval_list(b, ji.pitch->args, ji.pitch->loc, "'pitch'", 1, 0, MBG_NOT_ANGLE, &l->pitch);
  if (ji.distance &&
      mbg_eval_list(b, ji.distance->args, ji.distance->loc, "'distance'", 1, 0, MBG_NOT_ANGLE,
                    &l->distance) && !(l->distance > 0))
    mbg_diag_error(b->d, ji.distance->loc, "'distance' must be positive (it is %g)", l->distance);
}

void mbg_read_independent(mbg_builder *b, const mbd_stmt *s, const mbd_stmt **seen) {
  if (*seen) {
    mbg_diag_error(b->d, s->loc, "'independent' is given twice");
    mbg_diag_note(b->d, (*seen)->loc, "first given here");
    return;
  }
  *seen = s;
  int n = 0;
  for (const mbd_name *nm = s->names; nm; nm = nm->next) n++;
  int *idx = calloc((size_t)n + 1, sizeof *idx);
  if (!idx) {
    b->oom = 1;
    return;
  }
  int k = 0;
  for (const mbd_name *nm = s->names; nm; nm = nm->next) {
    int e = mbg_resolve(b, nm->name, nm->loc, MBG_NAME_JOINT);
    if (e < 0) continue;
    int j = b->names.entry[e].index;
    int dup = 0;
    for (int i = 0; i < k; i++) dup |= idx[i] == j;
    if (dup) {
      mbg_diag_error(b->d, nm->loc, "joint '%s' is listed twice", nm->name);
      continue;
    }
    idx[k++] = j;
  }
  free(b->m->independent);
  b->m->independent = idx;
  b->m->nindependent = k;
  b->m->independent_loc = s->loc;
}
