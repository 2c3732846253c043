/* load.c — the front end in one call: read a model file, parse it, build the validated model. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "urdf.h"

/* Larger inputs are refused rather than read: no model is anywhere near this. */
enum { MAX_MODEL_BYTES = 64 << 20 };

char *mbg_read_file(const char *path, size_t *len, FILE *out) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (out) fprintf(out, "%s: error: cannot open: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
    if (n == cap) {
      if (cap >= MAX_MODEL_BYTES) {
        if (out)
          fprintf(out, "%s: error: the file is larger than %d MiB; this is not a model\n", path,
                  MAX_MODEL_BYTES >> 20);
        free(buf);
        fclose(f);
        return NULL;
      }
      char *grown = realloc(buf, cap * 2);
      if (!grown) free(buf);
      buf = grown;
      cap *= 2;
    }
  }
  int failed = ferror(f);
  fclose(f);
  if (!buf || failed) {
    if (out) fprintf(out, "%s: error: cannot read%s\n", path, buf ? "" : " (out of memory)");
    free(buf);
    return NULL;
  }
  buf[n] = '\0'; /* n < cap: the buffer grows as soon as it is full */
  *len = n;
  return buf;
}

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

mbg_model *mbg_model_from_text(const char *path, const char *text, size_t len, FILE *out,
                               int *errors, int *warnings) {
  mbg_diag d;
  mbg_diag_init(&d, path, text, len, out);
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

mbg_model *mbg_model_from_source(const char *path, const char *text, size_t len,
                                 const mbg_load_opts *o, FILE *out, int *errors, int *warnings) {
  int floating_base = o && o->floating_base;
  if (!mbg_is_urdf(path)) {
    if (floating_base) {
      fprintf(out, "%s: error: --floating-base applies to a URDF; a .mbd gives its base a "
                   "floating joint itself ('joint base floating world -> BODY;')\n", path);
      *errors = 1;
      *warnings = 0;
      return NULL;
    }
    return mbg_model_from_text(path, text, len, out, errors, warnings);
  }
  mbg_diag d;
  mbg_diag_init(&d, path, text, len, out);
  char name[256];
  mbg_default_model_name(path, name, sizeof name);
  mbg_model *m = mbg_urdf_build(path, text, len, name, floating_base, &d);
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
