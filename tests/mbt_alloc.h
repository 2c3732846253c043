/* mbt_alloc.h — the allocator wrapped at link time and counted (tests/mbt_alloc.c; a test links
 * it with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free and compiles with
 * -fno-builtin: tests/runtime.cmake), for the tests that check an algorithm allocates nothing. */
#ifndef MBT_ALLOC_H
#define MBT_ALLOC_H

#include <stddef.h>

/* malloc, calloc, realloc and free calls are added to mbt_alloc_calls while mbt_alloc_counting
 * is 1. volatile, and -fno-builtin: the compiler may otherwise assume that malloc and free touch
 * no global and move or drop the counter updates around them. */
extern volatile int mbt_alloc_counting;
extern volatile long mbt_alloc_calls;

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

#endif
