"""The training engine in its own process: it owns every tensor; the window talks to it
through a pipe in plain data (gradviz.engine.protocol)."""
