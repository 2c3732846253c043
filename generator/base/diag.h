/* diag.h — located diagnostics: `path:line:col: error: message`, the source line and a caret.
 *
 * One mbg_diag per input file. Errors are counted, never fatal: every stage reports what it finds
 * and keeps going; the driver exits non-zero at the end if any error was reported. */
#ifndef MBG_DIAG_H
#define MBG_DIAG_H

#include <stdio.h>

/* A position in a source file, 1-based; line 0 means "no location". last_col is the last column
 * of the construct on `line` (for the caret's underline), 0 if unknown. */
typedef struct mbg_loc {
  int line, col;
  int last_col;
} mbg_loc;

typedef struct mbg_diag {
  const char *path;   /* as shown in messages */
  const char *source; /* the file's text (may be NULL), used to quote the offending line */
  size_t source_len;
  FILE *out;          /* where messages go (stderr in the CLI, a memory stream in tests) */
  int errors, warnings;
  int max_errors;     /* stop printing after this many errors (still counted); 0 = no limit */
  int quiet;          /* warnings, and notes not attached to an error: counted, not printed */
  int last_kind;      /* the last error (1) or warning (2) reported, 0 none: whom a note follows */
  int seen_line;      /* the last line quoted and where it starts: the next one is looked for */
  size_t seen_at;     /* from there (diagnostics mostly come in order), not from the start */
} mbg_diag;

void mbg_diag_init(mbg_diag *d, const char *path, const char *source, size_t len, FILE *out);

#if defined(__GNUC__)
#define MBG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MBG_PRINTF(a, b)
#endif

void mbg_diag_error(mbg_diag *d, mbg_loc loc, const char *fmt, ...) MBG_PRINTF(3, 4);
void mbg_diag_warning(mbg_diag *d, mbg_loc loc, const char *fmt, ...) MBG_PRINTF(3, 4);
/* Whether another error would be printed (max_errors not reached): work done only for a message,
 * such as a did-you-mean search, is skipped after that. */
int mbg_diag_will_print(const mbg_diag *d);
/* A note attached to the previous error or warning (printed only if that one was printed), or
 * one of its own, such as what a reader assumed (printed unless quiet). */
void mbg_diag_note(mbg_diag *d, mbg_loc loc, const char *fmt, ...) MBG_PRINTF(3, 4);

#endif
