-- batch.lua — --batch: every function f over n states at once (docs/batch.md). Its arguments
-- are arrays of n states in structure-of-arrays layout: element k of state i is x[k * n + i].
-- P_f_batch_range(n, i0, i1, ...) computes states i0 .. i1 - 1: blocks of P_LANES states by
-- P_f_lanes, whose every statement is a loop over the lanes that compilers turn into vector
-- instructions (the body mbdc emits in lane mode, mbg_sym_emit_opts.lanes), the rest one state at
-- a time by P_f itself. A function whose body is not one graph (an epilogue, parts, rcr, the
-- projections) runs every state by P_f. P_f_batch is the whole range; P_f_batch_threads splits it
-- over OpenMP threads when compiled with OpenMP (else it is P_f_batch).
local M = {}

-- A parameter as the batch functions see it, from its scalar declaration ("const double
-- q[P_NQ]", "double dt", "const int contacts[P_NCONTACT]", "int *used"): name, type, size (nil:
-- one number per state), input, output.
local function param(decl, is_output)
  local const, ctype, name, size = decl:match("^(c?o?n?s?t?)%s*(%a+)%s+%*?([%w_]+)%[?(.-)%]?$")
  if not name then error("batch: cannot read the declaration '" .. decl .. "'") end
  return { name = name, type = ctype, size = size ~= "" and size or nil,
           input = const ~= "" or not is_output, output = is_output }
end

-- The functions with a batch form: d.functions (lanes where the body allows), then p_rcr,
-- p_rcr_sc and the projections (one state at a time). Each {cname, returns, params, lanes =
-- the lane body's marker or nil, f}.
function M.entries(d, rcr, project)
  local list = {}
  for _, f in ipairs(d.functions) do
    local ps, scalar_only = {}, f.nparts > 1 or f.epilogue ~= nil or not f.lanes
    for k, p in ipairs(f.params) do
      ps[k] = param(p.decl, p.is_output)
      ps[k].used = p.used
      if ps[k].type == "int" then scalar_only = true end
    end
    list[#list + 1] = { cname = f.cname, returns = f.returns, params = ps, f = f,
                        lanes = not scalar_only and f.lanes or nil }
  end
  local P, real = d.PREFIX, d.scalar
  local function arr(name, size, out, inout)
    return { name = name, type = real, size = size, input = not out or inout, output = out }
  end
  local pi = d.params and rcr.pi_decl(d) ~= "" and { arr("pi", P .. "_NPI") } or {}
  local function with_pi(t)
    local all = {}
    for _, p in ipairs(pi) do all[#all + 1] = p end
    for _, p in ipairs(t) do all[#all + 1] = p end
    return all
  end
  if rcr.wanted(d) then
    for sc = 0, rcr.wanted(d, true) and 1 or 0 do
      local ps = { arr("q", P .. "_NQ") }
      if sc == 1 then ps[#ps + 1] = arr("sc", P .. "_NSC") end
      for _, p in ipairs({ arr("v", P .. "_NV"), arr("tau", P .. "_NV"),
                           arr("qdd", P .. "_NV", true),
                           { name = "used", type = "int", output = true, input = false } }) do
        ps[#ps + 1] = p
      end
      list[#list + 1] = { cname = d.prefix .. (sc == 1 and "_rcr_sc" or "_rcr"), returns = "int",
                          params = with_pi(ps) }
    end
  end
  if project.wanted(d) then
    list[#list + 1] = { cname = d.prefix .. "_project_q", returns = "int",
                        params = { arr("q", P .. "_NQ", true, true) } }
    list[#list + 1] = { cname = d.prefix .. "_project_v", returns = "int",
                        params = { arr("q", P .. "_NQ"), arr("v", P .. "_NV", true, true) } }
  end
  return list
end

-- "const double *restrict q" (restrict: RESTRICT, the header's P_RESTRICT, in a declaration)
local function pointer(p, restrict)
  return (p.input and not p.output and "const " or "") .. p.type .. " *" ..
         (restrict or "restrict") .. " " .. p.name
end

-- "const double *restrict q, ..." (the batch functions' parameters after n), with the status
-- array of an int function.
local function batch_params(e, restrict)
  local t = {}
  for k, p in ipairs(e.params) do t[k] = pointer(p, restrict) end
  if e.returns == "int" then t[#t + 1] = "int *" .. (restrict or "restrict") .. " status" end
  return table.concat(t, ", ")
end

local function args_from(e, at)
  local t = {}
  for k, p in ipairs(e.params) do t[k] = p.name .. at end
  if e.returns == "int" then t[#t + 1] = "status" .. at end
  return table.concat(t, ", ")
end

function M.declare(b, d, e)
  local ret, r = e.returns, d.PREFIX .. "_RESTRICT"
  b(ret, " ", e.cname, "_batch(int n, ", batch_params(e, r), ");")
  b(ret, " ", e.cname, "_batch_range(int n, int i0, int i1, ", batch_params(e, r), ");")
  b(ret, " ", e.cname, "_batch_threads(int n, ", batch_params(e, r), ");")
end

-- The header's account of the batch functions, before their declarations.
function M.header_intro(b, d)
  local P, p = d.PREFIX, d.prefix
  b("")
  b("/* Batch functions (mbdc generate --batch; docs/batch.md). For every function ", p, "_f:")
  b(" *   ", p, "_f_batch(n, args...): n states at once. Every array argument of ", p, "_f")
  b(" *     (and a number such as dt) holds n states in structure-of-arrays layout: element k")
  b(" *     of state i is x[k * n + i]. No argument may overlap another. An int function takes")
  b(" *     status[n] last (may be NULL), status[i] = what ", p, "_f returns for state i, and")
  b(" *     returns how many states failed (status < 0). n <= 0: nothing.")
  b(" *   ", p, "_f_batch_range(n, i0, i1, args...): states i0 <= i < i1 of the same n-state")
  b(" *     arrays (for a caller's own threads: ranges starting at multiples of ", P, "_LANES")
  b(" *     keep every block full).")
  b(" *   ", p, "_f_batch_threads(n, args...): ", p, "_f_batch split over OpenMP threads when")
  b(" *     ", p, "_dynamics.c is compiled with OpenMP (-fopenmp), else ", p, "_f_batch.")
  b(" * States are computed in blocks of ", P, "_LANES (", p, "_dynamics.c: 8 doubles or 16 floats")
  b(" * where AVX-512 is enabled, else 4 doubles or 8 floats; -D", P, "_LANES=N sets it), each")
  b(" * statement a loop over the block that compilers vectorize at -O3; the states after the last")
  b(" * full block, and every state of a function marked 'one state at a time' below, by ", p,
    "_f.")
  b(" * The results are those of n calls of ", p, "_f bit for bit when the compiler does not")
  b(" * contract a * b + c into a fused multiply-add (-ffp-contract=off, or GCC's ISO modes):")
  b(" * with contraction each may round differently, within the functions' own accuracy.")
  b(" * ", P, "_RESTRICT is C99's restrict (a C++ compiler's __restrict). */")
  b("#define ", P, "_HAVE_BATCH 1")
  b("#ifdef __cplusplus")
  b("#define ", P, "_RESTRICT __restrict")
  b("#else")
  b("#define ", P, "_RESTRICT restrict")
  b("#endif")
end

-- P_LANES and the vector block functions' helpers, once in P_dynamics.c.
function M.source_intro(b, d)
  local P, fl = d.PREFIX, d.scalar == "float"
  b("")
  b("/* The states per block of the batch functions (", d.prefix, "_dynamics.h): one vector")
  b(" * register's worth where AVX-512 is enabled, else two AVX2 registers' (measured best in")
  b(" * docs/batch.md). */")
  b("#ifndef ", P, "_LANES")
  b("#if defined(__AVX512F__)")
  b("#define ", P, "_LANES ", fl and "16" or "8")
  b("#else")
  b("#define ", P, "_LANES ", fl and "8" or "4")
  b("#endif")
  b("#endif")
  b("/* Before every loop over the lanes but those of a call (sqrt, atan2, ...): clang would")
  b(" * otherwise unroll such a loop of a constant count first and then vectorize only parts of")
  b(" * it (docs/batch.md); where it still cannot, the loop stays as it is, without a warning. */")
  b("#if defined(__clang__)")
  b("#pragma clang diagnostic ignored \"-Wpass-failed\"")
  b("#define ", P, "_LANE_LOOP _Pragma(\"clang loop vectorize(enable) interleave(disable) ",
    "unroll(disable)\")")
  b("#else")
  b("#define ", P, "_LANE_LOOP")
  b("#endif")
end

-- The block function P_f_lanes: P_LANES states of the caller's arrays (stride n) from pointers
-- already offset to the block's first state; an int function's per-lane status as P_f returns
-- it (the pivots', the outputs' finiteness, the rcr bits).
local function define_lanes(b, d, e)
  local f, P, scalar = e.f, d.PREFIX, d.scalar
  local L, zero = P .. "_LANES", scalar == "float" and "0.0f" or "0.0"
  local t = { "ptrdiff_t n" }
  for _, p in ipairs(e.params) do t[#t + 1] = pointer(p) end
  if e.returns == "int" then t[#t + 1] = "int *restrict status" end
  b("")
  b("/* ", L, " states of ", e.cname, " (", e.cname,
    "_batch): element k of lane l at x[k * n + l]. */")
  b("static void ", e.cname, "_lanes(", table.concat(t, ", "), ") {")
  local pivots = { { "pivot", f.npivots }, { "pivot_switch", f.nswitch },
                   { "pivot_refine", f.nrefine }, { "pivot_head", f.nhead } }
  for _, pv in ipairs(pivots) do
    if pv[2] > 0 then
      b("  ", scalar, " ", pv[1], "[", pv[2], " * ", L, "], ", pv[1], "_ref[", pv[2], " * ", L,
        "];")
    end
  end
  for _, p in ipairs(e.params) do
    if not p.used then b("  (void)", p.name, ";") end
  end
  b(f.lanes)
  if e.returns == "int" then
    local function ref(a, k) return a .. "[" .. k .. " * " .. L .. " + l]" end
    b("  for (int l = 0; l < ", L, "; l++) {")
    b("    int mbdc_st = 0;")
    if f.npivots > 0 then
      b("    for (int mbdc_k = 0; mbdc_k < ", f.npivots, "; mbdc_k++)")
      b("      if (!(", ref("pivot_ref", "mbdc_k"), " > ", zero, " && ", ref("pivot", "mbdc_k"),
        " > ", P, "_PIVOT_EPS * ", ref("pivot_ref", "mbdc_k"), ")) mbdc_st = -1;")
    end
    for _, p in ipairs(e.params) do
      if p.output then
        b("    for (int mbdc_k = 0; mbdc_st == 0 && mbdc_k < ", p.size or "1", "; mbdc_k++)")
        b("      if (!isfinite(", p.name, "[mbdc_k * n + l])) mbdc_st = -1;")
      end
    end
    local bits = { { "pivot_switch", f.nswitch, "_RCR_SWITCH", 1 },
                   { "pivot_refine", f.nrefine, "_RCR_REFINE", 2 },
                   { "pivot_head", f.nhead, "_RCR_REFINE_HEAD", 2 } }
    if f.refine_always ~= 0 then b("    if (mbdc_st == 0) mbdc_st = 2;") end
    for _, x in ipairs(bits) do
      if x[2] > 0 then
        b("    for (int mbdc_k = 0; mbdc_st >= 0 && mbdc_k < ", x[2], "; mbdc_k++)")
        b("      if (!(", ref(x[1], "mbdc_k"), " >= ", P, x[3], " * ",
          ref(x[1] .. "_ref", "mbdc_k"), ")) mbdc_st |= ", x[4], ";")
      end
    end
    b("    status[l] = mbdc_st;")
    b("  }")
  end
  b("}")
end

-- One state by the scalar function: its arguments gathered from the n-state arrays into locals
-- (mbdc_<name>), the call, the outputs scattered back. The locals of the batch functions are
-- mbdc_*: no parameter of a recipe takes such a name.
local function one_state(b, e, ind)
  local args = {}
  for _, p in ipairs(e.params) do
    local v = "mbdc_" .. p.name
    if p.size then
      b(ind, p.type, " ", v, "[", p.size, "];")
      if p.input then
        b(ind, "for (int mbdc_k = 0; mbdc_k < ", p.size, "; mbdc_k++) ", v, "[mbdc_k] = ", p.name,
          "[(ptrdiff_t)mbdc_k * n + mbdc_i];")
      end
      args[#args + 1] = v
    elseif p.output then -- int *used: one int per state
      b(ind, p.type, " ", v, " = 0;")
      args[#args + 1] = "&" .. v
    else -- a number per state (dt)
      args[#args + 1] = p.name .. "[mbdc_i]"
    end
  end
  local call = e.cname .. "(" .. table.concat(args, ", ") .. ")"
  if e.returns == "int" then b(ind, "const int mbdc_st = ", call, ";") else b(ind, call, ";") end
  for _, p in ipairs(e.params) do
    local v = "mbdc_" .. p.name
    if p.output and p.size then
      b(ind, "for (int mbdc_k = 0; mbdc_k < ", p.size, "; mbdc_k++) ", p.name,
        "[(ptrdiff_t)mbdc_k * n + mbdc_i] = ", v, "[mbdc_k];")
    elseif p.output then -- rcr's used: may be NULL, as p_rcr's
      b(ind, "if (", p.name, ") ", p.name, "[mbdc_i] = ", v, ";")
    end
  end
  if e.returns == "int" then
    b(ind, "mbdc_failed += mbdc_st < 0;")
    b(ind, "if (status) status[mbdc_i] = mbdc_st;")
  end
end

-- A parameter whose name the batch functions' own would shadow or clash with.
local reserved = { n = true, l = true, i0 = true, i1 = true, status = true }

function M.define(b, d, e)
  local P, int = d.PREFIX, e.returns == "int"
  local L = P .. "_LANES"
  for _, p in ipairs(e.params) do
    if reserved[p.name] or p.name:match("^mbdc_") then
      error("batch: " .. e.cname .. "'s parameter '" .. p.name .. "' clashes with the batch " ..
            "functions' own names")
    end
  end
  if e.lanes then define_lanes(b, d, e) end
  b("")
  b("/* ", e.cname, " over states i0 .. i1 - 1 of n (", d.prefix, "_dynamics.h)",
    e.lanes and (": blocks of " .. L .. " lanes, then one at a time") or ": one state at a time",
    ". */")
  b(e.returns, " ", e.cname, "_batch_range(int n, int i0, int i1, ", batch_params(e), ") {")
  if int then b("  int mbdc_failed = 0;") end
  b("  int mbdc_i = i0 > 0 ? i0 : 0;")
  b("  if (i1 > n) i1 = n;")
  if e.lanes then
    b("  for (; mbdc_i <= i1 - ", L, "; mbdc_i += ", L, ") {")
    local at = {}
    for k, p in ipairs(e.params) do at[k] = p.name .. " + mbdc_i" end
    if int then
      b("    int mbdc_st[", L, "];")
      at[#at + 1] = "mbdc_st"
    end
    b("    ", e.cname, "_lanes(n, ", table.concat(at, ", "), ");")
    if int then
      b("    for (int mbdc_l = 0; mbdc_l < ", L, "; mbdc_l++) {")
      b("      mbdc_failed += mbdc_st[mbdc_l] < 0;")
      b("      if (status) status[mbdc_i + mbdc_l] = mbdc_st[mbdc_l];")
      b("    }")
    end
    b("  }")
  end
  b("  for (; mbdc_i < i1; mbdc_i++) {")
  one_state(b, e, "    ")
  b("  }")
  if int then b("  return mbdc_failed;") end
  b("}")
  b("")
  b(e.returns, " ", e.cname, "_batch(int n, ", batch_params(e), ") {")
  b("  ", int and "return " or "", e.cname, "_batch_range(n, 0, n, ", args_from(e, ""), ");")
  b("}")
  b("")
  b("/* Blocks of 16 ", L, " states shared among OpenMP's threads when compiled with it. */")
  b(e.returns, " ", e.cname, "_batch_threads(int n, ", batch_params(e), ") {")
  b("  const int mbdc_chunk = 16 * ", L, ";")
  b("  const int mbdc_nchunk = n > 0 ? n / mbdc_chunk + (n % mbdc_chunk != 0) : 0;")
  if int then b("  int mbdc_failed = 0;") end
  b("#ifdef _OPENMP")
  b("#pragma omp parallel for schedule(static)", int and " reduction(+ : mbdc_failed)" or "")
  b("#endif")
  b("  for (int mbdc_c = 0; mbdc_c < mbdc_nchunk; mbdc_c++) {")
  b("    const int mbdc_i0 = mbdc_c * mbdc_chunk;")
  b("    const int mbdc_i1 = n - mbdc_i0 < mbdc_chunk ? n : mbdc_i0 + mbdc_chunk;")
  b("    ", int and "mbdc_failed += " or "", e.cname, "_batch_range(n, mbdc_i0, mbdc_i1, ",
    args_from(e, ""), ");")
  b("  }")
  if int then b("  return mbdc_failed;") end
  b("}")
end

return M
