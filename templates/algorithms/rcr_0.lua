-- rcr_0.lua — p_rcr's variant for selection 0 of the dependent coordinates (rcr_variant.lua).
return import("rcr_variant").recipe(0)
