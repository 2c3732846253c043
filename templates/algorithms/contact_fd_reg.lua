-- contact_fd_reg.lua — contact dynamics (contact.lua).
return import("contact").recipe("contact_fd_reg")
