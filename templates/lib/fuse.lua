-- fuse.lua — `--fuse NAME=f1,f2,...`: one function computing the outputs of several recipes from
-- one expression graph, so what they have in common (the joint transforms, the velocities, the
-- composite or articulated inertias) is computed once. Not a recipe itself: the generator calls
-- the function this module returns with NAME and the recipes' names and runs the recipe it
-- returns like any other, or nil and the reason the recipes cannot be fused (an error of the
-- command line, not of a recipe).
--
-- Parameters: every input once (the recipes' inputs of one name must have one role: q, v, tau ...
-- are shared), in the order met, then every output in the recipes' order; an output's name must
-- be unique across the recipes (they cannot be renamed), and is tagged with its recipe (`part`)
-- for the harness, which checks each recipe's outputs against its own reference. Returns int when
-- any recipe does (the status bits of every pivot check in the graph, as one recipe's); has the
-- choice of frames (--frame, docs/frames.md) when every recipe has it, all built in one.

local function is_output(role) return role:sub(1, 4) == "out_" end

return function(name, parts)
  local recipes, inputs, outputs, seen = {}, {}, {}, {}
  for k, part in ipairs(parts) do
    local r = import(part)
    if type(r) ~= "table" or type(r.build) ~= "function" or type(r.params) ~= "table" then
      return nil, "--fuse " .. name .. ": '" .. part .. "' is not a recipe (a module other "
        .. "recipes import)"
    end
    if r.epilogue then -- a step in C after its graph (source.lua): not part of a fused graph
      return nil, "--fuse " .. name .. ": '" .. part .. "' ends in C code of its own (its "
        .. "epilogue) and cannot be fused"
    end
    recipes[k] = r
    for _, p in ipairs(r.params) do
      local before = seen[p.name]
      if before and (is_output(p.role) or is_output(before.role)) then
        return nil, "--fuse " .. name .. ": '" .. before.part .. "' and '" .. part .. "' both have "
          .. "a parameter '" .. p.name .. "'" .. (is_output(p.role) and is_output(before.role)
          and " (both write it)" or " (one writes it, the other reads it)")
      elseif before and before.role ~= p.role then
        return nil, "--fuse " .. name .. ": the input '" .. p.name .. "' is a " .. before.role
          .. " in '" .. before.part .. "' and a " .. p.role .. " in '" .. part .. "'"
      elseif not before then
        seen[p.name] = { role = p.role, part = part }
        local list = is_output(p.role) and outputs or inputs
        list[#list + 1] = { name = p.name, role = p.role,
                            part = is_output(p.role) and part or nil }
      end
    end
  end
  local params, returns, frames = {}, "void", true
  for _, p in ipairs(inputs) do params[#params + 1] = p end
  for _, p in ipairs(outputs) do params[#params + 1] = p end
  for _, r in ipairs(recipes) do
    if r.returns == "int" then returns = "int" end
    frames = frames and r.frames == true -- the choice of frames when every part has it
  end
  return {
    name = name,
    summary = table.concat(parts, ", ") .. " in one function, their common terms computed once "
      .. "(--fuse)",
    returns = returns,
    frames = frames,
    params = params,
    build = function(model)
      for _, r in ipairs(recipes) do r.build(model) end
    end,
  }
end
