/* fuzz_parser.c — libFuzzer target: any bytes through the whole front end (lexer, parser, model
 * checks, topology, summary, graph). Nothing may crash, leak, hang or invoke undefined behaviour.
 * Run: bash scripts/fuzz.sh [--time SECONDS | --runs N] parser (docs/fuzzing.md). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/graph.h"
#include "cli/summary.h"
#include "load/load.h"
#include "topology/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FILE *sink;
  if (!sink) sink = fopen("/dev/null", "w");
  if (!sink) return 0;
  int errors, warnings;
  mbg_model *m = mbg_model_from_text("fuzz.mbd", (const char *)data, size, sink, &errors, &warnings);
  if (m) {
    mbg_topology *t = mbg_topology_build(m);
    if (t) {
      mbg_summary_print(sink, m, t, NULL, NULL);
      mbg_graph_dot(sink, m, t);
      mbg_topology_free(t);
    }
    mbg_model_free(m);
  }
  return 0;
}
