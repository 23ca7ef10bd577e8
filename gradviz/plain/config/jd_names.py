"""The aggregating strategies' names and whether what they need is installed, without
importing torch or torchjd (the window's process validates configs too)."""
from __future__ import annotations

import importlib.util
import sys

# strategy -> torchjd.aggregation's class
AGGREGATOR_CLASS = {"upgrad": "UPGrad", "pcgrad": "PCGrad", "mgda": "MGDA"}
AGGREGATING = tuple(AGGREGATOR_CLASS)
INSTALL = 'pip install "torchjd[quadprog-projector]>=0.18,<0.19"'
# PCGrad projects the heads in a random order (torch.randperm, the global generator):
# it draws from a generator seeded per step, so a run repeats, and two sessions in one
# process (gradviz compare) do not draw from each other's stream.
PCGRAD_SEED_STEP = 1_000_003   # seeds s and s + 1 share no step's draws below this step


def pcgrad_seed(seed: int, step: int) -> int:
    """The seed of step `step`'s PCGrad draws (the generated script writes the same)."""
    return seed * PCGRAD_SEED_STEP + step


# UPGrad's default projector solves a small QP with these (torchjd's extra brings them)
_NEEDS = {"upgrad": ("torchjd", "quadprog", "qpsolvers")}


def _installed(name: str) -> bool:
    if name in sys.modules:   # None there: an import already known to fail
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def missing_message(strategy: str) -> str:
    return f"strategy {strategy} needs torchjd, which is not installed here: {INSTALL}"


def missing(strategy: str) -> str | None:
    """The one-line message if the strategy cannot run here, else None."""
    if strategy not in AGGREGATOR_CLASS:
        return None
    for name in _NEEDS.get(strategy, ("torchjd",)):
        if not _installed(name):
            return missing_message(strategy) if name == "torchjd" else (
                f"strategy {strategy} needs {name}, which is not installed here: {INSTALL}")
    return None
