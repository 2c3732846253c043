/* payload_test.c — a payload changed at run time (tests/payload_test.sh; docs/parameters.md).
 *
 * The functions generated from tests/payload/payload_arm.mbd with its `parameters payload
 * gravity;` (prefix payload_arm: pi is the payload's ten parameters and gravity) are called with
 * the pi of each of NVARIANT payloads and gravities in turn, as a controller does between calls,
 * and compared with the code generated from copies of the model with those payloads and
 * gravities written in as constants (prefixes c0, c1, ...: tests/payload_test.sh writes them and
variants.h). Reference: the regenerated code, to 1e-12 relative per function. The pi is
 * computed here from the model file's numbers (mass, centre of mass, inertia about it) by the
 * parallel-axis theorem, independently of the generator's own conversion. */
#include <math.h>
#include <stdio.h>

#include "payload_arm_dynamics.h"

#define NQ PAYLOAD_ARM_NQ
#define NV PAYLOAD_ARM_NV

typedef void rnea_fn(const double *, const double *, const double *, double *);
typedef void crba_fn(const double *, double *);
typedef int aba_fn(const double *, const double *, const double *, double *);

/* NVARIANT and variant_table: each payload's mass, centre of mass, inertia about it and gravity
 * as the model file gives them, and the functions generated with them as constants */
#include "variants.h"
#define variant variant_table

/* Pinocchio's order about the payload frame's origin: m, m c, Ixx Ixy Iyy Ixz Iyz Izz with
 * I_O = I_C + m (|c|^2 1 - c c^T); I_C given as ixx iyy izz ixy ixz iyz (tensor entries). */
static void payload_pi(const struct payload_variant *p, double pi[PAYLOAD_ARM_NPI]) {
  const double m = p->mass, *c = p->com, *I = p->inertia;
  const double c2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
  pi[0] = m, pi[1] = m * c[0], pi[2] = m * c[1], pi[3] = m * c[2];
  pi[4] = I[0] + m * (c2 - c[0] * c[0]);
  pi[5] = I[3] - m * c[0] * c[1];
  pi[6] = I[1] + m * (c2 - c[1] * c[1]);
  pi[7] = I[4] - m * c[0] * c[2];
  pi[8] = I[5] - m * c[1] * c[2];
  pi[9] = I[2] + m * (c2 - c[2] * c[2]);
  for (int k = 0; k < 3; k++) pi[10 + k] = p->gravity[k];
}

static double uniform(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* max |x - y| / max(1, max |y|) over n */
static double relerr(const double *x, const double *y, int n) {
  double e = 0, s = 1;
  for (int k = 0; k < n; k++) {
    double d = fabs(x[k] - y[k]);
    e = d > e || d != d ? d : e;
    s = fabs(y[k]) > s ? fabs(y[k]) : s;
  }
  return e / s;
}

int main(void) {
  unsigned long long seed = 20261206u;
  double worst = 0;
  int bad = 0;
  for (int k = 0; k < NVARIANT; k++) {
    double pi[PAYLOAD_ARM_NPI];
    payload_pi(&variant[k], pi);
    for (int state = 0; state < 50; state++) {
      double q[NQ], v[NV], a[NV], t1[NV], t2[NV], M1[NV * NV], M2[NV * NV], g1[NV], g2[NV];
      for (int i = 0; i < NQ; i++) q[i] = uniform(&seed, -3, 3);
      for (int i = 0; i < NV; i++) v[i] = uniform(&seed, -2, 2), a[i] = uniform(&seed, -2, 2);
      payload_arm_rnea(pi, q, v, a, t1);
      variant[k].fn.rnea(q, v, a, t2);
      double e = relerr(t1, t2, NV);
      payload_arm_crba(pi, q, M1);
      variant[k].fn.crba(q, M2);
      double e2 = relerr(M1, M2, NV * NV);
      e = e2 > e ? e2 : e;
      int r1 = payload_arm_aba(pi, q, v, a, g1), r2 = variant[k].fn.aba(q, v, a, g2);
      double e3 = relerr(g1, g2, NV);
      e = e3 > e ? e3 : e;
      if (r1 != 0 || r2 != 0) bad++;
      worst = e > worst || e != e ? e : worst;
    }
    printf("payload %d: mass %g kg, com (%g, %g, %g) m, gravity (%g, %g, %g)\n", k,
           variant[k].mass, variant[k].com[0], variant[k].com[1], variant[k].com[2],
           variant[k].gravity[0], variant[k].gravity[1], variant[k].gravity[2]);
  }
  printf("rnea, crba, aba with pi against the regenerated constants: worst relative error %.3g "
         "(allowed 1e-12)\n", worst);
  return !(worst <= 1e-12) || bad;
}
