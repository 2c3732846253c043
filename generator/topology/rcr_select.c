/* rcr_select.c — the selections of dependent coordinates for p_rcr (rcr_select.h). */
#include "topology/rcr_select.h"

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "rcr_internal.h"
#include "topology/rtloops.h"
#include "topology/rtmodel.h"
#include "topology/rtwork.h"

typedef struct priv {
  mbg_rtmodel rm;
  mbg_rtloops rl;
  mb_workspace ws;
  mb_loop_workspace lw;
  void *wbuf, *lbuf;
  rcr_plan plan;
} priv;

static void priv_free(priv *p) {
  if (!p) return;
  free(p->wbuf), free(p->lbuf);
  mbg_rtloops_free(&p->rl);
  mbg_rtmodel_free(&p->rm);
  free(p);
}

static priv *priv_new(const mbg_model *m, const mbg_topology *t, const mbg_loop_rows *rows) {
  priv *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  if (mbg_rtmodel_build(m, t, &p->rm) || mbg_rtloops_build(m, t, &p->rl)) return priv_free(p), NULL;
  /* the kept rows only */
  memcpy(p->rl.row, rows->row, sizeof *rows->row * (size_t)rows->nc);
  p->rl.loops.nc = rows->nc;
  const mb_model *rm = &p->rm.model;
  p->wbuf = mbg_lean_workspace(rm, &p->ws); /* rcr's calls read only the kinematics' arrays */
  p->lbuf = malloc(mb_loop_workspace_size(rm, &p->rl.loops));
  if (!p->wbuf || !p->lbuf) return priv_free(p), NULL;
  mb_loop_workspace_init(&p->lw, rm, &p->rl.loops, p->lbuf);
  return p;
}

/* "q2" or "ball[1]" for a coordinate of a multi-dof joint. */
static void coord_name(const mbg_model *m, const mbg_topology *t, const mb_model *rm, int k,
                       char *buf, size_t n) {
  int i = mb_rcr_col_body_(rm, k);
  const char *name = m->joints[t->body[i].model_joint].name;
  if (mb_joint_nv(rm->jtype[i]) > 1)
    snprintf(buf, n, "%s[%d]", name, k - rm->iv[i]);
  else
    snprintf(buf, n, "%s", name);
}

/* Selection 0 from `independent`: 0, or 1 after reporting why it cannot be used. */
static int from_independent(const mbg_model *m, const mbg_topology *t, priv *p, mbg_diag *d,
                            const double *q, int *dep, const int *auto_dep) {
  const mb_model *rm = &p->rm.model;
  int nc = p->rl.loops.nc, n = 0, *keep = calloc((size_t)rm->nv + 1, sizeof *keep);
  if (!keep) return -1;
  for (int k = 0; k < m->nindependent; k++)
    for (int i = 1; i <= rm->nb; i++)
      if (t->body[i].model_joint == m->independent[k])
        for (int c = 0; c < mb_joint_nv(rm->jtype[i]); c++) keep[rm->iv[i] + c] = 1;
  mb_rcr_groups_(rm, &p->rl.loops, &p->lw, &p->plan);
  for (int k = 0; k < rm->nv; k++)
    if (!keep[k] && p->plan.chain[k] >= 0) {
      if (n < nc) dep[n] = k;
      n++;
    }
  free(keep);
  char names[512] = "", one[96];
  for (int k = 0; k < nc; k++) {
    coord_name(m, t, rm, auto_dep[k], one, sizeof one);
    if (strlen(names) + strlen(one) + 2 < sizeof names) strcat(strcat(names, " "), one);
  }
  if (n != nc) {
    mbg_diag_error(d, m->independent_loc,
                   "'independent' leaves %d coordinate%s of the loops dependent, but their %d "
                   "independent constraint rows need exactly %d dependent coordinates",
                   n, n == 1 ? "" : "s", nc, nc);
    return 1;
  }
  double *ratio = calloc((size_t)nc + 1, sizeof *ratio), lo = 0;
  if (!ratio) return -1;
  if (mb_rcr_pivots(rm, &p->rl.loops, &p->ws, &p->lw, q, dep, ratio, &lo) || !(lo >= MB_RCR_SWITCH)) {
    int worst = 0;
    for (int k = 1; k < nc; k++) worst = ratio[k] < ratio[worst] ? k : worst;
    coord_name(m, t, rm, dep[worst], one, sizeof one);
    mbg_diag_error(d, m->independent_loc,
                   "the coordinates 'independent' leaves dependent are singular at the loops' "
                   "assembled configuration: the constraint column of '%s' vanishes or is "
                   "(nearly) a combination of the other dependents' (pivot ratio %.3g, below %g), so the "
                   "constraints cannot be solved for them; mbdc would take as dependent:%s",
                   one, ratio[worst], MB_RCR_SWITCH, names);
    free(ratio);
    return 1;
  }
  free(ratio);
  return 0;
}

static int same_set(const int *a, const int *b, int n) {
  for (int k = 0; k < n; k++) {
    int found = 0;
    for (int j = 0; j < n; j++) found |= a[k] == b[j];
    if (!found) return 0;
  }
  return 1;
}

int mbg_rcr_selections(const mbg_model *m, const mbg_topology *t, const mbg_loop_rows *rows,
                       const char *path, const char *text, size_t len, FILE *out,
                       mbg_rcr_sel *sel) {
  memset(sel, 0, sizeof *sel);
  if (!rows || rows->nc == 0) return 0;
  mbg_diag d;
  mbg_diag_init(&d, path, text, len, out);
  priv *p = priv_new(m, t, rows);
  int nc = rows->nc, errors = 0;
  if (!p) return -1;
  sel->priv = p; /* freed with sel on every error below */
  const mb_model *rm = &p->rm.model;
  sel->nc = nc;
  sel->dep = calloc((size_t)(3 * nc), sizeof *sel->dep);
  sel->ratio = calloc(3, sizeof *sel->ratio);
  int *cand = calloc((size_t)(3 * nc), sizeof *cand);
  if (!sel->dep || !sel->ratio || !cand) return free(cand), mbg_rcr_sel_free(sel), -1;
  /* the greedy selections from the end and from the start */
  int ok_end = mb_rcr_select(rm, &p->rl.loops, &p->ws, &p->lw, rows->q, 0, NULL, cand + nc) == 0;
  int ok_start =
      mb_rcr_select(rm, &p->rl.loops, &p->ws, &p->lw, rows->q, 1, NULL, cand + 2 * nc) == 0;
  if (m->nindependent > 0) {
    errors = from_independent(m, t, p, &d, rows->q, cand, cand + nc);
    if (errors) return free(cand), mbg_rcr_sel_free(sel), errors < 0 ? -1 : errors;
    sel->user = 1;
  } else if (ok_end) {
    memcpy(cand, cand + nc, sizeof *cand * (size_t)nc);
  } else {
    /* mbg_check_loops kept independent rows only: a regular selection exists at some samples;
     * one that the greedy rule misses at the assembled configuration is reported here */
    mbg_diag_error(&d, m->loops[t->loop[0].model_loop].loc,
                   "no regular choice of dependent coordinates for recursive coordinate reduction "
                   "at the loops' assembled configuration");
    return free(cand), mbg_rcr_sel_free(sel), 1;
  }
  for (int s = 0; s < 3; s++) {
    if ((s == 1 && !ok_end) || (s == 2 && !ok_start)) continue;
    int dup = 0;
    for (int j = 0; j < sel->nsel; j++) dup |= same_set(sel->dep + j * nc, cand + s * nc, nc);
    if (dup) continue;
    /* stored group after group, each in chain order (mb_rcr_take_): the order of the ratios of
     * mb_rcr_pivots and of the generated rcr_pivots */
    if (mb_rcr_plan_(rm, &p->rl.loops, &p->lw, &p->plan, cand + s * nc))
      return free(cand), mbg_rcr_sel_free(sel), -1;
    memcpy(sel->dep + sel->nsel * nc, p->plan.dep, sizeof *cand * (size_t)nc);
    sel->origin[sel->nsel] = s == 0 ? (sel->user ? 0 : 1) : s;
    double *ratio = calloc((size_t)nc, sizeof *ratio);
    if (!ratio) return free(cand), mbg_rcr_sel_free(sel), -1;
    mb_rcr_pivots(rm, &p->rl.loops, &p->ws, &p->lw, rows->q, sel->dep + sel->nsel * nc, ratio,
                  &sel->ratio[sel->nsel]);
    free(ratio);
    sel->nsel++;
  }
  free(cand);
  return 0;
}

int mbg_rcr_plan(mbg_rcr_sel *sel, int s, mbg_rcr_plan_view *o) {
  priv *p = sel->priv;
  if (!p || s < 0 || s >= sel->nsel) return -1;
  const mb_model *rm = &p->rm.model;
  rcr_plan *P = &p->plan;
  if (mb_rcr_plan_(rm, &p->rl.loops, &p->lw, P, sel->dep + (size_t)s * (size_t)sel->nc)) return -1;
  *o = (mbg_rcr_plan_view){P->ng,    P->base,  P->p,    P->row0, P->row,   P->dep0,
                           P->dep,   P->ind0,  P->ind,  P->head0, P->head, P->tail0,
                           P->tail,  P->nest,  P->att,  P->nz,   P->zg,    P->role,
                           P->grp,   P->nopen, P->open, p->rl.loops.row};
  return 0;
}

void mbg_rcr_sel_free(mbg_rcr_sel *sel) {
  if (!sel) return;
  free(sel->dep), free(sel->ratio);
  priv_free(sel->priv);
  memset(sel, 0, sizeof *sel);
}
