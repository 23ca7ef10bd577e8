"""The window's watch over its training engine: when it is slow and when it has stopped,
what one Reset does at each moment, and what the status line says meanwhile. Decided on
an injected clock and an injected view of the process, so no decision needs one."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..records.engine_stages import BUILDING_MODEL_FILE, WORKING

# The engine beats twice a second from its first moment (engine.heartbeat), also while it
# imports torch or runs a long step: no beat (nor, where the system says, CPU time) for
# this long and it has stopped making progress (frozen, stopped, or dead). Slow but
# beating is never a failure: no fixed clock decides a process failed while it goes on.
SILENT_SECONDS = 20.0
# at one piece of work this long without an answer (a command, or a step during Play,
# as its beats say): say so, and Reset ends it; a Reset sent sooner, and not answered,
# ends it once it is this long
LONG_BUSY_SECONDS = 10.0
# a Reset not answered for this long is said on the status line (sooner is a blink)
RESET_SAID_AFTER_S = 1.0


class WatchedProcess(Protocol):
    """The engine's process as the watch looks at it."""

    def is_alive(self) -> bool: ...

    def cpu_grew_at(self) -> float | None:
        """When its CPU time was last seen growing (None: the system does not say)."""


@dataclass(frozen=True)
class Say:
    """A line for the status line; nothing is wrong yet."""
    line: str


@dataclass(frozen=True)
class Ended:
    """The process has ended by itself (what it said last is still to be read)."""


@dataclass(frozen=True)
class Silent:
    """No beat nor CPU time for silent_s: it stopped making progress and is ended."""


@dataclass(frozen=True)
class EndUnanswered:
    """A Reset the engine cannot answer: end it (unanswered this many seconds) and start
    a fresh one."""
    seconds: float


Verdict = Say | Ended | Silent | EndUnanswered | None


class EngineWatch:
    """What the window knows of its engine's progress, fed by the client (what it sent,
    heard, beats), asked by its timer (`check`) and by Reset (`reset_ends`).
    own_process False: an engine on a thread of this process (tests), whose silence is
    not watched and which answers every Reset."""

    def __init__(self, own_process: bool, clock: Callable[[], float] = time.monotonic,
                 silent_s: float = SILENT_SECONDS, long_busy_s: float = LONG_BUSY_SECONDS):
        self.own_process = own_process
        self.clock = clock
        self.silent_s = silent_s
        self.long_busy_s = long_busy_s
        self.busy = False             # a command is waiting for its answer
        self.starting = False
        self.beating = False          # a beat has come from this engine
        self.said_long = False        # "still working" said for this busy spell
        self.working_since: float | None = None   # its beats say: at work since then
        # a Reset sent and not answered yet (when it was sent): a step that never ends
        # or a frozen engine would never answer it, so the watch ends them instead
        self.reset_waiting: float | None = None
        self.said_waiting = False     # "Reset is waiting" said for this Reset
        self.started_at = self.last_heard = self.last_beat = clock()

    # ---- what the client tells it -----------------------------------------------------
    def started(self) -> None:
        """A fresh engine: its first message is awaited like an answer."""
        self.busy = self.starting = True
        self.beating = self.said_long = False
        self.working_since = self.reset_waiting = None
        self.started_at = self.last_heard = self.last_beat = self.clock()

    def sent(self, busy: bool) -> None:
        """A message went out; busy: it is answered, so waiting for it starts now (a
        command sent while one waits waits from the first one's moment)."""
        if busy and not self.busy:
            self.busy = True
            self.last_heard = self.clock()

    def heard(self) -> None:
        """Something came from the engine (a beat or more): a sign of life."""
        self.last_beat = self.clock()
        self.beating = True

    def answered(self) -> None:
        """An answer (not a beat alone): the work it was at has ended."""
        self.last_heard = self.last_beat
        self.busy = self.said_long = False
        self.working_since = None

    def hello(self) -> None:
        """It has started (its Hello)."""
        self.starting = False

    def reset_answered(self) -> None:
        self.reset_waiting = None

    def beat(self, stage: str, seconds: float, building: bool) -> str | None:
        """A beat: at `stage` for `seconds`. The line to say of it, if any: a model
        file's build going on, or a start's progress."""
        now = self.clock()
        self.working_since = now - seconds if stage == WORKING else None
        if building and stage.startswith(BUILDING_MODEL_FILE):
            return (f"Building the model file {stage[len(BUILDING_MODEL_FILE):].strip()}"
                    f"… {seconds:.0f} s (Stop building ends it)")
        if self.starting:
            return f"Starting the training engine: {stage} ({now - self.started_at:.0f} s)…"
        return None

    # ---- what it decides --------------------------------------------------------------
    @property
    def busy_seconds(self) -> float:
        """How long the engine has been at its present work without an answer: a
        command (or its start) not answered yet, or, as its beats say, a batch of
        steps (during Play no command waits, and a step may never end); 0 when idle."""
        now = self.clock()
        waiting = now - self.last_heard if self.busy or self.starting else 0.0
        working = 0.0 if self.working_since is None else now - self.working_since
        return max(waiting, working)

    @property
    def long_busy(self) -> bool:
        """At one piece of work (or loading) for long_busy_s."""
        return self.busy_seconds > self.long_busy_s

    def reset_ends(self) -> bool:
        """A Reset now ends the (running) engine at once rather than asking it: its work
        has run long_busy_s (an engine on a thread cannot be ended)."""
        return self.own_process and self.long_busy

    def reset_sent(self, building: bool) -> None:
        """A Reset went to the engine: waited for, unless the engine answers it once
        started or built (a build is the user's to stop) or runs on a thread."""
        if self.own_process and not (self.starting or building):
            self.reset_waiting, self.said_waiting = self.clock(), False

    @property
    def reset_asked(self) -> bool:
        """A Reset is waiting: if the engine dies meanwhile, a fresh one is what it asked."""
        return self.reset_waiting is not None

    def check(self, process: WatchedProcess) -> Verdict:
        """The engine died without a word (EOF may come first; this catches the rest),
        or stopped making progress: no beat nor CPU time for silent_s. Slow is not
        stopped: a start or a step that takes long, beating all the while, is waited
        for, and said after long_busy_s; a Reset waiting then ends it."""
        if not process.is_alive():
            return Ended()
        now = self.clock()
        if self.starting and not self.beating:   # the interpreter itself is starting
            return Say(f"Starting the training engine: starting Python "
                       f"({now - self.started_at:.0f} s)…")
        if self.own_process:
            # CPU time is looked at every time, so that when it stopped growing is known
            grew = process.cpu_grew_at()
            if grew is not None:
                self.last_beat = max(self.last_beat, grew)
            if now - self.last_beat > self.silent_s:
                return Silent()
        if self.reset_waiting is not None:
            return self._answer_reset(now)
        if self.long_busy and not self.said_long and not self.starting:
            self.said_long = True
            return Say(f"The training engine has worked on this for "
                       f"{self.busy_seconds:.0f} s and is still going: press "
                       f"Reset (R) to stop it.")
        return None

    def _answer_reset(self, now: float) -> Verdict:
        """A Reset not answered: the engine is ended once its work has run, or the Reset
        has waited, long_busy_s (a frozen engine says nothing of its work); until then,
        from a second on, the status line says what it waits for."""
        assert self.reset_waiting is not None
        waited = now - self.reset_waiting
        unanswered = max(self.busy_seconds, waited)
        if unanswered > self.long_busy_s:
            return EndUnanswered(unanswered)
        if waited > RESET_SAID_AFTER_S and not self.said_waiting:
            self.said_waiting = True
            return Say(f"Reset (R) is waiting for the training engine's answer (none for "
                       f"{unanswered:.0f} s); at {self.long_busy_s:g} s without one, the "
                       f"engine is ended and a fresh one started.")
        return None
