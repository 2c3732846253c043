/* urdf_names.c — URDF names as model names: C identifiers, unique among bodies and joints.
 *
 * The rule, applied in document order (links, then joints, then the added root joint), so the
 * result is deterministic: every character that is not a letter, digit or '_' becomes '_'; a
 * leading digit gets a '_' before it (as a file name does, load.c); a name then reserved in C
 * ('__x', '_X', also when made so by the first step: "-A" -> "_A") gets an 'n' before it; at most
 * 63 characters; a C keyword or a word of the model language ('body', 'mass': the written .mbd
 * must read back) a '_' after it; a name already given (URDF keeps links and joints apart, the
 * model does not) gets '_2', '_3', ... Every name made is one the model language accepts
 * (mbg_valid_c_name, not a keyword), which tests/test_urdf_names.c checks on hostile names. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "urdf/urdf_internal.h"

static int is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether a name reads back as a model name. */
static int readable(const char *name) {
  const char *why;
  return mbg_valid_c_name(name, &why) && !mbg_is_mbd_keyword(name);
}

/* The identifier of `name` before uniqueness, into out[MBG_MAX_NAME + 1]. */
static void identifier(const char *name, char *out) {
  char mapped[MBG_MAX_NAME + 2];
  size_t n = 0, m = 0;
  for (const char *p = name; *p && m < MBG_MAX_NAME + 1; p++)
    mapped[m++] = is_ident_char(*p) ? *p : '_';
  mapped[m] = '\0';
  if (mapped[0] >= '0' && mapped[0] <= '9')
    out[n++] = '_';
  else if (mapped[0] == '_' && (mapped[1] == '_' || (mapped[1] >= 'A' && mapped[1] <= 'Z')))
    out[n++] = 'n';
  for (size_t k = 0; k < m && n < MBG_MAX_NAME; k++) out[n++] = mapped[k];
  if (n == 0) out[n++] = '_';
  out[n] = '\0';
  if (!readable(out) && n < MBG_MAX_NAME) { /* a keyword: short, so there is room */
    out[n++] = '_';
    out[n] = '\0';
  }
}

/* The suffix to try first for `base`: every smaller one was taken when it was last looked for,
 * and names are never given back, so the search goes on from there (linear in the number of
 * names however many share a base). Returns its entry in u->suffixes, -1 when out of memory. */
static int suffix_entry(mbg_urdf *u, const char *base) {
  int e = mbg_names_find(&u->suffixes, base);
  if (e >= 0) return e;
  if (u->nsuffix_text == u->csuffix_text) {
    int cap = u->csuffix_text ? 2 * u->csuffix_text : 16;
    char **t = realloc(u->suffix_text, (size_t)cap * sizeof *t);
    if (!t) return -1;
    u->suffix_text = t, u->csuffix_text = cap;
  }
  char *copy = strdup(base);
  if (!copy) return -1;
  u->suffix_text[u->nsuffix_text++] = copy;
  e = mbg_names_add(&u->suffixes, copy, MBG_NAME_BODY, (mbg_loc){0, 0, 0});
  if (e < 0) return -1;
  u->suffixes.entry[e].index = 2;
  return e;
}

char *mbg_urdf_c_name(mbg_urdf *u, const char *name, const char *what, mbg_loc loc) {
  char base[MBG_MAX_NAME + 1], cand[MBG_MAX_NAME + 1];
  identifier(name, base);
  strcpy(cand, base);
  /* "world" is the world's: only the link named so may have it. */
  int world_ok = strcmp(what, "link") == 0 && strcmp(name, "world") == 0;
  int is_model = strcmp(what, "robot") == 0; /* the model's name is apart from the others */
  int taken = !is_model && ((strcmp(cand, "world") == 0 && !world_ok) ||
                            mbg_names_find(&u->names, cand) >= 0);
  int se = taken ? suffix_entry(u, base) : 0;
  if (se < 0) {
    u->oom = 1;
    return NULL;
  }
  for (int k = taken ? u->suffixes.entry[se].index : 0; taken; k++) {
    char suffix[16];
    int sl = snprintf(suffix, sizeof suffix, "_%d", k);
    size_t keep = strlen(base);
    if (keep + (size_t)sl > MBG_MAX_NAME) keep = MBG_MAX_NAME - (size_t)sl;
    memcpy(cand, base, keep);
    strcpy(cand + keep, suffix);
    if (!readable(cand)) { /* "_" + "_2" starts with "__": "n__2" */
      memmove(cand + 1, cand, strlen(cand) + 1);
      cand[0] = 'n';
      cand[MBG_MAX_NAME] = '\0';
    }
    taken = (strcmp(cand, "world") == 0 && !world_ok) || mbg_names_find(&u->names, cand) >= 0;
    if (!taken) u->suffixes.entry[se].index = k + 1;
  }
  char *c = strdup(cand);
  if (!c) {
    u->oom = 1;
    return NULL;
  }
  if (!is_model && mbg_names_add(&u->names, c, MBG_NAME_BODY, loc) == INT_MIN) {
    free(c);
    u->oom = 1;
    return NULL;
  }
  if (strcmp(c, name) != 0) {
    if (strcmp(c, base) == 0)
      mbg_diag_warning(u->d, loc,
                       "%s name '%.63s%s' is not a C identifier or is a reserved word; it is '%s' "
                       "in the model",
                       what, name, strlen(name) > 63 ? "..." : "", c);
    else
      mbg_diag_warning(u->d, loc,
                       "%s name '%.63s': '%s' is already taken in the model (links and "
                       "joints share one namespace there); it is '%s'",
                       what, name, base, c);
  }
  return c;
}
