/* static.c — static equilibrium: g(q) − τ_passive(q, 0) − τ (− Kᵀλ) = 0 (, φ(q) = 0) by Newton's
 * method with a line search (mb.h "Static equilibrium"; docs/analysis.md).
 *
 * The residual r(q) = g − τ_passive − τ is the gradient of the potential (gravity, springs, minus
 * the work of the constant τ) along the tangent space, its Jacobian H = ∂r/∂q the stiffness: ∂g/∂q
 * is mb_rnea_derivatives' ∂τ/∂q at v = 0, q̈ = 0; a joint's own spring adds its stiffness on the
 * diagonal; a point spring's slope has no analytic form in the runtime (mb_aba_derivatives_passive
 * refuses springs), so it is taken by central differences of mb_passive_forces along the tangent
 * space (error O(h²), about 1e-10 relative at h = 1e-5 for a model of metre size). With loops the
 * unknowns are (q, λ) and the Newton matrix is the KKT matrix [W −Kᵀ; K 0] of the Lagrangian
 * V − λᵀφ, W = H − ∂(Kᵀλ)/∂q at fixed λ (the curvature of the constraints, by central
 * differences of mb_loop_jacobian): without that term the iteration converges only linearly.
 * The Newton system is solved by Gaussian elimination with partial pivoting (W is not symmetric
 * away from an equilibrium along a quaternion's tangent), under the pivot rule of mb.h with the
 * column's largest entry as the reference. A backtracking line search on ½|F|² (Armijo, c = 1e-4,
 * α halved at most 40 times) globalizes it; Newton's direction descends that merit whatever the
 * inertia, so maxima and saddles are found as readily as minima, and reported.
 *
 * The inertia: the symmetric part of W on the unlocked coordinates, for loops reduced to the null
 * space of K_f by Householder reflections (Qᵀ W Q, Q from the QR factorization of K_fᵀ: its
 * trailing block is Zᵀ W Z with Z an orthonormal basis of the null space), then factored
 * P A Pᵀ = L D Lᵀ with the diagonal pivoting of Bunch & Kaufman, "Some stable methods for
 * calculating inertia and solving symmetric linear systems", Mathematics of Computation 31, 1977:
 * D's 1 × 1 and 2 × 2 blocks have the inertia of A (Sylvester's law of inertia). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mb.h"

/* The solver's state and its scratch (mb_static_scratch_size counts the same arrays). */
typedef struct ctx {
  const mb_model *m;
  const mb_springs *S;
  const mb_loops *L;
  mb_workspace *ws;
  mb_loop_workspace *lw;
  const double *tau;
  const int *lock; /* [nv] or NULL */
  const mb_static_options *o; /* forces, ctx: the caller's r and H (NULL in mb_static_stiffness) */
  double h;
  int nv, nc, nf, nu;       /* coordinates, rows, unlocked coordinates, unknowns nf + nc */
  int *fr;                  /* [nv] the unlocked coordinates */
  int *perm;                /* [nv + nc] the LU's row order */
  double *x, *xt, *xp;      /* [nq] iterate, trial, perturbed */
  double *lam, *lamt;       /* [nc] */
  double *F, *Ft, *d;       /* [nv + nc] residual, trial residual, Newton step */
  double *g, *tp, *t1, *t2; /* [nv] */
  double *e, *dv;           /* [nv] a unit vector, the step in velocity coordinates */
  double *H, *Hv;           /* [nv²] the stiffness (then W), ∂τ/∂v (then scratch) */
  double *K, *Kp;           /* [nc · nv] K at x, at a perturbed x (then scratch) */
  double *phi;              /* [nc] */
  double *A, *ref;          /* [(nv + nc)²] Newton matrix, [nv + nc] pivot references */
} ctx;

/* Doubles and ints of the layout (in double, to catch a size_t overflow). */
static void counts(const mb_model *m, int nc, double *nd, double *ni) {
  double nv = m->nv, nq = m->nq, c = nc, nu = nv + c;
  *nd = 3 * nq + 2 * c + 3 * nu + 6 * nv + 2 * nv * nv + 2 * c * nv + c + nu * nu + nu;
  *ni = nv + nu;
}

static void layout(ctx *c, const mb_model *m, int nc, void *scratch) {
  size_t nv = (size_t)m->nv, nq = (size_t)m->nq, k = (size_t)nc, nu = nv + k;
  double *p = scratch;
  c->x = p, p += nq, c->xt = p, p += nq, c->xp = p, p += nq;
  c->lam = p, p += k, c->lamt = p, p += k;
  c->F = p, p += nu, c->Ft = p, p += nu, c->d = p, p += nu;
  c->g = p, p += nv, c->tp = p, p += nv, c->t1 = p, p += nv, c->t2 = p, p += nv;
  c->e = p, p += nv, c->dv = p, p += nv;
  c->H = p, p += nv * nv, c->Hv = p, p += nv * nv;
  c->K = p, p += k * nv, c->Kp = p, p += k * nv, c->phi = p, p += k;
  c->A = p, p += nu * nu, c->ref = p, p += nu;
  int *ip = (int *)p;
  c->fr = ip, ip += nv, c->perm = ip;
}

size_t mb_static_scratch_size(const mb_model *m, const mb_loops *L) {
  if (!m) return 0;
  double nd, ni;
  counts(m, L ? L->nc : 0, &nd, &ni);
  double bytes = nd * sizeof(double) + ni * sizeof(int) + sizeof(double);
  return bytes < (double)SIZE_MAX / 2 ? (size_t)bytes : SIZE_MAX;
}

static double amax(const double *x, int n) {
  double s = 0.0;
  for (int k = 0; k < n; k++)
    if (!(fabs(x[k]) <= s)) s = fabs(x[k]); /* NaN wins */
  return s;
}

/* t = the point springs' generalized forces at q ⊕ s e (S's springs alone, v = 0). */
static int springs_at(ctx *c, const double *q, double s, double *t) {
  mb_springs only = {c->S->n, c->S->spring, NULL, NULL, NULL, NULL};
  if (mb_integrate(c->m, q, c->e, s, c->xp)) return MB_ENUMERIC;
  return mb_passive_forces(c->m, &only, c->ws, c->xp, NULL, t);
}

/* H = ∂(g − τ_passive)/∂q at q (mb_static_stiffness). */
static int stiffness(ctx *c, const double *q, double *H) {
  const mb_model *m = c->m;
  int nv = m->nv, rc;
  if (c->o && c->o->forces) {
    rc = c->o->forces(c->o->ctx, q, c->t1, H);
    return rc ? (rc < 0 ? rc : MB_ENUMERIC)
              : mbs_finite(H, (size_t)nv * (size_t)nv) ? MB_OK : MB_ENUMERIC;
  }
  rc = mb_rnea_derivatives(m, c->ws, q, NULL, NULL, H, c->Hv, NULL);
  if (rc || !c->S) return rc;
  for (int i = 1; i <= m->nb && c->S->stiffness; i++) /* −∂τ_passive/∂q = +k, diagonal */
    if (mb_joint_nq(m->jtype[i]) == 1 && mb_joint_nv(m->jtype[i]) == 1)
      H[(size_t)nv * (size_t)m->iv[i] + (size_t)m->iv[i]] += c->S->stiffness[m->iv[i]];
  if (c->S->n == 0) return MB_OK;
  memset(c->e, 0, sizeof *c->e * (size_t)nv);
  for (int k = 0; k < nv; k++) {
    c->e[k] = 1.0;
    if ((rc = springs_at(c, q, c->h, c->t1)) || (rc = springs_at(c, q, -c->h, c->t2))) return rc;
    c->e[k] = 0.0;
    for (int i = 0; i < nv; i++)
      H[(size_t)nv * (size_t)i + (size_t)k] -= (c->t1[i] - c->t2[i]) / (2.0 * c->h);
  }
  return mbs_finite(H, (size_t)nv * (size_t)nv) ? MB_OK : MB_ENUMERIC;
}

int mb_static_stiffness(const mb_model *m, const mb_springs *S, mb_workspace *ws, void *scratch,
                        double h, const double *q, double *H) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  if (!scratch || !q || !H || (S && S->n > 0 && !(h > 0.0 && isfinite(h))) ||
      mb_flex_count(m, 0) > 0)
    return MB_EINVAL;
  ctx c = {.m = m, .S = S, .ws = ws, .h = h};
  layout(&c, m, 0, scratch);
  return stiffness(&c, q, H);
}

/* y[nv] = Kᵀλ from the nc × nv matrix K. */
static void kt_lam(const ctx *c, const double *K, const double *lam, double *y) {
  for (int k = 0; k < c->nv; k++) y[k] = 0.0;
  for (int r = 0; r < c->nc; r++)
    for (int k = 0; k < c->nv; k++) y[k] += K[(size_t)r * (size_t)c->nv + (size_t)k] * lam[r];
}

/* F = [(r − Kᵀλ)_f; φ] at (x, lam), leaving g, tp and (loops) K, φ at x. *nrm = |F|∞, *err the
 * convergence measure (mb_static_options.tol), *merit = ½|F|². */
static int residual(ctx *c, const double *x, const double *lam, double *F, double *nrm, double *err,
                    double *merit) {
  const mb_model *m = c->m;
  int nv = c->nv, rc;
  if (c->o && c->o->forces) { /* the caller's r = g − τ_passive, into g */
    if ((rc = c->o->forces(c->o->ctx, x, c->g, NULL))) return rc < 0 ? rc : MB_ENUMERIC;
    memset(c->tp, 0, sizeof *c->tp * (size_t)nv);
  } else {
    if ((rc = mb_gravity(m, c->ws, x, c->g))) return rc;
    if (c->S && (rc = mb_passive_forces(m, c->S, c->ws, x, NULL, c->tp))) return rc;
    if (!c->S) memset(c->tp, 0, sizeof *c->tp * (size_t)nv);
  }
  memset(c->t1, 0, sizeof *c->t1 * (size_t)nv);
  if (c->nc > 0) {
    if ((rc = mb_loop_residual(m, c->L, c->ws, c->lw, x, c->phi)) ||
        (rc = mb_loop_jacobian(m, c->L, c->ws, c->lw, x, c->K)))
      return rc;
    kt_lam(c, c->K, lam, c->t1);
  }
  double s = 0.0, fr = 0.0, fp = amax(c->phi, c->nc), sum = 0.0;
  double sg = 0.0, sp = 0.0, st = 0.0, sk = 0.0;
  for (int i = 0; i < c->nf; i++) {
    int k = c->fr[i];
    double t = c->tau ? c->tau[k] : 0.0;
    F[i] = c->g[k] - c->tp[k] - t - c->t1[k];
    sg = fmax(sg, fabs(c->g[k])), sp = fmax(sp, fabs(c->tp[k]));
    st = fmax(st, fabs(t)), sk = fmax(sk, fabs(c->t1[k]));
  }
  for (int r = 0; r < c->nc; r++) F[c->nf + r] = c->phi[r];
  for (int i = 0; i < c->nu; i++) sum += F[i] * F[i];
  fr = amax(F, c->nf), s = fmax(1.0, sg + sp + st + sk);
  *nrm = fmax(fr, fp), *err = fmax(fr / s, fp), *merit = 0.5 * sum;
  return isfinite(sum) && isfinite(s) ? MB_OK : MB_ENUMERIC;
}

/* W = H − ∂(Kᵀλ)/∂q (the unlocked columns; central differences of K along the tangent space)
 * in c->H, then the Newton matrix A = [W_ff −K_fᵀ; K_f 0] (K at x in c->K). */
static int newton_matrix(ctx *c, const double *x, const double *lam) {
  int rc = stiffness(c, x, c->H), nv = c->nv, nu = c->nu, nf = c->nf;
  if (rc) return rc;
  memset(c->e, 0, sizeof *c->e * (size_t)nv);
  for (int j = 0; j < nf && c->nc > 0; j++) {
    int k = c->fr[j];
    c->e[k] = 1.0;
    for (int s = 0; s < 2; s++) {
      if (mb_integrate(c->m, x, c->e, s ? -c->h : c->h, c->xp)) return MB_ENUMERIC;
      if ((rc = mb_loop_jacobian(c->m, c->L, c->ws, c->lw, c->xp, c->Kp))) return rc;
      kt_lam(c, c->Kp, lam, s ? c->t2 : c->t1);
    }
    c->e[k] = 0.0;
    for (int i = 0; i < nv; i++)
      c->H[(size_t)nv * (size_t)i + (size_t)k] -= (c->t1[i] - c->t2[i]) / (2.0 * c->h);
  }
  for (int i = 0; i < nu; i++)
    for (int j = 0; j < nu; j++) {
      double a = 0.0;
      if (i < nf && j < nf)
        a = c->H[(size_t)nv * (size_t)c->fr[i] + (size_t)c->fr[j]];
      else if (i < nf)
        a = -c->K[(size_t)nv * (size_t)(j - nf) + (size_t)c->fr[i]];
      else if (j < nf)
        a = c->K[(size_t)nv * (size_t)(i - nf) + (size_t)c->fr[j]];
      c->A[(size_t)nu * (size_t)i + (size_t)j] = a;
    }
  return mbs_finite(c->A, (size_t)nu * (size_t)nu) ? MB_OK : MB_ENUMERIC;
}

/* A (n × n, row-major) = P⁻¹ L U in place by partial pivoting; perm the rows' order. A pivot p of
 * column k passes iff ref_k > 0 and |p| > MB_PIVOT_EPS · ref_k, ref_k = the column's largest
 * entry before elimination (ref[n] scratch). 0, or -1 with *bad = k. */
static int lu(int n, double *A, double *ref, int *perm, int *bad) {
  size_t N = (size_t)n;
  for (int k = 0; k < n; k++) {
    perm[k] = k, ref[k] = 0.0;
    for (int i = 0; i < n; i++) ref[k] = fmax(ref[k], fabs(A[N * (size_t)i + (size_t)k]));
  }
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[N * (size_t)i + (size_t)k]) > fabs(A[N * (size_t)p + (size_t)k])) p = i;
    double piv = A[N * (size_t)p + (size_t)k];
    if (!(ref[k] > 0.0 && fabs(piv) > MB_PIVOT_EPS * ref[k])) return *bad = k, -1;
    if (p != k) {
      int t = perm[k];
      perm[k] = perm[p], perm[p] = t;
      double *rk = A + N * (size_t)k, *rp = A + N * (size_t)p;
      for (int j = 0; j < n; j++) {
        double s = rk[j];
        rk[j] = rp[j], rp[j] = s;
      }
    }
    for (int i = k + 1; i < n; i++) {
      double *ri = A + N * (size_t)i, *rk = A + N * (size_t)k, l = ri[k] / piv;
      ri[k] = l;
      for (int j = k + 1; j < n; j++) ri[j] -= l * rk[j];
    }
  }
  return 0;
}

/* x = A⁻¹ b with lu's factors (b, x [n]; x may not alias b). */
static void lu_solve(int n, const double *A, const int *perm, const double *b, double *x) {
  size_t N = (size_t)n;
  for (int i = 0; i < n; i++) {
    double s = b[perm[i]];
    for (int j = 0; j < i; j++) s -= A[N * (size_t)i + (size_t)j] * x[j];
    x[i] = s;
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = x[i];
    for (int j = i + 1; j < n; j++) s -= A[N * (size_t)i + (size_t)j] * x[j];
    x[i] = s / A[N * (size_t)i + (size_t)i];
  }
}

/* Count one eigenvalue (|ev| ≤ z: zero). */
static void count(double ev, double z, int in[3]) { in[fabs(ev) <= z ? 2 : ev > 0.0 ? 0 : 1]++; }

/* Swap rows and columns p, q of the symmetric n × n A. */
static void sym_swap(int n, double *A, int p, int q) {
  size_t N = (size_t)n;
  for (int j = 0; j < n; j++) {
    double t = A[N * (size_t)p + (size_t)j];
    A[N * (size_t)p + (size_t)j] = A[N * (size_t)q + (size_t)j], A[N * (size_t)q + (size_t)j] = t;
  }
  for (int i = 0; i < n; i++) {
    double t = A[N * (size_t)i + (size_t)p];
    A[N * (size_t)i + (size_t)p] = A[N * (size_t)i + (size_t)q], A[N * (size_t)i + (size_t)q] = t;
  }
}

/* The pivot size at k and the swap (Bunch & Kaufman's rule, α = (1 + √17)/8). */
static int bk_pivot(int n, double *A, int k) {
  size_t N = (size_t)n;
  const double alpha = (1.0 + sqrt(17.0)) / 8.0;
  double akk = fabs(A[N * (size_t)k + (size_t)k]), lam = 0.0, sig = 0.0;
  int r = k;
  for (int i = k + 1; i < n; i++)
    if (fabs(A[N * (size_t)i + (size_t)k]) > lam) lam = fabs(A[N * (size_t)i + (size_t)k]), r = i;
  if (lam == 0.0 || akk >= alpha * lam) return 1;
  for (int j = k; j < n; j++)
    if (j != r) sig = fmax(sig, fabs(A[N * (size_t)r + (size_t)j]));
  if (akk * sig >= alpha * lam * lam) return 1;
  if (fabs(A[N * (size_t)r + (size_t)r]) >= alpha * sig) return sym_swap(n, A, k, r), 1;
  if (r != k + 1) sym_swap(n, A, k + 1, r);
  return 2;
}

/* The inertia of the symmetric n × n A (destroyed): in = {positive, negative, zero}; a 1 × 1
 * pivot or a 2 × 2 block's eigenvalue with |·| ≤ z counts as zero (such a 1 × 1 pivot is taken
 * as an exact zero: its column is dropped, not divided by). */
static void bk_inertia(int n, double *A, double z, int in[3]) {
  size_t N = (size_t)n;
  in[0] = in[1] = in[2] = 0;
  for (int k = 0; k < n;) {
    int s = bk_pivot(n, A, k);
    double *rk = A + N * (size_t)k;
    if (s == 1) {
      double d = rk[k];
      count(d, z, in);
      for (int i = k + 1; i < n && fabs(d) > z; i++)
        for (int j = k + 1; j < n; j++)
          A[N * (size_t)i + (size_t)j] -= A[N * (size_t)i + (size_t)k] * rk[j] / d;
      k++;
      continue;
    }
    double *rl = A + N * (size_t)(k + 1), a = rk[k], b = rk[k + 1], c = rl[k + 1];
    double det = a * c - b * b, mid = 0.5 * (a + c), rad = hypot(0.5 * (a - c), b);
    count(mid + rad, z, in), count(mid - rad, z, in);
    for (int i = k + 2; i < n; i++) { /* [y_i0 y_i1] = [A_ik A_i,k+1] E⁻¹ */
      double *ri = A + N * (size_t)i, u = ri[k], w = ri[k + 1];
      double y0 = (c * u - b * w) / det, y1 = (a * w - b * u) / det;
      for (int j = k + 2; j < n; j++) ri[j] -= y0 * rk[j] + y1 * rl[j];
    }
    k += 2;
  }
}

/* B ← P B P on rows and columns j..n−1 of the symmetric n × n B, P = 1 − β v vᵀ (v [n], zero
 * above j); w [n] scratch. */
static void reflect_sym(int n, double *B, int j, const double *v, double beta, double *w) {
  size_t N = (size_t)n;
  double vw = 0.0;
  for (int i = j; i < n; i++) {
    double s = 0.0;
    for (int k = j; k < n; k++) s += B[N * (size_t)i + (size_t)k] * v[k];
    w[i] = beta * s, vw += v[i] * w[i];
  }
  for (int i = j; i < n; i++) w[i] -= 0.5 * beta * vw * v[i];
  for (int i = j; i < n; i++)
    for (int k = j; k < n; k++) B[N * (size_t)i + (size_t)k] -= v[i] * w[k] + w[i] * v[k];
}

/* The inertia of sym W on the unlocked coordinates, with loops on the null space of K_f (module
 * comment); W in c->H and K in c->K at the answer. 0, or -1 (K_f rank-deficient: *bad the row). */
static int inertia(ctx *c, const mb_static_options *o, int in[3], int *bad) {
  int nf = c->nf, nc = c->nc, nv = c->nv, nz = nf - nc;
  size_t NF = (size_t)nf;
  double *B = c->A, *Q = c->Kp, *v = c->t1, *w = c->t2, wmax = 0.0;
  for (int i = 0; i < nf; i++)
    for (int j = 0; j < nf; j++) {
      double a = c->H[(size_t)nv * (size_t)c->fr[i] + (size_t)c->fr[j]];
      double b = c->H[(size_t)nv * (size_t)c->fr[j] + (size_t)c->fr[i]];
      B[NF * (size_t)i + (size_t)j] = 0.5 * (a + b), wmax = fmax(wmax, fabs(a));
    }
  for (int r = 0; r < nc; r++) /* Q column r (contiguous) = row r of K_f */
    for (int i = 0; i < nf; i++)
      Q[NF * (size_t)r + (size_t)i] = c->K[(size_t)nv * (size_t)r + (size_t)c->fr[i]];
  for (int j = 0; j < nc; j++) {
    double *qj = Q + NF * (size_t)j, ref = 0.0, nrm = 0.0;
    for (int i = 0; i < nf; i++) ref += qj[i] * qj[i];
    for (int i = j; i < nf; i++) nrm += qj[i] * qj[i];
    if (!(nrm > MB_PIVOT_EPS * ref)) return *bad = j, -1; /* the pivot rule on K_f K_fᵀ */
    double alpha = qj[j] > 0.0 ? -sqrt(nrm) : sqrt(nrm), vv = 0.0;
    for (int i = 0; i < nf; i++) v[i] = i < j ? 0.0 : qj[i];
    v[j] -= alpha;
    for (int i = j; i < nf; i++) vv += v[i] * v[i];
    double beta = 2.0 / vv;
    for (int r = j + 1; r < nc; r++) {
      double *qr = Q + NF * (size_t)r, s = 0.0;
      for (int i = j; i < nf; i++) s += v[i] * qr[i];
      for (int i = j; i < nf; i++) qr[i] -= beta * s * v[i];
    }
    reflect_sym(nf, B, j, v, beta, w);
  }
  double *Z = c->Hv; /* the trailing nz × nz block: Zᵀ (sym W) Z */
  for (int i = 0; i < nz; i++)
    for (int j = 0; j < nz; j++)
      Z[(size_t)nz * (size_t)i + (size_t)j] = B[NF * (size_t)(nc + i) + (size_t)(nc + j)];
  bk_inertia(nz, Z, o->zero_tol * wmax, in);
  return 0;
}

/* λ = the least-squares multipliers at x: (K_f K_fᵀ) λ = K_f r_f (r_f in c->F from residual at
 * λ = 0); left 0 if K_f K_fᵀ is singular (the Newton matrix then says so). */
static void initial_lambda(ctx *c) {
  int nc = c->nc, nv = c->nv;
  memset(c->lam, 0, sizeof *c->lam * (size_t)nc);
  for (int r = 0; r < nc; r++) {
    double s = 0.0;
    for (int i = 0; i < c->nf; i++) s += c->K[(size_t)nv * (size_t)r + (size_t)c->fr[i]] * c->F[i];
    c->Ft[r] = s;
    for (int q = 0; q < nc; q++) {
      double a = 0.0;
      for (int i = 0; i < c->nf; i++)
        a += c->K[(size_t)nv * (size_t)r + (size_t)c->fr[i]] *
             c->K[(size_t)nv * (size_t)q + (size_t)c->fr[i]];
      c->A[(size_t)nc * (size_t)r + (size_t)q] = a;
    }
  }
  int bad;
  if (lu(nc, c->A, c->ref, c->perm, &bad) == 0) lu_solve(nc, c->A, c->perm, c->Ft, c->lam);
}

/* xt's joints whose every coordinate is locked = x's, bit for bit (mb_integrate would renormalize
 * a held quaternion by an ulp). */
static void hold_locked(const ctx *c) {
  const mb_model *m = c->m;
  for (int i = 1; i <= m->nb && c->lock; i++) {
    int held = 1, nq = mb_joint_nq(m->jtype[i]);
    for (int j = 0; j < mb_joint_nv(m->jtype[i]); j++) held &= c->lock[m->iv[i] + j] != 0;
    if (held && nq > 0) memcpy(c->xt + m->iq[i], c->x + m->iq[i], sizeof *c->x * (size_t)nq);
  }
}

/* The line search from (x, lam) along c->d: (xt, lamt, Ft) accepted, *merit and *nrm, *err
 * updated. MB_OK, or MB_ENUMERIC if no step in 40 halvings lowers the merit enough. */
static int line_search(ctx *c, double *merit, double *nrm, double *err) {
  memset(c->dv, 0, sizeof *c->dv * (size_t)c->nv);
  for (int i = 0; i < c->nf; i++) c->dv[c->fr[i]] = c->d[i];
  double alpha = 1.0;
  for (int k = 0; k <= 40; k++, alpha *= 0.5) {
    double m1, n1, e1;
    for (int r = 0; r < c->nc; r++) c->lamt[r] = c->lam[r] + alpha * c->d[c->nf + r];
    if (mb_integrate(c->m, c->x, c->dv, alpha, c->xt)) continue;
    hold_locked(c);
    int rc = residual(c, c->xt, c->lamt, c->Ft, &n1, &e1, &m1);
    if (rc == MB_ENUMERIC) continue; /* a trial too far: not finite */
    if (rc) return rc;
    if (m1 <= (1.0 - 2e-4 * alpha) * *merit) {
      *merit = m1, *nrm = n1, *err = e1;
      return MB_OK;
    }
  }
  return MB_ENUMERIC;
}

/* Swap two double pointers. */
static void swp(double **a, double **b) {
  double *t = *a;
  *a = *b, *b = t;
}

/* The Newton iteration from c->x (λ from initial_lambda); res->iterations, residual. */
static int iterate(ctx *c, const mb_static_options *o, mb_static_result *res) {
  double merit, nrm, err;
  int rc = residual(c, c->x, c->lam, c->F, &nrm, &err, &merit), bad;
  if (!rc && c->nc > 0) {
    initial_lambda(c);
    rc = residual(c, c->x, c->lam, c->F, &nrm, &err, &merit);
  }
  if (rc) return rc;
  if (o->trace) o->trace[0] = nrm;
  for (int it = 0;; it++) {
    res->iterations = it, res->residual = nrm;
    if (err <= o->tol) return MB_OK;
    if (it == o->max_iter) return MB_ENUMERIC;
    if ((rc = newton_matrix(c, c->x, c->lam))) return rc;
    if (lu(c->nu, c->A, c->ref, c->perm, &bad)) {
      res->singular = 1 + (bad < c->nf ? c->fr[bad] : c->nv + bad - c->nf);
      return MB_ENUMERIC;
    }
    for (int i = 0; i < c->nu; i++) c->Ft[i] = -c->F[i];
    lu_solve(c->nu, c->A, c->perm, c->Ft, c->d);
    if (!mbs_finite(c->d, (size_t)c->nu)) return MB_ENUMERIC;
    if ((rc = line_search(c, &merit, &nrm, &err))) return rc;
    swp(&c->x, &c->xt), swp(&c->lam, &c->lamt), swp(&c->F, &c->Ft);
    if (o->trace) o->trace[it + 1] = nrm;
  }
}

static int options_ok(const mb_static_options *o) {
  return o->tol > 0.0 && isfinite(o->tol) && o->max_iter >= 0 && o->fd_step > 0.0 &&
         isfinite(o->fd_step) && o->zero_tol >= 0.0 && isfinite(o->zero_tol);
}

int mb_static(const mb_model *m, const mb_springs *S, const mb_loops *L, mb_workspace *ws,
              mb_loop_workspace *lw, void *scratch, const mb_static_options *opt, const double *tau,
              const int *lock, double *q, double *lambda, mb_static_result *res) {
  int rc = mb_workspace_check(m, ws);
  if (rc) return rc;
  const mb_static_options def = MB_STATIC_DEFAULTS, *o = opt ? opt : &def;
  int nc = L ? L->nc : 0;
  if (!scratch || !q || (nc > 0 && !lw) || nc < 0 || !options_ok(o) || mb_flex_count(m, 0) > 0)
    return MB_EINVAL;
  mb_static_result rtmp, *rs = res ? res : &rtmp;
  memset(rs, 0, sizeof *rs);
  ctx c = {.m = m, .S = S, .L = L, .ws = ws, .lw = lw, .tau = tau, .lock = lock, .o = o,
           .h = o->fd_step};
  layout(&c, m, nc, scratch);
  c.nv = m->nv, c.nc = nc;
  for (int k = 0; k < m->nv; k++)
    if (!lock || !lock[k]) c.fr[c.nf++] = k;
  c.nu = c.nf + nc;
  memcpy(c.x, q, sizeof *q * (size_t)m->nq);
  if ((rc = iterate(&c, o, rs))) return rc;
  /* the inertia at the answer, of W there (the multipliers' curvature included) */
  int in[3], bad;
  if ((rc = newton_matrix(&c, c.x, c.lam))) return rc;
  if (nc > c.nf) return rs->singular = 1 + m->nv + c.nf, MB_ENUMERIC;
  if (inertia(&c, o, in, &bad)) return rs->singular = 1 + m->nv + bad, MB_ENUMERIC;
  rs->npos = in[0], rs->nneg = in[1], rs->nzero = in[2];
  rs->stable = in[1] == 0 && in[2] == 0;
  rs->saddle = in[1] > 0 && in[0] > 0;
  rs->maximum = in[1] > 0 && in[0] == 0;
  memcpy(q, c.x, sizeof *q * (size_t)m->nq);
  if (lambda && nc > 0) memcpy(lambda, c.lam, sizeof *lambda * (size_t)nc);
  return MB_OK;
}
