"""The autograd graph drawn natively: zoom with the wheel, pan by dragging, fit to view.
Items are rebuilt only when the layout changes (the structure did), and restyled in place
every step, so the picture stays put and the room keeps its bearings. The presentation
zoom (Ctrl+=) scales the picture, and so every label in it, like the rest of the text."""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFontInfo,
    QMouseEvent,
    QPainter,
    QResizeEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

from ...plain.graph.graph_data import GRAD, JUNCTION, LOSS, PARAM
from ...plain.graph.graph_room import window_start
from ...render import style
from ...render.layout import GraphLayout
from .graph_framing import (
    best_framing,
    cut_through_label,
    drawn_rect,
    framing_cost,
    framing_shapes,
    seen_at,
    snapped,
)
from .graph_heat import heat_fraction, heat_range
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
# a focus is framed at most this much larger than the least label size: two boxes fitted
# to a wide panel drew "z now a leaf" at 35 px with nothing around it
FOCUS_MOST = 1.5


class GraphCanvas(QGraphicsView):
    paramClicked = Signal(str)          # a parameter's name
    nodeHovered = Signal(str, bool)     # node id, entering
    nodeDoubleClicked = Signal(str)     # node id (a module box opens in place)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("graphCanvas")
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        # a drag pans and the wheel zooms; scroll bars only took room from the picture,
        # and coming and going as it was framed, they left a fitted graph cut off
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QColor("white"))  # Graphviz-style card in both themes
        self.nodes: dict[str, NodeItem] = {}
        self.edges: list[EdgeItem] = []
        self.graph = None
        self.graph_layout: GraphLayout | None = None
        self.heat: tuple[float, float] | None = None
        self.highlighted: int | None = None
        self._heads_by_node: dict[str, tuple[int, ...]] = {}
        self.text_zoom = 1.0   # the theme's zoom: the fitted picture is drawn this much larger
        self.focus_ids: frozenset[str] = frozenset()   # what the slide is about: framed
        self.least_label_px = 0.0   # > 0: fit() never draws a box's text smaller than this
        self._hidden_labels: list = []   # edge labels fit() hid, cut by the view's edges
        # the user zoomed or panned since the last fit: a resize then keeps their view
        # (else it fits again: a panel that grew or shrank cut the graph off on the right)
        self.user_framed = False
        # the view is as fit() framed it: the Fit button's next press shows the whole
        self.fitted = False

    # ---- content ----------------------------------------------------------------------
    def show_graph(self, graph, layout: GraphLayout) -> None:
        rebuilt = layout is not self.graph_layout
        if rebuilt:
            self._rebuild(layout)
        self.graph = graph
        self._heads_by_node = style.heads_by_node(graph)
        self.heat = heat_range(graph)
        names = style.head_names(graph)
        boxes = any(n.kind in style.BOX_KINDS for n in graph.nodes)
        for node in graph.nodes:
            node_item = self.nodes.get(node.id)
            if node_item is not None:
                node_item.restyle(node, heat_fraction(node.grad_norm, self.heat), names, boxes)
        paths = {(e.src, e.dst, e.kind): e for e in graph.edges}
        badges = [n.badge.mapRectToScene(n.badge.boundingRect())
                  for n in self.nodes.values() if n.badge.isVisibleTo(n)]
        rects = [n.mapRectToScene(n.rect()) for n in self.nodes.values()]
        drawing = QRectF(-20, -20, layout.width + 40, layout.height + 40)   # as Graphviz drew it
        for item in self.edges:
            item.label_scale = CUT_LABEL_SCALE if boxes else 1.0
            item.clear_of, item.boxes, item.bounds = badges, rects, drawing
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
        self.graph_layout = layout
        self.nodes = {}
        self._hidden_labels = []   # (deleted with the scene's items)
        for node_id, box in layout.nodes.items():
            node_item = NodeItem(node_id, box)
            node_item.on_hover = self._hovered
            node_item.on_click = self._clicked
            node_item.on_double_click = self._double_clicked
            scene.addItem(node_item)
            self.nodes[node_id] = node_item
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
        for node_id, node_item in self.nodes.items():
            if head is not None:
                on = head in self._heads_by_node.get(node_id, ())
            else:
                on = not focus or node_id in focus
            node_item.setOpacity(1.0 if on else DIM if head is not None else FOCUS_DIM)
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

    def focus_parts(self) -> list[QRectF]:
        """The scene rectangles of the focus's boxes (badges too) and of a cut's
        "detach()" between two of them (empty: no focus)."""
        parts = [drawn_rect(self.nodes[i]) for i in self.focus_ids if i in self.nodes]
        for item in self.edges:   # a cut's "detach()" between two framed boxes, whole
            p = item.edge_path
            if p.src in self.focus_ids and p.dst in self.focus_ids and item.label.isVisible():
                parts.append(item.label.mapRectToScene(item.label.boundingRect()))
        return parts if any(i in self.nodes for i in self.focus_ids) else []

    def focus_rect(self) -> QRectF | None:
        """The scene rectangle of the focus's boxes, with a margin (None: no focus)."""
        parts = self.focus_parts()
        if not parts:
            return None
        rect = parts[0]
        for r in parts[1:]:
            rect = rect.united(r)
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
        """The whole graph in view, but never its boxes' text below least_label_px: where
        it fits only smaller, the slide's focus (else the junction z where the heads meet)
        framed at that size or larger; at a larger text zoom, that much larger still
        (labels grow with every other text; drag pans, the wheel zooms out). A focus
        grows with the text only as far as it stays whole: the text size applied on top
        of its fit cut the boxes the slide is about. Framed larger than the whole, the
        view is shifted so that its edges cut through no box (see snap_start); a focus
        is framed at most FOCUS_MOST times the least label size. The op
        view (least_label_px 0) frames the focus, else the whole picture."""
        if self.graph_layout is None:
            return
        self.user_framed = False
        self._show_all()
        focus = self.focus_rect()
        whole = self.scene().sceneRect()
        base = self._fit_scale(whole)
        least = self.least_label_px / self._label_px_per_scale()
        legible_whole = bool(self.least_label_px) and base >= least
        if focus is not None and not legible_whole:
            base = max(min(self._fit_scale(focus), least * FOCUS_MOST), least)
        else:
            base = max(base, least)
        factor = self.text_zoom
        if focus is not None and factor != 1.0:   # (never below 1: least_label_px holds)
            spare = focus.adjusted(FOCUS_SPARE, FOCUS_SPARE, -FOCUS_SPARE, -FOCUS_SPARE)
            factor = min(factor, max(1.0, self._fit_scale(spare) / base))
        target = focus or (whole if legible_whole else None)
        self.fitted = True
        # the boxes and the focus in scene units: the same at every scale tried below
        snap = self._snap_rects()
        if not self.least_label_px or legible_whole and factor == 1.0:
            self._frame_at(base * factor, self._placed(target, base * factor, snap))
            return
        # the sizes tried, and which framing wins, are best_framing's; what the edges
        # still cut through is hidden, never shown sliced. The shapes are the same at
        # every scale: measured once, not per option
        shapes = framing_shapes(self.nodes.values(), self.edges, *snap)
        viewport, scene = self.viewport().size(), self.scene().sceneRect()
        # smaller than asked, to clear the edges, only beside a focus (a dimmed neighbour
        # cut at every larger size): the whole graph after Ctrl+= went back to 1.04x, not
        # 1.3x, where a system dot's rows (its own font metrics) fell cut at every larger
        # size; its boxes cut are hidden instead
        scale, middle = best_framing(
            base * factor, least, lambda scale: self._placed(target, scale, snap),
            lambda scale, middle: framing_cost(seen_at(viewport, scene, scale, middle),
                                               scale, shapes),
            shrink_to_clear=focus is not None)
        self._frame_at(scale, middle)
        self._hide_cut_through()

    def fit_or_whole(self) -> None:
        """The Fit button: fit(), its text at a size read from a hall; pressed again where
        that leaves part of the graph out of view, the whole graph however small its text
        (a real model's 18 boxes in a 450x135 panel: the wheel zooms in, drag pans), and
        pressed again, fit() once more."""
        if self.graph_layout is None:
            return
        if not (self.fitted and not self.whole_legible()):
            self.fit()
            return
        self._show_all()
        whole = self.scene().sceneRect()
        self._frame_at(self._fit_scale(whole), whole.center())
        self.user_framed, self.fitted = True, False

    def whole_legible(self) -> bool:
        """Whether the whole graph fits the view with its boxes' text at least
        least_label_px (always, in the op view, which has no least size)."""
        if self.graph_layout is None or not self.least_label_px:
            return True
        least = self.least_label_px / self._label_px_per_scale()
        return self._fit_scale(self.scene().sceneRect()) >= least * 0.999

    def _hide_cut_through(self) -> None:
        """Hide the boxes (not the focus's) the view's edges still cut through their text:
        where no framing at a legible size keeps every box whole or out (the rows' and
        columns' pitch against the panel's), a box sliced to "hea / Lin" read as broken
        from the back of a hall, dimmed or not; its edges still lead off that way."""
        # text within a pixel of the edge counts as in view (a whole one there is whole)
        seen = self.mapToScene(self.viewport().rect()).boundingRect().adjusted(-1, -1, 1, 1)
        for node_id, item in self.nodes.items():
            # never the focus: framed first, and the part the slide is about is better
            # shown a pixel short than not at all
            if node_id not in self.focus_ids and cut_through_label(seen, item):
                item.setVisible(False)
        for edge in self.edges:   # and a cut's "detach()" that would read "deta"
            label = edge.label
            rect = label.mapRectToScene(label.boundingRect())
            if label.isVisible() and rect.intersects(seen) and not seen.contains(rect):
                label.setVisible(False)
                self._hidden_labels.append(label)

    def _show_all(self) -> None:
        """Every box shown again (a new framing, or the user's own, hides none)."""
        for item in self.nodes.values():
            if not item.isVisible():
                item.setVisible(True)
        for label in self._hidden_labels:
            label.setVisible(True)
        self._hidden_labels = []

    def _frame_at(self, scale: float, middle: QPointF) -> None:
        self.setTransform(QTransform.fromScale(scale, scale))
        self.centerOn(middle)

    def _fit_scale(self, rect: QRectF) -> float:
        """The scale at which rect (scene) just fits the view, as fitInView's."""
        view = self.viewport().rect().adjusted(2, 2, -2, -2)   # fitInView's margin
        if rect.width() <= 0 or rect.height() <= 0:
            return 1.0
        return min(view.width() / rect.width(), view.height() / rect.height())

    def _label_px_per_scale(self) -> float:
        """A box's smallest text in view pixels at scene scale 1 (1: no boxes)."""
        sizes = [QFontInfo(item.text.font()).pixelSize() * item.text.scale()
                 for item in self.nodes.values() if item.text.text()]
        return min(sizes, default=1.0) or 1.0

    def _snap_rects(self) -> tuple[list[QRectF], list[QRectF]]:
        """The focus's parts and each box as drawn (its badge too), in scene units: what
        _placed judges a view by, the same at every scale a fit tries (measured once).
        The boxes only where they are snapped to (a least label size: the module view);
        the op view's hundreds of nodes are not measured for nothing."""
        boxes = [drawn_rect(item) for item in self.nodes.values()] \
            if self.least_label_px else []
        return self.focus_parts(), boxes

    def _placed(self, target: QRectF | None, scale: float,
                snap: tuple[list[QRectF], list[QRectF]]) -> QPointF:
        """The scene point to centre the view on at scale: target's middle (None: the
        junction's, else the scene's); along an axis where target is longer than the
        view, where the most of the focus's boxes are whole (see window_start: from the
        focus's start, lesson 02's heads lay below a view of the input and the trunk),
        else the whole's start. In the module view, shifted so that no box is cut
        through by the view's edges."""
        vw = self.viewport().width() / scale
        vh = self.viewport().height() / scale
        middle = self._middle(target or self.scene().sceneRect())
        x0, y0 = middle.x() - vw / 2, middle.y() - vh / 2
        parts, boxes = snap   # what _snap_rects() measured
        if target is not None:
            scene = self.scene().sceneRect()
            if target.width() > vw:
                x0 = window_start(vw, [(r.left(), r.right()) for r in parts],
                                  (scene.left(), scene.right()), target.left())
            if target.height() > vh:
                y0 = window_start(vh, [(r.top(), r.bottom()) for r in parts],
                                  (scene.top(), scene.bottom()), target.top())
        if self.least_label_px:
            x0, y0 = snapped(x0, y0, vw, vh, boxes, parts, self.scene().sceneRect())
        return QPointF(x0 + vw / 2, y0 + vh / 2)

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
        if self.graph_layout is None or factor == 1.0:
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
        self._show_all()
        self.fitted = False
        anchor = self.transformationAnchor()
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.scale(factor, factor)
        self.setTransformationAnchor(anchor)

    def zoom(self, factor: float) -> None:
        self.scale(factor, factor)
        self.user_framed, self.fitted = True, False
        self._show_all()

    def wheelEvent(self, event: QWheelEvent) -> None:   # noqa: N802 (Qt's name)
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom(ZOOM_STEP ** steps)
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:   # noqa: N802 (Qt's name)
        if event.buttons():   # a drag pans the picture
            self.user_framed, self.fitted = True, False
            self._show_all()
        super().mouseMoveEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:   # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if not self.user_framed:
            self.fit()
