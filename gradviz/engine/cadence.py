"""At full speed, how far apart the sampled steps are: FAST_SAMPLE_EVERY steps, or
further apart when the engine trains faster than the window can show them (it draws at
most once a frame), so that no sampled step's probes are paid for where nobody sees
the sample live."""
from __future__ import annotations

import math

FAST_SAMPLE_EVERY = 20   # at full speed, the costly probes run every 20th step or less often
# ... and on at most about this many steps a second: the panels that draw the sampled
# numbers (cosines, junction, memory, the graph's gradients) get a new point 7.5-15 times
# a second at any rate over 300 steps a second, which the eye follows as well as 30; a
# sampled step costs about 0.8 ms more, so each sample a second fewer is about 0.08% of
# the engine's time back
SAMPLES_PER_SECOND = 15
RATE_SECONDS = 1.0       # the rate that sets the spacing: measured over about this long


def spacing(steps_per_second: float) -> int:
    """The sampled steps' spacing at this rate: the smallest multiple of
    FAST_SAMPLE_EVERY that samples at most SAMPLES_PER_SECOND steps a second."""
    per_sample = steps_per_second / SAMPLES_PER_SECOND
    return FAST_SAMPLE_EVERY * max(1, math.ceil(per_sample / FAST_SAMPLE_EVERY))


class Cadence:
    """The spacing now: FAST_SAMPLE_EVERY until about RATE_SECONDS of Play have been
    timed, then as the steps' rate over the last such stretch asks (by the wall clock:
    what the window shows a second). A multiple of FAST_SAMPLE_EVERY: a sampled step is
    one whose index the spacing divides, so a pinned B, told A's spacing each step,
    samples the same steps."""

    def __init__(self) -> None:
        self.every = FAST_SAMPLE_EVERY
        self._since: float | None = None   # when the stretch being timed began
        self._steps = 0

    def restart(self) -> None:
        """Play again: the rate is measured afresh (the model or the machine may have
        changed)."""
        self.every, self._since, self._steps = FAST_SAMPLE_EVERY, None, 0

    def trained(self, steps: int, now: float) -> None:
        """A batch of `steps` full-speed steps ended at `now` (seconds, any clock)."""
        if self._since is None:   # the first batch's start is not known: timed from here
            self._since = now
            return
        self._steps += steps
        seconds = now - self._since
        if seconds >= RATE_SECONDS:
            self.every = spacing(self._steps / seconds)
            self._since, self._steps = now, 0
