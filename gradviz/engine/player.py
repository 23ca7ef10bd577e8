"""What the engine trains next, and when: Play and Pause, the pace between steps (or
phases), a slide's stop, RunSteps' count, phase by phase, and whether the steps are
sampled. Plain and clock-injected: the engine's loop tells it what the session did and
asks it what comes next; it holds no session and no tensor, so its rules are tested
alone, in milliseconds, on a fake clock."""
from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import replace

from ..plain.graph.graph_data import GraphData
from ..plain.graph.sweep_pace import backward_hold_s
from ..plain.records.engine_settings import EngineSettings
from ..plain.records.records import PhaseRecord
from .cadence import Cadence
from .protocol import MIN_PHASE_MS

BATCH_SECONDS = 0.02    # at full speed, train this long between looks at the pipe
MIN_PHASE_SECONDS = MIN_PHASE_MS / 1000   # Play by phases: each phase's graph is seen
# played by phases, the phases with nothing to draw: done with the phase after them
DRAWS_NOTHING = ("zero_grad",)


class Next(enum.Enum):
    """After a step of a batch: train on, or the batch ends there."""
    ON = "on"
    STEPS_DONE = "steps done"   # RunSteps' last step: the run stops, StepsDone is said
    AT_STOP = "at the stop"     # the slide's stop: Play pauses itself there


class Player:
    """Play's state: running or not, the window's settings (pace, phase by phase, the
    stop), the steps RunSteps has left, and when the next batch is due."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        # the window's settings, as it sends them (clamped); stop_at is cleared here when
        # Play goes on past it
        self.settings = EngineSettings()
        self.running = False
        self.steps_left: int | None = None   # RunSteps: steps still to train, else None
        self.next_due = 0.0       # when the next batch may start (the pace's delay)
        self.steps_per_second = 0.0
        self.cadence = Cadence()   # at full speed, how far apart the sampled steps are

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

    # ---- what the window asks ------------------------------------------------------
    def apply(self, settings: EngineSettings) -> None:
        """The window's settings, all at once. A negative delay or stop is read as 0: a
        stop below step 0 is a stop at once, never a stop that Play can never reach."""
        stop_at = None if settings.stop_at is None else max(0, settings.stop_at)
        self.settings = replace(settings, delay_ms=max(0, settings.delay_ms),
                                stop_at=stop_at)

    def change(self, settings: EngineSettings) -> None:
        """The window changed a setting while the engine runs."""
        self.apply(settings)
        if not self.animate_phases:
            # a faster pace now, not after the pause begun at the slower one (the slider
            # moved from 1.5 s to the fastest left the next step 1.5 s away); phase by
            # phase the pause also holds a sweep being drawn, and stays
            self.next_due = min(self.next_due, self.clock() + self.delay_s)

    def at_stop(self, step: int, in_step: bool) -> bool:
        """`step` steps done reach the stop; never inside a step (played by phases, the
        stop comes after the step's last phase)."""
        return self.stop_at is not None and step >= self.stop_at and not in_step

    def play(self, step: int, in_step: bool) -> None:
        """Play, from `step` steps done: at the stop, Play again goes on past it."""
        if self.at_stop(step, in_step):
            self.settings = replace(self.settings, stop_at=None)
        self.steps_left = None
        self.cadence.restart()   # the rate is timed afresh: the model may have changed
        self.running = True
        self.next_due = 0.0

    def halt(self) -> bool:
        """A command that trains by itself (Phase, Step, Reset, a slide) stops Play and a
        RunSteps under way; True where Play was running (the window is told)."""
        was_running = self.running
        self.running = False
        self.steps_left = None
        return was_running

    def run_steps(self, steps: int) -> None:
        """RunSteps: `steps` steps at once, whatever the pace they end paused at."""
        self.steps_left = steps
        self.running = True
        self.next_due = 0.0

    def failed(self) -> None:
        """A step or phase failed: nothing trains until the window says so."""
        self.running = False
        self.steps_left = None

    # ---- what the loop asks ---------------------------------------------------------
    @property
    def fast(self) -> bool:
        """Play at full speed: nobody follows the steps one by one."""
        return self.delay_s == 0 and self.running and self.steps_left is None \
            and not self.animate_phases

    @property
    def sample_floor(self) -> int:
        """Every step measured in full when a person can follow the steps; sampled at
        full speed, where the probes would cost more than the training (at most every
        20th step, and at most about 15 steps a second: see engine.cadence)."""
        return self.cadence.every if self.fast else 1

    def due_in(self) -> float | None:
        """Seconds until the next batch is due; None when nothing is to run."""
        if not self.running:
            return None
        return max(0.0, self.next_due - self.clock())

    @property
    def plays_phases(self) -> bool:
        """The next batch is one phase (Play by phases; a RunSteps runs whole steps)."""
        return self.animate_phases and self.steps_left is None

    # ---- a batch of steps -----------------------------------------------------------
    def stepped(self, step: int, in_step: bool) -> Next:
        """A step of the batch is done (`step` steps done now): what follows it."""
        if self.steps_left is not None:
            self.steps_left -= 1
            if self.steps_left > 0:
                return Next.ON
            self.steps_left = None
            self.running = False
            return Next.STEPS_DONE
        if self.at_stop(step, in_step):
            self.running = False
            return Next.AT_STOP
        return Next.ON

    def batch_full(self, elapsed: float) -> bool:
        """The batch has trained enough: paced, one step; else about BATCH_SECONDS
        (RunSteps' steps go as fast as they can, whatever the pace)."""
        paced = self.delay_s > 0 and self.steps_left is None
        return paced or elapsed > BATCH_SECONDS

    def batch_ended(self, done: int, elapsed: float) -> None:
        """A batch of `done` steps took `elapsed` s: the rate said, and the next due."""
        # paced, the rate the steps come at (a batch, then the delay), not how fast one
        # step ran: the status line said 989 steps/s beside a pace of 10 a second
        self.steps_per_second = done / max(elapsed + self.delay_s, 1e-9)
        now = self.clock()
        self.next_due = now + (self.delay_s if self.steps_left is None else 0.0)
        if self.fast:   # after the batch: its steps and B's were sampled alike
            self.cadence.trained(done, now)

    # ---- phase by phase -------------------------------------------------------------
    @staticmethod
    def plays_on(phase: PhaseRecord) -> bool:
        """A phase with nothing to draw (zero_grad: the step's forward has not run)
        that went well is played at once with the next one: a slide never shows an
        empty graph between two steps."""
        return phase.name in DRAWS_NOTHING and phase.event is None

    def phase_played(self, phase: PhaseRecord, graph: GraphData | None) -> None:
        """A phase was played and its graph (None: none could be read) sent: the next
        one is due after the pace, at least MIN_PHASE_SECONDS (so that each phase's
        graph is drawn and seen), and a backward call's sweep drawn whole at a slide's
        sweep pace before the next phase's graph replaces it."""
        wait = max(self.delay_s, MIN_PHASE_SECONDS)
        if phase.name == "backward" and graph is not None:
            wait = max(wait, backward_hold_s(graph, self.settings.sweep_box_ms))
        self.next_due = self.clock() + wait
