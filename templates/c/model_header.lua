-- model_header.lua — <prefix>_model.h: the model as data for the mbdc runtime, declared for
-- users who link <prefix>_model.c with the runtime library (mbrt): to call the runtime's
-- algorithms on the same model (mb_aba(&<prefix>_model, ...)), as the cross-check does.
local common = import "c/common"

return function(d)
  local b = common.buffer()
  local P = d.PREFIX
  common.banner(b, d, d.prefix .. "_model.h",
    "model '" .. d.prefix .. "' as data for the mbdc runtime (defined in " .. d.prefix ..
    "_model.c).")
  b("")
  b("/* The generated functions (", d.prefix, "_dynamics.h) need nothing of this: include it to run")
  b(" * the runtime's algorithms (mb.h, library mbrt) on the same model, e.g. as a reference in")
  b(" * your own tests. Body k of the runtime is body k of ", d.prefix, "_body_names; q and v are in")
  b(" * the same order. */")
  b("#ifndef ", P, "_MODEL_H")
  b("#define ", P, "_MODEL_H")
  b("")
  b("#include \"mb.h\"")
  b("")
  b("#include \"", d.prefix, "_dynamics.h\"")
  b("")
  common.extern_c_open(b)
  b("")
  b("/* The tree: bodies, joints, inertias, gravity (and the flexible bodies' modal data). */")
  b("extern const mb_model ", d.prefix, "_model;")
  b("/* The spring-dampers ({0, NULL} for none): mb_passive_forces(&", d.prefix, "_model, &",
    d.prefix, "_springs, ...). */")
  b("extern const mb_springs ", d.prefix, "_springs;")
  b("/* The operational frames, ", P, "_FRAME_<name> (mb_frame_pose(&", d.prefix, "_model, &",
    d.prefix, "_frames, ...)). */")
  b("extern const mb_frames ", d.prefix, "_frames;")
  if #d.contacts > 0 then
    b("/* The contacts of --contacts (mb_contact_fd(&", d.prefix, "_model, &", d.prefix,
      "_frames, &", d.prefix, "_contacts, ...)). */")
    b("extern const mb_contacts ", d.prefix, "_contacts;")
  end
  if d.coupling then
    b("/* The coupled (mimic) joints: ", d.prefix, "_model has every joint's coordinate (",
      P, "_NQ_FULL, ", P, "_NV_FULL); ", d.prefix, "_coupling maps the ", P, "_NQ, ", P, "_NV")
    b(" * independent ones the generated functions take onto them (mb_coupled_expand, ",
      "mb_coupled_fd, ...). */")
    b("#define ", P, "_NQ_FULL ", d.coupling.nq)
    b("#define ", P, "_NV_FULL ", d.coupling.nv)
    b("extern const mb_coupling ", d.prefix, "_coupling;")
  end
  if (d.nc or 0) > 0 then
    b("/* The loop joints and the ", P, "_NC independent rows kept (mb_fd_loops, mb_rcr). */")
    b("extern const mb_loops ", d.prefix, "_loops;")
  end
  b("")
  common.extern_c_close(b)
  b("")
  b("#endif /* ", P, "_MODEL_H */")
  return b.text()
end
