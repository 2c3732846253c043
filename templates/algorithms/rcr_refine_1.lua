-- rcr_refine_1.lua — the refinement of p_rcr's variant 1 (rcr_variant.lua).
return import("rcr_variant").refine_recipe(1)
