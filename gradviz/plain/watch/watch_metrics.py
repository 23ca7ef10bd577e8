"""metrics.csv for a watched stream, as `gradviz run --out` writes one for its run: a
row per step, the columns named as there (loss.NAME, grad_norm.PARAM...), an empty cell
where a number was not measured (an unsampled step's push) or .grad was None. Written
from steps.jsonl, a line at a time (memory stays flat however long the run)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from ..files.atomic_write import atomic_open
from ..run_files.watch_stream import HEADER, STEPS

METRICS = "metrics.csv"
COUNTS = ("saved_bytes", "saved_bytes_peak", "saved_tensor_bytes",
          "saved_tensor_bytes_peak", "graph_nodes", "micro_batches")


def metrics_columns(loss_names: list[str], param_names: list[str]) -> list[str]:
    return (["step", "total"] + [f"loss.{n}" for n in loss_names] + ["global_grad_norm"]
            + [f"grad_norm.{p}" for p in param_names]
            + [f"junction_grad_norm.{n}" for n in loss_names] + list(COUNTS))


def _row(step: dict, loss_names: list[str], param_names: list[str]) -> list:
    losses, norms = step.get("losses") or {}, step.get("grad_norms") or {}
    push = step.get("junction_grad_norms") or {}
    return ([step.get("step"), step.get("total")] + [losses.get(n) for n in loss_names]
            + [step.get("global_grad_norm")] + [norms.get(p) for p in param_names]
            + [push.get(n) for n in loss_names] + [step.get(c) for c in COUNTS])


def write_metrics(stream: str | Path) -> Path:
    """stream/metrics.csv from stream/steps.jsonl's complete lines (replaced whole, or
    left as it was on an error); returns its path."""
    stream = Path(stream)
    header = json.loads((stream / HEADER).read_text(encoding="utf-8"))
    params = list(header.get("param_names") or [])
    out = stream / METRICS
    with open(stream / STEPS, encoding="utf-8") as lines, \
            atomic_open(out, newline="") as f:
        writer, names = csv.writer(f), None
        for line in lines:
            if not line.endswith("\n"):
                break   # a last line still being written (or cut by a kill)
            step = json.loads(line)
            if names is None:
                names = list(step.get("losses") or {})
                writer.writerow(metrics_columns(names, params))
            writer.writerow(_row(step, names, params))
        if names is None:
            writer.writerow(metrics_columns([], params))
    return out
