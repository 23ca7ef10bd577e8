"""Plain data and the rules on it that both processes share: configs, records, events,
graph data, history, lessons, the stage's layout and the window's state model.

The standard library and numpy only: no torch, no Qt. The window's process imports these and never
torch; the engine's process (gradviz.core) imports them to say what it computed."""
