/* build_inertia.c — the check of a rotational inertia, for rigid bodies (build_body.c) and the
 * lumped nodes of flexible bodies (build_flex.c) alike. */
#include <math.h>

#include "model/build_internal.h"

static const double PI = 3.14159265358979323846;

/* Eigenvalues of the symmetric 3x3 matrix [[a d e],[d b f],[e f c]], ascending (closed form,
 * trigonometric method; exact enough for a positive-semidefiniteness check). */
static void sym3_eigenvalues(const double I[6], double lam[3]) {
  double a = I[0], b = I[1], c = I[2], d = I[3], e = I[4], f = I[5];
  double p1 = d * d + e * e + f * f;
  double q = (a + b + c) / 3.0;
  if (p1 == 0.0) {
    lam[0] = a, lam[1] = b, lam[2] = c;
  } else {
    double p2 = (a - q) * (a - q) + (b - q) * (b - q) + (c - q) * (c - q) + 2.0 * p1;
    double p = sqrt(p2 / 6.0);
    double B[6] = {(a - q) / p, (b - q) / p, (c - q) / p, d / p, e / p, f / p};
    double detB = B[0] * (B[1] * B[2] - B[5] * B[5]) - B[3] * (B[3] * B[2] - B[5] * B[4]) +
                  B[4] * (B[3] * B[5] - B[1] * B[4]);
    double r = detB / 2.0;
    double phi = r <= -1.0 ? PI / 3.0 : r >= 1.0 ? 0.0 : acos(r) / 3.0;
    lam[2] = q + 2.0 * p * cos(phi);
    lam[0] = q + 2.0 * p * cos(phi + 2.0 * PI / 3.0);
    lam[1] = 3.0 * q - lam[0] - lam[2];
  }
  for (int i = 0; i < 2; i++) /* sort ascending */
    for (int j = 0; j < 2 - i; j++)
      if (lam[j] > lam[j + 1]) {
        double t = lam[j];
        lam[j] = lam[j + 1];
        lam[j + 1] = t;
      }
}

void mbg_check_inertia(mbg_builder *b, const double I[6], mbg_loc loc, const char *whose) {
  double lam[3];
  sym3_eigenvalues(I, lam);
  double scale = fabs(I[0]) + fabs(I[1]) + fabs(I[2]);
  double tol = 1e-9 * scale;
  if (lam[0] < -tol) {
    mbg_diag_error(b->d, loc,
                   "the inertia of %s is not positive semidefinite (principal moments %g, %g, %g)",
                   whose, lam[0], lam[1], lam[2]);
    return;
  }
  if (lam[0] + lam[1] < lam[2] - tol)
    mbg_diag_warning(b->d, loc,
                     "the inertia of %s violates the triangle inequality (principal moments %g + "
                     "%g < %g, which no mass distribution has); it is kept as given", whose,
                     lam[0], lam[1], lam[2]);
}
