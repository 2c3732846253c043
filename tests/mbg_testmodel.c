/* mbg_testmodel.c — see mbg_testmodel.h. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbg_testmodel.h"

static const mbg_loc noloc = {0, 0, 0};

void mbgt_assert_near(double a, double b, double tol, const char *file, int line) {
  if (!(fabs(a - b) <= tol)) {
    print_error("%s:%d: %.17g != %.17g (tolerance %g)\n", file, line, a, b, tol);
    _fail(file, line);
  }
}

void mbgt_eval_outputs(const mbg_sym *s, mbg_sym_input_fn input, void *ctx, const char *array,
                       double *out) {
  double *values = malloc((size_t)mbg_sym_size(s) * sizeof *values);
  assert_non_null(values);
  assert_int_equal(mbg_sym_eval(s, input, ctx, values), 0);
  for (int k = 0; k < mbg_sym_output_count(s); k++) {
    const char *name;
    int index;
    mbg_sx e = mbg_sym_output_at(s, k, &name, &index);
    if (array ? strcmp(name, array) == 0 : strncmp(name, "pivot", 5) != 0) out[index] = values[e];
  }
  free(values);
}

int mbgt_body(mbg_model *m, const char *name, double mass) {
  int b = mbg_model_add_body(m, name, noloc);
  assert_true(b > 0);
  m->bodies[b].mass = mass;
  for (int k = 0; k < 3; k++) m->bodies[b].inertia[k] = 0.1 * mass;
  return b;
}

int mbgt_joint(mbg_model *m, const char *name, mbg_joint_type type, int parent, int child) {
  int j = mbg_model_add_joint(m, name, noloc);
  assert_true(j >= 0);
  m->joints[j].type = type;
  m->joints[j].parent = parent;
  m->joints[j].child = child;
  return j;
}
