"""Where the lesson stage's parts are on the screen, written as JSON to the file that
GRADVIZ_STAGE_GEOMETRY names (nothing without it): what a walk from outside the app
(tests/qt/lecture_walk.py) checks its screenshots against, in the screen's own pixels."""
from __future__ import annotations

import json
import logging
import os

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QWidget

from ..plain.files.atomic_write import atomic_open
from ..plain.window.window_model import WindowModel
from .stage import Stage

log = logging.getLogger(__name__)
ENV = "GRADVIZ_STAGE_GEOMETRY"
SETTLE_MS = 150   # written once a burst of arrangements (a slide, its figures) is over


def on_screen(widget: QWidget) -> list[int] | None:
    """[x, y, width, height] of a shown widget in the screen's pixels (Qt's are scaled by
    QT_SCALE_FACTOR), None where it is hidden or has no size."""
    if not widget.isVisible() or widget.width() <= 0 or widget.height() <= 0:
        return None
    ratio = widget.devicePixelRatioF()
    top_left = widget.mapToGlobal(widget.rect().topLeft())
    return [round(top_left.x() * ratio), round(top_left.y() * ratio),
            round(widget.width() * ratio), round(widget.height() * ratio)]


def stage_geometry(stage: Stage, model: WindowModel) -> dict:
    """The slide on screen (from 0), its panels' rects (each with its title) by name,
    the narration's, its heading's and its figures' rects and whether its text is
    whole, whether the "preparing" cover is up, and
    each text panel's text in view (What happened: the rect it is read in, and whether
    it is whole there), and each matrix's cells' rect (the cosine matrix's plot)."""
    narration = stage.narration
    figures = getattr(narration, "figures", None)
    texts, matrices = {}, {}
    for name in stage.shown:
        panel = stage.panels.get(name)
        if panel is not None and hasattr(panel, "reading_area"):
            area, whole = panel.reading_area()
            texts[name] = {"rect": on_screen(area), "whole": whole}
        if panel is not None and hasattr(panel, "matrix_area"):
            matrices[name] = on_screen(panel.matrix_area())
    heading = getattr(narration, "heading", None)
    placement = stage.placement
    return {"slide": model.slide, "panels": {name: on_screen(stage.slots[name])
                                             for name in stage.shown if name in stage.slots},
            "narration": on_screen(narration),
            "heading": on_screen(heading) if heading is not None else None,
            "figures": on_screen(figures) if figures is not None else None,
            # its text whole, not scrolled (the stage's word for it)
            "narration_whole": placement.narration_whole if placement else None,
            "texts": texts,
            "matrices": matrices,   # a matrix's cells (the cosine's), apart from its notes
            "preparing": stage.cover.isVisible()}


class StageGeometry(QObject):
    """Writes stage_geometry() to path after the stage is arranged (once a burst is over)."""

    def __init__(self, stage: Stage, model: WindowModel, path: str):
        super().__init__(stage)
        self.stage, self.model, self.path = stage, model, path
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(SETTLE_MS)
        self.timer.timeout.connect(self.write)
        stage.arranged.connect(self.timer.start)
        model.events.preparing.connect(lambda _line: self.timer.start())

    def write(self) -> None:
        try:
            with atomic_open(self.path) as out:
                json.dump(stage_geometry(self.stage, self.model), out)
        except OSError as exc:   # one line, and no more tries
            log.warning("%s: cannot write %s (%s)", ENV, self.path, exc.strerror or exc)
            self.stage.arranged.disconnect(self.timer.start)


def watch_stage(stage: Stage, model: WindowModel) -> StageGeometry | None:
    path = os.environ.get(ENV)
    return StageGeometry(stage, model, path) if path else None
