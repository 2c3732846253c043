/* names.c — the name table: open-addressing hash over entries kept in declaration order. */
#include "model/names.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static uint32_t hash(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static int rehash(mbg_names *t, int nslots) {
  int *slot = calloc((size_t)nslots, sizeof *slot);
  if (!slot) return -1;
  for (int i = 0; i < t->n; i++) {
    uint32_t k = hash(t->entry[i].name) & (uint32_t)(nslots - 1);
    while (slot[k]) k = (k + 1) & (uint32_t)(nslots - 1);
    slot[k] = i + 1;
  }
  free(t->slot);
  t->slot = slot;
  t->nslots = nslots;
  return 0;
}

int mbg_names_find(const mbg_names *t, const char *name) {
  if (t->nslots == 0) return -1;
  uint32_t k = hash(name) & (uint32_t)(t->nslots - 1);
  while (t->slot[k]) {
    int i = t->slot[k] - 1;
    if (strcmp(t->entry[i].name, name) == 0) return i;
    k = (k + 1) & (uint32_t)(t->nslots - 1);
  }
  return -1;
}

int mbg_names_add(mbg_names *t, const char *name, mbg_name_kind kind, mbg_loc loc) {
  int old = mbg_names_find(t, name);
  if (old >= 0) return -old - 1;
  if (t->n == t->cap) {
    int cap = t->cap ? t->cap * 2 : 16;
    mbg_name_entry *e = realloc(t->entry, (size_t)cap * sizeof *e);
    if (!e) return INT_MIN;
    t->entry = e;
    t->cap = cap;
  }
  if (2 * (t->n + 1) > t->nslots && rehash(t, t->nslots ? t->nslots * 2 : 32) != 0) return INT_MIN;
  mbg_name_entry *e = &t->entry[t->n];
  memset(e, 0, sizeof *e);
  e->name = name;
  e->kind = kind;
  e->loc = loc;
  e->index = -1;
  uint32_t k = hash(name) & (uint32_t)(t->nslots - 1);
  while (t->slot[k]) k = (k + 1) & (uint32_t)(t->nslots - 1);
  t->slot[k] = t->n + 1;
  return t->n++;
}

void mbg_names_free(mbg_names *t) {
  free(t->entry);
  free(t->slot);
  memset(t, 0, sizeof *t);
}

const char *mbg_name_kind_text(mbg_name_kind k) {
  switch (k) {
  case MBG_NAME_CONST: return "constant";
  case MBG_NAME_BODY: return "body";
  case MBG_NAME_JOINT: return "joint";
  case MBG_NAME_LOOP: return "loop";
  case MBG_NAME_SPRING: return "spring";
  case MBG_NAME_FRAME: return "frame";
  }
  return "name";
}

int mbg_is_mbd_keyword(const char *name) {
  static const char *const words[] = {
    "model", "gravity", "const", "body", "joint", "loop", "independent", "parameters", "mass",
    "com", "inertia", "origin", "target", "xyz", "rpy", "axis", "axis2", "pitch", "distance",
    "flexible", "node", "pi", "deg", "sqrt", "sin", "cos", "beam", "length", "modes", "nodes",
    "stiffness", "damping", "EI", "rhoA", "spring", "initial", "velocity", "frame",
  };
  for (size_t k = 0; k < sizeof words / sizeof *words; k++)
    if (strcmp(name, words[k]) == 0) return 1;
  return 0;
}

int mbg_edit_distance(const char *a, const char *b, int cap) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return cap + 1;
  if ((la > lb ? la - lb : lb - la) > (size_t)cap) return cap + 1;
  int row[65];
  for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int up = row[j];
      int best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

const char *mbg_names_suggest(const mbg_names *t, const char *name, mbg_name_kind kind) {
  const char *best = NULL;
  int best_d = 3;
  for (int i = 0; i < t->n && i < 10000; i++) {
    if (t->entry[i].kind != kind) continue;
    int d = mbg_edit_distance(name, t->entry[i].name, 2);
    if (d < best_d) {
      best_d = d;
      best = t->entry[i].name;
    }
  }
  return best;
}

const char *mbg_nearest_word(const char *word, const char *const *candidates) {
  const char *best = NULL, *prefix_of = NULL;
  int best_d = 3, nprefix = 0;
  size_t n = strlen(word);
  for (int k = 0; candidates[k]; k++) {
    int d = mbg_edit_distance(word, candidates[k], 2);
    if (d < best_d) best = candidates[k], best_d = d;
    if (n >= 2 && strncmp(word, candidates[k], n) == 0) prefix_of = candidates[k], nprefix++;
  }
  if (best) return best;
  return nprefix == 1 ? prefix_of : NULL;
}

void mbg_suggest_words(FILE *out, const char *word, const char *const *candidates, const char *what) {
  const char *near = mbg_nearest_word(word, candidates);
  if (near) fprintf(out, "; did you mean '%s'?", near);
  fprintf(out, " (%s:", what);
  for (int k = 0; candidates[k]; k++) fprintf(out, "%s %s", k ? "," : "", candidates[k]);
  fprintf(out, ")");
}
