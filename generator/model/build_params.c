/* build_params.c — the `parameters` statement: the bodies whose inertial parameters the generated
 * functions take at run time, `all` of them, and `gravity` (docs/parameters.md). Only the names
 * are resolved here; which bodies can have them (not the world, not one fixed to it, not a
 * flexible one) is decided with the tree (emit/gen_params.c). */
#include <stdlib.h>
#include <string.h>

#include "model/build_internal.h"

/* A name of the list: `all`, `gravity` or a body's (resolved, -1 after an error). Returns 1 if
 * it is a body, with its index in *body. */
static int read_name(mbg_builder *b, const mbd_name *nm, int *body) {
  mbg_model *m = b->m;
  if (strcmp(nm->name, "all") == 0 || strcmp(nm->name, "gravity") == 0) {
    int *flag = nm->name[0] == 'a' ? &m->param_all : &m->param_gravity;
    if (*flag) mbg_diag_error(b->d, nm->loc, "'%s' is listed twice", nm->name);
    *flag = 1;
    return 0;
  }
  int e = mbg_resolve(b, nm->name, nm->loc, MBG_NAME_BODY);
  if (e < 0) return 0;
  *body = b->names.entry[e].index;
  if (*body == 0) {
    mbg_diag_error(b->d, nm->loc, "the world has no inertial parameters");
    return 0;
  }
  return 1;
}

void mbg_read_parameters(mbg_builder *b, const mbd_stmt *s, const mbd_stmt **seen) {
  if (*seen) {
    mbg_diag_error(b->d, s->loc, "'parameters' is given twice");
    mbg_diag_note(b->d, (*seen)->loc, "first given here");
    return;
  }
  *seen = s;
  int n = 0;
  for (const mbd_name *nm = s->names; nm; nm = nm->next) n++;
  int *idx = calloc((size_t)n + 1, sizeof *idx);
  if (!idx) {
    b->oom = 1;
    return;
  }
  int k = 0;
  for (const mbd_name *nm = s->names; nm; nm = nm->next) {
    int body;
    if (!read_name(b, nm, &body)) continue;
    int dup = 0;
    for (int i = 0; i < k; i++) dup |= idx[i] == body;
    if (dup) {
      mbg_diag_error(b->d, nm->loc, "body '%s' is listed twice", nm->name);
      continue;
    }
    idx[k++] = body;
  }
  free(b->m->param_bodies);
  b->m->param_bodies = idx;
  b->m->nparam_bodies = k;
  b->m->has_parameters = 1;
  b->m->parameters_loc = s->loc;
}
