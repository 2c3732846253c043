/* readfile.h — reading a whole input file (a model, a user template) into memory. */
#ifndef MBG_READFILE_H
#define MBG_READFILE_H

#include <stdio.h>

/* A whole file (at most 64 MiB), malloc'ed and NUL-terminated, its size in *len; NULL on failure,
 * with a located message on `out` unless out is NULL. */
char *mbg_read_file(const char *path, size_t *len, FILE *out);

#endif
