"""Lays graphs out off the GUI thread: GraphData -> styled DOT -> SVG via Graphviz.

Layout runs a subprocess (tens to hundreds of ms); results are cached by the DOT text,
so a step whose graph looks the same as before costs nothing.
"""
from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QObject, Signal, Slot

from ..render.dot import to_dot
from ..render.engine import RenderError, layout

CACHE_SIZE = 32


class GraphRenderer(QObject):
    svgReady = Signal(bytes, str)     # SVG, caption
    renderFailed = Signal(str)        # one-line reason

    def __init__(self):
        super().__init__()
        self._cache: OrderedDict[str, bytes] = OrderedDict()

    @Slot(object, str, str)
    def render(self, graph, caption: str, rankdir: str) -> None:
        dot = to_dot(graph, rankdir=rankdir)
        svg = self._cache.get(dot)
        if svg is None:
            try:
                svg = layout(dot, "svg")
            except RenderError as exc:
                self.renderFailed.emit(str(exc))
                return
            self._cache[dot] = svg
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(dot)
        self.svgReady.emit(svg, caption)
