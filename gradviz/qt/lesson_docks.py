"""The window as a lesson shows it: a lesson opened puts every dock away (their layout
kept) and shows the stage in the middle; left, the panels the stage borrowed go back
home, and every dock where, and as shown or closed as, the user had it."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, QObject
from PySide6.QtWidgets import QWidget

from ..plain.window.window_model import WindowModel
from .stage import Stage
from .window_frame import WindowFrame


class LessonDocks(QObject):
    def __init__(self, window: WindowFrame, model: WindowModel, stage: Stage,
                 track_graph: Callable[[], None]):
        """stage: the lessons' stage, in the window's middle; track_graph: the window's
        rule for per-node gradients, applied again once the docks are back."""
        super().__init__(window)
        self.w, self.model, self.stage = window, model, stage
        self.track_graph = track_graph
        # the docks as the user had them before the lesson (saveState's bytes): put
        # back when it ends, and what quitting mid-lesson remembers
        self.layout_before: QByteArray | None = None
        model.events.lesson.connect(self._show_lesson)

    def show_stage(self, shown: bool) -> None:
        self.w.plot_stack.setVisible(not shown)
        self.stage.setVisible(shown)

    def _show_lesson(self, name: str | None) -> None:
        w = self.w
        if name is not None:
            if self.layout_before is None:
                self.layout_before = w.saveState()
                self.model.docks_shown = frozenset()
                self.show_stage(True)
                w.events_view.set_on_stage(True)
                w.cosine.set_on_stage(True)
                w.code_view.set_wrapped(True)
            return
        if self.layout_before is None:
            return
        self.show_stage(False)
        self.take_panels_home(self.stage.release())
        w.events_view.set_on_stage(False)
        w.cosine.set_on_stage(False)
        w.code_view.set_wrapped(False)
        w.plot_stack.show_only([])   # all of them again
        w.plot_stack.put_in_front([])
        w.gradients_panel.put_in_front([])
        w.restoreState(self.layout_before)
        self.layout_before = None
        self.track_graph()

    def take_panels_home(self, panels: dict[str, QWidget]) -> None:
        """The panels a lesson's stage borrowed, back in their docks and panels (their
        least sizes come back as the model's panels go)."""
        w = self.w
        homes = {w.graph_view: w.graph_dock, w.memory: w.memory_dock,
                 w.code_view: w.code_dock, w.events_view: w.events_dock}
        for widget in panels.values():
            if widget in homes:
                homes[widget].setWidget(widget)
        w.gradients_panel.take_back()
        w.plot_stack.take_back()
