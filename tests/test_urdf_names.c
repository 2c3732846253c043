/* test_urdf_names.c — URDF names made model names (generator/urdf/urdf_names.c): whatever a
 * link, joint or robot is called, the name it gets is one the model language reads back (a C
 * identifier of at most 63 characters, not reserved in C, not a word of the language, not
 * "world"), unique, and `mbdc import` text reads back as the same model. Hand-picked hostile
 * names and seeded random ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/mbd_write.h"
#include "load/load.h"
#include "mb_randtree.h"
#include "model/build.h"
#include "model/names.h"

/* XML text of a name: & < > " escaped. */
static void xml_name(const char *name, char *out) {
  size_t n = 0;
  for (const char *p = name; *p; p++) {
    const char *e = *p == '&'   ? "&amp;"
                    : *p == '<' ? "&lt;"
                    : *p == '>' ? "&gt;"
                    : *p == '"' ? "&quot;"
                                : NULL;
    if (e)
      memcpy(out + n, e, strlen(e)), n += strlen(e);
    else
      out[n++] = *p;
  }
  out[n] = '\0';
}

/* A chain of links named links[0..n) joined by joints named joints[0..n-1), as URDF text. */
static char *chain_urdf(const char *robot, const char *const *links, const char *const *joints,
                        int n) {
  size_t cap = 4096 + (size_t)n * 1024, len = 0;
  char *t = malloc(cap), a[600], b[600];
  xml_name(robot, a);
  len += (size_t)snprintf(t + len, cap - len, "<robot name=\"%s\">\n", a);
  for (int k = 0; k < n; k++) {
    xml_name(links[k], a);
    len +=
        (size_t)snprintf(t + len, cap - len,
                         "  <link name=\"%s\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" "
                         "iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n",
                         a);
  }
  for (int k = 0; k + 1 < n; k++) {
    xml_name(joints[k], a);
    xml_name(links[k], b);
    len += (size_t)snprintf(t + len, cap - len,
                            "  <joint name=\"%s\" type=\"revolute\"><parent "
                            "link=\"%s\"/>",
                            a, b);
    xml_name(links[k + 1], b);
    len += (size_t)snprintf(t + len, cap - len,
                            "<child link=\"%s\"/><axis xyz=\"0 0 1\"/></joint>\n", b);
  }
  snprintf(t + len, cap - len, "</robot>\n");
  return t;
}

static void assert_readable_name(const char *name, const char *what) {
  const char *why;
  if (!mbg_valid_c_name(name, &why)) fail_msg("%s name '%s' %s", what, name, why);
  if (mbg_is_mbd_keyword(name))
    fail_msg("%s name '%s' is a word of the model language", what, name);
}

/* Import the chain and read the written .mbd back: the same names, no error. */
static void round_trip(const char *robot, const char *const *links, const char *const *joints,
                       int n) {
  char *urdf = chain_urdf(robot, links, joints, n), *msgs = NULL, *text = NULL;
  size_t mlen = 0, len = 0;
  FILE *out = open_memstream(&msgs, &mlen);
  int errors, warnings;
  mbg_model *a = mbg_model_from_source("t.urdf", urdf, strlen(urdf), NULL, out, &errors, &warnings);
  fclose(out);
  if (!a) fail_msg("the URDF does not load:\n%s\n%s", msgs, urdf);
  assert_readable_name(a->name, "model");
  for (int i = 1; i < a->nbodies; i++) {
    assert_readable_name(a->bodies[i].name, "body");
    assert_string_not_equal(a->bodies[i].name, "world");
  }
  for (int j = 0; j < a->njoints; j++) assert_readable_name(a->joints[j].name, "joint");
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(mbg_mbd_write(f, a, "t.urdf"), 0);
  fclose(f);
  free(msgs);
  out = open_memstream(&msgs, &mlen);
  mbg_model *b = mbg_model_from_text("imported.mbd", text, len, out, &errors, &warnings);
  fclose(out);
  if (!b) fail_msg("the imported .mbd does not read back:\n%s\n%s", msgs, text);
  assert_int_equal(errors, 0);
  assert_string_equal(a->name, b->name);
  assert_int_equal(a->nbodies, b->nbodies);
  for (int i = 0; i < a->nbodies; i++) assert_string_equal(a->bodies[i].name, b->bodies[i].name);
  assert_int_equal(a->njoints, b->njoints);
  for (int j = 0; j < a->njoints; j++) assert_string_equal(a->joints[j].name, b->joints[j].name);
  mbg_model_free(a);
  mbg_model_free(b);
  free(msgs);
  free(text);
  free(urdf);
}

static void t_hostile_names(void **st) {
  (void)st;
  static const char *const links[] = {
      "-A",
      "..",
      "_",
      "-",
      ".",
      "__",
      "_Bool",
      "int",
      "sin",
      "body",
      "9lives",
      "a b",
      "\xe6\x97\xa5\xe6\x9c\xac",
      "x",
      "a-b",
      "a_b",
      "-_",
      "_-",
      "main",
      "NULL",
      "true",
      "_Z9",
      "p23456789_123456789_123456789_123456789_123456789_123456789_1234567",
      "-23456789_123456789_123456789_123456789_123456789_123456789_1234567",
      "_23456789_123456789_123456789_123456789_123456789_123456789_12345_",
      "world_",
      "model",
  };
  static const char *const joints[] = {
      "world", "x",    "-",
      "_",     "__",   "_A",
      "if",    "sqrt", "joint",
      "axis2", "9",    "a b",
      "a-b",   "a_b",  "..",
      "-x",    "_x",   "mass",
      "EI",    "rhoA", "_2",
      "_3",    "node", "p23456789_123456789_123456789_123456789_123456789_123456789_1234567",
      "y",     "z",
  };
  enum { N = sizeof links / sizeof *links };
  _Static_assert(sizeof joints / sizeof *joints == N - 1, "one joint between two links");
  round_trip("-X", links, joints, N);
  round_trip("_", links, joints, N);
  round_trip("int", links, joints, N);
  round_trip("__robot", links, joints, N);
}

static void t_random_names(void **st) {
  (void)st;
  static const char alphabet[] = "_-.aZ09 /*\\<&";
  mbt_rng g;
  mbt_rng_seed(&g, 20261124);
  for (int trial = 0; trial < 200; trial++) {
    enum { N = 6 };
    char names[2 * N][80];
    const char *links[N], *joints[N], *robot = names[2 * N - 1];
    for (int k = 0; k < 2 * N; k++) {
      int again = 1;
      while (again) { /* URDF names are unique among links and among joints */
        int len = mbt_randint(&g, 0, 3) == 0 ? mbt_randint(&g, 60, 70) : mbt_randint(&g, 1, 4);
        for (int c = 0; c < len; c++)
          names[k][c] = alphabet[mbt_randint(&g, 0, (int)sizeof alphabet - 2)];
        names[k][len] = '\0';
        again = 0;
        for (int j = k < N ? 0 : N; j < k; j++) again |= strcmp(names[j], names[k]) == 0;
      }
    }
    for (int k = 0; k < N; k++) links[k] = names[k], joints[k] = names[N + k];
    round_trip(robot, links, joints, N);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_hostile_names),
      cmocka_unit_test(t_random_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
