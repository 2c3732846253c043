/* templates_builtin.h — the recipes and render templates compiled into mbdc (templates/ at build
 * time, written by cmake/embed_templates.cmake), looked up by their path under templates/. */
#ifndef MBG_TEMPLATES_BUILTIN_H
#define MBG_TEMPLATES_BUILTIN_H

#include <stddef.h>

typedef struct mbg_builtin_template {
  const char *name; /* "algorithms/rnea.lua", "c/header.lua"; NULL ends the table */
  const char *text; /* NUL-terminated */
  size_t size;      /* bytes, without the NUL */
} mbg_builtin_template;

extern const mbg_builtin_template mbg_builtin_templates[];

#endif
