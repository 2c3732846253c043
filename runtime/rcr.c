/* rcr.c — forward dynamics of a tree closed by loop joints by recursive coordinate reduction
 * (mb.h; Critchley & Anderson 2003, §3-5; docs/loops.md "Recursive coordinate reduction").
 *
 * Everything is in world Plücker coordinates (spatial vectors at the world origin, world axes),
 * so shifting a vector from one body to another is the identity. A is a body's absolute spatial
 * acceleration, a_b its value at q̈ = 0 (with −gravity: the bias), W = IA A + pA the wrench its
 * articulated subtree needs. Free joints (in no group) take the articulated-body algorithm's
 * step. A group with base c, head c → p and tail (rcr_internal.h) has its tail reduced when the
 * backward sweep reaches p:
 *
 * 1. Dependents (eqs. 27-45, 65-67): the group's rows, K_D q̈_D + K_I q̈_I + G Â_p + K̇v = 0, with
 *    Â_p = A_p − A_c − (a_b,p − a_b,c) p's acceleration relative to c from the head's q̈ and G the
 *    rows' covectors on the loop bodies beyond p, are solved dependent by dependent in chain order
 *    with the projector recursion (R, ρ_d = R c_d / c_dᵀ R c_d, eliminated from the chain's end):
 *    q̈_D = E [Â_p; q̈_I; 1], no division by a pivot below the selection's rule.
 * 2. Tail bodies (eqs. 72-81): A_k = A_c + Φ_k [Â_p; q̈_I; 1] along the tail's tree paths.
 * 3. Tail independents (eqs. 82-99): their reduced equations Σ_k H_kᵀ W_k = τ_I + E_Iᵀ τ_D, an
 *    n_I × n_I system (the paper's M̂_M), give q̈_I = N [A_c; Â_p; 1]. Steps 3 and 4 read the
 *    tail's reduced inertia Q = Σ Φ_kᵀ IA_k Φ_k (one product per tail body).
 * 4. The tail's reduced wrench on p (eqs. 100-102) — weighted by Y_k = ∂A_k/∂Â_p, Ŵ = Σ Y_kᵀ W_k −
 *    E_pᵀ τ_D, for the head's equations — and its total wrench T = Σ W_k, both affine in
 *    (A_c, Â_p), go to p's head maps (below).
 * 5. Heads (eqs. 57-64, and §5 for coupled loops): every head body, from p down to c, holds maps
 *    affine in its own and its open bases' accelerations; its joint's equation Sᵀ Ĥ = τ gives its
 *    q̈, substituted into the maps passed to its parent; at c the loop closes, and T (as an
 *    articulated inertia and bias force, or into an outer loop's head) is c's like any child's.
 * The forward sweep runs it back: each head body's q̈ from its parent's and the open bases'
 * accelerations, then at p the group's q̈_I, q̈_D and its tail bodies.
 *
 * A group hung from another's tail at body b (rcr_internal.h; the paper's §5 with eq. 45) is
 * reduced like any group down to b, where its maps (Ĥ on b, Δ on its base) stay: b is a hub. The
 * outer tail's reduction (steps 3-4) takes them as terms "the wrench B A_2 on body 1" between its
 * bodies (c, p, tail bodies: A = A_c + Φ x) and its open inputs z (a hung base in its head short
 * of p: A = z), the columns x = [Â_p; q̈_I; z; 1]; its maps gain a block per open input, and a
 * map per open input (the wrench on that base) goes down the head like a Δ. */
#include "rcr_internal.h"

#include "loops_internal.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ small dense helpers */

/* C (r × c) += A (r × k) B (k × c), row-major with leading dimensions. */
static void gemm(int r, int c, int k, const double *A, int lda, const double *B, int ldb,
                 double *C, int ldc, double sign) {
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++) {
      double s = 0.0;
      for (int l = 0; l < k; l++) s += A[i * lda + l] * B[l * ldb + j];
      C[i * ldc + j] += sign * s;
    }
}

/* x (n) ← (L Lᵀ)⁻¹ x for every column of X (n × c, leading dimension ld). */
void mb_rcr_chol_solve_cols_(int n, const double *L, double *X, int c, int ld) {
  double t[64];
  for (int j = 0; j < c; j++) {
    for (int i = 0; i < n; i++) t[i] = X[i * ld + j];
    mbs_chol_solve(n, L, t);
    for (int i = 0; i < n; i++) X[i * ld + j] = t[i];
  }
}

/* ---------------------------------------------------------------------------- world quantities */

/* bias = 0: the bias terms (velocity products, gravity) zero, for the refinement pass. */
static void world_setup(const mb_model *m, mb_workspace *ws, mb_loop_workspace *lw, int bias) {
  double g0[6] = {0, 0, 0, -m->gravity[0], -m->gravity[1], -m->gravity[2]};
  if (!bias) g0[3] = g0[4] = g0[5] = 0.0;
  memcpy(lw->rab, g0, sizeof g0);
  memset(lw->rI, 0, 36 * sizeof(double));
  memset(lw->rp, 0, 6 * sizeof(double));
  for (int i = 1; i <= m->nb; i++) {
    const double *E = ws->X0E + 9 * i, *r = ws->X0r + 3 * i;
    double I6[36], f[6], t[6];
    mbs_I_mat(m->inertia + 10 * i, I6);
    mbs_mat6_to_parent(E, r, I6, lw->rI + 36 * i);
    if (bias) {
      mbs_Xinv_mv(E, r, lw->ba + 6 * i, lw->rab + 6 * i);
      for (int k = 0; k < 6; k++) lw->rab[6 * i + k] += g0[k];
      mbs_I_mv(m->inertia + 10 * i, lw->bv + 6 * i, t);
      mbs_crf(lw->bv + 6 * i, t, f);
      mbs_XT_fv(E, r, f, lw->rp + 6 * i);
    } else {
      memset(lw->rab + 6 * i, 0, 6 * sizeof(double));
      memset(lw->rp + 6 * i, 0, 6 * sizeof(double));
    }
    int n = mb_joint_nv(m->jtype[i]), o = m->iv[i];
    for (int c = 0; c < n; c++) mbs_Xinv_mv(E, r, ws->S + 6 * (o + c), lw->rS + 6 * (o + c));
  }
}

/* ------------------------------------------------------------------------------- free joints */


/* Factor the n × n matrix D (row-major) of the joint whose first dof is o into DFAC. */
int mb_rcr_factor_joint_(mb_loop_workspace *lw, int nv, int o, int n, const double *D) {
  double F[36];
  memcpy(F, D, sizeof(double) * (size_t)(n * n));
  if (mbs_chol(n, F)) return -1;
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) DFAC(lw, nv, o + a)[b] = F[a * n + b];
  return 0;
}

void mb_rcr_joint_factor_(const mb_loop_workspace *lw, int nv, int o, int n, double *F) {
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) F[a * n + b] = DFAC(lw, nv, o + a)[b];
}

/* The articulated-body step of free joint i into its parent. */
static int free_backward(const mb_model *m, mb_loop_workspace *lw, int i, const double *tau) {
  int n = mb_joint_nv(m->jtype[i]), o = m->iv[i], nv = m->nv, lam = m->parent[i];
  double *IA = lw->rI + 36 * i, *pA = lw->rp + 6 * i, c[6], pc[6], D[36], F[36], Ut[36];
  for (int k = 0; k < 6; k++) c[k] = lw->rab[6 * i + k] - lw->rab[6 * lam + k];
  memcpy(pc, pA, sizeof pc);
  gemm(6, 1, 6, IA, 6, c, 1, pc, 1, 1.0); /* pA + IA c */
  for (int a = 0; a < n; a++) {
    double *U = lw->rD + 6 * (o + a);
    const double *s = lw->rS + 6 * (o + a);
    for (int k = 0; k < 6; k++) U[k] = 0.0;
    gemm(6, 1, 6, IA, 6, s, 1, U, 1, 1.0);
    double u = tau[o + a];
    for (int k = 0; k < 6; k++) u -= s[k] * pc[k];
    lw->ru[o + a] = u;
  }
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += lw->rS[6 * (o + a) + k] * lw->rD[6 * (o + b) + k];
      D[a * n + b] = s + (a == b ? mb_armature(m, o + a) : 0.0); /* the rotor: D = Sᵀ U + a */
    }
  if (mb_rcr_factor_joint_(lw, nv, o, n, D)) return -1;
  mb_rcr_joint_factor_(lw, nv, o, n, F);
  /* Ut = D⁻¹ Uᵀ (n × 6), Dinv u */
  double du[6];
  for (int a = 0; a < n; a++) {
    du[a] = lw->ru[o + a];
    for (int k = 0; k < 6; k++) Ut[a * 6 + k] = lw->rD[6 * (o + a) + k];
  }
  mb_rcr_chol_solve_cols_(n, F, Ut, 6, 6);
  mbs_chol_solve(n, F, du);
  double *IP = lw->rI + 36 * lam, *pP = lw->rp + 6 * lam;
  for (int r = 0; r < 6; r++) {
    double s = pc[r];
    for (int a = 0; a < n; a++) s += lw->rD[6 * (o + a) + r] * du[a];
    pP[r] += s;
    for (int q = 0; q < 6; q++) {
      double t = IA[6 * r + q];
      for (int a = 0; a < n; a++) t -= lw->rD[6 * (o + a) + r] * Ut[a * 6 + q];
      IP[6 * r + q] += t;
    }
  }
  return 0;
}

static void free_forward(const mb_model *m, mb_loop_workspace *lw, int i, double *qdd) {
  int n = mb_joint_nv(m->jtype[i]), o = m->iv[i], lam = m->parent[i];
  double F[36], x[6], *A = lw->racc + 6 * i;
  const double *Al = lw->racc + 6 * lam;
  for (int a = 0; a < n; a++) {
    x[a] = lw->ru[o + a];
    for (int k = 0; k < 6; k++) x[a] -= lw->rD[6 * (o + a) + k] * Al[k];
  }
  mb_rcr_joint_factor_(lw, m->nv, o, n, F);
  mbs_chol_solve(n, F, x);
  for (int k = 0; k < 6; k++) A[k] = Al[k] + lw->rab[6 * i + k] - lw->rab[6 * lam + k];
  for (int a = 0; a < n; a++) {
    qdd[o + a] = x[a];
    for (int k = 0; k < 6; k++) A[k] += lw->rS[6 * (o + a) + k] * x[a];
  }
}

/* ------------------------------------------------------------------------------------ groups */


/* 1. E: the dependents' accelerations, affine in x = [Â_p; q̈_I; z; 1] (z: no part, the rows are
 * the group's); kb the rows' bias (K̇v). */
static void group_dependents(const mb_model *m, const mb_loops *L, mb_workspace *ws,
                             mb_loop_workspace *lw, const rcr_plan *P, int g, const double *kb) {
  int mg = P->row0[g + 1] - P->row0[g], nI = P->nI[g], W = RCR_W(P, g), nv = m->nv;
  int c = P->base[g], p = P->p[g];
  double *E = lw->rE + P->E0[g], *Rhs = lw->rPhi; /* rPhi is free until step 2 */
  const double *rho = lw->rR + (size_t)mg * (size_t)mg;
  for (int a = 0; a < mg; a++) {
    int r = P->row[P->row0[g] + a], l = L->row[r] / MB_LOOP_MAX_ROWS;
    double *h = Rhs + a * W;
    for (int k = 0; k < W; k++) h[k] = 0.0;
    for (int side = 0; side < 2 && p != c; side++) {
      int e = side ? L->loop[l].b : L->loop[l].a, x = e;
      while (x > p) x = m->parent[x];
      if (x != p || e == 0) continue; /* not beyond p */
      double gw[6];
      mbs_XT_fv(ws->X0E + 9 * e, ws->X0r + 3 * e, lw->g + 12 * r + 6 * side, gw);
      for (int k = 0; k < 6; k++) h[k] += gw[k];
    }
    for (int i = 0; i < nI; i++) h[6 + i] = lw->K[(size_t)r * (size_t)nv + (size_t)P->ind[P->ind0[g] + i]];
    h[W - 1] = kb[r];
  }
  for (int d = 0; d < mg; d++) {
    int col = P->dep[P->dep0[g] + d];
    double *e = E + d * W;
    for (int k = 0; k < W; k++) {
      double s = 0.0;
      for (int a = 0; a < mg; a++) s += rho[d * mg + a] * Rhs[a * W + k];
      e[k] = -s;
    }
    for (int a = 0; a < mg; a++) {
      double cd = lw->K[(size_t)P->row[P->row0[g] + a] * (size_t)nv + (size_t)col];
      for (int k = 0; k < W; k++) Rhs[a * W + k] += cd * e[k];
    }
  }
}

/* 2. Φ_k of every tail body: A_k = A_c + Φ_k x. */
static void group_tail_maps(const mb_model *m, mb_loop_workspace *lw, const rcr_plan *P, int g) {
  int W = RCR_W(P, g), c = P->base[g], p = P->p[g];
  const double *E = lw->rE + P->E0[g];
  for (int t = P->tail0[g]; t < P->tail0[g + 1]; t++) {
    int k = P->tail[t], pi = m->parent[k];
    double *F = lw->rPhi + (size_t)6 * (size_t)W * (size_t)k;
    if (P->role[pi] == 2 && P->grp[pi] == g) {
      memcpy(F, lw->rPhi + (size_t)6 * (size_t)W * (size_t)pi, sizeof(double) * 6 * (size_t)W);
    } else {
      for (int k2 = 0; k2 < 6 * W; k2++) F[k2] = 0.0;
      if (pi == p && p != c)
        for (int r = 0; r < 6; r++) F[r * W + r] = 1.0, F[r * W + W - 1] = lw->rab[6 * p + r] - lw->rab[6 * c + r];
    }
    for (int r = 0; r < 6; r++) F[r * W + W - 1] += lw->rab[6 * k + r] - lw->rab[6 * pi + r];
    for (int j = 0; j < mb_joint_nv(m->jtype[k]); j++) {
      int col = m->iv[k] + j;
      const double *s = lw->rS + 6 * col;
      if (P->indid[col] >= 0)
        for (int r = 0; r < 6; r++) F[r * W + 6 + P->indid[col]] += s[r];
      else
        for (int r = 0; r < 6; r++)
          for (int q = 0; q < W; q++) F[r * W + q] += s[r] * E[P->depid[col] * W + q];
    }
  }
}

/* Where group g's tail puts body y's acceleration, A_y = C A_c + Φ x: Φ into F (6 × W), C
 * returned (1; 0 for open input zk ≥ 0, whose Φ is the identity on its columns). −1 if y is none
 * of c, p, a tail body (the plan prevents it). */
static int tail_pos(const rcr_plan *P, const mb_loop_workspace *lw, int g, int y, int zk,
                    double *F) {
  int W = RCR_W(P, g), c = P->base[g], p = P->p[g];
  for (int k = 0; k < 6 * W; k++) F[k] = 0.0;
  if (zk >= 0) {
    for (int r = 0; r < 6; r++) F[r * W + 6 + P->nI[g] + 6 * zk + r] = 1.0;
    return 0;
  }
  if (y == c) return 1;
  if (y == p) {
    for (int r = 0; r < 6; r++) F[r * W + r] = 1.0, F[r * W + W - 1] = lw->rab[6 * p + r] - lw->rab[6 * c + r];
    return 1;
  }
  if (P->role[y] != 2 || P->grp[y] != g) return -1;
  memcpy(F, lw->rPhi + (size_t)6 * (size_t)W * (size_t)y, sizeof(double) * 6 * (size_t)W);
  return 1;
}

/* The tail's reduced inertia (in lw->rQ): Q = Σ Φ_1ᵀ B Φ_2 (the rows of x but its 1, upper
 * triangle, then mirrored), Ft = Σ B Φ_2 over the terms whose first body moves with c (C_1 = 1),
 * SI = Σ B over those whose both do, for every term "the wrench B A_2 (+ h) on body 1". */
typedef struct tail_sums {
  int n, W;
  double *Q, *Ft, *SI;
} tail_sums;

static void couple(const tail_sums *T, const double *F1, int C1, const double *B, int ldb,
                   const double *F2, int C2, const double *h) {
  int W = T->W;
  double BF[6 * (RCR_NWMAX + 64)];
  for (int r = 0; r < 6; r++)
    for (int q = 0; q < W; q++) {
      double x = 0.0;
      for (int k = 0; k < 6; k++) x += B[r * ldb + k] * F2[k * W + q];
      BF[r * W + q] = x + (h && q == W - 1 ? h[r] : 0.0);
    }
  for (int a = 0; a < T->n; a++)
    for (int c = a; c < W; c++) {
      double x = 0.0;
      for (int r = 0; r < 6; r++) x += F1[r * W + a] * BF[r * W + c];
      T->Q[a * W + c] += x;
    }
  if (C1)
    for (int k = 0; k < 6 * W; k++) T->Ft[k] += BF[k];
  if (C1 && C2)
    for (int r = 0; r < 6; r++)
      for (int q = 0; q < 6; q++) T->SI[6 * r + q] += B[r * ldb + q];
}

/* The maps of the groups that hang from tail body k (a hub: rcr_heads.c's layout): Ĥ_k on k and
 * Δ_o on the base of every group o open there, each affine in A_k and the open bases'. 0, or −1
 * when an open group is not hung from g. */
static int hub_terms(const rcr_plan *P, mb_loop_workspace *lw, int g, int k, const tail_sums *T) {
  int n = P->nopen[k];
  double F[1 + MB_RCR_MAX_OPEN][6 * (RCR_NWMAX + 64)];
  int C[1 + MB_RCR_MAX_OPEN];
  if ((C[0] = tail_pos(P, lw, g, k, -1, F[0])) < 0) return -1;
  for (int s = 1; s <= n; s++) {
    int o = P->open[MB_RCR_MAX_OPEN * k + s - 1], zk = -1;
    if (P->nest[o] != g) return -1;
    for (int j = 0; j < P->nz[g]; j++)
      if (P->zg[MB_RCR_MAX_OPEN * g + j] == o) zk = j;
    if ((C[s] = tail_pos(P, lw, g, P->base[o], zk, F[s])) < 0) return -1;
  }
  for (int s = 0; s <= n; s++) { /* map s: the wrench on handle s, block bl: from handle bl */
    const double *H = HMAP(lw, k, s);
    for (int bl = 0; bl <= n; bl++)
      couple(T, F[s], C[s], H + 36 * bl, 6, F[bl], C[bl], bl ? NULL : H + HBIAS);
  }
  return 0;
}

/* 3-4. The tail's reduced inertia: the tail bodies' own terms (IA_k, pA_k on k from k) and the
 * hubs'; the weighted wrenches are Σ Φᵀ W = Ftᵀ A_c + Q x. −1 as hub_terms. */
static int group_tail_inertia(const rcr_plan *P, mb_loop_workspace *lw, int g) {
  int W = RCR_W(P, g), n = W - 1;
  tail_sums T = {n, W, lw->rQ, lw->rQ + n * W, lw->rQ + (n + 6) * W};
  memset(T.Q, 0, sizeof(double) * (size_t)((n + 6) * W + 36));
  for (int t = P->tail0[g]; t < P->tail0[g + 1]; t++) {
    int k = P->tail[t];
    const double *F = lw->rPhi + (size_t)6 * (size_t)W * (size_t)k;
    couple(&T, F, 1, lw->rI + 36 * k, 6, F, 1, lw->rp + 6 * k);
    if (P->nopen[k] && hub_terms(P, lw, g, k, &T)) return -1;
  }
  for (int a = 0; a < n; a++)
    for (int c = 0; c < a; c++) T.Q[a * W + c] = T.Q[c * W + a];
  return 0;
}

/* The rotors of the group's coordinates (mb_model.armature): coordinate j's q̈_j = r_j · x (r_j
 * the unit row 6 + i of independent i, row d of E for dependent d) adds a_j r_jᵀ r_j to Q — its
 * rotor's inertial force a_j q̈_j, weighted by ∂q̈_j/∂x as the bodies' wrenches are (not with A_c:
 * q̈_j does not depend on it). */
static void group_tail_rotors(const mb_model *m, mb_loop_workspace *lw, const rcr_plan *P,
                              int g) {
  int nI = P->nI[g], W = RCR_W(P, g), n = W - 1, mg = P->row0[g + 1] - P->row0[g];
  const double *E = lw->rE + P->E0[g];
  double *Q = lw->rQ;
  for (int i = 0; i < nI; i++) Q[(6 + i) * W + 6 + i] += mb_armature(m, P->ind[P->ind0[g] + i]);
  for (int d = 0; d < mg; d++) {
    double a = mb_armature(m, P->dep[P->dep0[g] + d]);
    for (int r = 0; r < n && a != 0.0; r++)
      for (int c = 0; c < W; c++) Q[r * W + c] += a * E[d * W + r] * E[d * W + c];
  }
}

/* 3. The tail independents' system M̂_M = Q_II: N = −M̂_M⁻¹ [Ftᵀ | Q_Ip | Q_Iz | q_I − τ_I − E_Iᵀ τ_D]
 * into lw->rN (rows of RCR_NW); *lo becomes the smallest of its pivot ratios d_i / M̂_ii
 * (Cholesky: L_ii² / M̂_ii) and *lo's. */
static int group_tail_solve(mb_loop_workspace *lw, const rcr_plan *P, int g, const double *tau,
                            double *lo) {
  int nI = P->nI[g], W = RCR_W(P, g), n = W - 1, NW = RCR_NW(P, g), nz6 = 6 * P->nz[g];
  int mg = P->row0[g + 1] - P->row0[g];
  double *N = lw->rN + P->N0[g], *M = lw->rM + P->M0[g];
  const double *E = lw->rE + P->E0[g], *Q = lw->rQ, *Ft = Q + n * W;
  if (nI == 0) return 0;
  for (int i = 0; i < nI; i++) {
    const double *Qi = Q + (6 + i) * W;
    for (int j = 0; j < nI; j++) M[i * nI + j] = Qi[6 + j];
    for (int j = 0; j < 6; j++) N[i * NW + j] = Ft[j * W + 6 + i], N[i * NW + 6 + j] = Qi[j];
    for (int j = 0; j < nz6; j++) N[i * NW + 12 + j] = Qi[6 + nI + j];
    double s = Qi[W - 1] - tau[P->ind[P->ind0[g] + i]];
    for (int d = 0; d < mg; d++) s -= E[d * W + 6 + i] * tau[P->dep[P->dep0[g] + d]];
    N[i * NW + NW - 1] = s;
  }
  double diag[64];
  for (int i = 0; i < nI; i++) diag[i] = M[i * nI + i];
  if (mbs_chol(nI, M)) return -1;
  for (int i = 1; i < nI; i++) { /* i = 0: the ratio is 1 */
    double r = M[i * nI + i] * M[i * nI + i] / diag[i];
    if (r < *lo) *lo = r;
  }
  mb_rcr_chol_solve_cols_(nI, M, N, NW, NW);
  for (int k = 0; k < NW * nI; k++) N[k] = -N[k];
  return 0;
}

/* 4. The tail's wrench maps [Λ_c | Λ_p | Λ_z | w] (rows of RCR_NWMAX), q̈_I = N [...] substituted:
 * on p weighted by Y (WHAT: the Â_p rows of Q less E_pᵀ τ_D), on c the total (WTOT: Ft), and on
 * the base of every open input (WZ: its rows of Q). */
static void group_tail_wrench(mb_loop_workspace *lw, const rcr_plan *P, int g, const double *tau) {
  int nI = P->nI[g], W = RCR_W(P, g), n = W - 1, NW = RCR_NW(P, g), nz = P->nz[g];
  int mg = P->row0[g + 1] - P->row0[g];
  const double *N = lw->rN + P->N0[g], *E = lw->rE + P->E0[g], *Q = lw->rQ, *Ft = Q + n * W;
  const double *SI = Ft + 6 * W;
  for (int map = 0; map < 2 + nz; map++) {
    double *Wm = map == 0 ? WHAT(lw) : map == 1 ? WTOT(lw) : WZ(lw, map - 2);
    for (int r = 0; r < 6; r++) {
      /* the row of x the map is conjugate to (the total: Ft's rows) */
      const double *R = map == 1 ? NULL : Q + (map == 0 ? r : 6 + nI + 6 * (map - 2) + r) * W;
      double *w = Wm + r * RCR_NWMAX;
      for (int q = 0; q < 6; q++) w[q] = R ? Ft[q * W + (R - Q) / W] : SI[r * 6 + q];
      for (int q = 0; q < 6; q++) w[6 + q] = R ? R[q] : Ft[r * W + q];
      for (int q = 0; q < 6 * nz; q++) w[12 + q] = R ? R[6 + nI + q] : Ft[r * W + 6 + nI + q];
      w[NW - 1] = R ? R[W - 1] : Ft[r * W + W - 1];
      for (int i = 0; i < nI; i++) {
        double a = R ? R[6 + i] : Ft[r * W + 6 + i];
        for (int q = 0; q < NW; q++) w[q] += a * N[i * NW + q];
      }
    }
  }
  double *Wh = WHAT(lw);
  for (int d = 0; d < mg; d++)
    for (int r = 0; r < 6; r++) Wh[r * RCR_NWMAX + NW - 1] -= E[d * W + r] * tau[P->dep[P->dep0[g] + d]];
}

/* The forward sweep of group g's tail once A_c, A_p and the open inputs' bases are known. */
static void group_forward(const mb_model *m, mb_loop_workspace *lw, const rcr_plan *P, int g,
                          double *qdd) {
  int c = P->base[g], p = P->p[g], nI = P->nI[g], W = RCR_W(P, g), NW = RCR_NW(P, g);
  int mg = P->row0[g + 1] - P->row0[g];
  const double *Ac = lw->racc + 6 * c;
  double x[RCR_NWMAX + 64], in[RCR_NWMAX]; /* x = [Â_p; q̈_I; z; 1], in = [A_c; Â_p; z; 1] */
  for (int q = 0; q < 6; q++) /* Â_p: p's acceleration relative to c from the head's q̈ */
    in[q] = Ac[q], in[6 + q] = x[q] =
        p == c ? 0.0 : lw->racc[6 * p + q] - Ac[q] - lw->rab[6 * p + q] + lw->rab[6 * c + q];
  for (int k = 0; k < P->nz[g]; k++)
    for (int q = 0; q < 6; q++)
      in[12 + 6 * k + q] = x[6 + nI + 6 * k + q] =
          lw->racc[6 * P->base[P->zg[MB_RCR_MAX_OPEN * g + k]] + q];
  in[NW - 1] = x[W - 1] = 1.0;
  const double *N = lw->rN + P->N0[g];
  for (int i = 0; i < nI; i++) {
    double s = 0.0;
    for (int q = 0; q < NW; q++) s += N[i * NW + q] * in[q];
    x[6 + i] = s, qdd[P->ind[P->ind0[g] + i]] = s;
  }
  const double *E = lw->rE + P->E0[g];
  for (int d = 0; d < mg; d++) {
    double s = 0.0;
    for (int k = 0; k < W; k++) s += E[d * W + k] * x[k];
    qdd[P->dep[P->dep0[g] + d]] = s;
  }
  for (int t = P->tail0[g]; t < P->tail0[g + 1]; t++) { /* the tail bodies, in body order */
    int i = P->tail[t], lam = m->parent[i], n = mb_joint_nv(m->jtype[i]), o = m->iv[i];
    double *A = lw->racc + 6 * i;
    for (int q = 0; q < 6; q++) A[q] = lw->racc[6 * lam + q] + lw->rab[6 * i + q] - lw->rab[6 * lam + q];
    for (int a = 0; a < n; a++)
      for (int q = 0; q < 6; q++) A[q] += lw->rS[6 * (o + a) + q] * qdd[o + a];
  }
}

/* ----------------------------------------------------------------------------------- the API */

static int start(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 const double *q, const double *v, rcr_plan *P) {
  int rc = mb_loop_all_(m, L, ws, lw, q, v);
  if (rc) return rc;
  if (mb_flex_count(m, 0) > 0) return MB_EINVAL; /* flexible bodies: not supported */
  lw->singular = 0, ws->singular = 0;
  return mb_rcr_groups_(m, L, lw, P);
}

/* The selection among nsel (the rule of mb.h: the smallest ratio over every group), its plan
 * laid out in P; its index into *use. */
static int choose(const mb_model *m, const mb_loops *L, mb_loop_workspace *lw, rcr_plan *P,
                  int nsel, const int *dep, int *use) {
  int best = -1, rc, worst_row = 0;
  double bestr = -1.0;
  for (int s = 0; s < nsel; s++) {
    double r = INFINITY;
    if ((rc = mb_rcr_plan_(m, L, lw, P, dep + (size_t)s * (size_t)L->nc))) return rc;
    for (int g = 0; g < P->ng; g++) {
      double x = mb_rcr_project_(L, lw, P, g, NULL);
      if (x < r) r = x, worst_row = s == 0 ? P->row[P->row0[g]] : worst_row;
    }
    if (r >= MB_RCR_SWITCH) {
      best = s, bestr = r;
      break;
    }
    if (r > bestr) best = s, bestr = r;
  }
  if (!(bestr > MB_PIVOT_EPS)) return lw->singular = 1 + worst_row, MB_ENUMERIC;
  *use = best;
  return mb_rcr_plan_(m, L, lw, P, dep + (size_t)best * (size_t)L->nc);
}

/* Backward: at each body, the tails of the groups whose p it is, then its head joint (or the
 * articulated-body step of a free joint). lo[0], lo[1]: the tails' and the heads' smallest pivot
 * ratios. */
static int backward(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                    rcr_plan *P, const double *tau, const double *kb, double *lo) {
  for (int i = 0; i <= m->nb; i++)
    if (P->nopen[i]) mb_rcr_head_clear_(lw, i);
  for (int i = m->nb; i >= 0; i--) {
    for (int g = 0; g < P->ng; g++) {
      if (P->p[g] != i) continue;
      mb_rcr_project_(L, lw, P, g, NULL);
      group_dependents(m, L, ws, lw, P, g, kb);
      if (P->nI[g] > 64) return lw->singular = 1 + P->row[P->row0[g]], -1; /* bounded here */
      group_tail_maps(m, lw, P, g);
      if (group_tail_inertia(P, lw, g)) return lw->singular = 1 + P->row[P->row0[g]], -1;
      group_tail_rotors(m, lw, P, g);
      if (group_tail_solve(lw, P, g, tau, lo)) return lw->singular = 1 + P->row[P->row0[g]], -1;
      group_tail_wrench(lw, P, g, tau);
      mb_rcr_tail_to_head_(lw, P, g);
    }
    if (i > 0 && P->role[i] == 1 && mb_rcr_head_body_(m, lw, P, i, tau, lo + 1))
      return ws->singular = i, -1;
    if (i > 0 && P->role[i] == 0 && free_backward(m, lw, i, tau)) return ws->singular = i, -1;
  }
  return 0;
}

/* One solve with the plan P: τ, the rows' bias kb and the bias terms (bias = 0: none); lo[0],
 * lo[1] the tails' and the heads' smallest pivot ratios. */
static int solve(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                 rcr_plan *P, const double *tau, const double *kb, int bias, double *qdd,
                 double *lo) {
  world_setup(m, ws, lw, bias);
  if (backward(m, L, ws, lw, P, tau, kb, lo)) return MB_ENUMERIC;
  memcpy(lw->racc, lw->rab, 6 * sizeof(double));
  for (int i = 0; i <= m->nb; i++) {
    if (i > 0 && P->role[i] == 0) free_forward(m, lw, i, qdd);
    if (i > 0 && P->role[i] == 1) mb_rcr_head_forward_(m, lw, P, i, qdd);
    for (int g = 0; g < P->ng; g++)
      if (P->p[g] == i) group_forward(m, lw, P, g, qdd);
  }
  return MB_OK;
}

/* One step of iterative refinement (mb.h, MB_RCR_REFINE): the residuals r = τ − (M q̈ + h) of
 * inverse dynamics and c = K q̈ + K̇v go through the same reduction without bias terms (velocity
 * products, gravity), and q̈ += δ. The reduction's error is ε times the condition of a tail's
 * reduced mass matrix; the residuals are those of the well-conditioned constrained system. */
static int refine(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                  rcr_plan *P, const double *q, const double *v, const double *tau, double *qdd) {
  double *r = lw->dq, *c = lw->lam, *d = lw->Y, lo[2] = {1.0, 1.0}; /* scratch mb_rcr leaves */
  int nv = m->nv, rc;
  if ((rc = mb_rnea(m, ws, q, v, qdd, NULL, r))) return rc;
  for (int k = 0; k < nv; k++) r[k] = tau[k] - r[k];
  for (int row = 0; row < L->nc; row++) {
    double s = lw->kb[row];
    for (int k = 0; k < nv; k++) s += lw->K[(size_t)row * (size_t)nv + (size_t)k] * qdd[k];
    c[row] = s;
  }
  if ((rc = solve(m, L, ws, lw, P, r, c, 0, d, lo))) return rc;
  for (int k = 0; k < nv; k++) qdd[k] += d[k];
  return MB_OK;
}

int mb_rcr(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
           int nsel, const int *dep, const double *q, const double *v, const double *tau,
           double *qdd, int *used) {
  rcr_plan P;
  int rc = start(m, L, ws, lw, q, v, &P), use = -1;
  double lo[2] = {1.0, 1.0};
  if (rc) return rc;
  if (!v || !tau || !qdd || !dep || nsel < 1) return MB_EINVAL;
  for (int s = 0; s < nsel; s++) /* every selection valid, whichever is used */
    if ((rc = mb_rcr_plan_(m, L, lw, &P, dep + (size_t)s * (size_t)L->nc))) return rc;
  if ((rc = choose(m, L, lw, &P, nsel, dep, &use))) return rc;
  if ((rc = solve(m, L, ws, lw, &P, tau, lw->kb, 1, qdd, lo))) return rc;
  int hung = 0; /* a group hung from another's tail: always refined (rcr_internal.h) */
  for (int g = 0; g < P.ng; g++) hung |= P.nest[g] >= 0;
  if ((hung || !(lo[0] >= MB_RCR_REFINE) || !(lo[1] >= MB_RCR_REFINE_HEAD)) &&
      (rc = refine(m, L, ws, lw, &P, q, v, tau, qdd)))
    return rc;
  if (used) *used = use;
  return mbs_finite(qdd, (size_t)m->nv) ? MB_OK : MB_ENUMERIC;
}

int mb_rcr_select(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                  const double *q, int from_start, const int *keep, int *dep) {
  rcr_plan P;
  int rc = start(m, L, ws, lw, q, NULL, &P), nv;
  if (rc) return rc;
  if (!dep) return MB_EINVAL;
  nv = m->nv;
  for (int g = 0; g < P.ng; g++) {
    int mg = P.row0[g + 1] - P.row0[g], n = 0, taken = 0, *cols = P.ind;
    double *R = lw->rR, *w = R + (size_t)mg * (size_t)mg, *cv = w + mg;
    for (int i = 1; i <= m->nb; i++) /* the group's columns (ascending), then in chain order */
      for (int j = 0; P.grp[i] == g && j < mb_joint_nv(m->jtype[i]); j++)
        if (P.chain[m->iv[i] + j] >= 0) cols[n++] = m->iv[i] + j;
    for (int a = 1; a < n; a++)
      for (int b = a; b > 0 && P.chain[cols[b]] < P.chain[cols[b - 1]]; b--) {
        int t = cols[b];
        cols[b] = cols[b - 1], cols[b - 1] = t;
      }
    for (int a = 0; a < mg; a++)
      for (int b = 0; b < mg; b++) R[a * mg + b] = a == b;
    double scale = 0.0; /* Σ |c|² over the group's columns: a column of rounding noise is zero */
    for (int t = 0; t < n; t++)
      for (int a = 0; a < mg; a++) {
        double x = lw->K[(size_t)P.row[P.row0[g] + a] * (size_t)nv + (size_t)cols[t]];
        scale += x * x;
      }
    for (int t = 0; t < n && taken < mg; t++) {
      int col = cols[from_start ? t : n - 1 - t];
      double cc = MB_RCR_ZERO * scale, piv = 0.0;
      if (keep && keep[col]) continue;
      for (int a = 0; a < mg; a++) {
        cv[a] = lw->K[(size_t)P.row[P.row0[g] + a] * (size_t)nv + (size_t)col];
        cc += cv[a] * cv[a];
      }
      for (int a = 0; a < mg; a++) {
        double s = 0.0;
        for (int b = 0; b < mg; b++) s += R[a * mg + b] * cv[b];
        w[a] = s, piv += cv[a] * s;
      }
      if (!(cc > 0.0 && piv >= MB_RCR_SWITCH * cc)) continue;
      for (int a = 0; a < mg; a++)
        for (int b = 0; b < mg; b++) R[a * mg + b] -= w[a] * w[b] / piv;
      dep[P.row0[g] + taken++] = col;
    }
    if (taken < mg) return lw->singular = 1 + P.row[P.row0[g]], MB_ENUMERIC;
  }
  return MB_OK;
}

int mb_rcr_pivots(const mb_model *m, const mb_loops *L, mb_workspace *ws, mb_loop_workspace *lw,
                  const double *q, const int *dep, double *ratio, double *min) {
  rcr_plan P;
  int rc = start(m, L, ws, lw, q, NULL, &P);
  double lo = INFINITY, r[64];
  if (rc) return rc;
  if (!dep || !ratio) return MB_EINVAL;
  if ((rc = mb_rcr_plan_(m, L, lw, &P, dep))) return rc;
  for (int g = 0; g < P.ng; g++) {
    int mg = P.row0[g + 1] - P.row0[g];
    double *rr = mg <= 64 ? r : lw->rE; /* rE is free here */
    mb_rcr_project_(L, lw, &P, g, rr);
    for (int d = 0; d < mg; d++)
      for (int k = 0; k < L->nc; k++)
        if (dep[k] == P.dep[P.dep0[g] + d]) ratio[k] = rr[d];
  }
  for (int k = 0; k < L->nc; k++) lo = ratio[k] < lo ? ratio[k] : lo;
  if (min) *min = lo;
  return mbs_finite(ratio, (size_t)L->nc) ? MB_OK : MB_ENUMERIC;
}
