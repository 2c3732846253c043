/* outfile.h — one output file written whole or not at all: a set of one file (outset.h) in the
 * directory of `path`, which must exist. A `path` that names a directory, a symbolic link or a
 * device (/dev/null) is an error, never replaced. */
#ifndef MBG_OUTFILE_H
#define MBG_OUTFILE_H

#include <stdio.h>

#include "base/outset.h"

typedef struct mbg_outfile {
  FILE *f; /* write the file's text here */
  mbg_outset set;
} mbg_outfile;

/* Begin writing `path`. Returns 0, or -1 with a message on `err`. */
int mbg_outfile_open(mbg_outfile *o, const char *path, FILE *err);
/* Put the file in place; on any write error the target is left untouched. Returns 0/-1. */
int mbg_outfile_commit(mbg_outfile *o, FILE *err);
/* Drop what was written. */
void mbg_outfile_abort(mbg_outfile *o);

#endif
