-- difference.lua — the configuration manifold (manifold.lua).
return import("manifold").recipe("difference")
