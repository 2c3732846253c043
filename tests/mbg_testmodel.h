/* mbg_testmodel.h — building generator models by hand in tests, and a double-precision
 * near-equality assertion (cmocka 1.1.5's float assertion compares as float). Include after
 * <cmocka.h>. */
#ifndef MBG_TESTMODEL_H
#define MBG_TESTMODEL_H

#include "model/model.h"
#include "sym/sym.h"

#define PI 3.14159265358979323846

#define assert_near(a, b, tol) mbgt_assert_near((a), (b), (tol), __FILE__, __LINE__)
void mbgt_assert_near(double a, double b, double tol, const char *file, int line);

/* Evaluate the graph s on the inputs `input` gives (mbg_sym_eval): the output elements of `array`
 * (NULL: of every array but the pivots and their references) into out, at their indices. */
void mbgt_eval_outputs(const mbg_sym *s, mbg_sym_input_fn input, void *ctx, const char *array,
                       double *out);

/* A body with the given mass and inertia 0.1·mass on the diagonal; returns its index. */
int mbgt_body(mbg_model *m, const char *name, double mass);
/* A joint of `type` from body `parent` to body `child`; returns its index. */
int mbgt_joint(mbg_model *m, const char *name, mbg_joint_type type, int parent, int child);

#endif
