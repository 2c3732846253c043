/* build.h — from the parser's AST to a validated model (every rule of docs/dsl.md). */
#ifndef MBG_BUILD_H
#define MBG_BUILD_H

#include "ast.h"
#include "model.h"

/* Check the AST and build the model. Every problem is reported to `d` (located, with notes);
 * returns the model when there were no errors, NULL otherwise (or when out of memory). `path`
 * is recorded in the model; `default_name` names a model without a `model` statement. */
mbg_model *mbg_build_model(const mbd_ast *ast, const char *path, const char *default_name,
                           mbg_diag *d);

/* Read, parse and check a .mbd file: the front end in one call. On failure returns NULL and the
 * reasons went to `out` as diagnostics. */
mbg_model *mbg_load_mbd(const char *path, FILE *out, int *errors, int *warnings);

/* A whole file (at most 64 MiB), malloc'ed and NUL-terminated, its size in *len; NULL on failure,
 * with a located message on `out` unless out is NULL. */
char *mbg_read_file(const char *path, size_t *len, FILE *out);

/* The same from text in memory (`path` names it in messages). */
mbg_model *mbg_model_from_text(const char *path, const char *text, size_t len, FILE *out,
                               int *errors, int *warnings);

/* 1 if `name` can be used as a name in the model and in the generated C: a C identifier of at
 * most MBG_MAX_NAME characters, not a C keyword or reserved identifier. */
enum { MBG_MAX_NAME = 63 };
int mbg_valid_c_name(const char *name, const char **why);

#endif
