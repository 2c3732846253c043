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

/* How a model file is read. A file whose name ends in .urdf (any case) is a URDF, read by
 * urdf.h; any other is a .mbd. */
typedef struct mbg_load_opts {
  int floating_base; /* URDF: the root link gets a floating joint to the world (else fixed) */
} mbg_load_opts;
int mbg_is_urdf(const char *path);
/* Read and check a model file of either kind (o may be NULL): the front end in one call. */
mbg_model *mbg_load(const char *path, const mbg_load_opts *o, FILE *out, int *errors,
                    int *warnings);
/* The same from text in memory; --floating-base on a .mbd is an error (a .mbd says
 * `joint NAME floating world -> BODY;`). */
mbg_model *mbg_model_from_source(const char *path, const char *text, size_t len,
                                 const mbg_load_opts *o, FILE *out, int *errors, int *warnings);
/* The model name implied by a file name: its base name without extension, as a C identifier
 * ('arm-v2.mbd' -> arm_v2, a leading digit gets a '_'). */
void mbg_default_model_name(const char *path, char *name, size_t size);

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
