/* test_fuzz_regressions.c — replay every input in tests/fuzz-regressions/ through the reader its
 * name picks (a .urdf through the URDF reader, with --floating-base when its first byte is odd, as
 * fuzz/fuzz_urdf.c does; anything else through the model language) and then everything the two
 * fuzz targets run after it (topology, summary, graph, the .mbd writer), and then through the whole
 * pipeline of fuzz_pipeline (check, generate, render into memory). Reference: each must
 * finish without a crash, a leak or undefined behaviour (the sanitizer build runs this too); the
 * diagnostics are not pinned here (test_diagnostics and test_urdf do that for the golden files). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/graph.h"
#include "cli/mbd_write.h"
#include "cli/summary.h"
#include "load/load.h"
#include "topology/topology.h"

#include "pipeline.h"

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *g = realloc(buf, cap *= 2);
      if (!g) free(buf);
      buf = g;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

static void replay_all(void **state) {
  (void)state;
  const char *src = getenv("MBDC_SOURCE_DIR");
  assert_non_null(src);
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/fuzz-regressions", src);
  DIR *d = opendir(dir);
  assert_non_null(d);
  FILE *sink = fopen("/dev/null", "w");
  assert_non_null(sink);
  int replayed = 0, urdf = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t len = 0;
    char *text = slurp(path, &len);
    assert_non_null(text);
    int errors, warnings;
    mbg_load_opts o = {.floating_base = mbg_is_urdf(e->d_name) && len > 0 && (text[0] & 1),
                       .couple_mimic = mbg_is_urdf(e->d_name) && len > 0 && (text[0] & 2)};
    mbg_model *m = mbg_model_from_source(e->d_name, text, len, &o, sink, &errors, &warnings);
    assert_true((m == NULL) == (errors > 0));
    if (m) {
      mbg_topology *t = mbg_topology_build(m);
      assert_non_null(t);
      mbg_summary_print(sink, m, t, NULL, NULL);
      mbg_graph_dot(sink, m, t);
      mbg_topology_free(t);
      /* the writer refuses loop joints (a located error); every other model is written */
      int wrc = mbg_mbd_write(sink, m, e->d_name);
      if (m->nloops == 0) assert_int_equal(wrc, 0);
      mbg_model_free(m);
    }
    mbdc_fuzz_pipeline(text, len, sink);
    free(text);
    replayed++;
    urdf += mbg_is_urdf(e->d_name);
  }
  closedir(d);
  fclose(sink);
  assert_true(replayed > urdf && urdf > 0); /* both readers */
}

/* The pipeline target reaches what it is for: a valid model of either kind is rendered (stage 3),
 * a model the checks refuse stops there (stage 0). */
static void pipeline_stages(void **state) {
  (void)state;
  static const struct {
    const char *file;
    int stage;
  } cases[] = {{"examples/arm7.mbd", 3},
               {"examples/quadruped.mbd", 3},
               {"examples/urdf/ur5.urdf", 3},
               {"tests/singular/axis_point.mbd", 0}};
  const char *src = getenv("MBDC_SOURCE_DIR");
  assert_non_null(src);
  FILE *sink = fopen("/dev/null", "w");
  assert_non_null(sink);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", src, cases[k].file);
    size_t len = 0;
    char *text = slurp(path, &len);
    if (!text) fail_msg("cannot read %s", path);
    int stage = mbdc_fuzz_pipeline(text, len, sink);
    if (stage != cases[k].stage) fail_msg("%s: stage %d, expected %d", cases[k].file, stage,
                                          cases[k].stage);
    free(text);
  }
  fclose(sink);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(replay_all), cmocka_unit_test(pipeline_stages)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
