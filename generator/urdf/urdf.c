/* urdf.c — a URDF robot as a validated model (urdf.h): links become bodies, joints joints.
 *
 * Order of work: (1) the document (urdf_xml.c); (2) every <link> and <joint> of <robot> is
 * collected with its name and type; (3) the links must form one tree (urdf_tree.c); (4) names
 * become C identifiers (urdf_names.c), bodies and joints are filled in document order, the root
 * joint first; (5) the model builder's own checks: inertias, and masses on every moving joint.
 * Errors are located at the XML element (or attribute) and counted; the importer keeps going. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/xform.h"
#include "urdf/urdf_internal.h"

static const struct {
  const char *name;
  mbg_joint_type type;
} urdf_types[] = {
    {"revolute", MBG_JOINT_REVOLUTE},   {"continuous", MBG_JOINT_CONTINUOUS},
    {"prismatic", MBG_JOINT_PRISMATIC}, {"fixed", MBG_JOINT_FIXED},
    {"floating", MBG_JOINT_FLOATING},   {"planar", MBG_JOINT_PLANAR}, /* axis: the normal */
};

/* ------------------------------------------------------------------ links and joints, named */

static void read_type(mbg_urdf *u, mbg_urdf_joint *j) {
  const char *t = mbg_urdf_need_attr(u, j->node, "type");
  if (!t) return;
  for (size_t k = 0; k < sizeof urdf_types / sizeof *urdf_types; k++)
    if (strcmp(t, urdf_types[k].name) == 0) {
      j->type = urdf_types[k].type;
      j->typed = 1;
      return;
    }
  mbg_loc loc = mbg_urdf_loc(u, j->node, "type");
  mbg_diag_error(u->d, loc,
                 "joint '%s' has the unknown type '%.40s'; expected revolute, "
                 "continuous, prismatic, fixed, floating or planar",
                 j->name, t);
}

static void collect_joint(mbg_urdf *u, xmlNodePtr n) {
  mbg_urdf_joint *j = &u->joints[u->njoints++];
  memset(j, 0, sizeof *j);
  j->node = n;
  j->parent = j->child = -1;
  j->name = mbg_urdf_need_attr(u, n, "name");
  if (!j->name) j->name = "";
  read_type(u, j);
  j->parent_node = mbg_urdf_child(n, "parent");
  j->child_node = mbg_urdf_child(n, "child");
  if (!j->parent_node || !j->child_node)
    mbg_diag_error(u->d, mbg_urdf_loc(u, n, NULL), "joint '%s' needs a <%s link=\"...\"/>", j->name,
                   j->parent_node ? "child" : "parent");
  if (!*j->name) return;
  int e = mbg_names_add(&u->joint_names, j->name, MBG_NAME_JOINT, (mbg_loc){0, 0, 0});
  if (e == INT_MIN) {
    u->oom = 1;
  } else if (e < 0) {
    mbg_diag_error(u->d, mbg_urdf_loc(u, n, "name"), "joint '%s' is defined twice", j->name);
    const mbg_urdf_joint *first = &u->joints[u->joint_names.entry[-e - 1].index];
    mbg_diag_note(u->d, mbg_urdf_loc(u, first->node, "name"), "first defined here");
  } else {
    u->joint_names.entry[e].index = u->njoints - 1;
  }
}

static void collect_link(mbg_urdf *u, xmlNodePtr n) {
  mbg_urdf_link *l = &u->links[u->nlinks];
  memset(l, 0, sizeof *l);
  l->node = n;
  l->parent_joint = -1;
  l->name = mbg_urdf_need_attr(u, n, "name");
  if (!l->name) return; /* not collected: nothing can refer to it */
  int e = mbg_names_add(&u->link_names, l->name, MBG_NAME_BODY, mbg_urdf_loc(u, n, "name"));
  if (e == INT_MIN) {
    u->oom = 1;
  } else if (e < 0) {
    mbg_diag_error(u->d, mbg_urdf_loc(u, n, "name"), "link '%s' is defined twice", l->name);
    mbg_diag_note(u->d, u->link_names.entry[-e - 1].loc, "first defined here");
  } else {
    if (strcmp(l->name, "world") == 0) u->world = u->nlinks;
    u->nlinks++;
  }
}

/* Every <link> and <joint> child of <robot>; anything else is not ours to read. */
static int collect(mbg_urdf *u, xmlNodePtr robot) {
  int nl = 0, nj = 0, errors = u->d->errors;
  for (xmlNodePtr c = robot->children; c; c = c->next) {
    nl += mbg_urdf_is(c, "link");
    nj += mbg_urdf_is(c, "joint");
  }
  u->links = calloc((size_t)nl + 1, sizeof *u->links);
  u->joints = calloc((size_t)nj + 1, sizeof *u->joints);
  if (!u->links || !u->joints) return u->oom = 1, 0;
  for (xmlNodePtr c = robot->children; c && !u->oom; c = c->next) {
    if (mbg_urdf_is(c, "link"))
      collect_link(u, c);
    else if (mbg_urdf_is(c, "joint"))
      collect_joint(u, c);
  }
  if (nl == 0 && u->d->errors == errors)
    mbg_diag_error(u->d, mbg_urdf_loc(u, robot, NULL), "the robot has no <link>");
  return u->d->errors == errors && !u->oom;
}

/* ------------------------------------------------------------------------ bodies and joints */

/* The frame of an <origin> child of n (identity when absent). */
static void read_origin(mbg_urdf *u, xmlNodePtr n, double xyz[3], double rpy[3]) {
  xmlNodePtr o = mbg_urdf_child(n, "origin");
  if (!o) return;
  mbg_urdf_numbers(u, o, "xyz", 3, xyz);
  mbg_urdf_numbers(u, o, "rpy", 3, rpy);
}

/* A number that must be there: attribute `attr` of <el>, the child of n. */
static int need_number(mbg_urdf *u, xmlNodePtr n, const char *el, const char *attr, double *v) {
  xmlNodePtr c = mbg_urdf_child(n, el);
  if (!c) {
    mbg_diag_error(u->d, mbg_urdf_loc(u, n, NULL), "<%s> needs a <%s>", (const char *)n->name, el);
    return 0;
  }
  int r = mbg_urdf_numbers(u, c, attr, 1, v);
  if (r < 0)
    mbg_diag_error(u->d, mbg_urdf_loc(u, c, NULL), "<%s> needs the attribute '%s'", el, attr);
  return r == 1;
}

/* I' = R I Rᵀ: an inertia given in the inertial frame (rotated by rpy from the link frame) in
 * link axes. E of the transform is Rᵀ. */
static void rotate_inertia(const double rpy[3], double I[6]) {
  if (rpy[0] == 0.0 && rpy[1] == 0.0 && rpy[2] == 0.0) return; /* exactly as written */
  mbg_xform X;
  double zero[3] = {0, 0, 0};
  mbg_xform_from_xyz_rpy(zero, rpy, &X);
  double A[9] = {I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2]}, T[9], B[9];
  for (int i = 0; i < 3; i++) /* T = A E, B = Eᵀ T */
    for (int k = 0; k < 3; k++)
      T[3 * i + k] = A[3 * i] * X.E[k] + A[3 * i + 1] * X.E[3 + k] + A[3 * i + 2] * X.E[6 + k];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      B[3 * i + k] = X.E[i] * T[k] + X.E[3 + i] * T[3 + k] + X.E[6 + i] * T[6 + k];
  I[0] = B[0], I[1] = B[4], I[2] = B[8];
  I[3] = 0.5 * (B[1] + B[3]), I[4] = 0.5 * (B[2] + B[6]), I[5] = 0.5 * (B[5] + B[7]);
}

/* A link's <inertial>: mass, centre of mass and inertia tensor (URDF's ixx ixy ixz iyy iyz izz,
 * about the centre of mass in the inertial frame) in the body's conventions. */
static void read_inertial(mbg_urdf *u, const mbg_urdf_link *l, mbg_body *b) {
  xmlNodePtr in = mbg_urdf_child(l->node, "inertial");
  if (!in) return;
  int errors = u->d->errors;
  double rpy[3] = {0, 0, 0}, I[6] = {0, 0, 0, 0, 0, 0};
  read_origin(u, in, b->com, rpy);
  if (need_number(u, in, "mass", "value", &b->mass) && b->mass < 0)
    mbg_diag_error(u->d, mbg_urdf_loc(u, mbg_urdf_child(in, "mass"), "value"),
                   "the mass of link '%s' is negative (%g)", l->name, b->mass);
  xmlNodePtr t = mbg_urdf_child(in, "inertia");
  static const char *const attr[6] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};
  if (!t) mbg_diag_error(u->d, mbg_urdf_loc(u, in, NULL), "<inertial> needs an <inertia>");
  for (int k = 0; t && k < 6; k++)
    if (mbg_urdf_numbers(u, t, attr[k], 1, &I[k]) < 0)
      mbg_diag_error(u->d, mbg_urdf_loc(u, t, NULL), "<inertia> needs the attribute '%s'", attr[k]);
  if (u->d->errors != errors) return;
  char whose[96];
  snprintf(whose, sizeof whose, "link '%.63s'", l->name);
  mbg_builder checker = {.d = u->d};
  mbg_check_inertia(&checker, I, b->mass, mbg_urdf_loc(u, t, NULL), whose);
  rotate_inertia(rpy, I);
  memcpy(b->inertia, I, sizeof I);
}

/* An <axis>: URDF's default is 1 0 0; zero is an error, other lengths are normalized. */
static void read_axis(mbg_urdf *u, const mbg_urdf_joint *uj, mbg_joint *j) {
  double a[3] = {1, 0, 0};
  xmlNodePtr n = mbg_urdf_child(uj->node, "axis");
  if (n && mbg_urdf_numbers(u, n, "xyz", 3, a) == 0) return;
  double len = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (!(len > 1e-12) || !isfinite(len)) {
    mbg_diag_error(u->d, mbg_urdf_loc(u, n, "xyz"),
                   "the axis of joint '%s' must be a non-zero "
                   "vector",
                   uj->name);
    return;
  }
  if (fabs(len - 1.0) > 1e-3)
    mbg_diag_warning(u->d, mbg_urdf_loc(u, n, "xyz"),
                     "the axis of joint '%s' has length %g; it "
                     "is normalized",
                     uj->name, len);
  mbg_axis_normalize(a);
  for (int k = 0; k < 3; k++) j->axis[k] = a[k];
}

/* An optional attribute: a finite number ≥ 0 into *v (left alone when absent); an error at it
 * otherwise. */
static void nonneg_attr(mbg_urdf *u, xmlNodePtr n, const char *attr, const char *joint, double *v) {
  double x;
  if (!mbg_urdf_attr(n, attr) || mbg_urdf_numbers(u, n, attr, 1, &x) < 0) return;
  if (!(x >= 0 && isfinite(x))) {
    mbg_diag_error(u->d, mbg_urdf_loc(u, n, attr), "the %s of joint '%s' must be zero or positive "
                   "(it is %g)", attr, joint, x);
    return;
  }
  *v = x;
}

/* <limit lower upper effort velocity> and <dynamics damping friction> (docs/urdf.md): the position
 * range of a revolute or prismatic joint (lower < upper; equal bounds, URDF's default 0 0, give
 * none), the effort and velocity limits, the viscous damping and Coulomb friction. */
static void read_limits(mbg_urdf *u, const mbg_urdf_joint *uj, mbg_joint *j) {
  xmlNodePtr lim = mbg_urdf_child(uj->node, "limit"), dyn = mbg_urdf_child(uj->node, "dynamics");
  if (lim && mbg_joint_type_nv(j->type) == 1) {
    double lo = 0, hi = 0;
    if (mbg_urdf_attr(lim, "lower")) mbg_urdf_numbers(u, lim, "lower", 1, &lo);
    if (mbg_urdf_attr(lim, "upper")) mbg_urdf_numbers(u, lim, "upper", 1, &hi);
    if (j->type != MBG_JOINT_CONTINUOUS && isfinite(lo) && isfinite(hi) && lo < hi)
      j->has_range = 1, j->lower = lo, j->upper = hi;
    else if (j->type != MBG_JOINT_CONTINUOUS && lo > hi)
      mbg_diag_error(u->d, mbg_urdf_loc(u, lim, "lower"), "the limits of joint '%s' have lower "
                     "%g above upper %g", uj->name, lo, hi);
    nonneg_attr(u, lim, "effort", uj->name, &j->effort_limit);
    nonneg_attr(u, lim, "velocity", uj->name, &j->velocity_limit);
  }
  if (dyn && j->type != MBG_JOINT_FIXED) {
    nonneg_attr(u, dyn, "damping", uj->name, &j->damping);
    nonneg_attr(u, dyn, "friction", uj->name, &j->friction);
  }
}

static void fill_joint(mbg_urdf *u, const mbg_urdf_joint *uj, mbg_joint *j) {
  j->type = uj->type;
  j->parent = u->links[uj->parent].body;
  j->child = u->links[uj->child].body;
  j->parent_loc = mbg_urdf_loc(u, uj->parent_node, "link");
  j->child_loc = mbg_urdf_loc(u, uj->child_node, "link");
  read_origin(u, uj->node, j->xyz, j->rpy);
  if (mbg_joint_type_has_axis(j->type)) read_axis(u, uj, j);
  read_limits(u, uj, j);
  xmlNodePtr mimic = mbg_urdf_child(uj->node, "mimic");
  if (mimic) {
    const char *of = mbg_urdf_attr(mimic, "joint");
    if (!of || mbg_names_find(&u->joint_names, of) < 0 || strcmp(of, uj->name) == 0) {
      /* the multiplier and offset would have nothing to refer to */
      mbg_diag_error(u->d, mbg_urdf_loc(u, mimic, of ? "joint" : NULL),
                     !of ? "the <mimic> of joint '%s' names no joint (joint=\"...\")"
                     : strcmp(of, uj->name) == 0 ? "joint '%s' mimics itself"
                                                 : "joint '%s' mimics joint '%.63s', which is "
                                                   "not a joint of this robot",
                     uj->name, of ? of : "");
      return;
    }
    if (u->couple_mimic) {
      /* a coupled joint: the source's model index (the root joint, when added, comes first) */
      j->mimic = u->joint_names.entry[mbg_names_find(&u->joint_names, of)].index + 1 +
                 (u->root >= 0);
      j->mimic_mult = 1, j->mimic_off = 0;
      j->mimic_loc = mbg_urdf_loc(u, mimic, NULL);
      if (mbg_urdf_attr(mimic, "multiplier"))
        mbg_urdf_numbers(u, mimic, "multiplier", 1, &j->mimic_mult);
      if (mbg_urdf_attr(mimic, "offset")) mbg_urdf_numbers(u, mimic, "offset", 1, &j->mimic_off);
      if (!(j->mimic_mult != 0) || !isfinite(j->mimic_mult) || !isfinite(j->mimic_off))
        mbg_diag_error(u->d, j->mimic_loc, "the <mimic> of joint '%s' needs a finite, nonzero "
                                           "multiplier", uj->name);
      return;
    }
    mbg_diag_warning(u->d, mbg_urdf_loc(u, mimic, NULL),
                     "joint '%s' mimics joint '%.63s'; it is "
                     "imported as an independent joint with its own coordinate: pass "
                     "--couple-mimic to make it follow joint '%.63s' (the multiplier times its "
                     "coordinate plus the offset), or make the joint fixed in the URDF",
                     uj->name, of ? of : "?", of ? of : "?");
  }
}

/* The joint from the world to the root link: fixed, or floating with --floating-base. */
static void add_root_joint(mbg_urdf *u, mbg_model *m, int floating_base) {
  const mbg_urdf_link *root = &u->links[u->root];
  mbg_loc loc = mbg_urdf_loc(u, root->node, "name");
  char *name = mbg_urdf_c_name(u, "root_joint", "joint", loc);
  int j = name ? mbg_model_add_joint(m, name, loc) : -1;
  free(name);
  if (j < 0) {
    u->oom = 1;
    return;
  }
  m->joints[j].type = floating_base ? MBG_JOINT_FLOATING : MBG_JOINT_FIXED;
  m->joints[j].parent = 0;
  m->joints[j].child = root->body;
  m->joints[j].parent_loc = m->joints[j].child_loc = loc;
}

static void build_bodies(mbg_urdf *u, mbg_model *m) {
  for (int i = 0; i < u->nlinks && !u->oom; i++) {
    mbg_urdf_link *l = &u->links[i];
    mbg_loc loc = mbg_urdf_loc(u, l->node, "name");
    l->cname = mbg_urdf_c_name(u, l->name, "link", loc);
    if (!l->cname) return;
    if (i == u->world) {
      if (mbg_urdf_child(l->node, "inertial"))
        mbg_diag_warning(u->d, mbg_urdf_loc(u, mbg_urdf_child(l->node, "inertial"), NULL),
                         "the <inertial> of link 'world' is ignored: the world does not move");
      continue;
    }
    l->body = mbg_model_add_body(m, l->cname, loc);
    if (l->body < 0) {
      u->oom = 1;
      return;
    }
    read_inertial(u, l, &m->bodies[l->body]);
  }
}

static void build_joints(mbg_urdf *u, mbg_model *m, int floating_base) {
  for (int k = 0; k < u->njoints && !u->oom; k++)
    if (!(u->joints[k].cname = mbg_urdf_c_name(u, u->joints[k].name, "joint",
                                               mbg_urdf_loc(u, u->joints[k].node, "name"))))
      return;
  if (u->root >= 0) add_root_joint(u, m, floating_base);
  for (int k = 0; k < u->njoints && !u->oom; k++) {
    const mbg_urdf_joint *uj = &u->joints[k];
    int j = mbg_model_add_joint(m, uj->cname, mbg_urdf_loc(u, uj->node, "name"));
    if (j < 0) {
      u->oom = 1;
      return;
    }
    fill_joint(u, uj, &m->joints[j]);
  }
}

/* ------------------------------------------------------------------------------ the robot */

static mbg_model *build(mbg_urdf *u, const char *path, const char *default_name,
                        int floating_base) {
  xmlNodePtr robot = xmlDocGetRootElement(u->doc);
  if (!mbg_urdf_is(robot, "robot")) {
    mbg_diag_error(u->d, robot ? mbg_urdf_loc(u, robot, NULL) : (mbg_loc){0, 0, 0},
                   "the document's root element is <%s>, not <robot>: this is not a URDF",
                   robot ? (const char *)robot->name : "");
    return NULL;
  }
  const char *rname = mbg_urdf_attr(robot, "name");
  mbg_loc name_loc = mbg_urdf_loc(u, robot, rname ? "name" : NULL);
  char *name = rname && *rname ? mbg_urdf_c_name(u, rname, "robot", name_loc) : NULL;
  mbg_model *m = mbg_model_new(name ? name : default_name, path);
  free(name);
  if (!m) return u->oom = 1, NULL;
  m->name_loc = name_loc;
  /* After errors in single elements (a type, a missing attribute) the tree is still checked and
   * the links read, so that one run reports them all; the model is dropped at the end. */
  if (!collect(u, robot) && (u->oom || u->nlinks == 0)) return m;
  if (!mbg_urdf_tree(u)) return m;
  if (floating_base && u->world >= 0) {
    mbg_diag_error(u->d, mbg_urdf_loc(u, u->links[u->world].node, "name"),
                   "--floating-base gives the root link a floating joint, but this robot is "
                   "already attached to link 'world'; use a URDF without it, or a 'floating' "
                   "joint from 'world'");
    return m;
  }
  int errors = u->d->errors;
  build_bodies(u, m);
  build_joints(u, m, floating_base);
  if (!u->oom && u->d->errors == errors && u->couple_mimic) mbg_check_mimic(m, u->d);
  mbg_builder checker = {.d = u->d, .m = m};
  if (!u->oom && u->d->errors == errors) mbg_check_tree(&checker, errors);
  u->oom |= checker.oom;
  if (!floating_base && u->root >= 0 && u->d->errors == 0 && !u->oom) {
    /* no 'world' link: the root is assumed fixed, as an arm's is; a legged robot or a
     * spacecraft is not, so the assumption is said (a note, not a warning: it is the normal
     * case for an arm), once the robot is otherwise sound, not among the errors of a broken one */
    const mbg_urdf_link *root = &u->links[u->root];
    mbg_diag_note(u->d, mbg_urdf_loc(u, root->node, "name"),
                  "the robot has no 'world' link: its root link '%.63s' is assumed fixed to the "
                  "world (pass --floating-base if it moves freely: a legged robot, a humanoid, a "
                  "spacecraft)", root->name);
  }
  return m;
}

mbg_model *mbg_urdf_build(const char *path, const char *text, size_t len, const char *default_name,
                          int flags, mbg_diag *d) {
  mbg_urdf u;
  memset(&u, 0, sizeof u);
  u.d = d;
  u.couple_mimic = (flags & MBG_URDF_COUPLE_MIMIC) != 0;
  int floating_base = (flags & MBG_URDF_FLOATING) != 0;
  u.text = text;
  u.len = len;
  u.world = u.root = -1;
  int errors = d->errors;
  mbg_model *m = NULL;
  if ((u.doc = mbg_urdf_parse(&u, path))) m = build(&u, path, default_name, floating_base);
  if (u.oom) mbg_diag_error(d, (mbg_loc){0, 0, 0}, "out of memory");
  for (int i = 0; i < u.nlinks; i++) free(u.links[i].cname);
  for (int k = 0; k < u.njoints; k++) free(u.joints[k].cname);
  free(u.links);
  free(u.joints);
  mbg_names_free(&u.names);
  mbg_names_free(&u.link_names);
  mbg_names_free(&u.joint_names);
  mbg_names_free(&u.suffixes);
  for (int k = 0; k < u.nsuffix_text; k++) free(u.suffix_text[k]);
  free(u.suffix_text);
  free(u.lines);
  xmlFreeDoc(u.doc);
  if (d->errors > errors) {
    mbg_model_free(m);
    m = NULL;
  }
  return m;
}
