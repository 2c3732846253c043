-- com.lua — the centre of mass of the moving bodies (mass_props.lua).
return import("mass_props").recipe("com")
