/* mjcf_defaults.c — the <default> classes: the top-level <default> is class "main" (MuJoCo
 * names it so whatever it is called), every nested <default class="NAME"> a class whose parent
 * is the enclosing one. A class gives attribute values to the elements of its kind (<joint>,
 * <geom>, <site>, ...) that name it, or sit in a body whose childclass it is, and do not write
 * the attribute themselves (mjcf_xml.c, mbg_mjcf_get). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/mjcf_internal.h"

static int add_class(mbg_mjcf *mj, const char *name, xmlNodePtr node, int parent) {
  if (mj->nclasses == mj->cclasses) {
    int cap = mj->cclasses ? 2 * mj->cclasses : 8;
    mbg_mjcf_class *c = realloc(mj->classes, (size_t)cap * sizeof *c);
    if (!c) return mj->x.oom = 1, -1;
    mj->classes = c, mj->cclasses = cap;
  }
  int k = mj->nclasses;
  int e = mbg_names_add(&mj->class_names, name, MBG_NAME_CONST, mbg_urdf_loc(&mj->x, node, NULL));
  if (e == INT_MIN) return mj->x.oom = 1, -1;
  if (e < 0) {
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, node, "class"),
                   "the default class '%.63s' is defined twice", name);
    mbg_diag_note(mj->d, mj->class_names.entry[-e - 1].loc, "first defined here");
    return -1;
  }
  mj->class_names.entry[e].index = k;
  mj->classes[k] = (mbg_mjcf_class){name, node, parent};
  mj->nclasses++;
  return k;
}

/* The nested classes of class `parent` (the document's depth bounds the recursion: libxml2
 * refuses elements nested deeper than 256). */
static void nested(mbg_mjcf *mj, xmlNodePtr node, int parent) {
  for (xmlNodePtr c = node->children; c && !mj->x.oom; c = c->next) {
    if (!mbg_urdf_is(c, "default")) continue;
    const char *name = mbg_urdf_attr(c, "class");
    if (!name || !*name) {
      mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, c, NULL),
                     "a nested <default> needs the attribute 'class'");
      continue;
    }
    int k = add_class(mj, name, c, parent);
    if (k >= 0) nested(mj, c, k);
  }
}

int mbg_mjcf_defaults(mbg_mjcf *mj, xmlNodePtr root) {
  int errors = mj->d->errors;
  xmlNodePtr top = NULL;
  for (xmlNodePtr c = root->children; c; c = c->next) {
    if (!mbg_urdf_is(c, "default")) continue;
    if (top) {
      mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, c, NULL),
                     "a second top-level <default>: MuJoCo's model has one, class 'main'");
      continue;
    }
    top = c;
  }
  if (add_class(mj, "main", top, -1) < 0) return 0;
  if (top) nested(mj, top, 0);
  return mj->d->errors == errors && !mj->x.oom;
}
