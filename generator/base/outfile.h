/* outfile.h — output files written whole or not at all: to a temporary name beside the target,
 * renamed over it only when complete. */
#ifndef MBG_OUTFILE_H
#define MBG_OUTFILE_H

#include <stdio.h>

typedef struct mbg_outfile {
  FILE *f;
  char *path, *tmp;
  char *buf; /* the stream's buffer (1 MiB), freed after fclose */
} mbg_outfile;

/* Open a temporary file beside `path`. Returns 0, or -1 with a message on `err`. */
int mbg_outfile_open(mbg_outfile *o, const char *path, FILE *err);
/* Close and rename into place; on any write error the target is left untouched. Returns 0/-1. */
int mbg_outfile_commit(mbg_outfile *o, FILE *err);
/* Close and remove the temporary file. */
void mbg_outfile_abort(mbg_outfile *o);

#endif
