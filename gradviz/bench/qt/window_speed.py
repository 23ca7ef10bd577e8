"""`gradviz bench --gui`'s window phase, run as a process of its own
(`python -I -m gradviz.bench.qt.window_speed JOB`): the window as the app runs it (no torch in
its process), every panel live while the engine trains, and how late its event loop
answered, to the millisecond. It prints one `RESULT {json}` line."""
from __future__ import annotations

import argparse
import cProfile
import faulthandler
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

import psutil

from ...engine.child import cpu_seconds, descendants
from ...plain.config.config import Config
from ...plain.config.config_toml import from_mapping
from ...plain.window.stall_watch import StallWatch

RESULT = "RESULT"   # the line the bench reads (bench.window_phase)
PROBE_MS = 1        # the probe's interval: lateness is measured to about this
SETTLE_MS = 1000    # after the first steps: the engine's and the window's warm-up
FROZEN_S = 30.0     # no turn of the event loop for this long: the window is frozen
# a second process that keeps one core busy, as another program on a lecturer's laptop
# (a browser, a video call) would
_BUSY = "while True: pass"

# Run as a fresh `gradviz` would be (a new interpreter, nothing imported yet): print the
# (system-wide monotonic) time once the window has been shown and painted, and once the
# engine's first model is in the window; then close.
_LAUNCH_PROBE = """
import sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv[:1])

def shown():
    window = next(w for w in app.topLevelWidgets() if w.objectName() == "mainWindow")
    app.processEvents()   # the first paint
    print("VISIBLE", time.monotonic(), "torch" in sys.modules, flush=True)
    def ready():
        if not window.history.head_names:
            QTimer.singleShot(20, ready)
            return
        print("READY", time.monotonic(), flush=True)
        window.close()
    ready()

QTimer.singleShot(0, shown)
from gradviz.app import main
raise SystemExit(main([]))
"""


def time_to_window(timeout_s: float = 120.0) -> dict:
    """Seconds from launching a fresh process to the window shown, and to the engine's
    first model in it (torch loaded in the engine's own process meanwhile)."""
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


def lateness_summary(late_s: list[float]) -> dict[str, float]:
    """p50, p99 and the worst of how late the probe ran, in ms (nearest rank)."""
    if not late_s:
        return {"median_late_ms": float("nan"), "p99_late_ms": float("nan"),
                "max_late_ms": float("nan")}
    ranked = sorted(late_s)

    def rank(share: float) -> float:
        return ranked[min(len(ranked) - 1, max(0, round(share * len(ranked)) - 1))] * 1000
    return {"median_late_ms": rank(0.5), "p99_late_ms": rank(0.99),
            "max_late_ms": ranked[-1] * 1000}


class Probe:
    """A PROBE_MS timer: how late each tick came (the time the event loop was away
    beyond the interval) is how late the window would have answered a click then.
    It also ends the phase: checked at every tick, not by one long timer that a
    crowded event loop could push back."""

    def __init__(self, until: float, done: Callable[[], None]):
        from PySide6.QtCore import Qt, QTimer
        self.late: list[float] = []
        self.last_turn = time.perf_counter()
        self.finished = False
        self._until, self._done = until, done
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self.last_turn = time.perf_counter()
        self._timer.start(PROBE_MS)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.late.append(max(0.0, now - self.last_turn - PROBE_MS / 1000))
        self.last_turn = now
        if now >= self._until:
            self._timer.stop()
            self.finished = True
            self._done()


def _end_frozen() -> None:
    """Every thread's stack on stderr (where the window was stuck), then exit 3."""
    faulthandler.dump_traceback(all_threads=True)
    os._exit(3)


def watch_for_a_freeze(probe: Probe, report: Callable[[dict], None],
                       end: Callable[[], None] = _end_frozen,
                       frozen_s: float = FROZEN_S, look_s: float = 1.0) -> threading.Thread:
    """If the event loop stops turning for frozen_s before the phase is over, report
    what was measured and the freeze, and end(): the bench's phase ends even when the
    window cannot."""
    def watch() -> None:
        while not probe.finished:
            time.sleep(look_s)
            away = time.perf_counter() - probe.last_turn
            if away > frozen_s and not probe.finished:
                report({**lateness_summary(probe.late), "frozen_s": away})
                end()
                return
    thread = threading.Thread(target=watch, name="freeze watch", daemon=True)
    thread.start()
    return thread


def _print_result(result: dict) -> None:
    print(RESULT, json.dumps(result), flush=True)


def engine_pid() -> int | None:
    """The pid of the engine this process started (A's; None where none is seen)."""
    for pid in descendants(os.getpid()):
        try:
            if "gradviz.engine.engine_process" in psutil.Process(pid).cmdline():
                return pid
        except psutil.Error:   # ended meanwhile
            continue
    return None


class CpuMeter:
    """CPU seconds the window's process and its engine's used since start()."""

    def __init__(self) -> None:
        self.pid = engine_pid()
        self._window = time.process_time()
        self._engine = self._engine_now()

    def _engine_now(self) -> float | None:
        return None if self.pid is None else cpu_seconds(self.pid)

    def used(self) -> tuple[float, float | None]:
        """(the window's, the engine's or None where the system does not say)."""
        engine_now = self._engine_now()
        engine = None if engine_now is None or self._engine is None \
            else engine_now - self._engine
        return time.process_time() - self._window, engine


def cpu_figures(window_s: float, engine_s: float | None, steps: int,
                elapsed: float) -> dict[str, float | None]:
    """Each process's share of a core, and its CPU milliseconds per step trained."""
    per_step = 1000 / max(steps, 1)
    return {"window_cpu_share": window_s / elapsed,   # of one core, all its threads
            "window_cpu_ms_per_step": window_s * per_step,
            "engine_cpu_share": None if engine_s is None else engine_s / elapsed,
            "engine_cpu_ms_per_step": None if engine_s is None else engine_s * per_step}


def wait_until(ready: Callable[[], bool], then: Callable[[], None], every_ms: int = 50
               ) -> None:
    """then() once ready() holds, looked at every every_ms on the event loop (which
    keeps turning meanwhile)."""
    from PySide6.QtCore import QTimer
    if ready():
        then()
    else:
        QTimer.singleShot(every_ms, lambda: wait_until(ready, then, every_ms))


def bench_window(config: Config, size: tuple[int, int], settings_dir: str,
                 model_path: str | None = None) -> Any:
    """The app's main window as a bench drives it: settings in settings_dir (nothing
    the user keeps), every panel drawn at `size`, shown."""
    from ...qt.main_window import MainWindow
    from ...qt.settings import AppSettings, Remembered
    window = MainWindow(Remembered(config), AppSettings(os.path.join(settings_dir,
                                                                     "settings.json")),
                        model_path=model_path)
    # every panel drawn, side by side, at the size asked for: not fitted to the
    # offscreen screen (800x600), which would put most of them into tabs
    window.model.drawn_off_screen = True
    window.resize(*size)
    window.show()
    return window


class Phase:
    """One measured phase: the window shown at its size, the engine's first model in,
    B pinned (if asked), Play, a settling second, then `seconds` measured."""

    def __init__(self, window: Any, seconds: float, pin_b: bool, busy: bool,
                 profile: cProfile.Profile | None):
        self.window, self.seconds, self.pin_b, self.busy = window, seconds, pin_b, busy
        self.profile = profile
        self.spinner: subprocess.Popen | None = None
        self.probe: Probe | None = None
        self.start_steps = 0
        self.started = self.ended = self.stalled = 0.0
        self.cpu: CpuMeter | None = None
        self.used: tuple[float, float | None] = (0.0, None)   # CPU seconds: window, engine
        self.stalls = StallWatch()

    def wait(self, ready: Callable[[], bool], then: Callable[[], None]) -> None:
        wait_until(ready, then)

    def first_model(self) -> None:
        model = self.window.model
        if self.pin_b:
            self.window.compare.pin_settings()
            self.wait(lambda: model.pinned_b is not None, self.play)
        else:
            self.play()

    def play(self) -> None:
        from PySide6.QtCore import QTimer
        if not self.window.model.running:
            self.window.toggle_play()
        self.wait(lambda: len(self.window.history) > 0,
                  lambda: QTimer.singleShot(SETTLE_MS, self.begin))

    def begin(self) -> None:
        from ...qt.hold_watch import watch_holds
        if self.busy:
            self.spinner = subprocess.Popen([sys.executable, "-I", "-c", _BUSY])
        self.window.refresh()
        self.start_steps = len(self.window.history)
        self.started = time.perf_counter()
        self.cpu = CpuMeter()
        # the step count on screen: the status line's text, as it is set
        texts = self.window.status.texts
        self.stalls.start(texts.phase)
        texts.events.phase.connect(self.stalls.shown)
        self.probe = Probe(self.started + self.seconds, self.end)
        watch_for_a_freeze(self.probe, _print_result)
        watch_holds(self.window)   # with GRADVIZ_HOLD_STACKS only
        if self.profile is not None:
            self.profile.enable()
        self.probe.start()

    def end(self) -> None:
        """The measured time is over: what the processes used, read now (on quitting,
        the window ends its engine), then quit."""
        from PySide6.QtWidgets import QApplication
        assert self.cpu is not None
        self.used = self.cpu.used()
        self.stalled = self.stalls.longest_stall_s()
        self.ended = time.perf_counter()
        QApplication.quit()

    def result(self) -> dict:
        if self.profile is not None:
            self.profile.disable()
        if self.spinner is not None:
            self.spinner.kill()
            self.spinner.wait()
        elapsed = self.ended - self.started
        assert self.probe is not None
        window_cpu, engine_cpu = self.used
        self.window.refresh()
        steps = len(self.window.history) - self.start_steps
        return {"steps_per_second": steps / elapsed, "steps": steps, "seconds": elapsed,
                **cpu_figures(window_cpu, engine_cpu, steps, elapsed),
                "longest_stall_s": self.stalled, "shown_advances": self.stalls.advances,
                "shown_steps": [self.stalls.first_step, self.stalls.last_step],
                "heads": list(self.window.history.head_names),
                "model_path": self.window.model.model_path,
                **lateness_summary(self.probe.late)}


def measure(config: Config, seconds: float, size: tuple[int, int], busy: bool = False,
            pin_b: bool = False, model_path: str | None = None,
            profile: cProfile.Profile | None = None) -> dict:
    """Train with every panel live for `seconds` at `size`; with busy, while another
    process keeps a core busy; with pin_b, while B (these same settings) trains beside
    A in its own process, compared live; with model_path, on that model file."""
    import pyqtgraph  # noqa: F401  (after PySide6: it binds to the first Qt)
    from PySide6.QtWidgets import QApplication

    from ...qt.launch import quiet_offscreen_warnings

    app = QApplication.instance() or QApplication([])
    quiet_offscreen_warnings()   # else a line of offscreen-plugin noise per window
    with tempfile.TemporaryDirectory() as tmp:
        window = bench_window(config, size, tmp, model_path)
        phase = Phase(window, seconds, pin_b, busy, profile)
        phase.wait(lambda: bool(window.history.head_names), phase.first_model)
        app.exec()
        result = phase.result()
        window.close()
    return result


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m gradviz.bench.qt.window_speed")
    parser.add_argument("--config", required=True, help="the Config, as JSON")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--busy", action="store_true")
    parser.add_argument("--pin-b", action="store_true")
    parser.add_argument("--launch", action="store_true")
    parser.add_argument("--model", default=None)
    parser.add_argument("--profile", default=None, help="write cProfile's stats here")
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    args = _parse(argv)
    width, height = (int(v) for v in args.size.split("x"))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    result = time_to_window() if args.launch else {}
    # by CPU time: on a shared machine the wall clock counts the others' turns too
    profile = cProfile.Profile(time.process_time) if args.profile else None
    result.update(measure(from_mapping(json.loads(args.config)), args.seconds,
                          (width, height), args.busy, args.pin_b, args.model, profile))
    if profile is not None:
        profile.dump_stats(args.profile)
    result["torch_in_window_process"] = result.get("torch_in_window_process",
                                                   "torch" in sys.modules)
    _print_result(result)
    sys.stdout.flush()
    os._exit(0)   # the window's threads and the engine's pipe: nothing left to save


if __name__ == "__main__":
    main(sys.argv[1:])
