/* urdf.h — URDF import: a robot description (XML, read with libxml2) as a validated model.
 *
 * What is read (docs/urdf.md): <robot name>, every <link> with its <inertial> (origin xyz rpy,
 * mass, the full inertia tensor), every <joint> of type revolute, continuous, prismatic, fixed or
 * floating with its <origin>, <axis> (URDF's default 1 0 0), <parent> and <child>. Everything
 * else (visual, collision, material, limit, dynamics, transmission, gazebo, unknown elements) is
 * ignored; a <mimic> joint becomes an independent joint, with a warning (a coupled one with
 * MBG_URDF_COUPLE_MIMIC); a planar joint is an
 * error. Names become C identifiers deterministically (a warning says so when one changes). A
 * link named `world` is the world; otherwise the root link hangs from the world by a joint named
 * `root_joint`, fixed, or floating when asked. Every problem is reported at its XML line. */
#ifndef MBG_URDF_H
#define MBG_URDF_H

#include <stddef.h>

#include "model/model.h"

/* Build the model of the URDF text[0..len) (`path` names it in messages and in the model).
 * `default_name` names a robot without a name; flags: MBG_URDF_FLOATING gives the root link a
 * floating joint to the world instead of a fixed one, MBG_URDF_COUPLE_MIMIC makes a <mimic>
 * joint a coupled joint (docs/dsl.md "Coupled joints": q = multiplier q_source + offset, no
 * coordinate of its own) instead of an independent one with a warning. Returns the model, or
 * NULL after reporting errors to `d` (or when out of memory, also reported). */
enum { MBG_URDF_FLOATING = 1, MBG_URDF_COUPLE_MIMIC = 2 };
mbg_model *mbg_urdf_build(const char *path, const char *text, size_t len, const char *default_name,
                          int flags, mbg_diag *d);

#endif
