-- model.lua — <prefix>_model.c: the model as data for the generic runtime (runtime/mb.h).
local common = import "c/common"

local function array(b, ctype, name, items, per_line)
  b("static const ", ctype, " ", name, "[", #items, "] = {")
  for k = 1, #items, per_line do
    local row = {}
    for j = k, math.min(k + per_line - 1, #items) do row[#row + 1] = items[j] end
    b("  ", table.concat(row, ", "), ",")
  end
  b("};")
end

-- <prefix>_springs: the runtime's springs (mb.h mb_springs), {0, NULL} for none.
local function springs(b, d)
  local S, jp = d.rt.springs, d.rt.joint_passive
  b("")
  b("/* Springs (runtime/mb.h mb_spring: a, b, ra, rb, stiffness, damping, length). */")
  local joints = ", NULL, NULL, NULL, NULL" -- every field initialized (-Wmissing-field-initializers)
  if jp then -- the joints' damping, friction, stiffness and q_ref, nv each (mb.h mb_springs)
    b("/* The joints' damping, friction, stiffness and reference positions, per velocity")
    b("   coordinate (runtime/mb.h mb_springs). */")
    array(b, "double", "joint_passive", jp, 8)
    local nv = #jp // 4
    joints = ", joint_passive, joint_passive + " .. nv .. ", joint_passive + " .. 2 * nv ..
      ", joint_passive + " .. 3 * nv
  end
  if #S == 0 then
    b("const mb_springs ", d.prefix, "_springs = {0, NULL", joints, "};")
    return
  end
  b("static const mb_spring spring[", #S, "] = {")
  for _, s in ipairs(S) do
    b("  {", s.a, ", ", s.b, ", {", table.concat(s.ra, ", "), "}, {", table.concat(s.rb, ", "),
      "}, ", s.stiffness, ", ", s.damping, ", ", s.length, "},")
  end
  b("};")
  b("const mb_springs ", d.prefix, "_springs = {", #S, ", spring", joints, "};")
end

-- <prefix>_frames: the runtime's operational frames (mb.h mb_frames).
local function frames(b, d)
  local F = d.rt.frames
  b("")
  b("/* Operational frames (runtime/mb.h mb_frame: body, R frame -> body, p), ", d.PREFIX,
    "_FRAME_<name>. */")
  b("static const mb_frame frame[", #F, "] = {")
  for k, f in ipairs(F) do
    b("  {", f.body, ", {", table.concat(f.R, ", "), "}, {", table.concat(f.p, ", "), "}}, /* ",
      d.frames[k].name, " */")
  end
  b("};")
  b("const mb_frames ", d.prefix, "_frames = {", #F, ", frame};")
end

-- <prefix>_contacts: the runtime's contacts (mb.h mb_contacts), when --contacts named some.
local function contacts(b, d)
  if #d.contacts == 0 then return end
  b("")
  b("/* The contacts of --contacts (runtime/mb.h mb_contact: frame, dim), ", d.PREFIX,
    "_CONTACT_<frame>. */")
  b("static const mb_contact contact[", #d.contacts, "] = {")
  for _, c in ipairs(d.contacts) do b("  {", c.frame, ", ", c.dim, "}, /* ", c.name, " */") end
  b("};")
  b("const mb_contacts ", d.prefix, "_contacts = {", #d.contacts, ", contact};")
end

return function(d)
  local b = common.buffer()
  local rt = d.rt
  common.banner(b, d, d.prefix .. "_model.c",
    "model '" .. d.prefix .. "' as data for the mbdc runtime (the cross-check's reference).")
  b("#include \"", d.prefix, "_model.h\"")
  b("")
  common.set_check(b, d, d.prefix .. "_model.c")
  b("")
  b("/* Per-body arrays, the world first (runtime/mb.h, MB_MODEL_ARRAYS; XTE, XTr are XT_E, ",
    "XT_r). */")
  array(b, "int", "parent", rt.parent, 16)
  array(b, "mb_joint_type", "jtype", rt.jtype, 4)
  array(b, "int", "iq", rt.iq, 16)
  array(b, "int", "iv", rt.iv, 16)
  array(b, "double", "XTE", rt.XT_E, 9)
  array(b, "double", "XTr", rt.XT_r, 3)
  array(b, "double", "axis", rt.axis, 3)
  array(b, "double", "pitch", rt.pitch, 8)
  array(b, "double", "inertia", rt.inertia, 10)
  if rt.flex then
    local F = rt.flex
    b("")
    b("/* Flexible bodies (runtime/mb.h mb_flex): modes per body, then the modal coupling, mass,")
    b("   stiffness and damping, and the attachment shapes, packed body after body. */")
    array(b, "int", "nm", F.nm, 16)
    for _, name in ipairs({ "Mc", "Me", "K", "D", "Psi" }) do
      if #F[name] > 0 then array(b, "double", "flex_" .. name, F[name], 6) end
    end
    for _, name in ipairs({ "node_r", "node_shape", "Q" }) do
      if #F[name] > 0 then array(b, "double", "flex_" .. name, F[name], 6) end
    end
    if #F.node_body > 0 then array(b, "int", "flex_node_body", F.node_body, 16) end
    local function ref(name) return #F[name] > 0 and "flex_" .. name or "NULL" end
    b("static const mb_flex flex = {nm, ", ref("Mc"), ", ", ref("Me"), ", ", ref("K"), ", ",
      ref("D"), ", ", ref("Psi"), ",")
    b("  ", F.nnodes, ", ", ref("node_body"), ", ", ref("node_r"), ", ", ref("node_shape"), ", ",
      ref("Q"), "};")
  end
  springs(b, d)
  frames(b, d)
  contacts(b, d)
  b("")
  if rt.armature then
    b("")
    b("/* The joints' armature (rotor inertia) per velocity coordinate (runtime/mb.h). */")
    array(b, "double", "armature", rt.armature, 8)
  end
  if rt.axis2 then
    b("")
    b("/* The universal joints' second axes, per body (runtime/mb.h mb_model.axis2). */")
    array(b, "double", "axis2", rt.axis2, 3)
  end
  b("const mb_model ", d.prefix, "_model = {", rt.nb, ", ", rt.nq, ", ", rt.nv,
    ", parent, jtype, iq, iv, XTE, XTr, axis, pitch, inertia,")
  b("  {", table.concat(rt.gravity, ", "), "}, ", rt.flex and "&flex" or "NULL",
    rt.armature and ", armature" or ", NULL", rt.axis2 and ", axis2" or ", NULL", "};")
  if d.coupling then
    local c = d.coupling
    b("")
    b("/* The coupled joints (runtime/mb.h mb_coupling): q_full[k] = q_mult[k] q[q_of[k]] + q_off[k],")
    b("   v_full[k] = v_mult[k] v[v_of[k]]. */")
    array(b, "int", "q_of", c.q_of, 16)
    array(b, "double", "q_mult", c.q_mult, 8)
    array(b, "double", "q_off", c.q_off, 8)
    array(b, "int", "v_of", c.v_of, 16)
    array(b, "double", "v_mult", c.v_mult, 8)
    b("const mb_coupling ", d.prefix, "_coupling = {", c.nq_ind, ", ", c.nv_ind,
      ", q_of, q_mult, q_off, v_of, v_mult};")
  end
  if (d.nc or 0) > 0 then
    b("")
    b("/* The loop joints (runtime/mb.h \"Closed loops\") and the independent rows kept. */")
    b("static const mb_loop loops[", #rt.loops, "] = {")
    for _, l in ipairs(rt.loops) do
      b("  /* ", l.name, " */")
      b("  {", l.type, ", ", l.a, ", ", l.b, ",")
      b("   {", table.concat(l.Ea, ", "), "}, {", table.concat(l.ra, ", "), "},")
      b("   {", table.concat(l.Eb, ", "), "}, {", table.concat(l.rb, ", "), "},")
      b("   {", table.concat(l.axis, ", "), "}, {", table.concat(l.axis2, ", "), "}, ",
        l.pitch_distance[1], ", ", l.pitch_distance[2], "},")
    end
    b("};")
    array(b, "int", "rows", rt.rows, 16)
    b("const mb_loops ", d.prefix, "_loops = {", #rt.loops, ", loops, ", d.nc, ", rows};")
  end
  return b.text()
end
