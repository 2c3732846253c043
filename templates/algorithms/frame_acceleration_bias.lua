-- frame_acceleration_bias.lua — every operational frame's acceleration at qdd = 0 (Jdot v), world axes (frames.lua).
return import("frames").recipe("frame_acceleration_bias")
