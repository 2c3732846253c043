/* main.c — the `mbdc` command: a thin CLI over the generator library.
 *
 * Exit status: 0 success, 1 the model has errors, 2 the command line is wrong (or I/O failed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "graph.h"
#include "outfile.h"
#include "summary.h"
#include "topology.h"

enum { EXIT_MODEL = 1, EXIT_USAGE = 2 };

static const char usage[] =
  "usage: mbdc COMMAND [OPTIONS] MODEL\n"
  "\n"
  "The multibody dynamics compiler: reads a model (.mbd), builds its topology graph and\n"
  "generates flat C for its dynamics.\n"
  "\n"
  "commands:\n"
  "  check MODEL              validate the model and print a summary (bodies, joints with\n"
  "                           their q/v offsets, nq, nv, chains, nodes, loops)\n"
  "  graph MODEL [-o FILE]    print the topology as a Graphviz DOT graph (to FILE if given)\n"
  "\n"
  "options:\n"
  "  -h, --help               show this help\n"
  "  --version                show the version\n"
  "\n"
  "Exit status: 0 success, 1 errors in the model, 2 wrong usage.\n";

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "mbdc: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry 'mbdc --help'.\n");
  return EXIT_USAGE;
}

/* Options of a subcommand: the model path and -o FILE. */
typedef struct cli_args {
  const char *model, *output;
} cli_args;

static int parse_args(int argc, char **argv, int allow_output, cli_args *a) {
  memset(a, 0, sizeof *a);
  for (int i = 2; i < argc; i++) {
    if (allow_output && (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0)) {
      if (i + 1 >= argc) return usage_error("option '%s' needs a file name", argv[i]);
      a->output = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return usage_error("unknown option '%s'", argv[i]);
    } else if (a->model) {
      return usage_error("more than one model given ('%s')", argv[i]);
    } else {
      a->model = argv[i];
    }
  }
  if (!a->model) return usage_error("%s needs a MODEL file", argv[1]);
  return 0;
}

/* Load and check a model, and build its topology. Returns the exit status. */
static int load(const char *path, mbg_model **m, mbg_topology **t) {
  int errors, warnings;
  *t = NULL;
  *m = mbg_load_mbd(path, stderr, &errors, &warnings);
  if (!*m) {
    fprintf(stderr, "%s: %d error%s\n", path, errors, errors == 1 ? "" : "s");
    return EXIT_MODEL;
  }
  *t = mbg_topology_build(*m);
  if (!*t) {
    fprintf(stderr, "mbdc: error: out of memory\n");
    mbg_model_free(*m);
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
  if ((rc = load(a.model, &m, &t))) return rc;
  mbg_summary_print(stdout, m, t);
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
  if ((rc = load(a.model, &m, &t))) return rc;
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

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
    fputs(usage, stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("mbdc %s\n", MBDC_VERSION);
    return 0;
  }
  if (strcmp(cmd, "check") == 0) return cmd_check(argc, argv);
  if (strcmp(cmd, "graph") == 0) return cmd_graph(argc, argv);
  return usage_error("unknown command '%s'", cmd);
}
