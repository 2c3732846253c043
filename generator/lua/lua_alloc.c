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
  size_t used, peak, limit; /* bytes from malloc: chunks and large blocks; limit 0: none */
  int refused;              /* a block was refused by the limit */
};

mbg_lua_pool *mbg_lua_pool_new(void) { return calloc(1, sizeof(mbg_lua_pool)); }

void mbg_lua_pool_free(mbg_lua_pool *p) {
  if (!p) return;
  for (chunk *c = p->chunks, *next; c; c = next) next = c->next, free(c);
  free(p);
}

static int class_of(size_t n) { return (int)((n + GRAIN - 1) / GRAIN) - 1; }

/* n more bytes from malloc, under the cap: 0, or -1 (refused). */
static int take(mbg_lua_pool *p, size_t n) {
  if (p->limit && (p->used > p->limit || n > p->limit - p->used)) return p->refused = 1, -1;
  p->used += n;
  if (p->used > p->peak) p->peak = p->used;
  return 0;
}

static void give(mbg_lua_pool *p, size_t n) { p->used -= n; }

static void *small_alloc(mbg_lua_pool *p, int k) {
  size_t size = (size_t)(k + 1) * GRAIN;
  free_block *b = p->free[k];
  if (b) {
    p->free[k] = b->next;
    return b;
  }
  if ((size_t)(p->end - p->cur) < size) {
    if (take(p, CHUNK) != 0) return NULL;
    chunk *c = malloc(CHUNK);
    if (!c) return give(p, CHUNK), NULL;
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

/* A large block (or, unpooled, any block): malloc, realloc or free of old bytes into nsize. */
static void *large(mbg_lua_pool *p, void *ptr, size_t old, size_t nsize) {
  if (nsize == 0) return free(ptr), give(p, old), NULL;
  if (nsize > old && take(p, nsize - old) != 0) return NULL;
  void *r = realloc(ptr, nsize);
  if (r) {
    if (nsize < old) give(p, old - nsize);
  } else if (nsize > old) {
    give(p, nsize - old);
  }
  return r;
}

void mbg_lua_pool_set_limit(mbg_lua_pool *p, size_t limit) { p->limit = limit; }
size_t mbg_lua_pool_limit(const mbg_lua_pool *p) { return p->limit; }
size_t mbg_lua_pool_used(const mbg_lua_pool *p) { return p->used; }
size_t mbg_lua_pool_peak(const mbg_lua_pool *p) { return p->peak; }
int mbg_lua_pool_refused(const mbg_lua_pool *p) { return p->refused; }
void mbg_lua_pool_clear_refused(mbg_lua_pool *p) { p->refused = 0; }

void *mbg_lua_pool_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  mbg_lua_pool *p = ud;
  if (!POOLED) return large(p, ptr, ptr ? osize : 0, nsize);
  /* Lua passes the block's size in osize whenever ptr is not NULL */
  int ok = ptr && osize > 0 && osize <= SMALL_MAX ? class_of(osize) : -1;
  int nk = nsize > 0 && nsize <= SMALL_MAX ? class_of(nsize) : -1;
  if (nsize == 0) {
    if (ok >= 0) small_free(p, ptr, ok);
    else large(p, ptr, osize, 0);
    return NULL;
  }
  if (!ptr) return nk >= 0 ? small_alloc(p, nk) : large(p, NULL, 0, nsize);
  if (ok >= 0 && ok == nk) return ptr;
  if (ok < 0 && nk < 0) return large(p, ptr, osize, nsize);
  void *r = nk >= 0 ? small_alloc(p, nk) : large(p, NULL, 0, nsize);
  if (!r) return NULL; /* Lua keeps the old block */
  memcpy(r, ptr, osize < nsize ? osize : nsize);
  if (ok >= 0) small_free(p, ptr, ok);
  else large(p, ptr, osize, 0);
  return r;
}
