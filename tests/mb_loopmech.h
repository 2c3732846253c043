/* mb_loopmech.h — shared by test_loops.c (the kinematics of closed loops) and test_fd_loops.c
 * (their dynamics): a system of loops with its workspaces (lsys), random loops assembled at a
 * configuration (loop_close, loop_rand), hand-built mechanisms (box bodies, random chains, the
 * planar four-bar) and the generic checks (check_calculus, check_fd, check_assembled) with the
 * worst errors they record. Include after <cmocka.h> (the wrappers below assert). */
#ifndef MB_LOOPMECH_H
#define MB_LOOPMECH_H

#include <stddef.h>

#include "mb_randtree.h"
#include "mb_testutil.h"

enum { MAXV = 96, MAXQ = 112, MAXC = 24, MAXB = 16 };

/* Worst errors seen by the shared checks, printed by each test file (relative unless said). */
extern double worst_phi0, worst_Kv, worst_Kdv, worst_projq, worst_projv, worst_acc, worst_eom;

/* What is being checked, for the failure messages. */
extern char ctx[160];

/* ------------------------------------------------------------------------------------ helpers */

typedef struct lsys {
  const mb_model *m;
  mb_loop loop[4];
  int row[MAXC];
  mb_loops L;
  mb_workspace ws;
  mb_loop_workspace lw;
  double *wbuf, *lbuf;
} lsys;

/* A system of loops (rows NULL: every row of every loop); heap-allocated, since lw points at L. */
lsys *lsys_new(const mb_model *m, const mb_loop *loops, int nloops, const int *rows, int nc);
void lsys_free(lsys *s);

static inline void resid(lsys *s, const double *q, double *phi) {
  assert_int_equal(mb_loop_residual(s->m, &s->L, &s->ws, &s->lw, q, phi), MB_OK);
}
static inline void jac(lsys *s, const double *q, double *K) {
  assert_int_equal(mb_loop_jacobian(s->m, &s->L, &s->ws, &s->lw, q, K), MB_OK);
}
static inline void bias(lsys *s, const double *q, const double *v, double *kb) {
  assert_int_equal(mb_loop_bias(s->m, &s->L, &s->ws, &s->lw, q, v, kb), MB_OK);
}
static inline double maxabs(const double *x, int n) { return mbt_max_abs(x, (size_t)n); }

/* y = K x (nc × nv) and the row-wise magnitude bound max_r Σ_k |K_rk x_k|. */
double kmul(const double *K, int nc, int nv, const double *x, double *y);

static inline void rot_mul(const double A[9], const double B[9], double C[9]) {
  mbs_mat3_mul(A, B, C);
}
static inline void rot_T(const double A[9], double T[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) T[3 * i + j] = A[3 * j + i];
}
static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* Complete loop l (type, a, b, Ea, ra, axis, pitch set) so that at q the target frame is the loop
 * frame moved by the relative pose (Rrel, t); see mb_loopmech.c. */
void loop_close(const mb_model *m, const double *q, mb_loop *l, const double Rrel[9],
                const double t[3]);

/* A loop of type t between a and b with a random loop frame, axis, pitch, and a random relative
 * pose of the type's own motion: assembled at q (loop_close). */
mb_loop loop_rand(mbt_rng *g, const mb_model *m, const double *q, mb_loop_type t, int a, int b);

/* Body i: a bar of the given mass and length along x (COM at its middle). */
void box_body(mbt_tree *t, int i, double mass, double len);

/* A spatial chain of n scalar joints (revolute, prismatic, helical, continuous in turn unless
 * revolute_only) with random XT, axes, pitches and bodies. */
mbt_tree *chain_new(mbt_rng *g, int n, int revolute_only);

/* A random floating-base tree (mbt_randtree(tree_seed, nb, 1)) at a random q0 with one loop of
 * type t, assembled there (loop_rand), between a random body a ≥ 2 and: the world (ends 0), the
 * world as body a (ends 1), or a random body below a (ends 2); its system, *tree its tree, *a and
 * *b the loop's bodies (the caller frees both). */
lsys *tree_with_loop(mbt_rng *g, uint64_t tree_seed, int nb, mb_loop_type t, int ends,
                     mbt_tree **tree, double *q0, int *a, int *b);

/* A spatial chain of 14 scalar joints (chain_new) at a random q0, closed by two loops assembled
 * there: type ta from body 10 to body 2 and type tb from body 14 to body 6 (each path has enough
 * dofs); the system of both (every row), *tree its tree (the caller frees both). */
lsys *chain_two_loops(mbt_rng *g, mb_loop_type ta, mb_loop_type tb, mbt_tree **tree,
                      double q0[14]);

/* ---------------------------------------------------------------------------------- mechanisms */

/* Planar four-bar in the xy plane: crank (body 1, length L1) about z at the origin, coupler
 * (body 2, L2) at the crank's tip, rocker (body 3, L3) at the coupler's tip, closed by a revolute
 * loop about z from the rocker's tip to the ground pivot (g, 0, 0); gravity −9.81 y. */
typedef struct fourbar {
  double g, L1, L2, L3;
} fourbar;

mbt_tree *fourbar_tree(const fourbar *f);
/* The revolute loop; Rz rotates loop frame and target frame alike (another choice of the rows). */
mb_loop fourbar_loop(const fourbar *f, double Rz);
/* The assembled configuration at crank angle th (circle intersection, the branch with the
 * coupler's tip on the left of B → D); 0, or -1 if it does not close. */
int fourbar_q(const fourbar *f, double th, double *q);

/* ------------------------------------------------------------------------ generic checks */

/* K v and K̇v against central differences along q(t) = q ⊕ v t (mb_integrate); see
 * mb_loopmech.c for the step and the tolerances. Records worst_Kv, worst_Kdv. */
void check_calculus(lsys *s, const double *q, const double *v);
/* mb_fd_loops at (q, v, τ): K q̈ + K̇v = 0 and M q̈ + h − τ − Kᵀλ = 0, relative 1e-10. Records
 * worst_acc, worst_eom. */
void check_fd(lsys *s, const double *q, const double *v, const double *tau, double *qdd);
/* From an assembled q0: perturb, mb_project_q, random v, mb_project_v, random τ, check_fd. q, v:
 * the projected state. Records worst_phi0, worst_projq, worst_projv. */
void check_assembled(lsys *s, mbt_rng *g, const double *q0, double perturb, double *q, double *v,
                     double *qdd);

#endif
