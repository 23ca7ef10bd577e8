"""The command-line faces of gradviz: `gradviz run`, `compare`, `lessons`, `bench`, the
options they share, and their parsers (`parsers`, which imports no torch)."""
