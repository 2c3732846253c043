/* bench_harness.h — what every bench program shares (bench_main.c, bench_controller.c,
 * bench_flex.c, bench_loops.cpp): the command line, the random states' generator, the check's
 * error measure, and the measurement — timing by interleaved batches, and callgrind dumps.
 *
 * A program defines `struct bench` (its states, outputs, workspaces and peers: the harness only
 * passes it on) and one kernel per (function, implementation): one call on state s, of
 * BENCH_NSTATES states, writing its output where the compiler cannot see through. Implementation
 * 0 is the generated code, the ratios' reference.
 *
 * The command line:
 *   PROGRAM                 check, then time: R repetitions; in each, for every function, K batches
 *                           of each implementation, interleaved batch by batch, of up to B calls:
 *                           as many as fit in T ns of the function's slowest implementation (all
 *                           make the same number of calls); each batch goes on through the states
 *                           where that implementation's last one stopped (all see the same
 *                           sequence); median and minimum ns per call over the R·K batches
 *   PROGRAM --smoke         check, then a few calls of everything (a ctest: it cannot rot)
 *   PROGRAM --check         only the check
 *   PROGRAM --callgrind N   N calls of each (function, implementation) between callgrind client
 *                           requests, after a warm-up of as many: the dump named "LABEL IMPL"
 *                           holds the instructions of exactly those calls (plus the batch loop's
 *                           few per call), for bench/callgrind.sh and bench/driver.sh
 *   options: --reps R --batches K --batch B --batch-ns T (defaults 7, 100, 1000, 10^6: at most
 *            10^5 calls and about 0.3 s of one function per repetition)
 *
 * Output lines, after '#' comments (LABEL is "FUNC", or "MODEL FUNC" for a program of several
 * models), parsed by bench/report.sh, bench/controller.sh, bench/loops.sh and bench/flex.sh:
 *   check LABEL IMPL REL_ERR bound B [FAIL]   worst relative difference over the states
 *   batch LABEL CALLS                         calls per batch of this function
 *   time LABEL IMPL MEDIAN_NS MIN_NS          ns per call
 *   ratio LABEL IMPL RATIO                    median(IMPL) / median(generated), from this run */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_NSTATES 64 /* a power of two: the batches cycle with & (BENCH_NSTATES - 1) */
#define BENCH_SEED 20261121u
#define BENCH_MAX_IMPL 4

typedef struct bench bench; /* the program's */
typedef void (*bench_kernel)(bench *b, int s);

/* One function: its label and its implementations' kernels. */
typedef struct bench_func {
  const char *label;     /* "FUNC", or "MODEL FUNC" */
  int nimpl;             /* implementations measured: k[0 .. nimpl - 1] */
  const bench_kernel *k; /* k[0]: the generated code */
} bench_func;

typedef struct bench_options {
  int reps, batches, calls; /* R, K, B */
  double batch_ns;          /* T */
  int check_only;           /* --check */
  int callgrind;            /* --callgrind N: N > 0 */
} bench_options;

/* A program's own option at argv[k]: the number of words it takes (1 or more), 0 when it is not
 * one, -1 when it is malformed. */
typedef int (*bench_option_fn)(int argc, char **argv, int k, void *ctx);

/* Fills o from argv (own may be NULL). Returns 0, or -1 for a usage error. */
int bench_parse_options(int argc, char **argv, bench_options *o, bench_option_fn own, void *ctx);
/* Prints "usage: NAME [--smoke | --check | --callgrind N MODES] [--reps R] ... OPTIONS" to
 * stderr (MODES and OPTIONS "" or starting with a space); returns 2, the exit status. */
int bench_usage(const char *name, const char *modes, const char *options);

/* xorshift64*, as the generated harness: uniform in [lo, hi). */
double bench_uniform(unsigned long long *s, double lo, double hi);
/* A uniformly random unit quaternion x[0..3]. */
void bench_random_quat(unsigned long long *s, double *x);
/* max |x − ref| / max |ref| over n entries (max |x − ref| when ref is 0); NaN counts as the
 * worst. */
double bench_rel_err(const double *x, const double *ref, int n);
/* Prints "check LABEL IMPL ERR bound BOUND[ FAIL]"; returns 1 when ERR exceeds BOUND (or is
 * NaN), else 0. */
int bench_check(const char *label, const char *impl, double err, double bound);

/* ns on the monotonic clock */
double bench_now_ns(void);
/* The median of x[0 .. n-1] (sorted in place). */
double bench_median(double *x, int n);

/* After the check: the callgrind dumps (--callgrind N), or the timing (unless --check); with
 * header, the mode's line first: "callgrind N calls per dump", or "# timing: R repetitions x K
 * batches ..." (a program of several models measures each apart, and prints it once). */
void bench_measure(bench *b, const bench_func *funcs, int nfunc, const char *const *impl,
                   const bench_options *o, int header);

#ifdef __cplusplus
}
#endif

#endif
