/* mbg_randmodel.h — seeded random generator models for the tests of the recipes: trees of every
 * joint type (revolute, continuous, prismatic, helical, spherical, fixed; a floating root on
 * request), generic and signed coordinate axes, random placements and physically consistent
 * inertias. Needs mb_randtree.c (the generator) and mbg_testmodel.c. */
#ifndef MBG_RANDMODEL_H
#define MBG_RANDMODEL_H

#include "mb_randtree.h"
#include "model/model.h"

/* Tree shapes: the parent of body k among 0..k-1 at random, k-1 (a chain), among the first two
 * bodies (bushy: nodes with many children) or k-1 or k-2 (deep). */
enum { MBGT_SHAPE_RANDOM, MBGT_SHAPE_CHAIN, MBGT_SHAPE_BUSHY, MBGT_SHAPE_DEEP };

/* n bodies of the given shape from g (fails the cmocka test if out of memory). */
mbg_model *mbgt_random_model(mbt_rng *g, int n, int shape, int floating_root);
/* The same with every joint type, planar and cylindrical included (a different model per seed). */
mbg_model *mbgt_random_model_all(mbt_rng *g, int n, int shape, int floating_root);

#endif
