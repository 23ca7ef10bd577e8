"""The engine's processes (A's and a pinned B's) keep what they imported out of the
garbage collector's full scans.

A step makes short-lived Python objects (records, probes' lists, autograd's wrappers);
enough of them outlive two young collections that a full collection comes every few
thousand steps (about once in 3,000 steps of the default model), and a full collection
scans every object alive: the 170,000 that importing torch and gradviz made, 30-80 ms
each time on a 2-core machine, every second or two at full speed. Those objects live as
long as the process, so they are frozen (gc.freeze): a full collection then scans only
what came later. Frozen objects are still freed by their reference counts; only a cycle
among them would wait for an unfreeze (the window's process does the same, qt.gc_guard)."""
from __future__ import annotations

import gc

_settled = False   # this process froze its imports (a test's engine thread never does)


def settle_imports() -> None:
    """Freeze what exists now (call it once torch and gradviz are imported, in the
    engine's own process only: a test's process is not ours to change)."""
    global _settled
    gc.collect()
    gc.freeze()
    _settled = True


def freeze_kept() -> None:
    """keep graphs: what the session holds now is meant to be kept; out of the way too."""
    gc.freeze()


def unfreeze_kept() -> None:
    """Keep graphs is off (or the graphs were let go): what was frozen returns to the
    collector, and the cycles among what was let go are collected; a settled process
    then freezes what is left (the imports, the model), as at its start."""
    gc.unfreeze()
    if _settled:
        gc.collect()
        gc.freeze()
