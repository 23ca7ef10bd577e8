"""The window's side of the engine, as a typed adapter of the window's model: it writes
what the engine reports into the model (confirmed config, running, generation, heads,
devices...), observes the model for what to send (settings asked for, pace, B), and
sends only what differs from what it last sent. Events that are not state (a phase done,
a failure, a graph) go out as the protocol's record itself, through `received`.

The pipe is read when Qt says it is readable (a QSocketNotifier), for a bounded time
per call, so a flood of messages never stalls painting; each message is a record of
engine.protocol, answered through one table (`handlers`); step records go into `records`,
which the window drains at its paint rate. The engine dying (EOF on the pipe) or not
answering while it should is reported as a p.Failed; reset() then starts a fresh one.
When it is slow and when stopped is plain.window.engine_watch's to decide; this adapter feeds it
and does what it decides."""
from __future__ import annotations

import collections
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSocketNotifier, QTimer, Signal

from ..engine import host
from ..engine import protocol as p
from ..plain.config.config import Config
from ..plain.records.engine_settings import EngineSettings
from ..plain.records.engine_stages import BUILDING_MODEL_FILE
from ..plain.records.records import CompareRecord, StepRecord
from ..plain.window.engine_sync import Outgoing, Sent, mark_sent, outgoing
from ..plain.window.engine_watch import Ended, EndUnanswered, EngineWatch, Say, Silent
from ..plain.window.window_model import WindowModel
from .engine_end import end_process
from .engine_ending import EndingEngines
from .engine_words import build_stopped, engine_died, settings_words
from .standby_engine import StandbyEngine

READ_BUDGET_S = 0.008     # the longest one look at the pipe may take (the rest waits)
WATCH_MS = 500            # how often the watch (plain.window.engine_watch) looks at the engine
# sent while no engine runs: kept (settings) or moot, so no "press Reset" for them
QUIET_WHEN_STOPPED = (p.Shutdown, p.Settings, p.RequestGraph, p.WarmB, p.Slide, p.PinB,
                      p.WarmNext)
# the model's fields the engine is told of (the engine settings, the config, B)
SENT_FIELDS = ("requested", "pace_ms", "play_mode", "sweep_box_ms", "stop_at",
               "show_saved", "track_node_grads", "b_requested")
__all__ = ["EngineClient", "settings_words"]


class EngineClient(QObject):
    # a record that is not state (Hello, ConfigApplied, ConfigRejected, Notice,
    # PhaseDone, Failed, Graph, StepsDone, BPinned), after the model holds what it says;
    # and the window's own Notice and Failed (the engine starting, dead, hung, its
    # build stopped)
    received = Signal(object)

    def __init__(self, model: WindowModel, in_process: bool = False,
                 parent: QObject | None = None, model_path: str | None = None):
        """model_path: a model file every engine this client starts trains (its path,
        sent as plain data; the file runs in the engine's process, never in this one)."""
        super().__init__(parent)
        self.model = model
        self.in_process = in_process
        self._path = model.model_path = model_path   # the file the next engine starts on
        self._start_config: Config | None = None   # open_model's config for the next one
        self._building = False        # it runs the model file's code, not answered yet
        # what trained before open_model: where Stop building goes back to (None: built-in)
        self._model_before: str | None = None
        self._say_when_ready: p.Failed | None = None   # for What happened, after a restart
        # (generation, StepRecord), drained by the GUI; the generation goes up with every
        # fresh model, so records of a model already replaced are told apart and dropped
        self.records: collections.deque[tuple[int, StepRecord]] = collections.deque()
        # (generation, CompareRecord) of a pinned B, drained by the GUI like records
        self.compared: collections.deque[tuple[int, CompareRecord]] = collections.deque()
        # the lesson slides sent to this engine: a ConfigApplied whose `slide` is this
        # answers the last one (its fresh model is in; what follows is the slide's)
        self.slides_sent = 0
        self.alive = False
        self._sent = Sent()           # what this engine was last sent of the model
        # a lesson's next slide on another model: its engine, started ahead (open_model
        # takes it), and the WarmNext messages this engine was sent (Warmed counts them)
        self._standby: StandbyEngine | None = None
        self._warms = self._warmed = 0
        self._ending = EndingEngines(self)   # engines replaced by a standby, ending
        self._said: list = []   # what the standby taken said before it was taken
        # slow or stopped, and what Reset does: its decisions (tests shorten its limits)
        self.watch = EngineWatch(own_process=not in_process)
        self._process: Any = None     # the engine's process (or, in tests, its thread)
        self._conn: Any = None
        self._notifier: QSocketNotifier | None = None
        self._watch = QTimer(self)
        self._watch.timeout.connect(self._check_alive)
        # the model's changes go out once the writer is done (all of a slide's fields,
        # say): at the next turn of the event loop, or before the next command
        self._sync_timer = QTimer(self)
        self._sync_timer.setSingleShot(True)
        self._sync_timer.setInterval(0)
        self._sync_timer.timeout.connect(self.sync)
        for name in SENT_FIELDS:
            getattr(model.events, name).connect(self._model_changed)
        # what the engine may say, and who takes it: one table (protocol.FROM_ENGINE)
        self.handlers: dict[type, Callable[[Any], None]] = {
            p.Hello: self._on_hello, p.Alive: self._on_alive,
            p.ConfigApplied: self._on_config_applied,
            p.ConfigRejected: self.received.emit, p.Notice: self.received.emit,
            p.PhaseDone: self._on_phase_done, p.Failed: self.received.emit,
            p.Running: self._on_running, p.Graph: self.received.emit,
            p.StepsDone: self._on_steps_done, p.Records: self._on_records,
            p.BPinned: self._on_b_pinned, p.Compared: self._on_compared,
            p.Warmed: self._on_warmed,
        }

    # ---- life ---------------------------------------------------------------------------
    def start(self, standby: StandbyEngine | None = None) -> None:
        """Start an engine with the last config the engine confirmed (or open_model's),
        also after one died; it is then sent what the model asks beyond that. standby:
        an engine started ahead on that model and config, taken instead (what it said
        meanwhile is read first)."""
        start = host.start_thread if self.in_process else host.start_process
        config = self._start_config or self.model.confirmed
        self._start_config = None
        said: list = []
        if standby is not None:
            config = standby.config
            self._process, self._conn, said = standby.take()
        else:
            self._process, self._conn = start(config, self._path)
        self._warms = self._warmed = 0
        self.alive = True
        self._building = self._path is not None
        self.model.engine_stage = ""
        self.watch.started()
        self._set_state()   # "starting" from now: a slide's cover says so at once
        self._notifier = QSocketNotifier(self._conn.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._read)
        self._watch.start(WATCH_MS)
        # what the window set before (a fresh engine starts with the defaults) is the
        # new engine's too: all of it, in one message
        self._sent = Sent(config=config)
        self.slides_sent = 0
        # what a standby said while it waited: read first, with what it says next (its
        # answer to the slide, a beat: soon), not now, so that PageDown's repaint of the
        # slide's heading does not wait for it (at a load of 9 on 2 cores it took the
        # repaint from 160 ms to 400-800). It has started: its Hello is in.
        self._said = said
        if any(isinstance(m, p.Hello) for batch in said for m in batch):
            self.watch.hello()
            self._set_state()
        self._next_ready()
        self.sync()

    def _set_state(self) -> None:
        """The engine's life in the model: building once it says it runs the file."""
        m = self.model
        building = self._building and m.engine_stage.startswith(BUILDING_MODEL_FILE)
        m.engine_state = ("stopped" if not self.alive else "building" if building
                          else "starting" if self.watch.starting else "ready")

    @property
    def loop(self) -> Any:
        """The engine's EngineLoop once built: tests only, with an engine on a thread of
        this process."""
        return getattr(self._process, "engine", {}).get("loop")

    @property
    def session(self) -> Any:
        """The engine's Session: tests only, with an engine on a thread of this process."""
        loop = self.loop
        return None if loop is None else loop.session

    @property
    def stopped(self) -> bool:
        return self._process is None or not self._process.is_alive()

    @property
    def pid(self) -> int | None:
        return getattr(self._process, "pid", None)

    @property
    def prepared_pid(self) -> int | None:
        """The process of the engine started ahead for a lesson's next slide (None: none,
        or one on a thread)."""
        standby = self._standby
        return None if standby is None else getattr(standby.process, "pid", None)

    @property
    def sent_settings(self) -> EngineSettings | None:
        """The engine settings this engine was last sent (None: none yet)."""
        return self._sent.settings

    # ---- the model's state, sent where it differs ---------------------------------------
    def _model_changed(self) -> None:
        self._sync_timer.start()

    def sync(self) -> None:
        """Send what the model asks for that this engine was not sent last."""
        self._sync_timer.stop()
        out = outgoing(self.model, self._sent)
        if out.empty or not self.alive:
            return   # (kept for the next engine: it is sent them when it starts)
        self._send_state(out)
        mark_sent(self._sent, out)

    def _send_state(self, out: Outgoing) -> None:
        if out.settings is not None:
            # nothing else is answered, and waiting for an answer that never comes
            # would read as busy
            self._send(p.Settings(out.settings), busy=out.answered)
        if out.config is not None:
            self._send(p.SetConfig(out.config))
        if out.pin_b:
            self._send(p.PinB(out.b))

    # ---- commands ---------------------------------------------------------------------
    def _command(self, message: object, busy: bool = True) -> None:
        """A command, after what the model asked for before it (in that order)."""
        self.sync()
        self._send(message, busy)

    def play(self) -> None:
        self._command(p.Play())

    def pause(self) -> None:
        self._command(p.Pause())

    def step_phase(self) -> None:
        self._command(p.Phase())

    def step_once(self) -> None:
        self._command(p.Step())

    def run_steps(self, steps: int) -> None:
        self._command(p.RunSteps(steps))

    def request_graph(self) -> None:
        self._command(p.RequestGraph(), busy=False)

    def export_torchviz(self, path: str) -> None:
        self._command(p.ExportTorchviz(path))

    def warm_b(self) -> None:
        """Have B's process started now (the Compare menu opened): a pin then need not
        wait for it to load torch."""
        if self.model.b_requested is None:
            self._command(p.WarmB(), busy=False)

    # ---- a lesson's next slide, prepared while the slide on screen plays ------------------
    def prepare_engine(self, path: str | None, config: Config) -> None:
        """The next slide trains another model (path: its model file; None: the built-in
        one): an engine on it started and built now, which open_model then takes."""
        if self._standby is not None and self._standby.serves(path, config):
            return
        self.drop_prepared()
        self._standby = StandbyEngine(path, config, self.in_process, self)
        self._standby.built.connect(self._next_ready)
        self._next_ready()

    def drop_prepared(self) -> None:
        """No engine started ahead is wanted (no next slide, or it trains this model)."""
        standby, self._standby = self._standby, None
        if standby is not None:
            standby.end()
        self._next_ready()

    def warm_next(self, config: Config | None) -> None:
        """The next slide trains this engine's model: what it needs that is slow to start
        (its ranks, the meta kernel) started by this engine now (None: nothing, and what
        it started ahead ends)."""
        self._command(p.WarmNext(config), busy=False)
        if self.alive:
            self._warms += 1
            if config is None:
                self._warmed = self._warms   # nothing to wait for
        self._next_ready()

    def _on_warmed(self, message: p.Warmed) -> None:
        self._warmed = max(self._warmed, message.warms)
        self._next_ready()

    def _next_ready(self) -> None:
        standby = self._standby
        self.model.next_slide_ready = (standby is None or standby.ready or standby.gone) \
            and self._warmed >= self._warms

    def _take_standby(self, path: str | None, config: Config | None) -> StandbyEngine | None:
        """The engine started ahead, where it trains path on config (None: on any) and
        lives; any other is ended."""
        standby, self._standby = self._standby, None
        if standby is not None and standby.serves(path, config or standby.config):
            return standby
        if standby is not None:
            standby.end()
        return None

    def show_slide(self, config: Config, settings: EngineSettings, play: bool) -> None:
        """A lesson's slide as one message: a fresh model on config, with these engine
        settings (kept for a fresh engine after a death), playing or not. They count as
        sent: the lesson then writes them into the model and nothing more goes out."""
        self._slide(p.Slide(config, settings, bool(play)))

    def train_again(self, config: Config, settings: EngineSettings, steps: int) -> None:
        """A fresh model on config with `steps` steps trained at full speed, then these
        settings, paused: the run from before a lesson, given back (one message, as a
        slide is)."""
        self._slide(p.Slide(config, settings, False, max(0, int(steps))))

    def _slide(self, message: p.Slide) -> None:
        self.sync()
        self._send(message)
        if self.alive:
            self.slides_sent += 1
            self._sent.config, self._sent.settings = message.config, message.settings

    def reset(self) -> None:
        """Step 0 of the same model; after the engine died, or while it has worked on
        one thing for LONG_BUSY_SECONDS, a fresh engine (the old one ended). One Reset
        always does it: one the engine does not answer (a step that never ends, a frozen
        engine) ends the engine once its work has run that long (the watch's check)."""
        if self.alive and self.watch.reset_ends():
            # asked to: a step that has run for long is ended
            self._end_unanswered(self.watch.busy_seconds)
            return
        if not self.alive:   # the engine died: a fresh one, with the last good settings
            self._start_fresh("Starting a fresh training engine")
            return
        self._command(p.Reset())
        self.watch.reset_sent(self._building)

    def _start_fresh(self, lead: str) -> None:
        """A fresh engine with the settings the last one had, saying so after `lead`."""
        self._say(f"{lead} with the settings it had "
                  f"({settings_words(self.model.confirmed)}); Shift+R starts one with "
                  f"the default settings instead.")
        self._stop_engine()
        self.start()

    def _end_unanswered(self, seconds: float) -> None:
        """Reset, for an engine that has not answered for `seconds`, too long to wait
        for: it ends at once (a step that never returns never reads the pipe), and a
        fresh one starts."""
        self._stop_engine(at_once=True)
        self.model.running = False   # the fresh engine starts paused
        self._start_fresh(f"Reset ended the training engine, which had not answered for "
                          f"{seconds:.0f} s; starting a fresh one")

    def open_model(self, path: str | None, config: Config | None = None) -> None:
        """A fresh engine training the model file at path (None: the built-in model),
        with config where given (else the last one); Reset and Shift+R then keep it."""
        if not self._building and (self._path is None or self.model.model_name):
            self._model_before = self._path   # the model in use, not one refused
        standby = self._take_standby(path, config)
        # taking a standby, PageDown does not wait for the engine it replaces to end
        self._stop_engine(later=standby is not None)
        self._path = self.model.model_path = path
        self._start_config = config
        model = "the built-in model" if path is None else f"the model file {path}"
        self._say(f"Training {model} in the engine started ahead for this slide."
                  if standby is not None else f"Starting a fresh training engine on {model}.")
        self.start(standby)

    def stop_building(self) -> None:
        """End an engine still running a model file's code (its top level or build(),
        which may loop or wait forever: only the user can tell slow from stuck, so no
        clock decides it) and train, in a fresh one, the model from before the file was
        opened: the built-in one, or the model file that trained then."""
        if not self._building or self._path is None:
            return
        name = Path(self._path).name
        back, self._model_before = self._model_before, None
        if back == self._path:
            back = None
        self._stop_engine(at_once=True)
        self._path = self.model.model_path = back
        where = "the built-in model" if back is None else f"the model file {Path(back).name}"
        line = f"Stopped building the model file {name}; training {where} instead."
        # What happened says it once the fresh engine has announced its model (a fresh
        # model clears the panel's current event)
        self._say_when_ready = p.Failed(build_stopped(name, line))
        self.start()
        self._say(line)

    def restart_with_defaults(self) -> None:
        """A fresh engine with the default settings: after one that ran out of memory,
        the same settings would only run out again. (Whoever asks writes the defaults
        into the model's requested first: else the fresh engine is sent those.)"""
        self._stop_engine()
        self._start_config = Config()
        self._say("Starting a fresh training engine with the default settings.")
        self.start()

    def shutdown(self) -> None:
        """Stop the engine within about a second: ask, wait briefly, then end it."""
        self._watch.stop()
        self._sync_timer.stop()
        self.drop_prepared()
        self._send(p.Shutdown(), busy=False)
        self._stop_engine()
        self._ending.finish()

    def _say(self, line: str) -> None:
        self.received.emit(p.Notice(line))

    def _stop_engine(self, at_once: bool = False, later: bool = False) -> None:
        """at_once: kill it without waiting for it to stop by itself (a build that
        runs the file's own loop never reads the pipe's end). later: not waited for
        (engine_ending)."""
        self._building = False
        self._said = []
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = None
        process, self._process = self._process, None
        if self._conn is not None:
            self._conn.close()   # an engine still training sees EOF and stops
            self._conn = None
        self.alive = False
        self._set_state()
        if process is not None and later:
            self._ending.add(process)
        elif process is not None:
            self._process = end_process(process, at_once)

    def _send(self, message: object, busy: bool = True) -> None:
        if not self.alive or self._conn is None:
            # settings are kept for the next engine; the rest needs one now
            if not isinstance(message, QUIET_WHEN_STOPPED):
                self._say("The training engine has stopped: press Reset (R) to "
                          "start a fresh one.")
            return
        try:
            self._conn.send(message)
        except (OSError, ValueError):   # the engine is gone: the read side reports it
            return
        self.watch.sent(busy)

    # ---- what the engine says ---------------------------------------------------------------
    def _read(self, *_: object) -> None:
        deadline = time.perf_counter() + READ_BUDGET_S
        conn = self._conn
        while self._said and conn is not None:   # a standby's, before what came since
            self.watch.heard()
            self._take(self._said.pop(0))
        try:
            while conn is not None and conn is self._conn and conn.poll(0):
                batch = p.receive(conn, "the window")
                self.watch.heard()
                self._take(batch)
                if time.perf_counter() > deadline:
                    break   # the notifier fires again for the rest, after a paint
        except (EOFError, OSError):
            self._died()

    def _take(self, batch: object) -> None:
        """One batch the engine sent, through the handlers."""
        if not isinstance(batch, list):   # the engine sends lists, one a batch
            if batch is not None:
                p.refusal("the window", batch, ())
            return
        if len(batch) == 1 and isinstance(batch[0], p.Alive):
            self._on_alive(batch[0])   # a beat answers no command
            return
        self.watch.answered()   # an answer: the work it was at has ended
        for message in batch:
            p.dispatch("the window", self.handlers, message)

    def _on_records(self, message: p.Records) -> None:
        generation = self.model.generation
        for record in message.records:
            self.records.append((generation, record))
        if message.records:
            self.model.step = message.records[-1].step + 1
        self.model.steps_per_second = message.steps_per_second

    def _on_compared(self, message: p.Compared) -> None:
        generation = self.model.generation
        for record in message.records:
            self.compared.append((generation, record))

    def _on_b_pinned(self, message: p.BPinned) -> None:
        if message.config is None:
            # refused or stopped: the engine pins nothing now (a fresh one neither)
            self._sent.b = None
        self.model.pinned_b = message.config
        self.received.emit(message)

    def _on_hello(self, message: p.Hello) -> None:
        self.watch.hello()
        self._set_state()
        self.model.devices = tuple((str(d), str(words)) for d, words in message.devices)
        self.received.emit(message)

    def _on_config_applied(self, message: p.ConfigApplied) -> None:
        # a change asked for and not sent yet goes first: adopting what the engine has
        # in force must not take it back before the engine heard of it
        self.sync()
        m, config = self.model, message.config
        self._building = False   # built, or refused (then What happened says why)
        self._set_state()
        self._sent.config = config   # in force: the engine has it
        if not message.model:   # the file was not used (What happened says why)
            self._path = m.model_path = None
        m.head_names = tuple(message.head_names) or tuple(config.head_names())
        m.param_names = tuple(message.param_names)
        m.model_name = message.model
        m.model_taps = None if message.taps is None else tuple(message.taps)
        m.confirmed = config
        # the settings show what the engine put in force (a model file's heads, say),
        # and a change made next is made to it: it is what they ask for from here on
        m.requested = config
        if message.did_reset:
            # Reset's answer (records already on their way when it was sent are none)
            self.watch.reset_answered()
            self.records.clear()
            self.compared.clear()
            self.model.step = 0
            m.generation += 1
        self.received.emit(message)
        failed, self._say_when_ready = self._say_when_ready, None
        if failed is not None:
            self.received.emit(failed)

    def _on_phase_done(self, message: p.PhaseDone) -> None:
        phase = message.phase
        self.model.step = phase.step + (1 if phase.step_done else 0)
        self.received.emit(message)

    def _on_running(self, message: p.Running) -> None:
        self.model.running = message.running

    def _on_steps_done(self, message: p.StepsDone) -> None:
        self.model.step = message.step
        self.received.emit(message)

    def _on_alive(self, message: p.Alive) -> None:
        self.model.engine_stage = message.stage
        line = self.watch.beat(message.stage, message.seconds, self._building)
        self._set_state()
        if line is not None:
            self._say(line)

    def _check_alive(self) -> None:
        """Ask the watch (its timer's tick) and do what it decides."""
        if not self.alive or self._process is None:
            return
        verdict = self.watch.check(self._process)
        if isinstance(verdict, Ended):
            self._read()          # what it said before it died, then the EOF
            if self.alive:
                self._died()
        elif isinstance(verdict, Silent):
            self._process.kill()   # frozen: end it, keep the window
            self._process.join(1.0)
            self._died(hung=True)
        elif isinstance(verdict, EndUnanswered):
            self._end_unanswered(verdict.seconds)
        elif isinstance(verdict, Say):
            self._say(verdict.line)

    def _died(self, hung: bool = False) -> None:
        if not self.alive:
            return
        process = self._process
        exitcode = None
        if process is not None and hasattr(process, "exitcode"):
            process.join(0.5)
            exitcode = process.exitcode
        reset_asked = self.watch.reset_asked
        self._stop_engine()
        self.model.running = False
        self.received.emit(p.Failed(engine_died(self.model.step, exitcode, hung,
                                                self.watch.silent_s, self.model.confirmed)))
        if reset_asked:   # a Reset it never answered: the fresh engine it asked for
            self._start_fresh("Starting a fresh training engine, as Reset asked,")
