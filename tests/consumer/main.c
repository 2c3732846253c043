/* The consumer's program: the pendulum's generated rnea against the runtime's mb_rnea on its
 * runtime model (<p>_model of <p>_model.h, library pendulum_model), and the cart's generated
 * rnea. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cart_pole_dynamics.h"
#include "mb.h"
#include HEADER
#include MODEL_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define P(name) CAT(PREFIX, name)

int main(void) {
  const double q[2] = {0.3, -0.7}, v[2] = {0.2, 0.5}, a[2] = {-1.0, 0.4};
  double tau[2], ref[2], cart[2];
  const mb_model *m = &P(_model);
  mb_workspace ws;
  void *buf = malloc(mb_workspace_size(m));
  if (!buf || mb_workspace_init(&ws, m, buf) != MB_OK ||
      mb_rnea(m, &ws, q, v, a, NULL, ref) != MB_OK) {
    fprintf(stderr, "app: mb_rnea failed\n");
    return 1;
  }
  P(_rnea)(q, v, a, tau);
  cart_pole_rnea(q, v, a, cart);
  free(buf);
  for (int i = 0; i < 2; i++) {
    if (fabs(tau[i] - ref[i]) > 1e-10 * (1 + fabs(ref[i])) || !isfinite(cart[i])) {
      fprintf(stderr, "app: tau[%d] = %g, runtime %g\n", i, tau[i], ref[i]);
      return 1;
    }
  }
  printf("app: ok\n");
  return 0;
}
