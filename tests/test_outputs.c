/* test_outputs.c — what mbdc writes, in C (docs/security.md, "Outputs and untrusted input"):
 * 1. comment text (base/quote.h) of random bytes: printable ASCII, no comment end or start, no
 *    "??", no backslash but an escape, and it decodes back to the input; shell words read back
 *    by sh as the argument;
 * 2. the name rules of emit/gen_names.h: reserved prefixes, function names that would collide;
 * 3. temporaries never take a reserved name (sym/sym_emit.c): the caller's and <math.h>'s macros;
 * 4. the output set (base/outset.h): modes from the umask or the replaced file, refused targets,
 *    nothing left after an abort, the stamps, what an interrupted run left finished or removed. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/outset.h"
#include "base/quote.h"
#include "emit/gen_names.h"
#include "mb_randtree.h"
#include "sym/sym.h"

/* ---- 1. quoting --------------------------------------------------------------------------- */

/* The bytes comment text stands for; -1 if it is not well formed. */
static int decode(const char *t, char *out) {
  size_t n = 0;
  for (const char *p = t; *p; p++) {
    if (*p != '\\') {
      out[n++] = *p;
      continue;
    }
    unsigned v;
    if (p[1] != 'x' || sscanf(p + 2, "%2x", &v) != 1 || !p[2] || !p[3]) return -1;
    out[n++] = (char)v;
    p += 3;
  }
  out[n] = '\0';
  return (int)n;
}

static void assert_comment_safe(const char *in, const char *t) {
  size_t n = strlen(t);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t[i];
    if (c < 0x20 || c > 0x7e) fail_msg("byte %02x in comment text of '%s'", c, in);
    if (c == '\\' && (t[i + 1] != 'x' || !t[i + 2] || !t[i + 3])) fail_msg("bare backslash: %s", t);
  }
  assert_null(strstr(t, "*/"));
  assert_null(strstr(t, "/*"));
  assert_null(strstr(t, "??"));
  assert_true(n == 0 || t[n - 1] != '*');
  char *back = malloc(n + 1);
  assert_int_equal(decode(t, back), (int)strlen(in));
  assert_string_equal(back, in);
  free(back);
}

static void t_comment_text(void **st) {
  (void)st;
  static const struct {
    const char *in, *out;
  } fixed[] = {
      {"examples/arm7.mbd", "examples/arm7.mbd"},
      {"q/x*/\n#define cos sin\n/*", "q/x\\x2a/\\x0a#define cos sin\\x0a\\x2f\\x2a"},
      {"a?\?/", "a\\x3f?/"}, /* "??/" would be a trigraph here */
      {"a\\b", "a\\x5cb"},
      {"\xc3\xa9\x1b", "\\xc3\\xa9\\x1b"},
      {"*", "\\x2a"},
      {"/*/", "\\x2f\\x2a/"},
      {"", ""},
  };
  for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++) {
    char *t = mbg_quote_comment(fixed[k].in);
    assert_string_equal(t, fixed[k].out);
    assert_comment_safe(fixed[k].in, t);
    free(t);
  }
  /* random strings over the dangerous bytes and any byte */
  mbt_rng g;
  mbt_rng_seed(&g, 7);
  static const char pool[] = "*/?\\\n\r \txa";
  for (int trial = 0; trial < 20000; trial++) {
    char in[24];
    int n = mbt_randint(&g, 0, 22);
    for (int k = 0; k < n; k++)
      in[k] = mbt_randint(&g, 0, 3) ? pool[mbt_randint(&g, 0, (int)sizeof pool - 2)]
                                    : (char)mbt_randint(&g, 1, 255);
    in[n] = '\0';
    char *t = mbg_quote_comment(in);
    assert_non_null(t);
    assert_comment_safe(in, t);
    /* the bounded form: a prefix of whole escapes, terminated */
    char small[9];
    size_t full = mbg_quote_comment_to(in, small, sizeof small);
    assert_int_equal(full, strlen(t));
    assert_true(strlen(small) < sizeof small && strncmp(small, t, strlen(small)) == 0);
    free(t);
  }
}

static void t_shell_words(void **st) {
  (void)st;
  char *w = mbg_quote_shell("examples/arm7.mbd");
  assert_string_equal(w, "examples/arm7.mbd");
  free(w);
  w = mbg_quote_shell("it's a*b");
  assert_string_equal(w, "'it'\\''s a*b'");
  free(w);
  w = mbg_quote_shell("");
  assert_string_equal(w, "''");
  free(w);
  /* sh reads every word back as the argument it came from */
  mbt_rng g;
  mbt_rng_seed(&g, 11);
  static const char pool[] = "a'\"\\$`*?[] \t\n;&|<>(){}~#!%=-";
  for (int trial = 0; trial < 40; trial++) {
    char in[16];
    int n = mbt_randint(&g, 0, 14);
    for (int k = 0; k < n; k++) in[k] = pool[mbt_randint(&g, 0, (int)sizeof pool - 2)];
    in[n] = '\0';
    char *word = mbg_quote_shell(in), cmd[256], got[64] = {0};
    snprintf(cmd, sizeof cmd, "printf '%%s' %s", word);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t k = fread(got, 1, sizeof got - 1, p);
    got[k] = '\0';
    assert_int_equal(pclose(p), 0);
    if (strcmp(got, in) != 0) fail_msg("sh read %s as '%s', not '%s'", word, got, in);
    free(word);
  }
}

/* ---- 2. names ----------------------------------------------------------------------------- */

static void t_prefixes(void **st) {
  (void)st;
  char why[160];
  static const char *const bad[] = {
      "mb",   "MB", "Mb",   "mbs", "MBS", "mbg", "mb_", "mb_arm", "MB_X", "mbs_y", "Mbg_z",
      "mb__", "_a", "_arm", "_z9", "__x", "_X",  "_",   "9x",     "a-b",  "int",   ""};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
    if (mbg_gen_prefix_ok(bad[k], why, sizeof why)) fail_msg("prefix '%s' accepted", bad[k]);
  static const char *const good[] = {"arm7",         "mbot", "mbx_", "m",  "M",
                                     "_2dof_planar", "_9",   "exp",  "NQ", "random"};
  for (size_t k = 0; k < sizeof good / sizeof *good; k++)
    if (!mbg_gen_prefix_ok(good[k], why, sizeof why))
      fail_msg("prefix '%s' refused: %s", good[k], why);
  assert_true(mbg_gen_prefix_ok("p23456789_123456789_123456789_123456789_123456789_123456789_123",
                                why, sizeof why));
}

static void t_function_names(void **st) {
  (void)st;
  char why[160];
  static const char *const bad[][2] = {
      {"arm", "model"},      {"arm", "joint_names"}, {"arm", "joint_iq"},   {"arm", "joint_iv"},
      {"arm", "body_names"}, {"arm", "NQ"},          {"arm", "nv"},         {"arm", "Nb"},
      {"arm", "nj"},         {"arm", "set_id"},      {"arm", "dynamics_h"}, {"arm", "have_x"},
      {"arm", "HAVE_RNEA"},  {"size", "t"},          {"FLT", "MAX"},        {"M", "PI"},
      {"EXIT", "FAILURE"},   {"P", "tmpdir"},        {"ARM", "BODY_link1"}, {"ARM", "JOINT_q1"},
      {"ARM", "IQ_q1"},      {"ARM", "IV_q1"},       {"arm", "model_h"},    {"arm", "rnea_part0"},
      {"arm", "x_part12"},   {"arm", "a_part_b_part3"}};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
    if (mbg_gen_function_name_ok(bad[k][0], bad[k][1], why, sizeof why))
      fail_msg("function '%s' with prefix '%s' accepted", bad[k][1], bad[k][0]);
  static const char *const good[] = {
      "rnea", "rnea_ext",       "nle", "gravity", "crba",  "crba_fd", "aba",
      "minv", "joint_wrenches", "fk",  "cfa",     "my_fn", "models",  "have",
      "body_x", "iq_x", /* lower case: P_body_x is never the macro PU_BODY_x */
      "x_part", "x_parts", "part0", "x_part1a", "x_part_1"}; /* not a part's name */
  for (size_t k = 0; k < sizeof good / sizeof *good; k++)
    if (!mbg_gen_function_name_ok("size", good[k], why, sizeof why))
      fail_msg("function '%s' refused: %s", good[k], why);
}

/* ---- 3. temporaries ----------------------------------------------------------------------- */

static void t_reserved_temporaries(void **st) {
  (void)st;
  mbg_sym *s = mbg_sym_new();
  mbg_sx a = mbg_sym_input(s, "q", 0), b = mbg_sym_input(s, "q", 1);
  mbg_sx x = mbg_sym_mul(s, a, b), y = mbg_sym_add(s, a, b), z = mbg_sym_sub(s, x, y);
  mbg_sx w = mbg_sym_div(s, z, b);
  assert_int_equal(mbg_sym_name(s, x, "M_PI"), 0);   /* a macro of <math.h> */
  assert_int_equal(mbg_sym_name(s, y, "ARM_NQ"), 0); /* the caller's macro */
  assert_int_equal(mbg_sym_name(s, z, "pivot"), 0);  /* the caller's local */
  assert_int_equal(mbg_sym_name(s, w, "INFINITY"), 0);
  assert_int_equal(mbg_sym_output(s, "tau", 0, w), 0);
  assert_int_equal(mbg_sym_output(s, "tau", 1, mbg_sym_mul(s, w, y)), 0);
  static const char *const reserved[] = {"ARM_NQ", "pivot", NULL};
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  mbg_sym_emit_opts o = {.indent = "  ", .scalar = MBG_SYM_DOUBLE, .reserved = reserved};
  assert_int_equal(mbg_sym_emit_c(s, f, &o), 0);
  fclose(f);
  static const char *const never[] = {" M_PI =", " ARM_NQ =", " pivot =", " INFINITY ="};
  for (size_t k = 0; k < sizeof never / sizeof *never; k++)
    if (strstr(text, never[k])) fail_msg("a temporary took a reserved name:\n%s", text);
  /* made unique, still recognisable (M_PI_2 is a macro too) */
  if (!strstr(text, " M_PI_3 =")) fail_msg("M_PI not made unique as M_PI_3:\n%s", text);
  free(text);
  mbg_sym_free(s);
}

/* ---- 4. the output set -------------------------------------------------------------------- */

static char *fresh_dir(void) {
  char *d = strdup("/tmp/mbdc_test_outputs.XXXXXX");
  assert_non_null(mkdtemp(d));
  return d;
}

static void remove_tree(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* The names in dir, sorted, joined by spaces. */
static void listing(const char *dir, char *out, size_t n) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "cd '%s' && ls -A | tr '\\n' ' '", dir);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t k = fread(out, 1, n - 1, p);
  out[k] = '\0';
  pclose(p);
}

static void write_text(const char *path, const char *text, mode_t mode) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(chmod(path, mode), 0);
}

static mode_t mode_of(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return st.st_mode & 07777;
}

static FILE *sink(void) { return fopen("/dev/null", "w"); }

static void t_set_modes_and_abort(void **st) {
  (void)st;
  char *dir = fresh_dir(), path[512], list[512];
  FILE *err = sink();
  mode_t old = umask(027);
  snprintf(path, sizeof path, "%s/kept", dir);
  write_text(path, "old", 0600);
  mbg_outset s;
  assert_int_equal(mbg_outset_begin(&s, dir, 0, err), 0);
  FILE *a = mbg_outset_add(&s, "new"), *b = mbg_outset_add(&s, "kept");
  assert_non_null(a);
  assert_non_null(b);
  assert_null(mbg_outset_add(&s, "kept")); /* twice */
  assert_null(mbg_outset_add(&s, "a/b"));
  fputs("A", a), fputs("B", b);
  assert_int_equal(mbg_outset_commit(&s), 0);
  snprintf(path, sizeof path, "%s/new", dir);
  assert_int_equal(mode_of(path), 0640); /* 0666 minus the umask 027 */
  snprintf(path, sizeof path, "%s/kept", dir);
  assert_int_equal(mode_of(path), 0600); /* the replaced file's */
  listing(dir, list, sizeof list);
  assert_string_equal(list, "kept new ");
  /* an aborted set changes nothing */
  assert_int_equal(mbg_outset_begin(&s, dir, 0, err), 0);
  fputs("X", mbg_outset_add(&s, "kept"));
  fputs("Y", mbg_outset_add(&s, "other"));
  mbg_outset_abort(&s);
  listing(dir, list, sizeof list);
  assert_string_equal(list, "kept new ");
  umask(old);
  fclose(err);
  remove_tree(dir);
  free(dir);
}

static void t_set_refuses_targets(void **st) {
  (void)st;
  char *dir = fresh_dir(), path[512], list[512];
  FILE *err = sink();
  snprintf(path, sizeof path, "%s/sub", dir);
  assert_int_equal(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/link", dir);
  assert_int_equal(symlink("/etc/hostname", path), 0);
  snprintf(path, sizeof path, "%s/fifo", dir);
  assert_int_equal(mkfifo(path, 0644), 0);
  mbg_outset s;
  assert_int_equal(mbg_outset_begin(&s, dir, 0, err), 0);
  assert_null(mbg_outset_add(&s, "sub"));
  assert_null(mbg_outset_add(&s, "link"));
  assert_null(mbg_outset_add(&s, "fifo"));
  mbg_outset_abort(&s);
  listing(dir, list, sizeof list);
  assert_string_equal(list, "fifo link sub ");
  /* a directory that is a file */
  snprintf(path, sizeof path, "%s/file", dir);
  write_text(path, "x", 0644);
  assert_int_equal(mbg_outset_begin(&s, path, 1, err), -1);
  assert_int_equal(mbg_outset_begin(&s, "/dev/null", 1, err), -1);
  mbg_outset_abort(&s);
  fclose(err);
  remove_tree(dir);
  free(dir);
}

/* The identifier written at stamp k of file f. */
static void stamp_text(const char *path, char *id) {
  char text[256];
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  const char *p = strstr(text, "id=");
  assert_non_null(p);
  memcpy(id, p + 3, 14);
  id[14] = '\0';
}

static void write_stamped_pair(const char *dir, const char *content, char *id1, char *id2) {
  mbg_outset s;
  char path[512];
  FILE *err = sink();
  assert_int_equal(mbg_outset_begin(&s, dir, 0, err), 0);
  FILE *a = mbg_outset_add(&s, "a.h"), *b = mbg_outset_add(&s, "b.c");
  fputs("id=", a), assert_int_equal(mbg_outset_stamp(&s, a), 0), fputs("\n", a);
  fprintf(b, "%s id=", content), assert_int_equal(mbg_outset_stamp(&s, b), 0), fputs("\n", b);
  assert_int_equal(mbg_outset_commit(&s), 0);
  fclose(err);
  snprintf(path, sizeof path, "%s/a.h", dir);
  stamp_text(path, id1);
  snprintf(path, sizeof path, "%s/b.c", dir);
  stamp_text(path, id2);
}

static void t_set_stamps(void **st) {
  (void)st;
  char *dir = fresh_dir(), a1[16], b1[16], a2[16], b2[16], a3[16], b3[16];
  write_stamped_pair(dir, "one", a1, b1);
  write_stamped_pair(dir, "two", a2, b2);
  write_stamped_pair(dir, "one", a3, b3);
  assert_string_equal(a1, b1); /* one set, one number */
  assert_string_equal(a2, b2);
  assert_string_not_equal(a1, a2); /* other contents, another number */
  assert_string_equal(a1, a3);     /* deterministic */
  assert_int_equal(strspn(a1 + 2, "0123456789abcdef"), 12);
  remove_tree(dir);
  free(dir);
}

/* What a killed run leaves: a staging directory with or without its manifest. */
static void t_set_recovers(void **st) {
  (void)st;
  char *dir = fresh_dir(), path[512], list[512];
  FILE *err = sink();
  snprintf(path, sizeof path, "%s/.mbdc-stage-AbC123", dir); /* complete: a manifest */
  assert_int_equal(mkdir(path, 0700), 0);
  snprintf(path, sizeof path, "%s/.mbdc-stage-AbC123/x.c", dir);
  write_text(path, "new x", 0644);
  snprintf(path, sizeof path, "%s/.mbdc-stage-AbC123/manifest", dir);
  write_text(path, "w.h\nx.c\n", 0600);                      /* w.h was renamed before the kill */
  snprintf(path, sizeof path, "%s/.mbdc-stage-zzzzzz", dir); /* unfinished: no manifest */
  assert_int_equal(mkdir(path, 0700), 0);
  snprintf(path, sizeof path, "%s/.mbdc-stage-zzzzzz/y.c", dir);
  write_text(path, "half", 0644);
  snprintf(path, sizeof path, "%s/.mbdc-stage-keep", dir); /* not our pattern: left alone */
  assert_int_equal(mkdir(path, 0700), 0);
  int other = geteuid() == 0; /* another user's (root can make one): left alone */
  if (other) {
    snprintf(path, sizeof path, "%s/.mbdc-stage-other", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/.mbdc-stage-other/manifest", dir);
    write_text(path, "x.c\n", 0600);
    snprintf(path, sizeof path, "%s/.mbdc-stage-other/x.c", dir);
    write_text(path, "theirs", 0644);
    snprintf(path, sizeof path, "%s/.mbdc-stage-other", dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "chown -R 65534 '%s'", path);
    assert_int_equal(system(cmd), 0);
  }
  snprintf(path, sizeof path, "%s/x.c", dir);
  write_text(path, "old x", 0644);
  mbg_outset s;
  assert_int_equal(mbg_outset_begin(&s, dir, 0, err), 0);
  mbg_outset_abort(&s);
  listing(dir, list, sizeof list);
  assert_string_equal(list,
                      other ? ".mbdc-stage-keep .mbdc-stage-other x.c " : ".mbdc-stage-keep x.c ");
  snprintf(path, sizeof path, "%s/x.c", dir);
  FILE *f = fopen(path, "r");
  char text[16] = {0};
  assert_non_null(fgets(text, sizeof text, f));
  fclose(f);
  assert_string_equal(text, "new x");
  fclose(err);
  remove_tree(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_comment_text),
      cmocka_unit_test(t_shell_words),
      cmocka_unit_test(t_prefixes),
      cmocka_unit_test(t_function_names),
      cmocka_unit_test(t_reserved_temporaries),
      cmocka_unit_test(t_set_modes_and_abort),
      cmocka_unit_test(t_set_refuses_targets),
      cmocka_unit_test(t_set_stamps),
      cmocka_unit_test(t_set_recovers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
