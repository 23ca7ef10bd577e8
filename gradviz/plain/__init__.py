"""Plain data and the rules on it that both processes share, one subpackage per feature: a
session's config (config), what it did (records), its graph (graph), the charts' numbers
(charts), lessons and decks (lessons), the lesson stage's layout (stage), the window's
state model (window) and its controllers (controllers), a run's files on disk (run_files),
recorded runs shown (runs), gradviz.watch's side in the user's process (watch), the plain
PyTorch program a config amounts to (program), and small shared helpers for text (text)
and files (files).

The standard library and numpy only: no torch, no Qt. The window's process imports these
and never torch; the engine's process (gradviz.core) imports them to say what it computed."""
