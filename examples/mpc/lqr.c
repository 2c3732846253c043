/* lqr.c — the small dense linear algebra of the LQR example (lqr.h). Matrices of at most
 * LQR_MAX rows and columns, held in fixed arrays: no allocation. */
#include "lqr.h"

#include <math.h>
#include <string.h>

#define LQR_MAX 36

void mat_mul(int n, int m, int p, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < p; j++) {
      double s = 0;
      for (int k = 0; k < m; k++) s += A[i * m + k] * B[k * p + j];
      C[i * p + j] = s;
    }
}

void mat_tmul(int n, int m, int p, const double *A, const double *B, double *C) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < p; j++) {
      double s = 0;
      for (int k = 0; k < n; k++) s += A[k * m + i] * B[k * p + j];
      C[i * p + j] = s;
    }
}

double mat_maxabs(int n, int m, const double *A) {
  double s = 0;
  for (int i = 0; i < n * m; i++) s = fmax(s, fabs(A[i]));
  return s;
}

int lu_solve(int n, int k, double *A, double *B) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(A[r * n + c]) > fabs(A[p * n + c])) p = r;
    if (A[p * n + c] == 0) return -1;
    if (p != c) {
      for (int j = 0; j < n; j++) {
        double t = A[c * n + j];
        A[c * n + j] = A[p * n + j], A[p * n + j] = t;
      }
      for (int j = 0; j < k; j++) {
        double t = B[c * k + j];
        B[c * k + j] = B[p * k + j], B[p * k + j] = t;
      }
    }
    for (int r = c + 1; r < n; r++) {
      double l = A[r * n + c] / A[c * n + c];
      if (l == 0) continue;
      for (int j = c; j < n; j++) A[r * n + j] -= l * A[c * n + j];
      for (int j = 0; j < k; j++) B[r * k + j] -= l * B[c * k + j];
    }
  }
  for (int r = n - 1; r >= 0; r--)
    for (int j = 0; j < k; j++) {
      double s = B[r * k + j];
      for (int c = r + 1; c < n; c++) s -= A[r * n + c] * B[c * k + j];
      B[r * k + j] = s / A[r * n + r];
    }
  return 0;
}

/* One Riccati step: Pn = Ric(P) and the gain K = (R + Bᵀ P B)⁻¹ Bᵀ P A of P. */
static int riccati_step(int n, int m, const double *A, const double *B, const double *Q,
                        const double *R, const double *P, double *Pn, double *K) {
  double PA[LQR_MAX * LQR_MAX], PB[LQR_MAX * LQR_MAX], S[LQR_MAX * LQR_MAX];
  mat_mul(n, n, n, P, A, PA);
  mat_mul(n, n, m, P, B, PB);
  mat_tmul(n, m, m, B, PB, S); /* Bᵀ P B */
  for (int i = 0; i < m * m; i++) S[i] += R[i];
  mat_tmul(n, m, n, B, PA, K); /* Bᵀ P A, then solved for K */
  double BtPA[LQR_MAX * LQR_MAX];
  memcpy(BtPA, K, (size_t)(m * n) * sizeof *K);
  if (lu_solve(m, n, S, K)) return -1;
  mat_tmul(n, n, n, A, PA, Pn); /* Aᵀ P A */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0; /* (Bᵀ P A)ᵀ K = Aᵀ P B (R + Bᵀ P B)⁻¹ Bᵀ P A */
      for (int k = 0; k < m; k++) s += BtPA[k * n + i] * K[k * n + j];
      Pn[i * n + j] += Q[i * n + j] - s;
    }
  for (int i = 0; i < n; i++) /* symmetric by construction: keep it so against rounding */
    for (int j = 0; j < i; j++) {
      double s = 0.5 * (Pn[i * n + j] + Pn[j * n + i]);
      Pn[i * n + j] = Pn[j * n + i] = s;
    }
  return 0;
}

int dare(int n, int m, const double *A, const double *B, const double *Q, const double *R,
         double tol, int max_iter, double *P, double *K, dare_info *info) {
  double Pn[LQR_MAX * LQR_MAX], D[LQR_MAX * LQR_MAX];
  if (n > LQR_MAX || m > LQR_MAX) return -1;
  memcpy(P, Q, (size_t)(n * n) * sizeof *P);
  info->iterations = 0, info->change = INFINITY, info->residual = INFINITY;
  while (info->iterations < max_iter && !(info->change <= tol)) {
    if (riccati_step(n, m, A, B, Q, R, P, Pn, K)) return -1;
    for (int i = 0; i < n * n; i++) D[i] = Pn[i] - P[i];
    info->change = mat_maxabs(n, n, D) / mat_maxabs(n, n, Pn);
    memcpy(P, Pn, (size_t)(n * n) * sizeof *P);
    info->iterations++;
  }
  /* the residual of the equation at the returned P, and the gain of that P */
  if (riccati_step(n, m, A, B, Q, R, P, Pn, K)) return -1;
  for (int i = 0; i < n * n; i++) D[i] = Pn[i] - P[i];
  info->residual = mat_maxabs(n, n, D) / mat_maxabs(n, n, P);
  return info->change <= tol && isfinite(info->residual) ? 0 : -1;
}

static double row_sum_norm(int n, const double *M) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double r = 0;
    for (int j = 0; j < n; j++) r += fabs(M[i * n + j]);
    s = fmax(s, r);
  }
  return s;
}

double spectral_radius_bound(int n, const double *M, int squarings) {
  double X[LQR_MAX * LQR_MAX], Y[LQR_MAX * LQR_MAX];
  if (n > LQR_MAX) return NAN;
  memcpy(X, M, (size_t)(n * n) * sizeof *X);
  /* X = M^(2^s) / c with log c in logc: rescale to unit norm, then square */
  double logc = 0;
  for (int s = 0; s < squarings; s++) {
    double nrm = row_sum_norm(n, X);
    if (nrm == 0) return 0;
    for (int i = 0; i < n * n; i++) X[i] /= nrm;
    logc = 2 * (logc + log(nrm));
    mat_mul(n, n, n, X, X, Y);
    memcpy(X, Y, (size_t)(n * n) * sizeof *X);
  }
  double nrm = row_sum_norm(n, X);
  if (nrm == 0) return 0;
  return exp((logc + log(nrm)) / ldexp(1.0, squarings));
}
