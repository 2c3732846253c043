-- check.lua — <prefix>_check.c: the cross-check harness. Every generated function against the
-- generic runtime (runtime/mb.h) on random states from a fixed seed; prints the worst absolute
-- and relative error per function and fails above the tolerance.
local common = import "c/common"
local project = import "c/project"
local rcr = import "c/rcr"
local ident = import "c/identification"
local params = import "c/check_params"
local CC = import "c/check_coupled"

-- The runtime call that computes the same output as each built-in function (args in C).
local reference = {
  rnea = "mb_rnea(&M, ws, q, v, a, NULL, ref)",
  rnea_ext = "mb_rnea(&M, ws, q, v, a, fext, ref)",
  nle = "mb_nle(&M, ws, q, v, ref)",
  gravity = "mb_gravity(&M, ws, q, ref)",
  crba = "mb_crba(&M, ws, q, ref)",
  crba_fd = "rc = mb_crba_fd(&M, ws, q, v, tau, ref)",
  aba = "rc = mb_aba(&M, ws, q, v, tau, NULL, ref)",
  minv = "rc = mb_minv(&M, ws, q, ref)",
  joint_wrenches = "mb_joint_wrenches(&M, ws, q, v, a, ref)",
  fk = "mb_fk(&M, ws, q, ref)",
  node_poses = "rc = mb_node_poses(&M, ws, q, ref)",
  cfa = "rc = mb_cfa(&M, ws, q, v, tau, ref, NULL)",
  loop_residual = "rc = mb_loop_residual(&M, &LP, ws, lw, qr, ref)",
  loop_jacobian = "rc = mb_loop_jacobian(&M, &LP, ws, lw, qr, ref)",
  fd_loops = "rc = mb_fd_loops(&M, &LP, ws, lw, q, v, tau, ref, ref2)",
  passive_forces = "rc = mb_passive_forces(&M, &SPRINGS, ws, q, v, ref)",
  frame_pose = "rc = mb_frame_pose(&M, &FRAMES, ws, q, ref)",
  frame_jacobian = "rc = mb_frame_jacobian(&M, &FRAMES, ws, q, 1, ref)",
  frame_jacobian_world = "rc = mb_frame_jacobian(&M, &FRAMES, ws, q, 0, ref)",
  frame_velocity = "rc = mb_frame_velocity(&M, &FRAMES, ws, q, v, ref)",
  frame_acceleration_bias = "rc = mb_frame_acceleration_bias(&M, &FRAMES, ws, q, v, ref)",
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
  integrate = "rc = mb_integrate(&M, q, v, 0.375, ref)",
  dynamics = "mb_crba(&M, ws, q, ref)",
  aba_wrenches = "rc = mb_aba(&M, ws, q, v, tau, NULL, ref)",
  difference = "rc = mb_difference(&M, q, q2, ref)",
  rnea_derivatives = "rc = mb_rnea_derivatives(&M, ws, q, v, a, ref, ref2, ref3)",
  aba_derivatives = "rc = mb_aba_derivatives(&M, ws, q, v, tau, ref, ref2, ref3)",
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
  contact_fd = { name = "contact_fd.force", size = "NCROWS", reference = "(void)0" },
  contact_fd_reg = { name = "contact_fd_reg.force", size = "NCROWS", reference = "(void)0" },
  impulse = { name = "impulse.impulse", size = "NCROWS", reference = "(void)0" },
  dynamics = { name = "dynamics.h", size = "NV", reference = "mb_nle(&M, ws, q, v, ref2)",
               third = { name = "dynamics.qdd", size = "NV",
                         reference = "(void)mb_aba(&M, ws, q, v, tau, NULL, ref3)" } },
  rnea_derivatives = { name = "rnea_derivatives.dtau_dv", size = "NV * NV", reference = "(void)0",
                       third = { name = "rnea_derivatives.M", size = "NV * NV",
                                 reference = "(void)0" } },
  aba_derivatives = { name = "aba_derivatives.dqdd_dv", size = "NV * NV", reference = "(void)0",
                      third = { name = "aba_derivatives.Minv", size = "NV * NV",
                                reference = "(void)0" } },
  aba_wrenches = { name = "aba_wrenches.wrench", size = "6 * (NB + 1)",
                   reference = "mb_joint_wrenches(&M, ws, q, v, ref, ref2)" },
}
for k, v in pairs(ident.second) do second[k] = v end

-- The generated function's arguments: inputs in the generated scalar type, one output array.
local role_arg = { q = "gq", v = "gv", a = "ga", tau = "gtau", fext = "gfext", contacts = "act",
                   contact_mu = "gmu", dt = "(real)0.375", q2 = "gq2", sc = "gsc",
                   params = "gpar" }
local size_of = {
  out_nv = "NV", out_nvnv = "NV * NV", out_wrench = "6 * (NB + 1)", out_pose = "12 * (NB + 1)",
  out_nc = "NC", out_ncnv = "NC * NV", out_nodes = "12 * NNODES", out_rcr = "RCR_NSEL * NC",
  out_frames = "12 * NF", out_fjac = "6 * NV * NF", out_fvec = "6 * NF", out_3 = "3",
  out_3nv = "3 * NV", out_2 = "2", out_6 = "6", out_6nv = "6 * NV", out_cforce = "NCROWS",
  out_nq = "NQ", out_sc = "NSC", out_nvreg = "NV * NREG", out_reg = "NREG",
}
for k, v in pairs(ident.size_of) do size_of[k] = v end
for k, v in pairs(ident.role_arg) do role_arg[k] = v end

-- The function whose runtime reference checks f: its own, or for the _sc twin of --trig-input
-- its original's (the same outputs, its sines and cosines from p_trig).
local function base(f) return f.twin_of or f.name end

-- Functions defined at any configuration, compared at the random one drawn before the loops are
-- closed (at a closed one the residual is rounding noise on both sides).
local unassembled = { loop_residual = true, loop_jacobian = true }

local function call(f)
  local args, size, nout = {}, nil, 0
  for k, p in ipairs(f.params) do
    if size_of[p.role] then
      nout = nout + 1
      args[k] = ({ "out", "out2", "out3" })[nout]
      size = size or size_of[p.role]
    else
      local at_qr = unassembled[base(f)] and (p.role == "q" or p.role == "sc")
      args[k] = at_qr and (p.role == "q" and "gqr" or "gscr") or role_arg[p.role]
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

-- names_wrong(): the index macros of the header (P_BODY_, P_JOINT_, P_IQ_, P_IV_, P_FRAME_)
-- against the name tables and the runtime model's q and v offsets; the number of mismatches,
-- printed.
local function names_check(b, d)
  local p, P = d.prefix, d.PREFIX
  b("static int names_wrong(void) {")
  b("  int wrong = 0;")
  for _, body in ipairs(d.bodies) do
    b("  wrong += strcmp(", p, "_body_names[", P, "_BODY_", body.name, "], \"", body.name, "\") != 0;")
  end
  for _, j in ipairs(d.joints) do
    local J = P .. "_JOINT_" .. j.name
    b("  wrong += strcmp(", p, "_joint_names[", J, "], \"", j.name, "\") != 0 || ", p,
      "_joint_iq[", J, "] != ", P, "_IQ_", j.name, " ||")
    b("           ", p, "_joint_iv[", J, "] != ", P, "_IV_", j.name, " || ",
      CC.index(d, P, j, "q"), " != ", P, "_IQ_", j.name, " ||")
    b("           ", CC.index(d, P, j, "v"), " != ", P, "_IV_", j.name, ";")
  end
  for _, f in ipairs(d.frames) do
    b("  wrong += strcmp(", p, "_frame_names[", P, "_FRAME_", f.name, "], \"", f.name, "\") != 0;")
  end
  b("  wrong += FRAMES.n != NF;")
  b("  if (wrong) printf(\"", p, ": FAILED: %d index macros disagree with the name tables or the \"")
  b("                    \"runtime model\\n\", wrong);")
  b("  return wrong;")
  b("}")
  b("")
end

return function(d)
  local b = common.buffer()
  local float = d.scalar == "float"
  common.banner(b, d, d.prefix .. "_check.c",
    "cross-check of the generated dynamics of '" .. d.prefix .. "' against the mbdc runtime.")
  b([[
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "]], d.prefix, [[_model.h"
]])
  common.set_check(b, d, d.prefix .. "_check.c")
  b([[

#define M ]], params.model(d), params.declare(d), [[
#define SPRINGS ]], d.prefix, [[_springs
#define FRAMES ]], d.prefix, [[_frames
#define NF ]], d.PREFIX, [[_NF
#define NQ ]], CC.full(d, d.PREFIX, "NQ"), [[

#define NV ]], CC.full(d, d.PREFIX, "NV"), [[

#define NB ]], d.PREFIX, [[_NB
#define NREG ]], d.PREFIX, [[_NREG
]])
  if d.nnodes > 0 then b("#define NNODES ", d.PREFIX, "_NNODES") end
  CC.macros(b, d)
  local contacts = #d.contacts > 0
  if contacts then
    b("#define CONTACTS ", d.prefix, "_contacts")
    b("#define NCONTACT ", d.PREFIX, "_NCONTACT")
    b("#define NCROWS ", d.PREFIX, "_NCROWS")
  end
  local loops = (d.nc or 0) > 0
  if loops then
    b("#define NC ", d.PREFIX, "_NC")
    b("#define LP ", d.prefix, "_loops")
    if rcr.any(d) then b("#define RCR_NSEL ", d.PREFIX, "_RCR_NSEL") end
  end
  local trig = false -- --trig-input: p_trig fills sc for the _sc twins at every state
  for _, f in ipairs(d.functions) do trig = trig or f.name == "trig" end
  if trig then
    b("#define NSC ", d.PREFIX, "_NSC")
    b("/* trig's reference: the sines and cosines of the joint angles from the C library */")
    b("static void trig_ref(const double *q, double *ref) {")
    b("  for (int k = 0; k < NSC / 2; k++) {")
    b("    double x = q[", d.prefix, "_trig_iq[k]] + (double)", d.prefix, "_trig_theta[k];")
    b("    ref[2 * k] = sin(x), ref[2 * k + 1] = cos(x);")
    b("  }")
    b("}")
    b("")
  end
  local modal = false
  for _, j in ipairs(d.joints) do modal = modal or (j.nm or 0) > 0 end
  b([[
#define NSTATES 200 /* random states */
#define SEED 20261121u
/* Relative error allowed: double code must agree with the runtime to 1e-10; float code is
 * compared with the double runtime on the same (rounded) inputs: float's epsilon (6e-8) amplified
 * by the model's conditioning, about 10^3 (the bundled examples stay below 7e-6). */
#define TOLERANCE ]], float and "1e-4" or "1e-10", [[

typedef ]], d.scalar, [[ real;

/* xorshift64*: a fixed, portable stream of uniform numbers in [lo, hi). */
static double uniform(unsigned long long *s, double lo, double hi) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return lo + (hi - lo) * (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* A random unit quaternion (normalized Gaussian-free: uniform cube, rejected outside the ball). */
static void randquat(unsigned long long *s, double *x) {
  double n2;
  do {
    n2 = 0;
    for (int k = 0; k < 4; k++) x[k] = uniform(s, -1, 1), n2 += x[k] * x[k];
  } while (n2 < 0.01 || n2 > 1);
  for (int k = 0; k < 4; k++) x[k] /= sqrt(n2);
}

]], modal and [[
/* q in the joints' ranges of use, modal coordinates in [-0.1, 0.1), v a tau in [-1, 1), fext on
 * every body; rounded to the generated code's scalar type and back, so the runtime sees exactly
 * its inputs. */]] or [[
/* q in the joints' ranges of use, v a tau in [-1, 1), fext on every body; rounded to the
 * generated code's scalar type and back, so the runtime sees exactly its inputs. */]], [[

static void randstate(unsigned long long *s, double *q, double *v, double *a, double *tau,
                      double *fext) {
  for (int i = 1; i <= NB; i++) {
    double *qi = q + M.iq[i];
    switch (M.jtype[i]) {
    case MB_JOINT_SPHERICAL: randquat(s, qi); break;
    case MB_JOINT_FLOATING:
      for (int k = 0; k < 3; k++) qi[k] = uniform(s, -1, 1);
      randquat(s, qi + 3);
      break;
    case MB_JOINT_PRISMATIC: qi[0] = uniform(s, -0.5, 0.5); break;
    default: qi[0] = uniform(s, -3.14159, 3.14159); break;
    }
  }]])
  for _, j in ipairs(d.joints) do -- the coordinates after the first of a planar, cylindrical,
    -- universal joint
    if j.type == "planar" then
      b("  q[", j.iq, "] = uniform(s, -1, 1), q[", j.iq + 1, "] = uniform(s, -1, 1), q[", j.iq + 2,
        "] = uniform(s, -3.14159, 3.14159); /* ", j.body, ": x, y, theta */")
    elseif j.type == "cylindrical" then
      b("  q[", j.iq + 1, "] = uniform(s, -0.5, 0.5); /* ", j.body, ": the slide */")
    elseif j.type == "universal" then
      b("  q[", j.iq + 1, "] = uniform(s, -3.14159, 3.14159); /* ", j.body, ": theta2 */")
    end
  end
  for _, j in ipairs(d.joints) do -- a flexible body's modal coordinates follow its joint's
    if (j.nm or 0) > 0 then
      b("  for (int k = ", j.iq + j.nq, "; k < ", j.iq + j.nq + j.nm,
        "; k++) q[k] = uniform(s, -0.1, 0.1); /* ", j.body, " */")
    end
  end
  b([[
  for (int k = 0; k < NV; k++)
    v[k] = uniform(s, -1, 1), a[k] = uniform(s, -1, 1), tau[k] = uniform(s, -1, 1);
  for (int k = 0; k < 6 * (NB + 1); k++) fext[k] = k < 6 ? 0.0 : uniform(s, -1, 1);
  for (int k = 0; k < NQ; k++) q[k] = (double)(real)q[k];
  for (int k = 0; k < NV; k++)
    v[k] = (double)(real)v[k], a[k] = (double)(real)a[k], tau[k] = (double)(real)tau[k];
  for (int k = 0; k < 6 * (NB + 1); k++) fext[k] = (double)(real)fext[k];
}

static void togen(const double *x, real *g, int n) {
  for (int k = 0; k < n; k++) g[k] = (real)x[k];
}

typedef struct result {
  const char *name;
  double abs, rel; /* worst absolute error, worst |error| / max |reference| over the states */
  int failed_rc;   /* a return code differed */
  int singular;    /* states where both returned -1 (outputs undefined: not compared) */
  int skipped;     /* rcr: states where the selection is ill-conditioned (not compared) */
} result;
]])
  -- every function with a runtime reference is compared; the others (user recipes) are run
  -- p_rcr's parts: the pivot ratios of every selection, and each variant with its selection alone
  local refs = setmetatable({}, { __index = reference })
  if rcr.any(d) then
    refs.rcr_pivots = "rc = rcr_pivots_ref(ws, lw, q, ref)"
  end
  reference = refs
  -- the variants rcr_<s> (refined by rcr_refine_<s> where they ask, as p_rcr does): compared
  -- with mb_rcr on selection s alone where s is regular (its smallest pivot ratio ≥
  -- P_RCR_SWITCH: where p_rcr may choose it); rcr_refine_<s> alone from the runtime's answer
  -- moved by 1e-6, which one step takes back to it (the equations are linear in q̈)
  local variants, refines, nrefines = {}, {}, 0
  local known, unchecked, slot, nresults = {}, {}, {}, 0 -- slot: the first result of each
  local twins, by_name = {}, {} -- _sc twins without a runtime reference: against their original
  -- --fuse functions: their results, the parts without a reference, the most outputs of one
  local fused, nfused, unchecked_parts, max_fout, max_fout2 = {}, 0, {}, 0, 0
  local entries = {} -- the names of the results of known and fused, in slot order
  for _, f in ipairs(d.functions) do by_name[f.name] = f end
  for _, f in ipairs(d.functions) do
    local s = rcr.any(d) and f.name:match("^rcr_(%d+)$")
    local sr = rcr.any(d) and f.name:match("^rcr_refine_(%d+)$")
    if s then
      variants[#variants + 1] = { f = f, s = tonumber(s) }
    elseif sr then
      refines[tonumber(sr)] = f
    elseif fused_parts(f) and not f.twin_of then
      -- each part with a runtime reference: its outputs against it, in the part's order
      local parts, nout, at_qr = fused_parts(f), 0, true
      for _, part in ipairs(parts) do at_qr = at_qr and unassembled[part.name] or false end
      fused[#fused + 1], slot[f.name] = { f = f, parts = parts, at_qr = at_qr }, nresults
      for _, part in ipairs(parts) do
        -- a part defined anywhere (loop_residual) beside one that is not: called at the closed
        -- configuration, where its output is rounding noise: not compared
        if unassembled[part.name] and not at_qr then part.noise = true end
        local s2 = second[part.name]
        local arity = 1 + (s2 and 1 or 0) + (s2 and s2.third and 1 or 0)
        if reference[part.name] and arity ~= #part.outs then
          error(f.name .. ": the part " .. part.name .. " has " .. #part.outs .. " outputs, its "
            .. "reference " .. arity)
        end
        if reference[part.name] and not part.noise then
          nresults, nfused = nresults + #part.outs, nfused + #part.outs
          for _, p in ipairs(part.outs) do entries[#entries + 1] = f.name .. "." .. p.name end
        else
          unchecked_parts[#unchecked_parts + 1] = f.name .. " (" .. part.name .. (part.noise
            and ": called at the closed configuration, where it is rounding noise)"
            or ": no runtime reference)")
        end
      end
      for _, p in ipairs(f.params) do if size_of[p.role] then nout = nout + 1 end end
      max_fout = math.max(max_fout, nout)
      if slot[f.name] == nresults then -- no part compared: run only, as a user recipe
        fused[#fused], slot[f.name] = nil, nil
        for _ = 1, #parts do unchecked_parts[#unchecked_parts] = nil end
        unchecked[#unchecked + 1] = f
      end
    elseif reference[base(f)] then
      known[#known + 1], slot[f.name] = f, nresults
      local s2, sc = second[base(f)], f.twin_of and "_sc" or ""
      entries[#entries + 1] = f.name
      if s2 then entries[#entries + 1] = s2.name .. sc end
      if s2 and s2.third then entries[#entries + 1] = s2.third.name .. sc end
      nresults = nresults + (s2 and (s2.third and 3 or 2) or 1)
    elseif f.twin_of then
      twins[#twins + 1] = f
      if fused_parts(f) then -- against its original, every output: a second set of buffers
        local nout = 0
        for _, p in ipairs(f.params) do if size_of[p.role] then nout = nout + 1 end end
        max_fout, max_fout2 = math.max(max_fout, nout), math.max(max_fout2, nout)
      end
    else
      unchecked[#unchecked + 1] = f
    end
  end
  local with_rcr = loops and rcr.wanted(d)
  if reference.rcr_pivots and (function()
    for _, f in ipairs(d.functions) do if f.name == "rcr_pivots" then return true end end
  end)() then
    b([[/* The runtime's pivot ratios of every selection of p_rcr, in the generated order. */
static int rcr_pivots_ref(mb_workspace *ws, mb_loop_workspace *lw, const double *q, double *ref) {
  for (int s = 0; s < RCR_NSEL; s++)
    (void)mb_rcr_pivots(&M, &LP, ws, lw, q, ]], d.prefix, [[_rcr_dep + s * NC, ref + s * NC, NULL);
  return 0;
}

/* The ratios after a pivot ratio ρ carry rounding errors of about ε/ρ: a selection whose smallest
 * ratio is below ]], d.PREFIX, [[_RCR_SWITCH (which p_rcr uses only as a last resort) is not
 * compared (zeroed on both sides); 1 if any was. */
static int rcr_pivots_mask(double *ref, real *out) {
  int masked = 0;
  for (int s = 0; s < RCR_NSEL; s++) {
    double lo = ref[s * NC];
    for (int k = 1; k < NC; k++) lo = ref[s * NC + k] < lo ? ref[s * NC + k] : lo;
    if (lo >= ]], d.PREFIX, [[_RCR_SWITCH) continue;
    for (int k = 0; k < NC; k++) ref[s * NC + k] = 0, out[s * NC + k] = 0;
    masked = 1;
  }
  return masked;
}
]])
  end
  if #known > 0 or #twins > 0 or nfused > 0 then
    b([[static void compare(result *r, const double *ref, const real *out, int n) {
  double err = 0, scale = 0;
  for (int k = 0; k < n; k++) {
    double e = fabs((double)out[k] - ref[k]);
    if (!(e <= err)) err = e; /* NaN counts as the worst */
    if (fabs(ref[k]) > scale) scale = fabs(ref[k]);
  }
  if (!(err <= r->abs)) r->abs = err;
  double rel = scale > 0 ? err / scale : err;
  if (!(rel <= r->rel)) r->rel = rel;
}
]])
  end
  params.helpers(b, d)
  ident.check_helpers(b, d)
  names_check(b, d)
  b([[
int main(void) {]])
  params.init(b, d)
  b([[
  if (names_wrong()) return 1;
  size_t big = (size_t)(NV * NV > 12 * (NB + 1) ? NV * NV : 12 * (NB + 1));
  if (big < (size_t)(12 * NF)) big = (size_t)(12 * NF);
  if (big < (size_t)(6 * NV * NF)) big = (size_t)(6 * NV * NF);
  if (big < (size_t)NV * NREG) big = (size_t)NV * NREG;
  /* q has room for a whole floating joint past its end: the compiler cannot prove that the
   * joint-type switch in randstate never writes 7 coordinates into a smaller model's q */
  double q[NQ + 7], v[NV], a[NV], tau[NV], fext[6 * (NB + 1)], q2[NQ + 7];
  real gq[NQ], gv[NV], ga[NV], gtau[NV], gfext[6 * (NB + 1)], gq2[NQ];]] ..
    (trig and "\n  real gsc[NSC]; /* the sines and cosines of the _sc functions (p_trig) */" or "")
    .. [[
  double *ref = malloc(big * sizeof *ref), *ref2 = malloc(big * sizeof *ref2);
  double *ref3 = malloc(big * sizeof *ref3);
  real *out3 = malloc(big * sizeof *out3);
  real *out = malloc(big * sizeof *out), *out2 = malloc(big * sizeof *out2);
  void *buffer = malloc(mb_workspace_size(&M));
  mb_workspace wsbuf, *ws = &wsbuf;
  char msg[200];
  if (!ref || !out || !ref2 || !out2 || !ref3 || !out3 || !buffer)
    return fprintf(stderr, "out of memory\n"), 2;
  if (mb_model_check(&M, msg, sizeof msg) != 0) return fprintf(stderr, "model: %s\n", msg), 2;
  mb_workspace_init(ws, &M, buffer);]])
  CC.declare(b, d)
  if max_fout > 0 then
    b("  real *fout[", max_fout, "]; /* the outputs of a --fuse function */")
    b("  for (int k = 0; k < ", max_fout, "; k++)")
    b("    if (!(fout[k] = malloc(big * sizeof **fout))) return fprintf(stderr, \"out of memory\\n\"), 2;")
  end
  if max_fout2 > 0 then
    b("  real *fout2[", max_fout2, "]; /* the outputs of a --fuse function's _sc twin */")
    b("  for (int k = 0; k < ", max_fout2, "; k++)")
    b("    if (!(fout2[k] = malloc(big * sizeof **fout2))) return fprintf(stderr, \"out of memory\\n\"), 2;")
  end
  if loops then
    b([[
  double qr[NQ + 7]; /* the random configuration, before the loops are closed */
  real gqr[NQ];]] .. (trig and "\n  real gscr[NSC];" or "") .. [[
  void *lbuffer = malloc(mb_loop_workspace_size(&M, &LP));
  mb_loop_workspace lwbuf, *lw = &lwbuf;
  if (!lbuffer) return fprintf(stderr, "out of memory\n"), 2;
  if (mb_loops_check(&M, &LP, msg, sizeof msg) != 0) return fprintf(stderr, "loops: %s\n", msg), 2;
  mb_loop_workspace_init(lw, &M, &LP, lbuffer);]])
  end
  if contacts then
    b([[
  /* the contacts: all in contact, or every fourth state a random subset; mu in [1e-6, 1e-3) */
  int act[NCONTACT];
  double mu[NCONTACT];
  real gmu[NCONTACT];
  unsigned long long cseed = SEED + 1u;
  void *cscratch = malloc(mb_contact_scratch_size(&M, &CONTACTS));
  if (!cscratch) return fprintf(stderr, "out of memory\n"), 2;
  if (mb_contacts_check(&M, &FRAMES, &CONTACTS, msg, sizeof msg) != 0)
    return fprintf(stderr, "contacts: %s\n", msg), 2;]])
  end
  local proj = project.wanted(d)
  local first_variant = nresults
  nresults = nresults + #variants
  for _, x in ipairs(variants) do
    x.refine = refines[x.s]
    refines[x.s] = nil
    if x.refine then
      x.slot, nrefines = nresults, nrefines + 1
      nresults = nresults + 1
    end
  end
  for s = 0, (d.rcr_nsel or 0) - 1 do -- without their variant: run only
    if refines[s] then unchecked[#unchecked + 1] = refines[s] end
  end
  if proj then nresults = nresults + 2 end
  if with_rcr then nresults = nresults + 1 end
  local first_twin = nresults -- project_q/_v and rcr come just before
  local proj_slot, rcr_slot = first_twin - 2 - (with_rcr and 1 or 0), first_twin - 1
  nresults = nresults + #twins
  local with_rcr_sc = with_rcr and rcr.wanted(d, true)
  if with_rcr_sc then nresults = nresults + 1 end
  b("  result results[", math.max(nresults, 1), "] = {")
  for _, name in ipairs(entries) do b("    {\"", name, "\", 0, 0, 0, 0, 0},") end
  for _, x in ipairs(variants) do b("    {\"", x.f.name, "\", 0, 0, 0, 0, 0},") end
  for _, x in ipairs(variants) do
    if x.refine then b("    {\"", x.refine.name, "\", 0, 0, 0, 0, 0},") end
  end
  if proj then
    b("    {\"project_q\", 0, 0, 0, 0, 0},")
    b("    {\"project_v\", 0, 0, 0, 0, 0},")
  end
  if with_rcr then b("    {\"rcr\", 0, 0, 0, 0, 0},") end
  for _, f in ipairs(twins) do b("    {\"", f.name, "\", 0, 0, 0, 0, 0},") end
  if with_rcr_sc then b("    {\"rcr_sc\", 0, 0, 0, 0, 0},") end
  if #known == 0 and not proj then b("    {\"none\", 0, 0, 0, 0, 0},") end
  b([[  };
  unsigned long long seed = SEED;
  for (int state = 0; state < NSTATES; state++) {
    int rc = 0, grc = 0;
    randstate(&seed, q, v, a, tau, fext);]])
  if loops then
    -- the mechanism's own states: the loops closed (docs/loops.md); a draw Newton cannot bring
    -- back is replaced by the next one
    b([[
    for (int k = 0; k < NQ; k++) qr[k] = (double)(real)q[k];
    togen(qr, gqr, NQ);
    for (int tries = 0; tries < 20; tries++) {
      double dq[NV];
      for (int k = 0; k < NQ; k++) q[k] = ]], d.prefix, [[_q_assembled[k];
      for (int k = 0; k < NV; k++) dq[k] = uniform(&seed, -1, 1);
      mb_integrate(&M, q, dq, 1.0, q);
      if (mb_project_q(&M, &LP, ws, lw, q) == 0 && mb_project_v(&M, &LP, ws, lw, q, v) == 0) break;
    }
    for (int k = 0; k < NQ; k++) q[k] = (double)(real)q[k];
    for (int k = 0; k < NV; k++) v[k] = (double)(real)v[k];]])
  end
  if not CC.state(b, d) then
    b([[
    togen(q, gq, NQ), togen(v, gv, NV), togen(a, ga, NV), togen(tau, gtau, NV);
    togen(fext, gfext, 6 * (NB + 1));
    /* difference's second configuration: q moved by 0.9 a (rotations below pi apart) */
    mb_integrate(&M, q, a, 0.9, q2);
    for (int k = 0; k < NQ; k++) q2[k] = (double)(real)q2[k];
    togen(q2, gq2, NQ);]])
  end
  if d.passive_in_fd then -- --passive-in-fd: the runtime's forward dynamics at τ + τ_passive
    b("    double tau_in[NV]; /* the applied tau; tau becomes tau + tau_passive */")
    b("    memcpy(tau_in, tau, sizeof tau_in);")
    b("    if (mb_passive_tau(&M, &SPRINGS, ws, q, v, tau_in, tau) != 0) return 2;")
  end -- (set on every render: the table outlives it)
  reference.aba_derivatives = d.passive_in_fd
    and "rc = mb_aba_derivatives_passive(&M, &SPRINGS, ws, q, v, tau_in, ref, ref2, ref3)"
    or "rc = mb_aba_derivatives(&M, ws, q, v, tau, ref, ref2, ref3)"
  if trig then
    b("    ", d.prefix, "_trig(gq, gsc);")
    if loops then b("    ", d.prefix, "_trig(gqr, gscr);") end
  end
  if contacts then
    b([[
    for (int k = 0; k < NCONTACT; k++) {
      act[k] = state % 4 == 3 ? uniform(&cseed, 0, 1) < 0.5 : 1;
      mu[k] = (double)(real)uniform(&cseed, 1e-6, 1e-3);
    }
    togen(mu, gmu, NCONTACT);]])
  end
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
    local s2 = second[base(f)]
    if s2 then
      b("      ", s2.reference, ";")
      CC.fold(b, d, base(f), outs[2], "ref2")
      b("      compare(&results[", r + 1, "], ref2, out2, ", CC.size(d, s2.size), ");")
      if s2.third then
        b("      ", s2.third.reference, ";")
        CC.fold(b, d, base(f), outs[3], "ref3")
        b("      compare(&results[", r + 2, "], ref3, out3, ", CC.size(d, s2.third.size), ");")
      end
    end
    b("    }")
  end
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
        local s2 = second[part.name]
        local ref = CC.reference(d, part.name, reference[part.name])
        if not ref:match("^rc = ") then b("      rc = 0;") end
        b("      ", ref, ";")
        b("      any |= rc != 0;")
        b("      if (rc != 0) results[", r, "].singular++;")
        b("      if (rc == 0 && grc == 0) {")
        CC.fold(b, d, part.name, part.outs[1].role, "ref")
        b("        compare(&results[", r, "], ref, fout[", outs[1], "], ",
          CC.size(d, size_of[part.outs[1].role]), ");")
        if s2 then
          b("        ", s2.reference, ";")
          CC.fold(b, d, part.name, part.outs[2].role, "ref2")
          b("        compare(&results[", r + 1, "], ref2, fout[", outs[2], "], ",
            CC.size(d, s2.size), ");")
        end
        if s2 and s2.third then
          b("        ", s2.third.reference, ";")
          CC.fold(b, d, part.name, part.outs[3].role, "ref3")
          b("        compare(&results[", r + 2, "], ref3, fout[", outs[3], "], ",
            CC.size(d, s2.third.size), ");")
        end
        b("      }")
        r = r + #part.outs
      end
    end
    b("      if ((grc != 0) != (any != 0)) results[", slot[x.f.name], "].failed_rc = 1;")
    b("    }")
    assert(k <= nout)
  end
  for k, x in ipairs(variants) do
    local r, p = first_variant + k - 1, d.prefix
    b([[
    /* ]], x.f.name, [[: where selection ]], x.s, [[ is regular */
    {
      double lo = 0, ratio[NC];
      const int *sel = ]], p, [[_rcr_dep + ]], x.s, [[ * NC;
      if (!(mb_rcr_pivots(&M, &LP, ws, lw, q, sel, ratio, &lo) == 0 && lo >= ]], d.PREFIX, [[_RCR_SWITCH)) {
        results[]], r, [[].skipped++;
      } else {
        rc = mb_rcr(&M, &LP, ws, lw, 1, sel, q, v, tau, ref, NULL);
        grc = ]], p, "_rcr_", x.s, "(", params.arg(d), [[gq, gv, gtau, out);]])
    if x.refine then
      b([[
        if (grc >= 0 && (grc & 2)) { /* refined once, as p_rcr does */
          real a0[NV];
          for (int k = 0; k < NV; k++) a0[k] = out[k];
          grc = ]], p, "_rcr_refine_", x.s, "(", params.arg(d),
        [[gq, gv, gtau, a0, out) < 0 ? -1 : grc & 1;
        }]])
    end
    b([[
        /* 1: a ratio below the switch in the generated arithmetic, where the runtime's is
         * at the switch up to rounding */
        if (grc == 1 && lo < ]], d.PREFIX, [[_RCR_SWITCH * (1 + 1e-9)) grc = 0;
        if (grc != rc) results[]], r, [[].failed_rc = 1;
        if (rc != 0) results[]], r, [[].singular++;
        if (rc == 0 && grc == 0) compare(&results[]], r, [[], ref, out, NV);]])
    if x.refine then
      local rr = x.slot
      b([[
        if (rc == 0) { /* rcr_refine_]], x.s, [[, from the runtime's answer moved by 1e-6: a wrong
           * correction shows (1e-6 ≫ TOLERANCE), the conditioning's ε κ 1e-6 does not */
          real a0[NV];
          double big = 1;
          for (int k = 0; k < NV; k++) big = fabs(ref[k]) > big ? fabs(ref[k]) : big;
          for (int k = 0; k < NV; k++) a0[k] = (real)(ref[k] + 1e-6 * big * a[k]);
          grc = ]], p, "_rcr_refine_", x.s, "(", params.arg(d), [[gq, gv, gtau, a0, out);
          if (grc != 0) results[]], rr, [[].failed_rc = 1;
          else compare(&results[]], rr, [[], ref, out, NV);
        }]])
    end
    b([[
      }
    }]])
  end
  if proj then
    local r, p = proj_slot, d.prefix
    b([[
    /* project_q, project_v: from the assembled configuration moved by up to 0.05 */
    {
      double qp[NQ + 7], dq[NV], vp[NV];
      real gqp[NQ], gvp[NV];
      for (int k = 0; k < NQ; k++) qp[k] = ]], p, [[_q_assembled[k];
      for (int k = 0; k < NV; k++) dq[k] = uniform(&seed, -0.05, 0.05);
      mb_integrate(&M, qp, dq, 1.0, qp);
      for (int k = 0; k < NQ; k++) qp[k] = (double)(real)qp[k];
      togen(qp, gqp, NQ);
      rc = mb_project_q(&M, &LP, ws, lw, qp);
      grc = ]], p, [[_project_q(gqp);
      if ((rc != 0) != (grc != 0)) results[]], r, [[].failed_rc = 1;
      if (rc != 0) results[]], r, [[].singular++;
      if (rc == 0 && grc == 0) compare(&results[]], r, [[], qp, gqp, NQ);
      for (int k = 0; k < NV; k++) vp[k] = (double)(real)v[k];
      togen(vp, gvp, NV);
      if (rc == 0 && grc == 0) {
        for (int k = 0; k < NQ; k++) qp[k] = (double)gqp[k];
        rc = mb_project_v(&M, &LP, ws, lw, qp, vp);
        grc = ]], p, [[_project_v(gqp, gvp);
        if ((rc != 0) != (grc != 0)) results[]], r + 1, [[].failed_rc = 1;
        if (rc != 0) results[]], r + 1, [[].singular++;
        if (rc == 0 && grc == 0) compare(&results[]], r + 1, [[], vp, gvp, NV);
      }
    }]])
  end
  if with_rcr then
    local r, p = rcr_slot, d.prefix
    b([[
    /* rcr: the choice between the selections too */
    {
      int gused = -1, rused = -1;
      rc = mb_rcr(&M, &LP, ws, lw, RCR_NSEL, ]], p, [[_rcr_dep, q, v, tau, ref, &rused);
      grc = ]], p, "_rcr(", params.arg(d), [[gq, gv, gtau, out, &gused);
      if ((rc != 0) != (grc != 0) || (rc == 0 && rused != gused)) results[]], r, [[].failed_rc = 1;
      if (rc != 0) results[]], r, [[].singular++;
      /* compared where the selection used is well conditioned (a last resort below the switch
       * carries errors of about ε over its pivot ratio) */
      double lo = 0, ratio[NC];
      if (rc == 0 && grc == 0 &&
          mb_rcr_pivots(&M, &LP, ws, lw, q, ]], p, [[_rcr_dep + rused * NC, ratio, &lo) == 0 &&
          lo >= ]], d.PREFIX, [[_RCR_SWITCH)
        compare(&results[]], r, [[], ref, out, NV);
      else if (rc == 0 && grc == 0)
        results[]], r, [[].skipped++;
    }]])
  end
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
  if with_rcr_sc then
    local r, p = nresults - 1, d.prefix
    b([[
    /* rcr_sc: against rcr, the same choice and the same answer */
    {
      int used = -1, used_sc = -1;
      rc = ]], p, "_rcr(", params.arg(d), [[gq, gv, gtau, out, &used);
      for (int k = 0; k < NV; k++) ref[k] = (double)out[k];
      grc = ]], p, "_rcr_sc(", params.arg(d), [[gq, gsc, gv, gtau, out, &used_sc);
      if (grc != rc || used != used_sc) results[]], r, [[].failed_rc = 1;
      else if (rc == 0) compare(&results[]], r, [[], ref, out, NV);
      else results[]], r, [[].singular++;
    }]])
  end
  for _, f in ipairs(unchecked) do
    b("    /* ", f.name, ": run, not compared */")
    b("    ", f.returns == "int" and "(void)" or "", (fused_parts(f) and call_fused(f) or call(f)),
      ";")
  end
  b([[    (void)rc, (void)grc;
  }
  int failed = 0, worst = 0;
  printf("%s: generated functions against the mbdc runtime, %d random states (seed %u), %s\n",
         "]], d.prefix, [[", NSTATES, SEED, "]], d.scalar, [[");
  printf("  %-23s %12s %12s\n", "function", "max abs err", "max rel err");
  for (int k = 0; k < ]], nresults, [[; k++) {
    const result *r = &results[k];
    int bad = !(r->rel <= TOLERANCE) || r->failed_rc;
    failed += bad;
    if (r->rel > results[worst].rel) worst = k;
    printf("  %-23s %12.3e %12.3e  %s", r->name, r->abs, r->rel,
           r->failed_rc ? "FAIL (return code)" : bad ? "FAIL" : "ok");
    if (r->singular) printf(" (%d singular states, both -1)", r->singular);
    if (r->skipped) printf(" (%d states below the switch ratio, not compared)", r->skipped);
    printf("\n");
  }]])
  if #variants > 0 or with_rcr then
    b("  printf(\"  (rcr, rcr_<s>, rcr_refine_<s>: compared where the selection's smallest pivot \"")
    b("         \"ratio is >= the switch; rcr_refine_<s> from the runtime's answer moved by 1e-6)\\n\");")
  end
  if #unchecked_parts > 0 then
    b("  printf(\"  outputs run but not checked: ",
      table.concat(unchecked_parts, ", "), "\\n\");")
  end
  if #unchecked > 0 then
    local names = {}
    for k, f in ipairs(unchecked) do names[k] = f.name end
    b("  printf(\"  run but not checked (no runtime reference): ", table.concat(names, ", "),
      "\\n\");")
  end
  b([[
  if (failed)
    printf("]], d.prefix, [[: FAILED: %d function(s) above the tolerance %g\n", failed, TOLERANCE);
  else
    printf("]], d.prefix, [[: ok: %d functions agree to %g (worst %.1e, %s)\n", ]],
    #known + nfused + #variants + nrefines + (proj and 2 or 0) + (with_rcr and 1 or 0) + #twins +
    (with_rcr_sc and 1 or 0),
    [[, TOLERANCE, results[worst].rel, results[worst].name);
  free(ref), free(out), free(ref2), free(out2), free(ref3), free(out3), free(buffer);]])
  CC.free(b, d)
  if loops then b("  free(lbuffer);") end
  if contacts then b("  free(cscratch);") end
  if max_fout > 0 then b("  for (int k = 0; k < ", max_fout, "; k++) free(fout[k]);") end
  if max_fout2 > 0 then b("  for (int k = 0; k < ", max_fout2, "; k++) free(fout2[k]);") end
  b([[
  return failed ? 1 : 0;
}]])
  return b.text()
end
