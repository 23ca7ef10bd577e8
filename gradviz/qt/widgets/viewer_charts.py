"""The recorded-run window's charts of runs over each other: each run's total loss, its
global gradient norm, and the cosine of each pair of losses' trunk gradients over the
sampled steps that recorded the matrix (the agreement over time, beside the newest
matrix)."""
from __future__ import annotations

from functools import partial

import numpy as np

from ...plain.records.history import History, pair_indices
from .runs_chart import Part, RunsChart, Values
from .series import join_samples


def total_loss(history: History) -> list[Part]:
    return [("", lambda: (history.column("step"), history.column("total")))]


def global_norm(history: History) -> list[Part]:
    return [("", lambda: join_samples(*history.measured("global_grad_norm")))]


def cosine_pairs(history: History) -> list[Part]:
    """Each pair of losses' cosine, on the steps that recorded the matrix (joined across
    the steps between, broken where the recording paused)."""
    names = history.head_names
    rows, columns = pair_indices(len(names))
    return [(f"{names[i]} · {names[j]}", partial(_pair, history, k))
            for k, (i, j) in enumerate(zip(rows, columns))]


def _pair(history: History, k: int) -> Values:
    return join_samples(history.column("step"), history.column("cosine_pairs")[:, k])


def runs_loss_chart() -> RunsChart:
    return RunsChart("runsLossPlot", "Total loss per run", "total loss", total_loss,
                     y_short="loss")


def runs_norm_chart() -> RunsChart:
    chart = RunsChart("runsNormPlot", "Global gradient norm per run",
                      "‖grad‖ (all parameters)", global_norm, y_short="‖grad‖",
                      non_negative=True)
    # the runs' colours are the loss chart's just above (and the runs list's): their
    # names again would take rows this shorter chart is short of
    chart.legend_shown = False
    return chart


def cosine_lines_chart() -> RunsChart:
    chart = RunsChart("cosineLines", "Agreement over time (cosine of each pair)",
                      "cosine", cosine_pairs)
    chart.plot.setYRange(-1.0, 1.0, padding=0.05)
    chart.plot.enableAutoRange(axis="y", enable=False)   # a cosine's range, always
    return chart


if __name__ == "__main__":
    import sys

    from PySide6.QtWidgets import QApplication

    from ...plain.records.records import StepRecord
    from .runs_chart import RunLine

    app = QApplication.instance() or QApplication(sys.argv[:1])
    rng = np.random.default_rng(0)
    lines = []
    for k in range(4):
        h = History(["head0", "head1", "head2"], [])
        for s in range(500):
            m = np.eye(3) + (0.5 - s / 1000) * (1 - np.eye(3))
            h.append(StepRecord(step=s, losses={f"head{i}": 1.0 for i in range(3)},
                                total=float(3 * np.exp(-s / (100 + 50 * k))
                                            + rng.normal(0, 0.1)),
                                cosine=m.tolist() if s % 20 == 0 else None))
        lines.append(RunLine(f"run{k}", k, h))
    charts = [runs_loss_chart(), cosine_lines_chart()]
    for chart in charts:
        chart.lines_source = lambda: lines
        chart.set_smoothing(0.6)
        chart.update_from(lines[0].history)
        chart.resize(700, 400)
        chart.show()
    raise SystemExit(app.exec())
