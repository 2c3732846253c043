-- rcr_refine_0.lua — the refinement of p_rcr's variant 0 (rcr_variant.lua).
return import("rcr_variant").refine_recipe(0)
