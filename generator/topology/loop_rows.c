/* loop_rows.c — assembling the loops and choosing their independent rows (loop_rows.h), one
 * independent part of the loops after the other (loop_parts.h): time and memory linear in the
 * number of independent loops (docs/loops.md, "Which rows"). */
#include "topology/loop_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topology/loop_check.h"
#include "topology/rtwork.h"

enum { TRIES = 12 };
#define INDEPENDENT 1e-6 /* relative residual of a unit row on the span of the rows kept before */
#define ZERO_ROW 1e-9 /* a row this small against the sample's largest row is zero (rounding) */

static void ctx_free(lc_ctx *c) {
  free(c->part_of), free(c->keep), free(c->qs), free(c->K), free(c->Q);
  free(c->qp), free(c->v), free(c->phi);
  mbg_loop_parts_free(c->part, c->nparts);
  mbg_rtloops_free(&c->rl);
  mbg_rtmodel_free(&c->rm);
}

static int ctx_init(lc_ctx *c, const mbg_model *m, const mbg_topology *t) {
  memset(c, 0, sizeof *c);
  if (mbg_rtmodel_build(m, t, &c->rm) || mbg_rtloops_build(m, t, &c->rl)) return -1;
  const mb_model *rm = &c->rm.model;
  if ((c->nparts = mbg_loop_parts(rm, &c->rl, t, &c->part)) < 0) return c->nparts = 0, -1;
  size_t nq = 1, nv = 1, nr = 1;
  for (int k = 0; k < c->nparts; k++) {
    const mbg_loop_part *p = &c->part[k];
    if ((size_t)p->model.nq > nq) nq = (size_t)p->model.nq;
    if ((size_t)p->model.nv > nv) nv = (size_t)p->model.nv;
    if ((size_t)p->nrows > nr) nr = (size_t)p->nrows;
  }
  c->part_of = malloc(sizeof *c->part_of * (size_t)(t->nloops + 1));
  c->keep = calloc((size_t)c->rl.nrows + 1, 1);
  c->qs = calloc(NSAMPLES * (size_t)(rm->nq > 0 ? rm->nq : 1), sizeof *c->qs);
  c->K = calloc(NSAMPLES * nr * nv, sizeof *c->K);
  c->Q = calloc(NSAMPLES * nr * nv, sizeof *c->Q);
  c->qp = calloc(2 * nq, sizeof *c->qp);
  c->v = calloc(nv, sizeof *c->v);
  c->phi = calloc(nr, sizeof *c->phi);
  if (!c->part_of || !c->keep || !c->qs || !c->K || !c->Q || !c->qp || !c->v || !c->phi)
    return -1;
  for (int k = 0; k < c->nparts; k++)
    for (int r = 0; r < c->part[k].nrows; r++)
      c->part_of[c->rl.row[c->part[k].row_of[r]] / MB_LOOP_MAX_ROWS] = k;
  return 0;
}

int lc_open(lc_work *w, const mbg_loop_part *p) {
  w->m = &p->model;
  w->wbuf = mbg_lean_workspace(w->m, &w->ws);
  w->lbuf = malloc(mbg_lean_loop_size(w->m, &p->loops));
  if (!w->wbuf || !w->lbuf) return lc_close(w), -1;
  return 0;
}

void lc_close(lc_work *w) {
  free(w->wbuf), free(w->lbuf);
  w->wbuf = NULL, w->lbuf = NULL;
}

mb_loops lc_rows(const lc_ctx *c, int k, int which, int *buf) {
  const mbg_loop_part *p = &c->part[k];
  int n = 0;
  for (int r = 0; r < p->nrows; r++)
    if (which < 0 || (c->keep[p->row_of[r]] != 0) == (which != 0)) buf[n++] = p->row[r];
  mb_loops rows = {p->nloops, p->loop, n, buf};
  return rows;
}

int lc_project(lc_ctx *c, int k, lc_work *w, const mb_loops *rows, double *q, double *start) {
  const mbg_loop_part *p = &c->part[k];
  mb_loop_workspace lw;
  mbg_lean_loop_layout(&lw, w->m, rows, w->lbuf);
  mbg_loop_part_get(p, &c->rm.model, q, c->qp);
  if (start) {
    *start = 0.0;
    if (mb_loop_residual(w->m, rows, &w->ws, &lw, c->qp, c->phi) == MB_OK)
      for (int r = 0; r < rows->nc; r++) *start = fmax(*start, fabs(c->phi[r]));
  }
  int rc = mb_project_q(w->m, rows, &w->ws, &lw, c->qp);
  if (rc == MB_OK) mbg_loop_part_put(p, &c->rm.model, c->qp, q);
  return rc;
}

double lc_uniform(uint64_t *s, double lo, double hi) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return lo + (hi - lo) * ((double)(z >> 11) / 9007199254740992.0);
}

/* Project q onto every part's rows. Returns the first part that does not close + 1, 0 when all
 * close, -1 when out of memory. */
static int project_all(lc_ctx *c, double *q) {
  int *buf = malloc(sizeof *buf * (size_t)(c->rl.nrows + 1));
  if (!buf) return -1;
  for (int k = 0; k < c->nparts; k++) {
    lc_work w;
    if (lc_open(&w, &c->part[k])) return free(buf), -1;
    mb_loops all = lc_rows(c, k, -1, buf);
    int rc = lc_project(c, k, &w, &all, q, NULL);
    lc_close(&w);
    if (rc) return free(buf), k + 1;
  }
  free(buf);
  return 0;
}

/* Report each loop that cannot be closed alone, or the last loop of the part that does not close
 * if only together its loops cannot. */
static int report_assembly(lc_ctx *c, const mbg_model *m, const mbg_topology *t, const double *q0,
                           int failed, mbg_diag *d) {
  const mb_model *rm = &c->rm.model;
  double *q = malloc(sizeof *q * (size_t)(rm->nq > 0 ? rm->nq : 1));
  int *buf = malloc(sizeof *buf * (size_t)(c->rl.nrows + 1)), errors = 0, last = 0;
  if (!q || !buf) return free(q), free(buf), -1;
  for (int l = 0; l < t->nloops; l++) {
    int k = c->part_of[l], n = 0;
    const mbg_loop_part *p = &c->part[k];
    for (int r = 0; r < p->nrows; r++)
      if (c->rl.row[p->row_of[r]] / MB_LOOP_MAX_ROWS == l) buf[n++] = p->row[r];
    if (k == failed) last = l;
    mb_loops one = {p->nloops, p->loop, n, buf};
    lc_work w;
    double start;
    memcpy(q, q0, sizeof *q * (size_t)rm->nq);
    if (lc_open(&w, p)) return free(q), free(buf), -1;
    int rc = lc_project(c, k, &w, &one, q, &start);
    lc_close(&w);
    if (rc) {
      const mbg_loop *ml = &m->loops[t->loop[l].model_loop];
      mbg_diag_error(d, ml->loc,
                     "loop '%s' cannot be closed near the model's initial configuration: its "
                     "residual there is %.3g, and Newton's method on its row%s does not bring it "
                     "below %g within %d iterations",
                     ml->name, start, mb_loop_nrows(c->rl.loop[l].type) == 1 ? "" : "s",
                     MB_PROJECT_TOL, MB_PROJECT_MAXIT);
      mbg_diag_note(d, ml->loc, "check its 'origin' and 'target' frames, the bodies between them "
                                "and the 'initial' state of their joints");
      errors++;
    }
  }
  if (!errors && t->nloops > 0) {
    const mbg_loop *ml = &m->loops[t->loop[last].model_loop];
    mbg_diag_error(d, ml->loc,
                   "the loops cannot be closed together near the model's initial configuration "
                   "(each closes alone): Newton's method on all their rows does not converge");
    errors++;
  }
  free(q), free(buf);
  return errors;
}

/* Assembled configurations: q0's projection and up to NSAMPLES − 1 drawn near it. */
static int draw_samples(lc_ctx *c, const double *qa) {
  const mb_model *rm = &c->rm.model;
  size_t nq = (size_t)(rm->nq > 0 ? rm->nq : 1), nv = (size_t)(rm->nv > 0 ? rm->nv : 1);
  double *dv = malloc(sizeof *dv * nv);
  uint64_t seed = 0x6d6264636c6f6f70ull; /* "mbdcloop" */
  if (!dv) return -1;
  memcpy(c->qs, qa, sizeof *qa * (size_t)rm->nq);
  c->nsamples = 1;
  for (int tries = 0; tries < TRIES && c->nsamples < NSAMPLES; tries++) {
    double *q = c->qs + (size_t)c->nsamples * nq;
    for (int k = 0; k < rm->nv; k++) dv[k] = lc_uniform(&seed, -0.4, 0.4);
    memcpy(q, qa, sizeof *q * (size_t)rm->nq);
    if (mb_integrate(rm, q, dv, 1.0, q)) continue;
    int rc = project_all(c, q);
    if (rc < 0) return free(dv), -1;
    if (rc == 0) c->nsamples++;
  }
  free(dv);
  return 0;
}

/* Part k's rows at every sample into c->K (c->ok: where finite; c->nQ reset); with norms, the
 * largest row into c->kmax. */
static int jacobians(lc_ctx *c, int k, int norms, int *buf) {
  const mbg_loop_part *p = &c->part[k];
  const mb_model *rm = &c->rm.model;
  size_t nq = (size_t)(rm->nq > 0 ? rm->nq : 1), nv = (size_t)p->model.nv;
  mb_loops all = lc_rows(c, k, -1, buf);
  lc_work w;
  mb_loop_workspace lw;
  if (lc_open(&w, p)) return -1;
  mbg_lean_loop_layout(&lw, w.m, &all, w.lbuf);
  for (int s = 0; s < c->nsamples; s++) {
    double *K = c->K + (size_t)s * (size_t)all.nc * nv;
    mbg_loop_part_get(p, rm, c->qs + (size_t)s * nq, c->qp);
    c->nQ[s] = 0;
    c->ok[s] = mb_loop_jacobian(w.m, &all, &w.ws, &lw, c->qp, K) == MB_OK;
    for (int r = 0; norms && c->ok[s] && r < all.nc; r++) {
      double n2 = 0.0;
      for (size_t j = 0; j < nv; j++) n2 += K[(size_t)r * nv + j] * K[(size_t)r * nv + j];
      c->kmax[s] = fmax(c->kmax[s], sqrt(n2));
    }
  }
  lc_close(&w);
  return 0;
}

/* Is row r (unit-scaled) of the nr rows of part k independent of the basis in sample s? Adds it
 * to the basis if so (returns its relative residual). */
static double try_row(lc_ctx *c, int k, int s, int r, int add) {
  int nv = c->part[k].model.nv, nr = c->part[k].nrows;
  size_t n = (size_t)nr * (size_t)nv;
  const double *row = c->K + (size_t)s * n + (size_t)r * (size_t)nv;
  double *Q = c->Q + (size_t)s * n, *x = Q + (size_t)c->nQ[s] * (size_t)nv, norm = 0.0, res = 0.0;
  for (int j = 0; j < nv; j++) norm += row[j] * row[j];
  norm = sqrt(norm);
  /* A row that vanishes identically (a spherical loop's row along a fixed axis through the
   * joint, e.g. two ball joints on one line) comes out as rounding noise (1e-33), which scaled
   * to unit length would look independent: rows far below the largest row of the sample (of all
   * the loops) are zero. */
  if (!(norm > ZERO_ROW * c->kmax[s])) return 0.0;
  for (int j = 0; j < nv; j++) x[j] = row[j] / norm;
  for (int pass = 0; pass < 2; pass++) /* Gram-Schmidt, twice for orthogonality */
    for (int b = 0; b < c->nQ[s]; b++) {
      const double *qb = Q + (size_t)b * (size_t)nv;
      double p = 0.0;
      for (int j = 0; j < nv; j++) p += qb[j] * x[j];
      for (int j = 0; j < nv; j++) x[j] -= p * qb[j];
    }
  for (int j = 0; j < nv; j++) res += x[j] * x[j];
  res = sqrt(res);
  if (add && res > 1e-12) {
    for (int j = 0; j < nv; j++) x[j] /= res;
    c->nQ[s]++;
  }
  return res;
}

/* Part k's rows in order: a row independent of those kept before it in at least one sample where
 * the part's Jacobian is finite is kept. Returns the number of such samples, -1 out of memory. */
static int select_part(lc_ctx *c, int k, int *buf) {
  const mbg_loop_part *p = &c->part[k];
  int used = 0;
  if (jacobians(c, k, 0, buf)) return -1;
  for (int s = 0; s < c->nsamples; s++) used += c->ok[s];
  for (int r = 0; r < p->nrows; r++) {
    double best = 0.0;
    for (int s = 0; s < c->nsamples; s++)
      if (c->ok[s]) best = fmax(best, try_row(c, k, s, r, 0));
    if (best > INDEPENDENT) {
      for (int s = 0; s < c->nsamples; s++)
        if (c->ok[s]) try_row(c, k, s, r, 1);
      c->keep[p->row_of[r]] = 1;
    }
  }
  return used;
}

static int select_rows(lc_ctx *c, mbg_loop_rows *out, int nloops) {
  int nr = c->rl.nrows, fewest = NSAMPLES, rc = 0;
  int *buf = malloc(sizeof *buf * (size_t)(nr + 1));
  out->row = malloc(sizeof *out->row * (size_t)(nr > 0 ? nr : 1));
  out->nrows = calloc((size_t)(nloops > 0 ? nloops : 1), sizeof *out->nrows);
  out->nkept = calloc((size_t)(nloops > 0 ? nloops : 1), sizeof *out->nkept);
  if (!buf || !out->row || !out->nrows || !out->nkept) return free(buf), -1;
  for (int s = 0; s < NSAMPLES; s++) c->kmax[s] = 0.0;
  for (int k = 0; k < c->nparts && rc == 0; k++) rc = jacobians(c, k, 1, buf); /* the scale */
  for (int k = 0; k < c->nparts && rc == 0; k++) {
    int used = select_part(c, k, buf);
    if (used < 0) rc = -1;
    if (used < fewest) fewest = used;
  }
  free(buf);
  if (rc) return -1;
  for (int r = 0; r < nr; r++) {
    int l = c->rl.row[r] / MB_LOOP_MAX_ROWS;
    out->nrows[l]++;
    if (c->keep[r]) out->row[out->nc++] = c->rl.row[r], out->nkept[l]++;
  }
  out->nsamples = c->nparts > 0 ? fewest : c->nsamples;
  return 0;
}

/* Two ends of a loop merged into one tree body: nothing to close. */
static int check_ends(const mbg_model *m, const mbg_topology *t, mbg_diag *d) {
  int errors = 0;
  for (int l = 0; l < t->nloops; l++)
    if (t->loop[l].a == t->loop[l].b) {
      const mbg_loop *ml = &m->loops[t->loop[l].model_loop];
      mbg_diag_error(d, ml->loc,
                     "loop '%s' joins '%s' and '%s', which fixed joints make one rigid body: it "
                     "closes no loop",
                     ml->name, m->bodies[ml->body_a].name, m->bodies[ml->body_b].name);
      errors++;
    }
  return errors;
}

/* The starting configuration: q0, or the neutral one. */
static double *start_q(const mb_model *rm, const double *q0) {
  double *q = malloc(sizeof *q * (size_t)(rm->nq > 0 ? rm->nq : 1));
  if (q && q0)
    memcpy(q, q0, sizeof *q * (size_t)rm->nq);
  else if (q)
    mb_neutral(rm, q);
  return q;
}

int mbg_check_loops(const mbg_model *m, const mbg_topology *t, const double *q0,
                    const char *path, const char *text, size_t len, FILE *out,
                    mbg_loop_rows *rows) {
  mbg_diag d;
  lc_ctx c;
  int errors;
  if (rows) memset(rows, 0, sizeof *rows);
  mbg_diag_init(&d, path, text, len, out);
  if (t->nloops == 0) return 0;
  if ((errors = check_ends(m, t, &d)) != 0) return errors;
  if (ctx_init(&c, m, t)) return ctx_free(&c), -1;
  const mb_model *rm = &c.rm.model;
  double *qa = start_q(rm, q0);
  if (!qa) return ctx_free(&c), -1;
  int failed = project_all(&c, qa);
  if (failed < 0) return free(qa), ctx_free(&c), -1;
  if (failed > 0) {
    double *start = start_q(rm, q0);
    errors = start ? report_assembly(&c, m, t, start, failed - 1, &d) : -1;
    free(start), free(qa), ctx_free(&c);
    return errors;
  }
  /* the samples only serve the row selection and the assembly's check */
  int rc = rows ? draw_samples(&c, qa) : 0;
  if (!rc && rows) rc = select_rows(&c, rows, t->nloops);
  if (!rc && rows && (errors = lc_check_regular_assembly(&c, m, t, &d)) != 0) {
    free(qa), ctx_free(&c), mbg_loop_rows_free(rows);
    return errors;
  }
  if (!rc && rows) rows->q = qa, qa = NULL;
  free(qa);
  ctx_free(&c);
  if (rc) return mbg_loop_rows_free(rows), -1;
  return 0;
}

void mbg_loop_rows_free(mbg_loop_rows *r) {
  if (!r) return;
  free(r->row), free(r->nrows), free(r->nkept), free(r->q);
  memset(r, 0, sizeof *r);
}
