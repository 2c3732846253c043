/* load.c — the front end in one call: read a model file, parse it, build the validated model. */
#include "load/load.h"

#include <stdlib.h>
#include <string.h>

#include "base/readfile.h"
#include "mjcf/mjcf.h"
#include "model/build.h"
#include "urdf/urdf.h"

void mbg_default_model_name(const char *path, char *name, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = 0;
  if (base[0] >= '0' && base[0] <= '9') name[n++] = '_';
  for (const char *p = base; *p && *p != '.' && n + 1 < size; p++) {
    char c = *p;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    name[n++] = ok ? c : '_';
  }
  if (n == 0) {
    snprintf(name, size, "model");
    return;
  }
  name[n] = '\0';
}

static mbg_model *from_text(const char *path, const char *text, size_t len, int quiet,
                            FILE *out, int *errors, int *warnings) {
  mbg_diag d;
  mbg_diag_init(&d, path, text, len, out);
  d.quiet = quiet;
  mbg_model *m = NULL;
  mbd_ast *ast = mbd_parse(text, len, &d);
  if (!ast) {
    fprintf(out, "%s: error: out of memory while parsing\n", path);
    d.errors++;
  } else {
    char name[256];
    mbg_default_model_name(path, name, sizeof name);
    /* After syntax errors (all of them reported: the parser recovers) the tree has holes, and
     * checking it would only add consequences of the same mistakes. */
    if (d.errors == 0) m = mbg_build_model(ast, path, name, &d);
    mbd_ast_free(ast);
  }
  if (d.errors && m) {
    mbg_model_free(m);
    m = NULL;
  }
  *errors = d.errors;
  *warnings = d.warnings;
  return m;
}

mbg_model *mbg_model_from_text(const char *path, const char *text, size_t len, FILE *out,
                               int *errors, int *warnings) {
  return from_text(path, text, len, 0, out, errors, warnings);
}

mbg_model *mbg_load_mbd(const char *path, FILE *out, int *errors, int *warnings) {
  size_t len = 0;
  *errors = *warnings = 0;
  char *text = mbg_read_file(path, &len, out);
  if (!text) {
    *errors = 1;
    return NULL;
  }
  mbg_model *m = mbg_model_from_text(path, text, len, out, errors, warnings);
  free(text);
  return m;
}

int mbg_is_urdf(const char *path) {
  size_t n = strlen(path);
  if (n < 5) return 0;
  const char *ext = path + n - 5, *want = ".urdf";
  for (int k = 0; k < 5; k++)
    if ((ext[k] | 0x20) != want[k]) return 0; /* '.' | 0x20 is '.' */
  return 1;
}

int mbg_is_mjcf(const char *path) {
  size_t n = strlen(path);
  if (n < 4) return 0;
  const char *ext = path + n - 4, *want = ".xml";
  for (int k = 0; k < 4; k++)
    if ((ext[k] | 0x20) != want[k]) return 0;
  return 1;
}

/* An MJCF model (mjcf/mjcf.h); --floating-base is an error: the file says <freejoint/>. */
static mbg_model *from_mjcf(const char *path, const char *text, size_t len,
                            const mbg_load_opts *o, FILE *out, int *errors, int *warnings) {
  if (o && o->floating_base) {
    fprintf(out, "%s: error: --floating-base applies to a URDF; an MJCF model gives its base a "
                 "<freejoint/> itself\n", path);
    *errors = 1;
    *warnings = 0;
    return NULL;
  }
  mbg_diag d;
  mbg_diag_init(&d, path, text, len, out);
  d.quiet = o && o->quiet;
  char name[256];
  mbg_default_model_name(path, name, sizeof name);
  mbg_model *m = mbg_mjcf_build(path, text, len, name, &d);
  *errors = d.errors;
  *warnings = d.warnings;
  return m;
}

mbg_model *mbg_model_from_source(const char *path, const char *text, size_t len,
                                 const mbg_load_opts *o, FILE *out, int *errors, int *warnings) {
  int floating_base = o && o->floating_base;
  if (mbg_is_mjcf(path)) return from_mjcf(path, text, len, o, out, errors, warnings);
  if (!mbg_is_urdf(path)) {
    if (floating_base) {
      fprintf(out, "%s: error: --floating-base applies to a URDF; a .mbd gives its base a "
                   "floating joint itself ('joint base floating world -> BODY;')\n", path);
      *errors = 1;
      *warnings = 0;
      return NULL;
    }
    return from_text(path, text, len, o && o->quiet, out, errors, warnings);
  }
  mbg_diag d;
  mbg_diag_init(&d, path, text, len, out);
  d.quiet = o && o->quiet;
  char name[256];
  mbg_default_model_name(path, name, sizeof name);
  int flags = (floating_base ? MBG_URDF_FLOATING : 0) |
              (o && o->couple_mimic ? MBG_URDF_COUPLE_MIMIC : 0);
  mbg_model *m = mbg_urdf_build(path, text, len, name, flags, &d);
  *errors = d.errors;
  *warnings = d.warnings;
  return m;
}

mbg_model *mbg_load(const char *path, const mbg_load_opts *o, FILE *out, int *errors,
                    int *warnings) {
  size_t len = 0;
  *errors = *warnings = 0;
  char *text = mbg_read_file(path, &len, out);
  if (!text) {
    *errors = 1;
    return NULL;
  }
  mbg_model *m = mbg_model_from_source(path, text, len, o, out, errors, warnings);
  free(text);
  return m;
}
