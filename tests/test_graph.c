/* test_graph.c — the Graphviz output (generator/graph.c) and the check summary
 * (generator/summary.c) of a small hand-built model: expected nodes, edges, styles and lines,
 * deterministic text, and `dot -Tsvg` accepts the graph when Graphviz is installed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/graph.h"
#include "cli/summary.h"

static const mbg_loc noloc = {0, 0, 0};

static int body(mbg_model *m, const char *name, double mass) {
  int b = mbg_model_add_body(m, name, noloc);
  assert_true(b > 0);
  m->bodies[b].mass = mass;
  return b;
}

static void joint(mbg_model *m, const char *name, mbg_joint_type type, int parent, int child) {
  int j = mbg_model_add_joint(m, name, noloc);
  assert_true(j >= 0);
  m->joints[j].type = type;
  m->joints[j].parent = parent;
  m->joints[j].child = child;
}

/* world -q1-> a (a node) with a fixed tool, a -j2-> b, a -j3-> c -j4-> d, a loop b–d, and a body
 * with an awkward name fixed to the world. Bodies: world 0, a 1, tool 2, b 3, c 4, d 5, odd 6. */
static mbg_model *make_model(void) {
  mbg_model *m = mbg_model_new("small", "examples/small.mbd");
  assert_non_null(m);
  int a = body(m, "a", 2), tool = body(m, "tool", 0.5), b = body(m, "b", 1);
  int c = body(m, "c", 1), d = body(m, "d", 1.25), odd = body(m, "we\"ird\\N", 1);
  joint(m, "q1", MBG_JOINT_REVOLUTE, 0, a);
  joint(m, "mount", MBG_JOINT_FIXED, a, tool);
  joint(m, "j2", MBG_JOINT_PRISMATIC, a, b);
  joint(m, "j3", MBG_JOINT_REVOLUTE, a, c);
  joint(m, "j4", MBG_JOINT_SPHERICAL, c, d);
  joint(m, "stand", MBG_JOINT_FIXED, 0, odd);
  int l = mbg_model_add_loop(m, "l1", noloc);
  m->loops[l].type = MBG_JOINT_S;
  m->loops[l].body_a = b, m->loops[l].body_b = d;
  return m;
}

/* Everything a printer writes, as a NUL-terminated string (caller frees). */
static char *capture(void (*print)(FILE *, const mbg_model *, const mbg_topology *),
                     const mbg_model *m, const mbg_topology *t) {
  FILE *f = tmpfile();
  assert_non_null(f);
  print(f, m, t);
  long n = ftell(f);
  assert_true(n > 0);
  rewind(f);
  char *s = calloc((size_t)n + 1, 1);
  assert_non_null(s);
  assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  return s;
}

static void assert_contains(const char *text, const char *want) {
  if (!strstr(text, want)) print_error("missing: %s\nin:\n%s\n", want, text);
  assert_non_null(strstr(text, want));
}

static void test_dot(void **state) {
  (void)state;
  mbg_model *m = make_model();
  mbg_topology *t = mbg_topology_build(m);
  assert_non_null(t);
  char *dot = capture(mbg_graph_dot, m, t), *again = capture(mbg_graph_dot, m, t);
  assert_string_equal(dot, again);
  assert_contains(dot, "digraph \"small\" {\n");
  assert_contains(dot, "  b0 [label=\"world\", shape=box");
  assert_contains(dot, "  b1 [label=\"a\\n2 kg\", shape=doubleoctagon");
  /* b is chain 0, c and d chain 1 (one colour), the tool is merged into a (node colour). */
  assert_contains(dot, "  b3 [label=\"b\\n1 kg\", fillcolor=\"#8dd3c7\"];\n");
  assert_contains(dot, "  b4 [label=\"c\\n1 kg\", fillcolor=\"#bebada\"];\n");
  assert_contains(dot, "  b5 [label=\"d\\n1.25 kg\", fillcolor=\"#bebada\"];\n");
  assert_contains(dot, "  b2 [label=\"tool\\n0.5 kg\", style=\"filled,dashed\"");
  assert_contains(dot, "  b6 [label=\"we\\\"ird\\\\N\\n1 kg\"");
  assert_contains(dot, "  b0 -> b1 [label=\"q1\\nrevolute\"];\n");
  assert_contains(dot, "  b1 -> b2 [label=\"mount\\nfixed\", color=\"grey55\"");
  assert_contains(dot, "  b4 -> b5 [label=\"j4\\nspherical\"];\n");
  assert_contains(dot, "  b3 -> b5 [label=\"l1\\ns\", style=dashed, constraint=false];\n");
  assert_int_equal(dot[strlen(dot) - 2], '}');
  free(dot);
  free(again);
  mbg_topology_free(t);
  mbg_model_free(m);
}

/* Graphviz itself must accept the file (skipped when `dot` is not installed). */
static void test_dot_accepted(void **state) {
  (void)state;
  if (system("command -v dot >/dev/null 2>&1") != 0) {
    skip();
    return;
  }
  const char *dir = getenv("MBDC_BINARY_DIR");
  char path[4096], cmd[8400];
  snprintf(path, sizeof path, "%s/test_graph_small.dot", dir ? dir : ".");
  mbg_model *m = make_model();
  mbg_topology *t = mbg_topology_build(m);
  assert_non_null(t);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  mbg_graph_dot(f, m, t);
  assert_int_equal(fclose(f), 0);
  snprintf(cmd, sizeof cmd, "dot -Tsvg '%s' -o '%s.svg'", path, path);
  assert_int_equal(system(cmd), 0);
  mbg_topology_free(t);
  mbg_model_free(m);
}

/* The summary without a loop-row selection (the loops' lines are the topology's alone). */
static void summary_plain(FILE *out, const mbg_model *m, const mbg_topology *t) {
  mbg_summary_print(out, m, t, NULL, NULL);
}

static void test_summary(void **state) {
  (void)state;
  mbg_model *m = make_model();
  mbg_topology *t = mbg_topology_build(m);
  assert_non_null(t);
  char *text = capture(summary_plain, m, t), *again = capture(summary_plain, m, t);
  assert_string_equal(text, again);
  assert_contains(text, "model small\n");
  assert_contains(text, "nq = 7, nv = 6\n");
  assert_contains(text, "4 moving, 2 merged (7 in the model, with the world)\n");
  assert_contains(text, "    1  q1     revolute   world  -> a         0   1     0   1\n");
  assert_contains(text, "    4  j4     spherical  c      -> d         3   4     3   3\n");
  assert_contains(text, "  mount  tool      into a\n");
  assert_contains(text, "  stand  we\"ird\\N  into world\n");
  assert_contains(text, "    0  b\n    1  c -> d\n");
  assert_contains(text, "nodes (1)  a\n");
  assert_contains(text, "  l1  s  b -- d, path: j2 j3 j4 (through a)\n");
  assert_contains(text, "gravity       0 0 -9.81\n");
  free(text);
  free(again);
  mbg_topology_free(t);
  mbg_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dot),
    cmocka_unit_test(test_dot_accepted),
    cmocka_unit_test(test_summary),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
