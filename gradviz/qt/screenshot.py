"""`gradviz --config F --steps N --screenshot PNG`: train N steps, let the panels and the
graph catch up, save a picture of the main window, exit. Works offscreen."""
from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer

from ..engine import protocol as p
from ..exit_codes import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from .main_window import MainWindow

SIZE = (1920, 1080)          # a projector's resolution
TIMEOUT_MS = 120_000


def _wait(app, condition, timeout_ms: int, interrupted: Callable[[], bool]) -> bool:
    loop_timer = QTimer()
    loop_timer.setSingleShot(True)
    loop_timer.start(timeout_ms)
    while not condition() and loop_timer.isActive() and not interrupted():
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    return condition()


def take_screenshot(app, remembered, settings, steps: int, path: str,
                    interrupted: Callable[[], bool] = lambda: False, lesson=None,
                    model_path: str | None = None) -> int:
    target = Path(path)
    if target.parent and not target.parent.exists():
        print(f"gradviz: cannot save the screenshot: folder {target.parent} does not exist",
              file=sys.stderr)
        return EXIT_USAGE
    window = MainWindow(remembered, settings, model_path=model_path)
    try:
        return _shoot(app, window, steps, target, interrupted, lesson)
    finally:
        # the window is deleted here, not at interpreter exit (see MainWindow.dispose);
        # it is not closed, so the screenshot's size and layout are not remembered
        window.dispose()


def _shoot(app, window: MainWindow, steps: int, target: Path,
           interrupted: Callable[[], bool], lesson=None) -> int:
    window.drawn_off_screen = True   # a picture at SIZE, whatever the screen's size
    window.resize(*SIZE)
    window.show()
    app.processEvents()
    window.first_layout()   # the same picture whatever layout was remembered
    ready = _wait(app, lambda: window.model.generation >= 1, 30_000, interrupted)
    if ready and lesson is not None:   # its slide (the first, or :N's): a fresh model
        lesson, index = lesson
        generation = window.model.generation
        window.lessons.open(lesson, index)
        ready = _wait(app, lambda: window.model.generation > generation, 30_000, interrupted)
        steps = min(steps, lesson.slides[index].steps)
    if ready and steps > 0:
        done: list[p.StepsDone] = []   # the batch of steps ended
        window.engine.received.connect(
            lambda record: done.append(record) if isinstance(record, p.StepsDone) else None)
        window.engine.run_steps(steps)
        _wait(app, lambda: len(done) > 0
              or window.events_view.event is not None, TIMEOUT_MS, interrupted)
    else:
        window.engine.request_graph()
    _wait(app, lambda: window.graph_view.graph is not None and window.graph_view.idle, 30_000,
          interrupted)
    if interrupted():
        return EXIT_INTERRUPTED
    window.refresh()
    app.processEvents()
    ok = window.grab().save(str(target), "PNG")
    if not ok:
        print(f"gradviz: cannot save the screenshot to {target}", file=sys.stderr)
        return EXIT_USAGE
    steps = window.history.last.step + 1 if window.history.last else 0
    print(f"saved {target} after {steps} steps")
    return EXIT_OK
