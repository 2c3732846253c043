/* bench_prefix.h — the generated model a bench driver is compiled for (peers_driver.c,
 * contact_derivatives_driver.c, batch_driver.c): -DHEADER='"DIR/<p>_dynamics.h"' -DPFX=<p>
 * -DPFX_UP=<P> name it, FN(f) is its function <p>_f and UP(m) its macro <P>_m. */
#ifndef BENCH_PREFIX_H
#define BENCH_PREFIX_H

#ifndef HEADER
#error "compile with -DHEADER='\"DIR/<p>_dynamics.h\"' -DPFX=<p> -DPFX_UP=<P>"
#endif
#include HEADER

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN(f) CAT(PFX, CAT(_, f))    /* FN(rnea) -> <p>_rnea */
#define UP(m) CAT(PFX_UP, CAT(_, m)) /* UP(NQ) -> <P>_NQ */

#endif
