"""`gradviz bench --slides`: how soon a lesson's slide is drawn, and moving, after
PageDown, in the window as the app runs it, in a process of its own (`python -I -m
gradviz.bench.qt.slide_speed`).

From the first slide of the first bundled lesson, PageDown after PageDown (on a lesson's
last slide it opens the next lesson), each slide is timed twice:
- drawn: from the key press to the end of the first repaint that draws the slide's
  heading (its title, "slide N of M"), with the panels placed for it and, until its
  first state is in, the line saying what the engine is doing (never the slide before's
  data: the lecture walk checks that by its pictures);
- moving: to the end of the repaint that shows the slide's first state (its first
  trained step drawn, or played by phases its first phase; with the graph, that state's
  graph drawn), the preparing line gone.
Between two slides the slide plays, as it would while the lecturer speaks: for a second
once it moves, and for as long as what the app starts ahead for the next slide (an
engine on another model, DDP ranks) takes to be ready, which is timed too (ahead: from
the slide moving to that ready), so each PageDown comes to a window as busy as in a
lecture and is timed as a lecturer who spoke that long meets it. It prints one
`RESULT {json}` line.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from .window_speed import bench_window, wait_until

RESULT = "RESULT"         # the line the bench reads (bench.window_phase.phase_result)
HEADING = "narrationHeading"   # the slide's heading, repainted when the slide changes
DWELL_S = 1.0             # a slide plays this long, once moving, before the next PageDown
# and at most this long for what is started ahead for the next slide to be ready (a
# lecturer's minute): the next slide is timed as it is then
AHEAD_MOST_S = 60.0


class SlideTimer:
    """Times one PageDown: its press, the end of the first repaint that draws the
    heading, and the slide whole (window.model.preparing None again)."""

    def __init__(self, window: Any):
        from PySide6.QtCore import QEvent, QObject

        timer = self

        class Painted(QObject):   # sees every event only while a press is being timed
            def eventFilter(self, watched: QObject, event: QEvent) -> bool:
                if event.type() == QEvent.Type.Paint and watched.objectName() == HEADING:
                    timer.heading_painted()
                return False

        self.window = window
        self._filter = Painted()
        self.pressed_at = 0.0
        self.drawn_at: float | None = None
        self.covered = False
        self._handled = False

    def press(self) -> None:
        """PageDown, as the clicker sends it; the repaints from then on are watched."""
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        self.drawn_at, self._handled = None, False
        self._app().installEventFilter(self._filter)
        self.pressed_at = time.perf_counter()
        QTest.keyClick(self.window, Qt.Key.Key_PageDown)
        self._handled = True   # (a paint inside the key's own handling is not counted)

    def heading_painted(self) -> None:
        from PySide6.QtCore import QTimer
        if not self._handled or self.drawn_at is not None:
            return
        self.drawn_at = -1.0   # the repaint is under way: it ends before the next turn
        # what that repaint shows in the panels' place: the slide whole (nothing left to
        # prepare), or the stage's preparing line over the panels, never the slide
        # before's panels (the model says the slide is being prepared; the stage's cover
        # is what the repaint draws)
        self.covered = self.window.model.preparing is None or \
            self.window.lessons.stage.cover.isVisible()
        self._app().removeEventFilter(self._filter)

        def ended() -> None:
            self.drawn_at = time.perf_counter()
        QTimer.singleShot(0, ended)

    @staticmethod
    def _app() -> Any:
        from PySide6.QtWidgets import QApplication
        return QApplication.instance()

    def stop(self) -> None:
        """No more presses: the repaints are no longer watched."""
        self._app().removeEventFilter(self._filter)

    @property
    def drawn_ms(self) -> float | None:
        if self.drawn_at is None or self.drawn_at < 0:
            return None
        return (self.drawn_at - self.pressed_at) * 1000


class SlideWalk:
    """PageDown through `count` slides (None: to the last bundled slide)."""

    def __init__(self, window: Any, count: int | None, done: Callable[[], None]):
        self.window, self.count, self.done = window, count, done
        self.timer = SlideTimer(window)
        self.slides: list[dict] = []

    def _where(self) -> tuple[str, int] | None:
        controller = self.window.lessons.controller
        lesson = controller.lesson
        return None if lesson is None else (lesson.name, controller.index)

    def _whole(self) -> bool:
        return self.window.model.preparing is None

    def start(self, first_lesson: str) -> None:
        self.window.lessons.open_named(first_lesson)
        wait_until(self._whole, lambda: self._dwell(None, time.perf_counter()), every_ms=5)

    def _dwell(self, timed: dict | None, moved_at: float) -> None:
        """The slide plays DWELL_S, and until what was started for the next slide is
        ready (how long that took is the timed slide's "ahead_s")."""
        from PySide6.QtCore import QTimer

        def prepared() -> bool:
            return self.window.model.next_slide_ready or \
                time.perf_counter() - moved_at > AHEAD_MOST_S

        def ready() -> None:
            now = time.perf_counter()
            if timed is not None:
                timed["ahead_s"] = now - moved_at
            if self.count is not None and len(self.slides) >= self.count:
                self.done()
                return
            QTimer.singleShot(round(max(0.0, DWELL_S - (now - moved_at)) * 1000), self._next)
        wait_until(prepared, ready, every_ms=20)

    def _next(self) -> None:
        before = self._where()
        self.timer.press()
        if self._where() == before:   # the last slide of the last lesson
            self.timer.stop()
            self.done()
            return
        wait_until(lambda: self.timer.drawn_ms is not None, self._drawn, every_ms=1)

    def _drawn(self) -> None:
        from PySide6.QtCore import QTimer
        where = self._where()
        drawn_ms, covered = self.timer.drawn_ms, self.timer.covered
        pressed_at = self.timer.pressed_at

        def moving() -> None:   # the repaint that shows the first state has ended
            assert where is not None
            moved_at = time.perf_counter()
            timed = {"lesson": where[0], "slide": where[1] + 1, "drawn_ms": drawn_ms,
                     "covered": covered, "moving_s": moved_at - pressed_at}
            self.slides.append(timed)
            self._dwell(timed, moved_at)
        wait_until(self._whole, lambda: QTimer.singleShot(0, moving), every_ms=5)


def measure(size: tuple[int, int], count: int | None) -> dict:
    """The window at `size`, its first model in, then the walk."""
    import pyqtgraph  # noqa: F401  (after PySide6: it binds to the first Qt)
    from PySide6.QtWidgets import QApplication

    from ...plain.config.config import Config
    from ...plain.lessons.lessons import bundled_names
    from ...qt.launch import quiet_offscreen_warnings

    app = QApplication.instance() or QApplication([])
    quiet_offscreen_warnings()
    with tempfile.TemporaryDirectory() as tmp:
        window = bench_window(Config(), size, tmp)
        window.activateWindow()   # PageDown is the window's shortcut: it needs the keys
        walk = SlideWalk(window, count, app.quit)
        wait_until(lambda: bool(window.history.head_names),
                   lambda: walk.start(bundled_names()[0]))
        app.exec()
        window.close()
    drawn = sorted(s["drawn_ms"] for s in walk.slides)
    return {"size": list(size), "slides": walk.slides,
            "drawn_median_ms": drawn[len(drawn) // 2] if drawn else None,
            "drawn_max_ms": drawn[-1] if drawn else None,
            "moving_max_s": max((s["moving_s"] for s in walk.slides), default=None)}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m gradviz.bench.qt.slide_speed")
    parser.add_argument("--size", default="1024x768")
    parser.add_argument("--count", type=int, default=None,
                        help="PageDowns to time (default: to the last bundled slide)")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.split("x"))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    print(RESULT, json.dumps(measure((width, height), args.count)), flush=True)
    sys.stdout.flush()
    os._exit(0)   # the window's threads and the engine's pipe: nothing left to save


if __name__ == "__main__":
    main(sys.argv[1:])
