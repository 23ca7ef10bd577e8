"""`gradviz bench --gui`: how fast the app trains with every panel live, and how long
the window's event loop ever waits (a frozen window would show here first)."""
from __future__ import annotations

import os
import statistics
import tempfile
import time


def run_gui_bench(config, seconds: float = 8.0) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    import pyqtgraph  # noqa: F401  (after PySide6: it binds to the first Qt)

    from .main_window import MainWindow
    from .settings import AppSettings, Remembered

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        window = MainWindow(Remembered(config), AppSettings(os.path.join(tmp, "settings.json")))
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

        def begin() -> None:
            start_steps[0] = len(window.history)
            window.sigPlay.emit()
            heartbeat.start(10)

        QTimer.singleShot(1000, begin)
        QTimer.singleShot(int(1000 + seconds * 1000), app.quit)
        app.exec()
        window.refresh()
        steps = len(window.history) - start_steps[0]
        window.close()
    gaps.sort()
    return {"steps_per_second": steps / seconds,
            "median_gap_ms": statistics.median(gaps) * 1000,
            "p99_gap_ms": gaps[int(len(gaps) * 0.99)] * 1000, "max_gap_ms": gaps[-1] * 1000}
