-- check_coupled.lua — the harness of a model with coupled (mimic) joints (check.lua's hooks;
-- docs/dsl.md "Coupled joints"). The runtime computes on the full model (NQ, NV: every joint's
-- coordinate); the generated functions take the independent coordinates (RNQ, RNV). Each state
-- is drawn full, made consistent with the coupling (its independent entries picked and expanded
-- again: q = G q_ind + o, v = G v, a = G a) and handed to the generated functions picked; each
-- runtime answer is then mapped as the generated function's is: forces folded by Gᵀ, Jacobian
-- columns by G, M and the derivatives as Gᵀ A G, integrate's and difference's answers picked
-- (their Jacobians' rows and columns of the independent coordinates),
-- and forward dynamics and M⁻¹ by the runtime's reduced solve (mb_coupled_fd, mb_coupled_minv).
local C = {}

-- #defines after NQ, NV (which are the runtime's full counts here)
function C.macros(b, d)
  if not d.coupling then return end
  b("#define RNQ ", d.PREFIX, "_NQ /* the independent coordinates: the generated functions' */")
  b("#define RNV ", d.PREFIX, "_NV")
  b("#define CPL ", d.prefix, "_coupling")
end

-- The full-count macro names the runtime's arrays are declared with.
function C.full(d, P, what)
  return d.coupling and (P .. "_" .. what .. "_FULL") or (P .. "_" .. what)
end

-- A size expression of the generated side: NV, NQ → RNV, RNQ
function C.size(d, s)
  if not d.coupling or not s then return s end
  return (s:gsub("%f[%w_]NV%f[^%w_]", "RNV"):gsub("%f[%w_]NQ%f[^%w_]", "RNQ"))
end

-- The runtime's index of joint j's first coordinate, as the header's P_IQ_/P_IV_ give it
function C.index(d, P, j, which)
  local at = "M.i" .. which .. "[" .. P .. "_BODY_" .. j.body .. "]"
  if not d.coupling then return at end
  return "CPL." .. which .. "_of[" .. at .. "]"
end

-- Declarations before the states loop.
function C.declare(b, d)
  if not d.coupling then return end
  b([[
  double qi[NQ], vi[NV], ai[NV], q2i[NQ]; /* the independent coordinates of the state */
  double *cfold = calloc(big, sizeof *cfold);
  double *cscr = malloc(]] .. (#d.contacts > 0
      and "mb_coupled_contact_scratch_size(&M, &CPL, &CONTACTS)"
      or "mb_coupled_scratch_size(&M, &CPL)") .. [[ * sizeof *cscr);
  if (!cfold || !cscr) return fprintf(stderr, "out of memory\n"), 2;
  if (mb_coupling_check(&M, &CPL, msg, sizeof msg) != 0)
    return fprintf(stderr, "coupling: %s\n", msg), 2;]])
end

-- The state made consistent and handed over; true when it replaced check.lua's own lines.
function C.state(b, d)
  if not d.coupling then return false end
  b([[
    mb_coupled_pick(&M, &CPL, q, v, qi, vi);
    mb_coupled_pick(&M, &CPL, NULL, a, NULL, ai);
    mb_coupled_expand(&M, &CPL, qi, vi, q, v);
    mb_coupled_expand(&M, &CPL, NULL, ai, NULL, a);
    togen(qi, gq, RNQ), togen(vi, gv, RNV), togen(ai, ga, RNV), togen(tau, gtau, RNV);
    togen(fext, gfext, 6 * (NB + 1));
    /* difference's second configuration: q moved by 0.9 a (consistent: the joints are scalar) */
    mb_integrate(&M, q, a, 0.9, q2);
    for (int k = 0; k < NQ; k++) q2[k] = (double)(real)q2[k];
    mb_coupled_pick(&M, &CPL, q2, NULL, q2i, NULL);
    togen(q2i, gq2, RNQ);]])
  return true
end

local solve = {
  aba = "rc = mb_coupled_fd(&M, &CPL, ws, cscr, qi, vi, tau, NULL, ref)",
  crba_fd = "rc = mb_coupled_fd(&M, &CPL, ws, cscr, qi, vi, tau, NULL, ref)",
  aba_ext = "rc = mb_coupled_fd(&M, &CPL, ws, cscr, qi, vi, tau, fext, ref)",
  minv = "rc = mb_coupled_minv(&M, &CPL, ws, cscr, qi, ref)",
  aba_derivatives = "rc = mb_coupled_fd_derivatives(&M, &CPL, ws, cscr, qi, vi, tau, ref, ref2, "
    .. "ref3)",
  contact_fd = "rc = mb_coupled_contact_fd(&M, &CPL, &FRAMES, &CONTACTS, ws, cscr, qi, vi, tau, "
    .. "act, NULL, ref, ref2)",
  contact_fd_reg = "rc = mb_coupled_contact_fd(&M, &CPL, &FRAMES, &CONTACTS, ws, cscr, qi, vi, "
    .. "tau, act, mu, ref, ref2)",
  impulse = "rc = mb_coupled_impulse(&M, &CPL, &FRAMES, &CONTACTS, ws, cscr, qi, vi, act, ref, "
    .. "ref2)",
}

-- With --passive-in-fd: tau (its independent part) becomes τ + Gᵀ τ_passive(q_full, v_full),
-- tau_in keeps the applied τ; true when it wrote that (coupled joints), false otherwise.
function C.passive(b, d)
  if not d.coupling then return false end
  b([[
    double tau_in[NV], tau_p[NV]; /* the applied tau; tau becomes tau + G^T tau_passive */
    memcpy(tau_in, tau, sizeof tau_in);
    if (mb_passive_forces(&M, &SPRINGS, ws, q, v, tau_p) != 0) return 2;
    mb_coupled_fold_columns(&M, &CPL, 1, tau_p, tau);
    for (int k = 0; k < RNV; k++) tau[k] += tau_in[k];]])
  return true
end

local aba_derivatives_passive = "rc = mb_coupled_fd_derivatives_passive(&M, &CPL, &SPRINGS, ws, "
  .. "cscr, qi, vi, tau_in, cfold, ref, ref2, ref3)"

-- The reference call of function `name` (the runtime's own otherwise).
function C.reference(d, name, call)
  if d.coupling and d.passive_in_fd and name == "aba_derivatives" then
    return aba_derivatives_passive
  end
  return d.coupling and solve[name] or call
end

local rows_of = { out_nv = "1", out_fjac = "6 * NF", out_3nv = "3", out_6nv = "6",
                  out_ncnv = "NC" }

-- After the reference of `name` filled `ref` (an output of `role`): map it as the generated
-- function's output is mapped.
function C.fold(b, d, name, role, ref)
  if not d.coupling or solve[name] then return end
  local pick = name == "integrate" or name == "difference"
  local code
  if name == "integrate_jacobians" or name == "difference_jacobians" then
    -- the rows and columns of the independent coordinates (mb_coupled_pick's: those with factor
    -- 1; a coupled joint is scalar, its row and column 1, dt or ±1 on the diagonal like its
    -- source's)
    code = "for (int r = NV - 1; r >= 0; r--) for (int c = NV - 1; c >= 0; c--) "
      .. "if (CPL.v_mult[r] == 1 && CPL.v_mult[c] == 1) cfold[CPL.v_of[r] * RNV + CPL.v_of[c]] = "
      .. ref .. "[r * NV + c]"
  elseif pick then
    code = role == "out_nq" and ("mb_coupled_pick(&M, &CPL, " .. ref .. ", NULL, cfold, NULL)")
      or ("mb_coupled_pick(&M, &CPL, NULL, " .. ref .. ", NULL, cfold)")
  elseif role == "out_nvnv" then
    code = "mb_coupled_fold_matrix(&M, &CPL, " .. ref .. ", cfold)"
  elseif role == "out_nvreg" then
    code = "mb_coupled_fold_rows(&M, &CPL, NREG, " .. ref .. ", cfold)"
  elseif rows_of[role] then
    code = "mb_coupled_fold_columns(&M, &CPL, " .. rows_of[role] .. ", " .. ref .. ", cfold)"
  else
    return
  end
  b("      ", code, ";")
  b("      memcpy(", ref, ", cfold, big * sizeof *cfold);")
end

function C.free(b, d)
  if d.coupling then b("  free(cfold), free(cscr);") end
end

return C
