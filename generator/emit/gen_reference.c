/* gen_reference.c — the names of the --frame variants. */
#include <string.h>

#include "emit/gen_reference.h"

static const char *const names[] = {"auto", "body", "joint", "com", "world", "all"};

int mbg_ref_parse(const char *s, int allow_all, mbg_ref *f) {
  for (int k = 0; s && k <= MBG_REF_ALL; k++)
    if (strcmp(s, names[k]) == 0 && (k != MBG_REF_ALL || allow_all)) {
      *f = (mbg_ref)k;
      return 0;
    }
  return -1;
}

const char *mbg_ref_name(mbg_ref f) {
  return (int)f >= 0 && f <= MBG_REF_ALL ? names[f] : "?";
}
