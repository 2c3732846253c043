/* build.c — the model builder's driver: names, statements, joints, loops and springs.
 *
 * Order of work: (1) every declared name (constants, bodies, joints, loops, springs, frames) enters the
 * name table (duplicates reported with a note at the first one); (2) statements are evaluated in source order, so a constant must be defined
 * before it is used; (3) joints and loops are resolved once every body is known; (4) the tree is
 * checked as a whole. Every error is located; the builder never stops at the first one. */
#include <stdlib.h>
#include <string.h>

#include "model/build_internal.h"

static const char *const c_reserved[] = {
  "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
  "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict",
  "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
  "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool",
  "_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
  "bool", "true", "false", "NULL", "main", "asm", "typeof",
};

int mbg_valid_c_name(const char *name, const char **why) {
  size_t n = strlen(name);
  *why = NULL;
  int chars_ok = n > 0 && !(name[0] >= '0' && name[0] <= '9');
  for (size_t i = 0; i < n; i++)
    chars_ok &= (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
                (name[i] >= '0' && name[i] <= '9') || name[i] == '_';
  if (!chars_ok) *why = "is not a C identifier (letters, digits, _; not a digit first)";
  else if (n > MBG_MAX_NAME) *why = "is too long for a C identifier (at most 63 characters)";
  else if (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z')))
    *why = "is reserved in C (it starts with '__' or '_' and a capital letter)";
  for (size_t i = 0; !*why && i < sizeof c_reserved / sizeof *c_reserved; i++)
    if (strcmp(name, c_reserved[i]) == 0) *why = "is a C keyword or reserved name";
  return *why == NULL;
}

/* Enter a declared name; report an invalid or duplicate one. Returns the entry or -1. */
static int declare(mbg_builder *b, const char *name, mbg_loc loc, mbg_name_kind kind) {
  const char *why;
  if (strcmp(name, "world") == 0) {
    mbg_diag_error(b->d, loc, "'world' is the fixed base and cannot be declared");
    return -1;
  }
  /* An invalid name is reported but still declared, so its uses do not cascade. */
  if (!mbg_valid_c_name(name, &why))
    mbg_diag_error(b->d, loc, "the name '%.63s%s' %s", name, strlen(name) > 63 ? "..." : "", why);
  int i = mbg_names_add(&b->names, name, kind, loc);
  if (i == -2147483647 - 1) {
    b->oom = 1;
    return -1;
  }
  if (i < 0) {
    const mbg_name_entry *first = &b->names.entry[-i - 1];
    mbg_diag_error(b->d, loc, "'%s' is already declared as a %s", name,
                   mbg_name_kind_text(first->kind));
    if (first->loc.line > 0) mbg_diag_note(b->d, first->loc, "first declared here");
    if (kind == MBG_NAME_FRAME && first->kind == MBG_NAME_BODY)
      mbg_diag_note(b->d, loc, "every body is an operational frame of its own already, under "
                               "its name: give this frame another");
    return -1;
  }
  return i;
}

static void declare_all(mbg_builder *b, const mbd_ast *ast) {
  mbg_loc none = {0, 0, 0};
  mbg_names_add(&b->names, "world", MBG_NAME_BODY, none);
  b->names.entry[0].index = 0;
  for (const mbd_stmt *s = ast->first; s && !b->oom; s = s->next) {
    int e;
    switch (s->kind) {
    case MBD_S_CONST: declare(b, s->name, s->name_loc, MBG_NAME_CONST); break;
    case MBD_S_BODY:
      e = declare(b, s->name, s->name_loc, MBG_NAME_BODY);
      if (e < 0) break;
      b->names.entry[e].index = mbg_model_add_body(b->m, s->name, s->name_loc);
      if (b->names.entry[e].index < 0) b->oom = 1;
      break;
    case MBD_S_JOINT:
      e = declare(b, s->name, s->name_loc, MBG_NAME_JOINT);
      if (e < 0) break;
      b->names.entry[e].index = mbg_model_add_joint(b->m, s->name, s->name_loc);
      if (b->names.entry[e].index < 0) b->oom = 1;
      break;
    case MBD_S_LOOP:
      e = declare(b, s->name, s->name_loc, MBG_NAME_LOOP);
      if (e < 0) break;
      b->names.entry[e].index = mbg_model_add_loop(b->m, s->name, s->name_loc);
      if (b->names.entry[e].index < 0) b->oom = 1;
      break;
    case MBD_S_SPRING:
      e = declare(b, s->name, s->name_loc, MBG_NAME_SPRING);
      if (e < 0) break;
      b->names.entry[e].index = mbg_model_add_spring(b->m, s->name, s->name_loc);
      if (b->names.entry[e].index < 0) b->oom = 1;
      break;
    case MBD_S_FRAME:
      e = declare(b, s->name, s->name_loc, MBG_NAME_FRAME);
      if (e < 0) break;
      b->names.entry[e].index = mbg_model_add_frame(b->m, s->name, s->name_loc);
      if (b->names.entry[e].index < 0) b->oom = 1;
      break;
    default: break;
    }
  }
}

/* b->joint_stmt: the statement that declared each joint (an `initial` statement may come before
 * its joint's, and needs its type). */
static void index_joints(mbg_builder *b, const mbd_ast *ast) {
  b->joint_stmt = calloc((size_t)b->m->njoints + 1, sizeof *b->joint_stmt);
  if (!b->joint_stmt) {
    b->oom = 1;
    return;
  }
  for (const mbd_stmt *s = ast->first; s; s = s->next) {
    if (s->kind != MBD_S_JOINT) continue;
    int e = mbg_names_find(&b->names, s->name);
    if (e >= 0 && b->names.entry[e].kind == MBG_NAME_JOINT &&
        b->names.entry[e].loc.line == s->name_loc.line &&
        b->names.entry[e].loc.col == s->name_loc.col && b->names.entry[e].index >= 0)
      b->joint_stmt[b->names.entry[e].index] = s;
  }
}

static void read_gravity(mbg_builder *b, const mbd_stmt *s, const mbd_stmt **seen) {
  if (*seen) {
    mbg_diag_error(b->d, s->loc, "'gravity' is given twice");
    mbg_diag_note(b->d, (*seen)->loc, "first given here");
    return;
  }
  *seen = s;
  mbg_eval_list(b, s->args, s->loc, "'gravity'", 3, 0, MBG_NOT_ANGLE, b->m->gravity);
}

static void read_model_name(mbg_builder *b, const mbd_stmt *s, const mbd_stmt **seen) {
  const char *why;
  if (*seen) {
    mbg_diag_error(b->d, s->loc, "'model' is given twice");
    mbg_diag_note(b->d, (*seen)->loc, "first given here");
    return;
  }
  *seen = s;
  if (!mbg_valid_c_name(s->name, &why)) {
    mbg_diag_error(b->d, s->name_loc, "the model name '%.63s' %s", s->name, why);
    return;
  }
  char *name = strdup(s->name);
  if (!name) {
    b->oom = 1;
    return;
  }
  free(b->m->name);
  b->m->name = name;
  b->m->name_loc = s->name_loc;
}

static void read_const(mbg_builder *b, const mbd_stmt *s) {
  int e = mbg_names_find(&b->names, s->name);
  /* Only the declaration that owns the entry defines it (not a rejected duplicate). */
  int owner = e >= 0 && b->names.entry[e].kind == MBG_NAME_CONST &&
              b->names.entry[e].loc.line == s->name_loc.line &&
              b->names.entry[e].loc.col == s->name_loc.col;
  if (owner) b->names.entry[e].index = MBG_CONST_DEFINING;
  double v;
  int ok = mbg_eval(b, s->value, MBG_ANGLE, &v);
  if (owner) {
    b->names.entry[e].value = ok ? v : 0.0;
    b->names.entry[e].index = 0;
  }
}

static void statements(mbg_builder *b, const mbd_ast *ast) {
  const mbd_stmt *model = NULL, *gravity = NULL, *independent = NULL,
                 *parameters = NULL;
  for (const mbd_stmt *s = ast->first; s && !b->oom; s = s->next) {
    int e = (s->kind == MBD_S_BODY || s->kind == MBD_S_JOINT || s->kind == MBD_S_LOOP ||
             s->kind == MBD_S_SPRING || s->kind == MBD_S_FRAME)
                ? mbg_names_find(&b->names, s->name) : -1;
    /* A rejected (duplicate) declaration is not checked further. */
    int owner = e >= 0 && b->names.entry[e].loc.line == s->name_loc.line &&
                b->names.entry[e].loc.col == s->name_loc.col;
    switch (s->kind) {
    case MBD_S_MODEL: read_model_name(b, s, &model); break;
    case MBD_S_GRAVITY: read_gravity(b, s, &gravity); break;
    case MBD_S_CONST: read_const(b, s); break;
    case MBD_S_BODY:
      if (owner) mbg_build_body(b, s, b->names.entry[e].index);
      break;
    case MBD_S_JOINT:
      if (owner) mbg_build_joint(b, s, b->names.entry[e].index);
      else b->tree_incomplete = 1;
      break;
    case MBD_S_LOOP:
      if (owner) mbg_build_loop(b, s, b->names.entry[e].index);
      break;
    case MBD_S_INDEPENDENT: mbg_read_independent(b, s, &independent); break;
    case MBD_S_PARAMETERS: mbg_read_parameters(b, s, &parameters); break;
    case MBD_S_SPRING:
      if (owner) mbg_build_spring(b, s, b->names.entry[e].index);
      break;
    case MBD_S_INITIAL: mbg_build_initial(b, s); break;
    case MBD_S_FRAME:
      if (owner) mbg_build_frame(b, s, b->names.entry[e].index);
      break;
    }
  }
}

/* Without a `model` statement the file name names the model: it must be a valid name too. */
static void check_default_name(mbg_builder *b, const mbd_ast *ast, const char *name) {
  for (const mbd_stmt *s = ast->first; s; s = s->next)
    if (s->kind == MBD_S_MODEL) return;
  const char *why;
  mbg_loc none = {0, 0, 0};
  if (!mbg_valid_c_name(name, &why))
    mbg_diag_error(b->d, none, "the model is named after its file, and '%.63s' %s; add "
                               "'model NAME;'", name, why);
}

mbg_model *mbg_build_model(const mbd_ast *ast, const char *path, const char *default_name,
                           mbg_diag *d) {
  mbg_builder b;
  memset(&b, 0, sizeof b);
  b.d = d;
  b.m = mbg_model_new(default_name, path);
  if (!b.m) return NULL;
  int errors_before = d->errors;
  check_default_name(&b, ast, default_name);
  declare_all(&b, ast);
  if (!b.oom) index_joints(&b, ast);
  if (!b.oom) statements(&b, ast);
  if (!b.oom) mbg_check_mimic(b.m, d);
  if (!b.oom) mbg_check_tree(&b, errors_before);
  if (!b.oom && d->errors == errors_before) mbg_check_flex_uses(&b);
  mbg_names_free(&b.names);
  free(b.joint_stmt);
  if (b.oom || d->errors > errors_before) {
    mbg_model_free(b.m);
    return NULL;
  }
  return b.m;
}
