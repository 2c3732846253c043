/* bench_controller_mujoco.h — bench_controller's MuJoCo peer (bench_controller_mujoco.c): the
 * Panda (bench model bench_panda_tcp) or Solo12 held on its four feet (bench_solo_contact) loaded
 * into MuJoCo, the benchmark's states converted to MuJoCo's coordinates, the timed MuJoCo calls
 * and their results converted back. Built without MuJoCo, peer_open returns NULL with the reason
 * and the rest are never called with a peer (peer_close and peer_nbody accept NULL).
 *
 * States are as bench_controller.c's: nstates of them, consecutive — the Panda's q (nq 9 each),
 * Solo12's q (nq 19), v and τ (nv 18), mbdc's coordinates (runtime/mb.h). */
#ifndef BENCH_CONTROLLER_MUJOCO_H
#define BENCH_CONTROLLER_MUJOCO_H

#include <stddef.h>

typedef struct mjpeer mjpeer; /* MuJoCo with one robot (NULL when there is none) */

/* MuJoCo with the Panda (solo 0: q only, v and tau may be NULL) or Solo12 (solo 1), its nstates
 * states converted (the arrays are read now and by peer_states only). NULL with the reason in
 * msg. */
mjpeer *peer_open(int solo, int nstates, const double *q, const double *v, const double *tau,
                  char *msg, size_t msgsize);
void peer_close(mjpeer *p); /* p may be NULL */

/* The states converted again (after a change), as peer_open's arguments. */
void peer_states(mjpeer *p, const double *q, const double *v, const double *tau);

/* The timed calls on state s. The Panda: its TCP Jacobian J (6 x nv in MuJoCo's dof order, jacp
 * rows then jacr rows). Solo12: q̈ with the feet held at feet[12 s .. 12 s + 11] (world points),
 * read with peer_qacc. */
void peer_tcp(mjpeer *p, int s, double *J);
void peer_contact(mjpeer *p, const double *feet, int s);

/* MuJoCo's Panda Jacobian as mbdc's (6 x 9, rows [ω; v]). */
void peer_tcp_to_mb(const mjpeer *p, const double *Jmj, double *J);
/* Solo12's MuJoCo acceleration qacc of state s (v: that state's v, mbdc's) as mbdc's a. */
void peer_acc_to_mb(const mjpeer *p, int s, const double *v, const double *qacc, double *a);
/* The TCP's pose after peer_tcp, as mbdc's: R (row-major), then the origin; returns x. */
const double *peer_tcp_pose(const mjpeer *p, double *x);

const char *peer_version(void);
int peer_nefc(const mjpeer *p);                  /* constraint rows of the last call */
int peer_nbody(const mjpeer *p);                 /* bodies with the world; 0 for NULL */
const double *peer_qacc(const mjpeer *p);        /* of the last peer_contact */
const double *peer_qacc_smooth(const mjpeer *p); /* of the last peer_contact, unconstrained */

#endif
