-- check_params.lua — the harness's run-time parameters (mbdc --parameters, docs/parameters.md):
-- it compares the generated functions, called with a pi of its own, with the runtime on the
-- model those parameters describe. That pi is the model file's values moved — each block scaled
-- by a factor in [0.7, 1.3) and given a point mass of 5 % to 30 % of its mass (0.1 kg to a
-- massless one) somewhere in a 0.4 m cube about its origin, which keeps a physical body physical;
-- gravity scaled by [0.8, 1.2) and tilted by up to 1 m/s² a component — and the runtime's model
-- is the bundled one with those inertias: each moving body's constant rest plus each block
-- carried into its frame by the generator's map (the 10 × 10 matrices below, computed in C from
-- the transforms; the generated code carries them symbolically, joints.lua).
local P = {}

local function list(x) return table.concat(x, ", ") end

-- The defines and the static tables and function before main; nothing without parameters.
function P.helpers(b, d)
  local p = d.params
  if not p then return end
  b("#define NPI ", d.PREFIX, "_NPI")
  b("#define NBLOCK ", #p.blocks)
  if #p.blocks == 0 then return P.gravity_only(b, d) end
  b("/* each block: its first index in pi, the moving body it is part of, its map A (10 x 10) */")
  local at, body = {}, {}
  for k, blk in ipairs(p.blocks) do at[k], body[k] = blk.at, blk.body end
  b("static const int block_at[NBLOCK] = {", list(at), "};")
  b("static const int block_body[NBLOCK] = {", list(body), "};")
  b("static const double block_A[NBLOCK][100] = {")
  for _, blk in ipairs(p.blocks) do b("  {", list(blk.A), "},") end
  b("};")
  b("/* the constant rest of every moving body with a block (runtime form), 0 for the others */")
  b("static const double body_rest[NB + 1][10] = {")
  for i = 0, d.nb do
    b("  {", p.rest[i] and list(p.rest[i]) or "0", "},")
  end
  b("};")
  b("static double params_inertia[10 * (NB + 1)]; /* the runtime model's inertias for hpar */")
  b("static double hpar[NPI]; /* the harness's pi ... */")
  b("static real gpar[NPI];   /* ... as the generated code takes it */")
  b([[
static void params_model(void) {
  unsigned long long s = 20261206u;
  for (int k = 0; k < NPI; k++) hpar[k] = ]], d.prefix, [[_pi_model[k];
  for (int k = 0; k < NBLOCK; k++) {
    double *x = hpar + block_at[k], sc = uniform(&s, 0.7, 1.3);
    for (int l = 0; l < 10; l++) x[l] *= sc;
    double dm = uniform(&s, 0.05, 0.3) * (x[0] > 0 ? x[0] : 1.0), r[3];
    for (int l = 0; l < 3; l++) r[l] = uniform(&s, -0.2, 0.2);
    x[0] += dm, x[1] += dm * r[0], x[2] += dm * r[1], x[3] += dm * r[2];
    x[4] += dm * (r[1] * r[1] + r[2] * r[2]), x[5] -= dm * r[0] * r[1];
    x[6] += dm * (r[0] * r[0] + r[2] * r[2]), x[7] -= dm * r[0] * r[2];
    x[8] -= dm * r[1] * r[2], x[9] += dm * (r[0] * r[0] + r[1] * r[1]);
  }]])
  if p.gravity_at then
    b("  for (int k = ", p.gravity_at, "; k < ", p.gravity_at + 3,
      "; k++) hpar[k] = hpar[k] * uniform(&s, 0.8, 1.2) + uniform(&s, -1, 1);")
  end
  b([=[
  for (int k = 0; k < NPI; k++) gpar[k] = (real)hpar[k], hpar[k] = (double)gpar[k];
  Mp = ]=], d.prefix, [=[_model;
  for (int k = 0; k < 10 * (NB + 1); k++) params_inertia[k] = ]=], d.prefix, [=[_model.inertia[k];
  for (int k = 0; k < NBLOCK; k++)
    for (int l = 0; l < 10; l++)
      params_inertia[10 * block_body[k] + l] = body_rest[block_body[k]][l];
  for (int k = 0; k < NBLOCK; k++)
    for (int r = 0; r < 10; r++)
      for (int c = 0; c < 10; c++)
        params_inertia[10 * block_body[k] + r] += block_A[k][10 * r + c] * hpar[block_at[k] + c];
  Mp.inertia = params_inertia;]=])
  if p.gravity_at then
    b("  for (int k = 0; k < 3; k++) Mp.gravity[k] = hpar[", p.gravity_at, " + k];")
  end
  b("}")
  b("")
end

-- Gravity alone: the runtime's model with the harness's gravity.
function P.gravity_only(b, d)
  local p = d.params
  b("static double hpar[NPI]; /* the harness's gravity ... */")
  b("static real gpar[NPI];   /* ... as the generated code takes it */")
  b("static void params_model(void) {")
  b("  unsigned long long s = 20261206u;")
  b("  for (int k = 0; k < 3; k++) {")
  b("    hpar[k] = ", d.prefix, "_pi_model[k] * uniform(&s, 0.8, 1.2) + uniform(&s, -1, 1);")
  b("    gpar[k] = (real)hpar[k], hpar[k] = (double)gpar[k];")
  b("  }")
  b("  Mp = ", d.prefix, "_model;")
  b("  for (int k = 0; k < 3; k++) Mp.gravity[k] = hpar[", p.gravity_at, " + k];")
  b("}")
  b("")
end

-- The first statement of main.
function P.init(b, d)
  if d.params then b("  params_model();") end
end

-- The model the harness's references use: Mp with parameters, else the bundled one.
function P.model(d)
  return d.params and "Mp" or d.prefix .. "_model"
end

-- The first argument of the rcr functions (rcr.lua): "gpar, " with parameters.
function P.arg(d) return d.params and "gpar, " or "" end

-- The same for generated function `name` (called by name in the harness): "gpar, " if it
-- takes pi.
function P.arg_of(d, name)
  for _, f in ipairs(d.functions) do
    local first = f.params[1]
    if f.name == name then return (first and first.role == "params") and "gpar, " or "" end
  end
  return ""
end

-- Mp's declaration, after M's define.
function P.declare(d)
  return d.params and "\nstatic mb_model Mp; /* the bundled model with the harness's pi */\n" or "\n"
end

return P
