/* test_sym_limits.c — the expression engine at its limits: a million-node graph (its duration
 * shows a regression to worse than linear) and allocation failures, which must be reported
 * (mbg_sym_failed, -1 ids, error codes) and never crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sym/sym.h"

static double lookup(void *ctx, const char *array, int index) {
  (void)ctx, (void)array;
  return 0.1 * index;
}

/* A million nodes: a chain x ← x·c_k + q[k mod 7] (two nodes and a constant a step) with a
 * sine every 64 steps; scheduled, counted, evaluated and emitted. Only its duration matters. */
static void t_scale(void **st) {
  (void)st;
  mbg_sym *s = mbg_sym_new();
  mbg_sx x = mbg_sym_input(s, "q", 0);
  for (int k = 0; mbg_sym_size(s) < 1000000; k++) {
    mbg_sx c = mbg_sym_const(s, 1.0 + k * 1e-9);
    x = mbg_sym_add(s, mbg_sym_mul(s, x, c), mbg_sym_input(s, "q", k % 7));
    if (k % 64 == 0) x = mbg_sym_sin(s, x);
    if (k % 1000 == 0) mbg_sym_output(s, "out", k / 1000, x);
  }
  mbg_sym_output(s, "out", 1000, x);
  assert_false(mbg_sym_failed(s));
  mbg_sym_counts n;
  assert_int_equal(mbg_sym_count(s, &n), 0);
  assert_true(n.mul > 300000 && n.add + 1 == n.mul); /* the first step is q0·1 + q0 = 2 q0 */
  mbg_sx *order;
  assert_true(mbg_sym_schedule(s, &order) > 600000);
  free(order);
  double *v = malloc((size_t)mbg_sym_size(s) * sizeof *v);
  assert_int_equal(mbg_sym_eval(s, lookup, NULL, v), 0);
  free(v);
  FILE *null = fopen("/dev/null", "w");
  assert_non_null(null);
  assert_int_equal(mbg_sym_emit_c(s, null, NULL), 0);
  fclose(null);
  mbg_sym_free(s);
}

/* The address space of a child process limited to 64 MB: building a chain until the engine
 * fails. Reference: the failure is reported (the flag, -1 ids, EINVAL from the emitter) and
 * everything after it returns without crashing (the child exits 0). */
#if defined(__SANITIZE_ADDRESS__)
#define MBT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MBT_ASAN 1
#endif
#endif

static int oom_child(void) {
  struct rlimit rl = {64u << 20, 64u << 20};
  if (setrlimit(RLIMIT_AS, &rl) != 0) return 3;
  mbg_sym *s = mbg_sym_new();
  if (!s) return 0;
  mbg_sx x = mbg_sym_input(s, "q", 0);
  for (int k = 0; k < 50000000 && !mbg_sym_failed(s); k++) {
    mbg_sx c = mbg_sym_const(s, 1.0 + k);
    mbg_sx y = mbg_sym_add(s, mbg_sym_mul(s, x, c), mbg_sym_input(s, "q", 1));
    if (y < 0 && !mbg_sym_failed(s)) return 4;
    if (y >= 0) x = y;
  }
  if (!mbg_sym_failed(s)) return 2;
  if (mbg_sym_add(s, x, -1) != -1) return 5;
  mbg_sym_output(s, "out", 0, x);
  mbg_sym_counts n;
  mbg_sym_count(s, &n); /* 0 or -1, either is fine */
  FILE *null = fopen("/dev/null", "w");
  if (null && mbg_sym_emit_c(s, null, NULL) != MBG_SYM_EINVAL) return 6;
  if (null) fclose(null);
  mbg_sym_free(s);
  return 0;
}

static void t_out_of_memory(void **st) {
  (void)st;
#ifdef MBT_ASAN
  skip(); /* the sanitizer's shadow memory does not fit under an address-space limit */
#endif
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(oom_child());
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (!WIFEXITED(status))
    fail_msg("the child died (signal %d)", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_scale),
      cmocka_unit_test(t_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
