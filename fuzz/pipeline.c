/* pipeline.c — check and generate one input into memory (pipeline.h). */
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/summary.h"
#include "emit/gen_render.h"
#include "emit/generate.h"
#include "load/load.h"
#include "topology/loop_rows.h"
#include "topology/rcr_select.h"
#include "topology/regular.h"
#include "topology/topology.h"

static int is_urdf_text(const char *data, size_t size) {
  size_t k = 0;
  while (k < size && (data[k] == ' ' || data[k] == '\t' || data[k] == '\n' || data[k] == '\r'))
    k++;
  return k < size && data[k] == '<';
}

int mbdc_fuzz_pipeline(const char *data, size_t size, FILE *sink) {
  const char *path = is_urdf_text(data, size) ? "fuzz.urdf" : "fuzz.mbd";
  mbg_load_opts lo = {.floating_base = mbg_is_urdf(path) && size > 0 && (data[size - 1] & 1),
                      .couple_mimic = mbg_is_urdf(path) && size > 0 && (data[size - 1] & 2)};
  int errors = 0, warnings = 0;
  mbg_model *m = mbg_model_from_source(path, data, size, &lo, sink, &errors, &warnings);
  if (!m) return 0;
  /* mbdc check: the last model check, then the summary */
  if (mbg_check_regular(m, path, data, size, sink) != 0) {
    mbg_model_free(m);
    return 0;
  }
  mbg_topology *t = mbg_topology_build(m);
  if (!t) {
    mbg_model_free(m);
    return 0;
  }
  mbg_loop_rows rows;
  if (mbg_check_loops(m, t, t->q_initial, path, data, size, sink, &rows) != 0) {
    mbg_topology_free(t);
    mbg_model_free(m);
    return 0;
  }
  mbg_rcr_sel sel;
  if (mbg_rcr_selections(m, t, &rows, path, data, size, sink, &sel) != 0) {
    mbg_loop_rows_free(&rows);
    mbg_topology_free(t);
    mbg_model_free(m);
    return 0;
  }
  mbg_summary_print(sink, m, t, &rows, &sel);
  mbg_rcr_sel_free(&sel);
  int loops = rows.nc > 0;
  mbg_loop_rows_free(&rows);
  int nb = t->nb;
  /* --contacts: the last frame on a moving body, a point contact or welded (the size's parity),
   * so that gen_contacts.c and the contact recipes run on every model without loops or coupled
   * joints that has one (a model with either is refused them) */
  char contacts[96] = "";
  for (int k = t->nframes - 1; k >= 0 && !contacts[0] && !loops && !t->ncoupled; k--)
    if (t->frame[k].body != 0 && strlen(t->frame[k].name) < 80)
      snprintf(contacts, sizeof contacts, "%s%s", t->frame[k].name, size % 2 ? ":6" : "");
  mbg_topology_free(t);
  /* mbdc generate, rendered into the sink */
  mbg_gen_opts o;
  memset(&o, 0, sizeof o);
  o.model_path = path;
  o.command = "mbdc generate fuzz";
  o.floating_base = lo.floating_base;
  o.couple_mimic = lo.couple_mimic;
  o.functions = nb <= MBDC_FUZZ_ALL_FUNCTIONS_MAX_NB ? NULL : "rnea,crba,aba";
  /* one input in three (the size mod 3) of a small model: the derivative functions instead (with
   * the contact or the loop ones where the model has contacts or loops), which only name them (a
   * model they refuse, flexible or coupled, stops at its error) */
  int all = !o.functions;
  if (all && size % 3 == 2 && nb <= MBDC_FUZZ_DERIVATIVES_MAX_NB)
    o.functions = contacts[0] ? MBDC_FUZZ_DERIVATIVES ",contact_fd_derivatives,impulse_derivatives"
                  : loops     ? MBDC_FUZZ_DERIVATIVES ",fd_loops_derivatives"
                              : MBDC_FUZZ_DERIVATIVES;
  if (contacts[0] && all) o.contacts = contacts;
  o.batch = size % 4 == 1; /* one input in four: --batch (the lanes' bodies, the harness's part) */
  mbg_gen g;
  int stage = 1;
  if (mbg_gen_open_model(&g, &o, m, data, size, sink) == 0 && mbg_gen_run(&g, sink) == 0) {
    stage = 2;
    if (mbg_gen_render_to(&g, sink, sink) == 0) stage = 3;
  }
  mbg_gen_close(&g);
  return stage;
}
