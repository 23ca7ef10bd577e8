"""Writing a finished run to disk: report.json and metrics.csv (the graph is render's job)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from .atomic_write import atomic_open
from .config import Config
from .events import Event
from .records import StepRecord


def write_report(out: Path, config: Config, device: str, records: list[StepRecord],
                 events: list[Event]) -> Path:
    path = out / "report.json"
    data = {
        "gradviz_report": 1,
        "config": config.to_dict(),
        "device": device,
        "steps": [r.to_dict() for r in records],
        "events": [e.to_dict() for e in events],
    }
    with atomic_open(path) as f:
        json.dump(data, f, indent=1, allow_nan=False)
    return path


def metric_columns(config: Config, param_names: list[str]) -> list[str]:
    heads = config.head_names()
    return (["step", "total"] + [f"loss.{h}" for h in heads] + ["global_grad_norm"]
            + [f"grad_norm.{p}" for p in param_names]
            + [f"junction_grad_norm.{h}" for h in heads]
            + ["saved_bytes", "saved_bytes_peak", "graph_nodes"])


def _row(r: StepRecord, config: Config, param_names: list[str]) -> list:
    heads = config.head_names()
    norms = r.grad_norms or {}
    junction = r.junction_grad_norms or {}
    return ([r.step, r.total] + [r.losses[h] for h in heads] + [r.global_grad_norm]
            + [norms.get(p) for p in param_names] + [junction.get(h) for h in heads]
            + [r.saved_bytes, r.saved_bytes_peak, r.graph_nodes])


def write_metrics_csv(out: Path, config: Config, param_names: list[str],
                      records: list[StepRecord]) -> Path:
    path = out / "metrics.csv"
    with atomic_open(path, newline="") as f:
        writer = csv.writer(f)
        writer.writerow(metric_columns(config, param_names))
        for r in records:
            writer.writerow(["" if v is None else v for v in _row(r, config, param_names)])
    return path
