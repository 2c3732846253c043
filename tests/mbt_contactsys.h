/* mbt_contactsys.h — what the contact tests share (test_contact.c, test_contact_id.c): a robot of
 * the source tree (mbt_robot) with its frames, workspace and both contact scratches, frame lookup
 * by name, seeded random states, the packed active rows of Jc and the motion residual.
 * test_frames.c uses the robot with its frames. */
#ifndef MBT_CONTACTSYS_H
#define MBT_CONTACTSYS_H

#include <stdint.h>

#include "mbt_robot.h"
#include "topology/topology.h"

/* The largest nq (and nv) of a model opened here, and the most contact rows of the scratches. */
enum { MBT_CSYS_MAXV = 32, MBT_CSYS_MAXR = 24 };

typedef struct mbt_csys {
  mbt_robot r;     /* r.rt.model: the runtime model; r.t: the frames' names */
  mbg_rtframes rf; /* rf.frames: the model's frames */
  mb_workspace ws;
  void *wbuf;
  double *fdscr, *idscr; /* mb_contact_fd's and mb_contact_id's scratch, for MAXR rows */
} mbt_csys;

/* rel under MBDC_SOURCE_DIR (floating: --floating-base), loaded quietly; a test failure if it
 * cannot be read or has nq > MBT_CSYS_MAXV. */
void mbt_csys_open(mbt_csys *s, const char *rel, int floating);
/* Frees what mbt_csys_open made. */
void mbt_csys_close(mbt_csys *s);

/* The index of the frame called name (a test failure if there is none). */
int mbt_csys_frame(const mbt_csys *s, const char *name);
/* The index of the first frame on a moving body (a test failure if there is none). */
int mbt_csys_body_frame(const mbt_csys *s);

/* Uniform in [lo, hi) from a 64-bit LCG state (*seed advanced). */
double mbt_csys_urand(uint64_t *seed, double lo, double hi);

/* q = neutral ⊕ a random velocity in ±2 (quaternions stay unit), v in ±1, τ in ±5 but 0 on the
 * first nu coordinates (a floating base's; none drawn for them), drawn coordinate by coordinate. */
void mbt_csys_state(const mb_model *M, uint64_t *seed, int nu, double *q, double *v, double *tau);

/* The active rows of Jc (active NULL: all), packed: J [na × nv], b = J̇c v [na] (only if v is not
 * NULL), and the row → entry-of-force map. Returns na. */
int mbt_csys_rows(mbt_csys *s, const mb_contacts *C, const int *active, const double *q,
                  const double *v, double *J, double *b, int *entry);

/* The worst relative residual of the equations of motion, M q̈ + h − τ − Jcᵀ f (M from mb_crba,
 * h from mb_nle, on the active rows), against Σ |M q̈| + |h| + |τ| + Σ |Jᵀ f| row by row: the
 * largest of it and *em into *em. */
void mbt_csys_motion(mbt_csys *s, const mb_contacts *C, const int *active, const double *q,
                     const double *v, const double *qdd, const double *tau, const double *f,
                     double *em);

/* max_k |a_k − b_k| / max(max_k |b_k|, 1e-300). */
double mbt_csys_rel_diff(const double *a, const double *b, int n);

/* 1 if every x[k] is still the sentinel 12345 (nothing was written). */
int mbt_csys_untouched(const double *x, int n);

#endif
