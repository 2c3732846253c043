/* bench_controller_mujoco.c — bench_controller's MuJoCo peer (bench_controller_mujoco.h): the
 * models with the connect equalities, the MJCF rewriting, the states converted, the timed MuJoCo
 * calls (bench_controller.c times and checks them).
 *
 * MuJoCo reads each robot from its URDF prepared by mujoco_prepare_urdf (mujoco_peer) but with
 * MuJoCo's own default for URDF, fusestatic="true": links on fixed joints merged into their
 * parents, as mbdc merges them — the TCP (panda_hand_tcp, through panda_link8 and panda_hand)
 * into panda_link7, each FOOT into its LOWER_LEG — MuJoCo's fastest model of the robot (the
 * unmerged one of bench_mujoco.c has 4 more bodies on each robot). So MuJoCo's TCP
 * is a point on panda_link7 and its feet points on the lower legs, both at mbdc's frame offsets
 * (panda_tcp_frames, solo_ct_frames: a body's frame is its URDF link's in both). MuJoCo combines
 * the merged links' inertias itself (mujoco_set_inertias needs every link a body); armature,
 * damping, friction loss and stiffness are zeroed, gravity is the model's. MuJoCo 2.2.2 cannot
 * add equalities to a compiled model: Solo12 is loaded, written back as MJCF (mj_saveLastXML), an
 * <equality> block of four connect constraints (lower leg, anchor the foot's offset, to the
 * world) is inserted before </mujoco> and the file reloaded, with the first load's bodies (the
 * MJCF keeps 6 digits). The connect's world point (eq_data 3..5) is set per state to the foot's
 * position in that state: the feet are held where they are. Contacts, joint limits, friction
 * loss, passive forces and actuation are disabled; the stiffest constraints MuJoCo allows: solimp
 * 0.9999 0.9999 (mjMAXIMP), solref 0.002 1 (timestep 0.001, so that refsafe's 2·timestep does not
 * raise the time constant; with the feet at rest the reference acceleration is 0 anyway).
 *
 * Built without MuJoCo (no BENCH_HAVE_MUJOCO), peer_open says so and there is no peer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_controller_mujoco.h"
#include "mb.h"
#include "panda_tcp_model.h"
#include "solo_ct_model.h"

#ifdef BENCH_HAVE_MUJOCO
#include "mujoco_model.h"

#define PNQ PANDA_TCP_NQ
#define PNV PANDA_TCP_NV
#define SNQ SOLO_CT_NQ
#define SNV SOLO_CT_NV

struct mjpeer {
  mjModel *m;
  mjData *d;
  mujoco_map map;
  int solo, n;                    /* Solo12 (1) or the Panda (0); the states' number */
  int body;                       /* Panda: the TCP frame's body (panda_link7) */
  const mb_frame *tcp;            /* Panda: the TCP frame on it (mbdc's frame data) */
  double pt[3];                   /* Panda: the TCP origin in the world, of the last call */
  int eq[SOLO_CT_NCONTACT];       /* Solo12: the connect equality of each foot */
  double *qpos, *qvel, *qfrc, *R; /* per state: nq, nv, nv, 9 (the base's rotation) */
};

/* A temporary file name (created, empty) in name[size]. */
static int temp_name(char *name, size_t size, const char *what) {
  const char *dir = getenv("TMPDIR");
  snprintf(name, size, "%s/mbdc_bench_ctl_%s_XXXXXX", dir && *dir ? dir : "/tmp", what);
  int fd = mkstemp(name);
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

static mjModel *load(const char *path, char *msg, size_t msgsize) {
  char err[1000] = "";
  mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
  if (!m) {
    for (char *c = err; *c; c++)
      if (*c == '\n') *c = ' ';
    snprintf(msg, msgsize, "MuJoCo does not load %s: %s", path, err);
  }
  return m;
}

/* The file in, with its first `find` replaced by `put` (replace) or preceded by it, at out. */
static int splice_file(const char *in, const char *out, const char *find, const char *put,
                       int replace) {
  FILE *f = fopen(in, "rb");
  char *text = f ? calloc(1, 1 << 20) : NULL;
  size_t n = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
  if (f) fclose(f);
  char *at = n && n < (1 << 20) - 1 ? strstr(text, find) : NULL;
  FILE *o = at ? fopen(out, "wb") : NULL;
  int rc = o ? 0 : -1;
  if (o) {
    fwrite(text, 1, (size_t)(at - text), o);
    fputs(put, o);
    fputs(replace ? at + strlen(find) : at, o);
    rc = fclose(o) == 0 ? 0 : -1;
  }
  free(text);
  return rc;
}

/* The MJCF MuJoCo writes for m (mj_saveLastXML), with a connect equality per foot before
 * </mujoco>: the foot's point (its frame's origin on the lower leg, mbdc's frame data) held to a
 * world point, at out. */
static int add_equalities(const mjModel *m, const char *out, char *msg, size_t msgsize) {
  char saved[512], err[1000] = "", block[2048];
  if (temp_name(saved, sizeof saved, "mjcf") != 0) return snprintf(msg, msgsize, "no tmp"), -1;
  int rc = mj_saveLastXML(saved, m, err, sizeof err) ? 0 : -1, len = 0;
  len += snprintf(block + len, sizeof block - (size_t)len, "  <equality>\n");
  for (int c = 0; c < SOLO_CT_NCONTACT; c++) {
    const mb_frame *fr = &solo_ct_frames.frame[solo_ct_contacts.contact[c].frame];
    len += snprintf(block + len, sizeof block - (size_t)len,
                    "    <connect name=\"hold_%s\" body1=\"%s\" anchor=\"%.17g %.17g %.17g\" "
                    "solref=\"0.002 1\" solimp=\"0.9999 0.9999 0.001\"/>\n",
                    solo_ct_frame_names[solo_ct_contacts.contact[c].frame],
                    solo_ct_body_names[fr->body], fr->p[0], fr->p[1], fr->p[2]);
  }
  snprintf(block + len, sizeof block - (size_t)len, "  </equality>\n");
  if (rc == 0) rc = splice_file(saved, out, "</mujoco>", block, 0);
  remove(saved);
  if (rc != 0) snprintf(msg, msgsize, "cannot write the MJCF with equalities (%s)", err);
  return rc;
}

/* Every body's placement and inertia of m as from's (same names): what the MJCF round trip
 * rounded to 6 digits. */
static void copy_bodies(mjModel *m, const mjModel *from) {
  for (int b = 1; b < m->nbody; b++) {
    int a = mj_name2id(from, mjOBJ_BODY, mj_id2name(m, mjOBJ_BODY, b));
    if (a < 0) continue;
    memcpy(m->body_pos + 3 * b, from->body_pos + 3 * a, 3 * sizeof(double));
    memcpy(m->body_quat + 4 * b, from->body_quat + 4 * a, 4 * sizeof(double));
    memcpy(m->body_ipos + 3 * b, from->body_ipos + 3 * a, 3 * sizeof(double));
    memcpy(m->body_iquat + 4 * b, from->body_iquat + 4 * a, 4 * sizeof(double));
    memcpy(m->body_inertia + 3 * b, from->body_inertia + 3 * a, 3 * sizeof(double));
    m->body_mass[b] = from->body_mass[a];
  }
}

/* The robot's URDF prepared for MuJoCo as bench_mujoco.c prepares it, but with MuJoCo's default
 * for URDF, fusestatic="true": links on fixed joints merged into their parents as mbdc merges
 * them (its fastest model: fewer bodies). Solo12 is then written as MJCF, given its equalities
 * and reloaded, with the bodies of the first load. MuJoCo combines the merged links' inertias
 * itself (no mujoco_set_inertias: its links are not all bodies). */
static mjModel *open_model(const char *urdf, int solo, char *msg, size_t msgsize) {
  char prep[512], mjcf[512];
  if (temp_name(prep, sizeof prep, "urdf") != 0) return snprintf(msg, msgsize, "no tmp"), NULL;
  mjModel *m = NULL;
  if (mujoco_prepare_urdf(urdf, prep, solo) != 0 ||
      splice_file(prep, prep, "fusestatic=\"false\"", "fusestatic=\"true\"", 1) != 0)
    snprintf(msg, msgsize, "cannot prepare %s for MuJoCo", urdf);
  else
    m = load(prep, msg, msgsize);
  remove(prep);
  if (m && solo) {
    mjModel *m0 = m;
    m = NULL;
    if (temp_name(mjcf, sizeof mjcf, "xml") == 0) {
      if (add_equalities(m0, mjcf, msg, msgsize) == 0) m = load(mjcf, msg, msgsize);
      remove(mjcf);
    }
    if (m) copy_bodies(m, m0);
    mj_deleteModel(m0);
  }
  if (!m) return NULL;
  m->opt.disableflags |=
      mjDSBL_CONTACT | mjDSBL_LIMIT | mjDSBL_FRICTIONLOSS | mjDSBL_PASSIVE | mjDSBL_ACTUATION;
  m->opt.timestep = 0.001;
  for (int k = 0; k < m->nv; k++)
    m->dof_armature[k] = 0, m->dof_damping[k] = 0, m->dof_frictionloss[k] = 0;
  for (int j = 0; j < m->njnt; j++) m->jnt_stiffness[j] = 0;
  const double *g = solo ? solo_ct_model.gravity : panda_tcp_model.gravity;
  for (int k = 0; k < 3; k++) m->opt.gravity[k] = g[k];
  return m;
}

/* The states in MuJoCo's coordinates (again after their change). */
void peer_states(mjpeer *p, const double *qs, const double *v, const double *tau) {
  const mjModel *m = p->m;
  int solo = p->solo;
  for (int s = 0; s < p->n; s++) {
    const double *q = qs + s * (solo ? SNQ : PNQ);
    double *R = p->R + 9 * s;
    mujoco_map_base_R(&p->map, q, R); /* the floating joint hangs from the world: q's own */
    mujoco_map_qpos(&p->map, q, NULL, p->qpos + s * m->nq);
    if (!solo) continue;
    mujoco_map_vel(&p->map, R, v + s * SNV, p->qvel + s * m->nv);
    mujoco_map_vel(&p->map, R, tau + s * SNV, p->qfrc + s * m->nv); /* qfrc = T tau */
  }
}

/* MuJoCo with one of the robots, its states converted. NULL with the reason in msg. */
mjpeer *peer_open(int solo, int nstates, const double *q, const double *v, const double *tau,
                  char *msg, size_t msgsize) {
  mjModel *m = open_model(solo ? BENCH_SOLO_URDF : BENCH_PANDA_URDF, solo, msg, msgsize);
  if (!m) return NULL;
  mjpeer *p = calloc(1, sizeof *p);
  p->m = m, p->solo = solo, p->n = nstates;
  int rc = solo ? mujoco_map_joints(m, SNQ, SNV, SOLO_CT_NJ, solo_ct_joint_names, solo_ct_joint_iq,
                                    solo_ct_joint_iv, &p->map, msg, msgsize)
                : mujoco_map_joints(m, PNQ, PNV, PANDA_TCP_NJ, panda_tcp_joint_names,
                                    panda_tcp_joint_iq, panda_tcp_joint_iv, &p->map, msg, msgsize);
  p->tcp = &panda_tcp_frames.frame[PANDA_TCP_FRAME_panda_hand_tcp];
  p->body = solo ? 0 : mj_name2id(m, mjOBJ_BODY, panda_tcp_body_names[p->tcp->body]);
  if (p->body < 0) rc = -1, snprintf(msg, msgsize, "MuJoCo has no body for the TCP");
  for (int c = 0; c < SOLO_CT_NCONTACT && solo; c++) {
    char name[64];
    snprintf(name, sizeof name, "hold_%s", solo_ct_frame_names[solo_ct_contacts.contact[c].frame]);
    p->eq[c] = mj_name2id(m, mjOBJ_EQUALITY, name);
    if (p->eq[c] < 0) rc = -1, snprintf(msg, msgsize, "no equality %s", name);
  }
  if (rc != 0) {
    mj_deleteModel(m), free(p);
    return NULL;
  }
  p->d = mj_makeData(m);
  mj_setConst(m, p->d); /* the constants of the inertias set (invweight0: the softness's scale) */
  p->qpos = malloc((size_t)(nstates * m->nq) * sizeof(double));
  p->qvel = malloc((size_t)(nstates * m->nv) * sizeof(double));
  p->qfrc = malloc((size_t)(nstates * m->nv) * sizeof(double));
  p->R = malloc((size_t)(nstates * 9) * sizeof(double));
  peer_states(p, q, v, tau);
  return p;
}

void peer_close(mjpeer *p) {
  if (!p) return;
  mj_deleteData(p->d), mj_deleteModel(p->m), mujoco_map_free(&p->map);
  free(p->qpos), free(p->qvel), free(p->qfrc), free(p->R), free(p);
}

/* The timed Panda call: copy q in; mj_kinematics, mj_comPos (cdof, subtree_com: mj_jac's inputs),
 * the TCP origin from its body's pose (xpos + xmat p), mj_jac there; J in MuJoCo's dof order,
 * jacp rows then jacr rows. */
void peer_tcp(mjpeer *p, int s, double *J) {
  const mjModel *m = p->m;
  mjData *d = p->d;
  memcpy(d->qpos, p->qpos + s * m->nq, (size_t)m->nq * sizeof(double));
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mju_rotVecMat(p->pt, p->tcp->p, d->xmat + 9 * p->body);
  mju_addTo3(p->pt, d->xpos + 3 * p->body);
  mj_jac(m, d, J, J + 3 * m->nv, p->pt, p->body);
}

/* The timed Solo12 call: copy q, v, τ (as qfrc_applied) and the feet's world points (eq_data
 * 3..5 of each connect) in; then mj_forward's stages without its sensor and energy calls:
 * mj_fwdPosition (kinematics, com, crb, factorM, the equality rows), mj_fwdVelocity (com
 * velocities, bias forces, reference accelerations), mj_fwdActuation, mj_fwdAcceleration
 * (qacc_smooth), mj_fwdConstraint (the default Newton solver, warm-started from the previous
 * call). q̈ in d->qacc. */
void peer_contact(mjpeer *p, const double *feet, int s) {
  mjModel *m = p->m;
  mjData *d = p->d;
  memcpy(d->qpos, p->qpos + s * m->nq, (size_t)m->nq * sizeof(double));
  memcpy(d->qvel, p->qvel + s * m->nv, (size_t)m->nv * sizeof(double));
  memcpy(d->qfrc_applied, p->qfrc + s * m->nv, (size_t)m->nv * sizeof(double));
  for (int c = 0; c < SOLO_CT_NCONTACT; c++)
    memcpy(m->eq_data + mjNEQDATA * p->eq[c] + 3, feet + 12 * s + 3 * c, 3 * sizeof(double));
  mj_fwdPosition(m, d);
  mj_fwdVelocity(m, d);
  mj_fwdActuation(m, d);
  mj_fwdAcceleration(m, d);
  mj_fwdConstraint(m, d);
}

/* MuJoCo's Panda Jacobian as ours: rows [jacr; jacp], columns mapped by joint name. */
void peer_tcp_to_mb(const mjpeer *p, const double *Jmj, double *J) {
  const mujoco_map *mp = &p->map;
  int nv = p->m->nv;
  for (int j = 0; j < mp->nj; j++)
    for (int r = 0; r < 3; r++) {
      J[r * PNV + mp->iv[j]] = Jmj[(3 + r) * nv + mp->vadr[j]];
      J[(3 + r) * PNV + mp->iv[j]] = Jmj[r * nv + mp->vadr[j]];
    }
}

void peer_acc_to_mb(const mjpeer *p, int s, const double *v, const double *qacc, double *a) {
  mujoco_unmap_acc(&p->map, p->R + 9 * s, v, qacc, a);
}

const char *peer_version(void) { return mj_versionString(); }
int peer_nefc(const mjpeer *p) { return p->d->nefc; }
int peer_nbody(const mjpeer *p) { return p ? p->m->nbody : 0; }
const double *peer_qacc(const mjpeer *p) { return p->d->qacc; }
const double *peer_qacc_smooth(const mjpeer *p) { return p->d->qacc_smooth; }
/* The TCP's pose after peer_tcp, as mbdc's: R = xmat R_frame (row-major), then the origin. */
const double *peer_tcp_pose(const mjpeer *p, double *x) {
  mju_mulMatMat(x, p->d->xmat + 9 * p->body, p->tcp->R, 3, 3, 3);
  memcpy(x + 9, p->pt, 3 * sizeof(double));
  return x;
}
#else /* without MuJoCo: no peer, the column says n/a */
mjpeer *peer_open(int solo, int nstates, const double *q, const double *v, const double *tau,
                  char *msg, size_t msgsize) {
  (void)solo, (void)nstates, (void)q, (void)v, (void)tau;
  snprintf(msg, msgsize, "built without MuJoCo (Debian package libmujoco-dev)");
  return NULL;
}
void peer_close(mjpeer *p) { (void)p; }
void peer_states(mjpeer *p, const double *q, const double *v, const double *tau) {
  (void)p, (void)q, (void)v, (void)tau;
}
void peer_tcp(mjpeer *p, int s, double *J) { (void)p, (void)s, (void)J; }
void peer_contact(mjpeer *p, const double *feet, int s) { (void)p, (void)feet, (void)s; }
void peer_tcp_to_mb(const mjpeer *p, const double *Jmj, double *J) { (void)p, (void)Jmj, (void)J; }
void peer_acc_to_mb(const mjpeer *p, int s, const double *v, const double *qacc, double *a) {
  (void)p, (void)s, (void)v, (void)qacc, (void)a;
}
const char *peer_version(void) { return "none"; }
int peer_nefc(const mjpeer *p) { return (void)p, 0; }
int peer_nbody(const mjpeer *p) { return (void)p, 0; }
const double *peer_qacc(const mjpeer *p) { return (void)p, NULL; }
const double *peer_qacc_smooth(const mjpeer *p) { return (void)p, NULL; }
const double *peer_tcp_pose(const mjpeer *p, double *x) { return (void)p, x; }
#endif
