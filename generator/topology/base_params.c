/* base_params.c — the base inertial parameters, numerically (base_params.h). */
#include "topology/base_params.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topology/rtwork.h"

/* Pinocchio's indices: m 0, m c 1-3, Ixx 4, Ixy 5, Iyy 6, Ixz 7, Iyz 8, Izz 9. */
static const int DIAG[3] = {4, 6, 9};

/* The parameters of body i that Khalil's rules group into other parameters, as flags over its
 * ten: for a revolute or helical joint along a coordinate axis k of the body frame, the mass, the
 * first moment along the axis and the diagonal inertia before the axis (Iyy for z, Izz for x,
 * Ixx for y: only the difference of the two diagonal entries across the axis acts); for any
 * other joint the mass. */
static void grouped(const mb_model *m, int i, int *g) {
  for (int k = 0; k < MB_NPARAM; k++) g[k] = 0;
  g[0] = 1;
  if (m->jtype[i] != MB_JOINT_REVOLUTE && m->jtype[i] != MB_JOINT_CONTINUOUS &&
      m->jtype[i] != MB_JOINT_HELICAL)
    return;
  for (int k = 0; k < 3; k++)
    if (fabs(fabs(m->axis[3 * i + k]) - 1.0) < 1e-12) g[1 + k] = 1, g[DIAG[(k + 2) % 3]] = 1;
}

/* The order the columns are offered in: the bodies from the last to the first with every
 * parameter but the grouped ones, then the bodies again with the grouped ones. */
static void offer_order(const mb_model *m, int *order) {
  int n = 0, g[MB_NPARAM];
  for (int pass = 0; pass < 2; pass++)
    for (int i = m->nb; i >= 1; i--) {
      grouped(m, i, g);
      for (int k = 0; k < MB_NPARAM; k++)
        if (g[k] == pass) order[n++] = MB_NPARAM * (i - 1) + k;
    }
}

static double uniform(uint64_t *s, double lo, double hi) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return lo + (hi - lo) * ((double)(z >> 11) / 9007199254740992.0);
}

typedef struct stack {
  size_t rows, ncol;
  double *W;    /* [ncol × rows] column-major: Y over the states, one column per parameter */
  double *norm; /* [ncol] the columns' lengths (they are scaled to 1) */
} stack;

/* Y over the states (q = the neutral configuration moved by a random tangent step, v and q̈
 * uniform in [-1, 1]), transposed into columns and each scaled to unit length. 0 or -1. */
static int fill(const mb_model *m, int nstates, stack *S) {
  size_t nv = (size_t)m->nv, nq = (size_t)m->nq, ncol = S->ncol;
  mb_workspace ws;
  double *wbuf = mbg_lean_workspace(m, &ws);
  double *Y = malloc(sizeof *Y * (nv * ncol + 2 * nq + 3 * nv + 1));
  if (!wbuf || !Y) return free(wbuf), free(Y), -1;
  double *q0 = Y + nv * ncol, *q = q0 + nq, *dq = q + nq, *v = dq + nv, *a = v + nv;
  uint64_t seed = 0x6261736570617261ull; /* "basepara" */
  mb_neutral(m, q0);
  for (int s = 0; s < nstates; s++) {
    for (size_t k = 0; k < nv; k++)
      dq[k] = uniform(&seed, -3, 3), v[k] = uniform(&seed, -1, 1), a[k] = uniform(&seed, -1, 1);
    mb_integrate(m, q0, dq, 1.0, q);
    if (mb_regressor(m, &ws, q, v, a, Y) != MB_OK) continue; /* rows left zero */
    for (size_t r = 0; r < nv; r++)
      for (size_t c = 0; c < ncol; c++) S->W[c * S->rows + (size_t)s * nv + r] = Y[r * ncol + c];
  }
  free(wbuf), free(Y);
  double top = 0.0;
  for (size_t c = 0; c < ncol; c++) {
    double *w = S->W + c * S->rows, n = 0.0;
    for (size_t r = 0; r < S->rows; r++) n += w[r] * w[r];
    S->norm[c] = sqrt(n), top = fmax(top, S->norm[c]);
  }
  /* a column of rounding noise against the largest is zero: the torques never see it */
  for (size_t c = 0; c < ncol; c++) {
    double *w = S->W + c * S->rows, n = S->norm[c];
    if (n <= MBG_BASE_ZERO * top) S->norm[c] = n = 0.0;
    for (size_t r = 0; r < S->rows; r++) w[r] = n > 0.0 ? w[r] / n : 0.0;
  }
  return 0;
}

/* Project w on the kept columns Q[0 .. t) (twice, modified Gram–Schmidt), their coefficients
 * added into p; returns the residual's length (w becomes the residual). */
static double project(const double *Q, size_t rows, int t, double *w, double *p) {
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < t; k++) {
      const double *qk = Q + (size_t)k * rows;
      double d = 0.0;
      for (size_t r = 0; r < rows; r++) d += qk[r] * w[r];
      for (size_t r = 0; r < rows; r++) w[r] -= d * qk[r];
      p[k] += d;
    }
  double n = 0.0;
  for (size_t r = 0; r < rows; r++) n += w[r] * w[r];
  return sqrt(n);
}

/* Solve R[0..t)×[0..t) x = p (upper triangular, column k of R at R + k · ld) in place. */
static void back_solve(const double *R, size_t ld, int t, double *p) {
  for (int k = t - 1; k >= 0; k--) {
    for (int j = k + 1; j < t; j++) p[k] -= R[(size_t)j * ld + (size_t)k] * p[j];
    p[k] /= R[(size_t)k * ld + (size_t)k];
  }
}

/* The greedy selection over S: kept columns into b->col, K filled. 0 or -1. */
static int select_base(const mb_model *m, stack *S, mbg_base_params *b) {
  size_t rows = S->rows, ncol = S->ncol, maxr = ncol < rows ? ncol : rows;
  double *Q = malloc(sizeof *Q * rows * maxr), *R = calloc(maxr * maxr, sizeof *R);
  double *P = calloc(ncol * maxr, sizeof *P); /* per column: its coefficients on Q */
  int *kept = malloc(sizeof *kept * ncol * 3), *when = kept + ncol, *order = when + ncol, t = 0;
  if (!Q || !R || !P || !kept) return free(Q), free(R), free(P), free(kept), -1;
  offer_order(m, order);
  for (size_t o = 0; o < ncol; o++) {
    size_t c = (size_t)order[o];
    double *w = S->W + c * rows, *p = P + c * maxr;
    double n = S->norm[c] > 0.0 ? project(Q, rows, t, w, p) : 0.0;
    when[c] = t, kept[c] = -1;
    if (n > MBG_BASE_TOL && (size_t)t < maxr) {
      for (size_t r = 0; r < rows; r++) Q[(size_t)t * rows + r] = w[r] / n;
      memcpy(R + (size_t)t * maxr, p, sizeof *p * (size_t)t); /* column t of R */
      R[(size_t)t * maxr + (size_t)t] = n;
      kept[c] = t, b->col[t] = (int)c;
      t++;
    }
  }
  b->nbase = t;
  b->K = calloc((size_t)t * ncol + 1, sizeof *b->K);
  if (!b->K) return free(Q), free(R), free(P), free(kept), -1;
  for (size_t c = 0; c < ncol; c++) {
    if (kept[c] >= 0) {
      b->K[(size_t)kept[c] * ncol + c] = 1.0;
      continue;
    }
    if (S->norm[c] == 0.0) continue; /* the torques never see it */
    double *p = P + c * maxr;
    back_solve(R, maxr, when[c], p);
    for (int k = 0; k < when[c]; k++) {
      double coef = p[k] * S->norm[c] / S->norm[b->col[k]];
      if (fabs(coef) > 1e-10) b->K[(size_t)k * ncol + c] = coef;
    }
  }
  free(Q), free(R), free(P), free(kept);
  return 0;
}

int mbg_base_params_compute(const mb_model *m, mbg_base_params *out) {
  memset(out, 0, sizeof *out);
  size_t ncol = (size_t)MB_NPARAM * (size_t)m->nb;
  if (mb_flex_count(m, 0) > 0 || ncol > MBG_BASE_MAX_PARAMS || m->nv == 0) return 1;
  out->nreg = (int)ncol;
  /* at least twice as many rows as columns */
  out->nstates = (int)((2 * ncol + (size_t)m->nv - 1) / (size_t)m->nv) + 2;
  stack S = {(size_t)out->nstates * (size_t)m->nv, ncol, NULL, NULL};
  S.W = calloc(S.rows * ncol, sizeof *S.W);
  S.norm = calloc(ncol, sizeof *S.norm);
  out->col = calloc(ncol + 1, sizeof *out->col);
  int rc = (!S.W || !S.norm || !out->col) ? -1 : fill(m, out->nstates, &S);
  if (rc == 0) rc = select_base(m, &S, out);
  free(S.W), free(S.norm);
  if (rc) mbg_base_params_free(out);
  return rc;
}

void mbg_base_params_free(mbg_base_params *b) {
  if (!b) return;
  free(b->col), free(b->K);
  memset(b, 0, sizeof *b);
}
