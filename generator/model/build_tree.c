/* build_tree.c — the tree as a whole: one parent joint per body, no cycles, everything connected
 * to the world, every moving joint carrying mass, `independent` naming moving joints. */
#include <stdlib.h>
#include <string.h>

#include "model/build_internal.h"

/* parent_joint[i]: the joint whose child is body i, or -1. Reports bodies with two parents. */
static void assign_parents(mbg_builder *b, int *parent_joint) {
  const mbg_model *m = b->m;
  for (int i = 0; i < m->nbodies; i++) parent_joint[i] = -1;
  for (int j = 0; j < m->njoints; j++) {
    int c = m->joints[j].child, p = m->joints[j].parent;
    if (c <= 0 || p < 0 || p == c) continue;
    if (parent_joint[c] >= 0) {
      const mbg_joint *first = &m->joints[parent_joint[c]];
      mbg_diag_error(b->d, m->joints[j].child_loc,
                     "body '%s' already has a parent joint; a body hangs from exactly one joint "
                     "(close kinematic loops with 'loop')", m->bodies[c].name);
      mbg_diag_note(b->d, first->child_loc, "its parent joint '%s' is here", first->name);
      continue;
    }
    parent_joint[c] = j;
  }
  for (int i = 1; i < m->nbodies && !b->tree_incomplete; i++)
    if (parent_joint[i] < 0)
      mbg_diag_error(b->d, m->bodies[i].loc,
                     "body '%s' is not connected: no joint has it as its child", m->bodies[i].name);
}

/* Follow parents from every body; a walk that returns to itself is a cycle. state: 0 unvisited,
 * 1 on the current walk, 2 known to reach the world (or a reported dead end). */
static void find_cycles(mbg_builder *b, const int *parent_joint, char *state) {
  const mbg_model *m = b->m;
  memset(state, 0, (size_t)m->nbodies);
  state[0] = 2;
  for (int start = 1; start < m->nbodies; start++) {
    int i = start;
    while (state[i] == 0) {
      state[i] = 1;
      i = parent_joint[i] < 0 ? 0 : m->joints[parent_joint[i]].parent;
    }
    if (state[i] == 1) { /* a cycle through i: report it at its first-declared joint */
      int first = parent_joint[i], k = i, count = 0;
      char names[200] = "";
      size_t len = 0;
      do {
        int j = parent_joint[k];
        if (j < first) first = j;
        if (count++ < 6)
          len += (size_t)snprintf(names + len, len < sizeof names ? sizeof names - len : 0, "%s'%s'",
                                  count > 1 ? ", " : "", m->joints[j].name);
        k = m->joints[j].parent;
      } while (k != i);
      mbg_diag_error(b->d, m->joints[first].loc,
                     "joints %s%s form a cycle, so the bodies on it never reach the world; close a "
                     "kinematic loop with 'loop' instead of 'joint'", names, count > 6 ? ", ..." : "");
    }
    for (i = start; state[i] == 1;) { /* mark the walk as done */
      state[i] = 2;
      i = parent_joint[i] < 0 ? 0 : m->joints[parent_joint[i]].parent;
    }
  }
}

/* Every joint with degrees of freedom must move some mass, or M is singular. The subtree masses
 * accumulate over a breadth-first order of the tree (children lists in CSR form), reversed. */
static void check_masses(mbg_builder *b, const int *parent_joint) {
  const mbg_model *m = b->m;
  int n = m->nbodies;
  double *subtree = calloc((size_t)n, sizeof *subtree);
  int *start = calloc((size_t)n + 1, sizeof *start), *child = malloc((size_t)n * sizeof *child);
  int *order = malloc((size_t)n * sizeof *order);
  if (!subtree || !start || !child || !order) {
    b->oom = 1;
    goto done;
  }
  for (int i = 1; i < n; i++) start[m->joints[parent_joint[i]].parent + 1]++;
  for (int i = 0; i < n; i++) start[i + 1] += start[i];
  for (int i = 0; i < n; i++) order[i] = start[i]; /* order[] is first a fill cursor */
  for (int i = 1; i < n; i++) child[order[m->joints[parent_joint[i]].parent]++] = i;
  int head = 0, tail = 0;
  order[tail++] = 0;
  while (head < tail) {
    int p = order[head++];
    for (int c = start[p]; c < start[p + 1]; c++) order[tail++] = child[c];
  }
  for (int t = tail - 1; t > 0; t--) {
    int i = order[t];
    subtree[i] += m->bodies[i].mass;
    subtree[m->joints[parent_joint[i]].parent] += subtree[i];
  }
  for (int j = 0; j < m->njoints; j++) {
    const mbg_joint *jt = &m->joints[j];
    if (jt->child <= 0 || mbg_joint_type_nv(jt->type) == 0 || subtree[jt->child] > 0) continue;
    mbg_diag_error(b->d, jt->loc,
                   "joint '%s' moves no mass: body '%s' and everything beyond it are massless, so "
                   "the mass matrix would be singular", jt->name, m->bodies[jt->child].name);
  }
done:
  free(subtree);
  free(start);
  free(child);
  free(order);
}

static void check_independent(mbg_builder *b) {
  const mbg_model *m = b->m;
  for (int k = 0; k < m->nindependent; k++) {
    const mbg_joint *j = &m->joints[m->independent[k]];
    if (mbg_joint_type_nv(j->type) == 0)
      mbg_diag_error(b->d, j->loc, "joint '%s' is fixed: it has no coordinate to keep independent",
                     j->name);
  }
}

void mbg_check_tree(mbg_builder *b, int errors_before) {
  const mbg_model *m = b->m;
  int *parent_joint = malloc((size_t)m->nbodies * sizeof *parent_joint);
  char *state = malloc((size_t)m->nbodies);
  if (!parent_joint || !state) {
    b->oom = 1;
  } else {
    assign_parents(b, parent_joint);
    find_cycles(b, parent_joint, state);
    /* Mass checks need a sound model: after any error (a rejected mass, a tree with holes) they
     * would only report consequences. */
    if (b->d->errors == errors_before) check_masses(b, parent_joint);
    check_independent(b);
  }
  free(parent_joint);
  free(state);
}
