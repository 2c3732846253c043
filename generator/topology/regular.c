/* regular.c — the mass matrix regular in a generic configuration (regular.h). */
#include "topology/regular.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "topology/rtmodel.h"
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

static int has_merged(const mbg_topology *t, int i) {
  for (int k = 0; k < t->nmerged; k++)
    if (t->merged[k].into == i && t->merged[k].model_body != t->body[i].model_body) return 1;
  return 0;
}

/* Why joint i is singular, as notes: what it moves, held rigid, has no inertia along its motion
 * (the composite inertia of its subtree, every joint beyond locked, is singular along S_i), or a
 * joint beyond it takes up the same motion (locking that one child alone makes D_i regular). */
static void explain(mbg_diag *d, const mbg_model *m, const mbg_topology *t, mb_workspace *ws,
                    const double *Ia, int i) {
  const mb_model *rt = ws->model;
  const mbg_body *b = &m->bodies[t->body[i].model_body];
  double C[36], X[36];
  /* the composite inertia IC_i of the subtree, at i's origin (everything beyond held rigid) */
  for (int k = 0; k < 36; k++) C[k] = 0.0;
  for (int j = t->body[i].subtree_end - 1; j >= i; j--) {
    double A[36];
    mbs_I_mat(rt->inertia + 10 * j, A);
    for (int k = 0; k < 36; k++) X[k] = A[k];
    /* carry j's own inertia up to i */
    for (int a = j; a != i; a = rt->parent[a]) mbs_mat6_to_parent(ws->XE + 9 * a, ws->Xr + 3 * a, X, X);
    for (int k = 0; k < 36; k++) C[k] += X[k];
  }
  char beyond[96] = "";
  if (t->body[i].subtree_end > i + 1 || has_merged(t, i))
    snprintf(beyond, sizeof beyond, ", with %s,",
             t->body[i].subtree_end > i + 1 ? "everything beyond it held rigid"
                                            : "the bodies fixed to it");
  if (!regular_along(rt, ws, i, C)) {
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
  for (int c = i + 1; c < t->body[i].subtree_end; c++) {
    if (rt->parent[c] != i) continue;
    /* IA_i with joint c locked: + cXᵢᵀ (IA_c − Ia_c) cXᵢ */
    double A[36];
    for (int k = 0; k < 36; k++) X[k] = ws->IA[36 * c + k] - Ia[36 * c + k];
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

/* A workspace with only the arrays the articulated-body steps read and write (mb_xup,
 * mb_pivot_refs, mb_aba_joint: runtime/mb.h): a whole one holds the CFA's dense nc × nc matrix,
 * 200 MB for a tree of 1000 bodies. The same layout and tag as mb_workspace_init's. Returns the
 * buffer (free it), NULL when out of memory. */
static double *aba_workspace(const mb_model *m, mb_workspace *ws) {
  size_t nb1 = (size_t)m->nb + 1, nv = (size_t)m->nv;
  size_t n = 6 * nv + 9 * nb1 + 3 * nb1 + 36 * nb1 + 6 * nv + 6 * nv + 2 * nv + 2 * nb1;
  double *p = calloc(n, sizeof *p), *buf = p;
  if (!p) return NULL;
  memset(ws, 0, sizeof *ws);
  ws->model = m, ws->tag = MB_WS_TAG, ws->nb = m->nb, ws->nq = m->nq, ws->nv = m->nv;
  ws->S = p, p += 6 * nv;
  ws->XE = p, p += 9 * nb1;
  ws->Xr = p, p += 3 * nb1;
  ws->IA = p, p += 36 * nb1;
  ws->U = p, p += 6 * nv;
  ws->D = p, p += 6 * nv;
  ws->Dref = p, p += nv;
  ws->Dbase = p, p += nv;
  ws->Jsub = p, p += nb1;
  ws->msub = p;
  for (int i = 1; i <= m->nb; i++) mb_joint_S(m, i, ws->S + 6 * m->iv[i]);
  ws->XE[0] = ws->XE[4] = ws->XE[8] = 1.0;
  return buf;
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

int mbg_check_regular(const mbg_model *m, const char *path, const char *text, size_t len,
                      FILE *out) {
  mbg_topology *t = mbg_topology_build(m);
  mbg_rtmodel rt;
  memset(&rt, 0, sizeof rt);
  if (!t || mbg_rtmodel_build(m, t, &rt) != 0) return mbg_topology_free(t), -1;
  const mb_model *rm = &rt.model;
  int nb = rm->nb, errors = -1;
  mb_workspace ws;
  double *buf = aba_workspace(rm, &ws), *q = malloc(sizeof(double) * ((size_t)rm->nq + 1));
  double *Ia = malloc(36 * sizeof(double) * ((size_t)nb + 1));
  char *fail = calloc((size_t)nb + 1, 1), *count = calloc((size_t)nb + 1, 1);
  mbg_diag md;
  mbg_diag_init(&md, path, text, len, out);
  if (check_modal(m, t, &md) > 0) {
    errors = md.errors; /* the joints' check would only see the same singularity */
  } else if (buf && q && Ia && fail && count) {
    uint64_t seed = 0x6d62646372656775ull; /* "mbdcregu" */
    for (int c = 0; c < NCONF; c++) {
      random_q(rm, &seed, q);
      backward(rm, &ws, q, fail, Ia);
      for (int i = 1; i <= nb; i++) count[i] = (char)(count[i] + fail[i]);
    }
    mbg_diag d;
    mbg_diag_init(&d, path, text, len, out);
    /* in the order the joints are declared */
    for (int j = 0; j < m->njoints; j++)
      for (int i = 1; i <= nb; i++) {
        if (t->body[i].model_joint != j || count[i] < NFAIL) continue;
        mbg_diag_error(&d, m->joints[j].loc,
                       "joint '%s' moves nothing that resists it: the mass matrix is singular "
                       "along its motion in every configuration", m->joints[j].name);
        /* explain at a configuration where it fails */
        seed = 0x6d62646372656775ull;
        for (int c = 0; c < NCONF; c++) {
          random_q(rm, &seed, q);
          backward(rm, &ws, q, fail, Ia);
          if (fail[i]) break;
        }
        explain(&d, m, t, &ws, Ia, i);
      }
    errors = d.errors;
  }
  free(buf), free(q), free(Ia), free(fail), free(count);
  mbg_rtmodel_free(&rt);
  mbg_topology_free(t);
  return errors;
}
