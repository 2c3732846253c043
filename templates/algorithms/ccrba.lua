-- ccrba.lua — centroidal momentum (mass_props.lua).
return import("mass_props").recipe("ccrba")
