"""How a training loop is timed: warmed up, then steps per second on the clock in use
(wall-clock, or this process's CPU time: see use_clock)."""
from __future__ import annotations

import time
from collections.abc import Callable

import torch

# How a loop is timed: wall-clock (what a user waits), or this process's CPU time. On a
# machine other programs share, wall-clock ratios swing by a fifth from one run to the
# next; the CPU time the loop itself took does not, and with one torch thread it is the
# wall-clock time of an idle core.
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
_clock = [time.perf_counter]
WARM_UP_STEPS = 20   # steps run before the clock starts: allocator, caches, lazy inits


def use_clock(name: str) -> None:
    """Time every loop from here on by CLOCKS[name]."""
    _clock[0] = CLOCKS[name]


def clock() -> float:
    """Now, on the clock in use (see use_clock)."""
    return _clock[0]()


def sync(device: torch.device) -> None:
    """Wait for the device's queued work, so the clock sees it done."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed(one: Callable[[int], object], steps: int, device: torch.device,
          end: Callable[[], object] | None = None) -> float:
    """Steps per second of one(step) for `steps` steps, after a warm-up. end: called
    after the last step, inside the clock: work the steps left to be done later (lines
    kept to be written a block at a time) is theirs."""
    for step in range(min(WARM_UP_STEPS, steps)):
        one(step)
    sync(device)
    start = clock()
    for step in range(steps):
        one(step)
    if end is not None:
        end()
    sync(device)
    return steps / (clock() - start)
