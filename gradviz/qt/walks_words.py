"""The status bar's words for one pass vs K passes: a step's backward time and how many
times its backward walked the shared trunk (both measured by the engine)."""
from __future__ import annotations

from ..plain.records import StepRecord


def walks_text(record: StepRecord | None) -> str:
    """"backward 0.42 ms · trunk walked 3×" for the newest step ('' before the first)."""
    if record is None or record.trunk_walks is None or record.backward_seconds is None:
        return ""
    return (f"backward {record.backward_seconds * 1000:.2f} ms · "
            f"trunk walked {record.trunk_walks}×")
