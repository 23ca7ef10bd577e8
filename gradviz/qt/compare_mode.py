"""Comparing in the window: the Compare menu pins a configuration B beside the settings A
(a saved file's changes on top of A, these very settings before a toggle is changed, or
another slide of the open lesson). The engine trains B in lockstep with A, from the same
seed, data and initial weights, and reports every step of B beside A's.

Here B's steps become a History of their own, drawn as dashed ghost lines on the loss
and memory charts and as pale bars beside A's gradient norms; the Compare dock shows the
verdict of each step, the differences per parameter group, both peaks and B's error."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMainWindow, QMenu, QWidget

from ..engine import protocol as p
from ..plain.config import Config, ConfigError, from_mapping, load_toml
from ..plain.history import History
from ..plain.window_model import WindowModel
from .lesson_player import LessonPlayer
from .widgets.compare_view import CompareView
from .widgets.gradients_panel import GradientsPanel
from .window_layout import add_dock

if TYPE_CHECKING:
    from .engine_client import EngineClient

TOML_FILTER = "gradviz configs (*.toml)"
# B is probed as A is and trains as many steps as A: these never tell them apart
NOT_COMPARED_KEYS = ("steps", "probes", "sample_every")


def _value(value) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value) or "none"
    if value is None:
        return "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


def differences(a: Config, b: Config) -> str:
    """How B's settings differ from A's, in words ('strategy: A sum, B in-loop')."""
    da, db = a.to_dict(), b.to_dict()
    told = [f"{key.replace('_', ' ')}: A {_value(da[key])}, B {_value(db[key])}"
            for key in da if key not in NOT_COMPARED_KEYS and da[key] != db[key]]
    return "; ".join(told) if told else "the same settings as A (so far)"


class Ghosted(Protocol):
    """A chart that draws a second run (B) beside the first."""

    def set_ghost(self, history: History | None) -> None: ...


@dataclass(frozen=True)
class CompareParts:
    """What Compare works with, handed over by the window (which owns them all)."""
    engine: EngineClient              # pins B, and reports B's steps beside A's
    history: Callable[[], History]    # A's run as it is now (a fresh model, a new one)
    generation: Callable[[], int]     # the fresh model A's steps on screen belong to
    lessons: LessonPlayer             # the open lesson, whose other slides can be B
    ghosts: Sequence[Ghosted]         # the charts that draw B dashed or pale beside A
    memory_dock: QDockWidget          # Memory, put in front beside the Compare dock
    gradients_panel: GradientsPanel   # whose per-parameter bars (A | B) go in front
    grad_bars: QWidget


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
                             Qt.BottomDockWidgetArea)
        self.dock.hide()
        self.b_name = ""
        self.b_config: Config | None = None   # B as the engine pinned it
        self.history_b: History | None = None
        parts.engine.received.connect(self._on_received)
        self._build_menu()

    # ---- the menu -----------------------------------------------------------------------
    def _build_menu(self) -> None:
        w = self.window
        menu = QMenu("&Compare", w)
        menu.setObjectName("compareMenu")
        bar = w.menuBar()
        following = bar.actions()[1] if len(bar.actions()) > 1 else None
        bar.insertMenu(following, menu)       # just after File
        self.file_action = self._action(menu, "Compare with a saved file…", "compareAction",
                                        lambda: self.compare_with_file())
        self.pin_action = self._action(menu, "Pin these settings as B", "pinAction",
                                       self.pin_settings)
        self.slides_menu = menu.addMenu("Compare with this lesson's other slide")
        self.slides_menu.setObjectName("compareSlideMenu")
        menu.addSeparator()
        self.stop_action = self._action(menu, "Stop comparing", "stopCompareAction",
                                        self.stop)
        menu.aboutToShow.connect(self.update_menu)
        menu.aboutToShow.connect(self.parts.engine.warm_b)   # B's process loads while B is chosen
        self.menu = menu
        self.update_menu()
        # the open lesson's other slides, as the lesson or its slide changes
        self.model.events.lesson.connect(lambda _name: self.update_menu())
        self.model.events.slide.connect(lambda _index: self.update_menu())

    def _action(self, menu: QMenu, text: str, name: str, slot) -> QAction:
        action = QAction(text, self.window)
        action.setObjectName(name)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def update_menu(self) -> None:
        """The open lesson's other slides, and Stop only while comparing."""
        self.stop_action.setEnabled(self.comparing)
        self.slides_menu.clear()
        player = self.parts.lessons
        lesson = player.lesson
        self.slides_menu.setEnabled(lesson is not None and len(lesson.slides) > 1)
        if lesson is None:
            return
        for index, slide in enumerate(lesson.slides):
            if index != player.index:
                action = self.slides_menu.addAction(f"Slide {index + 1}: {slide.title}")
                action.setObjectName(f"compareSlide{index + 1}")
                action.triggered.connect(lambda _checked=False, i=index: self.pin_slide(i))

    @property
    def comparing(self) -> bool:
        return self.model.b_requested is not None

    # ---- choosing B ---------------------------------------------------------------------
    def compare_with_file(self, path: str | None = None) -> None:
        """B = these settings with the saved file's changes on top."""
        path = path or QFileDialog.getOpenFileName(self.window, "Compare with", "",
                                                   TOML_FILTER)[0]
        if not path:
            return
        try:
            values = {k.replace("-", "_"): v for k, v in load_toml(path).items()}
            b = from_mapping(values, self.model.requested)
        except ConfigError as exc:
            self._show_dock()
            self.view.show_failed(str(exc))
            return
        self.pin(b, Path(path).name)

    def pin_settings(self) -> None:
        """B = the settings as they are now; a toggle changed next changes A alone."""
        self.pin(self.model.requested, "the settings pinned")

    def pin_slide(self, index: int) -> None:
        lesson = self.parts.lessons.lesson
        if lesson is None or not 0 <= index < len(lesson.slides):
            return
        slide = lesson.slides[index]
        self.pin(slide.config, f"slide {index + 1}, “{slide.title}”")

    def pin(self, config: Config, name: str) -> None:
        """Train B beside A (both from step 0) and show the comparison."""
        self.b_name = name
        self._show_dock()
        self.view.show_pinned(name, differences(self.model.requested, config))
        self.model.b_requested = config   # (the engine is told)
        self.stop_action.setEnabled(True)

    def stop(self) -> None:
        """Stop comparing: B is dropped, A goes on."""
        self.model.b_requested = None
        self._forget()
        self.view.show_stopped()

    def _show_dock(self) -> None:
        """The Compare dock beside the Memory chart (A's and B's memory), and the
        per-parameter bars (A | B) in front of the gradient charts."""
        parts = self.parts
        self.dock.show()
        self.dock.raise_()
        if self.model.in_lesson:   # the slide's stage holds its panels: they stay there
            return
        self.model.show_dock("memoryDock", True)
        parts.memory_dock.raise_()
        parts.gradients_panel.set_compact(True)
        parts.gradients_panel.tabs.setCurrentWidget(parts.grad_bars)

    # ---- what the engine says -------------------------------------------------------------
    def _on_received(self, record: object) -> None:
        if isinstance(record, p.BPinned):
            self._on_pinned(record.config, record.problem)
        elif isinstance(record, p.ConfigApplied):
            self._on_config_applied(record.config, record.did_reset)

    def _on_pinned(self, config: Config | None, problem: str | None) -> None:
        if problem is not None:
            self._forget()
            self._show_dock()
            self.view.show_failed(problem)
        elif config is None:
            self._forget()
        else:
            self.b_config = config
            self._new_history()

    def _on_config_applied(self, config: Config, did_reset: bool) -> None:
        if self.b_config is None:
            return
        if did_reset:   # both started again at step 0
            self._new_history()
        self.view.set_differences(self.b_name, differences(config, self.b_config))

    def _new_history(self) -> None:
        a = self.parts.history()
        self.history_b = History(a.head_names, a.param_names, keys=a.keys)
        self._set_ghost(self.history_b)

    def _forget(self) -> None:
        self.b_config, self.history_b = None, None
        self.model.b_requested = None
        self._set_ghost(None)
        self.stop_action.setEnabled(self.comparing)

    def _set_ghost(self, history: History | None) -> None:
        for panel in self.parts.ghosts:
            panel.set_ghost(history)

    def drain(self) -> int:
        """Move B's reported steps into its history and show the newest verdict; how
        many steps were new."""
        compared, generation = self.parts.engine.compared, self.parts.generation()
        latest, new = None, 0
        while compared:
            record_generation, record = compared.popleft()
            if record_generation != generation or self.history_b is None:
                continue   # of a model already replaced
            if record.b is not None:
                self.history_b.append(record.b)
                new += 1
            latest = record
        if latest is not None:
            self.view.show_record(latest)
        return new

    def seen(self) -> tuple:
        h = self.history_b
        return (id(h), 0 if h is None else len(h))
