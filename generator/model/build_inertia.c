/* build_inertia.c — the check of a rotational inertia, for rigid bodies (build_body.c) and the
 * lumped nodes of flexible bodies (build_flex.c) alike. */
#include <math.h>

#include "model/build_internal.h"

/* Eigenvalues of the symmetric 3x3 matrix [[a d e],[d b f],[e f c]], ascending, by cyclic Jacobi
 * rotations on the matrix scaled to entries of at most 1 (no overflow): each eigenvalue to a few
 * eps of the largest entry, so ±1e-35 beside 1e-3 comes out as ±1e-35, not as the ±4e-12 of the
 * closed (trigonometric) form, whose acos loses half the digits near repeated eigenvalues. */
static void sym3_eigenvalues(const double I[6], double lam[3]) {
  double big = 0;
  for (int k = 0; k < 6; k++) big = fabs(I[k]) > big ? fabs(I[k]) : big;
  if (big == 0.0 || !isfinite(big)) {
    lam[0] = lam[1] = lam[2] = big == 0.0 ? 0.0 : NAN;
    return;
  }
  double A[3][3] = {{I[0] / big, I[3] / big, I[4] / big},
                    {I[3] / big, I[1] / big, I[5] / big},
                    {I[4] / big, I[5] / big, I[2] / big}};
  static const int P[3] = {0, 0, 1}, Q[3] = {1, 2, 2};
  for (int sweep = 0; sweep < 32; sweep++) {
    int rotated = 0;
    for (int k = 0; k < 3; k++) {
      int p = P[k], q = Q[k], r = 3 - p - q;
      double apq = A[p][q];
      /* negligible beside both diagonal entries: already diagonal to rounding */
      if (fabs(apq) <= 1e-18 * (fabs(A[p][p]) + fabs(A[q][q])) || fabs(apq) < 1e-300) {
        A[p][q] = A[q][p] = 0.0;
        continue;
      }
      /* the rotation that zeroes A[p][q]: t = tan(angle), the smaller root of t² + 2θt − 1 = 0 */
      double theta = (A[q][q] - A[p][p]) / (2.0 * apq);
      double t = fabs(theta) > 1e150
                     ? 0.5 / theta
                     : (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
      double c = 1.0 / sqrt(t * t + 1.0), sn = t * c;
      A[p][p] -= t * apq;
      A[q][q] += t * apq;
      A[p][q] = A[q][p] = 0.0;
      double arp = A[r][p], arq = A[r][q];
      A[r][p] = A[p][r] = c * arp - sn * arq;
      A[r][q] = A[q][r] = sn * arp + c * arq;
      rotated = 1;
    }
    if (!rotated) break;
  }
  for (int i = 0; i < 3; i++) lam[i] = A[i][i] * big;
  for (int i = 0; i < 2; i++) /* sort ascending */
    for (int j = 0; j < 2 - i; j++)
      if (lam[j] > lam[j + 1]) {
        double tmp = lam[j];
        lam[j] = lam[j + 1];
        lam[j + 1] = tmp;
      }
}

void mbg_check_inertia(mbg_builder *b, const double I[6], double mass, mbg_loc loc,
                       const char *whose) {
  double lam[3];
  sym3_eigenvalues(I, lam);
  /* The body's scale: its inertia about the centre of mass, and never less than its mass spread
   * over a millimetre (a point mass has no inertia of its own, yet 1e-35 is noise beside 1 kg). A
   * principal moment is taken as zero down to -1e-9 of it: exported files carry products of
   * inertia like ±2.4e-35 on bodies whose inertia is otherwise zero (iCub's head, 1.3 kg), while
   * a wrong sign or a typo gives a moment of the order of the inertia itself. */
  double m = mass > 0 ? mass : 0.0;
  double scale = fabs(I[0]) + fabs(I[1]) + fabs(I[2]) + m * MBG_INERTIA_LENGTH * MBG_INERTIA_LENGTH;
  double tol = MBG_INERTIA_TOL * scale;
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
