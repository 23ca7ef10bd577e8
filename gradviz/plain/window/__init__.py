"""The window's state without Qt: its model, whose fields announce their changes
(window_model), what of it the engine has still to be told (engine_sync), the watch over
the engine's process (engine_watch), the status line's words and how long they stalled
(status_line, stall_watch), the settings file's values (settings_values) and the first
launch's dock sizes (dock_room)."""
