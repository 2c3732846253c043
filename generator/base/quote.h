/* quote.h — text from outside (a path, a file name, the command line, a recipe's summary) made
 * safe to place in generated text.
 *
 * Comment text (mbg_quote_comment) goes inside a C block comment or after '#' on one line of
 * the model language. It is printable ASCII only and can neither end nor nest the comment nor
 * continue it onto the next line: every byte outside 0x20..0x7e, every backslash, the '*' of a
 * "*" "/" pair and a final '*', the '/' of a "/" "*" pair and the first '?' of a "??" pair (a
 * trigraph could make a backslash) are written as \xHH (two lower-case hex digits). Text
 * without such bytes comes out unchanged, and the escaped text reads back unambiguously. Put it
 * after a space (or at the start of a line) and before a space or the end of the line, as the
 * built-in templates do: then no character around it can pair with one of it either.
 *
 * Shell words (mbg_quote_shell): an argument of the command line as sh reads it back: as it is
 * when made of letters, digits and _ - . , / : = + @ % only, else in single quotes ('\'' for a
 * quote inside). */
#ifndef MBG_QUOTE_H
#define MBG_QUOTE_H

#include <stddef.h>

/* The comment text of s, malloc'ed; NULL when out of memory. */
char *mbg_quote_comment(const char *s);
/* The comment text of s into out[size] like snprintf: truncated (between escapes) and
 * terminated when size > 0; returns the length of the whole text (out may be NULL, size 0). */
size_t mbg_quote_comment_to(const char *s, char *out, size_t size);
/* s as one shell word, malloc'ed; NULL when out of memory. */
char *mbg_quote_shell(const char *s);

#endif
