-- check_compare.lua — the comparisons of the cross-check harness (check.lua): which runtime call
-- is each built-in function's reference, how each generated function is called, and, at every
-- random state, the comparison of a function, of a --fuse function's parts and of an _sc twin
-- against its original (the C check.lua writes into main's loop over the states).
local ident = import "c/identification"
local CC = import "c/check_coupled"

local K = {}

-- The runtime call that computes the same output as each built-in function (args in C).
local reference = {
  rnea = "mb_rnea(&M, ws, q, v, a, NULL, ref)",
  rnea_ext = "mb_rnea(&M, ws, q, v, a, fext, ref)",
  nle = "mb_nle(&M, ws, q, v, ref)",
  gravity = "mb_gravity(&M, ws, q, ref)",
  crba = "mb_crba(&M, ws, q, ref)",
  crba_fd = "rc = mb_crba_fd(&M, ws, q, v, tau, ref)",
  aba = "rc = mb_aba(&M, ws, q, v, tau, NULL, ref)",
  hybrid = "rc = mb_hybrid(&M, ws, q, v, hmask, tau, NULL, ref, ref2)",
  hybrid_fixed = "rc = mb_hybrid(&M, ws, q, v, hfixed, tau, NULL, ref, ref2)",
  fd_loops_hybrid = "rc = mb_fd_loops_hybrid(&M, &LP, ws, lw, q, v, hmask, tau, ref, ref2, ref3)",
  minv = "rc = mb_minv(&M, ws, q, ref)",
  joint_wrenches = "mb_joint_wrenches(&M, ws, q, v, a, ref)",
  fk = "mb_fk(&M, ws, q, ref)",
  node_poses = "rc = mb_node_poses(&M, ws, q, ref)",
  cfa = "rc = mb_cfa(&M, ws, q, v, tau, ref, NULL)",
  loop_residual = "rc = mb_loop_residual(&M, &LP, ws, lw, qr, ref)",
  loop_jacobian = "rc = mb_loop_jacobian(&M, &LP, ws, lw, qr, ref)",
  fd_loops = "rc = mb_fd_loops(&M, &LP, ws, lw, q, v, tau, ref, ref2)",
  -- off the manifold (off_manifold below), where the stabilizing terms are not zero
  fd_loops_baumgarte = "rc = mb_fd_loops_baumgarte(&M, &LP, ws, lw, off_manifold(q), v, tau, "
    .. "0.375, 0.375, ref, ref2)",
  fd_loops_derivatives = "rc = mb_fd_loops_derivatives(&M, &LP, ws, lw, lscratch, q, v, tau, "
    .. "ref, ref2, ref3, ref4, ref5, ref6, ref7, ref8)",
  passive_forces = "rc = mb_passive_forces(&M, &SPRINGS, ws, q, v, ref)",
  frame_pose = "rc = mb_frame_pose(&M, &FRAMES, ws, q, ref)",
  frame_jacobian = "rc = mb_frame_jacobian(&M, &FRAMES, ws, q, 1, ref)",
  frame_jacobian_world = "rc = mb_frame_jacobian(&M, &FRAMES, ws, q, 0, ref)",
  frame_velocity = "rc = mb_frame_velocity(&M, &FRAMES, ws, q, v, ref)",
  frame_acceleration_bias = "rc = mb_frame_acceleration_bias(&M, &FRAMES, ws, q, v, ref)",
  frame_velocity_derivatives = "rc = mb_frame_velocity_derivatives(&M, &FRAMES, ws, q, v, 0, ref, "
    .. "ref2)",
  frame_velocity_derivatives_local = "rc = mb_frame_velocity_derivatives(&M, &FRAMES, ws, q, v, 1, "
    .. "ref, ref2)",
  frame_acceleration_derivatives = "rc = mb_frame_acceleration_derivatives(&M, &FRAMES, ws, q, v, "
    .. "a, 0, ref, ref2, ref3)",
  frame_acceleration_derivatives_local = "rc = mb_frame_acceleration_derivatives(&M, &FRAMES, ws, "
    .. "q, v, a, 1, ref, ref2, ref3)",
  aba_ext = "rc = mb_aba(&M, ws, q, v, tau, fext, ref)",
  nle_ext = "mb_rnea(&M, ws, q, v, NULL, fext, ref)",
  com = "rc = mb_com(&M, ws, q, ref)",
  com_jacobian = "rc = mb_com_jacobian(&M, ws, q, ref)",
  energy = "rc = mb_energy(&M, ws, q, v, ref)",
  centroidal_momentum = "rc = mb_centroidal_momentum(&M, ws, q, v, ref)",
  ccrba = "rc = mb_ccrba(&M, ws, q, ref)",
  centroidal_bias = "rc = mb_centroidal_bias(&M, ws, q, v, ref)",
  contact_fd = "rc = mb_contact_fd(&M, &FRAMES, &CONTACTS, ws, cscratch, q, v, tau, act, NULL, ref, "
    .. "ref2)",
  contact_fd_reg = "rc = mb_contact_fd(&M, &FRAMES, &CONTACTS, ws, cscratch, q, v, tau, act, mu, "
    .. "ref, ref2)",
  impulse = "rc = mb_impulse(&M, &FRAMES, &CONTACTS, ws, cscratch, q, v, act, ref, ref2)",
  contact_fd_derivatives = "rc = mb_contact_fd_derivatives(&M, &FRAMES, &CONTACTS, ws, cscratch, "
    .. "q, v, tau, act, NULL, ref, ref2, ref3, ref4, ref5, ref6, ref7, ref8)",
  contact_fd_reg_derivatives = "rc = mb_contact_fd_derivatives(&M, &FRAMES, &CONTACTS, ws, "
    .. "cscratch, q, v, tau, act, mu, ref, ref2, ref3, ref4, ref5, ref6, ref7, ref8)",
  impulse_derivatives = "rc = mb_impulse_derivatives(&M, &FRAMES, &CONTACTS, ws, cscratch, q, v, "
    .. "act, ref, ref2, ref3, ref4, ref5, ref6)",
  integrate = "rc = mb_integrate(&M, q, v, 0.375, ref)",
  dynamics = "mb_crba(&M, ws, q, ref)",
  aba_wrenches = "rc = mb_aba(&M, ws, q, v, tau, NULL, ref)",
  difference = "rc = mb_difference(&M, q, q2, ref)",
  integrate_jacobians = "rc = mb_integrate_jacobians(&M, q, v, 0.375, ref, ref2)",
  difference_jacobians = "rc = mb_difference_jacobians(&M, q, q2, ref, ref2)",
  rnea_derivatives = "rc = mb_rnea_derivatives(&M, ws, q, v, a, ref, ref2, ref3)",
  gravity_derivatives = "rc = mb_rnea_derivatives(&M, ws, q, NULL, NULL, ref, ref2, ref3)",
  aba_derivatives = "rc = mb_aba_derivatives(&M, ws, q, v, tau, ref, ref2, ref3)",
  aba_ext_derivatives = "rc = mb_aba_ext_derivatives(&M, ws, q, v, tau, fext, ref, ref2, ref3, "
    .. "ref4)",
  rnea_ext_derivatives = "rc = mb_rnea_ext_derivatives(&M, ws, q, v, a, fext, ref, ref2, ref3, "
    .. "ref4)",
  regressor = "rc = mb_regressor(&M, ws, q, v, a, ref)",
  energy_regressor = "rc = mb_energy_regressor(&M, ws, q, v, ref, ref2)",
  trig = "trig_ref(q, ref)",
}
for k, v in pairs(ident.references) do reference[k] = v end -- base_*, joint_regressor

-- Functions with a second output, compared after the first: its name in the report, the runtime
-- call that fills ref2 (after the first reference filled ref), its size.
local second = {
  energy_regressor = { name = "energy_regressor.yp", size = "NREG", reference = "(void)0" },
  cfa = { name = "cfa.wrench", size = "6 * (NB + 1)",
          reference = "mb_joint_wrenches(&M, ws, q, v, ref, ref2)" },
  fd_loops = { name = "fd_loops.lambda", size = "NC", reference = "(void)0" },
  fd_loops_baumgarte = { name = "fd_loops_baumgarte.lambda", size = "NC", reference = "(void)0" },
  hybrid = { name = "hybrid.tau", size = "NV", reference = "(void)0" },
  hybrid_fixed = { name = "hybrid_fixed.tau", size = "NV", reference = "(void)0" },
  fd_loops_hybrid = { name = "fd_loops_hybrid.tau", size = "NV", reference = "(void)0",
                      third = { name = "fd_loops_hybrid.lambda", size = "NC",
                                reference = "(void)0" } },
  contact_fd = { name = "contact_fd.force", size = "NCROWS", reference = "(void)0" },
  contact_fd_reg = { name = "contact_fd_reg.force", size = "NCROWS", reference = "(void)0" },
  impulse = { name = "impulse.impulse", size = "NCROWS", reference = "(void)0" },
  impulse_derivatives = { list = {
    { name = "impulse_derivatives.impulse", size = "NCROWS", reference = "(void)0" },
    { name = "impulse_derivatives.dvplus_dq", size = "NV * NV", reference = "(void)0" },
    { name = "impulse_derivatives.dvplus_dv", size = "NV * NV", reference = "(void)0" },
    { name = "impulse_derivatives.dimpulse_dq", size = "NCROWS * NV", reference = "(void)0" },
    { name = "impulse_derivatives.dimpulse_dv", size = "NCROWS * NV", reference = "(void)0" },
  } },
  contact_fd_derivatives = { list = "contact" },
  contact_fd_reg_derivatives = { list = "contact" },
  fd_loops_derivatives = { list = "loops" },
  dynamics = { name = "dynamics.h", size = "NV", reference = "mb_nle(&M, ws, q, v, ref2)",
               third = { name = "dynamics.qdd", size = "NV",
                         reference = "(void)mb_aba(&M, ws, q, v, tau, NULL, ref3)" } },
  rnea_derivatives = { name = "rnea_derivatives.dtau_dv", size = "NV * NV", reference = "(void)0",
                       third = { name = "rnea_derivatives.M", size = "NV * NV",
                                 reference = "(void)0" } },
  aba_ext_derivatives = {
    name = "aba_ext_derivatives.dqdd_dv", size = "NV * NV", reference = "(void)0",
    third = { name = "aba_ext_derivatives.Minv", size = "NV * NV", reference = "(void)0",
              fourth = { name = "aba_ext_derivatives.dqdd_dfext", size = "NV * 6 * (NB + 1)",
                         reference = "(void)0" } } },
  rnea_ext_derivatives = {
    name = "rnea_ext_derivatives.dtau_dv", size = "NV * NV", reference = "(void)0",
    third = { name = "rnea_ext_derivatives.M", size = "NV * NV", reference = "(void)0",
              fourth = { name = "rnea_ext_derivatives.dtau_dfext", size = "NV * 6 * (NB + 1)",
                         reference = "(void)0" } } },
  aba_derivatives = { name = "aba_derivatives.dqdd_dv", size = "NV * NV", reference = "(void)0",
                      third = { name = "aba_derivatives.Minv", size = "NV * NV",
                                reference = "(void)0" } },
  aba_wrenches = { name = "aba_wrenches.wrench", size = "6 * (NB + 1)",
                   reference = "mb_joint_wrenches(&M, ws, q, v, ref, ref2)" },
  integrate_jacobians = { name = "integrate_jacobians.Jv", size = "NV * NV",
                          reference = "(void)0" },
  difference_jacobians = { name = "difference_jacobians.J1", size = "NV * NV",
                           reference = "(void)0" },
}
-- the frame derivatives' later outputs, filled by the first reference call
for _, fd in ipairs({ "frame_velocity_derivatives", "frame_acceleration_derivatives" }) do
  for _, sfx in ipairs({ "", "_local" }) do
    local n, w = fd .. sfx, fd:match("velocity") and "dvel" or "dacc"
    second[n] = { name = n .. "." .. w .. "_dv", size = "6 * NV * NF", reference = "(void)0" }
    if w == "dacc" then
      second[n].third = { name = n .. ".dacc_da", size = "6 * NV * NF", reference = "(void)0" }
    end
  end
end
for k, v in pairs(ident.second) do second[k] = v end

-- The generated function's arguments: inputs in the generated scalar type, one output array.
local role_arg = { q = "gq", v = "gv", a = "ga", tau = "gtau", fext = "gfext", contacts = "act",
                   mask = "hmask",
                   contact_mu = "gmu", dt = "(real)0.375", q2 = "gq2", sc = "gsc",
                   params = "gpar" }
local size_of = {
  out_nv = "NV", out_nvnv = "NV * NV", out_wrench = "6 * (NB + 1)", out_pose = "12 * (NB + 1)",
  out_nc = "NC", out_ncnv = "NC * NV", out_nodes = "12 * NNODES", out_rcr = "RCR_NSEL * NC",
  out_frames = "12 * NF", out_fjac = "6 * NV * NF", out_fvec = "6 * NF", out_3 = "3",
  out_3nv = "3 * NV", out_2 = "2", out_6 = "6", out_6nv = "6 * NV", out_cforce = "NCROWS",
  out_nq = "NQ", out_sc = "NSC", out_nvreg = "NV * NREG", out_reg = "NREG",
  out_nvwrench = "NV * 6 * (NB + 1)", out_cforcenv = "NCROWS * NV",
}
for k, v in pairs(ident.size_of) do size_of[k] = v end
for k, v in pairs(ident.role_arg) do role_arg[k] = v end

-- The function whose runtime reference checks f: its own, or for the _sc twin of --trig-input
-- its original's (the same outputs, its sines and cosines from p_trig).
local function base(f) return f.twin_of or f.name end

-- The outputs after the first of function name, in order: {name, size, reference} each (second,
-- its third, the third's fourth; or second's list, up to 7).
local function extras(name)
  local s, list = second[name], {}
  if s and (s.list == "contact" or s.list == "loops") then -- the seven outputs after qdd
    local f, n = "force", "NCROWS"
    if s.list == "loops" then f, n = "lambda", "NC" end
    local outs = { { f, n }, { "dqdd_dq", "NV * NV" }, { "dqdd_dv", "NV * NV" },
                   { "dqdd_dtau", "NV * NV" }, { "d" .. f .. "_dq", n .. " * NV" },
                   { "d" .. f .. "_dv", n .. " * NV" }, { "d" .. f .. "_dtau", n .. " * NV" } }
    for k, o in ipairs(outs) do
      list[k] = { name = name .. "." .. o[1], size = o[2], reference = "(void)0" }
    end
    return list
  end
  if s and s.list then return s.list end
  while s do
    list[#list + 1] = s
    s = (#list == 1 and s.third) or (#list == 2 and s.fourth) or nil
  end
  return list
end

-- Functions defined at any configuration, compared at the random one drawn before the loops are
-- closed (at a closed one the residual is rounding noise on both sides).
local unassembled = { loop_residual = true, loop_jacobian = true }
-- Functions compared near the closed configuration but off the manifold: q moved by up to 0.01
-- (project.lua's off_manifold, which the reference calls first: gqn is its generated copy).
local off_manifold = { fd_loops_baumgarte = true }

local function call(f)
  local args, size, nout = {}, nil, 0
  for k, p in ipairs(f.params) do
    if size_of[p.role] then
      nout = nout + 1
      args[k] = nout == 1 and "out" or ("out" .. nout)
      size = size or size_of[p.role]
    else
      local at_qr = unassembled[base(f)] and (p.role == "q" or p.role == "sc")
      args[k] = at_qr and (p.role == "q" and "gqr" or "gscr") or role_arg[p.role]
      if off_manifold[base(f)] and p.role == "q" then args[k] = "gqn" end
    end
  end
  return f.cname .. "(" .. table.concat(args, ", ") .. ")", size
end

-- A --fuse function (fuse.lua tags its outputs with their recipe): its parts in order, each
-- {name, outs = {output params}}; nil for any other function.
local function fused_parts(f)
  local parts, by = nil, {}
  for _, p in ipairs(f.params) do
    if p.part then
      parts = parts or {}
      if not by[p.part] then
        by[p.part] = { name = p.part, outs = {} }
        parts[#parts + 1] = by[p.part]
      end
      local outs = by[p.part].outs
      outs[#outs + 1] = p
    end
  end
  return parts
end

-- The fused function's call with its k-th output into fout[k - 1] (buf[k - 1]); at_qr: at the
-- configuration drawn before the loops are closed (every part is defined anywhere, as
-- loop_residual).
local function call_fused(f, at_qr, buf)
  local args, k = {}, 0
  for j, p in ipairs(f.params) do
    if size_of[p.role] then
      args[j], k = (buf or "fout") .. "[" .. k .. "]", k + 1
    elseif at_qr and (p.role == "q" or p.role == "sc") then
      args[j] = p.role == "q" and "gqr" or "gscr"
    else
      args[j] = role_arg[p.role]
    end
  end
  return f.cname .. "(" .. table.concat(args, ", ") .. ")", k
end


K.reference, K.second, K.extras, K.role_arg, K.size_of = reference, second, extras, role_arg,
  size_of
K.base, K.unassembled, K.call, K.fused_parts, K.call_fused = base, unassembled, call, fused_parts,
  call_fused

-- hybrid's and fd_loops_hybrid's run-time mask hmask (declared when one is generated: returns
-- true) and hybrid_fixed's constant hfixed (--prescribed).
function K.hybrid_setup(b, d)
  local hybrid = false
  for _, f in ipairs(d.functions) do
    hybrid = hybrid or base(f) == "hybrid" or base(f) == "fd_loops_hybrid"
  end
  if hybrid then
    b([[
  /* hybrid's mask by state % 4: all free, all prescribed, the first 6 dofs free (a floating
   * base) and the rest prescribed, a random pattern; with loops (where most patterns leave the
   * rows unsolvable): all free, one dof prescribed, two, a random pattern */
  int hmask[NV];
  unsigned long long hseed = SEED + 2u;]])
  end
  if d.prescribed then
    local flags = {}
    for k, x in ipairs(d.prescribed) do flags[k] = tostring(x) end
    b("  /* hybrid_fixed's mask, --prescribed */")
    b("  static const int hfixed[NV] = {", table.concat(flags, ", "), "};")
    b("  (void)hfixed;")
  end
  return hybrid
end

-- The state's hmask (K.hybrid_setup's patterns; loops: a model with loop joints).
function K.hybrid_state(b, loops)
  b("    for (int k = 0; k < NV; k++)")
  if loops then
    b("      hmask[k] = state % 4 == 0 ? 0 : state % 4 < 3 ? k == state % NV || "
      .. "(state % 4 == 2 && k == (state / 4) % NV) : uniform(&hseed, 0, 1) < 0.5;")
  else
    b("      hmask[k] = state % 4 < 2 ? state % 4 : state % 4 == 2 ? k >= 6 : "
      .. "uniform(&hseed, 0, 1) < 0.5;")
  end
end

-- At every state: each function of `known` against its reference (slot: its first result;
-- reference: the render's table of references, K.reference with this model's additions).
function K.known(b, d, known, slot, reference)
  for _, f in ipairs(known) do
    local gcall, size = call(f)
    local r, outs = slot[f.name], {}
    for _, p in ipairs(f.params) do if size_of[p.role] then outs[#outs + 1] = p.role end end
    size = CC.size(d, size)
    b("    /* ", f.name, " */")
    b("    rc = grc = 0;")
    b("    ", CC.reference(d, base(f), reference[base(f)]), ";")
    b("    ", f.returns == "int" and "grc = " or "", gcall, ";")
    b("    if (grc != rc) results[", r, "].failed_rc = 1;")
    b("    if (rc != 0) results[", r, "].singular++;")
    b("    if (rc == 0 && grc == 0) {")
    if base(f) == "rcr_pivots" then
      b("      if (rcr_pivots_mask(ref, out)) results[", r, "].skipped++;")
    end
    CC.fold(b, d, base(f), outs[1], "ref")
    b("      compare(&results[", r, "], ref, out, ", size, ");")
    for k, s in ipairs(extras(base(f))) do
      local rk, ok = "ref" .. (k + 1), "out" .. (k + 1)
      b("      ", s.reference, ";")
      CC.fold(b, d, base(f), outs[k + 1], rk)
      b("      compare(&results[", r + k, "], ", rk, ", ", ok, ", ", CC.size(d, s.size), ");")
    end
    b("    }")
  end
end

-- At every state: each --fuse function (fused: {f, parts, at_qr}) in one call, then each part's
-- outputs against that part's reference.
function K.fused(b, d, fused, slot, reference)
  for _, x in ipairs(fused) do
    -- one call, then each part's reference and its outputs against it; the function fails
    -- (returns -1) exactly when one of the references does
    local gcall, nout = call_fused(x.f, x.at_qr)
    local r, k = slot[x.f.name], 0
    b("    /* ", x.f.name, ": ", #x.parts, " parts in one function (--fuse) */")
    b("    {")
    b("      int any = 0;")
    b("      rc = grc = 0;")
    b("      ", x.f.returns == "int" and "grc = " or "", gcall, ";")
    for _, part in ipairs(x.parts) do
      k = k + #part.outs
      if reference[part.name] and not part.noise then
        local outs, at = {}, 0 -- the part's outputs: their index in fout
        for _, p in ipairs(x.f.params) do
          if size_of[p.role] then
            for i, o in ipairs(part.outs) do if o == p then outs[i] = at end end
            at = at + 1
          end
        end
        local ref = CC.reference(d, part.name, reference[part.name])
        if not ref:match("^rc = ") then b("      rc = 0;") end
        b("      ", ref, ";")
        b("      any |= rc != 0;")
        b("      if (rc != 0) results[", r, "].singular++;")
        b("      if (rc == 0 && grc == 0) {")
        CC.fold(b, d, part.name, part.outs[1].role, "ref")
        b("        compare(&results[", r, "], ref, fout[", outs[1], "], ",
          CC.size(d, size_of[part.outs[1].role]), ");")
        for j, s in ipairs(extras(part.name)) do
          local rj = "ref" .. (j + 1)
          b("        ", s.reference, ";")
          CC.fold(b, d, part.name, part.outs[j + 1].role, rj)
          b("        compare(&results[", r + j, "], ", rj, ", fout[", outs[j + 1], "], ",
            CC.size(d, s.size), ");")
        end
        b("      }")
        r = r + #part.outs
      end
    end
    b("      if ((grc != 0) != (any != 0)) results[", slot[x.f.name], "].failed_rc = 1;")
    b("    }")
    assert(k <= nout)
  end
end

-- At every state: each _sc twin of --trig-input against its original on the same inputs
-- (results from first_twin on).
function K.twins(b, d, twins, by_name, first_twin)
  for k, f in ipairs(twins) do
    -- the same graph with its sines and cosines from p_trig: the first output against the
    -- original's on the same inputs
    local o, r = by_name[f.twin_of], first_twin + k - 1
    local int = f.returns == "int"
    if fused_parts(o) then
      -- a --fuse function's twin: every output against the original's
      local at_qr = true
      for _, part in ipairs(fused_parts(o)) do at_qr = at_qr and unassembled[part.name] or false end
      b("    /* ", f.name, ": against ", o.name, ", every output */")
      b("    rc = grc = 0;")
      b("    ", int and "rc = " or "", (call_fused(o, at_qr)), ";")
      b("    ", int and "grc = " or "", (call_fused(f, at_qr, "fout2")), ";")
      b("    if (grc != rc) results[", r, "].failed_rc = 1;")
      b("    else if (rc < 0) results[", r, "].singular++;")
      local j = 0
      for _, p in ipairs(o.params) do
        if size_of[p.role] then
          local n = CC.size(d, size_of[p.role])
          b("    for (int k = 0; rc >= 0 && k < ", n, "; k++) ref[k] = (double)fout[", j, "][k];")
          b("    if (rc >= 0) compare(&results[", r, "], ref, fout2[", j, "], ", n, ");")
          j = j + 1
        end
      end
      goto next_twin
    end
    local ocall, size = call(o)
    size = CC.size(d, size)
    b("    /* ", f.name, ": against ", o.name, " */")
    b("    rc = grc = 0;")
    b("    ", int and "rc = " or "", ocall, ";")
    b("    for (int k = 0; k < ", size, "; k++) ref[k] = (double)out[k];")
    b("    ", int and "grc = " or "", (call(f)), ";")
    b("    if (grc != rc) results[", r, "].failed_rc = 1;")
    b("    else if (rc >= 0) compare(&results[", r, "], ref, out, ", size, ");")
    b("    else results[", r, "].singular++;")
    ::next_twin::
  end
end

return K
