"""Lays graphs out off the GUI thread (Graphviz runs as a subprocess: tens of ms for a
lecture graph, seconds for a thousand nodes). Layouts are cached by graph structure, so
a step that only restyles costs nothing, and a running layout can be cancelled."""
from __future__ import annotations

import threading
from collections import OrderedDict

from PySide6.QtCore import QObject, Signal, Slot

from ..render.graphviz_program import RenderError
from ..render.layout import LayoutCancelled, layout_graph

CACHE_SIZE = 16


class GraphRenderer(QObject):
    layoutReady = Signal(object, object, str)   # GraphData, GraphLayout, caption
    layoutFailed = Signal(str)                   # one-line reason
    layoutCancelled = Signal()

    def __init__(self):
        super().__init__()
        self._cache: OrderedDict[tuple, object] = OrderedDict()

    @Slot(object, str, str, object)
    def render(self, graph, caption: str, rankdir: str, cancel: threading.Event) -> None:
        key = (graph.structure_key(), rankdir)
        layout = self._cache.get(key)
        if layout is None:
            try:
                layout = layout_graph(graph, rankdir=rankdir, cancel=cancel)
            except LayoutCancelled:
                self.layoutCancelled.emit()
                return
            except RenderError as exc:
                self.layoutFailed.emit(str(exc))
                return
            self._cache[key] = layout
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        self.layoutReady.emit(graph, layout, caption)
