"""The training thread's side: a QObject that owns the Session and runs it.

It lives on its own QThread; the GUI calls its slots through queued signals and never
touches the session. Step records go into a deque the GUI drains at its paint rate
(thousands of steps a second would flood a signal per step); rare things (a phase
done, an error, a graph) come back as signals carrying plain data, never tensors.
"""
from __future__ import annotations

import collections
import gc
import threading
import time

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from ..core import events as ev
from ..core.config import Config, ConfigError
from ..core.session import Session
from ..core.threads import leave_a_core_free

BATCH_SECONDS = 0.02  # at full speed, train this long between looks at the event queue
FAST_SAMPLE_EVERY = 20  # at full speed, the costly probes run every this many steps
FREEZE_EVERY = 500      # keep graphs: steps between moving what it holds out of the GC's way


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


class TrainingWorker(QObject):
    phaseDone = Signal(object)        # PhaseRecord of a single-stepped phase
    failed = Signal(object)           # Event: PyTorch raised, or training diverged
    runningChanged = Signal(bool)
    configApplied = Signal(object, bool, list, int)  # Config, reset?, param names, generation
    configRejected = Signal(str)      # one-line reason
    notice = Signal(str)              # a one-line message for the status bar
    graphReady = Signal(object, str)  # GraphData, what it shows ("after backward 1 of 3")
    stepsDone = Signal(int)           # a run_steps() batch finished (for --screenshot)

    def __init__(self, config: Config):
        super().__init__()
        self._initial = config
        # (generation, StepRecord), drained by the GUI; the generation goes up with every
        # fresh model, so records of a model already replaced are told apart and dropped
        self.records: collections.deque = collections.deque()
        self.generation = 0
        self.session: Session | None = None
        self._timer: QTimer | None = None
        self._delay_ms = 0
        self._steps_left: int | None = None
        self.steps_per_second = 0.0
        self.show_saved = False   # saved-tensor nodes in the graph (many small nodes)
        self.track_node_grads = True
        # set from the GUI thread when the window closes; read here between steps, so
        # closing never waits for a whole full-speed batch
        self._stop = threading.Event()

    # ---- set-up, on the worker thread -----------------------------------------
    @Slot()
    def start(self) -> None:
        leave_a_core_free()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._tick)
        problem = None
        try:
            self.session = Session(self._initial)
        except ConfigError as exc:  # e.g. a remembered device that is gone: fall back
            problem = f"{exc}; using the CPU"
            self.session = Session(self._initial.replace(device="cpu"))
        except (RuntimeError, MemoryError) as exc:  # e.g. a model too big to allocate
            problem = f"cannot build that model ({_first_line(exc)}); using the default one"
            self.session = Session(Config())
        self.session.track_node_grads = self.track_node_grads
        self._announce_config(True)
        if problem:   # after the announcement, which would otherwise overwrite it
            self.configRejected.emit(problem)

    def _announce_config(self, did_reset: bool) -> None:
        """Tell the GUI the config in force, or the one waiting for the step in progress
        to end (so the controls never snap back to the old one)."""
        if did_reset:
            self.generation += 1
            self.records.clear()
        s = self.session
        config = s.pending_config or s.config
        self.configApplied.emit(config, did_reset, list(s.param_names), self.generation)

    # ---- controls --------------------------------------------------------------
    @Slot(object)
    def setConfig(self, config: Config) -> None:
        try:
            did_reset = self.session.set_config(config)
        except ConfigError as exc:
            self.configRejected.emit(str(exc))
            return
        except (RuntimeError, MemoryError) as exc:  # e.g. a model too big to allocate
            self._announce_config(True)             # the session rebuilt the old one
            self.configRejected.emit(f"cannot build that model: {_first_line(exc)}")
            return
        self._announce_config(did_reset)
        if did_reset or not self.session.in_step:
            self._send_graph("after the change")

    @Slot(int)
    def setDelay(self, ms: int) -> None:
        self._delay_ms = max(0, ms)
        self._set_sampling()

    def _set_sampling(self) -> None:
        """Every step measured in full when a person can follow the steps; sampled at
        full speed, where the probes would cost more than the training."""
        fast = self._delay_ms == 0 and self._timer is not None and self._timer.isActive()
        self.session.sample_floor = FAST_SAMPLE_EVERY if fast else 1

    @Slot()
    def play(self) -> None:
        if self.session.error is not None:
            self.session.set_config(self.session.config)  # acknowledge the error, go on
        self._steps_left = None
        self.runningChanged.emit(True)
        self._timer.start(0)
        self._set_sampling()

    @Slot()
    def pause(self) -> None:
        self._timer.stop()
        self._set_sampling()
        self.runningChanged.emit(False)
        self._send_graph("paused")

    @Slot()
    def stepPhase(self) -> None:
        self.pause_silently()
        phase = self._guarded(self.session.advance_phase)
        if phase is None:
            return
        if phase.step_done and self.session.last_record is not None:
            self.records.append((self.generation, self.session.last_record))
        self.phaseDone.emit(phase)
        if phase.event is not None:
            self.failed.emit(phase.event)
        self._send_graph(f"after {phase.detail}")

    @Slot()
    def stepOnce(self) -> None:
        self.pause_silently()
        record = self._guarded(self.session.step)
        self._after_step(record)
        self._send_graph("after the optimizer step" if record else "at the error")

    @Slot()
    def reset(self) -> None:
        self.pause_silently()
        self._guarded(self.session.reset)
        self._announce_config(True)
        self._send_graph("after reset")

    @Slot(int)
    def runSteps(self, steps: int) -> None:
        """Train `steps` steps as fast as possible, then emit stepsDone."""
        self._steps_left = steps
        self._timer.start(0)   # every step measured: these runs make pictures

    @Slot(str)
    def exportTorchviz(self, path: str) -> None:
        """torchviz.make_dot of the live roots: only this thread may touch the tensors."""
        from ..render.torchviz_adapter import make_dot_text
        s = self.session
        try:
            text = make_dot_text(s.root_tensors(),
                                 dict(zip(s.param_names, s.params)))
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        except Exception as exc:  # a failed export is a message, never a crash
            self.notice.emit(f"torchviz export failed: {_first_line(exc)}")
            return
        self.notice.emit(f"torchviz DOT exported to {path}")

    @Slot(bool)
    def setTrackNodeGrads(self, on: bool) -> None:
        """Measure the gradient through every graph node (costs hooks: only while the
        graph is on screen)."""
        self.track_node_grads = on
        if self.session is not None:
            self.session.track_node_grads = on

    @Slot(bool)
    def setShowSaved(self, show: bool) -> None:
        self.show_saved = show
        self._send_graph("live")

    @Slot()
    def requestGraph(self) -> None:
        self._send_graph("live")

    def request_stop(self) -> None:
        """Any thread: end the batch in progress after its current step."""
        self._stop.set()

    @Slot()
    def shutdown(self) -> None:
        """Stop training and end this thread's event loop (the timer must stop on its own
        thread, so the GUI asks for this instead of doing it)."""
        self._stop.set()
        if self._timer is not None:
            self._timer.stop()
            self._timer.deleteLater()
            self._timer = None
        QThread.currentThread().quit()

    def pause_silently(self) -> None:
        if self._timer.isActive():
            self._timer.stop()
            self.runningChanged.emit(False)
        self._set_sampling()

    # ---- the loop ---------------------------------------------------------------
    def _tick(self) -> None:
        start = time.perf_counter()
        done = 0
        while True:
            if self._stop.is_set():   # the window is closing: no more steps, no re-arming
                return
            record = self._guarded(self.session.step)
            if not self._after_step(record):
                return
            done += 1
            if self._steps_left is not None:
                self._steps_left -= 1
                if self._steps_left <= 0:
                    self._steps_left = None
                    self._send_graph("live")
                    self.stepsDone.emit(self.session.step_index)
                    return
            elapsed = time.perf_counter() - start
            if self._delay_ms > 0 or elapsed > BATCH_SECONDS:
                break
        self.steps_per_second = done / max(elapsed, 1e-9)
        self._timer.start(self._delay_ms)

    def _after_step(self, record) -> bool:
        """Queue the record; on an error, stop and report it. True to keep going."""
        if record is not None:
            self.records.append((self.generation, record))
            self._spare_the_gc(record.step)
            return True
        if self.session.error is not None:
            self._timer.stop()
            self._steps_left = None
            self.runningChanged.emit(False)
            self.failed.emit(self.session.error)
        return False

    def _spare_the_gc(self, step: int) -> None:
        """keep graphs holds every step's graph, and the Python objects our probes made
        for it: a full collection then scans them all while holding the GIL, a pause that
        grew past a second in long runs. Freezing them (they are meant to be kept) stops
        that; they return to the collector as soon as keep graphs is off or on reset."""
        if self.session.config.keep_graphs:
            if step % FREEZE_EVERY == FREEZE_EVERY - 1:
                gc.freeze()
        elif gc.get_freeze_count():
            gc.unfreeze()

    def _guarded(self, action):
        """Run a session call; an unexpected Python error is reported, not raised."""
        try:
            return action()
        except Exception as exc:  # a bug of ours must not take the lecture down
            event = ev.from_exception(exc, self.session.step_index, "internal",
                                      "gradviz itself")
            self.session.error = event
            self._timer.stop()
            self.runningChanged.emit(False)
            self.failed.emit(event)
            return None

    def _send_graph(self, when: str) -> None:
        try:
            graph = self.session.graph(show_saved=self.show_saved)
        except Exception:  # a graph we cannot read is not worth stopping for
            return
        self.graphReady.emit(graph, when)
