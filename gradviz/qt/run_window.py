"""A recorded run's window: the main window's panels (losses, gradient norms, the push
at the features, cosines, memory, the graph) drawn from a run folder instead of an
engine. The window's model and a history are fed by a RunSource, which follows the
folder while its script writes it; the panels that only an engine can drive (the run
bar, the settings, the code, What happened) are not shown, and a line says why."""
from __future__ import annotations

from pathlib import Path
from typing import cast

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QResizeEvent
from PySide6.QtWidgets import QApplication, QLabel

from ..plain.config.config import Config
from ..plain.records.history import History
from ..plain.runs.recorded_run import RecordedRun, runs_below
from ..plain.text.fault_line import fault_line
from ..plain.window.window_model import WindowModel
from . import appearance
from .graph_renderer import start_layout_thread, stop_layout_thread
from .own_layout import own_layout
from .panel_painter import PanelPainter
from .run_faults import FaultLines, says_faults
from .run_header import NO_COMPARISON, RunHeader
from .run_menu import RunMenu
from .run_source import POLL_MS, RunSource
from .run_viewer import SIDEBAR_WIDTH, RunViewer, ViewerParts
from .screen_fit import tabs_for_cramped_charts
from .theme import THEMES, Theme
from .window_frame import WindowFrame

THREAD_WAIT_MS = 30_000
RUNS_MS = 2000   # a folder of runs is listed again this often
GRADIENTS_SHARE = 0.4    # of the width, beside the runs' column: the push chart's room
# of the height, for the graph's dock below: less than the main window's, whose lecture
# is about the graph; here the charts over the steps are (and many runs record none)
BOTTOM_SHARE = 0.32
GRAPH_BELOW_FROM = 900   # px of the window's height (at the normal text size)
NO_UPDATE_COSINE = "with the update: not in this recording"
NO_GRAPH = ("No graph recorded yet: gradviz.watch writes the graph on its sampled "
            "steps; a gradviz run --out folder, its last step's, as graph.json.")


class RunWindow(WindowFrame):
    def __init__(self, folder: str | Path, theme: Theme | None = None,
                 compare: str | Path | None = None):
        """compare: another run folder to compare the one shown with (B), from the start."""
        super().__init__(Config())
        self.setObjectName("runWindow")
        self.folder = Path(folder)
        self.setWindowTitle(f"gradviz — {self.folder.name or self.folder} (recorded run)")
        self.model = WindowModel(engine_state="stopped")
        self.faults = FaultLines()   # what failed to be read or drawn, said in the status
        self._empty = History([], [])
        self.header = RunHeader()
        self._engine_parts_away()
        # TensorBoard's scalars: the runs ticked over each other, smoothing, the x axis
        self.viewer = RunViewer(self, self.model, self.folder, ViewerParts(
            self.plot_stack, self.gradients_panel, self.loss_plot, self.global_norm,
            shown=lambda: self.source.run if hasattr(self, "source") else None,
            ghost=self._ghost_run), on_fault=self._runs_fault)
        self.plots = self.plots + self.viewer.charts
        self.grad_bars.same_step = True   # A's bars and B's at one step, which it says
        self.run_windows: list[RunWindow] = []   # opened from File > Open run…
        self.menu = RunMenu(self, self.plot_stack, lambda: self.history,
                            lambda: self.source.run.folder.name, self.open_other)
        self.model.events.generation.connect(self._fresh_history)
        self.header.runs.currentTextChanged.connect(self._pick_run)
        self.header.streams.currentTextChanged.connect(self._pick_stream)
        self.header.compare.currentTextChanged.connect(self._pick_compared)
        self.compared: Path | None = None if compare is None else Path(compare)
        self.render_thread, self.renderer = start_layout_thread(self, self.graph_view)
        self.graph_view.param_history_source = lambda name: self.history.param_history(name)
        self.apply_theme(theme or THEMES["light"])
        self.painter = PanelPainter(self, lambda: self.plots, lambda: self.history,
                                    self._shown_key, lambda: None, on_fault=self._panel_fault)
        self._follow(self._first_run())
        self.painter.start()
        self.viewer.start()
        self.runs_timer = QTimer(self)   # a folder of runs: runs added since are listed
        self.runs_timer.timeout.connect(self._look_for_runs)
        self.runs_timer.start(RUNS_MS)

    def _engine_parts_away(self) -> None:
        """The run bar, the settings, the code and What happened need an engine: not
        shown; the header's line says why. The torchviz export asks the engine too."""
        self._grid.removeWidget(self.run_bar)
        self.run_bar.hide()
        self._grid.addWidget(self.header, 0, 0)
        for dock in (self.controls_dock, self.code_dock, self.events_dock):
            dock.hide()
            dock.toggleViewAction().setEnabled(False)
        menu = self.graph_view.export_button.menu()
        for action in menu.actions():
            if action.text().startswith("torchviz"):
                menu.removeAction(action)
        self.graph_view._set_caption(NO_GRAPH)


    # ---- the run shown ---------------------------------------------------------------
    def _first_run(self) -> Path:
        """The folder itself, or (a folder of runs) the first run in it, listed to pick."""
        runs = runs_below(self.folder)
        self.header.set_runs([r.name for r in runs])
        self.viewer.list_runs([r.name for r in runs])
        return runs[0] if runs else self.folder

    @says_faults("list the runs of the folder")
    def _look_for_runs(self) -> None:
        runs = runs_below(self.folder)
        self.header.set_runs([r.name for r in runs])
        self.viewer.list_runs([r.name for r in runs])
        self._list_compared(runs)
        if runs and self.source.run.folder == self.folder:
            self._pick_run(runs[0].name)   # no run here, and now one below: shown

    def _list_compared(self, runs: list[Path]) -> None:
        """The folder's other runs, to pick B from."""
        shown = self.source.run.folder if hasattr(self, "source") else None
        self.header.set_compare_runs([r.name for r in runs if r != shown],
                                     None if self.compared is None else self.compared.name)

    @says_faults("compare with the run picked")
    def _pick_compared(self, name: str) -> None:
        """B picked in the header (its first item: no comparison)."""
        if not name:
            return
        picked = self.folder / name if name != NO_COMPARISON else None
        self.compared = picked
        self.source.compare_with(picked)
        self._set_ghosts()
        self.viewer.shown_changed()

    @says_faults("show the run picked")
    def _pick_run(self, name: str) -> None:
        if name:
            self.source.stop()
            self.source.deleteLater()
            self._follow(self.folder / name)

    def _follow(self, folder: Path) -> None:
        read = self.viewer.run_set.runs.get(folder.name) \
            if folder.parent == self.folder else None   # a ticked run: read already
        self.source = source = RunSource(self.model, folder, self, read)
        if self.compared == folder:   # a run is not compared with itself
            self.compared = None
        if self.compared is not None:
            source.compared = RecordedRun(self.compared)
        source.graph.connect(self._show_graph)
        source.changed.connect(self._show_lines)
        self._fresh_history()
        self._list_compared(runs_below(self.folder))
        source.start()

    @says_faults("show the stream picked")
    def _pick_stream(self, name: str) -> None:
        if name:
            self.source.show_stream(name)

    @says_faults("draw the recorded graph")
    def _show_graph(self, graph, caption: str) -> None:
        """A recorded graph; one without module calls (gradviz.watch adds no hooks to
        record them) has no module boxes to draw: its autograd ops are drawn."""
        if not graph.modules and self.graph_view.module_view:
            self.graph_view.set_module_view(False)
        self.graph_view.show_graph(graph, caption)

    @property
    def history(self) -> History:
        source = getattr(self, "source", None)
        history = None if source is None else source.history
        return self._empty if history is None else history

    def _ghost(self) -> tuple[str, History] | None:
        """The run compared with (B), else the rank after the one shown (the first,
        after the last), drawn dashed."""
        compared = self.source.compared
        if compared is not None:
            history = compared.history
            return None if history is None else (f"B = {compared.folder.name}", history)
        run = self.source.run
        names = [n for n in run.streams if n in run.follower.histories]
        if len(names) < 2 or run.shown not in names:
            return None
        other = names[(names.index(run.shown) + 1) % len(names)]
        return other, run.follower.histories[other]

    def _ghost_run(self) -> tuple[str, History, object] | None:
        """The run drawn dashed, with its header's "started" (a rank's: the first step's
        time stands for it), for the charts' time since the start."""
        ghost = self._ghost() if hasattr(self, "source") else None
        if ghost is None:
            return None
        compared = self.source.compared
        started = None if compared is None else compared.header().get("started")
        return ghost[0], ghost[1], started

    @says_faults("show the run's losses and parameters")
    def _fresh_history(self) -> None:
        m = self.model
        for plot in self.plots:
            plot.set_model(list(m.head_names), list(m.param_names))
        # until a recorded step has it (gradviz run --out's reports may)
        self.cosine.update_line.setText(NO_UPDATE_COSINE)
        self._set_ghosts()

    def _set_ghosts(self) -> None:
        ghost = self._ghost() if hasattr(self, "source") else None
        if ghost is not None:
            run = self.source.run
            self.grad_bars.shown_label = (f"A = {run.folder.name}" if self.source.compared
                                          else run.shown or "")
        for plot in (self.loss_plot, self.global_norm, self.grad_bars):
            if ghost is None:
                if plot.ghost is not None:
                    plot.set_ghost(None)
            elif plot.ghost is not ghost[1]:
                plot.set_ghost(ghost[1], f"{ghost[0]} (dashed)")

    @says_faults("show what the run says")
    def _show_lines(self) -> None:
        self._show_status()
        run = self.source.run
        self.header.set_streams(run.streams, run.shown)
        self.header.set_rank_lines(run.rank_lines())
        self.header.set_notes(run.notes())
        self.header.set_compare_lines(self.source.compare_lines())
        self._set_ghosts()
        self.viewer.shown_changed()

    def _show_status(self) -> None:
        """The status line: a fault of reading or drawing where there is one (the
        window goes on: the next look, the next steps try again), else the run's."""
        run, fault = self.source.run, self.source.fault or self.faults.line()
        if fault is not None:
            self.header.status.setText(f"{fault} (the window goes on; looked at again "
                                       f"every {POLL_MS} ms)")
        elif run.problem is not None:
            self.header.status.setText(f"{run.problem} (looked at again every {POLL_MS} ms)")
        else:
            self.header.status.setText(run.status())

    def show_fault(self, where: str, line: str | None) -> None:
        """A part's fault said (line), or cleared (None)."""
        if line is not None:
            self.faults.say(where, line)
        elif not self.faults.clear(where):
            return
        if hasattr(self, "source"):
            self._show_status()

    def _panel_fault(self, panel, error: BaseException | None) -> None:
        title = panel.findChild(QLabel, panel.objectName() + "Title")
        name = title.text() if title is not None else panel.objectName()
        self.show_fault(f"draw {name}", None if error is None else
                        f"Could not draw {name}: {fault_line(error)}")

    def _runs_fault(self, line: str | None) -> None:
        self.show_fault("read the runs ticked", line)

    def _shown_key(self) -> tuple:
        ghost = self._ghost()
        return (self.model.generation, len(self.history),
                None if ghost is None else (ghost[0], len(ghost[1])), self.viewer.key())

    def open_other(self, path: str) -> RunWindow:
        """Another run folder, in a window of its own (File > Open run…), at this one's
        size and theme; this one goes on as it is."""
        other = RunWindow(path, self.theme)
        # closed, it is deleted then, not at the interpreter's exit (see MainWindow.dispose)
        other.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.run_windows = [w for w in self.run_windows if shiboken6.isValid(w)] + [other]
        other.resize(self.size())
        other.show()
        other.first_layout()
        return other

    # ---- drawing ---------------------------------------------------------------------
    def refresh(self) -> None:
        """Every shown panel up to date now (screenshots, tests)."""
        self.source.poll()
        self.painter.paint_all()

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        appearance.apply(cast(QApplication, QApplication.instance()), theme, self)
        for panel in self.plots + [self.graph_view]:
            panel.apply_theme(theme)

    def closeEvent(self, event: QCloseEvent) -> None:   # noqa: N802 (Qt's name)
        self.shutdown()
        super().closeEvent(event)

    def first_layout(self) -> None:
        """The main window's first layout, but for the settings' dock (not shown: the
        runs' column and the gradients' dock take its room). On a low screen the graph
        and the memory are tabs beside the gradients: below the charts, at 1280x720,
        they left the loss chart a data area 10 px high."""
        low = self.height() < GRAPH_BELOW_FROM * self.theme.zoom
        if low:
            for dock in (self.graph_dock, self.memory_dock):
                # moved to the area first: Qt 6.12 leaves a dock tabbed in another area
                # where it is when asked to tabify it directly (screen_fit does the same)
                self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
                self.tabifyDockWidget(self.gradients_dock, dock)
            self.gradients_dock.raise_()
        self.resizeDocks([self.viewer.dock, self.gradients_dock],
                         [int(SIDEBAR_WIDTH * self.theme.zoom),
                          int(self.width() * GRADIENTS_SHARE)], Qt.Orientation.Horizontal)
        if not low:
            self.resizeDocks([self.graph_dock], [int(self.height() * BOTTOM_SHARE)],
                             Qt.Orientation.Vertical)
        self.fit_charts()

    def fit_charts(self) -> None:
        """The gradient charts into tabs where their dock is too small for them side by
        side (at 1024x768 the push chart was left 90 px wide), as the main window's
        (only that way: once in tabs, a resize needs no layout pass for it)."""
        if self.gradients_panel.compact:
            return
        own_layout(self).activate()
        tabs_for_cramped_charts(self.gradients_panel, self.theme.zoom)

    def resizeEvent(self, event: QResizeEvent) -> None:   # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if hasattr(self, "theme"):
            self.fit_charts()

    def shutdown(self) -> None:
        """Stop following the folder, painting and any graph layout in flight."""
        self.runs_timer.stop()
        self.viewer.stop()
        self.source.stop()
        self.painter.stop()
        stop_layout_thread(self.render_thread, self.graph_view, THREAD_WAIT_MS)
