-- rcr_refine_2.lua — the refinement of p_rcr's variant 2 (rcr_variant.lua).
return import("rcr_variant").refine_recipe(2)
