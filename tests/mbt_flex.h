/* mbt_flex.h — what the flexible-body tests (test_flex*.c) share: a .mbd file or text taken
 * through the whole front end (model → topology → rtmodel) into the runtime with a workspace,
 * random states, the dense linear algebra the checks need (a symmetric Jacobi eigen-solver, the
 * generalized symmetric eigenproblem by Cholesky reduction, Cholesky solves), the mechanical
 * energy, and the tests' entry points (the runner is test_flex.c). */
#ifndef MBT_FLEX_H
#define MBT_FLEX_H

#include <stddef.h>

#include "load/load.h"
#include "topology/rtmodel.h"

typedef struct mbt_fm {
  mbg_model *m;
  mbg_topology *t;
  mbg_rtmodel rt;
  mb_model *model; /* &rt.model */
  mb_workspace ws;
  void *buf;
  int nq, nv;
} mbt_fm;

/* Load a .mbd text (name for the messages) or a file under the source tree (e.g.
 * "examples/flexible_arm.mbd"); the model must pass mb_model_check (a test failure otherwise). */
void mbt_fm_text(const char *name, const char *src, mbt_fm *F);
void mbt_fm_file(const char *relpath, mbt_fm *F);
void mbt_fm_free(mbt_fm *F);

/* A growing text (open_memstream): mbt_text_printf appends, mbt_text_take returns the text
 * (free it) and resets the builder. */
typedef struct mbt_text {
  char *buf;
  size_t len;
  void *fp;
} mbt_text;
void mbt_text_printf(mbt_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *mbt_text_take(mbt_text *t);

/* Uniform in [-1, 1) (xorshift64*, deterministic from *s). */
double mbt_rand(unsigned long long *s);
/* A random configuration: angles and displacements in [-1, 1), unit quaternions, modal
 * coordinates (tip deflections) in [-eta, eta); and a random vector of nv entries in [-1, 1). */
void mbt_random_q(const mb_model *m, unsigned long long *s, double eta, double *q);
void mbt_random_v(int n, unsigned long long *s, double *v);

/* First velocity (and position) index of body i's modes; its mode count. */
int mbt_mode_iv(const mb_model *m, int i);
int mbt_mode_iq(const mb_model *m, int i);

/* ½ vᵀ M(q) v (mb_crba), ½ Σ ηᵢᵀ Kᵢ ηᵢ and Σ η̇ᵢᵀ Dᵢ η̇ᵢ over the flexible bodies (the model's
 * mb_flex blocks). */
double mbt_kinetic(mbt_fm *F, const double *q, const double *v);
double mbt_elastic(const mb_model *m, const double *q);
double mbt_dissipation(const mb_model *m, const double *v);
/* The velocity-product load of the undeformed bodies on the modes (mb_flex.Q, Jain & Rodriguez's
 * b_m⁰) at (q, v): b = nle(q, v) − the same with Q removed (zero off the modal rows), and its
 * power vᵀ b = η̇ᵀ b_η: the one force of the model that is neither conservative nor applied. */
void mbt_q_load(mbt_fm *F, const double *q, const double *v, double *b);
double mbt_q_power(mbt_fm *F, const double *q, const double *v);

/* Eigenvalues of the symmetric n×n A (row-major; destroyed) by cyclic Jacobi, ascending in w.
 * Returns the number of sweeps, or -1 if it did not converge. */
int mbt_sym_eig(int n, double *A, double *w);
/* K x = λ M x, K symmetric, M symmetric positive definite: λ ascending in w (M = L Lᵀ,
 * L⁻¹ K L⁻ᵀ by Jacobi). 0, or -1 if M is not positive definite or Jacobi failed. */
int mbt_gen_eig(int n, const double *K, const double *M, double *w);
/* A = L Lᵀ in place (lower triangle); 0, or -1 if a pivot is not positive. Then x ← A⁻¹ x. */
int mbt_chol(int n, double *A);
void mbt_chol_solve(int n, const double *L, double *x);

/* max |x_k| and max |x_k − y_k| over n entries. */
double mbt_maxabs(const double *x, size_t n);
double mbt_maxdiff(const double *x, const double *y, size_t n);

/* The tests (test_flex.c runs them). */
void test_flex_identities(void **state);
void test_flex_zero_modes(void **state);
void test_flex_errors(void **state);
void test_flex_clamped(void **state);
void test_flex_pinned_free(void **state);
void test_flex_sag(void **state);
void test_flex_point_load(void **state);
void test_flex_node_poses(void **state);
void test_flex_fixed_joint(void **state);
void test_flex_fixed_payload(void **state);
void test_flex_centrifugal(void **state);
void test_flex_nodal_vs_beam(void **state);
void test_flex_energy(void **state);
void test_flex_damped(void **state);
void test_flex_work(void **state);
void test_flex_power(void **state);

#endif
