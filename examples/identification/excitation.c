/* excitation.c — the exciting trajectories (ident.h): finite Fourier series per joint, held within
 * the robot's limits, their coefficients chosen by a random search to lower the condition number
 * of the stacked regressor. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"

#define PI 3.14159265358979323846

double id_uniform(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15u); /* splitmix64 */
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

double id_gauss(uint64_t *s) {
  double u = 1.0 - id_uniform(s), w = id_uniform(s); /* Box-Muller, u in (0, 1] */
  return sqrt(-2.0 * log(u)) * cos(2.0 * PI * w);
}

void fourier_eval(const id_fourier *f, double t, double *q, double *v, double *a) {
  for (int j = 0; j < f->nv; j++) {
    q[j] = f->q0[j], v[j] = 0.0, a[j] = 0.0;
    for (int l = 0; l < ID_NH; l++) {
      double w = f->wf * (l + 1), s = sin(w * t), c = cos(w * t);
      q[j] += (f->a[j][l] * s - f->b[j][l] * c) / w;
      v[j] += f->a[j][l] * c + f->b[j][l] * s;
      a[j] += w * (f->b[j][l] * c - f->a[j][l] * s);
    }
  }
}

void fourier_bounds(const id_fourier *f, int j, double *bq, double *bv, double *ba) {
  *bq = *bv = *ba = 0.0;
  for (int l = 0; l < ID_NH; l++) {
    double w = f->wf * (l + 1), c = hypot(f->a[j][l], f->b[j][l]);
    *bq += c / w, *bv += c, *ba += c * w;
  }
}

/* Scale joint j's coefficients so that the tightest of its three bounds is met with equality:
 * the largest motion the limits allow with this shape. */
static void fit_limits(id_fourier *f, const id_robot *r, int j) {
  double bq, bv, ba;
  fourier_bounds(f, j, &bq, &bv, &ba);
  if (!(bv > 0.0)) return;
  double s = fmin(r->dq[j] / bq, fmin(r->vmax[j] / bv, r->amax[j] / ba));
  for (int l = 0; l < ID_NH; l++) f->a[j][l] *= s, f->b[j][l] *= s;
}

void fourier_random(id_fourier *f, const id_robot *r, double wf, uint64_t *seed) {
  memset(f, 0, sizeof *f);
  f->nv = r->nv, f->wf = wf;
  for (int j = 0; j < r->nv; j++) {
    f->q0[j] = r->q0[j];
    for (int l = 0; l < ID_NH; l++) f->a[j][l] = id_gauss(seed), f->b[j][l] = id_gauss(seed);
    fit_limits(f, r, j);
  }
}

void fourier_stack(const id_fourier *f, const id_robot *r, int ns, double *W) {
  double T = 2.0 * PI / f->wf, q[ID_MAXV], v[ID_MAXV], a[ID_MAXV];
  for (int k = 0; k < ns; k++) {
    fourier_eval(f, T * k / ns, q, v, a);
    robot_row(r, q, v, a, W + (size_t)k * (size_t)(r->nv * r->ncol));
  }
}

static double stacked_cond(const id_fourier *f, const id_robot *r, int ns, double *W) {
  fourier_stack(f, r, ns, W);
  double c = lsq_cond(ns * r->nv, r->ncol, W);
  return c > 0.0 ? c : HUGE_VAL;
}

/* A random search: perturb one joint's coefficients by a step relative to their size, put them
 * back on the limits, keep the change if the condition number drops; the step grows after a
 * success and shrinks after a failure. */
double fourier_optimise(id_fourier *f, const id_robot *r, int ns, int budget, uint64_t *seed,
                        double *cond0) {
  double *W = malloc(sizeof(double) * (size_t)ns * (size_t)(r->nv * r->ncol));
  if (!W) return *cond0 = HUGE_VAL;
  double best = stacked_cond(f, r, ns, W), step = 0.3;
  *cond0 = best;
  for (int e = 1; e < budget; e++) {
    id_fourier g = *f;
    int j = (int)(id_uniform(seed) * r->nv);
    double size = 0.0;
    for (int l = 0; l < ID_NH; l++) size += g.a[j][l] * g.a[j][l] + g.b[j][l] * g.b[j][l];
    size = sqrt(size / (2 * ID_NH));
    for (int l = 0; l < ID_NH; l++) {
      g.a[j][l] += step * size * id_gauss(seed);
      g.b[j][l] += step * size * id_gauss(seed);
    }
    fit_limits(&g, r, j);
    double c = stacked_cond(&g, r, ns, W);
    if (c < best) {
      best = c, *f = g, step = fmin(1.0, step * 1.5);
    } else {
      step = fmax(0.02, step * 0.9);
    }
  }
  free(W);
  return best;
}
