-- frame_jacobian.lua — every operational frame's Jacobian in its own axes (frames.lua).
return import("frames").recipe("frame_jacobian")
