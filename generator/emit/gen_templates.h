/* gen_templates.h — the user's template directory (--templates DIR, docs/templates.md): checked
 * before anything runs, and every file in it that no template lookup read reported after a
 * successful run, so that a misspelt name is never silently replaced by the built-in one. */
#ifndef MBG_GEN_TEMPLATES_H
#define MBG_GEN_TEMPLATES_H

#include <stdio.h>

#include "emit/gen.h"

/* DIR must be a readable directory; its algorithms/, lib/ and c/, where present, readable
 * directories; every NAME.lua in them a readable regular file. Returns 0, or 2 (the exit status)
 * with every problem on err. */
int mbg_gen_templates_check(const char *dir, FILE *err);

/* A warning on err for each file of DIR/algorithms/, DIR/lib/, DIR/c/ (only when `rendered`: the
 * render templates ran) and each DIR/NAME.lua that was not read: not a built-in name (a recipe,
 * a registry function, a library, a template), and no --functions entry or import named it; a
 * library's replacement in algorithms/ beside one in lib/ (which is read); a function's name in
 * lib/. Then a note listing the built-in names. Returns the number of warnings. */
int mbg_gen_templates_unused(const mbg_gen *g, int rendered, FILE *err);

#endif
