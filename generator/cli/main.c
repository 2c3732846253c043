/* main.c — the `mbdc` command: a thin CLI over the generator library.
 *
 * Exit status: 0 success, 1 the model (or a recipe or template) has errors, 2 the command line is
 * wrong (or I/O failed), 3 an internal error (lua_host.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "base/quote.h"
#include "base/readfile.h"
#include "cli/functions.h"
#include "cli/graph.h"
#include "cli/help.h"
#include "cli/mbd_write.h"
#include "cli/summary.h"
#include "emit/gen_names.h"
#include "emit/generate.h"
#include "load/load.h"
#include "model/names.h"
#include "topology/loop_rows.h"
#include "topology/rcr_select.h"
#include "topology/regular.h"
#include "topology/topology.h"

enum { EXIT_MODEL = 1, EXIT_USAGE = 2 };

/* A usage error, pointing to the help of cmd (NULL: the whole usage). */
static int usage_error_in(const char *cmd, const char *fmt, const char *arg) {
  fprintf(stderr, "mbdc: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry 'mbdc %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
  return EXIT_USAGE;
}

/* The command being parsed (its help is what a usage error points to). */
static const char *current_cmd;

static int usage_error(const char *fmt, const char *arg) {
  return usage_error_in(current_cmd, fmt, arg);
}

/* An unknown option of the current command, with the nearest it takes and the list. */
static int unknown_option(const char *arg) {
  fprintf(stderr, "mbdc: error: unknown option '%s' for %s", arg, current_cmd);
  mbg_suggest_words(stderr, arg, mbg_cli_command_options(current_cmd), "its options");
  fprintf(stderr, "\nTry 'mbdc %s --help'.\n", current_cmd);
  return EXIT_USAGE;
}

/* A model file that cannot be read is an I/O error (2), not a model error (1). */
static int readable(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: error: cannot open: %s\n", path, strerror(errno));
    return 0;
  }
  fclose(f);
  return 1;
}

/* An option of generate or stats that takes the next argument as its value. */
static int takes_value(const char *opt) {
  static const char *const with_value[] = {"-o",          "--output",    "--prefix",
                                           "--scalar",    "--functions", "--templates",
                                           "--cfa-order", "--lua-time",  "--lua-memory",
                                           "--frames",    "--contacts",  "--trig",
                                           "--fuse",      "--frame",     "--parts",
                                           "--parameters", "--prescribed"};
  for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
    if (strcmp(opt, with_value[k]) == 0) return 1;
  return 0;
}

static int is_quiet(const char *opt) {
  return strcmp(opt, "-q") == 0 || strcmp(opt, "--quiet") == 0;
}

/* Options of a subcommand: the model path, -o FILE, --floating-base and -q. */
typedef struct cli_args {
  const char *model, *output;
  mbg_load_opts load;
} cli_args;

static int parse_args(int argc, char **argv, int allow_output, cli_args *a) {
  memset(a, 0, sizeof *a);
  for (int i = 2; i < argc; i++) {
    if (allow_output && (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0)) {
      if (i + 1 >= argc) return usage_error("option '%s' needs a file name", argv[i]);
      if (argv[i + 1][0] == '\0')
        return usage_error("option '%s' needs a file name, not ''", argv[i]);
      a->output = argv[++i];
    } else if (strcmp(argv[i], "--floating-base") == 0) {
      a->load.floating_base = 1;
    } else if (strcmp(argv[i], "--couple-mimic") == 0) {
      a->load.couple_mimic = 1;
    } else if (is_quiet(argv[i])) {
      a->load.quiet = 1;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return unknown_option(argv[i]);
    } else if (a->model) {
      return usage_error("more than one model given ('%s')", argv[i]);
    } else {
      a->model = argv[i];
    }
  }
  if (!a->model) return usage_error("%s needs a MODEL file", argv[1]);
  return readable(a->model) ? 0 : EXIT_USAGE;
}

/* Load and check a model (the rules of the model language, then a mass matrix regular in a
 * generic configuration: topology/regular.h, as `generate` does), and build its topology.
 * Returns the exit status. */
static int load(const char *path, const mbg_load_opts *o, mbg_model **m, mbg_topology **t,
                mbg_loop_rows *rows, mbg_rcr_sel *sel) {
  int errors = 1, warnings;
  size_t len;
  *t = NULL;
  char *text = mbg_read_file(path, &len, stderr);
  *m = text ? mbg_model_from_source(path, text, len, o, stderr, &errors, &warnings) : NULL;
  if (*m && (errors = mbg_check_regular(*m, path, text, len, stderr)) != 0) {
    if (errors < 0) fprintf(stderr, "mbdc: error: out of memory\n"), errors = 1;
    mbg_model_free(*m);
    *m = NULL;
  }
  if (*m && !(*t = mbg_topology_build(*m))) {
    fprintf(stderr, "mbdc: error: out of memory\n");
    free(text);
    mbg_model_free(*m);
    return EXIT_MODEL;
  }
  /* the loops close near the model's configuration (topology/loop_rows.h, as `generate`) */
  if (*m &&
      (errors = mbg_check_loops(*m, *t, (*t)->q_initial, path, text, len, stderr, rows)) != 0) {
    if (errors < 0) fprintf(stderr, "mbdc: error: out of memory\n"), errors = 1;
    mbg_topology_free(*t);
    mbg_model_free(*m);
    *m = NULL, *t = NULL;
  }
  /* the dependent coordinates of recursive coordinate reduction (topology/rcr_select.h) */
  if (*m && rows && sel &&
      (errors = mbg_rcr_selections(*m, *t, rows, path, text, len, stderr, sel)) != 0) {
    if (errors < 0) fprintf(stderr, "mbdc: error: out of memory\n"), errors = 1;
    mbg_loop_rows_free(rows);
    mbg_topology_free(*t);
    mbg_model_free(*m);
    *m = NULL, *t = NULL;
  }
  free(text);
  if (!*m) {
    fprintf(stderr, "%s: %d error%s\n", path, errors, errors == 1 ? "" : "s");
    return EXIT_MODEL;
  }
  return 0;
}

static int cmd_check(int argc, char **argv) {
  cli_args a;
  mbg_model *m;
  mbg_topology *t;
  int rc = parse_args(argc, argv, 0, &a);
  if (rc) return rc;
  mbg_loop_rows rows;
  mbg_rcr_sel sel;
  if ((rc = load(a.model, &a.load, &m, &t, &rows, &sel))) return rc;
  /* valid, but `generate` refuses it: say so here too (check and generate agree) */
  if (t->nv == 0 && !a.load.quiet)
    fprintf(stderr, "%s: warning: the model has no moving joint: mbdc generate has nothing to "
                    "generate from it\n", a.model);
  char why[256];
  if (!a.load.quiet && !mbg_gen_prefix_ok(m->name, why, sizeof why))
    fprintf(stderr, "%s: warning: the model name '%s' %s; mbdc generate needs --prefix\n", a.model,
            m->name, why);
  mbg_summary_print(stdout, m, t, &rows, &sel);
  mbg_rcr_sel_free(&sel);
  mbg_loop_rows_free(&rows);
  mbg_topology_free(t);
  mbg_model_free(m);
  return 0;
}

static int cmd_graph(int argc, char **argv) {
  cli_args a;
  mbg_model *m;
  mbg_topology *t;
  int rc = parse_args(argc, argv, 1, &a);
  if (rc) return rc;
  if ((rc = load(a.model, &a.load, &m, &t, NULL, NULL))) return rc;
  if (a.output) {
    mbg_outfile o;
    if (mbg_outfile_open(&o, a.output, stderr) == 0) {
      mbg_graph_dot(o.f, m, t);
      rc = mbg_outfile_commit(&o, stderr) == 0 ? 0 : EXIT_USAGE;
    } else {
      rc = EXIT_USAGE;
    }
  } else {
    mbg_graph_dot(stdout, m, t);
  }
  mbg_topology_free(t);
  mbg_model_free(m);
  return rc;
}

/* The value of --lua-memory: whole MiB, 0 for none (stored as -1: 0 is the default). */
static int parse_mib(const char *text, long long *mib) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (!isdigit((unsigned char)text[0]) || *end || errno || v < 0 || v > (LLONG_MAX >> 20))
    return -1;
  *mib = v == 0 ? -1 : v;
  return 0;
}

/* The value of --lua-time: seconds (a decimal number), 0 for none (stored as -1). */
static int parse_seconds(const char *text, double *seconds) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (!(isdigit((unsigned char)text[0]) || text[0] == '.') || *end || errno || !(v >= 0) ||
      v > 1e9)
    return -1;
  *seconds = v == 0 ? -1 : v;
  return 0;
}

/* Options of generate and stats (stats takes neither -o, --prefix nor --parts). */
static int parse_gen_args(int argc, char **argv, int is_stats, mbg_gen_opts *o, int *json) {
  memset(o, 0, sizeof *o);
  *json = 0;
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i];
    int is_output = strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0;
    int is_prefix = strcmp(arg, "--prefix") == 0;
    if (takes_value(arg)) {
      if (i + 1 >= argc) return usage_error("option '%s' needs a value", arg);
      if (is_stats && (is_output || is_prefix || strcmp(arg, "--parts") == 0))
        return unknown_option(arg);
      const char *val = argv[++i];
      /* an empty directory would be the current one: said, never assumed */
      if (val[0] == '\0' && (is_output || strcmp(arg, "--templates") == 0))
        return usage_error("option '%s' needs a directory, not ''", arg);
      int is_time = strcmp(arg, "--lua-time") == 0;
      if (is_output) o->outdir = val;
      else if (is_prefix) o->prefix = val;
      else if (strcmp(arg, "--functions") == 0) o->functions = val;
      else if (strcmp(arg, "--frames") == 0) o->frames = val;
      else if (strcmp(arg, "--contacts") == 0) o->contacts = val;
      else if (strcmp(arg, "--prescribed") == 0) o->prescribed = val;
      else if (strcmp(arg, "--parameters") == 0) o->parameters = val;
      else if (strcmp(arg, "--fuse") == 0) {
        if (o->nfuse == MBG_GEN_MAX_FUSE)
          return usage_error("--fuse is given more than 16 times (the 17th: %s)", val);
        o->fuse[o->nfuse++] = val;
      }
      else if (strcmp(arg, "--templates") == 0) o->templates = val;
      else if (strcmp(arg, "--frame") == 0) {
        if (mbg_ref_parse(val, is_stats, &o->frame) != 0)
          return usage_error(is_stats ? "--frame takes body, joint, com, world, auto or all, not '%s'"
                                      : "--frame takes body, joint, com, world or auto, not '%s'",
                             val);
      } else if (strcmp(arg, "--cfa-order") == 0) {
        if (mbg_cfa_kind_parse(val, &o->cfa_order) != 0)
          return usage_error("--cfa-order takes odd-even or tips, not '%s'", val);
      } else if (strcmp(arg, "--trig") == 0) {
        if (strcmp(val, "builtin") == 0) o->trig_libm = 0;
        else if (strcmp(val, "libm") == 0) o->trig_libm = 1;
        else return usage_error("--trig takes builtin or libm, not '%s'", val);
      } else if (strcmp(arg, "--parts") == 0) {
        long long n;
        if (parse_mib(val, &n) || n > 100000000)
          return usage_error("--parts takes a number of statements (0: never cut), not '%s'", val);
        o->part_size = (long)n;
      } else if (is_time || strcmp(arg, "--lua-memory") == 0) {
        if (is_time ? parse_seconds(val, &o->lua_seconds) : parse_mib(val, &o->lua_memory_mib))
          return usage_error(is_time ? "--lua-time takes CPU seconds (0: no limit), not '%s'"
                                     : "--lua-memory takes MiB (0: no limit), not '%s'", val);
      }
      else if (strcmp(val, "double") == 0) o->scalar = MBG_SYM_DOUBLE;
      else if (strcmp(val, "float") == 0) o->scalar = MBG_SYM_FLOAT;
      else return usage_error("--scalar takes double or float, not '%s'", val);
    } else if (strcmp(arg, "--floating-base") == 0) {
      o->floating_base = 1;
    } else if (strcmp(arg, "--couple-mimic") == 0) {
      o->couple_mimic = 1;
    } else if (strcmp(arg, "--trig-input") == 0) {
      o->trig_input = 1;
    } else if (strcmp(arg, "--passive-in-fd") == 0) {
      o->passive_in_fd = 1;
    } else if (!is_stats && strcmp(arg, "--batch") == 0) {
      o->batch = 1;
    } else if (is_quiet(arg)) {
      o->quiet = 1;
    } else if (is_stats && strcmp(arg, "--json") == 0) {
      *json = 1;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      return unknown_option(arg);
    } else if (o->model_path) {
      return usage_error("more than one model given ('%s')", arg);
    } else {
      o->model_path = arg;
    }
  }
  if (!o->model_path) return usage_error("%s needs a MODEL file", argv[1]);
  return readable(o->model_path) ? 0 : EXIT_USAGE;
}

/* A path as the banner shows it: as given when it is relative and stays below the current
 * directory, else its file name — so the same model generated from another directory, or into
 * another build tree, gives the same bytes. */
static const char *shown_path(const char *p) {
  const char *base = strrchr(p, '/');
  int below = p[0] != '/' && strcmp(p, "..") != 0 && strncmp(p, "../", 3) != 0 &&
              !strstr(p, "/../") && !(strlen(p) >= 3 && strcmp(p + strlen(p) - 3, "/..") == 0);
  return below || !base ? p : base + 1;
}

/* "mbdc generate ..." with the arguments as given, each one a shell word (base/quote.h), so
 * the banner's command reads back as the same arguments — but for -o DIR outside the current
 * directory (left out: the files' own directory), -q (left out: the files are the same) and the
 * paths of the model and of --templates (shown_path); malloc'ed, NULL when out of memory. */
static char *command_line(int argc, char **argv, const char *model) {
  size_t n = 5, len = 4;
  char **words = calloc((size_t)argc, sizeof *words), *s = NULL;
  int ok = words != NULL;
  for (int i = 1; ok && i < argc; i++) {
    const char *w = argv[i];
    int out_opt = strcmp(w, "-o") == 0 || strcmp(w, "--output") == 0;
    if (out_opt && i + 1 < argc && shown_path(argv[i + 1]) != argv[i + 1]) {
      i++; /* an output directory outside the current one: left out, with its value */
      continue;
    }
    if (is_quiet(w) && !takes_value(argv[i - 1]))
      continue; /* changes no byte */
    if (w == model || (i > 1 && strcmp(argv[i - 1], "--templates") == 0)) w = shown_path(w);
    ok = (words[i] = mbg_quote_shell(w)) != NULL;
  }
  for (int i = 1; ok && i < argc; i++)
    if (words[i]) n += strlen(words[i]) + 1;
  if (ok && (s = malloc(n + 1))) {
    memcpy(s, "mbdc", 5);
    for (int i = 1; i < argc; i++) {
      if (!words[i]) continue;
      size_t k = strlen(words[i]);
      s[len++] = ' ';
      memcpy(s + len, words[i], k + 1);
      len += k;
    }
  }
  for (int i = 1; words && i < argc; i++) free(words[i]);
  free(words);
  return s;
}

static int cmd_generate(int argc, char **argv, int is_stats) {
  mbg_gen_opts o;
  int json, rc = parse_gen_args(argc, argv, is_stats, &o, &json);
  if (rc) return rc;
  if (is_stats) return mbg_stats(&o, json, stdout, stderr);
  char *command = command_line(argc, argv, o.model_path);
  if (!command) return fprintf(stderr, "mbdc: error: out of memory\n"), EXIT_USAGE;
  o.command = command;
  o.model_shown = shown_path(o.model_path);
  rc = mbg_generate(&o, stderr);
  free(command);
  return rc;
}

/* mbdc import: the model of a URDF or an MJCF model as .mbd text, written whole or not at all. */
static int cmd_import(int argc, char **argv) {
  cli_args a;
  int rc = parse_args(argc, argv, 1, &a), errors, warnings;
  if (rc) return rc;
  if (!mbg_is_urdf(a.model) && !mbg_is_mjcf(a.model))
    return usage_error("import reads a URDF (.urdf) or an MJCF model (.xml), not '%s'", a.model);
  mbg_model *m = mbg_load(a.model, &a.load, stderr, &errors, &warnings);
  if (!m) {
    fprintf(stderr, "%s: %d error%s\n", a.model, errors, errors == 1 ? "" : "s");
    return EXIT_MODEL;
  }
  if (a.output) {
    mbg_outfile o;
    rc = EXIT_USAGE;
    if (mbg_outfile_open(&o, a.output, stderr) == 0) {
      if (mbg_mbd_write(o.f, m, a.model) == 0) rc = mbg_outfile_commit(&o, stderr) == 0 ? 0 : rc;
      else mbg_outfile_abort(&o);
    }
  } else {
    rc = mbg_mbd_write(stdout, m, a.model) == 0 && fflush(stdout) == 0 ? 0 : EXIT_USAGE;
  }
  mbg_model_free(m);
  return rc;
}

/* mbdc functions [--json] [--scalar double|float]: the same for every model, so none is read. */
static int cmd_functions(int argc, char **argv) {
  int json = 0, is_float = 0;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--scalar") == 0) {
      if (i + 1 >= argc) return usage_error("option '%s' needs a value", argv[i]);
      const char *val = argv[++i];
      if (strcmp(val, "double") != 0 && strcmp(val, "float") != 0)
        return usage_error("--scalar takes double or float, not '%s'", val);
      is_float = strcmp(val, "float") == 0;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return unknown_option(argv[i]);
    } else {
      return usage_error("functions takes no model ('%s'): the functions are the same for every "
                         "model (mbdc stats MODEL: those a model gets)", argv[i]);
    }
  }
  return mbg_cli_functions(stdout, json, is_float, stderr);
}

/* mbdc help [COMMAND] */
static int cmd_help(int argc, char **argv) {
  if (argc < 3) return fputs(mbg_cli_usage, stdout), 0;
  if (mbg_cli_print_help(argv[2], stdout) == 0) return 0;
  fprintf(stderr, "mbdc: error: no command '%s'", argv[2]);
  mbg_suggest_words(stderr, argv[2], mbg_cli_commands, "commands");
  fprintf(stderr, "\n");
  return EXIT_USAGE;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(mbg_cli_usage, stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
    fputs(mbg_cli_usage, stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0) cmd = "version";
  if (!mbg_cli_command_help(cmd)) {
    fprintf(stderr, "mbdc: error: unknown command '%s'", cmd);
    mbg_suggest_words(stderr, cmd, mbg_cli_commands, "commands");
    fprintf(stderr, "\nTry 'mbdc --help'.\n");
    return EXIT_USAGE;
  }
  current_cmd = cmd;
  for (int i = 2; i < argc; i++) /* COMMAND --help anywhere: that command's help */
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
      return mbg_cli_print_help(cmd, stdout), 0;
  if (strcmp(cmd, "help") == 0) return cmd_help(argc, argv);
  if (strcmp(cmd, "version") == 0) return printf("mbdc %s\n", MBDC_VERSION), 0;
  if (strcmp(cmd, "check") == 0) return cmd_check(argc, argv);
  if (strcmp(cmd, "graph") == 0) return cmd_graph(argc, argv);
  if (strcmp(cmd, "generate") == 0) return cmd_generate(argc, argv, 0);
  if (strcmp(cmd, "stats") == 0) return cmd_generate(argc, argv, 1);
  if (strcmp(cmd, "functions") == 0) return cmd_functions(argc, argv);
  return cmd_import(argc, argv);
}
