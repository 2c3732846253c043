-- trig.lua — the joint angles' sines and cosines (--trig-input): sc[2 k] = sin(q_i + θ0) and
-- sc[2 k + 1] = cos(q_i + θ0) for the k-th revolute, continuous or helical joint in body order
-- (model.bodies[i].trig = k), θ0 its folded turn (usually 0). The _sc twins of the other functions
-- read these instead of computing them (joints.lua).
return {
  name = "trig",
  summary = "the joint angles' sines and cosines, for the _sc functions",
  returns = "void",
  params = {
    { name = "q", role = "q" },
    { name = "sc", role = "out_sc" },
  },
  build = function(model)
    for _, b in ipairs(model.bodies) do
      if b.trig then
        local s, c = sym.sincos(sym.input("q", b.iq) + b.theta)
        sym.output("sc", 2 * b.trig, s)
        sym.output("sc", 2 * b.trig + 1, c)
      end
    end
  end,
}
