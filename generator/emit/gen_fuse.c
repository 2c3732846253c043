/* gen_fuse.c — --fuse NAME=f1,f2,...: the option's checks, and its recipe from fuse.lua. */
#include "emit/gen_fuse.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"
#include "emit/generate.h"
#include "lua/lua_recipes.h"
#include "model/build.h"

/* The length of NAME in "NAME=f1,f2,...". */
static size_t name_len(const char *spec) { return strcspn(spec, "="); }

/* 1 if the --fuse spec's NAME is name. */
static int named(const char *spec, const char *name) {
  size_t len = name_len(spec);
  return strlen(name) == len && strncmp(spec, name, len) == 0;
}

int mbg_gen_fuse_find(const mbg_gen *g, const char *name) {
  for (int k = 0; k < g->opts->nfuse; k++)
    if (named(g->opts->fuse[k], name)) return k;
  return -1;
}

int mbg_gen_fuse_count(const mbg_gen *g, const char *name) {
  int count = 0;
  for (int k = 0; k < g->opts->nfuse; k++) count += named(g->opts->fuse[k], name);
  return count;
}

int mbg_gen_fuse_names(const mbg_gen *g, char **names, int *n) {
  int listed = *n; /* the names --functions gave: a fused one there is the same function */
  for (int k = 0; k < g->opts->nfuse; k++) {
    const char *spec = g->opts->fuse[k];
    int dup = 0;
    for (int j = 0; j < listed && !dup; j++) dup = named(spec, names[j]);
    if (dup) continue;
    if (!(names[*n] = strndup(spec, name_len(spec)))) return -1;
    (*n)++;
  }
  return 0;
}

/* Recipes that cannot be a part: cfa is generated in C, trig has nothing to share, rcr's parts
 * are p_rcr's. */
static int not_a_part(const char *part) {
  return strcmp(part, "cfa") == 0 || strcmp(part, "trig") == 0 || strncmp(part, "rcr", 3) == 0;
}

/* The parts of spec k as a list of malloc'ed strings (*nparts of them), or NULL (memory). */
static char **parts_of(const char *spec, int *nparts) {
  const char *p = spec + name_len(spec);
  int cap = 1;
  for (const char *c = p; *c; c++) cap += *c == ',';
  char **parts = calloc((size_t)cap + 1, sizeof *parts);
  *nparts = 0;
  if (!parts) return NULL;
  if (*p == '=') p++;
  for (; *p; p += strcspn(p, ","), p += *p == ',') {
    size_t len = strcspn(p, ",");
    if (len == 0) continue;
    if (!(parts[*nparts] = strndup(p, len))) {
      for (int j = 0; j < *nparts; j++) free(parts[j]);
      free(parts);
      return NULL;
    }
    (*nparts)++;
  }
  return parts;
}

static void free_parts(char **parts, int n) {
  for (int j = 0; parts && j < n; j++) free(parts[j]);
  free(parts);
}

int mbg_gen_fuse_check(mbg_gen *g, int k, FILE *err) {
  const char *spec = g->opts->fuse[k];
  char name[80], shown[160], path[160], via[100];
  size_t len = name_len(spec);
  snprintf(name, sizeof name, "%.*s", (int)(len < 79 ? len : 79), spec);
  mbg_quote_comment_to(spec, shown, sizeof shown); /* any text: shown escaped */
  const char *why;
  if (spec[len] != '=' || len == 0 || len > 31 || !mbg_valid_c_name(name, &why))
    return fprintf(err, "mbdc: error: --fuse '%s': expected NAME=f1,f2,... with NAME a C "
                        "identifier of at most 31 characters\n", shown), 2;
  for (int j = 0; j < g->opts->nfuse; j++)
    if (j != k && mbg_gen_fuse_find(g, name) == j)
      return fprintf(err, "mbdc: error: --fuse %s: the name is given twice\n", name), 2;
  mbg_lua_recipe_where(g->lua, name, path, sizeof path);
  if (mbg_lua_has_recipe(g->lua, name))
    return fprintf(err, "mbdc: error: --fuse %s: '%s' is the name of a recipe, %s; choose "
                        "another\n", name, name, path), 2;
  int nparts, rc = 0;
  char **parts = parts_of(spec, &nparts);
  if (!parts) return fprintf(err, "mbdc: error: out of memory\n"), 2;
  if (nparts < 2)
    rc = (fprintf(err, "mbdc: error: --fuse %s: name two functions or more after '='\n", name), 2);
  snprintf(via, sizeof via, "--fuse %s", name);
  for (int j = 0; rc == 0 && j < nparts; j++) {
    char part[160];
    mbg_quote_comment_to(parts[j], part, sizeof part); /* any text until checked: escaped */
    for (int i = 0; rc == 0 && i < j; i++)
      if (strcmp(parts[i], parts[j]) == 0)
        rc = (fprintf(err, "mbdc: error: --fuse %s: '%s' is listed twice\n", name, part), 2);
    if (rc == 0 && mbg_gen_fuse_find(g, parts[j]) >= 0)
      rc = (fprintf(err, "mbdc: error: --fuse %s: '%s' is another --fuse function; list its "
                         "parts instead\n", name, part), 2);
    if (rc == 0 && not_a_part(parts[j]))
      rc = (fprintf(err, "mbdc: error: --fuse %s: %s cannot be fused (%s)\n", name, part,
                    strcmp(parts[j], "cfa") == 0 ? "its elimination is generated in C, not by a "
                                                   "recipe"
                    : strcmp(parts[j], "trig") == 0 ? "it has nothing to share"
                                                    : "a part of p_rcr"), 2);
    if (rc == 0) rc = mbg_gen_check_recipe(g, parts[j], via, err);
  }
  free_parts(parts, nparts);
  /* the parameters merge (fuse.lua): no output name twice, one role per input name */
  if (rc == 0 && mbg_gen_fuse_push(g, k) != 0)
    rc = (fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 2);
  else if (rc == 0)
    lua_pop(mbg_lua_state(g->lua), 1);
  return rc;
}

int mbg_gen_fuse_push(mbg_gen *g, int k) {
  lua_State *L = mbg_lua_state(g->lua);
  const char *spec = g->opts->fuse[k];
  int nparts;
  char **parts = parts_of(spec, &nparts);
  if (!parts) return mbg_lua_set_error(g->lua, "out of memory"), -1;
  char key[64];
  const mbg_lua_recipe *none;
  mbg_lua_find(g->lua, "fuse", 0, key, sizeof key, &none); /* the library lib/fuse.lua */
  int rc = mbg_lua_run(g->lua, key);
  if (rc == 0 && !lua_isfunction(L, -1)) {
    mbg_lua_set_error(g->lua, "%s: must return a function(name, parts)", key);
    lua_pop(L, 1);
    rc = -1;
  }
  if (rc == 0) {
    lua_pushlstring(L, spec, name_len(spec));
    lua_createtable(L, nparts, 0);
    for (int j = 0; j < nparts; j++) lua_pushstring(L, parts[j]), lua_rawseti(L, -2, j + 1);
    rc = mbg_lua_call(g->lua, 2, 2);
  }
  if (rc == 0 && lua_isnil(L, -2)) { /* the parts cannot be fused: the reason, no traceback */
    const char *why = lua_tostring(L, -1);
    mbg_lua_set_error(g->lua, "%s", why ? why : "--fuse: fuse.lua refused the parts");
    lua_pop(L, 2);
    rc = -1;
  }
  if (rc == 0) lua_pop(L, 1); /* the recipe table stays */
  free_parts(parts, nparts);
  return rc;
}
