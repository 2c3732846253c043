/* urdf_internal.h — shared by the URDF importer's files (urdf*.c); not a public interface. */
#ifndef MBG_URDF_INTERNAL_H
#define MBG_URDF_INTERNAL_H

#include <libxml/tree.h>
#include <stdint.h>

#include "model/build_internal.h"
#include "urdf/urdf.h"

/* A <link> of the document. */
typedef struct mbg_urdf_link {
  xmlNodePtr node;
  const char *name; /* as written (borrowed from the document) */
  char *cname;      /* its name in the model (a C identifier), malloc'ed */
  int parent_joint; /* the joint whose child it is (index in joints), or -1 */
  int body;         /* model body index (0: the world) */
} mbg_urdf_link;

/* A <joint> of the document. */
typedef struct mbg_urdf_joint {
  xmlNodePtr node, parent_node, child_node;
  const char *name;
  char *cname;
  int typed; /* the type was understood */
  mbg_joint_type type;
  int parent, child; /* link indices, -1 when unknown */
} mbg_urdf_joint;

typedef struct mbg_urdf {
  mbg_diag *d;
  int couple_mimic; /* MBG_URDF_COUPLE_MIMIC: <mimic> joints coupled (else independent) */
  const char *text; /* the document's bytes, for locating elements */
  size_t len;
  uint32_t *lines; /* the offset of every line's start (urdf_xml.c) */
  size_t nlines;
  xmlDocPtr doc;
  int nlinks, njoints;
  mbg_urdf_link *links;
  mbg_urdf_joint *joints;
  int world;            /* index of the link named `world`, or -1 */
  int root;             /* the root link when it is not `world`, else -1 */
  mbg_names names;      /* every model name given so far, to keep them unique */
  mbg_names link_names; /* the URDF's link names, entry i = link i */
  mbg_names joint_names; /* the URDF's joint names, for duplicates */
  mbg_names suffixes;    /* base identifier -> the next '_k' to try (urdf_names.c) */
  char **suffix_text;    /* the base identifiers, owned */
  int nsuffix_text, csuffix_text;
  int oom;
} mbg_urdf;

/* urdf_xml.c — the document. */
/* Parse the text; a malformed document is reported at libxml2's line and column, a declared
 * entity, an attribute default declared in the DTD or a reference to an undeclared entity at its
 * place (docs/urdf.md, "Entities"). */
xmlDocPtr mbg_urdf_parse(mbg_urdf *u, const char *path);
/* The location of an element's start tag, or of the value of its attribute `attr` (NULL: the
 * tag), found in the text from libxml2's line number. */
mbg_loc mbg_urdf_loc(const mbg_urdf *u, xmlNodePtr n, const char *attr);
/* Line and column of position p of the text, underlining `width` bytes (0: none). */
mbg_loc mbg_urdf_loc_at(const mbg_urdf *u, const char *p, size_t width);
/* An attribute's value (borrowed), or NULL when absent. */
const char *mbg_urdf_attr(xmlNodePtr n, const char *name);
/* A required attribute: its value, or NULL after reporting that it is missing. */
const char *mbg_urdf_need_attr(mbg_urdf *u, xmlNodePtr n, const char *name);
/* The first child element named `name` (no namespace), or NULL. */
xmlNodePtr mbg_urdf_child(xmlNodePtr n, const char *name);
/* Read exactly `count` finite numbers from attribute `attr` of `n` into out. Returns 1, 0 after
 * reporting a problem, -1 when the attribute is absent (out untouched). */
int mbg_urdf_numbers(mbg_urdf *u, xmlNodePtr n, const char *attr, int count, double *out);
/* 1 if the element is an un-namespaced element called `name`. */
int mbg_urdf_is(xmlNodePtr n, const char *name);

/* urdf_names.c — the model's names. */
/* The model name of a URDF name: a C identifier, unique among the names given so far (a warning
 * at `loc` when it differs from the URDF's). `what` is "link", "joint" or "robot". NULL when out
 * of memory. */
char *mbg_urdf_c_name(mbg_urdf *u, const char *name, const char *what, mbg_loc loc);

/* urdf_tree.c — the links' tree. */
/* Resolve parents and children, find the root, reject two parents, cycles and unconnected links.
 * Returns 1 when the links form one tree. */
int mbg_urdf_tree(mbg_urdf *u);

#endif
