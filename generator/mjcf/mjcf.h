/* mjcf.h — MJCF import: a MuJoCo model (XML, read with libxml2 under the URDF reader's hardening)
 * as a validated model.
 *
 * What is read (docs/mjcf.md): <compiler> angle, eulerseq, autolimits, inertiafromgeom,
 * inertiagrouprange; <option gravity>; <default> classes (nested, `class`, `childclass`); the
 * <worldbody> tree: bodies (pos and every orientation form), <inertial>, <joint> (hinge, slide,
 * ball, free) and <freejoint>, geoms for mass properties when a body has no <inertial>, sites as
 * operational frames; <equality> connect and weld as loop joints; the first (or "home") <key>'s
 * qpos as the initial state. Everything else is a located error or warning (or, for the sections
 * that do not change the rigid-body dynamics, one note). Every problem is reported at its XML
 * line. */
#ifndef MBG_MJCF_H
#define MBG_MJCF_H

#include <stddef.h>

#include "model/model.h"

/* Build the model of the MJCF text[0..len) (`path` names it in messages and in the model).
 * `default_name` names a model without a `model` attribute. Returns the model, or NULL after
 * reporting errors to `d` (or when out of memory, also reported). */
mbg_model *mbg_mjcf_build(const char *path, const char *text, size_t len, const char *default_name,
                          mbg_diag *d);

#endif
