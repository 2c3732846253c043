-- centroidal_bias.lua — centroidal momentum (mass_props.lua).
return import("mass_props").recipe("centroidal_bias")
