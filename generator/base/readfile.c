/* readfile.c — a whole file into memory, bounded in size. */
#include "base/readfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
