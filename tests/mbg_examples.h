/* mbg_examples.h — every example model and robot for the tests of the generator: the .mbd files
 * of examples/ and the URDFs of examples/urdf/, the latter with --floating-base where
 * examples/urdf/floating_base.txt lists them. MBDC_SOURCE_DIR locates the sources (else "."). */
#ifndef MBG_EXAMPLES_H
#define MBG_EXAMPLES_H

/* fn(path, floating, ctx) for every example, in directory order; returns how many (fails the
 * cmocka test when a directory or the list cannot be read). */
int mbgt_each_example(void (*fn)(const char *path, int floating, void *ctx), void *ctx);

#endif
