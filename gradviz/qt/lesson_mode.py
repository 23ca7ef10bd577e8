"""Lessons in the window: the Lessons menu, the narration dock, the keys a presenter's
clicker sends (PageDown / PageUp, Home, Esc), and each slide applied: its config (from
step 0), its panels, its pace, and where it stops.

A slide changes the window's model (plain.window_model): the lesson and slide, the
panels on the stage, the settings asked for, the pace and play mode; the window and its
panels follow the model (the window puts its docks away while a lesson is open, and back
after it). The engine gets each slide as one message; where a slide stops is the
engine's to keep (exact at any pace). The panels a slide puts on the stage, and the
engine, are handed over by the window (LessonParts): nothing is fished off it.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QFileDialog, QMainWindow, QWidget

from ..plain.config import Config
from ..plain.history import History
from ..plain.lesson_references import REFERENCE_PANELS, reference_lines
from ..plain.lessons import Lesson, LessonError, bundled_names, find_lesson, load_lesson
from ..plain.window_model import WindowModel, nearest_pace_ms
from .lesson_player import LessonPlayer
from .plain_dialogs import warn
from .stage import Stage
from .widgets.lesson_list import LessonList
from .widgets.line_panel import SLIDE_GHOST_LABEL
from .widgets.narration_view import NarrationView, title_text
from .window_layout import add_dock

if TYPE_CHECKING:
    from .engine_client import EngineClient
    from .widgets.graph_view import GraphView

BASE_TITLE = "gradviz — autograd with several losses"
# what each panel a slide can name is called on the stage, where it has no title of its
# own (the charts have theirs)
# px at text size 1: a graph panel narrower shows no key (beside a 620 px graph at
# 1024x768 the key took 240 px and the graph's heads were cut off; its boxes say their
# state in words, "freed", "changed in place", and the narration says what is drawn)
KEY_LEAST_WIDTH = 900
STAGE_TITLES = {"graph": "Autograd graph", "memory": "Memory", "code": "Code",
                "events": "What happened"}


# the charts that draw the slide before's run beside this one's (keep = "ghost")
GHOSTED = ("loss", "global_norm", "junction", "memory")


@dataclass(frozen=True)
class LessonParts:
    """What a lesson works with, handed over by the window (which owns them all)."""
    engine: EngineClient              # each slide as one message; where it stops
    history: Callable[[], History]    # the run on screen now (kept for a ghost)
    # every panel a slide can name (plain.lessons.PANELS), by that name: the stage
    # borrows them, and the window takes them home when the lesson ends
    panels: Mapping[str, QWidget]
    graph_view: GraphView             # one box per module call, framed on the focus
    # a fresh engine on a model file (None: the built-in model), with a config or not
    open_model: Callable[[str | None, Config | None], None]


class LessonMode(QObject):
    def __init__(self, window: QMainWindow, model: WindowModel, parts: LessonParts):
        super().__init__(window)
        self.window = window
        self.model = model   # what the window shows: the lesson, its slide, text size
        self.parts = parts
        self.player = LessonPlayer(self)
        self.player.slideChanged.connect(self._show_slide)
        self.player.left.connect(self._leave)
        self.narration = NarrationView()
        # a slide's narration and panels, in the window's middle in place of the docks
        # (see plain.stage_layout): shown only while a lesson is open
        self.stage = Stage(self.narration)
        self.stage.arranged.connect(self._place_graph_key)
        self.stage.arranged.connect(self._check_room)
        # a new text size: the narration's height and every least size changed
        self.model.events.zoom.connect(lambda _zoom: self.on_text_size())
        # the start page: every lesson, a tab beside the settings (the window puts it
        # there; the settings stay in front: a student exploring alone starts there)
        self.start_page = LessonList(self._bundled())
        self.start_page.chosen.connect(self.open_named)
        self.start_dock = add_dock(window, "Lessons", "startDock", self.start_page,
                                   Qt.LeftDockWidgetArea)
        self.presenting = False
        self._start_was_shown = True
        # the settings and pace (ms) as the user had them before the lesson: quitting
        # mid-lesson remembers these, so the next launch is the user's free mode, not a
        # slide's (detach_ on, 1 s a step)
        self.settings_before: tuple[Config, int] | None = None
        # the model file that trained before the lesson (lessons teach on the built-in
        # model): opened again on leaving, with settings_before
        self.model_before: str | None = None
        # each slide's run as it was left ((lesson, slide index) -> History): a slide that
        # keeps the one before as a ghost draws that run, dashed, on its own axes
        self.runs: dict[tuple[str, int], object] = {}
        self._on_screen: tuple[str, int] | None = None   # the slide shown, by the same key
        self._zoom_asked = False   # the text size changed on this slide: is it still whole?
        self._ghosted = False    # the line panels draw a slide's ghost (not Compare's B)
        self._build_menu()
        self._build_keys()

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
        menu.addAction("Open a lesson file…", self.open_file)
        menu.addAction("Next slide\tPage Down", self.player.next)
        menu.addAction("Previous slide\tPage Up", self.player.previous)
        menu.addAction("Present (full screen, no settings)\tF5", self.toggle_presenting)
        menu.addAction("Leave the lesson\tEsc", self.player.leave)
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

    def show_start_page(self) -> None:
        self.start_dock.show()
        self.start_dock.raise_()
        self.start_page.list.setFocus()

    def _build_keys(self) -> None:
        for key, slot in ((Qt.Key_PageDown, self.player.next),
                          (Qt.Key_PageUp, self.player.previous),
                          (Qt.Key_Home, self.player.first), (Qt.Key_Escape, self._escape),
                          (Qt.Key_F5, self.toggle_presenting)):
            shortcut = QShortcut(QKeySequence(key), self.window)
            shortcut.setContext(Qt.WindowShortcut)
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
            self.player.leave()

    def open_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Open a lesson", "",
                                              "Lessons (*.toml)")
        if path:
            try:
                self.open(load_lesson(path))
            except LessonError as exc:
                warn(self.window, "Not a lesson", str(exc))

    # ---- opening and showing --------------------------------------------------------------
    def open_named(self, name: str) -> None:
        self.open(find_lesson(name))

    def open(self, lesson: Lesson, index: int = 0) -> None:
        self.player.open(lesson, index)

    @property
    def slide(self):
        return self.player.slide

    @property
    def staging(self) -> bool:
        """A lesson is open: its slides are on the stage, the docks put away."""
        return self.player.lesson is not None and self.model.in_lesson

    def _show_slide(self, lesson: Lesson, index: int) -> None:
        slide, m, engine = lesson.slides[index], self.model, self.parts.engine
        m.blank = False   # PageDown on a blank screen: the next slide, seen
        if not m.in_lesson:   # the first slide: the user's model file and settings, kept
            self.model_before = m.model_path
            if self.model_before is not None:   # lessons are about the built-in model
                self.parts.open_model(None, None)
            self.settings_before = (m.requested, m.pace_ms)
        if self._on_screen is not None:   # the run the slide left, kept for a ghost
            self.runs[self._on_screen] = self.parts.history()
        self._on_screen = (lesson.name, index)
        self._zoom_asked = False   # the lecturer's text size is kept from here on
        m.text_too_large = False
        # the lesson open: the window puts its docks away (their layout kept for the
        # lesson's end) and shows the stage; nothing a slide does not name is on screen
        m.lesson = lesson.name
        count = len(lesson.slides)
        self.window.setWindowTitle(f"gradviz — {title_text(lesson.title)} — slide "
                                   f"{index + 1}/{count}: {title_text(slide.title)}")
        self.narration.show_slide(lesson.title, slide, index, count)
        # the engine gets the slide as one message: a fresh model at step 0 (each slide
        # starts there), built once, its pace and play mode, where it stops (the engine
        # pauses itself there: exact at full speed) and, a clicker sending no Space,
        # Play where the slide autoplays...
        pace_ms = nearest_pace_ms(slide.pace)
        stop = slide.stop if isinstance(slide.stop, int) else None
        engine.show_slide(slide.config, replace(
            m.engine_settings(), delay_ms=pace_ms, animate_phases=slide.play == "phases",
            stop_at=stop, track_node_grads="graph" in slide.panels), slide.autoplay)
        # ...and the settings, the code, the pace and the stage show it (the window
        # tells the engine nothing more: it has them all)
        m.pace_ms, m.play_mode, m.stop_at = pace_ms, slide.play, stop
        m.slide, m.panels = index, slide.panels
        m.requested = slide.config
        self._show_panels(slide)
        self._show_ghost(lesson, index)
        # the lines the slide draws at the values it names (this lesson's kept runs)
        kept = {i: run for (name, i), run in self.runs.items() if name == lesson.name}
        for panel, lines in reference_lines(slide, kept).items():
            self.parts.panels[panel].set_references(lines)
        # a room reads one box per module call, framed on what the slide is about
        self.parts.graph_view.set_module_view(True)
        self.parts.graph_view.set_focus(slide.focus or None)

    def _show_panels(self, slide) -> None:
        panels = self.parts.panels
        shown = [(name, panels[name], STAGE_TITLES.get(name)) for name in slide.panels
                 if name in panels]
        self.stage.show_slide(shown, slide.layout, self.model.zoom,
                              self.narration.height_for_width)

    def _ghost_panels(self) -> list:
        return [self.parts.panels[name] for name in GHOSTED]

    def _show_ghost(self, lesson: Lesson, index: int) -> None:
        """keep = "ghost": the slide before's run (as it was left), dashed, beside this
        one's, on the same axes; else no ghost. Compare's B, while pinned, comes first."""
        if self.model.pinned_b is not None:
            return
        before = self.runs.get((lesson.name, index - 1))
        if lesson.slides[index].keep == "ghost" and before is not None:
            for panel in self._ghost_panels():
                panel.set_ghost(before, SLIDE_GHOST_LABEL)
            self._ghosted = True
        else:
            self._clear_ghost()

    def _clear_ghost(self) -> None:
        if self._ghosted and self.model.pinned_b is None:
            for panel in self._ghost_panels():
                panel.set_ghost(None)
        self._ghosted = False

    def _place_graph_key(self) -> None:
        """The graph's key where the graph is the slide's main panel and wide enough for
        it; beside a chart, or in a column narrowed by large text, it took half the
        panel (the narration says what is drawn)."""
        stage, view = self.stage, self.parts.graph_view
        placed = stage.placement.panels.get("graph") if stage.placement else None
        wide = placed is not None and placed.w >= KEY_LEAST_WIDTH * stage.zoom
        shown = bool(stage.shown) and stage.shown[0] == "graph" and wide
        if shown != view.key_shown:
            view.set_key_shown(shown)

    def _check_room(self) -> None:
        """Text too large for the stage (a panel below its least size, or the narration
        scrolling) just after Ctrl+=: one step smaller, as the docks' screen fitting
        does, so Ctrl+= stops where the slide no longer fits, not at a size that crushes
        its charts. Only then: a later slide that is cramped at the lecturer's size is
        fitted by the stage itself (its text and the code's font a step smaller); taking
        the size back there left lesson 13 at normal text from its second slide on."""
        placement, m = self.stage.placement, self.model
        if not self._zoom_asked or placement is None or m.zoom <= 1.0 or m.drawn_off_screen:
            return
        if placement.fits < 1 or not placement.narration_whole:
            QTimer.singleShot(0, self._shrink_if_still_cramped)

    def _shrink_if_still_cramped(self) -> None:
        placement = self.stage.placement
        if self.staging and self._zoom_asked and placement is not None and \
                self.model.zoom > 1.0 and (placement.fits < 1 or not placement.narration_whole):
            self.model.text_too_large = True   # the screen fitting takes it a step smaller

    def rearrange(self) -> None:
        """An error's explanation came (or went): the stage gives it room to be read."""
        if self.staging and self.stage.isVisible():
            self.stage.arrange()

    def on_text_size(self) -> None:
        """After Ctrl+= or Ctrl+-: the narration's height and every least size changed."""
        self._zoom_asked = True   # does the slide still fit? (until the next slide)
        self.model.text_too_large = False   # (not known at this size until arranged)
        if self.staging:
            self.stage.set_zoom(self.model.zoom)

    def refit(self) -> None:
        """The stage laid out again for its room, once the window is fitted to its
        screen (after a slide, a new text size: the screen fitting calls this)."""
        if self.staging:
            self.stage.arrange()

    def _leave(self) -> None:
        self.model.stop_at = None
        self.narration.clear()
        self.window.setWindowTitle(BASE_TITLE)
        self._clear_ghost()
        for panel in REFERENCE_PANELS:
            self.parts.panels[panel].set_references([])
        self.runs, self._on_screen = {}, None
        # the window takes the stage's panels home, and every dock back where, and as
        # shown or closed as, the user had it
        self.model.lesson, self.model.slide, self.model.panels = None, None, ()
        self.model.text_too_large = False
        self._back_to_model_file()
        self.settings_before = None
        self.parts.graph_view.set_key_shown(True)

    def _back_to_model_file(self) -> None:
        """The model file the lesson put aside, trained again with the settings and pace
        the user had before the lesson (the built-in model keeps the last slide's, to
        explore from). The user agreed to run it when it was opened: nothing is asked."""
        path, self.model_before = self.model_before, None
        # (a model opened during the lesson is the user's newer choice: it stays)
        if path is None or self.settings_before is None or \
                self.model.model_path is not None:
            return
        config, pace_ms = self.settings_before
        self.model.pace_ms = pace_ms       # (the window tells the engine)
        self.model.requested = config
        self.parts.open_model(path, config)
