-- check_fd.lua — the part of the harness (check.lua) that checks each derivative function against
-- central differences of the generated function it differentiates, when both are in the file:
-- the derivatives agree with the runtime's (check_compare.lua) and with their own generated
-- function. At the first FD_STATES states where both answer (a -1 from either skips the state),
-- every matrix column k is compared with
--   (f(x ⊕ h e_k) − f(x ⊖ h e_k)) / 2h,
-- x ⊕ h e_k along the tangent space for q (mb_integrate) and a plain step for the others,
-- h = FD_H; each matrix to FD_TOL of its largest entry (truncation h² ≈ 1e-10, rounding
-- ε |f| / h ≈ 1e-11, times the conditioning). Only in double and without coupled joints (whose
-- coordinates the folds reduce); no state where both answer fails the check.
local K = import "c/check_compare"

local F = {}

-- derivative function → its base and, per derivative output, {base output (1-based), input}
local Q1, V1, T1 = { 1, "q" }, { 1, "v" }, { 1, "tau" }
local specs = {
  rnea_derivatives = { base = "rnea", d = { dtau_dq = Q1, dtau_dv = V1, M = { 1, "a" } } },
  rnea_ext_derivatives = { base = "rnea_ext",
                           d = { dtau_dq = Q1, dtau_dv = V1, M = { 1, "a" } } },
  aba_derivatives = { base = "aba", d = { dqdd_dq = Q1, dqdd_dv = V1, Minv = T1 } },
  aba_ext_derivatives = { base = "aba_ext", d = { dqdd_dq = Q1, dqdd_dv = V1, Minv = T1 } },
  fd_loops_derivatives = { base = "fd_loops", d = {
    dqdd_dq = Q1, dqdd_dv = V1, dqdd_dtau = T1,
    dlambda_dq = { 2, "q" }, dlambda_dv = { 2, "v" }, dlambda_dtau = { 2, "tau" } } },
  contact_fd_derivatives = { base = "contact_fd", d = {
    dqdd_dq = Q1, dqdd_dv = V1, dqdd_dtau = T1,
    dforce_dq = { 2, "q" }, dforce_dv = { 2, "v" }, dforce_dtau = { 2, "tau" } } },
  contact_fd_reg_derivatives = { base = "contact_fd_reg", d = {
    dqdd_dq = Q1, dqdd_dv = V1, dqdd_dtau = T1,
    dforce_dq = { 2, "q" }, dforce_dv = { 2, "v" }, dforce_dtau = { 2, "tau" } } },
  impulse_derivatives = { base = "impulse", d = {
    dvplus_dq = Q1, dvplus_dv = { 1, "v_minus" },
    dimpulse_dq = { 2, "q" }, dimpulse_dv = { 2, "v_minus" } } },
}

-- The pairs of d: {f, g (the base), checks = {{out = index of f's output, base = g's output,
-- input = name, name}}} in the functions' order.
function F.pairs(d)
  if d.scalar ~= "double" or d.coupling then return {} end
  local by, list = {}, {}
  for _, f in ipairs(d.functions) do by[f.name] = f end
  for _, f in ipairs(d.functions) do
    local s, g = specs[f.name], specs[f.name] and by[specs[f.name].base]
    if g then
      local x, k = { f = f, g = g, checks = {} }, 0
      for _, p in ipairs(f.params) do
        if K.size_of[p.role] then
          k = k + 1
          local t = s.d[p.name]
          if t then
            x.checks[#x.checks + 1] = { out = k, base = t[1], input = t[2],
                                        name = f.name .. "." .. p.name }
          end
        end
      end
      list[#list + 1] = x
    end
  end
  return list
end

local function count(list)
  local n = 0
  for _, x in ipairs(list) do n = n + #x.checks end
  return n
end
F.count = count

-- The outputs of f (sizes as the harness's), in order.
local function outputs(f)
  local o = {}
  for _, p in ipairs(f.params) do
    if K.size_of[p.role] then o[#o + 1] = K.size_of[p.role] end
  end
  return o
end

-- f's call with its outputs in buf[first ..] and the input `input` (if any) replaced by `with`.
local function call(f, buf, first, input, with)
  local args, k = {}, first
  for j, p in ipairs(f.params) do
    if K.size_of[p.role] then
      args[j], k = buf .. "[" .. k .. "]", k + 1
    elseif p.name == input then
      args[j] = with
    else
      args[j] = K.role_arg[p.role]
    end
  end
  return f.cname .. "(" .. table.concat(args, ", ") .. ")"
end

-- Inside main, after the workspaces: the buffers and the worst errors.
function F.declare(b, d, list)
  if #list == 0 then return end
  local nbuf = 0
  for _, x in ipairs(list) do
    nbuf = math.max(nbuf, #outputs(x.f) + 2 * #outputs(x.g))
  end
  b("  /* the derivatives against central differences of their generated functions */")
  b("  double fd_worst[", count(list), "] = {0};")
  b("  int fd_states[", #list, "] = {0};")
  b("  double *fdb[", nbuf, "];")
  b("  for (int k = 0; k < ", nbuf, "; k++)")
  b("    if (!(fdb[k] = malloc(big * sizeof **fdb)))")
  b("      return fprintf(stderr, \"out of memory\\n\"), 2;")
end

-- At each state (inside the loop, the inputs set): the pairs' checks.
function F.calls(b, d, list)
  local at = 0
  for i, x in ipairs(list) do
    local nf, ng = #outputs(x.f), #outputs(x.g)
    local go = outputs(x.g)
    b("    /* ", x.f.name, " against central differences of ", x.g.name, " */")
    b("    if (fd_states[", i - 1, "] < FD_STATES) {")
    b("      int ok = ", x.f.returns == "int" and "" or "(", call(x.f, "fdb", 0),
      x.f.returns == "int" and " == 0;" or ", 1);")
    local inputs, seen = {}, {}
    for _, c in ipairs(x.checks) do
      if not seen[c.input] then seen[c.input], inputs[#inputs + 1] = true, c.input end
    end
    for _, input in ipairs(inputs) do
      local arr = input == "q" and "gq" or input == "a" and "ga" or input == "tau" and "gtau"
        or "gv"
      b("      for (int k = 0; ok && k < NV; k++) { /* along ", input, " */")
      b("        double xp[NQ + 7], xm[NQ + 7];")
      if input == "q" then
        b("        double e[NV] = {0};")
        b("        e[k] = FD_H;")
        b("        mb_integrate(&M, q, e, 1.0, xp);")
        b("        e[k] = -FD_H;")
        b("        mb_integrate(&M, q, e, 1.0, xm);")
      else
        b("        memcpy(xp, ", arr, ", sizeof(double) * NV), memcpy(xm, ", arr,
          ", sizeof(double) * NV);")
        b("        xp[k] += FD_H, xm[k] -= FD_H;")
      end
      local cp = call(x.g, "fdb", nf, input, "xp")
      local cm = call(x.g, "fdb", nf + ng, input, "xm")
      if x.g.returns == "int" then
        b("        if (", cp, " != 0 || ", cm, " != 0) { ok = 0; break; }")
      else
        b("        ", cp, ", ", cm, ";")
      end
      for j, c in ipairs(x.checks) do
        if c.input == input then
          local n = go[c.base]
          b("        fd_column(&fd_worst[", at + j - 1, "], fdb[", c.out - 1, "], fdb[",
            nf + c.base - 1, "], fdb[", nf + ng + c.base - 1, "], ", n, ", k);")
        end
      end
      b("      }")
    end
    b("      fd_states[", i - 1, "] += ok;")
    b("    }")
    at = at + #x.checks
  end
end

-- Before main: the column comparison.
function F.helpers(b, list)
  if #list == 0 then return end
  b([[
/* The derivatives against central differences of their generated functions (check_fd.lua) */
#define FD_STATES 4
#define FD_H 1e-5
#define FD_TOL 1e-6
/* column k of D (rows × NV, row-major) against (fp - fm) / 2h: the worst error relative to D's
 * largest entry, into *worst */
static void fd_column(double *worst, const double *D, const double *fp, const double *fm,
                      int rows, int k) {
  double scale = 1e-300, err = 0;
  for (int r = 0; r < rows * NV; r++)
    if (fabs(D[r]) > scale) scale = fabs(D[r]);
  for (int r = 0; r < rows; r++) {
    double e = fabs((fp[r] - fm[r]) / (2 * FD_H) - D[NV * r + k]);
    if (!(e <= err)) err = e;
  }
  if (!(err / scale <= *worst)) *worst = err / scale;
}
]])
end

-- After the comparisons with the runtime: the report; the number of failures.
function F.report(b, list)
  if #list == 0 then return end
  local at = 0
  for i, x in ipairs(list) do
    for j, c in ipairs(x.checks) do
      b("  {")
      b("    double w = fd_worst[", at + j - 1, "];")
      b("    int bad = !(w <= FD_TOL) || fd_states[", i - 1, "] == 0;")
      b("    failed += bad;")
      b("    printf(\"  %-23s %12s %12.3e  %s (vs differences of ", x.g.name,
        ", %d states)\\n\", \"", c.name, "\", \"\", w, bad ? \"FAIL\" : \"ok\", fd_states[",
        i - 1, "]);")
      b("  }")
    end
    at = at + #x.checks
  end
end

function F.free(b, list)
  if #list == 0 then return end
  b("  for (size_t k = 0; k < sizeof fdb / sizeof fdb[0]; k++) free(fdb[k]);")
end

return F
