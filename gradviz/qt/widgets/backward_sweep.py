"""The backward pass, animated on the graph: the boxes light up one by one in the order
the autograd engine computed their gradients (recorded by hooks as it ran: see
core.node_grads), what is still to come dimmed, a bright ring on the box reached last.

It draws over the canvas's items (their opacity and one ring item) and puts them back
when it ends, so a graph drawn in between is never left half lit.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from ...plain.graph.sweep_pace import HOLD_MS, tick_ms

WAITING = 0.25        # opacity of a box backward has not reached yet
RING = "#E69F00"      # the ring on the box just reached (amber: no head's colour)
RING_WIDTH = 7.0


class BackwardSweep(QObject):
    """One sweep at a time on one canvas; a new one ends the one before."""
    finished = Signal()

    def __init__(self, canvas, parent=None):
        super().__init__(parent)
        self.canvas = canvas
        self.order: list[str] = []      # the sweep's boxes, in the engine's order
        self.lit: list[str] = []        # those lit so far (what tests read)
        self.tick_ms = 0                # one box's turn in the sweep running or last run
        self._ring: QGraphicsPathItem | None = None
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._tick)
        self._end = QTimer(self)
        self._end.setSingleShot(True)
        self._end.timeout.connect(self.stop)

    @property
    def running(self) -> bool:
        return self._timer.isActive() or self._end.isActive()

    def start(self, order: list[str], total_ms: int, box_turn_ms: int = 0) -> None:
        """Light the canvas's boxes in this order over about total_ms: box_turn_ms
        each where a slide sets its sweep pace (plain.graph.sweep_pace.tick_ms)."""
        self.stop()
        nodes = self.canvas.nodes
        self.order = [node_id for node_id in order if node_id in nodes]
        self.lit = []
        if not self.order:
            return
        for node_id in self.order:
            nodes[node_id].setOpacity(WAITING)
        self.tick_ms = tick_ms(len(self.order), total_ms, box_turn_ms)
        self._timer.start(self.tick_ms)
        self._tick()

    def _tick(self) -> None:
        if len(self.lit) == len(self.order):
            self._timer.stop()
            self._end.start(HOLD_MS)
            return
        node_id = self.order[len(self.lit)]
        self.lit.append(node_id)
        item = self.canvas.nodes.get(node_id)
        if item is None:   # the graph was drawn again meanwhile: end here
            self.stop()
            return
        item.setOpacity(1.0)
        self._ring_around(item)

    def _ring_around(self, item) -> None:
        scene = self.canvas.scene()
        if self._ring is None or self._ring.scene() is not scene:
            self._ring = QGraphicsPathItem()
            pen = QPen(QColor(RING), RING_WIDTH)
            self._ring.setPen(pen)
            self._ring.setZValue(10)
            scene.addItem(self._ring)
        path = QPainterPath()
        path.addRoundedRect(item.mapRectToScene(item.boundingRect()).adjusted(-6, -6, 6, 6),
                            14, 14)
        self._ring.setPath(path)

    def stop(self) -> None:
        """End now: every box as the canvas draws it, the ring gone."""
        was = self.running or self._ring is not None
        self._timer.stop()
        self._end.stop()
        if self._ring is not None:
            if self._ring.scene() is not None:
                self._ring.scene().removeItem(self._ring)
            self._ring = None
        if was:
            self.canvas.highlight_head(self.canvas.highlighted)   # the usual opacities
            self.finished.emit()
