/* gen_contacts.h — --contacts LIST (gen_contacts.c): the frames in contact of the contact
 * dynamics, and the recipes' model.contacts. */
#ifndef MBG_GEN_CONTACTS_H
#define MBG_GEN_CONTACTS_H

#include <stdio.h>

#include "emit/gen.h"

/* Parse g->opts->contacts against the operational frames (after --frames) into g->contacts,
 * g->ncontacts and g->ncrows. Returns 0 (also without --contacts), or 2 (a usage error) after
 * saying what is wrong. */
int mbg_gen_select_contacts(mbg_gen *g, FILE *err);

/* Set model.contacts ({frame, dim, name} per contact, frame 1-based into model.frames) and
 * model.ncrows in the table on top of L's stack. */
void mbg_gen_push_contacts(const mbg_gen *g, lua_State *L);

#endif
