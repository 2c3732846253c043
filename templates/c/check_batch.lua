-- check_batch.lua — the part of the harness (check.lua) that checks the batch functions of
-- --batch (batch.lua) against the scalar functions they vectorize: the inputs of the first
-- BATCH_N states (two full blocks of 4 and a remainder, or one of 8 and a remainder) gathered in
-- structure-of-arrays layout, each scalar function's outputs and return value at each of them
-- kept; after the loop one call of P_f_batch over all BATCH_N, compared entry by entry. Every
-- status must be the scalar call's, every output (of a state whose call succeeded) within
-- BATCH_TOL of the output's largest magnitude (a compiler that contracts a * b + c into a fused
-- multiply-add may round a block's lanes differently from the scalar code); with
-- -DBATCH_EXACT (code compiled without contraction) bit for bit.
local K = import "c/check_compare"
local batch = import "c/batch"

local B = {}

-- The batch entries the harness can call: a function of d.functions whose every input has a
-- harness value (check_compare.lua's role_arg).
function B.list(d, rcr, project)
  if not d.batch then return {} end
  local list = {}
  for _, e in ipairs(batch.entries(d, rcr, project)) do
    local ok = e.f ~= nil
    for k, p in ipairs(e.params) do
      local role = ok and e.f.params[k].role
      if ok and p.input and not p.output and not K.role_arg[role] then ok = false end
      if ok then p.arg = K.role_arg[role] end
    end
    if ok then list[#list + 1] = e end
  end
  return list
end

local function arr(i, k) return "bt" .. (i - 1) .. "_" .. (k - 1) end
local function ref(i, k) return "br" .. (i - 1) .. "_" .. (k - 1) end
local function one(i, k) return "bs" .. (i - 1) .. "_" .. (k - 1) end

function B.helpers(b, d, list)
  if #list == 0 then return end
  b("/* The batch functions against their scalar functions (check_batch.lua) */")
  b("#define BATCH_N 11")
  b("#define BATCH_TOL ", d.scalar == "float" and "1e-4" or "1e-9")
  b([[
/* out against ref (rows of BATCH_N states, rows × BATCH_N) where ok[s]: the entries that differ
 * in any bit into *ndiff, the worst difference relative to the largest |ref| into *worst */
static void batch_compare(const real *out, const real *ref, int rows, const int *ok,
                          long *ndiff, double *worst) {
  double scale = 0, err = 0;
  for (int k = 0; k < rows * BATCH_N; k++)
    if (ok[k % BATCH_N] && fabs((double)ref[k]) > scale) scale = fabs((double)ref[k]);
  for (int k = 0; k < rows * BATCH_N; k++) {
    if (!ok[k % BATCH_N]) continue;
    if (memcmp(&out[k], &ref[k], sizeof out[k]) != 0) ++*ndiff;
    double e = fabs((double)out[k] - (double)ref[k]);
    if (!(e <= err)) err = e;
  }
  err = scale > 0 ? err / scale : err;
  if (!(err <= *worst)) *worst = err;
}
]])
end

-- Inside main: the states' arrays.
function B.declare(b, d, list)
  if #list == 0 then return end
  b("  /* the batch functions' inputs and outputs, and the scalar functions' (check_batch.lua) */")
  for i, e in ipairs(list) do
    for k, p in ipairs(e.params) do
      local n = "(size_t)(" .. (p.size or "1") .. ") * BATCH_N"
      local t = p.type == "int" and "int" or "real"
      b("  ", t, " *", arr(i, k), " = malloc(", n, " * sizeof(", t, "));")
      b("  if (!", arr(i, k), ") return fprintf(stderr, \"out of memory\\n\"), 2;")
      if p.output then
        b("  ", t, " *", ref(i, k), " = malloc(", n, " * sizeof(", t, "));")
        b("  ", t, " *", one(i, k), " = malloc((size_t)(", p.size, ") * sizeof(", t, "));")
        b("  if (!", ref(i, k), " || !", one(i, k),
          ") return fprintf(stderr, \"out of memory\\n\"), 2;")
      end
    end
    if e.returns == "int" then b("  int brc", i - 1, "[BATCH_N], bst", i - 1, "[BATCH_N];") end
  end
end

-- At each state (inside the loop, the inputs set): the first BATCH_N states' inputs gathered
-- and each scalar function's outputs (through out, a column at a time) kept.
function B.calls(b, d, list)
  if #list == 0 then return end
  b("    if (state < BATCH_N) { /* the batch functions' states (check_batch.lua) */")
  for i, e in ipairs(list) do
    local args, outs = {}, {}
    for k, p in ipairs(e.params) do
      if p.output then
        outs[#outs + 1] = k
        args[k] = one(i, k)
      else
        args[k] = p.arg
        if p.size then
          b("      for (int k = 0; k < ", p.size, "; k++) ", arr(i, k), "[k * BATCH_N + state] = ",
            p.arg, "[k];")
        else
          b("      ", arr(i, k), "[state] = ", p.arg, ";")
        end
      end
    end
    local call = e.cname .. "(" .. table.concat(args, ", ") .. ")"
    b("      ", e.returns == "int" and ("brc" .. (i - 1) .. "[state] = ") or "", call, ";")
    for _, k in ipairs(outs) do
      b("      for (int k = 0; k < ", e.params[k].size, "; k++) ", ref(i, k),
        "[k * BATCH_N + state] = ", one(i, k), "[k];")
    end
  end
  b("    }")
end

-- After the loop: one call of every batch function, compared; the failures into failed.
function B.report(b, d, list)
  if #list == 0 then return end
  b("  printf(\"  batch functions (%d states, SoA) against their scalar calls:\\n\", BATCH_N);")
  for i, e in ipairs(list) do
    local args = {}
    for k in ipairs(e.params) do args[k] = arr(i, k) end
    local int = e.returns == "int"
    if int then args[#args + 1] = "bst" .. (i - 1) end
    b("  {")
    b("    int ok[BATCH_N], bad = 0", int and ", nfail = 0" or "", ";")
    b("    for (int s = 0; s < BATCH_N; s++) ok[s] = ",
      int and ("brc" .. (i - 1) .. "[s] >= 0, nfail += brc" .. (i - 1) .. "[s] < 0") or "1", ";")
    b("    ", int and "int nret = " or "", e.cname, "_batch(BATCH_N, ", table.concat(args, ", "),
      ");")
    if int then
      b("    bad |= nret != nfail;")
      b("    for (int s = 0; s < BATCH_N; s++) bad |= bst", i - 1, "[s] != brc", i - 1, "[s];")
    end
    b("    long ndiff = 0;")
    b("    double worst = 0;")
    for k, p in ipairs(e.params) do
      if p.output then
        b("    batch_compare(", arr(i, k), ", ", ref(i, k), ", ", p.size, ", ok, &ndiff, &worst);")
      end
    end
    b("#ifdef BATCH_EXACT")
    b("    bad |= ndiff != 0;")
    b("#endif")
    b("    bad |= !(worst <= BATCH_TOL);")
    b("    failed += bad;")
    b("    printf(\"  %-23s %12s %12.3e  %s (%ld entries not bit-identical)\\n\", \"",
      e.f.name, "_batch\", \"\", worst, bad ? \"FAIL\" : \"ok\", ndiff);")
    b("  }")
  end
end

function B.free(b, list)
  for i, e in ipairs(list) do
    for k, p in ipairs(e.params) do
      b("  free(", arr(i, k), ");")
      if p.output then b("  free(", ref(i, k), "), free(", one(i, k), ");") end
    end
  end
end

return B
