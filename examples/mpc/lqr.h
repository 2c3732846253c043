/* lqr.h — the small dense linear algebra of the LQR example (examples/mpc/solo12_lqr.c): matrix
 * products, Gaussian elimination, the discrete algebraic Riccati equation by iteration and a
 * bound on the spectral radius. Plain C99 and libm; every matrix row-major. */
#ifndef MPC_LQR_H
#define MPC_LQR_H

/* C (n x p) = A (n x m) B (m x p); C may not alias A or B. */
void mat_mul(int n, int m, int p, const double *A, const double *B, double *C);
/* C (m x p) = Aᵀ B, A (n x m), B (n x p); C may not alias A or B. */
void mat_tmul(int n, int m, int p, const double *A, const double *B, double *C);
/* The largest |a_ij| of an n x m matrix. */
double mat_maxabs(int n, int m, const double *A);

/* Solve A X = B for X (A n x n, B n x k; A destroyed, B becomes X) by Gaussian elimination with
 * partial pivoting. Returns -1 when a pivot is zero. */
int lu_solve(int n, int k, double *A, double *B);

/* The result of dare(). */
typedef struct dare_info {
  int iterations;  /* Riccati steps taken */
  double change;   /* max |P_k+1 − P_k| / max |P_k+1| at the last step */
  double residual; /* max |Ric(P) − P| / max |P| of the returned P */
} dare_info;

/* The discrete algebraic Riccati equation of x⁺ = A x + B u with the cost Σ xᵀ Q x + uᵀ R u
 * (A, Q n x n; B n x m; R m x m, positive definite):
 *   P = Ric(P) = Q + Aᵀ P A − Aᵀ P B (R + Bᵀ P B)⁻¹ Bᵀ P A,
 * by the Riccati recursion from P = Q (value iteration: P_k is the cost-to-go of the k-step
 * horizon), until the relative change is below tol or after max_iter steps; then the gain
 * K = (R + Bᵀ P B)⁻¹ Bᵀ P A (m x n) of u = −K x. Returns 0, or -1 when it did not converge or a
 * solve failed. For a stabilizable (A, B) and detectable (A, Q^½) the recursion converges to the
 * stabilizing solution (Lancaster and Rodman, "Algebraic Riccati Equations", 1995, ch. 16; the
 * convergence of the recursion, e.g. Bertsekas, "Dynamic Programming and Optimal Control", vol. 1,
 * 2017, §3.2). */
int dare(int n, int m, const double *A, const double *B, const double *Q, const double *R,
         double tol, int max_iter, double *P, double *K, dare_info *info);

/* An upper bound on the spectral radius of the n x n matrix M by Gelfand's formula,
 * ρ(M) = lim ‖Mᵏ‖^(1/k) and ρ(M) ≤ ‖Mᵏ‖^(1/k) for every k and induced norm: ‖M^(2^s)‖^(1/2^s)
 * in the max-row-sum norm, by s squarings (rescaled at each to stay finite). */
double spectral_radius_bound(int n, const double *M, int squarings);

#endif
