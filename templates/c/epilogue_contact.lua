-- epilogue_contact.lua — the C loops after the graphs of contact_fd_derivatives,
-- contact_fd_reg_derivatives and impulse_derivatives (templates/lib/contact_derivatives.lua): the
-- linear algebra of the derivatives of the contact system, written once per function instead of
-- unrolled (its products are dense).
--
-- contact_derivatives (contact_reg_derivatives: Φ + diag μ): on entry the graph has written
-- dqdd_dq, dqdd_dv (∂R along q, v: R = rnea(q, v, q̈) − Jcᵀ f), dqdd_dtau (M), dforce_dq,
-- dforce_dv (∂a: the contact rows' acceleration at q̈ held) and dforce_dtau (Jc). With the active
-- rows (contacts[k]), M = Lᵀ L (no fill-in over the tree) and Φ = Jc M⁻¹ Jcᵀ = W Wᵀ (both under
-- the pivot rule: -1 when M or Φ is singular to working precision), for x = q, v, τ at once
-- (∂R/∂τ = −1, ∂a/∂τ = 0):
--   U = −M⁻¹ ∂R (in the dqdd outputs; the τ block is M⁻¹),  Y = M⁻¹ Jcᵀ (rows: Jc M⁻¹),
--   ∂f = Φ⁻¹ (−Jc U − ∂a) (in the dforce outputs' active rows),  ∂q̈ = U + Y ∂f,
-- every step a sweep of whole rows of the outputs at once (the loops run along the nv columns and
-- vectorize). The inactive contacts' rows of ∂f are zero.
-- loop_derivatives (fd_loops_derivatives, templates/lib/loop_derivatives.lua): the same with the
-- loop rows K for Jc and their ∂c for ∂a, every row active, λ for f.
-- impulse_derivatives: the same for x = q, v⁻ with dvplus_dq (∂R/∂q), dvplus_dv (M), dimpulse_dq
-- (∂a/∂q), dimpulse_dv (Jc): ∂R/∂v⁻ = −M makes U's v⁻ block the identity (after it lent itself
-- to M⁻¹ for Y), ∂a/∂v⁻ = 0.

-- λ(i) of every dof: the dof before it in its joint, else the last dof of the nearest ancestor
-- joint that has one (-1: none). M = Lᵀ L with L lower-triangular and L_ij ≠ 0 only for j an
-- ancestor of i (Featherstone, "Rigid Body Dynamics Algorithms", 2008, §6.5: no fill-in).
local function dof_parents(d)
  local lam, last = {}, {}
  for i, j in ipairs(d.joints) do
    local p = tonumber(d.rt.parent[i + 1]) -- C literals
    while p > 0 and not last[p] do p = tonumber(d.rt.parent[p + 1]) end
    local prev = p > 0 and last[p] or -1
    for c = 0, j.nv - 1 do
      lam[j.iv + c + 1] = prev
      prev = j.iv + c
    end
    if j.nv > 0 then last[i] = j.iv + j.nv - 1 end
  end
  return lam
end

local E = {}

-- Each epilogue's outputs: X the nv × nv ones (U, then the derivatives of q̈ or v⁺), F the
-- ncrows × nv ones (G, then the forces' or impulses' derivatives); M is given in X[#X], Jc in
-- F[#F]; init: each X block's start, "neg" (−∂R) or "eye" (1); eye_after: the block set to 1 again
-- after it gave M⁻¹ (impulse: U = 1 for v⁻); mu: the input of the contacts' regularization
-- (Φ + diag μ, contact_fd_reg).
local specs = {
  contact_derivatives = {
    X = { "dqdd_dq", "dqdd_dv", "dqdd_dtau" }, F = { "dforce_dq", "dforce_dv", "dforce_dtau" },
    init = { "neg", "neg", "eye" },
  },
  contact_reg_derivatives = { -- Φ + diag μ: the regularized contacts of contact_fd_reg
    X = { "dqdd_dq", "dqdd_dv", "dqdd_dtau" }, F = { "dforce_dq", "dforce_dv", "dforce_dtau" },
    init = { "neg", "neg", "eye" }, mu = "mu",
  },
  impulse_derivatives = {
    X = { "dvplus_dq", "dvplus_dv" }, F = { "dimpulse_dq", "dimpulse_dv" },
    init = { "neg", "eye" }, eye_after = true,
  },
  loop_derivatives = { -- fd_loops_derivatives: the loop rows for Jc, all of them active
    X = { "dqdd_dq", "dqdd_dv", "dqdd_dtau" }, F = { "dlambda_dq", "dlambda_dv", "dlambda_dtau" },
    init = { "neg", "neg", "eye" }, loops = true,
  },
}

E.kinds = specs -- the epilogues written here, by name

-- The row sweeps the bodies call, written once before the functions (kinds: the epilogues the
-- file's functions use): d_k += a s_k and d_k *= a for k = 1 .. n over rows of P_NV entries that
-- never overlap (restrict parameters: the loops vectorize).
function E.helpers(b, d, kinds)
  local P, real, p = d.PREFIX, d.scalar, d.prefix
  local done = {}
  for _, kind in ipairs(kinds) do
    local n = #specs[kind].X
    if not done[n] then
      done[n] = true
      local dst, src = {}, {}
      for k = 1, n do
        dst[k] = real .. " *restrict d" .. k
        src[k] = "const " .. real .. " *restrict s" .. k
      end
      b("/* the contact derivatives' epilogue: rows d_k += a s_k, k = 1 .. ", n,
        " (rows that never overlap) */")
      b("static void ", p, "_ep_axpy", n, "(", table.concat(dst, ", "), ",")
      b("    ", table.concat(src, ", "), ", ", real, " a) {")
      b("  for (int c = 0; c < ", P, "_NV; c++) {")
      for k = 1, n do b("    d", k, "[c] += a * s", k, "[c];") end
      b("  }")
      b("}")
      b("")
      b("/* the contact derivatives' epilogue: rows d_k *= a, k = 1 .. ", n, " */")
      b("static void ", p, "_ep_scale", n, "(", table.concat(dst, ", "), ", ", real, " a) {")
      b("  for (int c = 0; c < ", P, "_NV; c++) {")
      for k = 1, n do b("    d", k, "[c] *= a;") end
      b("  }")
      b("}")
      b("")
    end
  end
end

-- The epilogue's factorizations: M = Lᵀ L, the active rows of Jc, U's start, U = M⁻¹ U.
local function factor_and_solve(b, d, sp)
  local P, real = d.PREFIX, d.scalar
  local one = real == "float" and "1.0f" or "1.0"
  local zero = real == "float" and "0.0f" or "0.0"
  local sqrt = real == "float" and "sqrtf" or "sqrt"
  local NV, X, n = P .. "_NV", sp.X, #sp.X
  local Mx, Jf = X[n], sp.F[n]
  b("    /* M = L^T L from the last dof up, the pivot rule against M's diagonal */")
  b("    for (int k = 0; k < ", NV, " * ", NV, "; k++) ep_L[k] = ", Mx, "[k];")
  b("    for (int k = ", NV, " - 1; k >= 0; k--) {")
  b("      ", real, " *lk = ep_L + ", NV, " * k;")
  b("      if (!(lk[k] > ", P, "_PIVOT_EPS * ", Mx, "[", NV, " * k + k])) return -1;")
  b("      lk[k] = ", sqrt, "(lk[k]);")
  b("      ep_Li[k] = ", one, " / lk[k];")
  b("      for (int i = ep_lam[k]; i >= 0; i = ep_lam[i]) lk[i] *= ep_Li[k];")
  b("      for (int i = ep_lam[k]; i >= 0; i = ep_lam[i])")
  b("        for (int j = i; j >= 0; j = ep_lam[j]) ep_L[", NV, " * i + j] -= lk[i] * lk[j];")
  b("    }")
  b("    /* the active rows of Jc; U's start */")
  b("    for (int a = 0; a < ep_na; a++)")
  b("      for (int c = 0; c < ", NV, "; c++) ep_J[", NV, " * a + c] = ", Jf, "[", NV,
    " * ep_row[a] + c];")
  b("    for (int k = 0; k < ", NV, " * ", NV, "; k++) {")
  for j = 1, n do
    if sp.init[j] == "neg" then b("      ", X[j], "[k] = -", X[j], "[k];")
    else b("      ", X[j], "[k] = k % (", NV, " + 1) == 0 ? ", one, " : ", zero, ";") end
  end
  b("    }")
  b("    /* U = M^-1 U = L^-1 L^-T U, row by row */")
  b("    for (int i = ", NV, " - 1; i >= 0; i--) {")
  E.rows(b, d, n, "      ", X, "i", nil, "ep_Li[i]")
  b("      for (int j = ep_lam[i]; j >= 0; j = ep_lam[j])")
  E.rows(b, d, n, "        ", X, "j", X, "-ep_L[" .. NV .. " * i + j]", "i")
  b("    }")
  b("    for (int i = 0; i < ", NV, "; i++) {")
  b("      for (int j = ep_lam[i]; j >= 0; j = ep_lam[j])")
  E.rows(b, d, n, "        ", X, "i", X, "-ep_L[" .. NV .. " * i + j]", "j")
  E.rows(b, d, n, "      ", X, "i", nil, "ep_Li[i]")
  b("    }")
end

-- Row dr of the n arrays dst += coef * row sr of the n src; src nil: dst *= coef.
function E.rows(b, d, n, ind, dst, dr, src, coef, sr)
  local NV, p = d.PREFIX .. "_NV", d.prefix
  local function at(list, r)
    local t = {}
    for k = 1, n do t[k] = list[k] .. " + " .. NV .. " * " .. r end
    return table.concat(t, ", ")
  end
  if not src then
    b(ind, p, "_ep_scale", n, "(", at(dst, dr), ", ", coef, ");")
    return
  end
  b(ind, p, "_ep_axpy", n, "(", at(dst, dr), ",")
  b(ind, "    ", at(src, sr), ", ", coef, ");")
end

-- The epilogue `kind` of a function (its outputs named as in specs).
function E.body(b, d, kind)
  local sp = specs[kind]
  local P, real = d.PREFIX, d.scalar
  local one = real == "float" and "1.0f" or "1.0"
  local zero = real == "float" and "0.0f" or "0.0"
  local sqrt = real == "float" and "sqrtf" or "sqrt"
  local NV, NR = P .. "_NV", sp.loops and P .. "_NC" or P .. "_NCROWS"
  local X, F, n = sp.X, sp.F, #sp.X
  local Minv = X[n]
  b("  /* the derivatives' linear algebra (templates/c/epilogue_contact.lua): M = L^T L (no")
  b("   * fill-in over the tree), Phi = Jc M^-1 Jc^T = W W^T over the active rows; for each")
  b("   * variable x at once: U = -M^-1 dR/dx, dforce = Phi^-1 (-Jc U - da/dx),")
  b("   * dy = U + M^-1 Jc^T dforce */")
  b("  {")
  if not sp.loops then
    local dims = {}
    for k, c in ipairs(d.contacts) do dims[k] = c.dim end
    b("    static const int ep_dim[", P, "_NCONTACT] = {", table.concat(dims, ", "), "};")
  end
  b("    static const int ep_lam[", NV, "] = {", table.concat(dof_parents(d), ", "), "};")
  b("    ", real, " ep_L[", NV, " * ", NV, "], ep_Li[", NV, "], ep_J[", NR, " * ", NV, "], ep_Y[",
    NR, " * ", NV, "];")
  b("    ", real, " ep_W[", NR, " * ", NR, "], ep_Wi[", NR, "];")
  if sp.loops then -- every loop row
    b("    int ep_row[", NR, "], ep_na = ", NR, ";")
    b("    for (int a = 0; a < ", NR, "; a++) ep_row[a] = a;")
  elseif sp.mu then -- each active row's contact, for its μ
    b("    int ep_row[", NR, "], ep_con[", NR, "], ep_na = 0;")
    b("    for (int k = 0, r = 0; k < ", P, "_NCONTACT; r += ep_dim[k], k++)")
    b("      for (int l = 0; contacts[k] && l < ep_dim[k]; l++)")
    b("        ep_con[ep_na] = k, ep_row[ep_na++] = r + l;")
  else
    b("    int ep_row[", NR, "], ep_na = 0;")
    b("    for (int k = 0, r = 0; k < ", P, "_NCONTACT; r += ep_dim[k], k++)")
    b("      for (int l = 0; contacts[k] && l < ep_dim[k]; l++) ep_row[ep_na++] = r + l;")
  end
  factor_and_solve(b, d, sp)
  b("    /* Y_a = Jc_a M^-1 (M^-1 is U's last block), Phi = Jc Y^T = W W^T */")
  b("    for (int a = 0; a < ep_na; a++) {")
  b("      ", real, " *restrict y = ep_Y + ", NV, " * a;")
  b("      for (int c = 0; c < ", NV, "; c++) y[c] = ", zero, ";")
  b("      for (int k = 0; k < ", NV, "; k++) {")
  b("        const ", real, " j = ep_J[", NV, " * a + k], *restrict m = ", Minv, " + ", NV, " * k;")
  b("        if (j != ", zero, ")")
  b("          for (int c = 0; c < ", NV, "; c++) y[c] += j * m[c];")
  b("      }")
  b("    }")
  if sp.eye_after then
    b("    for (int k = 0; k < ", NV, " * ", NV, "; k++) ", Minv, "[k] = k % (", NV,
      " + 1) == 0 ? ", one, " : ", zero, "; /* U = 1 */")
  end
  b("    for (int i = 0; i < ep_na; i++)")
  b("      for (int j = 0; j <= i; j++) {")
  b("        ", real, " p = ", zero, ";")
  b("        for (int c = 0; c < ", NV, "; c++) p += ep_J[", NV, " * i + c] * ep_Y[", NV,
    " * j + c];")
  if sp.mu then b("        if (i == j) p += ", sp.mu, "[ep_con[i]]; /* Phi + diag mu */") end
  b("        ", real, " s = p;")
  b("        for (int k = 0; k < j; k++) s -= ep_W[", NR, " * i + k] * ep_W[", NR, " * j + k];")
  b("        if (i > j) { ep_W[", NR, " * i + j] = s * ep_Wi[j]; continue; }")
  b("        if (!(s > ", P, "_PIVOT_EPS * p)) return -1;")
  b("        ep_W[", NR, " * i + i] = ", sqrt, "(s);")
  b("        ep_Wi[i] = ", one, " / ep_W[", NR, " * i + i];")
  b("      }")
  b("    /* G = -Jc U - da/dx in the rows of the active contacts (da/dx = 0 in the last block) */")
  b("    for (int a = 0; a < ep_na; a++) {")
  b("      int r = ep_row[a];")
  b("      for (int c = 0; c < ", NV, "; c++) {")
  for j = 1, n do
    if j < n then b("        ", F[j], "[", NV, " * r + c] = -", F[j], "[", NV, " * r + c];")
    else b("        ", F[j], "[", NV, " * r + c] = ", zero, ";") end
  end
  b("      }")
  b("      for (int k = 0; k < ", NV, "; k++)")
  b("        if (ep_J[", NV, " * a + k] != ", zero, ")")
  E.rows(b, d, n, "          ", F, "r", X, "-ep_J[" .. NV .. " * a + k]", "k")
  b("    }")
  b("    /* dforce = Phi^-1 G = W^-T W^-1 G */")
  b("    for (int a = 0; a < ep_na; a++) {")
  b("      for (int k = 0; k < a; k++)")
  E.rows(b, d, n, "        ", F, "ep_row[a]", F, "-ep_W[" .. NR .. " * a + k]", "ep_row[k]")
  E.rows(b, d, n, "      ", F, "ep_row[a]", nil, "ep_Wi[a]")
  b("    }")
  b("    for (int a = ep_na - 1; a >= 0; a--) {")
  b("      for (int k = a + 1; k < ep_na; k++)")
  E.rows(b, d, n, "        ", F, "ep_row[a]", F, "-ep_W[" .. NR .. " * k + a]", "ep_row[k]")
  E.rows(b, d, n, "      ", F, "ep_row[a]", nil, "ep_Wi[a]")
  b("    }")
  b("    /* dy = U + Y^T dforce; the inactive contacts' rows of dforce zero */")
  b("    for (int i = 0; i < ", NV, "; i++)")
  b("      for (int a = 0; a < ep_na; a++)")
  E.rows(b, d, n, "        ", X, "i", F, "ep_Y[" .. NV .. " * a + i]", "ep_row[a]")
  if not sp.loops then
    b("    for (int k = 0, r = 0; k < ", P, "_NCONTACT; r += ep_dim[k], k++)")
    b("      for (int l = 0; !contacts[k] && l < ep_dim[k]; l++)")
    b("        for (int c = 0; c < ", NV, "; c++) {")
    for j = 1, n do b("          ", F[j], "[", NV, " * (r + l) + c] = ", zero, ";") end
    b("        }")
  end
  b("  }")
end

return E
