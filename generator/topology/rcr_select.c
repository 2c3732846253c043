/* rcr_select.c — the selections of dependent coordinates for p_rcr (rcr_select.h). */
#include "topology/rcr_select.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "rcr_internal.h"
#include "topology/loop_parts.h"
#include "topology/rtloops.h"
#include "topology/rtmodel.h"
#include "topology/rtwork.h"

typedef struct priv {
  mbg_rtmodel rm;
  mbg_rtloops rl;       /* the kept rows */
  mb_loop_workspace lw; /* the plan's integers only (rtwork.h): the plans of the whole model */
  void *lbuf;
  rcr_plan plan;
} priv;

static void priv_free(priv *p) {
  if (!p) return;
  free(p->lbuf);
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
  p->rl.loops.nc = p->rl.nrows = rows->nc;
  const mb_model *rm = &p->rm.model;
  p->lbuf = malloc(mbg_plan_loop_size(rm, &p->rl.loops));
  if (!p->lbuf) return priv_free(p), NULL;
  mbg_plan_loop_layout(&p->lw, rm, &p->rl.loops, p->lbuf);
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

/* The candidate selections, found part by part (loop_parts.h): the rows of different parts have
 * their nonzero entries in different columns, so each part's selection and pivots are those of
 * the whole model's, and the runtime's dense workspaces are sized by one part at a time. */
enum { USER, END, START };
typedef struct cands {
  int nc;
  int *dep;           /* [3 × nc] the whole model's coordinates, part after part */
  int ok[3];          /* END, START: every part's greedy selection succeeded */
  double lo[3];       /* the smallest pivot ratio of each over the parts */
  int *keep;          /* [nv] USER: the coordinates `independent` names */
  int nuser;          /* USER: dependents it leaves, over the parts */
  int bad_part;       /* USER: the first part whose count is not its rows' (−1) */
  int bad_loop;       /* USER: that part's first loop with kept rows (topology index) */
  int bad_n, bad_rows; /* USER: that part's dependents and rows */
  double worst;       /* USER: the smallest pivot ratio and its coordinate */
  int worst_k;
} cands;

/* One part's workspaces and coordinates. */
typedef struct part_work {
  const mbg_loop_part *p;
  mb_workspace ws;
  mb_loop_workspace lw;
  double *wbuf, *lbuf, *q, *ratio;
  int *dep, *keep;
  rcr_plan plan;
} part_work;

static void pw_close(part_work *w) {
  free(w->wbuf), free(w->lbuf), free(w->q), free(w->ratio), free(w->dep), free(w->keep);
}

static int pw_open(part_work *w, const mbg_loop_part *p, const mb_model *whole, const double *q) {
  const mb_model *pm = &p->model;
  memset(w, 0, sizeof *w);
  w->p = p;
  w->wbuf = mbg_lean_workspace(pm, &w->ws);
  w->lbuf = malloc(mb_loop_workspace_size(pm, &p->loops));
  w->q = malloc(sizeof *w->q * (size_t)(pm->nq + 1));
  w->ratio = calloc((size_t)p->nrows + 1, sizeof *w->ratio);
  w->dep = malloc(sizeof *w->dep * (size_t)(pm->nv + 1));
  w->keep = calloc((size_t)pm->nv + 1, sizeof *w->keep);
  if (!w->wbuf || !w->lbuf || !w->q || !w->ratio || !w->dep || !w->keep) return pw_close(w), -1;
  mb_loop_workspace_init(&w->lw, pm, &p->loops, w->lbuf);
  mbg_loop_part_get(p, whole, q, w->q);
  return 0;
}

/* The whole model's coordinate of the part's coordinate k. */
static int to_whole(const mbg_loop_part *p, const mb_model *whole, int k) {
  int j = mb_rcr_col_body_(&p->model, k);
  return whole->iv[p->body[j]] + k - p->model.iv[j];
}

/* The part's pivot ratios of selection w->dep (its coordinates): the smallest, 0 on failure. */
static double part_pivots(part_work *w) {
  const mbg_loop_part *p = w->p;
  double lo = 0.0;
  if (mb_rcr_pivots(&p->model, &p->loops, &w->ws, &w->lw, w->q, w->dep, w->ratio, &lo))
    return 0.0;
  return lo;
}

/* The part's dependents under `independent`: its chain's coordinates it does not name. */
static void part_user(part_work *w, const mb_model *whole, cands *c, int off, int part) {
  const mbg_loop_part *p = w->p;
  const mb_model *pm = &p->model;
  for (int j = 1; j <= pm->nb; j++)
    for (int a = 0; a < mb_joint_nv(pm->jtype[j]); a++)
      w->keep[pm->iv[j] + a] = c->keep[whole->iv[p->body[j]] + a];
  mb_rcr_groups_(pm, &p->loops, &w->lw, &w->plan);
  int n = 0;
  for (int k = 0; k < pm->nv; k++)
    if (!w->keep[k] && w->plan.chain[k] >= 0) {
      if (n < p->nrows) w->dep[n] = k, c->dep[USER * c->nc + off + n] = to_whole(p, whole, k);
      n++;
    }
  c->nuser += n;
  if (n != p->nrows) {
    if (c->bad_part < 0) c->bad_part = part, c->bad_n = n, c->bad_rows = p->nrows;
    return;
  }
  double lo = part_pivots(w);
  int worst = 0;
  for (int k = 1; k < p->nrows; k++) worst = w->ratio[k] < w->ratio[worst] ? k : worst;
  if (c->worst_k < 0 || lo < c->worst)
    c->worst = lo, c->worst_k = to_whole(p, whole, w->dep[worst]);
}

/* Every candidate of one part, into c at offset off (its first row among the kept ones). */
static int part_cands(const mbg_loop_part *p, int part, const mb_model *whole, const double *q,
                      int user, cands *c, int off) {
  part_work w;
  if (pw_open(&w, p, whole, q)) return -1;
  const mb_model *pm = &p->model;
  for (int s = END; s <= START; s++) {
    if (mb_rcr_select(pm, &p->loops, &w.ws, &w.lw, w.q, s == START, NULL, w.dep)) {
      c->ok[s] = 0;
      continue;
    }
    for (int k = 0; k < p->nrows; k++) c->dep[s * c->nc + off + k] = to_whole(p, whole, w.dep[k]);
    c->lo[s] = fmin(c->lo[s], part_pivots(&w));
  }
  if (user) part_user(&w, whole, c, off, part);
  pw_close(&w);
  return 0;
}

static int find_cands(priv *P, const mbg_model *m, const mbg_topology *t, const double *q,
                      cands *c) {
  const mb_model *rm = &P->rm.model;
  mbg_loop_part *parts;
  int np = mbg_loop_parts(rm, &P->rl, t, &parts), off = 0, rc = 0;
  if (np < 0) return -1;
  for (int s = 0; s < 3; s++) c->ok[s] = 1, c->lo[s] = INFINITY;
  c->bad_part = c->worst_k = -1;
  if (m->nindependent > 0) {
    c->keep = calloc((size_t)rm->nv + 1, sizeof *c->keep);
    if (!c->keep) rc = -1;
    for (int k = 0; rc == 0 && k < m->nindependent; k++)
      for (int i = 1; i <= rm->nb; i++)
        if (t->body[i].model_joint == m->independent[k])
          for (int a = 0; a < mb_joint_nv(rm->jtype[i]); a++) c->keep[rm->iv[i] + a] = 1;
  }
  for (int k = 0; rc == 0 && k < np; k++) {
    if (parts[k].nrows == 0) continue;
    rc = part_cands(&parts[k], k, rm, q, c->keep != NULL, c, off);
    off += parts[k].nrows;
  }
  if (rc == 0 && c->bad_part >= 0)
    c->bad_loop = P->rl.row[parts[c->bad_part].row_of[0]] / MB_LOOP_MAX_ROWS;
  mbg_loop_parts_free(parts, np);
  return rc;
}
/* Selection USER's errors at the `independent` statement: 0, or their count. */
static int user_errors(const mbg_model *m, const mbg_topology *t, const mb_model *rm,
                       const cands *c, mbg_diag *d) {
  int nc = c->nc, n = c->nuser;
  if (n != nc) {
    mbg_diag_error(d, m->independent_loc,
                   "'independent' leaves %d coordinate%s of the loops dependent, but their %d "
                   "independent constraint rows need exactly %d dependent coordinates",
                   n, n == 1 ? "" : "s", nc, nc);
    return 1;
  }
  if (c->bad_part >= 0) { /* the right count over all loops, not over each independent part */
    mbg_diag_error(d, m->independent_loc,
                   "'independent' leaves %d coordinate%s dependent in the loops that share "
                   "moving joints with loop '%s', but their %d independent constraint rows need "
                   "exactly %d dependent coordinates (loops that share no moving joint are solved "
                   "apart: each needs its own count)",
                   c->bad_n, c->bad_n == 1 ? "" : "s",
                   m->loops[t->loop[c->bad_loop].model_loop].name, c->bad_rows, c->bad_rows);
    return 1;
  }
  if (c->worst >= MB_RCR_SWITCH) return 0;
  char names[512] = "", one[96];
  for (int k = 0; c->ok[END] && k < nc; k++) {
    coord_name(m, t, rm, c->dep[END * nc + k], one, sizeof one);
    if (strlen(names) + strlen(one) + 2 < sizeof names) strcat(strcat(names, " "), one);
  }
  coord_name(m, t, rm, c->worst_k, one, sizeof one);
  mbg_diag_error(d, m->independent_loc,
                 "the coordinates 'independent' leaves dependent are singular at the loops' "
                 "assembled configuration: the constraint column of '%s' vanishes or is "
                 "(nearly) a combination of the other dependents' (pivot ratio %.3g, below %g), so "
                 "the constraints cannot be solved for them; mbdc would take as dependent:%s",
                 one, c->worst, MB_RCR_SWITCH, names);
  return 1;
}

static int same_set(const int *a, const int *b, int n) {
  for (int k = 0; k < n; k++) {
    int found = 0;
    for (int j = 0; j < n; j++) found |= a[k] == b[j];
    if (!found) return 0;
  }
  return 1;
}

/* The distinct candidates, each in the whole model's plan order (mb_rcr_take_: group after group,
 * each in chain order: the order of the ratios of mb_rcr_pivots and of the generated
 * rcr_pivots). 0, or -1 when out of memory. */
static int keep_distinct(priv *p, const cands *c, mbg_rcr_sel *sel) {
  const mb_model *rm = &p->rm.model;
  int nc = c->nc;
  for (int s = USER; s <= START; s++) {
    if (!c->ok[s]) continue;
    int dup = 0;
    for (int j = 0; j < sel->nsel; j++) dup |= same_set(sel->dep + j * nc, c->dep + s * nc, nc);
    if (dup) continue;
    if (mb_rcr_plan_(rm, &p->rl.loops, &p->lw, &p->plan, c->dep + s * nc)) return -1;
    memcpy(sel->dep + sel->nsel * nc, p->plan.dep, sizeof *c->dep * (size_t)nc);
    sel->origin[sel->nsel] = s;
    sel->ratio[sel->nsel] = s == USER ? c->worst : c->lo[s];
    sel->nsel++;
  }
  return 0;
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
  sel->nc = nc;
  sel->dep = calloc((size_t)(3 * nc), sizeof *sel->dep);
  sel->ratio = calloc(3, sizeof *sel->ratio);
  cands c = {.nc = nc, .dep = calloc((size_t)(3 * nc), sizeof *c.dep)};
  if (!sel->dep || !sel->ratio || !c.dep || find_cands(p, m, t, rows->q, &c))
    return free(c.dep), free(c.keep), mbg_rcr_sel_free(sel), -1;
  if (m->nindependent > 0) {
    errors = user_errors(m, t, &p->rm.model, &c, &d);
    sel->user = 1;
  } else if (c.ok[END]) {
    c.ok[USER] = 0; /* selection 0 is the greedy one from the end */
  } else {
    /* mbg_check_loops kept independent rows only: a regular selection exists at some samples;
     * one that the greedy rule misses at the assembled configuration is reported here */
    mbg_diag_error(&d, m->loops[t->loop[0].model_loop].loc,
                   "no regular choice of dependent coordinates for recursive coordinate reduction "
                   "at the loops' assembled configuration");
    errors = 1;
  }
  if (errors == 0 && keep_distinct(p, &c, sel)) errors = -1;
  free(c.dep), free(c.keep);
  if (errors) mbg_rcr_sel_free(sel);
  return errors;
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
