/* gen_signature.h — the C signature of a built-in function as <p>_dynamics.h declares it, for
 * `mbdc functions`: made from the recipe's own table ('returns' and the roles of 'params') and
 * the declarations of gen_roles.h, the same the render templates write; for the functions a C
 * template writes around the recipes (rcr, project_q, project_v), its prototype in the table of
 * gen_functions.h. P stands for the prefix: "void P_rnea(const double q[P_NQ], ...);".
 * tests/header_test.sh compares every one with generated headers. */
#ifndef MBG_GEN_SIGNATURE_H
#define MBG_GEN_SIGNATURE_H

#include <stddef.h>

#include "emit/gen_functions.h"
#include "lua/lua_host.h"

/* A Lua host for the recipes' tables (built-in templates only, the sym global installed), or
 * NULL when out of memory. Free it with mbg_signature_host_free. */
typedef struct mbg_signature_host mbg_signature_host;
mbg_signature_host *mbg_signature_host_new(void);
void mbg_signature_host_free(mbg_signature_host *s);

/* f's signature with scalar type scalar ("double" or "float") into buf[n]. Returns 0, or -1 with
 * the reason in buf (the recipe fails to load, a role is unknown, buf is too small). */
int mbg_signature(mbg_signature_host *s, const mbg_fn *f, const char *scalar, char *buf,
                  size_t n);

#endif
