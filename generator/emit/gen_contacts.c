/* gen_contacts.c — --contacts LIST: the operational frames in contact for the contact dynamics
 * (contact_fd, contact_fd_reg, impulse; docs/controllers.md). Each item is FRAME (a point
 * contact: three rows, a force at the frame's origin), FRAME:3 (the same) or FRAME:6 (the frame
 * welded: six rows, a wrench), in the order given; a frame at most once. */
#include <stdlib.h>
#include <string.h>

#include "emit/gen_contacts.h"

#include "model/names.h"

/* The did-you-mean of an unknown frame name. */
static void suggest_frame(const mbg_topology *t, const char *name, FILE *err) {
  const char **all = calloc((size_t)t->nframes + 1, sizeof *all);
  for (int k = 0; all && k < t->nframes; k++) all[k] = t->frame[k].name;
  if (all) mbg_suggest_words(err, name, all, "the frames");
  free(all);
}

/* One item p[0..len): the frame's index and dim into *c. Returns 0, or 2 after the error. */
static int parse_item(const mbg_gen *g, const char *p, size_t len, mbg_gen_contact *c, FILE *err) {
  const mbg_topology *t = g->topo;
  char name[80];
  size_t nlen = len;
  const char *colon = memchr(p, ':', len);
  c->dim = 3;
  if (colon) {
    nlen = (size_t)(colon - p);
    size_t dlen = len - nlen - 1;
    if (dlen == 1 && (colon[1] == '3' || colon[1] == '6')) {
      c->dim = colon[1] - '0';
    } else {
      snprintf(name, sizeof name, "%.*s", (int)(len < 79 ? len : 79), p);
      fprintf(err, "mbdc: error: --contacts: '%s': expected FRAME, FRAME:3 (a point contact) or "
                   "FRAME:6 (the frame welded)\n", name);
      return 2;
    }
  }
  snprintf(name, sizeof name, "%.*s", (int)(nlen < 79 ? nlen : 79), p);
  c->frame = -1;
  for (int k = 0; k < t->nframes && c->frame < 0; k++)
    if (strlen(t->frame[k].name) == nlen && strncmp(t->frame[k].name, p, nlen) == 0) c->frame = k;
  if (c->frame < 0) {
    fprintf(err, "mbdc: error: --contacts: no frame '%s'%s", name,
            g->opts->frames ? " among --frames" : "");
    suggest_frame(t, name, err);
    fputc('\n', err);
    return 2;
  }
  if (t->frame[c->frame].body == 0) {
    fprintf(err, "mbdc: error: --contacts: frame '%s' is fixed to the world: a contact there "
                 "constrains nothing that moves\n", name);
    return 2;
  }
  return 0;
}

int mbg_gen_select_contacts(mbg_gen *g, FILE *err) {
  const char *spec = g->opts->contacts;
  if (!spec) return 0;
  if (g->loops.nc > 0) /* the contact recipes sweep the tree's rows, not the loops' */
    return fprintf(err, "mbdc: error: --contacts: not yet for a model with loop joints (its "
                        "contact dynamics would leave the loops open)\n"), 2;
  size_t cap = 1;
  for (const char *p = spec; *p; p++) cap += *p == ',';
  if (!(g->contacts = calloc(cap, sizeof *g->contacts)))
    return fprintf(err, "mbdc: error: out of memory\n"), 2;
  int n = 0;
  for (const char *p = spec; *p; p += strcspn(p, ","), p += *p == ',') {
    size_t len = strcspn(p, ",");
    if (len == 0) continue;
    mbg_gen_contact c;
    int rc = parse_item(g, p, len, &c, err);
    if (rc) return rc;
    for (int k = 0; k < n; k++)
      if (g->contacts[k].frame == c.frame)
        return fprintf(err, "mbdc: error: --contacts: twice the frame '%s'\n",
                       g->topo->frame[c.frame].name), 2;
    g->contacts[n++] = c;
    g->ncrows += c.dim;
  }
  g->ncontacts = n;
  if (n == 0) return fprintf(err, "mbdc: error: --contacts names no frame\n"), 2;
  return 0;
}

/* model.contacts[k]: { frame = index into model.frames (1-based), dim = 3 or 6, name }. */
void mbg_gen_push_contacts(const mbg_gen *g, lua_State *L) {
  lua_createtable(L, g->ncontacts, 0);
  for (int k = 0; k < g->ncontacts; k++) {
    lua_createtable(L, 0, 3);
    mbg_lua_set_int(L, "frame", g->contacts[k].frame + 1);
    mbg_lua_set_int(L, "dim", g->contacts[k].dim);
    mbg_lua_set_string(L, "name", g->topo->frame[g->contacts[k].frame].name);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "contacts");
  mbg_lua_set_int(L, "ncrows", g->ncrows);
}
