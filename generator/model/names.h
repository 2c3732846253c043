/* names.h — the model's name table: every declared constant, body, joint, loop, spring and frame,
 * by name.
 * A hash table for lookup; entries kept in declaration order (never iterated by hash). */
#ifndef MBG_NAMES_H
#define MBG_NAMES_H

#include <stdio.h>

#include "base/diag.h"

typedef enum mbg_name_kind {
  MBG_NAME_CONST,
  MBG_NAME_BODY,
  MBG_NAME_JOINT,
  MBG_NAME_LOOP,
  MBG_NAME_SPRING,
  MBG_NAME_FRAME
} mbg_name_kind;

typedef struct mbg_name_entry {
  const char *name; /* borrowed from the AST */
  mbg_name_kind kind;
  mbg_loc loc;
  int index;        /* body/joint/loop/spring index in the model; for constants, -1 until defined */
  double value;     /* constants */
} mbg_name_entry;

typedef struct mbg_names {
  int n, cap;
  mbg_name_entry *entry;
  int nslots;
  int *slot; /* open addressing: entry index + 1, 0 = empty */
} mbg_names;

/* Add a name; returns its entry index, or -(existing index) - 1 if the name is taken, or
 * INT_MIN when out of memory. */
int mbg_names_add(mbg_names *t, const char *name, mbg_name_kind kind, mbg_loc loc);
/* Entry index of a name, or -1. */
int mbg_names_find(const mbg_names *t, const char *name);
void mbg_names_free(mbg_names *t);
const char *mbg_name_kind_text(mbg_name_kind k);
/* The declared name of kind `kind` closest to `name` (edit distance <= 2), or NULL. */
const char *mbg_names_suggest(const mbg_names *t, const char *name, mbg_name_kind kind);
/* 1 if `name` is a word of the model language (grammar/mbd.l: model, body, mass, pi, ...), which
 * cannot name anything in a .mbd. tests/test_urdf.c checks this list against the lexer. */
int mbg_is_mbd_keyword(const char *name);
/* Edit distance between two short strings, capped at `cap` + 1. */
int mbg_edit_distance(const char *a, const char *b, int cap);
/* The candidate nearest to word (edit distance ≤ 2, else the only candidate word of two letters
 * or more is a prefix of), or NULL; candidates NULL-terminated. */
const char *mbg_nearest_word(const char *word, const char *const *candidates);
/* "; did you mean 'x'?" when a candidate is near, then " (<what>: a, b, c)", on out. */
void mbg_suggest_words(FILE *out, const char *word, const char *const *candidates,
                       const char *what);

#endif
