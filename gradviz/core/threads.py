"""How many threads torch may use: leave one core to the GUI or the shell (measured: with
as many intra-op threads as cores, step latency spiked 30-250x on a 2-core machine). The
runnable script (plain.program.script) sets the same count, so that its sums round as gradviz's."""
from __future__ import annotations

import os

import torch


def leave_a_core_free(sharers: int = 1) -> int:
    """Threads for this process: the cores but one, shared among `sharers` processes
    training at once (the engine and a pinned B's process: 2)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = max(1, ((cores or 1) - 1) // sharers)
    torch.set_num_threads(threads)
    return threads
