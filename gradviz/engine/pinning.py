"""A pinned B's life beside A in the engine: its process started ahead (the Compare menu
opened), B pinned (its process kept from one pin to the next), said while it starts,
looked at while A is idle, unpinned, and ended with the engine. Comparing B's steps
with A's is engine.pinned's."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.threads import leave_a_core_free
from ..plain.config.config import Config
from ..plain.records.records import CompareRecord, StepRecord
from .b_runner import BPlace, ProcessB

if TYPE_CHECKING:
    from ..core.session import Session
    from .pinned import PinnedB  # imported when B is first pinned (see pin)


class Pinning:
    def __init__(self, b_in_own_process: bool):
        """b_in_own_process: B trains in a process of its own (the app's engine), else
        in this one (tests, where one process is simpler)."""
        self.place = BPlace(b_in_own_process)
        self.pinned: PinnedB | None = None   # B, trained in lockstep beside A
        self._words: str | None = None   # what B's starting process was last said doing
        self._left: list[CompareRecord] = []   # a B unpinned or replaced: its last records

    def pin(self, a: Session, config: Config) -> PinnedB:
        """B trains beside A from A's next reset (ConfigError, and B stays as it was,
        unless config builds A's model)."""
        from .pinned import PinnedB
        old = self.pinned
        runner = old.b if old is not None else self.place.runner()
        pinned = PinnedB(a, config, runner=runner)
        if old is not None:
            old.collect(wait=not old.building)   # its last steps, compared before B changes
            self._left += old.take()
        elif isinstance(runner, ProcessB):
            leave_a_core_free(sharers=2)   # B's process trains at the same time
        self.pinned = pinned
        return pinned

    def unpin(self) -> None:
        """Stop comparing: what B did last is kept to be said, then B (and its process)
        ends."""
        pinned = self.pinned
        if pinned is None:
            return
        pinned.collect(wait=not pinned.building)   # B's last steps
        self._left += pinned.take()
        self.pinned = None
        pinned.close()
        if isinstance(pinned.b, ProcessB):
            leave_a_core_free()   # A alone again: the cores but one

    def warm(self) -> None:
        """The Compare menu is open: B's process is started, so that the pin does not
        pause A while it loads torch."""
        if self.pinned is None:
            self.place.warm()

    def end(self) -> None:
        """B's process, pinned or started ahead, ends (with the engine)."""
        self.unpin()
        self.place.close()

    def take(self) -> list[CompareRecord]:
        """B's comparisons since the last take (an unpinned B's last ones first)."""
        out, self._left = self._left, []
        if self.pinned is not None:
            out += self.pinned.take()
        return out

    def reset(self) -> None:
        """A fresh A: B starts again beside it."""
        if self.pinned is not None:
            self.pinned.reset()

    def after_step(self, record: StepRecord) -> None:
        """A completed a step: a pinned B does the same step."""
        if self.pinned is not None:
            self.pinned.after_step(record)

    @property
    def holding_a(self) -> bool:
        """B is too far behind: A waits for it (answering the window meanwhile)."""
        return self.pinned is not None and self.pinned.holding_a

    @property
    def in_flight(self) -> bool:
        """B's steps still to compare (their replies not read yet)."""
        return self.pinned is not None and self.pinned.in_flight

    def watch(self) -> None:
        """B's process ended or silent: said now, paused or not."""
        if self.pinned is not None:
            self.pinned.watch()

    def connection(self):
        """What becomes readable when B's process beats, replies or ends (None: no B
        in a process of its own)."""
        return None if self.pinned is None else self.pinned.connection()

    def starting_notice(self) -> str | None:
        """While A waits for B's process to start, what it is doing ("importing
        torch"), once per stage: a slow start is shown, not hidden. None: nothing new."""
        pinned = self.pinned
        words = None if pinned is None else pinned.starting_words
        notice = None
        if pinned is not None and words is not None and words != self._words \
                and pinned.holding_a:
            notice = f"Compare: B's engine is starting ({words}); A waits for it."
        self._words = words
        return notice
