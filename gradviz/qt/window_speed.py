"""`gradviz bench --gui`: how soon the window shows after launch, how fast the app trains
with every panel live, and how long the window's event loop ever waits (a frozen window
would show here first)."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

# Run as a fresh `gradviz` would be (a new interpreter, nothing imported yet): print the
# (system-wide monotonic) time once the window has been shown and painted, and once the
# engine's first model is built; then close.
_LAUNCH_PROBE = """
import sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv[:1])

def shown():
    window = next(w for w in app.topLevelWidgets() if w.objectName() == "mainWindow")
    app.processEvents()   # the first paint
    print("VISIBLE", time.monotonic(), "torch" in sys.modules, flush=True)
    def ready(*_):
        print("READY", time.monotonic(), flush=True)
        window.close()
    window.model.events.generation.connect(ready)

QTimer.singleShot(0, shown)
from gradviz.app import main
raise SystemExit(main([]))
"""


def time_to_window(timeout_s: float = 120.0) -> dict:
    """Seconds from launching a fresh process to the window shown, and to the engine's
    model built (torch loaded in its own process meanwhile)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GRADVIZ_SETTINGS=os.path.join(tmp, "settings.json"))
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        start = time.monotonic()
        out = subprocess.run([sys.executable, "-I", "-c", _LAUNCH_PROBE], capture_output=True,
                             text=True, env=env, timeout=timeout_s)
    seen = {line.split()[0]: line.split()[1:] for line in out.stdout.splitlines()
            if line.startswith(("VISIBLE", "READY"))}
    if "VISIBLE" not in seen or "READY" not in seen:
        raise RuntimeError(f"the launch probe did not report (exit {out.returncode})")
    return {"window_visible_s": float(seen["VISIBLE"][0]) - start,
            "torch_in_window_process": seen["VISIBLE"][1] == "True",
            "engine_ready_s": float(seen["READY"][0]) - start}


# a second process that keeps one core busy, as another program on a lecturer's laptop
# (a browser, a video call) would
_BUSY = "while True: pass"


def measure_window(config, seconds: float = 8.0, busy: bool = False,
                  launch: bool = True, pin_b: bool = False,
                  model_path: str | None = None) -> dict:
    """Train with every panel live for `seconds`; with busy, while another process keeps
    a core busy; with launch, also time a fresh launch (time_to_window); with pin_b,
    while B (these same settings) trains beside A in its own process, compared live;
    with model_path, the window trains that model file (as `gradviz --model` opens it)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import pyqtgraph  # noqa: F401  (after PySide6: it binds to the first Qt)
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from .launch import quiet_offscreen_warnings
    from .main_window import MainWindow
    from .settings import AppSettings, Remembered

    result = time_to_window() if launch else {}
    app = QApplication.instance() or QApplication([])
    quiet_offscreen_warnings()   # else a line of offscreen-plugin noise per window
    with tempfile.TemporaryDirectory() as tmp:
        window = MainWindow(Remembered(config), AppSettings(os.path.join(tmp, "settings.json")),
                            model_path=model_path)
        # every panel drawn, side by side, at a projector's 1920x1080: not fitted to the
        # offscreen screen (800x600), which would put most of them into tabs
        window.drawn_off_screen = True
        window.resize(1920, 1080)
        window.show()
        gaps: list[float] = []
        last = [0.0]

        def tick() -> None:  # a 10 ms heartbeat: its gaps are the window's response time
            now = time.perf_counter()
            if last[0]:
                gaps.append(now - last[0])
            last[0] = now

        heartbeat = QTimer()
        heartbeat.timeout.connect(tick)
        start_steps = [0]

        spinner: list = []

        def begin() -> None:
            if busy:
                spinner.append(subprocess.Popen([sys.executable, "-I", "-c", _BUSY]))
            start_steps[0] = len(window.history)
            window.engine.play()
            heartbeat.start(10)
            QTimer.singleShot(int(seconds * 1000), app.quit)

        def wait_for_b() -> None:   # B's process started, A restarted beside it
            if window.compare.history_b is not None:
                QTimer.singleShot(1000, begin)
            else:
                QTimer.singleShot(50, wait_for_b)

        def wait_for_engine() -> None:   # its first model built, then a second to settle
            if window.model.generation >= 1 and pin_b:
                window.compare.pin_settings()
                wait_for_b()
            elif window.model.generation >= 1:
                QTimer.singleShot(1000, begin)
            else:
                QTimer.singleShot(50, wait_for_engine)

        wait_for_engine()
        try:
            app.exec()
        finally:
            for process in spinner:
                process.kill()
                process.wait()
        heartbeat.stop()
        window.refresh()
        steps = len(window.history) - start_steps[0]
        trained = window.model.model_path   # the model file it trained (None: built-in)
        window.close()
    gaps.sort()
    result.update({"steps_per_second": steps / seconds, "model_path": trained,
                   "median_gap_ms": statistics.median(gaps) * 1000,
                   "p99_gap_ms": gaps[int(len(gaps) * 0.99)] * 1000,
                   "max_gap_ms": gaps[-1] * 1000})
    return result
