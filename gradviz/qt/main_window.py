"""The main window: composes the panels and docks, binds each to the window's model, and
wires the engine's adapter (its own process) and the painter that repaints the panels
from the history at a steady rate. State lives in the model, not here."""
from __future__ import annotations

import time
from typing import cast

import shiboken6
from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QKeySequence
from PySide6.QtWidgets import QApplication

from ..plain.config.config import Config
from ..plain.controllers.lesson_controller import free_title
from ..plain.records.history import History
from ..plain.window.status_line import StatusLine
from ..plain.window.window_model import WindowModel
from . import appearance
from .bindings.code_view import bind_code_view
from .bindings.events_view import bind_events_view
from .bindings.graph_view import bind_graph_view
from .bindings.memory_plot import bind_memory_plot
from .bindings.run_bar import bind_run_bar, toggle_play
from .bindings.settings_panel import bind_settings_panel
from .bindings.status_bar import bind_notices, bind_status_bar, show_newest_step
from .blank_screen import BlankScreen
from .build_stop import BuildStop
from .compare_mode import CompareMode, CompareParts
from .drop_open import DropOpen
from .engine_client import EngineClient
from .field_keys import FieldKeys
from .file_menu import FileMenu
from .gc_guard import GuiThreadGC
from .graph_renderer import start_layout_thread, stop_layout_thread
from .lesson_docks import LessonDocks
from .lesson_mode import LessonMode, LessonParts
from .panel_painter import PanelPainter, drain
from .screen_fit import FitParts, ScreenFit
from .settings import AppSettings, Remembered
from .theme import THEMES, Theme
from .view_menu import DockWatch, Key, Slot, ViewMenu, add_keys, view_keys
from .widgets.plot_style import checkbox_css
from .window_frame import WindowFrame
from .window_layout import restore_layout

LIVE_GRAPH_SECONDS = 1.5   # while running, refresh the graph this often
THREAD_WAIT_MS = 30_000    # closing waits at most this long for a thread to stop
BASE_TITLE = "gradviz — autograd with several losses"


class MainWindow(WindowFrame):
    def __init__(self, remembered: Remembered, settings: AppSettings,
                 engine_in_process: bool = False, model_path: str | None = None):
        """engine_in_process: run the engine on a thread of this process (tests that
        look inside its session), not in its own process. model_path: a model file to
        train (gradviz --model), run by the engine only."""
        super().__init__(remembered.config)
        # "sha256 path" of each model file the user agreed to run (File → Open model…)
        self.trusted_models: set[str] = set(remembered.trusted_models)
        self.setObjectName("mainWindow")
        self.setWindowTitle(BASE_TITLE)
        self.settings = settings
        self.theme: Theme = THEMES[remembered.theme].zoomed(remembered.zoom)
        self.history = History([], [])
        self._last_graph_request = 0.0
        self.gc_guard = GuiThreadGC(self)   # before any thread starts
        # what the window shows and asks for, which its parts observe and change
        self.model = m = WindowModel(
            requested=remembered.config, confirmed=remembered.config, zoom=remembered.zoom,
            theme=remembered.theme, pace_ms=remembered.pace_ms)
        # first of the model's observers: every other one finds the new theme in force
        m.events.zoom.connect(self._show_theme)
        m.events.theme.connect(self._show_theme)
        self.engine = EngineClient(m, in_process=engine_in_process, parent=self,
                                   model_path=model_path)
        m.events.generation.connect(self._fresh_history)
        self.status = StatusLine()   # the status bar's words
        self.phase_label, self.walks_label, self.rate_label = bind_status_bar(
            self.statusBar(), self.status, m, self.engine)
        self._build_actions()
        self._bind()
        self.lessons = LessonMode(self, m, LessonParts(
            self.engine, lambda: self.history, self.named_panels, self.graph_view))
        self._place_lessons()
        self.notice = bind_notices(self.status, self)   # the window's own notes, a while
        self.file_menu = FileMenu(self, remembered.recent_files)   # open, save, export, quit
        self.file_menu.recent.notice.connect(self.notice)
        self.drop_open = DropOpen(self, self.file_menu.open_any, self.notice)
        self.screen_fit = ScreenFit(self, m, FitParts(
            self.graph_dock, self.gradients_dock, (self.controls_dock, self.lessons.start_dock),
            self.gradients_panel, self.plot_stack, self.loss_plot, self.run_bar,
            dict(self.named_panels, graph=self.graph_view.canvas)))
        self.screen_fit.notice.connect(self.notice)
        # in a lesson, a fair width for the slide's chart too
        self.screen_fit.fitted.connect(lambda: self.lessons.refit())
        self.compare = CompareMode(self, m, CompareParts(   # the Compare menu: B beside A
            self.engine, lambda: self.history, lambda: m.generation, self.lessons.player,
            (self.loss_plot, self.global_norm, self.grad_bars, self.memory),
            self.memory_dock, self.gradients_panel, self.grad_bars, self.lessons.stage))
        # every dock made: the model follows which are shown from here on
        self.dock_watch = DockWatch(m, self.panel_docks())
        restore_layout(self, remembered)
        self.apply_theme(self.theme)
        self.painter = PanelPainter(
            self, lambda: self.plots, lambda: self.history, self._shown_key,
            self._take_new_steps, between_frames=lambda: show_newest_step(self.status, m,
                                                                          self.engine))
        self._start_engine_and_layout()
        self.painter.start()
        self.gc_guard.settle()

    def _build_actions(self) -> None:
        e = self.engine
        keys: list[tuple[Key, Slot]] = [
            (Qt.Key.Key_Space, self.toggle_play), (Qt.Key.Key_Right, e.step_phase),
            (QKeySequence("Shift+Right"), e.step_once), (Qt.Key.Key_R, e.reset),
            (QKeySequence("Shift+R"), self.reset_to_defaults),
            (Qt.Key.Key_P, self.run_bar.phase_play.toggle)]
        add_keys(self, keys + view_keys(self.model))
        # Space, R, M... after typing in a number field of the settings: the window's
        self.field_keys = FieldKeys(self)
        self.field_keys.install(self.controls)
        self.blank_screen = BlankScreen(self, self.model)   # B or '.', as a clicker's blank button
        self.view_menu = ViewMenu(self, self.model, (
            self.controls_dock, self.gradients_dock, self.graph_dock, self.code_dock,
            self.memory_dock, self.events_dock), self.blank_screen.toggle)
        self.dark_action = self.view_menu.dark

    def _bind(self) -> None:
        m, e = self.model, self.engine
        bind_run_bar(self.run_bar, m, e)
        bind_settings_panel(self.controls, m, e)
        bind_code_view(self.code_view, m)
        bind_graph_view(self.graph_view, m, e)
        bind_memory_plot(self.memory, m)
        bind_events_view(self.events_view, self.events_dock, e)
        self.graph_view.param_history_source = lambda name: self.history.param_history(name)
        m.events.model_name.connect(self._show_model)
        self.graph_dock.visibilityChanged.connect(lambda _shown: self.track_graph())
        m.events.panels.connect(lambda _panels: self.track_graph())

    def _place_lessons(self) -> None:
        """The lessons' stage in the middle, their start page a tab beside the settings
        (which stay in front: a student exploring alone starts there); and the window
        following the lesson the model says is open."""
        self.stage = self.lessons.stage
        self._grid.addWidget(self.stage, 1, 0)
        self.stage.hide()
        self.tabifyDockWidget(self.controls_dock, self.lessons.start_dock)
        self.controls_dock.raise_()
        self.lesson_docks = LessonDocks(self, self.model, self.stage, self.track_graph)
        # an error's explanation came (or went): the stage gives it room to be read
        self.events_view.changed.connect(self.lessons.rearrange)

    def _start_engine_and_layout(self) -> None:
        # a model file's build, stopped by the user
        self.build_stop = BuildStop(self, self.model, self.engine)
        self.engine.start()
        self.render_thread, self.renderer = start_layout_thread(self, self.graph_view)

    def fit(self) -> None:
        self.screen_fit.fit()

    @property
    def drawn_off_screen(self) -> bool:
        """--screenshot, bench: drawn at a size of their own, not fitted to a screen."""
        return self.model.drawn_off_screen

    @drawn_off_screen.setter
    def drawn_off_screen(self, off: bool) -> None:
        self.model.drawn_off_screen = off

    # ---- what the engine says ------------------------------------------------------------
    def _fresh_history(self) -> None:
        """A fresh model: a fresh history, and the plots' legends name its heads. (The
        adapter writes the generation last: the model's heads are this model's; and
        before it hands the record on: its receivers find this history.)"""
        m = self.model
        self.history = History(list(m.head_names), list(m.param_names),
                               keys=m.confirmed.head_names())
        for plot in self.plots:
            plot.set_model(list(m.head_names), list(m.param_names))

    def _show_model(self, name: str) -> None:
        """The title names the model file that trains. Only when the model changes, and
        not in a lesson: its title names the slide, also while a slide on a model file
        (or the first one after it, on the built-in model) starts its fresh engine."""
        if not self.model.in_lesson:
            self.setWindowTitle(free_title(name))

    # ---- user actions ------------------------------------------------------------------
    def toggle_play(self) -> None:
        toggle_play(self.model, self.engine)

    def track_graph(self) -> None:
        """Per-node gradients cost hooks: measured only while the graph is shown (in a
        lesson, while its slide has the graph on the stage)."""
        m = self.model
        m.track_node_grads = ("graph" in m.panels if m.in_lesson
                              else self.graph_dock.isVisible())

    def reset_to_defaults(self) -> None:
        """Shift+R: the default settings, also in a fresh engine after one died (after
        running out of memory, the settings it had would only run out again)."""
        self.model.requested = Config()
        if not self.engine.alive:
            self.engine.restart_with_defaults()

    def zoom_by(self, factor: float | None) -> None:
        self.model.scale_text(factor)

    def _show_theme(self, *_changed: object) -> None:
        theme = THEMES[self.model.theme].zoomed(self.model.zoom)
        if theme != self.theme:
            self.apply_theme(theme)

    def apply_theme(self, theme: Theme) -> None:
        """The model's theme and text size on every panel (change those, not this)."""
        self.theme = theme
        appearance.apply(cast(QApplication, QApplication.instance()), theme, self)
        for panel in self.plots + [self.graph_view, self.code_view, self.events_view,
                                   self.compare.view, self.lessons.narration,
                                   self.lessons.start_page, self.lessons.stage.card]:
            panel.apply_theme(theme)
        self.run_bar.phase_play.setStyleSheet(checkbox_css(theme))
        self._fit_controls()
        QTimer.singleShot(0, self._fit_controls)  # again once the new font has reached them

    def changeEvent(self, event: QEvent) -> None:   # noqa: N802 (Qt's name)
        """The desktop's own theme changed (its dark mode, a new colour scheme): its
        platform theme gives labels, menus, text and buttons its palettes again, over
        the window's; the window's theme is applied again on top."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.ThemeChange:
            QTimer.singleShot(0, lambda: self.apply_theme(self.theme))

    # ---- painting -------------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring every shown panel up to date now (screenshots, tests)."""
        self._take_new_steps()
        self.painter.paint_all()

    def _shown_key(self) -> tuple:
        """What a panel shows: the model, its steps, and the pinned B's steps."""
        return (self.model.generation, len(self.history), self.compare.seen())

    def _take_new_steps(self) -> None:
        """New steps into the history (and B's); the status line and the live graph follow."""
        m = self.model
        new = drain(self.engine.records, m.generation, self.history)
        if new:
            self.lessons.steps_came()   # a slide's first step: the slide can be shown
        self.compare.drain()
        by_phases = m.play_mode == "phases"
        if new and self.history.last is not None:
            self.status.steps(self.history.last, m.running, by_phases)
            self.lessons.player.update_figures(self.history)
        if m.running:
            self.status.rate(by_phases, m.steps_per_second)
            now = time.monotonic()
            # phase by phase, the engine sends the graph after every phase itself
            if now - self._last_graph_request > LIVE_GRAPH_SECONDS \
                    and self.graph_view.isVisible() and not by_phases:
                self._last_graph_request = now
                self.engine.request_graph()

    # ---- closing ---------------------------------------------------------------------------
    def remembered(self) -> Remembered:
        # mid-lesson, the docks as they were before it: the next launch is not a slide's
        layout = self.lesson_docks.layout_before or self.saveState()
        # ... and the settings and pace from before it
        config, pace_ms = self.lessons.settings_before or (self.model.requested,
                                                           self.model.pace_ms)
        return Remembered(config, self.theme.name, self.theme.zoom, pace_ms,
                          self.saveGeometry(), QByteArray(layout),
                          tuple(sorted(self.trusted_models)),
                          tuple(self.file_menu.recent.paths))

    def closeEvent(self, event: QCloseEvent) -> None:   # noqa: N802 (Qt's name)
        self.settings.save(self.remembered())
        self.shutdown_threads()
        super().closeEvent(event)

    def shutdown_threads(self) -> None:
        """Stop the engine and the layout thread promptly: the engine is asked to stop,
        given half a second, then ended (it holds nothing the window needs); a Graphviz
        layout in flight is killed instead of waited for (seconds for a big graph)."""
        self.painter.stop()
        stop_layout_thread(self.render_thread, self.graph_view, THREAD_WAIT_MS)
        self.engine.shutdown()
        self.gc_guard.release()

    def dispose(self) -> None:
        """Stop the threads and delete the window's Qt side now, while Python is whole.
        A window left for interpreter exit is destroyed by Qt after Python has begun
        finalising: pyqtgraph's items then get events whose Python overrides can no
        longer run, and the process died with SIGSEGV (rc 139) after its work was done."""
        self.shutdown_threads()
        shiboken6.delete(self)
