/* mbt_alloc.c — the counted allocator of mbt_alloc.h. */
#include "mbt_alloc.h"

volatile int mbt_alloc_counting;
volatile long mbt_alloc_calls;

void *__wrap_malloc(size_t n) {
  mbt_alloc_calls += mbt_alloc_counting;
  return __real_malloc(n);
}
void *__wrap_calloc(size_t k, size_t n) {
  mbt_alloc_calls += mbt_alloc_counting;
  return __real_calloc(k, n);
}
void *__wrap_realloc(void *p, size_t n) {
  mbt_alloc_calls += mbt_alloc_counting;
  return __real_realloc(p, n);
}
void __wrap_free(void *p) {
  mbt_alloc_calls += mbt_alloc_counting;
  __real_free(p);
}
