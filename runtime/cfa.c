/* cfa.c — forward dynamics with the joint wrenches by the Constraint Force Algorithm
 * (ALGORITHMS.md §4; seed 000 eqs. 22-29), dense reference form. */
#include "mb.h"

size_t mb_cfa_nc(const mb_model *m) {
  size_t nc = 0;
  for (int i = 1; i <= m->nb; i++) nc += (size_t)(6 - mb_joint_nv(m->jtype[i]));
  return nc;
}
