/* loop_derivatives.c — the derivatives of the closed-loop forward dynamics (mb_fd_loops):
 * ∂q̈/∂(q, v, τ) and ∂λ/∂(q, v, τ) (mb.h "Closed loops"; docs/derivatives.md "Closed loops").
 *
 * At the solution of M q̈ + h − Kᵀλ = τ, K q̈ + K̇v = 0, a change of q, v or τ moves q̈ and λ by
 *   M ∂q̈ − Kᵀ ∂λ = ∂τ − ∂ID + ∂(Kᵀλ),   K ∂q̈ = −∂c,
 * with ∂ID the inverse dynamics' derivatives at (q, v, q̈) (mbd_rnea_derivatives), ∂(Kᵀλ) the
 * change of the constraint forces' generalized force at fixed λ, and c = φ̈ = K q̈ + K̇v at fixed
 * q̈. Both come from the rows themselves. Every row is a scalar function of world vectors moving with
 * the loop frame (on body a) and the target frame (on body b): directions u = R e and the frames'
 * origins p (loops.c). Each scalar is carried as a jet: its value s, ṡ and s̈ along the motion
 * (v, q̈), each with its gradient over (q, v) (q along the tangent space, as everywhere in mb.h).
 * A direction's jet comes from its frame's velocity and acceleration derivatives
 * (frame_derivatives.c): u̇ = ω × u, ü = α × u + ω × u̇, ∂u/∂q_k = ω_k × u (ω_k the frame's
 * angular Jacobian column), and the product rule; an origin's jet is the frame's own (v_p, a_p).
 * Products, differences and the screw row's angle θ = atan2(y, x) follow the chain rule on the
 * three coefficients. Then ∂c = the gradient of s̈. The generalized force Kᵀλ has
 * (Kᵀλ)_j = Σ_r λ_r ṡ_r(q, v = e_j), so ∂(Kᵀλ)_j/∂q is the gradient of ṡ in a second pass at each
 * unit velocity e_j (nv passes: a reference, not a fast path). The system is then solved as
 * mb_fd_loops does, through M = Lᵀ D L (mb_ltdl) and Φ = K M⁻¹ Kᵀ, whose factors mb_fd_loops left
 * in ws->M and lw->Phi. */
#include "derivatives_internal.h"
#include "loops_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------------------- jets */

/* A scalar's jet: c = (s, ṡ, s̈) and g[i] the gradient of c[i] over (q, v): 2 nv doubles. */
typedef struct sj {
  double c[3];
  double *g[3];
} sj;

typedef struct vj {
  sj e[3];
} vj;

/* The jets' memory: a bump arena of doubles (ROW_SCALARS jets of 6 nv), reset for every row. */
typedef struct arena {
  int nv;
  double *base;
  size_t used;
} arena;

/* jets a row takes at most: the screw row, 7 vectors and 4 scalars (25), with a margin */
enum { ROW_SCALARS = 40 };

static void sj_new(arena *A, sj *s) {
  size_t n = 2 * (size_t)A->nv;
  for (int i = 0; i < 3; i++) {
    s->c[i] = 0.0, s->g[i] = A->base + A->used, A->used += n;
    memset(s->g[i], 0, sizeof(double) * n);
  }
}

static void vj_new(arena *A, vj *u) {
  for (int a = 0; a < 3; a++) sj_new(A, &u->e[a]);
}

/* out += k a b (three coefficients, Leibniz's rule, and their gradients) */
static void sj_mul_acc(sj *out, double k, const sj *a, const sj *b, size_t n) {
  const double *a0 = a->c, *b0 = b->c;
  out->c[0] += k * a0[0] * b0[0];
  out->c[1] += k * (a0[1] * b0[0] + a0[0] * b0[1]);
  out->c[2] += k * (a0[2] * b0[0] + 2.0 * a0[1] * b0[1] + a0[0] * b0[2]);
  for (size_t j = 0; j < n; j++) {
    double ga0 = a->g[0][j], ga1 = a->g[1][j], ga2 = a->g[2][j];
    double gb0 = b->g[0][j], gb1 = b->g[1][j], gb2 = b->g[2][j];
    out->g[0][j] += k * (ga0 * b0[0] + a0[0] * gb0);
    out->g[1][j] += k * (ga1 * b0[0] + a0[1] * gb0 + ga0 * b0[1] + a0[0] * gb1);
    out->g[2][j] += k * (ga2 * b0[0] + a0[2] * gb0 + 2.0 * (ga1 * b0[1] + a0[1] * gb1) +
                         ga0 * b0[2] + a0[0] * gb2);
  }
}

/* out += k a */
static void sj_axpy(sj *out, double k, const sj *a, size_t n) {
  for (int i = 0; i < 3; i++) {
    out->c[i] += k * a->c[i];
    for (size_t j = 0; j < n; j++) out->g[i][j] += k * a->g[i][j];
  }
}

static void vj_dot(arena *A, const vj *u, const vj *w, sj *out) {
  sj_new(A, out);
  for (int a = 0; a < 3; a++) sj_mul_acc(out, 1.0, &u->e[a], &w->e[a], 2 * (size_t)A->nv);
}

static void vj_sub(arena *A, const vj *p, const vj *q, vj *d) {
  vj_new(A, d);
  for (int a = 0; a < 3; a++) {
    sj_axpy(&d->e[a], 1.0, &p->e[a], 2 * (size_t)A->nv);
    sj_axpy(&d->e[a], -1.0, &q->e[a], 2 * (size_t)A->nv);
  }
}

/* θ = atan2(y, x): θ̇ = N/ρ, θ̈ = (x ÿ − y ẍ)/ρ − 2 N P/ρ² (N = x ẏ − y ẋ, P = x ẋ + y ẏ,
 * ρ = x² + y²), each coefficient's gradient by its partial derivatives in x's and y's. */
static void sj_atan2(arena *A, const sj *y, const sj *x, sj *t) {
  double x0 = x->c[0], x1 = x->c[1], x2 = x->c[2], y0 = y->c[0], y1 = y->c[1], y2 = y->c[2];
  double r = x0 * x0 + y0 * y0, N = x0 * y1 - y0 * x1, P = x0 * x1 + y0 * y1;
  double Aq = x0 * y2 - y0 * x2, r2 = r * r, r3 = r2 * r;
  /* partials of θ0, θ1, θ2 in (x0, y0, x1, y1, x2, y2) */
  const double d[3][6] = {
      {-y0 / r, x0 / r, 0, 0, 0, 0},
      {y1 / r - 2.0 * N * x0 / r2, -x1 / r - 2.0 * N * y0 / r2, -y0 / r, x0 / r, 0, 0},
      {y2 / r - 2.0 * Aq * x0 / r2 - 2.0 * (y1 * P + N * x1) / r2 + 8.0 * N * P * x0 / r3,
       -x2 / r - 2.0 * Aq * y0 / r2 - 2.0 * (N * y1 - x1 * P) / r2 + 8.0 * N * P * y0 / r3,
       -2.0 * (N * x0 - y0 * P) / r2, -2.0 * (x0 * P + N * y0) / r2, -y0 / r, x0 / r}};
  size_t n = 2 * (size_t)A->nv;
  sj_new(A, t);
  t->c[0] = atan2(y0, x0), t->c[1] = N / r, t->c[2] = Aq / r - 2.0 * N * P / r2;
  for (int i = 0; i < 3; i++)
    for (size_t j = 0; j < n; j++) {
      double s = 0.0;
      for (int c = 0; c < 3; c++) s += d[i][2 * c] * x->g[c][j] + d[i][2 * c + 1] * y->g[c][j];
      t->g[i][j] = s;
    }
}

/* ----------------------------------------------------------------------------------- frames */

/* A loop's frame at the current kinematics: its world values (mbd_frame_blocks' val) and the
 * blocks dV/dq, dV/dv (= J), dA/dq, dA/dv, 6 × nv each, rows [ω; v_p] and [α; a_p]. */
typedef struct lframe {
  double *val, *blk[4];
} lframe;

static void cross3(const double a[3], const double b[3], double c[3]) { mbs_cross(a, b, c); }

/* Column k of rows r0..r0+2 of a 6 × nv block. */
static void col3(const double *B, int nv, int r0, int k, double x[3]) {
  for (int a = 0; a < 3; a++) x[a] = B[(size_t)nv * (size_t)(r0 + a) + (size_t)k];
}

/* The jet of u = R e (e in the frame's axes). */
static void dir_jet(arena *A, const lframe *f, const double e[3], vj *u) {
  const double *R = f->val, *w = f->val + 12, *al = f->val + 18;
  int nv = A->nv;
  double x[3], d[3], dd[3], t[3];
  mbs_mat3_mv(R, e, x);
  cross3(w, x, d), cross3(al, x, dd), cross3(w, d, t);
  vj_new(A, u);
  for (int a = 0; a < 3; a++) {
    sj *s = &u->e[a];
    s->c[0] = x[a], s->c[1] = d[a], s->c[2] = dd[a] + t[a];
  }
  for (int k = 0; k < nv; k++) {
    double Jw[3], dw[3], da[3], dav[3], q0[3], q1[3], q2[3], v2[3], s1[3], s2[3];
    col3(f->blk[1], nv, 0, k, Jw), col3(f->blk[0], nv, 0, k, dw);
    col3(f->blk[2], nv, 0, k, da), col3(f->blk[3], nv, 0, k, dav);
    cross3(Jw, x, q0);                                       /* ∂u = ω_k × u */
    cross3(dw, x, q1), cross3(w, q0, s1);                    /* ∂u̇ = ∂ω × u + ω × ∂u */
    for (int a = 0; a < 3; a++) q1[a] += s1[a];
    cross3(da, x, q2), cross3(al, q0, s1), cross3(dw, d, s2); /* ∂ü = ∂α × u + α × ∂u */
    for (int a = 0; a < 3; a++) q2[a] += s1[a] + s2[a];     /*      + ∂ω × u̇ + ω × ∂u̇ */
    cross3(w, q1, s1);
    for (int a = 0; a < 3; a++) q2[a] += s1[a];
    cross3(dav, x, v2), cross3(Jw, d, s1), cross3(w, q0, s2); /* ∂ü/∂v_k */
    for (int a = 0; a < 3; a++) v2[a] += s1[a] + s2[a];
    for (int a = 0; a < 3; a++) {
      sj *s = &u->e[a];
      s->g[0][k] = q0[a], s->g[1][k] = q1[a], s->g[1][nv + k] = q0[a];
      s->g[2][k] = q2[a], s->g[2][nv + k] = v2[a];
    }
  }
}

/* The jet of the frame's origin: p, v_p, a_p. */
static void origin_jet(arena *A, const lframe *f, vj *p) {
  int nv = A->nv;
  vj_new(A, p);
  for (int a = 0; a < 3; a++) {
    sj *s = &p->e[a];
    s->c[0] = f->val[9 + a], s->c[1] = f->val[15 + a], s->c[2] = f->val[21 + a];
    for (int k = 0; k < nv; k++) {
      size_t o = (size_t)nv * (size_t)(3 + a) + (size_t)k;
      s->g[0][k] = f->blk[1][o], s->g[1][k] = f->blk[0][o], s->g[1][nv + k] = f->blk[1][o];
      s->g[2][k] = f->blk[2][o], s->g[2][nv + k] = f->blk[3][o];
    }
  }
}

/* ------------------------------------------------------------------------------------- rows */

/* Row k of loop l as a jet, from the loop's two frames fa (loop frame) and fb (target frame). */
static void row_jet(arena *A, const mb_loop *l, int k, const lframe *fa, const lframe *fb,
                    sj *s) {
  double u[3], w[3];
  vj pa, pb, d, a, b;
  int kind = mb_loop_row_def_(l, k, u, w);
  origin_jet(A, fa, &pa), origin_jet(A, fb, &pb), vj_sub(A, &pb, &pa, &d);
  switch (kind) {
  case ROW_D1: dir_jet(A, fa, u, &a), dir_jet(A, fb, w, &b), vj_dot(A, &a, &b, s); break;
  case ROW_D2: dir_jet(A, fa, u, &a), vj_dot(A, &a, &d, s); break;
  case ROW_SS: vj_dot(A, &d, &d, s), s->c[0] -= l->distance * l->distance; break;
  default: { /* screw: u · d − pitch θ, θ = atan2(u2 · u1', u1 · u1') */
    double u1[3], u2[3];
    vj a2;
    sj x, y, th;
    dir_jet(A, fa, l->axis, &a), vj_dot(A, &a, &d, s);
    mb_loop_perp_(l->axis, u1, u2);
    dir_jet(A, fa, u1, &a), dir_jet(A, fa, u2, &a2), dir_jet(A, fb, u1, &b);
    vj_dot(A, &a, &b, &x), vj_dot(A, &a2, &b, &y), sj_atan2(A, &y, &x, &th);
    sj_axpy(s, -l->pitch, &th, 2 * (size_t)A->nv);
  }
  }
}

/* ------------------------------------------------------------------------------- the scratch */

typedef struct lscratch {
  double *qdd, *lam, *drq, *drv, *G, *Cq, *Cv, *x, *t, *e, *fblk, *jets;
} lscratch;

/* Doubles of the scratch (negative: too large for size_t). */
static double ldoubles(double nv, double nc) {
  double n = nv + nc + 3 * nv * nv + 2 * nc * nv + nv + nc + nv + 2 * (24 + 24 * nv) +
             (double)ROW_SCALARS * 6 * nv;
  return n * sizeof(double) > (double)SIZE_MAX / 2 ? -1.0 : n;
}

size_t mb_fd_loops_derivatives_scratch_size(const mb_model *m, const mb_loops *L) {
  if (!m || !L) return 0;
  if (m->nv < 0 || L->nc < 0) return SIZE_MAX;
  double n = ldoubles(m->nv, L->nc);
  return n < 0.0 ? SIZE_MAX : (size_t)n * sizeof(double);
}

static lscratch llayout(void *buf, size_t nv, size_t nc) {
  lscratch s;
  double *p = buf;
  s.qdd = p, p += nv;
  s.lam = p, p += nc;
  s.drq = p, p += nv * nv;
  s.drv = p, p += nv * nv;
  s.G = p, p += nv * nv;
  s.Cq = p, p += nc * nv;
  s.Cv = p, p += nc * nv;
  s.x = p, p += nv;
  s.t = p, p += nc;
  s.e = p, p += nv;
  s.fblk = p, p += 2 * (24 + 24 * nv);
  s.jets = p;
  return s;
}

/* ------------------------------------------------------------------------------- the passes */

/* Loop l's two frames at the kinematics in ws (mbd_world_kinematics done), into fblk. */
static void loop_frames(const mb_model *m, const mb_loop *p, mb_workspace *ws, double *fblk,
                        lframe fr[2]) {
  size_t b6 = 6 * (size_t)m->nv;
  for (int side = 0; side < 2; side++) {
    lframe *f = &fr[side];
    mb_frame fm;
    const double *E = side ? p->Eb : p->Ea, *r = side ? p->rb : p->ra;
    double *o[5], *base = fblk + (size_t)side * (24 + 4 * b6);
    fm.body = side ? p->b : p->a;
    for (int a = 0; a < 3; a++) /* R = Eᵀ: frame → body coordinates */
      for (int c = 0; c < 3; c++) fm.R[3 * a + c] = E[3 * c + a];
    memcpy(fm.p, r, sizeof fm.p);
    f->val = base;
    for (int j = 0; j < 4; j++) o[j] = f->blk[j] = base + 24 + (size_t)j * b6;
    o[4] = NULL;
    mbd_frame_blocks(m, ws, &fm, 0, o, f->val);
  }
}

/* Every kept row's jet at the kinematics in ws. col < 0: the rows' ∂s̈ into Cq, Cv (the pass at
 * (v, q̈)); col = j: Σ_r λ_r ∂ṡ_r/∂q into row j of G (the pass at v = e_j, q̈ = 0). */
static void rows_pass(const mb_model *m, const mb_loops *L, mb_workspace *ws, lscratch *s,
                      int col) {
  size_t nv = (size_t)m->nv;
  int last = -1;
  lframe fr[2];
  for (int r = 0; r < L->nc; r++) {
    int l = L->row[r] / MB_LOOP_MAX_ROWS;
    if (l != last) loop_frames(m, &L->loop[l], ws, s->fblk, fr), last = l;
    arena A = {m->nv, s->jets, 0};
    sj row;
    row_jet(&A, &L->loop[l], L->row[r] % MB_LOOP_MAX_ROWS, &fr[0], &fr[1], &row);
    if (col < 0)
      for (size_t k = 0; k < nv; k++)
        s->Cq[nv * (size_t)r + k] = row.g[2][k], s->Cv[nv * (size_t)r + k] = row.g[2][nv + k];
    else
      for (size_t k = 0; k < nv; k++) s->G[nv * (size_t)col + k] += s->lam[r] * row.g[1][k];
  }
}

/* Column c of the three right-hand sides (stride cols in rhs1, rhs2; rhs2 NULL: 0) solved as
 * mb_fd_loops does: x = M⁻¹ rhs1, ∂λ = Φ⁻¹ (rhs2 − K x), ∂q̈ = x + M⁻¹ Kᵀ ∂λ. */
static int solve_column(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                        mb_loop_workspace *lw, lscratch *s, const double *rhs1,
                        const double *rhs2, int c, double *dqdd, double *dlam) {
  size_t nv = (size_t)m->nv, nc = (size_t)L->nc;
  for (size_t k = 0; k < nv; k++) s->x[k] = rhs1[nv * k + (size_t)c];
  int rc = mb_ltdl_solve(m, ws, ws->M, s->x);
  if (rc) return rc;
  for (size_t r = 0; r < nc; r++) {
    double t = rhs2 ? rhs2[nv * r + (size_t)c] : 0.0;
    for (size_t k = 0; k < nv; k++) t -= lw->K[nv * r + k] * s->x[k];
    s->t[r] = t;
  }
  mbs_chol_solve(L->nc, lw->Phi, s->t);
  for (size_t k = 0; k < nv; k++) {
    double y = s->x[k];
    for (size_t r = 0; r < nc; r++) y += lw->Y[nv * r + k] * s->t[r];
    dqdd[nv * k + (size_t)c] = y;
  }
  for (size_t r = 0; dlam && r < nc; r++) dlam[nv * r + (size_t)c] = s->t[r];
  return MB_OK;
}

int mb_fd_loops_derivatives(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                            mb_loop_workspace *lw, void *scratch, const double *q,
                            const double *v, const double *tau, double *qdd, double *lambda,
                            double *dqdd_dq, double *dqdd_dv, double *dqdd_dtau, double *dlam_dq,
                            double *dlam_dv, double *dlam_dtau) {
  struct align_probe {
    char c;
    double d;
  };
  if (!scratch || (uintptr_t)scratch % offsetof(struct align_probe, d) || !dqdd_dq || !dqdd_dv ||
      !dqdd_dtau)
    return MB_EINVAL;
  if (!m || !L) return MB_EINVAL;
  size_t nv = (size_t)m->nv, nc = (size_t)(L->nc > 0 ? L->nc : 0);
  lscratch s = llayout(scratch, nv, nc);
  int rc = mb_fd_loops(m, L, ws, lw, q, v, tau, s.qdd, s.lam);
  if (rc) return rc; /* the checks: models, workspaces, NULL inputs, flexible bodies */
  /* ∂ID at (q, v, q̈); then the rows at (v, q̈) and at every e_j */
  mbd_rnea_derivatives(m, ws, q, v, s.qdd, NULL, 1, s.drq, s.drv, NULL);
  mbd_world_kinematics(m, ws, v, s.qdd, 0);
  rows_pass(m, L, ws, &s, -1);
  memset(s.G, 0, sizeof(double) * nv * nv);
  for (size_t j = 0; j < nv; j++) {
    memset(s.e, 0, sizeof(double) * nv);
    s.e[j] = 1.0;
    mbd_world_kinematics(m, ws, s.e, NULL, 0);
    rows_pass(m, L, ws, &s, (int)j);
  }
  /* right-hand sides: q: ∂(Kᵀλ) − ∂ID/∂q and −∂c/∂q; v: −∂ID/∂v and −∂c/∂v; τ: 1 and 0 */
  for (size_t k = 0; k < nv * nv; k++) s.drq[k] = s.G[k] - s.drq[k], s.drv[k] = -s.drv[k];
  for (size_t k = 0; k < nc * nv; k++) s.Cq[k] = -s.Cq[k], s.Cv[k] = -s.Cv[k];
  for (int c = 0; c < m->nv; c++)
    if ((rc = solve_column(m, L, ws, lw, &s, s.drq, s.Cq, c, dqdd_dq, dlam_dq)) ||
        (rc = solve_column(m, L, ws, lw, &s, s.drv, s.Cv, c, dqdd_dv, dlam_dv)))
      return rc;
  for (size_t k = 0; k < nv * nv; k++) s.G[k] = (k % (nv + 1)) ? 0.0 : 1.0;
  for (int c = 0; c < m->nv; c++)
    if ((rc = solve_column(m, L, ws, lw, &s, s.G, NULL, c, dqdd_dtau, dlam_dtau))) return rc;
  if (qdd) memcpy(qdd, s.qdd, sizeof(double) * nv);
  if (lambda) memcpy(lambda, s.lam, sizeof(double) * nc);
  size_t n2 = nv * nv, nl = nc * nv;
  int ok = mbs_finite(dqdd_dq, n2) && mbs_finite(dqdd_dv, n2) && mbs_finite(dqdd_dtau, n2) &&
           (!dlam_dq || mbs_finite(dlam_dq, nl)) && (!dlam_dv || mbs_finite(dlam_dv, nl)) &&
           (!dlam_dtau || mbs_finite(dlam_dtau, nl));
  return ok ? MB_OK : MB_ENUMERIC;
}
