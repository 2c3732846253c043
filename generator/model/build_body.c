/* build_body.c — a body's mass, centre of mass and rotational inertia (the inertia check is
 * build_inertia.c's, shared with the flexible bodies' nodes). */
#include <string.h>

#include "model/build_internal.h"

static void read_inertia(mbg_builder *b, const mbd_item *it, double I[6]) {
  double v[6] = {0, 0, 0, 0, 0, 0};
  if (!mbg_eval_list(b, it->args, it->loc, "'inertia'", 3, 6, MBG_NOT_ANGLE, v)) return;
  memcpy(I, v, sizeof v);
}

void mbg_build_body(mbg_builder *b, const mbd_stmt *s, int index) {
  mbg_body *body = &b->m->bodies[index];
  const mbd_item *mass = NULL, *com = NULL, *inertia = NULL;
  if (s->flexible) {
    mbg_build_flex(b, s, index);
    return;
  }
  for (const mbd_item *it = s->items; it; it = it->next) {
    switch (it->kind) {
    case MBD_I_MASS: mbg_once(b, &mass, it, "'mass'"); break;
    case MBD_I_COM: mbg_once(b, &com, it, "'com'"); break;
    case MBD_I_INERTIA: mbg_once(b, &inertia, it, "'inertia'"); break;
    case MBD_I_BEAM: case MBD_I_NODES: case MBD_I_MODES: case MBD_I_STIFFNESS:
    case MBD_I_DAMPING:
      mbg_diag_error(b->d, it->loc, "only a flexible body has modal data; write 'body %s flexible { ... }'",
                     s->name);
      break;
    default:
      mbg_diag_error(b->d, it->loc, "'%s' is not a property of a body; expected mass, com or inertia",
                     mbg_item_word(it));
      break;
    }
  }
  char whose[96];
  snprintf(whose, sizeof whose, "body '%s'", s->name);
  if (mass && mbg_eval_list(b, mass->args, mass->loc, "'mass'", 1, 0, MBG_NOT_ANGLE, &body->mass) &&
      body->mass < 0)
    mbg_diag_error(b->d, mass->loc, "the mass of %s is negative (%g)", whose, body->mass);
  if (com) mbg_eval_list(b, com->args, com->loc, "'com'", 3, 0, MBG_NOT_ANGLE, body->com);
  if (inertia) {
    int errs = b->d->errors;
    read_inertia(b, inertia, body->inertia);
    if (b->d->errors == errs) mbg_check_inertia(b, body->inertia, body->mass, inertia->loc, whose);
  }
}
