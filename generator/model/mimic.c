/* mimic.c — the coupled (mimic) joints of a model (model.h mbg_check_mimic; docs/dsl.md
 * "Coupled joints"): a joint whose coordinate is q = m q_source + o has no coordinate of its
 * own. Both joints move by one scalar coordinate (revolute, continuous, prismatic, helical), so
 * that the map from the independent coordinates is linear with a constant matrix G in the
 * velocities (v = G v_independent) and affine in the positions; the source is independent
 * itself (no chains, which a user writes as one source with the product of the multipliers). */
#include "model/model.h"

static const char *jname(const mbg_model *m, int j) { return m->joints[j].name; }

static int one_scalar(mbg_joint_type t) {
  return mbg_joint_type_is_tree(t) && mbg_joint_type_nq(t) == 1 && mbg_joint_type_nv(t) == 1;
}

void mbg_check_mimic(const mbg_model *m, mbg_diag *d) {
  for (int j = 0; j < m->njoints; j++) {
    const mbg_joint *J = &m->joints[j];
    if (!J->mimic) continue;
    int s = J->mimic - 1;
    const mbg_joint *S = &m->joints[s];
    if (s == j) {
      mbg_diag_error(d, J->mimic_loc, "joint '%s' mimics itself", J->name);
    } else if (!one_scalar(J->type) || !one_scalar(S->type)) {
      mbg_diag_error(d, J->mimic_loc, "joint '%s' (%s) mimics joint '%s' (%s): a coupled joint "
                                      "and its source must each have one scalar coordinate "
                                      "(revolute, continuous, prismatic, helical)",
                     J->name, mbg_joint_type_name(J->type), jname(m, s),
                     mbg_joint_type_name(S->type));
    } else if (S->mimic) {
      mbg_diag_error(d, J->mimic_loc, "joint '%s' mimics joint '%s', which mimics joint '%s' "
                                      "itself: make '%s' follow '%s' directly (multipliers "
                                      "multiply, m2 (m1 q + o1) + o2)",
                     J->name, jname(m, s), jname(m, S->mimic - 1), J->name,
                     jname(m, S->mimic - 1));
    } else if (J->has_q0 || J->has_v0) {
      mbg_diag_error(d, J->initial_loc, "joint '%s' mimics joint '%s': its initial state follows "
                                        "from the source's; give 'initial' for '%s'",
                     J->name, jname(m, s), jname(m, s));
    } else if (m->nloops > 0) {
      /* the loops' assembly and their independent rows would have to respect the coupling */
      mbg_diag_error(d, J->mimic_loc, "joint '%s' mimics joint '%s', and the model has loop "
                                      "joints ('%s'): coupled joints are not supported with loops "
                                      "yet", J->name, jname(m, s), m->loops[0].name);
    }
  }
}
