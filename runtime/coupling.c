/* coupling.c — coupled (mimic) coordinates over the full model (mb.h mb_coupling). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coupling_internal.h"

int mb_coupling_check(const mb_model *m, const mb_coupling *c, char *msg, size_t msgsize) {
  char tmp[8];
  if (!msg) msg = tmp, msgsize = sizeof tmp;
  if (!m || !c || !c->q_of || !c->q_mult || !c->q_off || !c->v_of || !c->v_mult)
    return snprintf(msg, msgsize, "a NULL model, coupling or array"), -1;
  if (c->nq < 1 || c->nq > m->nq || c->nv < 1 || c->nv > m->nv)
    return snprintf(msg, msgsize, "independent counts %d, %d outside 1..%d, 1..%d", c->nq, c->nv,
                    m->nq, m->nv), -1;
  for (int k = 0; k < m->nq; k++)
    if (c->q_of[k] < 0 || c->q_of[k] >= c->nq || !isfinite(c->q_mult[k]) || c->q_mult[k] == 0 ||
        !isfinite(c->q_off[k]))
      return snprintf(msg, msgsize, "position %d: bad map", k), -1;
  for (int k = 0; k < m->nv; k++)
    if (c->v_of[k] < 0 || c->v_of[k] >= c->nv || !isfinite(c->v_mult[k]) || c->v_mult[k] == 0)
      return snprintf(msg, msgsize, "velocity %d: bad map", k), -1;
  return 0;
}

void mb_coupled_expand(const mb_model *m, const mb_coupling *c, const double *q, const double *v,
                       double *q_full, double *v_full) {
  for (int k = 0; q && k < m->nq; k++) q_full[k] = c->q_mult[k] * q[c->q_of[k]] + c->q_off[k];
  for (int k = 0; v && k < m->nv; k++) v_full[k] = c->v_mult[k] * v[c->v_of[k]];
}

/* An independent coordinate's entry: the first mapping onto it with factor 1 and offset 0 (its
 * own, or a coupled one that equals it in a configuration consistent with the coupling). */
void mb_coupled_pick(const mb_model *m, const mb_coupling *c, const double *q_full,
                     const double *v_full, double *q, double *v) {
  for (int k = m->nq - 1; q && k >= 0; k--)
    if (c->q_mult[k] == 1 && c->q_off[k] == 0) q[c->q_of[k]] = q_full[k];
  for (int k = m->nv - 1; v && k >= 0; k--)
    if (c->v_mult[k] == 1) v[c->v_of[k]] = v_full[k];
}

void mb_coupled_fold_columns(const mb_model *m, const mb_coupling *c, int rows, const double *A,
                             double *out) {
  int n = m->nv, ni = c->nv;
  memset(out, 0, (size_t)rows * (size_t)ni * sizeof *out);
  for (int r = 0; r < rows; r++) {
    const double *a = A + (size_t)r * (size_t)n;
    double *o = out + (size_t)r * (size_t)ni;
    for (int k = 0; k < n; k++) o[c->v_of[k]] += c->v_mult[k] * a[k];
  }
}

void mb_coupled_fold_rows(const mb_model *m, const mb_coupling *c, int cols, const double *A,
                          double *out) {
  memset(out, 0, (size_t)c->nv * (size_t)cols * sizeof *out);
  for (int k = 0; k < m->nv; k++) {
    const double *a = A + (size_t)k * (size_t)cols;
    double *o = out + (size_t)c->v_of[k] * (size_t)cols;
    for (int j = 0; j < cols; j++) o[j] += c->v_mult[k] * a[j];
  }
}

void mb_coupled_fold_matrix(const mb_model *m, const mb_coupling *c, const double *A,
                            double *out) {
  int n = m->nv, ni = c->nv;
  memset(out, 0, (size_t)ni * (size_t)ni * sizeof *out);
  for (int r = 0; r < n; r++)
    for (int k = 0; k < n; k++)
      out[(size_t)c->v_of[r] * (size_t)ni + (size_t)c->v_of[k]] +=
          c->v_mult[r] * c->v_mult[k] * A[(size_t)r * (size_t)n + (size_t)k];
}

/* The layout: q_full, v_full, h (nq + 2 nv), M (nv²), Mr (ni²), a unit column (ni) — the end of
 * the buffer — and before it, for the derivatives, q̈ and q̈_full (ni + nv) and ∂τ/∂q, ∂τ/∂v
 * (2 nv²). */
size_t mb_coupled_scratch_size(const mb_model *m, const mb_coupling *c) {
  if (!m || !c) return 0;
  size_t n = (size_t)m->nv, ni = (size_t)c->nv;
  return (size_t)m->nq + 2 * n + n * n + ni * ni + ni + (ni + n + 2 * n * n);
}

int mb_coupled_factor_(const mb_model *m, const mb_coupling *c, mb_workspace *ws,
                       double *scratch, const double *q, double **Mr_out) {
  size_t n = (size_t)m->nv;
  double *qf = scratch, *M = qf + m->nq + 2 * n, *Mr = M + n * n;
  mb_coupled_expand(m, c, q, NULL, qf, NULL);
  int rc = mb_crba(m, ws, qf, M);
  if (rc != MB_OK) return rc;
  mb_coupled_fold_matrix(m, c, M, Mr);
  if (mbs_chol(c->nv, Mr) != 0) return MB_ENUMERIC; /* the pivot rule against Mr's diagonal */
  *Mr_out = Mr;
  return MB_OK;
}

static int finite_all(const double *x, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (!isfinite(x[k])) return 0;
  return 1;
}

int mb_coupled_fd(const mb_model *m, const mb_coupling *c, mb_workspace *ws, double *scratch,
                  const double *q, const double *v, const double *tau, const double *fext,
                  double *qdd) {
  if (!m || !c || !scratch || !q || !tau || !qdd) return MB_EINVAL;
  int rc = mb_workspace_check(m, ws);
  if (rc != MB_OK) return rc;
  size_t n = (size_t)m->nv, ni = (size_t)c->nv;
  double *qf = scratch, *vf = qf + m->nq, *h = vf + n, *Mr;
  if ((rc = mb_coupled_factor_(m, c, ws, scratch, q, &Mr)) != MB_OK) return rc;
  if (v) mb_coupled_expand(m, c, NULL, v, NULL, vf);
  if ((rc = mb_rnea(m, ws, qf, v ? vf : NULL, NULL, fext, h)) != MB_OK) return rc;
  mb_coupled_fold_columns(m, c, 1, h, qdd);
  for (size_t k = 0; k < ni; k++) qdd[k] = tau[k] - qdd[k];
  mbs_chol_solve(c->nv, Mr, qdd);
  return finite_all(qdd, ni) ? MB_OK : MB_ENUMERIC;
}

int mb_coupled_minv(const mb_model *m, const mb_coupling *c, mb_workspace *ws, double *scratch,
                    const double *q, double *Minv) {
  if (!m || !c || !scratch || !q || !Minv) return MB_EINVAL;
  int rc = mb_workspace_check(m, ws);
  if (rc != MB_OK) return rc;
  size_t ni = (size_t)c->nv;
  double *Mr, *e = scratch + mb_coupled_scratch_size(m, c) - ni;
  if ((rc = mb_coupled_factor_(m, c, ws, scratch, q, &Mr)) != MB_OK) return rc;
  for (size_t j = 0; j < ni; j++) {
    for (size_t k = 0; k < ni; k++) e[k] = k == j ? 1 : 0;
    mbs_chol_solve(c->nv, Mr, e);
    for (size_t k = 0; k < ni; k++) Minv[k * ni + j] = e[k];
  }
  return finite_all(Minv, ni * ni) ? MB_OK : MB_ENUMERIC;
}

int mb_coupled_fd_derivatives(const mb_model *m, const mb_coupling *c, mb_workspace *ws,
                              double *scratch, const double *q, const double *v,
                              const double *tau, double *dqdd_dq, double *dqdd_dv, double *Minv) {
  if (!dqdd_dq || !dqdd_dv || !Minv) return MB_EINVAL;
  size_t n = (size_t)m->nv, ni = (size_t)c->nv;
  double *qdd = scratch + (size_t)m->nq + 2 * n + n * n + ni * ni, *af = qdd + ni;
  double *dq = af + n, *dv = dq + n * n;
  int rc = mb_coupled_fd(m, c, ws, scratch, q, v, tau, NULL, qdd);
  if (rc == MB_OK) rc = mb_coupled_minv(m, c, ws, scratch, q, Minv);
  if (rc != MB_OK) return rc;
  double *qf = scratch, *vf = qf + m->nq; /* left there by mb_coupled_fd */
  mb_coupled_expand(m, c, NULL, qdd, NULL, af);
  if ((rc = mb_rnea_derivatives(m, ws, qf, v ? vf : NULL, af, dq, dv, NULL)) != MB_OK) return rc;
  for (int pass = 0; pass < 2; pass++) {
    double *out = pass ? dqdd_dv : dqdd_dq, *tmp = scratch + (size_t)m->nq + 2 * n; /* M's room */
    mb_coupled_fold_matrix(m, c, pass ? dv : dq, tmp);
    for (size_t r = 0; r < ni; r++)
      for (size_t k = 0; k < ni; k++) {
        double x = 0;
        for (size_t l = 0; l < ni; l++) x -= Minv[r * ni + l] * tmp[l * ni + k];
        out[r * ni + k] = x;
      }
  }
  return finite_all(dqdd_dq, ni * ni) && finite_all(dqdd_dv, ni * ni) ? MB_OK : MB_ENUMERIC;
}
