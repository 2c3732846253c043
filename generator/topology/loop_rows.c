/* loop_rows.c — assembling the loops and choosing their independent rows (loop_rows.h). */
#include "topology/loop_rows.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "topology/rtloops.h"
#include "topology/rtmodel.h"

enum { NSAMPLES = 5, TRIES = 12 };
#define INDEPENDENT 1e-6 /* relative residual of a unit row on the span of the rows kept before */
#define ZERO_ROW 1e-9 /* a row this small against the sample's largest row is zero (rounding) */

/* The runtime objects one check works with. */
typedef struct ctx {
  mbg_rtmodel rm;
  mbg_rtloops rl;
  mb_workspace ws;
  mb_loop_workspace lw;
  void *wbuf, *lbuf;
  double *K; /* all rows × nv, per sample */
  double *Q; /* orthonormal basis of the kept rows, per sample: nc_all × nv */
  int nQ[NSAMPLES];
  int nsamples;
} ctx;

static void ctx_free(ctx *c) {
  free(c->wbuf), free(c->lbuf), free(c->K), free(c->Q);
  mbg_rtloops_free(&c->rl);
  mbg_rtmodel_free(&c->rm);
}

static int ctx_init(ctx *c, const mbg_model *m, const mbg_topology *t) {
  memset(c, 0, sizeof *c);
  if (mbg_rtmodel_build(m, t, &c->rm) || mbg_rtloops_build(m, t, &c->rl)) return -1;
  const mb_model *rm = &c->rm.model;
  size_t nr = (size_t)c->rl.nrows, nv = (size_t)(rm->nv > 0 ? rm->nv : 1);
  c->wbuf = malloc(mb_workspace_size(rm));
  c->lbuf = malloc(mb_loop_workspace_size(rm, &c->rl.loops));
  c->K = calloc(NSAMPLES * (nr ? nr : 1) * nv, sizeof *c->K);
  c->Q = calloc(NSAMPLES * (nr ? nr : 1) * nv, sizeof *c->Q);
  if (!c->wbuf || !c->lbuf || !c->K || !c->Q) return -1;
  mb_workspace_init(&c->ws, rm, c->wbuf);
  mb_loop_workspace_init(&c->lw, rm, &c->rl.loops, c->lbuf);
  return 0;
}

/* splitmix64 */
static double uniform(uint64_t *s, double lo, double hi) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return lo + (hi - lo) * ((double)(z >> 11) / 9007199254740992.0);
}

/* Project q onto the rows of loops [l0, l1) alone; *start = their largest residual at q before.
 * Returns the runtime status (-100: out of memory). */
static int assemble_some(ctx *c, int l0, int l1, double *q, double *start) {
  const mb_model *rm = &c->rm.model;
  int first = 0, nr = 0, rc;
  /* the row list is ascending: the rows of loops [l0, l1) are one slice of it */
  while (first < c->rl.nrows && c->rl.row[first] / MB_LOOP_MAX_ROWS < l0) first++;
  while (first + nr < c->rl.nrows && c->rl.row[first + nr] / MB_LOOP_MAX_ROWS < l1) nr++;
  mb_loops sub = {c->rl.loops.nloops, c->rl.loop, nr, c->rl.row + first};
  void *buf = malloc(mb_loop_workspace_size(rm, &sub));
  mb_loop_workspace lw;
  if (!buf) return -100;
  mb_loop_workspace_init(&lw, rm, &sub, buf);
  *start = 0.0;
  if (mb_loop_residual(rm, &sub, &c->ws, &lw, q, lw.lam) == MB_OK)
    for (int r = 0; r < nr; r++) *start = fmax(*start, fabs(lw.lam[r]));
  rc = mb_project_q(rm, &sub, &c->ws, &lw, q);
  free(buf);
  return rc;
}

/* Report each loop that cannot be closed alone, or the last one if only together they cannot. */
static int report_assembly(ctx *c, const mbg_model *m, const mbg_topology *t, const double *q0,
                           mbg_diag *d) {
  const mb_model *rm = &c->rm.model;
  double *q = malloc(sizeof *q * (size_t)(rm->nq > 0 ? rm->nq : 1));
  int errors = 0;
  if (!q) return -1;
  for (int l = 0; l < t->nloops; l++) {
    memcpy(q, q0, sizeof *q * (size_t)rm->nq);
    double start;
    int rc = assemble_some(c, l, l + 1, q, &start);
    if (rc == -100) return free(q), -1;
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
    const mbg_loop *ml = &m->loops[t->loop[t->nloops - 1].model_loop];
    mbg_diag_error(d, ml->loc,
                   "the loops cannot be closed together near the model's initial configuration (each "
                   "closes alone): Newton's method on all their rows does not converge");
    errors++;
  }
  free(q);
  return errors;
}

/* K of every row at q into sample s. */
static int sample(ctx *c, const double *q) {
  const mb_model *rm = &c->rm.model;
  size_t n = (size_t)c->rl.nrows * (size_t)rm->nv;
  if (mb_loop_jacobian(rm, &c->rl.loops, &c->ws, &c->lw, q, c->K + (size_t)c->nsamples * n))
    return -1;
  c->nsamples++;
  return 0;
}

/* Assembled configurations: q0's projection and up to NSAMPLES − 1 drawn near it. */
static int draw_samples(ctx *c, const double *qa) {
  const mb_model *rm = &c->rm.model;
  size_t nq = (size_t)(rm->nq > 0 ? rm->nq : 1), nv = (size_t)(rm->nv > 0 ? rm->nv : 1);
  double *q = malloc(sizeof *q * nq), *dv = malloc(sizeof *dv * nv);
  uint64_t seed = 0x6d6264636c6f6f70ull; /* "mbdcloop" */
  if (!q || !dv) return free(q), free(dv), -1;
  sample(c, qa);
  for (int tries = 0; tries < TRIES && c->nsamples < NSAMPLES; tries++) {
    for (int k = 0; k < rm->nv; k++) dv[k] = uniform(&seed, -0.4, 0.4);
    memcpy(q, qa, sizeof *q * (size_t)rm->nq);
    if (mb_integrate(rm, q, dv, 1.0, q)) continue;
    if (mb_project_q(rm, &c->rl.loops, &c->ws, &c->lw, q)) continue;
    sample(c, q);
  }
  free(q), free(dv);
  return 0;
}

/* Is row r (unit-scaled) independent of the basis in sample s? Adds it to the basis if so
 * (returns its relative residual). */
static double try_row(ctx *c, int s, int r, int add) {
  int nv = c->rm.model.nv;
  size_t n = (size_t)c->rl.nrows * (size_t)nv;
  const double *k = c->K + (size_t)s * n + (size_t)r * (size_t)nv;
  double *Q = c->Q + (size_t)s * n, *x = Q + (size_t)c->nQ[s] * (size_t)nv, norm = 0.0, res = 0.0;
  for (int j = 0; j < nv; j++) norm += k[j] * k[j];
  norm = sqrt(norm);
  /* A row that vanishes identically (a spherical loop's row along a fixed axis through the
   * joint, e.g. two ball joints on one line) comes out as rounding noise (1e-33), which scaled
   * to unit length would look independent: rows far below the largest row of the sample are
   * zero. */
  double kmax = 0.0;
  for (int o = 0; o < c->rl.nrows; o++) {
    const double *ko = c->K + (size_t)s * n + (size_t)o * (size_t)nv;
    double n2 = 0.0;
    for (int j = 0; j < nv; j++) n2 += ko[j] * ko[j];
    kmax = fmax(kmax, sqrt(n2));
  }
  if (!(norm > ZERO_ROW * kmax)) return 0.0;
  for (int j = 0; j < nv; j++) x[j] = k[j] / norm;
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

static int select_rows(ctx *c, mbg_loop_rows *out, int nloops) {
  out->row = malloc(sizeof *out->row * (size_t)(c->rl.nrows > 0 ? c->rl.nrows : 1));
  out->nrows = calloc((size_t)(nloops > 0 ? nloops : 1), sizeof *out->nrows);
  out->nkept = calloc((size_t)(nloops > 0 ? nloops : 1), sizeof *out->nkept);
  if (!out->row || !out->nrows || !out->nkept) return -1;
  for (int r = 0; r < c->rl.nrows; r++) {
    int l = c->rl.row[r] / MB_LOOP_MAX_ROWS;
    double best = 0.0;
    for (int s = 0; s < c->nsamples; s++) best = fmax(best, try_row(c, s, r, 0));
    out->nrows[l]++;
    if (best > INDEPENDENT) {
      for (int s = 0; s < c->nsamples; s++) try_row(c, s, r, 1);
      out->row[out->nc++] = c->rl.row[r];
      out->nkept[l]++;
    }
  }
  out->nsamples = c->nsamples;
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

int mbg_check_loops(const mbg_model *m, const mbg_topology *t, const double *q0,
                    const char *path, const char *text, size_t len, FILE *out,
                    mbg_loop_rows *rows) {
  mbg_diag d;
  ctx c;
  int errors;
  if (rows) memset(rows, 0, sizeof *rows);
  mbg_diag_init(&d, path, text, len, out);
  if (t->nloops == 0) return 0;
  if ((errors = check_ends(m, t, &d)) != 0) return errors;
  if (ctx_init(&c, m, t)) return ctx_free(&c), -1;
  const mb_model *rm = &c.rm.model;
  double *qa = malloc(sizeof *qa * (size_t)(rm->nq > 0 ? rm->nq : 1));
  if (!qa) return ctx_free(&c), -1;
  if (q0)
    memcpy(qa, q0, sizeof *qa * (size_t)rm->nq);
  else
    mb_neutral(rm, qa);
  if (mb_project_q(rm, &c.rl.loops, &c.ws, &c.lw, qa)) {
    double *start = malloc(sizeof *start * (size_t)(rm->nq > 0 ? rm->nq : 1));
    if (!start) return free(qa), ctx_free(&c), -1;
    if (q0)
      memcpy(start, q0, sizeof *start * (size_t)rm->nq);
    else
      mb_neutral(rm, start);
    errors = report_assembly(&c, m, t, start, &d);
    free(start), free(qa), ctx_free(&c);
    return errors;
  }
  /* the samples only serve the row selection */
  int rc = rows ? draw_samples(&c, qa) : 0;
  if (!rc && rows) rc = select_rows(&c, rows, t->nloops);
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
