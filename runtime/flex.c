/* flex.c — flexible bodies with assumed modes (Jain & Rodriguez, "Recursive Dynamics for Flexible
 * Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990, §3, §8): the model's
 * modal data, its validation, and the offsets and attachment maps the algorithms share. */
#include "flex_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

int mb_body_nm(const mb_model *m, int i) {
  return (m && m->flex && m->flex->nm && i >= 0 && i <= m->nb) ? m->flex->nm[i] : 0;
}

size_t mb_flex_count(const mb_model *m, int what) {
  size_t n = 0;
  if (!m || !m->flex || !m->flex->nm || m->nb < 0 || m->nb > MB_MAX_BODIES) return 0;
  for (int i = 1; i <= m->nb; i++) {
    int nm = m->flex->nm[i];
    if (nm <= 0 || nm > MB_MAX_MODES) continue; /* mb_model_check rejects nm out of range */
    size_t k = (size_t)nm;
    if (what == 0) n += k;
    else if (what == 1) n += k * k;
    else {
      size_t d = k + (size_t)(m->jtype && (unsigned)m->jtype[i] < MB_JOINT_TYPE_COUNT
                                  ? mb_joint_nv(m->jtype[i]) : 6);
      n += d * d;
    }
  }
  return n;
}

double mbf_q_form(const mb_model *m, const mb_workspace *ws, int i, int k, const double v[6]) {
  if (!m->flex->Q) return 0.0;
  const double *Q = m->flex->Q + 36 * ((size_t)mbf_e(ws, i) + (size_t)k);
  double s = 0.0;
  for (int r = 0; r < 6; r++) {
    double x = 0.0;
    for (int c = 0; c < 6; c++) x += Q[6 * r + c] * v[c];
    s += v[r] * x;
  }
  return s;
}

void mbf_offsets(const mb_model *m, mb_workspace *ws) {
  int e = 0, e2 = 0, ps = 0, fd = 0;
  for (int i = 0; i <= m->nb; i++) {
    int nm = mb_body_nm(m, i), d = (i > 0 ? mbf_nj(m, i) : 0) + nm;
    ws->fo[4 * i] = e, ws->fo[4 * i + 1] = e2, ws->fo[4 * i + 2] = ps, ws->fo[4 * i + 3] = fd;
    e += nm, e2 += nm * nm, fd += nm > 0 ? d * d : 0;
    if (i > 0) ps += 6 * mb_body_nm(m, m->parent[i]);
  }
}

void mbf_psi_mv(const mb_model *m, const mb_workspace *ws, int i, const double *x, double out[6]) {
  int n = mb_body_nm(m, m->parent[i]);
  if (n == 0) return; /* a rigid parent (and no offset into a Psi that may be NULL) */
  const double *P = m->flex->Psi + mbf_ps(ws, i);
  for (int c = 0; c < n; c++)
    for (int k = 0; k < 6; k++) out[k] += P[6 * c + k] * x[c];
}

void mbf_psiT_fv(const mb_model *m, const mb_workspace *ws, int i, const double f[6],
                 double *out) {
  int n = mb_body_nm(m, m->parent[i]);
  if (n == 0) return; /* a rigid parent (and no offset into a Psi that may be NULL) */
  const double *P = m->flex->Psi + mbf_ps(ws, i);
  for (int c = 0; c < n; c++)
    for (int k = 0; k < 6; k++) out[c] += P[6 * c + k] * f[k];
}

void mbf_add_section(const mb_model *m, mb_workspace *ws, int i, const double A[36]) {
  int p = m->parent[i], np = mb_body_nm(m, p);
  if (np == 0) return;
  const double *P = m->flex->Psi + mbf_ps(ws, i);
  double *C = ws->PC + 6 * mbf_e(ws, p), *E = ws->PE + mbf_e2(ws, p), AP[6 * MB_MAX_MODES];
  for (int c = 0; c < np; c++) /* AP = A Ψ */
    for (int r = 0; r < 6; r++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += A[6 * r + k] * P[6 * c + k];
      AP[6 * c + r] = s;
      C[6 * c + r] += s;
    }
  for (int r = 0; r < np; r++)
    for (int c = 0; c < np; c++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += P[6 * r + k] * AP[6 * c + k];
      E[np * r + c] += s;
    }
}

static int fail(char *msg, size_t msgsize, const char *fmt, ...) {
  if (msg && msgsize > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msgsize, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* 1 if the symmetric n×n matrix A (row-major, stride s) is positive semidefinite: an LDLᵀ
 * elimination in which every pivot is ≥ −1e-9 of the largest diagonal entry (a pivot within that
 * of zero is taken as zero and its column skipped). Works on a copy in W (n² doubles). */
static int psd(const double *A, int n, int s, double *W) {
  double scale = 0.0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) W[n * i + j] = A[s * i + j];
    scale = fmax(scale, fabs(A[s * i + i]));
  }
  double tol = 1e-9 * scale;
  for (int k = 0; k < n; k++) {
    double d = W[n * k + k];
    if (!(d >= -tol)) return 0;
    if (d <= tol) {
      for (int i = k + 1; i < n; i++) /* a zero pivot: its column must vanish too */
        if (!(fabs(W[n * i + k]) <= 1e-6 * scale)) return 0;
      continue;
    }
    for (int i = k + 1; i < n; i++)
      for (int j = k + 1; j < n; j++) W[n * i + j] -= W[n * i + k] * W[n * k + j] / d;
  }
  return 1;
}

static int symmetric_finite(const double *A, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double a = A[n * i + j], b = A[n * j + i];
      if (!isfinite(a) || !(fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b)))) return 0;
    }
  return 1;
}

/* Body i's modal mass [I, Mc; Mcᵀ, Me], stiffness and damping. */
static int check_body(const mb_model *m, int i, int e, int e2, char *msg, size_t msgsize) {
  const mb_flex *f = m->flex;
  int n = f->nm[i], N = 6 + n;
  double B[(6 + MB_MAX_MODES) * (6 + MB_MAX_MODES)], W[(6 + MB_MAX_MODES) * (6 + MB_MAX_MODES)];
  const double *Mc = f->Mc + 6 * e, *Me = f->Me + e2;
  const double *mats[3] = {Me, f->K + e2, f->D + e2};
  const char *what[3] = {"modal mass", "modal stiffness", "modal damping"};
  for (int k = 0; k < 6 * n; k++)
    if (!isfinite(Mc[k])) return fail(msg, msgsize, "body %d: non-finite modal coupling", i);
  for (int w = 0; w < 3; w++) {
    if (!symmetric_finite(mats[w], n))
      return fail(msg, msgsize, "body %d: %s is not finite and symmetric", i, what[w]);
    if (w > 0 && !psd(mats[w], n, n, W))
      return fail(msg, msgsize, "body %d: %s is not positive semidefinite", i, what[w]);
  }
  mbs_I_mat(m->inertia + 10 * i, W);
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) B[N * r + c] = W[6 * r + c];
  for (int c = 0; c < n; c++)
    for (int r = 0; r < 6; r++) B[N * r + 6 + c] = B[N * (6 + c) + r] = Mc[6 * c + r];
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) B[N * (6 + r) + 6 + c] = Me[n * r + c];
  if (!psd(B, N, N, W))
    return fail(msg, msgsize, "body %d: the modal mass matrix [I, Mc; Mc', Me] is not positive "
                              "semidefinite", i);
  return 0;
}

int mbf_check(const mb_model *m, char *msg, size_t msgsize) {
  const mb_flex *f = m->flex;
  if (!f->nm) return fail(msg, msgsize, "flex->nm is NULL");
  if (f->nm[0] != 0) return fail(msg, msgsize, "flex->nm[0] (the world) is %d, not 0", f->nm[0]);
  int e = 0, e2 = 0, ps = 0;
  for (int i = 1; i <= m->nb; i++)
    if (f->nm[i] < 0 || f->nm[i] > MB_MAX_MODES)
      return fail(msg, msgsize, "body %d: %d modes, not in [0, %d]", i, f->nm[i], MB_MAX_MODES);
  if (mb_flex_count(m, 0) > 0 && (!f->Mc || !f->Me || !f->K || !f->D))
    return fail(msg, msgsize, "flex: a modal array is NULL");
  for (int i = 1; i <= m->nb; i++) {
    int n = f->nm[i];
    ps += 6 * f->nm[m->parent[i]];
    if (f->nm[m->parent[i]] > 0 && !f->Psi)
      return fail(msg, msgsize, "flex->Psi is NULL but body %d hangs from a flexible body", i);
    if (n > 0 && check_body(m, i, e, e2, msg, msgsize)) return -1;
    e += n, e2 += n * n;
  }
  for (int k = 0; k < ps; k++)
    if (!isfinite(f->Psi[k])) return fail(msg, msgsize, "flex: non-finite attachment shape");
  for (int k = 0; f->Q && k < 36 * e; k++)
    if (!isfinite(f->Q[k])) return fail(msg, msgsize, "flex: non-finite velocity-product form");
  if (f->nnodes < 0 || (f->nnodes > 0 && (!f->node_body || !f->node_r || !f->node_shape)))
    return fail(msg, msgsize, "flex: bad node count or NULL node arrays");
  for (int k = 0, off = 0; k < f->nnodes; k++) {
    int i = f->node_body[k];
    if (i < 1 || i > m->nb || f->nm[i] == 0)
      return fail(msg, msgsize, "node %d: body %d is not a flexible body with modes", k, i);
    for (int a = 0; a < 3; a++)
      if (!isfinite(f->node_r[3 * k + a])) return fail(msg, msgsize, "node %d: not finite", k);
    for (int c = 0; c < 6 * f->nm[i]; c++)
      if (!isfinite(f->node_shape[off + c])) return fail(msg, msgsize, "node %d: not finite", k);
    off += 6 * f->nm[i];
  }
  return 0;
}
