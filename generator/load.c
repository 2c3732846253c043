/* load.c — the front end in one call: read a model file, parse it, build the validated model. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

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

/* The model name implied by a file name: its base name without extension, as a C identifier. */
static void default_name(const char *path, char *name, size_t size) {
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
    default_name(path, name, sizeof name);
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
