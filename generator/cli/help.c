/* help.c — help.h: the usage text, each command's help and the did-you-mean. */
#include "cli/help.h"

#include <string.h>

#include "cli/functions.h"
#include "lua/lua_host.h"

#define MBG_STR_(x) #x
#define MBG_STR(x) MBG_STR_(x)

#define HELP_CHECK                                                                               \
  "  check MODEL              validate the model and print a summary (bodies, joints with\n"     \
  "                           their q/v offsets, nq, nv, chains, nodes, loops)\n"
#define HELP_GRAPH "  graph MODEL [-o FILE]    print the topology as a Graphviz DOT graph (to FILE if given)\n"
#define HELP_GENERATE                                                                            \
  "  generate MODEL [-o DIR] [--prefix P] [--scalar double|float] [--functions LIST]\n"          \
  "           [--frames LIST] [--contacts LIST] [--templates DIR] [--cfa-order odd-even|tips]\n" \
  "           [--trig builtin|libm] [--trig-input] [--fuse NAME=f1,f2,...]...\n"              \
  "           [--frame body|joint|com|world|auto] [--parts N] [--parameters LIST]\n"        \
  "           [--passive-in-fd] [--batch] [--prescribed LIST]\n"                           \
  "                           write P_dynamics.h/.c (the functions), P_model.c (the model for\n"  \
  "                           the runtime) and P_check.c (the cross-check harness) into DIR\n"    \
  "                           (default .); P defaults to the model name; LIST is comma-separated\n" \
  "                           (default: every built-in function the model allows); --frames\n"   \
  "                           keeps only the operational frames named (default: all, as mbdc\n"  \
  "                           check lists them); --contacts FRAME[:3|:6],... adds the contact\n"  \
  "                           dynamics (contact_fd, contact_fd_reg, impulse) with those frames\n" \
  "                           in contact (3: a point, the default; 6: welded);\n"             \
  "                           DIR/algorithms/*.lua, DIR/lib/*.lua and DIR/c/*.lua replace the\n" \
  "                           built-in recipes, libraries and render templates of the same\n"   \
  "                           name (a file there that nothing reads is a warning); --cfa-order\n" \
  "                           picks the elimination order of cfa (default: the one with fewer\n"  \
  "                           operations); --trig libm calls the C library's sin and cos\n"     \
  "                           instead of the vectorized sine-cosine function written into\n"   \
  "                           P_dynamics.c (default builtin: within 1 ulp, a fraction of the\n"  \
  "                           instructions); --trig-input adds P_trig(q, sc), the joint\n"       \
  "                           angles' sines and cosines, and P_f_sc(q, sc, ...) of every\n"     \
  "                           function f that uses them, for callers evaluating several\n"     \
  "                           functions at one q; --fuse NAME=f1,f2,... adds P_NAME computing\n" \
  "                           the outputs of f1, f2, ... in one function, their common terms\n"  \
  "                           once (inputs shared by name; repeatable); --frame picks where\n"   \
  "                           the recipes that have the choice (rnea, crba, aba, ...) express\n" \
  "                           velocities, forces and inertias: body-fixed at the joint, or\n"    \
  "                           world-aligned at the joint, the centre of mass or the world's\n"  \
  "                           origin (default auto: per function the one of fewest operations,\n" \
  "                           ties to body; docs/frames.md); --parts N cuts a function of more\n" \
  "                           than 3 N statements into static functions of about N each, which\n" \
  "                           compile several times faster (default 4000; the derivatives,\n"  \
  "                           past 12000, in parts of 2000; 0: never cut);\n"                  \
  "                           --parameters BODY,...|all[,gravity] makes those bodies' inertial\n" \
  "                           parameters (and gravity) the first argument pi of every function\n" \
  "                           that depends on them, instead of constants (replaces the model's\n" \
  "                           `parameters` statement; docs/parameters.md); --passive-in-fd\n"  \
  "                           makes the forward dynamics (aba, crba_fd, fd_loops, the contact\n" \
  "                           functions, rcr, cfa, aba_derivatives) compute with tau +\n"      \
  "                           passive_forces(q, v) (docs/dsl.md \"Joint properties\");\n"    \
  "                           --batch adds P_f_batch(n, ...) of every function f: n states\n"   \
  "                           at once, arguments in structure-of-arrays layout (element k of\n" \
  "                           state i at x[k * n + i]), vectorized across states;\n"         \
  "                           --prescribed JOINT,... names the joints whose every dof\n"      \
  "                           hybrid_fixed prescribes (hybrid with that mask folded in)\n"    \
  "                           (docs/batch.md)\n"
#define HELP_STATS                                                                               \
  "  stats MODEL [--json] [--functions LIST] [--frames LIST] [--contacts LIST]\n"              \
  "           [--templates DIR] [--cfa-order odd-even|tips] [--fuse NAME=f1,f2,...]...\n"        \
  "           [--frame body|joint|com|world|auto|all] [--parameters LIST]\n"               \
  "           [--passive-in-fd]\n"                                                         \
  "                           operation counts of every generated function (mul, add\n"           \
  "                           including subtractions, div, sqrt, sin/cos); cfa in both\n"         \
  "                           elimination orders with their dependency depths; --frame all:\n"  \
  "                           each function's operations in every frame variant, the one\n"    \
  "                           auto generates marked\n"
#define HELP_FUNCTIONS                                                                           \
  "  functions [--json] [--scalar double|float]\n"                                             \
  "                           every function mbdc generates: when, what it computes and its C\n" \
  "                           signature as P_dynamics.h declares it (P: the prefix)\n"
#define HELP_IMPORT                                                                              \
  "  import URDF [-o FILE]    write the URDF's model in the model language (.mbd) to FILE\n"     \
  "                           (default: standard output)\n"
#define HELP_FLOATING                                                                            \
  "  --floating-base          (URDF only) give the root link a floating joint to the world\n"    \
  "                           instead of a fixed one (legged robots, humanoids)\n"          \
  "  --couple-mimic           (URDF only) a <mimic> joint follows its source (q = multiplier\n"  \
  "                           q_source + offset) instead of being an independent joint\n"
#define HELP_QUIET                                                                               \
  "  -q, --quiet              print errors only, no warnings or notes (for a build that runs\n"   \
  "                           mbdc again and again on the same model); the exit status is the\n"  \
  "                           same\n"
#define HELP_LUA                                                                                 \
  "  --lua-time SECONDS       the CPU time one recipe or render template may take\n"           \
  "                           (default " MBG_STR(MBG_LUA_DEFAULT_SECONDS) "; 0: no limit)\n"         \
  "  --lua-memory MIB         the memory the Lua that runs them may hold in all, in MiB\n"       \
  "                           (default " MBG_STR(MBG_LUA_DEFAULT_MEMORY_MIB) "; 0: no limit). A template past either limit stops\n" \
  "                           with an error naming it\n"
#define HELP_EXIT                                                                                \
  "Exit status: 0 success, 1 errors in the model (or in a recipe or template), 2 wrong usage or\n" \
  "I/O (a model file that cannot be read), 3 an internal error (a bug in mbdc).\n"

const char mbg_cli_usage[] =
  "usage: mbdc COMMAND [OPTIONS] MODEL\n"
  "\n"
  "The multibody dynamics compiler: reads a model (.mbd, or a URDF: .urdf), builds its topology\n"
  "graph and generates flat C for its dynamics.\n"
  "\n"
  "commands (mbdc COMMAND --help: one command's help):\n" HELP_CHECK HELP_GRAPH HELP_GENERATE
  HELP_STATS HELP_FUNCTIONS HELP_IMPORT
  "\n"
  "options (which command takes which: mbdc COMMAND --help):\n" HELP_FLOATING HELP_QUIET HELP_LUA
  "  -h, --help               show this help\n"
  "  --version                show the version\n"
  "\n" HELP_EXIT;

typedef struct command {
  const char *name, *help;
  const char *const *options;
  const char *tail; /* after the list of functions (generate), NULL for none */
} command;

static const char *const opt_check[] = {"--floating-base", "--couple-mimic", "-q", "--quiet",
                                        "--help", NULL};
static const char *const opt_graph[] = {"-o",      "--output", "--floating-base", "--couple-mimic",
                                        "-q",      "--quiet",  "--help", NULL};
static const char *const opt_generate[] = {"-o",          "--output",     "--prefix",
                                           "--scalar",    "--functions",  "--frames",
                                           "--contacts",  "--templates",  "--trig",  "--trig-input",
                                           "--cfa-order", "--floating-base", "--couple-mimic",
                                           "--lua-time", "--lua-memory", "-q",          "--quiet",
                                           "--frame",     "--fuse",      "--parts",
                                           "--parameters", "--passive-in-fd", "--batch",
                                           "--prescribed", "--help", NULL};
static const char *const opt_stats[] = {"--json",        "--functions", "--frames",
                                        "--contacts",    "--templates",
                                        "--cfa-order",   "--floating-base", "--couple-mimic",
                                        "--lua-time", "--lua-memory",  "-q",          "--quiet",
                                        "--frame",       "--fuse",      "--parameters",
                                        "--passive-in-fd", "--prescribed", "--help", NULL};
static const char *const opt_functions[] = {"--json", "--scalar", "--help", NULL};
static const char *const opt_none[] = {NULL};

static const command commands[] = {
  {"check", "usage: mbdc check MODEL [--floating-base] [-q]\n\n" HELP_CHECK "\noptions:\n"
   HELP_FLOATING HELP_QUIET "\n" HELP_EXIT, opt_check, NULL},
  {"graph", "usage: mbdc graph MODEL [-o FILE] [--floating-base] [-q]\n\n" HELP_GRAPH
   "\noptions:\n" HELP_FLOATING HELP_QUIET "\n" HELP_EXIT, opt_graph, NULL},
  {"generate", "usage: mbdc generate MODEL [OPTIONS]\n\n" HELP_GENERATE "\noptions:\n"
   HELP_FLOATING HELP_QUIET HELP_LUA "\n", opt_generate, "\n" HELP_EXIT},
  {"stats", "usage: mbdc stats MODEL [OPTIONS]\n\n" HELP_STATS "\noptions:\n" HELP_FLOATING
   HELP_QUIET HELP_LUA "\n" HELP_EXIT, opt_stats, NULL},
  {"functions", "usage: mbdc functions [--json] [--scalar double|float]\n\n" HELP_FUNCTIONS
   "\noptions:\n"
   "  --json                   the table as JSON: name, group, functions_option (a name\n"
   "                           --functions accepts), description, signature\n"
   "  --scalar double|float    the scalar type of the signatures (default double)\n"
   "\nExit status: 0 success, 2 wrong usage, 3 an internal error (a bug in mbdc).\n",
   opt_functions, NULL},
  {"import", "usage: mbdc import URDF [-o FILE] [--floating-base] [--couple-mimic] [-q]\n\n" HELP_IMPORT
   "\noptions:\n" HELP_FLOATING HELP_QUIET "\n" HELP_EXIT, opt_graph, NULL},
  {"help", "usage: mbdc help [COMMAND]\n\n  help [COMMAND]           the usage, or one command's help\n",
   opt_none, NULL},
  {"version", "usage: mbdc version\n\n  version                  show the version\n", opt_none,
   NULL},
};

const char *const mbg_cli_commands[] = {"check",  "graph", "generate", "stats", "functions",
                                        "import", "help",  "version",  NULL};

static const command *find(const char *cmd) {
  for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
    if (strcmp(commands[k].name, cmd) == 0) return &commands[k];
  return NULL;
}

const char *mbg_cli_command_help(const char *cmd) {
  const command *c = find(cmd);
  return c ? c->help : NULL;
}

int mbg_cli_print_help(const char *cmd, FILE *out) {
  const command *c = find(cmd);
  if (!c) return -1;
  fputs(c->help, out);
  if (c->tail) { /* generate: the functions --functions takes */
    mbg_cli_function_list(out);
    fputs(c->tail, out);
  }
  return 0;
}

const char *const *mbg_cli_command_options(const char *cmd) {
  const command *c = find(cmd);
  return c ? c->options : opt_none;
}
