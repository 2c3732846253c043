-- frame_velocity.lua — every operational frame's velocity, world axes (frames.lua).
return import("frames").recipe("frame_velocity")
