/* build_jprops.c — a joint's properties (docs/dsl.md "Joint properties"): armature, damping,
 * friction, stiffness with its reference position, and the limits. Each is a property of the
 * joint statement, given at most once:
 *   armature A;         rotor inertia on every dof (kg m² or kg), A ≥ 0
 *   damping D;          viscous, −D q̇ on every dof, D ≥ 0
 *   friction F;         Coulomb, |τ| ≤ F on every dof, F ≥ 0
 *   stiffness K;        −K (q − q_ref) (1-dof joints), K ≥ 0
 *   spring_ref Q;       q_ref (default 0; an angle for a rotating joint)
 *   limit LOWER UPPER;  the position range (1-dof joints but continuous), LOWER < UPPER
 *   velocity_limit V;   effort_limit E;   positive
 *   mimic JOINT [MULTIPLIER [OFFSET]];   q = MULTIPLIER q_JOINT + OFFSET (default 1, 0): a coupled
 *                       joint without a coordinate of its own (model/mimic.c checks the pair) */
#include <math.h>
#include <string.h>

#include "model/build_internal.h"

typedef struct jprops {
  const mbd_item *armature, *damping, *friction, *stiffness, *spring_ref, *limit, *vlimit,
      *elimit, *mimic;
} jprops;

/* The slot of item it among the properties, or NULL when it is none of them. */
static const mbd_item **slot_of(jprops *p, const mbd_item *it) {
  if (it->kind == MBD_I_DAMPING && it->args) return &p->damping;
  if (it->kind == MBD_I_STIFFNESS && it->args) return &p->stiffness;
  if (it->kind != MBD_I_UNKNOWN || !it->name) return NULL;
  static const char *const names[] = {"armature", "friction", "spring_ref", "limit",
                                      "velocity_limit", "effort_limit", "mimic"};
  const mbd_item **slots[] = {&p->armature, &p->friction, &p->spring_ref, &p->limit, &p->vlimit,
                              &p->elimit, &p->mimic};
  for (int k = 0; k < 7; k++)
    if (strcmp(it->name, names[k]) == 0) return slots[k];
  return NULL;
}

int mbg_joint_prop_item(const mbd_item *it) {
  jprops p;
  memset(&p, 0, sizeof p);
  return slot_of(&p, it) != NULL;
}

/* One value ≥ 0 (or > 0 with positive) into *v. */
static void nonneg(mbg_builder *b, const mbd_item *it, mbg_unit_use use, int positive, double *v) {
  char what[40];
  snprintf(what, sizeof what, "'%s'", mbg_item_word(it));
  if (!mbg_eval_list(b, it->args, it->loc, what, 1, 0, use, v)) return;
  if (positive ? !(*v > 0) : !(*v >= 0))
    mbg_diag_error(b->d, it->loc, "%s must be %s (it is %g)", what,
                   positive ? "positive" : "zero or positive", *v);
}

/* A property that needs a joint of one dof (not fixed, spherical, floating). */
static int one_dof(mbg_builder *b, const mbd_item *it, const mbg_joint *j) {
  if (mbg_joint_type_nv(j->type) == 1) return 1;
  mbg_diag_error(b->d, it->loc, "'%s' applies to a joint of one degree of freedom (revolute, "
                                "continuous, prismatic, helical), not a %s joint",
                 mbg_item_word(it), mbg_joint_type_name(j->type));
  return 0;
}

static void read_limit(mbg_builder *b, const mbd_item *it, mbg_joint *j, mbg_unit_use use) {
  if (!one_dof(b, it, j)) return;
  if (j->type == MBG_JOINT_CONTINUOUS) {
    mbg_diag_error(b->d, it->loc, "a continuous joint has no position limits (make it revolute)");
    return;
  }
  double r[2];
  if (!mbg_eval_list(b, it->args, it->loc, "'limit'", 2, 0, use, r)) return;
  if (!(r[0] < r[1])) {
    mbg_diag_error(b->d, it->loc, "'limit' needs LOWER < UPPER (they are %g and %g)", r[0], r[1]);
    return;
  }
  j->has_range = 1, j->lower = r[0], j->upper = r[1];
}

/* mimic JOINT [MULTIPLIER [OFFSET]]: the source by name (any joint of the model, declared before
 * or after), the factor and the offset (an angle where the coordinate is one). */
static void read_mimic(mbg_builder *b, const mbd_item *it, mbg_joint *j, mbg_unit_use use) {
  const mbd_exprs *l = it->args;
  if (!l || l->n < 1 || l->n > 3 || l->v[0]->kind != MBD_E_NAME) {
    mbg_diag_error(b->d, it->loc, "'mimic' expects the name of the joint it follows, then "
                                  "optionally a multiplier and an offset: 'mimic JOINT "
                                  "[MULTIPLIER [OFFSET]];'");
    return;
  }
  int e = mbg_resolve(b, l->v[0]->name, l->v[0]->loc, MBG_NAME_JOINT);
  double mult = 1, off = 0;
  int ok = e >= 0;
  if (l->n > 1) ok &= mbg_eval(b, l->v[1], MBG_NOT_ANGLE, &mult);
  if (l->n > 2) ok &= mbg_eval(b, l->v[2], use, &off);
  if (!ok) return;
  if (!(mult != 0) || !isfinite(mult) || !isfinite(off)) {
    mbg_diag_error(b->d, it->loc, "'mimic' needs a finite, nonzero multiplier (it is %g)", mult);
    return;
  }
  j->mimic = b->names.entry[e].index + 1;
  j->mimic_mult = mult;
  j->mimic_off = off;
  j->mimic_loc = it->loc;
}

void mbg_build_joint_props(mbg_builder *b, const mbd_stmt *s, mbg_joint *j) {
  jprops p;
  memset(&p, 0, sizeof p);
  for (const mbd_item *it = s->items; it; it = it->next) {
    const mbd_item **slot = slot_of(&p, it);
    char what[40];
    snprintf(what, sizeof what, "'%s'", mbg_item_word(it));
    if (slot) mbg_once(b, slot, it, what);
  }
  if (j->type == MBG_JOINT_FIXED) {
    const mbd_item *any[] = {p.armature, p.damping, p.friction, p.stiffness, p.spring_ref,
                             p.limit, p.vlimit, p.elimit, p.mimic};
    for (int k = 0; k < 9; k++)
      if (any[k]) {
        mbg_diag_error(b->d, any[k]->loc, "a fixed joint has no '%s' (it does not move)",
                       mbg_item_word(any[k]));
        return;
      }
  }
  /* an angle where the coordinate is one (deg allowed) */
  mbg_unit_use use = mbg_joint_type_is_angle(j->type) ? MBG_ANGLE : MBG_NOT_ANGLE;
  if (p.armature) nonneg(b, p.armature, MBG_NOT_ANGLE, 0, &j->armature);
  if (p.damping) nonneg(b, p.damping, MBG_NOT_ANGLE, 0, &j->damping);
  if (p.friction) nonneg(b, p.friction, MBG_NOT_ANGLE, 0, &j->friction);
  if (p.stiffness && one_dof(b, p.stiffness, j)) nonneg(b, p.stiffness, MBG_NOT_ANGLE, 0, &j->stiffness);
  if (p.spring_ref && one_dof(b, p.spring_ref, j)) {
    if (!p.stiffness)
      mbg_diag_error(b->d, p.spring_ref->loc, "'spring_ref' without 'stiffness' has no effect");
    mbg_eval_list(b, p.spring_ref->args, p.spring_ref->loc, "'spring_ref'", 1, 0, use,
                  &j->spring_ref);
  }
  if (p.limit) read_limit(b, p.limit, j, use);
  if (p.vlimit && one_dof(b, p.vlimit, j)) nonneg(b, p.vlimit, MBG_NOT_ANGLE, 1, &j->velocity_limit);
  if (p.elimit && one_dof(b, p.elimit, j)) nonneg(b, p.elimit, MBG_NOT_ANGLE, 1, &j->effort_limit);
  if (p.mimic && one_dof(b, p.mimic, j)) read_mimic(b, p.mimic, j, use);
}
