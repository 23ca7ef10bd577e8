"""The main window's frame: its panels, made and laid out in the middle and in docks
(where a first launch puts them), and the settings fitted to their dock. No engine and
no model here: MainWindow binds these to them."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QDockWidget, QGridLayout, QMainWindow, QScrollArea, QWidget

from ..plain.config.config import Config
from ..plain.files.desktop_files import ICON_NAME, desktop_file
from ..plain.window.dock_room import bottom_share, graph_beside
from .controls import ControlsPanel
from .run_bar import RunBar
from .widgets.code_view import CodeView
from .widgets.events_view import EventsView
from .widgets.grad_views import CosineHeatmap, GlobalNormPlot, GradNormBars, JunctionPlot
from .widgets.gradients_panel import GradientsPanel
from .widgets.graph_view import GraphView
from .widgets.loss_plot import LossPlot
from .widgets.memory_plot import MemoryPlot
from .widgets.plot_stack import PlotStack
from .window_layout import add_dock


class WindowFrame(QMainWindow):
    def __init__(self, config: Config):
        super().__init__()
        # the icon the desktop entry shows, on the title bar and the task bar too
        self.setWindowIcon(QIcon(str(desktop_file(ICON_NAME))))
        self._build_panels(config)
        self._build_docks()

    def fit(self) -> None:
        """Fit the window to its screen (MainWindow's screen fitting does)."""

    # ---- the panels and docks --------------------------------------------------------------
    def _build_panels(self, config: Config) -> None:
        self.controls = ControlsPanel(config)
        self.run_bar = RunBar()
        self.loss_plot, self.grad_bars = LossPlot(), GradNormBars()
        self.global_norm = GlobalNormPlot()
        self.junction, self.cosine, self.memory = JunctionPlot(), CosineHeatmap(), MemoryPlot()
        self.graph_view, self.code_view, self.events_view = GraphView(), CodeView(), EventsView()
        self.plots: list[Any] = [self.loss_plot, self.grad_bars, self.global_norm, self.junction,
                      self.cosine, self.memory]
        # each panel by the name a lesson's slide gives it (plain.lessons.lessons.PANELS): what
        # the stage borrows, and whose least size the screen fitting grows with the text
        self.named_panels: dict[str, QWidget] = {
            "graph": self.graph_view, "memory": self.memory, "code": self.code_view,
            "events": self.events_view, "grad_norms": self.grad_bars,
            "junction": self.junction, "cosine": self.cosine, "loss": self.loss_plot,
            "global_norm": self.global_norm}
        for plot in self.plots:   # every head in the legends from the start, not only head0
            plot.set_model(config.head_names(), [])

    def _build_docks(self) -> None:
        central = QWidget()
        grid = QGridLayout(central)
        grid.setContentsMargins(2, 2, 2, 2)
        self.plot_stack = PlotStack([(self.loss_plot, "loss per head", 3),
                                     (self.global_norm, "global gradient norm", 1)])
        grid.addWidget(self.run_bar, 0, 0)
        grid.addWidget(self.plot_stack, 1, 0)
        grid.setRowStretch(1, 1)
        self._grid = grid
        central.setObjectName("centralArea")
        self.setCentralWidget(central)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.controls)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.controls_scroll = scroll
        left, right, bottom = (Qt.DockWidgetArea.LeftDockWidgetArea,
                               Qt.DockWidgetArea.RightDockWidgetArea,
                               Qt.DockWidgetArea.BottomDockWidgetArea)
        self.controls_dock = add_dock(self, "Settings", "controlsDock", scroll, left)
        self.gradients_panel = GradientsPanel(self.grad_bars, self.junction, self.cosine)
        self.gradients_dock = add_dock(self, "Gradients", "gradientsDock",
                                       self.gradients_panel, right)
        self.graph_dock = add_dock(self, "Autograd graph", "graphDock", self.graph_view, bottom)
        self.code_dock = add_dock(self, "Code", "codeDock", self.code_view, bottom)
        self.memory_dock = add_dock(self, "Memory", "memoryDock", self.memory, bottom)
        self.events_dock = add_dock(self, "What happened", "eventsDock", self.events_view,
                                    bottom)
        for dock in (self.code_dock, self.memory_dock, self.events_dock):
            self.tabifyDockWidget(self.graph_dock, dock)
        self.graph_dock.raise_()

    def panel_docks(self) -> list[QDockWidget]:
        """Every dock, which a lesson's stage puts away while it is shown."""
        return self.findChildren(QDockWidget)

    def first_layout(self) -> None:
        """Dock sizes for a first launch on a 1920x1080 projector (later launches restore
        the user's own); needs the window at its size, so it runs once it is shown."""
        self.resizeDocks([self.controls_dock, self.gradients_dock],
                         [self.controls_scroll.minimumWidth(), int(self.width() * 0.36)],
                         Qt.Orientation.Horizontal)
        self.resizeDocks([self.graph_dock],
                         [int(self.height() * bottom_share(self.width(), self.height()))],
                         Qt.Orientation.Vertical)
        self.fit()
        self._graph_beside_the_charts()

    def _graph_beside_the_charts(self) -> None:
        """Where the fitting put the gradient charts beside the graph (a small screen),
        the graph the larger part of that row (plain.window.dock_room)."""
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        if self.dockWidgetArea(self.gradients_dock) != bottom or self.gradients_dock.isHidden():
            return
        row = self.graph_dock.width() + self.gradients_dock.width()
        graph = graph_beside(self.width(), self.height(), row)
        if graph is not None:
            self.resizeDocks([self.graph_dock, self.gradients_dock], [graph, row - graph],
                             Qt.Orientation.Horizontal)

    def _fit_controls(self) -> None:
        """The settings must fit without a horizontal scroll bar at any zoom."""
        self.controls.adjustSize()
        bar = self.controls_scroll.verticalScrollBar().sizeHint().width()
        width = self.controls.sizeHint().width() + bar + 4
        self.controls_scroll.setMinimumWidth(width)
        if self.isVisible() and self.controls_dock.width() < width:
            self.resizeDocks([self.controls_dock], [width], Qt.Orientation.Horizontal)

