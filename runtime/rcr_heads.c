/* rcr_heads.c — the heads of recursive coordinate reduction (rcr.c; Critchley & Anderson 2003,
 * eqs. 57-64 and §5 for coupled loops; docs/loops.md "Coupled loops"). */
#include "rcr_internal.h"

#include <string.h>

/* The head's maps (Critchley & Anderson's §5 in world coordinates): a head body i holds the
 * weighted wrench map Ĥ of everything beyond its joint (s = 0) and, per group g open at i (its
 * head holds i), Δ_g = T_g − Ŵ_g, the total wrench of g's tail less its weighted one (s = 1..).
 * Every map is affine in the absolute accelerations of i (block 0) and of the open groups' bases
 * (blocks 1..): Ĥ = X_0 A_i + Σ_g X_g A_{c_g} + x. Joint i's equation is Sᵀ Ĥ + a q̈ = τ (a: its
 * rotors, mb_model.armature). */

/* 1 + the position of group g among body i's open groups; 0 if not open there. */
static int slot(const rcr_plan *P, int i, int g) {
  for (int k = 0; k < P->nopen[i]; k++)
    if (P->open[MB_RCR_MAX_OPEN * i + k] == g) return 1 + k;
  return 0;
}

/* Add sign · M (6 × 6, leading dimension ld; may be NULL) and sign · x (may be NULL) into body
 * i's map of group gm (−1: Ĥ), as the block of the base of group gb (−1: i's own acceleration).
 * A group not open at i closes there (its base is i): its block is i's own, its Δ joins Ĥ. A body
 * that is no head keeps Ĥ as its articulated inertia and bias force (symmetrized). */
static void add_to(mb_loop_workspace *lw, const rcr_plan *P, int i, int gm, int gb,
                   const double *M, int ld, const double *x, double sign) {
  int sm = gm < 0 ? 0 : slot(P, i, gm), sb = gb < 0 ? 0 : slot(P, i, gb);
  if (P->nopen[i] == 0) {
    double *I = lw->rI + 36 * (size_t)i, *p = lw->rp + 6 * (size_t)i;
    for (int r = 0; M && r < 6; r++)
      for (int q = 0; q < 6; q++) I[6 * r + q] += sign * 0.5 * (M[r * ld + q] + M[q * ld + r]);
    for (int r = 0; x && r < 6; r++) p[r] += sign * x[r];
    return;
  }
  double *H = HMAP(lw, i, sm), *B = H + 36 * sb;
  for (int r = 0; M && r < 6; r++)
    for (int q = 0; q < 6; q++) B[6 * r + q] += sign * M[r * ld + q];
  for (int r = 0; x && r < 6; r++) H[HBIAS + r] += sign * x[r];
}

/* The tail's maps of group g at p (WHAT, WTOT, WZ: [Λ_c | Λ_p | Λ_z | w] with Â_p = A_p − A_c −
 * (a_b,p − a_b,c)) into p's head maps, in absolute accelerations: Ŵ into Ĥ, T − Ŵ into Δ_g, and
 * the map of every open input (a group hung from the tail, based in the head) into its Δ. */
void mb_rcr_tail_to_head_(mb_loop_workspace *lw, const rcr_plan *P, int g) {
  int c = P->base[g], p = P->p[g], NW = RCR_NW(P, g), nz = P->nz[g], ld = RCR_NWMAX;
  double b[6], x[2 + MB_RCR_MAX_OPEN][6];
  const double *Wm[2 + MB_RCR_MAX_OPEN];
  for (int r = 0; r < 6; r++) b[r] = lw->rab[6 * p + r] - lw->rab[6 * c + r];
  for (int k = 0; k < 2 + nz; k++) { /* the biases: w − Λ_p b */
    Wm[k] = k == 0 ? WHAT(lw) : k == 1 ? WTOT(lw) : WZ(lw, k - 2);
    for (int r = 0; r < 6; r++) {
      x[k][r] = Wm[k][r * ld + NW - 1];
      for (int q = 0; q < 6; q++) x[k][r] -= Wm[k][r * ld + 6 + q] * b[q];
    }
  }
  /* W = (Λ_c − Λ_p) A_c + Λ_p A_p + Σ Λ_z A_{c_z} + x: Ĥ += Ŵ, Δ_g += T − Ŵ, Δ_z += Z */
  struct { int k, gm; double sign; } parts[3 + MB_RCR_MAX_OPEN] = {{0, -1, 1.0}, {1, g, 1.0}, {0, g, -1.0}};
  for (int k = 0; k < nz; k++) parts[3 + k].k = 2 + k, parts[3 + k].gm = P->zg[MB_RCR_MAX_OPEN * g + k], parts[3 + k].sign = 1.0;
  double *C = lw->rC + 36 * (size_t)p; /* the pivot reference: C += Λ_p (symmetrized) */
  for (int r = 0; slot(P, p, g) && r < 6; r++)
    for (int q = 0; q < 6; q++) C[6 * r + q] += 0.5 * (Wm[0][r * ld + 6 + q] + Wm[0][q * ld + 6 + r]);
  for (int j = 0; j < 3 + nz; j++) {
    const double *M = Wm[parts[j].k];
    int gm = parts[j].gm;
    double sg = parts[j].sign;
    add_to(lw, P, p, gm, g, M, ld, NULL, sg);
    add_to(lw, P, p, gm, g, M + 6, ld, NULL, -sg);
    add_to(lw, P, p, gm, -1, M + 6, ld, x[parts[j].k], sg);
    for (int k = 0; k < nz; k++)
      add_to(lw, P, p, gm, P->zg[MB_RCR_MAX_OPEN * g + k], M + 12 + 6 * k, ld, NULL, sg);
  }
}

/* The pivot ratios of head body i's joint (mb.h, MB_RCR_REFINE_HEAD; F its factor, D its
 * matrix, S its columns), the smallest into *lo; C (body i's own inertia added) goes on to a
 * parent that is a head body too. */
static void head_ratios(const mb_model *m, mb_loop_workspace *lw, const rcr_plan *P, int i,
                        const double *S, const double *D, const double *F, double *lo) {
  int n = mb_joint_nv(m->jtype[i]), lam = m->parent[i];
  double *C = lw->rC + 36 * (size_t)i;
  const double *Ii = lw->rI + 36 * (size_t)i;
  for (int k = 0; k < 36; k++) C[k] += Ii[k];
  for (int a = P->hkid[i] ? 0 : 1; a < n; a++) { /* no head child: the first ratio is 1 */
    double ref = D[a * n + a];
    if (P->hkid[i]) {
      ref = mb_armature(m, m->iv[i] + a); /* the rotor, as in D */
      for (int r = 0; r < 6; r++)
        for (int q = 0; q < 6; q++) ref += S[6 * a + r] * C[6 * r + q] * S[6 * a + q];
    }
    double ratio = F[a * n + a] * F[a * n + a] / ref;
    if (!(ratio >= *lo)) *lo = ratio;
  }
  if (P->nopen[lam])
    for (int k = 0; k < 36; k++) lw->rC[36 * (size_t)lam + (size_t)k] += C[k];
}

/* Head body i: its joint's equation Sᵀ Ĥ = τ solved for q̈ in terms of the parent's and the open
 * bases' accelerations (kept for the forward sweep), substituted into every map, which then goes
 * to the parent. *lo: the smallest of its pivot ratios and *lo's. */
int mb_rcr_head_body_(const mb_model *m, mb_loop_workspace *lw, const rcr_plan *P, int i,
                      const double *tau, double *lo) {
  int n = mb_joint_nv(m->jtype[i]), o = m->iv[i], nv = m->nv, lam = m->parent[i];
  int k = P->nopen[i];
  const double *S = lw->rS + 6 * o;
  double beta[6], D[36], F[36], u[6], K[36], *H = HMAP(lw, i, 0);
  add_to(lw, P, i, -1, -1, lw->rI + 36 * i, 6, lw->rp + 6 * i, 1.0);
  for (int r = 0; r < 6; r++) beta[r] = lw->rab[6 * i + r] - lw->rab[6 * lam + r];
  for (int a = 0; a < n; a++) { /* SL_b = Sᵀ Ĥ_b, u = τ − Sᵀ (Ĥ_0 β + ĥ) */
    const double *s = S + 6 * a;
    for (int bl = 0; bl <= k; bl++) {
      double *sl = SL(lw, nv, bl, o + a);
      for (int q = 0; q < 6; q++) {
        double x = 0.0;
        for (int r = 0; r < 6; r++) x += s[r] * H[36 * bl + 6 * r + q];
        sl[q] = x;
      }
    }
    u[a] = tau[o + a];
    for (int r = 0; r < 6; r++) {
      double hb = H[HBIAS + r];
      for (int q = 0; q < 6; q++) hb += H[6 * r + q] * beta[q];
      u[a] -= s[r] * hb;
    }
    lw->ru[o + a] = u[a];
  }
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      double x = 0.0;
      for (int q = 0; q < 6; q++) x += SL(lw, nv, 0, o + a)[q] * S[6 * b + q];
      D[a * n + b] = x + (a == b ? mb_armature(m, o + a) : 0.0); /* Sᵀ Ĥ + a q̈ = τ */
    }
  if (mb_rcr_factor_joint_(lw, nv, o, n, D)) return -1;
  mb_rcr_joint_factor_(lw, nv, o, n, F);
  head_ratios(m, lw, P, i, S, D, F, lo);
  for (int sm = 0; sm <= k; sm++) { /* every map: K = M_0 S D⁻¹, M_b −= K SL_b, m += M_0 β + K u */
    double *Mp = HMAP(lw, i, sm), nb[6];
    for (int a = 0; a < n; a++)
      for (int r = 0; r < 6; r++) {
        double x = 0.0;
        for (int q = 0; q < 6; q++) x += Mp[6 * r + q] * S[6 * a + q];
        K[a * 6 + r] = x;
      }
    mb_rcr_chol_solve_cols_(n, F, K, 6, 6);
    for (int r = 0; r < 6; r++) {
      nb[r] = 0.0;
      for (int q = 0; q < 6; q++) nb[r] += Mp[6 * r + q] * beta[q];
      for (int a = 0; a < n; a++) nb[r] += K[a * 6 + r] * u[a];
    }
    for (int bl = 0; bl <= k; bl++)
      for (int r = 0; r < 6; r++)
        for (int a = 0; a < n; a++) {
          const double *sl = SL(lw, nv, bl, o + a);
          for (int q = 0; q < 6; q++) Mp[36 * bl + 6 * r + q] -= K[a * 6 + r] * sl[q];
        }
    for (int r = 0; r < 6; r++) Mp[HBIAS + r] += nb[r];
    /* into the parent: the same map (Ĥ or Δ of the same group), block by block */
    int gm = sm ? P->open[MB_RCR_MAX_OPEN * i + sm - 1] : -1;
    add_to(lw, P, lam, gm, -1, Mp, 6, Mp + HBIAS, 1.0);
    for (int bl = 1; bl <= k; bl++)
      add_to(lw, P, lam, gm, P->open[MB_RCR_MAX_OPEN * i + bl - 1], Mp + 36 * bl, 6, NULL, 1.0);
  }
  return 0;
}

/* Forward: head body i's q̈ and absolute acceleration. */
void mb_rcr_head_forward_(const mb_model *m, mb_loop_workspace *lw, const rcr_plan *P, int i,
                          double *qdd) {
  int n = mb_joint_nv(m->jtype[i]), o = m->iv[i], nv = m->nv, lam = m->parent[i];
  double F[36], y[6], *A = lw->racc + 6 * i;
  const double *Al = lw->racc + 6 * lam;
  for (int a = 0; a < n; a++) {
    y[a] = lw->ru[o + a];
    for (int q = 0; q < 6; q++) y[a] -= SL(lw, nv, 0, o + a)[q] * Al[q];
    for (int bl = 1; bl <= P->nopen[i]; bl++) {
      const double *Ac = lw->racc + 6 * P->base[P->open[MB_RCR_MAX_OPEN * i + bl - 1]];
      for (int q = 0; q < 6; q++) y[a] -= SL(lw, nv, bl, o + a)[q] * Ac[q];
    }
  }
  mb_rcr_joint_factor_(lw, nv, o, n, F);
  mbs_chol_solve(n, F, y);
  for (int q = 0; q < 6; q++) A[q] = Al[q] + lw->rab[6 * i + q] - lw->rab[6 * lam + q];
  for (int a = 0; a < n; a++) {
    qdd[o + a] = y[a];
    for (int q = 0; q < 6; q++) A[q] += lw->rS[6 * (o + a) + q] * y[a];
  }
}

void mb_rcr_head_clear_(mb_loop_workspace *lw, int i) {
  memset(HMAP(lw, i, 0), 0, sizeof(double) * MB_RCR_HBODY);
  memset(lw->rC + 36 * (size_t)i, 0, sizeof(double) * 36);
}
