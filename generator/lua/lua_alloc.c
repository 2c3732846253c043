/* lua_alloc.c — size-class free lists for the embedded Lua state (see lua_alloc.h). */
#include "lua/lua_alloc.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define POOLED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOLED 0
#endif
#endif
#ifndef POOLED
#define POOLED 1
#endif

enum { GRAIN = 16, NCLASS = 16, SMALL_MAX = GRAIN * NCLASS, CHUNK = 256 * 1024 };

typedef struct free_block {
  struct free_block *next;
} free_block;

typedef struct chunk {
  struct chunk *next;
  _Alignas(max_align_t) unsigned char data[]; /* CHUNK - header bytes */
} chunk;

struct mbg_lua_pool {
  free_block *free[NCLASS]; /* by class: block size (class + 1) · GRAIN */
  chunk *chunks;
  unsigned char *cur, *end; /* the unused tail of the newest chunk */
};

mbg_lua_pool *mbg_lua_pool_new(void) { return calloc(1, sizeof(mbg_lua_pool)); }

void mbg_lua_pool_free(mbg_lua_pool *p) {
  if (!p) return;
  for (chunk *c = p->chunks, *next; c; c = next) next = c->next, free(c);
  free(p);
}

static int class_of(size_t n) { return (int)((n + GRAIN - 1) / GRAIN) - 1; }

static void *small_alloc(mbg_lua_pool *p, int k) {
  size_t size = (size_t)(k + 1) * GRAIN;
  free_block *b = p->free[k];
  if (b) {
    p->free[k] = b->next;
    return b;
  }
  if ((size_t)(p->end - p->cur) < size) {
    chunk *c = malloc(CHUNK);
    if (!c) return NULL;
    c->next = p->chunks, p->chunks = c;
    p->cur = c->data;
    p->end = (unsigned char *)c + CHUNK;
  }
  void *r = p->cur;
  p->cur += size;
  return r;
}

static void small_free(mbg_lua_pool *p, void *ptr, int k) {
  free_block *b = ptr;
  b->next = p->free[k], p->free[k] = b;
}

void *mbg_lua_pool_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  mbg_lua_pool *p = ud;
  if (!POOLED) {
    if (nsize == 0) return free(ptr), NULL;
    return realloc(ptr, nsize);
  }
  /* Lua passes the block's size in osize whenever ptr is not NULL */
  int ok = ptr && osize > 0 && osize <= SMALL_MAX ? class_of(osize) : -1;
  int nk = nsize > 0 && nsize <= SMALL_MAX ? class_of(nsize) : -1;
  if (nsize == 0) {
    if (ok >= 0) small_free(p, ptr, ok);
    else free(ptr);
    return NULL;
  }
  if (!ptr) return nk >= 0 ? small_alloc(p, nk) : malloc(nsize);
  if (ok >= 0 && ok == nk) return ptr;
  if (ok < 0 && nk < 0) return realloc(ptr, nsize);
  void *r = nk >= 0 ? small_alloc(p, nk) : malloc(nsize);
  if (!r) return NULL; /* Lua keeps the old block */
  memcpy(r, ptr, osize < nsize ? osize : nsize);
  if (ok >= 0) small_free(p, ptr, ok);
  else free(ptr);
  return r;
}
