-- rcr_1.lua — p_rcr's variant for selection 1 of the dependent coordinates (rcr_variant.lua).
return import("rcr_variant").recipe(1)
