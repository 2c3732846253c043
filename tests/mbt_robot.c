/* mbt_robot.c — robots of the source tree for the runtime tests (mbt_robot.h). */
#include "mbt_robot.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

void mbt_robot_open(mbt_robot *r, const char *rel, int floating) {
  const char *src = getenv("MBDC_SOURCE_DIR");
  char path[4096];
  if (!src) fail_msg("MBDC_SOURCE_DIR is not set (run the test with ctest)");
  snprintf(path, sizeof path, "%s/%s", src, rel);
  int errors = 0, warnings = 0;
  mbg_load_opts o = {0};
  o.floating_base = floating, o.quiet = 1;
  assert_non_null(r->m = mbg_load(path, &o, stderr, &errors, &warnings));
  assert_non_null(r->t = mbg_topology_build(r->m));
  assert_int_equal(mbg_rtmodel_build(r->m, r->t, &r->rt), 0);
}

void mbt_robot_close(mbt_robot *r) {
  mbg_rtmodel_free(&r->rt);
  mbg_topology_free(r->t);
  mbg_model_free(r->m);
}
