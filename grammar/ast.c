/* ast.c — placeholder until the grammar lands. */
#include "ast.h"
