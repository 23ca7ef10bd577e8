"""The window's side of the engine: a QObject with the signals and attributes the
window uses, speaking the pipe protocol to an engine process (or, for tests, a thread).

The pipe is read when Qt says it is readable (a QSocketNotifier), for a bounded time
per call, so a flood of messages never stalls painting; each message is a record of
engine.protocol, answered through one table (`handlers`); step records go into `records`,
which the window drains at its paint rate. The engine dying (EOF on the pipe) or not
answering while it should is reported as an Event; reset() then starts a fresh one."""
from __future__ import annotations

import collections
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSocketNotifier, QTimer, Signal

from ..engine import host
from ..engine import protocol as p
from ..engine.child import last_sign_of_life
from ..engine.heartbeat import BUILDING_MODEL_FILE
from ..plain import events as ev
from ..plain.config import Config

READ_BUDGET_S = 0.008     # the longest one look at the pipe may take (the rest waits)
# The engine beats twice a second from its first moment (engine.heartbeat), also while it
# imports torch or runs a long step: no beat (nor, where the system says, CPU time) for
# this long and it has stopped making progress (frozen, stopped, or dead). Slow but
# beating is never a failure.
SILENT_SECONDS = 20.0
LONG_BUSY_SECONDS = 10.0  # busy this long (still beating): say so, and Reset ends it
WATCH_MS = 500
JOIN_SECONDS = 0.5        # quitting: how long the engine may take to stop by itself
# sent while no engine runs: kept (settings) or moot, so no "press Reset" for them
QUIET_WHEN_STOPPED = (p.Shutdown, p.Settings, p.RequestGraph, p.WarmB, p.Slide)


def settings_words(config: Config, most: int = 6) -> str:
    """The settings that differ from the defaults, in a few words ("batch_size=4096,
    trunk_width=2048"), or "the defaults"."""
    default = Config()
    changed = [f"{f.name}={getattr(config, f.name)}" for f in dataclasses.fields(config)
               if getattr(config, f.name) != getattr(default, f.name)]
    if not changed:
        return "the defaults"
    more = f" and {len(changed) - most} more" if len(changed) > most else ""
    return ", ".join(changed[:most]) + more


class EngineClient(QObject):
    phaseDone = Signal(object)        # PhaseRecord of a phase (single-stepped or played)
    failed = Signal(object)           # Event: PyTorch raised, training diverged, engine died
    runningChanged = Signal(bool)
    configApplied = Signal(object, bool, list, int)  # Config, reset?, param names, generation
    configRejected = Signal(str)      # one-line reason
    notice = Signal(str)              # a one-line message for the status bar
    graphReady = Signal(object, str)  # GraphData, what it shows ("after backward 1 of 3")
    stepsDone = Signal(int)           # a run_steps() batch finished (for --screenshot)
    engineReady = Signal(list)        # [(device, description)]: the engine has started
    engineStopped = Signal(str)       # one line: the engine died or hung
    bPinned = Signal(object, object)  # B's Config (None: not comparing), why not (or None)
    loading = Signal(str)             # one line while the engine starts ("importing torch")
    modelBuilding = Signal(str)       # one line a beat while a model file's code runs
    modelBuildEnded = Signal()        # ... until it is built, refused, stopped, or dies

    def __init__(self, config: Config, in_process: bool = False, parent=None,
                 model_path: str | None = None):
        """model_path: a model file every engine this client starts trains (its path,
        sent as plain data; the file runs in the engine's process, never in this one)."""
        super().__init__(parent)
        self.in_process = in_process
        self.model_path = model_path
        self.model_name = ""          # the model file the engine trains, as it last said
        self.model_taps: tuple[int, ...] | None = None   # its heads' trunk outputs (or None)
        # the engine runs the model file's code and has not answered yet (see stopBuilding)
        self.building = False
        # what trained before openModel: where Stop building goes back to (None: built-in)
        self._model_before: str | None = None
        self._say_when_ready: ev.Event | None = None   # for What happened, after a restart
        self.head_names = config.head_names()   # what the engine calls the heads
        # (generation, StepRecord), drained by the GUI; the generation goes up with every
        # fresh model, so records of a model already replaced are told apart and dropped
        self.records: collections.deque = collections.deque()
        # (generation, CompareRecord) of a pinned B, drained by the GUI like records
        self.compared: collections.deque = collections.deque()
        self.pinned_b: Config | None = None   # B as the window asked for it
        self.generation = 0
        self.steps_per_second = 0.0
        self.config = config          # the engine's config, as it last said (last good)
        self.devices: list | None = None
        self.step_index = 0           # the step the engine will do next, as it last said
        self.last_record = None
        self.running = False
        self.alive = False
        self._busy = False            # a command is waiting for its answer
        self._last_heard = time.monotonic()   # the last answer (not a heartbeat)
        self._last_beat = time.monotonic()    # the last sign of life of any kind
        self._beating = False         # a beat has come from this engine
        self._said_long = False       # "still working" said for this busy spell
        self.stage = ""               # what the engine last said it was doing
        # the window's settings of the engine, the one copy: sent whole at each change,
        # and to every fresh engine, so that a restart loses none of them
        self.settings = p.EngineSettings()
        self._process = None          # the engine's process (or, in tests, its thread)
        self._conn = None
        self._notifier: QSocketNotifier | None = None
        self._watch = QTimer(self)
        self._watch.timeout.connect(self._check_alive)
        # what the engine may say, and who takes it: one table (protocol.FROM_ENGINE)
        self.handlers: dict[type, Callable[[Any], None]] = {
            p.Hello: self._on_hello, p.Alive: self._on_alive,
            p.ConfigApplied: self._on_config_applied,
            p.ConfigRejected: self._on_config_rejected, p.Notice: self._on_notice,
            p.PhaseDone: self._on_phase_done, p.Failed: self._on_failed,
            p.Running: self._on_running, p.Graph: self._on_graph,
            p.StepsDone: self._on_steps_done, p.Records: self._on_records,
            p.BPinned: self._on_b_pinned, p.Compared: self._on_compared,
        }

    # ---- life ---------------------------------------------------------------------------
    def start(self) -> None:
        """Start an engine with self.config (also after one died)."""
        start = host.start_thread if self.in_process else host.start_process
        self._process, self._conn = start(self.config, self.model_path)
        self.alive = True
        self.building = self.model_path is not None
        self._busy = True             # the first message is awaited like an answer
        self._starting = True
        self._beating = False
        self._said_long = False
        self._last_heard = self._last_beat = self._started_at = time.monotonic()
        self._notifier = QSocketNotifier(self._conn.fileno(), QSocketNotifier.Read, self)
        self._notifier.activated.connect(self._read)
        self._watch.start(WATCH_MS)
        # what the window set before (a fresh engine starts with the defaults) is the
        # new engine's too: all of it, in one message
        self._send(p.Settings(self.settings), busy=False)
        if self.pinned_b is not None:
            self._send(p.PinB(self.pinned_b))

    @property
    def loop(self):
        """The engine's EngineLoop once built: tests only, with an engine on a thread of
        this process."""
        return getattr(self._process, "engine", {}).get("loop")

    @property
    def session(self):
        """The engine's Session: tests only, with an engine on a thread of this process."""
        loop = self.loop
        return None if loop is None else loop.session

    @property
    def stopped(self) -> bool:
        return self._process is None or not self._process.is_alive()

    @property
    def pid(self) -> int | None:
        return getattr(self._process, "pid", None)

    # ---- commands ---------------------------------------------------------------------
    def setConfig(self, config: Config) -> None:
        self._send(p.SetConfig(config))

    def play(self) -> None:
        self._send(p.Play())

    def pause(self) -> None:
        self._send(p.Pause())

    def stepPhase(self) -> None:
        self._send(p.Phase())

    def stepOnce(self) -> None:
        self._send(p.Step())

    def reset(self) -> None:
        if self.alive and self.long_busy and not self.in_process:
            self._stop_engine()   # asked to: a step that has run for long is ended
        if not self.alive:   # the engine died: a fresh one, with the last good settings
            self.notice.emit(f"Starting a fresh training engine with the settings it had "
                             f"({settings_words(self.config)}); Shift+R starts one with "
                             f"the default settings instead.")
            self._stop_engine()
            self.start()
            return
        self._send(p.Reset())

    def openModel(self, path: str | None, config: Config | None = None) -> None:
        """A fresh engine training the model file at path (None: the built-in model),
        with config where given (else the last one); Reset and Shift+R then keep it."""
        if not self.building and (self.model_path is None or self.model_name):
            self._model_before = self.model_path   # the model in use, not one refused
        self._stop_engine()
        self.model_path = path
        if config is not None:
            self.config = config
        self.notice.emit("Starting a fresh training engine on "
                         + ("the built-in model." if path is None else
                            f"the model file {path}."))
        self.start()

    def stopBuilding(self) -> None:
        """End an engine still running a model file's code (its top level or build(),
        which may loop or wait forever: only the user can tell slow from stuck, so no
        clock decides it) and train, in a fresh one, the model from before the file was
        opened: the built-in one, or the model file that trained then."""
        if not self.building or self.model_path is None:
            return
        name = Path(self.model_path).name
        back, self._model_before = self._model_before, None
        if back == self.model_path:
            back = None
        self._stop_engine(at_once=True)
        self.model_path = back
        where = "the built-in model" if back is None else f"the model file {Path(back).name}"
        line = f"Stopped building the model file {name}; training {where} instead."
        # What happened says it once the fresh engine has announced its model (a fresh
        # model clears the panel's current event)
        self._say_when_ready = ev.Event(
            step=0, phase="engine", call="building the model file",
            type="ModelFileStopped", message=line,
            title="Building the model file was stopped",
            explanation=f"The training engine was running {name}'s own code (its top level "
                        "or build()) and you stopped it before it finished. Its process "
                        "was ended; the window and everything it shows are kept.",
            hint="A build() that never returns often waits on input, data or a loop "
                 "with no end; fix it, then open the file again (File → Open model…).")
        self.start()
        self.notice.emit(line)

    def restartWithDefaults(self) -> None:
        """A fresh engine with the default settings: after one that ran out of memory,
        the same settings would only run out again."""
        self._stop_engine()
        self.config = Config()
        self.notice.emit("Starting a fresh training engine with the default settings.")
        self.start()

    @property
    def long_busy(self) -> bool:
        """Working on one command (or loading) for LONG_BUSY_SECONDS and still beating."""
        busy = self._busy or self._starting
        return busy and time.monotonic() - self._last_heard > LONG_BUSY_SECONDS

    def _change_settings(self, **changes) -> None:
        """Change some of the window's engine settings; the engine is sent them all."""
        old, self.settings = self.settings, dataclasses.replace(self.settings, **changes)
        # the engine answers a change of saved tensors with a graph; nothing else is
        # answered, and waiting for an answer that never comes would read as busy
        self._send(p.Settings(self.settings),
                   busy=self.settings.show_saved != old.show_saved)

    def setDelay(self, ms: int) -> None:
        self._change_settings(delay_ms=int(ms))

    def setAnimatePhases(self, on: bool) -> None:
        """Play goes phase by phase (forward, each backward call, ...) at the delay."""
        self._change_settings(animate_phases=bool(on))

    def setStopAt(self, step) -> None:
        """Play pauses by itself once `step` steps are done (None: it never does)."""
        self._change_settings(stop_at=None if step is None else int(step))

    def showSlide(self, config, delay_ms: int, animate_phases: bool, stop_at, play: bool) -> None:
        """A lesson's slide as one message, with the window's settings (its pace, play
        mode and stop in them, kept for a fresh engine after a death)."""
        self.settings = dataclasses.replace(
            self.settings, delay_ms=int(delay_ms), animate_phases=bool(animate_phases),
            stop_at=None if stop_at is None else int(stop_at))
        self._send(p.Slide(config, self.settings, bool(play)))

    def runSteps(self, steps: int) -> None:
        self._send(p.RunSteps(steps))

    def requestGraph(self) -> None:
        self._send(p.RequestGraph(), busy=False)

    def setShowSaved(self, show: bool) -> None:
        self._change_settings(show_saved=bool(show))

    def setTrackNodeGrads(self, on: bool) -> None:
        self._change_settings(track_node_grads=bool(on))

    def pinB(self, config: Config | None) -> None:
        """Train B beside A in lockstep (both from step 0), or (None) stop comparing."""
        self.pinned_b = config
        self._send(p.PinB(config))

    def warmB(self) -> None:
        """Have B's process started now (the Compare menu opened): a pin then need not
        wait for it to load torch."""
        if self.pinned_b is None:
            self._send(p.WarmB(), busy=False)

    def exportTorchviz(self, path: str) -> None:
        self._send(p.ExportTorchviz(path))

    def shutdown(self) -> None:
        """Stop the engine within about a second: ask, wait briefly, then end it."""
        self._watch.stop()
        self._send(p.Shutdown(), busy=False)
        self._stop_engine()

    def _stop_engine(self, at_once: bool = False) -> None:
        """at_once: kill it without waiting for it to stop by itself (a build that
        runs the file's own loop never reads the pipe's end)."""
        self._build_ended()
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = None
        process, self._process = self._process, None
        if self._conn is not None:
            self._conn.close()   # an engine still training sees EOF and stops
            self._conn = None
        self.alive = False
        if process is None:
            return
        if at_once and hasattr(process, "kill"):
            process.kill()
            process.join(1.0)   # SIGKILL cannot be caught: it ends within the kernel's next turn
        else:
            process.join(JOIN_SECONDS)
        if process.is_alive() and hasattr(process, "terminate"):
            process.terminate()
            process.join(0.3)
            if process.is_alive():
                process.kill()
                process.join(0.2)
        self._process = process if process.is_alive() else None
        if hasattr(process, "close") and not process.is_alive():
            process.close()

    def _send(self, message: object, busy: bool = True) -> None:
        if not self.alive or self._conn is None:
            # settings are kept for the next engine; the rest needs one now
            if not isinstance(message, QUIET_WHEN_STOPPED):
                self.notice.emit("The training engine has stopped: press Reset (R) to "
                                 "start a fresh one.")
            return
        try:
            self._conn.send(message)
        except (OSError, ValueError):   # the engine is gone: the read side reports it
            return
        if busy and not self._busy:
            self._busy = True
            self._last_heard = time.monotonic()

    # ---- what the engine says ---------------------------------------------------------------
    def _read(self, *_) -> None:
        deadline = time.perf_counter() + READ_BUDGET_S
        conn = self._conn
        try:
            while conn is not None and conn is self._conn and conn.poll(0):
                batch = p.receive(conn, "the window")
                self._last_beat = time.monotonic()
                self._beating = True
                if not isinstance(batch, list):   # the engine sends lists, one a batch
                    if batch is not None:
                        p.refusal("the window", batch, ())
                    continue
                if len(batch) == 1 and isinstance(batch[0], p.Alive):
                    self._on_alive(batch[0])   # a beat answers no command
                    continue
                self._last_heard = self._last_beat
                self._busy = False
                self._said_long = False
                for message in batch:
                    p.dispatch("the window", self.handlers, message)
                if time.perf_counter() > deadline:
                    break   # the notifier fires again for the rest, after a paint
        except (EOFError, OSError):
            self._died()

    def _on_records(self, message: p.Records) -> None:
        records, self.steps_per_second = message.records, message.steps_per_second
        for record in records:
            self.records.append((self.generation, record))
        if records:
            self.last_record = records[-1]
            self.step_index = records[-1].step + 1

    def _on_compared(self, message: p.Compared) -> None:
        for record in message.records:
            self.compared.append((self.generation, record))

    def _on_b_pinned(self, message: p.BPinned) -> None:
        if message.config is None:
            self.pinned_b = None     # refused or stopped: a fresh engine pins nothing
        self.bPinned.emit(message.config, message.problem)

    def _on_hello(self, message: p.Hello) -> None:
        self._starting = False
        self.devices = message.devices
        self.engineReady.emit(message.devices)

    def _build_ended(self) -> None:
        if self.building:
            self.building = False
            self.modelBuildEnded.emit()

    def _on_config_applied(self, message: p.ConfigApplied) -> None:
        self._build_ended()   # built, or refused (then What happened says why)
        self.config = message.config
        self.head_names = list(message.head_names) or message.config.head_names()
        self.model_name = message.model
        self.model_taps = None if message.taps is None else tuple(message.taps)
        if not message.model:   # the file was not used (What happened says why)
            self.model_path = None
        if message.did_reset:
            self.generation += 1
            self.records.clear()
            self.compared.clear()
            self.step_index, self.last_record = 0, None
        self.configApplied.emit(message.config, message.did_reset, message.param_names,
                                self.generation)
        event, self._say_when_ready = self._say_when_ready, None
        if event is not None:
            self.failed.emit(event)

    def _on_config_rejected(self, message: p.ConfigRejected) -> None:
        self.configRejected.emit(message.reason)

    def _on_notice(self, message: p.Notice) -> None:
        self.notice.emit(message.text)

    def _on_phase_done(self, message: p.PhaseDone) -> None:
        phase = message.phase
        self.step_index = phase.step + (1 if phase.step_done else 0)
        self.phaseDone.emit(phase)

    def _on_failed(self, message: p.Failed) -> None:
        self.failed.emit(message.event)

    def _on_running(self, message: p.Running) -> None:
        self.running = message.running
        self.runningChanged.emit(message.running)

    def _on_graph(self, message: p.Graph) -> None:
        self.graphReady.emit(message.graph, message.when)

    def _on_steps_done(self, message: p.StepsDone) -> None:
        self.step_index = message.step
        self.stepsDone.emit(message.step)

    def _on_alive(self, message: p.Alive) -> None:
        stage = self.stage = message.stage
        if self.building and stage.startswith(BUILDING_MODEL_FILE):
            self.modelBuilding.emit(f"Building the model file "
                                    f"{stage[len(BUILDING_MODEL_FILE):].strip()}… "
                                    f"{message.seconds:.0f} s (Stop building ends it)")
        elif self._starting:
            self.loading.emit(f"Starting the training engine: {stage} "
                              f"({time.monotonic() - self._started_at:.0f} s)…")

    def _check_alive(self) -> None:
        """The engine died without a word (EOF may come first; this catches the rest),
        or stopped making progress: no beat for SILENT_SECONDS. Slow is not stopped:
        a start or a step that takes long, beating all the while, is waited for."""
        if not self.alive:
            return
        if self._process is not None and not self._process.is_alive():
            self._read()          # what it said before it died, then the EOF
            if self.alive:
                self._died()
            return
        now = time.monotonic()
        if self._starting and not self._beating:   # the interpreter itself is starting
            self.loading.emit(f"Starting the training engine: starting Python "
                              f"({now - self._started_at:.0f} s)…")
            return
        if now - self._last_beat > SILENT_SECONDS and not self.in_process:
            self._last_beat = last_sign_of_life(self._process, self._last_beat)
        if now - self._last_beat > SILENT_SECONDS and not self.in_process:
            self._process.kill()   # frozen: end it, keep the window
            self._process.join(1.0)
            self._died(hung=True)
        elif self.long_busy and not self._said_long and not self._starting:
            self._said_long = True
            self.notice.emit(f"The training engine has worked on this for "
                             f"{now - self._last_heard:.0f} s and is still going: press "
                             f"Reset (R) to stop it.")

    def _died(self, hung: bool = False) -> None:
        if not self.alive:
            return
        process = self._process
        exitcode = None
        if process is not None and hasattr(process, "exitcode"):
            process.join(0.5)
            exitcode = process.exitcode
        how = (f"showed no sign of life for {SILENT_SECONDS:.0f} s and was stopped" if hung
               else f"stopped ({host.exit_words(exitcode)})")
        self._stop_engine()
        was_running, self.running = self.running, False
        if was_running:
            self.runningChanged.emit(False)
        line = f"The training engine {how}."
        killed = exitcode == -9   # what Linux's out-of-memory killer sends
        self.failed.emit(ev.Event(
            step=self.step_index, phase="engine", call="the training engine",
            type="EngineStopped", message=line, title="The training engine stopped",
            explanation="The process that trains the model ended (a crash inside PyTorch, "
                        "running out of memory, or a kill from outside) or stopped "
                        "answering. The window and everything it shows are kept."
                        + (" A kill like this one is what the system does to a process "
                           "that runs out of memory." if killed else ""),
            hint=f"Press Reset (R) to start a fresh one with the same settings "
                 f"({settings_words(self.config)}), or Shift+R with the default "
                 f"settings" + (" (the same settings may run out of memory again)."
                                if killed else ".")))
        self.engineStopped.emit(line)
