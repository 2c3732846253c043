-- energy.lua — the kinetic and potential energy (mass_props.lua).
return import("mass_props").recipe("energy")
