/* load.h — the front end in one call: a model file of either kind (.mbd or URDF) read, parsed and
 * checked into a validated model (model/model.h), with every problem reported as a diagnostic. */
#ifndef MBG_LOAD_H
#define MBG_LOAD_H

#include <stdio.h>

#include "model/model.h"

/* How a model file is read. A file whose name ends in .urdf (any case) is a URDF, read by
 * urdf/urdf.h; one ending in .xml (any case) an MJCF model, read by mjcf/mjcf.h; any other is a
 * .mbd. */
typedef struct mbg_load_opts {
  int floating_base; /* URDF: the root link gets a floating joint to the world (else fixed) */
  int couple_mimic;  /* URDF: a <mimic> joint is a coupled joint (else independent, a warning) */
  int quiet;         /* -q: warnings counted, not printed (base/diag.h) */
} mbg_load_opts;
int mbg_is_urdf(const char *path);
int mbg_is_mjcf(const char *path);

/* Read and check a model file of either kind (o may be NULL). On failure returns NULL and the
 * reasons went to `out` as diagnostics. */
mbg_model *mbg_load(const char *path, const mbg_load_opts *o, FILE *out, int *errors,
                    int *warnings);
/* The same from text in memory; --floating-base on a .mbd is an error (a .mbd says
 * `joint NAME floating world -> BODY;`). */
mbg_model *mbg_model_from_source(const char *path, const char *text, size_t len,
                                 const mbg_load_opts *o, FILE *out, int *errors, int *warnings);

/* A .mbd file, and a .mbd text in memory (`path` names it in messages). */
mbg_model *mbg_load_mbd(const char *path, FILE *out, int *errors, int *warnings);
mbg_model *mbg_model_from_text(const char *path, const char *text, size_t len, FILE *out,
                               int *errors, int *warnings);

/* The model name implied by a file name: its base name without extension, as a C identifier
 * ('arm-v2.mbd' -> arm_v2, a leading digit gets a '_'). */
void mbg_default_model_name(const char *path, char *name, size_t size);

#endif
