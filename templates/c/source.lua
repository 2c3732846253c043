-- source.lua — <prefix>_dynamics.c: the name tables and one flat function per recipe.
local common = import "c/common"
local project = import "c/project"
local rcr = import "c/rcr"
local epilogue_contact = import "c/epilogue_contact"
local batch = import "c/batch"

local function quoted_list(items, field)
  local out = {}
  for k, item in ipairs(items) do out[k] = '"' .. (field and item[field] or item) .. '"' end
  return table.concat(out, ", ")
end

-- A global const double array, 8 numbers a line.
local function vector(b, decl, items)
  b("const double ", decl, " = {")
  for k = 1, #items, 8 do
    local row = {}
    for j = k, math.min(k + 7, #items) do row[#row + 1] = items[j] end
    b("  ", table.concat(row, ", "), ",")
  end
  b("};")
end

-- The columns c0 .. NC − 1 of X (NV × NC row-major) become −Minv times themselves, in place: per
-- column an axpy over the rows of M⁻¹ (symmetric: row l is column l, contiguous) for each nonzero
-- entry, found at run time.
local function column_product(b, ind, X, NC, c0, NV, scalar, zero)
  b(ind, "for (int ep_c = ", c0, "; ep_c < ", NC, "; ep_c++) {")
  b(ind, "  ", scalar, " ep_col[", NV, "], ep_acc[", NV, "];")
  b(ind, "  for (int ep_r = 0; ep_r < ", NV, "; ep_r++)")
  b(ind, "    ep_col[ep_r] = ", X, "[", NC, " * ep_r + ep_c], ep_acc[ep_r] = ", zero, ";")
  b(ind, "  for (int ep_l = 0; ep_l < ", NV, "; ep_l++) {")
  b(ind, "    if (ep_col[ep_l] == ", zero, ") continue;")
  b(ind, "    for (int ep_r = 0; ep_r < ", NV, "; ep_r++)")
  b(ind, "      ep_acc[ep_r] -= Minv[", NV, " * ep_l + ep_r] * ep_col[ep_l];")
  b(ind, "  }")
  b(ind, "  for (int ep_r = 0; ep_r < ", NV, "; ep_r++)")
  b(ind, "    ", X, "[", NC, " * ep_r + ep_c] = ep_acc[ep_r];")
  b(ind, "}")
end

-- The epilogue minus_minv_product: dqdd_dx = −M⁻¹ dtau_dx for x = q, v, in place (the graph wrote
-- dtau_dx into dqdd_dx), column by column: the column's nonzero rows of dtau_dx — f.minv_runs,
-- from the graph: runs of consecutive rows as (NV l_first, NV (l_last + 1)), the dofs on other
-- branches and a floating base's translation columns of dtau_dq left out — times the rows of M⁻¹
-- (symmetric: row l is column l, contiguous), four rows at a time into NV accumulators that the
-- compiler keeps in vector registers, then stored down the column. The table is constant; the
-- product stays a loop (unrolled, it was most of the compile time: docs/derivatives.md).
local function minus_minv_product(b, f, P, scalar, zero)
  local runs = f.minv_runs and f.minv_runs.runs
  if not runs then error("minus_minv_product: no runs (out of memory)") end
  if #runs == 0 then return end -- both matrices zero: nothing to multiply
  if (#f.minv_runs.start - 1) / 2 < 12 then
    -- a small nv (the Panda's 7): per column, an axpy over the rows of M⁻¹ for each nonzero
    -- entry, found at run time; the runs' bookkeeping would cost more than it saves
    b("  /* dqdd_dq = -Minv dtau_dq and dqdd_dv = -Minv dtau_dv (in place), column by column */")
    b("  for (int ep_m = 0; ep_m < 2; ep_m++) {")
    b("    ", scalar, " *ep_X = ep_m ? dqdd_dv : dqdd_dq;")
    column_product(b, "    ", "ep_X", P .. "_NV", 0, P .. "_NV", scalar, zero)
    b("  }")
    return
  end
  local top = 0
  for _, x in ipairs(runs) do top = math.max(top, tonumber(x)) end
  local itype = top <= 65535 and "unsigned short" or "long"
  local NV = P .. "_NV"
  local function list(decl, items)
    b("    static const ", itype, " ", decl, " = {")
    for k = 1, #items, 12 do
      local last = math.min(k + 11, #items)
      b("      ", table.concat(items, ", ", k, last), last < #items and "," or "")
    end
    b("    };")
  end
  b("  /* dqdd_dq = -Minv dtau_dq and dqdd_dv = -Minv dtau_dv (in place), column by column over")
  b("   * the column's nonzero rows: runs ep_run[ep_at[k] ..] of rows (", NV, " first, ", NV,
    " end) */")
  b("  {")
  list("ep_at[2 * " .. NV .. " + 1]", f.minv_runs.start)
  list("ep_run[" .. #runs .. "]", runs)
  b("    for (int ep_k = 0; ep_k < 2 * ", NV, "; ep_k++) {")
  b("      if (ep_at[ep_k] == ep_at[ep_k + 1]) continue;")
  b("      ", scalar, " *ep_X = ep_k < ", NV, " ? dqdd_dq + ep_k : dqdd_dv + (ep_k - ", NV, ");")
  b("      ", scalar, " ep_acc[", NV, "];")
  b("      for (int ep_r = 0; ep_r < ", NV, "; ep_r++) ep_acc[ep_r] = ", zero, ";")
  b("      for (int ep_j = ep_at[ep_k]; ep_j < ep_at[ep_k + 1]; ep_j += 2) {")
  b("        long ep_o = ep_run[ep_j], ep_e = ep_run[ep_j + 1];")
  b("        for (; ep_o + 3 * ", NV, " < ep_e; ep_o += 4 * ", NV, ") {")
  b("          const ", scalar, " *ep_m = Minv + ep_o;")
  b("          ", scalar, " *ep_x = ep_X + ep_o;")
  b("          ", scalar, " ep_x0 = ep_x[0], ep_x1 = ep_x[", NV, "];")
  b("          ", scalar, " ep_x2 = ep_x[2 * ", NV, "], ep_x3 = ep_x[3 * ", NV, "];")
  b("          /* a store (of a value rewritten below) outside the inner loop: without it gcc -O3")
  b("           * unrolls and jams the nest, and runs it 2 to 6 times slower */")
  b("          ep_x[0] = ", zero, ";")
  b("          for (int ep_r = 0; ep_r < ", NV, "; ep_r++)")
  b("            ep_acc[ep_r] = ep_acc[ep_r] - ep_m[ep_r] * ep_x0 - ep_m[", NV, " + ep_r] * ep_x1")
  b("                           - ep_m[2 * ", NV, " + ep_r] * ep_x2 - ep_m[3 * ", NV,
    " + ep_r] * ep_x3;")
  b("        }")
  b("        for (; ep_o < ep_e; ep_o += ", NV, ") {")
  b("          const ", scalar, " *ep_m = Minv + ep_o;")
  b("          ", scalar, " ep_x0 = ep_X[ep_o];")
  b("          ep_X[ep_o] = ", zero, ";")
  b("          for (int ep_r = 0; ep_r < ", NV, "; ep_r++) ep_acc[ep_r] -= ep_m[ep_r] * ep_x0;")
  b("        }")
  b("      }")
  b("      for (int ep_r = 0; ep_r < ", NV, "; ep_r++) ep_X[", NV, " * ep_r] = ep_acc[ep_r];")
  b("    }")
  b("  }")
end

-- aba_ext_derivatives' dqdd_dfext = −M⁻¹ dtau_dfext (in place), column by column as the plain
-- loop of minus_minv_product (a column's zero entries, the dofs not on the path to its body,
-- skipped at run time; body 0's six columns are zero).
local function minus_minv_fext(b, P, scalar, zero)
  b("  /* dqdd_dfext = -Minv dtau_dfext (in place), column by column */")
  column_product(b, "  ", "dqdd_dfext", "6 * (" .. P .. "_NB + 1)", 6, P .. "_NV", scalar, zero)
end

return function(d)
  local b = common.buffer()
  local P, scalar = d.PREFIX, d.scalar
  local zero = scalar == "float" and "0.0f" or "0.0"
  common.banner(b, d, d.prefix .. "_dynamics.c", "the dynamics of model '" .. d.prefix .. "'.")
  b("#include \"", d.prefix, "_dynamics.h\"")
  b("")
  local sincos = false -- the built-in sine-cosine batch, written once before the functions
  for _, f in ipairs(d.functions) do sincos = sincos or (f.counts.sincos > 0 and d.trig == "builtin") end
  if sincos then b("#include <float.h>") end -- FLT_EVAL_METHOD
  b("#include <math.h>")
  if d.batch then b("#include <stddef.h>") end -- ptrdiff_t
  if sincos then b("#include <stdint.h>") end -- the quadrant applied to the bits
  b("")
  common.set_check(b, d, d.prefix .. "_dynamics.c")
  b("")
  if sincos then
    b(template_text(scalar == "float" and "c/sincos_float.c" or "c/sincos_double.c"))
  end
  local ep_kinds = {} -- the row sweeps of the contact derivatives' epilogues, once
  for _, f in ipairs(d.functions) do
    if epilogue_contact.kinds[f.epilogue] then ep_kinds[#ep_kinds + 1] = f.epilogue end
  end
  epilogue_contact.helpers(b, d, ep_kinds)
  local iq, iv = {}, {}
  for k, j in ipairs(d.joints) do iq[k], iv[k] = j.iq, j.iv end
  b("const char *const ", d.prefix, "_joint_names[", P, "_NJ] = {", quoted_list(d.joints, "name"), "};")
  b("const int ", d.prefix, "_joint_iq[", P, "_NJ] = {", table.concat(iq, ", "), "};")
  b("const int ", d.prefix, "_joint_iv[", P, "_NJ] = {", table.concat(iv, ", "), "};")
  local cnames, ciq = {}, {}
  for _, j in ipairs(d.joints) do
    for k = 1, j.mimics and 0 or j.nv do -- a coupled joint's coordinate is its source's
      cnames[#cnames + 1] = j.nv == 1 and j.name or (j.name .. "." .. k)
      ciq[#ciq + 1] = (j.nv == 1 and j.nq == 1) and j.iq or -1
    end
    for k = 1, j.nm do -- a flexible body's modal coordinates: body.eta1, ...
      cnames[#cnames + 1] = j.body .. ".eta" .. k
      ciq[#ciq + 1] = j.iq + j.nq + k - 1
    end
  end
  b("const char *const ", d.prefix, "_coord_names[", P, "_NV] = {", quoted_list(cnames), "};")
  b("const int ", d.prefix, "_coord_iq[", P, "_NV] = {", table.concat(ciq, ", "), "};")
  if #d.trig_slots > 0 then
    local tiq, tth = {}, {}
    for k, t in ipairs(d.trig_slots) do
      tiq[k], tth[k] = t.iq, scalar == "float" and (t.theta .. "f") or t.theta
    end
    b("const int ", d.prefix, "_trig_iq[", P, "_NSC / 2] = {", table.concat(tiq, ", "), "};")
    b("const ", scalar, " ", d.prefix, "_trig_theta[", P, "_NSC / 2] = {", table.concat(tth, ", "),
      "};")
  end
  b("const char *const ", d.prefix, "_body_names[", P, "_NB + 1] = {\"world\", ",
    quoted_list(d.bodies, "name"), "};")
  b("const char *const ", d.prefix, "_frame_names[", P, "_NF] = {", quoted_list(d.frames, "name"),
    "};")
  if d.nnodes > 0 then
    b("const char *const ", d.prefix, "_node_names[", P, "_NNODES] = {", quoted_list(d.node_names),
      "};")
  end
  if (d.nc or 0) > 0 then
    b("const char *const ", d.prefix, "_constraint_names[", P, "_NC] = {", quoted_list(d.constraints),
      "};")
    b("const ", scalar, " ", d.prefix, "_q_assembled[", P, "_NQ] = {",
      table.concat(d.q_assembled, ", "), "};")
  end
  -- defined here, where the header that declares it is implemented: a program linking only the
  -- generated functions gets it too (double in every scalar type, as the runtime's model)
  b("/* The model's initial state (", d.prefix, "_dynamics.h). */")
  vector(b, d.prefix .. "_q_initial[" .. P .. "_NQ]", d.q_initial)
  vector(b, d.prefix .. "_v_initial[" .. P .. "_NV]", d.v_initial)
  b("/* The joints' limits (", d.prefix, "_dynamics.h). */")
  vector(b, d.prefix .. "_q_min[" .. P .. "_NQ]", d.limits.q_min)
  vector(b, d.prefix .. "_q_max[" .. P .. "_NQ]", d.limits.q_max)
  vector(b, d.prefix .. "_v_max[" .. P .. "_NV]", d.limits.v_max)
  vector(b, d.prefix .. "_tau_max[" .. P .. "_NV]", d.limits.tau_max)
  -- the runtime model's inertias (world first: [m, h, ixx iyy izz ixy ixz iyz]) reordered as
  -- Pinocchio's parameters (runtime/regressor.c mb_params_of_inertia)
  local pin, pi_all = { 1, 2, 3, 4, 5, 8, 6, 9, 10, 7 }, {}
  for i = 1, d.nb do
    for k = 1, 10 do pi_all[#pi_all + 1] = d.rt.inertia[10 * i + pin[k]] end
  end
  b("/* The standard inertial parameters (", d.prefix, "_dynamics.h). */")
  vector(b, d.prefix .. "_pi_all[" .. P .. "_NREG]", pi_all)
  if d.params then
    b("/* The run-time parameters' names and the model file's values (", d.prefix,
      "_dynamics.h). */")
    vector(b, d.prefix .. "_pi_model[" .. P .. "_NPI]", d.params.values)
    b("const char *const ", d.prefix, "_pi_names[", P, "_NPI] = {", quoted_list(d.params.names), "};")
  end
  for _, f in ipairs(d.functions) do
    local decls = {}
    for k, p in ipairs(f.params) do decls[k] = p.decl end
    local c = f.counts
    b("")
    if f.nparts > 1 then -- a long body cut into static functions (docs/generator.md)
      b("/* the statements of ", f.cname, ", in ", f.nparts, " parts: a long function compiles ",
        "faster in parts */")
      b(f.parts)
      b("")
    end
    b("/* ", f.summary, "; ", c.mul, " mul, ", c.add, " add, ", c.div, " div, ", c.sqrt, " sqrt, ",
      c.trig, " sin/cos", f.frame and ("; frames: " .. f.frame) or "", ". */")
    b(f.returns, " ", f.cname, "(", table.concat(decls, ", "), ") {")
    if f.npivots > 0 then
      b("  ", scalar, " pivot[", f.npivots, "], pivot_ref[", f.npivots, "];")
    end
    if f.nswitch > 0 then
      b("  ", scalar, " pivot_switch[", f.nswitch, "], pivot_switch_ref[", f.nswitch, "];")
    end
    if f.nrefine > 0 then
      b("  ", scalar, " pivot_refine[", f.nrefine, "], pivot_refine_ref[", f.nrefine, "];")
    end
    if f.nhead > 0 then
      b("  ", scalar, " pivot_head[", f.nhead, "], pivot_head_ref[", f.nhead, "];")
    end
    for _, p in ipairs(f.params) do
      if not p.used then b("  (void)", p.name, ";") end
      if p.role == "contacts" or p.role == "mask" then
        b("  /* ", p.name, "[k]: ", p.role == "mask" and "1 prescribed, 0 free" or
          "1 in contact, 0 not", "; anything else is refused */")
        b("  for (int k = 0; k < ", p.size, "; k++)")
        b("    if (", p.name, "[k] != 0 && ", p.name, "[k] != 1) return -1;")
      end
    end
    b(f.body)
    if epilogue_contact.kinds[f.epilogue] then epilogue_contact.body(b, d, f.epilogue) end
    if f.epilogue == "minus_minv_product" then
      minus_minv_product(b, f, P, scalar, zero)
      for _, p in ipairs(f.params) do
        if p.name == "dqdd_dfext" then minus_minv_fext(b, P, scalar, zero) end
      end
    end
    if f.returns == "int" then
      if f.npivots > 0 then
        b("  /* the pivot rule: d accepted iff r > 0 and d > ", P, "_PIVOT_EPS r */")
        b("  for (int k = 0; k < ", f.npivots, "; k++)")
        b("    if (!(pivot_ref[k] > ", zero, " && pivot[k] > ", P, "_PIVOT_EPS * pivot_ref[k])) return -1;")
      end
      -- one flag over every entry, tested once: the loops vectorize (an early return in each
      -- would not), which matters for the derivatives' nv × nv outputs
      b("  /* every output finite: else no finite answer (NaN or Inf input, overflow) */")
      b("  {")
      b("    int nonfinite = 0;")
      for _, p in ipairs(f.params) do
        if p.is_output then
          b("    for (int k = 0; k < ", p.size, "; k++) nonfinite |= !isfinite(", p.name, "[k]);")
        end
      end
      b("    if (nonfinite) return -1;")
      b("  }")
      local always = f.refine_always ~= 0
      local status = f.nswitch > 0 or f.nrefine > 0 or f.nhead > 0 or always
      if always then
        b("  /* a loop hangs from another's tail: qdd is always refined once (bit 2) */")
        b("  int status = 2;")
      elseif status then
        b("  int status = 0;")
      end
      if f.nswitch > 0 then
        b("  /* a dependent coordinate's pivot ratio below ", P, "_RCR_SWITCH: bit 1 (qdd is this")
        b("   * selection's answer, ill-conditioned; ", d.prefix, "_rcr then tries the next) */")
        b("  for (int k = 0; k < ", f.nswitch, "; k++)")
        b("    if (!(pivot_switch[k] >= ", P, "_RCR_SWITCH * pivot_switch_ref[k])) status |= 1;")
      end
      if f.nrefine > 0 then
        b("  /* a reduced mass matrix's pivot ratio below ", P, "_RCR_REFINE: bit 2 (qdd is to be")
        b("   * refined once: ", d.prefix, "_rcr calls the selection's rcr_refine) */")
        b("  for (int k = 0; k < ", f.nrefine, "; k++)")
        b("    if (!(pivot_refine[k] >= ", P, "_RCR_REFINE * pivot_refine_ref[k])) status |= 2;")
      end
      if f.nhead > 0 then
        b("  /* a head joint's pivot ratio below ", P, "_RCR_REFINE_HEAD: bit 2 as well */")
        b("  for (int k = 0; k < ", f.nhead, "; k++)")
        b("    if (!(pivot_head[k] >= ", P, "_RCR_REFINE_HEAD * pivot_head_ref[k])) status |= 2;")
      end
      b("  return ", status and "status" or "0", ";")
    end
    b("}")
  end
  if project.wanted(d) then project.define(b, d) end
  if rcr.any(d) then rcr.define_table(b, d) end
  if rcr.wanted(d) then rcr.define(b, d) end
  if rcr.wanted(d, true) then rcr.define(b, d, true) end
  if d.batch then
    batch.source_intro(b, d)
    for _, e in ipairs(batch.entries(d, rcr, project)) do batch.define(b, d, e) end
  end
  return b.text()
end
