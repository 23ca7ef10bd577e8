"""Lays graphs out off the GUI thread (Graphviz runs as a subprocess: tens of ms for a
lecture graph, seconds for a thousand nodes). Layouts are cached by graph structure, so
a step that only restyles costs nothing, and a running layout can be cancelled."""
from __future__ import annotations

import sys
import threading
from collections import OrderedDict

from PySide6.QtCore import QObject, QThread, Signal, Slot

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


def start_layout_thread(parent: QObject, view) -> tuple[QThread, GraphRenderer]:
    """A GraphRenderer on a thread of its own, laying out what the graph view asks for
    and handing the layouts back to it."""
    thread = QThread(parent)
    thread.setObjectName("graph layout")
    renderer = GraphRenderer()
    renderer.moveToThread(thread)
    view.requestLayout.connect(renderer.render)
    renderer.layoutReady.connect(view.on_layout)
    renderer.layoutFailed.connect(view.on_failed)
    renderer.layoutCancelled.connect(view.on_cancelled)
    thread.start()
    return thread, renderer


def stop_layout_thread(thread: QThread, view, wait_ms: int) -> None:
    """Kill a layout in flight and stop the thread, waiting at most wait_ms (a QThread
    destroyed while running aborts the process)."""
    # the view keeps the cancel event of the layout it asked for last, the only one
    # that can be running; setting it kills the Graphviz process within 20 ms
    view.cancel_layout()
    if thread.isRunning():
        thread.quit()
    if not thread.wait(wait_ms):
        print(f"gradviz: the graph layout thread did not stop within "
              f"{wait_ms // 1000} s", file=sys.stderr)
