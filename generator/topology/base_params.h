/* base_params.h — the base inertial parameters of a model: the smallest set of linear
 * combinations of the standard parameters that the joint torques depend on (Gautier & Khalil,
 * "Direct calculation of minimum set of inertial parameters of serial robots", IEEE Transactions
 * on Robotics and Automation 6(3), 1990; Gautier, "Numerical calculation of the base inertial
 * parameters of robots", Journal of Robotic Systems 8(4), 1991).
 *
 * The standard parameters are every moving body's ten (runtime/mb.h "Inertial parameters and
 * regressors": Pinocchio's order), π[10 (i − 1) + k]. τ = Y(q, v, q̈) π, and Y's columns are
 * linearly dependent for every model: a parameter the torques never see has a zero column, and
 * parameters that only ever act together (a revolute joint's body's mass and its first moment
 * along the axis, carried by the joint before it) have proportional or combined columns. The
 * base parameters β = K π are the coefficients of a basis of Y's column space: Y π = Y_b β for
 * every state and every π, Y_b the basis columns of Y.
 *
 * Computed numerically: Y stacked over states drawn from a fixed seed (at least twice as many
 * rows as columns), a column shorter than 1e-11 times the longest taken as zero (a parameter the
 * torques never see), the others scaled to unit length; then the columns are taken in a
 * preferred order and one is kept if its residual after projection on the columns kept before is
 * above 1e-8 (modified Gram–Schmidt, twice); a column below it is a combination of the kept
 * ones, whose coefficients K records. The order: the bodies from the last to the first with
 * every parameter but those Khalil's rules group into others (a body's mass; for a revolute
 * joint along a body axis also the first moment along it and the diagonal inertia before it),
 * then the grouped ones — so that those are the ones expressed through the others (the first
 * link of a planar arm keeps Izz, standing for Izz1 + m2 l1² + ...). The draw is deterministic:
 * the same model gives the same set. */
#ifndef MBG_BASE_PARAMS_H
#define MBG_BASE_PARAMS_H

#include "mb.h"

typedef struct mbg_base_params {
  int nreg;   /* standard parameters: 10 nb */
  int nbase;  /* base parameters */
  int *col;   /* [nbase]: the standard parameter (Y's column) each base parameter is named by */
  double *K;  /* [nbase × nreg] row-major: β = K π (K[k][col[k]] = 1) */
  int nstates; /* states stacked */
} mbg_base_params;

#define MBG_BASE_TOL 1e-8   /* a unit column's residual on the kept ones: above, it is kept */
#define MBG_BASE_ZERO 1e-11 /* a column this short against the longest is zero */
#define MBG_BASE_MAX_PARAMS 600 /* more standard parameters (60 bodies): not computed */

/* The base parameters of m (a model without flexible bodies). 0, 1 if m has flexible bodies or
 * more than MBG_BASE_MAX_PARAMS standard parameters (nothing computed), -1 when out of memory. */
int mbg_base_params_compute(const mb_model *m, mbg_base_params *out);
void mbg_base_params_free(mbg_base_params *b);

#endif
