/* mbt_flex.c — the flexible-body tests' shared helpers (mbt_flex.h). */
#include "mbt_flex.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void finish(const char *name, mbt_fm *F) {
  F->t = mbg_topology_build(F->m);
  assert_non_null(F->t);
  assert_int_equal(mbg_rtmodel_build(F->m, F->t, &F->rt), 0);
  F->model = &F->rt.model;
  char msg[256];
  if (mb_model_check(F->model, msg, sizeof msg)) fail_msg("%s: %s", name, msg);
  F->buf = malloc(mb_workspace_size(F->model));
  assert_non_null(F->buf);
  memset(&F->ws, 0, sizeof F->ws);
  assert_int_equal(mb_workspace_init(&F->ws, F->model, F->buf), MB_OK);
  F->nq = F->model->nq, F->nv = F->model->nv;
}

void mbt_fm_text(const char *name, const char *src, mbt_fm *F) {
  memset(F, 0, sizeof *F);
  int errors = -1, warnings = -1;
  F->m = mbg_model_from_text(name, src, strlen(src), stderr, &errors, &warnings);
  if (!F->m || errors) fail_msg("%s: %d errors", name, errors);
  finish(name, F);
}

void mbt_fm_file(const char *relpath, mbt_fm *F) {
  memset(F, 0, sizeof *F);
  char path[4096];
  const char *dir = getenv("MBDC_SOURCE_DIR");
  snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", relpath);
  int errors = -1, warnings = -1;
  F->m = mbg_load_mbd(path, stderr, &errors, &warnings);
  if (!F->m || errors) fail_msg("%s: %d errors", path, errors);
  finish(relpath, F);
}

void mbt_fm_free(mbt_fm *F) {
  free(F->buf);
  mbg_rtmodel_free(&F->rt);
  mbg_topology_free(F->t);
  mbg_model_free(F->m);
  memset(F, 0, sizeof *F);
}

void mbt_text_printf(mbt_text *t, const char *fmt, ...) {
  if (!t->fp) {
    t->fp = open_memstream(&t->buf, &t->len);
    assert_non_null(t->fp);
  }
  va_list ap;
  va_start(ap, fmt);
  vfprintf((FILE *)t->fp, fmt, ap);
  va_end(ap);
}

char *mbt_text_take(mbt_text *t) {
  assert_non_null(t->fp);
  fclose((FILE *)t->fp);
  char *s = t->buf;
  memset(t, 0, sizeof *t);
  return s;
}

double mbt_rand(unsigned long long *s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  uint64_t x = (uint64_t)*s * 2685821657736338717ULL;
  return (double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

void mbt_random_q(const mb_model *m, unsigned long long *s, double eta, double *q) {
  for (int i = 1; i <= m->nb; i++) {
    double *qi = q + m->iq[i];
    int nq = mb_joint_nq(m->jtype[i]), quat = m->jtype[i] == MB_JOINT_SPHERICAL ? 0
                                              : m->jtype[i] == MB_JOINT_FLOATING ? 3 : -1;
    for (int k = 0; k < nq; k++) qi[k] = mbt_rand(s);
    if (quat >= 0) {
      double n = 0;
      for (int k = 0; k < 4; k++) n += qi[quat + k] * qi[quat + k];
      for (int k = 0; k < 4; k++) qi[quat + k] /= sqrt(n);
    }
    for (int k = 0; k < mb_body_nm(m, i); k++) qi[nq + k] = eta * mbt_rand(s);
  }
}

void mbt_random_v(int n, unsigned long long *s, double *v) {
  for (int k = 0; k < n; k++) v[k] = mbt_rand(s);
}

int mbt_mode_iv(const mb_model *m, int i) { return m->iv[i] + mb_joint_nv(m->jtype[i]); }
int mbt_mode_iq(const mb_model *m, int i) { return m->iq[i] + mb_joint_nq(m->jtype[i]); }

double mbt_kinetic(mbt_fm *F, const double *q, const double *v) {
  int n = F->nv;
  double *M = malloc((size_t)n * (size_t)n * sizeof *M), T = 0;
  assert_non_null(M);
  assert_int_equal(mb_crba(F->model, &F->ws, q, M), MB_OK);
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) T += 0.5 * v[r] * M[n * r + c] * v[c];
  free(M);
  return T;
}

/* Σ over the flexible bodies of xᵢᵀ Aᵢ yᵢ, A = K or D (the packed blocks of mb.h). */
static double modal_form(const mb_model *m, const double *A, const double *x, int xq,
                         const double *y, int yq) {
  double s = 0;
  for (int i = 1, e2 = 0; i <= m->nb; i++) {
    int n = mb_body_nm(m, i);
    const double *xi = x + (xq ? mbt_mode_iq(m, i) : mbt_mode_iv(m, i));
    const double *yi = y + (yq ? mbt_mode_iq(m, i) : mbt_mode_iv(m, i));
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) s += xi[r] * A[e2 + n * r + c] * yi[c];
    e2 += n * n;
  }
  return s;
}

double mbt_elastic(const mb_model *m, const double *q) {
  return m->flex ? 0.5 * modal_form(m, m->flex->K, q, 1, q, 1) : 0.0;
}

double mbt_dissipation(const mb_model *m, const double *v) {
  return m->flex ? modal_form(m, m->flex->D, v, 0, v, 0) : 0.0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One Jacobi rotation zeroing A[p][q] (Golub & Van Loan, "Matrix Computations", 2013, §8.5). */
static void jacobi_rotate(int n, double *A, int p, int q) {
  double apq = A[n * p + q];
  double theta = (A[n * q + q] - A[n * p + p]) / (2 * apq);
  double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
  double c = 1 / sqrt(t * t + 1), s = t * c;
  for (int k = 0; k < n; k++) { /* columns p, q */
    double akp = A[n * k + p], akq = A[n * k + q];
    A[n * k + p] = c * akp - s * akq, A[n * k + q] = s * akp + c * akq;
  }
  for (int k = 0; k < n; k++) { /* rows p, q */
    double apk = A[n * p + k], aqk = A[n * q + k];
    A[n * p + k] = c * apk - s * aqk, A[n * q + k] = s * apk + c * aqk;
  }
  A[n * p + q] = A[n * q + p] = 0;
}

int mbt_sym_eig(int n, double *A, double *w) {
  int sweep = 0;
  for (; sweep < 100; sweep++) {
    double off = 0, diag = 0;
    for (int p = 0; p < n; p++) {
      diag += A[n * p + p] * A[n * p + p];
      for (int q = p + 1; q < n; q++) off += A[n * p + q] * A[n * p + q];
    }
    if (off <= 1e-34 * diag || off == 0) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++)
        if (A[n * p + q] != 0) jacobi_rotate(n, A, p, q);
  }
  for (int k = 0; k < n; k++) w[k] = A[n * k + k];
  qsort(w, (size_t)n, sizeof *w, cmp_double);
  return sweep < 100 ? sweep : -1;
}

int mbt_chol(int n, double *A) {
  for (int j = 0; j < n; j++) {
    double d = A[n * j + j];
    for (int k = 0; k < j; k++) d -= A[n * j + k] * A[n * j + k];
    if (!(d > 0)) return -1;
    A[n * j + j] = sqrt(d);
    for (int i = j + 1; i < n; i++) {
      double s = A[n * i + j];
      for (int k = 0; k < j; k++) s -= A[n * i + k] * A[n * j + k];
      A[n * i + j] = s / A[n * j + j];
    }
  }
  return 0;
}

void mbt_chol_solve(int n, const double *L, double *x) {
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < i; k++) x[i] -= L[n * i + k] * x[k];
    x[i] /= L[n * i + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int k = i + 1; k < n; k++) x[i] -= L[n * k + i] * x[k];
    x[i] /= L[n * i + i];
  }
}

int mbt_gen_eig(int n, const double *K, const double *M, double *w) {
  size_t n2 = (size_t)n * (size_t)n;
  double *L = malloc(n2 * sizeof *L), *C = malloc(n2 * sizeof *C);
  int rc = -1;
  if (!L || !C) goto out;
  memcpy(L, M, n2 * sizeof *L);
  if (mbt_chol(n, L)) goto out;
  memcpy(C, K, n2 * sizeof *C);
  for (int c = 0; c < n; c++) /* C ← L⁻¹ C: forward substitution on every column */
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < i; k++) C[n * i + c] -= L[n * i + k] * C[n * k + c];
      C[n * i + c] /= L[n * i + i];
    }
  for (int r = 0; r < n; r++) /* C ← C L⁻ᵀ: the same on every row */
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < i; k++) C[n * r + i] -= L[n * i + k] * C[n * r + k];
      C[n * r + i] /= L[n * i + i];
    }
  for (int r = 0; r < n; r++) /* symmetric to rounding: make it exactly so */
    for (int c = r + 1; c < n; c++) C[n * r + c] = C[n * c + r] = 0.5 * (C[n * r + c] + C[n * c + r]);
  rc = mbt_sym_eig(n, C, w) < 0 ? -1 : 0;
out:
  free(L);
  free(C);
  return rc;
}

double mbt_maxabs(const double *x, size_t n) {
  double s = 0;
  for (size_t k = 0; k < n; k++) s = fmax(s, fabs(x[k]));
  return s;
}

double mbt_maxdiff(const double *x, const double *y, size_t n) {
  double s = 0;
  for (size_t k = 0; k < n; k++) {
    double d = fabs(x[k] - y[k]);
    if (!(d <= s)) s = d; /* NaN counts as worst */
  }
  return s;
}

void mbt_q_load(mbt_fm *F, const double *q, const double *v, double *b) {
  double h0[256];
  const double *Q = F->rt.flex.Q;
  assert_true(F->nv <= 256);
  assert_int_equal(mb_nle(F->model, &F->ws, q, v, b), MB_OK);
  F->rt.flex.Q = NULL;
  int rc = mb_nle(F->model, &F->ws, q, v, h0);
  F->rt.flex.Q = Q;
  assert_int_equal(rc, MB_OK);
  for (int k = 0; k < F->nv; k++) b[k] -= h0[k];
}

double mbt_q_power(mbt_fm *F, const double *q, const double *v) {
  double b[256], p = 0;
  mbt_q_load(F, q, v, b);
  for (int k = 0; k < F->nv; k++) p += v[k] * b[k];
  return p;
}
