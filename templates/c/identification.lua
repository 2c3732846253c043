-- identification.lua — the header's and the harness's parts for the base parameters and the
-- joints' regressor (docs/identification.md): P_NBASE and the list of the base parameters as
-- combinations of the standard ones (d.base: generator/emit/gen_base.c, present only when the
-- base parameters were computed, i.e. base_regressor, base_params or a recipe asked for them),
-- P_NJ1, and the references the harness compares base_regressor, base_params and
-- joint_regressor with. Text only.
local I = {}

-- the standard parameters of a body, Pinocchio's order (Inertia::toDynamicParameters)
local PARAM = { "m", "mx", "my", "mz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz" }

local function has(d, name)
  for _, f in ipairs(d.functions) do if f.name == name then return true end end
  return false
end

-- "link3.Izz" for standard parameter c (0-based)
local function param_name(d, c)
  return d.bodies[c // 10 + 1].name .. "." .. PARAM[c % 10 + 1]
end

-- base parameter k (1-based) as text: "link2.Izz + link3.Iyy + 0.09 link3.m - 0.3 link3.mx"
local function combination(d, k)
  local col, parts = d.base.col[k], {}
  -- the parameter it is named after first (coefficient 1), then the others in column order
  local terms = { { col, "1.0" } }
  for _, t in ipairs(d.base.K[k]) do if t[1] ~= col then terms[#terms + 1] = t end end
  for j, t in ipairs(terms) do
    local c, coef = t[1], t[2]
    local neg = coef:sub(1, 1) == "-"
    local mag = neg and coef:sub(2) or coef
    local text = (mag == "1.0" and "" or mag .. " ") .. param_name(d, c)
    if j == 1 then parts[1] = (neg and "-" or "") .. text
    else parts[#parts + 1] = (neg and "- " or "+ ") .. text end
  end
  return parts
end

-- The header: after P_pi_all. P_NBASE and the list when the base parameters were computed,
-- P_NJ1 with joint_regressor.
function I.header(b, d)
  local P = d.PREFIX
  if has(d, "joint_regressor") then
    b("/* Joints of one velocity coordinate (revolute, continuous, prismatic, helical), in body")
    b(" * order: ", d.prefix, "_joint_regressor has 4 columns for each. */")
    b("#define ", P, "_NJ1 ", d.nj1)
  end
  if not d.base then return end
  b("/* The base inertial parameters (mbdc's docs/identification.md): the ", P, "_NBASE linear")
  b(" * combinations beta = K pi of the standard parameters that the joint torques depend on,")
  b(" * tau = Y pi = Yb beta for every state and every pi (", d.prefix, "_base_regressor: Yb, the")
  b(" * columns of Y of the parameters the betas are named after; ", d.prefix,
    "_base_params: beta).")
  b(" * Only beta can be identified from joint torques. Computed numerically by mbdc (a regressor")
  b(" * stacked over random states; coefficients below 1e-10 dropped, the others printed exactly).")
  if (d.nc or 0) > 0 then
    b(" * With loop joints: the set of the spanning tree's joint torques (the loops' constraint")
    b(" * forces are not in Y, as in ", d.prefix, "_rnea).")
  end
  b(" * body.m is a body's mass, body.mx its m cx, body.Ixx its Ixx about the body frame's origin:")
  for k = 1, d.base.nbase do
    local line, parts = " *   beta[" .. (k - 1) .. "] = ", combination(d, k)
    local indent = string.rep(" ", #line - 2)
    for j, p in ipairs(parts) do
      local piece = (j == 1 and "" or " ") .. p
      if j > 1 and #line + #piece > 99 then
        b(line)
        line = " *" .. indent .. p
      else
        line = line .. piece
      end
    end
    b(line)
  end
  b(" */")
  b("#define ", P, "_NBASE ", d.base.nbase)
end

-- The harness: the runtime calls for its reference table, the second output of base_params, the
-- arguments and sizes of the roles.
I.references = {
  joint_regressor = "rc = mb_joint_regressor(&M, v, a, ref)",
  base_regressor = "rc = base_regressor_ref(ws, q, v, a, ref)",
  base_params = "rc = base_params_ref(ref)",
}
I.second = {
  base_params = { name = "base_params.Yb_beta", size = "NV",
                  reference = "base_identity(ws, q, v, a, gq, gv, ga, out, ref2, out2)" },
}
I.role_arg = { pi = "gpi" }
I.size_of = { out_nvbase = "NV * NBASE", out_base = "NBASE", out_nvj1 = "NV * 4 * NJ1" }

-- The harness's helpers, before main.
function I.check_helpers(b, d)
  local P, p = d.PREFIX, d.prefix
  if has(d, "joint_regressor") then b("#define NJ1 ", P, "_NJ1") end
  if not d.base or not (has(d, "base_regressor") or has(d, "base_params")) then return end
  local gen_yb, with_bp = has(d, "base_regressor"), has(d, "base_params")
  b("#define NBASE ", P, "_NBASE")
  b("/* The base parameters as the generator chose them: beta[k] is named after the standard")
  b(" * parameter base_col[k], so Yb is Y's columns base_col (mb_regressor's Y). */")
  local cols = {}
  for k, c in ipairs(d.base.col) do cols[k] = tostring(c) end
  b("static const int base_col[NBASE] = {")
  for k = 1, #cols, 16 do b("  ", table.concat(cols, ", ", k, math.min(k + 15, #cols)), ",") end
  b("};")
  b("static double Yfull[NV * NREG]; /* mb_regressor's Y at the state */")
  if gen_yb then
    b([=[
/* base_regressor's reference: Y's columns base_col. */
static int base_regressor_ref(mb_workspace *ws, const double *q, const double *v, const double *a,
                              double *ref) {
  int rc = mb_regressor(&M, ws, q, v, a, Yfull);
  for (int r = 0; r < NV; r++)
    for (int k = 0; k < NBASE; k++) ref[r * NBASE + k] = Yfull[r * NREG + base_col[k]];
  return rc;
}
]=])
  end
  if not with_bp then return end
  b("static double pi_d[NREG]; /* base_params' random pi, and as the generated code reads it */")
  b("static real gpi[NREG];")
  b("static double Yb_d[NV * NBASE];")
  if gen_yb then b("static real gYb[NV * NBASE];") end
  b([=[
/* base_params' reference: a fresh pi in [-1, 1) (its own stream: the other functions see the
 * same states with or without it), and beta = K pi with the generator's K (its nonzero entries,
 * printed exactly). */
static unsigned long long pi_seed = SEED + 2u;
static int base_params_ref(double *ref) {
  for (int k = 0; k < NREG; k++) gpi[k] = (real)uniform(&pi_seed, -1, 1), pi_d[k] = gpi[k];]=])
  for k = 1, d.base.nbase do
    local line = "  ref[" .. (k - 1) .. "] ="
    for j, t in ipairs(d.base.K[k]) do
      local piece = (j == 1 and " " or " + ") .. t[2] .. " * pi_d[" .. t[1] .. "]"
      if #line + #piece > 98 then
        b(line)
        line = "   "
      end
      line = line .. piece
    end
    b(line, #d.base.K[k] == 0 and " 0;" or ";")
  end
  b("  return 0;")
  b("}")
  b("")
  b("/* The identity tau = Y pi = Yb beta (docs/identification.md): the reference Y pi from")
  b(" * mb_regressor's Y at the state and base_params' pi, against Yb beta with beta the generated")
  b(gen_yb and " * base_params' and Yb the generated base_regressor's." or
    " * base_params' and Yb Y's columns base_col (base_regressor is not generated).")
  b(" * Relative to max |Y pi|. */")
  b("static void base_identity(mb_workspace *ws, const double *q, const double *v,")
  b("                          const double *a, const real *gq, const real *gv, const real *ga,")
  b("                          const real *beta, double *ref2, real *out2) {")
  b("  (void)gq, (void)gv, (void)ga;")
  b("  (void)mb_regressor(&M, ws, q, v, a, Yfull);")
  if gen_yb then
    b("  ", p, "_base_regressor(", import("c/check_params").arg_of(d, "base_regressor"),
      "gq, gv, ga, gYb);")
    b("  for (int k = 0; k < NV * NBASE; k++) Yb_d[k] = (double)gYb[k];")
  else
    b("  for (int r = 0; r < NV; r++)")
    b("    for (int k = 0; k < NBASE; k++) Yb_d[r * NBASE + k] = Yfull[r * NREG + base_col[k]];")
  end
  b([=[
  for (int r = 0; r < NV; r++) {
    double t = 0, tb = 0;
    for (int c = 0; c < NREG; c++) t += Yfull[r * NREG + c] * pi_d[c];
    for (int k = 0; k < NBASE; k++) tb += Yb_d[r * NBASE + k] * (double)beta[k];
    ref2[r] = t, out2[r] = (real)tb;
  }
}
]=])
end

return I
