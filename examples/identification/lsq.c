/* lsq.c — least squares, variances and condition numbers with LAPACK (ident.h). LAPACK's Fortran
 * routines are called directly (liblapack-dev has no C header): every argument by address, the
 * matrices column-major, and a character argument's length passed last (gfortran's convention). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"

/* Entry (i, j) of column-major C with leading dimension m. */
#define AT(C, m, i, j) (C)[(size_t)(i) + (size_t)(j) * (size_t)(m)]

void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
             const int *lwork, int *info);
void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
             const int *lda, double *s, double *u, const int *ldu, double *vt, const int *ldvt,
             double *work, const int *lwork, int *info, size_t jobu_len, size_t jobvt_len);

/* A (row-major m x n) into column-major with ncol >= n columns. */
static double *column_major(int m, int n, int ncol, const double *A) {
  double *C = malloc((size_t)m * (size_t)ncol * sizeof *C);
  if (!C) return NULL;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) AT(C, m, i, j) = A[(size_t)i * (size_t)n + (size_t)j];
  return C;
}

/* Householder QR of C (column-major m x n), R left in its upper triangle. */
static int qr(int m, int n, double *C) {
  int info = 0, lwork = -1;
  double query = 0.0;
  double *tau = malloc((size_t)n * sizeof *tau);
  if (!tau) return -1;
  dgeqrf_(&m, &n, C, &m, tau, &query, &lwork, &info);
  lwork = info == 0 ? (int)query : 0;
  double *work = lwork > 0 ? malloc((size_t)lwork * sizeof *work) : NULL;
  if (work) dgeqrf_(&m, &n, C, &m, tau, work, &lwork, &info);
  int ok = work && info == 0;
  free(work);
  free(tau);
  return ok ? 0 : -1;
}

/* R⁻¹ (row-major n x n, upper) of R, the upper triangle of column-major C (leading dimension
 * m), column by column by back substitution. */
static void inverse_r(int m, int n, const double *C, double *Rinv) {
  for (int i = 0; i < n * n; i++) Rinv[i] = 0.0;
  for (int k = 0; k < n; k++) {
    Rinv[k * n + k] = 1.0 / AT(C, m, k, k);
    for (int i = k - 1; i >= 0; i--) {
      double s = 0.0;
      for (int j = i + 1; j <= k; j++) s += AT(C, m, i, j) * Rinv[j * n + k];
      Rinv[i * n + k] = -s / AT(C, m, i, i);
    }
  }
}

int lsq_solve(int m, int n, const double *A, const double *b, double *x, double *Rinv,
              double *res) {
  if (m < n + 1) return -1;
  /* QR of [A b]: R's last column holds Qᵀb, its corner entry the residual's norm. */
  double *C = column_major(m, n, n + 1, A);
  if (!C) return -1;
  memcpy(C + (size_t)n * (size_t)m, b, (size_t)m * sizeof *b);
  int rc = qr(m, n + 1, C);
  double rmax = 0.0;
  for (int i = 0; rc == 0 && i < n; i++) rmax = fmax(rmax, fabs(AT(C, m, i, i)));
  for (int i = 0; rc == 0 && i < n; i++)
    if (!(fabs(AT(C, m, i, i)) > 1e-13 * rmax)) rc = -1;
  if (rc == 0) {
    const double *qtb = C + (size_t)n * (size_t)m;
    for (int i = n - 1; i >= 0; i--) {
      double s = qtb[i];
      for (int j = i + 1; j < n; j++) s -= AT(C, m, i, j) * x[j];
      x[i] = s / AT(C, m, i, i);
    }
    *res = fabs(qtb[n]);
    if (Rinv) inverse_r(m, n, C, Rinv);
  }
  free(C);
  return rc;
}

void lsq_var(int n, const double *Rinv, double *var) {
  for (int i = 0; i < n; i++) {
    var[i] = 0.0;
    for (int k = i; k < n; k++) var[i] += Rinv[i * n + k] * Rinv[i * n + k];
  }
}

void lsq_sandwich(int m, int n, const double *A, const double *Rinv, const double *rowvar,
                  double *var) {
  double u[ID_MAXCOL];
  for (int i = 0; i < n; i++) var[i] = 0.0;
  for (int r = 0; r < m; r++) { /* row r of A (AᵀA)⁻¹ = (A_r R⁻¹) R⁻ᵀ */
    const double *Ar = A + (size_t)r * (size_t)n;
    for (int k = 0; k < n; k++) {
      u[k] = 0.0;
      for (int i = 0; i <= k; i++) u[k] += Ar[i] * Rinv[i * n + k];
    }
    for (int i = 0; i < n; i++) {
      double bi = 0.0;
      for (int k = i; k < n; k++) bi += u[k] * Rinv[i * n + k];
      var[i] += rowvar[r] * bi * bi;
    }
  }
}

double lsq_cond(int m, int n, const double *A) {
  double *C = column_major(m, n, n, A);
  double *s = malloc((size_t)n * sizeof *s), query = 0.0, dummy = 0.0, cond = -1.0;
  int info = 0, lwork = -1, one = 1;
  if (C && s) dgesvd_("N", "N", &m, &n, C, &m, s, &dummy, &one, &dummy, &one, &query, &lwork,
                      &info, 1, 1);
  lwork = C && s && info == 0 ? (int)query : 0;
  double *work = lwork > 0 ? malloc((size_t)lwork * sizeof *work) : NULL;
  if (work) {
    dgesvd_("N", "N", &m, &n, C, &m, s, &dummy, &one, &dummy, &one, work, &lwork, &info, 1, 1);
    if (info == 0 && s[n - 1] > 0.0) cond = s[0] / s[n - 1];
  }
  free(work);
  free(s);
  free(C);
  return cond;
}

int lsq_select(int m, int n, const double *A, double tol, int *keep, double *coef) {
  double *Q = malloc((size_t)m * (size_t)n * sizeof *Q); /* the kept directions, orthonormal */
  double *R = calloc((size_t)n * (size_t)n, sizeof *R);  /* A's kept columns = Q R */
  double *c = malloc((size_t)m * sizeof *c), *r = malloc((size_t)n * sizeof *r);
  int *orig = malloc((size_t)n * sizeof *orig), nk = 0;
  if (!Q || !R || !c || !r || !orig) nk = -1;
  for (int k = 0; nk >= 0 && k < n; k++) {
    double c0 = 0.0, cn = 0.0, *ck = coef + (size_t)k * (size_t)n;
    for (int i = 0; i < m; i++) c[i] = A[(size_t)i * (size_t)n + (size_t)k], c0 += c[i] * c[i];
    for (int i = 0; i < nk; i++) r[i] = 0.0;
    for (int pass = 0; pass < 2; pass++) /* twice is enough (Kahan, Parlett) */
      for (int l = 0; l < nk; l++) {
        const double *ql = &AT(Q, m, 0, l);
        double d = 0.0;
        for (int i = 0; i < m; i++) d += ql[i] * c[i];
        for (int i = 0; i < m; i++) c[i] -= d * ql[i];
        r[l] += d;
      }
    for (int i = 0; i < m; i++) cn += c[i] * c[i];
    for (int l = 0; l < n; l++) ck[l] = 0.0;
    if (c0 > 0.0 && sqrt(cn) > tol * sqrt(c0)) {
      keep[k] = 1;
      for (int i = 0; i < m; i++) AT(Q, m, i, nk) = c[i] / sqrt(cn);
      for (int l = 0; l < nk; l++) AT(R, n, l, nk) = r[l];
      AT(R, n, nk, nk) = sqrt(cn);
      orig[nk++] = k;
      continue;
    }
    keep[k] = 0; /* column k = sum over l of x_l (kept column l), R x = r */
    for (int l = nk - 1; l >= 0; l--) {
      double s = r[l];
      for (int j = l + 1; j < nk; j++) s -= AT(R, n, l, j) * ck[orig[j]];
      ck[orig[l]] = s / AT(R, n, l, l);
    }
  }
  free(Q);
  free(R);
  free(c);
  free(r);
  free(orig);
  return nk;
}
