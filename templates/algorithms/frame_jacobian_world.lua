-- frame_jacobian_world.lua — every operational frame's Jacobian in world axes (frames.lua).
return import("frames").recipe("frame_jacobian_world")
