/* lua_alloc.h — the allocator of the embedded Lua state.
 *
 * Recipes create and drop millions of small tables (6-vectors, 6×6 blocks) and strings; glibc's
 * general-purpose malloc spent a third of a large generation splitting and coalescing them.
 * Here blocks up to 256 bytes come from per-size free lists (16-byte classes) carved from 256 KiB
 * chunks, which are released only when the pool is; larger blocks go to malloc. Under
 * AddressSanitizer every block goes to malloc, so the sanitizer still sees Lua's memory. */
#ifndef MBG_LUA_ALLOC_H
#define MBG_LUA_ALLOC_H

#include <stddef.h>

typedef struct mbg_lua_pool mbg_lua_pool;

mbg_lua_pool *mbg_lua_pool_new(void);
/* Frees every chunk: only after lua_close of the state that used the pool. */
void mbg_lua_pool_free(mbg_lua_pool *p);
/* A lua_Alloc (ud = the pool). */
void *mbg_lua_pool_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

#endif
