/* quote.c — comment text and shell words (quote.h). */
#include "base/quote.h"

#include <stdlib.h>
#include <string.h>

/* Whether s[i] is written as \xHH in comment text. */
static int escaped(const char *s, size_t i) {
  unsigned char c = (unsigned char)s[i], next = (unsigned char)s[i + 1];
  if (c < 0x20 || c > 0x7e || c == '\\') return 1;
  /* a final '*' too: the text may be followed by a '/' */
  return (c == '*' && (next == '/' || next == '\0')) || (c == '/' && next == '*') ||
         (c == '?' && next == '?');
}

size_t mbg_quote_comment_to(const char *s, char *out, size_t size) {
  static const char hex[] = "0123456789abcdef";
  size_t n = 0, kept = 0;
  for (size_t i = 0; s[i]; i++) {
    char piece[4] = {s[i], 0, 0, 0};
    size_t k = 1;
    if (escaped(s, i)) {
      unsigned char c = (unsigned char)s[i];
      piece[0] = '\\', piece[1] = 'x', piece[2] = hex[c >> 4], piece[3] = hex[c & 15];
      k = 4;
    }
    if (out && kept == n && n + k < size) memcpy(out + n, piece, k), kept = n + k;
    n += k;
  }
  if (out && size > 0) out[kept] = '\0';
  return n;
}

char *mbg_quote_comment(const char *s) {
  size_t n = mbg_quote_comment_to(s, NULL, 0);
  char *out = malloc(n + 1);
  if (out) mbg_quote_comment_to(s, out, n + 1);
  return out;
}

char *mbg_quote_shell(const char *s) {
  static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                              "_-.,/:=+@%";
  size_t len = strlen(s);
  if (len > 0 && strspn(s, plain) == len) return strdup(s);
  size_t n = 2;
  for (size_t i = 0; i < len; i++) n += s[i] == '\'' ? 4 : 1;
  char *out = malloc(n + 1), *p = out;
  if (!out) return NULL;
  *p++ = '\'';
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '\'')
      memcpy(p, "'\\''", 4), p += 4;
    else
      *p++ = s[i];
  }
  *p++ = '\'';
  *p = '\0';
  return out;
}
