/* lexstate.h — state shared by the reentrant lexer and the pure parser of one file. */
#ifndef MBD_LEXSTATE_H
#define MBD_LEXSTATE_H

#include "ast.h"

typedef struct mbd_lex_state {
  mbg_diag *diag;
  mbd_ast *ast;
  int line, col;        /* position of the next character */
  int paren_depth;      /* '(' not yet closed, and where the innermost ones opened */
  mbg_loc paren[16];
  int prev_operand;     /* the previous token ends an operand (number, name, pi, ')', deg) */
  int space_before;     /* whitespace or a comment since the previous token */
  int cur_tok, prev_tok; /* token kinds of the token just read and the one before */
  int cur_split;        /* the token just read is a '-' that starts a new value by spacing */
  mbg_loc cur_loc;      /* location of the token just read */
  mbg_loc prev_loc;     /* location of the token before it */
  char prev_text[40];   /* its text, truncated, for messages */
  char cur_text[40];    /* the current token's text, truncated */
  int brace_depth;      /* '{' not yet closed, and where the innermost ones opened */
  mbg_loc brace[16];
  int unclosed_level;   /* brace depth of a block reported unclosed (0: none) */
  int depth_reported;   /* "nested too deeply" said once per file */
  int out_of_memory;
  /* Reading stops (mbd_stop_reading, mbd.y) after MBD_MAX_SYNTAX_ERRORS errors, or sooner when
   * the input does not look like a model: errors on MBD_NOT_A_MODEL_LINES lines and no statement
   * read yet (a README, a C header, a binary file given by mistake). */
  int errors0;          /* the diagnostics' errors when parsing began */
  int errors_seen;      /* ... when the last check ran */
  int error_line, error_lines; /* the last line with an error, and how many lines had one */
  int xml;              /* the input starts like XML (a URDF not named .urdf, say) */
  int stopped;          /* reading stopped: the lexer returns end of file, nothing more is said */
} mbd_lex_state;

enum { MBD_MAX_SYNTAX_ERRORS = 10, MBD_NOT_A_MODEL_LINES = 4 };

#endif
