/* model.c — the validated model's storage: construction, lookup, the joint types' properties. */
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The basic constraints' rows of mb.h MB_LOOP_BASIC_TYPES; the tree joint types are the runtime's
 * (mb_joint_*). */
typedef struct basic_type_row {
  const char *name;
  int axis, axis2, distance;
} basic_type_row;

static const basic_type_row *basic_type(mbg_joint_type t) {
  static const basic_type_row rows[] = {
#define MBG_BASIC_ROW(NAME, name, axis, axis2, distance) {#name, axis, axis2, distance},
      MB_LOOP_BASIC_TYPES(MBG_BASIC_ROW)
#undef MBG_BASIC_ROW
  };
  int k = (int)t - (int)MB_JOINT_TYPE_COUNT; /* they follow the tree joint types */
  return k >= 0 && k < (int)(sizeof rows / sizeof *rows) ? &rows[k] : NULL;
}

int mbg_joint_type_is_tree(mbg_joint_type t) { return (unsigned)t < MB_JOINT_TYPE_COUNT; }

mb_joint_type mbg_joint_type_runtime(mbg_joint_type t) {
  return mbg_joint_type_is_tree(t) ? (mb_joint_type)t : MB_JOINT_TYPE_COUNT;
}

mb_loop_type mbg_joint_type_loop(mbg_joint_type t) {
  switch (t) {
#define MBG_LOOP_JOINT(NAME) \
  case MBG_JOINT_##NAME: return MB_LOOP_##NAME;
#define MBG_LOOP_BASIC(NAME, name, axis, axis2, distance) \
  case MBG_JOINT_##NAME: return MB_LOOP_##NAME;
    MB_LOOP_JOINT_TYPES(MBG_LOOP_JOINT)
    MB_LOOP_BASIC_TYPES(MBG_LOOP_BASIC)
#undef MBG_LOOP_JOINT
#undef MBG_LOOP_BASIC
  default: return MB_LOOP_TYPE_COUNT;
  }
}

const char *mbg_joint_type_name(mbg_joint_type t) {
  const basic_type_row *c = basic_type(t);
  return c ? c->name : mb_joint_name(mbg_joint_type_runtime(t));
}
int mbg_joint_type_nq(mbg_joint_type t) { return mb_joint_nq(mbg_joint_type_runtime(t)); }
int mbg_joint_type_nv(mbg_joint_type t) { return mb_joint_nv(mbg_joint_type_runtime(t)); }
int mbg_joint_type_has_axis(mbg_joint_type t) {
  const basic_type_row *c = basic_type(t);
  return c ? c->axis : mb_joint_has_axis(mbg_joint_type_runtime(t));
}
int mbg_joint_type_has_pitch(mbg_joint_type t) {
  return mb_joint_has_pitch(mbg_joint_type_runtime(t));
}
int mbg_joint_type_has_axis2(mbg_joint_type t) {
  const basic_type_row *c = basic_type(t);
  return c ? c->axis2 : t == MBG_JOINT_UNIVERSAL;
}
int mbg_joint_type_has_distance(mbg_joint_type t) {
  const basic_type_row *c = basic_type(t);
  return c ? c->distance : 0;
}
int mbg_joint_type_is_angle(mbg_joint_type t) {
  return mb_joint_is_angle(mbg_joint_type_runtime(t));
}
int mbg_joint_type_quat(mbg_joint_type t) { return mb_joint_quat(mbg_joint_type_runtime(t)); }

double mbg_axis_normalize(double a[3]) {
  double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (fabs(n - 1.0) > 1e-15)
    for (int k = 0; k < 3; k++) a[k] /= n;
  return n;
}

static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

int mbg_model_find_body(const mbg_model *m, const char *name) {
  for (int i = 0; i < m->nbodies; i++)
    if (strcmp(m->bodies[i].name, name) == 0) return i;
  return -1;
}

int mbg_model_find_joint(const mbg_model *m, const char *name) {
  for (int i = 0; i < m->njoints; i++)
    if (strcmp(m->joints[i].name, name) == 0) return i;
  return -1;
}

/* Append one zeroed element to an array of n elements of `size` bytes; NULL when out of memory
 * (the array is then unchanged). The capacity doubles (8, 16, 32, ...: it is n rounded up to a
 * power of two, so it need not be stored): a realloc per element copied the array each time,
 * quadratic in the number of bodies wherever realloc moves (a URDF of 20000 links: 100 s under
 * AddressSanitizer, whose realloc always moves). */
static void *append(void *base, int n, size_t size) {
  char *p = base;
  if (n == 0 || (n >= 8 && (n & (n - 1)) == 0)) {
    p = realloc(base, (size_t)(n == 0 ? 8 : 2 * (size_t)n) * size);
    if (!p) return NULL;
  }
  memset(p + (size_t)n * size, 0, size);
  return p;
}

mbg_model *mbg_model_new(const char *name, const char *path) {
  mbg_model *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->name = dup_string(name ? name : "model");
  m->path = dup_string(path ? path : "");
  m->gravity[2] = -9.81;
  mbg_loc none = {0, 0, 0};
  if (!m->name || !m->path || mbg_model_add_body(m, "world", none) != 0) {
    mbg_model_free(m);
    return NULL;
  }
  return m;
}

int mbg_model_add_body(mbg_model *m, const char *name, mbg_loc loc) {
  mbg_body *grown = append(m->bodies, m->nbodies, sizeof *m->bodies);
  if (!grown) return -1;
  m->bodies = grown;
  mbg_body *b = &grown[m->nbodies];
  b->name = dup_string(name);
  if (!b->name) return -1;
  b->loc = loc;
  return m->nbodies++;
}

int mbg_model_add_joint(mbg_model *m, const char *name, mbg_loc loc) {
  mbg_joint *grown = append(m->joints, m->njoints, sizeof *m->joints);
  if (!grown) return -1;
  m->joints = grown;
  mbg_joint *j = &grown[m->njoints];
  j->name = dup_string(name);
  if (!j->name) return -1;
  j->loc = loc;
  j->axis[2] = 1.0;
  j->node = -1;
  return m->njoints++;
}

int mbg_model_add_loop(mbg_model *m, const char *name, mbg_loc loc) {
  mbg_loop *grown = append(m->loops, m->nloops, sizeof *m->loops);
  if (!grown) return -1;
  m->loops = grown;
  mbg_loop *l = &grown[m->nloops];
  l->name = dup_string(name);
  if (!l->name) return -1;
  l->loc = loc;
  l->axis[2] = 1.0;
  l->axis_b[2] = 1.0;
  return m->nloops++;
}

int mbg_model_add_spring(mbg_model *m, const char *name, mbg_loc loc) {
  mbg_spring *grown = append(m->springs, m->nsprings, sizeof *m->springs);
  if (!grown) return -1;
  m->springs = grown;
  mbg_spring *s = &grown[m->nsprings];
  s->name = dup_string(name);
  if (!s->name) return -1;
  s->loc = loc;
  return m->nsprings++;
}

int mbg_model_add_frame(mbg_model *m, const char *name, mbg_loc loc) {
  mbg_frame *grown = append(m->frames, m->nframes, sizeof *m->frames);
  if (!grown) return -1;
  m->frames = grown;
  mbg_frame *f = &grown[m->nframes];
  f->name = dup_string(name);
  if (!f->name) return -1;
  f->loc = loc;
  return m->nframes++;
}

static void flex_free(mbg_flex *f) {
  if (!f) return;
  for (int i = 0; i < f->nnodes; i++) free(f->nodes[i].name);
  if (f->mode_names)
    for (int i = 0; i < f->nmodes; i++) free(f->mode_names[i]);
  free(f->nodes);
  free(f->mode_names);
  free(f->shapes);
  free(f->stiffness);
  free(f->damping);
  free(f);
}

void mbg_model_free(mbg_model *m) {
  if (!m) return;
  for (int i = 0; i < m->nbodies; i++) {
    free(m->bodies[i].name);
    flex_free(m->bodies[i].flex);
  }
  for (int i = 0; i < m->njoints; i++) free(m->joints[i].name);
  for (int i = 0; i < m->nloops; i++) free(m->loops[i].name);
  for (int i = 0; i < m->nsprings; i++) free(m->springs[i].name);
  free(m->springs);
  for (int i = 0; i < m->nframes; i++) free(m->frames[i].name);
  free(m->frames);
  free(m->bodies);
  free(m->joints);
  free(m->loops);
  free(m->independent);
  free(m->param_bodies);
  free(m->name);
  free(m->path);
  free(m);
}
