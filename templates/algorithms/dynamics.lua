-- dynamics.lua — fused outputs (fused.lua).
return import("fused").recipe("dynamics")
