"""The main window: composes the panels, talks to the training engine (its own process)
through an EngineClient, and repaints the panels from the history at a steady rate."""
from __future__ import annotations

import sys
import time

import shiboken6
from PySide6.QtCore import Qt, QThread, QTimer, Signal, Slot
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QGridLayout,
    QLabel,
    QMainWindow,
    QScrollArea,
    QWidget,
)

from ..plain.config import Config
from ..plain.history import History
from ..plain.window_model import WindowModel
from . import appearance
from .blank_screen import BlankScreen
from .build_stop import BuildStop
from .compare_mode import CompareMode, CompareParts
from .controls import ControlsPanel
from .field_keys import FieldKeys
from .file_menu import FileMenu
from .gc_guard import GuiThreadGC
from .graph_renderer import GraphRenderer
from .lesson_mode import LessonMode, LessonParts
from .panel_painter import PanelPainter
from .run_bar import DELAYS_MS, RunBar
from .screen_fit import FitParts, ScreenFit
from .settings import AppSettings, Remembered
from .theme import THEMES, Theme
from .view_menu import DockWatch, ViewMenu, add_keys, view_keys
from .walks_words import walks_text
from .widgets.code_view import CodeView
from .widgets.elided_label import ElidedLabel
from .widgets.events_view import EventsView
from .widgets.grad_views import CosineHeatmap, GlobalNormPlot, GradNormBars, JunctionPlot
from .widgets.gradients_panel import GradientsPanel
from .widgets.graph_view import GraphView
from .widgets.loss_plot import LossPlot
from .widgets.memory_plot import MemoryPlot
from .widgets.plot_stack import PlotStack
from .widgets.plot_style import checkbox_css
from .window_layout import BOTTOM_SHARE, add_dock, restore_layout

LIVE_GRAPH_SECONDS = 1.5   # while running, refresh the graph this often
# a backward call's sweep over the graph: within the pace's time for a phase, but long
# enough to follow and never longer than a lecturer waits (a phase stepped by hand: ALONE)
SWEEP_LEAST_MS, SWEEP_MOST_MS, SWEEP_ALONE_MS = 400, 4000, 1500
THREAD_WAIT_MS = 30_000    # closing waits at most this long for a thread to stop


class MainWindow(QMainWindow):
    # GUI -> engine (the client sends each down the pipe)
    sigSetConfig = Signal(object)
    sigPlay = Signal()
    sigPause = Signal()
    sigPhase = Signal()
    sigStep = Signal()
    sigReset = Signal()
    sigDelay = Signal(int)
    sigRunSteps = Signal(int)
    sigAnimatePhases = Signal(bool)   # Play goes phase by phase
    sigStopAt = Signal(object)        # Play pauses once this many steps are done (None: never)
    sigRequestGraph = Signal()
    sigShowSaved = Signal(bool)
    sigTorchviz = Signal(str)
    sigTrackNodeGrads = Signal(bool)

    def __init__(self, remembered: Remembered, settings: AppSettings,
                 engine_in_process: bool = False, model_path: str | None = None):
        """engine_in_process: run the engine on a thread of this process (tests that
        look inside its session), not in its own process. model_path: a model file to
        train (gradviz --model), run by the engine only."""
        super().__init__()
        self._engine_in_process = engine_in_process
        self._model_path = model_path
        self._model_shown = ""   # the model file the title and controls name ("": built-in)
        # "sha256 path" of each model file the user agreed to run (File → Open model…)
        self.trusted_models: set[str] = set(remembered.trusted_models)
        self.setObjectName("mainWindow")
        self.setWindowTitle("gradviz — autograd with several losses")
        self.settings = settings
        self.theme: Theme = THEMES[remembered.theme].zoomed(remembered.zoom)
        self.history = History([], [])
        self.generation = -1
        self.running = False
        self._phase_step: int | None = None   # the step the status line's phase belongs to
        self.steps_done_at: int | None = None   # set when a run_steps() batch ends
        self._last_graph_request = 0.0
        self.gc_guard = GuiThreadGC(self)   # before any thread starts
        # what the window shows and asks for, which its parts observe and change
        self.model = WindowModel(requested=remembered.config, confirmed=remembered.config,
                                 zoom=remembered.zoom, theme=remembered.theme)
        # first of the model's observers: every other one finds the new theme in force
        self.model.events.zoom.connect(self._show_theme)
        self.model.events.theme.connect(self._show_theme)
        self._build_panels(remembered.config)
        self.model.events.requested.connect(self._show_requested)
        self._build_docks()
        self._build_actions()
        self._start_engine_and_layout(remembered.config)
        # the Lessons menu, narration and clicker keys
        self.lessons = LessonMode(self, self.model, LessonParts(
            self.engine, lambda: self.history, self.named_panels, self.graph_view,
            self.open_model))
        self._place_lessons()
        self.file_menu = FileMenu(self)     # open, save, export, quit
        self.screen_fit = ScreenFit(self, self.model, FitParts(
            self.graph_dock, self.gradients_dock, (self.controls_dock, self.lessons.start_dock),
            self.gradients_panel, self.plot_stack, self.loss_plot,
            dict(self.named_panels, graph=self.graph_view.canvas)))
        self.screen_fit.notice.connect(self.on_notice)
        # in a lesson, a fair width for the slide's chart too
        self.screen_fit.fitted.connect(lambda: self.lessons.refit())
        # the Compare menu: B pinned beside A
        self.compare = CompareMode(self, self.model, CompareParts(
            self.engine, lambda: self.history, lambda: self.generation, self.lessons.player,
            (self.loss_plot, self.global_norm, self.grad_bars, self.memory),
            self.memory_dock, self.gradients_panel, self.grad_bars))
        # every dock made: the model follows which are shown from here on
        self.dock_watch = DockWatch(self.model, self.panel_docks())
        self.run_bar.speed.setValue(remembered.speed)
        restore_layout(self, remembered)
        self.apply_theme(self.theme)
        self.code_view.set_config(remembered.config)
        self.painter = PanelPainter(self, lambda: self.plots, lambda: self.history,
                                    self._shown_key, self._take_new_steps)
        self.painter.start()
        self.gc_guard.settle()

    # ---- construction --------------------------------------------------------------
    def _build_panels(self, config: Config) -> None:
        self.controls = ControlsPanel(config)
        self.controls.configChanged.connect(self.on_config_changed)
        self.run_bar = RunBar()
        self.loss_plot = LossPlot()
        self.grad_bars = GradNormBars()
        self.global_norm = GlobalNormPlot()
        self.junction = JunctionPlot()
        self.cosine = CosineHeatmap()
        self.memory = MemoryPlot()
        self.graph_view = GraphView()
        self.code_view = CodeView()
        self.events_view = EventsView()
        self.plots = [self.loss_plot, self.grad_bars, self.global_norm, self.junction,
                      self.cosine, self.memory]
        # each panel by the name a lesson's slide gives it (plain.lessons.PANELS): what
        # the stage borrows, and whose least size the screen fitting grows with the text
        self.named_panels: dict[str, QWidget] = {
            "graph": self.graph_view, "memory": self.memory, "code": self.code_view,
            "events": self.events_view, "grad_norms": self.grad_bars,
            "junction": self.junction, "cosine": self.cosine, "loss": self.loss_plot,
            "global_norm": self.global_norm}
        for plot in self.plots:   # every head in the legends from the start, not only head0
            plot.set_model(config.head_names(), [])
        # cut at a word where long, never under the fields at its right
        self.phase_label = ElidedLabel("Starting the training engine (loading PyTorch)…")
        self.phase_label.setObjectName("phaseLabel")
        self.statusBar().addWidget(self.phase_label, 1)
        # one pass vs K passes: the newest step's backward time and trunk walks
        self.walks_label = QLabel("")
        self.walks_label.setObjectName("walksLabel")
        self.walks_label.setToolTip("the last step's backward calls: their time, and how "
                                    "many times they walked the shared trunk")
        self.walks_label.setContentsMargins(0, 0, 16, 0)   # apart from the rate beside it
        self.statusBar().addPermanentWidget(self.walks_label)
        self.rate_label = QLabel("")
        self.rate_label.setObjectName("rateLabel")
        self.statusBar().addPermanentWidget(self.rate_label)

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
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.controls_scroll = scroll
        self.controls_dock = add_dock(self, "Settings", "controlsDock", scroll,
                                      Qt.LeftDockWidgetArea)
        self.gradients_panel = GradientsPanel(self.grad_bars, self.junction, self.cosine)
        self.gradients_dock = add_dock(self, "Gradients", "gradientsDock",
                                       self.gradients_panel, Qt.RightDockWidgetArea)
        self.graph_dock = add_dock(self, "Autograd graph", "graphDock", self.graph_view,
                                   Qt.BottomDockWidgetArea)
        self.code_dock = add_dock(self, "Code", "codeDock", self.code_view,
                                  Qt.BottomDockWidgetArea)
        self.memory_dock = add_dock(self, "Memory", "memoryDock", self.memory,
                                    Qt.BottomDockWidgetArea)
        self.events_dock = add_dock(self, "What happened", "eventsDock", self.events_view,
                                    Qt.BottomDockWidgetArea)
        for dock in (self.code_dock, self.memory_dock, self.events_dock):
            self.tabifyDockWidget(self.graph_dock, dock)
        self.graph_dock.raise_()

    def set_stage(self, stage: QWidget) -> None:
        """A lesson's stage, in the middle where the plots are (shown by show_stage)."""
        self.stage = stage
        self._grid.addWidget(stage, 1, 0)
        stage.hide()

    def _place_lessons(self) -> None:
        """The lessons' stage in the middle, their start page a tab beside the settings
        (which stay in front: a student exploring alone starts there); and the window
        following the lesson the model says is open."""
        self.set_stage(self.lessons.stage)
        self.tabifyDockWidget(self.controls_dock, self.lessons.start_dock)
        self.controls_dock.raise_()
        # the docks as the user had them before the lesson (saveState's bytes): put
        # back when it ends, and what quitting mid-lesson remembers
        self.layout_before: bytes | None = None
        self.model.events.lesson.connect(self._show_lesson)
        self.model.events.panels.connect(self._track_graph)
        # an error's explanation came (or went): the stage gives it room to be read
        self.events_view.changed.connect(self.lessons.rearrange)

    def _show_lesson(self, name: str | None) -> None:
        """A lesson opened: every dock put away (their layout kept), the stage in the
        middle. Left: the panels the stage borrowed back home, and every dock where,
        and as shown or closed as, the user had it."""
        if name is not None:
            if self.layout_before is None:
                self.layout_before = self.saveState()
                self.model.docks_shown = frozenset()
                self.show_stage(True)
                self.events_view.allow_log(False)
                self.code_view.set_wrapped(True)
            return
        if self.layout_before is None:
            return
        self.show_stage(False)
        self.take_panels_home(self.lessons.stage.release())
        self.events_view.allow_log(True)
        self.code_view.set_wrapped(False)
        self.plot_stack.show_only([])   # all of them again
        self.plot_stack.put_in_front([])
        self.gradients_panel.put_in_front([])
        self.restoreState(self.layout_before)
        self.layout_before = None
        self.on_graph_visibility(self.graph_dock.isVisible())

    def _track_graph(self, panels: tuple[str, ...]) -> None:
        """Per-node gradients cost hooks: in a lesson, measured only while its slide has
        the graph on the stage (out of one, while the graph's dock is shown)."""
        if self.model.in_lesson:
            self.on_graph_visibility("graph" in panels)

    def show_stage(self, shown: bool) -> None:
        self.plot_stack.setVisible(not shown)
        self.stage.setVisible(shown)

    def panel_docks(self) -> list[QDockWidget]:
        """Every dock, which a lesson's stage puts away while it is shown."""
        return self.findChildren(QDockWidget)

    def take_panels_home(self, panels: dict[str, QWidget]) -> None:
        """The panels a lesson's stage borrowed, back in their docks and panels (their
        least sizes come back as the model's panels go)."""
        homes = {self.graph_view: self.graph_dock, self.memory: self.memory_dock,
                 self.code_view: self.code_dock, self.events_view: self.events_dock}
        for widget in panels.values():
            if widget in homes:
                homes[widget].setWidget(widget)
        self.gradients_panel.take_back()
        self.plot_stack.take_back()

    def first_layout(self) -> None:
        """Dock sizes for a first launch on a 1920x1080 projector (later launches restore
        the user's own); needs the window at its size, so it runs once it is shown."""
        self.resizeDocks([self.controls_dock, self.gradients_dock],
                         [self.controls_scroll.minimumWidth(), int(self.width() * 0.36)],
                         Qt.Horizontal)
        self.resizeDocks([self.graph_dock], [int(self.height() * BOTTOM_SHARE)], Qt.Vertical)
        self.screen_fit.fit()

    @property
    def drawn_off_screen(self) -> bool:
        """--screenshot, bench: drawn at a size of their own, not fitted to a screen."""
        return self.model.drawn_off_screen

    @drawn_off_screen.setter
    def drawn_off_screen(self, off: bool) -> None:
        self.model.drawn_off_screen = off

    def _build_actions(self) -> None:
        add_keys(self, [(Qt.Key_Space, self.toggle_play), (Qt.Key_Right, self.sigPhase.emit),
                        (QKeySequence(Qt.SHIFT | Qt.Key_Right), self.sigStep.emit),
                        (Qt.Key_R, self.sigReset.emit),
                        (QKeySequence(Qt.SHIFT | Qt.Key_R), self.reset_to_defaults),
                        (Qt.Key_P, self.run_bar.phase_play.toggle)] + view_keys(self.model))
        # Space, R, M... after typing in a number field of the settings: the window's
        self.field_keys = FieldKeys(self)
        self.field_keys.install(self.controls)
        self.blank_screen = BlankScreen(self, self.model)   # B or '.', as a clicker's blank button
        self.view_menu = ViewMenu(self, self.model, (
            self.controls_dock, self.gradients_dock, self.graph_dock, self.code_dock,
            self.memory_dock, self.events_dock), self.blank_screen.toggle)
        self.dark_action = self.view_menu.dark
        rb = self.run_bar
        rb.playClicked.connect(self.toggle_play)
        rb.phaseClicked.connect(self.sigPhase.emit)
        rb.stepClicked.connect(self.sigStep.emit)
        rb.resetClicked.connect(self.sigReset.emit)
        rb.delayChanged.connect(self.sigDelay.emit)
        rb.phasePlayChanged.connect(self.sigAnimatePhases.emit)
        rb.delayChanged.connect(lambda ms: setattr(self.model, "pace_ms", ms))
        rb.phasePlayChanged.connect(
            lambda on: setattr(self.model, "play_mode", "phases" if on else "steps"))

    def _start_engine_and_layout(self, config: Config) -> None:
        from .engine_client import EngineClient
        self.engine = EngineClient(config, in_process=self._engine_in_process, parent=self,
                                   model_path=self._model_path)
        w = self.engine
        for signal, slot in ((self.sigSetConfig, w.setConfig), (self.sigPlay, w.play),
                             (self.sigPause, w.pause), (self.sigPhase, w.stepPhase),
                             (self.sigStep, w.stepOnce), (self.sigReset, w.reset),
                             (self.sigDelay, w.setDelay), (self.sigRunSteps, w.runSteps),
                             (self.sigAnimatePhases, w.setAnimatePhases),
                             (self.sigStopAt, w.setStopAt),
                             (self.sigRequestGraph, w.requestGraph),
                             (self.sigShowSaved, w.setShowSaved),
                             (self.sigTorchviz, w.exportTorchviz),
                             (self.sigTrackNodeGrads, w.setTrackNodeGrads)):
            signal.connect(slot)
        self.model.events.pace_ms.connect(self._show_pace)
        self.model.events.play_mode.connect(self._show_play_mode)
        w.phaseDone.connect(self.on_phase)
        w.failed.connect(self.on_failed)
        w.runningChanged.connect(self.on_running)
        w.configApplied.connect(self.on_config_applied)
        w.configRejected.connect(self.on_config_rejected)
        w.notice.connect(self.on_notice)
        w.loading.connect(self.on_notice)
        w.graphReady.connect(self.on_graph)
        w.stepsDone.connect(self.on_steps_done)
        w.engineReady.connect(self.on_engine_ready)
        self.render_thread = QThread(self)
        self.render_thread.setObjectName("graph layout")
        self.renderer = GraphRenderer()
        self.renderer.moveToThread(self.render_thread)
        self.graph_view.requestLayout.connect(self.renderer.render)
        self.graph_view.showSavedChanged.connect(self.sigShowSaved.emit)
        self.graph_view.torchvizRequested.connect(self.sigTorchviz.emit)
        self.graph_view.param_history_source = lambda name: self.history.param_history(name)
        self.renderer.layoutReady.connect(self.graph_view.on_layout)
        self.renderer.layoutFailed.connect(self.graph_view.on_failed)
        self.renderer.layoutCancelled.connect(self.graph_view.on_cancelled)
        self.graph_dock.visibilityChanged.connect(self.on_graph_visibility)
        self.build_stop = BuildStop(self)   # a model file's build, stopped by the user
        self.engine.start()
        self.render_thread.start()

    # ---- reacting to the engine -------------------------------------------------------
    @Slot(list)
    def on_engine_ready(self, devices: list) -> None:
        self.controls.set_devices(devices)
        self.phase_label.setText("Training engine ready: building the model…")

    @Slot(object, bool, list, int)
    def on_config_applied(self, config: Config, did_reset: bool, param_names: list,
                          generation: int) -> None:
        self.model.confirmed = config
        self.controls.set_config(config)
        # the settings show what the engine put in force (a model file's heads, say),
        # and a change made next is made to it: it is what they ask for from here on
        self.model.requested = config
        # the loop of the model that trains: the file's (its full path), or the built-in
        self.code_view.set_model(self.engine.model_path if self.engine.model_name else None,
                                 self.engine.model_taps)
        self.code_view.set_config(config)
        self.events_view.clear_current()
        if did_reset:
            self.generation = generation
            self.rate_label.setText("")   # a fresh model has no speed yet (not the last one's)
            self.walks_label.setText("")
            names = self.engine.head_names
            self.history = History(names, param_names, keys=config.head_names())
            for plot in self.plots:
                plot.set_model(names, param_names)
            self._show_model(self.engine.model_name)
            model = (f"{self.engine.model_name} ({', '.join(names)})"
                     if self.engine.model_name else
                     f"{config.heads} heads, trunk {config.trunk_depth}×{config.trunk_width}")
            self.phase_label.setText(f"Fresh model: {model} — step 0.   "
                                     "Space: play · →: one phase · Shift+→: one step")

    def _show_model(self, name: str) -> None:
        """The title names the model file that trains; the controls only the built-in
        model has are disabled, saying why. Only when the model changes: a lesson's
        slide (a fresh model each) keeps the title the lesson gave the window."""
        if name == self._model_shown:
            return
        self._model_shown = name
        self.setWindowTitle(f"gradviz — {name}" if name else
                            "gradviz — autograd with several losses")
        self.controls.set_model_file(name)

    def open_model(self, path: str | None, config: Config | None = None) -> None:
        """A fresh engine on the model file at path (None: back to the built-in one),
        with config where given (else the engine's last one), fitted to the file."""
        if path is None:   # the built-in model's loop at once (a slide's, say)
            self.code_view.set_model(None)
        self.engine.openModel(path, config)

    @Slot(str)
    def on_config_rejected(self, reason: str) -> None:
        self.controls.problem.setText(f"Not applied: {reason}")
        self.phase_label.setText(f"Not applied: {reason}")

    @Slot(str)
    def on_notice(self, message: str) -> None:
        self.phase_label.setText(message)

    @Slot(object)
    def on_phase(self, phase) -> None:
        self._phase_step = phase.step
        if phase.name == "backward" and phase.event is None and \
                (self.run_bar.phase_play.isChecked() or not self.running):
            # phase by phase (played, or one at a time): the graph that follows shows
            # this call's sweep, within the pace's time for the phase
            delay = DELAYS_MS[self.run_bar.speed.value()]
            self.graph_view.animate_next_backward(
                min(SWEEP_MOST_MS, max(SWEEP_LEAST_MS, int(0.8 * delay) if delay
                                       else SWEEP_ALONE_MS)))
        if phase.event is None:
            playing = "Playing phase by phase · " if self.running else ""
            self.phase_label.setText(f"{playing}Step {phase.step} · just done: {phase.name} "
                                     f"— {phase.detail}")

    @Slot(object)
    def on_failed(self, event) -> None:
        self.events_view.show_event(event)
        self.events_dock.raise_()
        if event.type == "ModelFileStopped":   # the user stopped it: no "press Reset"
            self.phase_label.setText(f"{event.message} See “What happened”.")
            return
        if event.type == "EngineStopped":
            self.phase_label.setText(f"{event.message} Press Reset (R) to start a fresh "
                                     "one — see “What happened”")
            return
        self.phase_label.setText(f"Paused at step {event.step}: {event.title} "
                                 f"({event.call}) — see “What happened”")

    @Slot(bool)
    def on_running(self, running: bool) -> None:
        self.running = running
        self.model.running = running
        self.run_bar.set_running(running)

    @Slot(bool)
    def on_graph_visibility(self, visible: bool) -> None:
        """Per-node gradients cost hooks: measure them only while the graph is shown."""
        self.sigTrackNodeGrads.emit(visible)

    @Slot(int)
    def on_steps_done(self, step_index: int) -> None:
        self.steps_done_at = step_index

    @Slot(object, str)
    def on_graph(self, graph, when: str) -> None:
        self.graph_view.show_graph(graph, when)

    # ---- user actions ------------------------------------------------------------------
    @Slot(object)
    def on_config_changed(self, config: Config) -> None:
        self.model.requested = config
        self.sigSetConfig.emit(config)

    def _show_requested(self, config: Config) -> None:
        """The settings asked for (by the user, a lesson's slide, a settings file) in the
        settings and the code; the engine is told by whoever asks."""
        if self.controls.config() != config:   # (not back into the fields being typed in)
            self.controls.set_config(config)
        self.code_view.set_config(config)

    def toggle_play(self) -> None:
        (self.sigPause if self.running else self.sigPlay).emit()

    def reset_to_defaults(self) -> None:
        """Shift+R: the default settings, also in a fresh engine after one died (after
        running out of memory, the settings it had would only run out again)."""
        if self.engine.alive:
            self.on_config_changed(Config())
        else:
            self.engine.restartWithDefaults()

    def zoom_by(self, factor: float | None) -> None:
        self.model.scale_text(factor)

    def _show_pace(self, ms: int) -> None:
        """The model's pace on the run bar, and to the engine where it has another (a
        lesson's slide has sent it along with the slide; the slider, on its own)."""
        self.run_bar.show_pace(ms, self.model.play_mode == "phases")
        if self.engine.settings.delay_ms != ms:
            self.sigDelay.emit(ms)

    def _show_play_mode(self, mode: str) -> None:
        """Play step by step or phase by phase, as the model says, likewise."""
        phases = mode == "phases"
        self.run_bar.show_pace(self.model.pace_ms, phases)
        if self.engine.settings.animate_phases != phases:
            self.sigAnimatePhases.emit(phases)

    def _show_theme(self, *_changed) -> None:
        theme = THEMES[self.model.theme].zoomed(self.model.zoom)
        if theme != self.theme:
            self.apply_theme(theme)

    def apply_theme(self, theme: Theme) -> None:
        """The model's theme and text size on every panel (change those, not this)."""
        self.theme = theme
        appearance.apply(QApplication.instance(), theme)
        for panel in self.plots + [self.graph_view, self.code_view, self.events_view,
                                   self.compare.view, self.lessons.narration,
                                   self.lessons.start_page]:
            panel.apply_theme(theme)
        self.run_bar.phase_play.setStyleSheet(checkbox_css(theme))
        self._fit_controls()
        QTimer.singleShot(0, self._fit_controls)  # again once the new font has reached them

    def _fit_controls(self) -> None:
        """The settings must fit without a horizontal scroll bar at any zoom."""
        self.controls.adjustSize()
        bar = self.controls_scroll.verticalScrollBar().sizeHint().width()
        width = self.controls.sizeHint().width() + bar + 4
        self.controls_scroll.setMinimumWidth(width)
        if self.isVisible() and self.controls_dock.width() < width:
            self.resizeDocks([self.controls_dock], [width], Qt.Horizontal)

    # ---- painting -------------------------------------------------------------------------
    def drain(self) -> int:
        """Move finished steps from the engine into the history; how many were new."""
        new = 0
        records = self.engine.records
        while records:
            generation, record = records.popleft()
            if generation == self.generation:
                self.history.append(record)
                new += 1
        return new

    def refresh(self) -> None:
        """Bring every shown panel up to date now (screenshots, tests)."""
        self._take_new_steps()
        self.painter.paint_all()

    def _shown_key(self) -> tuple:
        """What a panel shows: the model, its steps, and the pinned B's steps."""
        return (self.generation, len(self.history), self.compare.seen())

    def _take_new_steps(self) -> None:
        """New steps into the history (and B's); the status line and the live graph follow."""
        new = self.drain()
        self.compare.drain()
        # played phase by phase, the status line names each phase (on_phase) instead
        by_phases = self.run_bar.phase_play.isChecked()
        if new:
            last = self.history.last
            self.walks_label.setText(walks_text(last))
            if (self.running and not by_phases) or self._phase_step != last.step:
                state = "Training" if self.running else "Paused"
                self.phase_label.setText(f"{state} · step {last.step} done · "
                                         f"total loss {last.total:.4g}")
        if self.running:
            self.rate_label.setText("phase by phase" if by_phases else
                                    f"{self.engine.steps_per_second:,.0f} steps/s")
            now = time.monotonic()
            # phase by phase, the engine sends the graph after every phase itself
            if now - self._last_graph_request > LIVE_GRAPH_SECONDS \
                    and self.graph_view.isVisible() and not by_phases:
                self._last_graph_request = now
                self.sigRequestGraph.emit()

    # ---- closing ---------------------------------------------------------------------------
    def remembered(self) -> Remembered:
        # mid-lesson, the docks as they were before it: the next launch is not a slide's
        layout = self.layout_before or self.saveState()
        # ... and the settings and pace from before it
        config, pace_ms = self.lessons.settings_before or (self.controls.config(),
                                                           self.run_bar.delay_ms())
        speed = DELAYS_MS.index(pace_ms)
        return Remembered(config, self.theme.name, self.theme.zoom, speed,
                          self.saveGeometry(), layout, tuple(sorted(self.trusted_models)))

    def closeEvent(self, event) -> None:
        self.settings.save(self.remembered())
        self.shutdown_threads()
        super().closeEvent(event)

    def shutdown_threads(self) -> None:
        """Stop the engine and the layout thread promptly: the engine is asked to stop,
        given half a second, then ended (it holds nothing the window needs); a Graphviz
        layout in flight is killed instead of waited for (seconds for a big graph)."""
        self.painter.stop()
        # GraphView keeps the cancel event of the layout it asked for last, the only one
        # that can be running; setting it kills the Graphviz process within 20 ms
        self.graph_view.cancel_layout()
        self.engine.shutdown()
        if self.render_thread.isRunning():
            self.render_thread.quit()
        # a QThread destroyed while running aborts the process: wait, but not for ever
        if not self.render_thread.wait(THREAD_WAIT_MS):
            print(f"gradviz: the graph layout thread did not stop within "
                  f"{THREAD_WAIT_MS // 1000} s", file=sys.stderr)
        self.gc_guard.release()

    def dispose(self) -> None:
        """Stop the threads and delete the window's Qt side now, while Python is whole.
        A window left for interpreter exit is destroyed by Qt after Python has begun
        finalising: pyqtgraph's items then get events whose Python overrides can no
        longer run, and the process died with SIGSEGV (rc 139) after its work was done."""
        self.shutdown_threads()
        shiboken6.delete(self)
