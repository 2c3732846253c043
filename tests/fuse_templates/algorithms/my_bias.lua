-- my_bias.lua — a user's recipe without a runtime reference (tests/fuse.cmake): nle's h under
-- another name, so that the harness can only run it.
local nle = import "nle"
return { name = "my_bias", summary = "h(q, v), as nle (a test of --fuse)", returns = "void",
         params = nle.params, build = nle.build }
