"""What a TensorBoard user expects of a recorded run's window, wired into it: the left
column (smoothing, the x axis, a folder's runs with a tick each), the ticked runs drawn
over each other on the loss and global-norm charts (two or more: in the single run's
charts' place), the agreement over time beside the newest cosine matrix, and the x axis
and the smoothing reaching every chart they apply to.

The window's model holds the choices (its ViewerController the one writer); this part
observes them, follows the ticked runs (plain.runs.run_set) and hands the charts their runs.
It reads nothing off the window but the parts it is handed (ViewerParts)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QMainWindow

from ..plain.charts.x_axis import XAxis
from ..plain.controllers.viewer_controller import ViewerController
from ..plain.records.history import History
from ..plain.runs.recorded_run import RecordedRun
from ..plain.runs.run_set import RunSet
from ..plain.window.window_model import WindowModel
from .bindings.viewer import bind_viewer
from .widgets.runs_chart import RunLine, RunsChart
from .widgets.runs_sidebar import RunsSidebar
from .widgets.viewer_charts import cosine_lines_chart, runs_loss_chart, runs_norm_chart
from .window_layout import add_dock

# the ticked runs are looked at this often (the shown run's source: its own POLL_MS)
RUNS_POLL_MS = 250
SIDEBAR_WIDTH = 215   # px at the normal text size: the slider, three axis buttons, names


@dataclass(frozen=True)
class ViewerParts:
    """What the viewer draws into: the window's charts and where they sit."""
    plot_stack: Any          # widgets.plot_stack.PlotStack: the middle charts
    gradients_panel: Any     # widgets.gradients_panel.GradientsPanel
    loss_plot: Any           # the single run's charts (LossPlot, GlobalNormPlot)
    global_norm: Any
    # the shown run (None before its first look), and the run drawn dashed beside it
    # (label, history, its header's "started"), B or the next rank, or None
    shown: Callable[[], RecordedRun | None]
    ghost: Callable[[], tuple[str, History, object] | None]


class RunViewer(QObject):
    def __init__(self, window: QMainWindow, model: WindowModel, folder: Path,
                 parts: ViewerParts, on_fault: Callable[[str | None], None] = print):
        """on_fault(line): a ticked run could not be read (None: every one can now)."""
        super().__init__(window)
        self.model, self.parts, self.on_fault = model, parts, on_fault
        self.controller = ViewerController(model, self.drawn_histories)
        self.run_set = RunSet(folder)
        self.sidebar = RunsSidebar()
        self.dock = add_dock(window, "Runs", "runsDock", self.sidebar,
                             Qt.DockWidgetArea.LeftDockWidgetArea)
        bind_viewer(self.sidebar, model, self.controller)
        self.runs_loss, self.runs_norm = runs_loss_chart(), runs_norm_chart()
        self.cosine_lines = cosine_lines_chart()
        self.charts: list[RunsChart] = [self.runs_loss, self.runs_norm, self.cosine_lines]
        for chart in self.charts:
            chart.lines_source = self.lines
        parts.plot_stack.add(self.runs_loss, "loss per run", 3)
        parts.plot_stack.add(self.runs_norm, "global gradient norm per run", 1)
        parts.gradients_panel.put_beside_cosine(self.cosine_lines)
        self.axis = XAxis()
        model.events.smoothing.connect(self._smooth)
        model.events.x_axis_shown.connect(lambda _: self.refresh_axis())
        model.events.run_slots.connect(self._ticks_changed)
        self._smooth(model.smoothing)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.poll)

    def start(self) -> None:
        self.timer.start(RUNS_POLL_MS)

    def stop(self) -> None:
        self.timer.stop()

    # ---- the runs ------------------------------------------------------------------------
    def list_runs(self, names: list[str]) -> None:
        """The folder's runs now (the first listing ticks its first runs)."""
        self.controller.list_runs(names)

    def lines(self) -> list[RunLine]:
        """The runs the charts of runs draw: the ticked ones (two or more), else the
        shown run alone."""
        if self.controller.overlaid:
            histories = self.run_set.histories()
            return [RunLine(name, slot, history) for slot, name in
                    enumerate(self.model.run_slots)
                    if name is not None and (history := histories.get(name)) is not None
                    and len(history)]
        run = self.parts.shown()
        history = None if run is None else run.history
        if run is None or history is None or not len(history):
            return []
        return [RunLine(run.folder.name, 0, history)]

    def drawn(self) -> list[tuple[str, History, object]]:
        """Every run drawn along the x axis now: (name, history, its "started")."""
        if self.controller.overlaid:
            return [(ln.name, ln.history, self.run_set.started(ln.name))
                    for ln in self.lines()]
        run, ghost = self.parts.shown(), self.parts.ghost()
        drawn = [] if run is None or run.history is None else \
            [(run.folder.name, run.history, run.header().get("started"))]
        return drawn + ([] if ghost is None else [ghost])

    def drawn_histories(self) -> dict[str, History | None]:
        return {name: history for name, history, _ in self.drawn()}

    def _ticks_changed(self, *_: object) -> None:
        self.run_set.follow(self.controller.ticked, self.parts.shown())
        overlaid = self.controller.overlaid
        p = self.parts
        p.plot_stack.show_only([self.runs_loss, self.runs_norm] if overlaid
                               else [p.loss_plot, p.global_norm])
        self.runs_changed()   # a run ticked anew is read by the next poll, in its turn

    def shown_changed(self) -> None:
        """The shown run, its steps or the run beside it changed (its source said)."""
        self.run_set.follow(self.controller.ticked, self.parts.shown())
        self.runs_changed()

    def poll(self) -> None:
        faults = len(self.run_set.faults)
        if self.run_set.poll():
            self.runs_changed()
        if faults or self.run_set.faults:
            self.on_fault(next(iter(self.run_set.faults.values()), None))

    def runs_changed(self) -> None:
        self.controller.runs_changed()
        self.refresh_axis()

    # ---- smoothing and the axis ----------------------------------------------------------
    def _smooth(self, weight: float) -> None:
        for chart in (self.parts.loss_plot, self.parts.global_norm, *self.charts):
            chart.set_smoothing(weight)

    def refresh_axis(self) -> None:
        """Every chart along the axis drawn, with the starts and unit of the runs drawn."""
        axis = XAxis.for_runs(self.model.x_axis_shown,
                              [(history, started) for _, history, started in self.drawn()])
        if axis.key() != self.axis.key():
            self.axis = axis
            for chart in (self.parts.loss_plot, self.parts.global_norm, *self.charts):
                chart.set_x_axis(axis)

    def key(self) -> tuple:
        """What the charts of runs have drawn when up to date (the painter's key)."""
        return (self.model.smoothing, self.axis.key(),
                tuple((ln.name, ln.slot, id(ln.history), len(ln.history))
                      for ln in self.lines()))
