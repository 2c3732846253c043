-- impulse.lua — contact dynamics (contact.lua).
return import("contact").recipe("impulse")
