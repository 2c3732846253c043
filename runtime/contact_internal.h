/* contact_internal.h — what the contact files (contact.c, contact_derivatives.c) share: the
 * layout of the scratch mb_contact_fd and mb_impulse leave their factors in. */
#ifndef MB_CONTACT_INTERNAL_H
#define MB_CONTACT_INTERNAL_H

#include <stddef.h>

#include "mb.h"

/* The scratch, nr = Σ dim rows (the active ones packed first), nv columns:
 *   J [nr × nv] the rows of Jc;  Y [nr × nv] row r: M⁻¹ Jc_rᵀ;  Phi [nr × nr] Φ (+ μ), then its
 *   Cholesky factor;  b [nr] the right-hand side, then f or Λ;  ref [nr] the pivot references;
 *   Jf [6 × nv] one frame's Jacobian. After mb_contact_fd or mb_impulse with na > 0 active rows,
 *   J, Y, the factor of Φ (+ μ) and b = f (Λ) hold for those rows, and ws->M holds M = Lᵀ D L. */
typedef struct mbc_scratch {
  double *J, *Y, *Phi, *b, *ref, *Jf;
} mbc_scratch;

static inline mbc_scratch mbc_layout(void *buffer, size_t nr, size_t nv) {
  mbc_scratch s;
  s.J = buffer;
  s.Y = s.J + nr * nv;
  s.Phi = s.Y + nr * nv;
  s.b = s.Phi + nr * nr;
  s.ref = s.b + nr;
  s.Jf = s.ref + nr;
  return s;
}

#endif
