-- aba_derivatives.lua — the derivatives of the dynamics (derivatives.lua).
return import("derivatives").recipe("aba_derivatives")
