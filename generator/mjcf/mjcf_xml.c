/* mjcf_xml.c — MJCF attributes: on the element or from its default class (MuJoCo's rule: the
 * element's own value, else the nearest class up the chain from its class whose default element
 * of the same name gives one), numbers, words, classes and names. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/mjcf_internal.h"

mbg_mjcf_val mbg_mjcf_get(const mbg_mjcf *mj, xmlNodePtr el, int cls, const char *attr) {
  mbg_mjcf_val v = {mbg_urdf_attr(el, attr), el};
  for (int c = cls; !v.s && c >= 0 && c < mj->nclasses; c = mj->classes[c].parent) {
    xmlNodePtr dn = mbg_urdf_child(mj->classes[c].node, (const char *)el->name);
    if (dn) v.s = mbg_urdf_attr(dn, attr), v.at = dn;
  }
  if (!v.s) v.at = el;
  return v;
}

mbg_loc mbg_mjcf_loc(const mbg_mjcf *mj, mbg_mjcf_val v, xmlNodePtr el, const char *attr) {
  return v.s ? mbg_urdf_loc(&mj->x, v.at, attr) : mbg_urdf_loc(&mj->x, el, NULL);
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int mbg_mjcf_nums(mbg_mjcf *mj, xmlNodePtr el, int cls, const char *attr, int min, int max,
                  double *out) {
  mbg_mjcf_val v = mbg_mjcf_get(mj, el, cls, attr);
  if (!v.s) return -1;
  int k = 0, bad = 0;
  for (const char *p = v.s;;) {
    while (is_space(*p)) p++;
    if (!*p) break;
    char *end;
    errno = 0;
    double x = strtod(p, &end);
    if (end == p || (*end && !is_space(*end))) { /* a word, or "1.5x" */
      bad = 1;
      break;
    }
    if (!isfinite(x)) bad = 2;
    if (k < max) out[k] = x;
    k++;
    p = end;
  }
  mbg_loc loc = mbg_urdf_loc(&mj->x, v.at, attr);
  const char *what = (const char *)el->name;
  if (bad == 1) {
    mbg_diag_error(mj->d, loc, "'%s' of <%s> must be numbers, not '%.40s'", attr, what, v.s);
    return 0;
  }
  if (bad == 2) {
    mbg_diag_error(mj->d, loc, "'%s' of <%s> must be finite, not '%.40s'", attr, what, v.s);
    return 0;
  }
  if (k < min || k > max) {
    if (min == max)
      mbg_diag_error(mj->d, loc, "'%s' of <%s> expects %d number%s, found %d", attr, what, min,
                     min == 1 ? "" : "s", k);
    else
      mbg_diag_error(mj->d, loc, "'%s' of <%s> expects %d to %d numbers, found %d", attr, what,
                     min, max, k);
    return 0;
  }
  return k;
}

int mbg_mjcf_word(mbg_mjcf *mj, xmlNodePtr el, int cls, const char *attr,
                  const char *const *words, int dflt) {
  mbg_mjcf_val v = mbg_mjcf_get(mj, el, cls, attr);
  if (!v.s) return dflt;
  for (int k = 0; words[k]; k++)
    if (strcmp(v.s, words[k]) == 0) return k;
  char list[200] = "";
  size_t n = 0;
  for (int k = 0; words[k] && n < sizeof list; k++)
    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", words[k]);
  mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, v.at, attr),
                 "'%s' of <%s> is '%.40s'; expected one of %s", attr, (const char *)el->name, v.s,
                 list);
  return -1;
}

int mbg_mjcf_class_of(mbg_mjcf *mj, xmlNodePtr el, int inherited) {
  const char *c = mbg_urdf_attr(el, "class");
  if (!c) return inherited;
  int e = mbg_names_find(&mj->class_names, c);
  if (e >= 0) return mj->class_names.entry[e].index;
  const char *near = mbg_names_suggest(&mj->class_names, c, MBG_NAME_CONST);
  mbg_loc loc = mbg_urdf_loc(&mj->x, el, "class");
  if (near)
    mbg_diag_error(mj->d, loc, "<%s> names an unknown default class '%.63s'; did you mean '%s'?",
                   (const char *)el->name, c, near);
  else
    mbg_diag_error(mj->d, loc, "<%s> names an unknown default class '%.63s'",
                   (const char *)el->name, c);
  return inherited;
}

const char *mbg_mjcf_name(xmlNodePtr el) {
  const char *n = mbg_urdf_attr(el, "name");
  return n && *n ? n : NULL;
}

/* Keep a name made until the end. */
static char *own(mbg_mjcf *mj, char *c) {
  if (!c) return NULL;
  if (mj->nowned == mj->cowned) {
    int cap = mj->cowned ? 2 * mj->cowned : 32;
    char **o = realloc(mj->owned, (size_t)cap * sizeof *o);
    if (!o) return mj->x.oom = 1, NULL; /* c, which the name table holds, is lost: rare */
    mj->owned = o, mj->cowned = cap;
  }
  return mj->owned[mj->nowned++] = c;
}

char *mbg_mjcf_c_name(mbg_mjcf *mj, const char *name, const char *fallback, const char *what,
                      mbg_loc loc) {
  if (name) return own(mj, mbg_urdf_c_name(&mj->x, name, what, loc));
  /* an unnamed element: a name made from its place, said in no warning (it had none to keep) */
  int quiet = mj->d->quiet, warnings = mj->d->warnings;
  mj->d->quiet = 1;
  char *c = mbg_urdf_c_name(&mj->x, fallback, what, loc);
  mj->d->quiet = quiet;
  mj->d->warnings = warnings;
  return own(mj, c);
}
