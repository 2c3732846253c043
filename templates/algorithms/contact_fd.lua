-- contact_fd.lua — contact dynamics (contact.lua).
return import("contact").recipe("contact_fd")
