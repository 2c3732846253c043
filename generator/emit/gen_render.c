/* gen_render.c — the render table `d` (docs/templates.md "The render table") and the output
 * files: every template's text written to a temporary name and renamed. Numbers are formatted
 * here, in C (shortest round-trip), never by Lua. */
#include <ctype.h>
#include <errno.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emit/gen_render.h"

#include "base/numfmt.h"
#include "base/outfile.h"

/* t[key] = {C literals of x[0..n)} */
static void set_doubles(lua_State *L, const char *key, const double *x, int n) {
  char buf[40];
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    mbg_fmt_double(x[k], buf);
    lua_pushstring(L, buf);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, key);
}

static void set_ints(lua_State *L, const char *key, const int *x, int n) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    lua_pushfstring(L, "%d", x[k]);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, key);
}

/* The size of a parameter in the model's macros. */
static const char *size_macro(const char *role) {
  if (strcmp(role, "q") == 0) return "%s_NQ";
  if (strcmp(role, "out_nvnv") == 0) return "%s_NV * %s_NV";
  if (strcmp(role, "fext") == 0 || strcmp(role, "out_wrench") == 0) return "6 * (%s_NB + 1)";
  if (strcmp(role, "out_pose") == 0) return "12 * (%s_NB + 1)";
  return "%s_NV";
}

/* The marker that stands for function k's statements in the render table; write_one replaces
 * it by the statements (STX is never in a name, a number or a summary we produce). */
#define BODY_MARK "\002mbdc-body-"

static void push_function(mbg_gen *g, lua_State *L, int index, const char *P) {
  const mbg_gen_function *f = &g->functions[index];
  const char *scalar = g->opts->scalar == MBG_SYM_FLOAT ? "float" : "double";
  char buf[160], size[64];
  lua_createtable(L, 0, 10);
  mbg_lua_set_string(L, "name", f->name);
  snprintf(buf, sizeof buf, "%s_%s", g->prefix, f->name);
  mbg_lua_set_string(L, "cname", buf);
  mbg_lua_set_string(L, "summary", f->summary);
  mbg_lua_set_string(L, "returns", f->returns_int ? "int" : "void");
  mbg_lua_set_int(L, "npivots", f->npivots);
  snprintf(buf, sizeof buf, BODY_MARK "%d\002", index);
  mbg_lua_set_string(L, "body", buf);
  lua_createtable(L, f->nparams, 0);
  for (int k = 0; k < f->nparams; k++) {
    const mbg_gen_param *p = &f->params[k];
    lua_createtable(L, 0, 4);
    mbg_lua_set_string(L, "name", p->name);
    mbg_lua_set_string(L, "role", p->role);
    snprintf(size, sizeof size, size_macro(p->role), P, P);
    snprintf(buf, sizeof buf, "%s%s %s[%s]", p->is_output ? "" : "const ", scalar, p->name, size);
    mbg_lua_set_string(L, "decl", buf);
    lua_pushboolean(L, p->used || p->is_output);
    lua_setfield(L, -2, "used");
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "params");
  lua_createtable(L, 0, 5);
  mbg_lua_set_int(L, "mul", f->counts.mul);
  mbg_lua_set_int(L, "add", f->counts.add);
  mbg_lua_set_int(L, "div", f->counts.div);
  mbg_lua_set_int(L, "sqrt", f->counts.sqrt);
  mbg_lua_set_int(L, "trig", f->counts.trig);
  lua_setfield(L, -2, "counts");
}

/* d.rt: the runtime model as C literals, world entry first. */
static void push_rt(mbg_gen *g, lua_State *L) {
  const mb_model *m = &g->rt.model;
  int n = m->nb + 1;
  static const char *const jtype[] = {"MB_JOINT_FIXED",     "MB_JOINT_REVOLUTE",
                                      "MB_JOINT_CONTINUOUS", "MB_JOINT_PRISMATIC",
                                      "MB_JOINT_HELICAL",   "MB_JOINT_SPHERICAL",
                                      "MB_JOINT_FLOATING"};
  lua_createtable(L, 0, 14);
  mbg_lua_set_int(L, "nb", m->nb);
  mbg_lua_set_int(L, "nq", m->nq);
  mbg_lua_set_int(L, "nv", m->nv);
  set_doubles(L, "gravity", m->gravity, 3);
  set_ints(L, "parent", m->parent, n);
  set_ints(L, "iq", m->iq, n);
  set_ints(L, "iv", m->iv, n);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushstring(L, jtype[m->jtype[i]]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "jtype");
  set_doubles(L, "XT_E", m->XT_E, 9 * n);
  set_doubles(L, "XT_r", m->XT_r, 3 * n);
  set_doubles(L, "axis", m->axis, 3 * n);
  set_doubles(L, "pitch", m->pitch, n);
  set_doubles(L, "inertia", m->inertia, 10 * n);
  lua_setfield(L, -2, "rt");
}

static void push_joints(mbg_gen *g, lua_State *L) {
  lua_createtable(L, g->topo->nb, 0);
  for (int i = 1; i <= g->topo->nb; i++) {
    const mbg_tree_body *b = &g->topo->body[i];
    lua_createtable(L, 0, 6);
    mbg_lua_set_string(L, "name", g->model->joints[b->model_joint].name);
    mbg_lua_set_string(L, "type", mbg_joint_type_name(b->type));
    mbg_lua_set_int(L, "iq", b->iq);
    mbg_lua_set_int(L, "iv", b->iv);
    mbg_lua_set_int(L, "nq", b->nq);
    mbg_lua_set_int(L, "nv", b->nv);
    lua_rawseti(L, -2, i);
  }
  lua_setfield(L, -2, "joints");
  lua_createtable(L, g->topo->nb, 0);
  for (int i = 1; i <= g->topo->nb; i++) {
    lua_createtable(L, 0, 1);
    mbg_lua_set_string(L, "name", g->model->bodies[g->topo->body[i].model_body].name);
    lua_rawseti(L, -2, i);
  }
  lua_setfield(L, -2, "bodies");
}

/* The render table d, frozen, on the stack. */
static int push_d(lua_State *L) {
  mbg_gen *g = lua_touserdata(L, 1);
  char P[64];
  size_t k = 0;
  for (; g->prefix[k] && k + 1 < sizeof P; k++) P[k] = (char)toupper((unsigned char)g->prefix[k]);
  P[k] = '\0';
  lua_createtable(L, 0, 20);
  mbg_lua_set_string(L, "tool", "mbdc");
  mbg_lua_set_string(L, "version", MBDC_VERSION);
  mbg_lua_set_string(L, "model_file", g->opts->model_path);
  mbg_lua_set_string(L, "digest", g->digest);
  mbg_lua_set_string(L, "command", g->opts->command ? g->opts->command : "mbdc generate");
  mbg_lua_set_string(L, "prefix", g->prefix);
  mbg_lua_set_string(L, "PREFIX", P);
  mbg_lua_set_string(L, "scalar", g->opts->scalar == MBG_SYM_FLOAT ? "float" : "double");
  mbg_lua_set_int(L, "nq", g->topo->nq);
  mbg_lua_set_int(L, "nv", g->topo->nv);
  mbg_lua_set_int(L, "nb", g->topo->nb);
  mbg_lua_set_int(L, "nj", g->topo->nb);
  push_joints(g, L);
  lua_createtable(L, g->nfunctions, 0);
  for (int f = 0; f < g->nfunctions; f++) {
    push_function(g, L, f, P);
    lua_rawseti(L, -2, f + 1);
  }
  lua_setfield(L, -2, "functions");
  push_rt(g, L);
  mbg_lua_freeze(L, -1);
  return 1;
}

/* Run template `name` with d (on the stack): its text, malloc'ed, in *text. Returns 0 or 1. */
static int render_one(mbg_gen *g, const char *name, char **text, size_t *len, FILE *err) {
  lua_State *L = mbg_lua_state(g->lua);
  int d = lua_gettop(L);
  if (mbg_lua_run(g->lua, name) != 0)
    return fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 1;
  if (!lua_isfunction(L, -1)) {
    lua_settop(L, d);
    return fprintf(err, "mbdc: error: %s: must return a function render(d)\n", name), 1;
  }
  lua_pushvalue(L, d);
  if (mbg_lua_call(g->lua, 1, 1) != 0)
    return fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 1;
  if (lua_type(L, -1) != LUA_TSTRING) {
    lua_settop(L, d);
    return fprintf(err, "mbdc: error: %s: render(d) must return a string\n", name), 1;
  }
  const char *s = lua_tolstring(L, -1, len);
  *text = malloc(*len + 1);
  if (*text) memcpy(*text, s, *len + 1);
  lua_settop(L, d);
  return *text ? 0 : (fprintf(err, "mbdc: error: out of memory\n"), 1);
}

/* Function f's statements, emitted from its graph straight into out, without the final
 * newline (a function of a large model has millions of them: they are never held as text).
 * Returns 0, or -1 (memory, or a write error). */
static int put_body(mbg_gen *g, const mbg_gen_function *f, FILE *out) {
  mbg_sym_emit_opts eo = {"  ", g->opts->scalar, 1};
  return f->sym && mbg_sym_emit_c(f->sym, out, &eo) == 0 ? 0 : -1;
}

/* text to out, every body marker replaced by its function's statements. Returns 0, or -1. */
static int put_text(mbg_gen *g, const char *text, size_t len, FILE *out) {
  const size_t nmark = sizeof BODY_MARK - 1;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *m = memchr(p, BODY_MARK[0], (size_t)(end - p));
    if (!m) m = end;
    if (fwrite(p, 1, (size_t)(m - p), out) != (size_t)(m - p)) return -1;
    if (m == end) break;
    char *stop;
    long k = (size_t)(end - m) > nmark && memcmp(m, BODY_MARK, nmark) == 0
                 ? strtol(m + nmark, &stop, 10) : -1;
    if (k >= 0 && k < g->nfunctions && *stop == BODY_MARK[0]) {
      if (put_body(g, &g->functions[k], out) != 0) return -1;
      p = stop + 1;
    } else { /* not a marker: the byte itself */
      if (fputc(*m, out) == EOF) return -1;
      p = m + 1;
    }
  }
  return 0;
}

/* Write text to dir/<prefix><file>, whole or not at all. Returns 0 or 2. */
static int write_one(mbg_gen *g, const char *file, const char *text, size_t len, FILE *err) {
  const char *dir = g->opts->outdir && *g->opts->outdir ? g->opts->outdir : ".";
  size_t n = strlen(dir) + strlen(g->prefix) + strlen(file) + 2;
  char *path = malloc(n);
  mbg_outfile o;
  int rc = 2;
  if (path) {
    snprintf(path, n, "%s/%s%s", dir, g->prefix, file);
    if (mbg_outfile_open(&o, path, err) == 0) {
      if (put_text(g, text, len, o.f) == 0) {
        rc = mbg_outfile_commit(&o, err) == 0 ? 0 : 2;
      } else {
        mbg_outfile_abort(&o);
        fprintf(err, "mbdc: error: cannot write %s\n", path);
      }
    }
  }
  free(path);
  return rc;
}

/* mkdir -p dir: every prefix ending at a '/' and the whole path. Returns 0, or -1 (errno). */
static int make_dirs(const char *dir) {
  char *p = strdup(dir);
  int rc = p ? 0 : -1;
  for (char *s = p ? p + 1 : NULL; rc == 0 && s; s++) {
    if (*s != '/' && *s != '\0') continue;
    char c = *s;
    *s = '\0';
    if (mkdir(p, 0777) != 0 && errno != EEXIST) rc = -1;
    *s = c;
    if (!c) break;
  }
  free(p);
  return rc;
}

int mbg_gen_render(mbg_gen *g, FILE *err) {
  static const char *const files[][2] = {{"c/header.lua", "_dynamics.h"},
                                         {"c/source.lua", "_dynamics.c"},
                                         {"c/model.lua", "_model.c"},
                                         {"c/check.lua", "_check.c"}};
  const char *dir = g->opts->outdir && *g->opts->outdir ? g->opts->outdir : ".";
  if (make_dirs(dir) != 0) {
    fprintf(err, "mbdc: error: cannot create directory %s: %s\n", dir, strerror(errno));
    return 2;
  }
  lua_State *L = mbg_lua_state(g->lua);
  if (mbg_lua_cpcall(g->lua, push_d, g, 1) != 0)
    return fprintf(err, "mbdc: error: %s\n", mbg_lua_error(g->lua)), 1;
  /* every template first, then the files: a failing template leaves no file changed */
  enum { NFILES = sizeof files / sizeof files[0] };
  char *text[NFILES] = {0};
  size_t len[NFILES] = {0};
  int rc = 0;
  for (size_t k = 0; k < NFILES && rc == 0; k++)
    rc = render_one(g, files[k][0], &text[k], &len[k], err);
  for (size_t k = 0; k < NFILES && rc == 0; k++)
    rc = write_one(g, files[k][1], text[k], len[k], err);
  for (size_t k = 0; k < NFILES; k++) free(text[k]);
  lua_settop(L, 0);
  return rc;
}
