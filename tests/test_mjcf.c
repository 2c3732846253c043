/* test_mjcf.c — MJCF import (generator/mjcf/, docs/mjcf.md).
 *
 * 1. Golden diagnostics: every tests/golden_mjcf/NNN_name.xml is read under the path
 *    `golden_mjcf/NNN_name.xml` and everything printed must equal NNN_name.err byte for byte;
 *    errors > 0 unless the name ends in _warning or _accepted. MBDC_UPDATE_GOLDEN=1 rewrites them.
 * 2. Small documents with analytic expectations, each stating its reference: orientations (quat,
 *    euler with eulerseq, axisangle, xyaxes, zaxis, degrees and radians) against the rotations
 *    they name; default classes; geom mass properties against the closed forms of solid bodies
 *    (box, sphere, cylinder, ellipsoid; the capsule as a cylinder and two hemispheres, each
 *    hemisphere's centre 3r/8 from its flat face and its moment 83/320 m r² there); joints (pos,
 *    ref folded into the frame, several joints in one body); keyframes; equalities as loops. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/readfile.h"
#include "load/load.h"

static const double PI = 3.14159265358979323846;

static const char *source_dir(void) {
  const char *s = getenv("MBDC_SOURCE_DIR");
  return s && *s ? s : ".";
}

/* Read an MJCF text: the model or NULL; the messages in *msgs. */
static mbg_model *from_mjcf(const char *text, char **msgs, int *errors, int *warnings) {
  size_t n = 0;
  FILE *out = open_memstream(msgs, &n);
  assert_non_null(out);
  mbg_model *m = mbg_model_from_source("t.xml", text, strlen(text), NULL, out, errors, warnings);
  assert_int_equal(fclose(out), 0);
  return m;
}

static mbg_model *must_load(const char *text) {
  char *msgs = NULL;
  int errors, warnings;
  mbg_model *m = from_mjcf(text, &msgs, &errors, &warnings);
  if (!m || errors) fail_msg("not loaded:\n%s", msgs);
  free(msgs);
  return m;
}

static void near(double got, double want, double tol, const char *what) {
  if (!(fabs(got - want) <= tol * (1 + fabs(want))))
    fail_msg("%s: %.17g, expected %.17g", what, got, want);
}

static void near3(const double *got, double x, double y, double z, double tol, const char *what) {
  near(got[0], x, tol, what), near(got[1], y, tol, what), near(got[2], z, tol, what);
}

static int find_frame(const mbg_model *m, const char *name) {
  for (int f = 0; f < m->nframes; f++)
    if (strcmp(m->frames[f].name, name) == 0) return f;
  fail_msg("no frame %s", name);
  return -1;
}

/* ------------------------------------------------------------------------ golden diagnostics */

typedef struct golden_case {
  char name[96];
} golden_case;

static int by_name(const void *a, const void *b) {
  return strcmp(((const golden_case *)a)->name, ((const golden_case *)b)->name);
}

static golden_case *list_cases(size_t *count) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/tests/golden_mjcf", source_dir());
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "cannot open %s (is MBDC_SOURCE_DIR set?)\n", dir);
    exit(1);
  }
  size_t n = 0, cap = 64;
  golden_case *c = calloc(cap, sizeof *c);
  for (struct dirent *e; c && (e = readdir(d)) != NULL;) {
    size_t l = strlen(e->d_name);
    if (l < 5 || l - 4 >= sizeof c->name || strcmp(e->d_name + l - 4, ".xml") != 0) continue;
    if (n == cap) c = realloc(c, (cap *= 2) * sizeof *c);
    if (!c) break;
    memcpy(c[n].name, e->d_name, l - 4);
    c[n++].name[l - 4] = '\0';
  }
  closedir(d);
  if (!c) exit(1);
  qsort(c, n, sizeof *c, by_name);
  *count = n;
  return c;
}

static int updating(void) {
  const char *u = getenv("MBDC_UPDATE_GOLDEN");
  return u && *u && strcmp(u, "0") != 0;
}

static void run_golden(void **state) {
  const golden_case *c = *state;
  char path[1200], shown[160];
  size_t len, out_len = 0;
  snprintf(path, sizeof path, "%s/tests/golden_mjcf/%s.xml", source_dir(), c->name);
  char *src = mbg_read_file(path, &len, NULL);
  assert_non_null(src);
  snprintf(shown, sizeof shown, "golden_mjcf/%s.xml", c->name);
  char *out_buf = NULL;
  FILE *out = open_memstream(&out_buf, &out_len);
  int errors = -1, warnings = -1;
  mbg_model *m = mbg_model_from_source(shown, src, len, NULL, out, &errors, &warnings);
  assert_int_equal(fclose(out), 0);
  int accepted = strstr(c->name, "_warning") || strstr(c->name, "_accepted");
  int bad = (accepted ? errors != 0 : errors <= 0) || ((m == NULL) != (errors > 0)) ||
            (strstr(c->name, "_warning") && warnings <= 0);
  if (bad) print_error("%d errors, %d warnings\n%s", errors, warnings, out_buf);
  mbg_model_free(m);
  snprintf(path, sizeof path, "%s/tests/golden_mjcf/%s.err", source_dir(), c->name);
  if (updating()) {
    FILE *f = fopen(path, "wb");
    bad |= !f || fwrite(out_buf, 1, out_len, f) != out_len || fclose(f) != 0;
  } else {
    size_t want_len = 0;
    char *want = mbg_read_file(path, &want_len, NULL);
    if (!want || want_len != out_len || memcmp(want, out_buf, out_len) != 0) {
      print_error("golden_mjcf/%s.err differs; expected:\n%s---- got:\n%s----\n", c->name,
                  want ? want : "(missing)\n", out_buf);
      bad = 1;
    }
    free(want);
  }
  free(out_buf);
  free(src);
  if (bad) fail();
}

/* ------------------------------------------------------------------------------ orientations */

/* Reference: the rotation each form names (MuJoCo's documentation of frame orientations), as
 * the model's roll-pitch-yaw (R = Rz Ry Rx), worked out by hand in the comments. */
static void test_orientations(void **state) {
  (void)state;
  mbg_model *m = must_load(
      "<mujoco><worldbody>\n"
      "<site name=\"q\" pos=\"1 2 3\" quat=\"0.5 0.5 0.5 0.5\"/>\n" /* 120° about (1,1,1) */
      "<site name=\"e\" euler=\"30 0 0\"/>\n"                        /* degrees by default */
      "<site name=\"aa\" axisangle=\"0 0 2 90\"/>\n"
      "<site name=\"xy\" xyaxes=\"0 1 0 -1 0 0\"/>\n"                /* x → y: 90° about z */
      "<site name=\"zx\" zaxis=\"1 0 0\"/>\n"                        /* z → x: 90° about y */
      "<site name=\"zy\" zaxis=\"0 1 0\"/>\n"                        /* z → y: −90° about x */
      "</worldbody></mujoco>\n");
  const mbg_frame *f = &m->frames[find_frame(m, "q")];
  /* the columns of R are (0,1,0), (0,0,1), (1,0,0): R = Rz(90°) Rx(90°) */
  near3(f->xyz, 1, 2, 3, 0, "q xyz");
  near3(f->rpy, PI / 2, 0, PI / 2, 1e-15, "quat");
  near3(m->frames[find_frame(m, "e")].rpy, PI / 6, 0, 0, 1e-15, "euler");
  near3(m->frames[find_frame(m, "aa")].rpy, 0, 0, PI / 2, 1e-15, "axisangle");
  near3(m->frames[find_frame(m, "xy")].rpy, 0, 0, PI / 2, 1e-15, "xyaxes");
  near3(m->frames[find_frame(m, "zx")].rpy, 0, PI / 2, 0, 1e-15, "zaxis x");
  near3(m->frames[find_frame(m, "zy")].rpy, -PI / 2, 0, 0, 1e-15, "zaxis y");
  mbg_model_free(m);
  /* intrinsic z, y', x'': Rz(10°) Ry(20°) Rx(30°), which is the model's rpy (30°, 20°, 10°) */
  m = must_load("<mujoco><compiler eulerseq=\"zyx\"/><worldbody>"
                "<site name=\"s\" euler=\"10 20 30\"/></worldbody></mujoco>");
  near3(m->frames[0].rpy, PI / 6, PI / 9, PI / 18, 1e-14, "eulerseq zyx");
  mbg_model_free(m);
  /* extrinsic X, then Y, then Z: Rz(30°) Ry(20°) Rx(10°) */
  m = must_load("<mujoco><compiler eulerseq=\"XYZ\"/><worldbody>"
                "<site name=\"s\" euler=\"10 20 30\"/></worldbody></mujoco>");
  near3(m->frames[0].rpy, PI / 18, PI / 9, PI / 6, 1e-14, "eulerseq XYZ");
  mbg_model_free(m);
  m = must_load("<mujoco><compiler angle=\"radian\"/><worldbody>"
                "<site name=\"s\" euler=\"0.5 0 0\"/></worldbody></mujoco>");
  near3(m->frames[0].rpy, 0.5, 0, 0, 1e-15, "radian");
  mbg_model_free(m);
}

/* ---------------------------------------------------------------------------- default classes */

/* Reference: MuJoCo's rule — own attribute, else the nearest class up from the element's class
 * (its `class`, else its body's childclass, else main). */
static void test_defaults(void **state) {
  (void)state;
  mbg_model *m = must_load(
      "<mujoco><default><joint damping=\"2\" axis=\"1 0 0\"/>\n"
      "  <default class=\"a\"><joint armature=\"0.5\"/>\n"
      "    <default class=\"b\"><joint axis=\"0 1 0\" type=\"slide\"/></default></default>\n"
      "</default><worldbody>\n"
      "<body name=\"p\" childclass=\"a\">"
      "<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/>\n"
      "  <joint name=\"j1\"/>\n"
      "  <body name=\"c\"><inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/>\n"
      "    <joint name=\"j2\" class=\"b\" damping=\"3\"/></body></body>\n"
      "<body name=\"r\"><inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/>\n"
      "  <joint name=\"j3\"/></body>\n"
      "</worldbody></mujoco>\n");
  const mbg_joint *j1 = &m->joints[mbg_model_find_joint(m, "j1")];
  const mbg_joint *j2 = &m->joints[mbg_model_find_joint(m, "j2")];
  const mbg_joint *j3 = &m->joints[mbg_model_find_joint(m, "j3")];
  assert_int_equal(j1->type, MBG_JOINT_CONTINUOUS); /* a hinge without limits */
  near(j1->damping, 2, 0, "j1 damping (main)");
  near(j1->armature, 0.5, 0, "j1 armature (a, the childclass)");
  near3(j1->axis, 1, 0, 0, 0, "j1 axis (main)");
  assert_int_equal(j2->type, MBG_JOINT_PRISMATIC); /* type from class b */
  near(j2->damping, 3, 0, "j2 damping (its own)");
  near(j2->armature, 0.5, 0, "j2 armature (a, b's parent)");
  near3(j2->axis, 0, 1, 0, 0, "j2 axis (b)");
  near(j3->armature, 0, 0, "j3 armature (main: none)");
  mbg_model_free(m);
}

/* ----------------------------------------------------------------------------- geom inertias */

/* The body "b" of a document whose worldbody holds `geoms` in one body without <inertial>. */
static mbg_model *one_body(const char *compiler, const char *geoms) {
  char text[2048];
  snprintf(text, sizeof text,
           "<mujoco>%s<worldbody><body name=\"b\"><joint name=\"j\" type=\"ball\"/>%s</body>"
           "</worldbody></mujoco>", compiler, geoms);
  return must_load(text);
}

/* Reference: solid bodies of uniform density, inertia about the centre (any mechanics text):
 * box of sides a b c: m (b² + c²)/12, ...; sphere: 2/5 m r²; cylinder of length L: m (3r² +
 * L²)/12 across, m r²/2 along; ellipsoid of semi-axes a b c: m (b² + c²)/5, ...; capsule: a
 * cylinder and two hemispheres, each of mass mh with its centre 3r/8 from its flat face and
 * moment 83/320 mh r² across about it. The density is MuJoCo's default, 1000 kg/m³. */
static void test_geom_inertias(void **state) {
  (void)state;
  mbg_model *m = one_body("", "<geom type=\"box\" size=\"0.1 0.2 0.3\"/>");
  const mbg_body *b = &m->bodies[1];
  double mass = 1000 * 0.2 * 0.4 * 0.6;
  near(b->mass, mass, 1e-15, "box mass");
  near3(b->inertia, mass * (0.16 + 0.36) / 12, mass * (0.04 + 0.36) / 12,
        mass * (0.04 + 0.16) / 12, 1e-14, "box");
  mbg_model_free(m);
  m = one_body("", "<geom type=\"sphere\" size=\"0.1\" mass=\"2\"/>");
  near(m->bodies[1].mass, 2, 0, "sphere mass");
  near3(m->bodies[1].inertia, 0.4 * 2 * 0.01, 0.4 * 2 * 0.01, 0.4 * 2 * 0.01, 1e-15, "sphere");
  mbg_model_free(m);
  m = one_body("", "<geom type=\"cylinder\" size=\"0.1 0.2\"/>");
  mass = 1000 * PI * 0.01 * 0.4;
  near(m->bodies[1].mass, mass, 1e-15, "cylinder mass");
  near3(m->bodies[1].inertia, mass * (0.03 + 0.16) / 12, mass * (0.03 + 0.16) / 12,
        mass * 0.01 / 2, 1e-14, "cylinder");
  mbg_model_free(m);
  m = one_body("", "<geom type=\"ellipsoid\" size=\"0.1 0.2 0.3\"/>");
  mass = 1000 * 4.0 / 3 * PI * 0.006;
  near(m->bodies[1].mass, mass, 1e-15, "ellipsoid mass");
  near3(m->bodies[1].inertia, mass * 0.13 / 5, mass * 0.10 / 5, mass * 0.05 / 5, 1e-14,
        "ellipsoid");
  mbg_model_free(m);
  /* a capsule from (0,0,0) to (0.4,0,0), r = 0.1: its axis is x, its centre (0.2, 0, 0) */
  m = one_body("", "<geom type=\"capsule\" size=\"0.1\" fromto=\"0 0 0 0.4 0 0\"/>");
  double r = 0.1, L = 0.4, mc = 1000 * PI * r * r * L, mh = 1000 * 2.0 / 3 * PI * r * r * r;
  double along = mc * r * r / 2 + 2 * 0.4 * mh * r * r;
  double d = L / 2 + 3 * r / 8, across = mc * (3 * r * r + L * L) / 12 +
                                         2 * mh * (83.0 / 320 * r * r + d * d);
  near(m->bodies[1].mass, mc + 2 * mh, 1e-15, "capsule mass");
  near3(m->bodies[1].com, 0.2, 0, 0, 1e-15, "capsule centre");
  near3(m->bodies[1].inertia, along, across, across, 1e-13, "capsule");
  near3(m->bodies[1].inertia + 3, 0, 0, 0, 1e-13, "capsule products");
  mbg_model_free(m);
  /* two 1 kg spheres at x = ±1 (Steiner: + m d² across x), a massless visual geom, a geom of a
   * group outside compiler/inertiagrouprange: neither counts */
  m = one_body("<compiler inertiagrouprange=\"0 3\"/>",
               "<geom size=\"0.1\" mass=\"1\" pos=\"1 0 0\"/><geom size=\"0.1\" mass=\"1\" "
               "pos=\"-1 0 0\"/><geom type=\"box\" size=\"1 1 1\" mass=\"0\"/>"
               "<geom size=\"1\" group=\"4\"/>");
  near(m->bodies[1].mass, 2, 0, "two spheres' mass");
  near3(m->bodies[1].inertia, 0.008, 2.008, 2.008, 1e-15, "two spheres");
  mbg_model_free(m);
}

/* ------------------------------------------------------------------------------------ joints */

#define INERTIAL "<inertial pos=\"0 0 1\" mass=\"1\" diaginertia=\"0.1 0.1 0.1\"/>"

/* Reference: MuJoCo's joint semantics — the body turns about the axis through `pos` (body
 * frame) by qpos − ref; several joints of one body apply in turn. The model's joint frame sits
 * at pos, turned by −ref, so that its coordinate is qpos (docs/mjcf.md). */
static void test_joints(void **state) {
  (void)state;
  mbg_model *m = must_load(
      "<mujoco><worldbody>\n"
      "<body name=\"a\" pos=\"1 0 0\">" INERTIAL
      "<joint name=\"h\" pos=\"0 0 0.5\" axis=\"0 1 0\" ref=\"90\" range=\"-10 170\" "
      "limited=\"true\" damping=\"0.5\" frictionloss=\"0.25\" stiffness=\"7\" springref=\"45\"/>\n"
      "  <site name=\"s\" pos=\"0 0 2\"/>\n"
      "  <body name=\"c\" pos=\"0 0 2\">" INERTIAL
      "<joint name=\"x\" type=\"slide\" axis=\"1 0 0\"/>"
      "<joint name=\"z\" pos=\"0.1 0 0\"/></body></body>\n"
      "</worldbody></mujoco>\n");
  const mbg_joint *h = &m->joints[mbg_model_find_joint(m, "h")];
  assert_int_equal(h->type, MBG_JOINT_REVOLUTE);
  near3(h->xyz, 1, 0, 0.5, 0, "h at the body's pos + the joint's pos");
  near3(h->rpy, 0, -PI / 2, 0, 1e-15, "h turned by -ref about y");
  near3(h->axis, 0, 1, 0, 0, "h axis");
  assert_true(h->has_range);
  near(h->lower, -PI / 18, 1e-15, "range in radians"), near(h->upper, 17 * PI / 18, 1e-15, "upper");
  near(h->damping, 0.5, 0, "damping"), near(h->friction, 0.25, 0, "frictionloss");
  near(h->stiffness, 7, 0, "stiffness"), near(h->spring_ref, PI / 4, 1e-15, "springref");
  assert_true(h->has_q0); /* qpos0 = ref */
  near(h->q0[0], PI / 2, 1e-15, "q0 = ref");
  const mbg_body *a = &m->bodies[mbg_model_find_body(m, "a")];
  near3(a->com, 0, 0, 0.5, 0, "a's com, from the joint's point");
  near3(m->frames[find_frame(m, "s")].xyz, 0, 0, 1.5, 0, "site on a");
  /* c: two joints, a chain through the massless body c__j1 */
  int cj1 = mbg_model_find_body(m, "c__j1"), c = mbg_model_find_body(m, "c");
  assert_true(cj1 > 0 && c > 0);
  near(m->bodies[cj1].mass, 0, 0, "c__j1 massless");
  const mbg_joint *x = &m->joints[mbg_model_find_joint(m, "x")];
  const mbg_joint *z = &m->joints[mbg_model_find_joint(m, "z")];
  assert_int_equal(x->child, cj1);
  assert_int_equal(z->parent, cj1), assert_int_equal(z->child, c);
  near3(x->xyz, 0, 0, 1.5, 0, "x: c's pos in a's model frame");
  near3(z->xyz, 0.1, 0, 0, 0, "z: its pos from x's");
  near3(m->bodies[c].com, -0.1, 0, 1, 0, "c's com, from z's point");
  mbg_model_free(m);
}

/* Reference: MuJoCo's qpos layout — joints in body order, a free joint [x y z qw qx qy qz], a
 * ball [qw qx qy qz]; the model's quaternions are [qx qy qz qw] (docs/dsl.md "initial"). */
static void test_keyframe(void **state) {
  (void)state;
  mbg_model *m = must_load(
      "<mujoco><worldbody><body name=\"base\" pos=\"0 0 1\">" INERTIAL "<freejoint name=\"f\"/>"
      "<body name=\"arm\">" INERTIAL "<joint name=\"b\" type=\"ball\"/>"
      "<body name=\"hand\">" INERTIAL "<joint name=\"h\"/></body></body></body></worldbody>"
      "<keyframe><key name=\"first\" qpos=\"0 0 0 1 0 0 0 1 0 0 0 0\"/>"
      "<key name=\"home\" qpos=\"1 2 3 0 1 0 0 0 0 0 1 0.3\"/></keyframe></mujoco>");
  const mbg_joint *f = &m->joints[mbg_model_find_joint(m, "f")];
  const mbg_joint *b = &m->joints[mbg_model_find_joint(m, "b")];
  const mbg_joint *h = &m->joints[mbg_model_find_joint(m, "h")];
  assert_int_equal(f->type, MBG_JOINT_FLOATING), assert_int_equal(f->parent, 0);
  near3(f->xyz, 0, 0, 0, 0, "a free joint's frame is the world's");
  assert_true(f->has_q0 && b->has_q0 && h->has_q0);
  double fq[7] = {1, 2, 3, 1, 0, 0, 0}, bq[4] = {0, 0, 1, 0};
  for (int k = 0; k < 7; k++) near(f->q0[k], fq[k], 0, "free q0 (the key named home)");
  for (int k = 0; k < 4; k++) near(b->q0[k], bq[k], 0, "ball q0");
  near(h->q0[0], 0.3, 0, "hinge q0");
  mbg_model_free(m);
  /* no keyframe: qpos0, the free body at its pose */
  m = must_load("<mujoco><worldbody><body name=\"base\" pos=\"0 0 1\" euler=\"0 0 90\">" INERTIAL
                "<freejoint/></body></worldbody></mujoco>");
  f = &m->joints[0];
  assert_string_equal(f->name, "base_joint");
  assert_true(f->has_q0);
  double s = sqrt(0.5), want[7] = {0, 0, 1, 0, 0, s, s};
  for (int k = 0; k < 7; k++) near(f->q0[k], want[k], 1e-15, "qpos0 of a free joint");
  mbg_model_free(m);
}

/* Reference: MuJoCo's connect — body1's anchor and the point of body2 that coincides with it at
 * qpos0; weld — body1's frame held in body2's pose at qpos0. */
static void test_equalities(void **state) {
  (void)state;
  char *msgs = NULL;
  int errors, warnings;
  mbg_model *m = from_mjcf(
      "<mujoco><worldbody><body name=\"A\" pos=\"0 0 1\">" INERTIAL "<joint name=\"ja\"/></body>"
      "<body name=\"B\" pos=\"1 0 1\">" INERTIAL "<joint name=\"jb\" axis=\"0 1 0\"/></body>"
      "</worldbody><equality><connect name=\"c\" body1=\"A\" body2=\"B\" anchor=\"0.5 0 0\"/>"
      "<weld body1=\"A\" body2=\"B\"/><connect body1=\"A\" anchor=\"0 0 0\" active=\"false\"/>"
      "</equality></mujoco>", &msgs, &errors, &warnings);
  assert_non_null(m);
  assert_int_equal(warnings, 1); /* the inactive connect */
  assert_non_null(strstr(msgs, "inactive"));
  assert_int_equal(m->nloops, 2);
  const mbg_loop *c = &m->loops[0], *w = &m->loops[1];
  assert_string_equal(c->name, "c");
  assert_int_equal(c->type, MBG_JOINT_SPHERICAL);
  near3(c->xyz, 0.5, 0, 0, 0, "connect origin: the anchor on A");
  near3(c->target_xyz, -0.5, 0, 0, 1e-15, "connect target: the same point in B");
  assert_int_equal(w->type, MBG_JOINT_FIXED);
  assert_string_equal(w->name, "weld_2");
  near3(w->target_xyz, -1, 0, 0, 1e-15, "weld target: A's frame in B's");
  free(msgs);
  mbg_model_free(m);
}

int main(void) {
  size_t n;
  golden_case *cases = list_cases(&n);
  struct CMUnitTest *tests = calloc(n + 8, sizeof *tests);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    tests[k++] = (struct CMUnitTest){cases[i].name, run_golden, NULL, NULL, &cases[i]};
  tests[k++] = (struct CMUnitTest){"orientations", test_orientations, NULL, NULL, NULL};
  tests[k++] = (struct CMUnitTest){"defaults", test_defaults, NULL, NULL, NULL};
  tests[k++] = (struct CMUnitTest){"geom_inertias", test_geom_inertias, NULL, NULL, NULL};
  tests[k++] = (struct CMUnitTest){"joints", test_joints, NULL, NULL, NULL};
  tests[k++] = (struct CMUnitTest){"keyframe", test_keyframe, NULL, NULL, NULL};
  tests[k++] = (struct CMUnitTest){"equalities", test_equalities, NULL, NULL, NULL};
  int rc = _cmocka_run_group_tests("test_mjcf", tests, k, NULL, NULL);
  free(tests);
  free(cases);
  return rc;
}
