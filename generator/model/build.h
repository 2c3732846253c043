/* build.h — from the parser's AST to a validated model (every rule of docs/dsl.md). */
#ifndef MBG_BUILD_H
#define MBG_BUILD_H

#include "ast.h"
#include "model/model.h"

/* Check the AST and build the model. Every problem is reported to `d` (located, with notes);
 * returns the model when there were no errors, NULL otherwise (or when out of memory). `path`
 * is recorded in the model; `default_name` names a model without a `model` statement. */
mbg_model *mbg_build_model(const mbd_ast *ast, const char *path, const char *default_name,
                           mbg_diag *d);

/* 1 if `name` can be used as a name in the model and in the generated C: a C identifier of at
 * most MBG_MAX_NAME characters, not a C keyword or reserved identifier. */
enum { MBG_MAX_NAME = 63 };
int mbg_valid_c_name(const char *name, const char **why);

#endif
