"""The status bar's words for one pass vs K passes: a step's backward time and how many
times its backward walked the shared trunk (both measured by the engine)."""
from __future__ import annotations

from ..plain.records import StepRecord

# the label's tooltip: what the count is, what it leaves out, and why the torchjd
# strategies walk once per head (each sentence tested in tests/core/test_one_pass.py)
WALKS_TIP = (
    "The last step's backward calls: their time, and how many times they walked the "
    "shared trunk (a hook on its first layer counts the training loop's own passes, "
    "every micro-batch's). gradviz's own probe is left out: on a sampled step it walks "
    "the trunk once more per head and micro-batch, for each head's cosine with the "
    "update. upgrad, pcgrad and mgda walk it once per head because gradviz runs "
    "TorchJD's Jacobian one row at a time (parallel_chunk_size=1); batched by "
    "torch.vmap, it would be one walk.")


def walks_text(record: StepRecord | None) -> str:
    """"backward 0.42 ms · trunk walked 3×" for the newest step ('' before the first)."""
    if record is None or record.trunk_walks is None or record.backward_seconds is None:
        return ""
    return (f"backward {record.backward_seconds * 1000:.2f} ms · "
            f"trunk walked {record.trunk_walks}×")
