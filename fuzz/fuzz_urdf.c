/* fuzz_urdf.c — libFuzzer target: any bytes through the URDF reader (libxml2, the importer's
 * checks), then topology and the .mbd writer. Nothing may crash, leak, hang or invoke undefined
 * behaviour in our code. Run: bash scripts/fuzz.sh [--time SECONDS | --runs N] urdf
 * (docs/fuzzing.md). The first byte's low bit is --floating-base, its next bit --couple-mimic
 * (test_fuzz_regressions replays .urdf inputs so). */
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
  mbg_load_opts o = {.floating_base = size > 0 && (data[0] & 1),
                     .couple_mimic = size > 0 && (data[0] & 2)};
  mbg_model *m = mbg_model_from_source("fuzz.urdf", (const char *)data, size, &o, sink, &errors,
                                       &warnings);
  if (m) {
    mbg_topology *t = mbg_topology_build(m);
    mbg_topology_free(t);
    mbg_mbd_write(sink, m, "fuzz.urdf");
    mbg_model_free(m);
  }
  return 0;
}
