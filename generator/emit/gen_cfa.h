/* gen_cfa.h — the constraint force algorithm: its recipe in the elimination orders of cfa_order.h,
 * the cheaper kept. */
#ifndef MBG_GEN_CFA_H
#define MBG_GEN_CFA_H

#include <stdio.h>

#include "emit/gen.h"

/* 1 when every body has an inverse inertia (the CFA is defined), else 0 with the reason. */
int mbg_gen_cfa_defined(const mbg_gen *g, char *why, size_t n);
/* cfa in --cfa-order, or in both orders keeping the cheaper; 0 or exit status. */
int mbg_gen_cfa(mbg_gen *g, mbg_gen_function *f, FILE *err);
/* The cfa rows of `mbdc stats` (text lines, their labels in a column of width characters, or
 * the JSON member "cfa": {...} with its comma). */
void mbg_gen_cfa_print(const mbg_gen *g, int json, int width, FILE *out);

#endif
