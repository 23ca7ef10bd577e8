"""The window's benchmarks, each run as a process of its own (`python -I -m
gradviz.bench.qt.window_speed`, `.slide_speed`), as the app runs its window: no torch in
that process."""
