/* build_frame.c — the `frame` statement: a named operational frame fixed on a body (docs/dsl.md
 * "frame"). Its only property is `origin xyz ... rpy ...`, in the body's frame (identity when
 * absent). */
#include "model/build_internal.h"

void mbg_build_frame(mbg_builder *b, const mbd_stmt *s, int index) {
  mbg_frame *f = &b->m->frames[index];
  int e = mbg_resolve(b, s->parent, s->parent_loc, MBG_NAME_BODY);
  f->body = e < 0 ? 0 : b->names.entry[e].index;
  const mbd_item *origin = NULL;
  for (const mbd_item *it = s->items; it; it = it->next) {
    if (it->kind != MBD_I_ORIGIN) {
      mbg_diag_error(b->d, it->loc, "'%s' is not a property of a frame; expected origin",
                     mbg_item_word(it));
      continue;
    }
    mbg_once(b, &origin, it, "'origin'");
  }
  if (!origin) return;
  if (origin->args)
    mbg_eval_list(b, origin->args, origin->xyz_loc, "'xyz'", 3, 0, MBG_NOT_ANGLE, f->xyz);
  if (origin->rpy)
    mbg_eval_list(b, origin->rpy, origin->rpy_loc, "'rpy'", 3, 0, MBG_ANGLE, f->rpy);
}
