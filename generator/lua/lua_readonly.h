/* lua_readonly.h — read-only tables for the templates (lua_readonly.c; mbg_lua_freeze is declared
 * in lua_host.h, its users' header). */
#ifndef MBG_LUA_READONLY_H
#define MBG_LUA_READONLY_H

#include <lua.h>

/* The sandbox's rawset (refuses a read-only table) and setmetatable (refuses a metatable with
 * __gc: Lua runs finalizers with hooks off, at no defined time), replacing the base library's. */
void mbg_lua_open_guards(lua_State *L);

#endif
