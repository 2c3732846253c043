/* mbt_contactsys.c — the contact tests' shared fixture (mbt_contactsys.h). */
#include "mbt_contactsys.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define MAXV MBT_CSYS_MAXV
#define MAXR MBT_CSYS_MAXR

void mbt_csys_open(mbt_csys *s, const char *rel, int floating) {
  memset(s, 0, sizeof *s);
  mbt_robot_open(&s->r, rel, floating);
  const mb_model *M = &s->r.rt.model;
  assert_int_equal(mbg_rtframes_build(s->r.t, &s->rf), 0);
  assert_true(M->nq <= MAXV);
  assert_non_null(s->wbuf = malloc(mb_workspace_size(M)));
  mb_workspace_init(&s->ws, M, s->wbuf);
  mb_contact big[MAXR / 6]; /* the scratch of the most rows: MAXR / 6 welds */
  for (int k = 0; k < MAXR / 6; k++) big[k].frame = 0, big[k].dim = 6;
  mb_contacts C = {MAXR / 6, big};
  assert_non_null(s->fdscr = malloc(mb_contact_scratch_size(M, &C)));
  assert_non_null(s->idscr = malloc(mb_contact_id_scratch_size(M, &C)));
}

void mbt_csys_close(mbt_csys *s) {
  free(s->idscr);
  free(s->fdscr);
  free(s->wbuf);
  mbg_rtframes_free(&s->rf);
  mbt_robot_close(&s->r);
}

int mbt_csys_frame(const mbt_csys *s, const char *name) {
  for (int k = 0; k < s->r.t->nframes; k++)
    if (strcmp(s->r.t->frame[k].name, name) == 0) return k;
  fail_msg("no frame '%s'", name);
  return -1;
}

int mbt_csys_body_frame(const mbt_csys *s) {
  int k = 0;
  while (k < s->rf.frames.n && s->rf.frame[k].body == 0) k++;
  assert_true(k < s->rf.frames.n);
  return k;
}

double mbt_csys_urand(uint64_t *seed, double lo, double hi) {
  *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * ((double)(*seed >> 11) / 9007199254740992.0);
}

void mbt_csys_state(const mb_model *M, uint64_t *seed, int nu, double *q, double *v, double *tau) {
  double d[MAXV];
  assert_int_equal(mb_neutral(M, q), MB_OK);
  for (int k = 0; k < M->nv; k++) {
    d[k] = mbt_csys_urand(seed, -2, 2), v[k] = mbt_csys_urand(seed, -1, 1);
    tau[k] = k < nu ? 0 : mbt_csys_urand(seed, -5, 5);
  }
  assert_int_equal(mb_integrate(M, q, d, 1.0, q), MB_OK);
}

int mbt_csys_rows(mbt_csys *s, const mb_contacts *C, const int *active, const double *q,
                  const double *v, double *J, double *b, int *entry) {
  const mb_model *M = &s->r.rt.model;
  int nv = M->nv, na = 0, o = 0;
  double Jf[6 * MAXV], acc[6];
  for (int k = 0; k < C->n; o += C->contact[k].dim, k++) {
    if (active && !active[k]) continue;
    mb_frames one = {1, &s->rf.frame[C->contact[k].frame]};
    assert_int_equal(mb_frame_jacobian(M, &one, &s->ws, q, 0, Jf), MB_OK);
    if (v) assert_int_equal(mb_frame_acceleration_bias(M, &one, &s->ws, q, v, acc), MB_OK);
    for (int r = 6 - C->contact[k].dim; r < 6; r++, na++) {
      memcpy(J + na * nv, Jf + r * nv, sizeof(double) * (size_t)nv);
      if (v) b[na] = acc[r];
      entry[na] = o + r - (6 - C->contact[k].dim);
    }
  }
  return na;
}

void mbt_csys_motion(mbt_csys *s, const mb_contacts *C, const int *active, const double *q,
                     const double *v, const double *qdd, const double *tau, const double *f,
                     double *em) {
  const mb_model *M = &s->r.rt.model;
  int nv = M->nv, entry[MAXR];
  double J[MAXR * MAXV], Mm[MAXV * MAXV], h[MAXV], ms = 1e-300, rm[MAXV];
  int na = mbt_csys_rows(s, C, active, q, NULL, J, NULL, entry);
  assert_int_equal(mb_crba(M, &s->ws, q, Mm), MB_OK);
  assert_int_equal(mb_nle(M, &s->ws, q, v, h), MB_OK);
  for (int k = 0; k < nv; k++) {
    double x = h[k] - tau[k], a = fabs(h[k]) + fabs(tau[k]);
    for (int j = 0; j < nv; j++) x += Mm[k * nv + j] * qdd[j], a += fabs(Mm[k * nv + j] * qdd[j]);
    for (int r = 0; r < na; r++)
      x -= J[r * nv + k] * f[entry[r]], a += fabs(J[r * nv + k] * f[entry[r]]);
    rm[k] = x, ms = fmax(ms, a);
  }
  for (int k = 0; k < nv; k++) *em = fmax(*em, fabs(rm[k]) / ms);
}

double mbt_csys_rel_diff(const double *a, const double *b, int n) {
  double d = 0.0, sc = 1e-300;
  for (int k = 0; k < n; k++) d = fmax(d, fabs(a[k] - b[k])), sc = fmax(sc, fabs(b[k]));
  return d / sc;
}

int mbt_csys_untouched(const double *x, int n) {
  for (int k = 0; k < n; k++)
    if (x[k] != 12345.0) return 0;
  return 1;
}
