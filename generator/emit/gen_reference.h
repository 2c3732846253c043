/* gen_reference.h — the reference frames of the working quantities (--frame, docs/frames.md):
 * where a recipe that has the choice expresses body velocities, accelerations, forces and
 * inertias. */
#ifndef MBG_GEN_REFERENCE_H
#define MBG_GEN_REFERENCE_H

/* body: body-fixed bases at the joint point (the aligned working frames); joint, com, world:
 * world-aligned bases at the joint point, the centre of mass, the world's origin (Kang & Yoon
 * 2003's three reference points). AUTO: the variant of fewest operations per function; ALL (mbdc
 * stats only): AUTO, and every variant's counts shown. The variants are 1..MBG_NREFS - 1 in
 * the order ties are broken in. */
typedef enum mbg_ref {
  MBG_REF_AUTO,
  MBG_REF_BODY,
  MBG_REF_JOINT,
  MBG_REF_COM,
  MBG_REF_WORLD,
  MBG_NREFS,
  MBG_REF_ALL = MBG_NREFS
} mbg_ref;

/* "auto", "body", "joint", "com", "world" (and "all" when allow_all) into *f; 0, or -1. */
int mbg_ref_parse(const char *s, int allow_all, mbg_ref *f);
/* The name of f ("auto", "body", ..., "all"). */
const char *mbg_ref_name(mbg_ref f);

#endif
