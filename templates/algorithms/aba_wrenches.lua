-- aba_wrenches.lua — fused outputs (fused.lua).
return import("fused").recipe("aba_wrenches")
