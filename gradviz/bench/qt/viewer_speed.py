"""`gradviz bench --viewer`'s phase, run as a process of its own (`python -I -m
gradviz.bench.qt.viewer_speed`): a folder of made-up runs (8 of 100,000 steps, in the watch's
format) opened in the recorded-run window, all of them ticked and drawn over each other,
and, once every step is read, how late the window's event loop answered while a user
moves the smoothing slider, switches the x axis, unticks and ticks runs and flips the
gradient tabs, one move every ACTION_MS. It prints one `RESULT {json}` line."""
from __future__ import annotations

import argparse
import cProfile
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ...plain.runs.made_up_runs import write_runs
from .window_speed import Probe, lateness_summary, wait_until, watch_for_a_freeze

RESULT = "RESULT"
ACTION_MS = 200      # a user's move this often: the slider dragged, an axis, a tick
SETTLE_MS = 1000     # after the last step is read: every chart drawn once
WEIGHTS = (0.6, 0.9, 0.0, 0.95, 0.3, 0.99, 0.75)
AXES = ("relative", "wall", "step")


class CpuProbe(Probe):
    """The probe, and the GUI thread's own CPU time between its ticks: on a machine
    others share, a tick is also late for the time the thread waited for a core, which
    says nothing of the window's code; the thread's time is what its work took."""

    def __init__(self, until: float, done: Callable[[], None]):
        super().__init__(until, done)
        self.busy: list[float] = []
        self._cpu = time.thread_time()

    def _tick(self) -> None:
        cpu = time.thread_time()
        self.busy.append(cpu - self._cpu)
        self._cpu = cpu
        super()._tick()


class ViewerPhase:
    def __init__(self, window: Any, runs: int, steps: int, seconds: float,
                 profile: cProfile.Profile | None = None):
        self.window, self.runs, self.steps, self.seconds = window, runs, steps, seconds
        self.profile = profile
        self.opened = time.perf_counter()
        self.load_s = 0.0
        self.probe: CpuProbe | None = None
        self.moves = 0
        self.timer: Any = None
        self.updates: dict[str, list[float]] = {}   # each chart's update times, s
        self.move_s: dict[str, list[float]] = {}    # each move's own time, s
        self._actions = self._script()

    def loaded(self) -> bool:
        """Every run ticked, drawn from its last step."""
        lines = self.window.viewer.lines()
        return len(lines) == self.runs and all(
            ln.history.last is not None and ln.history.last.step == self.steps - 1
            for ln in lines)

    def settle(self) -> None:
        from PySide6.QtCore import QTimer
        self.load_s = time.perf_counter() - self.opened
        self.window.refresh()
        QTimer.singleShot(SETTLE_MS, self.begin)

    def begin(self) -> None:
        from PySide6.QtCore import QTimer
        self._time_updates()
        self.probe = CpuProbe(time.perf_counter() + self.seconds, self.end)
        watch_for_a_freeze(self.probe, _print_result)
        self.timer = QTimer()
        self.timer.timeout.connect(self.move)
        self.timer.start(ACTION_MS)
        if self.profile is not None:
            self.profile.enable()
        self.probe.start()

    def move(self) -> None:
        name, action = self._actions[self.moves % len(self._actions)]
        start = time.perf_counter()
        action()
        self.move_s.setdefault(name, []).append(time.perf_counter() - start)
        self.moves += 1

    def _script(self) -> list[tuple[str, Callable[[], None]]]:
        """The user's moves, in turn (each named): the slider, an axis, a run unticked
        and ticked again, the agreement's tab and back."""
        from PySide6.QtCore import Qt
        side = self.window.viewer.sidebar
        moves: list[tuple[str, Callable[[], None]]] = []
        for k, weight in enumerate(WEIGHTS):
            axis = AXES[k % len(AXES)]
            moves.append(("smoothing", partial(side.slider.setValue, round(weight * 100))))
            moves.append((f"axis {axis}", side.axis_buttons[axis].click))
        row = self.runs - 1

        def tick(on: bool) -> None:
            item = side.runs.item(row)
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        moves += [("untick", lambda: tick(False)), ("tick", lambda: tick(True))]
        tabs = self.window.gradients_panel.tabs
        moves += [("agreement tab", lambda: tabs.setCurrentIndex(2)),
                  ("bars tab", lambda: tabs.setCurrentIndex(0))]
        return moves

    def _time_updates(self) -> None:
        """Each chart's update_from timed (where the window's time goes)."""
        for chart in self.window.plots:
            name = chart.objectName()
            update = chart.update_from

            def timed(history, update=update, name=name) -> None:
                start = time.perf_counter()
                update(history)
                self.updates.setdefault(name, []).append(time.perf_counter() - start)
            chart.update_from = timed

    def end(self) -> None:
        from PySide6.QtWidgets import QApplication
        if self.profile is not None:
            self.profile.disable()
        self.timer.stop()
        QApplication.quit()

    def result(self) -> dict:
        assert self.probe is not None
        slowest = {name: max(times) * 1000 for name, times in self.updates.items() if times}
        moves = {name: max(times) * 1000 for name, times in self.move_s.items()}
        return {"runs": self.runs, "steps": self.steps, "load_s": self.load_s,
                "moves": self.moves, "seconds": self.seconds,
                "slowest_update_ms": _top(slowest), "slowest_move_ms": _top(moves),
                "load_average": os.getloadavg()[0], "cores": os.cpu_count(),
                **lateness_summary(self.probe.late),
                **{f"{k[:-8]}_busy_ms": v for k, v in
                   lateness_summary(self.probe.busy).items()}}


def measure(runs: int, steps: int, seconds: float, size: tuple[int, int],
            folder: Path | None = None, profile: cProfile.Profile | None = None) -> dict:
    """The window on runs x steps made-up steps (written to folder, or a temporary one),
    measured for seconds of moves once every step is read."""
    import pyqtgraph  # noqa: F401  (after PySide6: it binds to the first Qt)
    from PySide6.QtWidgets import QApplication

    from ...qt.launch import quiet_offscreen_warnings
    from ...qt.run_window import RunWindow

    app = QApplication.instance() or QApplication([])
    quiet_offscreen_warnings()
    with tempfile.TemporaryDirectory() as tmp:
        where = folder or Path(tmp) / "runs"
        start = time.perf_counter()
        if not (where.is_dir() and len(list(where.iterdir())) == runs):
            write_runs(where, runs=runs, steps=steps, heads=2)
        written_s = time.perf_counter() - start
        window = RunWindow(where)
        window.resize(*size)
        window.show()
        window.first_layout()
        phase = ViewerPhase(window, runs, steps, seconds, profile)
        wait_until(phase.loaded, phase.settle, every_ms=200)
        app.exec()
        result = {**phase.result(), "write_s": written_s}
        window.close()
    return result


def _top(times_ms: dict[str, float], most: int = 4) -> dict[str, float]:
    return dict(sorted(times_ms.items(), key=lambda kv: -kv[1])[:most])


def _print_result(result: dict) -> None:
    print(RESULT, json.dumps(result), flush=True)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m gradviz.bench.qt.viewer_speed")
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--profile", default=None, help="write cProfile's stats here")
    parser.add_argument("--folder", default=None,
                        help="write the runs here (kept: a second bench reads them again)")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.split("x"))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # by CPU time: on a shared machine the wall clock counts the others' turns too
    profile = cProfile.Profile(time.process_time) if args.profile else None
    _print_result(measure(args.runs, args.steps, args.seconds, (width, height),
                          None if args.folder is None else Path(args.folder), profile))
    if profile is not None:
        profile.dump_stats(args.profile)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
