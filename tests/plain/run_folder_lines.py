"""Realistic step lines, as gradviz.watch writes them for the default model (3 losses,
10 parameters, sampled every 20th step: the push, cosines, memory and gradient
fingerprints), and folders made of them: for the reader's tests and its benchmark."""
from __future__ import annotations

import math
from pathlib import Path

from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_stream import StepLines, StreamWriter

LOSSES = ["head0", "head1", "head2"]
PARAMS = [f"{part}.{kind}" for part in ("trunk.0", "trunk.2", "heads.0", "heads.1",
                                         "heads.2") for kind in ("weight", "bias")]
EVERY = 20


def record(step: int) -> StepRecord:
    losses = {name: 1.0 / (step + k + 1) + 0.1 * math.sin(step + k)
              for k, name in enumerate(LOSSES)}
    norms: dict[str, float | None] = {p: 0.5 + math.cos(step * 0.01 + j) ** 2
                                      for j, p in enumerate(PARAMS)}
    sampled = step % EVERY == 0
    return StepRecord(
        step=step, losses=losses, total=sum(losses.values()), grad_norms=norms,
        global_grad_norm=math.sqrt(sum(n * n for n in norms.values() if n)),
        junction_grad_norms={k: 0.25 + v for k, v in losses.items()} if sampled else None,
        cosine=[[1.0 if i == j else 0.125 * (i + j) for j in range(3)] for i in range(3)]
        if sampled else None,
        saved_bytes=123456 if sampled else None, saved_bytes_peak=234567 if sampled else None,
        graph_nodes=57 if sampled else None,
        grad_fingerprint={p: [0.1 * j, -0.2 * j] for j, p in enumerate(PARAMS)}
        if sampled else None)


def lines(n: int, start: int = 0) -> list[bytes]:
    """n step lines, each with its newline."""
    write = StepLines()
    return [write(record(step), 1).encode() for step in range(start, start + n)]


def write_stream(folder: Path, steps: int, block: int = 20000) -> Path:
    """A finished stream of that many steps (written a block of lines at a time)."""
    writer = StreamWriter(folder, {"param_names": PARAMS, "model": "Net", "every": EVERY})
    writer.open()
    writer.close(0)
    with open(folder / "steps.jsonl", "wb") as f:
        for start in range(0, steps, block):
            f.write(b"".join(lines(min(block, steps - start), start)))
    return folder
