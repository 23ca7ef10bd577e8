"""The command-line faces of gradviz: `gradviz run`, `gradviz bench` and their options."""
