/* mbt_robot.h — a robot of the source tree (examples/...) read by the generator's loader into its
 * runtime model (fixed joints merged), for the runtime tests that need real robots. */
#ifndef MBT_ROBOT_H
#define MBT_ROBOT_H

#include "load/load.h"
#include "topology/rtmodel.h"

typedef struct mbt_robot {
  mbg_model *m;
  mbg_topology *t;
  mbg_rtmodel rt; /* rt.model: the runtime model */
} mbt_robot;

/* rel under MBDC_SOURCE_DIR (a .mbd or a .urdf; floating: --floating-base); a test failure if it
 * cannot be read. */
void mbt_robot_open(mbt_robot *r, const char *rel, int floating);
void mbt_robot_close(mbt_robot *r);

#endif
