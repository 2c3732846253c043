-- my_mass.lua — a user's recipe without a runtime reference (tests/fuse.cmake): crba's M under
-- another name, so that the harness can only run it.
local crba = import "crba"
return { name = "my_mass", summary = "M(q), as crba (a test of --fuse)", returns = "void",
         params = crba.params, build = crba.build }
