-- com_jacobian.lua — the Jacobian of the centre of mass (mass_props.lua).
return import("mass_props").recipe("com_jacobian")
