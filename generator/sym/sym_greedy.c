/* sym_greedy.c — a third emission order: list scheduling that keeps few values live.
 *
 * Top-down over the live operations: of the operations whose operands are all computed, take one
 * that is the last use of the most operands (2, 1, then 0: a statement that frees two values,
 * then one that replaces one, before one that only adds); among equals the smallest id, so the
 * recipe's own order decides where pressure does not. An output is stored right after its
 * statement, so it is freed like any value after its last use. O(n log n): a heap of ids per
 * count, entries checked when they come out (a node whose count rose since it was pushed is
 * pushed again). A given prefix (the sines' and cosines' cones) is taken first, as it stands. */
#include <stdlib.h>
#include <string.h>

#include "sym/sym_internal.h"

typedef struct heap {
  mbg_sx *a;
  int32_t n;
} heap;

static void heap_push(heap *h, mbg_sx x) {
  int32_t i = h->n++;
  while (i > 0 && h->a[(i - 1) / 2] > x) h->a[i] = h->a[(i - 1) / 2], i = (i - 1) / 2;
  h->a[i] = x;
}

static mbg_sx heap_pop(heap *h) {
  mbg_sx top = h->a[0], x = h->a[--h->n];
  int32_t i = 0;
  for (;;) {
    int32_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->a[c + 1] < h->a[c]) c++;
    if (h->a[c] >= x) break;
    h->a[i] = h->a[c], i = c;
  }
  if (h->n > 0) h->a[i] = x;
  return top;
}

typedef struct greedy {
  const mbg_sym *s;
  const unsigned char *live;
  unsigned char *done, *frees;
  int32_t *left;    /* per node: its users not yet scheduled (operand occurrences) */
  int32_t *pending; /* per operation: its operations not yet scheduled */
  int32_t *first;   /* CSR of users: users of x are user[first[x] .. first[x + 1]) */
  mbg_sx *user;
  heap ready[3];
} greedy;

static int is_op(const greedy *g, mbg_sx e) {
  return e >= 0 && g->live[e] && !mbg_sym_is_leaf_op(g->s->op[e]);
}

/* Operand k of e when it is a live operation, else -1 (the second only when it differs). */
static mbg_sx operand(const greedy *g, mbg_sx e, int k) {
  mbg_sx x = k == 0 ? g->s->a[e] : g->s->b[e];
  if (k == 1 && x == g->s->a[e]) return -1;
  return is_op(g, x) ? x : -1;
}

static int occurrences(const greedy *g, mbg_sx e, mbg_sx x) {
  return (g->s->a[e] == x) + (g->s->b[e] == x);
}

/* How many of e's operands e is the last use of. */
static int count_frees(const greedy *g, mbg_sx e) {
  int n = 0;
  for (int k = 0; k < 2; k++) {
    mbg_sx x = operand(g, e, k);
    if (x >= 0 && g->left[x] == occurrences(g, e, x)) n++;
  }
  return n;
}

static void push_ready(greedy *g, mbg_sx e) {
  g->frees[e] = (unsigned char)count_frees(g, e);
  heap_push(&g->ready[g->frees[e]], e);
}

static void schedule(greedy *g, mbg_sx e, mbg_sx *out, int32_t *len) {
  g->done[e] = 1;
  out[(*len)++] = e;
  for (int k = 0; k < 2; k++) {
    mbg_sx x = operand(g, e, k);
    if (x < 0) continue;
    g->left[x] -= occurrences(g, e, x);
    if (g->left[x] > 0 && g->left[x] <= 2) {
      /* one or two uses left: a ready user now their last goes again, with its higher count */
      for (int32_t u = g->first[x]; u < g->first[x + 1]; u++) {
        mbg_sx w = g->user[u];
        if (!g->done[w] && g->pending[w] == 0 && count_frees(g, w) > g->frees[w]) push_ready(g, w);
      }
    }
  }
  for (int32_t u = g->first[e]; u < g->first[e + 1]; u++) {
    mbg_sx w = g->user[u];
    if (--g->pending[w] == 0) push_ready(g, w);
  }
}

int32_t mbg_sym_greedy_order(const mbg_sym *s, const unsigned char *live, mbg_sx *out,
                             int32_t npre) {
  size_t n = (size_t)s->n + 1;
  greedy g = {s, live, calloc(n, 1), calloc(n, 1), calloc(n, sizeof(int32_t)),
              calloc(n, sizeof(int32_t)), calloc(n + 1, sizeof(int32_t)), NULL, {{0}}};
  int32_t len = -1, nuse = 0;
  int ok = g.done && g.frees && g.left && g.pending && g.first;
  for (int k = 0; ok && k < 3; k++) ok = (g.ready[k].a = malloc(2 * n * sizeof(mbg_sx))) != NULL;
  if (ok) {
    for (mbg_sx e = 0; e < s->n; e++) {
      if (!is_op(&g, e)) continue;
      for (int k = 0; k < 2; k++) {
        mbg_sx x = operand(&g, e, k);
        if (x < 0) continue;
        g.left[x] += occurrences(&g, e, x), g.pending[e]++, g.first[x + 1]++, nuse++;
      }
    }
    for (size_t e = 1; e <= n; e++) g.first[e] += g.first[e - 1];
    ok = (g.user = malloc(((size_t)nuse + 1) * sizeof *g.user)) != NULL;
  }
  if (ok) {
    int32_t *at = malloc(n * sizeof *at);
    ok = at != NULL;
    for (size_t e = 0; ok && e < n; e++) at[e] = g.first[e];
    for (mbg_sx e = 0; ok && e < s->n; e++)
      for (int k = 0; is_op(&g, e) && k < 2; k++) {
        mbg_sx x = operand(&g, e, k);
        if (x >= 0) g.user[at[x]++] = e;
      }
    free(at);
  }
  if (ok) {
    len = 0;
    for (mbg_sx e = 0; e < s->n; e++)
      if (is_op(&g, e) && g.pending[e] == 0) push_ready(&g, e);
    for (int32_t i = 0; i < npre; i++) schedule(&g, out[i], out, &len); /* rewrites out[i] */
    for (;;) {
      int k = 2;
      while (k >= 0 && g.ready[k].n == 0) k--;
      if (k < 0) break;
      mbg_sx e = heap_pop(&g.ready[k]);
      /* stale: scheduled already, or pushed again with a higher count */
      if (g.done[e] || g.frees[e] != k) continue;
      schedule(&g, e, out, &len);
    }
  }
  for (int k = 0; k < 3; k++) free(g.ready[k].a);
  free(g.done), free(g.frees), free(g.left), free(g.pending), free(g.first);
  free(g.user);
  return len;
}
