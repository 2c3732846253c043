-- rnea_derivatives.lua — the derivatives of the dynamics (derivatives.lua).
return import("derivatives").recipe("rnea_derivatives")
