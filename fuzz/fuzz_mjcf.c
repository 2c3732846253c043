/* fuzz_mjcf.c — libFuzzer target: any bytes through the MJCF reader (libxml2 under the URDF
 * reader's hardening, default classes, orientations, geoms, equalities, keyframes), then topology
 * and the .mbd writer. Nothing may crash, leak, hang or invoke undefined behaviour in our code.
 * Run: bash scripts/fuzz.sh [--time SECONDS | --runs N] mjcf (docs/fuzzing.md);
 * test_fuzz_regressions replays .xml inputs through the same reader. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/mbd_write.h"
#include "load/load.h"
#include "topology/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FILE *sink;
  if (!sink) sink = fopen("/dev/null", "w");
  if (!sink) return 0;
  int errors, warnings;
  mbg_model *m = mbg_model_from_source("fuzz.xml", (const char *)data, size, NULL, sink, &errors,
                                       &warnings);
  if (m) {
    mbg_topology *t = mbg_topology_build(m);
    mbg_topology_free(t);
    mbg_mbd_write(sink, m, "fuzz.xml");
    mbg_model_free(m);
  }
  return 0;
}
