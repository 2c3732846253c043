/* outset.h — a set of output files that replaces the files of the same names in a directory
 * together, as atomically as POSIX allows (docs/security.md, "Outputs", says what is guaranteed).
 *
 *   begin   open the directory (created with its parents if asked; an existing non-directory is
 *           an error), lock it (flock: runs into the same directory take turns), finish or
 *           remove what an interrupted run left there (below), make a fresh staging directory
 *           `.mbdc-stage-XXXXXX` (mode 0700) inside it;
 *   add     a file of the set, written in the staging directory; a target that exists and is
 *           not a regular file (a directory, a symbolic link, a device such as /dev/null) is an
 *           error, never replaced;
 *   stamp   a placeholder for the set's identifier at the current position of a file: commit
 *           writes there `0x` and 12 hex digits, a hash of every file of the set as written
 *           (placeholders included), so files of one set carry the same number and files of
 *           different contents different ones;
 *   commit  every file flushed and checked, stamped, given its mode (the mode of the file it
 *           replaces, else 0666 minus the umask) and owner (the replaced file's, where allowed),
 *           fsync'ed; a file whose bytes equal those of the file it would replace is dropped
 *           (the old one is left untouched, its time stamp too, so a build that depends on it
 *           does not recompile); then the manifest (the list of the other names) is written and
 *           fsync'ed — the commit point — and those files are renamed into the directory one by
 *           one, the directory fsync'ed, the staging directory removed;
 *   abort   the staging directory removed: the directory is as before.
 *
 * Any failure before the commit point removes the staging directory and leaves every old file
 * untouched. A run killed before the commit point leaves a staging directory without a
 * manifest, which the next begin in that directory removes; a run killed after it leaves one
 * with a manifest, whose remaining files the next begin moves into place first (staging
 * directories of another owner are left alone). Files of one
 * set can therefore be seen beside files of another only between a kill in the renaming and the
 * next run, and the stamps tell them apart. Messages go to the FILE* given to begin. */
#ifndef MBG_OUTSET_H
#define MBG_OUTSET_H

#include <stdio.h>
#include <sys/types.h>

enum { MBG_OUTSET_MAX = 8 };

typedef struct mbg_outset_file {
  char *name;    /* a plain name in the directory */
  FILE *f;       /* the file in the staging directory */
  char *buf;     /* f's buffer */
  off_t *stamps; /* offsets of the identifier's placeholders */
  int nstamps, capstamps;
  int same; /* the bytes of the file it replaces: not replaced */
} mbg_outset_file;

typedef struct mbg_outset {
  char *dir;          /* the output directory as given */
  int dirfd, stagefd; /* -1 when not open */
  char stage[32];     /* the staging directory's name in dir */
  int nfiles;
  mbg_outset_file files[MBG_OUTSET_MAX];
  FILE *err;
} mbg_outset;

/* Returns 0, or -1 with a message. make_dirs: create dir and its parents when missing. */
int mbg_outset_begin(mbg_outset *s, const char *dir, int make_dirs, FILE *err);
/* The stream of file `name` (a plain name: no '/', not "." or ".."), or NULL with a message. */
FILE *mbg_outset_add(mbg_outset *s, const char *name);
/* Write the identifier's placeholder into f (a stream of this set). Returns 0 or -1. */
int mbg_outset_stamp(mbg_outset *s, FILE *f);
/* Replace the files (those that changed). Returns 0, or -1 with a message (and the set aborted
 * when the failure came before the commit point). */
int mbg_outset_commit(mbg_outset *s);
/* Remove the staging directory and release everything; safe after a failed begin or commit. */
void mbg_outset_abort(mbg_outset *s);

#endif
