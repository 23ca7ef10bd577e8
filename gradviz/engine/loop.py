"""The engine's main loop: owns the Session (and so every tensor), trains in batches of
about 20 ms between looks at the command pipe, and sends what happened as plain data,
batched (one pipe message per batch, however many steps it held)."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.devices import other_device, warm_meta
from ..core.model_file import RAISED_BY_USER, ModelFile, ModelFileError, check_taps
from ..core.session import Session
from ..core.threads import leave_a_core_free
from ..plain import events as ev
from ..plain.atomic_write import write_text
from ..plain.config import Config, ConfigError
from ..plain.engine_stages import BUILDING_MODEL, IMPORTING_META, STARTING_RANKS
from ..plain.graph_data import GraphData
from ..plain.model_keys import fit_config
from ..plain.sweep_pace import backward_hold_s
from . import protocol as p
from .b_runner import BPlace, ProcessB
from .cadence import Cadence
from .gc_settle import freeze_kept, unfreeze_kept
from .model_start import not_used, open_model
from .next_slide import NextSlide

if TYPE_CHECKING:   # imported when B is first pinned (see _on_pin_b)
    from .pinned import PinnedB

BATCH_SECONDS = 0.02    # at full speed, train this long between looks at the pipe
FREEZE_EVERY = 500      # keep graphs: steps between moving what it holds out of the GC's way
MIN_PHASE_SECONDS = p.MIN_PHASE_MS / 1000  # Play by phases: each phase's graph is seen
B_WAIT_SECONDS = 0.005  # A waits for B: how soon to look for B's replies again
# at full speed, look at the command pipe at most this often within a batch: a look
# after every step (a lock and a poll system call) cost about 3% of the engine's time
LOOK_SECONDS = 0.002
# played by phases, the phases with nothing to draw: done with the phase after them
DRAWS_NOTHING = ("zero_grad",)


def at_most_every(seconds: float, check: Callable[[], bool],
                  clock: Callable[[], float] = time.perf_counter) -> Callable[[], bool]:
    """check(), asked at most once every `seconds` (False in between)."""
    last = [clock()]

    def look() -> bool:
        now = clock()
        if now - last[0] < seconds:
            return False
        last[0] = now
        return check()
    return look


class EngineLoop:
    """The session and what the window asked of it; `outbox` collects the messages
    of one batch."""

    def __init__(self, config: Config, b_in_own_process: bool = False,
                 model_path: str | None = None):
        """b_in_own_process: a pinned B trains in a process of its own (the app's
        engine), else in this one (tests, where one process is simpler). model_path: a
        model file to train (loaded here, in the engine's process), None: the built-in
        model."""
        self.b_place = BPlace(b_in_own_process)
        self.outbox: list[object] = []
        self._records: list = []
        self.running = False
        # the window's settings (pace, phases, stop, saved tensors, node gradients): one
        # record, as the window sends it; stop_at is cleared here when Play goes past it
        self.settings = p.EngineSettings()
        self.steps_left: int | None = None
        self.next_due = 0.0       # when the next batch may start (the pace's delay)
        self.steps_per_second = 0.0
        self.cadence = Cadence()   # at full speed, how far apart the sampled steps are
        self._last_phase = ""         # what the last phase did ("backward 1 of 3: head0 …")
        self._last_graph: GraphData | None = None   # the last graph sent (its sweeps)
        self._last_when = "live"      # and its caption ("paused", "at the error", …)
        self.stopped = False
        self.graph_wanted = False   # send the graph after the next step with its gradients
        self._kept_frozen = False   # keep graphs: the kept graphs' objects are frozen
        self.pinned: PinnedB | None = None   # B, trained in lockstep beside the session (pin_b)
        self._b_words: str | None = None   # what B's starting process was last said doing
        # the lesson slides taken so far: every ConfigApplied says it, so the window tells
        # the slide's fresh model (and what follows it) from an earlier command's answers
        self.slides = 0
        # what the lesson's next slide needs that is slow to start, started ahead
        self.next_slide = NextSlide()
        # tells the engine's heartbeat what it is doing (engine_main sets it; no-op here)
        self.say_stage: Callable[[str], None] = lambda stage: None
        problem = None
        failure: ev.Event | None = None
        self.model_file: ModelFile | None = None
        if model_path is not None:
            self.model_file, config, failure = open_model(model_path, config)
        try:
            self.session = Session(config, self.model_file)
        except ModelFileError as exc:   # build(seed) raised, or its model does not fit
            assert self.model_file is not None   # only a model file's session raises it
            failure = not_used(exc, self.model_file.path)
            self.model_file = None
            self.session = Session(config)
        except ConfigError as exc:  # e.g. a remembered device that is gone: fall back
            problem = f"{exc}; using the CPU"
            self.session = Session(config.replace(device="cpu"))
        except (RuntimeError, MemoryError) as exc:  # e.g. a model too big to allocate
            problem = f"cannot build that model ({ev.first_line(exc)}); using the default one"
            self.session = Session(Config())
        self._apply(self.settings)
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

    @property
    def delay_s(self) -> float:
        return self.settings.delay_ms / 1000

    @property
    def animate_phases(self) -> bool:
        """Play goes phase by phase (a graph after each)."""
        return self.settings.animate_phases

    @property
    def stop_at(self) -> int | None:
        """Play pauses once this many steps are done."""
        return self.settings.stop_at

    def send(self, message: object) -> None:
        self._flush_records()   # keep the order: records before what follows them
        self.outbox.append(message)

    def _flush_records(self) -> None:
        if self._records:
            self.outbox.append(p.Records(self._records, self.steps_per_second))
            self._records = []
        if self.pinned is not None:
            compared = self.pinned.take()
            if compared:
                self.outbox.append(p.Compared(compared))

    def take_outbox(self) -> list[object]:
        self._flush_records()
        out, self.outbox = self.outbox, []
        return out

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
        if did_reset and self.pinned is not None:   # a fresh A: B starts again beside it
            self.pinned.reset()

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
            self._send_graph("after the change")

    def _on_settings(self, message: p.Settings) -> None:
        show_saved = self.settings.show_saved
        self._apply(message.settings)
        if not self.animate_phases:
            # a faster pace now, not after the pause begun at the slower one (the slider
            # moved from 1.5 s to the fastest left the next step 1.5 s away); phase by
            # phase the pause also holds a sweep being drawn, and stays
            self.next_due = min(self.next_due, time.monotonic() + self.delay_s)
        if self.settings.show_saved != show_saved:
            self._send_graph("live")

    def _apply(self, settings: p.EngineSettings) -> None:
        """The window's settings, all at once (a fresh engine is sent them too)."""
        stop_at = None if settings.stop_at is None else max(0, settings.stop_at)
        self.settings = replace(settings, delay_ms=max(0, settings.delay_ms),
                                stop_at=stop_at)
        # the gradient through every graph node costs hooks: only while a graph is shown
        self.session.track_node_grads = settings.track_node_grads
        self._set_sampling()

    def _set_sampling(self) -> None:
        """Every step measured in full when a person can follow the steps; sampled at
        full speed, where the probes would cost more than the training (at most every
        20th step, and at most about 15 steps a second: see engine.cadence)."""
        self.session.sample_floor = self.cadence.every if self._fast() else 1

    def _fast(self) -> bool:
        """Play at full speed: nobody follows the steps one by one."""
        return self.delay_s == 0 and self.running and self.steps_left is None \
            and not self.animate_phases

    def _on_play(self, _: p.Play | None = None) -> None:
        if self.session.error is not None:
            self.session.set_config(self.session.config)  # acknowledge the error, go on
        if self._at_stop():   # Play again at a slide's stop goes on past it
            self.settings = replace(self.settings, stop_at=None)
        self.steps_left = None
        self.cadence.restart()
        self._set_running(True)
        self.next_due = 0.0

    def _set_running(self, running: bool) -> None:
        self.running = running
        self._set_sampling()
        self.send(p.Running(running))

    def _on_pause(self, _: p.Pause) -> None:
        self._set_running(False)
        if not self.session.node_grads_current and not self.session.in_step:
            # at full speed most steps skip the per-node gradients: one more step, measured,
            # so the paused graph shows where the gradient flowed
            self._after_step(self._guarded(self.session.step))
        # mid-step (played phase by phase): the graph is the one after the last phase
        self._send_graph(f"paused after {self._last_phase}" if self.session.in_step
                         and self._last_phase else "paused")

    def _pause_silently(self) -> None:
        if self.running:
            self._set_running(False)
        self.steps_left = None

    def _on_phase(self, _: p.Phase) -> None:
        self._pause_silently()
        self._one_phase()

    def _one_phase(self, quiet: tuple[str, ...] = ()):
        """One phase; its record if it ended a step, PHASE_DONE, and the graph after it
        (buffers freed call by call; none after a phase named in quiet that went well).
        The PhaseRecord, or None on an internal error."""
        phase = self._guarded(self.session.advance_phase)
        if phase is None:
            return None
        if phase.step_done and self.session.last_record is not None:
            self._recorded(self.session.last_record)
        self.send(p.PhaseDone(phase))
        if phase.event is not None:
            self.send(p.Failed(phase.event))
        self._last_phase = phase.detail
        if phase.name in quiet and phase.event is None:
            return phase
        # a failed phase's detail is the error's title, which What happened shows: the
        # caption read "Graph after The carried hidden state reaches a freed graph"
        self._send_graph("at the error" if phase.event is not None
                         else f"after {phase.detail}")
        return phase

    def _at_stop(self) -> bool:
        return self.stop_at is not None and self.session.step_index >= self.stop_at \
            and not self.session.in_step

    def _on_step(self, _: p.Step) -> None:
        self._pause_silently()
        record = self._guarded(self.session.step)
        self._after_step(record)
        self._send_graph("after the optimizer step" if record else "at the error")

    def _on_slide(self, message: p.Slide) -> None:
        """A lesson's slide as one message: its config on a fresh model at step 0 (built
        once), the window's settings with its pace, play mode and stop, one graph, then
        Play if it autoplays. Sent as five commands, a slide built a model twice and
        sent three graphs."""
        self._pause_silently()
        self.slides += 1
        self.say_stage(BUILDING_MODEL)   # the window's stage says so until it answers
        if self._refused(lambda: self.session.start_over(self._fit(message.config)))[0]:
            return
        self._warm_meta()
        self._start_ranks()
        self._records = []
        self._apply(message.settings)
        self._announce_config(True)
        self._send_graph("after reset")
        if message.steps > 0:
            self._on_run_steps(p.RunSteps(message.steps))
        elif message.play:
            self._on_play()

    def _warm_meta(self) -> None:
        """A head on the meta device (the device-mismatch slide, with only a CPU): its
        first kernel's imports now, said, not inside the slide's first forward pass."""
        s = self.session
        if s.config.misplace_head is not None and other_device(s.device).type == "meta":
            self.say_stage(IMPORTING_META)
            self.next_slide.meta_warmed()   # started ahead, while the slide before played
            warm_meta()

    def _start_ranks(self) -> None:
        """ddp-ranks N (the DDP lesson): the ranks started while the slide is prepared,
        said, not in a first step that waits for them silently."""
        if self.session.config.ddp_ranks > 1:
            self.say_stage(STARTING_RANKS)
            self.session.start_ranks()

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
        self._pause_silently()
        self._guarded(self.session.reset)
        self._records = []
        self._announce_config(True)
        self._send_graph("after reset")

    def _on_run_steps(self, message: p.RunSteps) -> None:
        """Train `steps` steps as fast as possible, then say StepsDone."""
        self.steps_left = message.steps
        self.running = True     # no RUNNING message: the window's Play stays as it is
        self._set_sampling()    # every step measured: these runs make pictures
        self.next_due = 0.0

    def _on_pin_b(self, message: p.PinB) -> None:
        """Train B beside A in lockstep from step 0 (both reset: the same seed, data and
        initial weights), or (None) stop comparing."""
        from .pinned import PinnedB
        old, config = self.pinned, message.config
        if config is None:
            self._unpin()
            self.send(p.BPinned(None, None))
            return
        # B's process is kept from one pin to the next
        runner = old.b if old is not None else self.b_place.runner()
        try:
            pinned = PinnedB(self.session, self._fit(config), runner=runner)
        except ConfigError as exc:
            self.send(p.BPinned(None, str(exc)))
            return
        if old is not None:
            old.collect(wait=not old.building)   # its last steps, compared before B changes
            self._flush_records()
        elif isinstance(runner, ProcessB):
            leave_a_core_free(sharers=2)   # B's process trains at the same time
        self.pinned = pinned
        self.send(p.BPinned(pinned.config, None))
        self._on_reset()   # builds B too (see _announce_config)

    def _on_warm_b(self, _: p.WarmB) -> None:
        """The Compare menu is open: B's process is started, so that the pin does not
        pause A while it loads torch."""
        if self.pinned is None:
            self.b_place.warm()

    def end_b(self) -> None:
        """B's process, pinned or started ahead, ends (with the engine)."""
        self._unpin()
        self.b_place.close()

    def _on_export_torchviz(self, message: p.ExportTorchviz) -> None:
        """torchviz.make_dot of the live roots: only the engine holds the tensors."""
        from ..render.torchviz_adapter import make_dot_text
        s, path = self.session, message.path
        try:
            text = make_dot_text(s.root_tensors(), dict(zip(s.param_names, s.params)))
            # written whole under a temporary name, then renamed: a user's file is never
            # left half-written, and whoever waits for it never reads it empty
            write_text(path, text)
        except Exception as exc:  # a failed export is a message, never a crash
            self.send(p.Notice(f"torchviz export failed: {ev.first_line(exc)}"))
            return
        self.send(p.Notice(f"torchviz DOT exported to {path}"))

    def _on_request_graph(self, _: p.RequestGraph) -> None:
        if self.running and not self.session.node_grads_current:
            self.graph_wanted = True    # sent once a sampled step has measured it
        elif self.running:
            self._send_graph("live")
        else:
            # stopped: nothing trained since the last graph sent, so it keeps that
            # graph's caption. (The window asks for a live graph while it sees Play
            # running; answered after Play stopped, "live" renamed the graph "at the
            # error" or "paused" just sent.)
            self._send_graph(self._last_when)

    def _on_shutdown(self, _: p.Shutdown) -> None:
        self.running = False
        self.stopped = True
        self.end_b()
        self.session.close()   # its DDP ranks (a lesson's ddp-ranks slide), if any

    def _unpin(self) -> None:
        """Stop comparing: what B did last is sent, then B (and its process) ends."""
        if self.pinned is not None:
            self.pinned.collect(wait=not self.pinned.building)   # B's last steps
            self._flush_records()
            pinned, self.pinned = self.pinned, None
            pinned.close()
            if isinstance(pinned.b, ProcessB):
                leave_a_core_free()   # A alone again: the cores but one

    # ---- training -------------------------------------------------------------------
    def due_in(self) -> float | None:
        """Seconds until the next batch should start; None when nothing is to run."""
        if not self.running or self.stopped:
            return None
        if self.pinned is not None and self.pinned.holding_a:
            return B_WAIT_SECONDS   # B is MAX_AHEAD behind: look again (never block)
        return max(0.0, self.next_due - time.monotonic())

    def say_how_b_starts(self) -> None:
        """While A waits for B's process to start, the status line says what it is
        doing ("importing torch"), once per stage: a slow start is shown, not hidden."""
        pinned = self.pinned
        words = None if pinned is None else pinned.starting_words
        if pinned is not None and words is not None and words != self._b_words \
                and pinned.holding_a:
            self.send(p.Notice(f"Compare: B's engine is starting ({words}); A waits "
                               f"for it."))
        self._b_words = words

    def train_batch(self, commands_waiting) -> None:
        """Train for about BATCH_SECONDS (one step when a pace is set), stopping early
        as soon as a command is waiting: the window's command comes first."""
        if self.animate_phases and self.steps_left is None:
            self._play_phase()
            return
        start = time.perf_counter()
        commands_waiting = at_most_every(LOOK_SECONDS, commands_waiting)
        done = 0
        while True:
            record = self._guarded(self.session.step)
            if not self._after_step(record):
                return
            done += 1
            if self.graph_wanted and self.session.node_grads_current:
                self.graph_wanted = False
                self._send_graph("live")
            if self.steps_left is not None:
                self.steps_left -= 1
                if self.steps_left <= 0:
                    self.steps_left = None
                    self.running = False
                    self._set_sampling()
                    self._send_graph("live")
                    self.send(p.StepsDone(self.session.step_index))
                    return
            elif self._at_stop():
                self._pause_at_stop()
                return
            elapsed = time.perf_counter() - start
            # RunSteps' steps as fast as they go, whatever the pace they end paused at
            paced = self.delay_s > 0 and self.steps_left is None
            if (paced or elapsed > BATCH_SECONDS or commands_waiting()
                    or (self.pinned is not None and self.pinned.holding_a)):
                break
        # paced, the rate the steps come at (a batch, then the delay), not how fast one
        # step ran: the status line said 989 steps/s beside a pace of 10 a second
        self.steps_per_second = done / max(elapsed + self.delay_s, 1e-9)
        self.next_due = time.monotonic() + (self.delay_s if self.steps_left is None else 0.0)
        if self._fast():   # after the batch: its steps and B's were sampled alike
            self.cadence.trained(done, time.perf_counter())
            self._set_sampling()

    def _play_phase(self) -> None:
        """Play by phases: one phase per batch, paced by the delay (at least
        MIN_PHASE_SECONDS, so that each phase's graph can be drawn and seen)."""
        phase = self._one_phase(quiet=DRAWS_NOTHING)
        if phase is not None and phase.name in DRAWS_NOTHING and phase.event is None:
            # its graph is empty (the step's forward has not run): played at once with
            # the forward pass, a slide never shows an empty graph between two steps
            phase = self._one_phase()
        if phase is None:          # _guarded has stopped and reported it
            return
        if phase.event is not None:
            self._set_running(False)
            return
        if phase.step_done:
            self._spare_the_gc(phase.step)
            if self._at_stop():
                self._set_running(False)   # its graph has just been sent
                return
        wait = max(self.delay_s, MIN_PHASE_SECONDS)
        if phase.name == "backward" and self._last_graph is not None:
            # a slide's sweep pace: the call's sweep is drawn whole before the next
            # phase's graph replaces it
            wait = max(wait, backward_hold_s(self._last_graph, self.settings.sweep_box_ms))
        self.next_due = time.monotonic() + wait

    def _pause_at_stop(self) -> None:
        self._set_running(False)
        self._send_graph("paused")

    def _after_step(self, record) -> bool:
        """Queue the record; on an error, stop and report it. True to keep going."""
        if record is not None:
            self._recorded(record)
            self._spare_the_gc(record.step)
            return True
        if self.session.error is not None:
            self.steps_left = None
            self._set_running(False)
            self.send(p.Failed(self.session.error))
            self._send_graph("at the error")   # the graph as PyTorch found it, not empty
        return False

    def _recorded(self, record) -> None:
        """A completed a step: queue its record; a pinned B does the same step."""
        self._records.append(record)
        if self.pinned is not None:
            self.pinned.after_step(record)

    def _spare_the_gc(self, step: int) -> None:
        """keep graphs holds every step's graph, and the Python objects our probes made
        for it: a full collection then scans them all, a pause that grew past a second
        in long runs. Freezing them (they are meant to be kept) stops that; they return
        to the collector as soon as keep graphs is off or on reset."""
        if self.session.config.keep_graphs:
            if step % FREEZE_EVERY == FREEZE_EVERY - 1:
                freeze_kept()
                self._kept_frozen = True
        elif self._kept_frozen:   # only what this froze: the engine's imports stay frozen
            self._kept_frozen = False
            unfreeze_kept()

    def _guarded(self, action):
        """Run a session call; an unexpected Python error is reported, not raised."""
        try:
            return action()
        # a bug of ours must not take the lecture down, nor a model file's sys.exit
        except RAISED_BY_USER as exc:
            event = ev.from_exception(exc, self.session.step_index, "internal",
                                      "gradviz itself")
            self.session.error = event
            self.steps_left = None
            self._set_running(False)
            self.send(p.Failed(event))
            return None

    def _send_graph(self, when: str) -> None:
        try:
            graph = self.session.graph(show_saved=self.settings.show_saved)
        except Exception:  # a graph we cannot read is not worth stopping for
            self._last_graph = None
            return
        self._last_graph, self._last_when = graph, when
        self.send(p.Graph(graph, when))
