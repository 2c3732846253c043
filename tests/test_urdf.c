/* test_urdf.c — URDF import (generator/urdf*.c, docs/urdf.md).
 *
 * 1. Golden diagnostics: every tests/golden_urdf/NNN_name.urdf is read under the path
 *    `golden_urdf/NNN_name.urdf` (with --floating-base when the name says `floating_base`) and
 *    everything printed must equal NNN_name.err byte for byte; errors > 0 unless the name ends in
 *    _warning or _accepted. MBDC_UPDATE_GOLDEN=1 rewrites the .err files.
 * 2. Every element kind, with the expected model fields (reference: the URDF specification,
 *    wiki.ros.org/urdf/XML, and the numbers written in the test's own URDF text).
 * 3. The round trip of every example robot (the .urdf files of examples/urdf/): `mbdc import` text
 * read back as a .mbd gives the same model, every number bit for bit.
 * 4. The reserved words of the model language, as urdf_names.c avoids them, are the lexer's.
 * 5. Entities (docs/urdf.md, "Entities"): the predefined ones and character references give the
 *    values XML says; a declared entity is refused, never read as if its text were absent.
 * 6. Inertias: the semidefiniteness test is relative to the body's scale (cases from real robots
 *    and the limits: noise, point masses, tiny bodies, clearly indefinite tensors).
 * 7. Reading time: a 4000-link chain, and 20000 names that become one identifier, are read in
 *    time linear in their size (a bound far above the linear reader's time and far below the
 *    quadratic one's). */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "base/readfile.h"
#include "cli/mbd_write.h"
#include "load/load.h"
#include "model/names.h"

static const char *source_dir(void) {
  const char *s = getenv("MBDC_SOURCE_DIR");
  return s && *s ? s : ".";
}

static char *read_text(const char *path, size_t *len) {
  char *t = mbg_read_file(path, len, NULL);
  if (!t) fail_msg("cannot read %s (is MBDC_SOURCE_DIR set?)", path);
  return t;
}

/* Read a URDF from memory: the model, or NULL; the messages in *msgs (malloc'ed). */
static mbg_model *from_urdf(const char *text, int floating_base, char **msgs, int *errors,
                            int *warnings) {
  size_t n = 0;
  FILE *out = open_memstream(msgs, &n);
  assert_non_null(out);
  mbg_load_opts o = {.floating_base = floating_base};
  mbg_model *m = mbg_model_from_source("t.urdf", text, strlen(text), &o, out, errors, warnings);
  assert_int_equal(fclose(out), 0);
  return m;
}

/* ------------------------------------------------------------------------ golden diagnostics */

typedef struct golden_case {
  char name[96];
} golden_case;

static int by_name(const void *a, const void *b) {
  return strcmp(((const golden_case *)a)->name, ((const golden_case *)b)->name);
}

static golden_case *list_cases(const char *ext, size_t *count) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/tests/golden_urdf", source_dir());
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "cannot open %s (is MBDC_SOURCE_DIR set?)\n", dir);
    exit(1);
  }
  size_t n = 0, cap = 64, el = strlen(ext);
  golden_case *c = calloc(cap, sizeof *c);
  const struct dirent *e;
  while (c && (e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len <= el || len - el >= sizeof c->name || strcmp(e->d_name + len - el, ext) != 0) continue;
    if (n == cap) c = realloc(c, (cap *= 2) * sizeof *c);
    if (!c) break;
    memset(&c[n], 0, sizeof c[n]);
    memcpy(c[n].name, e->d_name, len - el);
    n++;
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
  snprintf(path, sizeof path, "%s/tests/golden_urdf/%s.urdf", source_dir(), c->name);
  char *src = read_text(path, &len);
  snprintf(shown, sizeof shown, "golden_urdf/%s.urdf", c->name);
  char *out_buf = NULL;
  FILE *out = open_memstream(&out_buf, &out_len);
  int errors = -1, warnings = -1;
  mbg_load_opts o = {.floating_base = strstr(c->name, "floating_base") != NULL};
  mbg_model *m = mbg_model_from_source(shown, src, len, &o, out, &errors, &warnings);
  assert_int_equal(fclose(out), 0);
  int accepted = strstr(c->name, "_warning") || strstr(c->name, "_accepted");
  int bad = (accepted ? errors != 0 : errors <= 0) || ((m == NULL) != (errors > 0)) ||
            (strstr(c->name, "_warning") && warnings <= 0);
  if (bad)
    print_error("%d errors, %d warnings, model %s\n%s", errors, warnings,
                m ? "returned" : "not returned", out_buf);
  mbg_model_free(m);
  snprintf(path, sizeof path, "%s/tests/golden_urdf/%s.err", source_dir(), c->name);
  if (updating()) {
    FILE *f = fopen(path, "wb");
    bad |= !f || fwrite(out_buf, 1, out_len, f) != out_len || fclose(f) != 0;
  } else {
    size_t want_len = 0;
    char *want = mbg_read_file(path, &want_len, NULL);
    if (!want || want_len != out_len || memcmp(want, out_buf, out_len) != 0) {
      print_error(
          "golden_urdf/%s.err differs; expected:\n%s---- got:\n%s----\n(MBDC_UPDATE_GOLDEN=1 "
          "rewrites the .err files)\n",
          c->name, want ? want : "(missing)\n", out_buf);
      bad = 1;
    }
    free(want);
  }
  free(out_buf);
  free(src);
  if (bad) fail();
}

/* ------------------------------------------------------------------------ element kinds */

static const char every_kind[] =
    "<?xml version=\"1.0\"?>\n"
    "<robot name=\"kinds\" xmlns:xacro=\"http://ros.org/wiki/xacro\">\n"
    "  <material name=\"grey\"><color rgba=\"0.5 0.5 0.5 1\"/></material>\n"
    "  <link name=\"base\">\n"
    "    <visual><geometry><mesh filename=\"package://x/base.stl\"/></geometry></visual>\n"
    "    <collision><geometry><box size=\"1 1 1\"/></geometry></collision>\n"
    "    <inertial><origin xyz=\"0.1 -0.2 0.3\"/><mass value=\"2.5\"/>\n"
    "      <inertia ixx=\"0.3\" ixy=\"0.01\" ixz=\"-0.02\" iyy=\"0.2\" iyz=\"0.03\" "
    "izz=\"0.25\"/>\n"
    "    </inertial>\n"
    "  </link>\n"
    "  <link name=\"rotated\">\n"
    "    <inertial><origin xyz=\"0 0 0\" rpy=\"0 0 1.5707963267948966\"/><mass value=\"1\"/>\n"
    "      <inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.2\" iyz=\"0\" izz=\"0.25\"/>\n"
    "    </inertial>\n"
    "  </link>\n"
    "  <link name=\"slider\"><inertial><mass value=\"0.5\"/>\n"
    "    <inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" "
    "izz=\"0.01\"/></inertial>\n"
    "  </link>\n"
    "  <link name=\"wheel\"><inertial><mass value=\"0.5\"/>\n"
    "    <inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" "
    "izz=\"0.01\"/></inertial>\n"
    "  </link>\n"
    "  <link name=\"sensor\"/>\n"
    "  <joint name=\"hinge\" type=\"revolute\">\n"
    "    <parent link=\"base\"/><child link=\"rotated\"/>\n"
    "    <origin xyz=\"1 2 3\" rpy=\"0.1 0.2 0.3\"/>\n"
    "    <limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"2\"/><dynamics "
    "damping=\"0.7\"/>\n"
    "  </joint>\n"
    "  <joint name=\"slide\" type=\"prismatic\">\n"
    "    <parent link=\"rotated\"/><child link=\"slider\"/><axis xyz=\"0 1 0\"/>\n"
    "    <calibration rising=\"0\"/><safety_controller k_velocity=\"1\"/>\n"
    "  </joint>\n"
    "  <joint name=\"spin\" type=\"continuous\">\n"
    "    <parent link=\"slider\"/><child link=\"wheel\"/><axis xyz=\"0 0 -1\"/>\n"
    "    <mimic joint=\"hinge\"/>\n"
    "  </joint>\n"
    "  <joint name=\"mount\" type=\"fixed\">\n"
    "    <parent link=\"wheel\"/><child link=\"sensor\"/><origin rpy=\"0 0 0.5\"/>\n"
    "  </joint>\n"
    "  <transmission name=\"t\"><joint name=\"hinge\"/></transmission>\n"
    "  <gazebo reference=\"base\"><mu1>0.5</mu1></gazebo>\n"
    "  <xacro:property name=\"p\" value=\"1\"/>\n"
    "  <anything_else/>\n"
    "</robot>\n";

static void test_every_kind(void **state) {
  (void)state;
  char *msgs;
  int errors, warnings;
  mbg_model *m = from_urdf(every_kind, 0, &msgs, &errors, &warnings);
  assert_int_equal(errors, 0);
  assert_int_equal(warnings, 1); /* the mimic joint */
  assert_non_null(strstr(msgs, "t.urdf:34:5: warning: joint 'spin' mimics joint 'hinge'"));
  /* the root fixed without a 'world' link: the normal case of an arm, a note of what was assumed */
  assert_non_null(strstr(msgs, "t.urdf:4:15: note: the robot has no 'world' link: its root link "
                               "'base' is assumed fixed to the world (pass --floating-base"));
  assert_null(strstr(msgs, "warning: the robot has no 'world' link"));
  free(msgs);
  assert_non_null(m);
  assert_string_equal(m->name, "kinds");
  assert_int_equal(m->nbodies, 6); /* the world and five links, in document order */
  assert_string_equal(m->bodies[1].name, "base");
  assert_string_equal(m->bodies[5].name, "sensor");
  const mbg_body *b = &m->bodies[1];
  assert_true(b->mass == 2.5 && b->com[0] == 0.1 && b->com[1] == -0.2 && b->com[2] == 0.3);
  /* URDF order ixx ixy ixz iyy iyz izz -> the model's ixx iyy izz ixy ixz iyz */
  double want[6] = {0.3, 0.2, 0.25, 0.01, -0.02, 0.03};
  for (int k = 0; k < 6; k++) assert_true(b->inertia[k] == want[k]);
  /* rpy 0 0 π/2 (a quarter turn, exact): ixx and iyy swap */
  const mbg_body *r = &m->bodies[2];
  assert_true(r->inertia[0] == 0.2 && r->inertia[1] == 0.1 && r->inertia[2] == 0.25);
  assert_true(r->inertia[3] == 0 && r->inertia[4] == 0 && r->inertia[5] == 0);
  assert_int_equal(m->bodies[5].mass == 0.0, 1); /* no <inertial>: massless */
  /* joints: the root joint first (fixed: no --floating-base), then document order */
  assert_int_equal(m->njoints, 5);
  const mbg_joint *j = m->joints;
  assert_string_equal(j[0].name, "root_joint");
  assert_int_equal(j[0].type, MBG_JOINT_FIXED);
  assert_int_equal(j[0].parent, 0);
  assert_int_equal(j[0].child, 1);
  assert_int_equal(j[1].type, MBG_JOINT_REVOLUTE);
  assert_true(j[1].xyz[0] == 1 && j[1].xyz[1] == 2 && j[1].xyz[2] == 3);
  assert_true(j[1].rpy[0] == 0.1 && j[1].rpy[1] == 0.2 && j[1].rpy[2] == 0.3);
  assert_true(j[1].axis[0] == 1 && j[1].axis[1] == 0 && j[1].axis[2] == 0); /* URDF's default */
  assert_int_equal(j[2].type, MBG_JOINT_PRISMATIC);
  assert_true(j[2].axis[1] == 1);
  assert_int_equal(j[3].type, MBG_JOINT_CONTINUOUS);
  assert_true(j[3].axis[2] == -1);
  assert_int_equal(j[4].type, MBG_JOINT_FIXED);
  assert_true(j[4].rpy[2] == 0.5);
  assert_int_equal(j[4].parent, 4);
  assert_int_equal(j[4].child, 5);
  mbg_model_free(m);
}

/* --floating-base: the root joint is floating; a `floating` joint and a world link as written. */
static void test_root_joints(void **state) {
  (void)state;
  static const char two[] =
      "<robot name=\"r\"><link name=\"base\"><inertial><mass value=\"1\"/>"
      "<inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>"
      "</robot>";
  static const char world[] =
      "<robot name=\"r\"><link name=\"world\"/><link name=\"base\"><inertial><mass value=\"1\"/>"
      "<inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>"
      "<joint name=\"free\" type=\"floating\"><parent link=\"world\"/><child link=\"base\"/>"
      "</joint></robot>";
  char *msgs;
  int errors, warnings;
  mbg_model *m = from_urdf(two, 1, &msgs, &errors, &warnings);
  free(msgs);
  assert_non_null(m);
  assert_int_equal(m->njoints, 1);
  assert_int_equal(m->joints[0].type, MBG_JOINT_FLOATING);
  mbg_model_free(m);
  m = from_urdf(world, 0, &msgs, &errors, &warnings);
  free(msgs);
  assert_non_null(m);
  assert_int_equal(m->nbodies, 2); /* link world is body 0 */
  assert_int_equal(m->njoints, 1);
  assert_string_equal(m->joints[0].name, "free");
  assert_int_equal(m->joints[0].type, MBG_JOINT_FLOATING);
  assert_int_equal(m->joints[0].parent, 0);
  mbg_model_free(m);
}

/* ------------------------------------------------------------------------ round trip */

static void assert_same_numbers(const double *a, const double *b, int n, const char *what) {
  for (int k = 0; k < n; k++)
    if (memcmp(&a[k], &b[k], sizeof a[k]) != 0 && !(a[k] == 0 && b[k] == 0))
      fail_msg("%s[%d]: %.17g != %.17g", what, k, a[k], b[k]);
}

static void assert_same_model(const mbg_model *a, const mbg_model *b) {
  assert_string_equal(a->name, b->name);
  assert_same_numbers(a->gravity, b->gravity, 3, "gravity");
  assert_int_equal(a->nbodies, b->nbodies);
  for (int i = 0; i < a->nbodies; i++) {
    assert_string_equal(a->bodies[i].name, b->bodies[i].name);
    assert_same_numbers(&a->bodies[i].mass, &b->bodies[i].mass, 1, a->bodies[i].name);
    assert_same_numbers(a->bodies[i].com, b->bodies[i].com, 3, a->bodies[i].name);
    assert_same_numbers(a->bodies[i].inertia, b->bodies[i].inertia, 6, a->bodies[i].name);
  }
  assert_int_equal(a->njoints, b->njoints);
  for (int j = 0; j < a->njoints; j++) {
    const mbg_joint *x = &a->joints[j], *y = &b->joints[j];
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->type, y->type);
    assert_int_equal(x->parent, y->parent);
    assert_int_equal(x->child, y->child);
    assert_same_numbers(x->xyz, y->xyz, 3, x->name);
    assert_same_numbers(x->rpy, y->rpy, 3, x->name);
    assert_same_numbers(x->axis, y->axis, 3, x->name);
  }
}

static void test_round_trip(void **state) {
  (void)state;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/examples/urdf", source_dir());
  DIR *d = opendir(dir);
  assert_non_null(d);
  const struct dirent *e;
  int robots = 0;
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".urdf") != 0) continue;
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    for (int fb = 0; fb <= 1; fb++) {
      FILE *sink = fopen("/dev/null", "w");
      int errors, warnings;
      mbg_load_opts o = {.floating_base = fb};
      mbg_model *a = mbg_load(path, &o, sink, &errors, &warnings);
      if (!a) { /* only a robot attached to link `world` refuses --floating-base */
        fclose(sink);
        if (!fb) fail_msg("%s does not load", e->d_name);
        continue;
      }
      char *text = NULL;
      size_t len = 0;
      FILE *f = open_memstream(&text, &len);
      assert_int_equal(mbg_mbd_write(f, a, path), 0);
      assert_int_equal(fclose(f), 0);
      mbg_model *b = mbg_model_from_text("imported.mbd", text, len, sink, &errors, &warnings);
      fclose(sink);
      if (!b) fail_msg("the .mbd written of %s does not read back:\n%s", e->d_name, text);
      assert_same_model(a, b);
      mbg_model_free(a);
      mbg_model_free(b);
      free(text);
      robots++;
    }
  }
  closedir(d);
  assert_true(robots >= 8);
}

/* ------------------------------------------------------------------------ inertia scale */

/* The errors of a one-link robot with this <inertial>; the messages in *msgs. A robot that loads
 * must also load from the .mbd `mbdc import` writes of it (the language's check is the same). */
static int one_link_errors(const char *mass, const char *xyz, const char *inertia, char **msgs) {
  char text[1024];
  snprintf(text, sizeof text,
           "<robot name=\"r\"><link name=\"a\"><inertial><origin xyz=\"%s\"/><mass value=\"%s\"/>"
           "<inertia %s/></inertial></link></robot>",
           xyz, mass, inertia);
  int errors, warnings;
  mbg_model *m = from_urdf(text, 0, msgs, &errors, &warnings);
  assert_true((m == NULL) == (errors > 0));
  if (m) {
    char *mbd = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mbd, &len);
    assert_int_equal(mbg_mbd_write(f, m, "t.urdf"), 0);
    assert_int_equal(fclose(f), 0);
    FILE *sink = fopen("/dev/null", "w");
    int e2, w2;
    mbg_model *b = mbg_model_from_text("t.mbd", mbd, len, sink, &e2, &w2);
    fclose(sink);
    if (!b) fail_msg("the imported .mbd does not load:\n%s", mbd);
    mbg_model_free(b);
    free(mbd);
  }
  mbg_model_free(m);
  return errors;
}

/* A negative principal moment is allowed down to 1e-9 of the body's scale, tr I + m (1 mm)²
 * (docs/urdf.md, "Inertias"): noise loads at any scale, a clearly indefinite inertia is an error
 * at any scale. */
static void test_inertia_scale(void **state) {
  (void)state;
  static const struct {
    const char *what, *mass, *xyz, *inertia;
    int errors;
  } cases[] = {
      /* iCub's head (example-robot-data): only ixz = 2.4e-35, principal moments ±2.4e-35 */
      {"icub head", "1.33687", "0.0185 -0.1108 6.78454e-18",
       "ixx=\"0\" ixy=\"0\" ixz=\"2.40741e-35\" iyy=\"0\" iyz=\"0\" izz=\"0\"", 0},
      /* and its left ankle: ixz = 1.36e-20 */
      {"icub ankle", "0.2675", "0.008 0 0.0553",
       "ixx=\"0\" ixy=\"0\" ixz=\"1.35525e-20\" iyy=\"0\" iyz=\"0\" izz=\"0\"", 0},
      /* its right hip: negative moments on the diagonal, -5.4e-20 */
      {"icub hip", "0.526", "0 0 0.03045",
       "ixx=\"-5.42101e-20\" ixy=\"0\" ixz=\"0\" iyy=\"-5.42101e-20\" iyz=\"0\" izz=\"0\"", 0},
      /* its right ankle: every entry noise */
      {"icub right ankle", "0.746", "-0.0054 0.00163 -0.0172",
       "ixx=\"2.71051e-20\" ixy=\"-1.69407e-21\" ixz=\"1.35525e-20\" iyy=\"5.42101e-20\" "
       "iyz=\"3.38813e-21\" izz=\"1.35525e-20\"", 0},
      /* a full inertia with noise products: principal moments 1e-3, 1e-35, -1e-35 */
      {"noise products", "0.5", "0 0 0",
       "ixx=\"1e-3\" ixy=\"-2.4e-35\" ixz=\"0\" iyy=\"0\" iyz=\"1e-35\" izz=\"0\"", 0},
      /* every entry ~1e-35, 1 kg at the link origin: principal moments -1e-35, 1e-35, 3e-35 */
      {"all noise", "1", "0 0 0",
       "ixx=\"1e-35\" ixy=\"2e-35\" ixz=\"0\" iyy=\"1e-35\" iyz=\"0\" izz=\"1e-35\"", 0},
      {"point mass", "1", "0 0 0",
       "ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"", 0},
      {"tiny body", "1e-6", "0 0 0",
       "ixx=\"1e-12\" ixy=\"1e-35\" ixz=\"0\" iyy=\"2e-12\" iyz=\"0\" izz=\"1.5e-12\"", 0},
      /* principal moments -4e-12, 1e-12, 6e-12 of a 1e-6 kg body: indefinite at its scale */
      {"tiny indefinite", "1e-6", "0 0 0",
       "ixx=\"1e-12\" ixy=\"5e-12\" ixz=\"0\" iyy=\"1e-12\" iyz=\"0\" izz=\"1e-12\"", 1},
      /* principal moments -1e-3, 0, 1e-3: nothing on the diagonal, nothing like noise */
      {"off-diagonal only", "1", "0.1 0 0",
       "ixx=\"0\" ixy=\"1e-3\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"", 1},
      {"sign typo", "2", "0 0 0",
       "ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.02\" iyz=\"0\" izz=\"-0.015\"", 1},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    char *msgs;
    int errors = one_link_errors(cases[k].mass, cases[k].xyz, cases[k].inertia, &msgs);
    if (errors != cases[k].errors)
      fail_msg("%s: %d errors, expected %d\n%s", cases[k].what, errors, cases[k].errors, msgs);
    if (errors && !strstr(msgs, "is not positive semidefinite"))
      fail_msg("%s: not the inertia's error\n%s", cases[k].what, msgs);
    free(msgs);
  }
}

/* ------------------------------------------------------------------------ entities */

/* XML's predefined entities and character references are part of the value: mass="&#50;&#x30;" is
 * 20, izz="&#49;" is 1, name="r&amp;d" is r&d. A DOCTYPE without declarations, or declaring
 * elements and attributes without defaults, changes nothing. */
static void test_entities_read(void **state) {
  (void)state;
  static const char text[] =
      "<?xml version=\"1.0\"?>\n"
      "<!DOCTYPE robot [\n"
      "  <!ELEMENT robot ANY>\n"
      "  <!ATTLIST robot name CDATA #IMPLIED>\n"
      "]>\n"
      "<robot name=\"r&amp;d\">\n"
      "  <link name=\"a\"><inertial><mass value=\"&#50;&#x30;\"/>\n"
      "    <inertia ixx=\"2\" ixy=\"0\" ixz=\"0\" iyy=\"2\" iyz=\"0\" izz=\"&#49;\"/>\n"
      "  </inertial></link>\n"
      "</robot>\n";
  char *msgs;
  int errors, warnings;
  mbg_model *m = from_urdf(text, 0, &msgs, &errors, &warnings);
  assert_int_equal(errors, 0);
  assert_non_null(strstr(msgs, "robot name 'r&d'")); /* renamed r_d, with a warning */
  free(msgs);
  assert_non_null(m);
  assert_true(m->bodies[1].mass == 20.0);
  assert_true(m->bodies[1].inertia[0] == 2.0 && m->bodies[1].inertia[2] == 1.0);
  mbg_model_free(m);
}

/* The reviewer's document: an internal entity inside an attribute. XML reads mass="2&z;" as 20;
 * mbdc refuses the declaration (it must never read 2). */
static void test_entity_not_dropped(void **state) {
  (void)state;
  static const char text[] =
      "<?xml version=\"1.0\"?>\n"
      "<!DOCTYPE robot [<!ENTITY z \"0\">]>\n"
      "<robot name=\"r\"><link name=\"a\"><inertial><mass value=\"2&z;\"/>\n"
      "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"
      "</robot>\n";
  char *msgs;
  int errors, warnings;
  mbg_model *m = from_urdf(text, 0, &msgs, &errors, &warnings);
  assert_null(m);
  assert_int_equal(errors, 1);
  assert_non_null(strstr(msgs, "t.urdf:2:18: error: the document declares the entity 'z'"));
  free(msgs);
}

/* ------------------------------------------------------------------------ reading time */

/* The chain of bench/urdf_chain.sh, written here: N links with inertias, N joints. */
static char *chain_urdf(int n, const char *encoding) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  fprintf(f, "<?xml version=\"1.0\" encoding=\"%s\"?>\n<robot name=\"chain\">\n", encoding);
  for (int k = 0; k <= n; k++)
    fprintf(f,
            "  <link name=\"link%d\">\n    <inertial>\n      <origin xyz=\"0 0 0.05\"/>\n"
            "      <mass value=\"1\"/>\n      <inertia ixx=\"0.0012\" ixy=\"1e-05\" "
            "ixz=\"-2e-05\" iyy=\"0.0011\" iyz=\"3e-05\" izz=\"0.0005\"/>\n    </inertial>\n"
            "  </link>\n",
            k);
  for (int k = 1; k <= n; k++)
    fprintf(f,
            "  <joint name=\"joint%d\" type=\"revolute\">\n    <parent link=\"link%d\"/>\n"
            "    <child link=\"link%d\"/>\n    <origin xyz=\"0 0 0.1\"/>\n"
            "    <axis xyz=\"0 0 1\"/>\n  </joint>\n",
            k, k - 1, k);
  fprintf(f, "</robot>\n");
  assert_int_equal(fclose(f), 0);
  return text;
}

/* Locating an element once scanned the text from its start, so reading took time quadratic in
 * the size: 4000 links took over a minute. Linear, they take a fraction of a second; the bound
 * leaves room for a loaded machine and the sanitizer build. */
static void test_large_chain_time(void **state) {
  (void)state;
  for (int latin1 = 0; latin1 <= 1; latin1++) {
    /* in Latin-1, libxml2 converts the text: the tags are found another way (urdf_xml.c) */
    char *text = chain_urdf(4000, latin1 ? "ISO-8859-1" : "UTF-8"), *msgs;
    int errors, warnings;
    clock_t t0 = clock();
    mbg_model *m = from_urdf(text, 0, &msgs, &errors, &warnings);
    double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    free(msgs);
    free(text);
    assert_non_null(m);
    assert_int_equal(m->nbodies, 4002);
    mbg_model_free(m);
    if (seconds > 10.0)
      fail_msg("reading a 4000-link URDF%s took %.1f s of CPU", latin1 ? " in Latin-1" : "",
               seconds);
  }
}

/* ------------------------------------------------------------------------ reserved words */

/* Every quoted word that starts a rule of grammar/mbd.l is a reserved word, and no other. */
static void test_keywords_match_lexer(void **state) {
  (void)state;
  char path[1024];
  size_t len;
  snprintf(path, sizeof path, "%s/grammar/mbd.l", source_dir());
  char *lex = read_text(path, &len);
  int words = 0;
  for (char *line = lex; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (line[0] != '"' || !isalpha((unsigned char)line[1])) continue;
    char word[32];
    size_t n = strcspn(line + 1, "\"");
    if (n >= sizeof word) continue;
    memcpy(word, line + 1, n);
    word[n] = '\0';
    if (!mbg_is_mbd_keyword(word)) fail_msg("'%s' is reserved by mbd.l but not listed", word);
    words++;
  }
  free(lex);
  assert_true(words >= 30);
  assert_false(mbg_is_mbd_keyword("base_link"));
}

/* 20000 links whose names all become the identifier 'a____' ('a-.!@', 'a-.!#', ...): each takes
 * the next suffix. The search for a free suffix started at _2 for every name, so reading took
 * time quadratic in their number (8000 names: 5.4 s; linear: 0.3 s). */
static void test_same_base_names_time(void **state) {
  (void)state;
  static const char chars[] = "-.!@#$%^*()+=~?,;:[]{}|/";
  enum { N = 20000 };
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  fprintf(f, "<robot name=\"r\"><link name=\"root\"><inertial><mass value=\"1\"/>"
             "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>"
             "</link>\n");
  for (int k = 0; k < N; k++)
    fprintf(f,
            "<link name=\"a%c%c%c%c\"/><joint name=\"j%d\" type=\"fixed\">"
            "<parent link=\"root\"/><child link=\"a%c%c%c%c\"/></joint>\n",
            chars[k % 24], chars[k / 24 % 24], chars[k / 576 % 24], chars[k / 13824],
            k, chars[k % 24], chars[k / 24 % 24], chars[k / 576 % 24], chars[k / 13824]);
  fprintf(f, "</robot>\n");
  assert_int_equal(fclose(f), 0);
  char *msgs;
  int errors, warnings;
  clock_t t0 = clock();
  mbg_model *m = from_urdf(text, 0, &msgs, &errors, &warnings);
  double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
  free(text);
  assert_non_null(m);
  assert_int_equal(warnings, N); /* the renames (the root fixed without a 'world' link: a note) */
  assert_string_equal(m->bodies[N + 1].name, "a_____20000");
  assert_non_null(strstr(msgs, "it is 'a_____20000'"));
  free(msgs);
  mbg_model_free(m);
  if (seconds > 10.0) fail_msg("20000 names with one base took %.1f s of CPU", seconds);
}

int main(void) {
  size_t n;
  golden_case *cases = list_cases(".urdf", &n);
  struct CMUnitTest *tests = calloc(n + 9, sizeof *tests);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    tests[k++] = (struct CMUnitTest){cases[i].name, run_golden, NULL, NULL, &cases[i]};
  tests[k++] = (struct CMUnitTest){"every_kind", test_every_kind, NULL, NULL, NULL};
  tests[k++] = (struct CMUnitTest){"root_joints", test_root_joints, NULL, NULL, NULL};
  tests[k++] = (struct CMUnitTest){"round_trip", test_round_trip, NULL, NULL, NULL};
  tests[k++] = (struct CMUnitTest){"inertia_scale", test_inertia_scale, NULL, NULL, NULL};
  tests[k++] = (struct CMUnitTest){"entities_read", test_entities_read, NULL, NULL, NULL};
  tests[k++] = (struct CMUnitTest){"entity_not_dropped", test_entity_not_dropped, NULL, NULL, NULL};
  tests[k++] = (struct CMUnitTest){"large_chain_time", test_large_chain_time, NULL, NULL, NULL};
  tests[k++] =
      (struct CMUnitTest){"same_base_names_time", test_same_base_names_time, NULL, NULL, NULL};
  tests[k++] =
      (struct CMUnitTest){"keywords_match_lexer", test_keywords_match_lexer, NULL, NULL, NULL};
  int failed = _cmocka_run_group_tests("urdf", tests, k, NULL, NULL);
  free(tests);
  free(cases);
  return failed;
}
