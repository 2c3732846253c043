-- frames_tree.lua — a recipe for bench/frames.sh (`mbdc stats --templates bench/frames_tree`), not
-- a function anyone calls: it builds the working tree of --frame (joints.lua, reference.lua) and
-- writes out every body's inertia, motion subspace and frame offset, nothing of any algorithm, so
-- that its operation count is what a world-aligned variant spends before its recursions start
-- (0 in body frames, where all of it is constant). docs/frames.md, "The verdict".
local J = import "joints"

return {
  name = "frames_tree",
  summary = "the working tree of --frame alone: inertias, motion subspaces, frame offsets",
  returns = "void",
  frames = true,
  params = { { name = "q", role = "q" }, { name = "M", role = "out_nvnv" },
             { name = "P", role = "out_pose" }, { name = "W", role = "out_wrench" } },
  build = function(model)
    local vals = {}
    for _, b in ipairs(J.tree(model)) do
      for k = 1, 10 do vals[#vals + 1] = b.I[k] end
      for _, c in ipairs(b.S) do
        for k = 1, 6 do vals[#vals + 1] = c[k] end
      end
      if b.Xf then
        for k = 1, 3 do vals[#vals + 1] = b.Xf.r[k] end
      end
    end
    -- every value into the outputs, one after the other, the rest 0
    local at = 1
    for _, a in ipairs({ { "M", model.nv * model.nv }, { "P", 12 * (model.nb + 1) },
                         { "W", 6 * (model.nb + 1) } }) do
      for k = 0, a[2] - 1 do
        sym.output(a[1], k, vals[at] or 0)
        at = at + 1
      end
    end
    if at <= #vals then error("frames_tree: more values than the outputs hold", 0) end
  end,
}
