/* urdf_tree.c — the links of a URDF as one tree: every joint names existing links, every link
 * has at most one parent joint, there is exactly one root (the link `world`, or else the link
 * that the root joint will hang from the world), no cycles, nothing unconnected. */
#include <stdlib.h>
#include <string.h>

#include "urdf/urdf_internal.h"

/* The link named by attribute `link` of a joint's <parent> or <child>, or -1 after reporting. */
static int link_ref(mbg_urdf *u, const mbg_urdf_joint *j, xmlNodePtr ref) {
  const char *name = mbg_urdf_need_attr(u, ref, "link");
  if (!name) return -1;
  int e = mbg_names_find(&u->link_names, name);
  if (e >= 0) return e;
  /* the search is linear in the links: only for the errors that are printed */
  const char *near =
      mbg_diag_will_print(u->d) ? mbg_names_suggest(&u->link_names, name, MBG_NAME_BODY) : NULL;
  mbg_loc loc = mbg_urdf_loc(u, ref, "link");
  if (near)
    mbg_diag_error(u->d, loc, "joint '%s' names an unknown link '%.63s'; did you mean '%s'?",
                   j->name, name, near);
  else
    mbg_diag_error(u->d, loc, "joint '%s' names an unknown link '%.63s'", j->name, name);
  return -1;
}

/* Parent and child of every joint; a link that is the child of two joints is an error. */
static int resolve(mbg_urdf *u) {
  int ok = 1;
  for (int k = 0; k < u->njoints; k++) {
    mbg_urdf_joint *j = &u->joints[k];
    j->parent = j->parent_node ? link_ref(u, j, j->parent_node) : -1;
    j->child = j->child_node ? link_ref(u, j, j->child_node) : -1;
    if (j->parent < 0 || j->child < 0) {
      ok = 0;
      continue;
    }
    mbg_urdf_link *c = &u->links[j->child];
    if (j->parent == j->child) {
      mbg_diag_error(u->d, mbg_urdf_loc(u, j->child_node, "link"),
                     "joint '%s' connects link '%s' to itself", j->name, c->name);
      ok = 0;
    } else if (j->child == u->world) {
      mbg_diag_error(u->d, mbg_urdf_loc(u, j->child_node, "link"),
                     "link 'world' is the fixed world frame: it cannot be the child of joint '%s'",
                     j->name);
      ok = 0;
    } else if (c->parent_joint >= 0) {
      const mbg_urdf_joint *first = &u->joints[c->parent_joint];
      mbg_diag_error(u->d, mbg_urdf_loc(u, j->child_node, "link"),
                     "link '%s' is the child of two joints, '%s' and '%s'; a URDF describes a "
                     "tree, where every link but the root has exactly one parent joint",
                     c->name, first->name, j->name);
      mbg_diag_note(u->d, mbg_urdf_loc(u, first->child_node, "link"),
                    "joint '%s' has it as its child here", first->name);
      ok = 0;
    } else {
      c->parent_joint = k;
    }
  }
  return ok;
}

/* Links without a parent joint: `world` if there is one, else exactly one root. */
static int find_root(mbg_urdf *u) {
  int ok = 1, first = -1;
  for (int i = 0; i < u->nlinks; i++) {
    const mbg_urdf_link *l = &u->links[i];
    if (l->parent_joint >= 0 || i == u->world) continue;
    mbg_loc loc = mbg_urdf_loc(u, l->node, "name");
    if (u->world >= 0) {
      mbg_diag_error(u->d, loc,
                     "link '%s' is not connected: no joint has it as its child, and "
                     "only 'world' may be without a parent",
                     l->name);
      ok = 0;
    } else if (first >= 0) {
      mbg_diag_error(u->d, loc,
                     "link '%s' has no parent joint, nor has link '%s': a URDF has "
                     "exactly one root link",
                     l->name, u->links[first].name);
      mbg_diag_note(u->d, mbg_urdf_loc(u, u->links[first].node, "name"), "link '%s' is here",
                    u->links[first].name);
      ok = 0;
    } else {
      first = i;
    }
  }
  u->root = first;
  return ok;
}

/* Walk up from every link; a walk that comes back to itself is a cycle, reported once at its
 * first joint in document order. state: 0 unvisited, 1 on the current walk, 2 done. */
static int find_cycles(mbg_urdf *u) {
  char *state = calloc((size_t)u->nlinks + 1, 1);
  if (!state) return u->oom = 1, 0;
  int ok = 1;
  for (int start = 0; start < u->nlinks; start++) {
    int i = start;
    while (i >= 0 && state[i] == 0) {
      state[i] = 1;
      i = u->links[i].parent_joint < 0 ? -1 : u->joints[u->links[i].parent_joint].parent;
    }
    if (i >= 0 && state[i] == 1) {
      int first = u->links[i].parent_joint, k = i, count = 0;
      char names[200] = "";
      size_t len = 0;
      do {
        int j = u->links[k].parent_joint;
        if (j < first) first = j;
        if (count++ < 6)
          len += (size_t)snprintf(names + len, len < sizeof names ? sizeof names - len : 0,
                                  "%s'%s'", count > 1 ? ", " : "", u->joints[j].name);
        k = u->joints[j].parent;
      } while (k != i);
      mbg_diag_error(u->d, mbg_urdf_loc(u, u->joints[first].node, NULL),
                     "joints %s%s form a cycle, so their links never reach the root; a URDF "
                     "describes a tree (a .mbd closes kinematic loops with 'loop')",
                     names, count > 6 ? ", ..." : "");
      ok = 0;
    }
    for (i = start; i >= 0 && state[i] == 1;) {
      state[i] = 2;
      i = u->links[i].parent_joint < 0 ? -1 : u->joints[u->links[i].parent_joint].parent;
    }
  }
  free(state);
  return ok;
}

int mbg_urdf_tree(mbg_urdf *u) {
  if (!resolve(u)) return 0;
  int ok = find_root(u);
  ok &= find_cycles(u);
  if (ok && u->world < 0 && u->root < 0) { /* cannot happen without a cycle: said above */
    mbg_diag_error(u->d, (mbg_loc){0, 0, 0}, "the robot has no root link");
    ok = 0;
  }
  return ok;
}
