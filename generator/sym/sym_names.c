/* sym_names.c — the names of temporaries: a set of C identifiers, each with the next suffix to
 * try, and unique names made from the recipes' preferred ones. */
#include <stdlib.h>
#include <string.h>

#include "sym/sym_emit_internal.h"

static uint32_t str_hash(const char *p) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
  return h;
}

int sym_set_init(name_set *t, size_t cap) {
  memset(t, 0, sizeof *t);
  t->nslot = 16;
  while (t->nslot < 2 * cap + 2) t->nslot *= 2;
  t->str = malloc((cap + 1) * sizeof *t->str);
  t->next = malloc((cap + 1) * sizeof *t->next);
  t->slot = malloc(t->nslot * sizeof *t->slot);
  if (!t->str || !t->next || !t->slot) return -1;
  memset(t->slot, 0xff, t->nslot * sizeof *t->slot);
  return 0;
}

void sym_set_free(name_set *t) {
  for (int32_t i = 0; i < t->n; i++) free(t->str[i]);
  free(t->str), free(t->next), free(t->slot);
}

/* Slot of `name`: holding it, or the empty slot where it goes. */
uint32_t sym_set_slot(const name_set *t, const char *name) {
  uint32_t i = str_hash(name) & (t->nslot - 1);
  while (t->slot[i] >= 0 && strcmp(t->str[t->slot[i]], name) != 0) i = (i + 1) & (t->nslot - 1);
  return i;
}

/* Adds a copy of name (known absent at slot i); its index, or -1. */
int32_t sym_set_add(name_set *t, uint32_t i, const char *name) {
  char *copy = malloc(strlen(name) + 1);
  if (!copy) return -1;
  strcpy(copy, name);
  t->str[t->n] = copy, t->next[t->n] = 2, t->slot[i] = t->n;
  return t->n++;
}

/* ---- names of temporaries ----------------------------------------------------------------- */

/* A C identifier from a preferred name: other characters become '_', a leading digit or
 * underscore gets "n_" before it, at most 48 characters, and tN (our own names) gets a '_'. */
static void sanitize(const char *raw, char *buf /* 56 */) {
  size_t j = 0;
  if (!(*raw == '_' || (*raw >= 'a' && *raw <= 'z') || (*raw >= 'A' && *raw <= 'Z')))
    buf[j++] = 'n', buf[j++] = '_';
  else if (*raw == '_')
    buf[j++] = 'n';
  for (const char *p = raw; *p && j < 50; p++) {
    int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
    buf[j++] = ok ? *p : '_';
  }
  buf[j] = 0;
  if (buf[0] == 't' && buf[1] && strspn(buf + 1, "0123456789") == j - 1) buf[j++] = '_', buf[j] = 0;
}

/* Index in t of a unique identifier made from raw, or -1 (memory). */
int32_t sym_unique_name(name_set *t, const char *raw) {
  char base[56], cand[72];
  sanitize(raw, base);
  uint32_t i = sym_set_slot(t, base);
  if (t->slot[i] < 0) return sym_set_add(t, i, base);
  int32_t owner = t->slot[i];
  for (int32_t k = t->next[owner];; k++) {
    snprintf(cand, sizeof cand, "%s_%d", base, (int)k);
    uint32_t j = sym_set_slot(t, cand);
    if (t->slot[j] < 0) {
      t->next[owner] = k + 1;
      return sym_set_add(t, j, cand);
    }
  }
}
