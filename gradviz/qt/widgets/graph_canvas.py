"""The autograd graph drawn natively: zoom with the wheel, pan by dragging, fit to view.
Items are rebuilt only when the layout changes (the structure did), and restyled in place
every step, so the picture stays put and the room keeps its bearings. The presentation
zoom (Ctrl+=) scales the picture, and so every label in it, like the rest of the text."""
from __future__ import annotations

import math

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFontInfo, QPainter
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

from ...plain.graph_data import GRAD, JUNCTION, LOSS, PARAM
from ...render import style
from ...render.layout import GraphLayout
from .graph_items import EdgeItem, NodeItem

DIM = 0.12          # opacity of what a hovered loss's gradient does not flow through
FOCUS_DIM = 0.3     # ... and of what a slide's focus leaves out (still there, for context)
CUT_LABEL_SCALE = 1.6   # a cut's label among module boxes, as large as theirs
ZOOM_STEP = 1.15
# the least height (view px, at normal text size) of a box's line of text in the module
# view: read from the back of a hall on a 1024x768 projector. A whole graph fitted into
# a slide's panel drew them at 6-8 px; framed larger instead, the rest a drag away
LEAST_LABEL_PX = 14.0
# of a focus's margin (scene px, of focus_rect's 40), what a larger text size may use up
FOCUS_SPARE = 30


def heat_range(graph) -> tuple[float, float] | None:
    """log10 of the smallest and largest non-zero gradient norm in graph."""
    norms = [n.grad_norm for n in graph.nodes if n.grad_norm]
    if not norms:
        return None
    lo, hi = math.log10(min(norms)), math.log10(max(norms))
    return (lo, hi if hi > lo else lo + 1.0)


def heat_fraction(value: float | None, rng: tuple[float, float] | None) -> float | None:
    if value is None or rng is None:
        return None
    if value <= 0:
        return 0.0
    lo, hi = rng
    return (math.log10(value) - lo) / (hi - lo)


class GraphCanvas(QGraphicsView):
    paramClicked = Signal(str)          # a parameter's name
    nodeHovered = Signal(str, bool)     # node id, entering
    nodeDoubleClicked = Signal(str)     # node id (a module box opens in place)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("graphCanvas")
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        self.setDragMode(QGraphicsView.ScrollHandDrag)
        # a drag pans and the wheel zooms; scroll bars only took room from the picture,
        # and coming and going as it was framed, they left a fitted graph cut off
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setBackgroundBrush(QColor("white"))  # Graphviz-style card in both themes
        self.nodes: dict[str, NodeItem] = {}
        self.edges: list[EdgeItem] = []
        self.graph = None
        self.layout: GraphLayout | None = None
        self.heat: tuple[float, float] | None = None
        self.highlighted: int | None = None
        self._heads_by_node: dict[str, tuple[int, ...]] = {}
        self.text_zoom = 1.0   # the theme's zoom: the fitted picture is drawn this much larger
        self.focus_ids: frozenset[str] = frozenset()   # what the slide is about: framed
        self.least_label_px = 0.0   # > 0: fit() never draws a box's text smaller than this
        # the user zoomed or panned since the last fit: a resize then keeps their view
        # (else it fits again: a panel that grew or shrank cut the graph off on the right)
        self.user_framed = False

    # ---- content ----------------------------------------------------------------------
    def show_graph(self, graph, layout: GraphLayout) -> None:
        rebuilt = layout is not self.layout
        if rebuilt:
            self._rebuild(layout)
        self.graph = graph
        self._heads_by_node = style.heads_by_node(graph)
        self.heat = heat_range(graph)
        names = style.head_names(graph)
        boxes = any(n.kind in style.BOX_KINDS for n in graph.nodes)
        for node in graph.nodes:
            item = self.nodes.get(node.id)
            if item is not None:
                item.restyle(node, heat_fraction(node.grad_norm, self.heat), names, boxes)
        paths = {(e.src, e.dst, e.kind): e for e in graph.edges}
        for item in self.edges:
            item.label_scale = CUT_LABEL_SCALE if boxes else 1.0
            p = item.edge_path
            edge = paths.get((p.src, p.dst, p.kind))
            if edge is not None:
                item.restyle(edge, style.heads_along_edge(p.src, p.dst, self._heads_by_node),
                             self._edge_width(edge))
        self.highlight_head(self.highlighted)
        self._cover_items()
        if rebuilt:
            self.fit()

    def _cover_items(self) -> None:
        """The scene as large as what is drawn: a cut's label beside its bar can lie past
        the layout Graphviz made, and a view cannot scroll past its scene (framed on a
        cut at the right, the room read "deta")."""
        scene = self.scene()
        drawn = scene.itemsBoundingRect().adjusted(-20, -20, 20, 20)
        if not scene.sceneRect().contains(drawn):
            scene.setSceneRect(scene.sceneRect().united(drawn))

    def _edge_width(self, edge) -> float | None:
        """Edges carry their gradient as thickness, on the same log scale as the heat
        (None: not measured, drawn as render.style says)."""
        frac = heat_fraction(edge.grad_norm, self.heat) if edge.kind == GRAD else None
        return None if frac is None else 1.5 + 5.0 * frac

    def _rebuild(self, layout: GraphLayout) -> None:
        scene = self.scene()
        scene.clear()
        self.layout = layout
        self.nodes = {}
        for node_id, box in layout.nodes.items():
            item = NodeItem(node_id, box)
            item.on_hover = self._hovered
            item.on_click = self._clicked
            item.on_double_click = self._double_clicked
            scene.addItem(item)
            self.nodes[node_id] = item
        self.edges = [EdgeItem(p) for p in layout.edges if len(p.points) >= 4]
        for item in self.edges:
            scene.addItem(item)
        scene.setSceneRect(-20, -20, layout.width + 40, layout.height + 40)

    # ---- interaction --------------------------------------------------------------------
    def highlight_head(self, head: int | None) -> None:
        """Dim everything that head's gradient does not flow through (None: undim; then
        what is out of the focus stays dimmed)."""
        self.highlighted = head
        focus = self.focus_ids & set(self.nodes)
        for node_id, item in self.nodes.items():
            if head is not None:
                on = head in self._heads_by_node.get(node_id, ())
            else:
                on = not focus or node_id in focus
            item.setOpacity(1.0 if on else DIM if head is not None else FOCUS_DIM)
        for item in self.edges:
            p = item.edge_path
            if head is not None:
                on = head in style.heads_along_edge(p.src, p.dst, self._heads_by_node)
            else:
                on = not focus or (p.src in focus and p.dst in focus)
            item.setOpacity(1.0 if on else DIM if head is not None else FOCUS_DIM)

    def set_focus(self, node_ids) -> None:
        """Frame these nodes, the rest dimmed (empty: the whole graph, nothing dimmed)."""
        self.focus_ids = frozenset(node_ids)
        self.highlight_head(self.highlighted)
        self.fit()

    def focus_rect(self) -> QRectF | None:
        """The scene rectangle of the focus's nodes, with a margin (None: no focus)."""
        rect = None
        for node_id in self.focus_ids:
            item = self.nodes.get(node_id)
            if item is not None:
                r = item.mapRectToScene(item.boundingRect())
                rect = r if rect is None else rect.united(r)
        if rect is None:
            return None
        for item in self.edges:   # a cut's "detach()" between two framed boxes, whole
            p = item.edge_path
            if p.src in self.focus_ids and p.dst in self.focus_ids and item.label.isVisible():
                rect = rect.united(item.label.mapRectToScene(item.label.boundingRect()))
        return rect.adjusted(-40, -40, 40, 40)

    def _hovered(self, node_id: str, entering: bool) -> None:
        item = self.nodes.get(node_id)
        node = item.node if item else None
        if node is not None and node.kind == LOSS and node.heads_reaching:
            self.highlight_head(node.heads_reaching[0] if entering else None)
        self.nodeHovered.emit(node_id, entering)

    def _double_clicked(self, node_id: str) -> None:
        # after the event: opening a box rebuilds the scene, and the item whose event
        # this is must not be deleted inside it
        QTimer.singleShot(0, lambda: self.nodeDoubleClicked.emit(node_id))

    def _clicked(self, node_id: str) -> None:
        node = self.nodes[node_id].node
        if node is not None and node.kind == PARAM:
            self.paramClicked.emit(node.label)

    def fit(self) -> None:
        """The whole graph (or the slide's focus) in view at text zoom 1, but never its
        boxes' text below least_label_px: then its middle (the focus, else the junction
        z where the heads meet) that large; at a larger text zoom, that much larger still
        (labels grow with every other text; drag pans, the wheel zooms out). A focus
        grows with the text only as far as it stays whole: the text size applied on top
        of its fit cut the boxes the slide is about."""
        if self.layout is None:
            return
        self.user_framed = False
        focus = self.focus_rect()
        framed = focus or self.scene().sceneRect()
        self.fitInView(framed, Qt.KeepAspectRatio)
        line = self.label_line_px()
        if self.least_label_px and 0 < line < self.least_label_px:
            # a hair over: scaled to exactly the least, rounding left 13.999... px
            grow = (self.least_label_px + 0.01) / line
            self.scale(grow, grow)
            self.centerOn(self._middle(framed))
        if self.text_zoom != 1.0:
            factor = self.text_zoom
            if focus is not None:   # (never below 1: least_label_px holds)
                factor = min(factor, max(1.0, self._room_for(
                    focus.adjusted(FOCUS_SPARE, FOCUS_SPARE, -FOCUS_SPARE, -FOCUS_SPARE))))
            self._scale_about_centre(factor)

    def _room_for(self, rect: QRectF) -> float:
        """How much larger rect (scene) could be drawn and still be whole in the view."""
        shown = self.viewportTransform().mapRect(rect)
        view = self.viewport().rect()
        if shown.width() <= 0 or shown.height() <= 0:
            return 1.0
        return min(view.width() / shown.width(), view.height() / shown.height())

    def _middle(self, framed: QRectF):
        if not self.focus_ids:
            junction = next((item for item in self.nodes.values()
                             if item.node is not None and item.node.kind == JUNCTION), None)
            if junction is not None:
                return junction.mapRectToScene(junction.boundingRect()).center()
        return framed.center()

    def label_line_px(self) -> float:
        """The smallest text of a box on screen, as its font's pixel size (0: no boxes)."""
        scale = self.transform().m11()
        sizes = [QFontInfo(item.text.font()).pixelSize() * item.text.scale() * scale
                 for item in self.nodes.values() if item.text.text()]
        return min(sizes, default=0.0)

    def set_text_zoom(self, zoom: float) -> None:
        """Ctrl+= / Ctrl+-: the picture, labels and all, scales as the text does (fitted
        again, as fit says; where the user zoomed or panned, about the middle of their
        view: what the room is looking at stays in view)."""
        factor, self.text_zoom = zoom / self.text_zoom, zoom
        if self.layout is None or factor == 1.0:
            return
        if self.user_framed:
            self._scale_about_centre(factor)
        else:
            self.fit()

    def height_px(self, item) -> float:
        """How tall an item (a node's label, an edge's) is drawn on screen, in view pixels."""
        return self.viewportTransform().mapRect(
            item.mapRectToScene(item.boundingRect())).height()

    def _scale_about_centre(self, factor: float) -> None:
        anchor = self.transformationAnchor()
        self.setTransformationAnchor(QGraphicsView.AnchorViewCenter)
        self.scale(factor, factor)
        self.setTransformationAnchor(anchor)

    def zoom(self, factor: float) -> None:
        self.scale(factor, factor)
        self.user_framed = True

    def wheelEvent(self, event) -> None:   # noqa: N802 (Qt's name)
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom(ZOOM_STEP ** steps)
        event.accept()

    def mouseMoveEvent(self, event) -> None:   # noqa: N802 (Qt's name)
        if event.buttons():   # a drag pans the picture
            self.user_framed = True
        super().mouseMoveEvent(event)

    def resizeEvent(self, event) -> None:   # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if not self.user_framed:
            self.fit()
