/* ident.h — the parts of the identification example (README.md beside this file):
 *   robot.c       the robot: the generated functions, the "true" parameters, friction, limits
 *   excitation.c  finite Fourier series trajectories and the optimiser of their coefficients
 *   lsq.c         least squares, covariances and condition numbers (LAPACK)
 *   svg.c         the validation plot, an SVG written directly
 *   identify.c    main: simulate, identify (OLS, WLS), validate, report, check */
#ifndef IDENT_H
#define IDENT_H

#include <stdint.h>
#include <stdio.h>

#define ID_MAXV 8     /* joints */
#define ID_MAXCOL 128 /* identified parameters */
#define ID_NH 5       /* harmonics of the Fourier series */

/* The robot as the identification sees it. Its columns: the base parameters β (from the
 * generated base regressor), then the joint columns of mb_joint_regressor (viscous, Coulomb,
 * armature, offset per joint) that are not a combination of the columns before them; a dropped
 * joint column's true value is folded into the parameters it duplicates (theta). */
typedef struct id_robot {
  const char *name;
  int nv;                         /* joints (= velocity coordinates) */
  int nbase;                      /* base inertial parameters, theta[0 .. nbase - 1] */
  int ncol;                       /* identified parameters: nbase, then the kept joint columns */
  double theta[ID_MAXCOL];        /* their true values */
  char label[ID_MAXCOL][32];      /* their names */
  double sigma[ID_MAXV];          /* torque noise, standard deviation per joint, N m */
  double q0[ID_MAXV];             /* the trajectories' centre, rad */
  double dq[ID_MAXV];             /* |q - q0| <= dq, rad */
  double vmax[ID_MAXV];           /* |v| <= vmax, rad/s */
  double amax[ID_MAXV];           /* |a| <= amax, rad/s² */
  double qlo[ID_MAXV], qhi[ID_MAXV], vlim[ID_MAXV]; /* the URDF's limits */
} id_robot;

/* robot.c */
int robot_init(id_robot *r, FILE *log);
/* W, nv x ncol row-major: tau = W theta at (q, v, a). */
void robot_row(const id_robot *r, const double *q, const double *v, const double *a, double *W);
/* The noise-free torques: the generated rnea plus the joints' friction, armature and offset. */
void robot_torque(const id_robot *r, const double *q, const double *v, const double *a,
                  double *tau);

/* A finite Fourier series per joint (Swevers, Ganseman, Tükel, De Schutter & Van Brussel,
 * "Optimal robot excitation and identification", IEEE Trans. Robotics and Automation 13(5),
 * 1997):
 *   q_j(t) = q0_j + sum_l a_jl / (wf l) sin(wf l t) - b_jl / (wf l) cos(wf l t),  l = 1..ID_NH
 * periodic over 2 pi / wf. */
typedef struct id_fourier {
  int nv;
  double wf;
  double q0[ID_MAXV];
  double a[ID_MAXV][ID_NH], b[ID_MAXV][ID_NH];
} id_fourier;

/* excitation.c */
void fourier_eval(const id_fourier *f, double t, double *q, double *v, double *a);
/* Bounds of |q - q0|, |v|, |a| of joint j, from the coefficients (sums of the amplitudes). */
void fourier_bounds(const id_fourier *f, int j, double *bq, double *bv, double *ba);
/* Random coefficients, each joint scaled onto the robot's limits. */
void fourier_random(id_fourier *f, const id_robot *r, double wf, uint64_t *seed);
/* The stacked W (ns nv x ncol) of ns samples over one period. */
void fourier_stack(const id_fourier *f, const id_robot *r, int ns, double *W);
/* Lower cond(W) of the stacked regressor (ns samples) by a random search of budget evaluations;
 * returns the final condition number, *cond0 the first. */
double fourier_optimise(id_fourier *f, const id_robot *r, int ns, int budget, uint64_t *seed,
                        double *cond0);

/* Random numbers, reproducible (splitmix64). */
double id_uniform(uint64_t *s); /* [0, 1) */
double id_gauss(uint64_t *s);   /* N(0, 1) */

/* lsq.c (A row-major m x n, m >= n) */
/* The least-squares x = argmin |A x - b| by Householder QR (dgeqrf, A = Q R); Rinv: R⁻¹, n x n
 * row-major (NULL: not computed); *res = |A x - b|. 0, or -1 (LAPACK failed, A rank-deficient,
 * m <= n). */
int lsq_solve(int m, int n, const double *A, const double *b, double *x, double *Rinv,
              double *res);
/* var = diag((AᵀA)⁻¹) = diag(R⁻¹ R⁻ᵀ): the variances of x for a noise of variance 1. */
void lsq_var(int n, const double *Rinv, double *var);
/* The variances of x when the noise of row r has variance rowvar[r] (n <= ID_MAXCOL):
 * diag((AᵀA)⁻¹ Aᵀ diag(rowvar) A (AᵀA)⁻¹). */
void lsq_sandwich(int m, int n, const double *A, const double *Rinv, const double *rowvar,
                  double *var);
/* cond(A) = s_max / s_min, the singular values by dgesvd; -1 on failure. */
double lsq_cond(int m, int n, const double *A);
/* Columns of A taken in order, each kept if its distance to the span of the kept ones exceeds
 * tol times its norm (Gram-Schmidt, twice). keep[k] = 1 or 0; for a dropped column k,
 * coef[k n + i] its coefficient on kept column i. Returns the number kept, -1 if out of memory. */
int lsq_select(int m, int n, const double *A, double tol, int *keep, double *coef);

/* svg.c: the validation torques, measured and predicted, one panel per joint. */
int svg_plot(const char *path, const char *title, int ns, int nv, const double *t,
             const double *meas, const double *pred);

#endif
