/* build_flex.c — flexible bodies (Jain & Rodriguez, "Recursive Dynamics for Flexible Multibody
 * Systems Using Spatial Operators", JPL Publication 90-26, 1990, §3): the uniform-beam preset or
 * explicit nodal data (nodes, mode shapes, modal stiffness and damping), and the rigid mass
 * properties they imply. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/build_internal.h"

enum { MAX_MODES = 64 };

static double *read_matrix(mbg_builder *b, const mbd_item *it, int n, const char *what) {
  double *K = calloc((size_t)n * (size_t)n, sizeof *K);
  if (!K) {
    b->oom = 1;
    return NULL;
  }
  const mbd_rows *r = it->rows;
  if (!r || r->n != n) {
    mbg_diag_error(b->d, it->loc, "'%s' needs %d row%s (one per mode), found %d", what, n,
                   n == 1 ? "" : "s", r ? r->n : 0);
    free(K);
    return NULL;
  }
  int ok = 1;
  for (int i = 0; i < n; i++) {
    char label[48];
    snprintf(label, sizeof label, "row %d of '%s'", i + 1, what);
    ok &= mbg_eval_list(b, r->row[i], r->row[i]->loc, label, n, 0, MBG_NOT_ANGLE, K + i * n) == n;
  }
  for (int i = 0; ok && i < n; i++)
    for (int j = 0; j < i; j++)
      if (fabs(K[i * n + j] - K[j * n + i]) > 1e-12 * (fabs(K[i * n + j]) + fabs(K[j * n + i]))) {
        mbg_diag_error(b->d, it->loc, "'%s' is not symmetric: entry (%d,%d) is %g but (%d,%d) is %g",
                       what, i + 1, j + 1, K[i * n + j], j + 1, i + 1, K[j * n + i]);
        ok = 0;
        i = n;
        break;
      }
  if (!ok) {
    free(K);
    return NULL;
  }
  return K;
}

/* 1 if the symmetric n×n matrix is positive definite (strict) or semidefinite (!strict), by an
 * LDLᵀ factorization of a copy. */
static int positive(const double *A, int n, int strict) {
  double L[MAX_MODES * MAX_MODES], D[MAX_MODES];
  double scale = 0;
  for (int i = 0; i < n; i++) scale = fmax(scale, fabs(A[i * n + i]));
  double tol = 1e-12 * scale;
  for (int j = 0; j < n; j++) {
    double d = A[j * n + j];
    for (int k = 0; k < j; k++) d -= L[j * n + k] * L[j * n + k] * D[k];
    if (strict ? d <= tol : d < -tol) return 0;
    D[j] = d;
    for (int i = j + 1; i < n; i++) {
      double s = A[i * n + j];
      for (int k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k] * D[k];
      L[i * n + j] = d > tol ? s / d : 0.0;
    }
  }
  return 1;
}

static void read_beam(mbg_builder *b, const mbd_item *beam, mbg_body *body, mbg_flex *f) {
  const mbd_item *len = NULL, *ei = NULL, *rhoa = NULL, *modes = NULL;
  for (const mbd_item *it = beam->sub; it; it = it->next) {
    const mbd_item **slot = it->kind == MBD_I_LENGTH ? &len : it->kind == MBD_I_EI ? &ei
                            : it->kind == MBD_I_RHOA ? &rhoa : &modes;
    const char *what = it->kind == MBD_I_LENGTH ? "'length'" : it->kind == MBD_I_EI ? "'EI'"
                       : it->kind == MBD_I_RHOA ? "'rhoA'" : "'modes'";
    mbg_once(b, slot, it, what);
  }
  struct { const mbd_item *it; const char *what; double *v; } p[4] = {
    {len, "length", &f->length}, {ei, "EI", &f->EI}, {rhoa, "rhoA", &f->rhoA}, {modes, "modes", NULL}};
  double nm = 0;
  p[3].v = &nm;
  for (int k = 0; k < 4; k++) {
    if (!p[k].it) {
      mbg_diag_error(b->d, beam->loc, "the beam needs '%s'", p[k].what);
      continue;
    }
    if (mbg_eval(b, p[k].it->args->v[0], MBG_NOT_ANGLE, p[k].v) &&
        !(k == 3 ? *p[k].v >= 0 : *p[k].v > 0))
      mbg_diag_error(b->d, p[k].it->loc, "'%s' must be %s (it is %g)", p[k].what,
                     k == 3 ? "zero or more" : "positive", *p[k].v);
  }
  if (modes && (nm != floor(nm) || nm > 20))
    mbg_diag_error(b->d, modes->loc, "'modes' must be a whole number from 0 to 20 (it is %g)", nm);
  f->nmodes = nm >= 0 && nm <= 20 ? (int)nm : 0;
  /* the rigid body it is: a uniform rod along x */
  body->mass = f->rhoA * f->length;
  body->com[0] = f->length / 2;
  body->inertia[1] = body->inertia[2] = body->mass * f->length * f->length / 12;
}

static void read_node(mbg_builder *b, const mbd_item *def, mbg_node *node) {
  const mbd_item *xyz = NULL, *mass = NULL, *inertia = NULL;
  for (const mbd_item *it = def->sub; it; it = it->next) {
    if (it->kind == MBD_I_ORIGIN) mbg_once(b, &xyz, it, "'xyz'");
    else if (it->kind == MBD_I_MASS) mbg_once(b, &mass, it, "'mass'");
    else mbg_once(b, &inertia, it, "'inertia'");
  }
  if (!xyz) mbg_diag_error(b->d, def->loc, "node '%s' needs a position 'xyz'", def->name);
  else mbg_eval_list(b, xyz->args, xyz->loc, "'xyz'", 3, 0, MBG_NOT_ANGLE, node->xyz);
  if (mass && mbg_eval_list(b, mass->args, mass->loc, "'mass'", 1, 0, MBG_NOT_ANGLE, &node->mass) &&
      node->mass < 0)
    mbg_diag_error(b->d, mass->loc, "the mass of node '%s' is negative (%g)", def->name, node->mass);
  if (inertia) {
    int errs = b->d->errors;
    mbg_eval_list(b, inertia->args, inertia->loc, "'inertia'", 3, 6, MBG_NOT_ANGLE, node->inertia);
    char whose[96];
    snprintf(whose, sizeof whose, "node '%s'", def->name);
    if (b->d->errors == errs) mbg_check_inertia(b, node->inertia, node->mass, inertia->loc, whose);
  }
}

static int read_nodes(mbg_builder *b, const mbd_item *nodes, mbg_flex *f) {
  int n = 0;
  for (const mbd_item *it = nodes->sub; it; it = it->next) n++;
  f->nodes = calloc((size_t)n + 1, sizeof *f->nodes);
  if (!f->nodes) return b->oom = 1, 0;
  for (const mbd_item *it = nodes->sub; it; it = it->next) {
    int dup = -1;
    for (int k = 0; k < f->nnodes; k++)
      if (strcmp(f->nodes[k].name, it->name) == 0) dup = k;
    if (dup >= 0) {
      mbg_diag_error(b->d, it->loc, "node '%s' is declared twice", it->name);
      mbg_diag_note(b->d, f->nodes[dup].loc, "first declared here");
      continue;
    }
    mbg_node *node = &f->nodes[f->nnodes];
    node->name = strdup(it->name);
    if (!node->name) return b->oom = 1, 0;
    node->loc = it->loc;
    f->nnodes++;
    read_node(b, it, node);
  }
  if (f->nnodes == 0) mbg_diag_error(b->d, nodes->loc, "'nodes' declares no node");
  return f->nnodes;
}

static void read_mode(mbg_builder *b, const mbd_item *def, mbg_flex *f, double *shape) {
  const mbd_item **seen = calloc((size_t)f->nnodes + 1, sizeof *seen);
  if (!seen) {
    b->oom = 1;
    return;
  }
  for (const mbd_item *it = def->sub; it; it = it->next) {
    int k = -1;
    for (int i = 0; i < f->nnodes; i++)
      if (strcmp(f->nodes[i].name, it->name) == 0) k = i;
    if (k < 0) {
      mbg_diag_error(b->d, it->loc, "mode '%s' names node '%s', which 'nodes' does not declare",
                     def->name, it->name);
      continue;
    }
    if (mbg_once(b, &seen[k], it, "this node's shape")) continue;
    mbg_eval_list(b, it->args, it->loc, "a mode shape (rotation x y z, translation x y z)", 6, 0,
                  MBG_NOT_ANGLE, shape + 6 * k);
  }
  free(seen);
}

static void read_modes(mbg_builder *b, const mbd_item *modes, mbg_flex *f) {
  int n = 0;
  for (const mbd_item *it = modes->sub; it; it = it->next) n++;
  if (n == 0 || n > MAX_MODES) {
    mbg_diag_error(b->d, modes->loc, "'modes' must declare from 1 to %d modes (found %d)",
                   MAX_MODES, n);
    return;
  }
  f->mode_names = calloc((size_t)n, sizeof *f->mode_names);
  f->shapes = calloc((size_t)n * (size_t)f->nnodes * 6 + 1, sizeof *f->shapes);
  if (!f->mode_names || !f->shapes) {
    b->oom = 1;
    return;
  }
  for (const mbd_item *it = modes->sub; it; it = it->next) {
    const mbd_item *first = NULL;
    for (const mbd_item *o = modes->sub; o != it && !first; o = o->next)
      if (strcmp(o->name, it->name) == 0) first = o;
    if (first) {
      mbg_diag_error(b->d, it->loc, "mode '%s' is declared twice", it->name);
      mbg_diag_note(b->d, first->loc, "first declared here");
      continue;
    }
    f->mode_names[f->nmodes] = strdup(it->name);
    if (!f->mode_names[f->nmodes]) {
      b->oom = 1;
      return;
    }
    read_mode(b, it, f, f->shapes + (size_t)f->nmodes * (size_t)f->nnodes * 6);
    f->nmodes++;
  }
}

/* The rigid body the nodes make: total mass, centre of mass, inertia about it. */
static void nodal_rigid_body(const mbg_flex *f, mbg_body *body) {
  double m = 0, c[3] = {0, 0, 0};
  for (int k = 0; k < f->nnodes; k++) {
    m += f->nodes[k].mass;
    for (int i = 0; i < 3; i++) c[i] += f->nodes[k].mass * f->nodes[k].xyz[i];
  }
  body->mass = m;
  memset(body->inertia, 0, sizeof body->inertia);
  for (int i = 0; i < 3; i++) body->com[i] = m > 0 ? c[i] / m : 0;
  for (int k = 0; k < f->nnodes; k++) {
    const mbg_node *n = &f->nodes[k];
    double d[3] = {n->xyz[0] - body->com[0], n->xyz[1] - body->com[1], n->xyz[2] - body->com[2]};
    double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    for (int i = 0; i < 3; i++) body->inertia[i] += n->inertia[i] + n->mass * (d2 - d[i] * d[i]);
    body->inertia[3] += n->inertia[3] - n->mass * d[0] * d[1];
    body->inertia[4] += n->inertia[4] - n->mass * d[0] * d[2];
    body->inertia[5] += n->inertia[5] - n->mass * d[1] * d[2];
  }
}

static void read_nodal(mbg_builder *b, const mbd_stmt *s, const mbd_item *nodes,
                       const mbd_item *modes, const mbd_item *stiffness, const mbd_item *damping,
                       mbg_body *body, mbg_flex *f) {
  if (!nodes || !modes || !stiffness) {
    mbg_diag_error(b->d, s->flexible_loc,
                   "flexible body '%s' needs either 'beam ...;' or 'nodes', 'modes' and 'stiffness'",
                   s->name);
    return;
  }
  if (!read_nodes(b, nodes, f)) return;
  read_modes(b, modes, f);
  if (f->nmodes == 0) return;
  f->stiffness = read_matrix(b, stiffness, f->nmodes, "stiffness");
  if (f->stiffness && !positive(f->stiffness, f->nmodes, 1))
    mbg_diag_error(b->d, stiffness->loc, "'stiffness' must be positive definite");
  if (damping) {
    f->damping = read_matrix(b, damping, f->nmodes, "damping");
    if (f->damping && !positive(f->damping, f->nmodes, 0))
      mbg_diag_error(b->d, damping->loc, "'damping' must be positive semidefinite");
  }
  nodal_rigid_body(f, body);
}

void mbg_build_flex(mbg_builder *b, const mbd_stmt *s, int index) {
  mbg_body *body = &b->m->bodies[index];
  const mbd_item *beam = NULL, *nodes = NULL, *modes = NULL, *stiffness = NULL, *damping = NULL;
  for (const mbd_item *it = s->items; it; it = it->next) {
    switch (it->kind) {
    case MBD_I_BEAM: mbg_once(b, &beam, it, "'beam'"); break;
    case MBD_I_NODES: mbg_once(b, &nodes, it, "'nodes'"); break;
    case MBD_I_MODES: mbg_once(b, &modes, it, "'modes'"); break;
    case MBD_I_STIFFNESS:
    case MBD_I_DAMPING:
      if (!it->rows) /* `stiffness K;`: a spring's property */
        mbg_diag_error(b->d, it->loc, "a flexible body's '%s' is a matrix: write '%s { ...; ... }'",
                       mbg_item_word(it), mbg_item_word(it));
      else mbg_once(b, it->kind == MBD_I_STIFFNESS ? &stiffness : &damping, it,
                    it->kind == MBD_I_STIFFNESS ? "'stiffness'" : "'damping'");
      break;
    case MBD_I_MASS: case MBD_I_COM: case MBD_I_INERTIA:
      mbg_diag_error(b->d, it->loc, "a flexible body's mass properties come from its beam or "
                                    "nodal data; remove this line");
      break;
    default:
      mbg_diag_error(b->d, it->loc, "'%s' is not a property of a flexible body; expected beam, "
                     "or nodes, modes, stiffness and damping", mbg_item_word(it));
      break;
    }
  }
  body->flex = calloc(1, sizeof *body->flex);
  if (!body->flex) {
    b->oom = 1;
    return;
  }
  if (beam && (nodes || modes || stiffness || damping)) {
    const mbd_item *other = nodes ? nodes : modes ? modes : stiffness ? stiffness : damping;
    mbg_diag_error(b->d, other->loc, "a flexible body has either the beam preset or nodal data, "
                                     "not both");
    mbg_diag_note(b->d, beam->loc, "the beam preset is here");
    return;
  }
  body->flex->is_beam = beam != NULL;
  if (beam) read_beam(b, beam, body, body->flex);
  else read_nodal(b, s, nodes, modes, stiffness, damping, body, body->flex);
}

/* 1 if model body k is flexible with at least one mode (modes 0 is the rigid body). */
static int has_modes(const mbg_model *m, int k) {
  return k > 0 && k < m->nbodies && m->bodies[k].flex && m->bodies[k].flex->nmodes > 0;
}

/* What the dynamics of flexible bodies do not cover yet is an error at its statement, never a
 * body silently taken as rigid: loops and springs in a model with one (their kinematics and forces
 * are the rigid tree's); and a joint hanging from a beam beyond its length. */
void mbg_check_flex_uses(mbg_builder *b) {
  const mbg_model *m = b->m;
  for (int j = 0; j < m->njoints; j++) {
    const mbg_joint *J = &m->joints[j];
    int fp = has_modes(m, J->parent);
    const mbg_flex *f = fp ? m->bodies[J->parent].flex : NULL;
    if (f && f->is_beam && !(J->xyz[0] >= 0 && J->xyz[0] <= f->length))
      mbg_diag_error(b->d, J->loc, "joint '%s' hangs from beam '%s' at x = %g, outside the beam "
                     "(0 to %g along the body's x axis)", J->name, m->bodies[J->parent].name,
                     J->xyz[0], f->length);
  }
  for (int k = 0; k < m->nframes; k++)
    if (has_modes(m, m->frames[k].body))
      mbg_diag_error(b->d, m->frames[k].loc, "frame '%s' is fixed on flexible body '%s': frames "
                     "on flexible bodies are not supported yet (they would move with its "
                     "deflection; the body's own frame, at its joint, is a frame)",
                     m->frames[k].name, m->bodies[m->frames[k].body].name);
  int flex = -1;
  for (int k = 1; k < m->nbodies && flex < 0; k++)
    if (has_modes(m, k)) flex = k;
  if (flex < 0) return;
  for (int k = 0; k < m->nloops; k++)
    mbg_diag_error(b->d, m->loops[k].loc, "loop '%s': loops in a model with flexible bodies "
                   "('%s') are not supported yet", m->loops[k].name, m->bodies[flex].name);
  for (int k = 0; k < m->nsprings; k++)
    mbg_diag_error(b->d, m->springs[k].loc, "spring '%s': springs in a model with flexible "
                   "bodies ('%s') are not supported yet", m->springs[k].name, m->bodies[flex].name);
}
