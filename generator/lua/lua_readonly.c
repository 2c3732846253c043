/* lua_readonly.c — the read-only tables handed to templates (mbg_lua_freeze: a proxy whose
 * writes fail, with __len and __pairs reaching the table behind it) and the base functions the
 * sandbox replaces so that they respect them (lua_readonly.h). */
#include "lua/lua_readonly.h"

#include <lauxlib.h>

#include "lua/lua_host.h"

static int ro_newindex(lua_State *L) {
  return luaL_error(L, "attempt to modify a read-only table");
}

/* The table behind the proxy at index 1. */
static void push_target(lua_State *L) {
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "__index");
  lua_remove(L, -2);
}

static int ro_len(lua_State *L) {
  push_target(L);
  lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
  return 1;
}

/* next over the table behind the proxy (upvalue 1): the table itself never reaches Lua. */
static int ro_next(lua_State *L) {
  lua_settop(L, 2);
  if (lua_next(L, lua_upvalueindex(1))) return 2;
  lua_pushnil(L);
  return 1;
}

static int ro_pairs(lua_State *L) {
  push_target(L);
  lua_pushcclosure(L, ro_next, 1);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

/* 1 if the value at idx is a read-only proxy. */
static int is_frozen(lua_State *L, int idx) {
  if (!lua_getmetatable(L, idx)) return 0;
  lua_getfield(L, -1, "__newindex");
  int frozen = lua_tocfunction(L, -1) == ro_newindex;
  lua_pop(L, 2);
  return frozen;
}

/* setmetatable(t, mt) of the sandbox: as Lua's (upvalue 1), but a metatable with __gc is
 * refused. Lua runs finalizers with hooks off, at no defined time: one that never ended would
 * escape the time limit, one with side effects would make the output depend on the collector. */
static int l_setmetatable(lua_State *L) {
  lua_settop(L, 2);
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL)
      return luaL_error(L, "setmetatable: templates cannot have finalizers (__gc)");
    lua_pop(L, 1);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 2, 1);
  return 1;
}

/* rawset(t, k, v) of the sandbox: as Lua's, but a read-only table is refused. */
static int l_rawset(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  if (is_frozen(L, 1)) return luaL_error(L, "attempt to modify a read-only table");
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

void mbg_lua_freeze(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  luaL_checkstack(L, 8, "freezing a table");
  /* freeze the nested tables first (assigning to existing fields is allowed during lua_next) */
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -1) == LUA_TTABLE) {
      mbg_lua_freeze(L, -1);
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, idx);
    } else {
      lua_pop(L, 1);
    }
  }
  /* proxy = setmetatable({}, {__index = t, __newindex = error, __len, __pairs, __metatable}) */
  lua_newtable(L);
  lua_createtable(L, 0, 5);
  lua_pushvalue(L, idx);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ro_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, ro_len);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, ro_pairs);
  lua_setfield(L, -2, "__pairs");
  lua_pushliteral(L, "read-only");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_replace(L, idx);
}

void mbg_lua_open_guards(lua_State *L) {
  lua_pushcfunction(L, l_rawset);
  lua_setglobal(L, "rawset");
  lua_getglobal(L, "setmetatable");
  lua_pushcclosure(L, l_setmetatable, 1);
  lua_setglobal(L, "setmetatable");
}
