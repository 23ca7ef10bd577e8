"""The memory chart and the model: its two plots share its height as the slide's point
asks (plain.charts.memory_rows), the node count's plot no smaller where that is the point."""
from __future__ import annotations

from ...plain.charts.memory_rows import nodes_share
from ...plain.window.window_model import WindowModel
from ..widgets.memory_plot import MemoryPlot


def bind_memory_plot(chart: MemoryPlot, model: WindowModel) -> None:
    def follow(named: tuple[str, ...]) -> None:
        chart.set_nodes_share(nodes_share(named))

    model.events.named_metrics.connect(follow)
    follow(model.named_metrics)
