/* diag.c — located diagnostics in the compiler style:
 *
 *   arm.mbd:12:35: error: 'axis' expects 3 values, found 2
 *      12 | joint q1 revolute world -> bar1 { axis 0 0; }
 *         |                                   ^~~~
 */
#include "base/diag.h"

#include <stdarg.h>
#include <string.h>

/* Lines longer than this are not quoted (a caret under them would be useless). */
enum { MAX_QUOTED_LINE = 240 };

void mbg_diag_init(mbg_diag *d, const char *path, const char *source, size_t len, FILE *out) {
  memset(d, 0, sizeof *d);
  d->path = path;
  d->source = source;
  d->source_len = len;
  d->out = out;
  d->max_errors = 50;
}

/* Find line `line` (1-based) of the source; returns its start and sets *len (without newline). */
static const char *find_line(mbg_diag *d, int line, size_t *len) {
  if (!d->source || line < 1) return NULL;
  const char *p = d->source, *end = d->source + d->source_len;
  int l = 1;
  if (d->seen_line > 0 && d->seen_line <= line && d->seen_at <= d->source_len)
    l = d->seen_line, p += d->seen_at;
  for (; l < line; l++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return NULL;
    p = nl + 1;
  }
  d->seen_line = line;
  d->seen_at = (size_t)(p - d->source);
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  *len = (size_t)((nl ? nl : end) - p);
  if (*len > 0 && p[*len - 1] == '\r') (*len)--;
  return p;
}

static void quote(mbg_diag *d, mbg_loc loc) {
  size_t len;
  const char *text = find_line(d, loc.line, &len);
  if (!text || len > MAX_QUOTED_LINE || loc.col < 1 || (size_t)loc.col > len + 1) return;
  fprintf(d->out, "%5d | ", loc.line);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    fputc(c == '\t' ? ' ' : (c < 32 || c == 127 || c >= 128) ? '?' : c, d->out);
  }
  fputs("\n      | ", d->out);
  for (int i = 1; i < loc.col; i++) fputc(' ', d->out);
  fputc('^', d->out);
  int last = loc.last_col > (int)len ? (int)len : loc.last_col;
  for (int i = loc.col + 1; i <= last; i++) fputc('~', d->out);
  fputc('\n', d->out);
}

/* Whether the last error or warning was printed, so its notes follow it or not. */
static void report(mbg_diag *d, mbg_loc loc, const char *kind, const char *fmt, va_list ap) {
  if (loc.line > 0)
    fprintf(d->out, "%s:%d:%d: %s: ", d->path, loc.line, loc.col, kind);
  else
    fprintf(d->out, "%s: %s: ", d->path, kind);
  vfprintf(d->out, fmt, ap);
  fputc('\n', d->out);
  quote(d, loc);
}

static int printing(const mbg_diag *d) {
  return d->max_errors == 0 || d->errors <= d->max_errors;
}

int mbg_diag_will_print(const mbg_diag *d) {
  return d->max_errors == 0 || d->errors < d->max_errors;
}

void mbg_diag_error(mbg_diag *d, mbg_loc loc, const char *fmt, ...) {
  d->errors++;
  d->last_kind = 1;
  if (d->max_errors && d->errors == d->max_errors + 1)
    fprintf(d->out, "%s: error: too many errors, stopping here\n", d->path);
  if (!printing(d)) return;
  va_list ap;
  va_start(ap, fmt);
  report(d, loc, "error", fmt, ap);
  va_end(ap);
}

void mbg_diag_warning(mbg_diag *d, mbg_loc loc, const char *fmt, ...) {
  d->warnings++;
  d->last_kind = 2;
  if (!printing(d) || d->quiet) return;
  va_list ap;
  va_start(ap, fmt);
  report(d, loc, "warning", fmt, ap);
  va_end(ap);
}

void mbg_diag_note(mbg_diag *d, mbg_loc loc, const char *fmt, ...) {
  if (!printing(d) || (d->quiet && d->last_kind != 1)) return;
  va_list ap;
  va_start(ap, fmt);
  report(d, loc, "note", fmt, ap);
  va_end(ap);
}
