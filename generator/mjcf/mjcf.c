/* mjcf.c — an MJCF document as a model: <mujoco>, its <compiler> and <option>, the sections in
 * the order they depend on each other (defaults, the body tree, equalities, the keyframe), and
 * what is not read: sections that do not change the rigid-body dynamics (actuators, sensors,
 * tendons, contacts, assets, visual settings) in one note, anything that would change it an error
 * or a warning (docs/mjcf.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/mjcf_internal.h"

static const char *const bools[] = {"false", "true", NULL};

/* <compiler> attributes that change the model and are not supported; their neutral value. */
static void refuse_compiler(mbg_mjcf *mj, xmlNodePtr c) {
  static const char *const mass_attrs[] = {"boundmass", "boundinertia", "settotalmass"};
  static const double neutral[] = {0, 0, -1};
  for (int k = 0; k < 3; k++) {
    double v = neutral[k];
    if (mbg_mjcf_nums(mj, c, -1, mass_attrs[k], 1, 1, &v) > 0 && v != neutral[k])
      mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, c, mass_attrs[k]), "compiler/%s is not "
                     "supported by mbdc: write the masses and inertias it would give",
                     mass_attrs[k]);
  }
  if (mbg_mjcf_word(mj, c, -1, "balanceinertia", bools, 0) == 1)
    mbg_diag_warning(mj->d, mbg_urdf_loc(&mj->x, c, "balanceinertia"), "compiler/balanceinertia "
                     "is not applied: inertias are kept as written [mjcf-ignored]");
  static const char *const coords[] = {"local", "global", NULL};
  if (mbg_mjcf_word(mj, c, -1, "coordinate", coords, 0) == 1)
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, c, "coordinate"), "compiler/coordinate=\"global\" "
                   "is not supported by mbdc: write the frames in local coordinates");
}

static void read_compiler(mbg_mjcf *mj, xmlNodePtr c) {
  static const char *const angles[] = {"radian", "degree", NULL};
  static const char *const fromgeom[] = {"false", "true", "auto", NULL};
  int v = mbg_mjcf_word(mj, c, -1, "angle", angles, mj->degree);
  if (v >= 0) mj->degree = v;
  if ((v = mbg_mjcf_word(mj, c, -1, "autolimits", bools, mj->autolimits)) >= 0) mj->autolimits = v;
  if ((v = mbg_mjcf_word(mj, c, -1, "inertiafromgeom", fromgeom, mj->inertiafromgeom)) >= 0)
    mj->inertiafromgeom = v;
  double g[2];
  if (mbg_mjcf_nums(mj, c, -1, "inertiagrouprange", 2, 2, g) > 0)
    mj->group_lo = (int)g[0], mj->group_hi = (int)g[1];
  const char *seq = mbg_urdf_attr(c, "eulerseq");
  if (seq) {
    int ok = strlen(seq) == 3;
    for (int k = 0; ok && k < 3; k++) ok = strchr("xyzXYZ", seq[k]) != NULL;
    if (ok)
      memcpy(mj->eulerseq, seq, 4);
    else
      mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, c, "eulerseq"), "compiler/eulerseq must be "
                     "three of x, y, z (moving axes) or X, Y, Z (fixed axes), not '%.20s'", seq);
  }
  refuse_compiler(mj, c);
}

/* Sections that do not change the rigid-body dynamics mbdc computes. */
static const char *const not_read[] = {"actuator", "sensor", "tendon", "contact", "asset",
                                       "visual", "statistic", "size", "custom", "extension",
                                       NULL};

static int is_one_of(xmlNodePtr c, const char *const *list) {
  for (int k = 0; list[k]; k++)
    if (mbg_urdf_is(c, list[k])) return 1;
  return 0;
}

/* The sections of <mujoco>: compiler and option first (they change how the rest reads). */
static void read_settings(mbg_mjcf *mj, xmlNodePtr root) {
  for (xmlNodePtr c = root->children; c; c = c->next) {
    if (mbg_urdf_is(c, "compiler")) read_compiler(mj, c);
    if (mbg_urdf_is(c, "option")) mbg_mjcf_nums(mj, c, -1, "gravity", 3, 3, mj->m->gravity);
  }
}

/* Every section not read: one note listing those that do not matter, an error or a warning for
 * the others. Returns the <worldbody>, <equality> and <keyframe> through the pointers. */
static void sections(mbg_mjcf *mj, xmlNodePtr root, xmlNodePtr found[3]) {
  static const char *const read[] = {"worldbody", "equality", "keyframe"};
  char list[256] = "";
  size_t n = 0;
  xmlNodePtr first_ignored = NULL;
  for (xmlNodePtr c = root->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || mbg_urdf_is(c, "compiler") || mbg_urdf_is(c, "option") ||
        mbg_urdf_is(c, "default"))
      continue;
    int k = 0;
    while (k < 3 && !mbg_urdf_is(c, read[k])) k++;
    mbg_loc loc = mbg_urdf_loc(&mj->x, c, NULL);
    if (k < 3) {
      if (found[k])
        mbg_diag_error(mj->d, loc, "a second <%s>: mbdc reads one", read[k]);
      else
        found[k] = c;
    } else if (mbg_urdf_is(c, "include")) {
      mbg_diag_error(mj->d, loc, "<include> is not supported: mbdc reads one file (merge the "
                     "included file into this one)");
    } else if (is_one_of(c, not_read)) {
      if (!first_ignored) first_ignored = c;
      if (!strstr(list, (const char *)c->name) && n < sizeof list)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s<%s>", n ? ", " : "",
                              (const char *)c->name);
    } else {
      mbg_diag_warning(mj->d, loc, "<%s> is not a section of an MJCF model that mbdc knows; it "
                       "is not read [mjcf-ignored]", (const char *)c->name);
    }
  }
  if (first_ignored)
    mbg_diag_note(mj->d, mbg_urdf_loc(&mj->x, first_ignored, NULL), "not read: %s; mbdc reads "
                  "the bodies, joints, inertias, sites, equalities and keyframe [mjcf-ignored]",
                  list);
}

static mbg_model *build(mbg_mjcf *mj, const char *path, const char *default_name) {
  xmlNodePtr root = xmlDocGetRootElement(mj->x.doc);
  if (!mbg_urdf_is(root, "mujoco")) {
    mbg_diag_error(mj->d, root ? mbg_urdf_loc(&mj->x, root, NULL) : (mbg_loc){0, 0, 0},
                   "the document's root element is <%s>, not <mujoco>: this is not an MJCF model",
                   root ? (const char *)root->name : "");
    if (mbg_urdf_is(root, "robot"))
      mbg_diag_note(mj->d, mbg_urdf_loc(&mj->x, root, NULL), "a <robot> document is a URDF: "
                    "mbdc reads a file ending in .xml as MJCF and one ending in .urdf as a URDF");
    return NULL;
  }
  const char *mname = mbg_urdf_attr(root, "model");
  mbg_loc name_loc = mbg_urdf_loc(&mj->x, root, mname ? "model" : NULL);
  char *name = mname && *mname ? mbg_mjcf_c_name(mj, mname, NULL, "robot", name_loc) : NULL;
  mbg_model *m = mj->m = mbg_model_new(name ? name : default_name, path);
  if (!m) return mj->x.oom = 1, NULL;
  m->name_loc = name_loc;
  read_settings(mj, root);
  xmlNodePtr found[3] = {NULL, NULL, NULL};
  sections(mj, root, found);
  if (!mbg_mjcf_defaults(mj, root) || !found[0]) {
    if (!found[0])
      mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, root, NULL), "the model has no <worldbody>");
    return m;
  }
  int errors = mj->d->errors;
  if (!mbg_mjcf_collect(mj, found[0])) return m;
  mbg_mjcf_build_tree(mj);
  mbg_builder checker = {.d = mj->d, .m = m};
  if (!mj->x.oom && mj->d->errors == errors) mbg_check_tree(&checker, errors);
  mj->x.oom |= checker.oom;
  if (found[1] && !mj->x.oom) mbg_mjcf_equality(mj, found[1]);
  if (!mj->x.oom) mbg_mjcf_keyframe(mj, found[2]);
  return m;
}

mbg_model *mbg_mjcf_build(const char *path, const char *text, size_t len, const char *default_name,
                          mbg_diag *d) {
  mbg_mjcf mj;
  memset(&mj, 0, sizeof mj);
  mj.d = mj.x.d = d;
  mj.x.text = text;
  mj.x.len = len;
  mj.x.world = mj.x.root = -1;
  mj.degree = 1, mj.inertiafromgeom = 2, mj.group_lo = 0, mj.group_hi = 5;
  memcpy(mj.eulerseq, "xyz", 4);
  int errors = d->errors;
  mbg_model *m = NULL;
  if ((mj.x.doc = mbg_urdf_parse(&mj.x, path))) m = build(&mj, path, default_name);
  if (mj.x.oom) mbg_diag_error(d, (mbg_loc){0, 0, 0}, "out of memory");
  for (int k = 0; k < mj.nowned; k++) free(mj.owned[k]);
  free(mj.owned);
  free(mj.bodies);
  free(mj.joints);
  free(mj.classes);
  mbg_names_free(&mj.class_names);
  mbg_names_free(&mj.x.names);
  mbg_names_free(&mj.x.suffixes);
  for (int k = 0; k < mj.x.nsuffix_text; k++) free(mj.x.suffix_text[k]);
  free(mj.x.suffix_text);
  free(mj.x.lines);
  xmlFreeDoc(mj.x.doc);
  if (d->errors > errors || !m) {
    mbg_model_free(m);
    m = NULL;
  }
  return m;
}
