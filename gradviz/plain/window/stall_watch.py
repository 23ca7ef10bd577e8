"""How long the step count on screen went without advancing: the status line's texts as
they are set, timed; the longest wait between two advances (or since the last one) is
the stall a person watching the window would have seen."""
from __future__ import annotations

import re
import time
from collections.abc import Callable

# the status line while training ("Training · step 1234 done · total loss 0.5"): the
# count it shows (plain.window.status_line.StatusLine.steps writes it)
SHOWN_STEP = re.compile(r"\bstep (\d+) done\b")


class StallWatch:
    def __init__(self, clock: Callable[[], float] = time.perf_counter):
        self._clock = clock
        self.first_step: int | None = None   # the count shown when the watch started
        self.last_step: int | None = None    # the newest count shown
        self.advances = 0                    # times the count shown went up
        self._since = 0.0                    # when it last went up (or the watch started)
        self._longest = 0.0
        self._started = False

    def start(self, text: str = "") -> None:
        """Watch from now, the status line reading `text`."""
        self._started = True
        self._since = self._clock()
        self.first_step = self.last_step = shown_step(text)

    def shown(self, text: str) -> None:
        """The status line now reads `text`."""
        step = shown_step(text)
        if not self._started or step is None:
            return
        if self.last_step is None or step > self.last_step:
            now = self._clock()
            self._longest = max(self._longest, now - self._since)
            self._since, self.last_step = now, step
            self.advances += 1

    def longest_stall_s(self) -> float:
        """The longest time without an advance so far, the wait since the last one too."""
        return max(self._longest, self._clock() - self._since) if self._started else 0.0


def shown_step(text: str) -> int | None:
    """The step count a status line shows, or None where it shows none."""
    match = SHOWN_STEP.search(text)
    return None if match is None else int(match.group(1))
