-- frame_pose.lua — every operational frame's world pose (frames.lua).
return import("frames").recipe("frame_pose")
