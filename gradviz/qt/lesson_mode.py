"""Lessons in the window, as Qt: the Lessons menu, the start page, the narration dock, the
keys a presenter's clicker sends (PageDown / PageUp, Home, Esc, F5), the lesson file
dialog, and the stage. What a slide does (the window's model, the engine, the ghosts,
the graph's framing) is the Qt-free LessonController's; this module hands it the views.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QFileDialog, QMainWindow, QWidget

from ..engine import protocol as p
from ..plain.config.config import Config
from ..plain.controllers.lesson_controller import BASE_TITLE, LessonController, LessonViews
from ..plain.lessons.decks import Deck, bundled_deck_names, find_deck, load_deck
from ..plain.lessons.lesson_references import DrawnReference
from ..plain.lessons.lessons import (
    Lesson,
    LessonError,
    Slide,
    bundled_names,
    find_lesson,
    load_lesson,
)
from ..plain.records.history import History
from ..plain.stage.stage_layout import Placement
from ..plain.window.window_model import WindowModel
from .plain_dialogs import warn
from .stage import Stage
from .stage_geometry import watch_stage
from .widgets.graph_facts import facts_text
from .widgets.lesson_list import LessonList
from .widgets.line_panel import SLIDE_GHOST_LABEL
from .widgets.narration_view import NarrationView
from .window_layout import add_dock

if TYPE_CHECKING:
    from .engine_client import EngineClient
    from .widgets.graph_view import GraphView

__all__ = ["BASE_TITLE", "LessonMode", "LessonParts"]

# what each panel a slide can name is called on the stage, where it has no title of its
# own (the charts have theirs)
STAGE_TITLES = {"graph": "Autograd graph", "memory": "Memory", "code": "Code",
                "events": "What happened"}
# the charts that draw the slide before's run beside this one's (keep = "ghost")
GHOSTED = ("loss", "global_norm", "junction", "memory", "grad_norms")
# a slide's first state in, and its graph not drawn this long after: shown without it
# (a graph the engine could not read is never sent; the caption says what is drawn)
GRAPH_LATE_MS = 3000


@dataclass(frozen=True)
class LessonParts:
    """What a lesson works with, handed over by the window (which owns them all)."""
    # each slide as one message; a fresh engine on a model file (or the built-in one)
    engine: EngineClient
    history: Callable[[], History]    # the run on screen now (kept for a ghost)
    # every panel a slide can name (plain.lessons.lessons.PANELS), by that name: the stage
    # borrows them, and the window takes them home when the lesson ends
    panels: Mapping[str, QWidget]
    graph_view: GraphView             # one box per module call, framed on the focus


class StagePanels:
    """The StageView protocol on the Stage widget: a slide's panels, by name, borrowed."""

    def __init__(self, stage: Stage, panels: Mapping[str, QWidget], narration: NarrationView):
        self.stage, self.panels, self.narration = stage, panels, narration

    @property
    def placement(self) -> Placement | None:
        return self.stage.placement

    def show_slide(self, panels: tuple[str, ...], layout: str, zoom: float) -> None:
        shown = [(name, self.panels[name], STAGE_TITLES.get(name)) for name in panels
                 if name in self.panels]
        self.stage.show_slide(shown, layout, zoom, self.narration.height_for_width)

    def set_zoom(self, zoom: float) -> None:
        self.stage.set_zoom(zoom)

    def arrange(self) -> None:
        self.stage.arrange()

    # the Cards protocol: a deck's slide of text, the end, over the whole stage
    def show_card(self, title: str, text: str) -> None:
        self.stage.show_card(title, text)

    def hide_card(self) -> None:
        self.stage.hide_card()


class SlideGhosts:
    """The Ghosts protocol on the charts a keep = "ghost" slide draws the one before on."""

    def __init__(self, panels: Mapping[str, QWidget]):
        self.charts = [panels[name] for name in GHOSTED]

    def set_ghost(self, history: History | None) -> None:
        for chart in self.charts:
            if history is None:
                chart.set_ghost(None)  # type: ignore[attr-defined]
            else:
                chart.set_ghost(history, SLIDE_GHOST_LABEL)  # type: ignore[attr-defined]


class ChartReferences:
    """The ReferenceLines protocol on the charts, by the name a slide gives each."""

    def __init__(self, panels: Mapping[str, QWidget]):
        self.panels = panels

    def set_references(self, lines: dict[str, list[DrawnReference]]) -> None:
        for name, drawn in lines.items():
            self.panels[name].set_references(drawn)  # type: ignore[attr-defined]


class WindowTitle:
    def __init__(self, window: QMainWindow):
        self._window = window

    def set_title(self, title: str) -> None:
        self._window.setWindowTitle(title)


class LessonMode(QObject):
    file_opened = Signal(str)   # a lesson file's path, opened

    def __init__(self, window: QMainWindow, model: WindowModel, parts: LessonParts):
        super().__init__(window)
        self.window = window
        self.model = model   # what the window shows: the lesson, its slide, text size
        self.parts = parts
        self.narration = NarrationView()
        # a slide's narration and panels, in the window's middle in place of the docks
        # (see plain.stage.stage_layout): shown only while a lesson is open
        self.stage = Stage(self.narration)
        stage_panels = StagePanels(self.stage, parts.panels, self.narration)
        self.controller = LessonController(model, LessonViews(
            parts.engine, stage_panels, parts.graph_view,
            SlideGhosts(parts.panels), ChartReferences(parts.panels), self.narration,
            WindowTitle(window), parts.history,
            lambda run: QTimer.singleShot(0, run), stage_panels))
        self.stage.arranged.connect(self.controller.on_arranged)
        self.geometry = watch_stage(self.stage, model)   # for a walk from outside
        self._watch_preparing()
        # the start page: every lesson, a tab beside the settings (the window puts it
        # there; the settings stay in front: a student exploring alone starts there)
        self.start_page = LessonList(self._bundled())
        self.start_page.chosen.connect(self.open_named)
        self.start_dock = add_dock(window, "Lessons", "startDock", self.start_page,
                                   Qt.DockWidgetArea.LeftDockWidgetArea)
        self.presenting = False
        self._start_was_shown = True
        self._build_menu()
        self._build_keys()

    @property
    def player(self) -> LessonController:
        """Which lesson and slide is on (the controller)."""
        return self.controller

    @property
    def slide(self) -> Slide | None:
        return self.controller.slide

    @property
    def staging(self) -> bool:
        return self.controller.staging

    @property
    def settings_before(self) -> tuple[Config, int] | None:
        return self.controller.settings_before

    @property
    def model_before(self) -> str | None:
        return self.controller.model_before

    # ---- a slide prepared: what the engine says of it -----------------------------------
    def _watch_preparing(self) -> None:
        """The stage says what a slide waits for until its first state is in (the
        controller's SlidePreparing decides; this tells it the engine's news)."""
        self.model.events.preparing.connect(self.stage.set_preparing)
        # a slide's facts come with its graph: none until then, nor on a slide without
        self.model.events.slide_shown.connect(lambda _n: self._show_facts(""))
        self.model.events.focus_facts.connect(self._facts_asked)
        self.parts.engine.received.connect(self._engine_said)
        self.parts.graph_view.drawn.connect(self.controller.preparing.graph_drawn)
        self._graph_late = QTimer(self)
        self._graph_late.setSingleShot(True)
        self._graph_late.setInterval(GRAPH_LATE_MS)
        self._graph_late.timeout.connect(self._graph_is_late)
        self._timed: object = None   # the slide's wait the clock runs for

    def _engine_said(self, record: object) -> None:
        preparing, engine = self.controller.preparing, self.parts.engine
        if isinstance(record, p.ConfigApplied):
            if record.slide == engine.slides_sent:   # the answer to the slide sent last
                preparing.answered()
        elif isinstance(record, p.ConfigRejected):
            preparing.refused()
        elif isinstance(record, p.PhaseDone):
            preparing.phase_done(record.phase.name, record.phase.event is not None)
        elif isinstance(record, p.Failed):
            preparing.failed()
        elif isinstance(record, p.Graph):
            preparing.graph_came(record.graph)
            if self.model.focus_facts:
                self._show_facts(facts_text(record.graph, self.model.focus or ""))
        self._time_the_graph()

    def _facts_asked(self, asked: bool) -> None:
        if not asked:
            self._show_facts("")

    def _show_facts(self, text: str) -> None:
        """The slide's facts (what hovering its focused box shows) in the narration, the
        stage placed again where that changed the narration's height."""
        if self.narration.show_facts(text) and self.stage.isVisible():
            self.stage.arrange()

    def steps_came(self) -> None:
        """The window took new steps of the model on screen into its history."""
        self.controller.preparing.steps_came()
        self._time_the_graph()

    def _time_the_graph(self) -> None:
        if self.controller.preparing.ask_graph():
            self.parts.engine.request_graph()
        wait = self.controller.preparing.wait
        if wait is not None and wait.state and wait is not self._timed:
            self._timed = wait
            self._graph_late.start()

    def _graph_is_late(self) -> None:
        if self.controller.preparing.wait is self._timed:   # (not a later slide's)
            self.controller.preparing.graph_late()

    # ---- menu and keys ----------------------------------------------------------------
    def _build_menu(self) -> None:
        menu = self.window.menuBar().addMenu("&Lessons")
        menu.setObjectName("lessonsMenu")
        start = menu.addAction("All lessons (start page)", self.show_start_page)
        start.setObjectName("lessonStartPage")
        menu.addSeparator()
        for name, title in self._bundled():
            action = QAction(f"{name.split('-', 1)[0]}  {title}", self)
            action.setObjectName(f"lesson_{name}")
            action.triggered.connect(lambda _checked=False, n=name: self.open_named(n))
            menu.addAction(action)
        menu.addSeparator()
        for name, title in self._decks():
            action = QAction(f"Deck: {title}", self)
            action.setObjectName(f"deck_{name}")
            action.triggered.connect(lambda _checked=False, n=name: self.open_deck_named(n))
            menu.addAction(action)
        menu.addSeparator()
        player = self.controller
        menu.addAction("Open a lesson file…", lambda: self.open_file())
        menu.addAction("Open a deck file…", lambda: self.open_deck_file())
        menu.addAction("Next slide\tPage Down", player.next)
        menu.addAction("Previous slide\tPage Up", player.previous)
        menu.addAction("Present (full screen, no settings)\tF5", self.toggle_presenting)
        menu.addAction("Leave the lesson or deck\tEsc", player.leave)
        self.menu = menu

    @staticmethod
    def _bundled() -> list[tuple[str, str]]:
        out = []
        for name in bundled_names():
            try:
                out.append((name, find_lesson(name).title))
            except LessonError:   # a broken bundled file must not take the menu down
                continue
        return out

    @staticmethod
    def _decks() -> list[tuple[str, str]]:
        out = []
        for name in bundled_deck_names():
            try:
                out.append((name, find_deck(name).title))
            except LessonError:   # a broken bundled deck must not take the menu down
                continue
        return out

    def show_start_page(self) -> None:
        self.start_dock.show()
        self.start_dock.raise_()
        self.start_page.list.setFocus()

    def _build_keys(self) -> None:
        player = self.controller
        keys: list[tuple[Qt.Key, Callable[[], None]]] = [
            (Qt.Key.Key_PageDown, player.next), (Qt.Key.Key_PageUp, player.previous),
            (Qt.Key.Key_Home, player.first), (Qt.Key.Key_Escape, self._escape),
            (Qt.Key.Key_F5, self.toggle_presenting)]
        for key, slot in keys:
            shortcut = QShortcut(QKeySequence(key), self.window)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(slot)

    def toggle_presenting(self) -> None:
        """F5, as in a slide deck: full screen, the menus out of the way (and, outside a
        lesson, the settings; a lesson's stage shows none). F5 or Esc leaves."""
        self.presenting = not self.presenting
        self.window.menuBar().setVisible(not self.presenting)
        if not self.staging:
            self.model.show_dock("controlsDock", not self.presenting)
            if self.presenting:
                self._start_was_shown = self.start_dock.isVisible()
            self.start_dock.setVisible(not self.presenting and self._start_was_shown)
        self.model.full_screen = self.presenting

    def _escape(self) -> None:
        """Esc leaves the presentation first, then the lesson."""
        if self.presenting:
            self.toggle_presenting()
        else:
            self.controller.leave()

    def open_file(self, path: str | None = None) -> bool:
        """A lesson file, chosen (or given: a drop, Open Recent); file_opened says so."""
        path = path or QFileDialog.getOpenFileName(self.window, "Open a lesson", "",
                                                   "Lessons (*.toml)")[0]
        if not path:
            return False
        try:
            self.open(load_lesson(path))
        except LessonError as exc:
            warn(self.window, "Not a lesson", str(exc))
            return False
        self.file_opened.emit(path)
        return True

    def open_deck_file(self, path: str | None = None) -> bool:
        """A deck file, chosen (or given: --deck, a drop, Open Recent); file_opened says
        so. A bad one: one line naming the file, the slide and the key."""
        path = path or QFileDialog.getOpenFileName(self.window, "Open a deck", "",
                                                   "Decks (*.toml)")[0]
        if not path:
            return False
        try:
            self.open_deck(load_deck(path))
        except LessonError as exc:
            warn(self.window, "Not a deck", str(exc))
            return False
        self.file_opened.emit(path)
        return True

    # ---- forwarded to the controller ----------------------------------------------------
    def open_named(self, name: str) -> None:
        """A lesson by name or file, NAME:N at its slide N."""
        self.controller.open_named(name)

    def open(self, lesson: Lesson, index: int = 0) -> None:
        self.controller.open(lesson, index)

    def open_deck_named(self, name: str) -> None:
        self.controller.open_deck(find_deck(name))

    def open_deck(self, deck: Deck, position: int = 0) -> None:
        self.controller.open_deck(deck, position)

    def rearrange(self) -> None:
        """An error's explanation came (or went): the stage gives it room to be read."""
        if self.stage.isVisible():
            self.controller.rearrange()

    def refit(self) -> None:
        """The stage laid out again for its room, once the window is fitted to its
        screen (after a slide, a new text size: the screen fitting calls this)."""
        self.controller.rearrange()
