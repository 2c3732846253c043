/* outfile.c — one output file as a set of one (outfile.h). */
#include "base/outfile.h"

#include <stdlib.h>
#include <string.h>

int mbg_outfile_open(mbg_outfile *o, const char *path, FILE *err) {
  memset(o, 0, sizeof *o);
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
    fprintf(err, "%s: error: names a directory, not a file\n", path);
    return -1;
  }
  char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
  if (!dir) return fprintf(err, "%s: error: out of memory\n", path), -1;
  /* "/x": the root directory */
  int rc = mbg_outset_begin(&o->set, slash == path ? "/" : dir, 0, err);
  free(dir);
  if (rc != 0) return -1;
  if (!(o->f = mbg_outset_add(&o->set, name))) {
    mbg_outset_abort(&o->set);
    return -1;
  }
  return 0;
}

int mbg_outfile_commit(mbg_outfile *o, FILE *err) {
  (void)err; /* the set reports on the stream given to open */
  o->f = NULL;
  return mbg_outset_commit(&o->set);
}

void mbg_outfile_abort(mbg_outfile *o) {
  o->f = NULL;
  mbg_outset_abort(&o->set);
}
