-- header.lua — <prefix>_dynamics.h: sizes, name tables and the generated functions.
local common = import "c/common"
local project = import "c/project"
local rcr = import "c/rcr"
local batch = import "c/batch"
local ident = import "c/identification"

-- where a function with the choice of frames computed (f.frame, --frame; docs/frames.md)
local FRAMES = {
  body = "body-fixed frames at the joints",
  joint = "world-aligned frames at the joints",
  com = "world-aligned frames at the centres of mass",
  world = "world-aligned frames at the world's origin",
}

return function(d)
  local b = common.buffer()
  local P, file = d.PREFIX, d.prefix .. "_dynamics.h"
  common.banner(b, d, file, "the dynamics of model '" .. d.prefix .. "'.")
  b("")
  b("/* Conventions (\"Pinocchio:\" marks each place where Pinocchio's differ):")
  b(" * - q and v follow body numbering, parents before children (", d.prefix, "_joint_iq,")
  b(" *   ", d.prefix, "_joint_iv and the ", P, "_IQ_/", P, "_IV_ macros). Pinocchio: its own joint")
  b(" *   order, which may differ; match joints by name.")
  b(" * - A floating joint has q = [x y z qx qy qz qw] (child origin in parent coordinates, a")
  b(" *   quaternion rotating child to parent coordinates, w last), v = [linear; angular] in the")
  b(" *   child frame and tau = [force; torque]; a spherical joint has a quaternion in q and the")
  b(" *   child-frame angular velocity in v (as Pinocchio's free-flyer and spherical joints).")
  b(" * - Matrices are ", P, "_NV x ", P, "_NV, row-major, full symmetric. Pinocchio: Eigen matrices")
  b(" *   are column-major, and its crba and computeMinverse fill the upper triangle only.")
  b(" * - Per-body arrays have ", P, "_NB + 1 entries indexed by body number (", d.prefix,
    "_body_names),")
  b(" *   entry 0 the world. A body's frame is the frame of the joint that moves it, after the")
  b(" *   motion (a URDF link's frame), as Pinocchio's joint frames.")
  b(" * - Wrenches are [torque; force], the moment first. Pinocchio: its Force is [linear; angular]:")
  b(" *   swap the two halves. f_ext holds one wrench per body, acting on the body at its origin in")
  b(" *   its frame (entry 0 ignored), as Pinocchio's fext in the joint frames; joint wrench i is")
  b(" *   the one body i's parent exerts on it through its joint, at the body's origin in its frame,")
  b(" *   as Pinocchio's data.f[i] after rnea.")
  b(" * - A pose is R (row-major, body to world) then the body origin in world coordinates (12")
  b(" *   numbers): Pinocchio's oMi[i].rotation() and .translation().")
  b(" * - Operational frames (", P, "_FRAME_<name>) are every body's frame and the model's frames;")
  b(" *   a frame Jacobian is 6 x ", P, "_NV row-major with rows [omega; v of the frame's origin], in")
  b(" *   the frame's axes (frame_jacobian: Pinocchio's LOCAL) or in world axes")
  b(" *   (frame_jacobian_world: LOCAL_WORLD_ALIGNED). Pinocchio: its rows are [v; omega].")
  b(" * - The centroidal momentum is [angular momentum about the centre of mass; linear momentum]")
  b(" *   in world axes. Pinocchio: its hg is [linear; angular].")
  b(" * - Gravity enters as a fictitious base acceleration; tau = M(q) a + C(q, v) v + g(q).")
  if d.passive_in_fd then -- --passive-in-fd (docs/dsl.md "Joint properties")
    b(" * - Generated with --passive-in-fd: the forward dynamics (aba, aba_ext, crba_fd, fd_loops,")
    b(" *   the contact functions, rcr, cfa, dynamics' qdd, aba_wrenches, aba_derivatives) compute")
    b(" *   with tau + ", d.prefix, "_passive_forces(q, v): pass the applied forces alone. Inverse")
    b(" *   dynamics (rnea, nle, ...) does not subtract them.")
  end
  b(" * - Functions returning int return 0, or -1 whenever the answer is not a finite solution of a")
  b(" *   regular system: a pivot of the factorization fails the pivot rule below (the system is")
  b(" *   singular to working precision), or an output is NaN or +-Inf (a NaN or Inf input, a zero")
  b(" *   quaternion, an overflow from huge inputs); the outputs are then undefined. A NaN input that")
  b(" *   no output depends on (minv reads only q; the coordinates of a joint on the world enter")
  b(" *   little) leaves the outputs finite and the result 0. Compile without -ffast-math or")
  b(" *   -ffinite-math-only: they let the compiler assume there is no NaN or Inf and drop the checks.")
  b(" * - The pivot rule: a pivot d is accepted iff r > 0 and d > ", P, "_PIVOT_EPS * r, with r a")
  b(" *   reference of the same units that bounds the rounding noise of d: for aba, minv and")
  b(" *   crba_fd the inertia scale of the joint's subtree along the pivot's dof (a bound of every")
  b(" *   term the pivot is summed from) plus the noise the earlier pivots carry in; for cfa the")
  b(" *   diagonal entry of its constraint matrix before elimination (a hub's pivots, of a negative")
  b(" *   definite block, are checked as -d against -r). A pivot below it has lost all but a few")
  b(" *   digits to cancellation. mbdc's docs/generator.md derives the references.")
  b(" * - Void functions never trap or crash on NaN, Inf or huge inputs (IEEE arithmetic, no")
  b(" *   branches on values): NaN and Inf propagate to the outputs that depend on them, and an")
  b(" *   overflow gives Inf or NaN there; the other outputs are unaffected.")
  b(" * - A quaternion stands for the rotation of q/|q|: any nonzero finite quaternion is accepted;")
  b(" *   the zero quaternion makes every output that depends on it NaN.")
  b(" * - Output arrays must not overlap the inputs or one another: outputs are written as they")
  b(" *   are computed (integrate's q_out = q is not allowed; copy q first).")
  b(" * - No function allocates, keeps state or reads mutable globals. */")
  b("#ifndef ", P, "_DYNAMICS_H")
  b("#define ", P, "_DYNAMICS_H")
  b("")
  common.extern_c_open(b)
  b("")
  if d.coupling then -- docs/dsl.md "Coupled joints"
    b("/* Coupled joints: every function takes and returns the independent coordinates; a coupled")
    b(" * joint's q is its multiplier times its source's plus its offset, and its ", P, "_IQ_ and")
    b(" * ", P, "_IV_ are its source's:")
    for _, j in ipairs(d.joints) do
      if j.mimics then b(" *   ", j.name, " follows ", j.mimics) end
    end
    b(" * (", d.prefix, "_coupling in ", d.prefix, "_model.h has the numbers). */")
  end
  b("#define ", P, "_NQ ", d.nq, " /* position coordinates */")
  b("#define ", P, "_NV ", d.nv, " /* velocity coordinates */")
  b("#define ", P, "_NB ", d.nb, " /* moving bodies (fixed joints merged) */")
  b("#define ", P, "_NJ ", d.nj, " /* moving joints */")
  b("#define ", P, "_NF ", d.nf, " /* operational frames: every body's own, then the model's frames */")
  b("#define ", P, "_MASS ", d.mass, " /* total mass of the moving bodies, kg */")
  b("#define ", P, "_NREG ", 10 * d.nb, " /* standard inertial parameters: 10 per moving body */")
  if d.params then
    b("#define ", P, "_NPI ", d.params.npi, " /* run-time parameters: the first argument pi (",
      d.prefix, "_pi_names) */")
  end
  if d.nnodes > 0 then
    b("#define ", P, "_NNODES ", d.nnodes, " /* nodes of the flexible bodies (", d.prefix, "_node_poses) */")
  end
  if #d.contacts > 0 then
    b("#define ", P, "_NCONTACT ", #d.contacts, " /* contacts of --contacts (", d.prefix, "_contact_fd) */")
    b("#define ", P, "_NCROWS ", d.ncrows, " /* their rows: 3 per point contact, 6 per welded frame */")
  end
  if #d.trig_slots > 0 then
    b("#define ", P, "_NSC ", 2 * #d.trig_slots, " /* sines and cosines of the joint angles (",
      d.prefix, "_trig, the _sc functions) */")
  end
  if (d.nc or 0) > 0 then
    b("#define ", P, "_NC ", d.nc, " /* independent constraint rows of the loop joints */")
    b("/* loop projection: the residual reached (max |phi_r|, SI units) and the iterations allowed */")
    b("#define ", P, "_PROJECT_TOL ", d.scalar == "float" and "1e-5f" or "1e-12")
    b("#define ", P, "_PROJECT_MAXIT 30")
    b("/* p_assemble: evaluations of phi allowed; p_initvel: |(K v)_r| / (sum |K_rk| max |v_k|) */")
    b("#define ", P, "_ASSEMBLE_MAXIT 100")
    b("#define ", P, "_INITVEL_TOL ", d.scalar == "float" and "1e-4f" or "1e-10")
    if rcr.any(d) then rcr.defines(b, d) end
  end
  b("")
  b("/* The files of one run of mbdc carry the same number (each .c file checks it). */")
  b("#define ", P, "_SET_ID ", d.set_id)
  b("/* The pivot rule's epsilon (see above): ", d.scalar == "float" and "84 FLT_EPSILON" or
    "about 4500 DBL_EPSILON", ". */")
  b("#define ", P, "_PIVOT_EPS ", d.scalar == "float" and "1e-5f" or "1e-12")
  b("")
  b("/* The functions of this file, for feature tests (#ifdef ", P, "_HAVE_CFA). */")
  for _, f in ipairs(d.functions) do b("#define ", P, "_HAVE_", f.name:upper(), " 1") end
  if project.wanted(d) then
    b("#define ", P, "_HAVE_PROJECT_Q 1")
    b("#define ", P, "_HAVE_PROJECT_V 1")
    b("#define ", P, "_HAVE_ASSEMBLE 1")
    b("#define ", P, "_HAVE_INITVEL 1")
  end
  if rcr.wanted(d) then b("#define ", P, "_HAVE_RCR 1") end
  if rcr.wanted(d, true) then b("#define ", P, "_HAVE_RCR_SC 1") end
  b("")
  b("/* Every moving joint in coordinate order: its name and first q and v index. */")
  b("extern const char *const ", d.prefix, "_joint_names[", P, "_NJ];")
  b("extern const int ", d.prefix, "_joint_iq[", P, "_NJ];")
  b("extern const int ", d.prefix, "_joint_iv[", P, "_NJ];")
  b("/* Every velocity coordinate: its name (a 1-dof joint's name; \"joint.k\", k = 1, 2, ..., for the")
  b(" * k-th of a spherical or floating joint) and the q entry it is the rate of, or -1 where it is")
  b(" * not the rate of a single q entry (a spherical joint's angular velocity moves a quaternion, a")
  b(" * floating joint's velocities are in the child frame): integrate those on the joint's manifold. */")
  b("extern const char *const ", d.prefix, "_coord_names[", P, "_NV];")
  b("extern const int ", d.prefix, "_coord_iq[", P, "_NV];")
  if #d.trig_slots > 0 then
    b("/* --trig-input: ", d.prefix, "_trig(q, sc) writes sc[2 k] = sin(q[", d.prefix,
      "_trig_iq[k]] + ", d.prefix, "_trig_theta[k]) and")
    b(" * sc[2 k + 1] its cosine for every revolute, continuous or helical joint k (theta: a turn the")
    b(" * generator folded into the joint, usually 0). Each ", d.prefix, "_f_sc(q, sc, ...) computes ",
      "what ", d.prefix, "_f(q, ...)")
    b(" * does with those read from sc: call ", d.prefix,
      "_trig once per q and share sc between the functions. */")
    b("extern const int ", d.prefix, "_trig_iq[", P, "_NSC / 2];")
    b("extern const ", d.scalar, " ", d.prefix, "_trig_theta[", P, "_NSC / 2];")
  end
  b("/* Every body by number, the world first. */")
  b("extern const char *const ", d.prefix, "_body_names[", P, "_NB + 1];")
  b("/* The same by name: ", P, "_BODY_<body> is the body's number (its entry of the per-body")
  b(" * arrays), ", P, "_JOINT_<joint> the joint's entry of the joint tables, ", P, "_IQ_<joint>")
  b(" * and ", P, "_IV_<joint> its first q and v index (tau[", P, "_IV_<joint>] is its force or")
  b(" * torque). Bodies joined by a fixed joint are one body, named after the moving one; a fixed")
  b(" * joint has no entry. */")
  for k, body in ipairs(d.bodies) do b("#define ", P, "_BODY_", body.name, " ", k) end
  for k, j in ipairs(d.joints) do
    b("#define ", P, "_JOINT_", j.name, " ", k - 1)
    b("#define ", P, "_IQ_", j.name, " ", j.iq)
    b("#define ", P, "_IV_", j.name, " ", j.iv)
  end
  b("/* Every operational frame: every body of the model (a body merged into another by a fixed")
  b(" * joint keeps its frame), then every 'frame' statement; ", P, "_FRAME_<name> is its index. */")
  b("extern const char *const ", d.prefix, "_frame_names[", P, "_NF];")
  for k, f in ipairs(d.frames) do b("#define ", P, "_FRAME_", f.name, " ", k - 1) end
  if #d.contacts > 0 then
    b("/* The contacts (--contacts), in that order: ", P, "_CONTACT_<frame> is a contact's index in")
    b(" * the switches contacts[], ", P, "_CROW_<frame> its first row in force[] and impulse[]. */")
    local row = 0
    for k, c in ipairs(d.contacts) do
      b("#define ", P, "_CONTACT_", c.name, " ", k - 1)
      b("#define ", P, "_CROW_", c.name, " ", row, " /* ", c.dim == 3 and "a point: 3 rows" or "welded: 6 rows", " */")
      row = row + c.dim
    end
  end
  if d.nnodes > 0 then
    b("/* Every node of the flexible bodies (\"body.node\"; a beam's node is its tip). */")
    b("extern const char *const ", d.prefix, "_node_names[", P, "_NNODES];")
  end
  if (d.nc or 0) > 0 then
    b("")
    b("/* Closed loops (mbdc's docs/loops.md). rnea, crba, aba, minv, fk and the other tree functions")
    b(" * are those of the spanning tree: the loop joints are cut and apply no force there. The loop")
    b(" * functions below add them: each loop joint is a list of rows (Haug's basic constraints),")
    b(" * the rows that are identically dependent are dropped, and the ", P, "_NC kept are named")
    b(" * \"loop.row\" below. phi(q) = 0 where every loop is closed; K(q) v = d phi / dt; fd_loops")
    b(" * solves M qdd + h = tau + K^T lambda with K qdd = -Kdot v, so K^T lambda is the generalized")
    b(" * force the cut joints transmit; tau is the applied force on every tree coordinate (the")
    b(" * spring-dampers' passive_forces are not in it: add them). */")
    b("extern const char *const ", d.prefix, "_constraint_names[", P, "_NC];")
    b("/* The model's configuration with its loops closed (Newton's method from the neutral one). */")
    b("extern const ", d.scalar, " ", d.prefix, "_q_assembled[", P, "_NQ];")
  end
  b("/* The model's initial state (its `initial` statements; elsewhere the neutral configuration and")
  b(" * zero velocity), in coordinate order. */")
  b("extern const double ", d.prefix, "_q_initial[", P, "_NQ];")
  b("extern const double ", d.prefix, "_v_initial[", P, "_NV];")
  b("/* The joints' limits (the model's `limit`, `velocity_limit`, `effort_limit`; a URDF's <limit>):")
  b(" * position per coordinate, velocity and effort per velocity coordinate; -INFINITY or INFINITY")
  b(" * where the model gives none. No function here reads them: they are the controller's. */")
  b("extern const double ", d.prefix, "_q_min[", P, "_NQ];")
  b("extern const double ", d.prefix, "_q_max[", P, "_NQ];")
  b("extern const double ", d.prefix, "_v_max[", P, "_NV];")
  b("extern const double ", d.prefix, "_tau_max[", P, "_NV];")
  b("/* The moving bodies' standard inertial parameters, 10 per body in ", d.prefix, "_body_names")
  b(" * order (body 1 first), each in Pinocchio's order (Inertia::toDynamicParameters): m, m cx,")
  b(" * m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz: the first moment and the rotational inertia about")
  b(" * the body frame's origin, in body axes. The dynamics are linear in them (", d.prefix,
    "_regressor). */")
  b("extern const double ", d.prefix, "_pi_all[", P, "_NREG];")
  ident.header(b, d) -- P_NJ1, P_NBASE and the base parameters
  if d.params then
    b("/* Run-time parameters (mbdc --parameters, or the model's `parameters` statement): every")
    b(" * function below whose result depends on them takes pi[", P, "_NPI] as its first argument;")
    b(" * the others do not. pi holds 10 numbers per body named (m, m cx, m cy, m cz, Ixx, Ixy,")
    b(" * Iyy, Ixz, Iyz, Izz about the body frame's origin, in its axes; a body fixed to a moving")
    b(" * one keeps its own ten, in its own frame), then gravity's 3 world components if named.")
    b(" * ", d.prefix, "_pi_names names each, ", d.prefix, "_pi_model holds the model file's values.")
    b(" * Physical consistency is the caller's: any pi gives the dynamics of the tree with those")
    b(" * inertias (linear in them); a non-physical one (negative mass, an inertia violating the")
    b(" * triangle inequality) can make the mass matrix indefinite or singular, and a forward-")
    b(" * dynamics function then returns -1 where a pivot fails, as for any singular system. */")
    b("extern const double ", d.prefix, "_pi_model[", P, "_NPI];")
    b("extern const char *const ", d.prefix, "_pi_names[", P, "_NPI];")
  end
  for _, f in ipairs(d.functions) do
    local decls = {}
    for k, p in ipairs(f.params) do decls[k] = p.decl end
    b("")
    local size = d.scalar == "float" and 4 or 8
    local stack = { "/* ", f.summary, ". Stack: about ", f.counts.live * size, " bytes (",
                    f.counts.live, " values live at once)." }
    if f.nparts > 1 then -- no part has more live values than the whole; the scratch array too
      stack = { "/* ", f.summary, ". Stack: at most about ", (f.counts.live + f.part_slots) * size,
                " bytes (", f.counts.live, " values live at once, ", f.part_slots, " in the ",
                "scratch array that carries values between its ", f.nparts, " parts)." }
    end
    if f.frame then
      b(table.concat(stack))
      b(" * Computed in ", FRAMES[f.frame], f.fixed_frame and ". */" or " (--frame). */")
    else
      stack[#stack + 1] = " */"
      b(table.concat(stack))
    end
    b(f.returns, " ", f.cname, "(", table.concat(decls, ", "), ");")
  end
  if project.wanted(d) then project.declare(b, d) end
  if rcr.any(d) then rcr.declare_table(b, d) end
  if rcr.wanted(d) then rcr.declare(b, d) end
  if d.batch then
    batch.header_intro(b, d)
    for _, e in ipairs(batch.entries(d, rcr, project)) do
      if not e.lanes then b("/* ", e.cname, "_batch: one state at a time */") end
      batch.declare(b, d, e)
    end
  end
  b("")
  common.extern_c_close(b)
  b("")
  b("#endif /* ", P, "_DYNAMICS_H */")
  return b.text()
end
