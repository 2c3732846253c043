-- derivatives.lua — the derivatives of inverse and forward dynamics: the recipes rnea_derivatives
-- (∂τ/∂q, ∂τ/∂v and ∂τ/∂a = M at (q, v, a)) and aba_derivatives (∂q̈/∂q, ∂q̈/∂v and ∂q̈/∂τ = M⁻¹ at
-- (q, v, τ)), after Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics
-- Algorithms", RSS 2018, with every quantity in the world frame at the world's origin (the tree of
-- reference.lua's `world`); runtime/derivatives.c computes the same, and docs/derivatives.md has
-- the derivation.
--
-- A tangent step of dof c (joint k) moves k's subtree rigidly; τ_r = S_rᵀ F_j of a joint j in that
-- subtree sees only the intrinsic changes: with Ψ̇_c = v_λ × S_c, Ψ̈_c = a_λ × S_c + v_λ × Ψ̇_c,
-- A_c = Ψ̇_c + v_k × S_c (λ = λ(k)), a body's force f = I a + v ×* I v changes by I Ψ̈_c + B Ψ̇_c
-- (q) and I A_c + B S_c (v), where B = C + Cᵀ + H(h), C = (v ×*) I, h = I v, H(h) x = x ×* h.
-- With the subtree sums IC (a 10-number inertia), BC and F:
--   r of j, c of k ⪯ j:  ∂τ_r/∂q_c = (IC_j S_r)ᵀ Ψ̈_c + (BC_jᵀ S_r)ᵀ Ψ̇_c,
--                        ∂τ_r/∂v_c = (IC_j S_r)ᵀ A_c + (BC_jᵀ S_r)ᵀ S_c,  M_rc = (IC_j S_r)ᵀ S_c
--   r of k ≺ j, c of j:  ∂τ_r/∂q_c = S_rᵀ (S_c ×* F_j + IC_j Ψ̈_c + BC_j Ψ̇_c),
--                        ∂τ_r/∂v_c = S_rᵀ (IC_j A_c + BC_j S_c),  M_rc = S_rᵀ IC_j S_c
-- and 0 for dofs of bodies on different branches. ∂q̈/∂x = −M⁻¹ ∂τ/∂x at q̈ = aba(q, v, τ).
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"
local aba = import "aba"
local PF = import "passive_forces"
local minv = import "minv"
local REF = import "reference"
local CP = import "coupled"

local D = {}

-- The working tree in the world frame at the origin, whatever the function's --frame.
local function world_tree(model)
  return J.in_frames("world", function() return J.tree(model) end)
end

-- B = C + Cᵀ + H(h) (row-major 6×6), C = (v ×*) I column by column, H(h) = [−n× −f×; −f× 0].
local function velocity_matrix(I, v, h)
  local C, B = {}, {}
  for c = 1, 6 do
    local e = sp.zeros(6)
    e[c] = 1
    local y = sp.crf(v, sp.I_mv(I, e))
    for r = 1, 6 do C[sp.at6(r, c)] = y[r] end
  end
  for r = 1, 6 do
    for c = 1, 6 do B[sp.at6(r, c)] = C[sp.at6(r, c)] + C[sp.at6(c, r)] end
  end
  local function minus_cross(x, r0, c0)
    local X = { 0, x[3], -x[2], -x[3], 0, x[1], x[2], -x[1], 0 }
    for r = 1, 3 do
      for c = 1, 3 do
        local at = sp.at6(r0 + r, c0 + c)
        B[at] = B[at] + X[3 * (r - 1) + c]
      end
    end
  end
  local n, f = { h[1], h[2], h[3] }, { h[4], h[5], h[6] }
  minus_cross(n, 0, 0)
  minus_cross(f, 0, 3)
  minus_cross(f, 3, 0)
  return B
end

-- Aᵀ x for a row-major 6×6 A
local function M6T_mv(A, x)
  local y = {}
  for c = 1, 6 do
    local s = 0
    for r = 1, 6 do s = s + A[sp.at6(r, c)] * x[r] end
    y[c] = s
  end
  return y
end

-- Body b's universal cross (nil for any other joint): v_x = v_λ + S1 q̇1 and a_x = a_λ + S1 q̈1 +
-- v_λ × S1 q̇1 (the world frame), and the body's a_i + q̇1 q̇2 S1 × S2.
local function universal_cross(b, V, Acc, ai, qd, qdd)
  if b.type ~= "universal" then return nil end
  local S1, S2, p = b.S[1], b.S[2], b.parent
  local q1, q2, a1 = qd[b.iv + 1], qd[b.iv + 2], qdd[b.iv + 1]
  local vx = J.name(sp.add(V[p], sp.scale(S1, q1)), "vx", b)
  local ax = sp.add(sp.add(Acc[p], sp.scale(S1, a1)), sp.scale(sp.crm(V[p], S1), q1))
  return vx, J.name(ax, "ax", b), sp.add(ai, sp.scale(sp.crm(S1, S2), q1 * q2))
end

-- The world-frame kinematics: per body v and a (Acc[0] = a0: −g, or zero for a frame's own
-- acceleration), per dof {S, Pd = Ψ̇, Pdd = Ψ̈, A}. qd, qdd: arrays of the nv velocity and
-- acceleration entries (1-based). A universal joint is the chain of its revolutes through a
-- massless cross x (runtime/derivatives.c): a_i += q̇1 q̇2 S1 × S2 (cJ); θ2's column hangs from
-- x, θ1's moves x.
function D.kinematics(T, qd, qdd, a0)
  local V, Acc, dof = { [0] = sp.zeros(6) }, { [0] = a0 }, {}
  for _, b in ipairs(T) do
    local i, p = b.i, b.parent
    local vJ, aJ = sp.zeros(6), sp.zeros(6)
    for c, S in ipairs(b.S) do
      vJ = sp.add(vJ, sp.scale(S, qd[b.iv + c]))
      aJ = sp.add(aJ, sp.scale(S, qdd[b.iv + c]))
    end
    V[i] = J.name(sp.add(V[p], vJ), "v", b)
    Acc[i] = J.name(sp.add(sp.add(Acc[p], aJ), sp.crm(V[i], vJ)), "a", b)
    local vx, ax, ai = universal_cross(b, V, Acc, Acc[i], qd, qdd)
    if vx then Acc[i] = J.name(ai, "a", b) end
    for c, S in ipairs(b.S) do
      local vl, al, vb = V[p], Acc[p], V[i] -- the frame S_c hangs from, the one it moves
      if vx and c == 2 then vl, al = vx, ax end
      if vx and c == 1 then vb = vx end
      local Pd = J.name(sp.crm(vl, S), "Pd" .. (c - 1), b)
      local Pdd = J.name(sp.add(sp.crm(al, S), sp.crm(vl, Pd)), "Pdd" .. (c - 1), b)
      -- A = v_i × S + Ψ̇ with v_i = v_λ + Σ S_k q̇_k: for one dof, S × S = 0 leaves A = 2 Ψ̇
      local A = b.nv == 1 and sp.scale(Pd, 2) or sp.add(sp.crm(vb, S), Pd)
      A = J.name(A, "A" .. (c - 1), b)
      dof[b.iv + c] = { S = S, Pd = Pd, Pdd = Pdd, A = A }
    end
  end
  return V, Acc, dof
end

-- The forward pass in the world frame: the kinematics with gravity, and per body its inertia I,
-- B and force f. fext: the name of the input of body-frame wrenches (nil: none), taken off the
-- bodies' forces: a wrench fixed on its body moves with it like the rest, so the formulas stay as
-- they are; or a function of a body giving the world-frame wrench at the origin to take off (its
-- q-dependence is then the caller's to add: contact_derivatives.lua).
local function forward(model, T, qd, qdd, fext)
  local V, Acc, dof = D.kinematics(T, qd, qdd, J.a0(model))
  local B, F = {}, {}
  for _, b in ipairs(T) do
    local i = b.i
    local h = sp.I_mv(b.I, V[i])
    B[i] = velocity_matrix(b.I, V[i], h)
    F[i] = sp.add(sp.I_mv(b.I, Acc[i]), sp.crf(V[i], h))
    if fext then
      F[i] = sp.sub(F[i], type(fext) == "function" and fext(b) or J.fext(b, fext))
    end
  end
  return dof, B, F, V
end

-- The subtree sums IC, BC and F (in place), named once final.
local function composites(T, B, F)
  local IC = {}
  for _, b in ipairs(T) do IC[b.i] = b.I end
  for i = #T, 1, -1 do
    local b, p = T[i], T[i].parent
    IC[i], B[i], F[i] = J.name(IC[i], "IC", b), J.name(B[i], "BC", b), J.name(F[i], "F", b)
    if p > 0 then
      IC[p], B[p], F[p] = sp.add(IC[p], IC[i]), sp.add(B[p], B[i]), sp.add(F[p], F[i])
    end
  end
  return IC
end

-- ∂τ/∂q, ∂τ/∂v and M as rows (1-based dofs) at q, the velocities qd and accelerations qdd, with
-- the external wrenches fext (forward's; nil: none); ∂τ/∂fext when fext names an input; and the
-- world tree T and its dofs {S, Pd, Pdd, A}.
function D.rnea(model, qd, qdd, fext)
  local T, nv = world_tree(model), model.nv
  local dof, BC, F, V = forward(model, T, qd, qdd, fext)
  local IC = composites(T, BC, F)
  local dq, dv, M = {}, {}, {}
  for r = 1, nv do dq[r], dv[r], M[r] = sp.zeros(nv), sp.zeros(nv), sp.zeros(nv) end
  for _, b in ipairs(T) do
    local i = b.i
    -- per dof r of i: u = IC_i S_r, w = BC_iᵀ S_r (its rows); per dof c of i: the columns P, Q
    -- that the rows of i's ancestors read
    local u, w, P, Q = {}, {}, {}, {}
    for c = 1, b.nv do
      local d = dof[b.iv + c]
      u[c] = J.name(sp.I_mv(IC[i], d.S), "u" .. (c - 1), b)
      w[c] = J.name(M6T_mv(BC[i], d.S), "w" .. (c - 1), b)
      P[c] = sp.add(sp.add(sp.crf(d.S, F[i]), sp.I_mv(IC[i], d.Pdd)), sp.M6_mv(BC[i], d.Pd))
      Q[c] = sp.add(sp.I_mv(IC[i], d.A), sp.M6_mv(BC[i], d.S))
    end
    local k = b
    while k do
      -- S_cᵀ x for every column c of k: by k's factors from three columns up (REF.project),
      -- else one dot product each
      local many = k.nv >= 3
      local function project(x)
        if many then return REF.project(k, x) end
        local y = {}
        for c = 1, k.nv do y[c] = sp.dot(dof[k.iv + c].S, x) end
        return y
      end
      -- A_c = (v_λ + v_k) × S_c, so u_r·A_c + w_r·S_c = S_cᵀ (w_r − (v_λ + v_k) ×* u_r)
      local vv = many and sp.add(V[k.parent], V[k.i])
      for r = 1, b.nv do -- rows of i, columns of k
        local row = b.iv + r
        local m, n = project(u[r]), many and project(sp.sub(w[r], sp.crf(vv, u[r])))
        for c = 1, k.nv do
          local d, col = dof[k.iv + c], k.iv + c
          dq[row][col] = sp.dot(u[r], d.Pdd) + sp.dot(w[r], d.Pd)
          dv[row][col] = many and n[c] or sp.dot(u[r], d.A) + sp.dot(w[r], d.S)
          M[row][col] = m[c]
        end
      end
      if k == b and b.type == "universal" then -- S1 does not turn with θ2: S1ᵀ (S2 ×* F_i)
        local at = b.iv + 1
        dq[at][at + 1] = dq[at][at + 1] + sp.dot(dof[at].S, sp.crf(dof[at + 1].S, F[i]))
      end
      if k ~= b then -- rows of the ancestor k, columns of i
        for c = 1, b.nv do
          local col = b.iv + c
          local p, q = project(P[c]), project(Q[c])
          for r = 1, k.nv do
            local row = k.iv + r
            dq[row][col], dv[row][col] = p[r], q[r]
            M[row][col] = M[col][row] -- symmetric: set just above
          end
        end
      end
      k = k.parent > 0 and T[k.parent] or nil
    end
  end
  return dq, dv, M, type(fext) == "string" and D.fext_columns(model, T, dof) or nil, T, dof
end

-- ∂τ/∂fext = −Jᵀ per body, rows (1-based dofs) of 6 (nb + 1) entries: entry 6 j + l of row r is
-- −(X_j S_r)_l for r a dof of j or of its ancestors, X_j the world → body j's original frame.
function D.fext_columns(model, T, dof)
  local rows = {}
  for r = 1, model.nv do rows[r] = sp.zeros(6 * (model.nb + 1)) end
  for _, b in ipairs(T) do
    local X, k = sp.inverse(b.Yo), b
    while k do
      for c = 1, k.nv do
        local y = sp.X_mv(X, dof[k.iv + c].S)
        for l = 1, 6 do rows[k.iv + c][6 * b.i + l] = -y[l] end
      end
      k = k.parent > 0 and T[k.parent] or nil
    end
  end
  return rows
end

local function inputs(name, n)
  local x = {}
  for k = 1, n do x[k] = sym.input(name, k - 1) end
  return x
end

-- rows (1-based) of ncols entries into the output name, row-major (also contact_derivatives.lua)
function D.output_rows(name, rows, ncols)
  for r = 1, #rows do
    for c = 1, ncols do sym.output(name, ncols * (r - 1) + c - 1, rows[r][c]) end
  end
end

local function build_rnea(model, fext)
  local nv = model.nv
  local dq, dv, M, df = D.rnea(model, inputs("v", nv), inputs("a", nv), fext)
  J.output_matrix("dtau_dq", dq, nv)
  J.output_matrix("dtau_dv", dv, nv)
  J.add_armature(J.tree(model), M)
  J.output_matrix("M", M, nv)
  if df then D.output_rows("dtau_dfext", df, 6 * (model.nb + 1)) end
end

-- ∂g/∂q: the inverse-dynamics derivatives at v = 0, q̈ = 0 (constants: the velocity and
-- acceleration terms fold away).
local function build_gravity(model)
  local nv = model.nv
  local dq = D.rnea(model, sp.zeros(nv), sp.zeros(nv))
  J.output_matrix("dg_dq", dq, nv)
end

-- q̈ by the articulated-body algorithm (aba.lua), M⁻¹ (minv.lua) and the inverse-dynamics
-- derivatives at q̈ into dqdd_dq and dqdd_dv; the epilogue (templates/c/source.lua,
-- "minus_minv_product") then multiplies them by −M⁻¹ in place, a loop of nv³ multiply-adds each
-- (skipping the zeros of ∂τ), where the unrolled product would be as many statements: on a
-- humanoid, most of the function and most of its compile time.
-- With coupled joints (coupled.lua): q̈ and M⁻¹ of the reduced system, the inverse-dynamics
-- derivatives at q̈_full = G q̈ folded as Gᵀ ∂τ G: d q̈/dx = −(Gᵀ M G)⁻¹ Gᵀ (∂τ/∂x) G, x = q, v.
local function build_aba_coupled(model)
  local n = model.coupling.nv
  local qdd, F = CP.qdd(model, nil)
  for k = 1, n do qdd[k] = sym.name(qdd[k], "qdd_" .. (k - 1)) end
  local dq, dv = D.rnea(model, inputs("v", model.nv), CP.expand(model, qdd))
  PF.fd_derivatives(model, dq, dv) -- less ∂τ_passive (--passive-in-fd), before the fold
  J.output_matrix("dqdd_dq", CP.fold_matrix(model, dq), n)
  J.output_matrix("dqdd_dv", CP.fold_matrix(model, dv), n)
  J.output_matrix("Minv", CP.inverse(F), n)
end

-- fext: the input of external wrenches (aba_ext_derivatives), nil for none; then also
-- ∂τ/∂fext = −Jᵀ into dqdd_dfext, which the epilogue turns into ∂q̈/∂fext = M⁻¹ Jᵀ.
local function build_aba(model, fext)
  if model.coupling then return build_aba_coupled(model) end
  if fext and model.passive_in_fd then
    error("aba_ext_derivatives is not generated with --passive-in-fd yet (the runtime's "
      .. "mb_aba_ext_derivatives, its reference, has no passive forces)", 0)
  end
  local nv = model.nv
  local T, X, _, pA, _, _, pe = rnea.forward(model, "v", nil, fext)
  local jt, u = aba.backward(T, X, pA, nil, pe, PF.fd_tau(model))
  local qdd_b = aba.forward(T, X, jt, u, "da")
  local qdd = {}
  for _, b in ipairs(T) do
    for k = 1, b.nv do
      qdd[b.iv + k] = sym.name(qdd_b[b.i][k], "qdd_" .. b.name .. "_" .. (k - 1))
    end
  end
  local Mi = minv.matrix(model)
  local dq, dv, _, df = D.rnea(model, inputs("v", nv), qdd, fext)
  PF.fd_derivatives(model, dq, dv) -- less ∂τ_passive (--passive-in-fd)
  J.output_matrix("dqdd_dq", dq, nv)
  J.output_matrix("dqdd_dv", dv, nv)
  J.output_matrix("Minv", Mi, nv)
  if df then D.output_rows("dqdd_dfext", df, 6 * (model.nb + 1)) end
end

local TANGENT = "; the q-derivatives along the tangent space, as Pinocchio's: column k is d/de at "
  .. "e = 0 of the value at integrate(q, e_k, e) (a quaternion turns in its child frame)"

local recipes = {
  rnea_derivatives = {
    summary = "derivatives of inverse dynamics at (q, v, a): dtau_dq, dtau_dv and dtau_da = M, "
      .. "nv x nv row-major" .. TANGENT,
    returns = "void",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" }, { name = "a", role = "a" },
               { name = "dtau_dq", role = "out_nvnv" }, { name = "dtau_dv", role = "out_nvnv" },
               { name = "M", role = "out_nvnv" } },
    build = function(model) build_rnea(model, nil) end,
  },
  gravity_derivatives = {
    summary = "the derivative of the gravity torques g(q) (gravity's): dg_dq, nv x nv row-major, "
      .. "the stiffness gravity adds (mb_static)" .. TANGENT,
    returns = "void",
    params = { { name = "q", role = "q" }, { name = "dg_dq", role = "out_nvnv" } },
    build = function(model) build_gravity(model) end,
  },
  rnea_ext_derivatives = {
    summary = "derivatives of inverse dynamics with external wrenches at (q, v, a, fext): "
      .. "dtau_dq, dtau_dv, dtau_da = M (nv x nv) and dtau_dfext = -J^T per body (nv x 6 (nb + 1),"
      .. " column 6 j + l: entry l of body j's wrench), row-major; fext as rnea_ext's, held on its"
      .. " body" .. TANGENT,
    returns = "void",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" }, { name = "a", role = "a" },
               { name = "fext", role = "fext" },
               { name = "dtau_dq", role = "out_nvnv" }, { name = "dtau_dv", role = "out_nvnv" },
               { name = "M", role = "out_nvnv" }, { name = "dtau_dfext", role = "out_nvwrench" } },
    build = function(model) build_rnea(model, "fext") end,
  },
  aba_derivatives = {
    summary = "derivatives of forward dynamics at (q, v, tau): dqdd_dq, dqdd_dv and dqdd_dtau = "
      .. "M^-1, nv x nv row-major" .. TANGENT,
    returns = "int",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "tau", role = "tau" },
               { name = "dqdd_dq", role = "out_nvnv" }, { name = "dqdd_dv", role = "out_nvnv" },
               { name = "Minv", role = "out_nvnv" } },
    build = function(model) build_aba(model, nil) end,
    epilogue = "minus_minv_product",
  },
  aba_ext_derivatives = {
    summary = "derivatives of forward dynamics with external wrenches at (q, v, tau, fext): "
      .. "dqdd_dq, dqdd_dv, dqdd_dtau = M^-1 (nv x nv) and dqdd_dfext = M^-1 J^T per body "
      .. "(nv x 6 (nb + 1), column 6 j + l: entry l of body j's wrench), row-major; fext as "
      .. "aba_ext's, held on its body" .. TANGENT,
    returns = "int",
    params = { { name = "q", role = "q" }, { name = "v", role = "v" },
               { name = "tau", role = "tau" }, { name = "fext", role = "fext" },
               { name = "dqdd_dq", role = "out_nvnv" }, { name = "dqdd_dv", role = "out_nvnv" },
               { name = "Minv", role = "out_nvnv" },
               { name = "dqdd_dfext", role = "out_nvwrench" } },
    build = function(model) build_aba(model, "fext") end,
    epilogue = "minus_minv_product",
  },
}

-- The recipe of function name: rnea_derivatives, rnea_ext_derivatives, gravity_derivatives,
-- aba_derivatives, aba_ext_derivatives (the registry: generator/lua/lua_recipes.c).
function D.recipe(name)
  local r = recipes[name]
  return { name = name, summary = r.summary, returns = r.returns, params = r.params,
           frame = "world", epilogue = r.epilogue, build = r.build }
end

return D
