-- project.lua — the loop projections of <prefix>_dynamics.c: Newton's method on φ(q) = 0 and the
-- orthogonal projection of v onto K v = 0, written over the generated loop_residual and
-- loop_jacobian (the same iteration as the runtime's mb_project_q / mb_project_v, docs/loops.md);
-- and their forms with locked coordinates, p_assemble and p_initvel (the runtime's mb_assemble /
-- mb_initvel, the same steps and decisions; docs/analysis.md), and the harness's comparison of
-- those two with the runtime (check.lua calls M.check).
local M = {}

-- Present when the model has loop rows and both building blocks are generated.
function M.wanted(d)
  if (d.nc or 0) == 0 then return false end
  local have = {}
  for _, f in ipairs(d.functions) do have[f.name] = true end
  return have.loop_residual and have.loop_jacobian
end

function M.declare(b, d)
  local p, P, real = d.prefix, d.PREFIX, d.scalar
  b("")
  b("/* Project q onto the loops' constraint manifold phi(q) = 0: Newton's method with the")
  b(" * minimum-norm step dv = -K^T (K K^T + mu 1)^-1 phi (mu = 1e-10 max diag K K^T), applied on the")
  b(" * joint manifolds (quaternions stay unit), until max |phi_r| <= ", P, "_PROJECT_TOL, at most")
  b(" * ", P, "_PROJECT_MAXIT iterations. 0, or -1 (q unchanged) when it does not converge. */")
  b("int ", p, "_project_q(", real, " q[", P, "_NQ]);")
  b("/* Replace v by its orthogonal projection onto K(q) v = 0: v - K^T (K K^T)^-1 K v. 0, or -1")
  b(" * (v unchanged) when K K^T is singular at q. */")
  b("int ", p, "_project_v(const ", real, " q[", P, "_NQ], ", real, " v[", P, "_NV]);")
  b("/* Assembly with locked coordinates (SD/FAST's sdassemble; the runtime's mb_assemble): q")
  b(" * moved onto phi(q) = 0 (max |phi_r| <= ", P, "_PROJECT_TOL) by the velocity coordinates k")
  b(" * with lock[k] = 0 only (lock: NULL, or ", P, "_NV flags 0 or 1; a quaternion joint's")
  b(" * tangent dofs one by one), each step the least-norm one: ",
    "Levenberg-Marquardt on |phi|^2 / 2,")
  b(" * dv = -K_F^T (K_F K_F^T + mu 1)^-1 phi over the free columns F. A locked scalar coordinate,")
  b(" * and every coordinate of a joint whose dofs are all locked, keeps its value bit for bit.")
  b(" * 0; 1 + r when the free coordinates cannot close the loops (a least-squares configuration")
  b(" * with phi != 0, or ", P, "_ASSEMBLE_MAXIT evaluations), r the row with the largest |phi_r|")
  b(" * left (", p, "_constraint_names[r]); -1 for a flag not 0 or 1. q is unchanged unless 0. */")
  b("int ", p, "_assemble(", real, " q[", P, "_NQ], const int lock[", P, "_NV]);")
  b("/* Initial velocity with locked coordinates (SD/FAST's sdinitvel; the runtime's mb_initvel):")
  b(" * the unlocked entries of v moved the least so that K(q) v = 0, the locked ones kept bit for")
  b(" * bit; every row must end with |(K v)_r| <= ", P, "_INITVEL_TOL sum_k |K_rk| max_k |v_k|.")
  b(" * 0; 1 + r when the locked velocities leave K v = 0 unsatisfiable, r the row with the")
  b(" * largest |(K v)_r| left; -1 for a bad flag or a result not finite. v is unchanged unless")
  b(" * 0. */")
  b("int ", p, "_initvel(const ", real, " q[", P, "_NQ], ", real, " v[", P, "_NV], const int lock[",
    P, "_NV]);")
end

-- The manifold step x ⊕ (−dv) of every joint, as the runtime's mb_integrate with dt = −1 (x: the
-- array's name, "x" unless given; ind: the indent).
local function step(b, d, x, ind)
  x, ind = x or "x", ind or "  "
  for _, j in ipairs(d.joints) do
    if j.type == "spherical" then
      b(ind, "quat_step(", x, " + ", j.iq, ", dv + ", j.iv, ");")
    elseif j.type == "floating" then
      b(ind, "free_step(", x, " + ", j.iq, ", dv + ", j.iv, ", dv + ", j.iv + 3, ");")
    elseif j.type == "planar" then
      b(ind, "planar_step(", x, " + ", j.iq, ", dv + ", j.iv, ");")
    else -- a vector space (nq = nv): x − dv
      for k = 0, j.nq - 1 do b(ind, x, "[", j.iq + k, "] -= dv[", j.iv + k, "];") end
    end
  end
end

local function has(d, t)
  for _, j in ipairs(d.joints) do if j.type == t then return true end end
  return false
end

-- Static helpers: the quaternion and SE(3) steps (by −dv), the Cholesky solve with the pivot rule.
local function helpers(b, d)
  local real, P = d.scalar, d.PREFIX
  local f = real == "float" and "f" or ""
  local sq, sn, cs = "sqrt" .. f, "sin" .. f, "cos" .. f
  if has(d, "spherical") or has(d, "floating") then
    b("")
    b("/* quat <- quat * exp(-w), renormalized (a rotation by -w in the child frame). */")
    b("static void quat_step(", real, " *quat, const ", real, " *w) {")
    b("  ", real, " th = ", sq, "(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);")
    b("  ", real, " s = th < 1e-4", f, " ? 0.5", f, " - th * th / 48.0", f, " : ", sn, "(0.5", f,
      " * th) / th;")
    b("  ", real, " e[4] = {-s * w[0], -s * w[1], -s * w[2], ", cs, "(0.5", f, " * th)};")
    b("  ", real, " a[4] = {quat[0], quat[1], quat[2], quat[3]};")
    b("  quat[0] = a[3] * e[0] + e[3] * a[0] + a[1] * e[2] - a[2] * e[1];")
    b("  quat[1] = a[3] * e[1] + e[3] * a[1] + a[2] * e[0] - a[0] * e[2];")
    b("  quat[2] = a[3] * e[2] + e[3] * a[2] + a[0] * e[1] - a[1] * e[0];")
    b("  quat[3] = a[3] * e[3] - (a[0] * e[0] + a[1] * e[1] + a[2] * e[2]);")
    b("  ", real, " n = ", sq, "(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + ",
      "quat[3] * quat[3]);")
    b("  for (int k = 0; k < 4; k++) quat[k] /= n;")
    b("}")
  end
  if has(d, "floating") then
    b("")
    b("/* (p, quat) <- (p, quat) exp(-(u, w)): the SE(3) exponential of the body twist, p' = p +")
    b(" * R V(w) u with V = 1 + (1 - cos t)/t^2 w^ + (t - sin t)/t^3 w^2, t = |w|. */")
    b("static void free_step(", real, " *x, const ", real, " *lin, const ", real, " *ang) {")
    b("  ", real, " u[3] = {-lin[0], -lin[1], -lin[2]}, w[3] = {-ang[0], -ang[1], -ang[2]};")
    b("  ", real, " t2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2], t = ", sq, "(t2);")
    b("  ", real, " A = t < 1e-4", f, " ? 0.5", f, " - t2 / 24.0", f, " : (1 - ", cs, "(t)) / t2;")
    b("  ", real, " B = t < 1e-4", f, " ? 1.0", f, " / 6 - t2 / 120.0", f, " : (t - ", sn, "(t)) / (t2 * t);")
    b("  ", real, " c1[3] = {w[1] * u[2] - w[2] * u[1], w[2] * u[0] - w[0] * u[2], ",
      "w[0] * u[1] - w[1] * u[0]};")
    b("  ", real, " c2[3] = {w[1] * c1[2] - w[2] * c1[1], w[2] * c1[0] - w[0] * c1[2], ",
      "w[0] * c1[1] - w[1] * c1[0]};")
    b("  ", real, " s[3], *qu = x + 3, n2 = qu[0] * qu[0] + qu[1] * qu[1] + qu[2] * qu[2] + ",
      "qu[3] * qu[3];")
    b("  for (int k = 0; k < 3; k++) s[k] = u[k] + A * c1[k] + B * c2[k];")
    b("  /* R(quat) s, R = 1 + (2/|q|^2)(qw u^ + u^ u^) */")
    b("  ", real, " cu[3] = {qu[1] * s[2] - qu[2] * s[1], qu[2] * s[0] - qu[0] * s[2], ",
      "qu[0] * s[1] - qu[1] * s[0]};")
    b("  ", real, " cc[3] = {qu[1] * cu[2] - qu[2] * cu[1], qu[2] * cu[0] - qu[0] * cu[2], ",
      "qu[0] * cu[1] - qu[1] * cu[0]};")
    b("  for (int k = 0; k < 3; k++) x[k] += s[k] + (2 / n2) * (qu[3] * cu[k] + cc[k]);")
    b("  quat_step(x + 3, ang);")
    b("}")
  end
  if has(d, "planar") then
    b("")
    b("/* [x y th] <- [x y th] exp(-(u, w)): the SE(2) exponential of the planar twist, [x y] +=")
    b(" * R(th) V(w) u with V = [s -c; c s], s = sin w / w, c = (1 - cos w)/w; th += w. */")
    b("static void planar_step(", real, " *x, const ", real, " *dv) {")
    b("  ", real, " u0 = -dv[0], u1 = -dv[1], w = -dv[2], h = ", sn, "(0.5", f, " * w);")
    b("  int small = w < 1e-4", f, " && w > -1e-4", f, ";")
    b("  ", real, " s = small ? 1 - w * w / 6 : ", sn, "(w) / w;")
    b("  ", real, " c = small ? w * (0.5", f, " - w * w / 24) : 2 * h * h / w;")
    b("  ", real, " a = s * u0 - c * u1, bb = c * u0 + s * u1, ct = ", cs, "(x[2]), st = ", sn,
      "(x[2]);")
    b("  x[0] += ct * a - st * bb;")
    b("  x[1] += st * a + ct * bb;")
    b("  x[2] += w;")
    b("}")
  end
  b("")
  b("/* A = L L^T in place (lower triangle), the pivot rule against A's diagonal. */")
  b("static int chol_factor(int n, ", real, " *A) {")
  b("  for (int j = 0; j < n; j++) {")
  b("    ", real, " d = A[n * j + j], ref = d;")
  b("    for (int k = 0; k < j; k++) d -= A[n * j + k] * A[n * j + k];")
  b("    if (!(ref > 0 && d > ", P, "_PIVOT_EPS * ref)) return -1;")
  b("    A[n * j + j] = ", sq, "(d);")
  b("    for (int i = j + 1; i < n; i++) {")
  b("      ", real, " s = A[n * i + j];")
  b("      for (int k = 0; k < j; k++) s -= A[n * i + k] * A[n * j + k];")
  b("      A[n * i + j] = s / A[n * j + j];")
  b("    }")
  b("  }")
  b("  return 0;")
  b("}")
  b("")
  b("/* y <- (L L^T)^-1 y with L from chol_factor. */")
  b("static void chol_subst(int n, const ", real, " *A, ", real, " *y) {")
  b("  for (int i = 0; i < n; i++) {")
  b("    for (int k = 0; k < i; k++) y[i] -= A[n * i + k] * y[k];")
  b("    y[i] /= A[n * i + i];")
  b("  }")
  b("  for (int i = n - 1; i >= 0; i--) {")
  b("    for (int k = i + 1; k < n; k++) y[i] -= A[n * k + i] * y[k];")
  b("    y[i] /= A[n * i + i];")
  b("  }")
  b("}")
  b("")
  b("static int chol_solve(int n, ", real, " *A, ", real, " *y) {")
  b("  if (chol_factor(n, A)) return -1;")
  b("  chol_subst(n, A, y);")
  b("  return 0;")
  b("}")
  b("")
  b("/* A = K K^T (+ damp max diag) and dv = K^T y. */")
  b("static void gram(const ", real, " *K, ", real, " *A, ", real, " damp) {")
  b("  ", real, " dmax = 0;")
  b("  for (int r = 0; r < ", P, "_NC; r++)")
  b("    for (int c = 0; c <= r; c++) {")
  b("      ", real, " s = 0;")
  b("      for (int k = 0; k < ", P, "_NV; k++) s += K[", P, "_NV * r + k] * K[", P, "_NV * c + k];")
  b("      A[", P, "_NC * r + c] = s;")
  b("      if (r == c && s > dmax) dmax = s;")
  b("    }")
  b("  for (int r = 0; r < ", P, "_NC; r++) A[", P, "_NC * r + r] += damp * dmax;")
  b("}")
  b("")
  b("static void kt_mul(const ", real, " *K, const ", real, " *y, ", real, " *dv) {")
  b("  for (int k = 0; k < ", P, "_NV; k++) dv[k] = 0;")
  b("  for (int r = 0; r < ", P, "_NC; r++)")
  b("    for (int k = 0; k < ", P, "_NV; k++) dv[k] += K[", P, "_NV * r + k] * y[r];")
  b("}")
end

-- The helpers of p_assemble and p_initvel: the runtime's assemble.c, statement for statement.
local function lock_helpers(b, d)
  local real, P = d.scalar, d.PREFIX
  local NV, NC = P .. "_NV", P .. "_NC"
  local F = real == "float" and "f" or ""
  b("")
  b("/* 1 if a flag is not 0 or 1 (lock NULL: nothing locked). */")
  b("static int lock_bad(const int *lock) {")
  b("  for (int k = 0; lock && k < ", NV, "; k++)")
  b("    if (lock[k] != 0 && lock[k] != 1) return 1;")
  b("  return 0;")
  b("}")
  b("")
  b("static int is_free(const int *lock, int k) { return !lock || !lock[k]; }")
  b("")
  b("/* A = K_F K_F^T + damp d 1 over the free columns, d = max diag K_F K_F^T (returned). */")
  b("static ", real, " gram_free(const ", real, " *K, ", real, " *A, const int *lock, ", real,
    " damp) {")
  b("  ", real, " dmax = 0;")
  b("  for (int r = 0; r < ", NC, "; r++)")
  b("    for (int c = 0; c <= r; c++) {")
  b("      ", real, " s = 0;")
  b("      for (int k = 0; k < ", NV, "; k++)")
  b("        if (is_free(lock, k)) s += K[", NV, " * r + k] * K[", NV, " * c + k];")
  b("      A[", NC, " * r + c] = s;")
  b("      if (r == c && s > dmax) dmax = s;")
  b("    }")
  b("  for (int r = 0; r < ", NC, "; r++) A[", NC, " * r + r] += damp * dmax;")
  b("  return dmax;")
  b("}")
  b("")
  b("/* dv = K_F^T y, 0 in the locked columns (the step is -dv). */")
  b("static void kt_mul_free(const ", real, " *K, const int *lock, const ", real, " *y, ", real,
    " *dv) {")
  b("  for (int k = 0; k < ", NV, "; k++) {")
  b("    ", real, " s = 0;")
  b("    for (int r = 0; is_free(lock, k) && r < ", NC, "; r++) s += K[", NV, " * r + k] * y[r];")
  b("    dv[k] = s;")
  b("  }")
  b("}")
  b("")
  b("/* 1 + the row with the largest |x_r| (a NaN first): the located error; rows within 1e-3 of")
  b(" * the largest tie, and the first of them wins (as the runtime's mb_assemble: the same row of a")
  b(" * symmetric mechanism whatever the rounding). */")
  b("static int worst_row(const ", real, " *x) {")
  b("  ", real, " e = 0;")
  b("  for (int r = 0; r < ", NC, "; r++) {")
  b("    if (x[r] != x[r]) return 1 + r;")
  b("    if (fabs(x[r]) > e) e = fabs(x[r]);")
  b("  }")
  b("  for (int r = 0; r < ", NC, "; r++)")
  b("    if (fabs(x[r]) >= (1 - (", real, ")1e-3) * e) return 1 + r;")
  b("  return 1;")
  b("}")
  b("")
  b("/* max |phi_r| (NaN: INFINITY) and |phi|^2. */")
  b("static ", real, " phi_norms(const ", real, " *phi, ", real, " *sq) {")
  b("  ", real, " e = 0, s = 0;")
  b("  for (int r = 0; r < ", NC, "; r++) {")
  b("    if (!(fabs(phi[r]) <= e)) e = phi[r] != phi[r] ? INFINITY : fabs(phi[r]);")
  b("    s += phi[r] * phi[r];")
  b("  }")
  b("  *sq = s;")
  b("  return e;")
  b("}")
  b("")
  b("/* |K_F^T phi| <= 1e-8 |K_F| |phi|: a least-squares point (no descent left). */")
  b("static int stationary(const ", real, " *K, const int *lock, const ", real, " *phi, ", real,
    " phi2) {")
  b("  ", real, " g2 = 0, k2 = 0;")
  b("  for (int k = 0; k < ", NV, "; k++) {")
  b("    ", real, " g = 0;")
  b("    for (int r = 0; is_free(lock, k) && r < ", NC, "; r++) {")
  b("      ", real, " x = K[", NV, " * r + k];")
  b("      g += x * phi[r], k2 += x * x;")
  b("    }")
  b("    g2 += g * g;")
  b("  }")
  b("  return g2 <= 1e-8", F, " * 1e-8", F, " * k2 * phi2;")
  b("}")
  b("")
  b("/* c = K v; the worst |c_r| / (sum_k |K_rk| max_k |v_k|) (INFINITY for a NaN). */")
  b("static ", real, " kv_residual(const ", real, " *K, const ", real, " *v, ", real, " *c) {")
  b("  ", real, " worst = 0, vmax = 0;")
  b("  for (int k = 0; k < ", NV, "; k++)")
  b("    if (fabs(v[k]) > vmax) vmax = fabs(v[k]);")
  b("  for (int r = 0; r < ", NC, "; r++) {")
  b("    ", real, " x = 0, s = 0;")
  b("    for (int k = 0; k < ", NV, "; k++) x += K[", NV, " * r + k] * v[k], s += fabs(K[", NV,
    " * r + k]);")
  b("    c[r] = x;")
  b("    if (x != x) return INFINITY;")
  b("    if (x != 0 && fabs(x) / (s * vmax) > worst) worst = fabs(x) / (s * vmax);")
  b("  }")
  b("  return worst;")
  b("}")
end

-- The coordinates of a joint whose dofs are all locked back to their values in x (a locked scalar
-- coordinate needs nothing: its step entry is exactly 0 and x - 0 is x).
local function restore(b, d, xt, x, ind)
  for _, j in ipairs(d.joints) do
    if (j.nv or 0) > 0 and not (j.nq == j.nv and j.type ~= "planar") then
      local all = {}
      for c = 0, j.nv - 1 do all[#all + 1] = "lock[" .. (j.iv + c) .. "]" end
      b(ind, "if (lock && ", table.concat(all, " && "), ")")
      b(ind, "  for (int k = ", j.iq, "; k < ", j.iq + j.nq, "; k++) ", xt, "[k] = ", x, "[k];")
    end
  end
end

-- p_assemble (after the helpers both use).
local function define_assemble(b, d)
  local p, P, real = d.prefix, d.PREFIX, d.scalar
  local NQ, NV, NC = P .. "_NQ", P .. "_NV", P .. "_NC"
  local F = real == "float" and "f" or ""
  lock_helpers(b, d)
  b("")
  b("int ", p, "_assemble(", real, " q[", NQ, "], const int lock[", NV, "]) {")
  b("  ", real, " x[", NQ, "], xt[", NQ, "], phi[", NC, "], pt[", NC, "], K[", NC, " * ", NV,
    "], A[", NC, " * ", NC, "], y[", NC, "], dv[", NV, "];")
  b("  ", real, " f, lm = 1e-10", F, ", nu = 2;")
  b("  if (lock_bad(lock)) return -1;")
  b("  for (int k = 0; k < ", NQ, "; k++) x[k] = q[k];")
  b("  ", p, "_loop_residual(x, phi);")
  b("  ", p, "_loop_jacobian(x, K);")
  b("  ", real, " err = phi_norms(phi, &f);")
  b("  for (int evals = 0;;) {")
  b("    if (err == INFINITY) return worst_row(phi);")
  b("    if (err <= ", P, "_PROJECT_TOL) break;")
  b("    if (evals == ", P, "_ASSEMBLE_MAXIT || lm > 1e10", F, " || stationary(K, lock, phi, f))")
  b("      return worst_row(phi);")
  b("    evals++;")
  b("    /* Levenberg-Marquardt: dv = K_F^T (K_F K_F^T + mu 1)^-1 phi, x <- x (+) -dv */")
  b("    ", real, " mu = lm * gram_free(K, A, lock, lm), y2 = 0, ft = INFINITY, et = INFINITY;")
  b("    for (int r = 0; r < ", NC, "; r++) y[r] = phi[r];")
  b("    if (!chol_factor(", NC, ", A)) {")
  b("      chol_subst(", NC, ", A, y);")
  b("      for (int r = 0; r < ", NC, "; r++) y2 += y[r] * y[r];")
  b("      kt_mul_free(K, lock, y, dv);")
  b("      for (int k = 0; k < ", NQ, "; k++) xt[k] = x[k];")
  step(b, d, "xt", "      ")
  restore(b, d, "xt", "x", "      ")
  b("      ", p, "_loop_residual(xt, pt);")
  b("      et = phi_norms(pt, &ft);")
  b("    }")
  b("    if (!(ft < f)) { /* no decrease: shorter steps (Nielsen's damping update) */")
  b("      lm *= nu, nu *= 2;")
  b("      continue;")
  b("    }")
  b("    ", real, " rho = (f - ft) / (f - mu * mu * y2), t = 2 * rho - 1, s = 1 - t * t * t;")
  b("    for (int k = 0; k < ", NQ, "; k++) x[k] = xt[k];")
  b("    for (int r = 0; r < ", NC, "; r++) phi[r] = pt[r];")
  b("    ", p, "_loop_jacobian(x, K);")
  b("    f = ft, err = et, nu = 2;")
  b("    lm *= s > 1.0", F, " / 3 ? s : 1.0", F, " / 3;")
  b("    if (lm < 1e-10", F, ") lm = 1e-10", F, ";")
  b("  }")
  b("  for (int k = 0; k < ", NQ, "; k++) q[k] = x[k];")
  b("  return 0;")
  b("}")
end

-- p_initvel.
local function define_initvel(b, d)
  local p, P, real = d.prefix, d.PREFIX, d.scalar
  local NQ, NV, NC = P .. "_NQ", P .. "_NV", P .. "_NC"
  local F = real == "float" and "f" or ""
  b("")
  b("int ", p, "_initvel(const ", real, " q[", NQ, "], ", real, " v[", NV, "], const int lock[",
    NV, "]) {")
  b("  ", real, " K[", NC, " * ", NV, "], A[", NC, " * ", NC, "], c[", NC, "], x[", NV, "], dv[",
    NV, "], last = INFINITY;")
  b("  if (lock_bad(lock)) return -1;")
  b("  ", p, "_loop_jacobian(q, K);")
  b("  for (int k = 0; k < ", NV, "; k++) x[k] = v[k];")
  b("  gram_free(K, A, lock, 1e-10", F, ");")
  b("  int factored = chol_factor(", NC, ", A) == 0;")
  b("  for (int it = 0;; it++) {")
  b("    ", real, " worst = kv_residual(K, x, c);")
  b("    if (worst == INFINITY) return worst_row(c);")
  b("    /* refined while the residual halves; then within the tolerance, or unsatisfiable */")
  b("    if (worst == 0 || !(worst < 0.5", F, " * last) || !factored || it == ", P,
    "_PROJECT_MAXIT) {")
  b("      if (worst <= ", P, "_INITVEL_TOL) break;")
  b("      return worst_row(c);")
  b("    }")
  b("    last = worst;")
  b("    chol_subst(", NC, ", A, c);")
  b("    kt_mul_free(K, lock, c, dv);")
  b("    for (int k = 0; k < ", NV, "; k++) x[k] -= dv[k];")
  b("  }")
  b("  for (int k = 0; k < ", NV, "; k++)")
  b("    if (!isfinite(x[k])) return -1;")
  b("  for (int k = 0; k < ", NV, "; k++) v[k] = x[k];")
  b("  return 0;")
  b("}")
end

function M.define(b, d)
  local p, P, real = d.prefix, d.PREFIX, d.scalar
  helpers(b, d)
  b("")
  b("int ", p, "_project_q(", real, " q[", P, "_NQ]) {")
  b("  ", real, " x[", P, "_NQ], phi[", P, "_NC], K[", P, "_NC * ", P, "_NV], A[", P, "_NC * ", P,
    "_NC], dv[", P, "_NV];")
  b("  for (int k = 0; k < ", P, "_NQ; k++) x[k] = q[k];")
  b("  for (int it = 0;; it++) {")
  b("    ", real, " err = 0;")
  b("    ", p, "_loop_residual(x, phi);")
  b("    for (int r = 0; r < ", P, "_NC; r++)")
  b("      if (!(fabs(phi[r]) <= err)) err = fabs(phi[r]); /* NaN is the worst */")
  b("    if (!(err <= 1e300)) return -1;")
  b("    if (err <= ", P, "_PROJECT_TOL) break;")
  b("    if (it == ", P, "_PROJECT_MAXIT) return -1;")
  b("    ", p, "_loop_jacobian(x, K);")
  b("    gram(K, A, 1e-10", real == "float" and "f" or "", ");")
  b("    if (chol_solve(", P, "_NC, A, phi)) return -1;")
  b("    kt_mul(K, phi, dv);")
  step(b, d)
  b("  }")
  b("  for (int k = 0; k < ", P, "_NQ; k++) q[k] = x[k];")
  b("  return 0;")
  b("}")
  b("")
  b("int ", p, "_project_v(const ", real, " q[", P, "_NQ], ", real, " v[", P, "_NV]) {")
  b("  ", real, " K[", P, "_NC * ", P, "_NV], A[", P, "_NC * ", P, "_NC], y[", P, "_NC], dv[", P,
    "_NV];")
  b("  ", p, "_loop_jacobian(q, K);")
  b("  gram(K, A, 0);")
  b("  for (int r = 0; r < ", P, "_NC; r++) {")
  b("    y[r] = 0;")
  b("    for (int k = 0; k < ", P, "_NV; k++) y[r] += K[", P, "_NV * r + k] * v[k];")
  b("  }")
  b("  if (chol_solve(", P, "_NC, A, y)) return -1;")
  b("  kt_mul(K, y, dv);")
  b("  for (int k = 0; k < ", P, "_NV; k++)")
  b("    if (!isfinite(v[k] - dv[k])) return -1;")
  b("  for (int k = 0; k < ", P, "_NV; k++) v[k] -= dv[k];")
  b("  return 0;")
  b("}")
  define_assemble(b, d)
  define_initvel(b, d)
end

-- The harness (check.lua, inside the loop over the states, after project_q and project_v): the
-- results r (assemble) and r + 1 (initvel) against mb_assemble and mb_initvel, from their own
-- stream of random numbers (the other functions' states stay as they were). The locks: n random
-- velocity coordinates, n uniform in 0 .. NV - NC (the mobility: the rows kept are independent),
-- one more every fifth state (mostly a failure). assemble: from the assembled configuration moved
-- by up to 0.05; initvel: at the state's closed q, a random v, new locks. Both answer or both
-- fail, at the same row in double (float may stop elsewhere: there only both fail).
-- Before main: the random locks of M.check; off_manifold for fd_loops_baumgarte's comparison
-- (check_compare.lua).
function M.check_helpers(b, d)
  for _, f in ipairs(d.functions) do
    if f.name == "fd_loops_baumgarte" then
      b([[
/* fd_loops_baumgarte's configuration: q moved off the loops' manifold by a fixed step of up to
 * 0.01 per coordinate, so that phi and K v are not zero where the constraint system is as well
 * conditioned as at q; rounded to the generated type, gqn its generated copy (filled here: the
 * reference calls this before the generated function is called with gqn). */
static double qn_[NQ + 7];
static real gqn[NQ];
static const double *off_manifold(const double *q) {
  double dq[NV];
  for (int k = 0; k < NV; k++) dq[k] = 0.01 * sin(1.0 + 2.0 * k);
  mb_integrate(&M, q, dq, 1.0, qn_);
  for (int k = 0; k < NQ; k++) qn_[k] = (double)(real)qn_[k], gqn[k] = (real)qn_[k];
  return qn_;
}
]])
    end
  end
  if not M.wanted(d) then return end
  b([[
/* lock[NV]: n distinct velocity coordinates locked, n uniform in 0 .. NV - NC (+ 1 with more) */
static void random_locks(unsigned long long *s, int more, int *lock) {
  int n = (int)uniform(s, 0, NV - NC + 1) + more;
  if (n > NV) n = NV;
  for (int k = 0; k < NV; k++) lock[k] = 0;
  while (n > 0) {
    int k = (int)uniform(s, 0, NV);
    if (k < NV && !lock[k]) lock[k] = 1, n--;
  }
}
]])
end

function M.check(b, d, r)
  local p = d.prefix
  local same_row = d.scalar == "float" and "grc <= 0" or "grc != lw->singular"
  -- float stops at |phi| <= 1e-5 where the runtime goes on to 1e-12: q may differ by 1e-5 / the
  -- smallest singular value of K_F, so float's answer is checked by the runtime's phi at it
  local float_q = d.scalar == "float" and "{ /* phi(q) at the float answer, against 0 */\n" ..
    "        double qg[NQ + 7], phi[NC], zero[NC] = {0};\n" ..
    "        for (int k = 0; k < NQ; k++) qg[k] = (double)gqa[k];\n" ..
    "        if (mb_loop_residual(&M, &LP, ws, lw, qg, phi) != 0) results[" .. r ..
    "].failed_rc = 1;\n" ..
    "        for (int k = 0; k < NC; k++) gphi[k] = (real)phi[k];\n" ..
    "        compare(&results[" .. r .. "], zero, gphi, NC);\n      }"
    or "compare(&results[" .. r .. "], qa, gqa, NQ)"
  b([[
    /* assemble, initvel: random locks; the same answer, or a failure at the same row */
    {
      static unsigned long long aseed = SEED + 2u;
      double qa[NQ + 7], dq[NV], va[NV];
      real gqa[NQ], gva[NV];
      int lock[NV];]] .. (d.scalar == "float" and "\n      real gphi[NC];" or "") .. [[
      for (int k = 0; k < NQ; k++) qa[k] = ]], p, [[_q_assembled[k];
      for (int k = 0; k < NV; k++) dq[k] = uniform(&aseed, -0.05, 0.05);
      random_locks(&aseed, state % 5 == 4, lock);
      mb_integrate(&M, qa, dq, 1.0, qa);
      for (int k = 0; k < NQ; k++) qa[k] = (double)(real)qa[k];
      togen(qa, gqa, NQ);
      rc = mb_assemble(&M, &LP, ws, lw, lock, qa);
      grc = ]], p, [[_assemble(gqa, lock);
      if (rc == 0 ? grc != 0 : rc != MB_ENUMERIC || ]], same_row, [[) results[]], r,
    [[].failed_rc = 1;
      if (rc != 0) results[]], r, [[].singular++;
      if (rc == 0 && grc == 0) ]], float_q, [[;
      for (int k = 0; k < NV; k++) va[k] = (double)(real)uniform(&aseed, -1, 1);
      random_locks(&aseed, state % 5 == 2, lock);
      togen(va, gva, NV);
      rc = mb_initvel(&M, &LP, ws, lw, lock, q, va);
      grc = ]], p, [[_initvel(gq, gva, lock);
      if (rc == 0 ? grc != 0 : rc != MB_ENUMERIC || ]], same_row, [[)
        results[]], r + 1, [[].failed_rc = 1;
      if (rc != 0) results[]], r + 1, [[].singular++;
      if (rc == 0 && grc == 0) compare(&results[]], r + 1, [[], va, gva, NV);
    }]])
end

return M
