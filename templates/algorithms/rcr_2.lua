-- rcr_2.lua — p_rcr's variant for selection 2 of the dependent coordinates (rcr_variant.lua).
return import("rcr_variant").recipe(2)
