-- aba.lua — forward dynamics by the articulated-body algorithm (Featherstone, "Rigid Body
-- Dynamics Algorithms", 2008, ch. 7; Critchley & Anderson, "A Generalized Recursive Coordinate
-- Reduction Method for Multibody System Dynamics", International Journal for Multiscale
-- Computational Engineering, 2003, eqs. 9-22; Jain & Rodriguez, "Recursive Dynamics for Flexible
-- Multibody Systems Using Spatial Operators", JPL Publication 90-26, 1990, §6-7, eqs. 6.1,
-- 7.2-7.3), in its bias-force form: with a_i = a0_i + Δa_i,
-- a0 the accelerations at q̈ = 0 (gravity and velocity products: a0_i = iXλ a0_λ + c_i), the
-- articulated bias starts from the RNEA's body forces at q̈ = 0, pA_i = I_i a0_i + v_i ×* I_i v_i,
-- the term Ia c drops out of pa, and the last pass carries Δa_i = iXλ Δa_λ + S q̈ from Δa_0 = 0.
local sp = import "spatial"
local J = import "joints"
local rnea = import "rnea"

local PF = import "passive_forces"
local CP = import "coupled"

-- Body b's joint forces from tau (A.backward's): the input array's, or the table's entries.
local function joint_forces(b, tau)
  if tau == false then return sp.zeros(b.nv) end
  if type(tau) ~= "table" then return J.read(b, tau or "tau") end
  local x = {}
  for c = 1, b.nv do x[c] = tau[b.iv + c] end
  return x
end

local A = {
  name = "aba",
  summary = "forward dynamics by the articulated-body algorithm: qdd = M(q)^-1 (tau - h(q, v))",
  returns = "int",
  frames = true, -- world-aligned variants (--frame, reference.lua)
  params = {
    { name = "q", role = "q" },
    { name = "v", role = "v" },
    { name = "tau", role = "tau" },
    { name = "qdd", role = "out_nv" },
  },
}

-- The backward pass from the RNEA's forward pass (T, X, pA at q̈ = 0, and pe, the modal forces
-- of the flexible bodies at q̈ = 0): the articulated inertias, each joint's factors jt[i] (U,
-- D = L diag Lᵀ, W, Ia) and innovations u[i]; returns jt, u and the articulated inertias IA
-- (pA[i] holds each articulated bias force on return). each(i, jt_i), if given, runs once per body after
-- its factors and before its parent's (fd_loops sweeps its constraint rows there). A flexible
-- body carries the coupling PC and modal block PE of its articulated modal inertia; a child
-- passes A = λX*_i Ia iXλ and F = λX*_i pa to its section: PC_λ += A Ψ_i, PE_λ += Ψ_iᵀ A Ψ_i,
-- pe_λ += Ψ_iᵀ F (Jain & Rodriguez 1990, §7). tau: the input array of the joint forces ("tau" if
-- nil; false: none, u = −Sᵀ pA, as impulse's sweeps (contact.lua) without forces; a table: the
-- joint forces themselves, 1-based over the joints' dofs, as passive_forces.lua's fd_tau).
-- step(b, IA, R, pA_i, tau_b), if given, replaces a rigid body's articulated step: it returns the
-- joint's factors and its innovations u (hybrid.lua's prescribed dofs); factors with a field pA
-- pass that bias on instead of pA_i.
function A.backward(T, X, pA, each, pe, tau, step)
  local IA, jt, u, base, R = {}, {}, {}, J.base_references(T, X), {}
  local PC, PE = J.modal_blocks(T)
  pe = pe or {}
  for _, b in ipairs(T) do IA[b.i], R[b.i] = sp.M6_from_I(b.I), { table.unpack(base[b.i]) } end
  for i = #T, 1, -1 do
    local b, p = T[i], T[i].parent
    IA[i], pA[i] = sp.name6(IA[i], "IA_" .. b.name), J.name(pA[i], "pA", b)
    -- U = IA S;  D = Sᵀ U (pivots against R_i);  W = D⁻¹ Uᵀ;  u = τ − Sᵀ pA
    if b.nm > 0 then
      J.name_modal(PC, PE, b)
      jt[i] = J.articulated_modal(b, IA[i], PC[i], PE[i], R[i])
      local ut = sp.sub(joint_forces(b, tau), J.ST(b, pA[i]))
      for c, x in ipairs(sp.sub(J.read_modes(b, "tau"), pe[i])) do ut[b.nv + c] = x end
      u[i] = J.name(ut, "u", b)
    elseif step then
      jt[i], u[i] = step(b, IA[i], R[i], pA[i], joint_forces(b, tau))
    else
      jt[i] = J.articulated(b, IA[i], R[i])
      u[i] = J.name(sp.sub(joint_forces(b, tau), J.ST(b, pA[i])), "u", b)
    end
    if each then each(i, jt[i]) end
    if p > 0 then
      -- R_λ += the lock terms of i weighted by base_i / d_i (rigid bodies)
      if b.nm == 0 then J.amplify(R[p], T[p], X[i], jt[i], base[i]) end
      -- pa = pA + U D⁻¹ u;  IA_λ += λX*_i Ia iXλ;  pA_λ += λX*_i pa
      local pa = sp.add(jt[i].pA or pA[i], J.WT_mv(jt[i], u[i]))
      local A6 = sp.M6_to_parent(X[i], jt[i].Ia)
      local F = sp.XT_fv(X[i], pa)
      IA[p] = sp.M6_add(IA[p], A6)
      pA[p] = sp.add(pA[p], F)
      if b.Psi then
        J.add_section(PC[p], PE[p], b.Psi, function(x) return sp.M6_mv(A6, x) end)
        pe[p] = sp.add(pe[p], J.cols_T(b.Psi, F))
      end
    end
  end
  return jt, u, IA
end

-- The forward pass: a' = iXλ (Δa_λ + Ψ q̈_η,λ);  q̈ = D⁻¹ u − W a';  Δa_i = a' + S q̈ (u[i] nil:
-- zero; a flexible body's q̈ lists its joint's then its modes'; factors with a field w add w, the
-- prescribed accelerations, to q̈, unless no_w: a pass of forces alone). Returns q̈ (per body)
-- and Δa, named prefix_<body>.
function A.forward(T, X, jt, u, prefix, no_w)
  local da, qdd = { [0] = sp.zeros(6) }, {}
  for _, b in ipairs(T) do
    local i = b.i
    local dp = da[b.parent]
    if b.Psi then
      local P, eta = T[b.parent], {}
      for c = 1, P.nm do eta[c] = qdd[P.i][P.nv + c] end
      dp = J.cols_mv(b.Psi, eta, { table.unpack(dp) })
    end
    local ap = sp.X_mv(X[i], dp)
    qdd[i] = sp.sub(u[i] and sp.ldl_solve(jt[i].F, u[i]) or sp.zeros(b.nv + b.nm), J.W_mv(jt[i], ap))
    if jt[i].w and not no_w then qdd[i] = sp.add(qdd[i], jt[i].w) end
    da[i] = J.name(sp.add(ap, J.S_mv(b, qdd[i])), prefix, b)
  end
  return qdd, da
end

function A.build(model)
  if model.coupling then return CP.forward(model, nil) end -- coupled joints: coupled.lua
  -- v_i, pA_i = I_i a0_i + v_i ×* I_i v_i: the RNEA's forward pass at q̈ = 0
  local T, X, _, pA, _, _, pe = rnea.forward(model, "v", nil)
  local jt, u = A.backward(T, X, pA, nil, pe, PF.fd_tau(model))
  local qdd = A.forward(T, X, jt, u, "da")
  for _, b in ipairs(T) do
    for k = 1, b.nv + b.nm do sym.output("qdd", b.iv + k - 1, qdd[b.i][k]) end
  end
end

return A
