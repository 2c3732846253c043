/* gen_templates.c — the user's --templates DIR: checked first, its unread files reported last. */
#include "emit/gen_templates.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lua/lua_recipes.h"
#include "lua/templates_builtin.h"
#include "model/names.h"

/* The folders of DIR that hold templates, by the prefix of their names. */
static const char *const folders[] = {"algorithms", "lib", "c"};

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcmp(s + n - m, tail) == 0;
}

static char *join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", a, b);
  return p;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in directory `path` but . and .., sorted (output never depends on readdir's order),
 * malloc'ed, NULL-terminated; NULL with errno when it cannot be listed. */
static char **list_dir(const char *path) {
  DIR *d = opendir(path);
  if (!d) return NULL;
  size_t n = 0, cap = 16;
  char **names = malloc(cap * sizeof *names);
  for (struct dirent *e; names && (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (n + 1 == cap) {
      char **grown = realloc(names, 2 * cap * sizeof *names);
      if (!grown) break;
      names = grown, cap *= 2;
    }
    if (!(names[n] = strdup(e->d_name))) break;
    n++;
  }
  closedir(d);
  if (names) names[n] = NULL;
  if (names) qsort(names, n, sizeof *names, by_name);
  return names;
}

static void free_list(char **names) {
  for (size_t k = 0; names && names[k]; k++) free(names[k]);
  free(names);
}

/* A template file DIR/folder/name: a readable regular file. Returns 0, or 1 with the message. */
static int check_file(const char *dir, const char *path, FILE *err) {
  struct stat st;
  const char *why = NULL;
  FILE *f = NULL;
  if (stat(path, &st) != 0) why = strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "not a regular file";
  else if (!(f = fopen(path, "rb"))) why = strerror(errno);
  if (f) fclose(f);
  if (!why) return 0;
  fprintf(err, "mbdc: error: --templates %s: cannot read %s: %s\n", dir, path, why);
  return 1;
}

int mbg_gen_templates_check(const char *dir, FILE *err) {
  struct stat st;
  if (stat(dir, &st) != 0)
    return fprintf(err, "mbdc: error: --templates %s: %s\n", dir, strerror(errno)), 2;
  if (!S_ISDIR(st.st_mode))
    return fprintf(err, "mbdc: error: --templates %s: not a directory\n", dir), 2;
  char **top = list_dir(dir);
  if (!top) return fprintf(err, "mbdc: error: --templates %s: %s\n", dir, strerror(errno)), 2;
  free_list(top);
  int errors = 0;
  for (size_t k = 0; k < sizeof folders / sizeof folders[0]; k++) {
    char *sub = join(dir, folders[k]), **names = NULL;
    if (!sub) return fprintf(err, "mbdc: error: out of memory\n"), 2;
    if (lstat(sub, &st) != 0 && errno == ENOENT) {
      free(sub);
      continue;
    }
    if (stat(sub, &st) != 0 || !S_ISDIR(st.st_mode)) {
      fprintf(err, "mbdc: error: --templates %s: %s is not a directory\n", dir, sub);
      errors++;
    } else if (!(names = list_dir(sub))) {
      fprintf(err, "mbdc: error: --templates %s: cannot read %s: %s\n", dir, sub, strerror(errno));
      errors++;
    }
    for (size_t j = 0; names && names[j]; j++) {
      if (!ends_with(names[j], ".lua") || names[j][0] == '.') continue;
      char *path = join(sub, names[j]);
      errors += path ? check_file(dir, path, err) : 1;
      free(path);
    }
    free_list(names);
    free(sub);
  }
  return errors ? 2 : 0;
}

/* Of rel and the built-in name cand, keep cand in best (buf) when nearer than *best_d: edit
 * distance <= 2; of equal distances, one as long as rel (a swap of two letters costs 2). */
static void consider(const char *rel, const char *cand, int *best_d, char *buf, size_t n) {
  int d = 2 * mbg_edit_distance(rel, cand, 2) + (strlen(cand) != strlen(rel));
  if (d < *best_d) snprintf(buf, n, "%s", cand), *best_d = d;
}

/* The built-in name nearest to rel (a template file, or a registry function's
 * algorithms/NAME.lua) into buf, or NULL. */
static const char *suggest(const char *rel, char *buf, size_t n) {
  int best_d = 6;
  char key[160];
  for (const mbg_builtin_template *t = mbg_builtin_templates; t->name; t++)
    consider(rel, t->name, &best_d, buf, n);
  for (const mbg_lua_recipe *e = mbg_lua_recipes; e->name; e++) {
    snprintf(key, sizeof key, "algorithms/%s.lua", e->name);
    consider(rel, key, &best_d, buf, n);
  }
  return best_d < 6 ? buf : NULL;
}

static int is_builtin(const char *rel) {
  for (const mbg_builtin_template *t = mbg_builtin_templates; t->name; t++)
    if (strcmp(t->name, rel) == 0) return 1;
  return 0;
}

static void warn(const char *dir, const char *rel, const char *why, FILE *err) {
  char buf[160];
  const char *near = suggest(rel, buf, sizeof buf);
  fprintf(err, "mbdc: warning: --templates %s: %s was not used: %s", dir, rel, why);
  if (near) fprintf(err, " (did you mean %s?)", near);
  fprintf(err, "\n");
}

/* Why file (in DIR/folder/, not read) is worth a warning, or NULL: a replacement of a built-in
 * recipe, library or template that this run did not need is not. lib: DIR/lib, to look in. */
static const char *unused_why(const char *folder, const char *file, const char *lib) {
  char rel[160], stem[128];
  struct stat st;
  size_t n = strlen(file);
  snprintf(rel, sizeof rel, "%s/%s", folder, file);
  if (is_builtin(rel)) return NULL;
  if (!ends_with(file, ".lua"))
    return "templates are NAME.lua files (and the built-in c/NAME.c)";
  snprintf(stem, sizeof stem, "%.*s", (int)(n - 4), file);
  if (strcmp(folder, "c") == 0)
    return "no built-in render template has that name, and no import named it";
  if (strcmp(folder, "lib") == 0)
    return mbg_lua_is_builtin_function(stem) ? "that is a function's name: its recipe goes in "
                                               "algorithms/" : "no built-in library has that "
                                               "name, and no import named it";
  if (mbg_lua_is_builtin_function(stem)) return NULL;
  if (!mbg_lua_is_builtin_library(stem))
    return "no built-in recipe or library has that name, and neither --functions nor an import "
           "named it";
  char *path = join(lib, file);
  int shadowed = path && stat(path, &st) == 0;
  free(path);
  return shadowed ? "the library of that name is read from lib/ (where libraries go; "
                    "algorithms/ is read when lib/ has no such file)" : NULL;
}

static int by_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The built-in names of one folder with one extension, "algorithms/{aba, cfa, ...}.lua" (the
 * recipe files and the registry's functions), sorted, on err. */
static void list_builtin(const char *folder, const char *ext, FILE *err) {
  size_t n = strlen(folder), e = strlen(ext);
  const char *names[256];
  size_t m = 0;
  for (const mbg_builtin_template *t = mbg_builtin_templates; t->name && m < 256; t++)
    if (strncmp(t->name, folder, n) == 0 && t->name[n] == '/' && ends_with(t->name, ext))
      names[m++] = t->name + n + 1;
  for (const mbg_lua_recipe *r = mbg_lua_recipes; r->name && m < 256; r++)
    if (strcmp(folder, "algorithms") == 0) names[m++] = r->name;
  qsort(names, m, sizeof names[0], by_str);
  fprintf(err, "%s/", folder);
  for (size_t k = 0; k < m; k++) {
    size_t len = strlen(names[k]);
    if (ends_with(names[k], ext)) len -= e; /* a registry function has no file */
    fprintf(err, "%s%.*s", k ? ", " : "{", (int)len, names[k]);
  }
  fprintf(err, "}%s", ext);
}

/* The warnings of one folder of DIR; returns how many. */
static int unused_in(const mbg_gen *g, const char *dir, const char *folder, FILE *err) {
  int warnings = 0;
  char *sub = join(dir, folder), *lib = join(dir, "lib"), **names = sub ? list_dir(sub) : NULL;
  for (size_t j = 0; lib && names && names[j]; j++) {
    struct stat st;
    char *rel = join(folder, names[j]), *path = join(sub, names[j]);
    const char *why = NULL;
    int skip = !rel || !path || names[j][0] == '.' || mbg_lua_read_user_file(g->lua, rel) ||
               (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    if (!skip && (why = unused_why(folder, names[j], lib)) != NULL) {
      warn(dir, rel, why, err);
      warnings++;
    }
    free(rel);
    free(path);
  }
  free_list(names);
  free(sub);
  free(lib);
  return warnings;
}

int mbg_gen_templates_unused(const mbg_gen *g, int rendered, FILE *err) {
  if (g->opts->quiet) return 0; /* -q: what would be said is warnings and notes only */
  const char *dir = g->opts->templates;
  if (!dir) return 0;
  int warnings = 0;
  for (size_t k = 0; k < sizeof folders / sizeof folders[0]; k++)
    if (rendered || strcmp(folders[k], "c") != 0) warnings += unused_in(g, dir, folders[k], err);
  char **top = list_dir(dir);
  for (size_t j = 0; top && top[j]; j++) {
    if (!ends_with(top[j], ".lua") || top[j][0] == '.') continue;
    fprintf(err, "mbdc: warning: --templates %s: %s was not used: recipes go in %s/algorithms/, "
                 "libraries in %s/lib/, render templates in %s/c/\n", dir, top[j], dir, dir, dir);
    warnings++;
  }
  free_list(top);
  if (warnings) {
    fprintf(err, "mbdc: note: a file in --templates replaces the built-in one of the same name, "
                 "and the built-in ones are ");
    list_builtin("algorithms", ".lua", err);
    fprintf(err, ", ");
    list_builtin("lib", ".lua", err);
    fprintf(err, ", ");
    list_builtin("c", ".lua", err);
    fprintf(err, " and the C they write out, ");
    list_builtin("c", ".c", err);
    fprintf(err, "; any other recipe is read when --functions names it, any other module when an "
                 "import names it\n");
  }
  return warnings;
}
