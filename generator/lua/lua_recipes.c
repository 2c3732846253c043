/* lua_recipes.c — the registry of the recipes libraries make, and where a recipe or a library is
 * found (lua_recipes.h). */
#include "lua/lua_recipes.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lua/templates_builtin.h"

#define BY_NAME(name, library) {name, library, "recipe", -1}

/* Sorted by name (tests/test_lua_host.c checks it, and that every line's library and entry
 * exist). */
const mbg_lua_recipe mbg_lua_recipes[] = {
    BY_NAME("aba_derivatives", "derivatives"),
    BY_NAME("aba_ext_derivatives", "derivatives"),
    BY_NAME("aba_wrenches", "fused"),
    BY_NAME("base_params", "regressors"),
    BY_NAME("base_regressor", "regressors"),
    BY_NAME("ccrba", "mass_props"),
    BY_NAME("centroidal_bias", "mass_props"),
    BY_NAME("centroidal_momentum", "mass_props"),
    BY_NAME("com", "mass_props"),
    BY_NAME("com_jacobian", "mass_props"),
    BY_NAME("contact_fd", "contact"),
    BY_NAME("contact_fd_derivatives", "contact_derivatives"),
    BY_NAME("contact_fd_reg", "contact"),
    BY_NAME("contact_fd_reg_derivatives", "contact_derivatives"),
    BY_NAME("difference", "manifold"),
    BY_NAME("difference_jacobians", "manifold"),
    BY_NAME("dynamics", "fused"),
    BY_NAME("energy", "mass_props"),
    BY_NAME("energy_regressor", "regressors"),
    BY_NAME("fd_loops_derivatives", "loop_derivatives"),
    BY_NAME("frame_acceleration_bias", "frames"),
    BY_NAME("frame_acceleration_derivatives", "frame_derivatives"),
    BY_NAME("frame_acceleration_derivatives_local", "frame_derivatives"),
    BY_NAME("frame_jacobian", "frames"),
    BY_NAME("frame_jacobian_world", "frames"),
    BY_NAME("frame_pose", "frames"),
    BY_NAME("frame_velocity", "frames"),
    BY_NAME("frame_velocity_derivatives", "frame_derivatives"),
    BY_NAME("frame_velocity_derivatives_local", "frame_derivatives"),
    BY_NAME("gravity_derivatives", "derivatives"),
    BY_NAME("impulse", "contact"),
    BY_NAME("impulse_derivatives", "contact_derivatives"),
    BY_NAME("integrate", "manifold"),
    BY_NAME("integrate_jacobians", "manifold"),
    BY_NAME("joint_regressor", "regressors"),
    /* p_rcr's variant and its refinement per selection of the dependent coordinates (at most 3:
     * topology/rcr_select.h) */
    {"rcr_0", "rcr_variant", "recipe", 0},
    {"rcr_1", "rcr_variant", "recipe", 1},
    {"rcr_2", "rcr_variant", "recipe", 2},
    {"rcr_refine_0", "rcr_variant", "refine_recipe", 0},
    {"rcr_refine_1", "rcr_variant", "refine_recipe", 1},
    {"rcr_refine_2", "rcr_variant", "refine_recipe", 2},
    BY_NAME("regressor", "regressors"),
    BY_NAME("rnea_derivatives", "derivatives"),
    BY_NAME("rnea_ext_derivatives", "derivatives"),
    {NULL, NULL, NULL, 0}};

const mbg_lua_recipe *mbg_lua_recipe_find(const char *name) {
  for (const mbg_lua_recipe *e = mbg_lua_recipes; e->name; e++)
    if (strcmp(e->name, name) == 0) return e;
  return NULL;
}

/* key = "folder/name.lua"; 0 when it does not fit. */
static int make_key(char *key, size_t n, const char *folder, const char *name) {
  int len = snprintf(key, n, "%s/%s.lua", folder, name);
  return len > 0 && (size_t)len < n;
}

static int builtin_has(const char *folder, const char *name) {
  char key[256];
  if (!make_key(key, sizeof key, folder, name)) return 0;
  for (const mbg_builtin_template *t = mbg_builtin_templates; t->name; t++)
    if (strcmp(t->name, key) == 0) return 1;
  return 0;
}

int mbg_lua_is_builtin_function(const char *name) {
  return mbg_lua_recipe_find(name) != NULL || builtin_has("algorithms", name);
}

int mbg_lua_is_builtin_library(const char *name) { return builtin_has("lib", name); }

/* 1 with key set if the user's directory has folder/name.lua (a file or not: loading it says
 * what is wrong). */
static int user_has(const mbg_lua *h, const char *folder, const char *name, char *key, size_t n) {
  const char *dir = mbg_lua_user_dir(h);
  char path[512];
  struct stat st;
  if (!dir || !make_key(key, n, folder, name)) return 0;
  int len = snprintf(path, sizeof path, "%s/%s", dir, key);
  return len > 0 && (size_t)len < sizeof path && lstat(path, &st) == 0;
}

mbg_lua_found mbg_lua_find(const mbg_lua *h, const char *name, int function, char *key, size_t n,
                           const mbg_lua_recipe **entry) {
  const mbg_lua_recipe *none;
  int fn = function || mbg_lua_is_builtin_function(name);
  *entry = NULL;
  if (!fn && user_has(h, "lib", name, key, n)) return MBG_LUA_FILE;
  if (user_has(h, "algorithms", name, key, n)) return MBG_LUA_FILE;
  if (fn && (*entry = mbg_lua_recipe_find(name)) != NULL) {
    if (mbg_lua_find(h, (*entry)->library, 0, key, n, &none) == MBG_LUA_NOWHERE)
      make_key(key, n, "lib", (*entry)->library); /* not built in: the test of the registry */
    return MBG_LUA_REGISTRY;
  }
  if (builtin_has("algorithms", name)) return make_key(key, n, "algorithms", name), MBG_LUA_FILE;
  if (!fn && builtin_has("lib", name)) return make_key(key, n, "lib", name), MBG_LUA_FILE;
  return MBG_LUA_NOWHERE;
}

int mbg_lua_has_recipe(const mbg_lua *h, const char *name) {
  char key[256];
  const mbg_lua_recipe *e;
  return mbg_lua_find(h, name, 1, key, sizeof key, &e) != MBG_LUA_NOWHERE;
}

void mbg_lua_recipe_where(const mbg_lua *h, const char *name, char *buf, size_t n) {
  char key[256];
  const mbg_lua_recipe *e;
  switch (mbg_lua_find(h, name, 1, key, sizeof key, &e)) {
  case MBG_LUA_FILE: snprintf(buf, n, "%s", key); break;
  case MBG_LUA_REGISTRY: snprintf(buf, n, "%s (%s)", key, name); break;
  case MBG_LUA_NOWHERE: snprintf(buf, n, "algorithms/%s.lua", name); break;
  }
}

void mbg_lua_push_registry(lua_State *L, const mbg_lua_recipe *e) {
  lua_getglobal(L, "import");
  lua_pushstring(L, e->library);
  lua_call(L, 1, 1);
  if (lua_type(L, -1) != LUA_TTABLE || lua_getfield(L, -1, e->entry) != LUA_TFUNCTION) {
    if (e->index < 0)
      luaL_error(L, "the recipe of %s is import(\"%s\").%s(\"%s\"), but the library has no "
                 "function %s", e->name, e->library, e->entry, e->name, e->entry);
    luaL_error(L, "the recipe of %s is import(\"%s\").%s(%d), but the library has no function %s",
               e->name, e->library, e->entry, e->index, e->entry);
  }
  if (e->index < 0) lua_pushstring(L, e->name);
  else lua_pushinteger(L, e->index);
  lua_call(L, 1, 1);
  lua_remove(L, -2); /* the library */
}

static int run_registry(lua_State *L) {
  mbg_lua_push_registry(L, lua_touserdata(L, 1));
  return 1;
}

int mbg_lua_run_recipe(mbg_lua *h, const char *name) {
  char key[256];
  const mbg_lua_recipe *e;
  const char *dir = mbg_lua_user_dir(h);
  switch (mbg_lua_find(h, name, 1, key, sizeof key, &e)) {
  case MBG_LUA_FILE: return mbg_lua_run(h, key);
  case MBG_LUA_REGISTRY: return mbg_lua_run_cfunction(h, key, run_registry, (void *)e);
  case MBG_LUA_NOWHERE: break;
  }
  if (dir) mbg_lua_set_error(h, "no recipe '%s' (not %s/algorithms/%s.lua, not built in)", name,
                             dir, name);
  else mbg_lua_set_error(h, "no recipe '%s' (not built in)", name);
  return -1;
}
