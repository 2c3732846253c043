/* fuzz_pipeline.c — libFuzzer target: any bytes through everything `mbdc check` and
 * `mbdc generate` do (reader, model checks, regularity check, topology, summary, frames, every
 * recipe over the symbolic engine, the render templates), rendered into memory. Nothing may
 * crash, leak, hang or invoke undefined behaviour. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FILE *sink;
  if (!sink) sink = fopen("/dev/null", "w");
  if (!sink) return 0;
  mbdc_fuzz_pipeline((const char *)data, size, sink);
  return 0;
}
