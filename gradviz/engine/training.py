"""The session trained as the player decides: a batch of steps between looks at the
pipe, one phase, one step; each step's record queued (and done by a pinned B too); a
failure stopped and reported, never raised; the graph sent after what changed it, with
its caption; a long keep-graphs run's objects kept out of the collector's scans."""
from __future__ import annotations

import time
from collections.abc import Callable

from ..core.model_file import RAISED_BY_USER
from ..core.session import Session
from ..plain.graph.graph_data import GraphData
from ..plain.records import events as ev
from ..plain.records.records import PhaseRecord, StepRecord
from . import protocol as p
from .gc_settle import freeze_kept, unfreeze_kept
from .outbox import Outbox
from .pinning import Pinning
from .player import DRAWS_NOTHING, Next, Player

FREEZE_EVERY = 500      # keep graphs: steps between moving what it holds out of the GC's way
# at full speed, look at the command pipe at most this often within a batch: a look
# after every step (a lock and a poll system call) cost about 3% of the engine's time
LOOK_SECONDS = 0.002


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


class Training:
    def __init__(self, session: Session, player: Player, outbox: Outbox, pinning: Pinning):
        self.session = session
        self.player = player
        self.outbox = outbox
        self.pinning = pinning
        self.graph_wanted = False   # send the graph after the next step with its gradients
        self.last_phase = ""          # what the last phase did ("backward 1 of 3: head0 …")
        self._last_graph: GraphData | None = None   # the last graph sent (its sweeps)
        self._last_when = "live"      # and its caption ("paused", "at the error", …)
        self._kept_frozen = False   # keep graphs: the kept graphs' objects are frozen

    # ---- Play's state, said ---------------------------------------------------------
    def sample(self) -> None:
        """The session samples its probes as the player says (full speed or not)."""
        self.session.sample_floor = self.player.sample_floor

    def set_running(self, running: bool) -> None:
        self.player.running = running
        self.sample()
        self.outbox.send(p.Running(running))

    def halt(self) -> None:
        """Play and a RunSteps stop, for a command that trains by itself."""
        if self.player.halt():
            self.sample()
            self.outbox.send(p.Running(False))

    # ---- single steps ---------------------------------------------------------------
    def one_step(self) -> None:
        """Step: one optimizer step, then its graph."""
        record = self.guarded(self.session.step)
        self.after_step(record)
        self.send_graph("after the optimizer step" if record else "at the error")

    def measured_pause(self) -> None:
        """Pause: at full speed most steps skip the per-node gradients: one more step,
        measured, so the paused graph shows where the gradient flowed."""
        s = self.session
        if not s.node_grads_current and not s.in_step:
            self.after_step(self.guarded(s.step))
        # mid-step (played phase by phase): the graph is the one after the last phase
        self.send_graph(f"paused after {self.last_phase}" if s.in_step and self.last_phase
                        else "paused")

    def one_phase(self, quiet: tuple[str, ...] = ()) -> PhaseRecord | None:
        """One phase; its record if it ended a step, PHASE_DONE, and the graph after it
        (buffers freed call by call; none after a phase named in quiet that went well).
        The PhaseRecord, or None on an internal error."""
        phase = self.guarded(self.session.advance_phase)
        if phase is None:
            return None
        if phase.step_done and self.session.last_record is not None:
            self.recorded(self.session.last_record)
        self.outbox.send(p.PhaseDone(phase))
        if phase.event is not None:
            self.outbox.send(p.Failed(phase.event))
        self.last_phase = phase.detail
        if phase.name in quiet and phase.event is None:
            return phase
        # a failed phase's detail is the error's title, which What happened shows: the
        # caption read "Graph after The carried hidden state reaches a freed graph"
        self.send_graph("at the error" if phase.event is not None
                        else f"after {phase.detail}")
        return phase

    # ---- Play -----------------------------------------------------------------------
    def train_batch(self, commands_waiting: Callable[[], bool]) -> None:
        """Train for about BATCH_SECONDS (one step when a pace is set, one phase when
        Play goes phase by phase), stopping early as soon as a command is waiting: the
        window's command comes first."""
        if self.player.plays_phases:
            self.play_phase()
            return
        start = time.perf_counter()
        commands_waiting = at_most_every(LOOK_SECONDS, commands_waiting)
        done = 0
        while True:
            record = self.guarded(self.session.step)
            if not self.after_step(record):
                return
            done += 1
            if self.graph_wanted and self.session.node_grads_current:
                self.graph_wanted = False
                self.send_graph("live")
            if self._batch_stopped():
                return
            elapsed = time.perf_counter() - start
            if (self.player.batch_full(elapsed) or commands_waiting()
                    or self.pinning.holding_a):
                break
        self.player.batch_ended(done, elapsed)
        self.sample()

    def _batch_stopped(self) -> bool:
        """After a step of the batch: RunSteps' last one (StepsDone said) or the stop
        reached (Play paused); else False, the batch trains on."""
        s = self.session
        then = self.player.stepped(s.step_index, s.in_step)
        if then is Next.STEPS_DONE:   # no RUNNING message: the window's Play stays as it is
            self.sample()
            self.send_graph("live")
            self.outbox.send(p.StepsDone(s.step_index))
        elif then is Next.AT_STOP:
            self.set_running(False)
            self.send_graph("paused")
        return then is not Next.ON

    def play_phase(self) -> None:
        """Play by phases: one phase per batch, paced by the player."""
        phase = self.one_phase(quiet=DRAWS_NOTHING)
        if phase is not None and self.player.plays_on(phase):
            phase = self.one_phase()
        if phase is None:          # guarded has stopped and reported it
            return
        if phase.event is not None:
            self.set_running(False)
            return
        if phase.step_done:
            self.spare_the_gc(phase.step)
            if self.player.at_stop(self.session.step_index, self.session.in_step):
                self.set_running(False)   # its graph has just been sent
                return
        self.player.phase_played(phase, self._last_graph)

    # ---- after each step ------------------------------------------------------------
    def after_step(self, record: StepRecord | None) -> bool:
        """Queue the record; on an error, stop and report it. True to keep going."""
        if record is not None:
            self.recorded(record)
            self.spare_the_gc(record.step)
            return True
        if self.session.error is not None:
            self.player.failed()
            self.set_running(False)
            self.outbox.send(p.Failed(self.session.error))
            self.send_graph("at the error")   # the graph as PyTorch found it, not empty
        return False

    def recorded(self, record: StepRecord) -> None:
        """A completed a step: queue its record; a pinned B does the same step."""
        self.outbox.record(record)
        self.pinning.after_step(record)

    def spare_the_gc(self, step: int) -> None:
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

    def guarded(self, action):
        """Run a session call; an unexpected Python error is reported, not raised."""
        try:
            return action()
        # a bug of ours must not take the lecture down, nor a model file's sys.exit
        except RAISED_BY_USER as exc:
            event = ev.from_exception(exc, self.session.step_index, "internal",
                                      "gradviz itself")
            self.session.error = event
            self.player.failed()
            self.set_running(False)
            self.outbox.send(p.Failed(event))
            return None

    # ---- the graph ------------------------------------------------------------------
    def request_graph(self) -> None:
        """The window asks for the graph."""
        if self.player.running and not self.session.node_grads_current:
            self.graph_wanted = True    # sent once a sampled step has measured it
        elif self.player.running:
            self.send_graph("live")
        else:
            # stopped: nothing trained since the last graph sent, so it keeps that
            # graph's caption. (The window asks for a live graph while it sees Play
            # running; answered after Play stopped, "live" renamed the graph "at the
            # error" or "paused" just sent.)
            self.send_graph(self._last_when)

    def send_graph(self, when: str) -> None:
        try:
            graph = self.session.graph(show_saved=self.player.settings.show_saved)
        except Exception:  # a graph we cannot read is not worth stopping for
            self._last_graph = None
            return
        self._last_graph, self._last_when = graph, when
        self.outbox.send(p.Graph(graph, when))
