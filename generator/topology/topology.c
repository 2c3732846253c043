/* topology.c — the numbered kinematic tree: fixed joints merged, regular numbering, DOF offsets,
 * expanded parent array, chains and nodes (Liu, Hu & Zhang, "Constraint force algorithm for
 * tree-like multibody system dynamics", Chinese Journal of Theoretical and Applied Mechanics
 * 48(1), 2016, §2.3), loop closures.
 *
 * Stages, each a short function over a private builder:
 *   find_parent_joints   the tree joint whose child each model body is
 *   resolve_hosts        the moving body (or world) each model body is rigidly part of
 *   link_children        children of every moving body, in the declaration order of their joints
 *   number_bodies        depth-first preorder from the world, no recursion
 *   fill_bodies          λ, depth, offsets, XT, axis, merged inertia, subtree ranges
 *   build_dofs, build_chains, build_loops, build_merged
 * A model body without a parent joint, or not connected to the world, is skipped (the model is
 * validated beforehand; this only keeps a bad model from crashing us). */
#include "topology/topology.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>

#define UNKNOWN (-2)

typedef struct builder {
  const mbg_model *m;
  mbg_topology *t;
  int *pjoint;    /* [nbodies] tree joint whose child the body is, or -1 */
  int *host;      /* [nbodies] model body it is merged into (itself if moving, 0 world), -1 lost */
  mbg_xform *rel; /* [nbodies] its frame relative to the host's frame */
  int *number;    /* [nbodies] tree number of a moving body (0 for the world), else -1 */
  int *first;     /* [nbodies] first moving child (model index), -1 */
  int *last;      /* [nbodies] last moving child, -1 */
  int *next;      /* [nbodies] next moving sibling, -1 */
  int *stack;     /* [nbodies + 1] scratch */
  int *order;     /* [nbodies] model body of each tree number */
} builder;

/* ---------------------------------------------------------------- inertias */

static void inertia_add(mbg_inertia *acc, const mbg_inertia *a) {
  acc->m += a->m;
  for (int i = 0; i < 3; i++) acc->h[i] += a->h[i];
  for (int i = 0; i < 6; i++) acc->I[i] += a->I[i];
}

/* ---------------------------------------------------------------- the builder */

static void joint_xform(const mbg_joint *j, mbg_xform *X) {
  mbg_xform_from_xyz_rpy(j->xyz, j->rpy, X);
}

static void find_parent_joints(builder *B) {
  const mbg_model *m = B->m;
  for (int b = 0; b < m->nbodies; b++) B->pjoint[b] = -1;
  for (int j = 0; j < m->njoints; j++) {
    const mbg_joint *J = &m->joints[j];
    if (!mbg_joint_type_is_tree(J->type) || J->parent < 0 || J->parent >= m->nbodies) continue;
    if (J->child <= 0 || J->child >= m->nbodies || B->pjoint[J->child] >= 0) continue;
    B->pjoint[J->child] = j;
  }
}

/* Walk up through fixed joints until the world, a moving body (or a flexible one) or a known host;
 * then give every body on the way that host and its frame: rel(b) = X_joint(b) rel(parent). */
static void resolve_host(builder *B, int b) {
  const mbg_model *m = B->m;
  int n = 0, x = b;
  while (B->host[x] == UNKNOWN) {
    int j = B->pjoint[x];
    /* a flexible body with modes on a fixed joint stays a body of the tree (a joint of no dof:
     * its modes are its coordinates) */
    int flexible = x > 0 && m->bodies[x].flex && m->bodies[x].flex->nmodes > 0;
    if (x == 0 || (j >= 0 && (m->joints[j].type != MBG_JOINT_FIXED || flexible))) {
      B->host[x] = x;
      mbg_xform_identity(&B->rel[x]);
    } else if (j < 0 || n >= m->nbodies) {
      B->host[x] = -1; /* no parent joint, or a cycle of fixed joints */
    } else {
      B->stack[n++] = x;
      x = m->joints[j].parent;
    }
  }
  while (n > 0) {
    int y = B->stack[--n], p = m->joints[B->pjoint[y]].parent;
    B->host[y] = B->host[p];
    if (B->host[y] >= 0) {
      mbg_xform Xj;
      joint_xform(&m->joints[B->pjoint[y]], &Xj);
      mbg_xform_compose(&Xj, &B->rel[p], &B->rel[y]);
    }
  }
}

static void resolve_hosts(builder *B) {
  for (int b = 0; b < B->m->nbodies; b++) B->host[b] = UNKNOWN;
  for (int b = 0; b < B->m->nbodies; b++) resolve_host(B, b);
}

static int is_moving(const builder *B, int b) {
  return b > 0 && B->host[b] == b;
}

/* Children of each moving body (or the world) by the declaration order of their joints; the
 * children of merged bodies are re-attached to the host. */
static void link_children(builder *B) {
  const mbg_model *m = B->m;
  for (int b = 0; b < m->nbodies; b++) B->first[b] = B->last[b] = B->next[b] = -1;
  for (int j = 0; j < m->njoints; j++) {
    int c = m->joints[j].child;
    if (c <= 0 || c >= m->nbodies || B->pjoint[c] != j || !is_moving(B, c)) continue;
    int p = B->host[m->joints[j].parent];
    if (p < 0) continue;
    if (B->last[p] < 0) B->first[p] = c;
    else B->next[B->last[p]] = c;
    B->last[p] = c;
  }
}

/* Depth-first preorder from the world, threaded through first/next and the host of the parent
 * joint's parent body (no recursion, no stack). */
static int number_bodies(builder *B) {
  const mbg_model *m = B->m;
  int nb = 0;
  for (int b = 0; b < m->nbodies; b++) B->number[b] = -1;
  B->number[0] = 0;
  B->order[0] = 0;
  int x = B->first[0];
  while (x >= 0) {
    B->number[x] = ++nb;
    B->order[nb] = x;
    if (B->first[x] >= 0) {
      x = B->first[x];
      continue;
    }
    while (x != 0 && B->next[x] < 0) x = B->host[m->joints[B->pjoint[x]].parent];
    x = x == 0 ? -1 : B->next[x];
  }
  return nb;
}

/* The model body's parent joint and its tree transform XT = X_joint rel(parent body). */
static void fill_joint(builder *B, int i, int b) {
  const mbg_model *m = B->m;
  mbg_tree_body *tb = &B->t->body[i];
  const mbg_joint *J = &m->joints[B->pjoint[b]];
  mbg_xform Xj;
  tb->model_joint = B->pjoint[b];
  tb->type = J->type;
  tb->parent = B->number[B->host[J->parent]];
  tb->depth = B->t->body[tb->parent].depth + 1;
  joint_xform(J, &Xj);
  mbg_xform_compose(&Xj, &B->rel[J->parent], &tb->XT);
  for (int k = 0; k < 3; k++) tb->axis[k] = J->axis[k], tb->axis2[k] = J->axis2[k];
  tb->pitch = J->pitch;
  tb->nq = mbg_joint_type_nq(J->type);
  tb->nv = mbg_joint_type_nv(J->type);
}

/* Inertias of every model body into its host, in model order (bodies on the world dropped). */
static void merge_inertias(builder *B) {
  for (int b = 1; b < B->m->nbodies; b++) {
    int h = B->host[b];
    if (h <= 0 || B->number[h] <= 0) continue;
    mbg_inertia own, moved;
    mbg_inertia_from_body(&B->m->bodies[b], &own);
    mbg_inertia_to_parent(&B->rel[b], &own, &moved);
    inertia_add(&B->t->body[B->number[h]].I, &moved);
  }
}

static void fill_bodies(builder *B) {
  mbg_topology *t = B->t;
  mbg_tree_body *w = &t->body[0];
  w->model_joint = -1;
  w->type = MBG_JOINT_FIXED;
  w->parent = -1;
  mbg_xform_identity(&w->XT);
  for (int i = 0; i <= t->nb; i++) {
    mbg_tree_body *tb = &t->body[i];
    tb->model_body = B->order[i];
    tb->subtree_end = i + 1;
    tb->chain = -1;
    if (i == 0) continue;
    fill_joint(B, i, B->order[i]);
    const mbg_flex *f = B->m->bodies[B->order[i]].flex;
    tb->nm = f ? f->nmodes : 0;
    tb->iq = t->nq, tb->iv = t->nv;
    t->nq += tb->nq + tb->nm, t->nv += tb->nv + tb->nm;
  }
  for (int i = t->nb; i >= 1; i--) { /* children by prepending in reverse: declaration order */
    mbg_tree_body *p = &t->body[t->body[i].parent];
    t->body[i].next_sibling = p->first_child;
    p->first_child = i;
    p->nchildren++;
    if (t->body[i].subtree_end > p->subtree_end) p->subtree_end = t->body[i].subtree_end;
  }
  for (int i = 0; i <= t->nb; i++) t->body[i].is_node = t->body[i].nchildren > 1;
  t->world_is_node = w->is_node;
  merge_inertias(B);
}

/* ---------------------------------------------------------------- derived structure */

static int build_dofs(mbg_topology *t) {
  size_t n = (size_t)(t->nv > 0 ? t->nv : 1);
  t->dof_parent = malloc(n * sizeof *t->dof_parent);
  t->dof_body = malloc(n * sizeof *t->dof_body);
  if (!t->dof_parent || !t->dof_body) return -1;
  for (int i = 1; i <= t->nb; i++) {
    const mbg_tree_body *tb = &t->body[i];
    int p = tb->parent;
    while (p > 0 && t->body[p].nv + t->body[p].nm == 0) p = t->body[p].parent;
    int above = p > 0 ? t->body[p].iv + t->body[p].nv + t->body[p].nm - 1 : -1;
    for (int k = 0; k < tb->nv + tb->nm; k++) { /* the joint's dofs, then the modes */
      t->dof_body[tb->iv + k] = i;
      t->dof_parent[tb->iv + k] = k > 0 ? tb->iv + k - 1 : above;
    }
  }
  return 0;
}

/* Nodes: moving bodies with more than one child. Chains: maximal parent-child runs of the other
 * moving bodies, each starting where the parent is the world or a node, ordered by first body. */
static int build_chains(mbg_topology *t) {
  size_t n = (size_t)t->nb + 1;
  t->node = malloc(n * sizeof *t->node);
  t->chain_body = malloc(n * sizeof *t->chain_body);
  t->chain_start = malloc(n * sizeof *t->chain_start);
  if (!t->node || !t->chain_body || !t->chain_start) return -1;
  int nbody = 0;
  for (int i = 1; i <= t->nb; i++) {
    mbg_tree_body *tb = &t->body[i];
    if (tb->is_node) {
      t->node[t->nnodes++] = i;
      continue;
    }
    int p = tb->parent;
    if (p != 0 && !t->body[p].is_node) continue; /* inside a chain started above */
    t->chain_start[t->nchains] = nbody;
    for (int x = i; x > 0 && !t->body[x].is_node; x = t->body[x].first_child) {
      t->body[x].chain = t->nchains;
      t->chain_body[nbody++] = x;
    }
    t->nchains++;
  }
  t->chain_start[t->nchains] = nbody;
  return 0;
}

/* The path of a loop: a up to the nearest common ancestor, then down to b. The upward half is
 * written as we climb from a; the downward half from its far end, b, backwards. */
static int loop_path(mbg_topology *t, mbg_tree_loop *L) {
  const mbg_tree_body *tb = t->body;
  int a = L->a, b = L->b, na = 0, nb = 0;
  L->path = malloc((size_t)(tb[a].depth + tb[b].depth + 1) * sizeof *L->path);
  if (!L->path) return -1;
  while (tb[a].depth > tb[b].depth) {
    L->path[na++] = a;
    a = tb[a].parent;
  }
  for (; tb[b].depth > tb[a].depth; nb++) b = tb[b].parent;
  for (; a != b; nb++) {
    L->path[na++] = a;
    a = tb[a].parent;
    b = tb[b].parent;
  }
  L->ancestor = a;
  L->npath = na + nb;
  b = L->b;
  for (int k = L->npath - 1; k >= na; k--) {
    L->path[k] = b;
    b = tb[b].parent;
  }
  return 0;
}

static int build_loops(builder *B) {
  const mbg_model *m = B->m;
  mbg_topology *t = B->t;
  t->loop = calloc((size_t)(m->nloops > 0 ? m->nloops : 1), sizeof *t->loop);
  if (!t->loop) return -1;
  for (int l = 0; l < m->nloops; l++) {
    const mbg_loop *ml = &m->loops[l];
    int ba = ml->body_a, bb = ml->body_b;
    if (ba < 0 || ba >= m->nbodies || bb < 0 || bb >= m->nbodies) continue;
    if (B->host[ba] < 0 || B->host[bb] < 0) continue;
    if (B->number[B->host[ba]] < 0 || B->number[B->host[bb]] < 0) continue;
    mbg_tree_loop *L = &t->loop[t->nloops++];
    mbg_xform X;
    L->model_loop = l;
    L->a = B->number[B->host[ba]];
    L->b = B->number[B->host[bb]];
    mbg_xform_from_xyz_rpy(ml->xyz, ml->rpy, &X);
    mbg_xform_compose(&X, &B->rel[ba], &L->Xa);
    mbg_xform_from_xyz_rpy(ml->target_xyz, ml->target_rpy, &X);
    mbg_xform_compose(&X, &B->rel[bb], &L->Xb);
    if (loop_path(t, L) != 0) return -1;
  }
  return 0;
}

static int build_merged(builder *B) {
  const mbg_model *m = B->m;
  mbg_topology *t = B->t;
  t->merged = calloc((size_t)m->nbodies, sizeof *t->merged);
  if (!t->merged) return -1;
  t->nmerged = m->nbodies;
  for (int b = 0; b < m->nbodies; b++) {
    mbg_merged *mb = &t->merged[b];
    mb->model_body = b;
    mb->into = B->host[b] >= 0 ? B->number[B->host[b]] : -1;
    if (mb->into >= 0) mb->X = B->rel[b];
    else mbg_xform_identity(&mb->X);
  }
  return 0;
}

/* ---------------------------------------------------------------- entry points */

static void builder_free(builder *B) {
  free(B->pjoint);
  free(B->host);
  free(B->rel);
  free(B->number);
  free(B->first);
  free(B->last);
  free(B->next);
  free(B->stack);
  free(B->order);
}

static int builder_init(builder *B, const mbg_model *m) {
  size_t n = (size_t)m->nbodies + 1, s = sizeof(int);
  memset(B, 0, sizeof *B);
  B->m = m;
  B->pjoint = malloc(n * s), B->host = malloc(n * s), B->number = malloc(n * s);
  B->first = malloc(n * s), B->last = malloc(n * s), B->next = malloc(n * s);
  B->stack = malloc(n * s), B->order = malloc(n * s);
  B->rel = malloc(n * sizeof *B->rel);
  return B->pjoint && B->host && B->number && B->first && B->last && B->next && B->stack &&
                 B->order && B->rel
             ? 0
             : -1;
}

mbg_topology *mbg_topology_build(const mbg_model *m) {
  if (!m || m->nbodies < 1) return NULL;
  builder B;
  mbg_topology *t = calloc(1, sizeof *t);
  memset(&B, 0, sizeof B);
  if (!t || builder_init(&B, m) != 0) {
    free(t);
    builder_free(&B);
    return NULL;
  }
  B.t = t;
  find_parent_joints(&B);
  resolve_hosts(&B);
  link_children(&B);
  t->nb = number_bodies(&B);
  t->body = calloc((size_t)t->nb + 1, sizeof *t->body);
  int ok = t->body != NULL;
  if (ok) fill_bodies(&B);
  ok = ok && build_dofs(t) == 0 && build_chains(t) == 0;
  ok = ok && build_loops(&B) == 0 && build_merged(&B) == 0 && mbg_topology_modal(m, t) == 0;
  builder_free(&B);
  ok = ok && mbg_topology_springs(m, t) == 0 && mbg_topology_initial(m, t) == 0;
  ok = ok && mbg_topology_frames(m, t) == 0;
  ok = ok && mbg_topology_coupling(m, t) == 0;
  if (!ok) {
    mbg_topology_free(t);
    return NULL;
  }
  return t;
}

void mbg_topology_free(mbg_topology *t) {
  if (!t) return;
  if (t->loop)
    for (int l = 0; l < t->nloops; l++) free(t->loop[l].path);
  free(t->loop);
  free(t->spring);
  free(t->frame);
  free(t->q_initial);
  free(t->v_initial);
  free(t->q_of), free(t->v_of), free(t->q_mult), free(t->q_off), free(t->v_mult);
  free(t->q_coupled), free(t->v_coupled);
  for (int i = 0; t->body && i <= t->nb; i++) {
    mbg_modal_free(&t->body[i].modal);
    free(t->body[i].psi);
  }
  free(t->body);
  free(t->merged);
  free(t->dof_parent);
  free(t->dof_body);
  free(t->chain_start);
  free(t->chain_body);
  free(t->node);
  free(t);
}

int mbg_topology_supports(const mbg_topology *t, int j, int i) {
  if (j < 0 || i < 0 || j > t->nb || i > t->nb) return 0;
  return j <= i && i < t->body[j].subtree_end;
}
