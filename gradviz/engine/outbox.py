"""What the engine says to the window during one batch, in the order it happened: the
batch's step records gathered into one Records message (one pipe message however many
steps it held), B's comparisons of them after it, then what followed them."""
from __future__ import annotations

from collections.abc import Callable

from ..plain.records.records import StepRecord
from . import protocol as p


class Outbox:
    def __init__(self, rate: Callable[[], float] = float,
                 compared: Callable[[], list] = list):
        """rate: the steps per second the records came at (said with them); compared:
        B's comparisons made since it was last asked (none without a B)."""
        self.messages: list[object] = []
        self.records: list[StepRecord] = []
        self._rate = rate
        self._compared = compared

    def record(self, record: StepRecord) -> None:
        self.records.append(record)

    def forget_records(self) -> None:
        """A fresh model at step 0: the steps of the model it replaces are not said."""
        self.records = []

    def send(self, message: object) -> None:
        self.flush()   # keep the order: records before what follows them
        self.messages.append(message)

    def flush(self) -> None:
        """The records gathered so far, and B's comparisons, as messages."""
        if self.records:
            self.messages.append(p.Records(self.records, self._rate()))
            self.records = []
        compared = self._compared()
        if compared:
            self.messages.append(p.Compared(compared))

    def take(self) -> list[object]:
        """Every message so far, records included; the box is empty after."""
        self.flush()
        out, self.messages = self.messages, []
        return out
