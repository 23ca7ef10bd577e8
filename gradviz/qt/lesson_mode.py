"""Lessons in the window: the Lessons menu, the narration dock, the keys a presenter's
clicker sends (PageDown / PageUp, Home, Esc), and each slide applied: its config (from
step 0), its panels, its pace, and where it stops.

It drives the window only through what a user could do (the controls' config, Reset,
Pause, the pace slider and its phase-by-phase toggle, the docks), so the window needs no
lesson code of its own; where a slide stops is the engine's to keep (exact at any pace).
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QFileDialog

from ..core.lessons import Lesson, LessonError, bundled_names, find_lesson, load_lesson
from .lesson_player import LessonPlayer
from .plain_dialogs import warn
from .run_bar import DELAYS_MS
from .screen_fit import fit_to_screen
from .widgets.lesson_list import LessonList
from .widgets.narration_view import NarrationView, title_text
from .window_layout import BOTTOM_SHARE

BASE_TITLE = "gradviz — autograd with several losses"
CHART_SHARE = 0.38      # of the window's width, for a slide's gradient chart beside the plots
# of the window's height, for the docks below where a slide's panels are all there (the
# loss curves, shown only so the middle is not empty, took half a 768 px screen)
BELOW_SHARE = 0.62
# of the left column's height, for a slide's gradient charts under the narration (where
# the screen is too narrow for a column of their own): beside a plot the slide names, and
# where the middle plot is only a filler, the chart is then the slide's main picture
UNDER_NARRATION = (0.45, 0.62)
UNDER_NARRATION_LEAST = 0.36    # the chart's least share, the narration scrolling beyond
REFIT_TRIES = 50   # turns of the event loop a slide's docks may take to be shown


class LessonMode(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.player = LessonPlayer(self)
        self.player.slideChanged.connect(self._show_slide)
        self.player.left.connect(self._leave)
        self.narration = NarrationView()
        # a tab over the settings: a slide sets the controls itself, and the plots keep
        # their room
        self.dock = window.add_dock("Lesson", "lessonDock", self.narration,
                                    Qt.LeftDockWidgetArea)
        window.tabifyDockWidget(window.controls_dock, self.dock)
        self.dock.hide()
        # the start page: every lesson, a tab beside the settings (which stay in front:
        # a student exploring alone starts there)
        self.start_page = LessonList(self._bundled())
        self.start_page.chosen.connect(self.open_named)
        self.start_dock = window.add_dock("Lessons", "startDock", self.start_page,
                                          Qt.LeftDockWidgetArea)
        window.tabifyDockWidget(window.controls_dock, self.start_dock)
        window.controls_dock.raise_()
        self.presenting = False
        self._start_was_shown = True
        self._charts = False      # the slide shows a gradient chart
        self._side_by_side: list = []   # the slide's docks shown side by side
        self._below: list = []          # the slide's docks below the middle plots
        self._refit_tries = 0           # refits put off until the slide's docks are shown
        self._names_plots = True        # the slide names a middle plot (loss, global norm)
        # the docks as the user had them before the lesson (saveState's bytes, made by
        # this window): put back on leaving, and what quitting mid-lesson remembers
        self.layout_before = None
        # ... and their settings and pace: quitting mid-lesson remembers these, so the
        # next launch is the user's free mode, not a slide's (detach_ on, 1 s a step)
        self.settings_before: tuple | None = None
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
        menu.addAction("Open a lesson file…", self._open_file)
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
        """F5, as in a slide deck: full screen, the settings and menus out of the way, the
        narration (when a lesson is open) beside the slide's panels. F5 or Esc leaves."""
        w = self.window
        self.presenting = not self.presenting
        w.controls_dock.setVisible(not self.presenting)
        w.menuBar().setVisible(not self.presenting)
        if self.presenting:
            self._start_was_shown = self.start_dock.isVisible()
        self.start_dock.setVisible(not self.presenting and self._start_was_shown)
        if self.presenting:
            if self.player.lesson is not None:
                self.dock.show()
                self.dock.raise_()
            w.showFullScreen()
        else:
            w.showNormal()

    def _escape(self) -> None:
        """Esc leaves the presentation first, then the lesson."""
        if self.presenting:
            self.toggle_presenting()
        else:
            self.player.leave()

    def _open_file(self) -> None:
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

    def _show_slide(self, lesson: Lesson, index: int) -> None:
        w, slide = self.window, lesson.slides[index]
        if w.blank_screen.blank:   # PageDown on a blank screen: the next slide, seen
            w.blank_screen.toggle()
        if self.layout_before is None:   # the first slide: the user's layout, kept
            self.layout_before = w.saveState()
            self.settings_before = (w.controls.config(), w.run_bar.speed.value())
        count = len(lesson.slides)
        w.setWindowTitle(f"gradviz — {title_text(lesson.title)} — slide {index + 1}/{count}: "
                         f"{title_text(slide.title)}")
        self.narration.apply_theme(w.theme)
        self.narration.show_slide(lesson.title, slide, index, count)
        self.dock.show()
        self.dock.raise_()
        # the narration's column the window's full height: under the panels of the
        # middle and right only, the bottom docks left it a third of a 720 px screen, and
        # the "Notice:" of most slides was scrolled out of sight
        w.setCorner(Qt.BottomLeftCorner, Qt.LeftDockWidgetArea)
        w.sigPause.emit()
        w.controls.set_config(slide.config)
        w.on_config_changed(slide.config)   # as if the user had set every control
        w.sigReset.emit()                   # each slide starts at step 0
        w.run_bar.phase_play.setChecked(slide.play == "phases")
        w.run_bar.speed.setValue(_pace_position(slide.pace))
        # the engine pauses itself at the stop: exact at full speed, where a look from
        # here every few ms would come steps too late
        w.sigStopAt.emit(slide.stop if isinstance(slide.stop, int) else None)
        self._show_panels(slide)
        # a room reads one box per module call, framed on what the slide is about
        w.graph_view.set_module_view(True)
        w.graph_view.set_focus(slide.focus or None)
        if slide.autoplay:   # a clicker sends no Space: entering a slide plays it
            w.sigPlay.emit()

    def _show_panels(self, slide) -> None:
        w = self.window
        docks = {"graph": w.graph_dock, "memory": w.memory_dock, "code": w.code_dock,
                 "events": w.events_dock, "grad_norms": w.gradients_dock,
                 "junction": w.gradients_dock, "cosine": w.gradients_dock}
        wanted = [docks[p] for p in slide.panels if p in docks]
        bottom = [w.graph_dock, w.memory_dock, w.code_dock, w.events_dock]
        shown = [d for d in bottom if d in wanted]
        for dock in bottom:
            dock.setVisible(dock in wanted)
        w.gradients_dock.setVisible(w.gradients_dock in wanted)
        self._side_by_side = []
        if slide.layout == "side-by-side" and len(shown) > 1:
            # each out of its tab group first: Qt adds a dock split off a tabbed one as one
            # more tab, and the graph starts in a group with Memory, Code and What happened
            for dock in shown:
                w.removeDockWidget(dock)
            w.addDockWidget(Qt.BottomDockWidgetArea, shown[0])
            for left, right in zip(shown, shown[1:]):
                w.splitDockWidget(left, right, Qt.Horizontal)
            for dock in shown:
                dock.show()
            self._side_by_side = shown   # given equal widths once laid out (refit)
        elif len(shown) > 1:
            for dock in shown[1:]:
                w.tabifyDockWidget(shown[0], dock)
        if shown:
            shown[0].raise_()
        # the middle plots too: only the slide's, or the loss curves where it names
        # neither (an empty middle would squeeze the docks beside it to their least)
        plots = {"loss": w.loss_plot, "global_norm": w.global_norm}
        self._names_plots = any(p in plots for p in slide.panels)
        self._below = shown
        w.plot_stack.show_only([plots[p] for p in slide.panels if p in plots]
                               or [w.loss_plot])
        # in tabs, the one the slide names first in front ("the gradient norm climbs")
        w.plot_stack.put_in_front([plots[p] for p in slide.panels if p in plots])
        self._show_charts(slide)

    def _show_charts(self, slide) -> None:
        """A slide about one gradient chart shows that chart alone, at the dock's full size
        (the others stay a tab away); a slide about several shows them together."""
        w = self.window
        charts = {"grad_norms": w.grad_bars, "junction": w.junction, "cosine": w.cosine}
        wanted = [charts[p] for p in slide.panels if p in charts]
        w.gradients_panel.put_in_front(wanted)   # also where the screen puts them in tabs
        w.gradients_panel.set_compact(len(wanted) == 1)
        self._charts = bool(wanted)
        self._refit_tries = 0
        QTimer.singleShot(0, lambda: self.refit(share=True))   # too many: tabs then

    def refit(self, share: bool = False) -> None:
        """The window on its screen (after a slide, a new text size: the window's own
        screen fitting calls this); a slide's chart beside the plots gets a fair share of
        the width (share), or at least more than its least, where its title would take
        all its room."""
        w = self.window
        fit_to_screen(w)
        if self.player.lesson is not None and self._charts and \
                w.gradients_dock in w.tabifiedDockWidgets(self.dock):
            # a narrow screen put the slide's charts in the narration's tabs, behind it:
            # below it instead, so that both are seen (out of the tabs first: Qt adds a
            # dock split off a tabbed one as one more tab)
            w.removeDockWidget(w.gradients_dock)
            w.addDockWidget(Qt.LeftDockWidgetArea, w.gradients_dock, Qt.Vertical)
            w.gradients_dock.show()
            share = UNDER_NARRATION[0 if self._names_plots else 1]
            column = self.dock.height() + w.gradients_dock.height()
            # ... but the narration whole where the chart keeps its least share: its
            # Notice, the point of the slide, was scrolled out of sight at 1024x768
            narration = self.narration.needed_height() + self.dock.height() - \
                self.narration.height()
            share = min(share, max(UNDER_NARRATION_LEAST, 1 - narration / max(1, column)))
            w.resizeDocks([self.dock, w.gradients_dock],
                          [int(column * (1 - share)), int(column * share)], Qt.Vertical)
        side = [d for d in self._side_by_side if d.isVisible()]
        if self.player.lesson is not None and len(side) > 1 and share:
            width = sum(d.width() for d in side) // len(side)
            w.resizeDocks(side, [width] * len(side), Qt.Horizontal)
        elif self.player.lesson is not None and share and self._side_by_side and \
                self._refit_tries < REFIT_TRIES:
            # on a busy machine the docks may not be shown yet: again after Qt has
            # shown them (each try waits for the events before it, not for a time)
            self._refit_tries += 1
            QTimer.singleShot(0, lambda: self.refit(share=share))
            return
        panel = w.gradients_panel
        beside = w.dockWidgetArea(w.gradients_dock) in (Qt.LeftDockWidgetArea,
                                                        Qt.RightDockWidgetArea)
        crushed = panel.width() < panel.minimumSizeHint().width() + 12
        if self.player.lesson is not None and self._charts and beside and (share or crushed):
            w.resizeDocks([w.gradients_dock], [int(w.width() * CHART_SHARE)], Qt.Horizontal)
        below = [d for d in self._below if d.isVisible()]
        if self.player.lesson is not None and share and below:
            # all the slide's panels below: theirs the room; else the usual share (a
            # slide after one that gave them the room kept it, its chart squeezed)
            alone = not self._names_plots and not self._charts
            w.resizeDocks(below[:1], [int(w.height() * (BELOW_SHARE if alone
                                                         else BOTTOM_SHARE))], Qt.Vertical)

    def _leave(self) -> None:
        self.window.setCorner(Qt.BottomLeftCorner, Qt.BottomDockWidgetArea)
        self.window.sigStopAt.emit(None)
        self.dock.hide()
        self.narration.clear()
        self.window.setWindowTitle(BASE_TITLE)
        self.window.plot_stack.show_only([])   # all of them again
        self.window.plot_stack.put_in_front([])
        self.window.gradients_panel.put_in_front([])
        if self.layout_before is not None:
            # every dock where, and as shown or closed as, the user had it: the slides
            # moved some (a chart under the narration, two docks side by side)
            self.window.restoreState(self.layout_before)
            self.layout_before = None
        self.settings_before = None


def _pace_position(per_second: float) -> int:
    """The pace slider's position nearest a slide's pace, in steps or phases per second
    (0: as fast as it goes)."""
    if per_second <= 0:
        return 0
    wanted = 1000.0 / per_second
    return min(range(len(DELAYS_MS)), key=lambda i: abs(DELAYS_MS[i] - wanted)
               if DELAYS_MS[i] else 1e9)
