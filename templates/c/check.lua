-- check.lua — <prefix>_check.c: the cross-check harness. Every generated function against the
-- generic runtime (runtime/mb.h) on random states from a fixed seed; prints the worst absolute
-- and relative error per function and fails above the tolerance.
local common = import "c/common"
local project = import "c/project"
local rcr = import "c/rcr"
local ident = import "c/identification"
local params = import "c/check_params"
local CC = import "c/check_coupled"

local K = import "c/check_compare"
local FDC = import "c/check_fd"
local BC = import "c/check_batch"
local reference, size_of = K.reference, K.size_of
local base, call, fused_parts, call_fused = K.base, K.call, K.fused_parts, K.call_fused
local unassembled = K.unassembled

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
        local arity = 1 + #K.extras(part.name)
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
      local sc = f.twin_of and "_sc" or ""
      entries[#entries + 1] = f.name
      for _, s in ipairs(K.extras(base(f))) do entries[#entries + 1] = s.name .. sc end
      nresults = nresults + 1 + #K.extras(base(f))
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
  local fdl = FDC.pairs(d) -- the derivatives against differences of their generated functions
  FDC.helpers(b, fdl)
  local bl = BC.list(d, rcr, project) -- --batch: the batch functions against the scalar ones
  BC.helpers(b, d, bl)
  params.helpers(b, d)
  ident.check_helpers(b, d)
  project.check_helpers(b, d)
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
  if (big < (size_t)(6 * NV * (NB + 1))) big = (size_t)(6 * NV * (NB + 1));]] ..
    (contacts and "\n  if (big < (size_t)(NCROWS * NV)) big = (size_t)(NCROWS * NV);" or "") .. [[
  /* q has room for a whole floating joint past its end: the compiler cannot prove that the
   * joint-type switch in randstate never writes 7 coordinates into a smaller model's q */
  double q[NQ + 7], v[NV], a[NV], tau[NV], fext[6 * (NB + 1)], q2[NQ + 7];
  real gq[NQ], gv[NV], ga[NV], gtau[NV], gfext[6 * (NB + 1)], gq2[NQ];]] ..
    (trig and "\n  real gsc[NSC]; /* the sines and cosines of the _sc functions (p_trig) */" or "")
    .. [[
  double *ref = malloc(big * sizeof *ref), *ref2 = malloc(big * sizeof *ref2);
  double *ref3 = malloc(big * sizeof *ref3), *ref4 = malloc(big * sizeof *ref4);
  real *out3 = malloc(big * sizeof *out3), *out4 = malloc(big * sizeof *out4);
  /* the outputs after the fourth (contact_fd_derivatives: 8) */
  double *ref5 = malloc(big * sizeof *ref5), *ref6 = malloc(big * sizeof *ref6);
  double *ref7 = malloc(big * sizeof *ref7), *ref8 = malloc(big * sizeof *ref8);
  real *out5 = malloc(big * sizeof *out5), *out6 = malloc(big * sizeof *out6);
  real *out7 = malloc(big * sizeof *out7), *out8 = malloc(big * sizeof *out8);
  real *out = malloc(big * sizeof *out), *out2 = malloc(big * sizeof *out2);
  void *buffer = malloc(mb_workspace_size(&M));
  mb_workspace wsbuf, *ws = &wsbuf;
  char msg[200];
  if (!ref || !out || !ref2 || !out2 || !ref3 || !out3 || !ref4 || !out4 || !ref5 || !out5 ||
      !ref6 || !out6 || !ref7 || !out7 || !ref8 || !out8 || !buffer)
    return fprintf(stderr, "out of memory\n"), 2;
  if (mb_model_check(&M, msg, sizeof msg) != 0) return fprintf(stderr, "model: %s\n", msg), 2;
  mb_workspace_init(ws, &M, buffer);]])
  CC.declare(b, d)
  FDC.declare(b, d, fdl)
  BC.declare(b, d, bl)
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
  void *lscratch = malloc(mb_fd_loops_derivatives_scratch_size(&M, &LP));
  mb_loop_workspace lwbuf, *lw = &lwbuf;
  if (!lbuffer || !lscratch) return fprintf(stderr, "out of memory\n"), 2;
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
  void *cscratch = malloc(mb_contact_derivatives_scratch_size(&M, &CONTACTS));
  if (!cscratch) return fprintf(stderr, "out of memory\n"), 2;
  if (mb_contacts_check(&M, &FRAMES, &CONTACTS, msg, sizeof msg) != 0)
    return fprintf(stderr, "contacts: %s\n", msg), 2;]])
  end
  local hybrid = K.hybrid_setup(b, d)
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
  if proj then nresults = nresults + 4 end -- project_q, project_v, assemble, initvel
  if with_rcr then nresults = nresults + 1 end
  local first_twin = nresults -- project_q/_v, assemble, initvel and rcr come just before
  local proj_slot, rcr_slot = first_twin - 4 - (with_rcr and 1 or 0), first_twin - 1
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
    b("    {\"assemble\", 0, 0, 0, 0, 0},")
    b("    {\"initvel\", 0, 0, 0, 0, 0},")
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
  if d.passive_in_fd and not CC.passive(b, d) then -- --passive-in-fd: the runtime's forward
    -- dynamics at τ + τ_passive (coupled joints: check_coupled.lua)
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
  if hybrid then K.hybrid_state(b, loops) end
  K.known(b, d, known, slot, reference)
  FDC.calls(b, d, fdl)
  BC.calls(b, d, bl)
  K.fused(b, d, fused, slot, reference)
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
    project.check(b, d, r + 2)
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
  K.twins(b, d, twins, by_name, first_twin)
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
  FDC.report(b, fdl)
  BC.report(b, d, bl)
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
    #known + nfused + #variants + nrefines + (proj and 4 or 0) + (with_rcr and 1 or 0) + #twins +
    (with_rcr_sc and 1 or 0),
    [[, TOLERANCE, results[worst].rel, results[worst].name);
  free(ref), free(out), free(ref2), free(out2), free(ref3), free(out3), free(ref4), free(out4);
  free(ref5), free(out5), free(ref6), free(out6), free(ref7), free(out7), free(ref8), free(out8);
  free(buffer);]])
  CC.free(b, d)
  FDC.free(b, fdl)
  BC.free(b, bl)
  if loops then b("  free(lbuffer), free(lscratch);") end
  if contacts then b("  free(cscratch);") end
  if max_fout > 0 then b("  for (int k = 0; k < ", max_fout, "; k++) free(fout[k]);") end
  if max_fout2 > 0 then b("  for (int k = 0; k < ", max_fout2, "; k++) free(fout2[k]);") end
  b([[
  return failed ? 1 : 0;
}]])
  return b.text()
end
