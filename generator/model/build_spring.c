/* build_spring.c — the `spring` statement (a point-to-point spring-damper between two bodies) and
 * the `initial` statement (a tree joint's initial coordinates and velocities). docs/dsl.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/build_internal.h"

/* ---------------------------------------------------------------- spring */

typedef struct spring_items {
  const mbd_item *origin, *target, *stiffness, *damping, *length;
} spring_items;

static void collect(mbg_builder *b, const mbd_stmt *s, spring_items *si) {
  memset(si, 0, sizeof *si);
  for (const mbd_item *it = s->items; it; it = it->next) {
    const mbd_item **slot = NULL;
    switch (it->kind) {
    case MBD_I_ORIGIN: slot = &si->origin; break;
    case MBD_I_TARGET: slot = &si->target; break;
    case MBD_I_STIFFNESS: slot = &si->stiffness; break;
    case MBD_I_DAMPING: slot = &si->damping; break;
    case MBD_I_LENGTH: slot = &si->length; break;
    default: break;
    }
    if (!slot) {
      mbg_diag_error(b->d, it->loc, "'%s' is not a property of a spring; expected origin, target, "
                     "stiffness, damping or length", mbg_item_word(it));
      continue;
    }
    char what[32];
    snprintf(what, sizeof what, "'%s'", mbg_item_word(it));
    mbg_once(b, slot, it, what);
  }
}

/* An attachment point: `origin xyz X Y Z;` or `target xyz X Y Z;` (a point: no rpy). */
static void read_point(mbg_builder *b, const mbd_item *it, double p[3]) {
  if (it->rpy) {
    mbg_diag_error(b->d, it->rpy_loc, "a spring's '%s' is a point: it takes 'xyz' only, no 'rpy'",
                   mbg_item_word(it));
    return;
  }
  mbg_eval_list(b, it->args, it->xyz_loc, "'xyz'", 3, 0, MBG_NOT_ANGLE, p);
}

/* A value ≥ 0: stiffness, damping, rest length. */
static void read_nonnegative(mbg_builder *b, const mbd_item *it, double *x) {
  char what[32];
  snprintf(what, sizeof what, "'%s'", mbg_item_word(it));
  if (it->rows) { /* `damping { ... }`: the matrix form of a flexible body */
    mbg_diag_error(b->d, it->loc, "a spring's %s is one value: write '%s VALUE;'", what,
                   mbg_item_word(it));
    return;
  }
  if (mbg_eval_list(b, it->args, it->loc, what, 1, 0, MBG_NOT_ANGLE, x) && !(*x >= 0)) {
    mbg_diag_error(b->d, it->loc, "%s must not be negative (it is %g)", what, *x);
    *x = 0;
  }
}

static int body_ref(mbg_builder *b, const char *name, mbg_loc loc) {
  int e = mbg_resolve(b, name, loc, MBG_NAME_BODY);
  return e < 0 ? -1 : b->names.entry[e].index;
}

void mbg_build_spring(mbg_builder *b, const mbd_stmt *s, int index) {
  mbg_spring *sp = &b->m->springs[index];
  spring_items si;
  collect(b, s, &si);
  sp->body_a = body_ref(b, s->parent, s->parent_loc);
  sp->body_b = body_ref(b, s->child, s->child_loc);
  if (sp->body_a >= 0 && sp->body_a == sp->body_b)
    mbg_diag_error(b->d, s->child_loc, "spring '%s' connects body '%s' to itself", s->name,
                   s->child);
  if (si.origin) read_point(b, si.origin, sp->ra);
  if (si.target) read_point(b, si.target, sp->rb);
  if (si.stiffness) read_nonnegative(b, si.stiffness, &sp->stiffness);
  if (si.damping) read_nonnegative(b, si.damping, &sp->damping);
  if (si.length) read_nonnegative(b, si.length, &sp->length);
  if (!si.stiffness && !si.damping)
    mbg_diag_error(b->d, s->name_loc, "spring '%s' needs a 'stiffness' or a 'damping' (or both)",
                   s->name);
}

/* ---------------------------------------------------------------- initial */

/* The type of joint j as its statement writes it, or -1 when it is not a tree joint type (the
 * joint's own checks report that). */
static int written_type(const mbd_stmt *js) {
  for (int k = 0; js && mbg_joint_type_is_tree((mbg_joint_type)k); k++)
    if (strcmp(js->type, mbg_joint_type_name((mbg_joint_type)k)) == 0) return k;
  return -1;
}

/* Normalize the quaternion [x y z w] at q; 0 if it is zero. One within 1e-15 of unit length is
 * kept as it is (as mbg_axis_normalize does), so a written model reads back bit for bit. */
static int unit_quaternion(double *q) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(n > 0) || !isfinite(n)) return 0;
  for (int k = 0; k < 4 && fabs(n - 1.0) > 1e-15; k++) q[k] /= n;
  return 1;
}

static void read_positions(mbg_builder *b, const mbd_stmt *s, mbg_joint *j, mbg_joint_type t) {
  int nq = mbg_joint_type_nq(t);
  int angle = mbg_joint_type_is_angle(t);
  char what[96];
  snprintf(what, sizeof what, "the initial position of %s joint '%s'", mbg_joint_type_name(t),
           j->name);
  double q[7];
  if (!mbg_eval_list(b, s->args, s->args->loc, what, nq, 0, angle ? MBG_ANGLE : MBG_NOT_ANGLE, q))
    return;
  int iquat = mbg_joint_type_quat(t);
  if (iquat >= 0 && !unit_quaternion(q + iquat)) {
    mbg_diag_error(b->d, s->args->v[iquat]->loc, "the quaternion [x y z w] of joint '%s' is zero: "
                   "it stands for no rotation (the identity is 0 0 0 1)", j->name);
    return;
  }
  memcpy(j->q0, q, (size_t)nq * sizeof *q);
  j->has_q0 = 1;
}

void mbg_build_initial(mbg_builder *b, const mbd_stmt *s) {
  int e = mbg_resolve(b, s->name, s->name_loc, MBG_NAME_JOINT);
  if (e < 0) return;
  int ji = b->names.entry[e].index;
  if (ji < 0 || ji >= b->m->njoints) return;
  mbg_joint *j = &b->m->joints[ji];
  if (j->initial_loc.line > 0) {
    mbg_diag_error(b->d, s->loc, "the initial state of joint '%s' is given twice", s->name);
    mbg_diag_note(b->d, j->initial_loc, "first given here");
    return;
  }
  j->initial_loc = s->loc;
  int t = written_type(b->joint_stmt ? b->joint_stmt[ji] : NULL);
  if (t < 0) return;
  if (t == MBG_JOINT_FIXED) {
    mbg_diag_error(b->d, s->name_loc, "joint '%s' is fixed: it has no coordinates to start from",
                   s->name);
    return;
  }
  if (s->args) read_positions(b, s, j, (mbg_joint_type)t);
  if (s->velocity) {
    int nv = mbg_joint_type_nv((mbg_joint_type)t);
    char what[96];
    snprintf(what, sizeof what, "the initial velocity of %s joint '%s'",
             mbg_joint_type_name((mbg_joint_type)t), s->name);
    double v[6];
    if (mbg_eval_list(b, s->velocity, s->velocity_loc, what, nv, 0, MBG_NOT_ANGLE, v)) {
      memcpy(j->v0, v, (size_t)nv * sizeof *v);
      j->has_v0 = 1;
    }
  }
}
