/* regular.c — the mass matrix regular in a generic configuration (regular.h). */
#include "topology/regular.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "topology/rtmodel.h"
#include "topology/rtwork.h"
#include "topology/topology.h"

/* Configurations tried, and how many of them a joint's pivot must fail in to be reported: a
 * singular joint fails in all of them (the rule's ε is 1e-12 of a bound of the pivot's rounding
 * noise); a regular one, in none but with probability zero. */
enum { NCONF = 5, NFAIL = 3 };
/* The most modes a flexible body has (model/build_flex.c refuses more). */
enum { MAX_MODES = 64 };

/* xorshift64*: a fixed stream in [0, 1). */
static double uniform(uint64_t *s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* A generic configuration: angles in [-π, π), displacements in [-1, 1), unit quaternions. */
static void random_q(const mb_model *m, uint64_t *s, double *q) {
  for (int i = 1; i <= m->nb; i++) {
    double *qi = q + m->iq[i];
    mb_joint_type jt = m->jtype[i];
    int nq = mb_joint_nq(jt), iquat = mb_joint_quat(jt);
    for (int k = 0; k < nq; k++) qi[k] = 6.283185307179586 * uniform(s) - 3.141592653589793;
    if (mb_joint_has_axis(jt) && !mb_joint_is_angle(jt)) qi[0] /= 3.141592653589793;
    if (iquat >= 0) {
      double *u = qi + iquat, n2 = 0.0;
      for (int k = 0; k < 4; k++) u[k] = 2.0 * uniform(s) - 1.0, n2 += u[k] * u[k];
      if (n2 < 1e-6) u[3] = n2 = 1.0;
      for (int k = 0; k < 4; k++) u[k] /= sqrt(n2);
    }
  }
}

/* The articulated-body backward pass at q (runtime/aba.c, the same pivot rule): fail[i] = 1 for
 * every joint whose pivot fails; such a joint is locked (its whole articulated inertia passed on)
 * so that the joints above it are judged on their own. Ia[36 i] keeps what body i passed on. */
static void backward(const mb_model *m, mb_workspace *ws, const double *q, char *fail, double *Ia) {
  double t[36];
  mb_xup(m, ws, q);
  for (int i = 1; i <= m->nb; i++) mbs_I_mat(m->inertia + 10 * i, ws->IA + 36 * i);
  mb_pivot_refs(m, ws);
  for (int i = m->nb; i >= 1; i--) {
    fail[i] = mb_aba_joint(m, ws, i, Ia + 36 * i) != 0;
    if (fail[i]) memcpy(Ia + 36 * i, ws->IA + 36 * i, sizeof t);
    int p = m->parent[i];
    if (p == 0) continue;
    mbs_mat6_to_parent(ws->XE + 9 * i, ws->Xr + 3 * i, Ia + 36 * i, t);
    for (int k = 0; k < 36; k++) ws->IA[36 * p + k] += t[k];
  }
}

/* 1 if Sᵢᵀ A Sᵢ passes the pivot rule against the base references of joint i (ws->Dbase). */
static int regular_along(const mb_model *m, const mb_workspace *ws, int i, const double *A) {
  int n = mb_joint_nv(m->jtype[i]), o = m->iv[i];
  double D[36], x[6];
  for (int c = 0; c < n; c++) {
    for (int k = 0; k < 6; k++) {
      x[k] = 0.0;
      for (int l = 0; l < 6; l++) x[k] += A[6 * k + l] * ws->S[6 * (o + c) + l];
    }
    for (int r = c; r < n; r++) {
      D[n * r + c] = 0.0;
      for (int k = 0; k < 6; k++) D[n * r + c] += ws->S[6 * (o + r) + k] * x[k];
    }
  }
  return mbs_chol_ref(n, D, ws->Dbase + o) == 0;
}

/* The model's names for tree body i: its joint and its body. */
static const mbg_joint *joint_of(const mbg_model *m, const mbg_topology *t, int i) {
  return &m->joints[t->body[i].model_joint];
}

/* The state of the backward pass at one configuration, and what the checks below need of it:
 * IC[36 i] the composite inertia of i's subtree at i's origin (everything beyond held rigid),
 * merged[i] 1 when other model bodies are fixed to tree body i. */
typedef struct pass_state {
  const mbg_model *m;
  const mbg_topology *t;
  mb_workspace *ws;
  double *Ia, *IC, *q;
  char *fail, *merged;
  int loaded; /* the configuration the arrays hold (its number + 1; 0 none) */
} pass_state;

/* The composite inertias of every subtree, in one pass from the leaves. */
static void composite(const mb_model *m, const mb_workspace *ws, double *IC) {
  for (int i = 1; i <= m->nb; i++) mbs_I_mat(m->inertia + 10 * i, IC + 36 * i);
  for (int i = m->nb; i >= 1; i--) {
    double X[36];
    if (m->parent[i] == 0) continue;
    mbs_mat6_to_parent(ws->XE + 9 * i, ws->Xr + 3 * i, IC + 36 * i, X);
    for (int k = 0; k < 36; k++) IC[36 * m->parent[i] + k] += X[k];
  }
}

/* Why joint i is singular, as notes: what it moves, held rigid, has no inertia along its motion
 * (the composite inertia of its subtree, every joint beyond locked, is singular along S_i), or a
 * joint beyond it takes up the same motion (locking that one child alone makes D_i regular). */
static void explain(mbg_diag *d, const pass_state *st, int i) {
  const mbg_model *m = st->m;
  const mbg_topology *t = st->t;
  mb_workspace *ws = st->ws;
  const mb_model *rt = ws->model;
  const mbg_body *b = &m->bodies[t->body[i].model_body];
  char beyond[96] = "";
  if (t->body[i].subtree_end > i + 1 || st->merged[i])
    snprintf(beyond, sizeof beyond, ", with %s,",
             t->body[i].subtree_end > i + 1 ? "everything beyond it held rigid"
                                            : "the bodies fixed to it");
  if (!regular_along(rt, ws, i, st->IC + 36 * i)) {
    const char *what;
    switch (t->body[i].type) {
    case MBG_JOINT_REVOLUTE:
    case MBG_JOINT_CONTINUOUS:
      what = "has no mass off the joint's axis and no moment of inertia about it";
      break;
    case MBG_JOINT_SPHERICAL:
      what = "has a singular rotational inertia about the joint's centre (all its mass on one line "
             "through the centre)";
      break;
    case MBG_JOINT_FLOATING:
      what = "has a singular rotational inertia about its centre of mass (a point mass or a thin "
             "rod)";
      break;
    default: what = "has no inertia along the joint's motion"; break;
    }
    mbg_diag_note(d, b->loc, "body '%s'%s %s", b->name, beyond, what);
    return;
  }
  int found = 0;
  for (int c = t->body[i].first_child; c > 0; c = t->body[c].next_sibling) {
    /* IA_i with joint c locked: + cXᵢᵀ (IA_c − Ia_c) cXᵢ */
    double A[36], X[36];
    for (int k = 0; k < 36; k++) X[k] = ws->IA[36 * c + k] - st->Ia[36 * c + k];
    mbs_mat6_to_parent(ws->XE + 9 * c, ws->Xr + 3 * c, X, X);
    for (int k = 0; k < 36; k++) A[k] = ws->IA[36 * i + k] + X[k];
    if (!regular_along(rt, ws, i, A)) continue;
    const mbg_joint *jc = joint_of(m, t, c);
    mbg_diag_note(d, jc->loc, "joint '%s' beyond it takes up the same motion freely: with it "
                  "locked, '%s' would move inertia", jc->name, joint_of(m, t, i)->name);
    found = 1;
  }
  if (!found)
    mbg_diag_note(d, b->loc, "body '%s' and the joints beyond it let the motion through without "
                  "resistance", b->name);
}

/* |X|ᵀ |A| |X| entry by entry, X = iXλ = [E 0; −E r× E] the motion transform of (E, r): a bound
 * of every term λX*ᵢ A iXλ is summed from. */
static void abs_to_parent(const double E[9], const double r[3], const double A[36],
                          double out[36]) {
  double X[36] = {0}, T[36];
  const double rx[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      double s = 0.0;
      for (int k = 0; k < 3; k++) s += E[3 * a + k] * rx[3 * k + b];
      X[6 * a + b] = X[6 * (a + 3) + b + 3] = fabs(E[3 * a + b]);
      X[6 * (a + 3) + b] = fabs(s);
    }
  for (int a = 0; a < 6; a++)
    for (int b = 0; b < 6; b++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += fabs(A[6 * a + k]) * X[6 * k + b];
      T[6 * a + b] = s;
    }
  for (int a = 0; a < 6; a++)
    for (int b = 0; b < 6; b++) {
      double s = 0.0;
      for (int k = 0; k < 6; k++) s += X[6 * k + a] * T[6 * k + b];
      out[6 * a + b] = s;
    }
}

/* 1 if joint i's pivots are rounding noise against the terms its D_i is summed from at this level
 * (|S|ᵀ (|I_i| + Σ_c |X_c|ᵀ |IA_c| |X_c|) |S|: magnitudes that do not grow with the length of the
 * tree beyond it), so that it is singular; 0 if only the pivot rule's configuration-independent
 * references (which bound the noise of every configuration, and grow as the cube of a chain's
 * length) reject it. With the smallest ratio of a pivot's diagonal to its reference in *ratio and
 * that pivot and reference in pr[2]. */
static int locally_singular(const pass_state *st, int i, double *ratio, double pr[2]) {
  const mb_model *rt = st->ws->model;
  const mb_workspace *ws = st->ws;
  const mbg_topology *t = st->t;
  int n = mb_joint_nv(rt->jtype[i]), o = rt->iv[i];
  double A[36], Y[36], D[36], ref[6];
  mbs_I_mat(rt->inertia + 10 * i, A);
  for (int k = 0; k < 36; k++) A[k] = fabs(A[k]);
  for (int c = t->body[i].first_child; c > 0; c = t->body[c].next_sibling) {
    abs_to_parent(ws->XE + 9 * c, ws->Xr + 3 * c, ws->IA + 36 * c, Y);
    for (int k = 0; k < 36; k++) A[k] += Y[k];
  }
  *ratio = HUGE_VAL;
  for (int l = 0; l < n; l++) {
    const double *s = ws->S + 6 * (o + l);
    double x[6], dl = 0.0;
    ref[l] = 0.0;
    for (int k = 0; k < 6; k++) {
      x[k] = 0.0;
      for (int c = 0; c < 6; c++) x[k] += fabs(A[6 * k + c]) * fabs(s[c]);
      ref[l] += fabs(s[k]) * x[k];
      for (int c = 0; c < 6; c++) dl += s[k] * ws->IA[36 * i + 6 * k + c] * s[c];
    }
    for (int r = 0; r <= l; r++) {
      D[n * l + r] = 0.0;
      for (int k = 0; k < 6; k++)
        for (int c = 0; c < 6; c++)
          D[n * l + r] += s[k] * ws->IA[36 * i + 6 * k + c] * ws->S[6 * (o + r) + c];
    }
    if (dl / ws->Dref[o + l] < *ratio)
      *ratio = dl / ws->Dref[o + l], pr[0] = dl, pr[1] = ws->Dref[o + l];
  }
  return mbs_chol_ref(n, D, ref) != 0;
}

/* 1 if the n values at x are all finite. */
static int finite_all(const double *x, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (!isfinite(x[k])) return 0;
  return 1;
}

/* 1 if the modal mass (nm × nm, symmetric) is positive definite by the runtime's pivot rule
 * (mbs_chol: each pivot above MB_PIVOT_EPS of its diagonal entry), so that a mode that moves no
 * mass or two modes with the same shapes fail it. */
static int modal_mass_regular(int nm, const double *Mee) {
  double A[MAX_MODES * MAX_MODES];
  memcpy(A, Mee, sizeof(double) * (size_t)nm * (size_t)nm);
  return mbs_chol(nm, A) == 0;
}

/* Every flexible body's modal data finite and its modal mass regular: else the mass matrix is
 * singular (or not a number) in every configuration, whatever the joints do. Errors at the
 * body; returns how many. */
static int check_modal(const mbg_model *m, const mbg_topology *t, mbg_diag *d) {
  int errors = 0;
  for (int i = 1; i <= t->nb; i++) {
    const mbg_modal *md = &t->body[i].modal;
    int nm = t->body[i].nm;
    if (nm <= 0) continue;
    const mbg_body *b = &m->bodies[t->body[i].model_body];
    size_t n2 = (size_t)nm * (size_t)nm;
    if (!finite_all(md->Mc, 6 * (size_t)nm) || !finite_all(md->Mee, n2) ||
        !finite_all(md->K, n2) || !finite_all(md->D, n2) || !finite_all(md->Q, 36 * (size_t)nm)) {
      mbg_diag_error(d, b->loc, "the modal data of flexible body '%s' overflow (a mode shape or "
                                "node entry too large to square and sum in double precision)",
                     b->name);
      errors++;
    } else if (nm > MAX_MODES || !modal_mass_regular(nm, md->Mee)) {
      mbg_diag_error(d, b->loc, "the modal mass of flexible body '%s' is singular: a mode moves "
                                "no mass, or its modes are linearly dependent (two with the same "
                                "shapes); the mass matrix is singular in every configuration",
                     b->name);
      errors++;
    }
  }
  return errors;
}

/* Load configuration c (0-based, drawn from seeds[c]) into st unless it is there already. */
static void load(pass_state *st, const uint64_t *seeds, int c) {
  if (st->loaded == c + 1) return;
  const mb_model *rm = st->ws->model;
  uint64_t seed = seeds[c];
  random_q(rm, &seed, st->q);
  backward(rm, st->ws, st->q, st->fail, st->Ia);
  composite(rm, st->ws, st->IC);
  st->loaded = c + 1;
}

/* The error for the joints only the rule's configuration-independent references reject (long
 * chains), when that happens in NFAIL of the NCONF configurations: one error, at the joint of the
 * smallest pivot against its reference. */
static void report_precision(mbg_diag *d, const pass_state *st, int nconf, int njoints, int worst,
                             const double pr[2]) {
  const mbg_joint *jt = joint_of(st->m, st->t, worst);
  int beyond = st->t->body[worst].subtree_end - worst - 1;
  mbg_diag_error(d, jt->loc,
                 "the pivot rule cannot tell the motion of joint '%s' from rounding noise: its "
                 "articulated inertia is regular, but its pivot is below 1e-12 of the rule's "
                 "reference (%.3g against %.3g), and %d joint%s fail%s so in %d of the %d "
                 "configurations tried: the generated functions and the runtime would return -1 "
                 "in most states",
                 jt->name, pr[0], pr[1], njoints, njoints > 1 ? "s" : "", njoints > 1 ? "" : "s",
                 nconf, NCONF);
  mbg_diag_note(d, jt->loc,
                "the reference bounds the rounding noise of every configuration, so it grows with "
                "the square of the reach of what a joint carries (%d bodies beyond '%s'): on a "
                "serial chain, as the cube of its length; a chain of a few thousand links "
                "reaches it",
                beyond, jt->name);
}

/* The joints whose pivot fails the rule in NFAIL of the NCONF configurations (count, and the
 * first configuration each fails in): singular ones as errors with their notes, in the order the
 * joints are declared; then the configurations where only the rule's references reject a regular
 * joint. Linear in the number of bodies: each configuration's pass runs at most twice, and once
 * more per printed error (at most max_errors times). */
static void report(mbg_diag *d, pass_state *st, const uint64_t *seeds, const char *count,
                   const char *first) {
  const mbg_model *m = st->m;
  const mbg_topology *t = st->t;
  int nb = t->nb, nprec = 0, nconf = 0, worst = 0;
  int *body_of = calloc((size_t)m->njoints + 1, sizeof *body_of);
  char *singular = calloc((size_t)nb + 1, 1), *prec = calloc((size_t)nb + 1, 1);
  double wratio = HUGE_VAL, wpr[2] = {0.0, 0.0};
  if (!body_of || !singular || !prec) {
    free(body_of), free(singular), free(prec);
    d->errors = -1;
    return;
  }
  for (int i = 1; i <= nb; i++) body_of[t->body[i].model_joint] = i;
  for (int c = 0; c < NCONF; c++) {
    int any = 0;
    load(st, seeds, c);
    for (int i = 1; i <= nb; i++) {
      if (!st->fail[i]) continue;
      double ratio, pr[2] = {0.0, 0.0};
      if (locally_singular(st, i, &ratio, pr)) {
        if (first[i] == c) singular[i] = count[i] >= NFAIL;
        continue;
      }
      any = 1, nprec += !prec[i], prec[i] = 1;
      if (ratio < wratio) wratio = ratio, worst = i, wpr[0] = pr[0], wpr[1] = pr[1];
    }
    nconf += any;
  }
  for (int j = 0; j < m->njoints; j++) {
    int i = body_of[j];
    if (i == 0 || !singular[i]) continue;
    mbg_diag_error(d, m->joints[j].loc,
                   "joint '%s' moves nothing that resists it: the mass matrix is singular along "
                   "its motion in every configuration", m->joints[j].name);
    if (!mbg_diag_will_print(d)) continue;
    load(st, seeds, first[i]);
    explain(d, st, i);
  }
  if (nconf >= NFAIL) report_precision(d, st, nconf, nprec, worst, wpr);
  free(body_of), free(singular), free(prec);
}

int mbg_check_regular(const mbg_model *m, const char *path, const char *text, size_t len,
                      FILE *out) {
  mbg_topology *t = mbg_topology_build(m);
  mbg_rtmodel rt;
  memset(&rt, 0, sizeof rt);
  if (!t || mbg_rtmodel_build(m, t, &rt) != 0) return mbg_topology_free(t), -1;
  const mb_model *rm = &rt.model;
  int nb = rm->nb, errors = -1;
  size_t nb1 = (size_t)nb + 1;
  mb_workspace ws;
  pass_state st = {m, t, &ws, NULL, NULL, NULL, NULL, NULL, 0};
  double *buf = mbg_lean_workspace(rm, &ws);
  st.q = malloc(sizeof(double) * ((size_t)rm->nq + 1));
  st.Ia = malloc(36 * sizeof(double) * nb1), st.IC = malloc(36 * sizeof(double) * nb1);
  st.fail = calloc(nb1, 1), st.merged = calloc(nb1, 1);
  char *count = calloc(nb1, 1), *first = calloc(nb1, 1);
  mbg_diag md;
  mbg_diag_init(&md, path, text, len, out);
  if (check_modal(m, t, &md) > 0) {
    errors = md.errors; /* the joints' check would only see the same singularity */
  } else if (buf && st.q && st.Ia && st.IC && st.fail && st.merged && count && first) {
    uint64_t seeds[NCONF], seed = 0x6d62646372656775ull; /* "mbdcregu" */
    for (int k = 0; k < t->nmerged; k++) {
      int into = t->merged[k].into;
      if (into > 0 && t->merged[k].model_body != t->body[into].model_body) st.merged[into] = 1;
    }
    for (int c = 0; c < NCONF; c++) {
      seeds[c] = seed;
      random_q(rm, &seed, st.q);
      backward(rm, &ws, st.q, st.fail, st.Ia);
      for (int i = 1; i <= nb; i++) {
        if (st.fail[i] && count[i] == 0) first[i] = (char)c;
        count[i] = (char)(count[i] + st.fail[i]);
      }
    }
    mbg_diag d;
    mbg_diag_init(&d, path, text, len, out);
    report(&d, &st, seeds, count, first);
    errors = d.errors;
  }
  free(buf), free(st.q), free(st.Ia), free(st.IC), free(st.fail), free(st.merged);
  free(count), free(first);
  mbg_rtmodel_free(&rt);
  mbg_topology_free(t);
  return errors;
}
