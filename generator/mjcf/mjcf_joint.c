/* mjcf_joint.c — one MJCF joint: <joint type="hinge|slide|ball|free"> (hinge the default) or
 * <freejoint>, with pos, axis (default 0 0 1, normalized), ref, range and limited (MuJoCo 2.2's
 * rule: "auto" is limited when a range is given and compiler/autolimits is true, an error when
 * it is false), armature, damping, stiffness, springref and frictionloss. Angles of a hinge
 * (ref, range, springref) are in degrees unless compiler/angle is "radian". */
#include <math.h>
#include <string.h>

#include "mjcf/mjcf_internal.h"

static const char *const joint_types[] = {"free", "ball", "slide", "hinge", NULL};
static const char *const limited_words[] = {"false", "true", "auto", NULL};

/* The scalar properties; 0 when absent. 1, or 0 after reporting. */
static int read_props(mbg_mjcf *mj, xmlNodePtr n, int cls, mbg_mjcf_joint *j) {
  static const char *const attr[] = {"armature", "damping", "frictionloss", "stiffness"};
  double *out[] = {&j->armature, &j->damping, &j->friction, &j->stiffness};
  int ok = 1;
  for (int k = 0; k < 4; k++) {
    if (mbg_mjcf_nums(mj, n, cls, attr[k], 1, 1, out[k]) == 0) {
      ok = 0;
    } else if (*out[k] < 0) {
      mbg_diag_error(mj->d, mbg_mjcf_loc(mj, mbg_mjcf_get(mj, n, cls, attr[k]), n, attr[k]),
                     "the %s of this joint is negative (%g)", attr[k], *out[k]);
      ok = 0;
    }
  }
  ok &= mbg_mjcf_nums(mj, n, cls, "springref", 1, 1, &j->springref) != 0;
  ok &= mbg_mjcf_nums(mj, n, cls, "ref", 1, 1, &j->ref) != 0;
  return ok;
}

/* range and limited. 1, or 0 after reporting. */
static int read_limits(mbg_mjcf *mj, xmlNodePtr n, int cls, mbg_mjcf_joint *j) {
  int has_range = mbg_mjcf_nums(mj, n, cls, "range", 2, 2, j->range);
  int limited = mbg_mjcf_word(mj, n, cls, "limited", limited_words, 2);
  if (has_range == 0 || limited < 0) return 0;
  if (limited == 2 && has_range > 0 && !mj->autolimits) {
    mbg_diag_error(mj->d, mbg_mjcf_loc(mj, mbg_mjcf_get(mj, n, cls, "range"), n, "range"),
                   "this joint has a 'range' but no 'limited'; as MuJoCo 2.2, mbdc asks for "
                   "limited=\"true\" or \"false\", or compiler/autolimits=\"true\"");
    return 0;
  }
  j->limited = limited == 1 || (limited == 2 && has_range > 0);
  if (j->limited && has_range < 0) {
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, n, "limited"),
                   "this joint is limited but has no 'range'");
    return 0;
  }
  if (j->limited && j->kind != MBG_MJ_BALL && !(j->range[0] < j->range[1])) {
    mbg_diag_error(mj->d, mbg_mjcf_loc(mj, mbg_mjcf_get(mj, n, cls, "range"), n, "range"),
                   "the range of this joint is empty (%g to %g)", j->range[0], j->range[1]);
    return 0;
  }
  if (j->limited && (j->kind == MBG_MJ_BALL || j->kind == MBG_MJ_FREE)) {
    mbg_diag_warning(mj->d, mbg_mjcf_loc(mj, mbg_mjcf_get(mj, n, cls, "range"), n, "range"),
                     "the range of a %s joint is not read (mbdc keeps ranges of 1-dof joints)",
                     j->kind == MBG_MJ_BALL ? "ball" : "free");
    j->limited = 0;
  }
  return 1;
}

int mbg_mjcf_read_joint(mbg_mjcf *mj, xmlNodePtr n, int cls, mbg_mjcf_joint *j) {
  memset(j, 0, sizeof *j);
  j->node = n;
  j->model_joint = -1;
  j->kind = MBG_MJ_HINGE; /* also when the type is unknown (reported) */
  j->axis[2] = 1;
  if (mbg_urdf_is(n, "freejoint")) {
    j->kind = MBG_MJ_FREE;
    return 1;
  }
  cls = mbg_mjcf_class_of(mj, n, cls);
  j->cls = cls;
  int t = mbg_mjcf_word(mj, n, cls, "type", joint_types, MBG_MJ_HINGE);
  if (t < 0) return 0;
  j->kind = t;
  int ok = mbg_mjcf_nums(mj, n, cls, "pos", 3, 3, j->pos) != 0;
  if (mbg_mjcf_nums(mj, n, cls, "axis", 3, 3, j->axis) == 0) return 0;
  double len = sqrt(j->axis[0] * j->axis[0] + j->axis[1] * j->axis[1] + j->axis[2] * j->axis[2]);
  if ((t == MBG_MJ_HINGE || t == MBG_MJ_SLIDE) && !(len > 1e-14)) {
    mbg_diag_error(mj->d, mbg_mjcf_loc(mj, mbg_mjcf_get(mj, n, cls, "axis"), n, "axis"),
                   "the axis of this joint must be a non-zero vector");
    return 0;
  }
  if (len > 1e-14)
    for (int k = 0; k < 3; k++) j->axis[k] /= len;
  ok &= read_props(mj, n, cls, j) && read_limits(mj, n, cls, j);
  if (t == MBG_MJ_HINGE && mj->degree) {
    double f = MBG_MJCF_PI / 180;
    j->ref *= f, j->springref *= f, j->range[0] *= f, j->range[1] *= f;
  }
  if ((t == MBG_MJ_BALL || t == MBG_MJ_FREE) && j->ref != 0) j->ref = 0; /* MuJoCo ignores it */
  return ok;
}
