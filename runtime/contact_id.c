/* contact_id.c — contact inverse dynamics (mb.h "analysis: contact inverse dynamics";
 * docs/analysis.md "Contact inverse dynamics"). Given q, v, q̈ and the active contacts (the rows
 * of mb_contact_fd: Jc, world-aligned, force layout Σ dim), the joint forces τ and contact forces f
 * with
 *
 *   M q̈ + h = τ + Jcᵀ f,   τ_u = 0 on the unactuated coordinates u,
 *
 * minimizing ½ Σ_a W_a τ_a² + ½ fᵀ R f (a the actuated coordinates). With b = mb_rnea(q, v, q̈),
 * τ = b − Jcᵀ f, so this is the equality-constrained least-squares problem over f
 *
 *   min ½ |W^½ (b_a − H f)|² + ½ |R^½ f|²   subject to   G f = b_u,
 *   H = S_a Jcᵀ, G = S_u Jcᵀ,
 *
 * solved by the null-space method with Householder QR (Golub & Van Loan, "Matrix Computations",
 * 4th ed., 2013, §5.2 and §6.2): Gᵀ Π = Q [R₁ R₁₂; 0 0] by QR with column pivoting (rank k),
 * f = Q [y; z], R₁ᵀ y = (Πᵀ b_u)_{1..k} (the base rows balanced by the least-norm forces), and z
 * the least-norm solution of the reduced least squares min |A z − c|, A = [W^½ H; R^½] Q₂, by a
 * second pivoted QR and, when A is rank deficient, a complete orthogonal decomposition. Every
 * rank decision is the runtime's pivot rule applied to the normal matrix: column j is kept iff its
 * squared norm left after the previous reflections exceeds MB_PIVOT_EPS times its squared norm
 * before them (the Cholesky pivot of AᵀA against its diagonal entry). As f_p = Q [y; 0] ⟂ Q [0; z],
 * the least-norm z gives the least-norm f among the minimizers: the limit R = ε·1, ε → 0⁺. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mb.h"

/* The scratch, nr = mb_contact_rows(C) rows (the active ones packed first), nv coordinates:
 *   J [nr × nv] the rows of Jc;  Jf [6 × nv] one frame's Jacobian;  G [nr × nv] Gᵀ (na × nu),
 *   then its QR;  A [(nv + nr) × nr] the reduced matrix, then its QR;  T [nr × nr] the transposed
 *   triangle of the complete orthogonal decomposition;  c [nv + nr] the reduced right-hand side;
 *   x [nr] [y; z], then f;  fp [nr] the particular forces;  w [nr] one row;  reg [nr] R per row;
 *   tg, ta, tt [nr] the reflectors' factors;  ref [nv + nr] the columns' squared norms;  s [nv]
 *   the base rows' scales;  then the integers: flag [nv] (1: unactuated), iu [nv] the unactuated
 *   coordinates, pg [nv] and pa [nr] the column permutations. */
typedef struct cid_scratch {
  double *J, *Jf, *G, *A, *T, *c, *x, *fp, *w, *reg, *tg, *ta, *tt, *ref, *s;
  int *flag, *iu, *pg, *pa;
} cid_scratch;

/* Doubles of scratch for nr rows and nv coordinates, counted in floating point (the integers
 * rounded up to whole doubles): −1 if size_t cannot hold the bytes. */
static double cid_doubles(double nr, double nv) {
  double ints = ceil((3.0 * nv + nr) * (double)sizeof(int) / (double)sizeof(double));
  double n =
      2.0 * nr * nv + 6.0 * nv + (nv + nr) * nr + nr * nr + 2.0 * (nv + nr) + 7.0 * nr + nv + ints;
  return n * (double)sizeof(double) < (double)SIZE_MAX ? n : -1.0;
}

size_t mb_contact_id_scratch_size(const mb_model *m, const mb_contacts *C) {
  if (!m || !C) return 0;
  int nr = mb_contact_rows(C);
  if (nr < 0 || m->nv < 0) return SIZE_MAX;
  double n = cid_doubles(nr, m->nv);
  return n < 0.0 ? SIZE_MAX : (size_t)n * sizeof(double);
}

static cid_scratch cid_layout(void *buffer, size_t nr, size_t nv) {
  cid_scratch s;
  s.J = buffer;
  s.Jf = s.J + nr * nv;
  s.G = s.Jf + 6 * nv;
  s.A = s.G + nr * nv;
  s.T = s.A + (nv + nr) * nr;
  s.c = s.T + nr * nr;
  s.x = s.c + nv + nr;
  s.fp = s.x + nr;
  s.w = s.fp + nr;
  s.reg = s.w + nr;
  s.tg = s.reg + nr;
  s.ta = s.tg + nr;
  s.tt = s.ta + nr;
  s.ref = s.tt + nr;
  s.s = s.ref + nv + nr;
  s.flag = (int *)(void *)(s.s + nv);
  s.iu = s.flag + nv;
  s.pg = s.iu + nv;
  s.pa = s.pg + nv;
  return s;
}

/* Entry (r, c) of a row-major matrix of leading dimension ld. */
static inline size_t ix(int r, int ld, int c) { return (size_t)r * (size_t)ld + (size_t)c; }

/* The alignment of double (C99: no _Alignof): the offset of d. */
struct cid_align_probe {
  char c;
  double d;
};

/* Every check (nothing is written before they pass): the workspace, the pointers, the contacts,
 * the flags, weights and regularization, a rigid model, aligned scratch. */
static int cid_check(const mb_model *m, const mb_frames *F, const mb_contacts *C, mb_workspace *ws,
                     const void *scratch, const double *q, const double *v, const double *qdd,
                     const int *active, const int *unactuated, const double *weight,
                     const double *reg, const double *tau) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!F || !C || !scratch || !q || !v || !qdd || !tau) return MB_EINVAL;
  if ((uintptr_t)scratch % offsetof(struct cid_align_probe, d)) return MB_EINVAL;
  if (mb_contacts_check(m, F, C, NULL, 0)) return MB_EINVAL;
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL; /* the frame kinematics cover rigid models */
  for (int k = 0; k < C->n; k++) {
    if (active && active[k] != 0 && active[k] != 1) return MB_EINVAL;
    if (reg && !(isfinite(reg[k]) && reg[k] >= 0.0)) return MB_EINVAL;
  }
  for (int i = 0; i < m->nv; i++) {
    if (unactuated && unactuated[i] != 0 && unactuated[i] != 1) return MB_EINVAL;
    if (weight && !(isfinite(weight[i]) && weight[i] >= 0.0)) return MB_EINVAL;
  }
  return MB_OK;
}

/* The unactuated flags (given, or the coordinates of every floating joint) and their list iu.
 * Returns nu. */
static int cid_unactuated(const mb_model *m, const int *unactuated, cid_scratch *s) {
  int nu = 0;
  for (int i = 0; i < m->nv; i++) s->flag[i] = unactuated ? unactuated[i] : 0;
  if (!unactuated)
    for (int b = 1; b <= m->nb; b++)
      if (m->jtype[b] == MB_JOINT_FLOATING)
        for (int l = 0; l < mb_joint_nv(m->jtype[b]); l++) s->flag[m->iv[b] + l] = 1;
  for (int i = 0; i < m->nv; i++)
    if (s->flag[i]) s->iu[nu++] = i;
  return nu;
}

/* The active contacts' rows, packed into J (na × nv), and R of every row into reg. Returns na ≥ 0,
 * or a status < 0. */
static int cid_rows(const mb_model *m, const mb_frames *F, const mb_contacts *C, mb_workspace *ws,
                    cid_scratch *s, const double *q, const int *active, const double *reg) {
  size_t nv = (size_t)m->nv;
  int na = 0, rc;
  for (int k = 0; k < C->n; k++) {
    if (active && !active[k]) continue;
    const mb_contact *c = &C->contact[k];
    mb_frames one = {1, &F->frame[c->frame]};
    if ((rc = mb_frame_jacobian(m, &one, ws, q, 0, s->Jf))) return rc;
    for (int r = 6 - c->dim; r < 6; r++, na++) { /* dim 3: the origin's rows 3..5 */
      memcpy(s->J + (size_t)na * nv, s->Jf + (size_t)r * nv, sizeof(double) * nv);
      s->reg[na] = reg ? reg[k] : 0.0;
    }
  }
  return na;
}

/* x ← H_j x, H_j = 1 − τ_j v vᵀ the j-th reflector of a QR stored in A (m rows, leading dimension
 * ld: v_j = 1, v_i = A[i][j] below), on x[i·inc], i = j..m−1. */
static void reflect(int m, int j, const double *A, int ld, double tau, double *x, int inc) {
  double w = x[ix(j, inc, 0)];
  for (int i = j + 1; i < m; i++) w += A[ix(i, ld, j)] * x[ix(i, inc, 0)];
  if (w == 0.0 || tau == 0.0) return;
  w *= tau;
  x[ix(j, inc, 0)] -= w;
  for (int i = j + 1; i < m; i++) x[ix(i, inc, 0)] -= w * A[ix(i, ld, j)];
}

/* x ← Qᵀ x (transpose) or Q x, Q = H_0 ⋯ H_{k−1}, x of length m. */
static void qr_apply(int m, int k, const double *A, int ld, const double *tau, double *x,
                     int transpose) {
  for (int t = 0; t < k; t++) {
    int j = transpose ? t : k - 1 - t;
    reflect(m, j, A, ld, tau[j], x, 1);
  }
}

/* Columns j and c of A (m rows) and their bookkeeping swapped. */
static void swap_cols(int m, double *A, int ld, int j, int c, double *ref, int *perm) {
  if (c == j) return;
  for (int i = 0; i < m; i++) {
    double t = A[ix(i, ld, j)];
    A[ix(i, ld, j)] = A[ix(i, ld, c)], A[ix(i, ld, c)] = t;
  }
  double t = ref[j];
  ref[j] = ref[c], ref[c] = t;
  int p = perm[j];
  perm[j] = perm[c], perm[c] = p;
}

/* Householder QR of A (m × n, leading dimension ld) in place: R on and above the diagonal, the
 * reflectors below (tau). pivot: column pivoting on the ratio of a column's remaining squared norm
 * to its squared norm on entry (ref, perm[j] the column at position j), stopping at the first
 * ratio ≤ MB_PIVOT_EPS (the pivot rule); returns the rank k. Without pivoting: min(m, n) steps. */
static int hqr(int m, int n, double *A, int ld, double *tau, int *perm, double *ref, int pivot) {
  int steps = m < n ? m : n;
  for (int c = 0; pivot && c < n; c++) {
    double s = 0.0;
    for (int i = 0; i < m; i++) s += A[ix(i, ld, c)] * A[ix(i, ld, c)];
    ref[c] = s, perm[c] = c;
  }
  for (int j = 0; j < steps; j++) {
    double best = 0.0, s = 0.0;
    int at = j;
    for (int c = j; pivot && c < n; c++) {
      double r = 0.0;
      for (int i = j; i < m; i++) r += A[ix(i, ld, c)] * A[ix(i, ld, c)];
      if (ref[c] > 0.0 && r / ref[c] > best) best = r / ref[c], at = c, s = r;
    }
    if (pivot && !(best > MB_PIVOT_EPS)) return j;
    if (pivot) swap_cols(m, A, ld, j, at, ref, perm);
    if (!pivot)
      for (int i = j; i < m; i++) s += A[ix(i, ld, j)] * A[ix(i, ld, j)];
    double x0 = A[ix(j, ld, j)], nrm = sqrt(s);
    double d = x0 > 0.0 ? -nrm : nrm; /* the new diagonal entry, of the sign opposite to x0 */
    tau[j] = d != 0.0 ? (d - x0) / d : 0.0;
    for (int i = j + 1; d != 0.0 && i < m; i++) A[ix(i, ld, j)] /= x0 - d;
    A[ix(j, ld, j)] = d;
    for (int c = j + 1; c < n; c++) reflect(m, j, A, ld, tau[j], A + c, ld);
  }
  return steps;
}

/* The base rows: Gᵀ = Jc S_uᵀ stored na × nu, its pivoted QR (rank k into *k), and y with
 * R₁ᵀ y = (Πᵀ b_u)_{1..k} into x[0..k−1]; x[k..na−1] = 0 and fp = Q [y; 0]. */
static void cid_base(int nv, int na, int nu, cid_scratch *s, const double *b, int *k) {
  for (int r = 0; r < na; r++)
    for (int u = 0; u < nu; u++) s->G[ix(r, nu, u)] = s->J[ix(r, nv, s->iu[u])];
  *k = na > 0 && nu > 0 ? hqr(na, nu, s->G, nu, s->tg, s->pg, s->ref, 1) : 0;
  for (int j = 0; j < *k; j++) { /* forward substitution with R₁ᵀ (lower triangular) */
    double y = b[s->iu[s->pg[j]]];
    for (int i = 0; i < j; i++) y -= s->G[ix(i, nu, j)] * s->x[i];
    s->x[j] = y / s->G[ix(j, nu, j)];
  }
  for (int j = *k; j < na; j++) s->x[j] = 0.0;
  memcpy(s->fp, s->x, sizeof(double) * (size_t)na);
  qr_apply(na, *k, s->G, nu, s->tg, s->fp, 0);
}

/* One row of the reduced problem: w (length na) times Q₂, into row i of A (nz = na − k columns). */
static void cid_row(int na, int nu, int k, cid_scratch *s, int i) {
  qr_apply(na, k, s->G, nu, s->tg, s->w, 1); /* (w Q)ᵀ = Qᵀ wᵀ */
  memcpy(s->A + ix(i, na - k, 0), s->w + k, sizeof(double) * (size_t)(na - k));
}

/* The reduced least squares A z ≈ c: the rows √W_i (H_i Q₂; b_i − H_i f_p) of the weighted
 * actuated coordinates and √R_r (e_rᵀ Q₂; −f_p,r) of the regularized rows. Returns their count. */
static int cid_reduced(int nv, int na, int nu, int k, cid_scratch *s, const double *b,
                       const double *weight) {
  int mA = 0;
  for (int i = 0; i < nv; i++) {
    double wi = weight ? weight[i] : 1.0;
    if (s->flag[i] || wi == 0.0) continue;
    double sw = sqrt(wi), ci = b[i];
    for (int r = 0; r < na; r++) {
      s->w[r] = sw * s->J[ix(r, nv, i)];
      ci -= s->J[ix(r, nv, i)] * s->fp[r];
    }
    cid_row(na, nu, k, s, mA);
    s->c[mA++] = sw * ci;
  }
  for (int r = 0; r < na; r++) {
    if (s->reg[r] == 0.0) continue;
    double sr = sqrt(s->reg[r]);
    memset(s->w, 0, sizeof(double) * (size_t)na);
    s->w[r] = sr;
    cid_row(na, nu, k, s, mA);
    s->c[mA++] = -sr * s->fp[r];
  }
  return mA;
}

/* The least-norm solution z of min |A z − c| (A mA × nz): pivoted QR (rank p), and when p < nz
 * the QR of the triangle's transpose [T₁₁ T₁₂]ᵀ = V [U; 0], so that A Π = Q_A [Uᵀ 0] Vᵀ; z into
 * x[k..k + nz − 1]. */
static void cid_lsq(int mA, int nz, int k, cid_scratch *s) {
  double *z = s->x + k;
  int p = hqr(mA, nz, s->A, nz, s->ta, s->pa, s->ref, 1);
  qr_apply(mA, p, s->A, nz, s->ta, s->c, 1); /* d = (Q_Aᵀ c)_{1..p} */
  double *zp = s->w;                         /* z in the pivoted order */
  for (int j = 0; j < nz; j++) zp[j] = 0.0;
  if (p == nz) { /* full rank: back substitution with T₁₁ */
    for (int j = p - 1; j >= 0; j--) {
      double t = s->c[j];
      for (int i = j + 1; i < p; i++) t -= s->A[ix(j, nz, i)] * zp[i];
      zp[j] = t / s->A[ix(j, nz, j)];
    }
  } else if (p > 0) { /* Tᵀ (nz × p) = V [U; 0]; Uᵀ w = d; z' = V [w; 0] */
    for (int i = 0; i < nz; i++)
      for (int j = 0; j < p; j++) s->T[ix(i, p, j)] = i >= j ? s->A[ix(j, nz, i)] : 0.0;
    hqr(nz, p, s->T, p, s->tt, NULL, NULL, 0);
    for (int j = 0; j < p; j++) {
      double t = s->c[j];
      for (int i = 0; i < j; i++) t -= s->T[ix(i, p, j)] * zp[i];
      zp[j] = t / s->T[ix(j, p, j)];
    }
    qr_apply(nz, p, s->T, p, s->tt, zp, 0);
  }
  for (int j = 0; j < nz; j++) z[s->pa[j]] = zp[j];
}

/* The body whose joint has velocity coordinate i. */
static int cid_body(const mb_model *m, int i) {
  for (int b = 1; b <= m->nb; b++)
    if (i >= m->iv[b] && i < m->iv[b] + mb_joint_nv(m->jtype[b])) return b;
  return 0;
}

/* The base rows' residuals τ_u = b_u − (Jcᵀ f)_u against their scales s_u = |h_u| + Σ_j |M_uj q̈_j|
 * + Σ_r |Jc_ru f_r| (h = mb_nle, M = mb_crba into ws->M): MB_OK, or MB_ENUMERIC with ws->singular
 * the body of the worst row, when one exceeds √MB_PIVOT_EPS times its scale. */
static int cid_balance(const mb_model *m, mb_workspace *ws, cid_scratch *s, int na, int nu,
                       const double *q, const double *v, const double *qdd, const double *tau) {
  int nv = m->nv, rc, worst = -1;
  double ratio = sqrt(MB_PIVOT_EPS);
  if ((rc = mb_nle(m, ws, q, v, s->s)) || (rc = mb_crba(m, ws, q, ws->M))) return rc;
  for (int j = 0; j < nu; j++) {
    int u = s->iu[j];
    double sc = fabs(s->s[u]);
    for (int i = 0; i < nv; i++) sc += fabs(ws->M[ix(u, nv, i)] * qdd[i]);
    for (int r = 0; r < na; r++) sc += fabs(s->J[ix(r, nv, u)] * s->x[r]);
    if (!(fabs(tau[u]) <= ratio * sc)) ratio = fabs(tau[u]) / sc, worst = u;
  }
  if (worst < 0) return MB_OK;
  ws->singular = cid_body(m, worst);
  return MB_ENUMERIC;
}

/* f scattered into the layout of force (zero on the inactive contacts). */
static void cid_scatter(const mb_contacts *C, const int *active, const double *f, double *out) {
  for (int k = 0, o = 0, a = 0; out && k < C->n; o += C->contact[k].dim, k++)
    for (int r = 0; r < C->contact[k].dim; r++) out[o + r] = (active && !active[k]) ? 0.0 : f[a++];
}

int mb_contact_id(const mb_model *m, const mb_frames *F, const mb_contacts *C, mb_workspace *ws,
                  void *scratch, const double *q, const double *v, const double *qdd,
                  const int *active, const int *unactuated, const double *weight, const double *reg,
                  double *tau, double *force) {
  int rc = cid_check(m, F, C, ws, scratch, q, v, qdd, active, unactuated, weight, reg, tau);
  if (rc) return rc;
  int nv = m->nv, nr = mb_contact_rows(C), k;
  cid_scratch s = cid_layout(scratch, (size_t)nr, (size_t)nv);
  ws->singular = 0;
  int nu = cid_unactuated(m, unactuated, &s);
  int na = cid_rows(m, F, C, ws, &s, q, active, reg);
  if (na < 0) return na;
  if ((rc = mb_rnea(m, ws, q, v, qdd, NULL, tau))) return rc; /* b, then τ in place */
  cid_base(nv, na, nu, &s, tau, &k);
  int mA = cid_reduced(nv, na, nu, k, &s, tau, weight);
  cid_lsq(mA, na - k, k, &s);
  qr_apply(na, k, s.G, nu, s.tg, s.x, 0); /* f = Q [y; z] */
  for (int i = 0; i < nv; i++)            /* τ = b − Jcᵀ f */
    for (int r = 0; r < na; r++) tau[i] -= s.J[ix(r, nv, i)] * s.x[r];
  cid_scatter(C, active, s.x, force);
  if (!mbs_finite(tau, (size_t)nv) || !mbs_finite(s.x, (size_t)na)) return MB_ENUMERIC;
  if (k < nu && (rc = cid_balance(m, ws, &s, na, nu, q, v, qdd, tau))) return rc;
  for (int j = 0; j < nu; j++) tau[s.iu[j]] = 0.0;
  return MB_OK;
}
