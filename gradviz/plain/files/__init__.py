"""gradviz's files: written whole or not at all (atomic_write), told apart by kind
(file_kinds), and the desktop entry and icon that ship with it (desktop_files)."""
