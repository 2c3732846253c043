-- rcr.lua — p_rcr of <prefix>_dynamics.c: the choice between the selections of dependent
-- coordinates (docs/loops.md "Recursive coordinate reduction"), written over the generated
-- rcr_pivots and rcr_0, rcr_1, ...: the first selection whose smallest pivot ratio is at least
-- P_RCR_SWITCH, else the one with the largest, if that is above P_PIVOT_EPS (the runtime's
-- mb_rcr follows the same rule). Each variant checks its own ratios (bit 1 of its status below the
-- switch), so the usual call costs one variant; rcr_pivots runs only when every selection is
-- below the switch. The answer p_rcr returns never comes from a pivot below the rule. Where a
-- tail's reduced mass matrix has a pivot ratio below P_RCR_REFINE, or a head joint one below
-- P_RCR_REFINE_HEAD (bit 2), the selection's rcr_refine corrects the answer once against the
-- equations themselves (as mb_rcr does).
local M = {}

-- Some part of p_rcr is generated (the selections' table and macros are then written).
function M.any(d)
  if (d.nc or 0) == 0 or (d.rcr_nsel or 0) == 0 then return false end
  for _, f in ipairs(d.functions) do
    if f.name == "rcr_pivots" or f.name:match("^rcr_%d+$") or f.name:match("^rcr_refine_%d+$") then
      return true
    end
  end
  return false
end

-- p_rcr can be written: its parts are all generated (sc: their _sc twins, for p_rcr_sc).
function M.wanted(d, sc)
  if (d.nc or 0) == 0 or (d.rcr_nsel or 0) == 0 then return false end
  local have, x = {}, sc and "_sc" or ""
  for _, f in ipairs(d.functions) do have[f.name] = true end
  if not have["rcr_pivots" .. x] then return false end
  for s = 0, d.rcr_nsel - 1 do
    if not have["rcr_" .. s .. x] or not have["rcr_refine_" .. s .. x] then return false end
  end
  return true
end

function M.defines(b, d)
  local P = d.PREFIX
  b("/* p_rcr: the selections of dependent coordinates it switches between, and the pivot ratio")
  b(" * below which it leaves one for the next (docs/loops.md). */")
  b("#define ", P, "_RCR_NSEL ", d.rcr_nsel)
  b("#define ", P, "_RCR_SWITCH ", d.scalar == "float" and "1e-2f" or "1e-2")
  b("/* ... and the pivot ratios below which its answer is refined: of a tail's reduced mass")
  b(" * matrix (to its diagonal) and of a head joint (to the head's mass before its reduction) */")
  b("#define ", P, "_RCR_REFINE ", d.scalar == "float" and "1e-2f" or "1e-2")
  b("#define ", P, "_RCR_REFINE_HEAD ", d.scalar == "float" and "1e-1f" or "1e-1")
end

function M.declare_table(b, d)
  local p, P = d.prefix, d.PREFIX
  b("")
  b("/* The dependent velocity coordinates of each selection (", P, "_RCR_NSEL x ", P, "_NC). */")
  b("extern const int ", p, "_rcr_dep[", P, "_RCR_NSEL * ", P, "_NC];")
end

function M.declare(b, d)
  local p, P, real = d.prefix, d.PREFIX, d.scalar
  b("/* Forward dynamics of the tree closed by its loop joints by recursive coordinate reduction")
  b(" * (Critchley & Anderson 2003): the qdd of ", p, "_fd_loops on the constraint manifold, in")
  b(" * O(n + m). The first selection of dependent coordinates whose smallest pivot ratio (")
  b(" * ", p, "_rcr_pivots) is >= ", P, "_RCR_SWITCH is used, else the one with the largest ratio;")
  b(" * -1 when none is above ", P, "_PIVOT_EPS, when a pivot of the chosen one fails, or when an")
  b(" * output is not finite. *used (may be NULL) receives the selection's index. Where a tail's")
  b(" * reduced mass matrix has a pivot ratio below ", P, "_RCR_REFINE, or a head joint one below")
  b(" * ", P, "_RCR_REFINE_HEAD, the answer is refined once against the equations of motion and the")
  b(" * loops' constraints. */")
  local pd = M.pi_decl(d)
  b("int ", p, "_rcr(", pd, "const ", real, " q[", P, "_NQ], const ", real, " v[", P,
    "_NV], const ", real, " tau[", P, "_NV], ", real, " qdd[", P, "_NV], int *used);")
  if M.wanted(d, true) then
    b("/* The same with the joint angles' sines and cosines from sc (", p, "_trig). */")
    b("int ", p, "_rcr_sc(", pd, "const ", real, " q[", P, "_NQ], const ", real, " sc[", P,
      "_NSC], const ", real, " v[", P, "_NV], const ", real, " tau[", P, "_NV], ", real, " qdd[",
      P, "_NV], int *used);")
  end
end

function M.define_table(b, d)
  local p, P = d.prefix, d.PREFIX
  local dep = {}
  for k, x in ipairs(d.rcr_dep) do dep[k] = tostring(x) end
  b("")
  b("const int ", p, "_rcr_dep[", P, "_RCR_NSEL * ", P, "_NC] = {", table.concat(dep, ", "), "};")
end

-- With run-time parameters (--parameters) p_rcr takes pi first and passes it to the variants,
-- which depend on the inertias (the pivot ratios p_rcr_pivots do not).
function M.pi_decl(d)
  return d.params and ("const " .. d.scalar .. " pi[" .. d.PREFIX .. "_NPI], ") or ""
end

function M.define(b, d, sc)
  local p, P, real = d.prefix, d.PREFIX, d.scalar
  -- sc: p_rcr_sc over the _sc twins (--trig-input), its sines and cosines passed on; qa the
  -- arguments up to v of the variants and the refinements, qp those of p_rcr_pivots
  local x, qp = sc and "_sc" or "", sc and "q, sc" or "q"
  local qa = (d.params and "pi, " or "") .. qp
  local qd = M.pi_decl(d) .. "const " .. real .. " q[" .. P .. "_NQ]" ..
    (sc and (", const " .. real .. " sc[" .. P .. "_NSC]") or "")
  b("")
  b("/* The answer of selection s (status of ", p, "_rcr_s: bit 2, refine it) into qdd. */")
  b("static int ", p, "_rcr_finish", x, "(int s, int status, ", qd, ", const ", real,
    " v[", P, "_NV], const ", real, " tau[", P, "_NV], ", real, " qdd[", P, "_NV]) {")
  b("  ", real, " a[", P, "_NV];")
  b("  int k, rc = -1;")
  b("  if (status < 0) return -1;")
  b("  if (!(status & 2)) return 0;")
  b("  for (k = 0; k < ", P, "_NV; k++) a[k] = qdd[k];")
  b("  switch (s) {")
  for s = 0, d.rcr_nsel - 1 do
    b("  case ", s, ": rc = ", p, "_rcr_refine_", s, x, "(", qa, ", v, tau, a, qdd); break;")
  end
  b("  default: break;")
  b("  }")
  b("  return rc < 0 ? -1 : 0;")
  b("}")
  b("")
  b("int ", p, "_rcr", x, "(", qd, ", const ", real, " v[", P, "_NV], const ", real,
    " tau[", P, "_NV], ", real, " qdd[", P, "_NV], int *used) {")
  b("  ", real, " ratio[", P, "_RCR_NSEL * ", P, "_NC], best = -1;")
  b("  int s, k, use = -1, rc = -1;")
  b("  /* the first selection whose variant finds every pivot ratio >= ", P, "_RCR_SWITCH (bit 1")
  b("   * clear) */")
  for s = 0, d.rcr_nsel - 1 do
    b("  rc = ", p, "_rcr_", s, x, "(", qa, ", v, tau, qdd);")
    b("  if (rc >= 0 && !(rc & 1)) {")
    b("    if (used) *used = ", s, ";")
    b("    return ", p, "_rcr_finish", x, "(", s, ", rc, ", qa, ", v, tau, qdd);")
    b("  }")
  end
  b("  /* none: the one whose smallest pivot ratio is largest, if it is above ", P, "_PIVOT_EPS */")
  b("  ", p, "_rcr_pivots", x, "(", qp, ", ratio);")
  b("  for (s = 0; s < ", P, "_RCR_NSEL; s++) {")
  b("    ", real, " lo = ratio[s * ", P, "_NC];")
  b("    for (k = 1; k < ", P, "_NC; k++)")
  b("      if (!(ratio[s * ", P, "_NC + k] >= lo)) lo = ratio[s * ", P, "_NC + k];")
  b("    if (lo > best) {")
  b("      use = s;")
  b("      best = lo;")
  b("    }")
  b("  }")
  b("  if (!(best > ", P, "_PIVOT_EPS)) return -1;")
  b("  if (used) *used = use;")
  b("  switch (use) {")
  for s = 0, d.rcr_nsel - 1 do
    b("  case ", s, ": rc = ", p, "_rcr_", s, x, "(", qa, ", v, tau, qdd); break;")
  end
  b("  default: break;")
  b("  }")
  b("  return ", p, "_rcr_finish", x, "(use, rc, ", qa, ", v, tau, qdd);")
  b("}")
end

return M
