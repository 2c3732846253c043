/* rcr_plan.c — the plan of recursive coordinate reduction (rcr_internal.h): the groups of coupled
 * loops, their chains, the choice of dependent coordinates and the head/tail split; and the
 * selection helpers mb_rcr_select and mb_rcr_pivots (mb.h). */
#include "rcr_internal.h"

#include "loops_internal.h"

#include <math.h>
#include <string.h>

static int lca(const mb_model *m, int a, int b) {
  while (a != b) {
    if (a > b)
      a = m->parent[a];
    else
      b = m->parent[b];
  }
  return a;
}

static int ufind(int *uf, int x) {
  while (uf[x] != x) x = uf[x] = uf[uf[x]];
  return x;
}

static void layout(const mb_model *m, const mb_loops *L, mb_loop_workspace *lw, rcr_plan *P) {
  int *s = (int *)(void *)lw->rplan, nb1 = m->nb + 1, nv = m->nv, nl = L->nloops, nc = L->nc;
#define TAKE(f, n) (P->f = s, s += (n))
  TAKE(grp, nb1), TAKE(role, nb1), TAKE(depid, nv), TAKE(indid, nv), TAKE(chain, nv);
  TAKE(base, nl + 1), TAKE(p, nl + 1), TAKE(nI, nl + 1);
  TAKE(row0, nl + 1), TAKE(row, nc), TAKE(dep0, nl + 1), TAKE(dep, nc), TAKE(ind0, nl + 1);
  /* heads overlap (coupled loops): every body in up to MB_RCR_MAX_OPEN of them */
  TAKE(ind, nv), TAKE(head0, nl + 1), TAKE(head, nb1 * MB_RCR_MAX_OPEN), TAKE(tail0, nl + 1);
  TAKE(tail, nb1);
  TAKE(E0, nl + 1), TAKE(N0, nl + 1), TAKE(M0, nl + 1), TAKE(loopgrp, nl + 1), TAKE(lca, nl + 1);
  TAKE(tmp, nb1), TAKE(nopen, nb1), TAKE(open, nb1 * MB_RCR_MAX_OPEN), TAKE(first, nb1);
  TAKE(bad, nb1), TAKE(mark, nb1), TAKE(uf, nl + 1), TAKE(hkid, nb1);
  TAKE(second, nb1), TAKE(hd, nb1), TAKE(mark2, nb1), TAKE(nest, nl + 1), TAKE(att, nl + 1);
  TAKE(nz, nl + 1), TAKE(zg, (nl + 1) * MB_RCR_MAX_OPEN);
#undef TAKE
}

/* Chain positions of loop l's columns not yet placed: out along a's path, back along b's. */
static void chain_loop(const mb_model *m, const mb_loop *lp, int c, rcr_plan *P, int *pos) {
  int n = 0, *t = P->tmp;
  for (int x = lp->a; x != c; x = m->parent[x]) t[n++] = x;
  for (int k = n - 1; k >= -1; k--) {
    if (k < 0) { /* then b's side, from b inward */
      for (int x = lp->b; x != c; x = m->parent[x]) {
        int o = m->iv[x], nj = mb_joint_nv(m->jtype[x]);
        for (int j = 0; j < nj; j++)
          if (P->chain[o + j] < 0) P->chain[o + j] = (*pos)++;
      }
      break;
    }
    int o = m->iv[t[k]], nj = mb_joint_nv(m->jtype[t[k]]);
    for (int j = 0; j < nj; j++)
      if (P->chain[o + j] < 0) P->chain[o + j] = (*pos)++;
  }
}

/* The groups of the union-find P->uf: numbered in order of their first loop (loopgrp), their
 * rows and bases; then their joints (grp: the last group marking a joint; a hung group's shared
 * path stays its outer group's) and chain orders, the groups that hang from none first (P->nest,
 * which the grouping resets before it joins groups). */
static void mark_into(const mb_model *m, const mb_loops *L, const rcr_plan *P, int g, int *mark);
static void build_groups(const mb_model *m, const mb_loops *L, rcr_plan *P) {
  int nl = L->nloops, ng = 0, nr = 0, pos;
  for (int l = 0; l < nl; l++)
    if (P->loopgrp[l] >= 0 && ufind(P->uf, l) == l) P->p[l] = ng++; /* p reused: root → id */
  for (int l = 0; l < nl; l++)
    if (P->loopgrp[l] >= 0) P->loopgrp[l] = P->p[ufind(P->uf, l)];
  P->ng = ng;
  for (int i = 0; i <= m->nb; i++) P->grp[i] = -1;
  for (int k = 0; k < m->nv; k++) P->chain[k] = -1;
  for (int g = 0; g < ng; g++) {
    P->row0[g] = P->dep0[g] = nr;
    for (int r = 0; r < L->nc; r++)
      if (P->loopgrp[L->row[r] / MB_LOOP_MAX_ROWS] == g) P->row[nr++] = r;
    int c = -1;
    for (int l = 0; l < nl; l++)
      if (P->loopgrp[l] == g) c = c < 0 ? P->lca[l] : lca(m, c, P->lca[l]);
    P->base[g] = c;
  }
  P->row0[ng] = P->dep0[ng] = nr;
  for (int hung = 0; hung < 2; hung++)
    for (int g = 0; g < ng; g++) {
      if ((P->nest[g] >= 0) != hung) continue;
      mark_into(m, L, P, g, P->grp);
      pos = 0;
      for (int l = 0; l < nl; l++)
        if (P->loopgrp[l] == g) chain_loop(m, &L->loop[l], P->lca[l], P, &pos);
    }
}

/* Is body x's joint on the path from hung group g's base out to its b (its outer group's)? */
static int on_shared(const mb_model *m, const rcr_plan *P, int g, int x) {
  for (int y = P->att[g]; y != P->base[g] && y > 0; y = m->parent[y])
    if (y == x) return 1;
  return 0;
}

/* Mark the joints of group g with g in mark: its loops' paths, less the path from its base out
 * to its body b when it hangs from another group (those joints are the other's). */
static void mark_into(const mb_model *m, const mb_loops *L, const rcr_plan *P, int g, int *mark) {
  for (int l = 0; l < L->nloops; l++) {
    if (P->loopgrp[l] != g) continue;
    const mb_loop *lp = &L->loop[l];
    for (int side = 0; side < 2; side++)
      for (int x = side ? lp->b : lp->a; x != P->lca[l]; x = m->parent[x])
        if (P->nest[g] < 0 || !on_shared(m, P, g, x)) mark[x] = g;
  }
}

static void mark_group(const mb_model *m, const mb_loops *L, rcr_plan *P, int g) {
  mark_into(m, L, P, g, P->mark);
}

/* Is x (≠ c) body a or b of a loop of group g? */
static int is_end(const mb_loops *L, const rcr_plan *P, int g, int x) {
  for (int l = 0; l < L->nloops; l++)
    if (P->loopgrp[l] == g && (L->loop[l].a == x || L->loop[l].b == x)) return 1;
  return 0;
}

/* The body group g's head starts from: its base, or its body b when it hangs from a group. */
static int head_start(const rcr_plan *P, int g) { return P->nest[g] >= 0 ? P->att[g] : P->base[g]; }

/* The head of group g (its joints marked in P->mark): from its start, while the current body has
 * exactly one joint of g among its children, (but for a plain group's start) is not body a or b
 * of a loop of g, and that joint has no dependent column (isdep[col] ≥ 0). Bodies into out;
 * their count. */
static int head_walk(const mb_model *m, const mb_loops *L, const rcr_plan *P, int g,
                     const int *isdep, int *out) {
  int h = head_start(P, g), n = 0;
  for (;;) {
    int next = -1, count = 0;
    if ((h != head_start(P, g) || P->nest[g] >= 0) && is_end(L, P, g, h)) break;
    for (int i = h + 1; i <= m->nb; i++)
      if (m->parent[i] == h && P->mark[i] == g) next = i, count++;
    if (count != 1) break;
    for (int j = 0; j < mb_joint_nv(m->jtype[next]); j++)
      if (isdep[m->iv[next] + j] >= 0) count = 0;
    if (!count) break;
    out[n++] = h = next;
  }
  return n;
}

/* ------------------------------------------------------------------------------ the grouping */

static int rep_loop(const mb_loops *L, const rcr_plan *P, int g) {
  for (int l = 0; l < L->nloops; l++)
    if (P->loopgrp[l] == g) return l;
  return 0;
}

/* Groups g and h become one (in the union-find; build_groups renumbers). Returns 1. */
static int join(const mb_loops *L, rcr_plan *P, int g, int h) {
  int a = ufind(P->uf, rep_loop(L, P, g)), b = ufind(P->uf, rep_loop(L, P, h));
  if (a != b) P->uf[a] = b;
  for (int k = 0; k < P->ng; k++) P->nest[k] = P->att[k] = -1;
  return 1;
}

/* Every group plain (none hung): on every joint, how many groups hold it (P->bad), in how many
 * heads (P->hd; a head joint has no dependent column), and the first two (P->first, second). */
static void joint_groups(const mb_model *m, const mb_loops *L, rcr_plan *P, const int *isdep) {
  int nb = m->nb, *hb = P->head; /* head is free until the split */
  for (int i = 0; i <= nb; i++)
    P->first[i] = P->second[i] = -1, P->bad[i] = P->hd[i] = 0, P->mark[i] = -1;
  for (int g = 0; g < P->ng; g++) {
    mark_group(m, L, P, g);
    int n = head_walk(m, L, P, g, isdep, hb);
    for (int k = 0; k < n; k++) P->mark[hb[k]] = -2 - g; /* in g's head */
    for (int i = 1; i <= nb; i++) {
      if (P->mark[i] != g && P->mark[i] != -2 - g) continue;
      P->hd[i] += P->mark[i] == -2 - g, P->bad[i]++;
      if (P->first[i] < 0)
        P->first[i] = g;
      else if (P->second[i] < 0)
        P->second[i] = g;
      P->mark[i] = -1;
    }
  }
}

/* Can group h hang from group g (rcr_internal.h), and is it worth it? The joints they share
 * must be the path from h's base c out to a body b of g's tail with no end of h's loops strictly
 * inside it, every dependent column of h beyond it, as many as h's rows (and g's as many as g's
 * rows); g hangs from none and h holds none. Hanging pays only when it takes columns out of the
 * dense system the joined group would solve: when c is in g's head short of its p (g's head
 * beyond c would join the tail) or h has a head of its own beyond b; otherwise joined is as
 * cheap and needs no refinement. If so nest[h] = g, att[h] = b. */
static int try_nest(const mb_model *m, const mb_loops *L, rcr_plan *P, int g, int h,
                    const int *isdep) {
  int nb = m->nb, c = P->base[h], *mg = P->mark, *mh = P->mark2, shared = 0, n = 0, x = c;
  if (P->nest[h] >= 0 || P->nest[g] >= 0) return 0;
  for (int k = 0; k < P->ng; k++)
    if (P->nest[k] == h) return 0;
  for (int i = 0; i <= nb; i++) mg[i] = mh[i] = -1;
  mark_into(m, L, P, g, mg), mark_into(m, L, P, h, mh);
  for (int i = 1; i <= nb; i++) shared += mg[i] == g && mh[i] == h;
  for (;;) { /* the shared path from c out */
    int next = -1, count = 0;
    for (int i = x + 1; i <= nb; i++)
      if (m->parent[i] == x && mg[i] == g && mh[i] == h) next = i, count++;
    if (count != 1) break;
    if (x != c && is_end(L, P, h, x)) return 0;
    x = next, n++;
  }
  if (n == 0 || n != shared || (c != P->base[g] && mg[c] != g)) return 0;
  int dh = 0, dg = 0;
  for (int i = 1; i <= nb; i++)
    for (int j = 0; j < mb_joint_nv(m->jtype[i]); j++)
      if (isdep[m->iv[i] + j] >= 0) dg += mg[i] == g, dh += mh[i] == h && mg[i] != g;
  if (dh != P->row0[h + 1] - P->row0[h] || dg != P->row0[g + 1] - P->row0[g]) return 0;
  int nh = head_walk(m, L, P, g, isdep, P->tmp), z = 0; /* b in g's head: not hung */
  for (int k = 0; k < nh; k++) {
    if (P->tmp[k] == x) return 0;
    z |= P->tmp[k] == c && k < nh - 1;
  }
  P->nest[h] = g, P->att[h] = x;
  for (int i = 0; !z && i <= nb; i++) mg[i] = -1;
  if (!z) mark_into(m, L, P, h, mg);
  if (z || head_walk(m, L, P, h, isdep, P->tmp)) return 1;
  P->nest[h] = P->att[h] = -1; /* joined, no column would leave the dense system: cheaper */
  return 0;
}

/* Body by body, the maps open in the plan of the current grouping (P->nest set), into P->nopen
 * (and the bodies into P->open when lists): every head's bodies; a hung group's b and, when its
 * base c lies in its outer group's head but is not that head's p, the outer head's bodies beyond
 * c (an open input of the outer tail). Groups in ascending order on every body. */
static void open_maps(const mb_model *m, const mb_loops *L, rcr_plan *P, const int *isdep,
                      int lists) {
  int nb = m->nb, *hb = P->first, *ho = P->second; /* scratch here */
  for (int i = 0; i <= nb; i++) P->nopen[i] = 0;
#define OPEN(i, g)                                                                               \
  do {                                                                                           \
    if (lists && P->nopen[i] < MB_RCR_MAX_OPEN) P->open[MB_RCR_MAX_OPEN * (i) + P->nopen[i]] = g; \
    P->nopen[i]++;                                                                               \
  } while (0)
  for (int g = 0; g < P->ng; g++) {
    for (int i = 0; i <= nb; i++) P->mark[i] = -1;
    mark_group(m, L, P, g);
    int n = head_walk(m, L, P, g, isdep, hb), o = P->nest[g];
    for (int k = 0; k < n; k++) OPEN(hb[k], g);
    if (o < 0) continue;
    OPEN(P->att[g], g);
    for (int i = 0; i <= nb; i++) P->mark[i] = -1;
    mark_group(m, L, P, o);
    int no = head_walk(m, L, P, o, isdep, ho), k = 0;
    while (k < no && ho[k] != P->base[g]) k++;
    for (k++; k < no; k++) OPEN(ho[k], g);
  }
#undef OPEN
}

/* One round of the fine grouping: groups that share a joint stay apart when every joint they
 * share is in the head of each (coupled heads) or when one can hang from the other (try_nest);
 * otherwise, or when three share a joint that is not in the head of each, or when more than
 * MB_RCR_MAX_OPEN maps would be open on one body, they are joined. Returns 1 if it joined two
 * (P->nest reset), 0 when the grouping stands (P->nest, P->att set). */
static int refine(const mb_model *m, const mb_loops *L, rcr_plan *P, const int *isdep) {
  int nb = m->nb;
  for (int k = 0; k < P->ng; k++) P->nest[k] = P->att[k] = -1;
  joint_groups(m, L, P, isdep);
  for (int i = 1; i <= nb; i++)
    if (P->bad[i] > 2 && P->hd[i] < P->bad[i]) return join(L, P, P->first[i], P->second[i]);
  for (int i = 1; i <= nb; i++) {
    int g = P->first[i], h = P->second[i];
    if (h < 0 || P->hd[i] == 2 || P->nest[h] == g || P->nest[g] == h) continue;
    if (!try_nest(m, L, P, g, h, isdep) && !try_nest(m, L, P, h, g, isdep)) return join(L, P, g, h);
  }
  for (int i = 1; i <= nb; i++) { /* a hung group shares joints with its outer group alone */
    int g = P->first[i], h = P->second[i];
    if (h < 0) continue;
    if (P->nest[g] >= 0 && P->nest[g] != h) return join(L, P, g, P->nest[g]);
    if (P->nest[h] >= 0 && P->nest[h] != g) return join(L, P, h, P->nest[h]);
  }
  /* too many maps open on a body: its joint's first two groups join (open_maps takes first and
   * second as scratch; every map open on a body is a group holding its joint) */
  for (int i = 0; i <= nb; i++) P->tmp[i] = P->first[i], P->mark2[i] = P->second[i];
  open_maps(m, L, P, isdep, 0);
  for (int i = 1; i <= nb; i++)
    if (P->nopen[i] > MB_RCR_MAX_OPEN) return join(L, P, P->tmp[i], P->mark2[i]);
  return 0;
}

/* Lay the plan out and reset it: every loop with kept rows alone in the union-find. */
static int init(const mb_model *m, const mb_loops *L, mb_loop_workspace *lw, rcr_plan *P) {
  int nb = m->nb;
  layout(m, L, lw, P);
  for (int i = 0; i <= nb; i++) P->grp[i] = -1, P->role[i] = 0, P->nopen[i] = 0;
  for (int k = 0; k < m->nv; k++) P->depid[k] = P->indid[k] = P->chain[k] = -1;
  for (int l = 0; l < L->nloops; l++) {
    const mb_loop *lp = &L->loop[l];
    if (lp->a < 0 || lp->a > nb || lp->b < 0 || lp->b > nb) return MB_EINVAL;
    P->lca[l] = lca(m, lp->a, lp->b), P->loopgrp[l] = -1, P->uf[l] = l;
    P->nest[l] = P->att[l] = -1, P->nz[l] = 0;
  }
  for (int r = 0; r < L->nc; r++) P->loopgrp[L->row[r] / MB_LOOP_MAX_ROWS] = 0; /* has rows */
  return MB_OK;
}

int mb_rcr_groups_(const mb_model *m, const mb_loops *L, mb_loop_workspace *lw, rcr_plan *P) {
  int rc = init(m, L, lw, P), *uf = P->uf;
  if (rc) return rc;
  /* union the loops that share a joint: P->tmp[i] = the first loop seen on joint i */
  for (int i = 0; i <= m->nb; i++) P->tmp[i] = -1;
  for (int l = 0; l < L->nloops; l++) {
    if (P->loopgrp[l] < 0) continue;
    const mb_loop *lp = &L->loop[l];
    for (int side = 0; side < 2; side++)
      for (int x = side ? lp->b : lp->a; x != P->lca[l]; x = m->parent[x]) {
        if (P->tmp[x] < 0)
          P->tmp[x] = l;
        else
          uf[ufind(uf, l)] = ufind(uf, P->tmp[x]);
      }
  }
  build_groups(m, L, P);
  return MB_OK;
}

int mb_rcr_plan_(const mb_model *m, const mb_loops *L, mb_loop_workspace *lw, rcr_plan *P,
                 const int *dep) {
  int rc = init(m, L, lw, P);
  if (rc) return rc;
  /* isdep per column in P->indid (reset below, before the split fills it) */
  for (int k = 0; k < L->nc; k++) {
    if (dep[k] < 0 || dep[k] >= m->nv) return MB_EINVAL;
    P->indid[dep[k]] = 1;
  }
  build_groups(m, L, P); /* every loop alone, then joined as refine finds */
  while (refine(m, L, P, P->indid)) build_groups(m, L, P);
  build_groups(m, L, P); /* the same groups, the hung ones' shared paths given to their outer */
  /* each column's group in P->indid while the dependents are taken (one pass over the bodies,
   * not a search per dependent and group: mbdc check's plans for 2000 independent loops spent
   * most of their time there), then reset for the split */
  for (int k = 0; k < m->nv; k++) P->indid[k] = -1;
  for (int i = 1; i <= m->nb; i++)
    for (int j = 0; j < mb_joint_nv(m->jtype[i]); j++) P->indid[m->iv[i] + j] = P->grp[i];
  for (int g = 0; g < P->ng; g++)
    if ((rc = mb_rcr_take_(m, L, P, g, dep))) return rc;
  for (int k = 0; k < m->nv; k++) P->indid[k] = -1;
  for (int g = 0; g < P->ng; g++) mb_rcr_split_(m, L, P, g);
  open_maps(m, L, P, P->depid, 1);
  for (int i = 0; i <= m->nb; i++)
    if (P->nopen[i] > MB_RCR_MAX_OPEN) return MB_EINVAL; /* refine prevents it */
  for (int i = 0; i <= m->nb; i++) P->hkid[i] = 0;
  for (int i = 1; i <= m->nb; i++)
    if (P->role[i] == 1 && P->role[m->parent[i]] == 1) P->hkid[m->parent[i]] = 1;
  return MB_OK;
}

int mb_rcr_col_body_(const mb_model *m, int col) {
  /* iv is ascending (mb_model_check: each joint's columns follow the previous body's): the last
   * body whose first column is at most col, by bisection; bodies of no joint column before it
   * share its iv */
  int lo = 1, hi = m->nb;
  if (hi < 1 || col < m->iv[1]) return 0;
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    if (m->iv[mid] <= col) lo = mid;
    else hi = mid - 1;
  }
  for (int i = lo; i >= 1 && m->iv[i] == m->iv[lo]; i--)
    if (col < m->iv[i] + mb_joint_nv(m->jtype[i])) return i;
  return 0;
}

int mb_rcr_take_(const mb_model *m, const mb_loops *L, rcr_plan *P, int g, const int *dep) {
  int o = P->dep0[g], n = 0, want = P->row0[g + 1] - P->row0[g];
  /* clear the group's columns */
  for (int i = 1; i <= m->nb; i++) {
    if (P->grp[i] != g) continue;
    for (int j = 0; j < mb_joint_nv(m->jtype[i]); j++) P->depid[m->iv[i] + j] = -1;
  }
  for (int k = 0; k < L->nc; k++) {
    int col = dep[k];
    if (col < 0 || col >= m->nv) return MB_EINVAL;
    if (P->indid[col] != g) continue; /* the column's group (mb_rcr_plan_), −1: a mode's */
    if (n == want || P->depid[col] >= 0) return MB_EINVAL; /* too many, or repeated */
    P->dep[o + n++] = col, P->depid[col] = 0;
  }
  if (n != want) return MB_EINVAL;
  /* chain order (insertion sort: a group has few dependents), then the ids */
  for (int a = 1; a < n; a++)
    for (int b = a; b > 0 && P->chain[P->dep[o + b]] < P->chain[P->dep[o + b - 1]]; b--) {
      int t = P->dep[o + b];
      P->dep[o + b] = P->dep[o + b - 1], P->dep[o + b - 1] = t;
    }
  for (int d = 0; d < n; d++) P->depid[P->dep[o + d]] = d;
  return MB_OK;
}

double mb_rcr_project_(const mb_loops *L, mb_loop_workspace *lw, const rcr_plan *P, int g,
                       double *ratio) {
  int m = P->row0[g + 1] - P->row0[g], nv = lw->nv, o = P->dep0[g];
  double *R = lw->rR, *rho = lw->rR + (size_t)m * (size_t)m, *w = rho + (size_t)m * (size_t)m;
  double worst = INFINITY;
  (void)L;
  double scale = 0.0; /* Σ |c_d|² over the dependents: a column of rounding noise is zero */
  for (int d = 0; d < m; d++)
    for (int a = 0; a < m; a++) {
      double x = lw->K[(size_t)P->row[P->row0[g] + a] * (size_t)nv + (size_t)P->dep[o + d]];
      scale += x * x;
    }
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) R[a * m + b] = a == b;
  for (int d = m - 1; d >= 0; d--) {
    int col = P->dep[o + d];
    double c[MB_LOOP_MAX_ROWS * 8], cc = 0.0, piv = 0.0;
    double *cv = m <= (int)(sizeof c / sizeof c[0]) ? c : w + m; /* large groups: scratch */
    for (int a = 0; a < m; a++) {
      cv[a] = lw->K[(size_t)P->row[P->row0[g] + a] * (size_t)nv + (size_t)col];
      cc += cv[a] * cv[a];
    }
    cc += MB_RCR_ZERO * scale;
    for (int a = 0; a < m; a++) {
      double s = 0.0;
      for (int b = 0; b < m; b++) s += R[a * m + b] * cv[b];
      w[a] = s, piv += cv[a] * s;
    }
    double q = (cc > 0.0 && piv > 0.0) ? piv / cc : 0.0;
    if (ratio) ratio[d] = q;
    if (q < worst) worst = q;
    double inv = piv > 0.0 ? 1.0 / piv : 0.0;
    for (int a = 0; a < m; a++) rho[d * m + a] = w[a] * inv;
    for (int a = 0; a < m; a++)
      for (int b = 0; b < m; b++) R[a * m + b] -= w[a] * w[b] * inv;
  }
  return m ? worst : 1.0;
}

void mb_rcr_split_(const mb_model *m, const mb_loops *L, rcr_plan *P, int g) {
  int ni = 0, nt = 0;
  if (g == 0) P->head0[0] = P->tail0[0] = P->ind0[0] = P->E0[0] = P->N0[0] = P->M0[0] = 0;
  int *head = P->head + P->head0[g];
  for (int i = 0; i <= m->nb; i++) P->mark[i] = -1;
  mark_group(m, L, P, g);
  int nh = head_walk(m, L, P, g, P->depid, head), nz = 0;
  int h = nh ? head[nh - 1] : head_start(P, g);
  for (int k = 0; k < nh; k++) P->role[head[k]] = 1;
  P->p[g] = h;
  for (int o = 0; o < P->ng; o++) /* hung groups based in the head short of p: open inputs */
    for (int k = 0; P->nest[o] == g && k < nh - 1; k++)
      if (head[k] == P->base[o] && nz < MB_RCR_MAX_OPEN) P->zg[MB_RCR_MAX_OPEN * g + nz++] = o;
  P->nz[g] = nz;
  int *tail = P->tail + P->tail0[g], *ind = P->ind + P->ind0[g];
  for (int i = 1; i <= m->nb; i++) {
    if (P->mark[i] != g || P->role[i] == 1) continue;
    P->role[i] = 2, tail[nt++] = i;
    for (int j = 0; j < mb_joint_nv(m->jtype[i]); j++) {
      int col = m->iv[i] + j;
      P->indid[col] = -1;
      if (P->depid[col] < 0) P->indid[col] = ni, ind[ni++] = col;
    }
  }
  int mg = P->row0[g + 1] - P->row0[g];
  P->nI[g] = ni;
  P->head0[g + 1] = P->head0[g] + nh, P->tail0[g + 1] = P->tail0[g] + nt;
  P->ind0[g + 1] = P->ind0[g] + ni;
  P->E0[g + 1] = P->E0[g] + mg * RCR_W(P, g), P->N0[g + 1] = P->N0[g] + RCR_NW(P, g) * ni;
  P->M0[g + 1] = P->M0[g] + ni * ni;
}
