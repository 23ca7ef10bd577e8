"""Comparing in the window, as Qt: the Compare menu, its file dialog and dock, and the
charts B is drawn on. Which B, what is asked of the engine, B's history and the words
the dock shows are the Qt-free CompareController's; this module hands it the views.

The engine trains B in lockstep with A, from the same seed, data and initial weights,
and reports every step of B beside A's: drawn as dashed ghost lines on the loss and
memory charts and as pale bars beside A's gradient norms; the Compare dock shows the
verdict of each step, the differences per parameter group, both peaks and B's error."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMainWindow, QMenu, QWidget

from ..engine import protocol as p
from ..plain.config.config import Config
from ..plain.controllers.compare_controller import CompareController, CompareViews, differences
from ..plain.controllers.controller_views import ComparePanel, Ghosts
from ..plain.controllers.lesson_controller import LessonController
from ..plain.records.history import History
from ..plain.window.window_model import WindowModel
from .widgets.compare_line import CompareLine
from .widgets.compare_view import CompareView
from .widgets.gradients_panel import GradientsPanel
from .window_layout import add_dock

if TYPE_CHECKING:
    from .engine_client import EngineClient
    from .stage import Stage

__all__ = ["CompareMode", "CompareParts", "differences"]

TOML_FILTER = "gradviz configs (*.toml)"


@dataclass(frozen=True)
class CompareParts:
    """What Compare works with, handed over by the window (which owns them all)."""
    engine: EngineClient              # pins B, and reports B's steps beside A's
    history: Callable[[], History]    # A's run as it is now (a fresh model, a new one)
    generation: Callable[[], int]     # the fresh model A's steps on screen belong to
    lessons: LessonController         # the open lesson, whose other slides can be B
    ghosts: Sequence[Ghosts]          # the charts that draw B dashed or pale beside A
    memory_dock: QDockWidget          # Memory, put in front beside the Compare dock
    gradients_panel: GradientsPanel   # whose per-parameter bars (A | B) go in front
    grad_bars: QWidget
    # a lesson's stage: Compare's verdict goes on the slide (beside its main panel), not
    # in the dock
    stage: Stage | None = None


class ComparePanels:
    """The ComparePanel protocol on the dock's view and the stage's line alike."""

    def __init__(self, *panels: ComparePanel):
        self.panels = panels

    def show_pinned(self, b_name: str, differences: str) -> None:
        for panel in self.panels:
            panel.show_pinned(b_name, differences)

    def set_differences(self, b_name: str, differences: str) -> None:
        for panel in self.panels:
            panel.set_differences(b_name, differences)

    def show_record(self, record) -> None:
        for panel in self.panels:
            panel.show_record(record)

    def show_stopped(self) -> None:
        for panel in self.panels:
            panel.show_stopped()

    def show_failed(self, reason: str) -> None:
        for panel in self.panels:
            panel.show_failed(reason)


class CompareFront:
    """The Compare dock in front; beside the charts: the Memory chart (A's and B's
    memory) and the per-parameter bars (A | B) in front of the gradient charts. On a
    lesson's stage, the verdict on the slide instead (Stage.set_verdict): the dock took
    the lower half of the slide, and the slide's chart its room."""

    def __init__(self, dock: QDockWidget, model: WindowModel, parts: CompareParts,
                 line: CompareLine):
        self.dock, self.model, self.parts, self.line = dock, model, parts, line

    def reveal(self, beside_charts: bool) -> None:
        if self.model.in_lesson and self.parts.stage is not None:
            self.parts.stage.set_verdict(self.line)
            return
        self.dock.show()
        self.dock.raise_()
        if beside_charts:
            parts = self.parts
            self.model.show_dock("memoryDock", True)
            parts.memory_dock.raise_()
            parts.gradients_panel.set_compact(True)
            parts.gradients_panel.tabs.setCurrentWidget(parts.grad_bars)


class CompareMode(QObject):
    def __init__(self, window: QMainWindow, model: WindowModel, parts: CompareParts):
        super().__init__(window)
        self.window = window
        # what the window shows: the lesson, the settings (A), and B once pinned
        self.model = model
        self.parts = parts
        self.view = CompareView()
        # beside the graph's tabs (not one of them): shown, it sits next to the Memory
        # chart, which then shows both runs' memory
        self.dock = add_dock(window, "Compare", "compareDock", self.view,
                             Qt.DockWidgetArea.BottomDockWidgetArea)
        self.dock.hide()
        self._build_menu()
        self.line = CompareLine()   # the verdict on a lesson's stage
        if parts.stage is not None:
            self.line.height_changed.connect(parts.stage.arrange)
        self.controller = CompareController(model, CompareViews(
            ComparePanels(self.view, self.line), CompareFront(self.dock, model, parts, self.line),
            self, parts.ghosts, parts.history, lambda: parts.lessons.lesson,
            parts.lessons.replay))
        model.events.lesson.connect(self._place_line)
        model.events.b_requested.connect(self._place_line)
        # (the adapter has written B into the model, and the window made the new
        # generation's history, before this hears the engine's answer)
        parts.engine.received.connect(self._on_received)

    def _place_line(self, *_changed: object) -> None:
        """The verdict on the stage while a lesson compares (a failure to pin shows it
        again); off it when comparing stops or the lesson ends."""
        stage = self.parts.stage
        if stage is not None:
            staged = self.model.in_lesson and self.model.b_requested is not None
            stage.set_verdict(self.line if staged else None)

    def _on_received(self, record: object) -> None:
        if isinstance(record, p.BPinned):
            self.controller.on_b_pinned(record.config, record.problem)
        elif isinstance(record, p.ConfigApplied):
            self.controller.on_config_applied(record.config, record.did_reset)

    # ---- the menu -----------------------------------------------------------------------
    def _build_menu(self) -> None:
        w = self.window
        menu = QMenu("&Compare", w)
        menu.setObjectName("compareMenu")
        bar = w.menuBar()
        actions = bar.actions()
        if len(actions) > 1:
            bar.insertMenu(actions[1], menu)   # just after File
        else:
            bar.addMenu(menu)
        self.file_action = self._action(menu, "Compare with a saved file…", "compareAction",
                                        lambda: self.compare_with_file())
        self.pin_action = self._action(menu, "Pin these settings as B", "pinAction",
                                       lambda: self.pin_settings())
        self.slides_menu = menu.addMenu("Compare with this lesson's other slide")
        self.slides_menu.setObjectName("compareSlideMenu")
        menu.addSeparator()
        self.stop_action = self._action(menu, "Stop comparing", "stopCompareAction",
                                        lambda: self.controller.stop())
        menu.aboutToShow.connect(self.update_menu)
        menu.aboutToShow.connect(self.parts.engine.warm_b)   # B's process loads while B is chosen
        self.menu = menu

    def _action(self, menu: QMenu, text: str, name: str, slot: Callable[[], None]) -> QAction:
        action = QAction(text, self.window)
        action.setObjectName(name)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def show_choices(self, slides: list[tuple[int, str]], slides_enabled: bool,
                     stop_enabled: bool) -> None:
        """The CompareMenu protocol: the open lesson's other slides, Stop while comparing."""
        self.stop_action.setEnabled(stop_enabled)
        self.slides_menu.clear()
        self.slides_menu.setEnabled(slides_enabled)
        for index, title in slides:
            action = self.slides_menu.addAction(f"Slide {index + 1}: {title}")
            action.setObjectName(f"compareSlide{index + 1}")
            action.triggered.connect(
                lambda _checked=False, i=index: self.controller.pin_slide(i))

    def update_menu(self) -> None:
        self.controller.update_menu()

    # ---- forwarded to the controller ----------------------------------------------------
    @property
    def comparing(self) -> bool:
        return self.controller.comparing

    @property
    def history_b(self) -> History | None:
        return self.controller.history_b

    @property
    def b_config(self) -> Config | None:
        """B as the engine pinned it."""
        return self.model.pinned_b

    def compare_with_file(self, path: str | None = None) -> None:
        """B = these settings with the saved file's changes on top."""
        path = path or QFileDialog.getOpenFileName(self.window, "Compare with", "",
                                                   TOML_FILTER)[0]
        if path:
            self.controller.pin_file(path)

    def pin_settings(self) -> None:
        self.controller.pin_settings()

    def stop(self) -> None:
        self.controller.stop()

    def drain(self) -> int:
        """B's reported steps into its history; how many were new."""
        return self.controller.drain(self.parts.engine.compared, self.parts.generation())

    def seen(self) -> tuple[int, int]:
        return self.controller.seen()
