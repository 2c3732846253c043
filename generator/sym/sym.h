/* sym.h — the symbolic scalar expression engine: the core of the code generator.
 *
 * The recipes build scalar expressions over the inputs of one generated function (q, v, a, tau,
 * f_ext ...). Every node lives once in an arena and is named by an int32 id (mbg_sx):
 *   - hash-consing: structurally identical expressions are the same node (common
 *     subexpressions for free; add and mul keep their operands in id order, so a+b == b+a;
 *     sin(x) and cos(x) are each computed once per function);
 *   - folding at construction, only where IEEE arithmetic gives the same finite result:
 *     const∘const (as C double arithmetic, kept only when finite), x·0 = 0, x·1 = x,
 *     x·(−1) = −x, x±0 = x, 0−x = −x, x−x = 0, −(−x) = x, x/1 = x, x/(−1) = −x, 0/x = 0,
 *     x/2^k = x·2^−k, sqrt/sin/cos of constants, x + x = 2x, (x·k)·2^m = x·(k 2^m); negations
 *     move out of constants (x·(−c) = −(x·c), so x·c and x·(−c) are one product), into
 *     subtractions (a + (−b) = a − b, a − (−b) = a + b, a + (−c) = a − c) and outward through
 *     products and quotients ((−a)·b = −(a·b)); b − a is −(a − b) when a − b exists, so both are
 *     one node. All exact in IEEE round-to-nearest. Nothing is reassociated or distributed.
 *   - operands always have smaller ids than their node: id order is a topological order.
 *
 * Errors: a failed allocation or a bad argument returns -1 (ids) and sets a sticky flag
 * (mbg_sym_failed); operations given -1 return -1, so a recipe can check once at the end.
 *
 * Only nodes reachable from the outputs are live: scheduled, counted, evaluated and emitted.
 * Everything is deterministic: ids, output order, never hash order. */
#ifndef MBG_SYM_H
#define MBG_SYM_H

#include <stdint.h>
#include <stdio.h>

typedef int32_t mbg_sx; /* a node id, or -1 */
typedef struct mbg_sym mbg_sym;

typedef enum mbg_sym_op {
  MBG_SYM_CONST, /* a double constant */
  MBG_SYM_INPUT, /* array[index] of an input array */
  MBG_SYM_ADD,
  MBG_SYM_SUB,
  MBG_SYM_MUL,
  MBG_SYM_DIV,
  MBG_SYM_NEG,
  MBG_SYM_SQRT,
  MBG_SYM_SIN,
  MBG_SYM_COS,
  MBG_SYM_ATAN2, /* atan2(a, b) */
  MBG_SYM_FMAX   /* fmax(a, b) */
} mbg_sym_op;

mbg_sym *mbg_sym_new(void);
void mbg_sym_free(mbg_sym *s);
/* Nonzero once any call has failed (out of memory, invalid argument). */
int mbg_sym_failed(const mbg_sym *s);
/* The most bytes the graph's nodes and hash table may take (0: no limit, the default); a node
 * past it fails as out of memory, and mbg_sym_over_limit says why. */
void mbg_sym_set_max_bytes(mbg_sym *s, size_t bytes);
size_t mbg_sym_max_bytes(const mbg_sym *s);
int mbg_sym_over_limit(const mbg_sym *s);
/* Number of nodes, live or not. */
int32_t mbg_sym_size(const mbg_sym *s);

/* Leaves. An input array name must be a C identifier; index >= 0. −0.0 is the constant 0.0:
 * literals are printed without the sign of zero, so the emitted code and the evaluation agree
 * bit for bit (folding already ignores the sign of zero: x·0 = 0). */
mbg_sx mbg_sym_const(mbg_sym *s, double v);
mbg_sx mbg_sym_input(mbg_sym *s, const char *array, int index);
/* The index of a scalar input: mbg_sym_input(s, "dt", MBG_SYM_SCALAR) is emitted as `dt` (a
 * parameter passed by value), and mbg_sym_eval's callback receives this index for it. */
#define MBG_SYM_SCALAR (-1)

/* Operations, folded and hash-consed as described above. */
mbg_sx mbg_sym_add(mbg_sym *s, mbg_sx a, mbg_sx b);
mbg_sx mbg_sym_sub(mbg_sym *s, mbg_sx a, mbg_sx b);
mbg_sx mbg_sym_mul(mbg_sym *s, mbg_sx a, mbg_sx b);
mbg_sx mbg_sym_div(mbg_sym *s, mbg_sx a, mbg_sx b);
mbg_sx mbg_sym_neg(mbg_sym *s, mbg_sx a);
mbg_sx mbg_sym_sqrt(mbg_sym *s, mbg_sx a);
mbg_sx mbg_sym_sin(mbg_sym *s, mbg_sx a);
mbg_sx mbg_sym_cos(mbg_sym *s, mbg_sx a);
/* atan2(y, x), the angle of the point (x, y) in (−π, π]; constants folded. */
mbg_sx mbg_sym_atan2(mbg_sym *s, mbg_sx y, mbg_sx x);
/* fmax(a, b), C99's: the larger, and the other operand where one is a NaN (so a NaN that both
 * operands do not carry does not reach the result). Branch-free where the machine has it (maxsd).
 * Constants folded, fmax(x, x) = x. Counted as an add (a comparison). */
mbg_sx mbg_sym_fmax(mbg_sym *s, mbg_sx a, mbg_sx b);
/* Both at once (the same nodes as mbg_sym_sin and mbg_sym_cos of x). */
void mbg_sym_sincos(mbg_sym *s, mbg_sx x, mbg_sx *sin_x, mbg_sx *cos_x);

/* Inspection. mbg_sym_is_const: 1 and *value (may be NULL) when e is a constant, else 0. */
int mbg_sym_is_const(const mbg_sym *s, mbg_sx e, double *value);
/* The operation of e (a valid id). */
mbg_sym_op mbg_sym_op_of(const mbg_sym *s, mbg_sx e);
/* Operand k (0 or 1) of an operation, or -1. */
mbg_sx mbg_sym_arg(const mbg_sym *s, mbg_sx e, int k);
/* Array name of an input node (and its index in *index), or NULL. */
const char *mbg_sym_input_of(const mbg_sym *s, mbg_sx e, int *index);

/* Outputs, in call order: array[index] = e. The array name must be a C identifier.
 * Returns 0, or -1. */
int mbg_sym_output(mbg_sym *s, const char *array, int index, mbg_sx e);
int mbg_sym_output_count(const mbg_sym *s);
/* Output k (0 <= k < count): its array and index, and the expression; -1 if k is out of range. */
mbg_sx mbg_sym_output_at(const mbg_sym *s, int k, const char **array, int *index);

/* Preferred C name of e's temporary (e.g. "v_thigh_2"); the first name given to a node wins,
 * names of leaves are ignored (leaves are inlined). The emitter makes it a C identifier and
 * unique. Returns 0, or -1. */
int mbg_sym_name(mbg_sym *s, mbg_sx e, const char *name);

/* live[e] = 1 for nodes reachable from the outputs, else 0 (live has mbg_sym_size entries). */
void mbg_sym_live(const mbg_sym *s, unsigned char *live);
/* Emission order of the live non-leaf nodes: first every live sine and cosine (with what its
 * argument needs) in id order — so the generated code makes its libm calls before
 * any other temporary is live, and none has to be spilled around a call, or has every argument
 * ready for one call of the built-in batch (mbg_sym_emit_opts.sincos). Then one of three orders,
 * whichever keeps fewest values live at once (mbg_sym_peak_live; a tie keeps the earlier): 0,
 * each output's cone depth-first, in output order, each node right before its first use; 1,
 * every node in id order, the order the recipe built them in (its sweeps over the tree: a body's
 * values are made and used together — on a legged robot's RNEA half the peak of the first); 2, a
 * list schedule that takes, of the nodes whose operands are done, one that is the last use of
 * the most operands, the smallest id among equals (sym_greedy.c). *order is malloc'ed (free
 * it); returns its length, or -1 when out of memory. */
int32_t mbg_sym_schedule(const mbg_sym *s, mbg_sx **order);
/* One of the three orders, kind 0, 1 or 2 as above. */
int32_t mbg_sym_order(const mbg_sym *s, int kind, mbg_sx **order);

/* Operation counts of the live DAG, each node once:
 *   mul  multiplications           add  additions and subtractions (and fmax)
 *   div  divisions                 sqrt square roots     trig  sines and cosines
 * A negation counts as one add when its value itself is needed — it is an output, or the
 * argument of sqrt/sin/cos — and as nothing when it is an operand of + − · / (the sign folds
 * into the consumer: a + (−b) = a − b, −a − b, (−a)·b = −(a·b)). Featherstone's tables count
 * divisions as multiplications: compare mul + div with them. Returns 0, or -1 (memory). */
typedef struct mbg_sym_counts {
  long mul, add, div, sqrt, trig; /* trig: sin, cos and atan2 */
  long sincos;                    /* sin and cos alone */
} mbg_sym_counts;
int mbg_sym_count(const mbg_sym *s, mbg_sym_counts *counts);

/* The most temporaries live at once when the statements run in the emitted order (a value is
 * live from its statement to its last use, an output's value at least to its store right after
 * its statement; a negation folded into its consumers is not a temporary): the storage, registers
 * and stack, the code asks for. A compiler may reorder and need somewhat more or less
 * (docs/generator.md, "Stack"). Returns 0, or -1 (memory). */
int mbg_sym_peak_live(const mbg_sym *s, long *peak);
/* The same for a given order of the live non-leaf nodes (mbg_sym_order); -1 when out of memory. */
long mbg_sym_order_peak(const mbg_sym *s, const mbg_sx *order, int32_t len);

/* The operations of counts c as one number: mul + add + div + sqrt + trig (what --frame auto
 * minimizes, docs/frames.md, and what mbg_sym_code_bytes charges for). */
long mbg_sym_ops(const mbg_sym_counts *c);

/* An estimate of the x86-64 machine code, in bytes, of the function mbg_sym_emit_c writes for s
 * (outputs in call order), compiled at -O3 -march=x86-64-v3 with contraction: MBG_SYM_OP_BYTES
 * per operation (mbg_sym_ops) and per output
 * stored. Calibrated on the Panda, the humanoids and random trees of bench/icache.sh: within
 * 10 % of what gcc 12 makes of functions from 5 to 550 KiB. Returns -1 when out of memory. */
long mbg_sym_code_bytes(const mbg_sym *s);
#define MBG_SYM_OP_BYTES 7

/* The dependency depth of the outputs: the longest path, in operations, through the live DAG
 * (a negation adds nothing: it folds into its consumer). With cut non-NULL, only the work after
 * the nodes named cut... counts: those nodes and everything not computed from them have depth 0
 * (e.g. the depth of a linear solve whose matrix entries are named "A_..."). Returns 0, or -1
 * (memory). */
int mbg_sym_depth(const mbg_sym *s, const char *cut, long *depth);

/* Numeric evaluation of the live graph in id order: values[e] for every live e (dead nodes
 * get NaN); inputs from the callback. The float version evaluates in float arithmetic with
 * sqrtf/sinf/cosf and constants rounded to float, as the emitted float code does.
 * Returns 0, or -1 (memory). */
typedef double (*mbg_sym_input_fn)(void *ctx, const char *array, int index);
int mbg_sym_eval(const mbg_sym *s, mbg_sym_input_fn input, void *ctx, double *values);
int mbg_sym_eval_float(const mbg_sym *s, mbg_sym_input_fn input, void *ctx, float *values);

/* C emission: one "const double tN = a op b;" per live non-leaf node in schedule order
 * (leaves inlined: inputs as q[3], constants as shortest round-trip literals; so are the
 * negations that count as nothing: "-t3 - t4"), each followed by "array[i] = tN;" for the
 * outputs it is (in call order: the value dies there unless used again, so the caller's output
 * arrays must not overlap its inputs or one another, and each element is written once, as
 * lua_sym.c enforces); an output whose value is a leaf right after the output before it in
 * call order (the leading ones first: runs of one constant stay where the call order put
 * them, so that no compiler turns them into a memset call). Temporaries take their
 * mbg_sym_name (made a unique C identifier that never looks like tN, a keyword, a math function
 * or an array name), else tN numbered densely in schedule order. Byte-deterministic. Compiled without
 * floating-point contraction (gcc's ISO C modes, or -ffp-contract=off), the code computes what
 * mbg_sym_eval (mbg_sym_eval_float) computes, bit for bit. Array names that are keywords, math
 * functions, look like tN or are longer than 64 characters are refused (EINVAL). */
typedef enum mbg_sym_scalar { MBG_SYM_DOUBLE, MBG_SYM_FLOAT } mbg_sym_scalar;
typedef struct mbg_sym_emit_opts {
  const char *indent;    /* prefix of every line; NULL = "  " */
  mbg_sym_scalar scalar; /* float: float temporaries, "f" literals, sqrtf/sinf/cosf */
  int no_final_newline;  /* lines joined by newlines, the last one without */
  const char *const *reserved; /* more names no temporary may take (the file's macros and
                                  globals, the caller's locals), NULL-terminated; may be NULL */
  const char *sincos; /* NULL: sin(x), cos(x) of libm; else the name N of the caller's batch
                         function N(n, x, s, c) (Nf in float), s[i] = sin x[i], c[i] = cos x[i]:
                         every distinct argument of a sine or cosine in one call, right after
                         the arguments are computed, into the local arrays N_x, N_s, N_c;
                         N, Nf, N_x, N_s and N_c are kept from the temporaries */
  const char *zero; /* NULL: every output of the constant 0 stored as the literal; else, when at
                       least MBG_SYM_ZERO_MIN are, the body starts with "volatile double Z_src =
                       0.0;" and "const double Z = Z_src;" (float in float code) and they store
                       Z (Z and Z_src are kept from the temporaries): a zero the compiler cannot
                       see is stored from
                       a register, runs of them by vector stores, never by the C library's
                       memset, and never as x86's 11-12 byte store-immediate instructions, which
                       decode slowly (a humanoid's mass matrix has hundreds) */
  long zeros_first_above; /* with zero: when mbg_sym_code_bytes exceeds this (> 0), every output
                             of 0 is stored right after Z is made, in call order, before any
                             statement (compilers store such a run as vectors: the code shrinks
                             by about 7 bytes per zero; a function just over the L1 instruction
                             cache then fits, docs/generator.md); 0: never */
  /* Parts: a body of more than split_above statements (> 0) is cut into static functions of
   * about part_size statements each, part_name0, part_name1, ..., called in
   * order: compilers' register allocation grows faster than linearly with a function's length
   * (gcc -O2 takes four times as long on one function of 45 000 statements as on eight of
   * 5 600), so a long function compiles several times faster in parts. A value one part makes
   * and a later one reads goes through the caller's scratch array (part_lv, of the scalar type;
   * its slots reused once their values are dead): stored right after its statement, loaded into
   * a local of the same name before its first use in a part. Every part takes the parameters
   * part_params declares (C declarations separated by ", "; part_args their names,
   * NULL-terminated: every array the graph reads or writes must be one of them) and then the
   * scratch array. emit_parts: 1, mbg_sym_emit_c writes the part functions (nothing when the
   * body is not cut); 0, the body: when cut, the scratch array and the calls. */
  long split_above;
  int32_t part_size;
  const char *part_name;
  const char *part_params;
  const char *const *part_args;
  const char *part_lv;
  int emit_parts;
  /* Lanes: NULL, the scalar code above; else the name L (a macro or a literal) of a lane count,
   * and the body computes L states at once: its statements in loops "for (int l = 0; l < L;
   * l++) { ... }" of about lane_statements each, which compilers turn into vector instructions
   * (a statement calling sqrt, atan2 or fmax, or sin and cos without sincos, in a loop of its
   * own: with errno or NaN rules a compiler keeps such a call scalar, and the loop with it). A
   * value one loop makes and a later one reads goes through the local array part_lv[slots * L]
   * (slot k of lane l at k * L + l, slots reused as in parts). An array's element i of lane l is
   * arr[i * S + l]: S is lane_stride (the caller's number of states, a variable of the
   * function) for the caller's arrays, L for the arrays lane_local names (NULL-terminated; the
   * function's own, such as pivots); a scalar input is arr[l]. The sines and cosines of every
   * lane go to one call of the batch function (sincos) between two loops, N_x[k * L + l]. No
   * zero local, no parts (zero and split_above are ignored). "l", lane_stride and L are kept
   * from the temporaries; an array named "l" or as the stride is refused (EINVAL). */
  const char *lanes;
  const char *lane_stride;
  const char *const *lane_local;
  int32_t lane_statements;
  const char *lane_loop; /* NULL, or a word written before every loop over the lanes (a macro
                            that expands to a compiler's loop pragma) */
} mbg_sym_emit_opts;
/* How many parts mbg_sym_emit_c cuts s's body into with o (1: not cut), or -1 (memory). With
 * slots not NULL, *slots is the length of the scratch array that carries values between the
 * parts (0 when not cut): a dry run of the emission, when cut. */
int32_t mbg_sym_emit_parts(const mbg_sym *s, const mbg_sym_emit_opts *o, int32_t *slots);
#define MBG_SYM_ZERO_MIN 4

enum {
  MBG_SYM_ENOMEM = -1,     /* out of memory */
  MBG_SYM_ENONFINITE = -2, /* a live constant is NaN or infinite (in the chosen scalar) */
  MBG_SYM_EIO = -3,        /* write error on the stream */
  MBG_SYM_EINVAL = -4      /* invalid engine (a failed construction) or argument */
};
/* Returns 0 or one of the codes above; nothing is written for ENONFINITE and EINVAL. */
int mbg_sym_emit_c(const mbg_sym *s, FILE *out, const mbg_sym_emit_opts *o);
/* What mbg_sym_emit_c would return for ENONFINITE and EINVAL, without writing: 0 when the graph
 * can be emitted (only memory or the stream can then fail). */
int mbg_sym_emit_check(const mbg_sym *s, const mbg_sym_emit_opts *o);
const char *mbg_sym_strerror(int code);

#endif
