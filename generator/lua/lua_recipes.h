/* lua_recipes.h — where the recipe of a function, and a module an import names, is found
 * (docs/templates.md, "How recipes are found").
 *
 * Two folders of templates/ hold Lua: algorithms/, a recipe per generated function whose file is
 * the recipe itself (rnea.lua), and lib/, the libraries the recipes import (spatial.lua,
 * joints.lua, ...). Some libraries make several recipes (mass_props.lua makes com, energy, ...):
 * those functions have no file of their own but a line of the registry below, which names the
 * library and the library's function that makes the recipe.
 *
 * A function's recipe, in this order: the user's DIR/algorithms/NAME.lua (--templates DIR), the
 * registry's line, the built-in algorithms/NAME.lua. A library: the user's DIR/lib/NAME.lua, then
 * DIR/algorithms/NAME.lua (where libraries lived before lib/), then the built-in lib/NAME.lua.
 * import(NAME) follows the first rule for a built-in function's name, the second for any other. */
#ifndef MBG_LUA_RECIPES_H
#define MBG_LUA_RECIPES_H

#include <stddef.h>

#include "lua/lua_host.h"

/* A built-in function whose recipe a library makes: import(library)[entry](name), or
 * import(library)[entry](index) when index >= 0. */
typedef struct mbg_lua_recipe {
  const char *name;    /* the function: "com"; NULL ends the registry */
  const char *library; /* lib/LIBRARY.lua: "mass_props" */
  const char *entry;   /* the library's function that returns the recipe: "recipe" */
  int index;           /* its argument: -1 the function's name, else this number (rcr_0: 0) */
} mbg_lua_recipe;

/* The registry, sorted by name. */
extern const mbg_lua_recipe mbg_lua_recipes[];

/* Where a name was found. */
typedef enum mbg_lua_found {
  MBG_LUA_NOWHERE,  /* no such recipe or library */
  MBG_LUA_FILE,     /* a template file: key is its path under templates/ or DIR */
  MBG_LUA_REGISTRY, /* a registry line: key is its library's file (itself found as a library) */
} mbg_lua_found;

/* The registry's line for name, or NULL. */
const mbg_lua_recipe *mbg_lua_recipe_find(const char *name);
/* 1 if name is a built-in function: a registry line or a built-in algorithms/NAME.lua. */
int mbg_lua_is_builtin_function(const char *name);
/* 1 if name is a built-in library: a built-in lib/NAME.lua. */
int mbg_lua_is_builtin_library(const char *name);

/* Find name as a function (function != 0) or as an import names it (the rules above); key
 * ("algorithms/rnea.lua", "lib/spatial.lua") gets the file to load (for a registry line, its
 * library's), *entry the registry line (or NULL). A user's file counts as found when it exists,
 * readable or not (loading it says why it cannot be read). */
mbg_lua_found mbg_lua_find(const mbg_lua *h, const char *name, int function, char *key, size_t n,
                           const mbg_lua_recipe **entry);
/* 1 if function name has a recipe (the user's or a built-in one). */
int mbg_lua_has_recipe(const mbg_lua *h, const char *name);
/* Where the recipe of function name comes from, for messages: "algorithms/rnea.lua",
 * "lib/mass_props.lua (com)". */
void mbg_lua_recipe_where(const mbg_lua *h, const char *name, char *buf, size_t n);

/* Run the recipe of function name as mbg_lua_run runs a template (its value on the stack).
 * Returns 0, or -1 with the message in mbg_lua_error. */
int mbg_lua_run_recipe(mbg_lua *h, const char *name);

/* Push the recipe a registry line makes: import(library)[entry](argument). Raises Lua errors:
 * for a function run protected (import's). */
void mbg_lua_push_registry(lua_State *L, const mbg_lua_recipe *e);

#endif
