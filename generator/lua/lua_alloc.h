/* lua_alloc.h — the allocator of the embedded Lua state.
 *
 * Recipes create and drop millions of small tables (6-vectors, 6×6 blocks) and strings; glibc's
 * general-purpose malloc spent a third of a large generation splitting and coalescing them.
 * Here blocks up to 256 bytes come from per-size free lists (16-byte classes) carved from 256 KiB
 * chunks, which are released only when the pool is; larger blocks go to malloc. Under
 * AddressSanitizer every block goes to malloc, so the sanitizer still sees Lua's memory. The pool
 * also counts the memory it holds and refuses blocks beyond a cap (--lua-memory). */
#ifndef MBG_LUA_ALLOC_H
#define MBG_LUA_ALLOC_H

#include <stddef.h>

typedef struct mbg_lua_pool mbg_lua_pool;

mbg_lua_pool *mbg_lua_pool_new(void);
/* Frees every chunk: only after lua_close of the state that used the pool. */
void mbg_lua_pool_free(mbg_lua_pool *p);
/* A lua_Alloc (ud = the pool). */
void *mbg_lua_pool_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* The memory cap: the bytes the pool holds from malloc (its chunks, which keep the small blocks,
 * and the large blocks) may not pass limit — 0, the default, for none. A block that would take
 * them past it is refused (NULL), which Lua turns into a memory error after a full collection;
 * frees and shrinks are never refused. Small blocks from the free lists cost no accounting. */
void mbg_lua_pool_set_limit(mbg_lua_pool *p, size_t limit);
size_t mbg_lua_pool_limit(const mbg_lua_pool *p);
/* The bytes the pool holds from malloc now, and the most it held at once. */
size_t mbg_lua_pool_used(const mbg_lua_pool *p);
size_t mbg_lua_pool_peak(const mbg_lua_pool *p);
/* Whether the cap refused a block since the last mbg_lua_pool_clear_refused. */
int mbg_lua_pool_refused(const mbg_lua_pool *p);
void mbg_lua_pool_clear_refused(mbg_lua_pool *p);

#endif
