/* mjcf_geom.c — a body's mass properties from its geoms, as MuJoCo's compiler makes them when
 * compiler/inertiafromgeom says so ("auto", the default: for a body without <inertial>; "true":
 * for every body). Every geom whose group is in compiler/inertiagrouprange counts (contype and
 * conaffinity do not matter), with its `mass`, else density (default 1000) times its volume; a
 * mass or density of 0 adds nothing. Primitive shapes are solid: sphere, capsule, cylinder,
 * ellipsoid, box, sized by `size` or by `fromto` (capsule, cylinder, box, ellipsoid: the segment
 * is the shape's z axis). A mesh (or height field) that would count is an error: mbdc reads no
 * mesh. A plane has no volume. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/mjcf_internal.h"

int mbg_mjcf_primitive(const char *type, const double size[3], double density, double mass,
                       double *volume, double *m, double I[3]) {
  double r = size[0], h = size[1], V;
  if (strcmp(type, "sphere") == 0) {
    V = 4.0 / 3 * MBG_MJCF_PI * r * r * r;
  } else if (strcmp(type, "capsule") == 0) {
    V = MBG_MJCF_PI * r * r * 2 * h + 4.0 / 3 * MBG_MJCF_PI * r * r * r;
  } else if (strcmp(type, "cylinder") == 0) {
    V = MBG_MJCF_PI * r * r * 2 * h;
  } else if (strcmp(type, "ellipsoid") == 0) {
    V = 4.0 / 3 * MBG_MJCF_PI * size[0] * size[1] * size[2];
  } else if (strcmp(type, "box") == 0) {
    V = 8 * size[0] * size[1] * size[2];
  } else {
    return 0;
  }
  double M = mass >= 0 ? mass : density * V;
  *volume = V, *m = M;
  if (strcmp(type, "sphere") == 0) {
    I[0] = I[1] = I[2] = 0.4 * M * r * r;
  } else if (strcmp(type, "capsule") == 0) {
    /* a cylinder of length H and two half-spheres, each about its own centre then moved: the
     * closed form MuJoCo uses (user_objects.cc) */
    double H = 2 * h, ms = M * 4 * r / (4 * r + 3 * H), mc = M - ms;
    I[0] = I[1] = mc * (3 * r * r + H * H) / 12 + 0.4 * ms * r * r + ms * H * (3 * r + 2 * H) / 8;
    I[2] = mc * r * r / 2 + 0.4 * ms * r * r;
  } else if (strcmp(type, "cylinder") == 0) {
    I[0] = I[1] = M * (3 * r * r + 4 * h * h) / 12;
    I[2] = M * r * r / 2;
  } else if (strcmp(type, "ellipsoid") == 0) {
    const double *s = size;
    I[0] = M * (s[1] * s[1] + s[2] * s[2]) / 5, I[1] = M * (s[0] * s[0] + s[2] * s[2]) / 5;
    I[2] = M * (s[0] * s[0] + s[1] * s[1]) / 5;
  } else { /* box: half-sizes */
    const double *s = size;
    I[0] = M * (s[1] * s[1] + s[2] * s[2]) / 3, I[1] = M * (s[0] * s[0] + s[2] * s[2]) / 3;
    I[2] = M * (s[0] * s[0] + s[1] * s[1]) / 3;
  }
  return 1;
}

/* One geom's mass, centre and inertia about it in the body frame. 1 when it counts, 0 when it
 * adds nothing, -1 after reporting. */
typedef struct geom_mass {
  double m, c[3], I[6];
} geom_mass;

static const char *const geom_types[] = {"plane", "hfield", "sphere", "capsule", "ellipsoid",
                                         "cylinder", "box", "mesh", "sdf", NULL};

/* The size of a primitive (3 numbers) and its frame, from size and fromto. */
static int geom_shape(mbg_mjcf *mj, xmlNodePtr g, int cls, const char *type, double size[3],
                      mbg_mjcf_pose *P) {
  int round = strcmp(type, "sphere") == 0 || strcmp(type, "capsule") == 0 ||
              strcmp(type, "cylinder") == 0;
  int need = strcmp(type, "sphere") == 0 ? 1 : round ? 2 : 3;
  double ft[6];
  int nft = strcmp(type, "sphere") != 0 ? mbg_mjcf_nums(mj, g, cls, "fromto", 6, 6, ft) : -1;
  if (nft == 0) return 0;
  if (nft > 0) need = round ? 1 : 2;
  int n = mbg_mjcf_nums(mj, g, cls, "size", 1, 3, size);
  if (n == 0) return 0;
  if (n < need) {
    mbg_diag_error(mj->d, mbg_mjcf_loc(mj, mbg_mjcf_get(mj, g, cls, "size"), g, "size"),
                   "a %s geom%s needs %d size number%s for its mass properties", type,
                   nft > 0 ? " with fromto" : "", need, need > 1 ? "s" : "");
    return 0;
  }
  if (nft < 0) return mbg_mjcf_read_pose(mj, g, cls, P);
  double d[3] = {ft[3] - ft[0], ft[4] - ft[1], ft[5] - ft[2]};
  double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  mbg_mjcf_pose_identity(P);
  if (!mbg_mjcf_z_to(d, P->q)) {
    mbg_diag_error(mj->d, mbg_mjcf_loc(mj, mbg_mjcf_get(mj, g, cls, "fromto"), g, "fromto"),
                   "the 'fromto' of a %s geom has two equal ends", type);
    return 0;
  }
  for (int k = 0; k < 3; k++) P->p[k] = 0.5 * (ft[k] + ft[3 + k]);
  size[round ? 1 : 2] = len / 2;
  return 1;
}

static int one_geom(mbg_mjcf *mj, xmlNodePtr g, int cls, geom_mass *out) {
  cls = mbg_mjcf_class_of(mj, g, cls);
  double group = 0, mass = -1, density = 1000, size[3] = {0, 0, 0};
  if (mbg_mjcf_nums(mj, g, cls, "group", 1, 1, &group) == 0) return -1;
  if (group < mj->group_lo || group > mj->group_hi) return 0;
  if (mbg_mjcf_nums(mj, g, cls, "mass", 1, 1, &mass) == 0 ||
      mbg_mjcf_nums(mj, g, cls, "density", 1, 1, &density) == 0)
    return -1;
  if (mass == 0 || (mass < 0 && density == 0)) return 0;
  if (mass < 0 && density < 0) {
    mbg_diag_error(mj->d, mbg_mjcf_loc(mj, mbg_mjcf_get(mj, g, cls, "density"), g, "density"),
                   "the density of this geom is negative (%g)", density);
    return -1;
  }
  int t = mbg_mjcf_word(mj, g, cls, "type", geom_types, 2);
  if (t < 0) return -1;
  const char *type = geom_types[t];
  if (t == 0) return 0; /* a plane: no volume */
  if (t == 1 || t >= 7) {
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, g, NULL),
                   "this %s geom would give its body's mass properties (compiler/inertiafromgeom), "
                   "but mbdc reads no %s: give the body an <inertial>, or the geom mass=\"0\"",
                   type, t == 1 ? "height field" : "mesh");
    return -1;
  }
  mbg_mjcf_pose P;
  double V, m, Id[3];
  if (!geom_shape(mj, g, cls, type, size, &P)) return -1;
  mbg_mjcf_primitive(type, size, density, mass, &V, &m, Id);
  if (!(m >= 0)) {
    mbg_diag_error(mj->d, mbg_urdf_loc(&mj->x, g, NULL), "this %s geom has a negative mass (%g)",
                   type, m);
    return -1;
  }
  out->m = m;
  memcpy(out->c, P.p, sizeof P.p);
  double I[6] = {Id[0], Id[1], Id[2], 0, 0, 0};
  mbg_mjcf_rotate_inertia(P.q, I);
  memcpy(out->I, I, sizeof I);
  return 1;
}

int mbg_mjcf_geom_mass(mbg_mjcf *mj, xmlNodePtr body, int cls, double *mass, double com[3],
                       double I[6]) {
  int n = 0, cap = 0, ok = 1;
  geom_mass *gm = NULL;
  *mass = 0;
  memset(com, 0, 3 * sizeof *com);
  memset(I, 0, 6 * sizeof *I);
  for (xmlNodePtr g = body->children; g; g = g->next) {
    if (!mbg_urdf_is(g, "geom")) continue;
    if (n == cap) {
      geom_mass *t = realloc(gm, (size_t)(cap = cap ? 2 * cap : 8) * sizeof *t);
      if (!t) return free(gm), mj->x.oom = 1, 0;
      gm = t;
    }
    int r = one_geom(mj, g, cls, &gm[n]);
    if (r < 0) ok = 0;
    if (r > 0) n++;
  }
  for (int k = 0; k < n; k++) {
    *mass += gm[k].m;
    for (int a = 0; a < 3; a++) com[a] += gm[k].m * gm[k].c[a];
  }
  if (*mass > 0)
    for (int a = 0; a < 3; a++) com[a] /= *mass;
  for (int k = 0; k < n; k++) { /* each about the centre of mass: parallel axes */
    double d[3] = {gm[k].c[0] - com[0], gm[k].c[1] - com[1], gm[k].c[2] - com[2]}, m = gm[k].m;
    I[0] += gm[k].I[0] + m * (d[1] * d[1] + d[2] * d[2]);
    I[1] += gm[k].I[1] + m * (d[0] * d[0] + d[2] * d[2]);
    I[2] += gm[k].I[2] + m * (d[0] * d[0] + d[1] * d[1]);
    I[3] += gm[k].I[3] - m * d[0] * d[1];
    I[4] += gm[k].I[4] - m * d[0] * d[2];
    I[5] += gm[k].I[5] - m * d[1] * d[2];
  }
  free(gm);
  return ok;
}
