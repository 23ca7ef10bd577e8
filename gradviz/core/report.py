"""Writing a run to disk: report.json and metrics.csv (the graph is render's job).

Both are streamed a step at a time, so memory stays flat however long the run, and both
appear (whole) only when the run is finished: until then they are temporary files.
"""
from __future__ import annotations

import contextlib
import csv
import json
from pathlib import Path

from .atomic_write import atomic_open
from .config import Config
from .events import Event
from .records import StepRecord


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


class ReportWriter:
    """report.json and metrics.csv, written as the steps come.

    Use as a context manager: leaving it normally puts both files in place; leaving it
    by an exception (a full disk, Ctrl+C) removes the temporary files and keeps any
    older report untouched. OSError from writing propagates to the caller.
    """

    def __init__(self, out: Path, config: Config, device: str, param_names: list[str]):
        self.out, self.config, self.device = out, config, device
        self.param_names = param_names
        self._files = contextlib.ExitStack()
        self._steps = 0

    def __enter__(self) -> "ReportWriter":
        with contextlib.ExitStack() as opening:   # a failed open closes what was opened
            self._json = opening.enter_context(atomic_open(self.out / "report.json"))
            self._csv_file = opening.enter_context(
                atomic_open(self.out / "metrics.csv", newline=""))
            self._files = opening.pop_all()
        head = json.dumps({"gradviz_report": 1, "config": self.config.to_dict(),
                           "device": self.device})
        self._json.write(head[:-1] + ', "steps": [\n')
        self._csv = csv.writer(self._csv_file)
        self._csv.writerow(metric_columns(self.config, self.param_names))
        return self

    def add(self, record: StepRecord) -> None:
        sep = ",\n" if self._steps else ""
        self._json.write(sep + json.dumps(record.to_dict(), allow_nan=False))
        self._csv.writerow(["" if v is None else v
                            for v in _row(record, self.config, self.param_names)])
        self._steps += 1

    def finish(self, events: list[Event]) -> None:
        """Close the steps list with the run's events (called before leaving normally)."""
        self._json.write('\n], "events": '
                         + json.dumps([e.to_dict() for e in events], allow_nan=False) + "}\n")

    def __exit__(self, *exc_info) -> bool:
        return self._files.__exit__(*exc_info)
