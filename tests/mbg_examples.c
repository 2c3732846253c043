/* mbg_examples.c — every example model and robot (mbg_examples.h). */
#include "mbg_examples.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mbgt_each_example(void (*fn)(const char *path, int floating, void *ctx), void *ctx) {
  const char *src = getenv("MBDC_SOURCE_DIR");
  char list[1200], floating[1024] = " "; /* the stems of examples/urdf/floating_base.txt */
  snprintf(list, sizeof list, "%s/examples/urdf/floating_base.txt", src ? src : ".");
  FILE *fl = fopen(list, "r");
  assert_non_null(fl);
  for (char line[128]; fgets(line, sizeof line, fl);)
    if (line[0] != '#' && line[0] != '\n' && strlen(floating) + strlen(line) + 2 < sizeof floating)
      line[strcspn(line, "\n")] = '\0', strcat(floating, line), strcat(floating, " ");
  fclose(fl);
  int n = 0;
  for (int urdf = 0; urdf < 2; urdf++) {
    char dir[1024], path[1400];
    snprintf(dir, sizeof dir, "%s/examples%s", src ? src : ".", urdf ? "/urdf" : "");
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
      size_t len = strlen(e->d_name);
      const char *ext = urdf ? ".urdf" : ".mbd";
      if (len <= strlen(ext) || strcmp(e->d_name + len - strlen(ext), ext) != 0) continue;
      char stem[160];
      snprintf(stem, sizeof stem, " %.*s ", (int)(len - strlen(ext)), e->d_name);
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      fn(path, urdf && strstr(floating, stem) != NULL, ctx);
      n++;
    }
    closedir(d);
  }
  return n;
}
