/* mbd_write.c — a model as .mbd text (mbd_write.h). */
#include "cli/mbd_write.h"

#include <stdlib.h>
#include <string.h>

#include "base/numfmt.h"
#include "base/quote.h"

/* " v0 v1 ... v(n-1)" */
static void numbers(FILE *f, const double *v, int n) {
  char buf[32];
  for (int k = 0; k < n; k++) {
    mbg_fmt_double(v[k], buf);
    fprintf(f, " %s", buf);
  }
}

static int all_zero(const double *v, int n) {
  for (int k = 0; k < n; k++)
    if (v[k] != 0.0) return 0;
  return 1;
}

static void body(FILE *f, const mbg_body *b) {
  if (b->mass == 0.0 && all_zero(b->com, 3) && all_zero(b->inertia, 6)) {
    fprintf(f, "body %s { }\n", b->name);
    return;
  }
  fprintf(f, "body %s {\n  mass", b->name);
  numbers(f, &b->mass, 1);
  fputs(";\n", f);
  if (!all_zero(b->com, 3)) {
    fputs("  com", f);
    numbers(f, b->com, 3);
    fputs(";\n", f);
  }
  fputs("  inertia", f);
  numbers(f, b->inertia, all_zero(b->inertia + 3, 3) ? 3 : 6);
  fputs(";\n}\n", f);
}

/* The joint's properties (docs/dsl.md "Joint properties"), those that are not 0. */
static int props(FILE *f, const mbg_model *m, const mbg_joint *j) {
  const double v[6] = {j->armature, j->damping, j->friction, j->stiffness, j->velocity_limit,
                       j->effort_limit};
  static const char *const word[6] = {"armature", "damping", "friction", "stiffness",
                                      "velocity_limit", "effort_limit"};
  int n = j->has_range + (j->mimic != 0);
  for (int k = 0; k < 6; k++) n += v[k] != 0.0;
  if (!f) return n;
  if (j->mimic) { /* a coupled joint (docs/dsl.md "Coupled joints") */
    const double mo[2] = {j->mimic_mult, j->mimic_off};
    fprintf(f, " mimic %s", m->joints[j->mimic - 1].name), numbers(f, mo, 2), fputs(";", f);
  }
  for (int k = 0; k < 6; k++)
    if (v[k] != 0.0) fprintf(f, " %s", word[k]), numbers(f, &v[k], 1), fputs(";", f);
  if (j->stiffness != 0.0 && j->spring_ref != 0.0)
    fputs(" spring_ref", f), numbers(f, &j->spring_ref, 1), fputs(";", f);
  if (j->has_range) {
    const double r[2] = {j->lower, j->upper};
    fputs(" limit", f), numbers(f, r, 2), fputs(";", f);
  }
  return n;
}

static void joint(FILE *f, const mbg_model *m, const mbg_joint *j) {
  fprintf(f, "joint %s %s %s -> %s", j->name, mbg_joint_type_name(j->type),
          m->bodies[j->parent].name, m->bodies[j->child].name);
  int origin = !all_zero(j->xyz, 3) || !all_zero(j->rpy, 3);
  int axis = mbg_joint_type_has_axis(j->type);
  if (!origin && !axis && !props(NULL, m, j)) {
    fputs(";\n", f);
    return;
  }
  fputs(" {", f);
  if (origin) {
    fputs(" origin", f);
    if (!all_zero(j->xyz, 3)) fputs(" xyz", f), numbers(f, j->xyz, 3);
    if (!all_zero(j->rpy, 3)) fputs(" rpy", f), numbers(f, j->rpy, 3);
    fputs(";", f);
  }
  if (axis) {
    fputs(" axis", f);
    numbers(f, j->axis, 3);
    fputs(";", f);
  }
  if (mbg_joint_type_has_axis2(j->type)) fputs(" axis2", f), numbers(f, j->axis2, 3), fputs(";", f);
  if (mbg_joint_type_has_pitch(j->type)) {
    fputs(" pitch", f);
    numbers(f, &j->pitch, 1);
    fputs(";", f);
  }
  props(f, m, j);
  fputs(" }\n", f);
}

static void spring(FILE *f, const mbg_model *m, const mbg_spring *s) {
  fprintf(f, "spring %s %s -> %s {", s->name, m->bodies[s->body_a].name,
          m->bodies[s->body_b].name);
  if (!all_zero(s->ra, 3)) fputs(" origin xyz", f), numbers(f, s->ra, 3), fputs(";", f);
  if (!all_zero(s->rb, 3)) fputs(" target xyz", f), numbers(f, s->rb, 3), fputs(";", f);
  if (s->stiffness != 0.0) fputs(" stiffness", f), numbers(f, &s->stiffness, 1), fputs(";", f);
  if (s->damping != 0.0 || s->stiffness == 0.0)
    fputs(" damping", f), numbers(f, &s->damping, 1), fputs(";", f);
  if (s->length != 0.0) fputs(" length", f), numbers(f, &s->length, 1), fputs(";", f);
  fputs(" }\n", f);
}

static void frame(FILE *f, const mbg_model *m, const mbg_frame *fr) {
  fprintf(f, "frame %s %s", fr->name, m->bodies[fr->body].name);
  if (all_zero(fr->xyz, 3) && all_zero(fr->rpy, 3)) {
    fputs(";\n", f);
    return;
  }
  fputs(" { origin", f);
  if (!all_zero(fr->xyz, 3)) fputs(" xyz", f), numbers(f, fr->xyz, 3);
  if (!all_zero(fr->rpy, 3)) fputs(" rpy", f), numbers(f, fr->rpy, 3);
  fputs("; }\n", f);
}

/* A frame item (`origin` or `target`) when not the identity. */
static void frame_item(FILE *f, const char *word, const double xyz[3], const double rpy[3]) {
  if (all_zero(xyz, 3) && all_zero(rpy, 3)) return;
  fprintf(f, " %s", word);
  if (!all_zero(xyz, 3)) fputs(" xyz", f), numbers(f, xyz, 3);
  if (!all_zero(rpy, 3)) fputs(" rpy", f), numbers(f, rpy, 3);
  fputs(";", f);
}

/* A loop joint (docs/dsl.md "loop"): its frames on a and b, its axes, pitch and distance. */
static void loop(FILE *f, const mbg_model *m, const mbg_loop *l) {
  fprintf(f, "loop %s %s %s -> %s {", l->name, mbg_joint_type_name(l->type),
          m->bodies[l->body_a].name, m->bodies[l->body_b].name);
  frame_item(f, "origin", l->xyz, l->rpy);
  frame_item(f, "target", l->target_xyz, l->target_rpy);
  if (mbg_joint_type_has_axis(l->type)) fputs(" axis", f), numbers(f, l->axis, 3), fputs(";", f);
  if (mbg_joint_type_has_axis2(l->type))
    fputs(" axis2", f), numbers(f, l->axis_b, 3), fputs(";", f);
  if (mbg_joint_type_has_pitch(l->type)) fputs(" pitch", f), numbers(f, &l->pitch, 1), fputs(";", f);
  if (mbg_joint_type_has_distance(l->type))
    fputs(" distance", f), numbers(f, &l->distance, 1), fputs(";", f);
  fputs(" }\n", f);
}

static void initial(FILE *f, const mbg_joint *j) {
  if (!j->has_q0 && !j->has_v0) return;
  fprintf(f, "initial %s", j->name);
  if (j->has_q0) numbers(f, j->q0, mbg_joint_type_nq(j->type));
  if (j->has_v0) fputs(" velocity", f), numbers(f, j->v0, mbg_joint_type_nv(j->type));
  fputs(";\n", f);
}

int mbg_mbd_write(FILE *f, const mbg_model *m, const char *source) {
  for (int i = 1; i < m->nbodies; i++)
    if (m->bodies[i].flex) {
      fprintf(stderr, "mbdc: error: body '%s' is flexible: writing it is not supported\n",
              m->bodies[i].name);
      return -1;
    }
  const char *base = strrchr(source, '/');
  char *name = mbg_quote_comment(base ? base + 1 : source); /* one line, whatever the file's name */
  if (!name) {
    fprintf(stderr, "mbdc: error: out of memory\n");
    return -1;
  }
  fprintf(f, "# %s — imported from %s by mbdc %s (mbdc import).\n", m->name, name, MBDC_VERSION);
  free(name);
  fputs(
      "# Links are bodies (mass, centre of mass and inertia about it, in link axes), joints keep\n"
      "# their URDF frames, limits, damping and friction; visuals and collisions are not part of\n"
      "# the model. Numbers read back exactly.\n\n",
      f);
  fprintf(f, "model %s;\ngravity", m->name);
  numbers(f, m->gravity, 3);
  fputs(";\n\n", f);
  for (int i = 1; i < m->nbodies; i++) body(f, &m->bodies[i]);
  fputc('\n', f);
  for (int j = 0; j < m->njoints; j++) joint(f, m, &m->joints[j]);
  if (m->nloops > 0) fputc('\n', f);
  for (int k = 0; k < m->nloops; k++) loop(f, m, &m->loops[k]);
  if (m->nindependent > 0) {
    fputs("independent", f);
    for (int k = 0; k < m->nindependent; k++) fprintf(f, " %s", m->joints[m->independent[k]].name);
    fputs(";\n", f);
  }
  if (m->nsprings > 0) fputc('\n', f);
  for (int k = 0; k < m->nsprings; k++) spring(f, m, &m->springs[k]);
  if (m->nframes > 0) fputc('\n', f);
  for (int k = 0; k < m->nframes; k++) frame(f, m, &m->frames[k]);
  int ninitial = 0;
  for (int j = 0; j < m->njoints; j++) ninitial += m->joints[j].has_q0 || m->joints[j].has_v0;
  if (ninitial > 0) fputc('\n', f);
  for (int j = 0; j < m->njoints; j++) initial(f, &m->joints[j]);
  if (ferror(f)) {
    fprintf(stderr, "mbdc: error: cannot write the model\n");
    return -1;
  }
  return 0;
}
