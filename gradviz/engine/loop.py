"""The engine's main loop: owns the Session (and so every tensor), answers each command
of the window through one dispatch table, and collects what happened in one outbox,
sent as plain data once per batch. What trains next and when is the player's
(engine.player), how the session trains is engine.training's, and a pinned B's life is
engine.pinning's."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.model_file import check_taps
from ..plain.config.config import Config, ConfigError
from ..plain.config.model_keys import fit_config
from ..plain.records import events as ev
from ..plain.records.engine_stages import BUILDING_MODEL
from . import protocol as p
from .model_start import first_session
from .next_slide import NextSlide
from .outbox import Outbox
from .pinning import Pinning
from .player import Player
from .slide_start import start_slide
from .torchviz_export import export_torchviz
from .training import Training

B_WAIT_SECONDS = 0.005  # A waits for B: how soon to look for B's replies again


class EngineLoop:
    """The session and what the window asked of it; `outbox` collects the messages
    of one batch."""

    def __init__(self, config: Config, b_in_own_process: bool = False,
                 model_path: str | None = None):
        """b_in_own_process: a pinned B trains in a process of its own (the app's
        engine), else in this one (tests, where one process is simpler). model_path: a
        model file to train (loaded here, in the engine's process), None: the built-in
        model."""
        self.player = Player()
        self.pinning = Pinning(b_in_own_process)
        self.outbox = Outbox(rate=lambda: self.player.steps_per_second,
                             compared=self.pinning.take)
        self.stopped = False
        # the lesson slides taken so far: every ConfigApplied says it, so the window tells
        # the slide's fresh model (and what follows it) from an earlier command's answers
        self.slides = 0
        # what the lesson's next slide needs that is slow to start, started ahead
        self.next_slide = NextSlide()
        # tells the engine's heartbeat what it is doing (engine_main sets it; no-op here)
        self.say_stage: Callable[[str], None] = lambda stage: None
        self.session, self.model_file, problem, failure = first_session(config, model_path)
        self.training = Training(self.session, self.player, self.outbox, self.pinning)
        self._apply(self.player.settings)
        self._announce_config(True)
        if problem:   # after the announcement, which would otherwise overwrite it
            self.send(p.ConfigRejected(problem))
        if failure is not None:   # the model file's own words, in What happened
            self.send(p.ConfigRejected(failure.message.splitlines()[0]))
            self.send(p.Failed(failure))
        # every command the window may send, and who answers it: one table (a command
        # with no entry here is refused in one log line, see protocol.dispatch)
        self.handlers: dict[type, Callable[[Any], None]] = {
            p.SetConfig: self._on_set_config, p.Settings: self._on_settings,
            p.Play: self._on_play, p.Pause: self._on_pause, p.Phase: self._on_phase,
            p.Step: self._on_step, p.Reset: self._on_reset, p.RunSteps: self._on_run_steps,
            p.RequestGraph: self._on_request_graph,
            p.ExportTorchviz: self._on_export_torchviz, p.Shutdown: self._on_shutdown,
            p.PinB: self._on_pin_b, p.WarmB: self._on_warm_b, p.Slide: self._on_slide,
            p.WarmNext: self._on_warm_next,
        }

    # ---- the outbox -----------------------------------------------------------------
    def send(self, message: object) -> None:
        self.outbox.send(message)

    def take_outbox(self) -> list[object]:
        return self.outbox.take()

    def _announce_config(self, did_reset: bool) -> None:
        """The config in force, or the one waiting for the step in progress to end (so
        the controls never snap back to the old one)."""
        s = self.session
        config = s.pending_config or s.config
        names = list(s.spec.names) if s.spec is not None else config.head_names()
        model = "" if self.model_file is None else self.model_file.path.name
        taps = None if self.model_file is None or self.model_file.taps is None \
            else list(self.model_file.taps)
        self.send(p.ConfigApplied(config, did_reset, list(s.param_names), names, model, taps,
                                  self.slides))
        if did_reset:   # a fresh A: B starts again beside it
            self.pinning.reset()

    def _fit(self, config: Config) -> Config:
        """A config from the window, fitted to the model file (its heads; the built-in
        model's keys at their defaults); as it is for the built-in model."""
        if self.model_file is None:
            return config
        fitted = fit_config(config, self.model_file.head_count())
        check_taps(fitted, self.model_file.taps)   # ConfigError: refused in one line
        return fitted

    # ---- commands -----------------------------------------------------------------
    def handle(self, message: object) -> None:
        """Answer one command from the window (anything else: one log line)."""
        p.dispatch("the engine", self.handlers, message)

    def _refused(self, apply) -> tuple[bool, bool]:
        """(refused, did_reset) of a config change: refused in one line where the config
        is unusable or its model cannot be built (the old one is rebuilt and announced)."""
        try:
            return False, bool(apply())
        except ConfigError as exc:
            self.send(p.ConfigRejected(str(exc)))
        except (RuntimeError, MemoryError) as exc:   # e.g. a model too big to allocate
            self._announce_config(True)              # the session rebuilt the old one
            self.send(p.ConfigRejected(f"cannot build that model: {ev.first_line(exc)}"))
        return True, False

    def _on_set_config(self, message: p.SetConfig) -> None:
        refused, did_reset = self._refused(
            lambda: self.session.set_config(self._fit(message.config)))
        if refused:
            return
        self._announce_config(did_reset)
        if did_reset or not self.session.in_step:
            self.training.send_graph("after the change")

    def _on_settings(self, message: p.Settings) -> None:
        show_saved = self.player.settings.show_saved
        self._apply(message.settings, changed=True)
        if self.player.settings.show_saved != show_saved:
            self.training.send_graph("live")

    def _apply(self, settings: p.EngineSettings, changed: bool = False) -> None:
        """The window's settings, all at once (a fresh engine is sent them too);
        changed: while running (a faster pace then cuts the pause begun)."""
        if changed:
            self.player.change(settings)
        else:
            self.player.apply(settings)
        # the gradient through every graph node costs hooks: only while a graph is shown
        self.session.track_node_grads = settings.track_node_grads
        self.training.sample()

    def _on_play(self, _: p.Play | None = None) -> None:
        s = self.session
        if s.error is not None:
            s.set_config(s.config)  # acknowledge the error, go on
        self.player.play(s.step_index, s.in_step)
        self.training.set_running(True)

    def _on_pause(self, _: p.Pause) -> None:
        self.training.set_running(False)
        self.training.measured_pause()

    def _on_phase(self, _: p.Phase) -> None:
        self.training.halt()
        self.training.one_phase()

    def _on_step(self, _: p.Step) -> None:
        self.training.halt()
        self.training.one_step()

    def _on_slide(self, message: p.Slide) -> None:
        """A lesson's slide as one message: its config on a fresh model at step 0 (built
        once), the window's settings with its pace, play mode and stop, one graph, then
        Play if it autoplays. Sent as five commands, a slide built a model twice and
        sent three graphs."""
        self.training.halt()
        self.slides += 1
        self.say_stage(BUILDING_MODEL)   # the window's stage says so until it answers
        if self._refused(lambda: self.session.start_over(self._fit(message.config)))[0]:
            return
        start_slide(self.session, self.next_slide, self.say_stage)
        self.outbox.forget_records()
        self._apply(message.settings)
        self._announce_config(True)
        self.training.send_graph("after reset")
        if message.steps > 0:
            self._on_run_steps(p.RunSteps(message.steps))
        elif message.play:
            self._on_play()

    def _on_warm_next(self, message: p.WarmNext) -> None:
        """The lesson's next slide: what it needs that is slow to start, started now
        (never waited for here); Warmed says when it is ready."""
        self.next_slide.warm(message.config, self.session.config)

    def say_when_warm(self) -> None:
        """Warmed, once what WarmNext started is ready."""
        if self.next_slide.pending and self.next_slide.ready:
            self.next_slide.pending = False
            self.send(p.Warmed(self.next_slide.warms))

    def _on_reset(self, _: p.Reset | None = None) -> None:
        self.training.halt()
        self.training.guarded(self.session.reset)
        self.outbox.forget_records()
        self._announce_config(True)
        self.training.send_graph("after reset")

    def _on_run_steps(self, message: p.RunSteps) -> None:
        """Train `steps` steps as fast as possible, then say StepsDone (no Running
        message: the window's Play stays as it is)."""
        self.player.run_steps(message.steps)
        self.training.sample()    # every step measured: these runs make pictures

    def _on_pin_b(self, message: p.PinB) -> None:
        """Train B beside A in lockstep from step 0 (both reset: the same seed, data and
        initial weights), or (None) stop comparing."""
        if message.config is None:
            self.pinning.unpin()
            self.send(p.BPinned(None, None))
            return
        try:
            pinned = self.pinning.pin(self.session, self._fit(message.config))
        except ConfigError as exc:
            self.send(p.BPinned(None, str(exc)))
            return
        self.send(p.BPinned(pinned.config, None))
        self._on_reset()   # builds B too (see _announce_config)

    def _on_warm_b(self, _: p.WarmB) -> None:
        self.pinning.warm()

    def end_b(self) -> None:
        """B's process, pinned or started ahead, ends (with the engine)."""
        self.pinning.end()

    def _on_export_torchviz(self, message: p.ExportTorchviz) -> None:
        self.send(p.Notice(export_torchviz(self.session, message.path)))

    def _on_request_graph(self, _: p.RequestGraph) -> None:
        self.training.request_graph()

    def _on_shutdown(self, _: p.Shutdown) -> None:
        self.player.running = False
        self.stopped = True
        self.end_b()
        self.session.close()   # its DDP ranks (a lesson's ddp-ranks slide), if any

    # ---- between commands -----------------------------------------------------------
    def due_in(self) -> float | None:
        """Seconds until the next batch should start; None when nothing is to run."""
        if not self.player.running or self.stopped:
            return None
        if self.pinning.holding_a:
            return B_WAIT_SECONDS   # B is MAX_AHEAD behind: look again (never block)
        return self.player.due_in()

    def train_batch(self, commands_waiting: Callable[[], bool]) -> None:
        self.training.train_batch(commands_waiting)

    def say_how_b_starts(self) -> None:
        """While A waits for B's process to start, the status line says so."""
        notice = self.pinning.starting_notice()
        if notice is not None:
            self.send(p.Notice(notice))
