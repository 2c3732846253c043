/* build_body.c — a body's mass, centre of mass and rotational inertia, and the inertia checks. */
#include <math.h>
#include <string.h>

#include "build_internal.h"

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

static void read_inertia(mbg_builder *b, const mbd_item *it, double I[6]) {
  double v[6] = {0, 0, 0, 0, 0, 0};
  if (!mbg_eval_list(b, it->args, it->loc, "'inertia'", 3, 6, MBG_NOT_ANGLE, v)) return;
  memcpy(I, v, sizeof v);
}

void mbg_build_body(mbg_builder *b, const mbd_stmt *s, int index) {
  mbg_body *body = &b->m->bodies[index];
  const mbd_item *mass = NULL, *com = NULL, *inertia = NULL;
  if (s->flexible) {
    mbg_build_flex(b, s, index);
    return;
  }
  for (const mbd_item *it = s->items; it; it = it->next) {
    switch (it->kind) {
    case MBD_I_MASS: mbg_once(b, &mass, it, "'mass'"); break;
    case MBD_I_COM: mbg_once(b, &com, it, "'com'"); break;
    case MBD_I_INERTIA: mbg_once(b, &inertia, it, "'inertia'"); break;
    case MBD_I_BEAM: case MBD_I_NODES: case MBD_I_MODES: case MBD_I_STIFFNESS:
    case MBD_I_DAMPING:
      mbg_diag_error(b->d, it->loc, "only a flexible body has modal data; write 'body %s flexible { ... }'",
                     s->name);
      break;
    default:
      mbg_diag_error(b->d, it->loc, "'%s' is not a property of a body; expected mass, com or inertia",
                     mbg_item_word(it));
      break;
    }
  }
  char whose[96];
  snprintf(whose, sizeof whose, "body '%s'", s->name);
  if (mass && mbg_eval_list(b, mass->args, mass->loc, "'mass'", 1, 0, MBG_NOT_ANGLE, &body->mass) &&
      body->mass < 0)
    mbg_diag_error(b->d, mass->loc, "the mass of %s is negative (%g)", whose, body->mass);
  if (com) mbg_eval_list(b, com->args, com->loc, "'com'", 3, 0, MBG_NOT_ANGLE, body->com);
  if (inertia) {
    int errs = b->d->errors;
    read_inertia(b, inertia, body->inertia);
    if (b->d->errors == errs) mbg_check_inertia(b, body->inertia, inertia->loc, whose);
  }
}
