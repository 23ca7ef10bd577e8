"""Data that ships with gradviz (lesson presets, themes, icons): no code."""
