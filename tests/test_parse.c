/* test_parse.c — every construct of the model language reaches mbg_model with the values it
 * says: model name and gravity, constant expressions (precedence, associativity, the list-spacing
 * rule of a '-'), bodies, every joint type, frames, axes, loops, `independent`, the beam and the
 * nodal flexible bodies with their derived rigid properties, comments, the default model name;
 * and every example (examples/, .mbd files) is accepted. The malformed side is in
 * test_diagnostics.c. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/load.h"

static const double PI = 3.14159265358979323846;

/* cmocka 1.1.5 compares floats as float: our own double check. */
#define assert_near(got, want, tol) assert_near_at((got), (want), (tol), #got, __FILE__, __LINE__)
static void assert_near_at(double got, double want, double tol, const char *what,
                           const char *file, int line) {
  if (!(fabs(got - want) <= tol)) {
    print_error("%s = %.17g, want %.17g (tolerance %g)\n", what, got, want, tol);
    _fail(file, line);
  }
}
#define assert_vec3(v, x, y, z, tol)                                                           \
  do {                                                                                         \
    assert_near((v)[0], (x), (tol));                                                           \
    assert_near((v)[1], (y), (tol));                                                           \
    assert_near((v)[2], (z), (tol));                                                           \
  } while (0)

/* Parse `src` as the file `path`; it must give no error and exactly `want_warnings` warnings.
 * The front end's output is printed on failure. */
static mbg_model *parse_as(const char *path, const char *src, int want_warnings) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  assert_non_null(out);
  int errors = -1, warnings = -1;
  mbg_model *m = mbg_model_from_text(path, src, strlen(src), out, &errors, &warnings);
  fclose(out);
  if (errors != 0 || warnings != want_warnings || !m)
    print_error("%d errors, %d warnings (want %d) for:\n%s\n---- output ----\n%s", errors,
                warnings, want_warnings, src, buf);
  free(buf);
  assert_int_equal(errors, 0);
  assert_int_equal(warnings, want_warnings);
  assert_non_null(m);
  return m;
}

static mbg_model *parse(const char *src) { return parse_as("test.mbd", src, 0); }

/* 1 if `src` is rejected (with errors). */
static int rejected(const char *src) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  assert_non_null(out);
  int errors = 0, warnings = 0;
  mbg_model *m = mbg_model_from_text("test.mbd", src, strlen(src), out, &errors, &warnings);
  fclose(out);
  free(buf);
  mbg_model_free(m);
  return errors > 0 && m == NULL;
}

/* A body for a joint to move. */
#define ONE_BODY "body b { mass 1; inertia 1 1 1; }\n"

/* ---- model name and gravity ---- */

static void test_model_name_and_default_gravity(void **state) {
  (void)state;
  mbg_model *m = parse("model robot_arm;\n");
  assert_string_equal(m->name, "robot_arm");
  assert_int_equal(m->name_loc.line, 1);
  assert_int_equal(m->name_loc.col, 7);
  assert_string_equal(m->path, "test.mbd");
  assert_vec3(m->gravity, 0, 0, -9.81, 0);
  assert_int_equal(m->nbodies, 1); /* the world alone */
  assert_string_equal(m->bodies[0].name, "world");
  assert_int_equal(m->njoints, 0);
  assert_int_equal(m->nloops, 0);
  assert_int_equal(m->nindependent, 0);
  mbg_model_free(m);
}

static void test_given_gravity(void **state) {
  (void)state;
  mbg_model *m = parse("gravity 0 -9.81 0;\n");
  assert_vec3(m->gravity, 0, -9.81, 0, 0);
  mbg_model_free(m);
  m = parse("const g = 1.62;\ngravity 0 0 -g;\n");
  assert_vec3(m->gravity, 0, 0, -1.62, 0);
  mbg_model_free(m);
}

/* Without `model`, the name comes from the file name: base name up to the first '.', other
 * characters replaced by '_', a leading digit prefixed by '_'. */
static void test_default_model_name(void **state) {
  (void)state;
  static const struct { const char *path, *name; } cases[] = {
    {"arm.mbd", "arm"},
    {"models/double_pendulum.mbd", "double_pendulum"},
    {"dir.v2/my-arm.v2.mbd", "my_arm"},
    {"3link.mbd", "_3link"},
    {".mbd", "model"},
    {"noext", "noext"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    mbg_model *m = parse_as(cases[i].path, "", 0);
    assert_string_equal(m->name, cases[i].name);
    assert_string_equal(m->path, cases[i].path);
    mbg_model_free(m);
  }
  /* `model` wins over the file name. */
  mbg_model *m = parse_as("arm.mbd", "model other;", 0);
  assert_string_equal(m->name, "other");
  mbg_model_free(m);
}

/* ---- expressions ---- */

/* The value of `expr`, through a constant and the first gravity component. */
static double value_of(const char *expr) {
  char src[512];
  snprintf(src, sizeof src, "const x = %s;\ngravity x 0 0;\n", expr);
  mbg_model *m = parse(src);
  double v = m->gravity[0];
  mbg_model_free(m);
  return v;
}

static void test_const_expressions(void **state) {
  (void)state;
  static const struct { const char *expr; double want; } cases[] = {
    {"1 + 2 * 3", 7},
    {"(1 + 2) * 3", 9},
    {"7 - 2 - 1", 4},          /* left-associative */
    {"7-2-1", 4},
    {"12 / 2 / 3", 2},
    {"10 / 4", 2.5},
    {"2 ^ 3 ^ 2", 512},        /* right-associative: 2^(3^2) */
    {"(2 ^ 3) ^ 2", 64},
    {"-2 ^ 2", -4},            /* unary minus binds looser than ^ */
    {"(-2) ^ 2", 4},
    {"2 ^ -1", 0.5},
    {"-3", -3},
    {"- -3", 3},
    {"2 * -3", -6},
    {"2 - -3", 5},
    {"-(1 + 2)", -3},
    {"2 * 3 ^ 2", 18},
    {"-2 * 3", -6},
    {"pi", PI},
    {"2*pi", 2 * PI},
    {"sqrt(16)", 4},
    {"sqrt(2) * sqrt(2)", 2},
    {"sin(pi / 2)", 1},
    {"cos(0)", 1},
    {"cos(pi)", -1},
    {"sin(30 deg)", 0.5},
    {"90 deg", PI / 2},
    {"-90 deg", -PI / 2},
    {"45 deg * 2", PI / 2},
    {"1e3", 1000},
    {"2.5e-3", 0.0025},
    {".5", 0.5},
    {"2.", 2},
    {"((((1))))", 1},
    {"(1 -1)", 0},             /* inside parentheses a '-' is always a difference */
    {"(1 - 1)", 0},
    {"1e308 * 1.5", 1.5e308},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    double v = value_of(cases[i].expr);
    if (!(fabs(v - cases[i].want) <= 1e-12 * fmax(1, fabs(cases[i].want))))
      print_error("'%s' = %.17g, want %.17g\n", cases[i].expr, v, cases[i].want);
    assert_near(v, cases[i].want, 1e-12 * fmax(1, fabs(cases[i].want)));
  }
}

static void test_constants_refer_to_earlier_ones(void **state) {
  (void)state;
  mbg_model *m = parse("const L = 2;  const m = 3;\n"
                       "const k = m * L^2 / 12;   # a rod\n"
                       "const a = 30 deg;\n"
                       "gravity k a -L;\n");
  assert_vec3(m->gravity, 1.0, PI / 6, -2.0, 1e-15);
  mbg_model_free(m);
}

/* A '-' after a space and directly before a value starts a new value, outside parentheses;
 * `a - b` and `a-b` are differences. */
static void test_list_spacing_rule(void **state) {
  (void)state;
  mbg_model *m = parse("gravity 0 0 -9.81;");
  assert_vec3(m->gravity, 0, 0, -9.81, 0);
  mbg_model_free(m);
  m = parse("gravity 1 -1 0;");
  assert_vec3(m->gravity, 1, -1, 0, 0);
  mbg_model_free(m);
  m = parse("const a = 2;\ngravity a -a 0;");
  assert_vec3(m->gravity, 2, -2, 0, 0);
  mbg_model_free(m);
  m = parse("gravity (1 -1) 5 - 2 6-1;"); /* three values: 0, 3, 5 */
  assert_vec3(m->gravity, 0, 3, 5, 0);
  mbg_model_free(m);
  m = parse("gravity -1 -2 -3;");
  assert_vec3(m->gravity, -1, -2, -3, 0);
  mbg_model_free(m);

  /* `mass 3 - 1` and `mass 3-1` are one value, 2; `mass 3 -1` is two values (an error). */
  m = parse("body b { mass 3 - 1; inertia 1 1 1; }\njoint j revolute world -> b;\n");
  assert_near(m->bodies[1].mass, 2, 0);
  mbg_model_free(m);
  m = parse("body b { mass 3-1; inertia 1 1 1; }\njoint j revolute world -> b;\n");
  assert_near(m->bodies[1].mass, 2, 0);
  mbg_model_free(m);
  assert_true(rejected("body b { mass 3 -1; inertia 1 1 1; }\njoint j revolute world -> b;\n"));
  /* a comment or a newline also counts as space */
  m = parse("gravity 1 # x\n-1 0;");
  assert_vec3(m->gravity, 1, -1, 0, 0);
  mbg_model_free(m);
}

/* ---- bodies ---- */

static void test_body_mass_com_inertia(void **state) {
  (void)state;
  mbg_model *m = parse("body a { mass 2.5; com 0.1 -0.2 0.3; inertia 1 2 2.5; }\n"
                       "body b { inertia 4 5 6 0.1 -0.2 0.3; mass 1; }\n"
                       "body c { mass 1; }\n"
                       "joint ja revolute world -> a;\n"
                       "joint jb revolute a -> b;\n"
                       "joint jc revolute b -> c;\n");
  assert_int_equal(m->nbodies, 4);
  const mbg_body *a = &m->bodies[1], *b = &m->bodies[2], *c = &m->bodies[3];
  assert_string_equal(a->name, "a");
  assert_int_equal(a->loc.line, 1);
  assert_int_equal(a->loc.col, 6);
  assert_near(a->mass, 2.5, 0);
  assert_vec3(a->com, 0.1, -0.2, 0.3, 0);
  assert_vec3(a->inertia, 1, 2, 2.5, 0);
  assert_vec3(a->inertia + 3, 0, 0, 0, 0);
  assert_null(a->flex);
  assert_near(b->mass, 1, 0);
  assert_vec3(b->com, 0, 0, 0, 0);
  assert_vec3(b->inertia, 4, 5, 6, 0);
  assert_vec3(b->inertia + 3, 0.1, -0.2, 0.3, 0);
  /* a point mass: no inertia given */
  assert_near(c->mass, 1, 0);
  assert_vec3(c->inertia, 0, 0, 0, 0);
  mbg_model_free(m);
}

/* ---- joints ---- */

static void test_every_joint_type(void **state) {
  (void)state;
  static const struct { const char *type; mbg_joint_type t; const char *items; } cases[] = {
    {"fixed", MBG_JOINT_FIXED, ""},
    {"revolute", MBG_JOINT_REVOLUTE, "axis 0 1 0;"},
    {"continuous", MBG_JOINT_CONTINUOUS, "axis 0 1 0;"},
    {"prismatic", MBG_JOINT_PRISMATIC, "axis 0 1 0;"},
    {"helical", MBG_JOINT_HELICAL, "axis 0 1 0; pitch 0.25;"},
    {"spherical", MBG_JOINT_SPHERICAL, ""},
    {"floating", MBG_JOINT_FLOATING, ""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char src[512];
    /* a moving body behind the fixed joint carries the mass for it */
    snprintf(src, sizeof src,
             "body base { mass 1; inertia 1 1 1; }\n"
             "body b { mass 2; inertia 1 1 1; }\n"
             "joint j0 revolute world -> base;\n"
             "joint j %s base -> b { origin xyz 1 2 3 rpy 0.1 0.2 0.3; %s }\n",
             cases[i].type, cases[i].items);
    mbg_model *m = parse(src);
    assert_int_equal(m->njoints, 2);
    const mbg_joint *j = &m->joints[1];
    assert_string_equal(j->name, "j");
    assert_int_equal(j->type, cases[i].t);
    assert_string_equal(mbg_joint_type_name(j->type), cases[i].type);
    assert_int_equal(j->parent, 1);
    assert_int_equal(j->child, 2);
    assert_int_equal(j->parent_loc.line, 4);
    assert_int_equal(j->node, -1);
    assert_vec3(j->xyz, 1, 2, 3, 0);
    assert_vec3(j->rpy, 0.1, 0.2, 0.3, 0);
    if (mbg_joint_type_has_axis(j->type)) assert_vec3(j->axis, 0, 1, 0, 0);
    else assert_vec3(j->axis, 0, 0, 1, 0); /* the default, unused */
    assert_near(j->pitch, j->type == MBG_JOINT_HELICAL ? 0.25 : 0, 0);
    mbg_model_free(m);
  }
}

static void test_origin_forms(void **state) {
  (void)state;
  mbg_model *m = parse(ONE_BODY
                       "body c { mass 1; inertia 1 1 1; }\n"
                       "body d { mass 1; inertia 1 1 1; }\n"
                       "body e { mass 1; inertia 1 1 1; }\n"
                       "joint j1 revolute world -> b { origin xyz 0.5 -0.5 1; }\n"
                       "joint j2 revolute b -> c { origin rpy 90 deg 0 -pi/4; }\n"
                       "joint j3 revolute c -> d { origin xyz 1 0 0 rpy 0 0 pi; }\n"
                       "joint j4 revolute d -> e;\n");
  assert_vec3(m->joints[0].xyz, 0.5, -0.5, 1, 0);
  assert_vec3(m->joints[0].rpy, 0, 0, 0, 0);
  assert_vec3(m->joints[1].xyz, 0, 0, 0, 0);
  assert_vec3(m->joints[1].rpy, PI / 2, 0, -PI / 4, 1e-15);
  assert_vec3(m->joints[2].xyz, 1, 0, 0, 0);
  assert_vec3(m->joints[2].rpy, 0, 0, PI, 1e-15);
  assert_vec3(m->joints[3].xyz, 0, 0, 0, 0);
  assert_vec3(m->joints[3].rpy, 0, 0, 0, 0);
  assert_vec3(m->joints[3].axis, 0, 0, 1, 0); /* default axis z */
  mbg_model_free(m);
}

static void test_axis_normalization(void **state) {
  (void)state;
  /* 0 3 4 has length 5: normalized, with a warning */
  mbg_model *m = parse_as("test.mbd", ONE_BODY "joint j prismatic world -> b { axis 0 3 4; }\n", 1);
  assert_vec3(m->joints[0].axis, 0, 0.6, 0.8, 1e-15);
  mbg_model_free(m);
  /* nearly unit (within 1e-3): normalized silently */
  m = parse(ONE_BODY "joint j revolute world -> b { axis 0.7071 0.7071 0; }\n");
  double n = sqrt(2 * 0.7071 * 0.7071);
  assert_vec3(m->joints[0].axis, 0.7071 / n, 0.7071 / n, 0, 1e-15);
  mbg_model_free(m);
  m = parse(ONE_BODY "joint j revolute world -> b { axis -1 0 0; }\n");
  assert_vec3(m->joints[0].axis, -1, 0, 0, 0);
  mbg_model_free(m);
}

static void test_helical_pitch(void **state) {
  (void)state;
  mbg_model *m = parse("const lead = 0.010;\n" ONE_BODY
                       "joint s helical world -> b { axis 0 0 1; pitch lead / (2*pi); }\n");
  assert_int_equal(m->joints[0].type, MBG_JOINT_HELICAL);
  assert_near(m->joints[0].pitch, 0.010 / (2 * PI), 1e-18);
  mbg_model_free(m);
}

/* ---- loops and `independent` ---- */

#define TWO_LINKS                                                                              \
  "body a { mass 1; inertia 1 1 1; }\n"                                                        \
  "body b { mass 1; inertia 1 1 1; }\n"                                                        \
  "joint ja revolute world -> a { axis 0 0 1; }\n"                                             \
  "joint jb revolute a -> b { origin xyz 1 0 0; axis 0 0 1; }\n"

static void test_loop(void **state) {
  (void)state;
  mbg_model *m = parse(TWO_LINKS
                       "loop c revolute b -> world {\n"
                       "  origin xyz 1 0 0 rpy 0 0 pi/2;\n"
                       "  target xyz 2 0.5 0 rpy 0.1 0 0;\n"
                       "  axis 0 0 1;\n"
                       "}\n");
  assert_int_equal(m->nloops, 1);
  const mbg_loop *l = &m->loops[0];
  assert_string_equal(l->name, "c");
  assert_int_equal(l->loc.line, 5);
  assert_int_equal(l->type, MBG_JOINT_REVOLUTE);
  assert_int_equal(l->body_a, 2);
  assert_int_equal(l->body_b, 0);
  assert_vec3(l->xyz, 1, 0, 0, 0);
  assert_vec3(l->rpy, 0, 0, PI / 2, 1e-15);
  assert_vec3(l->target_xyz, 2, 0.5, 0, 0);
  assert_vec3(l->target_rpy, 0.1, 0, 0, 0);
  assert_vec3(l->axis, 0, 0, 1, 0);
  assert_int_equal(m->njoints, 2); /* a loop is not a tree joint */
  mbg_model_free(m);
}

static void test_loop_basic_constraints(void **state) {
  (void)state;
  mbg_model *m = parse(TWO_LINKS
                       "loop c1 d1 b -> world { axis 1 0 0; axis2 0 1 0; }\n"
                       "loop c2 ss a -> b { origin xyz 0.5 0 0; target xyz 0.2 0 0;"
                       " distance 0.75; }\n"
                       "loop c3 s b -> world { target xyz 1 1 0; }\n"
                       "loop c4 d2 a -> world { axis 0 1 0; }\n"
                       "loop c5 helical b -> world { axis 0 0 1; pitch 0.5; }\n");
  assert_int_equal(m->nloops, 5);
  assert_int_equal(m->loops[0].type, MBG_JOINT_D1);
  assert_vec3(m->loops[0].axis, 1, 0, 0, 0);
  assert_vec3(m->loops[0].axis_b, 0, 1, 0, 0);
  assert_int_equal(m->loops[1].type, MBG_JOINT_SS);
  assert_int_equal(m->loops[1].body_a, 1);
  assert_int_equal(m->loops[1].body_b, 2);
  assert_near(m->loops[1].distance, 0.75, 0);
  assert_vec3(m->loops[1].xyz, 0.5, 0, 0, 0);
  assert_vec3(m->loops[1].target_xyz, 0.2, 0, 0, 0);
  assert_int_equal(m->loops[2].type, MBG_JOINT_S);
  assert_vec3(m->loops[2].target_xyz, 1, 1, 0, 0);
  assert_int_equal(m->loops[3].type, MBG_JOINT_D2);
  assert_vec3(m->loops[3].axis, 0, 1, 0, 0);
  assert_int_equal(m->loops[4].type, MBG_JOINT_HELICAL);
  assert_near(m->loops[4].pitch, 0.5, 0);
  mbg_model_free(m);
}

static void test_independent(void **state) {
  (void)state;
  mbg_model *m = parse(TWO_LINKS "independent jb ja;\n");
  assert_int_equal(m->nindependent, 2);
  assert_int_equal(m->independent[0], 1); /* in the order written */
  assert_int_equal(m->independent[1], 0);
  mbg_model_free(m);
}

/* ---- flexible bodies ---- */

/* The beam preset: a uniform rod along x, so mass = rhoA L, com = L/2, and about the COM
 * ixx = 0, iyy = izz = m L^2 / 12. */
static void test_beam_flexible_body(void **state) {
  (void)state;
  mbg_model *m = parse("body f flexible { beam length 1.2 EI 350 rhoA 2.5 modes 3; }\n"
                       "joint j revolute world -> f { axis 0 0 1; }\n");
  const mbg_body *f = &m->bodies[1];
  assert_non_null(f->flex);
  assert_true(f->flex->is_beam);
  assert_near(f->flex->length, 1.2, 0);
  assert_near(f->flex->EI, 350, 0);
  assert_near(f->flex->rhoA, 2.5, 0);
  assert_int_equal(f->flex->nmodes, 3);
  assert_int_equal(f->flex->nnodes, 0);
  double mass = 2.5 * 1.2;
  assert_near(f->mass, mass, 1e-15);
  assert_vec3(f->com, 0.6, 0, 0, 1e-15);
  assert_vec3(f->inertia, 0, mass * 1.44 / 12, mass * 1.44 / 12, 1e-15);
  assert_vec3(f->inertia + 3, 0, 0, 0, 0);
  mbg_model_free(m);
  /* the parameters in any order */
  m = parse("body f flexible { beam modes 1 rhoA 1 EI 2 length 3; }\n"
            "joint j revolute world -> f;\n");
  assert_near(m->bodies[1].flex->length, 3, 0);
  assert_near(m->bodies[1].flex->EI, 2, 0);
  assert_int_equal(m->bodies[1].flex->nmodes, 1);
  mbg_model_free(m);
}

/* Explicit nodal data. The reference rigid body is computed by hand:
 *   n0 at (0,0,0), mass 1; n1 at (2,1,0), mass 3, own inertia 0.1 0.2 0.3.
 *   mass 4; com = 3 (2,1,0) / 4 = (1.5, 0.75, 0).
 *   Two point masses about their COM: reduced mass mu = 1·3/4 = 0.75, separation r = (2,1,0),
 *   |r|^2 = 5: ixx = mu (5 - 4) = 0.75, iyy = mu (5 - 1) = 3, izz = mu 5 = 3.75,
 *   ixy = -mu rx ry = -1.5, ixz = iyz = 0; plus n1's own: 0.85, 3.2, 4.05, -1.5, 0, 0. */
static void test_nodal_flexible_body(void **state) {
  (void)state;
  mbg_model *m = parse("body f flexible {\n"
                       "  nodes {\n"
                       "    n0 xyz 0 0 0 mass 1;\n"
                       "    n1 mass 3 xyz 2 1 0 inertia 0.1 0.2 0.3;   # any order\n"
                       "  }\n"
                       "  modes {\n"
                       "    bend { n1 0 0 0.5 0 1 0; }\n"
                       "    twist { n1 1 0 0 0 0 0.25; n0 0 0 0 0 0 0; }\n"
                       "  }\n"
                       "  stiffness { 100 10; 10 200; }\n"
                       "  damping { 1 0; 0 2; }\n"
                       "}\n"
                       "body tip { mass 0.5; inertia 0.01 0.01 0.01; }\n"
                       "joint j revolute world -> f { axis 0 0 1; }\n"
                       "joint w revolute f -> tip { origin xyz 2 1 0; node n1; }\n");
  const mbg_body *f = &m->bodies[1];
  const mbg_flex *x = f->flex;
  assert_non_null(x);
  assert_false(x->is_beam);
  assert_int_equal(x->nnodes, 2);
  assert_string_equal(x->nodes[0].name, "n0");
  assert_string_equal(x->nodes[1].name, "n1");
  assert_int_equal(x->nodes[1].loc.line, 4);
  assert_vec3(x->nodes[1].xyz, 2, 1, 0, 0);
  assert_near(x->nodes[0].mass, 1, 0);
  assert_near(x->nodes[1].mass, 3, 0);
  assert_vec3(x->nodes[1].inertia, 0.1, 0.2, 0.3, 0);
  assert_int_equal(x->nmodes, 2);
  assert_string_equal(x->mode_names[0], "bend");
  assert_string_equal(x->mode_names[1], "twist");
  /* shapes[mode][node][rx ry rz tx ty tz]; a node a mode does not list is still */
  static const double shapes[2][2][6] = {
    {{0, 0, 0, 0, 0, 0}, {0, 0, 0.5, 0, 1, 0}},
    {{0, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0.25}},
  };
  for (int k = 0; k < 24; k++) assert_near(x->shapes[k], (&shapes[0][0][0])[k], 0);
  static const double K[4] = {100, 10, 10, 200}, D[4] = {1, 0, 0, 2};
  for (int k = 0; k < 4; k++) {
    assert_near(x->stiffness[k], K[k], 0);
    assert_near(x->damping[k], D[k], 0);
  }
  assert_near(f->mass, 4, 1e-15);
  assert_vec3(f->com, 1.5, 0.75, 0, 1e-15);
  assert_vec3(f->inertia, 0.85, 3.2, 4.05, 1e-14);
  assert_vec3(f->inertia + 3, -1.5, 0, 0, 1e-14);
  assert_int_equal(m->joints[1].node, 1);
  assert_int_equal(m->joints[0].node, -1);
  mbg_model_free(m);
  /* damping is optional */
  m = parse("body f flexible { nodes { a xyz 1 0 0 mass 2; } modes { m1 { a 0 0 1 0 1 0; } }\n"
            "  stiffness { 50; } }\n"
            "joint j revolute world -> f;\n");
  assert_null(m->bodies[1].flex->damping);
  assert_near(m->bodies[1].flex->stiffness[0], 50, 0);
  assert_near(m->bodies[1].mass, 2, 0);
  assert_vec3(m->bodies[1].com, 1, 0, 0, 0);
  mbg_model_free(m);
}

/* ---- lexical matters ---- */

static void test_comments_and_layout(void **state) {
  (void)state;
  mbg_model *m = parse("# a comment line\n"
                       "model   m ;   # trailing comment; with ; inside\n"
                       "\t\r\n"
                       ";;  # empty statements\n"
                       "body b {   # open\n"
                       "  mass 1 ;  # mass\n"
                       "  inertia 1 1 1;}\n"
                       "joint j revolute world->b{axis 0 0 1;}# no spaces\n"
                       "# the last line has no newline");
  assert_string_equal(m->name, "m");
  assert_int_equal(m->nbodies, 2);
  assert_int_equal(m->njoints, 1);
  assert_int_equal(m->joints[0].loc.line, 8);
  mbg_model_free(m);
  /* CRLF line ends */
  m = parse("model crlf;\r\nconst a = 2;\r\ngravity 0 0 -a;\r\n");
  assert_vec3(m->gravity, 0, 0, -2, 0);
  mbg_model_free(m);
}

/* Words that are keywords only inside a flexible body can name things. */
static void test_soft_keywords_as_names(void **state) {
  (void)state;
  mbg_model *m = parse("body beam { mass 1; inertia 1 1 1; }\n"
                       "joint length revolute world -> beam;\n"
                       "model nodes;\n");
  assert_string_equal(m->name, "nodes");
  assert_string_equal(m->bodies[1].name, "beam");
  assert_string_equal(m->joints[0].name, "length");
  mbg_model_free(m);
}

/* An empty file is a valid, empty model (the world alone). */
static void test_empty_file(void **state) {
  (void)state;
  mbg_model *m = parse_as("empty.mbd", "", 0);
  assert_string_equal(m->name, "empty");
  assert_int_equal(m->nbodies, 1);
  assert_int_equal(m->njoints, 0);
  mbg_model_free(m);
  m = parse_as("only_comments.mbd", "# nothing\n\n", 0);
  assert_int_equal(m->nbodies, 1);
  mbg_model_free(m);
}

/* ---- the examples ---- */

static void test_examples_are_accepted(void **state) {
  (void)state;
  const char *src = getenv("MBDC_SOURCE_DIR");
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/examples", src && *src ? src : ".");
  DIR *d = opendir(dir);
  if (!d) fail_msg("cannot open %s (is MBDC_SOURCE_DIR set?)", dir);
  int count = 0;
  const struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".mbd") != 0) continue;
    char path[2048], *buf = NULL;
    size_t blen = 0;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *out = open_memstream(&buf, &blen);
    assert_non_null(out);
    int errors = -1, warnings = -1;
    mbg_model *m = mbg_load_mbd(path, out, &errors, &warnings);
    fclose(out);
    if (errors != 0 || warnings != 0 || !m)
      print_error("%s: %d errors, %d warnings:\n%s", e->d_name, errors, warnings, buf);
    free(buf);
    assert_int_equal(errors, 0);
    assert_int_equal(warnings, 0);
    assert_non_null(m);
    assert_true(m->nbodies > 1);
    assert_true(m->njoints > 0);
    mbg_model_free(m);
    count++;
  }
  closedir(d);
  assert_true(count >= 9);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_model_name_and_default_gravity),
    cmocka_unit_test(test_given_gravity),
    cmocka_unit_test(test_default_model_name),
    cmocka_unit_test(test_const_expressions),
    cmocka_unit_test(test_constants_refer_to_earlier_ones),
    cmocka_unit_test(test_list_spacing_rule),
    cmocka_unit_test(test_body_mass_com_inertia),
    cmocka_unit_test(test_every_joint_type),
    cmocka_unit_test(test_origin_forms),
    cmocka_unit_test(test_axis_normalization),
    cmocka_unit_test(test_helical_pitch),
    cmocka_unit_test(test_loop),
    cmocka_unit_test(test_loop_basic_constraints),
    cmocka_unit_test(test_independent),
    cmocka_unit_test(test_beam_flexible_body),
    cmocka_unit_test(test_nodal_flexible_body),
    cmocka_unit_test(test_comments_and_layout),
    cmocka_unit_test(test_soft_keywords_as_names),
    cmocka_unit_test(test_empty_file),
    cmocka_unit_test(test_examples_are_accepted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
